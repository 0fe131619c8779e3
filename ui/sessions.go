package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew/rerun"
	"crewbench/mcpconn"
	"crewbench/session"
)

// refreshSessionsMsg asks the root to list the sessions again.
type refreshSessionsMsg struct{}

// The sessions view has three parts, one focused at a time: the list of
// recorded sessions; the re-run form (which filters a re-run changes);
// and the result panel (a re-run against its recording, or a recording
// against this workbench's last run).
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

	list   []SessionInfo
	err    error
	loaded bool
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

// rerunSetup is the re-run form: one row per server with the filter the
// re-run gives it, and the keep-going switch.
type rerunSetup struct {
	path, name string
	rows       []setupRow
	cursor     int // a row, or len(rows): the keep-going switch
	keepGoing  bool
	editing    bool
	field      int
	inputs     [4]textinput.Model // allowed, blocked, CEL, faults
}

// setupFieldLabels are the re-run form's fields: a server's filter, then
// the faults injected into its calls for this re-run.
var setupFieldLabels = [4]string{fieldLabels[0], fieldLabels[1], fieldLabels[2], "faults"}

// faultsField is the index of the faults input.
const faultsField = 3

// setupRow is one server in the re-run form.
type setupRow struct {
	server         string
	declared, spec mcpconn.FilterSpec
	from           string
	// faults are injected into the server's calls in this re-run
	// (mcpconn.ParseFaultList of faultText); faultErr says why the text
	// does not parse (the re-run refuses to start).
	faults    []mcpconn.Fault
	faultText string
	faultErr  error
}

// Where a setup row's filter comes from.
const (
	fromDeclared = "declared"
	fromTried    = "tried in 3 Filter"
	fromEdited   = "edited here"
)

// rerunJob is one re-run: running (with progress) or finished.
type rerunJob struct {
	gen        int
	path, name string
	filters    map[string]mcpconn.FilterSpec
	faults     map[string][]mcpconn.Fault
	keepGoing  bool
	cancel     context.CancelFunc
	finished   chan struct{}
	started    time.Time
	running    bool
	ch         <-chan session.Event

	events, llmCalls, toolCalls, toolFailures int

	res  *rerun.Result
	diff *session.SessionDiff
	red  *session.Redactor
	err  error
}

// comparison is a recorded session compared with the last run.
type comparison struct {
	gen     int
	name    string
	against string
	partial bool // the run was still going when compared
	running bool
	diff    *session.SessionDiff
	err     error
}

