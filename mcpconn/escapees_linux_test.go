//go:build linux

package mcpconn

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

// A grandchild that called setsid() left the server's process group, so
// signalling the group misses it; Close must end it all the same.
func TestCloseReapsADescendantThatLeftTheGroup(t *testing.T) {
	leakCheck(t)
	spec := fixtureSpec(t, "hang-init", "--ignore-eof", "--setsid-child")
	spec.Timeouts.Connect = 2 * time.Second
	em, col := recorder()
	d, _ := Discover(context.Background(), spec, Options{Emitter: em})
	if d == nil || d.Outcome != session.OutcomeTimeout {
		t.Fatalf("discovery of hang-init: %+v", d)
	}
	pid := 0
	for _, ev := range eventsOf(col, session.MCPStderr) {
		if line := ev.Str(session.KeyLine); strings.HasPrefix(line, "hang-init: setsid child pid ") {
			_, _ = fmt.Sscanf(line, "hang-init: setsid child pid %d", &pid)
		}
	}
	if pid == 0 {
		t.Fatal("the fixture did not say which child it started")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if st, ok := parseProcStat(b); ok && st.state != 'Z' {
			t.Errorf("the setsid child %d is still running after Close (state %c)", pid, st.state)
		}
	}
	for _, ev := range eventsOf(col, session.Warning) {
		if strings.Contains(ev.Str(session.KeyMessage), "could not end") {
			t.Errorf("unexpected warning: %s", ev.Str(session.KeyMessage))
		}
	}
}

func TestParseProcStat(t *testing.T) {
	st, ok := parseProcStat([]byte("42 (a b) c) S 7 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 10 18446744073709551615"))
	if !ok || st.ppid != 7 || st.start != 98765 || st.state != 'S' {
		t.Errorf("parseProcStat = %+v, %v", st, ok)
	}
	if _, ok := parseProcStat([]byte("garbage")); ok {
		t.Error("garbage parsed")
	}
}
