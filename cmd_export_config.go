package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"crewbench/crew/lint"
	"crewbench/crew/project"
	"crewbench/crew/writeback"
	"crewbench/mcpconn"
	"crewbench/session"
)

type exportConfigOptions struct {
	format  string
	servers []string
	allow   []string
	block   []string
	write   bool
	yes     bool
	overlay string
	connect bool
	timeout time.Duration
}

func newExportConfigCmd() *cobra.Command {
	o := &exportConfigOptions{}
	cmd := &cobra.Command{
		Use:   "export-config [PATH]",
		Short: "Write the project's MCP servers and tool filters back as CrewAI config",
		// Findings and config quote placeholders and env lookups on
		// purpose; only known secret values are hidden.
		Annotations: quotesConfig,
		Long: `export-config prints the project's MCP servers and tool filters as CrewAI config:

  --format mcps        the "mcps": [...] list of an agent file (crew.jsonc projects)
  --format python      MCPServerStdio/HTTP/SSE(...) calls and imports for a classic crew.py
  --format mcpservers  an mcpServers JSON file (Claude Desktop, Claude Code, Cursor)

The default is the format of the project that was opened. --allow and --block
replace one server's static filter (names as CrewAI compares them: sanitized,
e.g. get_forecast). Secrets are never written: values from .env or that look
like credentials become os.environ["X"] / "${X}" references.

Filter entries are written as CrewAI compares them (sanitized: getForecast
becomes get_forecast, with a note), the form lint checks. A remote server
crewbench holds an OAuth token for (crewbench auth login) gets the header
CrewAI needs, headers={"Authorization": f"Bearer {os.environ['NAME_TOKEN']}"}:
CrewAI never runs the OAuth flow itself. --connect first lists the tools of
each HTTP/SSE server crewbench holds no token for, sending only the
configured headers as CrewAI does: one that answers 401 Unauthorized gets
that header too, with a note on getting a token. Python is wrapped at 88 columns,
only where Python allows a line break.

--write edits the project's own file instead (the agent's .jsonc or crew.py):
only the server's tool_filter changes, laid out as the old one was; comments
and formatting elsewhere are kept byte for byte. A unified diff is shown
first, a backup is kept in .crewbench/backups/ in the project (git-ignored,
outside the Python package), and the change is made only after you confirm
(or with --yes). crewbench.yaml is never written.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			return runExportConfig(cmd, o, path)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "", "mcps, python or mcpservers (default: the project's own format)")
	f.StringArrayVar(&o.servers, "server", nil, "export only this server `NAME` (repeatable; see crewbench tools)")
	f.StringSliceVar(&o.allow, "allow", nil, "allowed_tool_names for the --server (repeatable or comma-separated; empty clears)")
	f.StringSliceVar(&o.block, "block", nil, "blocked_tool_names for the --server (repeatable or comma-separated; empty clears)")
	f.BoolVar(&o.write, "write", false, "write the filter into the project's file (shows a diff, keeps a backup)")
	f.BoolVar(&o.yes, "yes", false, "with --write: do not ask for confirmation")
	f.StringVarP(&o.overlay, "config", "c", "", "crewbench.yaml overlay `FILE` (default: the one beside the project)")
	f.BoolVar(&o.connect, "connect", false, "list the HTTP/SSE servers' tools first, as CrewAI connects: a server answering 401 gets the OAuth Authorization header")
	f.DurationVar(&o.timeout, "server-timeout", lint.DefaultServerTimeout, "with --connect: how long one server may take to list its tools")
	return cmd
}

func runExportConfig(cmd *cobra.Command, o *exportConfigOptions, path string) error {
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	p, err := project.Open(path, o.overlay)
	markProjectSecrets(p)
	if p == nil {
		return exitCode(1, fmt.Errorf("export-config: %w", err))
	}
	var loadErrs project.Errors
	if errors.As(err, &loadErrs) {
		fmt.Fprintf(errw, "warning: the project has %d load error(s); `crewbench lint` lists them\n", len(loadErrs))
	}
	changeAllow, changeBlock := cmd.Flags().Changed("allow"), cmd.Flags().Changed("block")
	filters := map[string]mcpconn.FilterSpec{}
	if changeAllow || changeBlock {
		if len(o.servers) != 1 {
			return exitCode(1, errors.New("export-config: --allow/--block change one server's filter: give exactly one --server"))
		}
		s := p.Server(o.servers[0])
		if s == nil {
			return exitCode(1, fmt.Errorf("export-config: no server %q (the project has: %s)", o.servers[0], strings.Join(p.ServerNames(), ", ")))
		}
		fs := s.Spec.Filter
		if changeAllow {
			fs.Allowed = nonEmpty(o.allow)
		}
		if changeBlock {
			fs.Blocked = nonEmpty(o.block)
		}
		filters[s.Name] = fs
	}
	held := oauthTokenHeld()
	var refused map[string]bool
	if o.connect {
		refused = refusedServers(cmd.Context(), p, o.servers, held, o.timeout, errw)
	}
	if o.write {
		for _, s := range p.Servers {
			if refused[s.Name] {
				fmt.Fprintf(errw, "note: %s answered 401 Unauthorized: --write changes only its tool_filter; export it without --write for the Authorization header CrewAI needs\n", s.Name)
			}
		}
		return writeFilters(cmd, o, p, filters)
	}
	format := writeback.DefaultFormat(p)
	if o.format != "" {
		if format, err = writeback.ParseFormat(o.format); err != nil {
			return exitCode(1, fmt.Errorf("export-config: %w", err))
		}
	}
	wantsOAuth := exportOAuth(p, held, func(name string) bool { return refused[name] })
	res, err := writeback.Export(p, format, writeback.Options{Servers: o.servers, Filters: filters, OAuth: wantsOAuth})
	if err != nil {
		return exitCode(1, err)
	}
	if _, err := io.WriteString(out, res.Text); err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(errw, "note: %s\n", n)
	}
	return nil
}

// refusedServers lists the tools of the selected HTTP/SSE servers that
// crewbench holds no token for (a held token already gets the header),
// concurrently, each within timeout, with the configured headers only —
// no stored token, as CrewAI connects — and returns the names of those
// that answered 401 Unauthorized. A server that could not be listed for
// another reason gets a note: the export cannot tell what it wants.
func refusedServers(ctx context.Context, p *project.Project, only []string, held func(string) bool, timeout time.Duration, errw io.Writer) map[string]bool {
	var todo []*project.Server
	for _, s := range p.Servers {
		if (len(only) > 0 && !slices.Contains(only, s.Name)) || s.Spec.Transport == mcpconn.TransportStdio ||
			s.Spec.URL == "" || held(s.Spec.URL) {
			continue
		}
		if ok, why := s.Ready(p); !ok {
			fmt.Fprintf(errw, "note: %s was not connected: %s\n", s.Name, why)
			continue
		}
		todo = append(todo, s)
	}
	found := make([]*mcpconn.Discovery, len(todo))
	var wg sync.WaitGroup
	for i, s := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			spec := s.Spec
			spec.Faults = nil // the server itself, not injected what-ifs
			found[i], _ = mcpconn.Discover(sctx, spec, mcpconn.Options{Cache: &mcpconn.ToolsCache{}})
		}()
	}
	wg.Wait()
	refused := map[string]bool{}
	for i, d := range found {
		s := todo[i]
		switch {
		case d == nil || d.Outcome == session.OutcomeOK:
		case mcpconn.Unauthorized(s.Spec, d.Outcome, d.Error+" "+d.CrewAIError):
			refused[s.Name] = true
		default:
			fmt.Fprintf(errw, "note: %s could not be listed (%s): exported as configured\n", s.Name, mcpconn.RedactText(s.Spec, d.Error))
		}
	}
	return refused
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// writeFilters plans the edits, shows the diff, asks, and applies.
func writeFilters(cmd *cobra.Command, o *exportConfigOptions, p *project.Project, filters map[string]mcpconn.FilterSpec) error {
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if len(o.servers) == 0 {
		return exitCode(1, fmt.Errorf("export-config --write: name the server to write with --server (the project has: %s)", strings.Join(p.ServerNames(), ", ")))
	}
	if o.format != "" {
		return exitCode(1, errors.New("export-config: --write edits the project's own file in its own format; drop --format"))
	}
	var edits []*writeback.Edit
	for _, name := range o.servers {
		s := p.Server(name)
		if s == nil {
			return exitCode(1, fmt.Errorf("export-config: no server %q (the project has: %s)", name, strings.Join(p.ServerNames(), ", ")))
		}
		f, ok := filters[name]
		if !ok {
			f = s.Spec.Filter // e.g. a filter tried in crewbench.yaml, written into the crew
		}
		if f.Expr != "" {
			return exitCode(1, fmt.Errorf("export-config: %s has a CEL filter, which CrewAI files cannot hold; give --allow/--block names", name))
		}
		es, err := writeback.PlanFilter(p, name, f.Allowed, f.Blocked)
		if err != nil {
			return exitCode(1, fmt.Errorf("export-config: %w", err))
		}
		edits = append(edits, es...)
	}
	if len(edits) == 0 {
		fmt.Fprintln(out, "nothing to change: the files already hold this filter")
		return nil
	}
	var shown []string
	for _, e := range edits {
		for _, n := range e.Notes {
			fmt.Fprintf(errw, "note: %s\n", n)
		}
		io.WriteString(out, e.Diff)
		shown = append(shown, e.Shown)
	}
	if !o.yes {
		fmt.Fprintf(errw, "Write these changes to %s (a backup of each file is kept)? [y/N] ", strings.Join(shown, ", "))
		line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(errw, "not written (answer y, or pass --yes)")
			return silentExit{code: 1}
		}
	}
	for _, e := range edits {
		backup, err := e.Apply()
		if err != nil {
			return exitCode(1, fmt.Errorf("export-config: %w", err))
		}
		fmt.Fprintf(out, "wrote %s (backup: %s)\n", e.Shown, relOrAbs(p.Dir, backup))
	}
	return nil
}

func relOrAbs(dir, path string) string {
	if r := strings.TrimPrefix(path, dir+"/"); r != path {
		return r
	}
	return path
}
