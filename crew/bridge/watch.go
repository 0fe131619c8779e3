package bridge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// Defaults for Options.
const (
	DefaultConnectTimeout = 60 * time.Second       // importing crewai takes ~2 s; `uv run` may sync first
	DefaultGap            = 500 * time.Millisecond // how long a missing sequence number is waited for
	killGrace             = 3 * time.Second        // SIGTERM, then SIGKILL
	drainGrace            = 5 * time.Second        // after the process exits, for the last lines
)

// Options configure a watched run.
type Options struct {
	// Command is the user's command and its arguments: crewai run, uv run
	// run_crew, python -m pkg.main, python main.py.
	Command []string
	// Dir is the project directory the command runs in ("" = current).
	Dir string
	// Env is the command's base environment (nil = os.Environ()).
	Env []string
	// Sink receives every event (CrewAI's, stepping, process output).
	Sink session.Sink
	// RunID is put on every event.
	RunID string
	// Stepper is asked at breakpoints; nil never pauses. Its
	// Breakpoints() (when it has one, like *crew.ChanStepper) are what the
	// bridge matches; otherwise Breakpoints is.
	Stepper     crew.Stepper
	Breakpoints crew.Breakpoints
	// ConnectTimeout is how long the bridge has to connect before a
	// warning (default DefaultConnectTimeout). The run is not ended.
	ConnectTimeout time.Duration
	// Network is "unix" (default) or "tcp" (127.0.0.1, random port).
	Network string
	// Stdin is the command's stdin (nil: none). Stdout and Stderr, when
	// set, get a copy of the command's output as it arrives.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Gap overrides DefaultGap (tests).
	Gap time.Duration
}

// Hello is what a connected bridge reported about its process.
type Hello struct {
	PID           int      `json:"pid"`
	Executable    string   `json:"executable"`
	Python        string   `json:"python"`
	Argv          []string `json:"argv"`
	CrewAIVersion string   `json:"crewai_version"`
	Hooks         bool     `json:"hooks"`
}

// Result describes a finished watched run.
type Result struct {
	// ExitCode is the command's exit status (-1 when a signal ended it).
	ExitCode int
	Signal   string
	// CPU is the command's own user+system time (not its children's).
	CPU time.Duration
	// Bridges are the processes that connected, in order (`crewai run`
	// connects from the CLI process and from the crew's own process).
	Bridges []Hello
	// Events counts the CrewAI events received.
	Events int
	// Completed is set when a crew_kickoff_completed arrived.
	Completed bool
	Aborted   bool
	Warnings  []string
}

// CommandNotFoundError: the command (or Python) is not on PATH.
type CommandNotFoundError struct {
	Name   string
	Python bool
}

func (e *CommandNotFoundError) Error() string {
	if e.Python {
		return fmt.Sprintf("no Python on PATH (looked for %q): install Python 3.10-3.13, or run the crew through "+
			"its environment: crewbench watch -- uv run python -m <pkg>.main", e.Name)
	}
	return fmt.Sprintf("%q is not on PATH: if it is installed in the project's virtualenv, activate it "+
		"(source .venv/bin/activate) or run it through uv: crewbench watch -- uv run %s …", e.Name, e.Name)
}

// CrewAIMissingError: the command's Python cannot import crewai.
type CrewAIMissingError struct {
	Executable string // "" when only the traceback told
	Python     string
}

func (e *CrewAIMissingError) Error() string {
	who := "the command's Python"
	if e.Executable != "" {
		who = fmt.Sprintf("the command's Python (%s, %s)", e.Executable, e.Python)
	}
	return who + " cannot import crewai: run the crew inside the project's environment, e.g. " +
		"crewbench watch -- uv run crewai run, or activate the virtualenv (source .venv/bin/activate) first"
}

// NeverConnectedError: no bridge connected before the command ended.
type NeverConnectedError struct{ ExitCode int }

func (e *NeverConnectedError) Error() string {
	return fmt.Sprintf("the CrewAI bridge never connected (the command exited with status %d): it did not import "+
		"crewai, or ran it in a process that does not inherit PYTHONPATH; its output is kept in the session", e.ExitCode)
}

// ExitError: the command failed or died mid-run.
type ExitError struct {
	Code      int
	Signal    string
	Events    int
	Completed bool
}

