package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew"
	"crewbench/session"
)

// traceRow is one visible node of the flattened tree.
type traceRow struct {
	n     *session.Node
	depth int
}

// Kind filters for the trace.
const (
	kindAll = iota
	kindLLM
	kindTools
	kindMCP
	kindScopes
	kindFilterCount
)

var kindFilterTitles = [kindFilterCount]string{"all", "LLM calls", "tool calls", "MCP calls & attempts", "crew/tasks/agents"}

// Status filters for the trace.
const (
	statusAll = iota
	statusFailed
	statusRunning
	statusOK
	statusFilterCount
)

var statusFilterTitles = [statusFilterCount]string{"any status", "failed", "running", "ok"}

// activeRun is the kickoff in progress (or the last one).
type activeRun struct {
	gen       int
	handle    *RunHandle
	stepper   *crew.ChanStepper
	bp        crew.Breakpoints // the kickoff's breakpoints (step mode adds Every until continued)
	stepStart bool
	ctx       context.Context
	cancel    context.CancelFunc
	crew      string
	started   time.Time
	done      bool
	outcome   *RunOutcome
	events    bool // the event stream is still open
}

// runRecord keeps the events of the latest kickoff made in this
// workbench, so 7 Sessions can compare a recording with "this run" even
// after the trace shows something else.
type runRecord struct {
	gen    int
	label  string
	events []session.Event
	done   bool
}

// tracePane is the live trace: the session tree crew ▸ task ▸ agent ▸ step
// ▸ LLM call ▸ tool call ▸ MCP call ▸ attempt, windowed so only the visible
// rows render, plus the pause panel while a run waits for a decision.
type tracePane struct {
	st  *Styles
	km  *KeyMap
	now func() time.Time
	red *session.Redactor

	tree      *session.Tree
	rows      []traceRow
	collapsed map[*session.Node]bool
	summary   session.Summary
	source    string // "run <id>" or a session file

	kind, status   int
	cursor, offset int
	follow         bool

	payloadOpen bool
	payload     viewport.Model
	payloadNode *session.Node

	gen  int
	run  *activeRun
	last *runRecord

	pause     *crew.PauseRequest
	pauseView viewport.Model
	pauseTab  int // pauseMessages or pauseTools
	editMode  int // 0 none, 1 canned result, 2 args, 3 reply
	canned    textinput.Model
	editor    textarea.Model
	editErr   string

	width, height int
	focused       bool
}

func newTracePane(st *Styles, km *KeyMap, now func() time.Time, red *session.Redactor) tracePane {
	ci := textinput.New()
	ci.Prompt = "result> "
	ci.Placeholder = "the text the model sees instead of the tool's result"
	ci.PlaceholderStyle = st.Text.Subtle
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	return tracePane{
		st: st, km: km, now: now, red: red,
		tree: session.NewTree(), collapsed: map[*session.Node]bool{}, follow: true,
		payload: viewport.New(0, 0), pauseView: viewport.New(0, 0), canned: ci, editor: ta,
	}
}

func (p *tracePane) SetSize(w, h int) {
	p.width, p.height = w, h
	iw, ih := inner(p.st.Pane.Focused, w, h)
	p.payload.Width, p.payload.Height = iw, max(1, ih-1)
	_, ph := p.splitHeights()
	piw, pih := inner(p.st.Pane.Focused, w, ph)
	p.pauseView.Width, p.pauseView.Height = piw, max(1, pih-2)
	p.canned.Width = max(1, piw-10)
	p.editor.SetWidth(max(1, piw))
	p.editor.SetHeight(max(1, pih-3))
	if p.payloadOpen {
		p.renderPayload()
	}
	if p.pause != nil {
		p.renderPause()
	}
	p.scrollToCursor()
}

func (p *tracePane) Focus() { p.focused = true }
func (p *tracePane) Blur() {
	p.focused = false
}

// CapturesInput is true while the user types a canned result or edits.
func (p tracePane) CapturesInput() bool { return p.editMode != 0 }

// splitHeights returns the tree's and the pause panel's outer heights.
func (p tracePane) splitHeights() (int, int) {
	if p.pause == nil {
		return p.height, 0
	}
	t, b := splitV(p.height, 0.38, 7, 9)
	return t, b
}

