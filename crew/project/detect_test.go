package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	tinyCrew  = `{"agents": ["a"], "tasks": [{"description": "D", "expected_output": "E", "agent": "a"}]}`
	tinyAgent = `{"role": "R", "goal": "G", "backstory": "B"}`
	tinyMCP   = `{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}`
)

// fill writes the named kinds of project into dir.
func fill(t *testing.T, dir string, kinds ...string) {
	for _, k := range kinds {
		switch k {
		case "overlay-crew":
			writeFile(t, filepath.Join(dir, "crewbench.yaml"), "crew:\n  agents: {o: {role: R, goal: G, backstory: B}}\n  tasks: [{description: D, expected_output: E, agent: o}]\n")
		case "overlay":
			writeFile(t, filepath.Join(dir, "crewbench.yaml"), "servers:\n  echo: {command: crewbench, args: [fixture, echo]}\n")
		case "json":
			writeFile(t, filepath.Join(dir, "crew.jsonc"), tinyCrew)
			writeFile(t, filepath.Join(dir, "agents/a.jsonc"), tinyAgent)
		case "classic":
			copyTree(t, "testdata/classic/market_brief", dir)
		case "mcp":
			writeFile(t, filepath.Join(dir, ".mcp.json"), tinyMCP)
		}
	}
}

func TestDetectionOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kinds  []string
		kind   ProjectKind
		opened string
	}{
		{"crewbench.yaml with a crew comes first", []string{"overlay-crew", "json", "classic", "mcp"}, KindOverlayCrew, "opened the crew written in crewbench.yaml"},
		{"an overlay without a crew overlays the JSON crew", []string{"overlay", "json", "classic", "mcp"}, KindJSONCrew, "opened crew.jsonc (a JSON-first crew); note: pyproject.toml has no [tool.crewai] definition, so `crewai run` would not run it as a JSON crew"},
		{"JSON crew before classic", []string{"json", "mcp"}, KindJSONCrew, "opened crew.jsonc (a JSON-first crew)"},
		{"classic before .mcp.json", []string{"classic", "mcp"}, KindClassic, "opened the classic project in src/market_brief (config/agents.yaml, config/tasks.yaml, crew.py)"},
		{".mcp.json last", []string{"mcp"}, KindMCPServers, "opened .mcp.json as an mcpServers file (Claude Code (.mcp.json) dialect)"},
		{"an overlay alone", []string{"overlay"}, KindOverlay, "opened crewbench.yaml (servers only, no crew)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, tc.kinds...)
			p, err := OpenWith(dir, Options{Environ: []string{}})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			eq(t, "kind", p.Kind, tc.kind)
			eq(t, "opened", p.Opened, tc.opened)
		})
	}
	t.Run("nothing to open", func(t *testing.T) {
		_, err := OpenWith(t.TempDir(), Options{Environ: []string{}})
		if err == nil || !strings.Contains(err.Error(), "no CrewAI project in") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("missing path", func(t *testing.T) {
		_, err := Open(filepath.Join(t.TempDir(), "nope"), "")
		if err == nil || !strings.Contains(err.Error(), "no such file or directory") {
			t.Errorf("got %v", err)
		}
	})
}

func TestDetectionByFile(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, "json", "mcp", "overlay")
	cdir := t.TempDir()
	fill(t, cdir, "classic")
	for _, tc := range []struct {
		path string
		kind ProjectKind
	}{
		{filepath.Join(dir, "crew.jsonc"), KindJSONCrew},
		{filepath.Join(dir, ".mcp.json"), KindMCPServers},
		{filepath.Join(dir, "crewbench.yaml"), KindJSONCrew}, // the overlay file, overlaying the crew beside it
		{filepath.Join(cdir, "src/market_brief/crew.py"), KindClassic},
		{filepath.Join(cdir, "src/market_brief/config/agents.yaml"), KindClassic},
		{filepath.Join(cdir, "pyproject.toml"), KindClassic},
	} {
		p, err := OpenWith(tc.path, Options{Environ: []string{}})
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		eq(t, filepath.Base(tc.path), p.Kind, tc.kind)
	}
	// a file given as the project still picks up crewbench.yaml? No: only a
	// directory does; an explicit overlay always applies.
	p, err := Open(filepath.Join(dir, ".mcp.json"), filepath.Join(dir, "crewbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "explicit overlay", p.ServerNames(), []string{"time", "echo"})
}

func TestPyprojectDefinition(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pyproject.toml"), "[project]\nname = \"x\"\n\n[tool.crewai]\ntype = \"crew\"\ndefinition = \"defs/my_crew.jsonc\" # a comment\n")
	writeFile(t, filepath.Join(dir, "defs/my_crew.jsonc"), tinyCrew)
	writeFile(t, filepath.Join(dir, "defs/agents/a.jsonc"), tinyAgent)
	p := open(t, dir)
	eq(t, "opened", p.Opened, "opened defs/my_crew.jsonc, named by pyproject.toml [tool.crewai] definition")
	eq(t, "agent file", p.Agent("a").File, "defs/agents/a.jsonc")

	// a definition that does not exist: CrewAI's UsageError text as a note
	writeFile(t, filepath.Join(dir, "pyproject.toml"), "[tool.crewai]\ntype = \"crew\"\ndefinition = \"gone.jsonc\"\n")
	writeFile(t, filepath.Join(dir, "crew.jsonc"), tinyCrew)
	writeFile(t, filepath.Join(dir, "agents/a.jsonc"), tinyAgent)
	p = open(t, dir)
	eq(t, "note", noteTexts(p, "pyproject-definition"), []string{"pyproject.toml: [tool.crewai] definition must point to an existing file; got 'gone.jsonc'."})
	if _, err := os.Stat(filepath.Join(dir, "crew.jsonc")); err != nil {
		t.Fatal(err)
	}
}
