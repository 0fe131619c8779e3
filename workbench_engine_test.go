package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/crew/project"
	"crewbench/crew/writeback"
	"crewbench/fixtures/demo"
	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/ui"
)

func openDemo(t *testing.T) *project.Project {
	t.Helper()
	path, err := demo.Materialize(filepath.Join(t.TempDir(), "project"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWorkspaceOfAndCrews(t *testing.T) {
	p := openDemo(t)
	ws := workspaceOf(p, "demo")
	if len(ws.Servers) != 4 || ws.LLM != "scripted:script.yaml" {
		t.Fatalf("servers %d llm %q", len(ws.Servers), ws.LLM)
	}
	var forecaster ui.AgentEntry
	for _, a := range ws.Agents {
		if a.Name == "forecaster" {
			forecaster = a
		}
	}
	if strings.Join(forecaster.Servers, ",") != "weather,names,slow,flaky" {
		t.Errorf("forecaster servers %v", forecaster.Servers)
	}
	crews := (&projectRunner{Project: p}).Crews()
	if len(crews) != 1 || strings.Join(crews[0].Placeholders, ",") != "city" || crews[0].Inputs["city"] != "Lisbon" {
		t.Fatalf("crews %+v", crews)
	}
	if strings.Join(crews[0].Tasks, ",") != "forecast_task,brief_task" {
		t.Errorf("tasks %v", crews[0].Tasks)
	}
}

// The playground's export goes through crew/writeback: the rendered entry
// carries the tried filter, and writing shows a diff first and keeps a
// backup.
func TestProjectExporter_RenderPlanApply(t *testing.T) {
	p := openDemo(t)
	e := projectExporter{Project: p}
	ctx := context.Background()
	req := ui.ExportRequest{Server: "weather", Filter: mcpconn.FilterSpec{Allowed: []string{"get_forecast", "get_alerts"}}}
	text, err := e.Render(ctx, ui.ExportMCPSJSON, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, `"allowed_tool_names": ["get_forecast", "get_alerts"]`) {
		t.Errorf("render:\n%s", text)
	}
	if py, err := e.Render(ctx, ui.ExportPython, req); err != nil || !strings.Contains(py, "create_static_tool_filter") {
		t.Errorf("python (%v):\n%s", err, py)
	}
	plan, err := e.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.Diff, `+`) || !strings.Contains(plan.Diff, "get_alerts") || !strings.Contains(plan.File, "forecaster.jsonc") {
		t.Fatalf("plan %+v", plan)
	}
	file := filepath.Join(p.Dir, "agents", "forecaster.jsonc")
	before, _ := os.ReadFile(file)
	if strings.Contains(string(before), `"get_alerts"`) {
		t.Fatal("Plan wrote the file")
	}
	backup, err := e.Apply(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(file)
	kept, _ := os.ReadFile(backup)
	if !strings.Contains(string(after), `"get_alerts"`) || string(kept) != string(before) {
		t.Errorf("after write the file lacks the filter or the backup %s differs", backup)
	}
	if _, err := e.Plan(ctx, ui.ExportRequest{Server: "weather", Filter: mcpconn.FilterSpec{Expr: "true"}}); err == nil {
		t.Error("a CEL expression cannot be written")
	}
	if _, err := (projectExporter{Project: p, ReadOnly: "demo"}).Plan(ctx, req); err == nil {
		t.Error("a read-only exporter must refuse")
	}
}

func TestDirSessionsListsNewestFirst(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"a.jsonl", "b.jsonl", "notes.txt"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ts := fixedNow.Add(time.Duration(i) * time.Hour)
		_ = os.Chtimes(path, ts, ts)
	}
	l, err := dirSessions{Dir: dir}.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[0].Name != "b.jsonl" {
		t.Errorf("list %+v", l)
	}
	if l, err := (dirSessions{Dir: filepath.Join(dir, "missing")}).List(context.Background()); err != nil || l != nil {
		t.Errorf("a missing dir lists nothing: %v %v", l, err)
	}
}

// The playground's export of a server the workbench's pool was refused with
// 401 (no stored token) carries the Authorization header CrewAI needs and
// the note on getting the token, as export-config --connect writes it.
func TestProjectExporter_PoolRefusedGetsBearer(t *testing.T) {
	fake := protectedServer(t)
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		"crew.jsonc":     `{"agents": ["a"], "tasks": [{"name": "t1", "description": "d", "expected_output": "e", "agent": "a"}]}`,
		"agents/a.jsonc": `{"role": "r", "goal": "g", "backstory": "b", "mcps": [{"url": "` + fake.MCPURL() + `"}]}`})
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool := mcpconn.NewPool(nil)
	defer pool.Close()
	name := p.Servers[0].Name
	_ = pool.Connect(ctx, p.Servers[0].Spec) // the failure is in the status
	if st, _ := pool.ServerStatus(name); st.State != mcpconn.StateFailed {
		t.Fatalf("the protected server let the pool in without a token: %+v", st)
	}
	e := projectExporter{Project: p, Refused: poolRefused(pool, p)}
	text, err := e.Render(ctx, ui.ExportPython, ui.ExportRequest{Server: name})
	env := writeback.TokenEnvVar(name)
	if err != nil || !strings.Contains(text, `f"Bearer {os.environ['`+env+`']}"`) || !strings.Contains(text, "# note: "+name+" answered 401 Unauthorized") {
		t.Errorf("render (%v):\n%s", err, text)
	}
	if text, _ := (projectExporter{Project: p}).Render(ctx, ui.ExportPython, ui.ExportRequest{Server: name}); strings.Contains(text, env) {
		t.Errorf("no refusal known, but a header:\n%s", text)
	}
}
