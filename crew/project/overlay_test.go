package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
)

func TestOverlayWhatIfs(t *testing.T) {
	p := open(t, "testdata/overlay/whatif", "MODEL=should-lose")
	eq(t, "overlay path", p.Overlay.Path, "crewbench.yaml")

	// llm for every agent; a per-agent override beats it
	r := p.Agent("researcher")
	eq(t, "declared llm kept", r.LLM.Model, "openai/gpt-4o")
	eq(t, "resolved llm", r.ResolvedLLM.Model, "scripted:llm-script.yaml")
	eq(t, "resolved source", r.ResolvedLLM.Source, "crewbench.yaml:2:6 (crewbench.yaml llm)")
	w := p.Agent("writer")
	eq(t, "per-agent llm", w.ResolvedLLM.Model, "ollama/llama3.1")
	eq(t, "per-agent base_url", w.ResolvedLLM.BaseURL, "http://localhost:11434")
	eq(t, "crew override", p.Crew.LLMOverride.Model, "scripted:llm-script.yaml")

	// stand-ins: by class name for a snake_case crewai_tools ref, and by ref
	st := p.Tasks[0].Tools[0].StandIn
	if st == nil || st.Result == nil || *st.Result != "1. Sales rose 12% (https://example.com/a)" {
		t.Errorf("serper_dev stand-in: %+v", st)
	}
	// the Python tool's attributes, declared on the stand-in
	eq(t, "stand-in attributes", [3]any{st.ResultAsAnswer, st.MaxUsageCount, st.NeverCache}, [3]any{true, 2, true})
	eq(t, "stand-in args_schema", pyjson.Dumps(st.ArgsSchema), `{"properties": {"query": {"title": "Query", "type": "string"}}, "required": ["query"], "title": "SearchInput", "type": "object"}`)
	cc := r.Tools[0].StandIn
	eq(t, "custom tool routed to MCP", [3]string{cc.Server, cc.Tool, cc.Description}, [3]string{"fx", "convert", "Convert currencies"})

	// AMP slug from the overlay
	n := p.Server("notion#search")
	eq(t, "amp url", n.Spec.URL, "https://mcp.notion.so/mcp")
	eq(t, "amp headers", n.Spec.Headers, map[string]string{"Authorization": "Bearer n0t10n"})
	eq(t, "amp resolved", len(n.Unresolved), 0)

	// server what-ifs
	ws := p.Server("weather").Spec
	eq(t, "policy", ws.Policy, mcpconn.PolicySession)
	eq(t, "timeouts", ws.Timeouts, mcpconn.Timeouts{Connect: 5 * time.Second, Call: 1500 * time.Millisecond, Attempts: 1, Backoff: 250 * time.Millisecond, MaxMessage: 1 << 20, MaxTools: 50})
	eq(t, "protocol", ws.ProtocolVersion, "auto")
	eq(t, "inherit_env", ws.InheritEnv, true)
	eq(t, "faults", ws.Faults, []mcpconn.Fault{
		{Tool: "get_forecast", Kind: mcpconn.FaultDelay, Delay: 35 * time.Second, Times: 1},
		{Kind: mcpconn.FaultJSONRPCError, Code: -32603, Message: "boom"},
	})
	eq(t, "inherit_env is flagged as not CrewAI", len(noteTexts(p, "inherit-env")), 1)
	// a Python filter replaced by the overlay's static one
	fs := p.Server("files")
	eq(t, "filter", fs.Spec.Filter, mcpconn.FilterSpec{Allowed: []string{"read_file"}})
	if ok, why := fs.Ready(p); !ok {
		t.Errorf("files should be ready once the overlay gives a filter: %s", why)
	}
	// a server of its own
	fx := p.Server("fx")
	eq(t, "own server", [3]any{fx.Spec.Command, fx.Spec.Args, fx.Spec.Env}, [3]any{"python", []string{"servers/fx.py"}, map[string]string{"FX_KEY": "abc"}})
	eq(t, "own server origin", fx.Spec.Origin, "crewbench.yaml:25:3")

	// env beats the process environment
	v, _ := p.Getenv("MODEL")
	eq(t, "env", v, "openai/gpt-4o-mini")

	// input sets layered over crew.jsonc inputs
	eq(t, "default inputs", p.InputSets["default"], map[string]any{"topic": "solar", "region": "EMEA"})
	eq(t, "named inputs", p.InputSets["nordics"], map[string]any{"topic": "heat pumps", "region": "Nordics"})
}

