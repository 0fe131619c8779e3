package writeback

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/crew/project"
	"crewbench/crew/pyread"
	"crewbench/mcpconn"
)

// A crew.py whose filter call spans lines, with comments around it.
const layoutCrew = `from crewai.mcp import MCPServerStdio, create_static_tool_filter

# the weather server: keep only the forecast
weather = MCPServerStdio(
    command="crewbench",  # on PATH
    args=["fixture", "weather"],
    # the filter, one name per line
    tool_filter=create_static_tool_filter(
        allowed_tool_names=["get_forecast"],
        blocked_tool_names=["get_alerts"],
    ),  # end of the filter
    cache_tools_list=True,
)
`

// Writing a filter into a call whose filter spans lines replaces exactly
// that call, laid out as it was; every other byte stays.
func TestWriteFilterPythonKeepsLayout(t *testing.T) {
	oldCall := `create_static_tool_filter(
        allowed_tool_names=["get_forecast"],
        blocked_tool_names=["get_alerts"],
    )`
	long := []string{"get_forecast", "get_forecast_hourly", "get_forecast_daily", "get_alerts_for_region", "get_radar"}
	cases := []struct {
		name             string
		crew             string // "" is layoutCrew
		allowed, blocked []string
		old, want        string
	}{
		{"multi-line, trailing comma, own closing line", "", []string{"get_forecast", "get_radar"}, nil, oldCall,
			`create_static_tool_filter(
        allowed_tool_names=["get_forecast", "get_radar"],
    )`},
		{"a long list wraps at its items", "", long, []string{"get_alerts"}, oldCall,
			`create_static_tool_filter(
        allowed_tool_names=[
            "get_forecast",
            "get_forecast_hourly",
            "get_forecast_daily",
            "get_alerts_for_region",
            "get_radar"
        ],
        blocked_tool_names=["get_alerts"],
    )`},
		{"closing parenthesis after the last argument, no trailing comma",
			strings.Replace(layoutCrew, "[\"get_alerts\"],\n    ),", "[\"get_alerts\"]),", 1),
			[]string{"get_radar"}, []string{"get_alerts"},
			`create_static_tool_filter(
        allowed_tool_names=["get_forecast"],
        blocked_tool_names=["get_alerts"])`,
			`create_static_tool_filter(
        allowed_tool_names=["get_radar"],
        blocked_tool_names=["get_alerts"])`},
		{"one line that would grow too long becomes multi-line",
			strings.Replace(layoutCrew, oldCall, `create_static_tool_filter(allowed_tool_names=["get_forecast"])`, 1),
			long[:2], nil,
			`create_static_tool_filter(allowed_tool_names=["get_forecast"])`,
			`create_static_tool_filter(
        allowed_tool_names=["get_forecast", "get_forecast_hourly"],
    )`},
		{"one line that fits stays one line",
			strings.Replace(layoutCrew, oldCall, `create_static_tool_filter(allowed_tool_names=["get_forecast"])`, 1),
			[]string{"get_radar"}, nil,
			`create_static_tool_filter(allowed_tool_names=["get_forecast"])`,
			`create_static_tool_filter(allowed_tool_names=["get_radar"])`},
	}
	var py pyCheck
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			crew := c.crew
			if crew == "" {
				crew = layoutCrew
			}
			write(t, dir, "pyproject.toml", "[project]\nname = \"lay\"\n")
			write(t, dir, "src/lay/config/agents.yaml", "a:\n  role: r\n  goal: g\n  backstory: b\n")
			write(t, dir, "src/lay/config/tasks.yaml", "t1:\n  description: d\n  expected_output: e\n  agent: a\n")
			write(t, dir, "src/lay/crew.py", crew+classicTail)
			writeAndCheck(t, dir, "weather", "src/lay/crew.py", c.allowed, c.blocked, c.old, c.want)
			got := read(t, dir, "src/lay/crew.py")
			for i, l := range pyread.CodeLines(got) { // a trailing comment may stick out
				if l = strings.TrimRight(l, " "); runeLen(l) > DefaultWidth && !strings.Contains(crew, l) {
					t.Errorf("line %d is %d columns: %s", i+1, runeLen(l), l)
				}
			}
			py.add(t, c.name, got)
		})
	}
	py.run(t)
}

// classicTail makes a crew.py snippet a classic project's crew.
const classicTail = `
from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task


@CrewBase
class Lay:
    @agent
    def a(self) -> Agent:
        return Agent(config=self.agents_config["a"], mcps=[weather])

    @task
    def t1(self) -> Task:
        return Task(config=self.tasks_config["t1"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
`

