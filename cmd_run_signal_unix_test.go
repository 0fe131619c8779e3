//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"crewbench/session"
)

// signalOnWrite sends sig to this process the first time the trace shows
// marker, so the signal lands while a tool call is in flight.
type signalOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	sig    syscall.Signal
	sent   bool
}

func (w *signalOnWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent && strings.Contains(w.buf.String(), w.marker) {
		w.sent = true
		_ = syscall.Kill(os.Getpid(), w.sig)
	}
	return len(p), nil
}

func (w *signalOnWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// SIGINT or SIGTERM during a run is its own outcome: exit 130/143, and the
// trace and the recording say cancelled, not that the crew failed.
func TestRunInterruptedIsCancelled(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			rec := filepath.Join(t.TempDir(), "run.jsonl")
			stderr := &signalOnWrite{marker: "→ crewbench_fixture_slow_slow_report", sig: c.sig}
			var stdout bytes.Buffer
			code := execute(ctx, []string{"run", "--demo", "--color", "never", "--record", rec},
				strings.NewReader(""), &stdout, stderr)
			trace := stderr.String()
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, trace)
			}
			if !strings.Contains(trace, "⊘ crew Weekend Weather Brief cancelled") || !strings.Contains(trace, "⊘ cancelled after") {
				t.Errorf("trace does not say cancelled:\n%s", trace)
			}
			if strings.Contains(trace, "the crew failed") || strings.Contains(trace, "✗ crew Weekend") || strings.Contains(trace, "FAILED after") {
				t.Errorf("an interrupt is reported as a failure:\n%s", trace)
			}
			f, err := session.ReadFile(rec, session.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			last := f.Events[len(f.Events)-1]
			if last.Kind != session.CrewKickoffFailed || last.Outcome != session.OutcomeCancelled {
				t.Errorf("recording ends with %s outcome %q, want crew_kickoff_failed cancelled", last.Kind, last.Outcome)
			}
		})
	}
}
