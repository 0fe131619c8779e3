package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"sync"
	"sync/atomic"
	"time"

	"crewbench/mcpconn"
	"crewbench/session"
	"crewbench/ui"
)

// Recording the workbench's try-a-tool calls, and reading recorded
// sessions' headers for the sessions view (ui.SessionAbout describes them).
// Engine side: ui calls these from commands, never from Update or View.

// callLogGrace is how long Close waits for calls still running (quitting
// cancels them, so they end quickly) before it closes the file.
const callLogGrace = 3 * time.Second

// callLog is the ui.CallRecorder of the workbench: every call made in 4 Try
// goes to one session file per workbench (header command "tui-call"),
// created in Dir on the first call, so the sessions view lists one
// history of calls next to the crew runs instead of one file per click.
// Each call is its own tools/call tree in it, with its connect, attempts,
// retries and CrewAI's verdict.
type callLog struct {
	// Dir receives the file (session.SessionsDir() when "").
	Dir string
	// Version, Project and Meta go into the header.
	Version string
	Project string
	Meta    map[string]any

	mu       sync.Mutex
	rec      *session.Recorder
	red      *session.Redactor
	closed   bool
	inflight sync.WaitGroup
	// seq numbers the events across calls: each call has its own emitter
	// (numbering from 1), and the session tree orders siblings by seq.
	seq atomic.Int64
}

// Begin implements ui.CallRecorder. The first call creates the file; every
// call adds its server's credentials (secret env values, credential
// headers) to the recording's redactor before any of its events is
// written.
func (l *callLog) Begin(spec mcpconn.ServerSpec) (session.Sink, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, "", errors.New("the call log is closed")
	}
	if l.red == nil {
		l.red = session.NewRedactor()
	}
	l.red.AddValues(mcpconn.SecretValues(spec)...)
	if l.rec == nil {
		meta := map[string]any{}
		for k, v := range l.Meta {
			meta[k] = v
		}
		rec, err := session.CreateInDir(l.Dir, session.RecorderOptions{Header: session.Header{
			Version: l.Version, Project: l.Project, RunID: session.NewID(), Command: ui.CallLogCommand, Meta: meta,
		}, Redactor: l.red})
		if err != nil {
			return nil, "", fmt.Errorf("record the call: %w", err)
		}
		l.rec = rec
	}
	l.inflight.Add(1)
	return callLogSink{rec: l.rec, seq: &l.seq}, l.rec.Path(), nil
}

// End implements ui.CallRecorder.
func (l *callLog) End() { l.inflight.Done() }

// Path is the recording's file ("" before the first call).
func (l *callLog) Path() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rec == nil {
		return ""
	}
	return l.rec.Path()
}

// Close implements ui.CallRecorder: it waits up to callLogGrace for running
// calls (their last event is the verdict), then closes the file. Events
// that arrive later (a server's last stderr line) are counted by the
// recorder as late, not written.
func (l *callLog) Close() error {
	l.mu.Lock()
	l.closed = true
	rec := l.rec
	l.mu.Unlock()
	if rec == nil {
		return nil
	}
	done := make(chan struct{})
	go func() {
		l.inflight.Wait()
		close(done)
	}()
	t := time.NewTimer(callLogGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	if err := rec.Close(); err != nil {
		return fmt.Errorf("recording %s: %w", rec.Path(), err)
	}
	return nil
}

// callLogSink renumbers a call's events for the shared file.
type callLogSink struct {
	rec *session.Recorder
	seq *atomic.Int64
}

func (s callLogSink) Emit(ev session.Event) {
	ev.Seq = s.seq.Add(1)
	s.rec.Emit(ev)
}

// maxHeaderRead bounds what listing reads of each file: the header is
// one short line.
const maxHeaderRead = 1 << 20

// readSessionHeader reads a session file's header line only.
func readSessionHeader(path string) (session.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return session.Header{}, err
	}
	defer f.Close()
	r, err := session.NewReader(io.LimitReader(f, maxHeaderRead), session.ReadOptions{Lenient: true, AnySchema: true})
	if err != nil {
		return session.Header{}, err
	}
	return r.Header(), nil
}
