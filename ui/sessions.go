package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/session"
)

// refreshSessionsMsg asks the root to list the sessions again.
type refreshSessionsMsg struct{}

// The sessions view has three parts, one focused at a time: the list of
// recorded sessions; the re-run form (which filters a re-run changes);
// and the result panel (a re-run against its recording, or a recording
// against this workbench's last run). The form is in sessions_rerun.go,
// the panel in sessions_result.go.
type sessionsZone int

const (
	zoneList sessionsZone = iota
	zoneSetup
	zoneResult
)

// What the result panel shows.
type panelKind int

const (
	panelNone panelKind = iota
	panelRerun
	panelCompare
)

// sessionsPane lists recorded sessions; enter opens one in the trace, R
// re-runs one offline with changed filters, c compares one with the
// current run.
type sessionsPane struct {
	st  *Styles
	km  *KeyMap
	ctx context.Context
	now func() time.Time
	red *session.Redactor

	store    SessionStore
	replayer Replayer

	// all is the store's listing; list the part shown (this project's
	// sessions unless allProjects).
	all, list   []SessionInfo
	project     string
	allProjects bool
	err         error
	loaded      bool
	// current is the recording of this workbench's last run, calls the
	// one of its try-a-tool calls (both marked).
	current, calls string
	// nameW is the FILE column's width for list.
	nameW int

	cursor, offset int
	width, height  int
	focused        bool
	zone           sessionsZone

	setup *rerunSetup
	gen   int
	job   *rerunJob
	cmp   *comparison
	shown panelKind

	// The result panel's lines, rendered in Update (on a new result, a
	// progress batch or a resize) so View only slices them.
	lines  []string
	scroll int
}

func newSessionsPane(st *Styles, km *KeyMap, deps Deps) sessionsPane {
	return sessionsPane{st: st, km: km, ctx: deps.Ctx, now: deps.Now, red: deps.Redactor,
		store: deps.Sessions, replayer: deps.Replayer, project: deps.Workspace.Dir}
}

func (p *sessionsPane) SetSize(w, h int) {
	p.width, p.height = w, h
	if p.setup != nil {
		iw, _ := inner(p.st.Pane.Focused, w, h)
		for i := range p.setup.inputs {
			p.setup.inputs[i].Width = max(1, iw-24)
		}
	}
	p.clampCursor()
	p.refreshLines()
}

func (p *sessionsPane) Focus() { p.focused = true }
func (p *sessionsPane) Blur()  { p.focused = false }

// CapturesInput is true while a filter of the re-run form is edited.
func (p sessionsPane) CapturesInput() bool { return p.setup != nil && p.setup.editing }

// SetList takes a fresh listing, newest first as the store returns it.
func (p *sessionsPane) SetList(l []SessionInfo, err error) {
	p.all, p.err, p.loaded = l, err, true
	p.choose()
}

// choose shows this project's sessions, or every one.
func (p *sessionsPane) choose() {
	p.list = p.list[:0:0]
	for _, s := range p.all {
		if p.allProjects || p.project == "" || filepath.Clean(s.Project) == filepath.Clean(p.project) {
			p.list = append(p.list, s)
		}
	}
	// The FILE column's width, measured once per listing, not per frame.
	p.nameW = len("FILE")
	for _, s := range p.list {
		p.nameW = max(p.nameW, ansi.StringWidth(printable(s.Name)))
	}
	p.clampCursor()
}

// SetCurrent marks the recording of the workbench's last run.
func (p *sessionsPane) SetCurrent(path string) { p.current = path }

// SetCalls marks the recording of the workbench's try-a-tool calls.
func (p *sessionsPane) SetCalls(path string) { p.calls = path }

// Stop cancels a re-run in progress (quit).
func (p *sessionsPane) Stop() {
	if p.job != nil && p.job.running && p.job.cancel != nil {
		p.job.cancel()
	}
}

