package ui

import (
	"context"

	"errors"
	"fmt"
	tea "github.com/charmbracelet/bubbletea"
	"time"

	"crewbench/crew"
	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
	"crewbench/session"
)

// traceEvents is a deterministic run: crew ▸ task ▸ agent ▸ step ▸ LLM
// call ▸ tool call ▸ MCP call ▸ attempts, with one tool that times out
// three times (a run that finishes with a tool failure).
func traceEvents(runID string) []session.Event {
	t0 := fixedNow
	var evs []session.Event
	seq := int64(0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	add := func(ev session.Event, ms int) {
		seq++
		ev.Seq, ev.Time, ev.RunID = seq, at(ms), runID
		evs = append(evs, ev)
	}
	add(session.Event{Kind: session.CrewKickoffStarted, Span: "crew", Data: map[string]any{session.KeyCrewName: "Weekend Weather Brief"}}, 0)
	add(session.Event{Kind: session.TaskStarted, Span: "task1", Parent: "crew", TaskName: "forecast_task"}, 1)
	add(session.Event{Kind: session.AgentExecutionStarted, Span: "agent1", Parent: "task1", AgentRole: "Weekend Forecaster"}, 2)
	add(session.Event{Kind: session.AgentStepStarted, Span: "step1", Parent: "agent1", Data: map[string]any{session.KeyStep: 1}}, 3)
	add(session.Event{Kind: session.LLMCallStarted, Span: "llm1", Parent: "step1", Data: map[string]any{session.KeyModel: "demo-llm"}}, 4)
	add(session.Event{Kind: session.LLMCallCompleted, Span: "llm1", Parent: "step1", Data: map[string]any{session.KeyModel: "demo-llm",
		session.KeyUsage: map[string]any{"prompt_tokens": 1133, "completion_tokens": 39, "total_tokens": 1172}}}, 40)
	// a tool that works
	add(session.Event{Kind: session.ToolUsageStarted, Span: "tool1", Parent: "step1", Server: "weather",
		ToolName: "crewbench_fixture_weather_get_forecast", OriginalToolName: "getForecast",
		Data: map[string]any{session.KeyToolArgs: map[string]any{"city": "Lisbon"}}}, 41)
	add(session.Event{Kind: session.MCPToolExecutionStarted, Span: "mcp1", Parent: "tool1", Server: "weather", OriginalToolName: "getForecast"}, 42)
	add(session.Event{Kind: session.MCPAttemptStarted, Span: "att1", Parent: "mcp1", Attempt: 1, Data: map[string]any{session.KeyMaxAttempts: 3}}, 43)
	add(session.Event{Kind: session.MCPAttemptFinished, Span: "att1", Parent: "mcp1", Attempt: 1, Outcome: session.OutcomeOK}, 60)
	add(session.Event{Kind: session.MCPToolExecutionCompleted, Span: "mcp1", Parent: "tool1", Outcome: session.OutcomeOK}, 61)
	add(session.Event{Kind: session.ToolUsageFinished, Span: "tool1", Parent: "step1", Outcome: "ok",
		Data: map[string]any{session.KeyOutput: "Sunny, 24°C"}}, 62)
	add(session.Event{Kind: session.AgentStepFinished, Span: "step1", Parent: "agent1"}, 63)
	// a tool that times out three times
	add(session.Event{Kind: session.AgentStepStarted, Span: "step2", Parent: "agent1", Data: map[string]any{session.KeyStep: 2}}, 64)
	add(session.Event{Kind: session.LLMCallStarted, Span: "llm2", Parent: "step2", Data: map[string]any{session.KeyModel: "demo-llm"}}, 65)
	add(session.Event{Kind: session.LLMCallCompleted, Span: "llm2", Parent: "step2", Data: map[string]any{session.KeyModel: "demo-llm",
		session.KeyUsage: map[string]any{"prompt_tokens": 1261, "completion_tokens": 18}}}, 80)
	add(session.Event{Kind: session.ToolUsageStarted, Span: "tool2", Parent: "step2", Server: "slow",
		ToolName: "crewbench_fixture_slow_slow_report", OriginalToolName: "slow_report"}, 81)
	add(session.Event{Kind: session.MCPToolExecutionStarted, Span: "mcp2", Parent: "tool2", Server: "slow", OriginalToolName: "slow_report"}, 82)
	ms := 83
	for a := 1; a <= 3; a++ {
		span := fmt.Sprintf("att2-%d", a)
		add(session.Event{Kind: session.MCPAttemptStarted, Span: span, Parent: "mcp2", Attempt: a, Data: map[string]any{session.KeyMaxAttempts: 3}}, ms)
		ms += 1000
		add(session.Event{Kind: session.MCPAttemptFinished, Span: span, Parent: "mcp2", Attempt: a, Outcome: session.OutcomeTimeout,
			Error: "no response within 1s"}, ms)
		if a < 3 {
			add(session.Event{Kind: session.MCPRetryScheduled, Span: "mcp2", Attempt: a + 1, Duration: 200 * time.Millisecond}, ms)
			ms += 200
		}
	}
	add(session.Event{Kind: session.MCPToolExecutionFailed, Span: "mcp2", Parent: "tool2", Outcome: session.OutcomeTimeout, Error: "timed out after 3 attempts"}, ms)
	add(session.Event{Kind: session.ToolUsageError, Span: "tool2", Parent: "step2", Outcome: session.OutcomeTimeout,
		Error: "Error executing MCP tool slow_report: timed out"}, ms+1)
	add(session.Event{Kind: session.AgentStepFinished, Span: "step2", Parent: "agent1"}, ms+2)
	add(session.Event{Kind: session.AgentExecutionCompleted, Span: "agent1", Parent: "task1"}, ms+3)
	add(session.Event{Kind: session.TaskCompleted, Span: "task1", Parent: "crew"}, ms+4)
	add(session.Event{Kind: session.CrewKickoffCompleted, Span: "crew", Data: map[string]any{session.KeyCrewName: "Weekend Weather Brief"}}, ms+5)
	return evs
}

// fakeRunner replays scripted events and pauses through the stepper it
// is given, like the engine: before the LLM call and before each tool.
type fakeRunner struct {
	events     []session.Event
	noDefaults bool
}

func (r *fakeRunner) Crews() []CrewInfo {
	inputs := map[string]any{"city": "Lisbon"}
	if r.noDefaults {
		inputs = nil
	}
	return []CrewInfo{{Name: "Weekend Weather Brief", Placeholders: []string{"city"}, Inputs: inputs,
		Tasks: []string{"forecast_task", "brief_task"}, Agents: []string{"forecaster", "writer"}, Servers: []string{"weather", "slow"},
		LLM: "scripted:script.yaml"}}
}

func (r *fakeRunner) Start(ctx context.Context, req KickoffRequest) (*RunHandle, error) {
	if req.Inputs["city"] == nil {
		return nil, errors.New("missing input city")
	}
	events := make(chan session.Event, 64)
	done := make(chan RunOutcome, 1)
	go func() {
		defer close(done)
		send := func(evs ...session.Event) bool {
			for _, ev := range evs {
				select {
				case events <- ev:
				case <-ctx.Done():
					return false
				}
			}
			return true
		}
		evs := r.events
		// Pause before the first tool call (event index of tool_usage_started).
		for i, ev := range evs {
			if ev.Kind == session.ToolUsageStarted {
				if !send(evs[:i]...) {
					close(events)
					done <- RunOutcome{Err: ctx.Err()}
					return
				}
				d, err := req.Stepper.Before(ctx, &crew.Pause{Kind: crew.PauseToolCall, TaskName: "forecast_task", AgentRole: "Weekend Forecaster",
					RequestedName: ev.ToolName, ToolName: ev.ToolName, OriginalName: ev.OriginalToolName, Server: ev.Server,
					Args: pyjson.ObjectOf("city", "Lisbon")})
				if err != nil || d.Action == crew.Abort {
					close(events)
					done <- RunOutcome{Err: crew.ErrAborted}
					return
				}
				evs = evs[i:]
				break
			}
		}
		send(evs...)
		close(events)
		done <- RunOutcome{Output: "brief", ToolFailures: "1 tool failure"}
	}()
	return &RunHandle{ID: "run-1", Events: events, Done: done}, nil
}

// fakeCaller emits a native call's events: two timeouts, then success.
type fakeCaller struct{}

func (fakeCaller) Call(ctx context.Context, spec mcpconn.ServerSpec, tool string, args map[string]any, em *session.Emitter) *mcpconn.CallResult {
	r := &mcpconn.CallResult{Server: spec.Name, Tool: tool, CallName: tool, Policy: mcpconn.EffectivePolicy(spec), Arguments: args}
	em.Emit(session.Event{Kind: session.MCPProcessSpawned, Server: spec.Name, Data: map[string]any{"pid": 4242}})
	em.Emit(session.Event{Kind: session.MCPConnectionCompleted, Server: spec.Name, Duration: 40 * time.Millisecond})
	for a := 1; a <= 3; a++ {
		em.Emit(session.Event{Kind: session.MCPAttemptStarted, Attempt: a, Time: fixedNow})
		out := session.OutcomeTimeout
		if a == 3 {
			out = session.OutcomeOK
		}
		em.Emit(session.Event{Kind: session.MCPAttemptFinished, Attempt: a, Outcome: out, Duration: time.Second,
			Data: map[string]any{session.KeyMaxAttempts: 3}})
		r.Attempts = append(r.Attempts, mcpconn.Attempt{N: a, Outcome: out, Duration: time.Second})
		if a < 3 {
			em.Emit(session.Event{Kind: session.MCPRetryScheduled, Attempt: a + 1, Data: map[string]any{"backoff_ms": int64(1000 * a)}})
		}
	}
	r.Outcome, r.Text = session.OutcomeOK, `{"temp": 24, "sky": "sunny"}`
	r.Content = []mcpconn.ContentItem{{Type: "text", Text: `{"temp": 24, "sky": "sunny"}`}, {Type: "image", MIMEType: "image/png", Bytes: 2048}}
	r.Duration = 3*time.Second + 3*time.Second
	return r
}

// fakeSessions lists two recorded sessions.
type fakeSessions struct{ file *session.File }

func (s fakeSessions) List(context.Context) ([]SessionInfo, error) {
	return []SessionInfo{
		{Path: "/state/sessions/20261129T120000Z-a1b2c3.jsonl", Name: "20261129T120000Z-a1b2c3.jsonl", Size: 48213, Modified: fixedNow,
			Command: "run", About: "crew Weekend Weather Brief"},
		{Path: "/state/sessions/20261128T090000Z-d4e5f6.jsonl", Name: "20261128T090000Z-d4e5f6.jsonl", Size: 912, Modified: fixedNow.Add(-27 * time.Hour),
			Command: "call", About: "getForecast @ weather"},
	}, nil
}

func (s fakeSessions) Open(_ context.Context, path string) (*session.File, error) {
	if s.file == nil {
		return nil, errors.New("no such session")
	}
	return s.file, nil
}

// canceledLater is a context for goroutines a test leaves blocked (a
// pause nobody answers): they end within a minute at the latest.
func canceledLater() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	_ = cancel // released by the timeout
	return ctx
}

// collectCall runs try-a-tool's run command: the call (which finishes at
// once with the fake caller and closes its event channel), then the event
// reader. It returns the events batch, then the result.
func collectCall(cmd tea.Cmd) []tea.Msg {
	batch, ok := cmd().(tea.BatchMsg)
	if !ok || len(batch) < 2 {
		return nil
	}
	done := batch[0]()
	events := batch[1]()
	return []tea.Msg{events, done}
}
