package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// Tests of cli_flags.go: the project flags, then the session flags.

// toolNames decodes `tools --json` into server → original name → status.
func toolStatuses(t *testing.T, stdout string) map[string]map[string]string {
	t.Helper()
	var reports []struct {
		Server string `json:"server"`
		Tools  []struct {
			Name    string `json:"name"`
			LLMName string `json:"llm_name"`
			Status  string `json:"status"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(stdout), &reports); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, stdout)
	}
	out := map[string]map[string]string{}
	for _, r := range reports {
		out[r.Server] = map[string]string{}
		for _, tl := range r.Tools {
			out[r.Server][tl.Name] = tl.Status + " " + tl.LLMName
		}
	}
	return out
}

func TestToolsByNameFromTheDemoProject(t *testing.T) {
	code, stdout, stderr := runCrewCLI(t, "tools", "--demo", "weather", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	got := toolStatuses(t, stdout)
	if got["weather"]["getForecast"] != "kept crewbench_fixture_weather_get_forecast" ||
		got["weather"]["getAlerts"] != "filtered crewbench_fixture_weather_get_alerts" {
		t.Errorf("weather tools = %v", got["weather"])
	}
}

func TestCallByNameFromTheDemoProject(t *testing.T) {
	code, stdout, stderr := runCrewCLI(t, "call", "--demo", "weather", "getForecast", "--args", `{"city":"Lisbon","days":1}`, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Lisbon") {
		t.Errorf("call result lacks the city:\n%s", stdout)
	}
}

func TestUnknownServerNameListsTheProjectsServers(t *testing.T) {
	code, _, stderr := runCrewCLI(t, "tools", "--demo", "wether")
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(stderr, `no server "wether"`) || !strings.Contains(stderr, "weather") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestServerNameWithoutAProjectSaysHowToGiveOne(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, _, stderr := runCrewCLI(t, "tools", "weather")
	if code != exitUsage || !strings.Contains(stderr, "no project found") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// A classic project's servers come from the literal calls in crew.py; a
// Claude-style .mcp.json works the same way. Both are addressed by name.
func TestServersFromClassicAndMCPJSONProjects(t *testing.T) {
	classic := t.TempDir()
	fixturetest.WriteFiles(t, classic, map[string]string{
		"pyproject.toml":                  "[project]\nname = \"forecast\"\n\n[tool.crewai]\ntype = \"crew\"\n",
		"src/forecast/config/agents.yaml": "forecaster:\n  role: Forecaster\n  goal: Forecast\n  backstory: Knows weather\n",
		"src/forecast/config/tasks.yaml":  "forecast_task:\n  description: Forecast {city}\n  expected_output: A forecast\n  agent: forecaster\n",
		"src/forecast/crew.py": `from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task
from crewai.mcp import MCPServerStdio
from crewai.mcp.filters import create_static_tool_filter

@CrewBase
class Forecast():
    @agent
    def forecaster(self) -> Agent:
        return Agent(
            config=self.agents_config["forecaster"],
            mcps=[MCPServerStdio(command="crewbench", args=["fixture", "weather"],
                                 tool_filter=create_static_tool_filter(allowed_tool_names=["getForecast"]))],
        )

    @task
    def forecast_task(self) -> Task:
        return Task(config=self.tasks_config["forecast_task"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
`,
	})
	code, stdout, stderr := runCrewCLI(t, "tools", "--project", classic, "--json")
	if code != 0 {
		t.Fatalf("classic: exit %d\n%s", code, stderr)
	}
	got := toolStatuses(t, stdout)
	if len(got) != 1 {
		t.Fatalf("classic: servers = %v", got)
	}
	for _, tools := range got {
		// The camelCase allow entry keeps nothing, exactly as in CrewAI.
		if !strings.HasPrefix(tools["getForecast"], "filtered ") {
			t.Errorf("classic: getForecast = %q, want filtered", tools["getForecast"])
		}
	}

	mcpjson := t.TempDir()
	fixturetest.WriteFiles(t, mcpjson, map[string]string{
		".mcp.json": `{"mcpServers": {"inventory": {"command": "crewbench", "args": ["fixture", "inventory"]}}}`,
	})
	code, stdout, stderr = runCrewCLI(t, "call", "--project", mcpjson, "inventory", "list_warehouses", "--json")
	if code != 0 {
		t.Fatalf(".mcp.json: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestOpenSessionSinks(t *testing.T) {
	events := sessionSpec{}.events()
	rcv := &otlpReceiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()

	t.Run("record to a file and export live", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		o := &sessionFlags{record: path, otlpEndpoint: srv.URL, otlpHeaders: []string{"Authorization=Bearer PLANTED-live-1234"}}
		sink, closeSinks, err := openSessionSinks(o, session.Header{Command: "run", RunID: "r1"})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			sink.Emit(ev)
		}
		var report bytes.Buffer
		if err := closeSinks(&report); err != nil {
			t.Fatal(err)
		}
		spans, _ := countSpans(session.BuildTraces(events, session.ExportOptions{}))
		if !strings.Contains(report.String(), "session recorded to "+path) || !strings.Contains(report.String(), fmt.Sprintf("exported %d spans to %s/v1/traces", spans, srv.URL)) {
			t.Errorf("report %q", report.String())
		}
		f, err := session.ReadFile(path, session.ReadOptions{})
		if err != nil || len(f.Events) != len(events) || f.Header.Version == "" || f.Header.RunID != "r1" {
			t.Fatalf("recorded %v events, header %+v, err %v", len(f.Events), f.Header, err)
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		if len(rcv.auth) == 0 || rcv.auth[0] != "Bearer PLANTED-live-1234" {
			t.Errorf("live export: %d requests, auth %v", len(rcv.auth), rcv.auth)
		}
	})

	t.Run("record by default into the sessions directory", func(t *testing.T) {
		state := t.TempDir()
		t.Setenv("XDG_STATE_HOME", state)
		sink, closeSinks, err := openSessionSinks(&sessionFlags{recordByDefault: true}, session.Header{})
		if err != nil {
			t.Fatal(err)
		}
		sink.Emit(events[0])
		if err := closeSinks(nil); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(state, "crewbench", "sessions", "*.jsonl"))
		if len(files) != 1 {
			t.Errorf("files %v", files)
		}
		sink, closeSinks, err = openSessionSinks(&sessionFlags{recordByDefault: true, noRecord: true}, session.Header{})
		if err != nil || sink != nil {
			t.Errorf("--no-record: sink %v err %v", sink, err)
		}
		_ = closeSinks(nil)
	})

	for _, tt := range []struct {
		o    sessionFlags
		want string
	}{
		{sessionFlags{otlpEndpoint: "collector:4318"}, "--otlp-endpoint"},
		{sessionFlags{otlpHeaders: []string{"A=b"}}, "need --otlp-endpoint"},
		{sessionFlags{otlpEndpoint: srv.URL, otlpHeaders: []string{"nobody"}}, "want NAME=VALUE"},
		{sessionFlags{recordByDefault: true, record: "x.jsonl", noRecord: true}, "not both"},
		{sessionFlags{record: filepath.Join(os.DevNull, "x.jsonl")}, "session recorder"},
	} {
		if _, _, err := openSessionSinks(&tt.o, session.Header{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err %v, want %q", tt.o, err, tt.want)
		}
	}
}

func TestAddSessionFlags(t *testing.T) {
	for _, byDefault := range []bool{false, true} {
		cmd := &cobra.Command{Use: "x"}
		o := &sessionFlags{recordByDefault: byDefault}
		addSessionFlags(cmd, o)
		args := []string{"--record", "f.jsonl", "--otlp-endpoint", "http://localhost:4318", "--otlp-header", "A=b", "--otlp-include-content"}
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		if o.record != "f.jsonl" || o.otlpEndpoint != "http://localhost:4318" || len(o.otlpHeaders) != 1 || !o.otlpContent {
			t.Errorf("parsed %+v", o)
		}
		if (cmd.Flags().Lookup("no-record") != nil) != byDefault {
			t.Errorf("recordByDefault %v: --no-record registered = %v", byDefault, !byDefault)
		}
	}
}

// /dev/null is a character device, not a terminal: `crewbench watch …
// >/dev/null` once tried to open the workbench (and failed without a tty).
func TestSessionIsTerminalIsNotFooledByDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer f.Close()
	if sessionIsTerminal(f) {
		t.Fatalf("%s is taken for a terminal", os.DevNull)
	}
}
