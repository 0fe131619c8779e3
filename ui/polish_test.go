package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/session"
)

// TestPolish covers the small things a new user tripped over.
func TestPolish(t *testing.T) {
	t.Run("progress says how far once", func(t *testing.T) {
		ev := session.Event{Data: map[string]any{"kind": "progress", "progress": 0.5, "total": 3, "message": "0.5 of 3 s"}}
		if got := notificationLine(ev); got != "progress: 0.5 of 3 s" {
			t.Errorf("got %q", got)
		}
		ev.Data["message"] = "fetching"
		if got := notificationLine(ev); got != "progress 0.5/3 fetching" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("no design-note references", func(t *testing.T) {
		m := settled(t, goldenDeps(), 160, 48)
		m = step(t, m, keyRunes("2"))
		m = step(t, m, keyType(tea.KeyEnter))
		for i := 0; i < 8; i++ { // every naming scheme
			if v := ansi.Strip(m.View()); strings.Contains(v, "§") {
				t.Fatalf("the detail shows a spec reference:\n%s", v)
			}
			m = step(t, m, keyRunes("n"))
		}
		if got := withoutSpecRefs("names tools sanitize(tool) (§2.5), no rewriting (anchors.md §5.2)."); got != "names tools sanitize(tool), no rewriting." {
			t.Errorf("got %q", got)
		}
	})
	t.Run("/ starts a fresh search", func(t *testing.T) {
		m := step(t, settled(t, goldenDeps(), 100, 30), keyRunes("2"))
		m = step(t, m, keyRunes("/"))
		m = typeText(t, m, "alerts")
		m = step(t, m, keyType(tea.KeyEnter))
		m = step(t, m, keyRunes("/"))
		m = typeText(t, m, "fore")
		if got := m.tools.search.Value(); got != "fore" {
			t.Errorf("the search holds %q", got)
		}
	})
	t.Run("R and s in Filter say what they did", func(t *testing.T) {
		m := filterModel(t)
		m = stepAll(t, m, keyRunes("R"))
		if s := status(m); !strings.Contains(s, "reset weather to its declared filter") {
			t.Errorf("R: status %q", s)
		}
		m = stepAll(t, m, keyRunes("s"))
		if s := status(m); !strings.Contains(s, "skipped, having no tool list: broken: failed (spawn_failed)") {
			t.Errorf("s: status %q", s)
		}
	})
}
