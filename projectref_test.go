package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

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
	writeFiles(t, classic, map[string]string{
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
	writeFiles(t, mcpjson, map[string]string{
		".mcp.json": `{"mcpServers": {"inventory": {"command": "crewbench", "args": ["fixture", "inventory"]}}}`,
	})
	code, stdout, stderr = runCrewCLI(t, "call", "--project", mcpjson, "inventory", "list_warehouses", "--json")
	if code != 0 {
		t.Fatalf(".mcp.json: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
