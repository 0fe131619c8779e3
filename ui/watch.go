package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew"
	"crewbench/crew/bridge"
	"crewbench/crew/llm"
	"crewbench/mcpconn/cmdline"
	"crewbench/session"
)

// Watched runs: the project's own command (crewai run, uv run run_crew,
// python -m pkg.main) run with crewbench's Python bridge, shown in 6 Trace
// like a kickoff. The run reuses the kickoff machinery — the same
// RunHandle, ChanStepper and pause panel — and only adds what a real
// CrewAI run has and an engine run has not: the process's output, the
// "real CrewAI" marking, and the narrower set of decisions CrewAI's hooks
// allow at an LLM call.

// WatchCommand is one way to run the project's own crew.
type WatchCommand struct {
	Argv []string
	// Why says where it was detected ("pyproject.toml [project.scripts] run_crew").
	Why string
}

// WatchRequest starts one watched run.
type WatchRequest struct {
	Command []string
	// Stepper decides the pauses (a crew.ChanStepper); its breakpoints are
	// what the bridge asks at.
	Stepper crew.Stepper
}

// WatchStart is a watched run to start when the workbench opens.
type WatchStart struct {
	Command     []string
	Breakpoints crew.Breakpoints
}

// Watcher runs the project's own command under the bridge (crew/bridge
// behind an adapter in the composition root).
type Watcher interface {
	// Commands are the commands detected in the project, best first.
	Commands() []WatchCommand
	// Start spawns the command. Cancelling ctx ends its process group.
	Start(ctx context.Context, req WatchRequest) (*RunHandle, error)
}

// WatchKeys drive watched runs (5 Kickoff and 6 Trace).
type WatchKeys struct {
	// Start watches the command in 5 Kickoff; Next picks the next detected one.
	Start, Next key.Binding
	// Output shows or hides the process's output pane in 6 Trace.
	Output key.Binding
	// Messages (e at an LLM-call pause of a real run) edits the messages
	// about to be sent; NoSkip says why s does nothing there.
	Messages, NoSkip key.Binding
}

func defaultWatchKeys() WatchKeys {
	return WatchKeys{
		Start:    kb([]string{"w"}, "w", "watch your command"),
		Next:     kb([]string{"d"}, "d", "next detected command"),
		Output:   kb([]string{"o"}, "o", "process output"),
		Messages: kb([]string{"e"}, "e", "edit messages (real run)"),
		NoSkip:   kb([]string{"s"}, "s", "real run: no LLM skip/reply (CrewAI's hooks only block a call)"),
	}
}

// realLLMLimits is why a real run's LLM-call pause offers less than an
// engine run's.
const realLLMLimits = "a real CrewAI run cannot skip an LLM call or replace its reply: CrewAI's hooks can only " +
	"block a call, which fails the agent's attempt. Edit the messages instead (e)."

// startWatchMsg asks the root to start a watched run.
type startWatchMsg struct {
	argv []string
	bp   crew.Breakpoints
}

// watchAsRunner lets a watched run go through the kickoff path.
type watchAsRunner struct {
	w    Watcher
	argv []string
}

func (r watchAsRunner) Crews() []CrewInfo { return nil }

func (r watchAsRunner) Start(ctx context.Context, req KickoffRequest) (*RunHandle, error) {
	return r.w.Start(ctx, WatchRequest{Command: r.argv, Stepper: req.Stepper})
}

// start starts a kickoff (startRunMsg) or a watched run (startWatchMsg).
func (p *tracePane) start(ctx context.Context, deps Deps, msg tea.Msg) tea.Cmd {
	if w, ok := msg.(startWatchMsg); ok {
		return p.StartWatch(ctx, deps.Watcher, w)
	}
	return p.StartRun(ctx, deps.Runner, msg.(startRunMsg))
}

// startInitialWatch starts the watched run the workbench opened on
// (crewbench watch -- COMMAND); nil when there is none.
func startInitialWatch(w *WatchStart) tea.Cmd {
	if w == nil {
		return nil
	}
	return emit(startWatchMsg{argv: w.Command, bp: w.Breakpoints})
}

// StartWatch starts a watched run of argv with the kickoff's breakpoints.
func (p *tracePane) StartWatch(ctx context.Context, w Watcher, msg startWatchMsg) tea.Cmd {
	if w == nil {
		return notice(noticeError, "watching a real CrewAI run is not available here")
	}
	if len(msg.argv) == 0 {
		return notice(noticeError, "no command to watch: type one in 5 Kickoff (e.g. uv run run_crew)")
	}
	gen := p.gen
	label := cmdline.Join(msg.argv) + " (real CrewAI)"
	cmd := p.StartRun(ctx, watchAsRunner{w: w, argv: msg.argv}, startRunMsg{req: KickoffRequest{Crew: label}, bp: msg.bp})
	if p.gen != gen {
		p.run.real = true
	}
	return cmd
}

// realRun reports whether the trace's run is a watched real CrewAI run.
func (p tracePane) realRun() bool { return p.run != nil && p.run.real }

