// Package writeback writes a project's MCP servers and tool filters back out
// as CrewAI config: the mcps entries of an agent in crew.jsonc, the
// MCPServerStdio/HTTP/SSE calls of a classic crew.py, or an mcpServers JSON
// file. Secrets are never written literally: values that came from .env or
// the environment, or that look like credentials, become references
// (os.environ["X"] in Python, "${X}" in JSON).
//
// It also edits a project's own files when asked (PlanFilter, then Edit.Apply):
// only the tool_filter of one server's declaration changes, found by the
// positions crew/project keeps, so comments and formatting elsewhere stay
// byte for byte; a unified diff is produced first and a backup is kept.
package writeback

import (
	"fmt"
	"sort"
	"strings"

	"crewbench/crew/project"
	"crewbench/mcpconn"
)

// Format is an output format of Export.
type Format string

// Formats.
const (
	// FormatMCPs is the "mcps": [...] list of an agent file (crew.jsonc
	// projects), JSONC with comments for what the format cannot express.
	FormatMCPs Format = "mcps"
	// FormatPython is a snippet for a classic crew.py: imports, one
	// MCPServer… call per server and an mcps list.
	FormatPython Format = "python"
	// FormatMCPServers is an mcpServers JSON file (Claude Desktop, Claude
	// Code .mcp.json, Cursor).
	FormatMCPServers Format = "mcpservers"
)

// ParseFormat accepts a format name.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mcps", "json", "jsonc", "crew.jsonc":
		return FormatMCPs, nil
	case "python", "py", "crew.py":
		return FormatPython, nil
	case "mcpservers", "mcp.json", "mcp-servers":
		return FormatMCPServers, nil
	}
	return "", fmt.Errorf("unknown format %q (want mcps, python or mcpservers)", s)
}

// DefaultFormat is the format a project of this kind is written in.
func DefaultFormat(p *project.Project) Format {
	switch p.Kind {
	case project.KindClassic:
		return FormatPython
	case project.KindMCPServers:
		return FormatMCPServers
	}
	return FormatMCPs
}

// Options select what Export writes.
type Options struct {
	// Servers are project server names to export; empty means all.
	Servers []string
	// Filters replace the static filter of a server (by name) in the output,
	// e.g. what the user tried in the filter playground.
	Filters map[string]mcpconn.FilterSpec
	// OAuth names the servers that want an OAuth access token, and how
	// that is known. CrewAI never runs an OAuth flow, so such an HTTP or
	// SSE server without an Authorization header is written with one that
	// reads the token from $<SERVER>_TOKEN (TokenEnvVar), and a note says
	// where the token comes from.
	OAuth map[string]OAuthReason
	// Width is the line width Python output is wrapped at (WrapPython);
	// 0 is DefaultWidth.
	Width int
}

// OAuthReason is how an export knows that a server wants an OAuth token.
type OAuthReason int

// OAuth reasons.
const (
	// OAuthNone: nothing says the server wants one.
	OAuthNone OAuthReason = iota
	// OAuthTokenHeld: crewbench holds a token for the server's URL
	// (crewbench auth login).
	OAuthTokenHeld
	// OAuthRefused: listing the server's tools with the configured
	// headers only, as CrewAI connects, was answered 401 Unauthorized.
	OAuthRefused
)

// Result is an export.
type Result struct {
	Format Format
	Text   string
	// Notes say what the format could not express or what the user must
	// still do (set an environment variable the output refers to).
	Notes []string
}

// Export renders the selected servers in format.
func Export(p *project.Project, format Format, opts Options) (Result, error) {
	servers, err := selectServers(p, opts.Servers)
	if err != nil {
		return Result{}, err
	}
	x := newExporter(p, opts.Filters)
	x.format, x.oauth = format, opts.OAuth
	var text string
	switch format {
	case FormatMCPs:
		text = x.mcps(servers)
	case FormatPython:
		width := opts.Width
		if width <= 0 {
			width = DefaultWidth
		}
		text = WrapPython(x.python(servers), width)
	case FormatMCPServers:
		text = x.mcpServers(servers)
	default:
		return Result{}, fmt.Errorf("export: unknown format %q", format)
	}
	return Result{Format: format, Text: text, Notes: x.notes}, nil
}

func clean(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func selectServers(p *project.Project, names []string) ([]*project.Server, error) {
	if len(names) == 0 {
		if len(p.Servers) == 0 {
			return nil, fmt.Errorf("export: the project has no MCP servers")
		}
		return p.Servers, nil
	}
	var out []*project.Server
	seen := map[string]bool{}
	for _, n := range names {
		s := p.Server(n)
		if s == nil {
			return nil, unknownServer(p, n)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, s)
		}
	}
	return out, nil
}

func unknownServer(p *project.Project, name string) error {
	known := p.ServerNames()
	sort.Strings(known)
	if len(known) == 0 {
		return fmt.Errorf("export: no server %q: the project has no MCP servers", name)
	}
	return fmt.Errorf("export: no server %q (the project has: %s)", name, strings.Join(known, ", "))
}

// exporter carries one export.
type exporter struct {
	p       *project.Project
	filters map[string]mcpconn.FilterSpec
	format  Format
	oauth   map[string]OAuthReason
	notes   []string
	noted   map[string]bool
}

func newExporter(p *project.Project, filters map[string]mcpconn.FilterSpec) *exporter {
	return &exporter{p: p, filters: filters, noted: map[string]bool{}}
}

func (x *exporter) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !x.noted[n] {
		x.noted[n] = true
		x.notes = append(x.notes, n)
	}
}

// noteJSON notes what only the JSON formats change (Python keeps the
// project's own expressions).
func (x *exporter) noteJSON(format string, args ...any) {
	if x.format != FormatPython {
		x.note(format, args...)
	}
}

// filter is the server's filter in the output, its static entries in the
// form CrewAI matches (see canonicalFilter).
func (x *exporter) filter(s *project.Server) mcpconn.FilterSpec {
	f, ok := x.filters[s.Name]
	if !ok {
		f = s.Spec.Filter
	}
	f, notes, keepsAll := canonicalFilter(s.Name, f)
	for _, n := range notes {
		x.note("%s", n)
	}
	if keepsAll != "" {
		x.note("%s: written as given, and lint will report it", keepsAll)
	}
	return f
}

// adapter reports whether the server is used through MCPServerAdapter.
func adapter(s *project.Server) bool { return s.Spec.Policy == mcpconn.PolicyAdapter }
