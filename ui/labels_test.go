package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestFoldedYAMLLabelsStayOnTheirRow: `role: >` leaves a trailing newline
// (and a literal block an inner one); the trace row keeps its duration and
// the filter's context line its hint.
func TestFoldedYAMLLabelsStayOnTheirRow(t *testing.T) {
	if got := rowLabel("Weekend\nForecaster\n"); got != "Weekend ⏎ Forecaster" {
		t.Errorf("rowLabel = %q", got)
	}
	evs := traceEvents("r")
	for i := range evs {
		if evs[i].AgentRole != "" {
			evs[i].AgentRole = "Weekend Forecaster\n"
		}
	}
	p := tracePaneWith(t, 100, 30, evs)
	view := ansi.Strip(p.View())
	found := false
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "Weekend Forecaster") {
			found = true
			if !regexp.MustCompile(`\d(ms|s) │$`).MatchString(l) {
				t.Errorf("the agent's row lost its duration: %q", l)
			}
		}
	}
	if !found {
		t.Fatalf("no agent row:\n%s", view)
	}

	deps := goldenDeps()
	deps.Workspace.Agents[0].Role = "Weekend\nForecaster\n"
	m := stepRun(t, settled(t, deps, 100, 30), showFilterMsg{server: "weather"}, 3)
	if m.filter.agentName() == "" {
		m = stepRun(t, m, keyRunes("a"), 3)
	}
	fv := ansi.Strip(m.filter.View())
	if !strings.Contains(fv, "agent_role=Weekend ⏎ Forecaster (a: other") {
		t.Errorf("the context line is not one line:\n%s", fv)
	}
}
