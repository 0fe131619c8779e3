package bridge

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"crewbench/session"
)

// A failed plan refinement in a real CrewAI run: CrewAI's bus pairs its
// one agent_reasoning_failed with the refinement's start and never pairs
// attempt 1's (events/event_bus.py:548-560). Translated, attempt 1's node
// stays open while the run is live, is closed as unfinished by the
// agent's end, and nothing is left running once the run is over.
func TestTranslatedUnpairedStartIsClosedByItsAgent(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	ev := func(typ, id, parent, started string, extra map[string]any) wireMsg {
		n++
		d := map[string]any{"type": typ, "event_id": id, "timestamp": t0.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano),
			"agent_role": "Researcher", "task_id": "t1"}
		if parent != "" {
			d["parent_event_id"] = parent
		}
		if started != "" {
			d["started_event_id"] = started
		}
		for k, v := range extra {
			d[k] = v
		}
		return wireMsg{Op: "event", Seq: int64(n), Event: d}
	}
	// Numbers arrive as float64, as the line decoder gives them.
	msgs := []wireMsg{
		ev("crew_kickoff_started", "c", "", "", nil),
		ev("task_started", "t", "c", "", nil),
		ev("agent_execution_started", "a", "t", "", nil),
		ev("flow_started", "f", "a", "", nil),
		ev("agent_reasoning_started", "r1", "f", "", map[string]any{"attempt": 1.0}),
		ev("agent_reasoning_started", "r2", "r1", "", map[string]any{"attempt": 2.0}),
		ev("agent_reasoning_failed", "x", "r1", "r2", map[string]any{"attempt": 1.0, "error": "'nothing'"}),
		ev("flow_finished", "ff", "a", "", nil),
		ev("agent_execution_completed", "ae", "t", "a", nil),
	}
	tr := newTranslator("run-1", "1")
	tree := session.NewTree()
	reasoning := func() []string {
		var out []string
		for _, nd := range tree.Nodes() {
			if nd.Kind == session.NodeReasoning {
				s := fmt.Sprintf("attempt %d %s", nd.Attempt, nd.Status)
				if nd.ClosedBy != nil {
					s += " by " + nd.ClosedBy.Kind.String()
				}
				out = append(out, s)
			}
		}
		return out
	}
	for i, m := range msgs {
		tree.Add(tr.event(m))
		if i == 6 { // the failure: attempt 1 is open, as CrewAI left it
			if got := reasoning(); !slices.Equal(got, []string{"attempt 1 running", "attempt 2 failed"}) {
				t.Fatalf("after the failure: %v", got)
			}
		}
	}
	if got := reasoning(); !slices.Equal(got, []string{"attempt 1 unfinished by agent", "attempt 2 failed"}) {
		t.Errorf("after the agent's end: %v", got)
	}
	// The crew and task never ended (the process died): running while
	// the run is live, unfinished once it is over.
	if s := tree.Summary(); s.Running != 2 || s.Status != session.StatusRunning {
		t.Errorf("live: %d running, status %v", s.Running, s.Status)
	}
	tree.Finish()
	if s := tree.Summary(); s.Running != 0 || s.Unfinished != 3 || s.Status != session.StatusUnfinished {
		t.Errorf("over: %d running, %d unfinished, status %v", s.Running, s.Unfinished, s.Status)
	}
}

// A crew kicked off inside a user's Flow method (a real CrewAI 1.15.17
// run: the crew's parent_event_id is the method's method_execution_started)
// hangs at the top, as in an engine run, and the run's summary is the
// crew's: no scope without a known parent, nothing left running.
func TestTranslatedCrewInsideAFlowMethod(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	ev := func(typ, id, parent, started string) wireMsg {
		n++
		d := map[string]any{"type": typ, "event_id": id, "timestamp": t0.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano)}
		if parent != "" {
			d["parent_event_id"] = parent
		}
		if started != "" {
			d["started_event_id"] = started
		}
		return wireMsg{Op: "event", Seq: int64(n), Event: d}
	}
	msgs := []wireMsg{
		ev("flow_started", "f", "", ""),
		ev("method_execution_started", "m1", "f", ""),
		ev("method_execution_finished", "m1e", "f", "m1"),
		ev("method_execution_started", "m2", "f", ""),
		ev("crew_kickoff_started", "c", "m2", ""),
		ev("task_started", "t", "c", ""),
		ev("task_completed", "te", "c", "t"),
		ev("crew_kickoff_completed", "ce", "m2", "c"),
		ev("method_execution_finished", "m2e", "f", "m2"),
		ev("flow_finished", "fe", "", "f"),
	}
	tr := newTranslator("run-1", "1")
	tree := session.NewTree()
	for _, m := range msgs {
		tree.Add(tr.event(m))
	}
	tree.Finish()
	s := tree.Summary()
	if s.Orphans != 0 || s.Running != 0 || s.Unfinished != 0 || s.Status != session.StatusOK {
		t.Errorf("summary: %+v", s)
	}
	var crew *session.Node
	for _, nd := range tree.Nodes() {
		if nd.Kind == session.NodeCrew {
			crew = nd
		}
	}
	if crew == nil || crew.Parent != tree.Root {
		t.Fatalf("the crew does not hang at the top: %+v", crew)
	}
}