func (e *ExitError) Error() string {
	how := fmt.Sprintf("exited with status %d", e.Code)
	if e.Signal != "" {
		how = "was killed by " + e.Signal
	}
	if !e.Completed {
		return fmt.Sprintf("the crew process %s mid-run, after %d CrewAI events (the session keeps everything up to then)", how, e.Events)
	}
	return "the crew process " + how
}

// Run is a watched run in progress.
type Run struct {
	opts    Options
	em      *session.Emitter
	cmd     *exec.Cmd
	ln      net.Listener
	token   string
	tmp     string // the socket's directory, removed at the end
	pyDir   string // the bridge's Python files
	ctx     context.Context
	cancel  context.CancelFunc
	exited  chan struct{}
	waitErr error

	mu         sync.Mutex
	bp         crew.Breakpoints
	conns      []*conn
	res        Result
	missing    *wireMsg
	connected  chan struct{}
	stderrTail []string

	names *crew.SeenNames // the run's tool and server names, when breakpoints name some

	connWG    sync.WaitGroup
	outputWG  sync.WaitGroup
	abortOnce sync.Once
}

type conn struct {
	c  net.Conn
	mu sync.Mutex // one writer at a time
}

func (c *conn) send(m wireOut) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("bridge: encode %s: %w", m.Op, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.c.Write(append(b, '\n'))
	return err
}

// Watch runs opts.Command to the end and reports what happened.
func Watch(ctx context.Context, opts Options) (*Result, error) {
	r, err := Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	return r.Wait()
}

