// Package ui is the crewbench workbench: a Bubble Tea app over the engine
// packages. It adds no engine logic; it shows what names, mcpconn, crew and
// session compute, and hands user decisions back to them.
//
// Routing (keep this table true):
//
//	message                         goes to
//	tea.WindowSizeMsg               root layout(), then SetSize on every view
//	tea.KeyMsg                      ctrl+c always; a view that CapturesInput gets
//	                                everything else; otherwise global keys, then
//	                                the current view only
//	tea.MouseMsg (wheel)            the current view, as up/down
//	pool events / status            root → serverData, then views' setters
//	call / run / pause / sessions   root → the owning view's methods
//	re-run / compare                root (hands over the playground's filters
//	                                and the last run) → sessions
//	pane intents (show*Msg, …)      root only
//	bubbles internals (blink)       the focused text input's owner
package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"crewbench/mcpconn"
	"crewbench/session"
)

// view is one screen of the workbench.
type view int

const (
	viewServers view = iota
	viewTools
	viewFilter
	viewTry
	viewKickoff
	viewTrace
	viewSessions
	viewCount
)

var viewTitles = [viewCount]string{"Servers", "Tools", "Filter", "Try", "Kickoff", "Trace", "Sessions"}

func (v view) String() string {
	if v >= 0 && v < viewCount {
		return viewTitles[v]
	}
	return fmt.Sprintf("view(%d)", int(v))
}

type noticeLevel int

const (
	noticeInfo noticeLevel = iota
	noticeWarn
	noticeError
)

// Model is the root model.
type Model struct {
	deps Deps
	ctx  context.Context
	st   *Styles
	km   *KeyMap
	help help.Model
	now  func() time.Time
	red  *session.Redactor

	width, height int
	view          view
	showHelp      bool
	showMessage   bool
	notice        noticeMsg
	// fullNotice is the last warning or error, or a notice too long for
	// its line, kept in full for ! to show.
	fullNotice string
	noticeID   int
	quitting   bool
	connecting bool

	srv           *serverData
	statusPending bool

	servers  serversPane
	tools    toolsPane
	filter   filterPane
	try      tryPane
	kickoff  kickoffPane
	trace    tracePane
	sessions sessionsPane
}