// outputLine is one line the watched process wrote.
type outputLine struct {
	stderr bool
	text   string
}

// maxOutputLines bounds the output pane's memory; the session file keeps
// every line.
const maxOutputLines = 2000

// watchLog is what the trace keeps of a real CrewAI run besides the tree:
// who connected (the marking) and the process's output. It is filled from
// the events, so a recorded watch session shows the same.
type watchLog struct {
	real          bool
	crewai, pyver string
	lines         []outputLine
	dropped       int
	hidden        bool
}

func (l *watchLog) observe(ev session.Event) {
	switch ev.Kind {
	case bridge.KindBridgeConnected:
		if real, _ := ev.Data[bridge.KeyRealCrewAI].(bool); real {
			l.real = true
			l.crewai, _ = ev.Data["crewai_version"].(string)
			l.pyver, _ = ev.Data["python"].(string)
		}
	case bridge.KindProcessOutput:
		stream, _ := ev.Data[bridge.KeyStream].(string)
		text, _ := ev.Data[session.KeyLine].(string)
		l.lines = append(l.lines, outputLine{stderr: stream == "stderr", text: text})
		if n := len(l.lines) - maxOutputLines; n > 0 {
			l.lines = append(l.lines[:0], l.lines[n:]...)
			l.dropped += n
		}
	}
}

// meta is the trace title's marking of a real run.
func (l watchLog) meta() string {
	if !l.real {
		return ""
	}
	s := " · REAL CrewAI run"
	if l.crewai != "" {
		s += " " + l.crewai
	}
	if l.pyver != "" {
		s += " (Python " + l.pyver + ")"
	}
	return s
}

// outputHeight is the output pane's share of the tree's height th: shown
// once the process has written something (or a watched run is live).
func (p tracePane) outputHeight(th int) int {
	if p.wlog.hidden || (len(p.wlog.lines) == 0 && !p.realRun()) || th < 12 {
		return 0
	}
	return max(5, th*3/10)
}

// outputBox shows the latest lines the process wrote, stderr marked.
func (p tracePane) outputBox(w, h int) string {
	f := p.st.Pane.Blurred
	iw, ih := inner(f, w, h)
	title := p.st.Pane.Title.Render("Output") + p.st.Pane.TitleMuted.Render(
		fmt.Sprintf("  stdout/stderr of the command · %s · o hides", pluralize(len(p.wlog.lines)+p.wlog.dropped, "line")))
	lines := []string{title}
	rows := max(0, ih-1)
	if len(p.wlog.lines) == 0 {
		lines = append(lines, p.st.Text.Muted.Render("nothing written yet"))
	}
	for _, l := range p.wlog.lines[max(0, len(p.wlog.lines)-rows):] {
		text := fit(printable(p.red.RedactString(l.text)), iw)
		if l.stderr {
			text = p.st.Text.Warning.Render(text)
		}
		lines = append(lines, text)
	}
	return box(f, w, h, strings.Join(lines, "\n"))
}

// toggleOutput shows or hides the output pane.
func (p tracePane) toggleOutput() (tracePane, tea.Cmd) {
	p.wlog.hidden = !p.wlog.hidden
	p.scrollToCursor()
	if p.wlog.hidden {
		return p, notice(noticeInfo, "output pane hidden (o shows it)")
	}
	return p, nil
}

// editMessagesMode is the pause panel's edit mode for a real run's LLM
// call: the messages about to be sent, as JSON.
const editMessagesMode = 4

// realLLMKey answers e and u at a real run's LLM-call pause: e edits the
// messages (what CrewAI's before-LLM hook can change), u (skip) says why
// an LLM call cannot be skipped.
func (p tracePane) realLLMKey(k tea.KeyMsg) (tracePane, tea.Cmd, bool) {
	if !key.Matches(k, p.km.Watch.Messages) {
		return p, notice(noticeWarn, "%s", realLLMLimits), true
	}
	b, err := json.MarshalIndent(p.pause.Pause.Messages, "", "  ")
	if err != nil {
		return p, notice(noticeError, "messages: %v", err), true
	}
	p.editMode, p.editErr = editMessagesMode, ""
	p.editor.SetValue(string(b))
	p.SetSize(p.width, p.height)
	return p, p.editor.Focus(), true
}

// submitMessages sends the edited messages: the bridge replaces the
// executor's message list with Pause.Messages (bridge.EditMessages).
func (p tracePane) submitMessages() (tracePane, tea.Cmd) {
	var msgs []llm.Message
	if err := json.Unmarshal([]byte(p.editor.Value()), &msgs); err != nil {
		p.editErr = "messages: want a JSON array of {role, content}: " + err.Error()
		return p, nil
	}
	// The bridge reads Pause.Messages once the reply arrives; the channel
	// send orders this write before that read.
	p.pause.Pause.Messages = msgs
	d, cmd, _ := p.reply(crew.Decision{Action: bridge.EditMessages}, fmt.Sprintf("sending %s instead", pluralize(len(msgs), "edited message")))
	return d, cmd
}
