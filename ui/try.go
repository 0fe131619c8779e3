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

	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
	"crewbench/mcpconn/cmdline"
	"crewbench/session"
)

// tryPane calls one tool with a form generated from its schema, under a
// chosen call policy, and shows every attempt as it happens.
type tryPane struct {
	st   *Styles
	km   *KeyMap
	deps Deps
	d    *serverData

	server   string
	toolName string
	tool     *mcpconn.Tool
	spec     mcpconn.ServerSpec
	formErr  string
	// model is CrewAI's argument model for the tool; preview what it does
	// to the arguments being edited (try_preview.go).
	model   *toolschema.Model
	preview tryPreview

	fields   []formField
	settings [setCount]textinput.Model
	policy   int // index into policyChoices
	cursor   int // row: fields…, settings…
	editing  bool
	raw      bool
	rawText  textarea.Model
	rawErr   string

	// the call in flight or last made
	callID   int
	eventsCh <-chan session.Event
	running  bool
	cancel   context.CancelFunc
	started  time.Time
	timeline []string
	attempt  int // attempt in progress (0 none)
	// maxAttempts is the call's attempt limit under its policy.
	maxAttempts int
	attStart    time.Time
	result      *mcpconn.CallResult
	command     string
	// confirming is set while a destructive tool's call waits for the
	// user's second r.
	confirming bool
	out        viewport.Model
	// asker hands the running call's server questions to the pane; ask
	// is the one being answered (it takes the form's place).
	asker callAsker
	ask   askForm

	width, height int
	focused       bool
}

func newTryPane(st *Styles, km *KeyMap, deps Deps) tryPane {
	p := tryPane{st: st, km: km, deps: deps, out: viewport.New(0, 0)}
	for i := range p.settings {
		ti := textinput.New()
		ti.Prompt = ""
		ti.TextStyle = st.Text.Normal
		ti.PlaceholderStyle = st.Text.Subtle
		p.settings[i] = ti
	}
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.CharLimit = 0
	p.rawText = ta
	return p
}

func (p *tryPane) SetSize(w, h int) {
	p.width, p.height = w, h
	fw, fh, rw, rh := p.split()
	iw, ih := inner(p.st.Pane.Focused, fw, fh)
	for i := range p.fields {
		p.fields[i].input.Width = max(1, iw-24)
	}
	for i := range p.settings {
		p.settings[i].Width = max(1, iw-24)
	}
	p.rawText.SetWidth(max(1, iw))
	p.rawText.SetHeight(max(1, ih-3-previewRows))
	riw, rih := inner(p.st.Pane.Blurred, rw, rh)
	p.out.Width, p.out.Height = riw, max(1, rih-1)
	p.renderOut()
}

// split returns the form box and the result box sizes: side by side on
// wide screens, stacked otherwise.
func (p tryPane) split() (fw, fh, rw, rh int) {
	if p.width >= 120 {
		l, r := splitH(p.width, 0.5, 50, 50)
		return l, p.height, r, p.height
	}
	t, b := splitV(p.height, 0.5, 8, 6)
	return p.width, t, p.width, b
}

func (p *tryPane) Focus() { p.focused = true }
func (p *tryPane) Blur() {
	p.focused = false
	p.confirming = false
	p.stopEditing()
}
func (p tryPane) CapturesInput() bool { return p.editing || p.ask.editing }

func (p *tryPane) stopEditing() {
	p.editing = false
	for i := range p.fields {
		p.fields[i].input.Blur()
	}
	for i := range p.settings {
		p.settings[i].Blur()
	}
	p.rawText.Blur()
}

// SetServers keeps the open tool current when its server lists again.
func (p *tryPane) SetServers(d *serverData) {
	p.d = d
	if p.server == "" {
		return
	}
	if disc := d.discovery(p.server); disc != nil {
		if t, ok := disc.Tool(p.toolName); ok && p.tool == nil {
			p.open(t)
		}
	}
}

