package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew"
	"crewbench/mcpconn"
	"crewbench/mcpconn/cmdline"
	"crewbench/mcpconn/filter"
	"crewbench/session"
)

// Every tea.Cmd constructor. Commands capture their inputs (never the
// model), do the I/O or the waiting, and report back with a message.

// maxEventBatch bounds one drained batch: a burst of events costs one
// Update and one View, not one each.
const maxEventBatch = 512

// drain blocks for one value, then takes whatever else is already queued
// (up to max). ok is false when the channel is closed and nothing was read.
func drain[T any](ch <-chan T, limit int) (batch []T, ok bool) {
	v, ok := <-ch
	if !ok {
		return nil, false
	}
	batch = append(batch, v)
	for len(batch) < limit {
		select {
		case v, ok := <-ch:
			if !ok {
				return batch, true // the next wait reports the close
			}
			batch = append(batch, v)
		default:
			return batch, true
		}
	}
	return batch, true
}

// waitForPoolEvents reads the next batch of pool events. Re-armed by the
// root after each batch.
func waitForPoolEvents(ch <-chan session.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		batch, ok := drain(ch, maxEventBatch)
		if !ok {
			return poolClosedMsg{}
		}
		return poolEventsMsg(batch)
	}
}

func loadStatus(pool ServerPool) tea.Cmd {
	if pool == nil {
		return nil
	}
	return func() tea.Msg { return statusMsg(pool.Status()) }
}

func connectAll(ctx context.Context, pool ServerPool, specs []mcpconn.ServerSpec) tea.Cmd {
	if pool == nil || len(specs) == 0 {
		return nil
	}
	return func() tea.Msg { return connectDoneMsg{err: pool.Connect(ctx, specs...)} }
}

func reconnect(ctx context.Context, pool ServerPool, name string) tea.Cmd {
	return func() tea.Msg { return reconnectDoneMsg{server: name, err: pool.Reconnect(ctx, name)} }
}

// pingTimeout bounds the servers pane's ping.
const pingTimeout = 5 * time.Second

func ping(ctx context.Context, pool ServerPool, name string) tea.Cmd {
	return func() tea.Msg {
		rtt, err := pool.Ping(ctx, name, pingTimeout)
		return pingDoneMsg{server: name, rtt: rtt, err: err}
	}
}

func probe(ctx context.Context, p HealthProber, server, url string, headers map[string]string) tea.Cmd {
	return func() tea.Msg {
		return healthDoneMsg{server: server, res: p.Probe(ctx, url, headers, mcpconn.DefaultProbeTimeout)}
	}
}

func authState(ctx context.Context, a ServerAuth, server, url string, sse, probe bool) tea.Cmd {
	return func() tea.Msg { return authStateMsg{server: server, state: a.State(ctx, url, sse, probe)} }
}

// login runs the OAuth browser flow for one server. Its message is
// loginURLMsg as soon as the authorization URL is known (the flow goes on;
// waitLogin delivers its end), or loginDoneMsg when it ended first.
func login(ctx context.Context, a ServerAuth, server, url string, sse bool) tea.Cmd {
	return func() tea.Msg {
		urls := make(chan string, 1)
		done := make(chan error, 1)
		go func() {
			done <- a.Login(ctx, url, sse, func(u string) {
				select {
				case urls <- u:
				default:
				}
			})
		}()
		select {
		case u := <-urls:
			return loginURLMsg{server: server, url: u, done: done}
		case err := <-done:
			return loginDoneMsg{server: server, err: err}
		}
	}
}

func waitLogin(server string, done <-chan error) tea.Cmd {
	return func() tea.Msg { return loginDoneMsg{server: server, err: <-done} }
}

// closePool reaps every server. It runs when the user quits, so the
// screen can say "stopping servers…" while the shutdown sequences run.
func closePool(pool ServerPool) tea.Cmd {
	if pool == nil {
		return func() tea.Msg { return poolShutMsg{} }
	}
	return func() tea.Msg { return poolShutMsg{err: pool.Close()} }
}

func emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

func notice(level noticeLevel, format string, args ...any) tea.Cmd {
	return emit(noticeMsg{level: level, text: fmt.Sprintf(format, args...)})
}

// applyFilter compiles and applies a playground filter. ctx is cancelled
// when the user types again, so a slow expression never holds up the next
// keystroke's result.
func applyFilter(ctx context.Context, gen int, server string, allowed, blocked []string, expr string,
	fctx filter.Context, tools []*filter.Prepared) tea.Cmd {
	return func() tea.Msg {
		start := time.Now()
		f, err := filter.New(allowed, blocked, expr)
		if err != nil {
			return filterResultMsg{gen: gen, server: server, err: err}
		}
		v, h := f.ApplyPrepared(ctx, fctx, tools)
		return filterResultMsg{gen: gen, server: server, verdicts: v, hints: h, took: time.Since(start)}
	}
}

