package mcpconn

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

// Interop with the official reference servers installed from npm by
// scripts/test.sh. Absent servers skip these tests locally; with
// CREWBENCH_CI=1 they fail instead, so CI cannot pass without running them.

func npmServer(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("CREWBENCH_NPM_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".cache", "npm")
	}
	bin, _ := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", name))
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CREWBENCH_CI") == "1" {
			t.Fatalf("interop server %s missing at %s (scripts/test.sh installs it)", name, bin)
		}
		t.Skipf("%s not installed (run scripts/test.sh): %v", name, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CREWBENCH_CI") == "1" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	return bin
}

func everythingChecks(t *testing.T, spec ServerSpec) {
	t.Helper()
	em, col := recorder()
	d, err := Discover(context.Background(), spec, Options{Emitter: em})
	if err != nil {
		t.Fatal(err)
	}
	if d.Info.ProtocolVersion != DefaultProtocolVersion || len(d.Tools) < 5 {
		t.Fatalf("info %+v, %d tools", d.Info, len(d.Tools))
	}
	echo, ok := d.Tool("echo")
	if !ok || !strings.Contains(string(echo.InputSchema), "message") {
		t.Fatalf("echo tool: %+v", echo)
	}
	r := Call(context.Background(), spec, "echo", map[string]any{"message": "hi", "dropped": nil}, Options{Emitter: em})
	if r.Outcome != session.OutcomeOK || r.Text != "Echo: hi" {
		t.Errorf("echo: %+v", r)
	}
	r = Call(context.Background(), spec, "get-sum", map[string]any{"a": 2, "b": 3}, Options{Emitter: em})
	if r.Outcome != session.OutcomeOK || !strings.Contains(r.Text, "5") {
		t.Errorf("get-sum: %+v", r)
	}
	// Several content items: CrewAI passes on the first one only.
	r = Call(context.Background(), spec, "get-tiny-image", nil, Options{Emitter: em})
	if r.Outcome != session.OutcomeOK || len(r.Content) < 2 || r.Text != r.Content[0].Text {
		t.Errorf("get-tiny-image: %d items, text %q", len(r.Content), r.Text)
	}
	// Unknown tool: not retried.
	r = Call(context.Background(), spec, "no-such-tool", nil, Options{Emitter: em})
	if r.Outcome == session.OutcomeOK || !r.Failed {
		t.Errorf("unknown tool: %+v", r)
	}
	// Progress notifications reach the event stream.
	sess := spec
	sess.Policy = PolicySession
	r = Call(context.Background(), sess, "trigger-long-running-operation", map[string]any{"duration": 1, "steps": 2}, Options{Emitter: em})
	if r.Outcome != session.OutcomeOK {
		t.Errorf("long-running: %+v", r)
	}
	progress := 0
	for _, e := range eventsOf(col, session.MCPNotification) {
		if e.Str("kind") == "progress" {
			progress++
		}
	}
	if progress == 0 {
		t.Error("no progress notifications seen")
	}
	assertGone(t, spawnedPids(col))
}

func TestInteropEverythingStdio(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	leakCheck(t)
	spec := ServerSpec{Name: "everything", Transport: TransportStdio, Command: bin, Args: []string{"stdio"},
		Env: map[string]string{"EVERYTHING_API_KEY": "k"}, Timeouts: Timeouts{Connect: 20 * time.Second, Shutdown: time.Second}}
	everythingChecks(t, spec)

	// get-env shows the environment the server really got: CrewAI's six
	// (those present) plus spec.Env, nothing else.
	r := Call(context.Background(), spec, "get-env", nil, Options{})
	var env map[string]string
	if err := json.Unmarshal([]byte(r.Text), &env); err != nil {
		t.Fatalf("get-env: %v %q", err, r.Text)
	}
	want := map[string]bool{}
	for _, v := range StdioEnvironment(spec, nil) {
		want[v.Name] = true
	}
	for k := range env {
		// node may add nothing to process.env; anything else leaked.
		if !want[k] {
			t.Errorf("server saw %s, which CrewAI does not pass", k)
		}
	}
	if env["EVERYTHING_API_KEY"] != "k" {
		t.Errorf("spec env missing: %v", env)
	}
}

func TestInteropEverythingStreamableHTTP(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	leakCheck(t) // first, so its check runs after the server is stopped
	url := startEverythingHTTP(t, bin)
	everythingChecks(t, ServerSpec{Name: "everything-http", Transport: TransportHTTP, URL: url})
	h := ProbeHTTP(context.Background(), url, nil, 5*time.Second)
	if h.Health != HealthOK && h.Health != HealthStream {
		t.Errorf("health probe on the reference server: %+v", h)
	}
}

func TestInteropFilesystemStdio(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	leakCheck(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from crewbench\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := ServerSpec{Name: "filesystem", Transport: TransportStdio, Command: bin, Args: []string{root},
		Timeouts: Timeouts{Connect: 20 * time.Second, Shutdown: time.Second}}
	em, col := recorder()
	d, err := Discover(context.Background(), spec, Options{Emitter: em})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Tool("read_text_file"); !ok {
		t.Fatalf("tools: %+v", d.Tools)
	}
	r := Call(context.Background(), spec, "read_text_file", map[string]any{"path": filepath.Join(root, "hello.txt")}, Options{Emitter: em})
	if r.Outcome != session.OutcomeOK || !strings.Contains(r.Text, "hello from crewbench") {
		t.Errorf("read: %+v", r)
	}
	r = Call(context.Background(), spec, "write_file", map[string]any{"path": filepath.Join(root, "out.txt"), "content": "written"}, Options{Emitter: em})
	if r.Outcome != session.OutcomeOK {
		t.Errorf("write: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "out.txt")); string(b) != "written" {
		t.Errorf("file content %q", b)
	}
	// Outside the allowed root: the server refuses (an isError result).
	r = Call(context.Background(), spec, "read_text_file", map[string]any{"path": "/etc/hostname"}, Options{Emitter: em})
	if r.Outcome == session.OutcomeOK {
		t.Errorf("read outside root succeeded: %+v", r)
	}
	assertGone(t, spawnedPids(col))
}

// startEverythingHTTP runs server-everything's streamable HTTP mode on a
// free loopback port and returns its /mcp URL; the process group is killed
// in cleanup.
func startEverythingHTTP(t *testing.T, bin string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	ownGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		signalGroup(cmd.Process.Pid, false)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			signalGroup(cmd.Process.Pid, true)
			<-done
		}
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() { // keep draining until the process exits
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("server-everything did not start listening")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}
