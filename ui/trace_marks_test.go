package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/session"
)

func evAt(seq int, ms int, ev session.Event) session.Event {
	ev.Seq, ev.Time, ev.RunID = int64(seq), fixedNow.Add(time.Duration(ms)*time.Millisecond), "r"
	return ev
}

// TestTraceSaysWhatTheUserDecided: a cancelled Try call is "cancelled", not
// a failure; a tool skipped at a breakpoint shows as skipped with the
// result supplied; a step's time leaves out the time spent paused.
func TestTraceSaysWhatTheUserDecided(t *testing.T) {
	// A Try-call session: one call failed, one was cancelled.
	calls := []session.Event{
		evAt(1, 0, session.Event{Kind: session.MCPToolExecutionStarted, Span: "c1", Server: "slow", OriginalToolName: "slow_report"}),
		evAt(2, 900, session.Event{Kind: session.MCPToolExecutionFailed, Span: "c1", Server: "slow", Outcome: session.OutcomeTimeout, Error: "timed out"}),
		evAt(3, 1000, session.Event{Kind: session.MCPToolExecutionStarted, Span: "c2", Server: "slow", OriginalToolName: "slow_report"}),
		evAt(4, 1500, session.Event{Kind: session.MCPToolExecutionFailed, Span: "c2", Server: "slow", Outcome: session.OutcomeCancelled, Error: "context canceled"}),
	}
	p := tracePaneWith(t, 120, 30, calls)
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "1 TOOL FAILURE:") || !strings.Contains(v, "· 1 cancelled") || strings.Contains(v, "2 TOOL FAILURES") {
		t.Errorf("the cancelled call counts as a failure:\n%s", v)
	}
	if !strings.Contains(v, "(1 failed, 1 cancelled)") {
		t.Errorf("totals:\n%s", v)
	}
	p = tracePaneWith(t, 120, 30, calls[2:])
	if v := ansi.Strip(p.View()); !strings.Contains(v, "⊘ 1 TOOL CALL CANCELLED") || strings.Contains(v, "FAILURE") {
		t.Errorf("a cancelled call alone:\n%s", v)
	}

	// A run: the user paused 18s before a tool, then skipped it.
	run := []session.Event{
		evAt(1, 0, session.Event{Kind: session.AgentStepStarted, Span: "step1", Data: map[string]any{session.KeyStep: 1}}),
		evAt(2, 100, session.Event{Kind: session.StepPaused, Parent: "step1", Data: map[string]any{"kind": "tool_call"}}),
		evAt(3, 18100, session.Event{Kind: session.StepResumed, Parent: "step1", Data: map[string]any{"kind": "tool_call", "decision": "skip"}}),
		evAt(4, 18100, session.Event{Kind: session.ToolUsageStarted, Span: "tool1", Parent: "step1", ToolName: "crewbench_fixture_weather_get_forecast"}),
		evAt(5, 18100, session.Event{Kind: session.ToolUsageFinished, Span: "tool1", Parent: "step1", Outcome: "ok",
			Data: map[string]any{session.KeyOutput: "Sunny, canned", "skipped": true}}),
		evAt(6, 18400, session.Event{Kind: session.AgentStepFinished, Span: "step1"}),
	}
	p = tracePaneWith(t, 120, 30, run)
	v = ansi.Strip(p.View())
	var stepRow, toolRow string
	for _, l := range strings.Split(v, "\n") {
		switch {
		case strings.Contains(l, "step 1"):
			stepRow = l
		case strings.Contains(l, "get_forecast"):
			toolRow = l
		}
	}
	if !strings.Contains(stepRow, "400ms ⏸ 18s") {
		t.Errorf("the step's time includes the pause: %q", stepRow)
	}
	if !strings.Contains(toolRow, "↷") || !strings.Contains(toolRow, "[skipped at a breakpoint]") || !strings.Contains(toolRow, "→ Sunny, canned") ||
		strings.Contains(toolRow, "✓") || strings.Contains(toolRow, "µs") {
		t.Errorf("the skipped tool looks like a call: %q", toolRow)
	}

	// The payload view says the same.
	for i, r := range p.rows {
		if r.n.Kind == session.NodeStep {
			p.cursor = i
		}
	}
	p, _ = p.Update(keyType(tea.KeyEnter))
	if v := ansi.Strip(p.View()); !strings.Contains(v, "duration     400ms") || !strings.Contains(v, "paused       18s at breakpoints") {
		t.Errorf("the step's payload:\n%s", v)
	}
}
