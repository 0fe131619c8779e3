package mcpconn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// stdioTransport is crewbench's own stdio transport for mcp-go's client.
// mcp-go's transport.Stdio is close, but it (a) signals only the direct
// child on shutdown, so grandchildren (npx → node, uv → python) survive;
// (b) silently skips non-JSON lines on stdout, so a server that writes
// garbage looks like a plain timeout; and (c) reaps the child only in Close,
// so an exit mid-call can't be reported when it happens. This one starts the
// child in its own process group with exactly the environment CrewAI builds,
// shuts it down like the MCP SDK (close stdin, grace, SIGTERM, grace,
// SIGKILL — to the whole group), and reports stderr lines, garbage lines and
// the exit as they happen. mcp-go still does all the protocol work above it.
type stdioTransport struct {
	command string
	args    []string
	env     []string
	grace   time.Duration
	// maxMessage bounds one stdout line (one JSON-RPC message).
	maxMessage int64
	hooks      stdioHooks

	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[string]chan stdioReply

	notifyMu sync.RWMutex
	onNotify func(mcp.JSONRPCNotification)
	onReq    transport.RequestHandler

	done     chan struct{} // closed when stdout ends or Close starts
	doneOnce sync.Once
	exited   chan struct{} // closed after cmd.Wait returns
	exitErr  error
	// escapees remembers descendants that may leave the process group.
	escapees *descendantWatch
	readers  sync.WaitGroup

	closeOnce sync.Once
	startMu   sync.Mutex // orders Start's spawn against Close
	closing   bool       // Close has begun; guarded by startMu
	// expired marks a server that missed a deadline: Close does not give
	// it the full grace period, so the command ends near its deadline.
	expired atomic.Bool
	tailMu  sync.Mutex
	tail    []string // the last few stderr lines, for error messages
	garbage atomic.Int64
	// lastGarbage is the first bytes of the latest non-JSON-RPC stdout line.
	lastGarbage atomic.Value
}

// stdioHooks are called from the transport's goroutines; each must return
// quickly (they emit events).
type stdioHooks struct {
	spawned func(pid int)
	exited  func(pid int, state *os.ProcessState, err error)
	stderr  func(line string)
	garbage func(line string)
	// unreaped is told the pids of descendants still running after Close
	// sent them SIGKILL.
	unreaped func(pids []int)
}

// maxStderrLine caps one reported stderr line; the rest of a longer line is
// dropped (a flood must not turn into one giant event).
const maxStderrLine = 8 << 10

// stdioReply is what a pending request gets: its response, or why none
// can come (a message over the size limit).
type stdioReply struct {
	resp *transport.JSONRPCResponse
	err  error
}

func newStdioTransport(command string, args, env []string, grace time.Duration, maxMessage int64, hooks stdioHooks) *stdioTransport {
	return &stdioTransport{
		command: command, args: args, env: env, grace: grace, maxMessage: maxMessage, hooks: hooks,
		pending: map[string]chan stdioReply{},
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
}

// spawnError marks a failure to start the process (bad command, no such
// file, permission): the spawn_failed outcome class.
type spawnError struct{ err error }

func (e *spawnError) Error() string { return e.err.Error() }
func (e *spawnError) Unwrap() error { return e.err }

// Start spawns the process. The context is not used to bound the child's
// life: only Close ends it (mcp-go gotcha 3).
func (t *stdioTransport) Start(context.Context) error {
	// Close may run while Start does (a connect deadline passing): it
	// waits for the spawn, or Start sees the close and spawns nothing.
	t.startMu.Lock()
	defer t.startMu.Unlock()
	if t.closing {
		return transport.ErrTransportClosed
	}
	if t.cmd != nil {
		return nil
	}
	// No shell, inherited cwd, exact environment (crewai-semantics.md §6).
	cmd := exec.Command(t.command, t.args...)
	cmd.Env = t.env
	// Its own process group (procgroup_*.go), so Close can end the tree.
	startOwnGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return fmt.Errorf("stderr pipe: %w", err)
	}
	// Files, not io.Readers: exec hands the descriptors to the child with
	// no copying goroutines, so Wait can run as soon as the child exits.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return &spawnError{err}
	}
	closeAll(inR, outW, errW)
	t.cmd, t.stdin, t.stdout, t.stderr = cmd, inW, outR, errR
	pid := cmd.Process.Pid
	t.escapees = watchDescendants(pid)
	if t.hooks.spawned != nil {
		t.hooks.spawned(pid)
	}
	go func() {
		t.exitErr = cmd.Wait()
		// Report before signalling, so the exit event precedes Close's return.
		if t.hooks.exited != nil {
			t.hooks.exited(pid, cmd.ProcessState, t.exitErr)
		}
		close(t.exited)
	}()
	t.readers.Add(2)
	go t.readStdout()
	go t.readStderr()
	return nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// Pid returns the child's process id (0 before Start).
