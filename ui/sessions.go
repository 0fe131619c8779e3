package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// refreshSessionsMsg asks the root to list the sessions again.
type refreshSessionsMsg struct{}

// sessionsPane lists recorded sessions; enter opens one in the trace.
type sessionsPane struct {
	st      *Styles
	km      *KeyMap
	enabled bool
	list    []SessionInfo
	err     error
	loaded  bool

	cursor, offset int
	width, height  int
	focused        bool
}

func newSessionsPane(st *Styles, km *KeyMap, enabled bool) sessionsPane {
	return sessionsPane{st: st, km: km, enabled: enabled}
}

func (p *sessionsPane) SetSize(w, h int) { p.width, p.height = w, h; p.clampCursor() }
func (p *sessionsPane) Focus()           { p.focused = true }
func (p *sessionsPane) Blur()            { p.focused = false }
func (p sessionsPane) CapturesInput() bool {
	return false
}

// SetList takes a fresh listing, newest first as the store returns it.
func (p *sessionsPane) SetList(l []SessionInfo, err error) {
	p.list, p.err, p.loaded = l, err, true
	p.clampCursor()
}

func (p sessionsPane) rowsAvail() int {
	_, ih := inner(p.st.Pane.Focused, p.width, p.height)
	return max(1, ih-2)
}

func (p *sessionsPane) clampCursor() {
	p.cursor = clamp(p.cursor, 0, len(p.list)-1)
	p.offset = window(p.cursor, p.offset, p.rowsAvail(), len(p.list))
}

func (p sessionsPane) Update(msg tea.Msg) (sessionsPane, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	l := p.km.List
	switch {
	case key.Matches(k, l.Up):
		p.cursor--
	case key.Matches(k, l.Down):
		p.cursor++
	case key.Matches(k, l.PageUp):
		p.cursor -= p.rowsAvail()
	case key.Matches(k, l.PageDown):
		p.cursor += p.rowsAvail()
	case key.Matches(k, l.Top):
		p.cursor = 0
	case key.Matches(k, l.Bottom):
		p.cursor = len(p.list) - 1
	case key.Matches(k, p.km.Sessions.Refresh):
		return p, emit(refreshSessionsMsg{})
	case key.Matches(k, l.Open):
		if p.cursor >= 0 && p.cursor < len(p.list) {
			return p, emit(openSessionMsg{path: p.list[p.cursor].Path})
		}
	}
	p.clampCursor()
	return p, nil
}

func (p sessionsPane) ShortHelp() []key.Binding {
	return []key.Binding{p.km.List.Up, p.km.List.Down, p.km.List.Open, p.km.Sessions.Refresh}
}

func (p sessionsPane) FullHelp() [][]key.Binding {
	l := p.km.List
	return [][]key.Binding{{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom}, {l.Open, p.km.Sessions.Refresh}}
}

func (p sessionsPane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	f := p.st.Pane.Blurred
	if p.focused {
		f = p.st.Pane.Focused
	}
	iw, _ := inner(f, p.width, p.height)
	title := p.st.Pane.Title.Render("Sessions") + p.st.Pane.TitleMuted.Render(fmt.Sprintf("  %d recorded · enter opens one in 6 Trace", len(p.list)))
	lines := []string{title, p.st.Row.Header.Render(pad("  "+pad("MODIFIED", 17)+" "+padLeft("SIZE", 9)+"  FILE", iw))}
	switch {
	case !p.enabled:
		lines = append(lines, p.st.Text.Muted.Render("no session store configured"))
	case p.err != nil:
		lines = append(lines, p.st.Text.Danger.Render(p.err.Error()))
	case !p.loaded:
		lines = append(lines, p.st.Text.Muted.Render("listing…"))
	case len(p.list) == 0:
		lines = append(lines, p.st.Text.Muted.Render("no recorded sessions yet (crewbench run --record, or crewbench replay FILE)"))
	}
	for i := p.offset; i < min(len(p.list), p.offset+p.rowsAvail()); i++ {
		s := p.list[i]
		cursor := "  "
		if i == p.cursor {
			cursor = p.st.Row.Cursor.Render("›") + " "
		}
		line := cursor + pad(s.Modified.Format("2006-01-02 15:04"), 17) + " " + padLeft(fmtBytes(s.Size), 9) + "  " + s.Name
		if i == p.cursor && p.focused {
			line = p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
		}
		lines = append(lines, pad(line, iw))
	}
	return box(f, p.width, p.height, strings.Join(lines, "\n"))
}
