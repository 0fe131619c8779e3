package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRecording measures recording throughput against the same
// emitter writing to Discard, in the same run, and reports the ratio.
// Events are a realistic crew run (messages, tool args and results,
// attempts) written to a real file in the test's temp dir; the time
// includes Close, i.e. until everything is on disk and fsynced.
func BenchmarkRecording(b *testing.B) {
	evs := manyEvents(10_000)
	emitAll := func(sink Sink, n int) time.Duration {
		em := NewEmitter(sink)
		start := time.Now()
		for i := 0; i < n; i++ {
			ev := evs[i%len(evs)]
			ev.Seq, ev.ID, ev.Time = 0, "", time.Time{}
			em.Emit(ev)
		}
		return time.Since(start)
	}
	n := max(b.N, 1000)
	base := emitAll(Discard, n)

	path := filepath.Join(b.TempDir(), "bench.jsonl")
	b.ResetTimer()
	rec, err := Create(path, RecorderOptions{Header: Header{Version: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	hot := emitAll(rec, n)
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	total := time.Since(start)
	b.StopTimer()

	b.ReportMetric(float64(n)/total.Seconds(), "events/s")
	b.ReportMetric(float64(n)/base.Seconds(), "discard-events/s")
	b.ReportMetric(total.Seconds()/base.Seconds(), "x-discard-time")
	b.ReportMetric(float64(hot.Nanoseconds())/float64(n), "emit-ns/event")
	b.ReportMetric(float64(base.Nanoseconds())/float64(n), "discard-ns/event")
}

// BenchmarkSessionSize reports the size on disk of a 10,000-event session.
func BenchmarkSessionSize(b *testing.B) {
	evs := manyEvents(10_000)
	var size int64
	for i := 0; i < b.N; i++ {
		path := filepath.Join(b.TempDir(), "size.jsonl")
		rec, err := Create(path, RecorderOptions{Header: Header{Version: "bench", Project: "trip"}})
		if err != nil {
			b.Fatal(err)
		}
		for _, ev := range evs {
			rec.Emit(ev)
		}
		if err := rec.Close(); err != nil {
			b.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		size = info.Size()
	}
	b.ReportMetric(float64(size), "bytes/session")
	b.ReportMetric(float64(size)/float64(len(evs)), "bytes/event")
}
