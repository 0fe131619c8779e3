package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
)

// Drawing the workbench: the header with its tabs, the current view, the
// status line and the help, exactly filling the window.

// layout sizes every view from the window size and the footer's height.
func (m *Model) layout() {
	m.help.Width = m.width
	bodyH := max(0, m.height-headerHeight-m.footerHeight())
	for _, p := range []interface{ SetSize(w, h int) }{&m.servers, &m.tools, &m.filter, &m.try, &m.kickoff, &m.trace, &m.sessions} {
		p.SetSize(m.width, bodyH)
	}
}

const headerHeight = 2

func (m Model) footerHeight() int {
	return len(m.statusLines()) + lipgloss.Height(m.helpView())
}

// View draws header, the current view and the footer: exactly width×height.
func (m Model) View() string {
	if m.width == 0 || m.height == 0 {
		return "" // before the first WindowSizeMsg
	}
	if m.width < minWidth || m.height < minHeight {
		return fillLines(fmt.Sprintf("crewbench needs at least %d×%d (now %d×%d)", minWidth, minHeight, m.width, m.height), m.width, m.height)
	}
	bodyH := max(0, m.height-headerHeight-m.footerHeight())
	var body string
	switch m.view {
	case viewServers:
		body = m.servers.View()
	case viewTools:
		body = m.tools.View()
	case viewFilter:
		body = m.filter.View()
	case viewTry:
		body = m.try.View()
	case viewKickoff:
		body = m.kickoff.View()
	case viewTrace:
		body = m.trace.View()
	case viewSessions:
		body = m.sessions.View()
	}
	if m.showMessage {
		body = m.messageView(m.width, bodyH)
	}
	body = fillLines(body, m.width, bodyH)
	return strings.Join([]string{m.headerView(), body, m.statusView(), m.helpView()}, "\n")
}

func (m Model) headerView() string {
	st := m.st.Header
	ws := m.deps.Workspace
	parts := []string{st.Title.Render(" crewbench ")}
	if ws.Name != "" {
		parts = append(parts, st.Meta.Render(ws.Name))
	}
	if ws.LLM != "" {
		parts = append(parts, st.Meta.Render("llm "+ws.LLM))
	}
	ready, conn, failed := m.srv.counts()
	srv := st.Meta.Render(fmt.Sprintf("servers %d/%d ready", ready, len(m.srv.order)))
	if conn > 0 {
		srv += st.Connecting.Render(fmt.Sprintf(" ◌ %d connecting", conn))
	}
	if failed > 0 {
		srv += st.Failed.Render(fmt.Sprintf(" ✕ %d failed", failed))
	}
	parts = append(parts, srv)
	if r := m.trace.runBadge(); r != "" {
		parts = append(parts, st.Meta.Render(r))
	}
	line := strings.Join(parts, st.Sep.Render(" · "))
	line = st.Bar.Render(pad(line, m.width))

	var tabs []string
	for v := view(0); v < viewCount; v++ {
		label := st.TabKey.Render(fmt.Sprintf("%d", v+1)) + " "
		if v == m.view {
			label += st.TabActive.Render(viewTitles[v])
			label = m.st.Text.Accent.Render("▸") + label
		} else {
			label += st.Tab.Render(viewTitles[v])
			label = " " + label
		}
		tabs = append(tabs, label)
	}
	return line + "\n" + pad(strings.Join(tabs, " "), m.width)
}

func (m Model) helpView() string {
	hk := helpKeys{pane: m.current(), km: m.km, capturing: m.capturing(), cut: m.statusCut()}
	if m.showHelp {
		v := fullHelpColumns(m.help, hk.FullHelp(), m.width)
		return fillLines(v, m.width, lipgloss.Height(v))
	}
	head, tail := hk.shortParts()
	return pad(shortHelpWithTail(m.help, head, tail, m.width), m.width)
}

// shortHelpWithTail draws a footer of at most w cells that always ends
// with tail (help, quit): the view's own bindings are cut first.
func shortHelpWithTail(h help.Model, head, tail []key.Binding, w int) string {
	t := shortHelpLine(h, tail, w)
	if len(head) == 0 {
		return t
	}
	sep := h.Styles.ShortSeparator.Inline(true).Render(h.ShortSeparator)
	return shortHelpLine(h, head, w-lipgloss.Width(t)-lipgloss.Width(sep)) + sep + t
}

// shortHelpLine is help.ShortHelpView held to w cells: the bindings that
// fit, then an ellipsis when it fits too (ShortHelpView lets the item
// overflow when the ellipsis does not).
func shortHelpLine(h help.Model, bs []key.Binding, w int) string {
	sep := h.Styles.ShortSeparator.Inline(true).Render(h.ShortSeparator)
	ellipsis := " " + h.Styles.Ellipsis.Inline(true).Render(h.Ellipsis)
	var b strings.Builder
	total := 0
	for _, kb := range bs {
		if !kb.Enabled() {
			continue
		}
		item := h.Styles.ShortKey.Inline(true).Render(kb.Help().Key) + " " + h.Styles.ShortDesc.Inline(true).Render(kb.Help().Desc)
		if total > 0 {
			item = sep + item
		}
		iw := lipgloss.Width(item)
		if total+iw > w {
			if total+lipgloss.Width(ellipsis) <= w {
				b.WriteString(ellipsis)
			}
			break
		}
		b.WriteString(item)
		total += iw
	}
	return b.String()
}

// fullHelpColumns lays the help's columns out in rows that each fit w
// cells, so no column is cut off on a narrow terminal.
func fullHelpColumns(h help.Model, groups [][]key.Binding, w int) string {
	h.Width = 0
	sep := h.Styles.FullSeparator.Inline(true).Render(h.FullSeparator)
	var rows, row []string
	rowW := 0
	for _, g := range groups {
		col := h.FullHelpView([][]key.Binding{g})
		cw := lipgloss.Width(col)
		if cw == 0 {
			continue
		}
		if len(row) > 0 && rowW+lipgloss.Width(sep)+cw > w {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, rowW = nil, 0
		}
		if len(row) > 0 {
			row = append(row, sep)
			rowW += lipgloss.Width(sep)
		}
		row = append(row, col)
		rowW += cw
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return strings.Join(rows, "\n")
}
