package session

import (
	"testing"
	"time"
)

// BenchmarkDiff measures diffing two 10,000-event sessions against the
// baseline of building their two trace trees (which Diff must do anyway),
// in the same run.
func BenchmarkDiff(b *testing.B) {
	a, c := manyEvents(10_000), manyEvents(10_000)
	var base, diff time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		BuildTree(a)
		BuildTree(c)
		base += time.Since(start)
		start = time.Now()
		if d := Diff(a, c, DiffOptions{}); !d.Identical {
			b.Fatal("the same run differs from itself")
		}
		diff += time.Since(start)
	}
	b.ReportMetric(float64(diff.Milliseconds())/float64(b.N), "diff-ms/op")
	b.ReportMetric(float64(base.Milliseconds())/float64(b.N), "two-trees-ms/op")
	b.ReportMetric(diff.Seconds()/base.Seconds(), "x-two-trees")
}
