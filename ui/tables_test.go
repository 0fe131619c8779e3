package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// The tools table gives the LLM-visible names their full width first
// (they are at most 64 cells), then the original names, then the server
// and the warnings, at every width from 80 up; the row always fills the
// pane exactly.
func TestToolsColumnsFollowTheContent(t *testing.T) {
	llmNames := []string{"crewbench_fixture_weather_get_alerts", "mcp_example_com_mcp_list_all_open_purchase_orders_for_e_f1dddfc6"}
	for w := 80; w <= 220; w += 10 {
		m := settled(t, goldenDeps(), w, 30)
		m = step(t, m, keyRunes("2"))
		v := m.View()
		requireBox(t, v, w, 30)
		iw, _ := inner(m.st.Pane.Focused, w, m.tools.height)
		showServer := iw >= 100
		o, l, s, wr := m.tools.columns(iw, showServer)
		sum := 2 + o + 2 + l + 2 + wr
		if showServer {
			sum += s + 2
		}
		if sum != iw {
			t.Errorf("w=%d: columns %d+%d+%d+%d use %d of %d cells", w, o, l, s, wr, sum, iw)
		}
		c := m.tools.content
		others := min(c.orig, minOrig) + min(c.warn, minWarn) + 6
		if showServer {
			others += min(c.srv, minSrv) + 2
		}
		if iw-others >= c.llm && l < c.llm {
			t.Errorf("w=%d: LLM column %d < %d although there is room", w, l, c.llm)
		}
		plain := ansi.Strip(v)
		if l >= c.llm {
			for _, n := range llmNames {
				if !strings.Contains(plain, n) {
					t.Errorf("w=%d: %s is cut:\n%s", w, n, plain)
				}
			}
		}
		if w >= 200 && !strings.Contains(plain, "⚠ credentials_in_url +1") {
			t.Errorf("w=%d: the warnings should be whole", w)
		}
	}
	// At 120 columns (the common terminal) every LLM name is whole.
	m := settled(t, goldenDeps(), 120, 30)
	m = step(t, m, keyRunes("2"))
	if _, l, _, _ := m.tools.columns(116, true); l < 64 {
		t.Errorf("at 120 columns the LLM column is %d cells", l)
	}
}

// The servers table keeps the state narrow and gives the slack to the
// detail column, where a failed server's error is read.
func TestServersColumns(t *testing.T) {
	for _, w := range []int{80, 100, 120, 160, 200} {
		m := settled(t, goldenDeps(), w, 30)
		v := m.View()
		requireBox(t, v, w, 30)
		plain := ansi.Strip(v)
		var head string
		for _, l := range strings.Split(plain, "\n") {
			if strings.Contains(l, "SERVER") && strings.Contains(l, "STATE") {
				head = l
			}
		}
		state, trans := strings.Index(head, "STATE"), strings.Index(head, "TRANSPORT")
		if state < 0 || trans < 0 || ansi.StringWidth(head[state:trans]) > len("failed (spawn_failed)")+2 && w >= 100 {
			t.Errorf("w=%d: the state column is wide:\n%s", w, head)
		}
		if w >= 100 && !strings.Contains(plain, `✕ broken   failed (spawn_failed)  stdio`) || w >= 100 && !strings.Contains(plain, `spawn python: exec:`) ||
			w >= 160 && !strings.Contains(plain, `spawn python: exec: "python": executable file not found in $PATH`) {
			t.Errorf("w=%d: the failed server's error is not in the table:\n%s", w, plain)
		}
	}
}

// Every sanitizer stage's value starts in the same column, whatever the
// stage's name.
func TestToolDetailStagesAligned(t *testing.T) {
	for _, w := range []int{80, 120, 160} {
		m := settled(t, goldenDeps(), w, 60)
		m = step(t, m, keyRunes("2"))
		m = step(t, m, keyRunes("j"))
		m = step(t, m, keyType(tea.KeyEnter))
		lines := strings.Split(ansi.Strip(m.tools.detail.View()), "\n")
		if !m.tools.detailOpen {
			t.Fatal("the detail did not open")
		}
		col := -1
		seen := 0
		for _, st := range []string{"NFKD, then drop non-ASCII", "split acronyms ([A-Z]+)([A-Z][a-z])", "split camelCase ([a-z])([A-Z])",
			"lowercase", "delete quotes", "non-alphanumeric runs → _", "collapse _", "strip leading/trailing _"} {
			for _, l := range lines {
				if !strings.HasPrefix(l, "   "+st) {
					continue
				}
				// The value is what follows the padded name.
				rest := strings.TrimLeft(l[len("   "+st):], " ")
				at := ansi.StringWidth(l) - ansi.StringWidth(rest)
				if col < 0 {
					col = at
				}
				if at != col {
					t.Errorf("w=%d: %q starts its value at %d, others at %d:\n%s", w, st, at, col, l)
				}
				seen++
			}
		}
		if seen < 16 {
			t.Errorf("w=%d: found %d stage lines", w, seen)
		}
	}
}