// The backup lands in the project's .crewbench/backups (git-ignored by its
// own .gitignore), never beside the file inside the Python package.
func TestBackupOutsideThePackage(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "classic"))
	pkg := filepath.Join(dir, "src", "shop")
	before, err := os.ReadDir(pkg)
	if err != nil {
		t.Fatal(err)
	}
	_, backups, err := writeFilter(open(t, dir), "inventory", []string{"lookup_stock"}, nil)
	if err != nil || len(backups) != 1 {
		t.Fatalf("write: %v %v", backups, err)
	}
	after, _ := os.ReadDir(pkg)
	if len(after) != len(before) {
		t.Errorf("the package gained files: %v → %v", before, after)
	}
	rel, _ := filepath.Rel(dir, backups[0])
	if !strings.HasPrefix(filepath.ToSlash(rel), ".crewbench/backups/src/shop/crew.py.") || !strings.HasSuffix(rel, ".bak") {
		t.Errorf("backup at %s", rel)
	}
	if gi := read(t, dir, ".crewbench/.gitignore"); !strings.Contains(gi, "\n*\n") {
		t.Errorf(".crewbench/.gitignore: %q", gi)
	}
	// the project still opens the same way: the backup is not a crew file
	if p := open(t, dir); p.Server("inventory") == nil {
		t.Error("the project lost its server")
	}
}

// export-config writes filter entries in the form lint calls correct:
// what CrewAI compares (sanitized names), saying what it rewrote.
func TestExportWritesCanonicalEntries(t *testing.T) {
	p := open(t, filepath.Join("testdata", "json_crew"))
	fs := map[string]mcpconn.FilterSpec{"time": {Allowed: []string{"getCurrentTime", "get_current_time", "天气"}, Blocked: []string{"convert-time"}}}
	for _, format := range []Format{FormatMCPs, FormatPython} {
		res, err := Export(p, format, Options{Servers: []string{"time"}, Filters: fs})
		if err != nil {
			t.Fatal(err)
		}
		wants := []string{`"allowed_tool_names": ["get_current_time"], "blocked_tool_names": ["convert_time"]`}
		if format == FormatPython {
			wants = []string{`allowed_tool_names=["get_current_time"],`, `blocked_tool_names=["convert_time"]`}
		}
		for _, want := range wants {
			if !strings.Contains(res.Text, want) {
				t.Errorf("%s export lacks %s:\n%s", format, want, res.Text)
			}
		}
		notes := strings.Join(res.Notes, "\n")
		for _, w := range []string{`allowed_tool_names entry "getCurrentTime" is written as "get_current_time"`, `"天气" is left out`, `"convert-time" is written as "convert_time"`} {
			if !strings.Contains(notes, w) {
				t.Errorf("%s notes lack %q:\n%s", format, w, notes)
			}
		}
	}
	// --write does the same, and refuses to turn "keeps nothing" into "keeps all"
	dir := copyDir(t, filepath.Join("testdata", "json_crew"))
	edits, err := PlanFilter(open(t, dir), "time", []string{"getCurrentTime"}, nil)
	if err != nil || len(edits) != 1 || !strings.Contains(string(edits[0].New), `["get_current_time"]`) || len(edits[0].Notes) != 1 {
		t.Fatalf("plan: %v %+v", err, edits)
	}
	if _, err := PlanFilter(open(t, dir), "time", []string{"天气"}, nil); err == nil || !strings.Contains(err.Error(), "would keep every tool") {
		t.Errorf("an allowed list that can never match: %v", err)
	}
}

