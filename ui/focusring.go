package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// focusRing is the Tab/Shift-Tab field cycling every form shares: Tab (or
// ↓) focuses the next of n fields, Shift-Tab (or ↑) the previous one — the
// bindings InputKeys.NextField and PrevField. A wrapping ring goes round from
// the last field to the first (the playground's and the re-run form's fixed
// field sets); otherwise the ends stop it (kickoff's and try's rows, where
// the cursor also moves over rows that do not edit).
type focusRing struct {
	keys InputKeys
	n    int
	wrap bool
}

// move returns the field k focuses when at is focused, and whether k is a
// field-cycling key at all.
func (r focusRing) move(k tea.KeyMsg, at int) (int, bool) {
	switch {
	case key.Matches(k, r.keys.NextField):
		if r.wrap {
			return (at + 1) % r.n, true
		}
		return min(at+1, r.n-1), true
	case key.Matches(k, r.keys.PrevField):
		if r.wrap {
			return (at + r.n - 1) % r.n, true
		}
		return max(at-1, 0), true
	}
	return at, false
}