// New builds the workbench. Call Init (Bubble Tea does) to start the
// background connects.
func New(deps Deps) Model {
	if deps.Ctx == nil {
		deps.Ctx = context.Background()
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Redactor == nil {
		deps.Redactor = session.DefaultRedactor
	}
	if deps.SelfCommand == "" {
		deps.SelfCommand = "crewbench"
	}
	st := NewStyles(deps.Palette)
	km := DefaultKeyMap()
	h := help.New()
	h.Styles = st.Help
	srv := newServerData(deps.Workspace.Servers)
	m := Model{
		deps: deps, ctx: deps.Ctx, st: st, km: km, help: h, now: deps.Now, red: deps.Redactor,
		srv:        srv,
		connecting: deps.Pool != nil && len(deps.Workspace.Servers) > 0,
	}
	m.servers = newServersPane(st, km, srv, deps)
	m.tools = newToolsPane(st, km, deps.Workspace)
	m.filter = newFilterPane(st, km, deps)
	m.try = newTryPane(st, km, deps)
	m.kickoff = newKickoffPane(st, km, deps.Runner)
	m.kickoff.attachWatcher(deps.Watcher)
	m.trace = newTracePane(st, km, deps.Now, deps.Redactor)
	m.trace.anthropic = strings.HasPrefix(deps.Workspace.LLM, "anthropic/")
	m.sessions = newSessionsPane(st, km, deps)
	if deps.OpenSession != "" || deps.Watch != nil {
		m.view = viewTrace
	}
	if len(deps.Workspace.Notes) > 0 {
		m.notice = noticeMsg{level: noticeWarn, text: deps.Workspace.Notes[0]}
		m.fullNotice = m.notice.text
	}
	m.focusView(m.view)
	return m
}

// Init starts the background work: connecting servers, reading the pool's
// events, listing sessions, and opening a session given on the command line.
func (m Model) Init() tea.Cmd {
	specs := make([]mcpconn.ServerSpec, 0, len(m.deps.Workspace.Servers))
	for _, e := range m.deps.Workspace.Servers {
		specs = append(specs, e.Spec)
	}
	cmds := []tea.Cmd{
		connectAll(m.ctx, m.deps.Pool, specs),
		waitForPoolEvents(m.deps.Events),
		loadStatus(m.deps.Pool),
		listSessions(m.ctx, m.deps.Sessions),
	}
	if m.deps.OpenSession != "" {
		cmds = append(cmds, openSession(m.ctx, m.deps.Sessions, m.deps.OpenSession))
	}
	return tea.Batch(append(cmds, startInitialWatch(m.deps.Watch))...)
}

// Update routes one message (see the table at the top of the file).
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.KeyMsg:
		return m.updateKey(msg)
	case tea.MouseMsg:
		return m.updateMouse(msg)

	case poolEventsMsg:
		var cmd tea.Cmd
		if m.srv.absorb(msg) && !m.statusPending {
			m.statusPending = true
			cmd = loadStatus(m.deps.Pool)
		}
		m.servers.refresh()
		return m, tea.Batch(cmd, waitForPoolEvents(m.deps.Events))
	case poolClosedMsg:
		return m, nil
	case statusMsg:
		m.statusPending = false
		return m, m.applyStatus(msg)
	case connectDoneMsg:
		m.connecting = false
		if msg.err != nil {
			return m, tea.Batch(loadStatus(m.deps.Pool), notice(noticeError, "connect: %v", msg.err))
		}
		return m, loadStatus(m.deps.Pool)
	case reconnectDoneMsg:
		cmd := loadStatus(m.deps.Pool)
		if msg.err != nil {
			return m, tea.Batch(cmd, notice(noticeError, "reconnect %s: %s", msg.server, m.red.RedactString(msg.err.Error())))
		}
		return m, tea.Batch(cmd, notice(noticeInfo, "reconnected %s", msg.server))
	case pingDoneMsg:
		m.srv.setPing(msg.server, msg.rtt, msg.err)
		m.servers.refresh()
		if msg.err != nil {
			return m, notice(noticeWarn, "%s", m.red.RedactString(msg.err.Error()))
		}
		return m, notice(noticeInfo, "ping %s: %s", msg.server, fmtDur(msg.rtt))
	case healthDoneMsg:
		m.srv.health[msg.server] = &msg.res
		m.servers.refresh()
		return m, notice(noticeInfo, "health %s: %s (%s)", msg.server, msg.res.Health, fmtDur(msg.res.Duration))
	case poolShutMsg:
		return m, tea.Quit
	case authStateMsg, loginURLMsg, loginDoneMsg:
		var cmd tea.Cmd
		m.servers, cmd = m.servers.Update(msg)
		return m, cmd

	case noticeMsg:
		return m, m.setNotice(msg)
	case clearNoticeMsg:
		m.clearNotice(msg)
		return m, nil
	case showToolsMsg:
		cmd := m.tools.scopeServer(msg.server)
		viewCmd := m.setView(viewTools)
		return m, tea.Batch(cmd, viewCmd)
	case toolSearchMsg:
		var cmd tea.Cmd
		m.tools, cmd = m.tools.Update(msg)
		return m, cmd
	case showFilterMsg:
		cmd := m.filter.Open(msg.server, m.srv)
		viewCmd := m.setView(viewFilter)
		return m, tea.Batch(cmd, viewCmd)
	case showTryMsg:
		m.try.Open(m.srv, msg.server, msg.tool)
		cmd := m.setView(viewTry)
		return m, cmd
	case showViewMsg:
		cmd := m.setView(msg.v)
		return m, cmd

	case filterResultMsg, exportMsg, writePlanMsg, writeDoneMsg:
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		return m, cmd
	case callDoneMsg:
		var cmd tea.Cmd
		m.try, cmd = m.try.Update(msg)
		switch {
		case msg.recordErr != nil:
			cmd = tea.Batch(cmd, notice(noticeWarn, "the call was not recorded: %s", m.red.RedactString(foldSpaces(msg.recordErr.Error()))))
		case msg.recorded != "":
			// The sessions view lists the recording with this call in it.
			m.sessions.SetCalls(msg.recorded)
			cmd = tea.Batch(cmd, listSessions(m.ctx, m.deps.Sessions))
		}
		return m, cmd
	case callEventsMsg, callEventsClosedMsg, copiedMsg:
		var cmd tea.Cmd
		m.try, cmd = m.try.Update(msg)
		return m, cmd
	case editorReadyMsg:
		if msg.err != nil {
			return m, notice(noticeError, "%v", msg.err)
		}
		return m, runEditor(m.deps.Editor, msg.target, msg.path)
	case editorExitedMsg:
		return m, readEditorFile(msg.target, msg.path, msg.err)
	case editorDoneMsg:
		if msg.err != nil {
			return m, notice(noticeError, "%v", msg.err)
		}
		var cmd tea.Cmd
		switch msg.target {
		case editTryArgs:
			m.try, cmd = m.try.Update(msg)
		default:
			m.trace, cmd = m.trace.Update(msg)
		}
		return m, cmd

	case startRunMsg, startWatchMsg:
		cmd := m.trace.start(m.ctx, m.deps, msg)
		viewCmd := m.setView(viewTrace)
		return m, tea.Batch(cmd, viewCmd)
	case runDoneMsg:
		var cmd tea.Cmd
		m.trace, cmd = m.trace.Update(msg)
		if r := m.trace.run; r != nil && r.gen == msg.gen {
			m.sessions.SetCurrent(msg.outcome.Recorded)
		}
		// The run was recorded: the sessions view lists it.
		return m, tea.Batch(cmd, listSessions(m.ctx, m.deps.Sessions))
	case runStartedMsg, runEventsMsg, runEventsClosedMsg, pauseMsg:
		var cmd tea.Cmd
		m.trace, cmd = m.trace.Update(msg)
		return m, cmd

	case sessionsListedMsg:
		m.sessions.SetList(msg.list, msg.err)
		return m, nil
	case refreshSessionsMsg:
		return m, listSessions(m.ctx, m.deps.Sessions)
	case openSessionMsg:
		return m, openSession(m.ctx, m.deps.Sessions, msg.path)
	case sessionOpenedMsg:
		if msg.err != nil {
			return m, notice(noticeError, "open %s: %v", msg.path, msg.err)
		}
		if r := m.trace.run; r != nil && !r.done {
			return m, notice(noticeWarn, "a run is in progress: stop it (X in 6 Trace) before opening a session")
		}
		m.trace.Load(msg.path, msg.file)
		cmd := m.setView(viewTrace)
		return m, tea.Batch(cmd, notice(noticeInfo, "opened %s (%s)", msg.path, pluralize(len(msg.file.Events), "event")))
	case rerunSetupMsg:
		return m, m.sessions.OpenSetup(msg.path, m.deps.Workspace.Servers, m.filter.Tried())
	case compareRunMsg:
		label, events, done, ok := m.trace.LastRun()
		if !ok {
			return m, notice(noticeWarn, "no run yet in this workbench: kick one off in 5 Kickoff, then compare")
		}
		return m, m.sessions.StartCompare(msg.path, label, events, done)
	case rerunDoneMsg:
		var cmd tea.Cmd
		m.sessions, cmd = m.sessions.Update(msg)
		if msg.res != nil && msg.res.Recording != "" {
			// The re-run was recorded: the list shows it.
			cmd = tea.Batch(cmd, listSessions(m.ctx, m.deps.Sessions))
		}
		return m, cmd
	case rerunEventsMsg, rerunEventsClosedMsg, compareDoneMsg:
		var cmd tea.Cmd
		m.sessions, cmd = m.sessions.Update(msg)
		return m, cmd
	case showEventsMsg:
		if r := m.trace.run; r != nil && !r.done {
			return m, notice(noticeWarn, "a run is in progress: stop it (X in 6 Trace) before opening another trace")
		}
		m.trace.LoadEvents(msg.source, msg.events)
		cmd := m.setView(viewTrace)
		return m, tea.Batch(cmd, notice(noticeInfo, "6 Trace shows the %s (%s)", msg.source, pluralize(len(msg.events), "event")))
	}
	// Anything else (cursor blink, …) belongs to the current view.
	return m.updateCurrent(msg)
}

