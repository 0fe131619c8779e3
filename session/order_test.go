package session

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// orderedEmitter is an emitter on a collector whose ids count up and whose
// clock moves a second at each reading.
func orderedEmitter() (*Emitter, *Collector) {
	c := &Collector{}
	n, tick := 0, 0
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return NewEmitter(c).WithClock(func() time.Time { tick++; return start.Add(time.Duration(tick) * time.Second) },
		func() string { n++; return "id" + strconv.Itoa(n) }), c
}

// An Ordered records scope a's events before scope b's whatever order they
// come in: b's wait, with the time and id they got when they happened,
// until a is done; then Seq, emission_sequence and the envelope follow the
// recorded order, and the scopes b opened keep their parents. Events
// outside the scopes, and b's after both are done, are not held.
func TestOrderedRecordsScopesInOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		// bFirst: b is done before a.
		bFirst bool
	}{
		{"a done first", false},
		{"b done first", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			em, c := orderedEmitter()
			em.Emit(Event{Kind: AgentExecutionStarted, Span: "agent"})
			em.Emit(Event{Kind: AgentStepStarted, Span: "a", Parent: "agent"})
			em.Emit(Event{Kind: AgentStepStarted, Span: "b", Parent: "agent"})
			o := em.Order([]string{"a", "b"})
			em.Emit(Event{Kind: LLMCallStarted, Span: "b-llm", Parent: "b", Data: map[string]any{"n": "b1"}})
			em.Emit(Event{Kind: MCPFrame, Parent: "b-llm", Data: map[string]any{"n": "b2"}})
			em.Emit(Event{Kind: LLMCallStarted, Span: "a-llm", Parent: "a", Data: map[string]any{"n": "a1"}})
			em.Emit(Event{Kind: Warning, Parent: "elsewhere", Data: map[string]any{"n": "x"}})
			em.Emit(Event{Kind: LLMCallCompleted, Span: "b-llm", Parent: "b", Data: map[string]any{"n": "b3"}})
			if tc.bFirst {
				o.Done("b")
			}
			em.Emit(Event{Kind: LLMCallCompleted, Span: "a-llm", Parent: "a", Data: map[string]any{"n": "a2"}})
			if held := len(c.Events()); held != 6 {
				t.Fatalf("%d events delivered before a is done, want 6", held)
			}
			o.Done("a")
			if !tc.bFirst {
				o.Done("b")
			}
			em.Emit(Event{Kind: Warning, Parent: "b", Data: map[string]any{"n": "late"}})
			evs := c.Events()
			var got []string
			for i, ev := range evs {
				if ev.Seq != int64(i+1) {
					t.Errorf("event %d: seq %d", i, ev.Seq)
				}
				if n, ok := ev.Data["n"]; ok {
					got = append(got, fmt.Sprint(n))
				}
			}
			if want := []string{"a1", "x", "a2", "b1", "b2", "b3", "late"}; !slices.Equal(got, want) {
				t.Fatalf("order %q, want %q", got, want)
			}
			byN := map[string]Event{}
			for _, ev := range evs {
				if n, ok := ev.Data["n"]; ok {
					byN[fmt.Sprint(n)] = ev
				}
			}
			b1, b2, b3, a2 := byN["b1"], byN["b2"], byN["b3"], byN["a2"]
			// b1 happened first (the 4th clock reading, its id id4) but is
			// recorded after a2, which it now follows.
			if b1.ID != "id4" || !b1.Time.Equal(time.Date(2026, 12, 1, 10, 0, 4, 0, time.UTC)) || !b1.Timestamp.Equal(b1.Time) {
				t.Errorf("b1 id %s at %v (timestamp %v)", b1.ID, b1.Time, b1.Timestamp)
			}
			if b1.PreviousEventID != a2.ID || b1.EmissionSequence != a2.EmissionSequence+1 || b1.ParentEventID != "id1" {
				t.Errorf("b1 envelope %+v after a2 %+v", b1, a2)
			}
			if b2.ParentEventID != b1.ID || b3.StartedEventID != b1.ID || b3.PreviousEventID != b1.ID {
				t.Errorf("b's scope: b2 parent %q, b3 started %q previous %q, want %q", b2.ParentEventID, b3.StartedEventID, b3.PreviousEventID, b1.ID)
			}
		})
	}
}

// Concurrent emitters in two ordered scopes: the sink gets every event of
// the first scope before any of the second, in Seq order.
func TestOrderedConcurrentScopes(t *testing.T) {
	em, c := orderedEmitter()
	em.Emit(Event{Kind: AgentStepStarted, Span: "a"})
	em.Emit(Event{Kind: AgentStepStarted, Span: "b"})
	o := em.Order([]string{"a", "b"})
	var wg sync.WaitGroup
	for _, scope := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer o.Done(scope)
			for i := range 50 {
				em.Emit(Event{Kind: Warning, Parent: scope, Data: map[string]any{"scope": scope, "i": i}})
			}
		}()
	}
	wg.Wait()
	var got []string
	for i, ev := range c.Events()[2:] {
		if ev.Seq != int64(i+3) {
			t.Fatalf("event %d: seq %d", i, ev.Seq)
		}
		got = append(got, fmt.Sprint(ev.Data["scope"], ev.Data["i"]))
	}
	var want []string
	for _, scope := range []string{"a", "b"} {
		for i := range 50 {
			want = append(want, fmt.Sprint(scope, i))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("order %q", got)
	}
}

// A nil emitter's Ordered does nothing.
func TestOrderedOnNilEmitter(t *testing.T) {
	var em *Emitter
	em.Order([]string{"a"}).Done("a")
}
