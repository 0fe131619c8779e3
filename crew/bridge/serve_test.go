package bridge

import (
	"net"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"crewbench/session"
)

// TestRefusedConnectionLeavesNoReader: a bridge connection with a wrong
// token that keeps sending is refused, and its reader goroutine ends with
// serve even when the lines it read had filled the hand-over channel.
func TestRefusedConnectionLeavesNoReader(t *testing.T) {
	server, client := net.Pipe()
	var written atomic.Int32
	go func() {
		if _, err := client.Write([]byte(`{"op":"hello","token":"wrong"}` + "\n")); err != nil {
			return
		}
		// One line per write: each is its own batch on the reader side.
		for i := 0; i < 64; i++ {
			if _, err := client.Write([]byte(`{"op":"warning","message":"x"}` + "\n")); err != nil {
				return
			}
			written.Add(1)
		}
	}()
	// The refusal's warning holds serve until the reader has filled the
	// channel (16 batches) and is blocked handing over the next one.
	sink := session.SinkFunc(func(session.Event) {
		deadline := time.Now().Add(time.Minute)
		for written.Load() < 17 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	})
	r := &Run{token: "right", em: session.NewEmitter(sink)}
	r.connWG.Add(1)
	r.serve(&conn{c: server})
	if got := written.Load(); got < 17 {
		t.Fatalf("the reader took only %d lines before serve returned", got)
	}
	deadline := time.Now().Add(time.Minute)
	for readersRunning() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("readLines still running a minute after serve returned")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = client.Close()
	if len(r.res.Warnings) != 1 || !strings.Contains(r.res.Warnings[0], "wrong token") {
		t.Errorf("warnings %q, want the wrong-token refusal", r.res.Warnings)
	}
}

// readersRunning counts the goroutines inside readLines.
func readersRunning() int {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
	return strings.Count(b.String(), "bridge.readLines")
}