// startCall runs one tool call; its events arrive on events (closed when
// the call returns) and, when rec is set, in the workbench's call
// recording; the result comes as callDoneMsg.
func startCall(ctx context.Context, c ToolCaller, rec CallRecorder, id int, spec mcpconn.ServerSpec, tool string,
	args json.RawMessage, events chan session.Event, asker callAsker) tea.Cmd {
	return func() tea.Msg {
		defer close(asker.done) // no question comes after the call
		sink := &closingSink{ctx: ctx, ch: events}
		sinks := session.Fanout{sink}
		done := callDoneMsg{id: id}
		if rec != nil {
			recSink, path, err := rec.Begin(spec)
			if err == nil {
				defer rec.End()
				sinks = append(sinks, recSink)
				done.recorded = path
			}
			done.recordErr = err
		}
		done.res = c.Call(ctx, spec, tool, args, session.NewEmitter(sinks), asker)
		sink.Close()
		return done
	}
}

// closingSink feeds a channel the UI drains and closes it exactly once.
// Engine goroutines (a stdio server's stderr reader) may still emit after
// the call returned; those late events are dropped instead of panicking
// on a closed channel.
type closingSink struct {
	ctx    context.Context
	mu     sync.Mutex
	ch     chan session.Event
	closed bool
}

func (s *closingSink) Emit(ev session.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	select {
	case s.ch <- ev:
	case <-s.ctx.Done():
	}
}

// Close closes the channel; later events are dropped.
func (s *closingSink) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
}

// RunEventBuffer is the buffer of a run's event channel (a kickoff's, a
// re-run's). It absorbs bursts; a slow screen slows the engine, never
// loses an event (the UI drains it in batches).
const RunEventBuffer = 1024

// NewEventChannel returns a sink that feeds a channel the workbench drains
// (Deps.Events, RunHandle.Events), and the function that closes it. Emit
// waits for room until ctx ends, then drops: a closed workbench never
// wedges the engine. Call closeFn once nothing emits any more (after the
// pool is closed, after the run returned); events emitted later are
// dropped.
func NewEventChannel(ctx context.Context, n int) (sink session.Sink, events <-chan session.Event, closeFn func()) {
	ch := make(chan session.Event, n)
	s := &closingSink{ctx: ctx, ch: ch}
	return s, ch, s.Close
}

func waitForCallEvents(id int, ch <-chan session.Event) tea.Cmd {
	return func() tea.Msg {
		batch, ok := drain(ch, maxEventBatch)
		if !ok {
			return callEventsClosedMsg{id: id}
		}
		return callEventsMsg{id: id, events: batch}
	}
}

// waitForAsk waits for the next question the call's server asks, until
// the call is over.
func waitForAsk(id int, a callAsker) tea.Cmd {
	return func() tea.Msg {
		select {
		case q := <-a.ch:
			return askMsg{id: id, q: q}
		case <-a.done:
			return nil
		}
	}
}

func copyText(clip func(string) error, term func(string), text string) tea.Cmd {
	return func() tea.Msg {
		err := errors.New("no clipboard available")
		if clip != nil {
			if err = clip(text); err == nil {
				return copiedMsg{}
			}
		}
		if term != nil {
			// The terminal may copy it (OSC 52) even where no clipboard
			// tool is installed; whether it did cannot be known.
			term(text)
			return copiedMsg{viaTerminal: true}
		}
		return copiedMsg{err: fmt.Errorf("%w; the command is shown below", err)}
	}
}

// Runs.

func startRun(ctx context.Context, r Runner, gen int, req KickoffRequest) tea.Cmd {
	return func() tea.Msg {
		h, err := r.Start(ctx, req)
		return runStartedMsg{gen: gen, handle: h, err: err}
	}
}

func waitForRunEvents(gen int, ch <-chan session.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		batch, ok := drain(ch, maxEventBatch)
		if !ok {
			return runEventsClosedMsg{gen: gen}
		}
		return runEventsMsg{gen: gen, events: batch}
	}
}

func waitForRunDone(gen int, ch <-chan RunOutcome) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		o, ok := <-ch
		if !ok {
			return runDoneMsg{gen: gen, outcome: RunOutcome{Err: errors.New("run ended without an outcome")}}
		}
		return runDoneMsg{gen: gen, outcome: o}
	}
}

// waitForPause waits for the stepper's next pause. It returns nil when the
// run's context ends, so a finished run leaves no reader behind.
func waitForPause(ctx context.Context, gen int, s *crew.ChanStepper) tea.Cmd {
	return func() tea.Msg {
		select {
		case req := <-s.C:
			return pauseMsg{gen: gen, req: req}
		case <-ctx.Done():
			return nil
		}
	}
}

// Sessions.

func listSessions(ctx context.Context, s SessionStore) tea.Cmd {
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		l, err := s.List(ctx)
		return sessionsListedMsg{list: l, err: err}
	}
}