// waitFinished waits up to d for a cancelled re-run to clean up (its
// servers and temporary directory).
func (p sessionsPane) waitFinished(d time.Duration) {
	if p.job == nil || p.job.finished == nil {
		return
	}
	select {
	case <-p.job.finished:
	case <-time.After(d):
	}
}

// --- layout ------------------------------------------------------------------

// hasPanel reports whether the lower panel (form or result) is shown.
func (p sessionsPane) hasPanel() bool { return p.setup != nil || p.shown != panelNone }

// listHeight is the list box's outer height: all of it without a panel;
// with one, enough for the sessions (at most two fifths of the view), and
// only the selected session while the panel has the focus.
func (p sessionsPane) listHeight() int {
	if !p.hasPanel() {
		return p.height
	}
	frame := p.st.Pane.Focused.GetVerticalFrameSize()
	minH := frame + 3 // title, heading, the selected session
	if p.zone != zoneList {
		return min(minH, p.height)
	}
	want := frame + 2 + max(1, len(p.list))
	return clamp(want, minH, max(minH, p.height*2/5))
}

func (p sessionsPane) rowsAvail() int {
	_, ih := inner(p.st.Pane.Focused, p.width, p.listHeight())
	return max(1, ih-2)
}

func (p *sessionsPane) clampCursor() {
	p.cursor = clamp(p.cursor, 0, len(p.list)-1)
	p.offset = window(p.cursor, p.offset, p.rowsAvail(), len(p.list))
}

// --- update ------------------------------------------------------------------

func (p sessionsPane) selectedPath() (string, string, bool) {
	if p.cursor < 0 || p.cursor >= len(p.list) {
		return "", "", false
	}
	return p.list[p.cursor].Path, p.list[p.cursor].Name, true
}

func (p sessionsPane) Update(msg tea.Msg) (sessionsPane, tea.Cmd) {
	switch msg := msg.(type) {
	case rerunEventsMsg:
		if p.job == nil || msg.gen != p.job.gen {
			return p, nil
		}
		p.job.progress(msg.events)
		p.refreshLines()
		return p, waitForRerunEvents(msg.gen, p.job.ch)
	case rerunEventsClosedMsg:
		return p, nil
	case rerunDoneMsg:
		if p.job == nil || msg.gen != p.job.gen {
			return p, nil
		}
		j := p.job
		j.running = false
		j.cancel()
		j.res, j.diff, j.red, j.err = msg.res, msg.diff, msg.red, msg.err
		p.shown = panelRerun
		p.scroll = 0
		p.refreshLines()
		switch {
		case msg.err != nil:
			return p, notice(noticeError, "re-run: %s", p.red.RedactString(foldSpaces(msg.err.Error())))
		case msg.res.Diverged():
			return p, notice(noticeWarn, "the re-run diverged at LLM call %d of %d — o opens it in 6 Trace", msg.res.First.LLMCall, msg.res.First.Recorded)
		}
		return p, notice(noticeInfo, "the re-run followed the recording — o opens it in 6 Trace")
	case compareDoneMsg:
		if p.cmp == nil || msg.gen != p.cmp.gen {
			return p, nil
		}
		p.cmp.running = false
		p.cmp.diff, p.cmp.err = msg.diff, msg.err
		p.shown = panelCompare
		p.scroll = 0
		p.refreshLines()
		return p, nil
	case tea.KeyMsg:
		switch p.zone {
		case zoneSetup:
			return p.updateSetup(msg)
		case zoneResult:
			return p.updateResult(msg)
		}
		return p.updateList(msg)
	}
	if p.CapturesInput() {
		var cmd tea.Cmd
		p.setup.inputs[p.setup.field], cmd = p.setup.inputs[p.setup.field].Update(msg)
		return p, cmd
	}
	return p, nil
}