func (m Model) updateKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	// Keys typed faster than the terminal is read arrive as one message
	// with several runes ("3e"). Outside a text field each rune is a
	// command of its own, so replay them one by one; a rune that opens a
	// text field ("/") sends the rest into it.
	if isRuneBurst(msg) && !m.capturing() {
		var cmds []tea.Cmd
		var model tea.Model = m
		for i, r := range msg.Runes {
			cur := model.(Model)
			if cur.capturing() {
				rest := runesKey(msg.Runes[i:], msg.Alt)
				nm, cmd := cur.updateKey(rest)
				return nm, tea.Batch(append(cmds, cmd)...)
			}
			var cmd tea.Cmd
			model, cmd = cur.updateKey(runesKey([]rune{r}, msg.Alt))
			cmds = append(cmds, cmd)
		}
		return model, tea.Batch(cmds...)
	}
	g := m.km.Global
	if key.Matches(msg, g.ForceQuit) {
		return m.quit()
	}
	if m.quitting {
		return m, nil
	}
	if m.capturing() {
		return m.updateCurrent(msg)
	}
	switch {
	case key.Matches(msg, g.Quit):
		return m.quit()
	case key.Matches(msg, g.Help):
		m.showHelp = !m.showHelp
		m.layout()
		return m, nil
	case key.Matches(msg, g.NextView):
		cmd := m.setView((m.view + 1) % viewCount)
		return m, cmd
	case key.Matches(msg, g.PrevView):
		cmd := m.setView((m.view + viewCount - 1) % viewCount)
		return m, cmd
	case m.showHelp && key.Matches(msg, g.Back):
		m.showHelp = false
		m.layout()
		return m, nil
	case key.Matches(msg, g.Message), m.showMessage && key.Matches(msg, g.Back):
		m.showMessage = !m.showMessage
		return m, nil
	}
	for v := view(0); v < viewCount; v++ {
		if key.Matches(msg, g.Views[v]) {
			cmd := m.setView(v)
			return m, cmd
		}
	}
	return m.updateCurrent(msg)
}