// A server that wants OAuth is written with the Authorization header CrewAI
// needs, the token read from the environment, in every format.
func TestExportOAuthHeader(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "crew.jsonc", `{"agents": ["a"], "tasks": [{"name": "t1", "description": "d", "expected_output": "e", "agent": "a"}]}`)
	write(t, dir, "agents/a.jsonc", `{"role": "r", "goal": "g", "backstory": "b", "mcps": [
  {"url": "https://weather.example.com/mcp", "headers": {"X-Client": "crewbench"}},
  {"url": "https://docs.example.com/mcp", "headers": {"authorization": "Bearer ${DOCS}"}},
  "https://search.example.com/mcp"
]}`)
	p := open(t, dir)
	var servers []string
	oauth := map[string]OAuthReason{}
	for _, s := range p.Servers {
		servers = append(servers, s.Name)
		oauth[s.Name] = OAuthTokenHeld
	}
	want := map[Format]string{
		FormatMCPs:       `"headers": {"Authorization": "Bearer ${WEATHER_TOKEN}", "X-Client": "crewbench"}`,
		FormatPython:     `"Authorization": f"Bearer {os.environ['WEATHER_TOKEN']}",`,
		FormatMCPServers: `"headers": {"Authorization": "Bearer ${WEATHER_TOKEN}", "X-Client": "crewbench"}`,
	}
	var py pyCheck
	for format, w := range want {
		res, err := Export(p, format, Options{Servers: servers, OAuth: oauth})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, w) {
			t.Errorf("%s export lacks %s:\n%s", format, w, res.Text)
		}
		if strings.Contains(res.Text, "DOCS_TOKEN") || strings.Count(res.Text, "Bearer ${DOCS}") != 1 {
			t.Errorf("%s: the server that sends its own authorization header got another:\n%s", format, res.Text)
		}
		notes := strings.Join(res.Notes, "\n")
		for _, n := range []string{"Set WEATHER_TOKEN to the access token", "crewbench auth status https://weather.example.com/mcp"} {
			if !strings.Contains(notes, n) {
				t.Errorf("%s notes lack %q:\n%s", format, n, notes)
			}
		}
		if format != FormatMCPServers && !strings.Contains(notes, "CrewAI sends no headers for an https:// string ref") {
			t.Errorf("%s notes say nothing of the string ref:\n%s", format, notes)
		}
		if format == FormatPython {
			py.add(t, "python", res.Text)
		}
		// it loads again, and the header reads the variable
		t.Setenv("WEATHER_TOKEN", "tok-123456789")
		if format != FormatMCPs {
			q := load(t, format, res.Text)
			if got := q.Server("weather").Spec.Headers["Authorization"]; got != "Bearer tok-123456789" {
				t.Errorf("%s: reloaded Authorization %q", format, got)
			}
		}
	}
	// without OAuth nothing is added
	res, _ := Export(p, FormatPython, Options{Servers: servers})
	if strings.Contains(res.Text, "WEATHER_TOKEN") {
		t.Errorf("no OAuth, but a header:\n%s", res.Text)
	}
	py.run(t)
}

// Every Python export is valid Python wrapped at the width, for every
// project the package tests on, however narrow the width.
func TestPythonExportIsWrappedValidPython(t *testing.T) {
	dirs := []string{"classic", "json_crew", "secrets", "overlay", filepath.Join("..", "..", "project", "testdata", "classic", "mcp")}
	var py pyCheck
	for _, d := range dirs {
		p, err := project.Open(filepath.Join("testdata", d), "")
		if p == nil {
			t.Fatalf("%s: %v", d, err)
		}
		for _, width := range []int{0, 60, 30} {
			f := map[string]mcpconn.FilterSpec{}
			for _, s := range p.Servers {
				f[s.Name] = mcpconn.FilterSpec{Allowed: []string{"get_forecast", "get_alerts_for_a_region"}, Expr: `tool.name.startsWith("get_") && tool.name != "get_everything_at_once"`}
			}
			res, err := Export(p, FormatPython, Options{Filters: f, Width: width})
			if err != nil {
				t.Fatal(err)
			}
			w := width
			if w == 0 {
				w = DefaultWidth
			}
			for _, l := range strings.Split(res.Text, "\n") {
				if runeLen(l) > w && len(strings.Fields(l)) > 1 && wrapLine(l, w)[0] != l {
					t.Errorf("%s width %d: line left too long: %s", d, width, l)
				}
				if strings.HasSuffix(l, "_") || strings.HasPrefix(strings.TrimSpace(l), "filter(fn)") {
					t.Errorf("%s width %d: a name is cut: %q", d, width, l)
				}
			}
			joined := strings.Join(strings.Fields(strings.ReplaceAll(res.Text+strings.Join(res.Notes, "\n"), "\n#", " ")), " ")
			if n := strings.Count(joined, "has no Python form"); n != len(p.Servers)-countRefs(p) {
				t.Errorf("%s: the CEL note appears %d times for %d servers", d, n, len(p.Servers)-countRefs(p))
			}
			py.add(t, d, res.Text)
			if width == 30 && d != "overlay" {
				// the reader crewbench opens crew.py with reads it back
				if q := load(t, FormatPython, res.Text); len(q.Servers) == 0 {
					t.Errorf("%s: the wrapped export has no servers", d)
				}
			}
		}
	}
	py.run(t)
}

func countRefs(p *project.Project) int {
	n := 0
	for _, s := range p.Servers {
		if s.Spec.Ref == mcpconn.RefHTTPS || s.Spec.Ref == mcpconn.RefAMP || s.Spec.Policy == mcpconn.PolicyAdapter {
			n++
		}
	}
	return n
}