// Reset empties the trace for a new source.
func (p *tracePane) reset(source string) {
	p.tree = session.NewTree()
	p.rows = p.rows[:0]
	p.collapsed = map[*session.Node]bool{}
	p.summary = session.Summary{}
	p.cursor, p.offset, p.follow = 0, 0, true
	p.payloadOpen = false
	p.source = source
	p.pause, p.editMode = nil, 0
}

// Load shows a recorded session.
func (p *tracePane) Load(path string, f *session.File) {
	p.LoadEvents(path, f.Events)
}

// LoadEvents shows finished events (a session, a re-run) under source.
func (p *tracePane) LoadEvents(source string, events []session.Event) {
	p.Stop()
	p.run = nil
	p.reset(source)
	p.Append(events...)
}

// LastRun is a snapshot of the latest kickoff's events and its label; ok
// is false when no run was made in this workbench.
func (p tracePane) LastRun() (label string, events []session.Event, done, ok bool) {
	if p.last == nil {
		return "", nil, false, false
	}
	return p.last.label, append([]session.Event(nil), p.last.events...), p.last.done, true
}

// Append adds events to the tree and refreshes the visible rows. Cost:
// O(events) to add, O(nodes) to re-flatten; View stays O(height).
func (p *tracePane) Append(evs ...session.Event) {
	for _, ev := range evs {
		p.tree.Add(ev)
	}
	p.rebuild()
}

// rebuild flattens the tree under the fold state and filters, keeping the
// cursor on the same node, and recomputes the totals.
func (p *tracePane) rebuild() {
	var cur *session.Node
	if p.cursor >= 0 && p.cursor < len(p.rows) {
		cur = p.rows[p.cursor].n
	}
	p.rows = p.rows[:0]
	filtering := p.kind != kindAll || p.status != statusAll
	var keep map[*session.Node]bool
	if filtering {
		keep = map[*session.Node]bool{}
		var mark func(n *session.Node) bool
		mark = func(n *session.Node) bool {
			hit := p.matches(n)
			for _, c := range n.Children {
				if mark(c) {
					hit = true
				}
			}
			if hit {
				keep[n] = true
			}
			return hit
		}
		for _, c := range p.tree.Root.Children {
			mark(c)
		}
	}
	p.tree.Walk(func(n *session.Node, depth int) bool {
		if filtering && !keep[n] {
			return false
		}
		p.rows = append(p.rows, traceRow{n: n, depth: depth - 1})
		return !p.collapsed[n]
	})
	p.summary = p.tree.Summary()
	if p.follow {
		p.cursor = len(p.rows) - 1
	} else if cur != nil {
		for i := range p.rows {
			if p.rows[i].n == cur {
				p.cursor = i
				break
			}
		}
	}
	p.scrollToCursor()
}

func (p tracePane) matches(n *session.Node) bool {
	switch p.kind {
	case kindLLM:
		if n.Kind != session.NodeLLM {
			return false
		}
	case kindTools:
		if n.Kind != session.NodeTool {
			return false
		}
	case kindMCP:
		if n.Kind != session.NodeMCPCall && n.Kind != session.NodeAttempt && n.Kind != session.NodeConnection {
			return false
		}
	case kindScopes:
		if n.Kind != session.NodeCrew && n.Kind != session.NodeTask && n.Kind != session.NodeAgent {
			return false
		}
	}
	switch p.status {
	case statusFailed:
		return n.Status == session.StatusFailed || n.Status == session.StatusCancelled
	case statusRunning:
		return n.Status == session.StatusRunning
	case statusOK:
		return n.Status == session.StatusOK
	}
	return true
}

func (p tracePane) treeRows() int {
	th, _ := p.splitHeights()
	_, ih := inner(p.st.Pane.Focused, p.width, th)
	rows := ih - 2 // title and totals
	if p.banner() != "" {
		rows--
	}
	return max(1, rows)
}

func (p *tracePane) scrollToCursor() {
	p.cursor = clamp(p.cursor, 0, len(p.rows)-1)
	p.offset = window(p.cursor, p.offset, p.treeRows(), len(p.rows))
}