// updateMouse turns wheel motion into up/down for the current view.
func (m Model) updateMouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if msg.Action != tea.MouseActionPress {
		return m, nil
	}
	var k tea.KeyMsg
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		k = wheelUpKey
	case tea.MouseButtonWheelDown:
		k = wheelDownKey
	default:
		return m, nil
	}
	if m.capturing() {
		return m, nil
	}
	return m.updateCurrent(k)
}

func (m Model) updateCurrent(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.view {
	case viewServers:
		m.servers, cmd = m.servers.Update(msg)
	case viewTools:
		m.tools, cmd = m.tools.Update(msg)
	case viewFilter:
		m.filter, cmd = m.filter.Update(msg)
	case viewTry:
		m.try, cmd = m.try.Update(msg)
	case viewKickoff:
		m.kickoff, cmd = m.kickoff.Update(msg)
	case viewTrace:
		m.trace, cmd = m.trace.Update(msg)
	case viewSessions:
		m.sessions, cmd = m.sessions.Update(msg)
	}
	return m, cmd
}

// quit cancels nothing itself: it reaps the servers first (Pool.Close runs
// each shutdown sequence), then exits. A second ctrl+c exits at once; the
// composition root closes the pool again after the program returns.
func (m Model) quit() (tea.Model, tea.Cmd) {
	if m.quitting {
		return m, tea.Quit
	}
	m.quitting = true
	m.notice = noticeMsg{level: noticeInfo, text: "stopping servers…"}
	m.trace.Stop()
	m.sessions.Stop()
	return m, closePool(m.deps.Pool)
}

