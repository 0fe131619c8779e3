package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// TestHelpFitsAt80x24 walks every screen (and every text field) at 80×24:
// the footer fits and always offers help and quit (or, while typing, how
// to stop), no key is listed twice, and the full help's columns wrap to
// fit with every key of every column shown.
func TestHelpFitsAt80x24(t *testing.T) {
	type state struct {
		name  string
		model func(t *testing.T) Model
	}
	var states []state
	for _, sc := range screens {
		states = append(states, state{sc.name, func(t *testing.T) Model { return sc.build(t, 80, 24) }})
	}
	for _, sc := range textFieldStates {
		states = append(states, state{"typing in " + sc.name, func(t *testing.T) Model {
			m := sc.open(t)
			return step(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
		}})
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			m := st.model(t)
			m.showHelp = false
			short := ansi.Strip(m.helpView())
			if w := ansi.StringWidth(short); w != 80 || strings.Contains(short, "\n") {
				t.Fatalf("footer is %d cells: %q", w, short)
			}
			want := []string{"? help", "q quit"}
			if m.capturing() {
				want = []string{"esc "}
			}
			for _, w := range want {
				if !strings.Contains(short, w) {
					t.Errorf("footer lacks %q: %q", w, short)
				}
				if strings.Count(short, w) > 1 {
					t.Errorf("footer lists %q twice: %q", w, short)
				}
			}
			hk := helpKeys{pane: m.current(), km: m.km, capturing: m.capturing()}
			full := ansi.Strip(fullHelpColumns(m.help, hk.FullHelp(), 80))
			for i, l := range strings.Split(full, "\n") {
				if w := ansi.StringWidth(strings.TrimRight(l, " ")); w > 80 {
					t.Errorf("full help line %d is %d cells: %q", i+1, w, l)
				}
			}
			for _, g := range hk.FullHelp() {
				for _, b := range g {
					if !strings.Contains(full, b.Help().Desc) {
						t.Errorf("full help lacks %q %q:\n%s", b.Help().Key, b.Help().Desc, full)
					}
				}
			}
		})
	}
}

// keyOf is the message pressing b's first key sends.
func keyOf(b key.Binding) tea.KeyMsg {
	k := b.Keys()[0]
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "ctrl+e":
		return tea.KeyMsg{Type: tea.KeyCtrlE}
	case "ctrl+s":
		return tea.KeyMsg{Type: tea.KeyCtrlS}
	}
	return keyRunes(k)
}

// TestEveryKeyInTheFooterDoesSomething presses each key a screen's footer
// offers (but the cursor moves, which may be at an end): the screen
// changes or the key starts something.
func TestEveryKeyInTheFooterDoesSomething(t *testing.T) {
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			m := sc.build(t, 80, 24)
			hk := helpKeys{pane: m.current(), km: m.km, capturing: m.capturing()}
			head, _ := hk.shortParts()
			l := m.km.List
			for _, b := range head {
				if b.Help().Key == l.Up.Help().Key || b.Help().Key == l.Down.Help().Key || b.Help().Key == l.PageDown.Help().Key {
					continue
				}
				before := m.View()
				nm, cmd := m.Update(keyOf(b))
				if cmd == nil && nm.(Model).View() == before {
					t.Errorf("%q (%s) does nothing", b.Help().Key, b.Help().Desc)
				}
			}
		})
	}
}
