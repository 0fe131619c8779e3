package main

import (
	"encoding/json"
	"strings"
	"testing"

	"crewbench/fixtures/fixturetest"
)

// Tests of `tools` on a project that does not load cleanly: it reports the
// load errors as run and lint do, and shows refs CrewAI rejects.

// weatherServerJSON is the weather fixture as an mcpServers/mcps config.
func weatherServerJSON(t *testing.T) string {
	t.Helper()
	cmd, args := fixturetest.Command("weather")
	b, err := json.Marshal(map[string]any{"command": cmd, "args": args})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestToolsReportsLoadErrorsOfATruncatedProject(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // the load error, file:line:col first
	}{
		{"mcp.json", map[string]string{".mcp.json": `{"mcpServers": {"weather": {"command": "x", "args": ["a"`}, ".mcp.json:1:"},
		{"crew", map[string]string{"crew.jsonc": "{\n  \"agents\": [\"a\"],\n  \"tasks\": [{\"description\": \"d\""}, "crew.jsonc:3:"},
		{"agent", map[string]string{
			"crew.jsonc":     `{"agents": ["a"], "tasks": [{"description": "d", "expected_output": "e", "agent": "a"}]}`,
			"agents/a.jsonc": "{\n  \"role\": \"r\", \"goal\": \"g\", \"backstory\": \"b\",\n  \"mcps\": [{\"command\": \"x\"",
		}, "agents/a.jsonc:3:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fixturetest.WriteFiles(t, dir, tc.files)
			code, out, errs := run(t, "tools", "--project", dir)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errs, tc.want) || !strings.Contains(errs, "invalid JSON") {
				t.Errorf("stderr lacks the load error %s… invalid JSON:\n%s\n%s", tc.want, errs, out)
			}
		})
	}
}

func TestToolsRefusesABrokenOverlay(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		".mcp.json":      `{"mcpServers": {"weather": ` + weatherServerJSON(t) + `}}`,
		"crewbench.yaml": "timeouts:\n  connect: [\n",
	})
	code, out, errs := run(t, "tools", "--project", dir)
	if code == 0 {
		t.Fatalf("a broken crewbench.yaml was ignored (exit 0):\n%s", out)
	}
	if !strings.Contains(errs, "crewbench.yaml:2") || !strings.Contains(errs, "none of its settings apply") {
		t.Errorf("stderr does not name the overlay's error:\n%s", errs)
	}
	// The named-server form refuses it too.
	if code, _, errs := run(t, "tools", "--project", dir, "weather"); code != exitUsage || !strings.Contains(errs, "crewbench.yaml:2") {
		t.Errorf("tools weather: exit %d\n%s", code, errs)
	}
}

func TestToolsShowsAnHTTPStringRefAsAnInvalidServer(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		"crew.jsonc": `{"agents": ["a"], "tasks": [{"description": "d", "expected_output": "e", "agent": "a"}]}`,
		"agents/a.jsonc": `{"role": "r", "goal": "g", "backstory": "b",
  "mcps": [` + weatherServerJSON(t) + `, "http://localhost:8765/mcp"]}`,
	})
	code, out, errs := run(t, "tools", "--project", dir)
	if code != exitConnection {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitConnection, out, errs)
	}
	for _, want := range []string{
		"server http://localhost:8765/mcp  (invalid string ref)",
		"where:   agents/a.jsonc:2:",
		`is an http:// string ref: CrewAI rejects it (Invalid MCP reference)`,
		`fix:     declare it as a config: {"url": "http://localhost:8765/mcp"}`,
		"getForecast", // the valid server is still listed
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(errs, "Invalid MCP reference") {
		t.Errorf("the invalid ref is reported twice:\n%s", errs)
	}
	code, out, _ = run(t, "tools", "--project", dir, "--json")
	var reports []toolsReport
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	found := false
	for _, r := range reports {
		if r.Outcome == outcomeInvalid && r.Server == "http://localhost:8765/mcp" && strings.Contains(r.Fix, `"url"`) {
			found = true
		}
	}
	if code != exitConnection || !found {
		t.Errorf("--json: exit %d, no invalid server with a fix:\n%s", code, out)
	}
}