// Open prepares a call of server's tool.
func (p *tryPane) Open(d *serverData, server, tool string) {
	p.d = d
	if p.running && p.cancel != nil {
		p.cancel()
	}
	p.answerAsk(askReply{elicit: mcpconn.ElicitResponse{Action: mcpconn.ElicitCancel}})
	p.server, p.toolName, p.tool = server, tool, nil
	p.spec, _ = d.spec(server)
	p.result, p.timeline, p.command, p.running, p.confirming = nil, nil, "", false, false
	p.raw, p.rawErr = false, ""
	if disc := d.discovery(server); disc != nil {
		if t, ok := disc.Tool(tool); ok {
			p.open(t)
		}
	}
	p.renderOut()
}

func (p *tryPane) open(t mcpconn.Tool) {
	tt := t
	p.tool = &tt
	p.model, p.preview = toolModel(t), tryPreview{}
	p.fields, p.formErr = nil, ""
	fs, err := buildForm(t.InputSchema, p.st)
	if err != nil {
		p.formErr = err.Error()
		p.raw = true
	}
	p.fields = fs
	p.cursor = 0
	p.policy = 0
	for i := range p.settings {
		p.settings[i].SetValue("")
	}
	p.refreshPlaceholders()
	if args, err := formArgs(p.fields); err == nil || len(args) > 0 {
		p.rawText.SetValue(indentJSON(args))
	}
	p.refreshPreview()
	p.SetSize(p.width, p.height)
}

func (p tryPane) rows() int { return len(p.fields) + setCount }

// args returns the arguments from the form or the raw JSON.
func (p tryPane) args() (map[string]any, error) {
	if p.raw {
		v, ok, err := decodeJSONValue(p.rawText.Value())
		if err != nil {
			return nil, err
		}
		m, isObj := v.(map[string]any)
		if !ok || !isObj {
			return nil, fmt.Errorf("arguments must be a JSON object")
		}
		return m, nil
	}
	return formArgs(p.fields)
}

func (p tryPane) update(msg tea.Msg) (tryPane, tea.Cmd) {
	switch msg := msg.(type) {
	case callEventsMsg:
		if msg.id != p.callID {
			return p, nil
		}
		for _, ev := range msg.events {
			p.absorb(ev)
		}
		p.renderOut()
		if p.running {
			p.out.GotoBottom() // follow the attempts as they happen
		}
		return p, waitForCallEvents(msg.id, p.eventsCh)
	case callEventsClosedMsg:
		return p, nil
	case callTickMsg:
		if msg.id != p.callID || !p.running {
			return p, nil
		}
		p.renderOut()
		p.out.GotoBottom()
		return p, tickCall(msg.id)
	case askMsg:
		if msg.id != p.callID || msg.q == nil {
			if msg.q != nil {
				msg.q.reply <- askReply{elicit: mcpconn.ElicitResponse{Action: mcpconn.ElicitCancel}}
			}
			return p, nil
		}
		p.openAsk(msg.q)
		return p, tea.Batch(waitForAsk(msg.id, p.asker), notice(noticeWarn, "the server asks something (beyond CrewAI): answer in the form"))
	case callDoneMsg:
		if msg.id != p.callID {
			return p, nil
		}
		p.answerAsk(askReply{elicit: mcpconn.ElicitResponse{Action: mcpconn.ElicitCancel}})
		p.running, p.attempt = false, 0
		p.result = msg.res
		p.renderOut()
		p.out.GotoTop()                  // the outcome and the attempts come first
		return p, resolved(topicTryCall) // "cancelling the call…" is over
	case copiedMsg:
		if msg.err != nil {
			return p, notice(noticeWarn, "copy: %v", msg.err)
		}
		if msg.viaTerminal {
			return p, notice(noticeInfo, "asked the terminal to copy the command (OSC 52); if it did not, it is shown below")
		}
		return p, notice(noticeInfo, "copied the crewbench call command")
	case editorDoneMsg:
		p.raw = true
		p.rawText.SetValue(msg.text)
		p.syncFromRaw()
		return p, nil
	case tea.KeyMsg:
		if p.ask.active() {
			return p.updateAsk(msg)
		}
		if p.editing {
			return p.updateEditing(msg)
		}
		return p.updateKeys(msg)
	}
	if p.editing {
		return p.updateInput(msg)
	}
	return p, nil
}

