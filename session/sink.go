package session

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// Sink receives events. Emit must be safe for concurrent use. A sink that
// must not lose events (the recorder) blocks rather than drops; a sink that
// may coalesce (a UI) documents it.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Emit calls f(ev).
func (f SinkFunc) Emit(ev Event) { f(ev) }

// Discard drops every event.
var Discard Sink = SinkFunc(func(Event) {})

// Fanout sends each event to every sink, in order.
type Fanout []Sink

// Emit forwards ev to every sink.
func (f Fanout) Emit(ev Event) {
	for _, s := range f {
		if s != nil {
			s.Emit(ev)
		}
	}
}

// Emitter stamps events with a sequence number, time, id and CrewAI's
// envelope (Event.ParentEventID and the rest) before handing them to its
// sink. Engine packages hold an *Emitter; a nil *Emitter drops everything,
// so callers never need a nil check.
type Emitter struct {
	sink  Sink
	now   func() time.Time
	newID func() string

	// mu orders stamping, so Seq, PreviousEventID and EmissionSequence
	// tell the same story when several goroutines emit at once.
	mu  sync.Mutex
	seq atomic.Int64
	// out is taken before mu is released and held while the sink runs,
	// so the sink receives events in the order they were stamped (a sink
	// must therefore not emit through the Emitter that feeds it).
	out sync.Mutex
	// held routes the events of the scopes an Ordered holds (by span) to
	// their place in it; empty when none is open.
	held map[string]heldScope
	// scopes maps each open scope's Span to its start event.
	scopes map[string]scopeStart
	// lastCrewAI is the event_id of the last CrewAI-typed event.
	lastCrewAI string
	// emission counts CrewAI-typed events since the last kickoff.
	emission int64
}

// scopeStart is what later events of a scope need from its start event.
type scopeStart struct {
	id string
	// crewAI is the event_id of the nearest CrewAI-typed start at or above
	// this scope: a CrewAI event's parent_event_id never names one of
	// crewbench's own scopes (steps, attempts).
	crewAI string
}

// NewEmitter returns an emitter writing to sink with the wall clock.
func NewEmitter(sink Sink) *Emitter {
	return &Emitter{sink: sink, now: time.Now, newID: NewID, scopes: map[string]scopeStart{}}
}

// WithClock replaces the clock and the id generator, for deterministic tests.
// Call it before the first Emit; nil arguments keep the current value.
func (e *Emitter) WithClock(now func() time.Time, newID func() string) *Emitter {
	if now != nil {
		e.now = now
	}
	if newID != nil {
		e.newID = newID
	}
	return e
}

// Emit stamps ev and forwards it. It returns the stamped event; an event an
// Ordered holds back has only its time and id yet.
func (e *Emitter) Emit(ev Event) Event {
	if e == nil || e.sink == nil {
		return ev
	}
	e.mu.Lock()
	if ev.Time.IsZero() {
		ev.Time = e.now()
	}
	if ev.ID == "" {
		ev.ID = e.newID()
	}
	if e.hold(ev) {
		e.mu.Unlock()
		return ev
	}
	e.stamp(&ev)
	e.deliver(ev)
	return ev
}

// stamp gives ev its sequence number and envelope. Called with e.mu held.
func (e *Emitter) stamp(ev *Event) {
	ev.Seq = e.seq.Add(1)
	e.stampEnvelope(ev)
}

// deliver hands stamped events to the sink in stamping order: it is
// called with e.mu held and releases it once the sink is reserved.
func (e *Emitter) deliver(evs ...Event) {
	e.out.Lock()
	e.mu.Unlock()
	defer e.out.Unlock()
	for _, ev := range evs {
		e.sink.Emit(ev)
	}
}

// stampEnvelope fills CrewAI's envelope fields the event does not carry yet
// (a bridged CrewAI event keeps its own) and tracks scopes. Start and end
// events belong to their Parent scope; a point event to its Span, else its
// Parent. Called with e.mu held.
func (e *Emitter) stampEnvelope(ev *Event) {
	if ev.Timestamp.IsZero() {
		ev.Timestamp = ev.Time.UTC()
	}
	crewAI := ev.Kind.IsCrewAI()
	if ev.SourceType == "" {
		ev.SourceType = ev.Kind.SourceType()
	}
	scope := ev.Parent
	if !ev.Kind.IsStart() && !ev.Kind.IsEnd() && ev.Span != "" {
		scope = ev.Span
	}
	if ev.ParentEventID == "" && scope != "" {
		if s, ok := e.scopes[scope]; ok {
			ev.ParentEventID = s.id
			if crewAI {
				ev.ParentEventID = s.crewAI
			}
		}
	}
	if ev.PreviousEventID == "" {
		ev.PreviousEventID = e.lastCrewAI
	}
	switch {
	case ev.Kind.IsStart() && ev.Span != "":
		if e.scopes == nil {
			e.scopes = map[string]scopeStart{}
		}
		s := scopeStart{id: ev.ID, crewAI: e.scopes[ev.Parent].crewAI}
		if crewAI {
			s.crewAI = ev.ID
		}
		e.scopes[ev.Span] = s
	case ev.Kind.IsEnd() && ev.Span != "":
		if s, ok := e.scopes[ev.Span]; ok {
			if ev.StartedEventID == "" {
				ev.StartedEventID = s.id
			}
			delete(e.scopes, ev.Span)
		}
	}
	if !crewAI {
		return
	}
	if ev.Kind == DefaultEnv || ev.Kind == CrewKickoffStarted {
		e.emission = 0
	}
	e.emission++
	if ev.EmissionSequence == 0 {
		ev.EmissionSequence = e.emission
	}
	e.lastCrewAI = ev.ID
}

// Now returns the emitter's clock reading (the wall clock for a nil emitter).
func (e *Emitter) Now() time.Time {
	if e == nil || e.now == nil {
		return time.Now()
	}
	return e.now()
}

// NewSpan returns a fresh span id.
func (e *Emitter) NewSpan() string {
	if e == nil || e.newID == nil {
		return NewID()
	}
	return e.newID()
}

// NewID returns 16 random hex characters (an OpenTelemetry span id size).
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Collector keeps every event in memory. For tests and for building a
// session tree after a headless run.
type Collector struct {
	mu     sync.Mutex
	events []Event
}

// Emit appends ev.
func (c *Collector) Emit(ev Event) {
	c.mu.Lock()
	c.events = append(c.events, ev)
	c.mu.Unlock()
}

// Events returns a copy of everything collected so far.
func (c *Collector) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// Kinds returns the kinds of the collected events, in order.
func (c *Collector) Kinds() []Kind {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Kind, len(c.events))
	for i, ev := range c.events {
		out[i] = ev.Kind
	}
	return out
}
