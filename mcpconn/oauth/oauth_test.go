package oauth_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/mcpconn/oauth"
	"crewbench/mcpconn/oauth/oauthtest"
	"crewbench/session"
)

func newClient(t *testing.T, cfg oauth.Config) (*oauth.Client, *oauth.Store) {
	t.Helper()
	st := &oauth.Store{Path: filepath.Join(t.TempDir(), "state", "crewbench", "oauth-tokens.json")}
	cfg.Store = st
	cfg.Headless = true
	cfg.Interactive = true
	cfg.HTTPTimeout = 5 * time.Second
	cfg.Log = func(s string) { t.Log(s) }
	return oauth.New(cfg), st
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// get sends one request to the fake's MCP endpoint through the client's
// transport and returns the status.
func get(t *testing.T, c *oauth.Client, fake *oauthtest.Server, body string) int {
	t.Helper()
	hc := &http.Client{Transport: c.Transport(fake.MCPURL(), http.DefaultTransport)}
	req, _ := http.NewRequestWithContext(ctx(t), http.MethodPost, fake.MCPURL(), strings.NewReader(body))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestDiscoveryVariants(t *testing.T) {
	cases := []struct {
		name   string
		opts   oauthtest.Options
		header bool
		want   []string // requests, in order, up to the AS metadata
		legacy bool
	}{
		{"resource_metadata from WWW-Authenticate", oauthtest.Options{PRMPath: "/custom/prm.json", PRMInHeader: true}, true,
			[]string{"GET /custom/prm.json", "GET /.well-known/oauth-authorization-server"}, false},
		{"path-based well-known first", oauthtest.Options{}, false,
			[]string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server"}, false},
		{"root well-known after path-based", oauthtest.Options{PRMPath: "/.well-known/oauth-protected-resource"}, false,
			[]string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource", "GET /.well-known/oauth-authorization-server"}, false},
		{"issuer with a path: RFC 8414 inserted", oauthtest.Options{IssuerPath: "/tenant1"}, false,
			[]string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server/tenant1"}, false},
		{"issuer with a path: OpenID appended last", oauthtest.Options{IssuerPath: "/tenant1", ASMetadataPath: "/tenant1/.well-known/openid-configuration"}, false,
			[]string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server/tenant1",
				"GET /.well-known/openid-configuration/tenant1", "GET /tenant1/.well-known/openid-configuration"}, false},
		{"OpenID at the root", oauthtest.Options{ASMetadataPath: "/.well-known/openid-configuration"}, false,
			[]string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server", "GET /.well-known/openid-configuration"}, false},
		{"2025-03-26: no PRM, AS metadata at the root", oauthtest.Options{PRMPath: "-"}, false,
			[]string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource", "GET /.well-known/oauth-authorization-server"}, true},
		{"2025-03-26: no metadata, default endpoints", oauthtest.Options{PRMPath: "-", ASMetadataPath: "-"}, false,
			[]string{"GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource", "GET /.well-known/oauth-authorization-server"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := oauthtest.New(tc.opts)
			defer fake.Close()
			c, _ := newClient(t, oauth.Config{})
			var ch oauth.Challenge
			if tc.header {
				ch.ResourceMetadata = fake.URL + tc.opts.PRMPath
			}
			d, err := c.Discover(ctx(t), fake.MCPURL(), ch)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(fake.Seen().Requests, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(fake.Seen().Requests, "\n"), strings.Join(tc.want, "\n"))
			}
			if d.Legacy != tc.legacy {
				t.Errorf("legacy = %v", d.Legacy)
			}
			if !strings.HasSuffix(d.Server.TokenEndpoint, "/token") || !strings.HasSuffix(d.Server.AuthorizationEndpoint, "/authorize") {
				t.Errorf("endpoints %+v", d.Server)
			}
			if d.Resource != fake.MCPURL() && d.Resource != fake.URL {
				t.Errorf("resource %q", d.Resource)
			}
			// And the whole flow works against it.
			if _, err := c.Login(ctx(t), fake.MCPURL(), ch, ""); err != nil {
				t.Fatalf("login: %v", err)
			}
		})
	}
}

func TestParseChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x"`)
	h.Add("WWW-Authenticate", `Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"`)
	got := oauth.ParseChallenge(h)
	want := oauth.Challenge{ResourceMetadata: "https://h/.well-known/oauth-protected-resource/mcp", Scope: "a b", Error: "insufficient_scope"}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	h = http.Header{"Www-Authenticate": {`Bearer realm=mcp, scope=read`}}
	if got := oauth.ParseChallenge(h); got.Scope != "read" {
		t.Fatalf("token-form scope: %+v", got)
	}
}

func TestLoginDCRPKCEResourceAndStore(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true})
	defer fake.Close()
	c, st := newClient(t, oauth.Config{})
	tok, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, "")
	if err != nil {
		t.Fatal(err) // the fake refuses a wrong PKCE verifier, state or redirect
	}
	if fake.Seen().Registrations != 1 {
		t.Errorf("registrations = %d, want 1", fake.Seen().Registrations)
	}
	aq, tf := fake.Seen().AuthQueries[0], fake.Seen().TokenForms[0]
	if aq.Get("resource") != fake.MCPURL() || tf.Get("resource") != fake.MCPURL() {
		t.Errorf("resource: authorization %q, token %q, want %q", aq.Get("resource"), tf.Get("resource"), fake.MCPURL())
	}
	if aq.Get("code_challenge_method") != "S256" || len(tf.Get("code_verifier")) < 43 {
		t.Errorf("PKCE: %v / %v", aq, tf)
	}
	if aq.Has("scope") {
		t.Errorf("scope sent although none is defined: %q", aq.Get("scope"))
	}
	fi, err := os.Stat(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	got, _ := st.Get(fake.MCPURL() + "/")
	if got == nil || got.AccessToken != tok.AccessToken {
		t.Fatalf("stored token %+v", got)
	}
	if red := session.RedactString("x " + tok.AccessToken + " " + tok.RefreshToken); strings.Contains(red, tok.AccessToken) || strings.Contains(red, tok.RefreshToken) {
		t.Errorf("tokens not marked secret: %q", red)
	}
	// A second login reuses the registered client.
	if _, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, ""); err != nil {
		t.Fatal(err)
	}
	if fake.Seen().Registrations != 1 {
		t.Errorf("registered again: %d", fake.Seen().Registrations)
	}
}

func TestScopeSelection(t *testing.T) {
	cases := []struct {
		name string
		opts oauthtest.Options
		ch   oauth.Challenge
		want string
	}{
		{"from WWW-Authenticate", oauthtest.Options{ScopesSupported: []string{"a", "b"}}, oauth.Challenge{Scope: "mcp:basic"}, "mcp:basic"},
		{"from scopes_supported", oauthtest.Options{ScopesSupported: []string{"a", "b", "c"}}, oauth.Challenge{}, "a b c"},
		{"omitted when undefined", oauthtest.Options{}, oauth.Challenge{}, ""},
		{"offline_access when the AS lists it", oauthtest.Options{ScopesSupported: []string{"a"}, ASScopesSupported: []string{"a", "offline_access"}}, oauth.Challenge{}, "a offline_access"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := oauthtest.New(tc.opts)
			defer fake.Close()
			c, _ := newClient(t, oauth.Config{})
			if _, err := c.Login(ctx(t), fake.MCPURL(), tc.ch, ""); err != nil {
				t.Fatal(err)
			}
			if got := fake.Seen().AuthQueries[0].Get("scope"); got != tc.want {
				t.Errorf("scope %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTransportLoginOn401AndStepUp(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true, ChallengeScope: "read", RequiredScopes: []string{"read"}, WriteScopes: []string{"write"}})
	defer fake.Close()
	c, _ := newClient(t, oauth.Config{})
	if got := get(t, c, fake, `{"method":"tools/list"}`); got != 200 {
		t.Fatalf("tools/list: %d", got)
	}
	if got := get(t, c, fake, `{"method":"tools/call"}`); got != 200 {
		t.Fatalf("tools/call after step-up: %d", got)
	}
	if len(fake.Seen().AuthQueries) != 2 {
		t.Fatalf("authorization requests = %d, want 2 (login, step-up)", len(fake.Seen().AuthQueries))
	}
	if got := fake.Seen().AuthQueries[1].Get("scope"); got != "read write" {
		t.Errorf("step-up scope %q, want %q", got, "read write")
	}
	// The stored token is reused: no further flow.
	if got := get(t, c, fake, `{"method":"tools/list"}`); got != 200 || len(fake.Seen().AuthQueries) != 2 {
		t.Errorf("reuse: %d, %d authorizations", got, len(fake.Seen().AuthQueries))
	}
}

// A server that keeps answering insufficient_scope gets a bounded number
// of authorization attempts, not a loop.
func TestStepUpRetryLimit(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true, ChallengeScope: "read", RequiredScopes: []string{"read", "never-granted"}})
	defer fake.Close()
	c, _ := newClient(t, oauth.Config{Scope: "read"}) // the user pinned the scope: the AS never grants more
	for range 5 {
		if got := get(t, c, fake, `{"method":"tools/list"}`); got != http.StatusForbidden {
			t.Fatalf("status %d, want 403", got)
		}
	}
	if n := len(fake.Seen().AuthQueries); n > 1+oauth.MaxStepUps {
		t.Fatalf("%d authorization requests, want at most %d", n, 1+oauth.MaxStepUps)
	}
}

func TestNonInteractiveDoesNotRunTheFlow(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true})
	defer fake.Close()
	st := &oauth.Store{Path: filepath.Join(t.TempDir(), "tokens.json")}
	c := oauth.New(oauth.Config{Store: st, Headless: true})
	if got := get(t, c, fake, `{}`); got != 401 {
		t.Fatalf("status %d, want 401", got)
	}
	if len(fake.Seen().AuthQueries) != 0 {
		t.Fatal("ran a flow without being asked")
	}
}

func TestRefreshExpiredToken(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true, ExpiresIn: 60})
	defer fake.Close()
	now := time.Now()
	c, st := newClient(t, oauth.Config{Now: func() time.Time { return now }})
	first, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, "")
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute) // past expiry
	if got := get(t, c, fake, `{}`); got != 200 {
		t.Fatalf("status %d", got)
	}
	last := fake.Seen().TokenForms[len(fake.Seen().TokenForms)-1]
	if last.Get("grant_type") != "refresh_token" || last.Get("refresh_token") != first.RefreshToken || last.Get("resource") != fake.MCPURL() {
		t.Fatalf("last token request %v", last)
	}
	if len(fake.Seen().AuthQueries) != 1 {
		t.Errorf("a new authorization instead of a refresh")
	}
	cur, _ := st.Get(fake.MCPURL())
	if cur.AccessToken == first.AccessToken || fake.Bearers()[len(fake.Bearers())-1] != "Bearer "+cur.AccessToken {
		t.Errorf("the refreshed token was not stored and sent")
	}
}

