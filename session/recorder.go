package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// SchemaVersion is the session file schema this crewbench writes. It changes
// only on an incompatible change; adding fields or kinds does not bump it
// (readers ignore unknown fields and keep unknown kinds).
const SchemaVersion = 1

// MinSchemaVersion is the oldest schema this crewbench reads.
const MinSchemaVersion = 1

// Header is the first line of a session file.
type Header struct {
	// Schema is the file schema version (the key doubles as the magic that
	// marks a crewbench session file).
	Schema  int       `json:"crewbench_session"`
	Version string    `json:"version"` // crewbench version that wrote the file
	Project string    `json:"project,omitempty"`
	Started time.Time `json:"started"`
	RunID   string    `json:"run_id,omitempty"`
	// Command is what produced the session: "run", "call", "tui", …
	Command string `json:"command,omitempty"`
	// Meta holds anything else worth keeping (flags, LLM, crew name). It is
	// redacted like event Data.
	Meta map[string]any `json:"meta,omitempty"`
}

// RecorderOptions configure a Recorder. The zero value is usable.
type RecorderOptions struct {
	// Header is written as the first line. Schema is always set to
	// SchemaVersion; Started defaults to now.
	Header Header
	// Redactor is applied to every event and the header before writing; nil
	// means DefaultRedactor. Redaction cannot be switched off.
	Redactor *Redactor
	// Buffer is how many events may wait for the disk before Emit blocks
	// (default 4096).
	Buffer int
	// SyncInterval is the longest time written data stays un-fsynced while
	// the recorder runs (default 1s).
	SyncInterval time.Duration
	// Sync makes written data durable. The default is the writer's own
	// Sync method when it has one (*os.File), else nothing. Tests inject it.
	Sync func() error
	// MaxField caps one payload field of an event (a Data entry, the
	// error) in the file; a longer one is cut and marked (default
	// DefaultMaxField). The event itself still carries it in full.
	MaxField int
	// Retention bounds the directory CreateInDir records into; nil means
	// RetentionFromEnv.
	Retention *Retention
}

// DefaultMaxField is the default cap on one payload field of a recorded
// event: a 50 MB tool argument, repeated in every later prompt, must not
// make a gigabyte session file.
const DefaultMaxField = 1 << 20

// RecorderStats counts what a recorder did.
type RecorderStats struct {
	Events int64 // events written (including the ones whose Data could not be encoded)
	Bytes  int64 // bytes handed to the writer, header included
	Syncs  int64 // successful syncs
	Lost   int64 // events not written because the writer failed
	Late   int64 // events emitted after Close (a caller bug; not written)
}

// Recorder appends events to a JSONL session file: a header line, then one
// event per line. Emit only queues the event; a goroutine redacts, encodes
// and writes it, flushing whenever the queue runs empty and syncing at least
// every SyncInterval while there is unsynced data. When the queue is full,
// Emit waits: a recorder never drops an event to keep up.
type Recorder struct {
	path      string
	bw        *bufio.Writer
	buf       bytes.Buffer  // the header, or an event fast cannot encode
	enc       *json.Encoder // encodes into buf
	fast      *eventEncoder
	memo      *stringMemo // the loop's: long strings already redacted
	line      []byte      // one encoded event
	unflushed int64       // events in bw not yet flushed
	closer    io.Closer
	syncFn    func() error
	redactor  *Redactor
	interval  time.Duration
	maxField  int

	mu     sync.RWMutex // guards closed against concurrent Emit/Close
	closed bool
	ch     chan Event
	done   chan struct{}

	errMu sync.Mutex
	err   error

	events, bytes, syncs, lost, late atomic.Int64
}

// countingWriter counts bytes on their way to the real writer.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// NewRecorder starts a recorder writing to w. The header is written and
// flushed before it returns. Close does not close w (Create's recorders close
// their file).
func NewRecorder(w io.Writer, opts RecorderOptions) (*Recorder, error) {
	r := &Recorder{
		redactor: opts.Redactor.self(),
		interval: opts.SyncInterval,
		syncFn:   opts.Sync,
		maxField: opts.MaxField,
		fast:     newEventEncoder(),
		memo:     newStringMemo(),
		done:     make(chan struct{}),
	}
	if r.maxField <= 0 {
		r.maxField = DefaultMaxField
	}
	if r.interval <= 0 {
		r.interval = time.Second
	}
	n := opts.Buffer
	if n <= 0 {
		n = 4096
	}
	r.ch = make(chan Event, n)
	if r.syncFn == nil {
		if s, ok := w.(interface{ Sync() error }); ok {
			r.syncFn = s.Sync
		}
	}
	r.bw = bufio.NewWriterSize(countingWriter{w: w, n: &r.bytes}, 64<<10)
	r.enc = json.NewEncoder(&r.buf)
	// Keep «redacted», <, > and & readable in the file.
	r.enc.SetEscapeHTML(false)

	h := opts.Header
	h.Schema = SchemaVersion
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	if h.Meta != nil {
		if m, changed := r.redactor.walk("", h.Meta, nil); changed {
			h.Meta = m.(map[string]any)
		}
	}
	h.Project = r.redactor.RedactString(h.Project)
	if err := r.enc.Encode(h); err != nil {
		return nil, fmt.Errorf("session recorder: encode header: %w", err)
	}
	_, _ = r.bw.Write(r.buf.Bytes())
	if err := r.bw.Flush(); err != nil {
		return nil, fmt.Errorf("session recorder: write header: %w", err)
	}
	go r.loop()
	return r, nil
}

