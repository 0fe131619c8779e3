package ui

import (
	"context"
	"testing"

	"crewbench/session"
)

// The event channel drops late events instead of panicking after close.
func TestEventChannelCloseIsSafe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink, ch, closeFn := NewEventChannel(ctx, 1)
	sink.Emit(session.Event{Kind: session.Warning})
	closeFn()
	closeFn()
	sink.Emit(session.Event{Kind: session.Warning}) // must not panic
	n := 0
	for range ch {
		n++
	}
	if n != 1 {
		t.Errorf("got %d events", n)
	}
}
