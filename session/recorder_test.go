package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// jsonRoundTrip is what any event looks like after a trip through JSON
// (numbers become float64, maps map[string]any).
func jsonRoundTrip(t testing.TB, evs []Event) []Event {
	t.Helper()
	out := make([]Event, len(evs))
	for i, ev := range evs {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestRecorderRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "run.jsonl")
	started := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	red := NewRedactor("hunter2-secret-value")
	rec, err := Create(path, RecorderOptions{Redactor: red, Header: Header{
		Version: "v0.1.0", Project: "trip", Started: started, RunID: "run-1", Command: "run",
		Meta: map[string]any{"llm": "openai/gpt-4o-mini", "OPENAI_API_KEY": "sk-live-abcdefghijklmnopqrstuvwxyz"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var c Collector
	d := demoRun(Fanout{&c, rec})
	// A secret in the free text of an error and in Data.
	d.emit(Event{Kind: Warning, Error: "login failed for hunter2-secret-value", Data: map[string]any{"env": map[string]any{"GITHUB_TOKEN": "ghp_0123456789abcdefghijABCDEFGHIJ"}}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
	wantHeader := Header{Schema: SchemaVersion, Version: "v0.1.0", Project: "trip", Started: started, RunID: "run-1", Command: "run",
		Meta: map[string]any{"llm": "openai/gpt-4o-mini", "OPENAI_API_KEY": Redacted}}
	if diff := cmp.Diff(wantHeader, f.Header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	var want []Event
	for _, ev := range c.Events() {
		want = append(want, red.RedactEvent(ev))
	}
	want = jsonRoundTrip(t, want)
	if diff := cmp.Diff(want, f.Events); diff != "" {
		t.Errorf("events (-recorded +loaded):\n%s", diff)
	}
	last := f.Events[len(f.Events)-1]
	if last.Error != "login failed for "+Redacted || last.Data["env"].(map[string]any)["GITHUB_TOKEN"] != Redacted {
		t.Errorf("secrets not redacted: %+v", last)
	}
	if st := rec.Stats(); st.Events != int64(len(want)) || st.Lost != 0 || st.Syncs < 1 {
		t.Errorf("stats %+v", st)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", info.Mode().Perm())
	}
	// The loaded session builds the same tree as the live events.
	if a, b := outline(BuildTree(c.Events())), outline(BuildTree(f.Events)); a != b {
		t.Errorf("tree from file differs from live tree:\n%s\n---\n%s", a, b)
	}
}

func TestRecorderStats(t *testing.T) {
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec.Emit(Event{Kind: Warning})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	rec.Emit(Event{Kind: Warning}) // after Close: counted, not written, no panic
	st := rec.Stats()
	if st.Events != 1 || st.Late != 1 || st.Bytes != int64(buf.Len()) {
		t.Errorf("stats %+v, %d bytes written", st, buf.Len())
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Errorf("%d lines, want header + 1 event", n)
	}
}

// gateWriter blocks every Write until the test opens the gate.
type gateWriter struct {
	gate    chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
	entered atomic.Int64
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.entered.Add(1)
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

// A stalled disk makes Emit wait once the buffer is full; nothing is lost
// when the disk comes back.
func TestRecorderBackPressure(t *testing.T) {
	g := &gateWriter{gate: make(chan struct{})}
	// The header is written synchronously; let it through.
	go func() { g.gate <- struct{}{} }()
	const buffer, total = 8, 200
	rec, err := NewRecorder(g, RecorderOptions{Buffer: buffer})
	if err != nil {
		t.Fatal(err)
	}
	var emitted atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= total; i++ {
			rec.Emit(Event{Kind: Warning, Seq: int64(i), Data: map[string]any{KeyMessage: strings.Repeat("x", 100)}})
			emitted.Add(1)
		}
	}()
	// Wait until the emitter is stuck.
	deadline := time.Now().Add(5 * time.Second)
	var last int64 = -1
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		n := emitted.Load()
		if n == last {
			break
		}
		last = n
	}
	stuck := emitted.Load()
	// One event is in the writer's hands, `buffer` wait in the queue, one
	// more may sit in the bufio buffer before the blocked flush.
	if stuck >= total || stuck > buffer+70 {
		t.Fatalf("emitter got %d events in with a stalled disk and a buffer of %d: Emit does not block", stuck, buffer)
	}
	select {
	case <-done:
		t.Fatal("emitter finished while the disk was stalled")
	default:
	}
	close(g.gate) // the disk recovers
	<-done
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(g.buf.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Events) != total {
		t.Fatalf("loaded %d events, want %d", len(f.Events), total)
	}
	for i, ev := range f.Events {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: order or loss", i, ev.Seq)
		}
	}
}

// While events keep coming, data is synced at least every SyncInterval;
// Close syncs once more; an idle recorder does not sync for nothing.
func TestRecorderSyncCadence(t *testing.T) {
	var mu sync.Mutex
	var syncs []time.Time
	var buf bytes.Buffer
	var bufMu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { bufMu.Lock(); defer bufMu.Unlock(); return buf.Write(p) })
	const interval = 50 * time.Millisecond
	rec, err := NewRecorder(w, RecorderOptions{SyncInterval: interval, Sync: func() error {
		mu.Lock()
		syncs = append(syncs, time.Now())
		mu.Unlock()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for time.Since(start) < 600*time.Millisecond {
		rec.Emit(Event{Kind: Warning})
		time.Sleep(2 * time.Millisecond)
	}
	mu.Lock()
	during := append([]time.Time(nil), syncs...)
	mu.Unlock()
	// Idle: no new data, no syncs.
	time.Sleep(4 * interval)
	mu.Lock()
	idle := len(syncs) - len(during)
	mu.Unlock()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if len(during) < 5 {
		t.Fatalf("%d syncs in 600ms of writing with a %v interval", len(during), interval)
	}
	// Gaps stay near the interval (generous slack for a loaded machine).
	prev := start
	for _, s := range during {
		if gap := s.Sub(prev); gap > 8*interval {
			t.Errorf("gap of %v between syncs", gap)
		}
		prev = s
	}
	if idle > 1 {
		t.Errorf("%d syncs while idle", idle)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := len(syncs) - len(during) - idle; got != 1 {
		t.Errorf("Close synced %d times, want 1", got)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A failing disk is reported by Close with the number of events lost, and
// never wedges the emitter.
func TestRecorderWriteError(t *testing.T) {
	var n atomic.Int64
	w := writerFunc(func(p []byte) (int, error) {
		if n.Add(1) > 1 { // the header gets through
			return 0, errors.New("no space left on device")
		}
		return len(p), nil
	})
	rec, err := NewRecorder(w, RecorderOptions{Buffer: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		rec.Emit(Event{Kind: Warning})
	}
	err = rec.Close()
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "50 events not written") {
		t.Fatalf("Close = %v", err)
	}
	if st := rec.Stats(); st.Lost != 50 || st.Events != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Data JSON cannot hold does not cost the event.
func TestRecorderUnencodableData(t *testing.T) {
	var buf bytes.Buffer
	rec, _ := NewRecorder(&buf, RecorderOptions{})
	rec.Emit(Event{Kind: LLMCallCompleted, Span: "l", Data: map[string]any{"temperature": math.NaN()}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Read(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Events) != 1 || f.Events[0].Span != "l" || !strings.Contains(f.Events[0].Str("crewbench_encode_error"), "NaN") {
		t.Fatalf("events %+v", f.Events)
	}
}

func TestSessionsDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/var/state")
	if d, _ := SessionsDir(); d != "/var/state/crewbench/sessions" {
		t.Errorf("with XDG_STATE_HOME: %s", d)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"", "relative/state"} {
		t.Setenv("XDG_STATE_HOME", v)
		if d, _ := SessionsDir(); d != filepath.Join(home, ".local/state/crewbench/sessions") {
			t.Errorf("XDG_STATE_HOME=%q: %s", v, d)
		}
	}
}

func TestCreateInDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	var paths []string
	for i := 0; i < 3; i++ {
		ts := time.Date(2026, 3, 14, 9, 0, i, 5e6, time.UTC)
		rec, err := CreateInDir("", RecorderOptions{Header: Header{Started: ts}})
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, rec.Path())
	}
	re := regexp.MustCompile(`^2026-03-14T09-00-0[0-2]\.005Z-[0-9a-f]{6}\.jsonl$`)
	for i, p := range paths {
		if filepath.Dir(p) != filepath.Join(state, "crewbench", "sessions") || !re.MatchString(filepath.Base(p)) {
			t.Errorf("path %s", p)
		}
		if i > 0 && !(paths[i-1] < p) {
			t.Errorf("names do not sort by time: %s, %s", paths[i-1], p)
		}
	}
	info, _ := os.Stat(filepath.Dir(paths[0]))
	if info.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", info.Mode().Perm())
	}
}

// TestRecorderKill9 records from a child process that writes events
// forever, kills it with SIGKILL mid-stream, and loads what it left: every
// complete event in order from seq 1, a torn last line reported and
// ignored, never an error.
func TestRecorderKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	for round := 0; round < 3; round++ {
		path := filepath.Join(t.TempDir(), "killed.jsonl")
		cmd := exec.Command(os.Args[0], "-test.run=^TestRecorderKill9Child$", "-test.v")
		cmd.Env = append(os.Environ(), "CREWBENCH_KILL9_FILE="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		t.Cleanup(func() {
			if !killed {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
		ready := make(chan error, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if sc.Text() == "recording" {
					ready <- nil
					_, _ = io.Copy(io.Discard, stdout)
					return
				}
			}
			ready <- fmt.Errorf("child ended before recording: %v", sc.Err())
		}()
		select {
		case err := <-ready:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("child did not start recording within 60s")
		}
		// Kill mid-stream: once the file holds some events (a busy machine
		// may take long to get there), then a little later each round.
		for waited := time.Duration(0); ; waited += 10 * time.Millisecond {
			if raw, _ := os.ReadFile(path); bytes.Count(raw, []byte("\n")) > 20 {
				break
			}
			if waited > 60*time.Second {
				t.Fatal("the child wrote no events within 60s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Duration(50+round*100) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		killed = true

		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ReadFile(path, ReadOptions{})
		if err != nil {
			t.Fatalf("round %d: a killed recording must load: %v", round, err)
		}
		if len(f.Events) < 10 {
			t.Fatalf("round %d: only %d events after the kill", round, len(f.Events))
		}
		for i, ev := range f.Events {
			if ev.Seq != int64(i+1) {
				t.Fatalf("round %d: event %d has seq %d", round, i, ev.Seq)
			}
		}
		torn := len(raw) > 0 && raw[len(raw)-1] != '\n'
		if torn != (len(f.Warnings) == 1) {
			t.Fatalf("round %d: file ends torn=%v but warnings=%v", round, torn, f.Warnings)
		}
		complete := bytes.Count(raw, []byte("\n")) - 1 // minus the header
		if len(f.Events) != complete {
			t.Fatalf("round %d: %d complete lines but %d events loaded", round, complete, len(f.Events))
		}
		t.Logf("round %d: %d events, %d bytes, torn last line: %v %v", round, len(f.Events), len(raw), torn, f.Warnings)
	}
}

// TestRecorderKill9Child is the child of TestRecorderKill9: it records
// realistic events as fast as it can until it is killed.
func TestRecorderKill9Child(t *testing.T) {
	path := os.Getenv("CREWBENCH_KILL9_FILE")
	if path == "" {
		t.Skip("child process of TestRecorderKill9")
	}
	rec, err := Create(path, RecorderOptions{Buffer: 64, Header: Header{Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	evs := manyEvents(2000)
	em := NewEmitter(rec)
	fmt.Println("recording")
	// Safety net: never outlive the parent by long.
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		ev := evs[i%len(evs)]
		ev.Seq, ev.ID, ev.Time = 0, "", time.Time{}
		em.Emit(ev)
	}
	_ = rec.Close()
}
