package mcpconn

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// fastShutdown keeps tests quick: fixtures exit on stdin EOF at once, and
// the ones that don't (hang-init --ignore-eof) get SIGTERM after this.
const fastShutdown = 300 * time.Millisecond

// fixtureSpec spawns fixture name as a real stdio process (the re-executed
// test binary).
func fixtureSpec(t testing.TB, name string, extra ...string) ServerSpec {
	t.Helper()
	if !fixtureDispatch {
		t.Fatal("TestMain did not install the fixture dispatch; refusing to re-execute the test binary")
	}
	cmd, args := fixturetest.Command(name, extra...)
	return ServerSpec{Name: name, Transport: TransportStdio, Command: cmd, Args: args,
		Timeouts: Timeouts{Shutdown: fastShutdown}}
}

// recorder collects events for one test.
func recorder() (*session.Emitter, *session.Collector) {
	col := &session.Collector{}
	return session.NewEmitter(col), col
}

func eventsOf(col *session.Collector, k session.Kind) []session.Event {
	var out []session.Event
	for _, e := range col.Events() {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// spawnedPids returns the pids of every stdio server spawned.
func spawnedPids(col *session.Collector) []int {
	var pids []int
	for _, e := range eventsOf(col, session.MCPProcessSpawned) {
		pids = append(pids, int(e.Int("pid")))
	}
	return pids
}

// assertGone fails if any pid (or its process group) still exists.
func assertGone(t testing.TB, pids []int) {
	t.Helper()
	for _, pid := range pids {
		deadline := time.Now().Add(3 * time.Second)
		for aliveOrGroup(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d (or its group) is still alive", pid)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// leakCheck fails the test if goroutines started during it are still
// running once it ends (after a settle period).
func leakCheck(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, interesting(string(buf)))
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// interesting drops the test framework's own goroutines from a dump.
func interesting(dump string) string {
	var keep []string
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.Contains(g, "testing.(*T).Run") || strings.Contains(g, "testing.tRunner") && !strings.Contains(g, "mcpconn") {
			continue
		}
		keep = append(keep, g)
	}
	return strings.Join(keep, "\n\n")
}

// gaps returns the pause between the end of each attempt and the start of
// the next.
func gaps(r *CallResult) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(r.Attempts); i++ {
		prev := r.Attempts[i-1]
		out = append(out, r.Attempts[i].Start.Sub(prev.Start.Add(prev.Duration)))
	}
	return out
}

func within(got, want, slack time.Duration) bool {
	return got >= want && got <= want+slack
}