// setView switches to v and returns what arriving there starts (the
// playground's first evaluation), for the caller to batch.
func (m *Model) setView(v view) tea.Cmd {
	if v == m.view {
		return nil
	}
	m.view = v
	m.showMessage = false
	m.notice = noticeMsg{} // a notice belongs to the view it was made in
	m.layout()
	var cmd tea.Cmd
	if v == viewFilter && !m.filter.chosen {
		// Arriving by tab or digit: show the server selected in 1 Servers.
		if s := m.servers.selected(); s != "" {
			m.filter.load(s, true)
			cmd = m.filter.recompute()
		}
	}
	m.focusView(v)
	return cmd
}

func (m *Model) focusView(v view) {
	m.servers.Blur()
	m.tools.Blur()
	m.filter.Blur()
	m.try.Blur()
	m.kickoff.Blur()
	m.trace.Blur()
	m.sessions.Blur()
	switch v {
	case viewServers:
		m.servers.Focus()
	case viewTools:
		m.tools.Focus()
	case viewFilter:
		m.filter.Focus()
	case viewTry:
		m.try.Focus()
	case viewKickoff:
		m.kickoff.Focus()
	case viewTrace:
		m.trace.Focus()
	case viewSessions:
		m.sessions.Focus()
	}
}

func (m Model) current() interface {
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
	CapturesInput() bool
} {
	switch m.view {
	case viewTools:
		return m.tools
	case viewFilter:
		return m.filter
	case viewTry:
		return m.try
	case viewKickoff:
		return m.kickoff
	case viewTrace:
		return m.trace
	case viewSessions:
		return m.sessions
	}
	return m.servers
}

func (m Model) capturing() bool { return m.current().CapturesInput() }

// applyStatus takes a fresh pool snapshot and hands it to every view that
// shows servers or tools.
func (m *Model) applyStatus(st []mcpconn.ServerStatus) tea.Cmd {
	m.srv.setStatus(st)
	m.servers.refresh()
	cmd := m.tools.SetTools(m.srv)
	m.filter.SetServers(m.srv)
	m.try.SetServers(m.srv)
	return tea.Batch(cmd, m.servers.checkAuth())
}

// noticeTTL is how long an info or warning notice stays in the status bar.
const noticeTTL = 8 * time.Second

// runShutdownGrace bounds the wait for a cancelled run to close its
// recording when the workbench quits.
const runShutdownGrace = 5 * time.Second

// Run runs the workbench until the user quits, then closes the recording
// of its try-a-tool calls and the pool (again: Close is idempotent) so no
// server process outlives it.
func Run(deps Deps, opts ...tea.ProgramOption) error {
	parent := deps.Ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	deps.Ctx = ctx
	if deps.TerminalCopy == nil {
		deps.TerminalCopy = termenv.NewOutput(os.Stdout).Copy // OSC 52
	}
	// Signals are main's alone: Bubble Tea's own handler would block
	// forever sending its QuitMsg once ctx (cancelled by that same signal)
	// has stopped the event loop.
	opts = append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx), tea.WithoutSignalHandler()}, opts...)
	p := tea.NewProgram(New(deps), opts...)
	final, err := p.Run()
	cancel()
	if fm, ok := final.(Model); ok {
		// A run cancelled by quitting still closes its recording.
		fm.trace.waitFinished(runShutdownGrace)
		fm.sessions.waitFinished(runShutdownGrace)
	}
	if deps.Calls != nil {
		// Calls cancelled by quitting still get their verdict recorded.
		_ = deps.Calls.Close()
	}
	if deps.Pool != nil {
		_ = deps.Pool.Close()
	}
	if err != nil && !isCancel(err) {
		return fmt.Errorf("workbench: %w", err)
	}
	return nil
}

func isCancel(err error) bool {
	return err == tea.ErrProgramKilled || strings.Contains(err.Error(), "context canceled")
}
