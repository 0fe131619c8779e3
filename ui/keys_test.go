package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew"
	"crewbench/crew/pyjson"
)

// printableASCII is every printable ASCII character: each of them is a
// command somewhere in the workbench, and none may be one while a text
// field has focus.
func printableASCII() string {
	var b strings.Builder
	for r := rune(0x20); r < 0x7f; r++ {
		b.WriteRune(r)
	}
	return b.String()
}

// textFieldStates opens every text field of the workbench; value reads
// what the focused field holds.
var textFieldStates = []struct {
	name  string
	open  func(t *testing.T) Model
	value func(m Model) string
}{
	{"try raw JSON", func(t *testing.T) Model {
		m := tryAt(t)
		m = step(t, m, keyRunes("J"))
		m.try.rawText.SetValue("")
		return step(t, m, keyType(tea.KeyEnter))
	}, func(m Model) string { return m.try.rawText.Value() }},
	{"try form field", func(t *testing.T) Model {
		return step(t, tryAt(t), keyType(tea.KeyEnter))
	}, func(m Model) string { return m.try.fields[0].input.Value() }},
	{"filter", func(t *testing.T) Model {
		m := stepRun(t, settled(t, goldenDeps(), 100, 30), showFilterMsg{server: "weather"}, 3)
		m = step(t, m, keyRunes("e"))
		return step(t, m, tea.KeyMsg{Type: tea.KeyCtrlU})
	}, func(m Model) string { return m.filter.fields[m.filter.field].Value() }},
	{"kickoff input", func(t *testing.T) Model {
		m := step(t, settled(t, goldenDeps(), 100, 30), keyRunes("5"))
		m = step(t, m, keyType(tea.KeyEnter))
		m.kickoff.input(m.kickoff.cursor).SetValue("")
		return m
	}, func(m Model) string { return m.kickoff.input(m.kickoff.cursor).Value() }},
	{"tools search", func(t *testing.T) Model {
		m := step(t, settled(t, goldenDeps(), 100, 30), keyRunes("2"))
		return step(t, m, keyRunes("/"))
	}, func(m Model) string { return m.tools.search.Value() }},
	{"re-run form", func(t *testing.T) Model {
		deps, _ := rerunDeps()
		m := sessionsAt(t, deps, 100, 30)
		m = stepRun(t, m, keyRunes("R"), 2)
		m = step(t, m, keyType(tea.KeyEnter))
		m.sessions.setup.inputs[m.sessions.setup.field].SetValue("")
		return m
	}, func(m Model) string { return m.sessions.setup.inputs[m.sessions.setup.field].Value() }},
	{"pause canned result", func(t *testing.T) Model {
		m := pausedAt(t, goldenDeps(), 100, 30, toolPause())
		return step(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(m.km.Pause.Skip.Keys()[0])})
	}, func(m Model) string { return m.trace.canned.Value() }},
	{"pause arguments", func(t *testing.T) Model {
		m := pausedAt(t, goldenDeps(), 100, 30, toolPause())
		m = step(t, m, keyRunes("e"))
		m.trace.editor.SetValue("")
		return m
	}, func(m Model) string { return m.trace.editor.Value() }},
}

func tryAt(t *testing.T) Model {
	m := settled(t, goldenDeps(), 100, 30)
	return step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
}

func toolPause() *crew.Pause {
	return &crew.Pause{Kind: crew.PauseToolCall, TaskName: "forecast_task", AgentRole: "Weekend Forecaster",
		RequestedName: "crewbench_fixture_weather_get_forecast", ToolName: "crewbench_fixture_weather_get_forecast",
		OriginalName: "getForecast", Server: "weather", Args: pyjson.ObjectOf("city", "Lisbon")}
}

// TestNoPrintableKeyIsACommandWhileTyping types every printable character
// into every text field: each one lands in the field, the view stays and
// nothing else happens (no $EDITOR, no run, no quit).
func TestNoPrintableKeyIsACommandWhileTyping(t *testing.T) {
	text := printableASCII()
	for _, sc := range textFieldStates {
		t.Run(sc.name, func(t *testing.T) {
			m := sc.open(t)
			if !m.capturing() {
				t.Fatal("the text field does not have focus")
			}
			v := m.view
			for _, r := range text {
				nm, cmd := m.Update(keyRunes(string(r)))
				m = nm.(Model)
				for _, msg := range runCmd(t, cmd, 1) {
					switch msg.(type) {
					case editorReadyMsg, startRunMsg, callDoneMsg, noticeMsg, tea.QuitMsg:
						t.Fatalf("typing %q sent %T", r, msg)
					}
				}
				if !m.capturing() || m.view != v || m.quitting {
					t.Fatalf("typing %q left the field (capturing %v, view %s, quitting %v)", r, m.capturing(), m.view, m.quitting)
				}
			}
			if got := sc.value(m); got != text {
				t.Errorf("the field holds %q, want %q", got, text)
			}
		})
	}
}