func (p sessionsPane) updateList(k tea.KeyMsg) (sessionsPane, tea.Cmd) {
	l, s := p.km.List, p.km.Sessions
	switch {
	case l.move(k, &p.cursor, p.rowsAvail(), len(p.list)):
	case key.Matches(k, s.Refresh):
		return p, emit(refreshSessionsMsg{})
	case key.Matches(k, l.Open):
		if path, _, ok := p.selectedPath(); ok {
			return p, emit(openSessionMsg{path: path})
		}
	case key.Matches(k, s.Rerun):
		path, _, ok := p.selectedPath()
		switch {
		case !ok:
			return p, nil
		case p.replayer == nil:
			return p, notice(noticeWarn, "re-runs need a project with a crew (this workspace has none)")
		case p.job != nil && p.job.running:
			return p, notice(noticeWarn, "a re-run is in progress: X cancels it")
		}
		return p, emit(rerunSetupMsg{path: path})
	case key.Matches(k, s.AllProjects) && p.project != "":
		p.allProjects = !p.allProjects
		p.choose()
		if p.allProjects {
			return p, notice(noticeInfo, "every project's sessions (a: this project's)")
		}
		return p, notice(noticeInfo, "this project's sessions (a: every project's)")
	case key.Matches(k, s.Compare):
		path, _, ok := p.selectedPath()
		if !ok {
			return p, nil
		}
		// Like with like: the workbench's last run is a crew run.
		if kind := sessionKind(p.list[p.cursor].Command); kind != "run" && kind != "re-run" {
			return p, notice(noticeWarn, "c compares a run with this workbench's last run; this is a %s session (enter opens it)", kind)
		}
		return p, emit(compareRunMsg{path: path})
	case key.Matches(k, s.Cancel):
		if p.job != nil && p.job.running {
			p.Stop()
			return p, notice(noticeWarn, "cancelling the re-run…")
		}
	case key.Matches(k, s.Result) && p.shown != panelNone:
		p.zone = zoneResult
		p.clampScroll()
		return p, nil
	}
	p.clampCursor()
	return p, nil
}

// --- help ----------------------------------------------------------------------

func (p sessionsPane) ShortHelp() []key.Binding {
	l, s, in := p.km.List, p.km.Sessions, p.km.Input
	switch p.zone {
	case zoneSetup:
		if p.setup != nil && p.setup.editing {
			return []key.Binding{in.NextField, in.Done}
		}
		return []key.Binding{l.Up, l.Down, s.Edit, s.Declared, s.Toggle, s.Run, p.km.Global.Back}
	case zoneResult:
		out := []key.Binding{l.Up, l.Down, l.PageDown}
		if p.shown == panelRerun && p.job != nil && p.job.res != nil {
			out = append(out, s.OpenTrace)
		}
		out = append(out, s.Rerun)
		if p.job != nil && p.job.running {
			out = append(out, s.Cancel)
		}
		return append(out, p.km.Global.Back)
	}
	out := []key.Binding{l.Open, s.Rerun, s.Compare}
	if p.shown != panelNone {
		out = append(out, s.Result)
	}
	if p.project != "" {
		out = append(out, s.AllProjects)
	}
	return append(out, s.Refresh, l.Up, l.Down)
}

func (p sessionsPane) FullHelp() [][]key.Binding {
	l, s := p.km.List, p.km.Sessions
	return [][]key.Binding{{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom}, {l.Open, s.Rerun, s.Compare, s.AllProjects, s.Refresh, s.Result},
		{s.Edit, s.Declared, s.Toggle, s.Run}, {s.OpenTrace, s.Cancel, p.km.Global.Back}}
}

// --- view ----------------------------------------------------------------------

func (p sessionsPane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	lh := p.listHeight()
	list := p.listView(lh)
	if !p.hasPanel() {
		return list
	}
	ph := p.height - lh
	if p.setup != nil {
		return list + "\n" + p.setupView(ph)
	}
	return list + "\n" + p.resultView(ph)
}

