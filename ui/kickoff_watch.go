package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"crewbench/mcpconn/cmdline"
)

// 5 Kickoff's "real CrewAI run" section: the project's own command (the
// ones detected in pyproject.toml / main.py, or typed), run with the
// kickoff's breakpoints under crewbench's bridge. It is the one row after
// the breakpoints; without a crew crewbench can run it is the screen's
// reason to exist.

type kickoffWatch struct {
	watcher  Watcher
	detected []WatchCommand
	idx      int
	cmd      textinput.Model
}

// attachWatcher adds the watch section (w nil: none).
func (p *kickoffPane) attachWatcher(w Watcher) {
	if w == nil {
		return
	}
	ti := textinput.New()
	ti.Prompt = ""
	ti.Placeholder = "your command: uv run run_crew, crewai run, python -m my_crew.main"
	ti.PlaceholderStyle = p.st.Text.Subtle
	ti.TextStyle = p.st.Text.Normal
	p.watch = kickoffWatch{watcher: w, detected: w.Commands(), cmd: ti}
	if len(p.watch.detected) > 0 {
		p.watch.cmd.SetValue(cmdline.Join(p.watch.detected[0].Argv))
	}
	p.SetSize(p.width, p.height)
}

// watchRows is the number of form rows the section adds.
func (p kickoffPane) watchRows() int {
	if p.watch.watcher == nil {
		return 0
	}
	return 1
}

// watchRow is the command row's index in the form.
func (p kickoffPane) watchRow() int { return len(p.inputs) + bpCount }

// updateWatchKey handles w (watch) and d (next detected command).
func (p kickoffPane) updateWatchKey(k tea.KeyMsg) (kickoffPane, tea.Cmd, bool) {
	if p.watch.watcher == nil {
		return p, nil, false
	}
	wk := p.km.Watch
	switch {
	case key.Matches(k, wk.Start):
		argv, err := cmdline.Split(p.watch.cmd.Value())
		if err != nil || len(argv) == 0 {
			return p, notice(noticeError, "the command to watch: type one on the last row (e.g. uv run run_crew)"), true
		}
		return p, emit(startWatchMsg{argv: argv, bp: p.breakpoints()}), true
	case key.Matches(k, wk.Next) && len(p.watch.detected) > 0:
		p.watch.idx = (p.watch.idx + 1) % len(p.watch.detected)
		c := p.watch.detected[p.watch.idx]
		p.watch.cmd.SetValue(cmdline.Join(c.Argv))
		p.cursor = p.watchRow()
		return p, notice(noticeInfo, "command from %s", c.Why), true
	}
	return p, nil, false
}

// watchLines renders the section.
func (p kickoffPane) watchLines(iw int) []string {
	if p.watch.watcher == nil {
		return nil
	}
	st := p.st.Text
	lines := []string{"", st.Heading.Render("Real CrewAI run") +
		st.Subtle.Render("  (your own command with crewbench's bridge; the breakpoints above apply; inputs come from your code)")}
	lines = append(lines, p.row(p.watchRow(), "command", p.watch.cmd.View(), false, iw))
	switch n := len(p.watch.detected); {
	case n == 0:
		lines = append(lines, st.Muted.Render("  nothing detected (no [project.scripts] run_crew/kickoff, no main.py): type the command"))
	default:
		var names []string
		for _, c := range p.watch.detected {
			names = append(names, cmdline.Join(c.Argv))
		}
		hint := "  detected: " + strings.Join(names, " · ")
		if n > 1 {
			hint += "  (d: next)"
		}
		lines = append(lines, fit(st.Muted.Render(hint), iw))
	}
	return append(lines, st.Key.Render("w")+st.Muted.Render(" watch: run it, live in 6 Trace, pausing at the breakpoints"))
}

// watchHelp are the section's keys for the help bar.
func (p kickoffPane) watchHelp() []key.Binding {
	if p.watch.watcher == nil {
		return nil
	}
	out := []key.Binding{p.km.Watch.Start}
	if len(p.watch.detected) > 1 {
		out = append(out, p.km.Watch.Next)
	}
	if len(p.crews) == 0 {
		l := p.km.List
		out = append(out, l.Up, l.Down, p.km.Kickoff.Edit, p.km.Kickoff.Toggle)
	}
	return out
}

// watchOnlyView is the kickoff screen of a workspace with no crew
// crewbench can run (a Python-only crew): breakpoints and the command.
func (p kickoffPane) watchOnlyView(f lipgloss.Style, iw, ih int) string {
	lines := []string{p.st.Pane.Title.Render("Kickoff") +
		p.st.Pane.TitleMuted.Render("  no crew crewbench's engine can run here: watch your own command")}
	lines = append(lines, p.breakpointLines(iw)...)
	lines = append(lines, p.watchLines(iw)...)
	if len(lines) > ih {
		off := window(2+p.cursor, 0, ih, len(lines))
		lines = lines[off : off+ih]
	}
	return box(f, p.width, p.height, strings.Join(lines, "\n"))
}
