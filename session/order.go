package session

// Ordered records the events of scopes that run at the same time one
// scope after another, in an order fixed in advance, so a recording does
// not depend on which goroutine was faster. The events of the first scope
// not yet done (and of every scope opened inside it) go to the sink as
// they come; those of a later scope are held, each with the time and id it
// got when it happened, and stamped (Seq, emission_sequence,
// previous_event_id, …) and delivered when every scope before it is done.
// Events outside the scopes are not held.
type Ordered struct {
	e     *Emitter
	spans []string
	// held[i] are the events of spans[i] waiting for their turn; head is
	// the first scope not done.
	held [][]Event
	done []bool
	head int
}

// heldScope is where an event in a held scope belongs.
type heldScope struct {
	o *Ordered
	i int
}

// Order starts recording the scopes spans (already opened) in that order.
// Each must be marked Done once nothing more is emitted in it; the
// events held for a scope are delivered by the Done that makes it the
// first scope not done. A nil Emitter returns an Ordered that does
// nothing.
func (e *Emitter) Order(spans []string) *Ordered {
	if e == nil || e.sink == nil {
		return nil
	}
	o := &Ordered{e: e, spans: spans, held: make([][]Event, len(spans)), done: make([]bool, len(spans))}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held == nil {
		e.held = map[string]heldScope{}
	}
	for i, s := range spans {
		e.held[s] = heldScope{o, i}
	}
	return o
}

// Done marks span finished and delivers, in order, what the scopes after
// it were holding up to the next scope not done.
func (o *Ordered) Done(span string) {
	if o == nil {
		return
	}
	e := o.e
	e.mu.Lock()
	var ready []Event
	for i, s := range o.spans {
		if s == span && !o.done[i] {
			o.done[i] = true
			break
		}
	}
	for o.head < len(o.spans) && o.done[o.head] {
		o.head++
		if o.head < len(o.spans) {
			ready = append(ready, o.held[o.head]...)
			o.held[o.head] = nil
		}
	}
	if o.head == len(o.spans) {
		for s, h := range e.held {
			if h.o == o {
				delete(e.held, s)
			}
		}
	}
	for i := range ready {
		e.stamp(&ready[i])
	}
	e.deliver(ready...)
}

// hold keeps ev back when it belongs to a scope of an Ordered that is not
// yet its turn, and notes the scopes ev opens inside a held scope. Called
// with e.mu held.
func (e *Emitter) hold(ev Event) bool {
	if len(e.held) == 0 {
		return false
	}
	h, ok := e.held[ev.Span]
	if !ok || ev.Span == "" {
		if h, ok = e.held[ev.Parent]; !ok || ev.Parent == "" {
			return false
		}
	}
	if ev.Kind.IsStart() && ev.Span != "" {
		if _, member := e.held[ev.Span]; !member {
			e.held[ev.Span] = h
		}
	}
	if h.i <= h.o.head {
		return false
	}
	h.o.held[h.i] = append(h.o.held[h.i], ev)
	return true
}