// Create starts a recorder on path, creating missing directories (0700) and
// the file (0600, since sessions hold prompts and tool results); an existing
// file is truncated. This is the `--record FILE` entry point.
func Create(path string, opts RecorderOptions) (*Recorder, error) {
	return create(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, opts)
}

// CreateInDir starts a recorder on a new, time-sortable file in dir
// (SessionsDir when dir is ""), first deleting the oldest sessions there
// beyond opts.Retention. Path reports the chosen name.
func CreateInDir(dir string, opts RecorderOptions) (*Recorder, error) {
	if dir == "" {
		d, err := SessionsDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	keep := opts.Retention
	if keep == nil {
		r, err := RetentionFromEnv()
		if err != nil {
			return nil, fmt.Errorf("session recorder: %w", err)
		}
		keep = &r
	}
	if _, err := keep.Prune(dir); err != nil {
		return nil, err
	}
	started := opts.Header.Started
	if started.IsZero() {
		started = time.Now()
		opts.Header.Started = started
	}
	var lastErr error
	for range 5 {
		r, err := create(NewSessionPath(dir, started), os.O_WRONLY|os.O_CREATE|os.O_EXCL, opts)
		if err == nil {
			return r, nil
		}
		lastErr = err
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	return nil, lastErr
}

func create(path string, flag int, opts RecorderOptions) (*Recorder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("session recorder: %w", err)
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session recorder: %w", err)
	}
	r, err := NewRecorder(f, opts)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	r.path = path
	r.closer = f
	return r, nil
}

// SessionsDir is where sessions are recorded by default:
// $XDG_STATE_HOME/crewbench/sessions, or ~/.local/state/crewbench/sessions
// when XDG_STATE_HOME is unset or not absolute (the XDG spec says to ignore
// relative values).
func SessionsDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "crewbench", "sessions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("session directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "crewbench", "sessions"), nil
}

// NewSessionPath returns dir/<UTC time>-<6 hex>.jsonl. The fixed-width time
// makes names sort in recording order; the random suffix keeps two sessions
// started in the same millisecond apart.
func NewSessionPath(dir string, t time.Time) string {
	return filepath.Join(dir, t.UTC().Format("2006-01-02T15-04-05.000Z")+"-"+NewID()[:6]+".jsonl")
}

// Path is the file being written ("" for NewRecorder).
func (r *Recorder) Path() string { return r.path }

// Emit queues ev for writing, waiting while the queue is full. Events
// emitted after Close are counted in Stats().Late and not written.
func (r *Recorder) Emit(ev Event) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		r.late.Add(1)
		return
	}
	r.ch <- ev
}

// Close writes everything queued, syncs, closes the file it opened, and
// reports the first write, sync or close error. Safe to call twice.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.ch)
	}
	r.mu.Unlock()
	<-r.done
	return r.Err()
}

// Err reports the first error so far, with the number of events it cost.
func (r *Recorder) Err() error {
	r.errMu.Lock()
	err := r.err
	r.errMu.Unlock()
	if err == nil {
		return nil
	}
	if lost := r.lost.Load(); lost > 0 {
		return fmt.Errorf("session recorder: %d events not written: %w", lost, err)
	}
	return fmt.Errorf("session recorder: %w", err)
}

// Stats returns the counters so far.
func (r *Recorder) Stats() RecorderStats {
	return RecorderStats{
		Events: r.events.Load(), Bytes: r.bytes.Load(), Syncs: r.syncs.Load(),
		Lost: r.lost.Load(), Late: r.late.Load(),
	}
}

func (r *Recorder) setErr(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
}

func (r *Recorder) failed() bool {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err != nil
}