// StartRun kicks off a crew with a stepper the pane answers.
func (p *tracePane) StartRun(ctx context.Context, r Runner, msg startRunMsg) tea.Cmd {
	if r == nil {
		return notice(noticeError, "this workspace has no crew to run")
	}
	if p.run != nil && !p.run.done {
		return notice(noticeWarn, "a run is in progress: X stops it first")
	}
	p.gen++
	bp := msg.bp
	if msg.step {
		bp.Every = true
	}
	stepper := crew.NewChanStepper(bp)
	rctx, cancel := context.WithCancel(ctx)
	p.run = &activeRun{gen: p.gen, stepper: stepper, bp: msg.bp, stepStart: msg.step, ctx: rctx, cancel: cancel,
		crew: msg.req.Crew, started: p.now(), events: true}
	p.last = &runRecord{gen: p.gen, label: "the run of " + msg.req.Crew}
	p.reset("run of " + msg.req.Crew)
	req := msg.req
	req.Stepper = stepper
	return tea.Batch(startRun(rctx, r, p.gen, req), waitForPause(rctx, p.gen, stepper),
		notice(noticeInfo, "kicking off %s…", msg.req.Crew))
}

// Stop cancels the run in progress (quit, or X).
func (p *tracePane) Stop() {
	if p.run != nil && p.run.cancel != nil && !p.run.done {
		p.run.cancel()
	}
}

// waitFinished waits up to d for the run (cancelled or not) to release
// everything, so quitting never cuts its recording short.
func (p tracePane) waitFinished(d time.Duration) {
	if p.run == nil || p.run.handle == nil || p.run.handle.Finished == nil {
		return
	}
	select {
	case <-p.run.handle.Finished:
	case <-time.After(d):
	}
}

// runBadge is the header's run summary.
func (p tracePane) runBadge() string {
	switch {
	case p.run == nil:
		return ""
	case p.pause != nil:
		return "⏸ paused"
	case !p.run.done:
		return "▶ running"
	case p.run.outcome != nil && p.run.outcome.Err != nil:
		return "✕ run failed"
	case p.summary.ToolFailures > 0:
		return fmt.Sprintf("⚠ run done, %s", plural(p.summary.ToolFailures, "tool failure"))
	}
	return "✓ run done"
}

func (p tracePane) Update(msg tea.Msg) (tracePane, tea.Cmd) {
	switch msg := msg.(type) {
	case runStartedMsg:
		if p.run == nil || msg.gen != p.run.gen {
			return p, nil
		}
		if msg.err != nil {
			p.run.done = true
			p.run.cancel()
			p.run.outcome = &RunOutcome{Err: msg.err}
			return p, notice(noticeError, "kickoff: %v", msg.err)
		}
		p.run.handle = msg.handle
		if msg.handle.ID != "" {
			p.source = "run " + msg.handle.ID + " of " + p.run.crew
			if p.last != nil && p.last.gen == msg.gen {
				p.last.label = p.source
			}
		}
		return p, tea.Batch(waitForRunEvents(msg.gen, msg.handle.Events), waitForRunDone(msg.gen, msg.handle.Done))
	case runEventsMsg:
		if p.run == nil || msg.gen != p.run.gen {
			return p, nil
		}
		p.Append(msg.events...)
		if p.last != nil && p.last.gen == msg.gen {
			p.last.events = append(p.last.events, msg.events...)
		}
		return p, waitForRunEvents(msg.gen, p.run.handle.Events)
	case runEventsClosedMsg:
		if p.run != nil && msg.gen == p.run.gen {
			p.run.events = false
		}
		return p, nil
	case runDoneMsg:
		if p.run == nil || msg.gen != p.run.gen {
			return p, nil
		}
		p.run.done = true
		o := msg.outcome
		p.run.outcome = &o
		if p.last != nil && p.last.gen == msg.gen {
			p.last.done = true
		}
		p.run.cancel() // releases the pause reader
		p.pause, p.editMode = nil, 0
		p.SetSize(p.width, p.height)
		switch {
		case o.Err != nil:
			return p, notice(noticeError, "run failed: %s", p.red.RedactString(oneLine(o.Err.Error())))
		case p.summary.ToolFailures > 0 || o.ToolFailures != "":
			return p, notice(noticeWarn, "run finished with %s", plural(max(1, p.summary.ToolFailures), "tool failure"))
		}
		return p, notice(noticeInfo, "run finished")
	case pauseMsg:
		if p.run == nil || msg.gen != p.run.gen || msg.req == nil {
			return p, nil
		}
		p.pause = msg.req
		p.editMode = 0
		p.pauseTab = pauseMessages
		p.follow = true
		p.SetSize(p.width, p.height)
		p.renderPause()
		p.pauseView.GotoTop()
		keys := "c continue · n step · e edit the reply · a abort · v messages/tools"
		if msg.req.Pause.Kind == crew.PauseToolCall {
			keys = "c continue · n step · s skip · e edit arguments · a abort"
		}
		return p, notice(noticeWarn, "paused before %s — %s", pauseWhat(msg.req.Pause), keys)
	case editorDoneMsg:
		switch msg.target {
		case editPauseArgs, editPauseReply:
			if p.pause == nil {
				return p, nil
			}
			p.editor.SetValue(msg.text)
			return p, nil
		}
		return p, nil
	case tea.KeyMsg:
		if p.editMode != 0 {
			return p.updateEdit(msg)
		}
		if p.pause != nil {
			if d, cmd, ok := p.decide(msg); ok {
				return d, cmd
			}
			// Page keys scroll what is about to happen; the rest move the tree.
			switch {
			case key.Matches(msg, p.km.List.PageUp):
				p.pauseView.PageUp()
				return p, nil
			case key.Matches(msg, p.km.List.PageDown):
				p.pauseView.PageDown()
				return p, nil
			case key.Matches(msg, p.km.Pause.View) && p.pause.Pause.Kind == crew.PauseLLMCall:
				p.pauseTab = (p.pauseTab + 1) % 2
				p.renderPause()
				p.pauseView.GotoTop()
				return p, nil
			}
		}
		return p.updateKeys(msg)
	}
	if p.editMode == 1 {
		var cmd tea.Cmd
		p.canned, cmd = p.canned.Update(msg)
		return p, cmd
	}
	if p.editMode > 1 {
		var cmd tea.Cmd
		p.editor, cmd = p.editor.Update(msg)
		return p, cmd
	}
	return p, nil
}