func (p tryPane) updateKeys(k tea.KeyMsg) (tryPane, tea.Cmd) {
	t, l := p.km.Try, p.km.List
	if p.tool == nil {
		return p, nil
	}
	confirmed := p.confirming && key.Matches(k, t.Run)
	if p.confirming && !confirmed {
		p.confirming = false // any other key is a no
		if key.Matches(k, p.km.Global.Back) {
			return p, notice(noticeInfo, "not called")
		}
	}
	switch {
	case key.Matches(k, t.Run):
		if why := destructiveHint(p.tool); why != "" && !confirmed && !p.running && p.argsOK() {
			p.confirming = true
			return p, notice(noticeWarn, "%s may change things (%s): %s calls it anyway, esc does not", p.toolName, why, keyHint(t.Run, "again"))
		}
		p.confirming = false
		return p.run()
	case key.Matches(k, t.Cancel):
		if p.running && p.cancel != nil {
			p.cancel()
			return p, noticeAbout(topicTryCall, noticeWarn, "cancelling the call…")
		}
	case key.Matches(k, t.Raw):
		if p.raw {
			p.syncFromRaw()
			if p.rawErr != "" {
				return p, noticeAbout(topicTryRaw, noticeError, "raw JSON: %s", p.rawErr)
			}
			if p.formErr == "" {
				p.raw = false
			}
			return p, resolved(topicTryRaw)
		}
		args, _ := formArgs(p.fields)
		p.rawText.SetValue(indentJSON(args))
		p.raw = true
		return p, nil
	case key.Matches(k, t.Editor):
		if !p.raw {
			args, _ := formArgs(p.fields)
			p.rawText.SetValue(indentJSON(args))
		}
		return p, p.openEditor()
	case key.Matches(k, t.Copy):
		cmd := p.callCommand()
		p.command = cmd
		p.renderOut()
		return p, copyText(p.deps.Clipboard, p.deps.TerminalCopy, cmd)
	case key.Matches(k, t.Policy):
		p.policy = (p.policy + 1) % len(policyChoices)
		p.refreshPlaceholders()
	case p.raw && key.Matches(k, t.Edit):
		return p, p.startEditing()
	case p.raw:
	case key.Matches(k, l.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(k, l.Down):
		p.cursor = min(p.rows()-1, p.cursor+1)
	case key.Matches(k, l.PageUp):
		p.out.PageUp()
	case key.Matches(k, l.PageDown):
		p.out.PageDown()
	case key.Matches(k, t.Toggle):
		p.toggle(key.Matches(k, t.ToggleBack))
	case key.Matches(k, t.Edit):
		if p.onChoice() {
			p.toggle(false)
			return p, nil
		}
		return p, p.startEditing()
	}
	return p, nil
}

// argsOK reports whether the call's arguments are complete: only then is
// it worth asking before a destructive call (run says what is missing).
func (p tryPane) argsOK() bool {
	_, err := p.args()
	// A refused call is not made. refreshPreview is a no-op unless the
	// arguments changed.
	p.refreshPreview()
	return err == nil && p.preview.refusal == ""
}

// onChoice reports whether the cursor is on a row that is chosen rather
// than typed (a boolean, an enum, the policy).
func (p tryPane) onChoice() bool {
	if p.cursor < len(p.fields) {
		k := p.fields[p.cursor].kind
		return k == kindBool || k == kindEnum
	}
	return p.cursor-len(p.fields) == setPolicy
}

// run starts the call in the background.
func (p tryPane) run() (tryPane, tea.Cmd) {
	if p.running {
		return p, notice(noticeWarn, "a call is already running (X cancels it)")
	}
	if p.deps.Caller == nil {
		return p, notice(noticeError, "no tool caller configured")
	}
	spec, err := p.callSpec()
	if err != nil {
		return p, notice(noticeError, "%v", err)
	}
	p.refreshPreview()
	if p.preview.refusal != "" {
		return p.refuse(spec) // as CrewAI: the agent gets the error, the server nothing
	}
	args, err := p.args()
	if err != nil {
		return p, noticeAbout(topicTryArgs, noticeError, "arguments: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	p.stopEditing()
	p.callID++
	ctx, cancel := context.WithCancel(p.deps.Ctx)
	p.cancel = cancel
	p.running, p.result, p.timeline, p.attempt = true, nil, nil, 0
	p.started = p.deps.Now()
	p.command = p.callCommand()
	l := mcpconn.CallLimits(spec, mcpconn.EffectivePolicy(spec))
	p.maxAttempts = l.Attempts
	p.timeline = append(p.timeline, p.st.Text.Muted.Render(fmt.Sprintf("%s · call %s × %d attempts · backoff %s · connect %s",
		mcpconn.EffectivePolicy(spec), durOrNone(l.Call), l.Attempts, fmtDur(l.Backoff), fmtDur(l.Connect))))
	ch := make(chan session.Event, 256)
	p.eventsCh = ch
	p.asker = newCallAsker()
	p.renderOut()
	return p, tea.Batch(
		startCall(ctx, p.deps.Caller, p.deps.Calls, p.callID, spec, p.toolName, p.wireArgs(args), ch, p.asker),
		waitForCallEvents(p.callID, ch),
		waitForAsk(p.callID, p.asker),
		tickCall(p.callID),
		resolved(topicTryArgs), resolved(topicTryRaw),
	)
}

// retryBackoff reads a retry's sleep: Event.Duration, session.KeyBackoff
// (ns), or the "backoff_ms" mcpconn emits today.
func retryBackoff(ev session.Event) time.Duration {
	switch {
	case ev.Duration > 0:
		return ev.Duration
	case ev.Int(session.KeyBackoff) > 0:
		return time.Duration(ev.Int(session.KeyBackoff))
	}
	return time.Duration(ev.Int("backoff_ms")) * time.Millisecond
}

func tickCall(id int) tea.Cmd {
	return tea.Tick(200*time.Millisecond, func(time.Time) tea.Msg { return callTickMsg{id: id} })
}

// absorb turns one call event into a timeline line.
func (p *tryPane) absorb(ev session.Event) {
	st := p.st.Text
	red := p.deps.Redactor
	switch session.ScopeKind(ev.Kind) {
	case session.MCPProcessSpawned:
		p.timeline = append(p.timeline, st.Muted.Render(fmt.Sprintf("  spawned pid %d", ev.Int("pid"))))
	case session.MCPProcessExited:
		p.timeline = append(p.timeline, st.Subtle.Render(fmt.Sprintf("  pid %d exited", ev.Int("pid"))))
	case session.MCPConnectionCompleted:
		p.timeline = append(p.timeline, st.Success.Render("  connected")+st.Muted.Render(" in "+fmtDur(ev.Duration)))
	case session.MCPConnectionFailed:
		p.timeline = append(p.timeline, st.Danger.Render("  connect failed ("+ev.Outcome+"): ")+red.RedactString(foldSpaces(ev.Error)))
	case session.MCPAttemptStarted:
		p.attempt, p.attStart = max(ev.Attempt, 1), ev.Time
		if p.attStart.IsZero() {
			p.attStart = p.deps.Now()
		}
	case session.MCPAttemptFinished:
		p.attempt = 0
		limit := ev.Int(session.KeyMaxAttempts)
		if limit == 0 {
			limit = int64(p.maxAttempts) // mcpconn does not say; the policy does
		}
		n := fmt.Sprintf("attempt %d", ev.Attempt)
		if limit > 0 {
			n += fmt.Sprintf("/%d", limit)
		}
		if ev.Outcome == session.OutcomeOK {
			p.timeline = append(p.timeline, st.Success.Render("✓ "+n+" ok")+st.Muted.Render(" in "+fmtDur(ev.Duration)))
		} else {
			line := st.Danger.Render("✕ "+n+" "+ev.Outcome) + st.Muted.Render(" after "+fmtDur(ev.Duration))
			if ev.Error != "" {
				line += " " + red.RedactString(foldSpaces(ev.Error))
			}
			p.timeline = append(p.timeline, line)
		}
	case session.MCPRetryScheduled:
		d := retryBackoff(ev)
		p.timeline = append(p.timeline, st.Warning.Render("↻ retrying in "+fmtDur(d)))
	case session.MCPNotification:
		p.timeline = append(p.timeline, st.Info.Render("  "+notificationLine(ev)))
	case session.MCPStderr:
		p.timeline = append(p.timeline, st.Subtle.Render("  stderr: "+foldSpaces(ev.Str(session.KeyLine))))
	case session.Warning:
		p.timeline = append(p.timeline, st.Warning.Render("  warning: "+ev.Str(session.KeyMessage)))
	case session.MCPServerRequest:
		p.timeline = append(p.timeline, st.Info.Render("  server asked "+red.RedactString(foldSpaces(ev.Str(session.KeyMessage)))))
	}
	const maxTimeline = 400
	if len(p.timeline) > maxTimeline {
		p.timeline = append(p.timeline[:1], p.timeline[len(p.timeline)-maxTimeline+1:]...)
	}
}

// callCommand is the call as a `crewbench call` command line, written with
// the CLI's own flags (cmdline.CallLine): secret env values are referenced
// as shell variables and secret headers redacted, so the command is safe
// to paste anywhere.
func (p tryPane) callCommand() string {
	spec, _ := p.callSpec()
	if len(p.deps.HiddenEnv) > 0 && len(spec.Env) > 0 {
		env := make(map[string]string, len(spec.Env))
		for k, v := range spec.Env {
			if hv, ok := p.deps.HiddenEnv[k]; !ok || hv != v {
				env[k] = v
			}
		}
		spec.Env = env
	}
	args, _ := p.args()
	return cmdline.CallLine(p.deps.SelfCommand, spec, p.toolName, args, p.deps.Redactor)
}

// renderOut rebuilds the result text (on events, ticks and resizes only).
func (p *tryPane) renderOut() {
	if p.out.Width <= 0 {
		return
	}
	st := p.st.Text
	var b []string
	r := p.result
	if r != nil {
		// A finished call opens on its outcome, then how it got there.
		b = append(b, p.verdictLines(r)...)
		b = append(b, "")
	}
	b = append(b, p.timeline...)
	if p.running {
		line := st.Warning.Render("◌ running ") + st.Muted.Render(fmtDur(p.deps.Now().Sub(p.started)))
		if p.attempt > 0 {
			line += st.Muted.Render(fmt.Sprintf(" · attempt %d for %s", p.attempt, fmtDur(p.deps.Now().Sub(p.attStart))))
		}
		b = append(b, line)
	}
	if r != nil {
		b = append(b, "")
		b = append(b, p.contentLines(r)...)
	}
	if p.command != "" {
		b = append(b, "", st.Heading.Render("As a command")+st.Subtle.Render("  (y copies)"))
		b = append(b, commandLines("$ "+p.command, p.out.Width)...)
	}
	if len(b) == 0 {
		b = append(b, st.Muted.Render("r runs the call; the attempts appear here as they happen."))
	}
	p.out.SetContent(wrapText(strings.Join(b, "\n"), p.out.Width))
}

func (p tryPane) ShortHelp() []key.Binding {
	t, l := p.km.Try, p.km.List
	switch {
	case p.tool == nil:
		return nil
	case p.ask.active():
		return p.askHelp()
	case p.editing && p.raw:
		return []key.Binding{t.Editor, p.km.Input.Cancel}
	case p.editing:
		return []key.Binding{p.km.Input.NextField, p.km.Input.Done}
	case p.running:
		return []key.Binding{t.Cancel, l.PageDown}
	}
	out := []key.Binding{t.Run, l.Up, l.Down, t.Edit}
	if p.onChoice() && !p.raw {
		out = append(out, t.Toggle) // only a choice toggles
	}
	return append(out, t.Policy, t.Raw, t.Editor, t.Copy)
}

func (p tryPane) FullHelp() [][]key.Binding {
	t, l := p.km.Try, p.km.List
	return [][]key.Binding{{t.Run, t.Cancel, t.Copy}, {l.Up, l.Down, t.Edit, t.Toggle, t.Policy}, {t.Raw, t.Editor, l.PageUp, l.PageDown}}
}

func (p tryPane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	fw, fh, rw, rh := p.split()
	f := p.st.Pane.Blurred
	if p.focused {
		f = p.st.Pane.Focused
	}
	form := p.formView(f, fw, fh)
	if p.ask.active() {
		form = p.askView(f, fw, fh)
	}
	res := box(p.st.Pane.Blurred, rw, rh, p.st.Pane.Title.Render("Attempts & result")+"\n"+p.out.View())
	if p.width >= 120 {
		return lipgloss.JoinHorizontal(lipgloss.Top, form, res)
	}
	return form + "\n" + res
}
