package writeback

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/crew/project"
	"crewbench/mcpconn"
)

func open(t *testing.T, dir string) *project.Project {
	t.Helper()
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	return p
}

// copyDir copies a testdata project so a test can change it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// load puts an export into a fresh project of the format's kind and opens
// it: an agent file for mcps, a classic crew.py for python, .mcp.json for
// mcpservers.
func load(t *testing.T, format Format, text string) *project.Project {
	t.Helper()
	dir := t.TempDir()
	switch format {
	case FormatMCPs:
		write(t, dir, "crew.jsonc", `{"agents": ["a"], "tasks": [{"name": "t1", "description": "d", "expected_output": "e", "agent": "a"}]}`)
		write(t, dir, "agents/a.jsonc", "{\n  \"role\": \"r\", \"goal\": \"g\", \"backstory\": \"b\",\n"+text+"}\n")
	case FormatPython:
		write(t, dir, "pyproject.toml", "[project]\nname = \"rt\"\n")
		write(t, dir, "src/rt/config/agents.yaml", "a:\n  role: r\n  goal: g\n  backstory: b\n")
		write(t, dir, "src/rt/config/tasks.yaml", "t1:\n  description: d\n  expected_output: e\n  agent: a\n")
		write(t, dir, "src/rt/crew.py", text+`
from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task


def no_writes(context, tool):
    return True


@CrewBase
class Rt:
    @agent
    def a(self) -> Agent:
        return Agent(config=self.agents_config["a"], mcps=mcps)

    @task
    def t1(self) -> Task:
        return Task(config=self.tasks_config["t1"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
`)
	case FormatMCPServers:
		write(t, dir, ".mcp.json", text)
	}
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatalf("the %s export does not load: %v\n%s", format, err, text)
	}
	return p
}

// spec is what an export must keep of a server: everything CrewAI reads,
// none of crewbench's what-ifs or handles. An mcpServers file holds less
// (no filter, no string refs, no cache_tools_list or streamable flag), so
// for it those are left out of the comparison.
func spec(s *project.Server, mcpServers bool) string {
	sp := s.Spec
	sp.Name, sp.Origin, sp.Policy, sp.Timeouts, sp.Faults, sp.ProtocolVersion = "", "", "", mcpconn.Timeouts{}, nil, ""
	if mcpServers {
		sp.Filter, sp.CacheToolsList, sp.Streamable = mcpconn.FilterSpec{}, false, nil
		sp.Ref, sp.RefString, sp.SelectTool = mcpconn.RefNative, "", ""
		if i := strings.IndexByte(sp.URL, '#'); i >= 0 {
			sp.URL = sp.URL[:i]
		}
	}
	b, _ := json.Marshal(sp)
	return string(b)
}

func specs(p *project.Project, mcpServers bool) []string {
	var out []string
	for _, s := range p.Servers {
		if s.Spec.Ref == mcpconn.RefAMP && s.Spec.URL == "" {
			continue // an AMP slug without a URL has no server to export
		}
		out = append(out, s.Name+" "+spec(s, mcpServers))
	}
	return out
}

// load → export → load gives the same servers and filters, in every
// format that can express them.
func TestRoundTrips(t *testing.T) {
	cases := []struct {
		src    string
		format Format
	}{
		{"json_crew", FormatMCPs},
		{"json_crew", FormatPython},
		{"json_crew", FormatMCPServers},
		{"classic", FormatPython},
		{"classic", FormatMCPServers},
		{"mcpservers", FormatMCPServers},
		{"mcpservers", FormatPython},
		{"overlay", FormatMCPs},
	}
	for _, tc := range cases {
		t.Run(tc.src+"/"+string(tc.format), func(t *testing.T) {
			p := open(t, filepath.Join("testdata", tc.src))
			res, err := Export(p, tc.format, Options{})
			if err != nil {
				t.Fatal(err)
			}
			q := load(t, tc.format, res.Text)
			lossy := tc.format == FormatMCPServers
			want := specs(p, lossy)
			got := specs(q, lossy)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("round trip through %s changed the servers:\n got %s\nwant %s\nexport:\n%s", tc.format, strings.Join(got, "\n     "), strings.Join(want, "\n     "), res.Text)
			}
		})
	}
}