func (p tracePane) updateKeys(k tea.KeyMsg) (tracePane, tea.Cmd) {
	l, t := p.km.List, p.km.Trace
	if p.payloadOpen {
		switch {
		case key.Matches(k, p.km.Global.Back), key.Matches(k, l.Open):
			p.payloadOpen = false
		default:
			l.scroll(&p.payload, k)
		}
		return p, nil
	}
	switch {
	case key.Matches(k, l.Up):
		p.cursor--
		p.follow = false
	case key.Matches(k, l.Down):
		p.cursor++
		p.follow = p.cursor >= len(p.rows)-1
	case key.Matches(k, l.PageUp):
		p.cursor -= p.treeRows()
		p.follow = false
	case key.Matches(k, l.PageDown):
		p.cursor += p.treeRows()
		p.follow = p.cursor >= len(p.rows)-1
	case key.Matches(k, l.Top):
		p.cursor = 0
		p.follow = false
	case key.Matches(k, l.Bottom):
		p.cursor = len(p.rows) - 1
		p.follow = true
	case key.Matches(k, t.Follow):
		p.follow = !p.follow
		if p.follow {
			p.cursor = len(p.rows) - 1
		}
	case key.Matches(k, t.Collapse):
		if n := p.cursorNode(); n != nil {
			if len(n.Children) > 0 && !p.collapsed[n] {
				p.collapsed[n] = true
			} else if n.Parent != nil && n.Parent.Kind != session.NodeRoot {
				// Already folded (or a leaf): go to the parent, like a file tree.
				for i := range p.rows {
					if p.rows[i].n == n.Parent {
						p.cursor = i
					}
				}
			}
			p.follow = false
			p.rebuild()
		}
	case key.Matches(k, t.Expand):
		if n := p.cursorNode(); n != nil && p.collapsed[n] {
			delete(p.collapsed, n)
			p.rebuild()
		}
	case key.Matches(k, t.Toggle):
		if n := p.cursorNode(); n != nil && len(n.Children) > 0 {
			p.collapsed[n] = !p.collapsed[n]
			p.follow = false
			p.rebuild()
		}
	case key.Matches(k, t.Kind):
		p.kind = (p.kind + 1) % kindFilterCount
		p.rebuild()
		return p, notice(noticeInfo, "trace shows %s", kindFilterTitles[p.kind])
	case key.Matches(k, t.Status):
		p.status = (p.status + 1) % statusFilterCount
		p.rebuild()
		return p, notice(noticeInfo, "trace shows %s", statusFilterTitles[p.status])
	case key.Matches(k, t.Stop):
		if p.run != nil && !p.run.done {
			p.Stop()
			return p, notice(noticeWarn, "stopping the run…")
		}
	case key.Matches(k, l.Open):
		if n := p.cursorNode(); n != nil {
			p.payloadOpen = true
			p.payloadNode = n
			p.renderPayload()
			p.payload.GotoTop()
		}
	}
	p.scrollToCursor()
	return p, nil
}

