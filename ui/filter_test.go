package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// TestFilterCompileErrorKeepsTheLastVerdicts: while the expression does
// not compile the playground says so and shows the verdicts of the last
// filter that compiled — not "keeps 0", "– kept" and the declared reason.
func TestFilterCompileErrorKeepsTheLastVerdicts(t *testing.T) {
	for _, sz := range goldenSizes {
		m := filterModel(t)
		m = step(t, m, tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		m.filter.fields[fieldExpr].SetValue("tool.name.startsWith('get')")
		m = stepRun(t, m, showViewMsg{v: viewFilter}, 2)
		m = step(t, m, keyRunes("e"))
		m = stepRun(t, m, keyRunes(" "), 2) // still compiles: get_forecast kept
		m.filter.fields[fieldExpr].SetValue("tool.name.startsWith(")
		m = stepRun(t, m, keyRunes(" "), 2)
		if m.filter.err == nil {
			t.Fatalf("%s: the expression compiled", sz.name)
		}
		v := ansi.Strip(m.View())
		requireBox(t, m.View(), sz.w, sz.h)
		flat := strings.Join(strings.Fields(v), " ")
		for _, want := range []string{"keeps 1 of 2 with the last filter that compiled", "expression does not compile", "✓ kept get_forecast"} {
			if !strings.Contains(flat, want) {
				t.Errorf("%s: view lacks %q:\n%s", sz.name, want, v)
			}
		}
		if strings.Contains(flat, "keeps 0 of 2") || strings.Contains(flat, "– kept") {
			t.Errorf("%s: the view contradicts itself:\n%s", sz.name, v)
		}
	}
}

// TestFilterFixWaitsForTheEvaluationOfWhatWasTyped: F pressed before the
// entries just typed have been evaluated (a fast typist, a busy machine)
// applies their suggestion once that result arrives; the hints held at
// the key press are the previous text's and match no entry.
func TestFilterFixWaitsForTheEvaluationOfWhatWasTyped(t *testing.T) {
	m := filterModel(t)
	m = step(t, m, keyRunes("e"))
	m = step(t, m, tea.KeyMsg{Type: tea.KeyCtrlU})
	var last tea.Cmd
	for _, r := range "getForecast" {
		var nm tea.Model
		nm, last = m.Update(keyRunes(string(r))) // the evaluations are still running
		m = nm.(Model)
	}
	m = step(t, m, keyType(tea.KeyEsc))
	nm, cmd := m.Update(keyRunes("F"))
	m = nm.(Model)
	if cmd != nil || m.filter.fields[fieldAllowed].Value() != "getForecast" {
		t.Fatalf("F was answered before the typed text was evaluated (allowed %q)", m.filter.fields[fieldAllowed].Value())
	}
	res := filterResultIn(t, last)
	if res.gen != m.filter.gen {
		t.Fatalf("result of evaluation %d, the pane is at %d", res.gen, m.filter.gen)
	}
	m = stepRun(t, m, res, 2)
	if got := m.filter.fields[fieldAllowed].Value(); got != "get_forecast" {
		t.Errorf("after the result arrived allowed = %q, want the suggestion get_forecast", got)
	}
}

// filterResultIn runs cmd's commands (batches too) and returns the
// filter evaluation among their messages; the others (the cursor's blink
// ticks) are left running.
func filterResultIn(t *testing.T, cmd tea.Cmd) filterResultMsg {
	t.Helper()
	found := make(chan filterResultMsg, 1)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			switch msg := c().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			case filterResultMsg:
				found <- msg
			}
		}()
	}
	run(cmd)
	select {
	case msg := <-found:
		return msg
	case <-time.After(time.Minute): // a deadline for a hang, not a timing assumption
		t.Fatal("no filter evaluation among the commands")
	}
	return filterResultMsg{}
}