func (r *Recorder) loop() {
	defer close(r.done)
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	lastSync := time.Now()
	dirty := false
	sync := func() {
		if r.syncFn != nil && !r.failed() {
			if err := r.syncFn(); err != nil {
				r.setErr(fmt.Errorf("sync: %w", err))
			} else {
				r.syncs.Add(1)
			}
		}
		lastSync, dirty = time.Now(), false
	}
	finish := func() {
		r.flush()
		sync()
		if r.closer != nil {
			if err := r.closer.Close(); err != nil {
				r.setErr(fmt.Errorf("close: %w", err))
			}
		}
	}
	for {
		select {
		case ev, ok := <-r.ch:
			if !ok {
				finish()
				return
			}
			r.write(ev)
			// Write whatever else is already queued, then flush once: one
			// write syscall per burst instead of per event. Bounded so a
			// steady stream cannot postpone the flush or the sync forever.
		drain:
			for i := 0; i < cap(r.ch); i++ {
				select {
				case ev, ok := <-r.ch:
					if !ok {
						finish()
						return
					}
					r.write(ev)
				default:
					break drain
				}
			}
			r.flush()
			dirty = true
			if time.Since(lastSync) >= r.interval {
				sync()
			}
		case <-ticker.C:
			if dirty {
				sync()
			}
		}
	}
}

// write redacts and encodes one event into the buffered writer.
func (r *Recorder) write(ev Event) {
	if r.failed() {
		r.lost.Add(1)
		return
	}
	ev = r.redactor.redactEvent(ev, r.memo)
	err := r.encode(ev)
	if err == nil && len(r.line) > r.maxField {
		// Only events this large pay for looking at their fields.
		if capped, ok := capFields(ev, r.maxField); ok {
			ev = capped
			err = r.encode(ev)
		}
	}
	if err != nil {
		// Data that JSON cannot hold (NaN, a channel, a cycle): keep the
		// event and say why its payload is missing, rather than lose it.
		ev.Data = map[string]any{"crewbench_encode_error": err.Error()}
		if err := r.encode(ev); err != nil {
			r.setErr(fmt.Errorf("encode event %d: %w", ev.Seq, err))
			r.lost.Add(1)
			return
		}
	}
	_, err = r.bw.Write(r.line)
	if cap(r.line) > 1<<20 {
		r.line = nil // a rare huge event: do not keep its buffer
	}
	if err != nil {
		r.setErr(fmt.Errorf("write: %w", err))
		r.lost.Add(1 + r.unflushed)
		r.unflushed = 0
		return
	}
	r.unflushed++
}

// encode puts ev's line into r.line: by the fast encoder, or by
// encoding/json when the fast one declines (which then says why).
func (r *Recorder) encode(ev Event) error {
	if line, ok := r.fast.appendEvent(r.line[:0], &ev); ok {
		r.line = line
		return nil
	}
	r.buf.Reset()
	if err := r.enc.Encode(ev); err != nil {
		return err
	}
	r.line = append(r.line[:0], r.buf.Bytes()...)
	return nil
}

// capFields cuts every payload field of ev (a Data entry, the error)
// whose JSON is over max bytes to its first max bytes, marked, and lists
// the cut fields under "crewbench_truncated". ok is false when nothing was
// over.
func capFields(ev Event, max int) (Event, bool) {
	var cut []string
	if len(ev.Error) > max {
		ev.Error = truncateMarked(ev.Error, max)
		cut = append(cut, "error")
	}
	var data map[string]any
	for k, v := range ev.Data {
		s, isString := v.(string)
		if !isString {
			b, err := json.Marshal(v)
			if err != nil || len(b) <= max {
				continue
			}
			s = string(b) // a structure becomes the start of its JSON text
		} else if len(s) <= max {
			continue
		}
		if data == nil {
			data = make(map[string]any, len(ev.Data)+1)
			for k2, v2 := range ev.Data {
				data[k2] = v2
			}
		}
		data[k] = truncateMarked(s, max)
		cut = append(cut, k)
	}
	if len(cut) == 0 {
		return ev, false
	}
	if data == nil {
		data = make(map[string]any, len(ev.Data)+1)
		for k, v := range ev.Data {
			data[k] = v
		}
	}
	sort.Strings(cut)
	data[KeyTruncated] = cut
	ev.Data = data
	return ev, true
}

// KeyTruncated lists the fields of a recorded event that were cut to the
// recorder's MaxField.
const KeyTruncated = "crewbench_truncated"

// truncateMarked keeps the first max bytes of s (on a UTF-8 boundary) and
// says how much there was.
func truncateMarked(s string, max int) string {
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("…[crewbench: truncated, %d bytes in all]", len(s))
}

// flush hands buffered lines to the writer. Events still in the buffer when
// the writer fails are counted as lost, not written.
func (r *Recorder) flush() {
	if r.failed() {
		return
	}
	if err := r.bw.Flush(); err != nil {
		r.setErr(fmt.Errorf("write: %w", err))
		r.lost.Add(r.unflushed)
		r.unflushed = 0
		return
	}
	r.events.Add(r.unflushed)
	r.unflushed = 0
}