func (p sessionsPane) listView(h int) string {
	f := p.st.Pane.Blurred
	if p.focused && p.zone == zoneList {
		f = p.st.Pane.Focused
	}
	iw, _ := inner(f, p.width, h)
	count := fmt.Sprintf("  %d recorded", len(p.list))
	switch {
	case p.project != "" && p.allProjects:
		count += " in every project (a: this one)"
	case p.project != "":
		count += fmt.Sprintf(" in this project, %d in all (a: all)", len(p.all))
	}
	hint := " · enter: trace · R: re-run · c: compare with this run"
	if p.replayer == nil {
		hint = " · enter: trace · c: compare with this run"
	}
	title := p.st.Pane.Title.Render("Sessions") + p.st.Pane.TitleMuted.Render(count+hint)
	// The file names line up; what each session holds follows them. When
	// that leaves ABOUT too little room, FILE shows only the part of the
	// name MODIFIED does not (the recording's id).
	nameW, short := p.nameW, false
	if iw-sessionFixedCols-nameW < minAboutWidth {
		nameW, short = len("FILE"), true
		for _, s := range p.list {
			nameW = max(nameW, ansi.StringWidth(printable(sessionID(s.Name))))
		}
	}
	lines := []string{fit(title, iw), p.st.Row.Header.Render(pad("  "+pad("MODIFIED", 17)+" "+padLeft("SIZE", 9)+"  "+
		pad("KIND", kindWidth)+" "+pad("FILE", nameW)+"  ABOUT", iw))}
	switch {
	case p.store == nil:
		lines = append(lines, p.st.Text.Muted.Render("no session store configured"))
	case p.err != nil:
		lines = append(lines, wrappedLines(p.st.Text.Danger, printable(foldSpaces(p.err.Error())), iw)...)
	case !p.loaded:
		lines = append(lines, p.st.Text.Muted.Render("listing…"))
	case len(p.list) == 0:
		lines = append(lines, p.st.Text.Muted.Render("no recorded sessions yet: every run and every call (here, or crewbench run / call) is recorded"))
	}
	for i := p.offset; i < min(len(p.list), p.offset+p.rowsAvail()); i++ {
		s := p.list[i]
		cursor := "  "
		if i == p.cursor {
			cursor = p.st.Row.Cursor.Render("›") + " "
		}
		about := printable(foldSpaces(s.About))
		switch s.Path {
		case p.current:
			about = p.st.Text.Accent.Render("● this run") + "  " + about
		case p.calls:
			about = p.st.Text.Accent.Render("● this workbench") + "  " + about
		}
		name := s.Name
		if short {
			name = sessionID(name)
		}
		line := cursor + pad(s.Modified.Format("2006-01-02 15:04"), 17) + " " + padLeft(fmtBytes(s.Size), 9) + "  " +
			pad(sessionKind(s.Command), kindWidth) + " " + pad(printable(name), nameW) + "  " + about
		if i == p.cursor && p.focused && p.zone == zoneList {
			line = p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
		}
		lines = append(lines, pad(line, iw))
	}
	return box(f, p.width, h, strings.Join(lines, "\n"))
}

// kindWidth is the KIND column's width (the longest sessionKind).
const kindWidth = 6

// sessionFixedCols is the width of a list row before its FILE column and
// the gap after it; minAboutWidth the room ABOUT needs to say something.
const (
	sessionFixedCols = 2 + 17 + 1 + 9 + 2 + kindWidth + 1 + 2
	minAboutWidth    = 28
)

// recordingName is how the recorder names a file: the start time, then
// the recording's id.
var recordingName = regexp.MustCompile(`^\d{8}T\d{6}Z-(.+?)(\.jsonl)?$`)

// sessionID is a recording's file name without the timestamp MODIFIED
// already shows (and the extension): its id. Other names stay whole.
func sessionID(name string) string {
	if m := recordingName.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return name
}

// sessionKind names what recorded a session, in a word: the header's
// command, with the workbench's own ones folded in (a crew run started
// here is a run; its try-a-tool calls are calls).
func sessionKind(command string) string {
	switch command {
	case "tui":
		return "run"
	case "replay --rerun":
		return "re-run"
	case CallLogCommand:
		return "calls"
	}
	return command
}