// Start spawns the command with the bridge injected.
func Start(ctx context.Context, opts Options) (*Run, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("watch: no command given (crewbench watch -- crewai run)")
	}
	name := opts.Command[0]
	if !strings.ContainsRune(name, os.PathSeparator) {
		if _, err := exec.LookPath(name); err != nil {
			return nil, &CommandNotFoundError{Name: name, Python: strings.HasPrefix(filepath.Base(name), "python")}
		}
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.Gap <= 0 {
		opts.Gap = DefaultGap
	}
	r := &Run{opts: opts, em: session.NewEmitter(opts.Sink), exited: make(chan struct{}), connected: make(chan struct{})}
	r.bp = opts.Breakpoints
	if s, ok := opts.Stepper.(interface{ Breakpoints() crew.Breakpoints }); ok {
		r.bp = s.Breakpoints()
	}
	r.names = crew.SeenNamesFor(r.bp)
	var err error
	if r.tmp, err = os.MkdirTemp("", "crewbench-watch-"); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	// The bridge's files live in the user's cache, where Python keeps their
	// bytecode from one run to the next; without a usable cache they go in
	// the run's own directory (and are compiled every run).
	r.pyDir = r.tmp
	if base, err := os.UserCacheDir(); err == nil {
		if dir, err := cachedPython(base); err == nil {
			r.pyDir = dir
		}
	}
	if r.pyDir == r.tmp {
		if err := writePython(r.tmp); err != nil {
			r.cleanup()
			return nil, err
		}
	}
	addr, err := r.listen()
	if err != nil {
		r.cleanup()
		return nil, err
	}
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	r.token = hex.EncodeToString(tok)

	cmd := exec.Command(name, opts.Command[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = r.env(addr)
	cmd.Stdin = opts.Stdin
	ownProcessGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		r.cleanup()
		return nil, fmt.Errorf("watch: %w", err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		r.cleanup()
		return nil, fmt.Errorf("watch: %w", err)
	}
	if err := cmd.Start(); err != nil {
		r.cleanup()
		return nil, fmt.Errorf("watch: start %s: %w", name, err)
	}
	r.cmd = cmd
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.outputWG.Add(2)
	go r.readOutput("stdout", stdout, opts.Stdout)
	go r.readOutput("stderr", stderr, opts.Stderr)
	// The accept loop counts as a connection: Wait's connWG.Wait can then
	// never start while the count is zero and a late Add is coming.
	r.connWG.Add(1)
	go r.accept()
	go func() {
		r.outputWG.Wait() // Wait closes the pipes: read them to the end first
		r.waitErr = cmd.Wait()
		close(r.exited)
	}()
	go r.watchdog(ctx)
	return r, nil
}

func (r *Run) listen() (string, error) {
	if r.opts.Network != "tcp" {
		path := filepath.Join(r.tmp, "bridge.sock")
		if len(path) < 100 { // sun_path is 104-108 bytes
			ln, err := net.Listen("unix", path)
			if err == nil {
				r.ln = ln
				return "unix:" + path, nil
			}
			if r.opts.Network == "unix" {
				return "", fmt.Errorf("watch: listen on %s: %w", path, err)
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // loopback only
	if err != nil {
		return "", fmt.Errorf("watch: listen on 127.0.0.1: %w", err)
	}
	r.ln = ln
	return "tcp:" + ln.Addr().String(), nil
}

func (r *Run) env(addr string) []string {
	base := r.opts.Env
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+4)
	pythonPath := r.pyDir
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PYTHONPATH":
			if v != "" {
				pythonPath += string(os.PathListSeparator) + v
			}
			continue
		case "CREWBENCH_BRIDGE_ADDR", "CREWBENCH_BRIDGE_TOKEN", "PYTHONUNBUFFERED":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PYTHONPATH="+pythonPath, "CREWBENCH_BRIDGE_ADDR="+addr,
		"CREWBENCH_BRIDGE_TOKEN="+r.token, "PYTHONUNBUFFERED=1")
}

func (r *Run) emit(ev session.Event) {
	if ev.RunID == "" {
		ev.RunID = r.opts.RunID
	}
	// Every event passes here, the bridge's and crewbench's own (a pause,
	// a call skipped on the ReAct path): each shows names a breakpoint
	// may match.
	r.names.Event(ev)
	r.em.Emit(ev)
}

func (r *Run) warn(msg string) {
	r.warnEvent(session.Event{Kind: session.Warning, Data: map[string]any{session.KeyMessage: msg}})
}

// warnEvent records a warning event's message in the result and emits it.
func (r *Run) warnEvent(ev session.Event) {
	r.mu.Lock()
	r.res.Warnings = append(r.res.Warnings, ev.Str(session.KeyMessage))
	r.mu.Unlock()
	r.emit(ev)
}

func (r *Run) readOutput(stream string, rd io.Reader, copyTo io.Writer) {
	defer r.outputWG.Done()
	br := bufio.NewReaderSize(rd, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if copyTo != nil {
				_, _ = io.WriteString(copyTo, line)
			}
			text := strings.TrimRight(line, "\r\n")
			if stream == "stderr" {
				r.mu.Lock()
				r.stderrTail = append(r.stderrTail, text)
				if len(r.stderrTail) > 64 {
					r.stderrTail = r.stderrTail[1:]
				}
				r.mu.Unlock()
			}
			r.emit(session.Event{Kind: KindProcessOutput, Data: map[string]any{KeyStream: stream, session.KeyLine: text}})
		}
		if err != nil {
			return
		}
	}
}

// watchdog ends the process group when ctx ends (Ctrl+C), and warns once
// when no bridge has connected within the deadline.
func (r *Run) watchdog(ctx context.Context) {
	t := time.NewTimer(r.opts.ConnectTimeout)
	defer t.Stop()
	connected := r.connected
	for {
		select {
		case <-ctx.Done():
			r.terminate()
			return
		case <-r.exited:
			return
		case <-connected:
			connected = nil // a nil channel never fires again
		case <-t.C:
			select {
			case <-r.connected:
			default:
				r.warn(fmt.Sprintf("the CrewAI bridge has not connected after %s: the command may not import crewai, "+
					"or starts it in a process that drops PYTHONPATH; still recording its output", r.opts.ConnectTimeout))
			}
		}
	}
}

// Abort ends the command's whole process group: SIGTERM, then SIGKILL.
func (r *Run) Abort() {
	r.mu.Lock()
	r.res.Aborted = true
	r.mu.Unlock()
	r.terminate()
}

func (r *Run) terminate() {
	r.abortOnce.Do(func() {
		signalGroup(r.cmd, false)
		go func() {
			select {
			case <-r.exited:
			case <-time.After(killGrace):
				signalGroup(r.cmd, true)
			}
		}()
	})
}

// Wait waits for the command to end and the bridge connections to drain.
func (r *Run) Wait() (*Result, error) {
	<-r.exited
	// Every connection the process made is accepted or waiting in the
	// listener's backlog by now. A short run can exit before accept has
	// taken its one connection: closing the listener then would drop the
	// whole run (or the hello naming the interpreter without crewai).
	deadline := time.Now().Add(drainGrace)
	for !backlogEmpty(r.ln) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// accept returns now, after adding any connection it took.
	_ = r.ln.Close()
	// The bridge flushes at interpreter exit; give its last lines a moment
	// (a process that dies leaves its connection closed already).
	done := make(chan struct{})
	go func() { r.connWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
	}
	r.mu.Lock()
	for _, c := range r.conns {
		_ = c.c.Close()
	}
	r.mu.Unlock()
	<-done
	r.cancel()
	r.cleanup()
	r.warnUnmatchedBreakpoints()

	res := r.result()
	r.emit(session.Event{Kind: KindProcessExited, Data: map[string]any{"exit_code": res.ExitCode, "signal": res.Signal}})
	return res, r.failure(res)
}

// warnUnmatchedBreakpoints reports, once the run is over, each tool= and
// server= breakpoint that names none of the tools and servers it showed.
// Not for a run that was aborted or had no bridge with hooks: there
// breakpoints were cut short or off, and that is said already.
func (r *Run) warnUnmatchedBreakpoints() {
	r.mu.Lock()
	hooked := slices.ContainsFunc(r.res.Bridges, func(h Hello) bool { return h.Hooks })
	aborted := r.res.Aborted
	r.mu.Unlock()
	if !hooked || aborted {
		return
	}
	for _, u := range r.names.Unmatched(r.bp) {
		r.warnEvent(u.Event())
	}
}

func (r *Run) result() *Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.res
	res.ExitCode = 0
	if ps := r.cmd.ProcessState; ps != nil {
		res.CPU = ps.UserTime() + ps.SystemTime()
	}
	var ee *exec.ExitError
	if errors.As(r.waitErr, &ee) {
		res.ExitCode = ee.ExitCode()
		if res.ExitCode < 0 {
			res.Signal = signalName(ee)
		}
	}
	return &res
}

func (r *Run) failure(res *Result) error {
	r.mu.Lock()
	missing := r.missing
	tail := strings.Join(r.stderrTail, "\n")
	r.mu.Unlock()
	switch {
	case res.Aborted:
		return crew.ErrAborted
	case len(res.Bridges) == 0 && missing != nil:
		return &CrewAIMissingError{Executable: missing.Executable, Python: missing.Python}
	case len(res.Bridges) == 0 && strings.Contains(tail, "No module named 'crewai'"):
		return &CrewAIMissingError{}
	case len(res.Bridges) == 0:
		return &NeverConnectedError{ExitCode: res.ExitCode}
	case res.ExitCode != 0:
		return &ExitError{Code: res.ExitCode, Signal: res.Signal, Events: res.Events, Completed: res.Completed}
	}
	return nil
}

func (r *Run) cleanup() {
	if r.tmp != "" {
		_ = os.RemoveAll(r.tmp)
	}
}

func (r *Run) accept() {
	defer r.connWG.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.connWG.Add(1)
		go r.serve(&conn{c: c})
	}
}

