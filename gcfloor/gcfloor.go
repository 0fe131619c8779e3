// Package gcfloor gives the garbage collector a heap floor: while the live
// heap is small, the collector waits until the heap reaches the floor
// instead of running every time it doubles.
//
// Why: crewbench's live heap is a few MB while a watched run streams tens
// of thousands of events through it, each decoded, translated, redacted
// and encoded (about 3 KB allocated per event). With GOGC=100 and a small
// live heap the collector runs every few MB, and its marking and write
// barriers took a fifth to a quarter of crewbench's CPU per event, CPU that on a 2-core
// machine the user's crew competes for. Go has no setting for a floor
// (GOGC is a ratio, GOMEMLIMIT a ceiling), so after every collection the
// ratio is set so that the next goal is the larger of the floor and twice
// the live heap: a large live heap gets GOGC=100's behaviour unchanged.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// What the collector's goal is computed from: the heap it marked live,
// and the stacks and globals it scans (the ratio applies to them too).
var goalMetrics = []string{"/gc/heap/live:bytes", "/gc/scan/stack:bytes", "/gc/scan/globals:bytes"}

// Default is crewbench's floor. Measured on a watched run of 10,000
// events (TestWatchCost): crewbench's CPU per event 18.4 µs without a
// floor, 13.8 with 64 MB, 12.0 with 128 MB; most of the gain is in the
// first 64 MB, which a machine that runs CrewAI has to spare.
const Default = 64 << 20

// Keep holds the heap goal at floor bytes or more from now on, re-tuned
// after every collection, until stop is called (which restores the ratio
// Keep found). It does nothing when the environment sets GOGC or
// GOMEMLIMIT: the user chose the collector's behaviour.
func Keep(floor uint64) (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	k := &keeper{floor: floor}
	for _, name := range goalMetrics {
		k.samples = append(k.samples, metrics.Sample{Name: name})
	}
	k.base = debug.SetGCPercent(100)
	k.retune()
	k.arm()
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if !k.stopped {
			k.stopped = true
			debug.SetGCPercent(k.base)
		}
	}
}

type keeper struct {
	floor   uint64
	base    int // the ratio before Keep, restored by stop
	mu      sync.Mutex
	stopped bool // (under mu, with the ratio set: a late re-tune must not undo stop)
	samples []metrics.Sample
}

// arm leaves an object for the next collection to find unreachable; its
// cleanup runs after that collection, re-tunes and arms again.
func (k *keeper) arm() {
	sentinel := new([16]byte) // (a zero-size object would never be collected)
	runtime.AddCleanup(sentinel, func(k *keeper) {
		if k.retune() {
			k.arm()
		}
	}, k)
}

// retune sets the ratio for the live heap the last collection marked; it
// reports whether Keep is still on.
func (k *keeper) retune() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return false
	}
	metrics.Read(k.samples)
	var v [3]uint64
	for i, s := range k.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return true // a runtime without it: leave the ratio alone
		}
		v[i] = s.Value.Uint64()
	}
	debug.SetGCPercent(percentFor(v[0], v[0]+v[1]+v[2], k.floor))
	return true
}

// runtimeHeapMinimum is the Go runtime's smallest heap goal at GOGC=100
// (defaultHeapMinimum); it scales with the ratio, so a ratio of
// floor/runtimeHeapMinimum×100 makes the smallest goal the floor.
const runtimeHeapMinimum = 4 << 20

// percentFor is the GOGC ratio whose goal is about max(floor, 2×live) for
// a live heap of live bytes and scanned (live plus stacks and globals)
// bytes: the runtime's goal is live + scanned×ratio/100. The runtime's
// smallest goal, which the ratio scales, must not go past the floor
// either (for a live heap of a few hundred KB the ratio alone would be
// tens of thousands: a goal of gigabytes).
func percentFor(live, scanned, floor uint64) int {
	scanned = max(scanned, live, 1)
	if live+scanned >= floor {
		return 100
	}
	ceiling := floor * 100 / runtimeHeapMinimum
	return int(max(100, min((floor-live)*100/scanned, ceiling)))
}
