package ui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// The status line: one notice at a time. A warning or an error wraps onto
// up to maxStatusLines lines (the footer grows, the view shrinks) so its
// cause is not cut off; the last problem stays one key (!) away in full.

// maxStatusLines is how many lines a wrapped warning or error may take.
const maxStatusLines = 3

// setNotice shows msg and returns the tick that clears it (errors stay
// until the next notice).
func (m *Model) setNotice(msg noticeMsg) tea.Cmd {
	m.noticeID++
	msg.id = m.noticeID
	m.notice = msg
	m.layout()
	if msg.text != "" && (msg.level != noticeInfo || m.statusCut()) {
		m.fullNotice = msg.text
	}
	if msg.level == noticeError {
		return nil
	}
	id := msg.id
	return tea.Tick(noticeTTL, func(time.Time) tea.Msg { return clearNoticeMsg{id: id} })
}

// noticeTopic is an action whose notice its outcome clears.
type noticeTopic string

const (
	topicTryArgs noticeTopic = "try arguments"
	topicTryRaw  noticeTopic = "try raw JSON"
	topicTryCall noticeTopic = "try call"
)

// noticeAbout is notice for an action: resolved(topic) clears it.
func noticeAbout(topic noticeTopic, level noticeLevel, format string, args ...any) tea.Cmd {
	return emit(noticeMsg{level: level, text: fmt.Sprintf(format, args...), topic: topic})
}

// resolved clears the notice about topic, if it is still shown.
func resolved(topic noticeTopic) tea.Cmd {
	return emit(clearNoticeMsg{topic: topic})
}

// clearNotice clears the notice msg names, if it is still shown.
func (m *Model) clearNotice(msg clearNoticeMsg) {
	if msg.id != 0 && msg.id == m.notice.id || msg.topic != "" && msg.topic == m.notice.topic {
		m.notice = noticeMsg{}
		m.layout()
	}
}

// statusText is the notice shown, or what the workbench is doing.
func (m Model) statusText() noticeMsg {
	n := m.notice
	if n.text == "" {
		switch {
		case m.quitting:
			n.text = "stopping servers…"
		case m.connecting:
			n.text = "connecting servers in the background — everything else works already"
		}
	}
	n.text = printable(withoutSpecRefs(n.text))
	return n
}

// statusLines is the status line: an info notice on one line, a warning
// or error wrapped to at most maxStatusLines, the last saying when the
// rest is behind !.
func (m Model) statusLines() []string {
	n := m.statusText()
	if n.level == noticeInfo || m.width <= 0 {
		return []string{fit(foldSpaces(n.text), m.width)}
	}
	lines := strings.Split(wrapText(foldSpaces(n.text), m.width), "\n")
	if len(lines) > maxStatusLines {
		// Too long even wrapped: the cause first, the context after it.
		lines = strings.Split(wrapText(causeFirst(foldSpaces(n.text)), m.width), "\n")
	}
	if len(lines) > maxStatusLines {
		more := " … " + keyHint(m.km.Global.Message)
		lines = lines[:maxStatusLines]
		last := lines[maxStatusLines-1]
		lines[maxStatusLines-1] = fit(last, max(1, m.width-lipgloss.Width(more))) + more
	}
	return lines
}

// statusCut reports whether the status line does not show its notice whole.
func (m Model) statusCut() bool {
	n := m.statusText()
	if n.level == noticeInfo {
		return lipgloss.Width(foldSpaces(n.text)) > m.width
	}
	return len(strings.Split(wrapText(foldSpaces(n.text), m.width), "\n")) > maxStatusLines
}

func (m Model) statusView() string {
	s := m.st.Status.Info
	switch m.statusText().level {
	case noticeWarn:
		s = m.st.Status.Warn
	case noticeError:
		s = m.st.Status.Error
	}
	lines := m.statusLines()
	for i, l := range lines {
		lines[i] = pad(s.Render(l), m.width)
	}
	return strings.Join(lines, "\n")
}

// messageView is the last warning or error in full, in place of the view.
func (m Model) messageView(w, h int) string {
	f := m.st.Pane.Focused
	iw, _ := inner(f, w, h)
	text := m.fullNotice
	if text == "" {
		text = m.st.Text.Muted.Render("no warning, error or long message so far")
	}
	title := m.st.Pane.Title.Render("The last message in full") + m.st.Text.Subtle.Render("  ("+keyHint(m.km.Global.Back, "closes")+")")
	return box(f, w, h, title+"\n"+wrapText(text, iw))
}

// wrappedLines is text wrapped to w cells, each line styled: an error
// shown in a panel keeps its cause, which comes last.
func wrappedLines(style lipgloss.Style, text string, w int) []string {
	lines := strings.Split(wrapText(text, max(1, w)), "\n")
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}