func TestClientCredentials(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true, GrantTypes: []string{"client_credentials"},
		AuthMethods: []string{"client_secret_basic"}, ClientID: "machine", ClientSecret: "s3cret-machine", ScopesSupported: []string{"jobs"}})
	defer fake.Close()
	c, _ := newClient(t, oauth.Config{ClientID: "machine", ClientSecret: "s3cret-machine"})
	if got := get(t, c, fake, `{}`); got != 200 {
		t.Fatalf("status %d", got)
	}
	f := fake.Seen().TokenForms[0]
	if f.Get("grant_type") != "client_credentials" || f.Get("resource") != fake.MCPURL() || f.Get("scope") != "jobs" ||
		fake.Seen().TokenAuth[0] != "client_secret_basic" || len(fake.Seen().AuthQueries) != 0 {
		t.Fatalf("token request %v via %s, %d authorizations", f, fake.Seen().TokenAuth[0], len(fake.Seen().AuthQueries))
	}
}

func TestTokenEndpointAuthMethods(t *testing.T) {
	for _, m := range []string{"client_secret_basic", "client_secret_post", "none"} {
		t.Run(m, func(t *testing.T) {
			fake := oauthtest.New(oauthtest.Options{AuthMethods: []string{m}})
			defer fake.Close()
			c, _ := newClient(t, oauth.Config{})
			if _, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, ""); err != nil {
				t.Fatal(err)
			}
			if fake.Seen().TokenAuth[0] != m {
				t.Fatalf("authenticated with %s, want %s", fake.Seen().TokenAuth[0], m)
			}
		})
	}
}

