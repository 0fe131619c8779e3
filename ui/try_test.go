package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/session"
)

// TestTryResultOpensOnItsOutcome at 80×24: a finished call shows its
// outcome first, then the attempts, even when events are drained after
// the call returned (they used to scroll the pane to the end).
func TestTryResultOpensOnItsOutcome(t *testing.T) {
	m := settled(t, goldenDeps(), 80, 24)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	m = step(t, m, keyType(tea.KeyEnter))
	m = typeText(t, m, "Lisbon")
	m = step(t, m, keyType(tea.KeyEnter))
	nm, cmd := m.Update(keyRunes("r"))
	m = nm.(Model)
	msgs := collectCall(cmd) // events, done
	m = step(t, m, msgs[1])
	m = step(t, m, msgs[0])
	m = step(t, m, callEventsMsg{id: m.try.callID, events: []session.Event{{Kind: session.MCPProcessExited, Data: map[string]any{"pid": 4242}}}})
	v := ansi.Strip(m.View())
	res := v[strings.Index(v, "Attempts & result"):]
	for _, want := range []string{"✓ ok in 6s after 3 attempts", "✕ attempt 1/3 timeout"} {
		if !strings.Contains(res, want) {
			t.Errorf("the result pane does not show %q:\n%s", want, v)
		}
	}
	if strings.Index(res, "✓ ok in") > strings.Index(res, "attempt 1/3") {
		t.Errorf("the outcome is not first:\n%s", res)
	}
}
