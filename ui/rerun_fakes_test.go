package ui

import (
	"context"
	"errors"
	"sync"

	"crewbench/crew/rerun"
	"crewbench/session"
)

// Offline re-runs for pane and golden tests: the recording is traceEvents
// with the tools each agent was offered; the re-run is what the engine
// does when a filter hides the weather tool the recorded reply calls — the
// tool is not found, the next LLM call diverges, the run stops there.

var (
	recordedTools = []any{
		map[string]any{"name": "crewbench_fixture_weather_get_forecast", "original_name": "getForecast", "server": "weather"},
		map[string]any{"name": "crewbench_fixture_slow_slow_report", "original_name": "slow_report", "server": "slow"},
	}
	rerunTools = []any{
		map[string]any{"name": "crewbench_fixture_weather_get_alerts", "original_name": "getAlerts", "server": "weather"},
		map[string]any{"name": "crewbench_fixture_slow_slow_report", "original_name": "slow_report", "server": "slow"},
	}
)

// withAgentTools sets the tools offered on every agent_execution_started.
func withAgentTools(evs []session.Event, tools []any) []session.Event {
	out := make([]session.Event, len(evs))
	for i, ev := range evs {
		if ev.Kind == session.AgentExecutionStarted {
			data := map[string]any{session.KeyTools: tools}
			for k, v := range ev.Data {
				data[k] = v
			}
			ev.Data = data
		}
		out[i] = ev
	}
	return out
}

// recordedSession is the recording re-run in the tests.
func recordedSession() *session.File {
	return &session.File{Header: session.Header{RunID: "run-1", Meta: map[string]any{"demo": true}},
		Events: withAgentTools(traceEvents("run-1"), recordedTools)}
}

// rerunEvents are the re-run's events: the first step as recorded up to
// the tool call, which now finds no tool, then the failure.
func rerunEvents() []session.Event {
	src := withAgentTools(traceEvents("rerun-1"), rerunTools)
	var out []session.Event
	for _, ev := range src {
		if ev.Kind == session.ToolUsageStarted {
			ev.OriginalToolName, ev.Server = "", ""
			out = append(out, ev)
			fail := session.Event{Kind: session.ToolUsageError, Span: ev.Span, Parent: ev.Parent, RunID: ev.RunID, Seq: ev.Seq + 1,
				Time: ev.Time.Add(1), ToolName: ev.ToolName, Outcome: "failed",
				Error: "Tool not found: crewbench_fixture_weather_get_forecast. Available tools: crewbench_fixture_weather_get_alerts, crewbench_fixture_slow_slow_report"}
			out = append(out, fail)
			end := fail.Time.Add(2)
			const why = "replay demo-llm: the run left the recording earlier"
			out = append(out,
				session.Event{Kind: session.AgentExecutionError, Span: "agent1", Parent: "task1", RunID: ev.RunID, Time: end, Error: why},
				session.Event{Kind: session.TaskFailed, Span: "task1", Parent: "crew", RunID: ev.RunID, Time: end, TaskName: "forecast_task", Error: why},
				session.Event{Kind: session.CrewKickoffFailed, Span: "crew", RunID: ev.RunID, Time: end, Error: why,
					Data: map[string]any{session.KeyCrewName: "Weekend Weather Brief"}})
			return out
		}
		out = append(out, ev)
	}
	return out
}

// rerunDivergence is where the re-run leaves its recording.
func rerunDivergence() *rerun.Divergence {
	return &rerun.Divergence{Kind: rerun.KindRequest, LLMCall: 2, Recorded: 2, Agent: "Weekend Forecaster", Task: "forecast_task",
		Message: 3, Role: "tool", Field: "content", WasText: `at byte 0: "Sunny, 24°C"`,
		NowText:   `at byte 0: "Tool not found: crewbench_fixture_weather_get_forecast. Available tools: …"`,
		Statement: "the run diverged from the recording at LLM call 2"}
}

// fakeReplayer streams the re-run's events and reports the divergence;
// it keeps every request it got.
type fakeReplayer struct {
	mu   sync.Mutex
	reqs []RerunRequest
	fail error
}

func (r *fakeReplayer) Rerun(ctx context.Context, req RerunRequest) (*rerun.Result, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	fail := r.fail
	r.mu.Unlock()
	if req.File == nil {
		return nil, errors.New("no session loaded")
	}
	if fail != nil {
		return nil, fail
	}
	evs := rerunEvents()
	for _, ev := range evs {
		req.Sink.Emit(ev)
	}
	d := rerunDivergence()
	return &rerun.Result{Events: evs, Recorded: 2, Served: 1, First: d, All: []rerun.Divergence{*d},
		RunErr: errors.New("replay demo-llm: the run left the recording earlier"),
		Notes:  []string{"the session recorded crew \"Weekend Weather Brief\" on another machine"}}, nil
}

func (r *fakeReplayer) requests() []RerunRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RerunRequest(nil), r.reqs...)
}

// rerunDeps are the golden deps with a session to re-run and a replayer.
func rerunDeps() (Deps, *fakeReplayer) {
	d := goldenDeps()
	d.Sessions = fakeSessions{file: recordedSession()}
	r := &fakeReplayer{}
	d.Replayer = r
	return d, r
}