func (t *stdioTransport) Pid() int {
	if t.cmd == nil || t.cmd.Process == nil {
		return 0
	}
	return t.cmd.Process.Pid
}

func (t *stdioTransport) markDone() { t.doneOnce.Do(func() { close(t.done) }) }

func (t *stdioTransport) readStdout() {
	defer t.readers.Done()
	defer t.markDone()
	r := bufio.NewReaderSize(t.stdout, 64<<10)
	limit := t.maxMessage
	if limit <= 0 {
		limit = DefaultMaxMessage
	}
	for {
		line, size, err := readLimitedLine(r, limit)
		if size > limit {
			t.failPending(&messageTooLargeError{What: "stdout line", Size: size, Exact: err == nil, Limit: limit})
		} else if len(line) > 0 {
			t.handleLine(line)
		}
		if err != nil {
			return
		}
	}
}

// readLimitedLine reads one line and its full size; past limit bytes it
// stops keeping them (and returns no line), so an endless line costs
// only the reader's buffer.
func readLimitedLine(r *bufio.Reader, limit int64) ([]byte, int64, error) {
	var out []byte
	var size int64
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= limit {
			out = append(out, chunk...)
		} else {
			out = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return out, size, err
	}
}

// failPending answers every waiting request with err: an oversized line
// cannot be matched to its request without reading it whole.
func (t *stdioTransport) failPending(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, ch := range t.pending {
		ch <- stdioReply{err: err} // buffered, never blocks
		delete(t.pending, key)
	}
}

func (t *stdioTransport) handleLine(line []byte) {
	line = trimEOL(line)
	if len(line) == 0 {
		return
	}
	// Only what routes the message: a copy of its result here would cost
	// another N bytes for an N-byte message.
	var head struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *mcp.RequestId `json:"id"`
		Method  string         `json:"method"`
	}
	if err := json.Unmarshal(line, &head); err != nil || head.JSONRPC == "" {
		t.garbage.Add(1)
		g := string(line)
		if len(g) > 200 {
			g = g[:200] + "…"
		}
		t.lastGarbage.Store(g)
		if t.hooks.garbage != nil {
			t.hooks.garbage(g)
		}
		return
	}
	switch {
	case head.Method != "" && head.ID == nil:
		var n mcp.JSONRPCNotification
		if json.Unmarshal(line, &n) != nil {
			return
		}
		t.notifyMu.RLock()
		h := t.onNotify
		t.notifyMu.RUnlock()
		if h != nil {
			h(n)
		}
	case head.Method != "" && head.ID != nil:
		var req transport.JSONRPCRequest
		if json.Unmarshal(line, &req) != nil {
			return
		}
		// The params as sent (not a map): an elicitation form keeps the
		// order of the schema's properties.
		var raw struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &raw) == nil && len(raw.Params) > 0 {
			req.Params = raw.Params
		}
		t.handleServerRequest(req)
	default:
		var resp transport.JSONRPCResponse
		if json.Unmarshal(line, &resp) != nil || head.ID == nil {
			return
		}
		key := resp.ID.String()
		t.mu.Lock()
		ch := t.pending[key]
		delete(t.pending, key)
		t.mu.Unlock()
		if ch != nil {
			ch <- stdioReply{resp: &resp} // buffered, never blocks
		}
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// handleServerRequest answers server→client requests (ping, roots, …) off
// the read loop, through mcp-go's handler when one is set.
func (t *stdioTransport) handleServerRequest(req transport.JSONRPCRequest) {
	t.notifyMu.RLock()
	h := t.onReq
	t.notifyMu.RUnlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var resp *transport.JSONRPCResponse
		if h == nil {
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "no request handler", nil)
		} else if r, err := h(ctx, req); err != nil {
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		} else {
			resp = r
		}
		if resp != nil {
			if b, err := json.Marshal(resp); err == nil {
				_ = t.write(ctx, b)
			}
		}
	}()
}

func (t *stdioTransport) readStderr() {
	defer t.readers.Done()
	r := bufio.NewReaderSize(t.stderr, 16<<10)
	for {
		line, err := readCappedLine(r, maxStderrLine)
		if len(line) > 0 || err == nil {
			t.tailMu.Lock()
			if t.tail = append(t.tail, string(line)); len(t.tail) > stderrTail {
				t.tail = t.tail[1:]
			}
			t.tailMu.Unlock()
			if t.hooks.stderr != nil {
				t.hooks.stderr(string(line))
			}
		}
		if err != nil {
			return
		}
	}
}

