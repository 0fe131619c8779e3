package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestFocusRing_WrapsOrStopsAtTheEnds(t *testing.T) {
	in := DefaultKeyMap().Input
	tab, shiftTab := keyType(tea.KeyTab), keyType(tea.KeyShiftTab)
	down, up := keyType(tea.KeyDown), keyType(tea.KeyUp)
	for _, tc := range []struct {
		name string
		ring focusRing
		k    tea.KeyMsg
		at   int
		want int
	}{
		{"tab", focusRing{keys: in, n: 3, wrap: true}, tab, 0, 1},
		{"tab wraps", focusRing{keys: in, n: 3, wrap: true}, tab, 2, 0},
		{"shift+tab wraps", focusRing{keys: in, n: 3, wrap: true}, shiftTab, 0, 2},
		{"down is tab", focusRing{keys: in, n: 3, wrap: true}, down, 2, 0},
		{"up is shift+tab", focusRing{keys: in, n: 3, wrap: true}, up, 1, 0},
		{"tab stops at the last", focusRing{keys: in, n: 3}, tab, 2, 2},
		{"shift+tab stops at the first", focusRing{keys: in, n: 3}, shiftTab, 0, 0},
		{"shift+tab", focusRing{keys: in, n: 3}, shiftTab, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.ring.move(tc.k, tc.at)
			if !ok || got != tc.want {
				t.Errorf("move(%s, %d) = %d, %v; want %d, true", tc.k, tc.at, got, ok, tc.want)
			}
		})
	}
	for _, k := range []tea.KeyMsg{keyType(tea.KeyEnter), keyType(tea.KeyEsc), keyRunes("j"), keyRunes("k")} {
		if got, ok := (focusRing{keys: in, n: 3, wrap: true}).move(k, 1); ok || got != 1 {
			t.Errorf("%s is no field key, yet move = %d, %v", k, got, ok)
		}
	}
}

func TestTryPane_LeftStepsAChoiceBack(t *testing.T) {
	deps := testDeps()
	deps.Caller = fakeCaller{}
	m := settled(t, deps, 120, 40)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	m = step(t, m, keyRunes("j")) // days
	m = step(t, m, keyRunes("j")) // units (unset)
	m = step(t, m, keyType(tea.KeyRight))
	forward := m.try.fields[m.try.cursor].choice
	m = step(t, m, keyType(tea.KeyLeft))
	back := m.try.fields[m.try.cursor].choice
	m = step(t, m, keyRunes(" "))
	space := m.try.fields[m.try.cursor].choice
	if forward != 0 || back != -1 || space != 0 {
		t.Errorf("units choice after → %d, then ← %d, then space %d; want 0, -1 (unset), 0", forward, back, space)
	}
}

func TestToolsPane_ArrowsMoveTheCursorWhileSearching(t *testing.T) {
	m := toolsModel(t)
	m = step(t, m, keyRunes("/"))
	m = step(t, m, keyType(tea.KeyDown))
	m = step(t, m, keyType(tea.KeyDown))
	m = step(t, m, keyType(tea.KeyUp))
	if m.tools.cursor != 1 || m.tools.query != "" || !m.capturing() {
		t.Fatalf("after ↓↓↑ in the search: cursor %d query %q capturing %v", m.tools.cursor, m.tools.query, m.capturing())
	}
	m = step(t, m, keyRunes("j"))
	if m.tools.query != "j" {
		t.Errorf("j in the search field must type, query %q", m.tools.query)
	}
}