func TestOverlayInlineCrew(t *testing.T) {
	p := open(t, "testdata/overlay/inline")
	eq(t, "kind", p.Kind, KindOverlayCrew)
	eq(t, "opened", p.Opened, "opened the crew written in crewbench.yaml")
	eq(t, "crew name", p.Crew.Name, "Weather desk")
	a := p.Agent("forecaster")
	eq(t, "settings merged", a.MaxIter, 5)
	eq(t, "role position", a.Positions.At("role").String(), "crewbench.yaml:7:13")
	eq(t, "server", p.ServerNames(), []string{"weather"})
	eq(t, "server args", p.Server("weather").Spec.Args, []string{"fixture", "weather"})
	eq(t, "llm", a.ResolvedLLM.Model, "scripted:demo-script.yaml")
	eq(t, "inputs", p.InputSets["default"], map[string]any{"city": "Oslo"})
	eq(t, "task agent", p.Tasks[0].Agent, "forecaster")
}

func TestOverlayInlineCrewList(t *testing.T) {
	p, err := OpenWith("testdata/overlay/inline_list", Options{Environ: []string{}})
	eq(t, "error", errString(err), "crewbench.yaml:11:7: crew: agents[2] must include a name field or be a one-key mapping")
	eq(t, "agents (name field, one-key map)", p.AgentNames(), []string{"scout", "lead"})
	eq(t, "manager not in the crew", p.Crew.Agents, []string{"scout"})
	eq(t, "manager", p.Agent("lead").Manager, true)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Overlay schema errors name file:line:col and suggest the nearest key.
func TestOverlaySchemaErrors(t *testing.T) {
	_, err := OpenWith("testdata/overlay/errors", Options{Environ: []string{}})
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("want Errors, got %v", err)
	}
	want := []string{
		`crewbench.yaml:1:1: unknown key "vesion" (did you mean "version"?)`,
		`crewbench.yaml:6:5: unknown key "temprature" in agents.ghost (expected one of: llm)`,
		`crewbench.yaml:11:5: a tool stand-in needs exactly one of result: (a canned answer) or mcp: {server, tool}`,
		`crewbench.yaml:15:5: unknown key "polcy" in servers.filesystem (did you mean "policy"?)`,
		`crewbench.yaml:16:17: unknown key "conect" in servers.filesystem.timeouts (did you mean "connect"?)`,
		`crewbench.yaml:16:35: servers.filesystem.timeouts.call must be a Go duration such as 30s, 1500ms or 2m (got "30")`,
		`crewbench.yaml:18:17: unknown fault kind "dely" (did you mean "delay"?)`,
		`crewbench.yaml:19:9: a delay fault needs delay: (e.g. 5s)`,
		`crewbench.yaml:25:12: an input set must be a mapping of input names to values (inputs: {default: {topic: AI}})`,
		`crewbench.yaml:20:3: servers.filesytem: the project has no server named "filesytem" (to declare one here, give command: or url:) (did you mean "filesystem"?)`,
		`crewbench.yaml:8:3: tools.SerperDevTol: no agent or task uses a tool "SerperDevTol" (did you mean "SerperDevTool"?)`,
		`crewbench.yaml:10:3: tools.FileReadTool: no agent or task uses a tool "FileReadTool"`,
		`crewbench.yaml:10:3: tools.FileReadTool routes to server "nowhere", which the project does not have`,
		`crewbench.yaml:4:3: agents.ghost: the project has no agent "ghost"`,
		`crewbench.yaml:23:3: values.servers.filesystem.env.TOKN: nothing in the project is waiting for "servers.filesystem.env.TOKN" (the project has no unresolved values)`,
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestOverlayProjectAndValues(t *testing.T) {
	p := open(t, "testdata/overlay/project_ref")
	abs, _ := filepath.Abs("testdata/json/market_brief")
	eq(t, "project dir", p.Dir, abs)
	eq(t, "overlay path shown", p.Overlay.Path, "../../overlay/project_ref/crewbench.yaml")
	ex := p.Server("example")
	eq(t, "filter from values", ex.Spec.Filter, mcpconn.FilterSpec{Allowed: []string{"read_file", "list_directory"}})
	u := p.UnresolvedByID("servers.example.tool_filter")
	eq(t, "resolved from overlay", [2]any{u.Resolved, u.From}, [2]any{true, "crewbench.yaml values (../../overlay/project_ref/crewbench.yaml:4:3)"})
}

// values: and env: reach crew.py's non-literal values.
func TestOverlayValuesForCrewPy(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/classic/mcp", dir)
	writeFile(t, filepath.Join(dir, "crewbench.yaml"), `
env:
  GITHUB_TOKEN: ghp_overlay
values:
  servers.inventory.args[2]: data/inventory.db
  agents.analyst.max_iter: 7
  amp.notion: {}
amp:
  notion: https://mcp.notion.so/sse
`)
	p, err := OpenWith(dir, Options{Environ: []string{"GITHUB_TOKEN=ghp_env"}})
	if err != nil {
		var es Errors
		errors.As(err, &es)
		// amp.notion under values: is not needed once amp: gives the URL
		if len(es) != 1 || !strings.Contains(es[0].Error(), `values.amp.notion: nothing in the project is waiting for "amp.notion"`) {
			t.Fatalf("Open: %v", err)
		}
	}
	eq(t, "args from values", p.Server("inventory").Spec.Args, []string{"servers/inventory.py", "--db", "data/inventory.db"})
	eq(t, "max_iter from values", p.Agent("analyst").MaxIter, 7)
	eq(t, "overlay env beats the environment", p.Server("githubcopilot").Spec.Headers["Authorization"], "Bearer ghp_overlay")
	eq(t, "amp short form", p.Server("notion#search").Spec.URL, "https://mcp.notion.so/sse")
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
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
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.TrimPrefix(content, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzOverlay(f *testing.F) {
	for _, p := range []string{"testdata/overlay/whatif/crewbench.yaml", "testdata/overlay/errors/crewbench.yaml",
		"testdata/overlay/inline/crewbench.yaml", "testdata/overlay/inline_list/crewbench.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a: &a [*a]"))
	f.Add([]byte("servers: {x: {faults: [{kind: delay, delay: 1s}]}}"))
	f.Add([]byte("crew: {agents: {a: {role: r, goal: g, backstory: b}}, tasks: [{description: d, expected_output: e, agent: a}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := &Project{Dir: "/nonexistent", Kind: KindOverlayCrew}
		l := newLoader(p, nil)
		ov := l.parseOverlay(data, "crewbench.yaml", "/nonexistent")
		if ov != nil {
			p.Overlay, l.ov = ov, ov
			if ov.Crew != nil {
				l.loadOverlayCrew(ov)
			}
			l.finish()
		}
		for _, e := range l.errs {
			if e.Pos.File != "crewbench.yaml" {
				t.Fatalf("error without a file: %q", e.Error())
			}
			if !strings.HasPrefix(e.Error(), "crewbench.yaml") {
				t.Fatalf("error text %q does not start with its position", e.Error())
			}
		}
	})
}