func TestPreRegisteredClientWithoutDCR(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{NoDCR: true, AuthMethods: []string{"client_secret_basic"}, ClientID: "pre", ClientSecret: "pre-secret"})
	defer fake.Close()
	c, _ := newClient(t, oauth.Config{})
	if _, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, ""); err == nil || !strings.Contains(err.Error(), "no dynamic client registration") {
		t.Fatalf("without a client id: %v", err)
	}
	c, _ = newClient(t, oauth.Config{ClientID: "pre", ClientSecret: "pre-secret"})
	if _, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, ""); err != nil {
		t.Fatal(err)
	}
	if fake.Seen().AuthQueries[0].Get("client_id") != "pre" || fake.Seen().TokenAuth[0] != "client_secret_basic" {
		t.Fatalf("client %q via %s", fake.Seen().AuthQueries[0].Get("client_id"), fake.Seen().TokenAuth[0])
	}
}

func TestClientIDMetadataDocument(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{})
	defer fake.Close()
	// The fake does not advertise support: dynamic registration is used.
	c, _ := newClient(t, oauth.Config{ClientMetadataURL: "https://example.test/crewbench.json"})
	if _, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, ""); err != nil {
		t.Fatal(err)
	}
	if fake.Seen().Registrations != 1 || strings.HasPrefix(fake.Seen().AuthQueries[0].Get("client_id"), "https://") {
		t.Fatalf("used the metadata document without server support")
	}
}

