package mcpconn

import (
	"context"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

// A pool connects servers concurrently, shows each one's state, reconnects
// on demand (a new process) and reaps every child on Close.
func TestPoolStatesReconnectAndClose(t *testing.T) {
	leakCheck(t)
	em, col := recorder()
	p := NewPool(em)
	good := fixtureSpec(t, "inventory")
	crash := fixtureSpec(t, "crash-on-start")
	hang := fixtureSpec(t, "hang-init", "--ignore-eof") // survives stdin EOF: needs SIGTERM
	hang.Timeouts.Connect = 300 * time.Millisecond
	web := httpSpec(t, "weather", "sse")
	streamable := httpSpec(t, "weather", "http") // with the GET stream for idle notifications
	start := time.Now()
	if err := p.Connect(context.Background(), good, crash, hang, web, streamable); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("concurrent connect took %s", d)
	}
	want := map[string]struct {
		state State
		class string
	}{
		"inventory":      {StateReady, ""},
		"crash-on-start": {StateFailed, session.OutcomeTransportClosed},
		"hang-init":      {StateFailed, session.OutcomeTimeout},
		"weather-sse":    {StateReady, ""},
		"weather-http":   {StateReady, ""},
	}
	for _, st := range p.Status() {
		w := want[st.Name]
		if st.State != w.state || st.Class != w.class {
			t.Errorf("%s: %s/%s (%s), want %s/%s", st.Name, st.State, st.Class, st.Error, w.state, w.class)
		}
	}
	inv, _ := p.ServerStatus("inventory")
	if inv.Discovery == nil || len(inv.Discovery.Tools) != 3 {
		t.Fatalf("inventory discovery %+v", inv.Discovery)
	}
	if _, err := p.Ping(context.Background(), "inventory", time.Second); err != nil {
		t.Errorf("ping: %v", err)
	}
	oldPid := inv.Pid
	if _, err := p.Reconnect(context.Background(), "inventory"); err != nil {
		t.Fatal(err)
	}
	inv, _ = p.ServerStatus("inventory")
	if inv.State != StateReady || inv.Pid == oldPid || inv.Pid == 0 {
		t.Errorf("after reconnect: %+v (old pid %d)", inv, oldPid)
	}
	assertGone(t, []int{oldPid})

	// Session policy reuses the pool's process: no new spawn per call.
	spawnsBefore := len(spawnedPids(col))
	sess := good
	sess.Policy = PolicySession
	for i := 0; i < 3; i++ {
		r := Call(context.Background(), sess, "lookup_stock", map[string]any{"sku": "SKU-1001"}, Options{Pool: p, Emitter: em})
		if r.Outcome != session.OutcomeOK {
			t.Fatalf("session call: %+v", r)
		}
	}
	if n := len(spawnedPids(col)) - spawnsBefore; n != 0 {
		t.Errorf("session policy spawned %d servers", n)
	}

	pids := spawnedPids(col)
	start = time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("close took %s", d)
	}
	assertGone(t, pids)
	for _, st := range p.Status() {
		if st.State != StateClosed {
			t.Errorf("%s: %s after Close", st.Name, st.State)
		}
	}
	states := eventsOf(col, session.MCPServerState)
	if len(states) < 8 {
		t.Errorf("only %d state events", len(states))
	}
}

// The session policy reconnects once when its server died.
func TestSessionPolicyReconnectsAfterServerDeath(t *testing.T) {
	leakCheck(t)
	p := NewPool(nil)
	defer p.Close()
	spec := fixtureSpec(t, "inventory")
	spec.Policy = PolicySession
	if err := p.Connect(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	st, _ := p.ServerStatus("inventory")
	killNow(st.Pid)
	time.Sleep(100 * time.Millisecond)
	r := Call(context.Background(), spec, "lookup_stock", map[string]any{"sku": "SKU-1001"}, Options{Pool: p})
	if r.Outcome != session.OutcomeOK || len(r.Attempts) != 2 || r.Attempts[0].Outcome != session.OutcomeTransportClosed {
		t.Errorf("%+v", r.Attempts)
	}
	st2, _ := p.ServerStatus("inventory")
	if st2.Pid == st.Pid || st2.State != StateReady {
		t.Errorf("not reconnected: %+v", st2)
	}
}

// A grandchild in the server's process group is reaped with it.
func TestCloseReapsProcessGroup(t *testing.T) {
	leakCheck(t)
	// sh starts a background sleeper (the grandchild), then runs the
	// fixture in the foreground so the session works normally.
	inner := fixtureSpec(t, "inventory")
	script := "sleep 300 & exec " + shellQuote(inner.Command)
	for _, a := range inner.Args {
		script += " " + shellQuote(a)
	}
	spec := ServerSpec{Name: "wrapped", Transport: TransportStdio, Command: "/bin/sh", Args: []string{"-c", script},
		Timeouts: Timeouts{Shutdown: fastShutdown}}
	em, col := recorder()
	p := NewPool(em)
	if err := p.Connect(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	st, _ := p.ServerStatus("wrapped")
	if st.State != StateReady {
		t.Fatalf("%+v", st)
	}
	pgid := st.Pid
	p.Close()
	deadline := time.Now().Add(3 * time.Second)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatal("the process group (sleep grandchild) survived Close")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = col
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