// TestTryRawJSONTakesCapitalE: "Edinburgh" can be typed, and ctrl+e (as in
// the breakpoint editors) opens $EDITOR.
func TestTryRawJSONTakesCapitalE(t *testing.T) {
	deps := goldenDeps()
	deps.Editor = "vi"
	m := settled(t, deps, 100, 30)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	m = step(t, m, keyRunes("J"))
	m.try.rawText.SetValue("")
	m = step(t, m, keyType(tea.KeyEnter))
	m = typeText(t, m, `{"city": "Edinburgh"}`)
	if got := m.try.rawText.Value(); got != `{"city": "Edinburgh"}` {
		t.Fatalf("raw JSON = %q", got)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlE})
	if cmd == nil {
		t.Fatal("ctrl+e does nothing")
	}
	if _, ok := cmd().(editorReadyMsg); !ok {
		t.Errorf("ctrl+e does not open $EDITOR")
	}
	for _, k := range m.km.Try.Editor.Keys() {
		if len([]rune(k)) == 1 {
			t.Errorf("$EDITOR is on the printable key %q", k)
		}
	}
}

// viewBindings is every view's own bindings (not the shared list, input
// and global keys), by view.
func viewBindings(km *KeyMap) map[string][]key.Binding {
	s, to, f, tr, k, tc, p, se := km.Servers, km.Tools, km.Filter, km.Try, km.Kickoff, km.Trace, km.Pause, km.Sessions
	return map[string][]key.Binding{
		"servers":  {s.Reconnect, s.Probe, s.Section, s.Tools, s.Filter},
		"tools":    {to.Search, to.Sort, to.Scope, to.Try, to.Filter, to.Scheme},
		"filter":   {f.Edit, f.Server, f.Agent, f.Fix, f.Export, f.Write, f.Confirm, f.Reset},
		"try":      {tr.Run, tr.Edit, tr.Toggle, tr.Raw, tr.Editor, tr.Policy, tr.Copy, tr.Cancel, tr.Accept, tr.Decline, tr.Dismiss},
		"kickoff":  {k.Run, k.Step, k.Edit, k.Toggle, k.Crew},
		"trace":    {tc.Collapse, tc.Expand, tc.Toggle, tc.Follow, tc.Kind, tc.Status, tc.Stop},
		"pause":    {p.Continue, p.Step, p.Skip, p.Edit, p.Abort, p.Editor, p.Submit, p.View},
		"sessions": {se.Refresh, se.Rerun, se.Compare, se.AllProjects, se.Result, se.OpenTrace, se.Cancel, se.Run, se.Edit, se.Toggle, se.Declared},
	}
}

// TestKeyMap_OneMeaningPerKeyAcrossViews: a key bound in several views
// means the same in each (a user stepping with s in 5 Kickoff must not
// replace a tool's result at a breakpoint). The reuses left are listed
// with why they cannot mislead.
func TestKeyMap_OneMeaningPerKeyAcrossViews(t *testing.T) {
	accepted := map[string]string{
		"r":      "run / reconnect / refresh: each does its view's action again and changes nothing the user typed",
		"f":      "filter in 1 Servers and 2 Tools, follow in 6 Trace: neither changes data",
		"t":      "try it in 2 Tools, kind filter in 6 Trace: neither changes data",
		"a":      "scope in 2 Tools, agent in 3 Filter, all projects in 7 Sessions: each chooses whose things are shown",
		"s":      "step in 5 Kickoff and at a breakpoint; next server in 3 Filter (which runs nothing)",
		"c":      "crew in 5 Kickoff, continue at a breakpoint, compare in 7 Sessions: none changes a result",
		"v":      "switches sections in 1 Servers and at an LLM breakpoint",
		"o":      "sort in 2 Tools, open in 6 Trace in 7 Sessions: neither changes data",
		"R":      "reset in 3 Filter (says so), re-run in 7 Sessions (opens a form first)",
		"y":      "confirm a write in 3 Filter (only while its diff is shown), copy in 4 Try",
		"X":      "cancel the call / stop the run / cancel the re-run: always stops what is running",
		"p":      "ping in 1 Servers, policy in 4 Try: neither changes data",
		"enter":  "opens or edits what the cursor is on",
		" ":      "toggles what the cursor is on",
		"right":  "expand in 6 Trace, to the result in 7 Sessions, choose in 4 Try: moves right",
		"left":   "collapse in 6 Trace, choose in 4 Try: moves left",
		"l":      "expand in 6 Trace, to the result in 7 Sessions: moves right",
		"ctrl+r": "run, in 4 Try and the re-run form",
	}
	meanings := map[string]map[string][]string{}
	for v, bs := range viewBindings(DefaultKeyMap()) {
		for _, b := range bs {
			for _, k := range b.Keys() {
				if meanings[k] == nil {
					meanings[k] = map[string][]string{}
				}
				meanings[k][b.Help().Desc] = append(meanings[k][b.Help().Desc], v)
			}
		}
	}
	for k, descs := range meanings {
		if len(descs) > 1 && accepted[k] == "" {
			t.Errorf("key %q means %v", k, descs)
		}
	}
	pk := DefaultKeyMap().Pause
	for _, k := range pk.Skip.Keys() {
		if len(meanings[k]) > 1 {
			t.Errorf("skip's key %q is also %v", k, meanings[k])
		}
	}
	if ko := DefaultKeyMap().Kickoff.Step; ko.Keys()[0] != pk.Step.Keys()[0] {
		t.Errorf("step is %q in 5 Kickoff but %q at a breakpoint", ko.Keys()[0], pk.Step.Keys()[0])
	}
}
