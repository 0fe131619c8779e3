package rerun

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/fixtures/demo"
	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/session"
)

func TestMain(m *testing.M) {
	// The demo starts `crewbench fixture NAME`; with SelfCommand set to this
	// test binary, that arrives here as "fixture NAME".
	if len(os.Args) > 1 && os.Args[1] == "fixture" {
		os.Args[1] = fixturetest.Arg0
	}
	fixturetest.RunIfFixture()
	os.Exit(m.Run())
}

func openDemo(t *testing.T, dir string) *project.Project {
	t.Helper()
	path, err := demo.Materialize(filepath.Join(dir, "project"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func demoMCP(t *testing.T) *crew.MCP {
	t.Helper()
	exe, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	return &crew.MCP{Cache: &mcpconn.ToolsCache{}, SelfCommand: exe, SelfEnv: map[string]string{"TMPDIR": t.TempDir()}}
}

// recordDemo runs the demo crew once with its scripted LLM and records it.
func recordDemo(t *testing.T) (string, *session.File) {
	t.Helper()
	dir := t.TempDir()
	p := openDemo(t, dir)
	c, _, err := crew.FromProject(p, crew.ProjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "demo.jsonl")
	rec, err := session.Create(path, session.RecorderOptions{Header: session.Header{Project: p.Dir, Meta: map[string]any{"demo": true}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, runErr := crew.Kickoff(ctx, c, nil, crew.Options{Emitter: session.NewEmitter(rec), MCP: demoMCP(t)})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatalf("demo run: %v", runErr)
	}
	f, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return path, f
}

// A re-run of the demo follows its recording; with a filter that hides the
// tool the recorded reply calls, it diverges where the tool's result goes
// back to the model, and the new run's events say why.
func TestRunDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo crew three times")
	}
	path, f := recordDemo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var streamed session.Collector
	res, err := Run(ctx, Options{File: f, Path: path, Project: openDemo(t, t.TempDir()), MCP: demoMCP(t), Sink: &streamed})
	if err != nil {
		t.Fatal(err)
	}
	if res.Diverged() || res.Served != res.Recorded || res.Recorded != 5 {
		t.Fatalf("unchanged re-run: first %+v served %d of %d", res.First, res.Served, res.Recorded)
	}
	if len(streamed.Events()) != len(res.Events) || len(res.Events) == 0 {
		t.Errorf("the sink saw %d events, the result has %d", len(streamed.Events()), len(res.Events))
	}

	res, err = Run(ctx, Options{File: f, Path: path, Project: openDemo(t, t.TempDir()), MCP: demoMCP(t),
		Changes: Changes{Filters: map[string]mcpconn.FilterSpec{"weather": {Allowed: []string{"get_alerts"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := res.First
	if d == nil || d.Kind != KindRequest || d.LLMCall != 2 || d.Agent != "Weekend Forecaster" || d.Task != "forecast_task" ||
		d.Role != "tool" || d.Field != "content" || !strings.Contains(d.NowText, "Tool not found") {
		t.Fatalf("divergence %+v", d)
	}
	if d.Detail() != "message 3 (tool) differs in content" || !strings.HasPrefix(res.Verdict(), "failed: ") {
		t.Errorf("detail %q verdict %q", d.Detail(), res.Verdict())
	}
	diff := session.Diff(f.Events, res.Events, session.DiffOptions{})
	if len(diff.Agents) == 0 || diff.Identical {
		t.Errorf("the diff shows no tool change: %+v", diff.Agents)
	}
}

func TestChangesApply(t *testing.T) {
	p := openDemo(t, t.TempDir())
	declared := append([]string(nil), p.Server("weather").Spec.Filter.Allowed...)
	fault := mcpconn.Fault{Kind: mcpconn.FaultIsError, Tool: "flaky_echo"}
	c := Changes{
		Filters: map[string]mcpconn.FilterSpec{"weather": {Blocked: []string{"get_forecast"}, Expr: `tool.name != "x"`}},
		Faults:  map[string][]mcpconn.Fault{"flaky": {fault}},
	}
	if err := c.Apply(p); err != nil {
		t.Fatal(err)
	}
	got := p.Server("weather").Spec.Filter
	if len(got.Allowed) != 0 || strings.Join(got.Blocked, ",") != "get_forecast" || got.Expr == "" {
		t.Errorf("weather filter %+v (declared allowed %v): a change replaces the whole filter", got, declared)
	}
	if fs := p.Server("flaky").Spec.Faults; len(fs) == 0 || fs[len(fs)-1] != fault {
		t.Errorf("flaky faults %+v", fs)
	}
	err := Changes{Filters: map[string]mcpconn.FilterSpec{"nosuch": {}}}.Apply(p)
	var unknown *UnknownServerError
	if !errors.As(err, &unknown) || unknown.Server != "nosuch" || !strings.Contains(err.Error(), `the project has no server "nosuch" (servers: weather, `) {
		t.Errorf("unknown server: %v", err)
	}
}

func TestRunRefusesWhatCannotRun(t *testing.T) {
	ctx := context.Background()
	if _, err := Run(ctx, Options{Project: openDemo(t, t.TempDir())}); err == nil {
		t.Error("no session: want an error")
	}
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	rec, err := session.Create(path, session.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec.Emit(session.Event{Kind: session.CrewKickoffStarted})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	empty, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, Options{File: empty, Path: path, Project: openDemo(t, t.TempDir())})
	if err == nil || !strings.Contains(err.Error(), "records no LLM calls") {
		t.Errorf("a session without LLM calls: %v", err)
	}
}

func TestProviderDivergenceKinds(t *testing.T) {
	req := func(agent, text string) llm.Request {
		return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}, Meta: llm.CallMeta{AgentRole: agent, TaskName: "t"}}
	}
	var recorded []session.Event
	for i, text := range []string{"one", "two", "three"} {
		r := req("A", text)
		recorded = append(recorded, session.Event{Seq: int64(i + 1), Kind: session.LLMCallCompleted, AgentRole: "A", TaskName: "t",
			Data: llm.CompletedEventData("m", r, llm.Response{Content: "reply " + text})})
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		keepGoing bool
		calls     []string
		callFails []bool
		want      Divergence
		all       int
	}{
		{"strict: stops at the first divergence", false, []string{"one", "TWO", "three"}, []bool{false, true, true},
			Divergence{Kind: KindRequest, LLMCall: 2, Field: "content", Message: 0}, 1},
		{"keep going: every divergence, every reply", true, []string{"one", "TWO", "THREE"}, []bool{false, false, false},
			Divergence{Kind: KindRequest, LLMCall: 2, Field: "content"}, 2},
		{"the run asks for more calls than were recorded", false, []string{"one", "two", "three", "four"}, []bool{false, false, false, true},
			Divergence{Kind: KindExtraCall, LLMCall: 4, Message: -1}, 0},
		{"the run ends before the recording does", false, []string{"one"}, []bool{false},
			Divergence{Kind: KindEndedEarly, LLMCall: 2, Message: -1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rp := NewProvider(recorded, tc.keepGoing)
			for i, text := range tc.calls {
				_, err := rp.Call(ctx, req("A", text), nil)
				if (err != nil) != tc.callFails[i] {
					t.Fatalf("call %d (%s): err %v", i+1, text, err)
				}
			}
			all, first := rp.Result(rp.Served())
			if first == nil || first.Kind != tc.want.Kind || first.LLMCall != tc.want.LLMCall || first.Field != tc.want.Field ||
				first.Message != tc.want.Message || len(all) != tc.all || first.Statement == "" {
				t.Errorf("first %+v (all %d), want %+v (all %d)", first, len(all), tc.want, tc.all)
			}
			if rp.Recorded() != 3 {
				t.Errorf("recorded %d", rp.Recorded())
			}
		})
	}
}

// A re-run of a human_input, inject_date crew answers the questions as the
// human did and dates the prompt as the recorded run did, so an unchanged
// re-run does not diverge.
func TestRunReplaysHumanFeedbackAndTheRecordedDate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) { fixturetest.WriteFiles(t, dir, map[string]string{name: content}) }
	write("crew.jsonc", `{"agents": ["a"], "tasks": [{"name": "greet", "description": "Greet", "expected_output": "A greeting", "agent": "a", "human_input": true}]}`)
	write("agents/a.jsonc", `{"role": "Greeter", "goal": "Greet", "backstory": "Kind.", "llm": "scripted:script.yaml", "settings": {"inject_date": true}}`)
	write("script.yaml", "replies:\n  - \"Final Answer: Hello there, friend.\"\n  - \"Final Answer: Hi.\"\n")
	open := func() *project.Project {
		p, err := project.Open(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, _, err := crew.FromProject(open(), crew.ProjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Recorded on New Year's Eve, in another zone than the test's.
	recorded := time.Date(2025, 12, 31, 23, 59, 59, 0, time.FixedZone("UTC-5", -5*3600))
	clock := func() time.Time { return recorded }
	path := filepath.Join(dir, "run.jsonl")
	rec, err := session.Create(path, session.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, runErr := crew.Kickoff(ctx, c, nil, crew.Options{Emitter: session.NewEmitter(rec).WithClock(clock, nil), Now: clock,
		Stepper: crew.NewLineFeedback(strings.NewReader("Shorter.\n\n"), io.Discard)})
	if err := rec.Close(); err != nil || runErr != nil {
		t.Fatalf("record: %v, run: %v", err, runErr)
	}
	f, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, Options{File: f, Path: path, Project: open()})
	if err != nil {
		t.Fatal(err)
	}
	if res.RunErr != nil || res.Diverged() || res.Served != 2 || res.Recorded != 2 {
		t.Fatalf("re-run: err %v, first divergence %+v, served %d of %d", res.RunErr, res.First, res.Served, res.Recorded)
	}
	var feedback []string
	for _, ev := range res.Events {
		if ev.Kind == session.HumanInputReceived {
			feedback = append(feedback, ev.Str(session.KeyFeedback))
		}
		if ev.Kind == session.LLMCallStarted {
			msgs, _ := ev.Data["messages"].([]map[string]any)
			if len(msgs) == 0 || !strings.HasSuffix(msgs[0]["content"].(string), "\n\nCurrent Date: 2025-12-31") {
				t.Errorf("system message %v", msgs)
			}
		}
	}
	if strings.Join(feedback, "|") != "Shorter.|" {
		t.Errorf("feedback %q", feedback)
	}
}
