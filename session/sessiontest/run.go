// Package sessiontest holds session events for tests in several packages
// (the workbench's panes and its end-to-end flows), so each test that needs
// a realistic recorded run reads the same one.
package sessiontest

import (
	"fmt"
	"time"

	"crewbench/session"
)

// Run is a deterministic recorded run (the one the workbench's golden
// screens show): crew ▸ task ▸ agent ▸ step ▸ LLM
// call ▸ tool call ▸ MCP call ▸ attempts, with one tool that times out
// three times (a run that finishes with a tool failure).
func Run(runID string, t0 time.Time) []session.Event {
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