func (p tracePane) cursorNode() *session.Node {
	if p.cursor < 0 || p.cursor >= len(p.rows) {
		return nil
	}
	return p.rows[p.cursor].n
}

func (p tracePane) ShortHelp() []key.Binding {
	l, t, pk := p.km.List, p.km.Trace, p.km.Pause
	switch {
	case p.editMode == 1:
		return []key.Binding{p.km.Input.Done, p.km.Input.Cancel}
	case p.editMode > 1:
		return []key.Binding{pk.Submit, pk.Editor, p.km.Input.Cancel}
	case p.pause != nil:
		out := []key.Binding{pk.Continue, pk.Step}
		if p.pause.Pause.Kind == crew.PauseToolCall {
			out = append(out, pk.Skip)
		}
		out = append(out, pk.Edit, pk.Abort)
		if p.pause.Pause.Kind == crew.PauseLLMCall {
			out = append(out, pk.View)
		}
		return append(out, l.PageDown)
	case p.payloadOpen:
		return []key.Binding{l.Up, l.Down, l.PageDown, p.km.Global.Back}
	}
	out := []key.Binding{l.Up, l.Down, l.Open, t.Collapse, t.Expand, t.Follow, t.Kind, t.Status}
	if p.run != nil && !p.run.done {
		out = append(out, t.Stop)
	}
	return out
}

func (p tracePane) FullHelp() [][]key.Binding {
	l, t, pk := p.km.List, p.km.Trace, p.km.Pause
	return [][]key.Binding{{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom, l.Open},
		{t.Collapse, t.Expand, t.Toggle, t.Follow, t.Kind, t.Status, t.Stop},
		{pk.Continue, pk.Step, pk.Skip, pk.Edit, pk.Abort, pk.View, pk.Submit, pk.Editor}}
}

// banner is the one-line verdict of a finished run: a run that finished
// with tool failures must be unmistakable.
func (p tracePane) banner() string {
	s := p.summary
	switch {
	case p.run != nil && p.run.outcome != nil && p.run.outcome.Err != nil:
		return "✕ RUN FAILED: " + oneLine(p.red.RedactString(p.run.outcome.Err.Error()))
	case s.ToolFailures > 0 && (s.Status != session.StatusRunning || p.run == nil || p.run.done):
		names := make([]string, 0, len(s.FailedTools))
		for _, n := range s.FailedTools {
			label := n.Title
			if n.Outcome != "" && n.Outcome != "failed" {
				label += " (" + n.Outcome + ")"
			}
			names = append(names, label)
		}
		how := "FINISHED WITH"
		if p.run == nil && s.Status == session.StatusFailed {
			// A recorded run (or a re-run) that failed outright says so first.
			how = "SESSION FAILED, WITH"
		}
		return fmt.Sprintf("✕ %s %d TOOL FAILURE%s: %s", how, s.ToolFailures, map[bool]string{true: "S", false: ""}[s.ToolFailures != 1], strings.Join(names, "; "))
	case s.ToolFailures > 0:
		return fmt.Sprintf("⚠ %s so far", plural(s.ToolFailures, "tool failure"))
	case p.run != nil && p.run.done:
		return "✓ RUN FINISHED"
	case s.Status == session.StatusFailed:
		return "✕ SESSION FAILED"
	}
	return ""
}

