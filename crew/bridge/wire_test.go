package bridge

import (
	"testing"
	"time"
)

func seqs(ms []wireMsg) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.Seq)
	}
	return out
}

func TestReorderWaitsForGapsThenMovesOn(t *testing.T) {
	r := newReorder(100 * time.Millisecond)
	t0 := time.Now()
	if got := seqs(r.push(wireMsg{Seq: 2}, t0)); len(got) != 0 {
		t.Fatalf("delivered %v before 1", got)
	}
	if got := seqs(r.push(wireMsg{Seq: 1}, t0)); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("got %v", got)
	}
	r.push(wireMsg{Seq: 4}, t0)
	if r.waiting(t0) == 0 {
		t.Fatal("not waiting for 3")
	}
	if got := seqs(r.drain(t0.Add(150*time.Millisecond), false)); len(got) != 1 || got[0] != 4 {
		t.Fatalf("after the gap: %v", got)
	}
	if got := seqs(r.push(wireMsg{Seq: 3}, t0)); len(got) != 1 || got[0] != 3 {
		t.Fatalf("straggler: %v", got)
	}
}
