package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// status is the status line as shown.
func status(m Model) string { return strings.TrimSpace(ansi.Strip(m.statusView())) }

// stepAll sends msg and feeds back every message its commands return at
// once (notices, their clearing), not ticks.
func stepAll(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	nm, cmd := m.Update(msg)
	m = nm.(Model)
	for _, r := range runCmd(t, cmd, 1) {
		m = stepAll(t, m, r)
	}
	return m
}

// TestStatusBelongsToItsViewAndAction: an action's notice clears when the
// action is resolved, and any notice when the view changes.
func TestStatusBelongsToItsViewAndAction(t *testing.T) {
	m := settled(t, goldenDeps(), 100, 30)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	m = stepAll(t, m, keyRunes("r"))
	if !strings.Contains(status(m), "CrewAI would refuse these arguments") {
		t.Fatalf("status %q", status(m))
	}
	m = step(t, m, keyType(tea.KeyEnter))
	m = typeText(t, m, "Lisbon")
	m = step(t, m, keyType(tea.KeyEnter))
	nm, cmd := m.Update(keyRunes("r"))
	m = nm.(Model)
	batch := cmd().(tea.BatchMsg)
	for _, c := range batch[3:] { // the call's own commands are not run here
		m = stepAll(t, m, c())
	}
	if s := status(m); strings.Contains(s, "would refuse") {
		t.Errorf("the arguments error outlived the call: %q", s)
	}
	m = stepAll(t, m, keyRunes("X"))
	if !strings.Contains(status(m), "cancelling the call") {
		t.Fatalf("status %q", status(m))
	}
	m = stepAll(t, m, callDoneMsg{id: m.try.callID})
	if s := status(m); strings.Contains(s, "cancelling") {
		t.Errorf("\"cancelling\" outlived the call: %q", s)
	}

	// Raw JSON: the parse error clears once the JSON parses.
	m = step(t, m, keyRunes("J"))
	m.try.rawText.SetValue(`{"city": "Lisbon"} x`)
	m = stepAll(t, m, keyRunes("J"))
	if !strings.Contains(status(m), "raw JSON:") {
		t.Fatalf("status %q", status(m))
	}
	m.try.rawText.SetValue(`{"city": "Lisbon"}`)
	m = stepAll(t, m, keyRunes("J"))
	if s := status(m); strings.Contains(s, "raw JSON") {
		t.Errorf("the raw JSON error outlived its fix: %q", s)
	}

	// An error made in 4 Try does not follow the user to 5 Kickoff.
	m.try.rawText.SetValue("")
	m = step(t, m, noticeMsg{level: noticeError, text: "arguments: city is required"})
	m = stepAll(t, m, keyRunes("5"))
	if s := status(m); s != "" {
		t.Errorf("5 Kickoff shows %q", s)
	}
	// Nor a ping's result made in 1 Servers.
	m = stepAll(t, m, keyRunes("1"))
	m = stepAll(t, m, pingDoneMsg{server: "weather", rtt: 18e6})
	if !strings.Contains(status(m), "ping weather: 18ms") {
		t.Fatalf("status %q", status(m))
	}
	m = stepAll(t, m, keyRunes("2"))
	if s := status(m); s != "" {
		t.Errorf("2 Tools shows %q", s)
	}
}