// What a format cannot express is said, and the rest survives.
func TestLossyExportsSayWhatTheyDrop(t *testing.T) {
	p := open(t, filepath.Join("testdata", "classic"))
	res, err := Export(p, FormatMCPs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(res.Notes, "\n")
	for _, want := range []string{"legacy is an SSE server", "docs: its tool_filter is Python code"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
	q := load(t, FormatMCPs, res.Text)
	if s := q.Server("legacy"); s == nil || s.Spec.Transport != mcpconn.TransportHTTP {
		t.Errorf("legacy in crew.jsonc: %+v", s)
	}
	// python keeps the SSE server and the dynamic filter as written
	res, err = Export(p, FormatPython, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"legacy = MCPServerSSE(", "tool_filter=create_dynamic_tool_filter(no_writes)"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("python export lacks %q:\n%s", want, res.Text)
		}
	}
	if !strings.Contains(res.Text, "from crewai.mcp import MCPServerHTTP, MCPServerSSE, MCPServerStdio, create_dynamic_tool_filter\n") {
		t.Errorf("python imports:\n%s", res.Text)
	}
}

// Secrets are never written literally: .env values become references to
// their variable, other credentials references to a named variable.
func TestExportNeverWritesSecrets(t *testing.T) {
	p := open(t, filepath.Join("testdata", "secrets"))
	secrets := []string{"ghp_0123456789abcdefghij", "k-0123456789abcdef", "sk-live-0123456789abcdef", "xk-0123456789abcdef"}
	want := map[Format][]string{
		FormatMCPs: {`"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"`, `"Authorization": "Bearer ${EXAMPLE_TOKEN}"`,
			`"X-Api-Key": "${EXAMPLE_X_API_KEY}"`, `api_key=${EXAMPLE_URL_SECRET}`, `"LOG_LEVEL": "warn"`},
		FormatPython: {`"GITHUB_PERSONAL_ACCESS_TOKEN": os.environ["GITHUB_TOKEN"]`, `"Authorization": f"Bearer {os.environ['EXAMPLE_TOKEN']}"`,
			`"X-Api-Key": os.environ["EXAMPLE_X_API_KEY"]`, "import os\n", `"LOG_LEVEL": "warn"`},
		FormatMCPServers: {`"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"`, `"Bearer ${EXAMPLE_TOKEN}"`},
	}
	for format, wants := range want {
		res, err := Export(p, format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(res.Text, s) {
				t.Errorf("%s export writes the secret %q:\n%s", format, s, res.Text)
			}
		}
		for _, w := range wants {
			if !strings.Contains(res.Text, w) {
				t.Errorf("%s export lacks %q:\n%s", format, w, res.Text)
			}
		}
	}
	// the reference resolves from the environment when loaded again
	res, _ := Export(p, FormatMCPServers, Options{})
	dir := t.TempDir()
	write(t, dir, ".mcp.json", res.Text)
	write(t, dir, ".env", "GITHUB_TOKEN=ghp_0123456789abcdefghij\n")
	q, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Server("github").Spec.Env["GITHUB_PERSONAL_ACCESS_TOKEN"]; got != "ghp_0123456789abcdefghij" {
		t.Errorf("the ${GITHUB_TOKEN} reference resolves to %q", got)
	}
}

func TestExportFilterPreview(t *testing.T) {
	p := open(t, filepath.Join("testdata", "json_crew"))
	prev, err := exportFilter(p, "time", []string{"get_current_time", " "}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Format]string{
		FormatMCPs:       `"tool_filter": {"type": "static", "allowed_tool_names": ["get_current_time"]}`,
		FormatPython:     `tool_filter=create_static_tool_filter(allowed_tool_names=["get_current_time"])`,
		FormatMCPServers: `"time": {"command": "uvx", "args": ["mcp-server-time"]}`,
	}
	for f, w := range want {
		if !strings.Contains(prev[f], w) {
			t.Errorf("%s preview lacks %q:\n%s", f, w, prev[f])
		}
	}
	if strings.Contains(prev[FormatMCPs], "inventory") {
		t.Errorf("preview of one server shows others:\n%s", prev[FormatMCPs])
	}
	// the project itself is unchanged
	if !p.Server("time").Spec.Filter.IsZero() {
		t.Error("ExportFilter changed the project")
	}
	if _, err := exportFilter(p, "nope", nil, nil); err == nil || !strings.Contains(err.Error(), "the project has: docs#search_docs, example, inventory, time") {
		t.Errorf("unknown server: %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"mcps": FormatMCPs, "PYTHON": FormatPython, "crew.py": FormatPython, "mcp.json": FormatMCPServers} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("ParseFormat(yaml) accepted")
	}
}

// allFormats lists every format.
func allFormats() []Format { return []Format{FormatMCPs, FormatPython, FormatMCPServers} }

// exportFilter renders one server with the given filter in every format. allowed and blocked replace the
// server's static filter (nil and nil remove it).
func exportFilter(p *project.Project, serverName string, allowed, blocked []string) (map[Format]string, error) {
	s := p.Server(serverName)
	if s == nil {
		return nil, unknownServer(p, serverName)
	}
	f := s.Spec.Filter
	f.Allowed, f.Blocked = clean(allowed), clean(blocked)
	out := map[Format]string{}
	for _, format := range allFormats() {
		r, err := Export(p, format, Options{Servers: []string{serverName}, Filters: map[string]mcpconn.FilterSpec{serverName: f}})
		if err != nil {
			return nil, err
		}
		out[format] = r.Text
	}
	return out, nil
}
