package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name                 string
		live, scanned, floor uint64
		want                 int
	}{
		{"a small heap waits for the floor", 4 * mb, 4 * mb, 64 * mb, 1500},
		{"stacks and globals are scanned too", 4 * mb, 8 * mb, 64 * mb, 750},
		{"a tiny heap: the runtime's smallest goal (4 MB at 100) stops at the floor", 100 << 10, 100 << 10, 64 * mb, 1600},
		{"an empty heap", 0, 0, 64 * mb, 1600},
		{"just under the floor: a little over GOGC=100", 30 * mb, 32 * mb, 64 * mb, 106},
		{"a floor under the runtime's own smallest goal: GOGC=100", 100 << 10, 100 << 10, 2 * mb, 100},
		{"at half the floor, twice the live heap reaches it", 32 * mb, 32 * mb, 64 * mb, 100},
		{"a large heap: GOGC=100 unchanged", 900 * mb, 901 * mb, 64 * mb, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := percentFor(c.live, c.scanned, c.floor); got != c.want {
				t.Errorf("percentFor(%d, %d, %d) = %d, want %d", c.live, c.scanned, c.floor, got, c.want)
			}
			// The goal the runtime computes from it: never below twice the
			// live heap, and at most the floor (or the runtime's own
			// smallest goal) when that is larger.
			p := uint64(percentFor(c.live, c.scanned, c.floor))
			goal := max(c.live+max(c.scanned, c.live)*p/100, runtimeHeapMinimum*p/100)
			most := max(c.floor, runtimeHeapMinimum)
			if goal < 2*c.live || (2*c.live < c.floor && goal > most+most/100) {
				t.Errorf("goal %d for live %d, floor %d", goal, c.live, c.floor)
			}
		})
	}
}

// churn allocates n bytes of garbage in 64 KB pieces, keeping none.
func churn(n int) {
	var keep []byte
	for range n / (64 << 10) {
		keep = make([]byte, 64<<10)
		keep[0] = 1
	}
	runtime.KeepAlive(keep)
}

// collections counts the collections that churning 512 MB takes.
func collections() uint32 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	churn(512 << 20)
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

func TestKeepCollectsLessOftenAndStopRestores(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: Keep leaves the collector alone")
	}
	runtime.GC()
	plain := collections()
	stop := Keep(128 << 20)
	runtime.GC() // (the first re-tune after a collection)
	kept := collections()
	stop()
	// 512 MB at GOGC=100 and a live heap of a few MB is 100 or more
	// collections; held at 128 MB, 4 and a few (a collection can start
	// before the cleanup that re-tunes for it has run).
	t.Logf("collections over 512 MB of garbage: %d plain, %d with a 128 MB floor", plain, kept)
	if kept > 12 || kept*4 > plain {
		t.Errorf("with a 128 MB floor, 512 MB of garbage took %d collections (%d without): want ≤ 12 and a quarter", kept, plain)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after stop the ratio is %d, want the 100 it was", p)
	}
	runtime.GC()
	runtime.GC() // a cleanup armed before stop runs and must not set a ratio
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after stop and two collections the ratio is %d, want 100", p)
	}
}

func TestKeepLeavesAUsersGOGCAlone(t *testing.T) {
	t.Setenv("GOGC", "150")
	old := debug.SetGCPercent(150)
	defer debug.SetGCPercent(old)
	stop := Keep(128 << 20)
	defer stop()
	runtime.GC()
	// Read before stop: stop restores the ratio Keep found, which would
	// hide a Keep that had tuned it anyway.
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("with GOGC=150 set, the ratio became %d", p)
	}
}
