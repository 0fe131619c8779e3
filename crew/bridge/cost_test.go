//go:build unix

package bridge

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"crewbench/gcfloor"
	"crewbench/session"
)

// TestWatchCost measures what the bridge adds to a run of about 10,000
// CrewAI events with no breakpoints (issue 12, item 6). It is slow and
// timing-dependent, so it runs only when asked:
//
//	CREWBENCH_BENCH=1 go test -run TestWatchCost -v -timeout 20m ./crew/bridge/
//
// CREWBENCH_BENCH_LATENCY_MS=0,1,5,20 picks the simulated LLM latencies
// (default 0,1,5); CREWBENCH_BENCH_PAIRS the number of run pairs (default 5).
//
// STUB_LLM_LATENCY_MS gives every scripted LLM call a latency (a real one
// takes 0.5-5 s; a few ms keep the test short); 0 measures the bridge
// against a run that does nothing but emit events, the worst case.
//
// A shared 2-core machine moves a single run's wall time by ±20 %, so the
// plain and the watched run go in pairs, one right after the other (which
// one first alternates), and what is reported is the median over the pairs
// and its spread: the wall ratio, the wall time the bridge adds per event
// (the absolute cost: the ratio is only ≤ 1.05 when a crew does at least
// 20× that much work per event) and the Python CPU it adds per event.
//
// The bounds (issue 12, item 6) are checked on the medians: ≤ 100 µs of
// Python CPU per event, and ≤ 5 % of wall time once LLM calls take 1 ms
// or more (real ones take 0.5-5 s). At 0 ms the stub does nothing but
// emit events (35-50 µs each), and capturing and encoding them takes
// ~5 µs of the process's own Python, so no JSON-lines bridge meets 5 %
// there: it is reported, not checked. Being about wall time, the 5 %
// check wants a machine doing nothing else.
func TestWatchCost(t *testing.T) {
	if os.Getenv("CREWBENCH_BENCH") == "" {
		t.Skip("set CREWBENCH_BENCH=1 to measure the bridge's cost")
	}
	py := python3(t)
	defer gcfloor.Keep(gcfloor.Default)() // as crewbench's main does
	events := 10000
	if n, err := strconv.Atoi(os.Getenv("CREWBENCH_BENCH_EVENTS")); err == nil && n > 0 {
		events = n
	}
	latencies := []string{"0", "1", "5"}
	if l := os.Getenv("CREWBENCH_BENCH_LATENCY_MS"); l != "" {
		latencies = strings.Split(l, ",")
	}
	pairs := 5
	if p, err := strconv.Atoi(os.Getenv("CREWBENCH_BENCH_PAIRS")); err == nil && p > 0 {
		pairs = p
	}
	t.Logf("the bridge's own code, in-process (thread CPU, best of 5): %s", bridgeCodeCost(t, py, events))
	argv := []string{py, "-m", "stubcrew.main", "bench", strconv.Itoa(events)}
	// Bytecode is kept (away from the source tree) as in a user's
	// environment: the bridge's own is what the cache lets a run reuse.
	pycache := t.TempDir()
	for _, latency := range latencies {
		env := stubEnv(t, "STUB_LLM_LATENCY_MS="+latency, "PYTHONDONTWRITEBYTECODE=", "PYTHONPYCACHEPREFIX="+pycache)
		plain := func() (wall, cpu time.Duration) {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = "testdata/project", env
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("plain run: %v\n%s", err, out)
			}
			return time.Since(t0), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		watched := func() (wall, cpu, goCPU time.Duration, n int) {
			rec, err := session.NewRecorder(io.Discard, session.RecorderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t0, cpu0 := time.Now(), cpuTime(t)
			res, err := Watch(t.Context(), Options{Command: argv, Dir: "testdata/project", Env: env, Sink: rec})
			wall = time.Since(t0)
			_ = rec.Close()
			goCPU = cpuTime(t) - cpu0
			if err != nil {
				t.Fatalf("watched run: %v", err)
			}
			if res.Events < events {
				t.Fatalf("the watched run had %d events, want ≥ %d", res.Events, events)
			}
			return wall, res.CPU, goCPU, res.Events
		}
		plain() // warm the file cache: the first run of a series is slower
		var ratios, addedWall, addedCPU, plainPerEvent, goPerEvent []float64
		for i := range pairs {
			var pw, pc, ww, wc, gc time.Duration
			var n int
			if i%2 == 0 {
				pw, pc = plain()
				ww, wc, gc, n = watched()
			} else {
				ww, wc, gc, n = watched()
				pw, pc = plain()
			}
			goPerEvent = append(goPerEvent, float64(gc)/float64(time.Microsecond)/float64(n))
			ratios = append(ratios, float64(ww)/float64(pw))
			addedWall = append(addedWall, float64(ww-pw)/float64(time.Microsecond)/float64(n))
			addedCPU = append(addedCPU, float64(wc-pc)/float64(time.Microsecond)/float64(n))
			plainPerEvent = append(plainPerEvent, float64(pw)/float64(time.Microsecond)/float64(n))
		}
		t.Logf("LLM latency %s ms, %d pairs of ~%d events: wall ratio %s; wall added %s µs/event "+
			"(plain run %s µs/event); Python CPU added %s µs/event; crewbench's CPU (decoding, translating, "+
			"recording) %s µs/event",
			latency, pairs, events, spread(ratios, "%.3f"), spread(addedWall, "%.1f"), spread(plainPerEvent, "%.0f"),
			spread(addedCPU, "%.1f"), spread(goPerEvent, "%.1f"))
		// Per-event CPU is meaningful when the run does nothing but emit
		// events; with latency, idle wake-ups of the handler and writer
		// threads dominate it, and the wall figures are what count (only
		// logged: they depend on the machine's load).
		if cpu := median(addedCPU); latency == "0" && cpu > 100 {
			t.Errorf("the bridge costs %.1fµs of Python CPU per event (median), want ≤ 100µs", cpu)
		}
		if ms, _ := strconv.ParseFloat(latency, 64); ms >= 1 && median(ratios) > 1.05 {
			t.Errorf("with %s ms LLM calls the watched run takes %.3f× as long (median of %d pairs), want ≤ 1.05× (is the machine busy?)",
				latency, median(ratios), pairs)
		}
	}
}

// spread formats the median of xs and its range: "1.02 (0.98-1.10)".
func spread(xs []float64, format string) string {
	return fmt.Sprintf(format+" ("+format+" to "+format+")", median(xs), slices.Min(xs), slices.Max(xs))
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// bridgeCodeCost runs testdata/bridge_cost.py: the CPU the bridge's capture
// and line encoding take per event, without the processes around them.
func bridgeCodeCost(t *testing.T, py string, events int) string {
	t.Helper()
	dir := t.TempDir()
	if err := writePython(dir); err != nil {
		t.Fatal(err)
	}
	project, _ := filepath.Abs("testdata/project")
	stub, _ := filepath.Abs("testdata/stub")
	cmd := exec.Command(py, "bridge_cost.py", strconv.Itoa(events))
	cmd.Dir = "testdata"
	cmd.Env = append(stubEnv(t), "PYTHONPATH="+strings.Join([]string{dir, project, stub}, string(os.PathListSeparator)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bridge_cost.py: %v\n%s", err, out)
	}
	var capture, line, size float64
	if _, err := fmt.Sscanf(string(out), "capture %g line %g bytes %g", &capture, &line, &size); err != nil {
		t.Fatalf("bridge_cost.py printed %q: %v", out, err)
	}
	return fmt.Sprintf("%.1f µs/event (%.1f capturing on the emitting thread, %.1f making the lines on the writer's; %.0f bytes an event)",
		capture+line, capture, line, size)
}