func (p tracePane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	th, ph := p.splitHeights()
	f := p.st.Pane.Blurred
	if p.focused && p.pause == nil {
		f = p.st.Pane.Focused
	}
	var top string
	if p.payloadOpen && p.pause == nil {
		n := p.payloadNode
		top = box(f, p.width, th, p.st.Pane.Title.Render("Payload ")+p.st.Text.Bold.Render(n.Title)+p.st.Text.Subtle.Render("  (esc back)")+"\n"+p.payload.View())
	} else {
		top = p.treeView(f, p.width, th)
	}
	if p.pause == nil {
		return top
	}
	return top + "\n" + p.pauseBox(p.width, ph)
}

func (p tracePane) treeView(f lipgloss.Style, w, h int) string {
	iw, _ := inner(f, w, h)
	s := p.summary
	title := p.st.Pane.Title.Render("Trace")
	meta := ""
	if p.source != "" {
		meta += "  " + p.source
	}
	if p.follow {
		meta += " · following"
	}
	if p.kind != kindAll || p.status != statusAll {
		meta += fmt.Sprintf(" · showing %s, %s", kindFilterTitles[p.kind], statusFilterTitles[p.status])
	}
	title += p.st.Pane.TitleMuted.Render(meta)
	totals := fmt.Sprintf("%s · %s · %s", plural(s.Events, "event"), plural(s.LLMCalls, "LLM call"), plural(s.ToolCalls, "tool call"))
	if s.ToolFailures > 0 {
		totals += p.st.Text.Danger.Render(fmt.Sprintf(" (%d failed)", s.ToolFailures))
	}
	if s.Attempts > 0 {
		totals += fmt.Sprintf(" · %s", plural(s.Attempts, "attempt"))
		if s.Retries > 0 {
			totals += fmt.Sprintf(", %s", plural(s.Retries, "retry"))
		}
	}
	if !s.Usage.IsZero() {
		totals += fmt.Sprintf(" · tokens %d in / %d out", s.Usage.Input, s.Usage.Output)
	}
	if s.Duration > 0 {
		totals += " · " + fmtDur(s.Duration)
	}
	if s.CacheHits+s.Guards+s.UsageLimits > 0 {
		totals += fmt.Sprintf(" · cache %d · guards %d · limits %d", s.CacheHits, s.Guards, s.UsageLimits)
	}
	lines := []string{title, p.st.Text.Muted.Render(totals)}
	if b := p.banner(); b != "" {
		style := p.st.Banner.Failure
		switch {
		case strings.HasPrefix(b, "✓"):
			style = p.st.Banner.OK
		case strings.HasPrefix(b, "⚠"):
			style = p.st.Banner.Warning
		}
		lines = append(lines, style.Render(fit(b, iw-2)))
	}
	if len(p.rows) == 0 {
		msg := "nothing yet: kick off a crew in 5 Kickoff, or open a recorded session in 7 Sessions"
		if p.run != nil && !p.run.done {
			msg = "starting…"
		} else if p.kind != kindAll || p.status != statusAll {
			msg = "no node matches the filter (t / S change it)"
		}
		lines = append(lines, p.st.Text.Muted.Render(msg))
	}
	rows := p.treeRows()
	for i := p.offset; i < min(len(p.rows), p.offset+rows); i++ {
		lines = append(lines, p.rowView(i, iw))
	}
	return box(f, w, h, strings.Join(lines, "\n"))
}

// statusGlyph shows a node's status without colour.
func (p tracePane) statusGlyph(n *session.Node) (string, lipgloss.Style) {
	t := p.st.Trace
	switch n.Status {
	case session.StatusRunning:
		if n.Kind == session.NodeUnknown {
			return "?", t.Cancelled
		}
		return "◌", t.Running
	case session.StatusFailed:
		return "✕", t.Failed
	case session.StatusCancelled:
		return "⊘", t.Cancelled
	}
	return "✓", t.OK
}

func (p tracePane) kindStyle(k session.NodeKind) lipgloss.Style {
	t := p.st.Trace
	switch k {
	case session.NodeCrew:
		return t.Crew
	case session.NodeTask:
		return t.Task
	case session.NodeAgent:
		return t.Agent
	case session.NodeStep:
		return t.Step
	case session.NodeLLM:
		return t.LLM
	case session.NodeTool:
		return t.Tool
	case session.NodeMCPCall:
		return t.MCP
	case session.NodeAttempt:
		return t.Attempt
	}
	return t.Conn
}

