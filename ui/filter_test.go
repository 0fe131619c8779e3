package ui

import (
	"strings"
	"testing"

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
