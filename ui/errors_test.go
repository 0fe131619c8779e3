package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// longSpawnError is the kind of message that used to be cut just before
// its cause.
const longSpawnError = `Failed to connect to MCP server: Failed to start MCP server process for stdio command "crewbench fixture weather": spawn crewbench: exec: "crewbench": executable file not found in $PATH`

// TestErrorsShowTheirCause at 80×24: the server's detail (under the list,
// whose row is cut) wraps the whole error, a long error notice wraps in
// the status line, a failed run's banner wraps, and ! shows the full text.
func TestErrorsShowTheirCause(t *testing.T) {
	deps := goldenDeps()
	st := fakeStatuses()
	st[2].Error = longSpawnError
	deps.Pool = &fakePool{statuses: st}
	m := settled(t, deps, 80, 24)
	m = step(t, m, keyRunes("G")) // the broken server
	v := ansi.Strip(m.View())
	if !strings.Contains(v, `"crewbench": executable file not found in`) {
		t.Errorf("the detail does not show the whole error:\n%s", v)
	}

	m = step(t, m, noticeMsg{level: noticeError, text: "reconnect broken: " + longSpawnError})
	v = ansi.Strip(m.View())
	requireBox(t, m.View(), 80, 24)
	if !strings.Contains(strings.Join(strings.Fields(v), " "), "not found in $PATH") {
		t.Errorf("the status line cut the cause:\n%s", v)
	}
	m = step(t, m, keyRunes("!"))
	v = ansi.Strip(m.View())
	if !strings.Contains(v, "The last message in full") || !strings.Contains(strings.Join(strings.Fields(v), " "), "reconnect broken: Failed to connect") {
		t.Errorf("! does not show the message in full:\n%s", v)
	}
	m = step(t, m, keyRunes("!"))
	if m.showMessage {
		t.Error("! again must close the message")
	}

	m = step(t, m, startRunMsg{req: KickoffRequest{Crew: "Weekend Weather Brief"}})
	gen := m.trace.run.gen
	m = step(t, m, runStartedMsg{gen: gen, handle: &RunHandle{ID: "run-1"}})
	m = step(t, m, runDoneMsg{gen: gen, outcome: RunOutcome{Err: errors.New("Failed to get native MCP tools: " + longSpawnError)}})
	m.trace.Stop()
	v = ansi.Strip(m.trace.View())
	if !strings.Contains(strings.Join(strings.Fields(v), " "), "executable file not found") {
		t.Errorf("the run's banner cut the cause:\n%s", v)
	}

	// 7 Sessions: a listing that failed wraps too.
	m = step(t, m, sessionsListedMsg{err: errors.New("list sessions in /home/user/.local/state/crewbench/sessions: open /home/user/.local/state/crewbench/sessions: permission denied")})
	m = step(t, m, keyRunes("7"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "permission denied") {
		t.Errorf("7 Sessions cut the cause:\n%s", v)
	}
}