// serve reads one bridge connection: the hello, then events, warnings and
// pause requests, delivered in the bridge's emit-time order.
func (r *Run) serve(c *conn) {
	defer r.connWG.Done()
	lines := make(chan []wireMsg, 16)
	go readLines(c.c, lines)
	defer func() {
		// A connection refused or given up early may have more lines in
		// flight: closing ends the reader, and draining lets a reader
		// blocked on a full channel see that, so it never outlives serve.
		_ = c.c.Close()
		for range lines {
		}
	}()
	opening, ok := <-lines
	if !ok {
		return
	}
	hello := opening[0]
	if hello.Op != "hello" || hello.Token != r.token {
		r.warn("refused a bridge connection with a wrong token")
		return
	}
	if hello.CrewAIMissing {
		r.mu.Lock()
		r.missing = &hello
		r.mu.Unlock()
		return
	}
	r.mu.Lock()
	bp := toWire(r.bp)
	r.conns = append(r.conns, c)
	r.res.Bridges = append(r.res.Bridges, Hello{PID: hello.PID, Executable: hello.Executable, Python: hello.Python,
		Argv: hello.Argv, CrewAIVersion: hello.CrewAIVersion, Hooks: hello.Hooks})
	first := len(r.res.Bridges) == 1
	r.mu.Unlock()
	if first {
		close(r.connected)
	}
	if err := c.send(wireOut{Op: "config", Breakpoints: &bp}); err != nil {
		r.warn(fmt.Sprintf("bridge (pid %d): %v", hello.PID, err))
		return
	}
	connected := map[string]any{
		"python": hello.Python, "executable": hello.Executable, "crewai_version": hello.CrewAIVersion,
		"hooks": hello.Hooks, "pid": hello.PID, "argv": hello.Argv, KeyRealCrewAI: true,
	}
	if hello.EventClasses > 0 { // only a bridge that registers a handler per class counts them
		connected["event_classes"] = hello.EventClasses
	}
	r.emit(session.Event{Kind: KindBridgeConnected, Data: connected})
	if !hello.Hooks {
		r.warn(fmt.Sprintf("crewai %s in %s has no execution-hooks API: watching events only, breakpoints are off",
			hello.CrewAIVersion, hello.Executable))
	}

	r.follow(c, newTranslator(r.opts.RunID, strconv.Itoa(hello.PID)), newReorder(r.opts.Gap), opening[1:], lines)
}

