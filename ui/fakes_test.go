package ui

import (
	"context"
	"encoding/json"

	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew"
	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
	"crewbench/session"
	"crewbench/session/sessiontest"
)

// traceEvents is sessiontest.Run at the workbench tests' fixed clock.
func traceEvents(runID string) []session.Event { return sessiontest.Run(runID, fixedNow) }

// tornTraceEvents is traceEvents cut off during the slow tool's third
// attempt (the process died), with the first tool call's own end lost:
// its step's end closes it, the session's end closes the rest.
func tornTraceEvents() []session.Event {
	var out []session.Event
	for i, ev := range traceEvents("run-1")[:25] {
		if i != 11 { // tool_usage_finished of the first tool call
			out = append(out, ev)
		}
	}
	return out
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

func (fakeCaller) Call(ctx context.Context, spec mcpconn.ServerSpec, tool string, args json.RawMessage, em *session.Emitter, _ Asker) *mcpconn.CallResult {
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

// authFailCaller answers every call as a server refusing it with 401
// under the native policy, with the fix crewbench call prints.
type authFailCaller struct{}

func (authFailCaller) Call(ctx context.Context, spec mcpconn.ServerSpec, tool string, args json.RawMessage, em *session.Emitter, _ Asker) *mcpconn.CallResult {
	em.Emit(session.Event{Kind: session.MCPAttemptStarted, Attempt: 1, Time: fixedNow})
	em.Emit(session.Event{Kind: session.MCPAttemptFinished, Attempt: 1, Outcome: session.OutcomeAuth, Duration: 120 * time.Millisecond,
		Data: map[string]any{session.KeyMaxAttempts: 1}})
	const why = "HTTP 401 Unauthorized"
	return &mcpconn.CallResult{Server: spec.Name, Tool: tool, CallName: tool, Policy: mcpconn.PolicyNative, Arguments: args,
		Outcome: session.OutcomeAuth, Error: why, Failed: true, Raised: true, Duration: 120 * time.Millisecond,
		Attempts: []mcpconn.Attempt{{N: 1, Outcome: session.OutcomeAuth, Duration: 120 * time.Millisecond}},
		Fix:      mcpconn.AuthHint(spec, session.OutcomeAuth, why, mcpconn.PolicyNative)}
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