// readCappedLine reads one line, keeping at most limit bytes of it.
func readCappedLine(r *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(out) < limit {
			room := limit - len(out)
			if len(chunk) > room {
				out = append(out, chunk[:room]...)
			} else {
				out = append(out, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return trimEOL(out), err
	}
}

// write sends one newline-terminated frame, honouring ctx's deadline so a
// child that stops reading stdin cannot block the caller forever.
func (t *stdioTransport) write(ctx context.Context, frame []byte) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		_ = t.stdin.SetWriteDeadline(dl)
	} else {
		_ = t.stdin.SetWriteDeadline(time.Time{})
	}
	_, err := t.stdin.Write(append(frame, '\n'))
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return context.DeadlineExceeded
		}
		return fmt.Errorf("write to server stdin: %w: %w", transport.ErrTransportClosed, err)
	}
	return nil
}

// SendRequest writes the request and waits for its response, the end of
// the server's stdout, or ctx.
func (t *stdioTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if t.cmd == nil {
		return nil, errors.New("stdio transport not started")
	}
	select {
	case <-t.done:
		return nil, transport.ErrTransportClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("marshal request: %w", err)
	}
	key := req.ID.String()
	ch := make(chan stdioReply, 1)
	t.mu.Lock()
	t.pending[key] = ch
	t.mu.Unlock()
	forget := func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
	}
	if err := t.write(ctx, b); err != nil {
		forget()
		return nil, err
	}
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-t.done:
		select { // a response may have arrived just before EOF
		case r := <-ch:
			return r.resp, r.err
		default:
		}
		forget()
		return nil, transport.ErrTransportClosed
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// SendNotification writes a notification.
func (t *stdioTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	if t.cmd == nil {
		return errors.New("stdio transport not started")
	}
	select {
	case <-t.done:
		return transport.ErrTransportClosed
	default:
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("marshal notification: %w", err)
	}
	return t.write(ctx, b)
}

func (t *stdioTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.notifyMu.Lock()
	t.onNotify = h
	t.notifyMu.Unlock()
}

func (t *stdioTransport) SetRequestHandler(h transport.RequestHandler) {
	t.notifyMu.Lock()
	t.onReq = h
	t.notifyMu.Unlock()
}

func (t *stdioTransport) GetSessionId() string { return "" }

// Close shuts the server down the way the MCP SDK does, but for the whole
// process group: close stdin, wait up to the grace period, SIGTERM, wait
// again, SIGKILL. Group members that outlive the leader (a wrapper that
// exits while its child keeps running) are killed too, so Close never
// leaves a process behind; descendants that left the group (setsid) are
// ended too, where the platform lets crewbench see them (Linux). It returns
// within about 3×grace + 4 s.
func (t *stdioTransport) Close() error {
	t.closeOnce.Do(func() {
		t.startMu.Lock()
		t.closing = true
		t.startMu.Unlock()
		if t.cmd == nil {
			return
		}
		// The tree is still connected now: remember every descendant
		// before the leader's exit reparents them.
		t.escapees.scan()
		defer t.escapees.stop()
		grace := t.grace
		if t.expired.Load() {
			grace = min(grace, expiredGrace)
		}
		// Not under writeMu: a write blocked on a server that stopped
		// reading stdin must not block Close; closing unblocks it.
		_ = t.stdin.Close()
		if !waitClosed(t.exited, grace) {
			terminateGroup(t.cmd)
			if !waitClosed(t.exited, grace) {
				killGroup(t.cmd)
				waitClosed(t.exited, 2*time.Second)
			}
		}
		reapGroup(t.cmd, grace)
		if left := t.escapees.reap(grace); len(left) > 0 && t.hooks.unreaped != nil {
			t.hooks.unreaped(left)
		}
		t.markDone()
		// Readers end at EOF once every holder of the pipes is gone; closing
		// our ends unblocks them if a process outside the group kept a copy.
		if !waitWG(&t.readers, 500*time.Millisecond) {
			closeAll(t.stdout, t.stderr)
			waitWG(&t.readers, time.Second)
		}
		closeAll(t.stdout, t.stderr)
	})
	return nil
}

// expiredGrace is the grace period, instead of the configured one, for a
// server that already missed a deadline (it has shown it does not answer).
const expiredGrace = 250 * time.Millisecond

func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-timer.C:
		return false
	}
}

func waitWG(wg *sync.WaitGroup, d time.Duration) bool {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	return waitClosed(ch, d)
}

// stderrTail is how many of the last stderr lines a failure message quotes.
const stderrTail = 3

// lastStderr returns the last few stderr lines.
func (t *stdioTransport) lastStderr() []string {
	t.tailMu.Lock()
	defer t.tailMu.Unlock()
	return append([]string(nil), t.tail...)
}

// garbageSeen returns how many non-JSON-RPC stdout lines arrived and the last one.
func (t *stdioTransport) garbageSeen() (int64, string) {
	g, _ := t.lastGarbage.Load().(string)
	return t.garbage.Load(), g
}

var _ transport.BidirectionalInterface = (*stdioTransport)(nil)
