package session

import (
	"strconv"
	"testing"
	"time"
)

// TestEmitterStampsCrewAIEnvelope checks the envelope fields against
// CrewAI's rules (crewai-events-and-hooks.md §2.1): scopes give
// parent_event_id (skipping crewbench's own scopes for CrewAI events), ends
// get started_event_id, previous_event_id chains CrewAI events, and
// emission_sequence restarts at the kickoff.
func TestEmitterStampsCrewAIEnvelope(t *testing.T) {
	var c Collector
	n := 0
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	em := NewEmitter(&c).WithClock(func() time.Time { return clock }, func() string { n++; return "id" + strconv.Itoa(n) })
	em.Emit(Event{Kind: DefaultEnv, Parent: "crew"})                               // id1
	em.Emit(Event{Kind: CrewKickoffStarted, Span: "crew"})                         // id2
	em.Emit(Event{Kind: AgentExecutionStarted, Span: "agent", Parent: "crew"})     // id3
	em.Emit(Event{Kind: AgentStepStarted, Span: "step", Parent: "agent"})          // id4
	em.Emit(Event{Kind: LLMCallStarted, Span: "llm", Parent: "step"})              // id5
	em.Emit(Event{Kind: MCPFrame, Parent: "step"})                                 // id6
	em.Emit(Event{Kind: LLMCallCompleted, Span: "llm", Parent: "step"})            // id7
	em.Emit(Event{Kind: AgentLogsExecution, Parent: "agent"})                      // id8
	em.Emit(Event{Kind: AgentExecutionCompleted, Span: "agent", Parent: "crew"})   // id9
	em.Emit(Event{Kind: CrewKickoffCompleted, Span: "crew", PreviousEventID: "x"}) // id10
	evs := c.Events()
	type env struct {
		parent, previous, started, source string
		seq                               int64
	}
	want := []env{
		{"", "", "", "", 1},
		{"", "id1", "", "crew", 1},
		{"id2", "id2", "", "agent", 2},
		{"id3", "id3", "", "", 0}, // crewbench's step: its parent is the agent
		{"id3", "id3", "", "", 3}, // a CrewAI event skips the step scope
		{"id4", "id5", "", "", 0}, // crewbench's frame: the step it happened in
		{"id3", "id5", "id5", "", 4},
		{"id3", "id7", "", "", 5},
		{"id2", "id8", "id3", "agent", 6},
		{"", "x", "id2", "crew", 7}, // a bridged event keeps its own previous_event_id
	}
	for i, w := range want {
		e := evs[i]
		got := env{e.ParentEventID, e.PreviousEventID, e.StartedEventID, e.SourceType, e.EmissionSequence}
		if got != w {
			t.Errorf("event %d (%s): got %+v, want %+v", i+1, e.Kind, got, w)
		}
		if !e.Timestamp.Equal(clock) || e.Timestamp.Location() != time.UTC {
			t.Errorf("event %d: timestamp %v, want %v in UTC", i+1, e.Timestamp, clock)
		}
	}
}

func TestKindIsCrewAI(t *testing.T) {
	if !FlowStarted.IsCrewAI() || !DefaultEnv.IsCrewAI() || MCPFrame.IsCrewAI() || Kind("").IsCrewAI() {
		t.Error("IsCrewAI: CrewAI kinds are those without the crewbench_ prefix")
	}
}

// An Emitter built without NewEmitter still tracks scopes.
func TestEmitterWithoutScopeMap(t *testing.T) {
	var c Collector
	e := &Emitter{sink: &c, now: time.Now, newID: NewID}
	start := e.Emit(Event{Kind: TaskStarted, Span: "t"})
	if end := e.Emit(Event{Kind: TaskCompleted, Span: "t"}); end.StartedEventID != start.ID {
		t.Errorf("started_event_id %q, want %q", end.StartedEventID, start.ID)
	}
}
