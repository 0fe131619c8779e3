package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"crewbench/crew"
	"crewbench/crew/project"
	"crewbench/fixtures/demo"
	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/session"
	"crewbench/session/sessiontest"
	"crewbench/themes"
	"crewbench/ui"
)

// Workbench flows on the real engine adapters (workbench_engine.go,
// workbench_recording.go): real fixture servers, the real kickoff and
// re-run, real session files. ui's own flows use fakes; these check what
// came of a flow through ui.Model.Snapshot.

// CI machines have 2 cores and run with -race: allow far more than the 1 s default.
const flowWait = 60 * time.Second

var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// screenHas waits until the rendered output contains every text.
func screenHas(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	// b is everything written since the wait began (teatest keeps it), so
	// it is searched as it is: appending it at each poll grew the text
	// quadratically and could join the end of one copy to the start of
	// the next.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		plain := ansi.Strip(string(b))
		// UI_FLOW_DEBUG=FILE keeps the latest screen text, to see why a
		// flow timed out.
		if os.Getenv("UI_FLOW_DEBUG") != "" {
			_ = os.WriteFile(os.Getenv("UI_FLOW_DEBUG"), []byte(plain), 0o644)
		}
		for _, s := range texts {
			if !strings.Contains(plain, s) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(flowWait), teatest.WithCheckInterval(20*time.Millisecond))
}

func send(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		switch k {
		case "enter":
			tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
		case "ctrl+u":
			tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
		default:
			for _, r := range k {
				tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		}
	}
}

// finalSnapshot waits for the workbench to quit and returns what its
// views ended with.
func finalSnapshot(t *testing.T, tm *teatest.TestModel) ui.Snapshot {
	t.Helper()
	switch m := tm.FinalModel(t, teatest.WithFinalTimeout(flowWait)).(type) {
	case observed:
		return m.Model.Snapshot()
	default:
		return m.(ui.Model).Snapshot()
	}
}

// observed is the workbench with its state published after every message,
// so a flow can wait for a state rather than for text on the screen. The
// screen cannot tell everything: Bubble Tea writes only the lines that
// changed, so a second pause with the same header (parallel calls of one
// tool) writes no "PAUSED before" again; and the verdict banner, made from
// the run's events, shows before the run's outcome (its recording) has
// arrived, so a key sent on seeing it can overtake that outcome.
type observed struct {
	ui.Model
	state *atomic.Pointer[ui.Snapshot]
}

func observe(m ui.Model) observed {
	o := observed{Model: m, state: new(atomic.Pointer[ui.Snapshot])}
	s := m.Snapshot()
	o.state.Store(&s)
	return o
}

func (o observed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := o.Model.Update(msg)
	o.Model = m.(ui.Model)
	s := o.Model.Snapshot()
	o.state.Store(&s)
	return o, cmd
}