func TestResourceMismatchIsRefused(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{Resource: "https://evil.example.com/mcp"})
	defer fake.Close()
	c, _ := newClient(t, oauth.Config{})
	_, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, "")
	if err == nil || !strings.Contains(err.Error(), "refusing") || len(fake.Seen().AuthQueries) != 0 {
		t.Fatalf("err %v, %d authorization requests", err, len(fake.Seen().AuthQueries))
	}
}

func TestCanonicalURL(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://Example.COM/mcp/": "https://example.com/mcp",
		"https://example.com/":     "https://example.com",
		"https://example.com/a#t":  "https://example.com/a",
	} {
		if got := oauth.CanonicalURL(in); got != want {
			t.Errorf("CanonicalURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The loopback callback answers the browser before the flow goes on: the
// page that says the tab can be closed reaches it whole, never a closed
// connection (the listener shuts once the code is taken). Several logins,
// as the race between the answer and the shutdown was lost only now and
// then.
func TestBrowserLoginAnswersTheBrowser(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true})
	defer fake.Close()
	type page struct {
		body string
		err  error
	}
	pages := make(chan page, 1)
	c := oauth.New(oauth.Config{Store: &oauth.Store{Path: filepath.Join(t.TempDir(), "oauth-tokens.json")},
		Interactive: true, HTTPTimeout: 5 * time.Second, OpenBrowser: func(u string) error {
			go func() {
				resp, err := http.Get(u)
				if err != nil {
					pages <- page{err: err}
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				pages <- page{body: string(b), err: err}
			}()
			return nil
		}})
	for i := range 20 {
		if _, err := c.Login(ctx(t), fake.MCPURL(), oauth.Challenge{}, ""); err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
		select {
		case p := <-pages:
			if p.err != nil || !strings.Contains(p.body, "authorized; you can close this tab") {
				t.Fatalf("login %d: the browser got %q, %v", i, p.body, p.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("login %d: the browser got no answer", i)
		}
	}
}
