package ui

import (
	"encoding/json"
	"errors"
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

// TestTryAsksBeforeADestructiveCall: a tool whose annotations say it may
// change things is called on a second r; esc (or any other key) does not
// call it; a read-only tool is called at once.
func TestTryAsksBeforeADestructiveCall(t *testing.T) {
	for _, tc := range []struct {
		annotations string
		asks        bool
	}{
		{`{"destructiveHint": true}`, true},
		{`{"readOnlyHint": false}`, true},
		{`{"readOnlyHint": false, "destructiveHint": false}`, false},
		{`{"readOnlyHint": true}`, false},
		{``, false},
	} {
		t.Run(tc.annotations, func(t *testing.T) {
			deps := goldenDeps()
			st := fakeStatuses()
			for i := range st[1].Discovery.Tools {
				if st[1].Discovery.Tools[i].Name == "search_catalog" && tc.annotations != "" {
					st[1].Discovery.Tools[i].Annotations = json.RawMessage(tc.annotations)
				}
			}
			deps.Pool = &fakePool{statuses: st}
			m := settled(t, deps, 100, 30)
			m = step(t, m, showTryMsg{server: "catalog", tool: "search_catalog"})
			m.try.fields[0].input.SetValue("boots")
			nm, cmd := m.Update(keyRunes("r")) // the call itself is not run
			m = nm.(Model)
			if m.try.running == tc.asks {
				t.Fatalf("first r: running %v", m.try.running)
			}
			if !tc.asks {
				m.try.cancel()
				return
			}
			for _, msg := range runCmd(t, cmd, 1) {
				m = step(t, m, msg)
			}
			if s := status(m); !strings.Contains(s, "search_catalog may change things") || !strings.Contains(s, "r again calls it") {
				t.Errorf("status %q", s)
			}
			m = stepAll(t, m, keyType(tea.KeyEsc))
			m = stepAll(t, m, keyRunes("r"))
			if m.try.running {
				t.Fatal("esc, then r called it without asking again")
			}
			nm, _ = m.Update(keyRunes("r"))
			if m = nm.(Model); !m.try.running {
				t.Error("the second r did not call it")
			}
			m.try.cancel()
		})
	}
}

// TestTryCommandCopiesAndShowsWhole: y falls back to the terminal (OSC 52)
// when there is no clipboard; the command shown breaks only before a flag
// (with a backslash, so it pastes), and leaves out the env the workbench
// added itself.
func TestTryCommandCopiesAndShowsWhole(t *testing.T) {
	deps := goldenDeps()
	var copied string
	deps.Clipboard = func(string) error { return errors.New("no xclip") }
	deps.TerminalCopy = func(s string) { copied = s }
	weather := &deps.Workspace.Servers[0].Spec
	weather.Env["TMPDIR"] = "/tmp/crewbench-demo-123"
	deps.HiddenEnv = map[string]string{"TMPDIR": "/tmp/crewbench-demo-123"}
	m := settled(t, deps, 80, 24)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	m.try.fields[0].input.SetValue("Lisbon")
	m = stepAll(t, m, keyRunes("y"))
	if copied == "" || copied != m.try.callCommand() {
		t.Fatalf("the terminal was asked to copy %q", copied)
	}
	if strings.Contains(copied, "TMPDIR") {
		t.Errorf("the command has the workbench's own env: %s", copied)
	}
	if s := status(m); !strings.Contains(s, "OSC 52") {
		t.Errorf("status %q", s)
	}
	lines := commandLines("$ "+copied, 60)
	for i, l := range lines {
		if ansi.StringWidth(l) > 60 && strings.Count(l, " --") > 0 {
			t.Errorf("line %d is too wide: %q", i, l)
		}
		if i < len(lines)-1 && !strings.HasSuffix(l, " \\") {
			t.Errorf("line %d does not continue: %q", i, l)
		}
		if i > 0 && !strings.HasPrefix(strings.TrimSpace(l), "--") {
			t.Errorf("line %d does not start with a flag: %q", i, l)
		}
	}
	joined := strings.ReplaceAll(strings.Join(lines, "\n"), " \\\n    ", " ")
	if joined != "$ "+copied {
		t.Errorf("the lines do not make the command:\n%s\n%s", joined, copied)
	}
	if got := commandLines(`x --args '{"a": "b --c"}' --d e`, 12); strings.Contains(strings.Join(got, "\n"), "b \\") {
		t.Errorf("broken inside quotes: %q", got)
	}
}

// TestTryResultShowsTheFix: an auth failure's fix, which crewbench call
// prints as "fix:", is in the outcome block, before the attempts.
func TestTryResultShowsTheFix(t *testing.T) {
	deps := goldenDeps()
	deps.Caller = authFailCaller{}
	m := settled(t, deps, 160, 48)
	m = step(t, m, showTryMsg{server: "catalog", tool: "search_catalog"})
	m.try.fields[0].input.SetValue("boots")
	m = runTryCall(t, m)
	v := ansi.Strip(m.View())
	res := v[strings.Index(v, "Attempts & result"):]
	fix := strings.Index(res, "fix: the server refuses the configured Authorization header")
	if fix < 0 {
		t.Fatalf("the result pane does not show the fix:\n%s", v)
	}
	if why, att := strings.Index(res, "why: HTTP 401"), strings.Index(res, "attempt 1/1"); why < 0 || why > fix || att >= 0 && att < fix {
		t.Errorf("the fix is not in the outcome block (why at %d, fix at %d, attempt at %d):\n%s", why, fix, att, res)
	}
}