// readLines decodes a connection's lines and sends them on in batches:
// every line already read is decoded before the batch goes, so a burst
// costs one hand-over, and a line is never held back waiting for more.
func readLines(rd io.Reader, out chan<- []wireMsg) {
	defer close(out)
	br := bufio.NewReaderSize(rd, 256<<10)
	dec := newLineDecoder()
	var batch []wireMsg
	var long []byte // a line longer than br's buffer
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if len(b) > 0 {
			batch = dec.decode(b, batch) // decode copies what it keeps: b is br's
		}
		if cap(long) > 1<<20 {
			long = nil
		}
		if len(batch) > 0 && (err != nil || len(batch) >= 256 || !lineBuffered(br)) {
			out <- batch
			batch = nil
		}
		if err != nil {
			return
		}
	}
}

// lineBuffered reports whether br holds a whole line already.
func lineBuffered(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// follow delivers a connection's messages in the bridge's emit-time order
// until the connection ends: first, then each batch that comes.
func (r *Run) follow(c *conn, tr *translator, ro *reorder, first []wireMsg, lines <-chan []wireMsg) {
	deliverAll := func(out []wireMsg) {
		for _, m := range out {
			r.deliver(c, tr, m)
		}
	}
	pushAll := func(batch []wireMsg) {
		now := time.Now()
		for _, m := range batch {
			deliverAll(ro.push(m, now)) // read before the next push reuses it
		}
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	pushAll(first)
	for {
		if d := ro.waiting(time.Now()); d > 0 {
			timer.Reset(d)
		}
		select {
		case batch, ok := <-lines:
			if !ok {
				deliverAll(ro.drain(time.Now(), true))
				return
			}
			pushAll(batch)
		case <-timer.C:
			deliverAll(ro.drain(time.Now(), false))
		}
	}
}

func (r *Run) deliver(c *conn, tr *translator, m wireMsg) {
	switch m.Op {
	case "event":
		ev := tr.event(m)
		r.mu.Lock()
		r.res.Events++
		if ev.Kind == session.CrewKickoffCompleted {
			r.res.Completed = true
		}
		r.mu.Unlock()
		r.emit(ev)
	case "warning":
		r.mu.Lock()
		r.res.Warnings = append(r.res.Warnings, m.Message)
		r.mu.Unlock()
		// detected names what the bridge saw (clear_all_global_hooks,
		// scoped_handlers, api), for a UI to explain it.
		r.emit(session.Event{Kind: session.Warning, Data: map[string]any{session.KeyMessage: m.Message, "detected": m.Detected}})
	case "pause":
		var at toolTarget
		if m.Kind != "llm_call" {
			at = tr.toolPause(m) // here, in delivery order: it reads what came before the pause
		}
		// Decide off this goroutine: events keep flowing while a user thinks.
		go r.pause(c, tr, m, at)
	}
}

// pause asks the stepper and answers the bridge. at is the trace node of a
// tool-call pause.
func (r *Run) pause(c *conn, tr *translator, m wireMsg, at toolTarget) {
	p := &crew.Pause{RunID: r.opts.RunID, TaskName: m.TaskName, AgentRole: m.AgentRole, AfterFailure: m.AfterFailure}
	base := session.Event{TaskName: m.TaskName, AgentRole: m.AgentRole}
	var origMsgs []map[string]any
	if m.Kind == "llm_call" {
		p.Kind, p.Model = crew.PauseLLMCall, m.Model
		_ = json.Unmarshal(m.Messages, &origMsgs)
		p.Messages = toMessages(origMsgs)
	} else {
		p.Kind = crew.PauseToolCall
		p.RequestedName, p.ToolName, p.OriginalName, p.Server = m.DisplayName, m.ToolName, m.OriginalToolName, m.ServerName
		if args, err := pyjson.LoadsObject(string(m.ToolInput)); err == nil {
			p.Args = args
		}
		if schema, err := pyjson.LoadsObject(string(m.ArgsSchema)); err == nil {
			p.Schema = schema
		}
		base.ToolName, base.OriginalToolName, base.Server = m.ToolName, m.OriginalToolName, m.ServerName
		base.Parent = at.parent // beside the call, under its LLM call, as in engine runs
		if at.emitted {
			p.Span = at.span
		}
	}
	paused := base
	paused.Kind = session.StepPaused
	paused.Data = map[string]any{"kind": string(p.Kind), "after_failure": p.AfterFailure, "thread": m.Thread}
	if p.Kind == crew.PauseToolCall {
		var args any
		if json.Unmarshal(m.ToolInput, &args) == nil {
			paused.Data[session.KeyToolArgs] = args // for scripts deciding from a --json stream
		}
	}
	r.emit(paused)

	var skipped []session.Event
	d := crew.Decision{Action: crew.Continue}
	if r.opts.Stepper != nil {
		var err error
		if d, err = r.opts.Stepper.Before(r.ctx, p); err != nil {
			d = crew.Decision{Action: crew.Continue}
		}
	}
	out := wireOut{Op: "decision", ID: m.ID, Action: "continue"}
	switch d.Action {
	case crew.Step:
		out.Step = true
	case crew.EditArgs:
		if d.Args != nil && p.Kind == crew.PauseToolCall {
			out.Action, out.Args = "edit_args", json.RawMessage(pyjson.Dumps(d.Args))
		}
	case crew.Skip:
		if p.Kind == crew.PauseToolCall {
			res := d.Result
			out.Action, out.Result = "skip", &res
			// The trace keeps a node for the call, marked skipped with the
			// supplied result: CrewAI's own tool_usage_finished (native
			// path) is marked when it arrives; the ReAct path emits no tool
			// event, so the node is made here.
			if at.emitted {
				tr.markSkipped(at.span)
			} else {
				skipped = tr.skippedCall(m, at, res)
			}
		} else {
			r.warn("a real CrewAI run cannot skip an LLM call (its hooks can only block it, which fails the attempt); continuing")
		}
	case EditMessages:
		if p.Kind == crew.PauseLLMCall {
			out.Action, out.Messages = "edit_messages", fromMessages(p.Messages, origMsgs)
		}
	case crew.EditReply:
		r.warn("a real CrewAI run cannot replace an LLM reply before the call; continuing")
	case crew.Abort:
		out.Action = "abort"
	}
	resumed := base
	resumed.Kind = session.StepResumed
	resumed.Data = map[string]any{"kind": string(p.Kind), "decision": string(d.Action)}
	r.emit(resumed)
	for _, ev := range skipped {
		r.emit(ev)
	}
	_ = c.send(out)
	if d.Action == crew.Abort {
		r.Abort()
	}
}

// EditMessages is the decision for an LLM-call pause in a watched run: the
// stepper replaced Pause.Messages in place, and the bridge edits the
// executor's message list (CrewAI re-reads it after the hooks).
const EditMessages crew.Action = "edit_messages"

func toMessages(raw []map[string]any) []llm.Message {
	out := make([]llm.Message, 0, len(raw))
	for _, m := range raw {
		out = append(out, llm.Message{Role: llm.Role(str(m["role"])), Content: str(m["content"]),
			ToolCallID: str(m["tool_call_id"]), Name: str(m["name"])})
	}
	return out
}

// fromMessages turns edited messages back into CrewAI's dicts, keeping the
// keys crewbench does not model (tool_calls, cache_breakpoint, …) of every
// message whose role did not change.
func fromMessages(msgs []llm.Message, orig []map[string]any) []map[string]any {
	out := make([]map[string]any, 0, len(msgs))
	for i, m := range msgs {
		d := map[string]any{}
		if i < len(orig) && str(orig[i]["role"]) == string(m.Role) {
			for k, v := range orig[i] {
				d[k] = v
			}
		}
		d["role"], d["content"] = string(m.Role), m.Content
		out = append(out, d)
	}
	return out
}