func openSession(ctx context.Context, s SessionStore, path string) tea.Cmd {
	if s == nil {
		return notice(noticeError, "no session store configured")
	}
	return func() tea.Msg {
		f, err := s.Open(ctx, path)
		return sessionOpenedMsg{path: path, file: f, err: err}
	}
}

// rerunSession opens the recorded session and re-runs it; its events go
// to sink (closed when the re-run returns), then the re-run is compared
// with the recording. finished is closed last, so quitting can wait for
// the re-run to clean up after itself.
func rerunSession(ctx context.Context, store SessionStore, r Replayer, gen int, req RerunRequest,
	sink *closingSink, finished chan struct{}) tea.Cmd {
	return func() tea.Msg {
		defer close(finished)
		defer sink.Close()
		f, err := store.Open(ctx, req.Path)
		if err != nil {
			return rerunDoneMsg{gen: gen, err: fmt.Errorf("open %s: %w", req.Path, err)}
		}
		req.File, req.Sink = f, sink
		res, err := r.Rerun(ctx, req)
		if err != nil {
			return rerunDoneMsg{gen: gen, err: err}
		}
		red := session.RedactorFor(f.Events, res.Events)
		d := session.Diff(f.Events, res.Events, session.DiffOptions{Redactor: red})
		d.A.Label, d.B.Label = "recorded", "re-run"
		return rerunDoneMsg{gen: gen, res: res, diff: d, red: red}
	}
}

func waitForRerunEvents(gen int, ch <-chan session.Event) tea.Cmd {
	return func() tea.Msg {
		batch, ok := drain(ch, maxEventBatch)
		if !ok {
			return rerunEventsClosedMsg{gen: gen}
		}
		return rerunEventsMsg{gen: gen, events: batch}
	}
}

// compareWithRun opens the recorded session and compares it (A) with the
// events of the workbench's last run (B, a snapshot taken in Update; live
// while that run goes on).
func compareWithRun(ctx context.Context, store SessionStore, gen int, path string, run []session.Event, live bool) tea.Cmd {
	return func() tea.Msg {
		f, err := store.Open(ctx, path)
		if err != nil {
			return compareDoneMsg{gen: gen, err: fmt.Errorf("open %s: %w", path, err)}
		}
		d := session.Diff(f.Events, run, session.DiffOptions{BLive: live})
		d.A.Label, d.B.Label = "recorded", "this run"
		return compareDoneMsg{gen: gen, diff: d}
	}
}

// $EDITOR: write a temp file (a command), run the editor with
// tea.ExecProcess (the terminal is handed over), then read the file back
// (another command). No file I/O happens in Update.

func prepareEditor(target editorTarget, text, ext string) tea.Cmd {
	return func() tea.Msg {
		f, err := os.CreateTemp("", "crewbench-*"+ext)
		if err != nil {
			return editorReadyMsg{target: target, err: fmt.Errorf("temp file for $EDITOR: %w", err)}
		}
		_, werr := f.WriteString(text)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			_ = os.Remove(f.Name())
			return editorReadyMsg{target: target, err: fmt.Errorf("temp file for $EDITOR: %w", err)}
		}
		return editorReadyMsg{target: target, path: f.Name()}
	}
}

func runEditor(editor string, target editorTarget, path string) tea.Cmd {
	words, err := cmdline.Split(editor)
	if err != nil || len(words) == 0 {
		return emit(editorExitedMsg{target: target, path: path, err: fmt.Errorf("$EDITOR %q: cannot parse", editor)})
	}
	c := exec.Command(words[0], append(words[1:], path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		return editorExitedMsg{target: target, path: path, err: err}
	})
}

func readEditorFile(target editorTarget, path string, runErr error) tea.Cmd {
	return func() tea.Msg {
		defer os.Remove(path)
		if runErr != nil {
			return editorDoneMsg{target: target, err: fmt.Errorf("editor: %w", runErr)}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return editorDoneMsg{target: target, err: fmt.Errorf("read back the edited file: %w", err)}
		}
		return editorDoneMsg{target: target, text: string(b)}
	}
}

// Export.

func renderExport(ctx context.Context, e FilterExporter, f ExportFormat, req ExportRequest) tea.Cmd {
	return func() tea.Msg {
		s, err := e.Render(ctx, f, req)
		return exportMsg{text: s, err: err}
	}
}

func planWrite(ctx context.Context, e FilterExporter, req ExportRequest) tea.Cmd {
	return func() tea.Msg {
		p, err := e.Plan(ctx, req)
		return writePlanMsg{plan: p, err: err}
	}
}

func applyWrite(ctx context.Context, e FilterExporter, p WritePlan) tea.Cmd {
	return func() tea.Msg {
		b, err := e.Apply(ctx, p)
		return writeDoneMsg{backup: b, err: err}
	}
}