func newSessionsPane(st *Styles, km *KeyMap, deps Deps) sessionsPane {
	return sessionsPane{st: st, km: km, ctx: deps.Ctx, now: deps.Now, red: deps.Redactor,
		store: deps.Sessions, replayer: deps.Replayer}
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
	p.list, p.err, p.loaded = l, err, true
	// The FILE column's width, measured once per listing, not per frame.
	p.nameW = len("FILE")
	for _, s := range l {
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

// panelRows is the number of scrolled lines the result panel shows.
func (p sessionsPane) panelRows() int {
	_, ih := inner(p.st.Pane.Focused, p.width, p.height-p.listHeight())
	return max(1, ih-1) // the title line stays
}

func (p *sessionsPane) clampScroll() {
	p.scroll = clamp(p.scroll, 0, max(0, len(p.lines)-p.panelRows()))
}

// refreshLines renders the result panel's lines at the current width.
func (p *sessionsPane) refreshLines() {
	iw, _ := inner(p.st.Pane.Focused, p.width, p.height)
	switch p.shown {
	case panelRerun:
		p.lines = rerunLines(p.st, p.job, p.now, iw)
	case panelCompare:
		p.lines = compareLines(p.st, p.cmp)
	default:
		p.lines = nil
	}
	p.clampScroll()
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
			return p, notice(noticeError, "re-run: %s", p.red.RedactString(oneLine(msg.err.Error())))
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
	case key.Matches(k, s.Compare):
		if path, _, ok := p.selectedPath(); ok {
			return p, emit(compareRunMsg{path: path})
		}
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

func (p sessionsPane) updateResult(k tea.KeyMsg) (sessionsPane, tea.Cmd) {
	l, s := p.km.List, p.km.Sessions
	switch {
	case key.Matches(k, s.Rerun), key.Matches(k, s.Compare):
		// Again, on the session the list has selected.
		return p.updateList(k)
	case key.Matches(k, p.km.Global.Back), key.Matches(k, p.km.Trace.Collapse):
		p.zone = zoneList
		p.clampCursor()
	case l.move(k, &p.scroll, p.panelRows(), len(p.lines)+1):
	case key.Matches(k, s.Cancel):
		if p.job != nil && p.job.running {
			p.Stop()
			return p, notice(noticeWarn, "cancelling the re-run…")
		}
	case key.Matches(k, s.OpenTrace):
		if p.shown == panelRerun && p.job != nil && p.job.res != nil {
			return p, emit(showEventsMsg{source: "re-run of " + p.job.name, events: p.job.res.Events})
		}
		return p, notice(noticeInfo, "only a finished re-run opens in 6 Trace")
	}
	p.clampScroll()
	return p, nil
}

// OpenSetup opens the re-run form for the session at path: one row per
// workspace server, starting from the filter the playground is trying on
// it, else the declared one.
func (p *sessionsPane) OpenSetup(path string, servers []ServerEntry, tried map[string]mcpconn.FilterSpec) tea.Cmd {
	name := path
	for _, s := range p.list {
		if s.Path == path {
			name = s.Name
		}
	}
	su := &rerunSetup{path: path, name: name}
	for _, e := range servers {
		row := setupRow{server: mcpconn.Handle(e.Spec), declared: e.Spec.Filter, spec: e.Spec.Filter, from: fromDeclared}
		if t, ok := tried[row.server]; ok {
			row.spec, row.from = t, fromTried
		}
		su.rows = append(su.rows, row)
	}
	placeholders := [4]string{"comma-separated; empty allows all", "comma-separated", "CEL over tool and context; empty: none",
		"e.g. is_error,tool=getForecast,times=1; hang — " + strings.Join(faultKindNames(), ", ")}
	for i := range su.inputs {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholders[i]
		ti.PlaceholderStyle = p.st.Text.Subtle
		ti.TextStyle = p.st.Text.Normal
		su.inputs[i] = ti
	}
	p.setup = su
	p.zone = zoneSetup
	p.SetSize(p.width, p.height)
	changed := 0
	for _, r := range su.rows {
		if r.from == fromTried {
			changed++
		}
	}
	if changed > 0 {
		return notice(noticeInfo, "re-run with the %s tried in 3 Filter — enter edits a server's filter, r runs", plural(changed, "filter"))
	}
	return notice(noticeInfo, "no filter tried in 3 Filter: enter edits a server's filter here, r runs")
}

func (p sessionsPane) updateSetup(k tea.KeyMsg) (sessionsPane, tea.Cmd) {
	su := p.setup
	l, s, in := p.km.List, p.km.Sessions, p.km.Input
	if su.editing {
		switch {
		case key.Matches(k, in.Cancel), key.Matches(k, in.Done):
			su.editing = false
			for i := range su.inputs {
				su.inputs[i].Blur()
			}
			return p, nil
		case k.Type == tea.KeyTab || k.Type == tea.KeyDown:
			su.inputs[su.field].Blur()
			su.field = (su.field + 1) % len(su.inputs)
			return p, su.inputs[su.field].Focus()
		case k.Type == tea.KeyShiftTab || k.Type == tea.KeyUp:
			su.inputs[su.field].Blur()
			su.field = (su.field + len(su.inputs) - 1) % len(su.inputs)
			return p, su.inputs[su.field].Focus()
		}
		var cmd tea.Cmd
		before := su.inputs[su.field].Value()
		su.inputs[su.field], cmd = su.inputs[su.field].Update(k)
		if su.inputs[su.field].Value() != before && su.cursor < len(su.rows) && su.field == faultsField {
			r := &su.rows[su.cursor]
			r.faultText = su.inputs[faultsField].Value()
			r.faults, r.faultErr = mcpconn.ParseFaultList(r.faultText)
			return p, cmd
		}
		if su.inputs[su.field].Value() != before && su.cursor < len(su.rows) {
			r := &su.rows[su.cursor]
			r.spec = mcpconn.FilterSpec{Allowed: splitList(su.inputs[0].Value()), Blocked: splitList(su.inputs[1].Value()),
				Expr: strings.TrimSpace(su.inputs[2].Value())}
			r.from = fromEdited
			if sameFilter(r.spec, r.declared) {
				r.from = fromDeclared
			}
		}
		return p, cmd
	}
	switch {
	case key.Matches(k, p.km.Global.Back):
		p.setup = nil
		p.zone = zoneList
		p.clampCursor()
		p.clampScroll()
		return p, nil
	case key.Matches(k, l.Up):
		su.cursor = clamp(su.cursor-1, 0, len(su.rows))
	case key.Matches(k, l.Down):
		su.cursor = clamp(su.cursor+1, 0, len(su.rows))
	case key.Matches(k, s.Toggle):
		su.keepGoing = !su.keepGoing
	case key.Matches(k, s.Edit):
		if su.cursor == len(su.rows) {
			su.keepGoing = !su.keepGoing
			return p, nil
		}
		r := su.rows[su.cursor]
		su.inputs[0].SetValue(strings.Join(r.spec.Allowed, ", "))
		su.inputs[1].SetValue(strings.Join(r.spec.Blocked, ", "))
		su.inputs[2].SetValue(r.spec.Expr)
		su.inputs[faultsField].SetValue(r.faultText)
		su.editing, su.field = true, 0
		return p, su.inputs[0].Focus()
	case key.Matches(k, s.Declared):
		if su.cursor < len(su.rows) {
			r := &su.rows[su.cursor]
			r.spec, r.from = r.declared, fromDeclared
			r.faults, r.faultText, r.faultErr = nil, "", nil
		}
	case key.Matches(k, s.Run):
		return p.startRerun()
	}
	return p, nil
}

// filters are the setup's changes: the rows whose filter differs from the
// declared one.
func (su *rerunSetup) filters() map[string]mcpconn.FilterSpec {
	out := map[string]mcpconn.FilterSpec{}
	for _, r := range su.rows {
		if !sameFilter(r.spec, r.declared) {
			out[r.server] = r.spec
		}
	}
	return out
}

// fromText is the row's FROM cell: where its filter comes from, and its
// faults.
func (r setupRow) fromText(st *Styles) string {
	from := r.from
	if r.spec.Expr != "" {
		from += " · CEL"
	}
	fromStyle := st.Text.Muted
	if r.from != fromDeclared {
		fromStyle = st.Text.Accent
	}
	out := fromStyle.Render(from)
	switch {
	case r.faultErr != nil:
		out += st.Text.Muted.Render(" · ") + st.Text.Danger.Render("bad faults")
	case len(r.faults) > 0:
		out += st.Text.Muted.Render(" · ") + st.Text.Warning.Render(plural(len(r.faults), "fault"))
	}
	return out
}

// faults are the setup's injected faults, per server.
func (su *rerunSetup) faults() map[string][]mcpconn.Fault {
	out := map[string][]mcpconn.Fault{}
	for _, r := range su.rows {
		if len(r.faults) > 0 && r.faultErr == nil {
			out[r.server] = r.faults
		}
	}
	return out
}

func faultKindNames() []string {
	out := make([]string, len(mcpconn.FaultKinds))
	for i, k := range mcpconn.FaultKinds {
		out[i] = string(k)
	}
	return out
}

// startRerun starts the re-run the form describes.
func (p sessionsPane) startRerun() (sessionsPane, tea.Cmd) {
	su := p.setup
	if p.replayer == nil || p.store == nil {
		return p, notice(noticeError, "re-runs are not available in this workspace")
	}
	for _, r := range su.rows {
		if r.faultErr != nil {
			return p, notice(noticeError, "%s: %v", r.server, r.faultErr)
		}
	}
	if p.job != nil && p.job.running {
		return p, notice(noticeWarn, "a re-run is in progress: X cancels it")
	}
	p.gen++
	ctx, cancel := context.WithCancel(p.ctx)
	events := make(chan session.Event, RunEventBuffer)
	sink := &closingSink{ctx: ctx, ch: events}
	j := &rerunJob{gen: p.gen, path: su.path, name: su.name, filters: su.filters(), faults: su.faults(), keepGoing: su.keepGoing,
		cancel: cancel, finished: make(chan struct{}), started: p.now(), running: true, ch: events}
	p.job = j
	p.setup = nil
	p.shown = panelRerun
	p.zone = zoneResult
	p.scroll = 0
	p.SetSize(p.width, p.height)
	req := RerunRequest{Path: j.path, Filters: j.filters, Faults: j.faults, KeepGoing: j.keepGoing}
	// The panel shows the progress: no notice, so the verdict's notice is
	// the one left in the status bar.
	return p, tea.Batch(rerunSession(ctx, p.store, p.replayer, j.gen, req, sink, j.finished), waitForRerunEvents(j.gen, events))
}

// StartCompare compares the session at path with the last run's events.
func (p *sessionsPane) StartCompare(path, against string, events []session.Event, done bool) tea.Cmd {
	if p.store == nil {
		return notice(noticeError, "no session store configured")
	}
	name := path
	for _, s := range p.list {
		if s.Path == path {
			name = s.Name
		}
	}
	p.gen++
	p.cmp = &comparison{gen: p.gen, name: name, against: against, partial: !done, running: true}
	p.shown = panelCompare
	p.setup = nil
	p.zone = zoneResult
	p.scroll = 0
	p.SetSize(p.width, p.height)
	return compareWithRun(p.ctx, p.store, p.gen, path, events)
}

// progress counts a batch of the re-run's events.
func (j *rerunJob) progress(evs []session.Event) {
	for _, ev := range evs {
		j.events++
		switch ev.Kind {
		case session.LLMCallCompleted, session.LLMCallFailed:
			j.llmCalls++
		case session.ToolUsageStarted:
			j.toolCalls++
		case session.ToolUsageError:
			j.toolFailures++
		}
	}
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
	return append(out, s.Refresh, l.Up, l.Down)
}

func (p sessionsPane) FullHelp() [][]key.Binding {
	l, s := p.km.List, p.km.Sessions
	return [][]key.Binding{{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom}, {l.Open, s.Rerun, s.Compare, s.Refresh, s.Result},
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
	hint := "  %d recorded · enter: trace · R: re-run · c: compare with this run"
	if p.replayer == nil {
		hint = "  %d recorded · enter: trace · c: compare with this run"
	}
	title := p.st.Pane.Title.Render("Sessions") + p.st.Pane.TitleMuted.Render(fmt.Sprintf(hint, len(p.list)))
	// The file names line up; what each session holds follows them.
	nameW := p.nameW
	lines := []string{fit(title, iw), p.st.Row.Header.Render(pad("  "+pad("MODIFIED", 17)+" "+padLeft("SIZE", 9)+"  "+
		pad("KIND", kindWidth)+" "+pad("FILE", nameW)+"  ABOUT", iw))}
	switch {
	case p.store == nil:
		lines = append(lines, p.st.Text.Muted.Render("no session store configured"))
	case p.err != nil:
		lines = append(lines, p.st.Text.Danger.Render(p.err.Error()))
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
		about := printable(oneLine(s.About))
		switch s.Path {
		case p.current:
			about = p.st.Text.Accent.Render("● this run") + "  " + about
		case p.calls:
			about = p.st.Text.Accent.Render("● this workbench") + "  " + about
		}
		line := cursor + pad(s.Modified.Format("2006-01-02 15:04"), 17) + " " + padLeft(fmtBytes(s.Size), 9) + "  " +
			pad(sessionKind(s.Command), kindWidth) + " " + pad(printable(s.Name), nameW) + "  " + about
		if i == p.cursor && p.focused && p.zone == zoneList {
			line = p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
		}
		lines = append(lines, pad(line, iw))
	}
	return box(f, p.width, h, strings.Join(lines, "\n"))
}

func (p sessionsPane) setupView(h int) string {
	su := p.setup
	f := p.st.Pane.Blurred
	if p.focused {
		f = p.st.Pane.Focused
	}
	iw, _ := inner(f, p.width, h)
	title := p.st.Pane.Title.Render("Re-run ") + p.st.Text.Bold.Render(su.name) +
		p.st.Pane.TitleMuted.Render("  every LLM call answered from the recording: no LLM cost")
	lines := []string{fit(title, iw)}
	sw := len("SERVER")
	for _, r := range su.rows {
		sw = max(sw, ansi.StringWidth(r.server))
	}
	sw = min(sw, max(8, iw/5))
	// FROM says where a row's filter comes from, and its faults.
	fromW := len(fromTried)
	for _, r := range su.rows {
		fromW = max(fromW, ansi.StringWidth(r.fromText(p.st)))
	}
	fromW = min(fromW, max(len(fromTried), iw/3))
	listW := max(6, (iw-2-sw-1-fromW-1)/2-1)
	lines = append(lines, p.st.Row.Header.Render(pad("  "+pad("SERVER", sw)+" "+pad("ALLOWED", listW)+" "+pad("BLOCKED", listW)+" FROM", iw)))
	for i, r := range su.rows {
		cursor := "  "
		if i == su.cursor {
			cursor = p.st.Row.Cursor.Render("›") + " "
		}
		allowed, blocked := strings.Join(r.spec.Allowed, ", "), strings.Join(r.spec.Blocked, ", ")
		if allowed == "" {
			allowed = "(all)"
		}
		if blocked == "" {
			blocked = "—"
		}
		line := cursor + pad(printable(r.server), sw) + " " + pad(printable(allowed), listW) + " " + pad(printable(blocked), listW) + " " + r.fromText(p.st)
		if i == su.cursor && !su.editing && p.focused {
			line = p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
		}
		lines = append(lines, fit(line, iw))
	}
	if len(su.rows) == 0 {
		lines = append(lines, p.st.Text.Muted.Render("  the workspace has no MCP servers: the re-run changes nothing"))
	}
	check := "[ ]"
	if su.keepGoing {
		check = "[x]"
	}
	kg := "  " + check + " keep going past the first divergence (serve every recorded reply)"
	if su.cursor == len(su.rows) {
		kg = p.st.Row.Cursor.Render("›") + " " + check + " keep going past the first divergence (serve every recorded reply)"
		if p.focused && !su.editing {
			kg = p.st.Row.Selected.Render(pad(ansi.Strip(kg), iw))
		}
	}
	lines = append(lines, fit(kg, iw))
	if su.editing && su.cursor < len(su.rows) {
		lines = append(lines, "", p.st.Text.Muted.Render("filter for ")+p.st.Text.Bold.Render(su.rows[su.cursor].server)+
			p.st.Text.Muted.Render(" (replaces its tool_filter in this re-run only)"))
		for i, label := range setupFieldLabels {
			marker, ls := "  ", p.st.Form.Label
			if su.field == i {
				marker, ls = p.st.Row.Cursor.Render("› "), p.st.Form.LabelFocused
			}
			lines = append(lines, marker+ls.Render(pad(label, 19))+" "+su.inputs[i].View())
		}
		r := su.rows[su.cursor]
		switch {
		case r.faultErr != nil:
			lines = append(lines, "  "+p.st.Text.Danger.Render(fit(printable(r.faultErr.Error()), max(1, iw-2))))
		case len(r.faults) > 0:
			var kinds []string
			for _, f := range r.faults {
				kinds = append(kinds, f.String())
			}
			lines = append(lines, "  "+p.st.Text.Muted.Render(fit("injects "+printable(strings.Join(kinds, " then ")), max(1, iw-2))))
		}
	} else {
		n, nf := len(su.filters()), len(su.faults())
		what := "changes nothing (does the run still follow its recording?)"
		switch {
		case n > 0 && nf > 0:
			what = "changes the filter of " + plural(n, "server") + " and injects faults into " + plural(nf, "server")
		case n > 0:
			what = "changes the filter of " + plural(n, "server")
		case nf > 0:
			what = "injects faults into " + plural(nf, "server")
		}
		lines = append(lines, "", p.st.Text.Muted.Render("this re-run "+what))
		lines = append(lines, p.st.Text.Key.Render("enter edit · d declared filter · space keep going · r run · esc cancel"))
	}
	return box(f, p.width, h, strings.Join(lines, "\n"))
}

func (p sessionsPane) resultView(h int) string {
	f := p.st.Pane.Blurred
	if p.focused && p.zone == zoneResult {
		f = p.st.Pane.Focused
	}
	iw, _ := inner(f, p.width, h)
	var title string
	switch p.shown {
	case panelRerun:
		title = p.st.Pane.Title.Render("Re-run ") + p.st.Text.Bold.Render(p.job.name) + p.st.Pane.TitleMuted.Render("  "+filtersLabel(p.job.filters, p.job.faults, p.job.keepGoing))
	case panelCompare:
		title = p.st.Pane.Title.Render("Compare ") + p.st.Text.Bold.Render(p.cmp.name) + p.st.Pane.TitleMuted.Render(" → "+p.cmp.against)
	}
	rows := p.panelRows()
	if len(p.lines) > rows {
		pos := fmt.Sprintf("  %d–%d of %d", p.scroll+1, min(len(p.lines), p.scroll+rows), len(p.lines))
		title = fit(title, max(0, iw-ansi.StringWidth(pos)))
		title = pad(title, iw-ansi.StringWidth(pos)) + p.st.Text.Subtle.Render(pos)
	}
	lines := []string{fit(title, iw)}
	for i := p.scroll; i < min(len(p.lines), p.scroll+rows); i++ {
		lines = append(lines, fit(p.lines[i], iw))
	}
	return box(f, p.width, h, strings.Join(lines, "\n"))
}

// kindWidth is the KIND column's width (the longest sessionKind).
const kindWidth = 6

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

// filtersLabel says what a re-run changed, for its title.
func filtersLabel(filters map[string]mcpconn.FilterSpec, faults map[string][]mcpconn.Fault, keepGoing bool) string {
	var parts []string
	servers := make([]string, 0, len(filters))
	for s := range filters {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	for _, s := range servers {
		fs := filters[s]
		var what []string
		if len(fs.Allowed) > 0 {
			what = append(what, "allowed "+strings.Join(fs.Allowed, ","))
		}
		if len(fs.Blocked) > 0 {
			what = append(what, "blocked "+strings.Join(fs.Blocked, ","))
		}
		if fs.Expr != "" {
			what = append(what, "CEL "+fs.Expr)
		}
		if len(what) == 0 {
			what = append(what, "no filter")
		}
		parts = append(parts, s+": "+strings.Join(what, " "))
	}
	faulty := make([]string, 0, len(faults))
	for s := range faults {
		faulty = append(faulty, s)
	}
	sort.Strings(faulty)
	for _, s := range faulty {
		var fs []string
		for _, f := range faults[s] {
			fs = append(fs, f.String())
		}
		parts = append(parts, s+": fault "+strings.Join(fs, "; "))
	}
	label := "unchanged filters"
	if len(parts) > 0 {
		label = "with " + strings.Join(parts, " · ")
	}
	if keepGoing {
		label += " · keep going"
	}
	return printable(label)
}
