package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"crewbench/mcpconn"
	"crewbench/session"
	"crewbench/ui"
)

// callLog: one file per workbench, created on the first call, every call's
// events renumbered into one ordered stream, each server's credentials
// hidden, and Begin refused after Close.
func TestCallLog_RecordsCallsIntoOneFileWithSecretsHidden(t *testing.T) {
	dir := t.TempDir()
	log := &callLog{Dir: dir, Version: "test", Meta: map[string]any{"workspace": "weather"}}
	if log.Path() != "" {
		t.Fatal("no file before the first call")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Begin not called yet, but %d files exist", len(entries))
	}
	const envSecret = "plain-env-value-71c9"
	const headerSecret = "bearer-value-55aa17"
	specs := []mcpconn.ServerSpec{
		{Name: "weather", Transport: mcpconn.TransportStdio, Command: "weather", Env: map[string]string{"WEATHER_API_KEY": envSecret}},
		{Name: "remote", Transport: mcpconn.TransportHTTP, URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer " + headerSecret}},
	}
	var paths []string
	var wg sync.WaitGroup
	for i, spec := range specs {
		sink, path, err := log.Begin(spec)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer log.End()
			em := session.NewEmitter(sink)
			em.Emit(session.Event{Kind: session.MCPToolExecutionStarted, Server: spec.Name, ToolName: "t",
				Data: map[string]any{"arguments": map[string]any{"key": envSecret, "auth": headerSecret, "n": i}}})
			em.Emit(session.Event{Kind: session.MCPToolExecutionCompleted, Server: spec.Name, ToolName: "t", Outcome: session.OutcomeOK})
		}()
	}
	wg.Wait()
	if paths[0] == "" || paths[0] != paths[1] || log.Path() != paths[0] {
		t.Fatalf("both calls must go to one file: %q", paths)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := log.Begin(specs[0]); err == nil {
		t.Error("Begin after Close must fail")
	}
	raw, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{envSecret, headerSecret} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("recording contains the secret %q:\n%s", secret, raw)
		}
	}
	f, err := session.ReadFile(paths[0], session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Command != ui.CallLogCommand || f.Header.Meta["workspace"] != "weather" {
		t.Errorf("header = %+v", f.Header)
	}
	if len(f.Events) != 4 {
		t.Fatalf("want 4 events, got %d", len(f.Events))
	}
	seen := map[int64]bool{}
	for _, ev := range f.Events {
		if seen[ev.Seq] {
			t.Errorf("seq %d used twice: each call's emitter numbers from 1, the log must renumber", ev.Seq)
		}
		seen[ev.Seq] = true
	}
	// The sessions view describes it from its header.
	l, err := dirSessions{Dir: dir}.List(context.Background())
	if err != nil || len(l) != 1 {
		t.Fatalf("list = %+v, %v", l, err)
	}
	if l[0].Command != ui.CallLogCommand || !strings.Contains(l[0].About, "try-a-tool calls · weather") {
		t.Errorf("listed as %q / %q", l[0].Command, l[0].About)
	}
}

// Close waits for a call still running (its verdict is the last event),
// but not forever.
func TestCallLog_CloseWaitsForRunningCalls(t *testing.T) {
	log := &callLog{Dir: t.TempDir()}
	sink, path, err := log.Begin(mcpconn.ServerSpec{Name: "s", Transport: mcpconn.TransportStdio, Command: "s"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		sink.Emit(session.Event{Kind: session.MCPToolExecutionFailed, Server: "s", Outcome: session.OutcomeCancelled})
		log.End()
	}()
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Events) != 1 || f.Events[0].Outcome != session.OutcomeCancelled {
		t.Errorf("the late verdict must be recorded: %+v", f.Events)
	}
}

// A file that is not a session (or is empty) is still listed, without a
// kind, rather than hiding the others.
func TestDirSessions_ListsUnreadableFilesWithoutKind(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := dirSessions{Dir: dir}.List(context.Background())
	if err != nil || len(l) != 1 || l[0].Command != "" {
		t.Fatalf("list = %+v, %v", l, err)
	}
}