func (p tracePane) rowView(i, iw int) string {
	r := p.rows[i]
	n := r.n
	sel := i == p.cursor
	fold := "  "
	if len(n.Children) > 0 {
		if p.collapsed[n] {
			fold = "▸ "
		} else {
			fold = "▾ "
		}
	}
	glyph, gst := p.statusGlyph(n)
	cursor := "  "
	if sel {
		cursor = p.st.Row.Cursor.Render("›") + " "
	}
	indent := strings.Repeat("  ", min(r.depth, 12))
	title := p.kindStyle(n.Kind).Render(n.Title)
	// Badges: each kind of event in its own style, and always in words.
	var badges []string
	badge := func(style lipgloss.Style, text string) { badges = append(badges, style.Render("["+text+"]")) }
	if n.CacheHit {
		badge(p.st.Text.Info, "cache hit")
	}
	if n.GuardTripped {
		badge(p.st.Text.Warning, "guard")
	}
	if n.UsageLimit {
		badge(p.st.Text.Warning, "usage limit")
	}
	if n.Retries > 0 {
		badge(p.st.Trace.Badge, plural(n.Retries, "retry"))
	}
	if n.Orphan() {
		badge(p.st.Text.Subtle, "orphan")
	}
	if (n.Status == session.StatusFailed || n.Status == session.StatusCancelled) && n.Outcome != "" && n.Outcome != "failed" {
		badge(p.st.Text.Danger, n.Outcome)
	}
	badgeText := ""
	if len(badges) > 0 {
		badgeText = " " + strings.Join(badges, " ")
	}
	if n.Status == session.StatusFailed && n.Error != "" && (n.Kind == session.NodeTool || n.Kind == session.NodeMCPCall || n.Kind == session.NodeAttempt) {
		badgeText += " " + p.st.Text.Danger.Render(oneLine(p.red.RedactString(n.Error)))
	}
	right := ""
	if n.Kind == session.NodeLLM || n.Kind == session.NodeCrew {
		if !n.Usage.IsZero() {
			right = fmt.Sprintf("%d tok ", n.Usage.Total)
		}
	}
	switch {
	case n.Duration > 0:
		right += fmtDur(n.Duration)
	case n.Status == session.StatusRunning && n.Started && !n.Start.IsZero() && p.run != nil && !p.run.done:
		right += "…"
	}
	right = p.st.Trace.Duration.Render(right)
	left := cursor + indent + fold + gst.Render(glyph) + " " + title + badgeText
	rw := ansi.StringWidth(right)
	line := pad(left, max(0, iw-rw-1)) + " " + right
	if sel && p.focused && p.pause == nil {
		return p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
	}
	return pad(line, iw)
}

// renderPayload shows every event of the cursor node, redacted.
func (p *tracePane) renderPayload() {
	n := p.payloadNode
	if n == nil {
		return
	}
	st := p.st.Text
	var b []string
	kv := func(k, v string) { b = append(b, st.Muted.Render(pad(k, 12))+" "+v) }
	glyph, _ := p.statusGlyph(n)
	kv("node", fmt.Sprintf("%s %s (%s)", glyph, n.Title, n.Kind))
	kv("status", n.Status.String())
	if n.Duration > 0 {
		kv("duration", fmtDur(n.Duration))
	}
	if n.Span != "" {
		kv("span", n.Span)
	}
	if n.Error != "" {
		kv("error", st.Danger.Render(p.red.RedactString(n.Error)))
	}
	if !n.Usage.IsZero() {
		kv("tokens", fmt.Sprintf("%d in · %d out · %d total", n.Usage.Input, n.Usage.Output, n.Usage.Total))
	}
	for _, ev := range n.Events {
		ev = p.red.RedactEvent(ev)
		b = append(b, "", st.Heading.Render(fmt.Sprintf("%s %s", ev.Time.Format("15:04:05.000"), ev.Kind)))
		if ev.Outcome != "" {
			kv("outcome", ev.Outcome)
		}
		if ev.Error != "" {
			kv("error", st.Danger.Render(ev.Error))
		}
		if ev.Duration > 0 {
			kv("duration", fmtDur(ev.Duration))
		}
		if len(ev.Data) > 0 {
			b = append(b, printable(indentJSON(ev.Data)))
		}
	}
	p.payload.SetContent(wrapText(strings.Join(b, "\n"), p.payload.Width))
}
