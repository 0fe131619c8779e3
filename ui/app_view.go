package ui

import (
	"fmt"
	"strings"

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
	return 1 + lipgloss.Height(m.helpView())
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

func (m Model) statusView() string {
	n := m.notice
	if n.text == "" {
		switch {
		case m.quitting:
			n.text = "stopping servers…"
		case m.connecting:
			n.text = "connecting servers in the background — everything else works already"
		}
	}
	s := m.st.Status.Info
	switch n.level {
	case noticeWarn:
		s = m.st.Status.Warn
	case noticeError:
		s = m.st.Status.Error
	}
	return pad(s.Render(fit(printable(foldSpaces(n.text)), m.width)), m.width)
}

func (m Model) helpView() string {
	hk := helpKeys{pane: m.current(), km: m.km, capturing: m.capturing()}
	if m.showHelp {
		v := m.help.FullHelpView(hk.FullHelp())
		return fillLines(v, m.width, lipgloss.Height(v))
	}
	return pad(m.help.ShortHelpView(hk.ShortHelp()), m.width)
}
