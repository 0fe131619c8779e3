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

// Emitter stamps events with a sequence number, time and id before handing
// them to its sink. Engine packages hold an *Emitter; a nil *Emitter drops
// everything, so callers never need a nil check.
type Emitter struct {
	sink  Sink
	now   func() time.Time
	seq   atomic.Int64
	newID func() string
}

// NewEmitter returns an emitter writing to sink with the wall clock.
func NewEmitter(sink Sink) *Emitter {
	return &Emitter{sink: sink, now: time.Now, newID: NewID}
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

// Emit stamps ev and forwards it. It returns the stamped event.
func (e *Emitter) Emit(ev Event) Event {
	if e == nil || e.sink == nil {
		return ev
	}
	ev.Seq = e.seq.Add(1)
	if ev.Time.IsZero() {
		ev.Time = e.now()
	}
	if ev.ID == "" {
		ev.ID = e.newID()
	}
	e.sink.Emit(ev)
	return ev
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