// waitState waits until the workbench's state satisfies cond and returns
// that state.
func waitState(t *testing.T, o observed, what string, cond func(ui.Snapshot) bool) ui.Snapshot {
	t.Helper()
	deadline := time.Now().Add(flowWait)
	for {
		s := *o.state.Load()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the workbench is still not %s: %+v", flowWait, what, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Flow: try a slow tool on a real stdio fixture under the native policy and
// watch its attempts time out and retry; quitting reaps the server.
func TestFlow_TryASlowToolAndWatchItsRetries(t *testing.T) {
	command, args := fixturetest.Command("slow")
	spec := mcpconn.ServerSpec{Name: "slow", Transport: mcpconn.TransportStdio, Command: command, Args: args,
		Timeouts: mcpconn.Timeouts{Call: 300 * time.Millisecond, Attempts: 2, Backoff: 50 * time.Millisecond}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink, events, closeEvents := ui.NewEventChannel(ctx, 1024)
	pool := mcpconn.NewPool(session.NewEmitter(sink))
	defer func() { _ = pool.Close(); closeEvents() }()
	sessions := t.TempDir()
	calls := &callLog{Dir: sessions, Version: "test", Meta: map[string]any{"workspace": "slow"}}
	deps := ui.Deps{Ctx: ctx, Workspace: ui.Workspace{Name: "slow", Servers: []ui.ServerEntry{{Spec: spec}}}, Pool: poolAdapter{Pool: pool},
		Events: events, Caller: mcpCaller{Pool: pool}, Palette: themes.Dark(),
		Calls: calls, Sessions: dirSessions{Dir: sessions}}
	tm := teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(120, 36))
	screenHas(t, tm, "servers 1/1 ready")
	send(tm, "2", "/", "slow_report", "enter", "t")
	screenHas(t, tm, "Try slow_report @ slow")
	send(tm, "enter", "5", "enter", "r")
	screenHas(t, tm, "attempt 1/2 timeout", "retrying in 50ms", "attempt 2/2 timeout", "timeout in")
	// The call is recorded: the sessions view lists it, marked.
	send(tm, "7")
	screenHas(t, tm, "calls", "● this workbench", "try-a-tool calls")
	send(tm, "q")
	fm := finalSnapshot(t, tm)
	r := fm.TryResult
	if r == nil || r.Outcome != session.OutcomeTimeout || len(r.Attempts) != 2 {
		t.Fatalf("result = %+v", r)
	}
	if st := pool.Status(); len(st) != 1 || st[0].State != mcpconn.StateClosed {
		t.Errorf("after quit the pool must be closed: %+v", st)
	}
	// teatest does not call Run: close the log as Run does.
	if err := calls.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := session.ReadFile(calls.Path(), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var attempts, retries int
	var verdict *session.Event
	for i, ev := range f.Events {
		switch ev.Kind {
		case session.MCPAttemptFinished:
			attempts++
		case session.MCPRetryScheduled:
			retries++
		case session.MCPToolExecutionFailed, session.MCPToolExecutionCompleted:
			verdict = &f.Events[i]
		}
	}
	if attempts != 2 || retries != 1 || verdict == nil || verdict.Outcome != session.OutcomeTimeout {
		t.Errorf("recording: %d attempts, %d retries, verdict %+v", attempts, retries, verdict)
	}
}

// Flow: kick off the embedded demo crew in step mode on the real engine,
// answer the pause, and run on to the end: the slow tool's failure makes
// the verdict unmistakable.
func TestFlow_StepThroughAKickoffToABreakpointAndContinue(t *testing.T) {
	dir := t.TempDir()
	path, err := demo.Materialize(filepath.Join(dir, "project"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(dir, "sessions")
	runner := &projectRunner{Project: p, MCP: &crew.MCP{SelfCommand: exe, SelfEnv: map[string]string{"TMPDIR": dir}}, SessionsDir: sessions, Version: "test"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deps := ui.Deps{Ctx: ctx, Workspace: workspaceOf(p, "demo"), Runner: runner, Sessions: dirSessions{Dir: sessions}, Palette: themes.Dark()}
	wb := observe(ui.New(deps))
	tm := teatest.NewTestModel(t, wb, teatest.WithInitialTermSize(120, 40))
	send(tm, "5")
	screenHas(t, tm, "Kickoff", "Weekend Weather Brief", "city")
	send(tm, "s")
	screenHas(t, tm, "PAUSED before an LLM call", "Messages about to be sent", "#0 system", "#1 user")
	// v shows the tools offered with the call, by their LLM-visible names.
	send(tm, "v")
	screenHas(t, tm, "Tools offered", "crewbench_fixture_weather_get_forecast")
	send(tm, "s") // steps here as it did in 5 Kickoff
	screenHas(t, tm, "PAUSED before tool call")
	// Continue: back to the kickoff's breakpoints (after a tool failure).
	// Parallel calls already queued, and the call after the slow tool's
	// failure, pause too; continue through each pause (told apart by
	// state, not by its header) until the run's outcome has arrived.
	answered := waitState(t, wb, "paused", func(s ui.Snapshot) bool { return s.Run != nil && s.Run.Pause != nil }).Run.Pause
	send(tm, "c")
	for pauses := 1; ; pauses++ {
		s := waitState(t, wb, "done or paused again", func(s ui.Snapshot) bool {
			return s.Run.Done || (s.Run.Pause != nil && s.Run.Pause != answered)
		})
		if s.Run.Done {
			break
		}
		if pauses > 10 {
			t.Fatalf("still pausing after %d continues: %+v", pauses, s.Run.Pause)
		}
		answered = s.Run.Pause
		send(tm, "c")
	}
	screenHas(t, tm, "FINISHED WITH 1 TOOL FAILURE")
	send(tm, "q")
	fm := finalSnapshot(t, tm)
	if fm.Run == nil || !fm.Run.Done || fm.TraceSummary.ToolFailures != 1 {
		t.Fatalf("run %+v failures %d", fm.Run, fm.TraceSummary.ToolFailures)
	}
	if fm.Run.Outcome.Recorded == "" {
		t.Error("the run was not recorded to the sessions directory")
	}
	if b := fm.TraceBanner; !strings.Contains(b, "slow_report") {
		t.Errorf("banner = %q", b)
	}
}

// Flow: a recorded session opens in the trace (what `crewbench replay`
// does), and the sessions view lists it.
func TestFlow_OpenARecordedSession(t *testing.T) {
	dir := t.TempDir()
	rec, err := session.CreateInDir(dir, session.RecorderOptions{Header: session.Header{Version: "test", Command: "run"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range sessiontest.Run("run-1", fixedNow) {
		rec.Emit(ev)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	deps := ui.Deps{Ctx: context.Background(), Workspace: ui.Workspace{Name: "demo"}, Palette: themes.Dark(),
		Sessions: dirSessions{Dir: dir}, OpenSession: rec.Path()}
	tm := teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(100, 30))
	screenHas(t, tm, "FINISHED WITH 1 TOOL FAILURE", "attempt 3/3")
	send(tm, "7")
	screenHas(t, tm, filepath.Base(rec.Path()))
	send(tm, "q")
	fm := finalSnapshot(t, tm)
	if fm.TraceSource != rec.Path() || fm.TraceSummary.Events != len(sessiontest.Run("x", fixedNow)) {
		t.Errorf("source %q events %d", fm.TraceSource, fm.TraceSummary.Events)
	}
}

// Flow: open a recorded demo session, re-run it offline with a filter that
// hides the weather tool the recorded reply calls, see where it diverges
// and what changed, and open the re-run in the trace. Real engine, real
// fixture servers; the LLM replies come from the recording.
func TestFlow_RerunARecordedSessionWithAChangedFilter(t *testing.T) {
	dir := t.TempDir()
	path, err := demo.Materialize(filepath.Join(dir, "project"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(dir, "sessions")
	runner := &projectRunner{Project: p, MCP: &crew.MCP{SelfCommand: exe, SelfEnv: map[string]string{"TMPDIR": t.TempDir()}},
		SessionsDir: sessions, Version: "test", Meta: map[string]any{"demo": true}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := runner.Start(ctx, ui.KickoffRequest{Crew: "Weekend Weather Brief", Inputs: map[string]any{"city": "Lisbon"}})
	if err != nil {
		t.Fatal(err)
	}
	for range h.Events {
	}
	if o := <-h.Done; o.Recorded == "" || o.Err != nil {
		t.Fatalf("recording the demo: %+v", o)
	}

	deps := ui.Deps{Ctx: ctx, Workspace: workspaceOf(p, "demo"), Runner: runner, Sessions: dirSessions{Dir: sessions},
		Replayer: projectReplayer{Dir: p.Dir, SelfCommand: exe, Demo: true, SessionsDir: sessions, Version: "test"}, Palette: themes.Dark()}
	tm := teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(120, 40))
	send(tm, "7")
	screenHas(t, tm, "Sessions  1 recorded")
	send(tm, "enter")
	screenHas(t, tm, "FINISHED WITH 1 TOOL FAILURE")
	send(tm, "7", "R")
	screenHas(t, tm, "Re-run", "keep going past the first divergence")
	send(tm, "enter", "ctrl+u", "get_alerts", "enter", "r")
	screenHas(t, tm, "DIVERGED AT LLM CALL 2 OF 5", "message 3 (tool) differs in content", "Tool not found",
		"+ crewbench_fixture_weather_get_alerts ← getAlerts @ weather",
		// The re-run is recorded and listed next to the session it re-ran.
		"(in the list)", "Sessions  2 recorded", "re-run of ")
	send(tm, "o")
	screenHas(t, tm, "re-run of", "SESSION FAILED")
	send(tm, "q")
	fm := finalSnapshot(t, tm)
	j := fm.Rerun
	if j == nil || j.Result == nil || j.Result.First == nil || j.Result.First.LLMCall != 2 || j.Result.Recorded != 5 {
		t.Fatalf("job %+v", j)
	}
	if f := j.Filters["weather"]; strings.Join(f.Allowed, ",") != "get_alerts" || len(j.Filters) != 1 {
		t.Errorf("filters %+v", j.Filters)
	}
	if !strings.HasPrefix(fm.TraceSource, "re-run of ") || fm.TraceSummary.ToolFailures == 0 {
		t.Errorf("trace source %q failures %d", fm.TraceSource, fm.TraceSummary.ToolFailures)
	}
	if len(j.Result.Notes) != 0 {
		t.Errorf("a demo session re-run in the demo needs no note: %v", j.Result.Notes)
	}
	rec, err := session.ReadFile(j.Result.Recording, session.ReadOptions{})
	if err != nil {
		t.Fatalf("the re-run's recording: %v", err)
	}
	if rec.Header.Command != "replay --rerun" || rec.Header.Meta["rerun_of"] == "" || rec.Header.Meta["filters"] == nil ||
		len(rec.Events) != len(j.Result.Events) {
		t.Errorf("recording header %+v, %d events (the re-run had %d)", rec.Header, len(rec.Events), len(j.Result.Events))
	}

	// Faults from the re-run form reach the real servers' calls: an
	// isError on getForecast changes what the LLM's second call sees.
	f, err := session.ReadFile(j.Path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := deps.Replayer.Rerun(ctx, ui.RerunRequest{Path: j.Path, File: f,
		Faults: map[string][]mcpconn.Fault{"weather": {{Kind: mcpconn.FaultIsError, Tool: "getForecast", Message: "injected outage"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.First == nil || res.First.LLMCall != 2 || !strings.Contains(res.First.NowText, "injected outage") {
		t.Errorf("a fault on getForecast must diverge at LLM call 2 with its text: %+v", res.First)
	}
	if rec, err := session.ReadFile(res.Recording, session.ReadOptions{}); err != nil || rec.Header.Meta["faults"] == nil {
		t.Errorf("the re-run's recording must name its faults: %v %+v", err, rec)
	}
}

// Flow: under the session policy a Try call's server asks the user. The
// asks fixture's elicitation shows as a form with its defaults (A accepts
// it), and its sampling request waits for approval before a loopback
// OpenAI-compatible LLM answers it.
func TestFlow_TryAnswersTheServersQuestions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"One line."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("MODEL", "openai/gpt-4o-mini")
	command, args := fixturetest.Command("asks")
	spec := mcpconn.ServerSpec{Name: "asks", Transport: mcpconn.TransportStdio, Command: command, Args: args, Policy: mcpconn.PolicySession}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink, events, closeEvents := ui.NewEventChannel(ctx, 1024)
	pool := mcpconn.NewPool(session.NewEmitter(sink))
	defer func() { _ = pool.Close(); closeEvents() }()
	deps := ui.Deps{Ctx: ctx, Workspace: ui.Workspace{Name: "asks", Servers: []ui.ServerEntry{{Spec: spec}}}, Pool: poolAdapter{Pool: pool},
		Events: events, Caller: mcpCaller{Pool: pool}, Palette: themes.Dark()}
	tm := teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(120, 36))
	screenHas(t, tm, "servers 1/1 ready")
	send(tm, "2", "/", "ask_preferences", "enter", "t")
	screenHas(t, tm, "Try ask_preferences @ asks")
	send(tm, "r")
	screenHas(t, tm, "The server asks (elicitation)", "Choose your display preferences", "Colour", "◂ green ▸")
	send(tm, "A")
	screenHas(t, tm, `"action":"accept"`, "server asked elicitation/create → accept")
	send(tm, "2", "/", "ctrl+u", "summarize", "enter", "t")
	screenHas(t, tm, "Try summarize @ asks")
	send(tm, "enter", "a long text", "enter", "r")
	screenHas(t, tm, "The server asks for an LLM reply (sampling)", "user: Summarize in one line: a long text")
	send(tm, "A")
	screenHas(t, tm, "gpt-4o-mini: One line.")
	send(tm, "q")
	fm := finalSnapshot(t, tm)
	if r := fm.TryResult; r == nil || r.Outcome != session.OutcomeOK || r.Text != "gpt-4o-mini: One line." {
		t.Fatalf("result = %+v", r)
	}
}
