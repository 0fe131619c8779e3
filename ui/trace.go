package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

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

var statusFilterTitles = [statusFilterCount]string{"any status", "failed", "running/unfinished", "ok"}

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
	// cancelled are the tool calls the user cancelled (not in summary's
	// failures).
	cancelled []*session.Node
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
	pauseTab  int // pauseMessages or pauseTools; for a tool call, pauseSchemaRendered or pauseSchemaRaw
	// anthropic: tool schemas are rendered as CrewAI's Anthropic provider
	// sends them (the workspace's LLM), else as its OpenAI provider does.
	anthropic bool
	editMode  int // 0 none, 1 canned result, 2 args, 3 reply, 4 messages, 5 human feedback
	canned    textinput.Model
	feedback  textinput.Model // a human-input pause's answer
	editor    textarea.Model
	editErr   string

	wlog watchLog // a real CrewAI run's marking and output

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
		payload: viewport.New(0, 0), pauseView: viewport.New(0, 0), canned: ci, editor: ta, feedback: newFeedbackInput(st),
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
	p.feedback.Width = max(1, piw-12)
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
	p.summary, p.cancelled = session.Summary{}, nil
	p.cursor, p.offset, p.follow = 0, 0, true
	p.payloadOpen = false
	p.source = source
	p.pause, p.editMode = nil, 0
	p.wlog = watchLog{}
}

// Load shows a recorded session.
func (p *tracePane) Load(path string, f *session.File) {
	p.LoadEvents(path, f.Events)
}

// LoadEvents shows finished events (a session, a re-run) under source:
// scopes left open are unfinished, not running.
func (p *tracePane) LoadEvents(source string, events []session.Event) {
	p.Stop()
	p.run = nil
	p.reset(source)
	p.add(events)
	p.tree.Finish()
	p.rebuild()
}

// finishRun closes what the run left open once it is over: it returned
// and its event stream is drained (or it has none). While it is live,
// open scopes stay running.
func (p *tracePane) finishRun() {
	if p.run == nil || !p.run.done || (p.run.events && p.run.handle != nil && p.run.handle.Events != nil) {
		return
	}
	p.tree.Finish()
	p.rebuild()
}

// Append adds events to the tree and refreshes the visible rows. Cost:
// O(events) to add, O(nodes) to re-flatten; View stays O(height).
func (p *tracePane) Append(evs ...session.Event) {
	p.add(evs)
	p.rebuild()
}

// add puts events in the tree and the window log, without rebuilding rows.
func (p *tracePane) add(evs []session.Event) {
	for _, ev := range evs {
		p.tree.Add(ev)
		p.wlog.observe(ev)
	}
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
	p.summary, p.cancelled = splitCancelled(p.tree.Summary())
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
		return n.Status == session.StatusRunning || n.Status == session.StatusUnfinished
	case statusOK:
		return n.Status == session.StatusOK
	}
	return true
}

func (p tracePane) treeRows() int {
	th, _ := p.splitHeights()
	iw, ih := inner(p.st.Pane.Focused, p.width, th-p.outputHeight(th))
	rows := ih - 2 - len(p.bannerLines(iw)) // title, totals and the banner
	return max(1, rows)
}

func (p *tracePane) scrollToCursor() {
	p.cursor = clamp(p.cursor, 0, len(p.rows)-1)
	p.offset = window(p.cursor, p.offset, p.treeRows(), len(p.rows))
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
		next := waitForRunEvents(msg.gen, p.run.handle.Events)
		if p.noteUnmatched(msg.events) && p.run.done {
			// The run's end was announced already: say it now.
			return p, tea.Batch(next, p.unmatchedNotice())
		}
		return p, next
	case runEventsClosedMsg:
		if p.run != nil && msg.gen == p.run.gen {
			p.run.events = false
			p.finishRun()
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
		p.finishRun()
		p.SetSize(p.width, p.height)
		switch {
		case o.Err != nil:
			return p, notice(noticeError, "run failed: %s", p.red.RedactString(foldSpaces(o.Err.Error())))
		case p.summary.ToolFailures > 0 || o.ToolFailures != "":
			return p, notice(noticeWarn, "run finished with %s", pluralize(max(1, p.summary.ToolFailures), "tool failure"))
		case len(p.run.unmatched) > 0:
			return p, p.unmatchedNotice()
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
		if msg.req.Pause.Kind == crew.PauseHumanInput {
			p.feedback.SetValue("")
			return p, tea.Batch(p.askHuman(), notice(noticeWarn, "the agent asks for feedback on its final answer — type it and press enter; an empty enter accepts"))
		}
		keys := p.km.Pause.hints(msg.req.Pause.Kind == crew.PauseToolCall, p.realRun())
		if msg.req.Pause.Kind == crew.PauseLLMCall || p.schemaToggles() {
			keys += " · " + keyHint(p.km.Pause.View)
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
		if p.editMode == humanInputMode {
			return p.updateHumanInput(msg)
		}
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
			case key.Matches(msg, p.km.Pause.View) && (p.pause.Pause.Kind == crew.PauseLLMCall || p.schemaToggles()):
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
	if p.editMode == humanInputMode {
		var cmd tea.Cmd
		p.feedback, cmd = p.feedback.Update(msg)
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
	case key.Matches(k, p.km.Watch.Output) && (p.wlog.real || p.realRun()):
		return p.toggleOutput()
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
	case p.editMode == humanInputMode:
		return []key.Binding{pk.Feedback, l.PageDown}
	case p.pause != nil && p.pause.Pause.Kind == crew.PauseHumanInput:
		return []key.Binding{pk.Continue, pk.Edit, pk.Abort, l.PageDown}
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
		if p.pause.Pause.Kind == crew.PauseLLMCall || p.schemaToggles() {
			out = append(out, pk.View)
		}
		return append(out, l.PageDown)
	case p.payloadOpen:
		return []key.Binding{l.Up, l.Down, l.PageDown, p.km.Global.Back}
	}
	out := []key.Binding{l.Up, l.Down, l.Open}
	// Only the fold that applies to the node under the cursor: expand a
	// folded one; fold an open one, or go up from a leaf.
	if n := p.cursorNode(); n != nil {
		switch {
		case len(n.Children) > 0 && p.collapsed[n]:
			out = append(out, t.Expand)
		case len(n.Children) > 0 || n.Parent != nil && n.Parent.Kind != session.NodeRoot:
			out = append(out, t.Collapse)
		}
	}
	out = append(out, t.Follow, t.Kind, t.Status)
	if p.wlog.real || p.realRun() {
		out = append(out, p.km.Watch.Output)
	}
	if p.run != nil && !p.run.done {
		out = append(out, t.Stop)
	}
	return out
}

func (p tracePane) FullHelp() [][]key.Binding {
	l, t, pk := p.km.List, p.km.Trace, p.km.Pause
	return [][]key.Binding{{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom, l.Open},
		{t.Collapse, t.Expand, t.Toggle, t.Follow, t.Kind, t.Status, t.Stop},
		{pk.Continue, pk.Step, pk.Skip, pk.Edit, pk.View, pk.Submit, pk.Editor, pk.Feedback}, // pk.Abort is t.Stop's X
		{p.km.Watch.Output, p.km.Watch.Messages, p.km.Watch.NoSkip}}
}
