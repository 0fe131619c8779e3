package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"crewbench/mcpconn"
	"crewbench/mcpconn/oauth"
	"crewbench/session"
)

// Environment variables that configure crewbench's OAuth client, so a
// secret need not be on the command line (and a harness can set them).
const (
	envOAuthClientID     = "CREWBENCH_OAUTH_CLIENT_ID"
	envOAuthClientSecret = "CREWBENCH_OAUTH_CLIENT_SECRET"
	envOAuthMetadataURL  = "CREWBENCH_OAUTH_CLIENT_METADATA_URL"
	envOAuthPrivateKey   = "CREWBENCH_OAUTH_PRIVATE_KEY" // PEM text
	envOAuthGrant        = "CREWBENCH_OAUTH_GRANT"       // "client_credentials"
)

func newAuthCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in to remote MCP servers with OAuth (crewbench's own calls; CrewAI does not do this)",
		Long: `auth obtains, shows and removes OAuth tokens for streamable HTTP and SSE
MCP servers, following the MCP authorization spec (2025-11-25): protected
resource metadata, authorization server metadata, client registration
(pre-registered, client metadata document or dynamic), PKCE and the
resource parameter. Tokens are kept per server URL in a 0600 file,
$XDG_STATE_HOME/crewbench/oauth-tokens.json, refreshed when they expire,
and never shown or recorded.

crewbench's own connections send a stored token: the session policy
(smoke, call --policy session, the workbench's Try), listing tools (tools,
the workbench's servers view, whose L logs in). CrewAI's call policies send
only the configured headers, as CrewAI itself never does the OAuth dance: a
crew needs the token in its server's headers, e.g.
  headers={"Authorization": f"Bearer {os.environ['MCP_TOKEN']}"}`,
	}
	cmd.AddCommand(newAuthLoginCmd(), newAuthStatusCmd(), newAuthLogoutCmd())
	return cmd
}

func newAuthLoginCmd() *cobra.Command {
	var f oauthClientFlags
	var sse bool
	cmd := &cobra.Command{
		Use:   "login URL",
		Short: "Authorize crewbench for a server and store the token",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url := args[0]
			markURLSecrets(url)
			if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
				return exitCode(exitUsage, fmt.Errorf("%q is not an http(s) URL", url))
			}
			cfg, err := f.config(cmd.ErrOrStderr())
			if err != nil {
				return exitCode(exitUsage, err)
			}
			ctx := cmd.Context()
			ch, err := probeChallenge(ctx, url, sse)
			if err != nil {
				return exitCode(exitConnection, err)
			}
			t, err := oauth.New(cfg).Login(ctx, url, ch, "")
			if err != nil {
				return exitCode(exitConnection, fmt.Errorf("login to %s: %w", url, err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s (%s)\n", oauth.CanonicalURL(url), describeToken(t, time.Now()))
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().BoolVar(&sse, "sse", false, "the URL is a legacy HTTP+SSE endpoint")
	return cmd
}

// describeToken says what a token is good for, never the token itself.
func describeToken(t *oauth.Token, now time.Time) string {
	parts := []string{"client " + t.Client.ID}
	if t.Scope != "" {
		parts = append(parts, "scope "+t.Scope)
	}
	switch {
	case t.Expiry.IsZero():
		parts = append(parts, "no expiry")
	case now.After(t.Expiry):
		parts = append(parts, "expired "+t.Expiry.Format(time.RFC3339))
	default:
		parts = append(parts, "expires in "+t.Expiry.Sub(now).Round(time.Second).String())
	}
	if t.RefreshToken != "" {
		parts = append(parts, "refreshable")
	}
	return strings.Join(parts, ", ")
}

func newAuthStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status [URL]",
		Short: "Show the stored tokens (never their values)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := authStore()
			if err != nil {
				return exitCode(exitUsage, err)
			}
			servers := args
			for _, s := range servers {
				markURLSecrets(s)
			}
			if len(servers) == 0 {
				if servers, err = st.Servers(); err != nil {
					return exitCode(exitUsage, err)
				}
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			missing := false
			for _, s := range servers {
				t, err := st.Get(s)
				if err != nil {
					return exitCode(exitUsage, err)
				}
				if t == nil {
					fmt.Fprintf(w, "%s\tnot logged in\n", oauth.CanonicalURL(s))
					missing = true
					continue
				}
				fmt.Fprintf(w, "%s\t%s\n", oauth.CanonicalURL(s), describeToken(t, time.Now()))
			}
			if len(servers) == 0 {
				fmt.Fprintf(w, "no stored tokens (%s)\n", st.Path)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if missing && len(args) > 0 {
				return silentExit{code: exitConnection}
			}
			return nil
		},
	}
}

func newAuthLogoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout URL",
		Short: "Forget the stored token of a server",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := authStore()
			if err != nil {
				return exitCode(exitUsage, err)
			}
			markURLSecrets(args[0])
			ok, err := st.Delete(args[0])
			if err != nil {
				return exitCode(exitUsage, err)
			}
			if !ok {
				return exitCode(exitUsage, errors.New("no stored token for "+oauth.CanonicalURL(args[0])))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged out of %s\n", oauth.CanonicalURL(args[0]))
			return nil
		},
	}
}

// markURLSecrets marks the password and the credential parameters of a URL
// the user gave process-wide: the auth commands' error lines quote the URL
// (crewbench's own error line hides only marked values) and an HTTP
// client's error repeats its query.
func markURLSecrets(url string) {
	session.AddSecretValues(mcpconn.URLSecrets(url)...)
}
