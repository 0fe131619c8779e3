package mcpconn

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// With a Reaper, Discover returns once the tools are listed and the server
// is reaped by Wait (issue 13, item 11): here the server takes 400 ms to
// exit after its stdin closes, and that wait falls after Discover.
func TestDiscoverReaperClosesAfterReturn(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the slow-exiting server is a shell script")
	}
	leakCheck(t)
	spec := fixtureSpec(t, "weather")
	quoted := []string{shellQuote(spec.Command)}
	for _, a := range spec.Args {
		quoted = append(quoted, shellQuote(a))
	}
	script := filepath.Join(t.TempDir(), "slow-exit")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"+strings.Join(quoted, " ")+"\nsleep 0.4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec.Command, spec.Args = script, nil
	spec.Timeouts.Shutdown = 2 * time.Second
	em, col := recorder()
	r := &Reaper{}
	d, err := Discover(context.Background(), spec, Options{Emitter: em, Reaper: r, Cache: &ToolsCache{}})
	if err != nil || len(d.Tools) == 0 {
		t.Fatalf("discover: %v %+v", err, d)
	}
	returned := time.Now()
	r.Wait()
	if waited := time.Since(returned); waited < 300*time.Millisecond {
		t.Errorf("Wait took %s: the server was closed before Discover returned", waited)
	}
	assertGone(t, spawnedPids(col))
}
