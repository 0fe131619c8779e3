package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/session"
)

// serveSpec starts `crewbench serve ARGS…` as a real stdio process (this
// test binary as the CLI), with its sessions in stateDir.
func serveSpec(t *testing.T, stateDir string, args ...string) mcpconn.ServerSpec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcpconn.ServerSpec{Name: "crew", Transport: mcpconn.TransportStdio, Command: exe,
		Args: append([]string{cliArg0, "serve"}, args...), Env: map[string]string{"XDG_STATE_HOME": stateDir},
		Policy: mcpconn.PolicySession, Timeouts: mcpconn.Timeouts{Call: 2 * time.Minute}}
}

// The demo crew published over stdio: one tool named after the crew with
// its placeholder as an argument; a call runs the crew and returns the
// final output first (what CrewAI reads), the tool-failure warning second,
// structured details, progress per task, and a recorded session.
func TestServeDemoOverStdio(t *testing.T) {
	state := t.TempDir()
	spec := serveSpec(t, state, "--demo")
	col := &session.Collector{}
	em := session.NewEmitter(col)
	pool := mcpconn.NewPool(em)
	defer pool.Close()
	d, err := mcpconn.Discover(t.Context(), spec, mcpconn.Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tools) != 1 || d.Tools[0].Name != "weekend_weather_brief" {
		t.Fatalf("tools %+v", d.Tools)
	}
	var schema struct {
		Properties map[string]struct {
			Type    string `json:"type"`
			Default string `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(d.Tools[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if p, ok := schema.Properties["city"]; !ok || p.Type != "string" {
		t.Errorf("schema %s", d.Tools[0].InputSchema)
	}
	if !strings.Contains(d.Tools[0].Description, `Runs the CrewAI crew "Weekend Weather Brief"`) {
		t.Errorf("description %q", d.Tools[0].Description)
	}

	r := mcpconn.Call(t.Context(), spec, "weekend_weather_brief", map[string]any{"city": "Porto"}, mcpconn.Options{Pool: pool, Emitter: em})
	if r.Outcome != session.OutcomeOK || len(r.Content) != 2 {
		t.Fatalf("call: %+v", r)
	}
	if !strings.HasPrefix(r.Text, "Lisbon's weekend looks travel-friendly") ||
		!strings.HasPrefix(r.Content[1].Text, "WARNING: the crew finished, but 1 tool call(s) failed") {
		t.Errorf("content: %q / %q", r.Text, r.Content[1].Text)
	}
	var sc struct {
		Status   string `json:"status"`
		Session  string `json:"session"`
		Tasks    []struct{ Name string }
		Failures []struct{ Tool, Reason string } `json:"tool_failures"`
	}
	if err := json.Unmarshal(r.Structured, &sc); err != nil {
		t.Fatalf("structured content %s: %v", r.Structured, err)
	}
	// The session is named by its file only: the server's paths stay its own.
	if sc.Status != "ok_with_tool_failures" || len(sc.Tasks) != 2 || len(sc.Failures) != 1 || sc.Session == "" ||
		sc.Session != filepath.Base(sc.Session) || strings.Contains(string(r.Structured), state) {
		t.Errorf("structured %+v", sc)
	}
	sessions := filepath.Join(state, "crewbench", "sessions")
	rec, err := session.ReadFile(filepath.Join(sessions, sc.Session), session.ReadOptions{})
	if err != nil || rec.Header.Command != "serve" || rec.Header.Meta["inputs"].(map[string]any)["city"] != "Porto" {
		t.Errorf("recording: %v %+v", err, rec)
	}
	// A second call is a run of its own: the demo's flaky fixture fails
	// its first call again (a retry in each recording).
	r2 := mcpconn.Call(t.Context(), spec, "weekend_weather_brief", map[string]any{"city": "Porto"}, mcpconn.Options{Pool: pool})
	var sc2 struct{ Session string }
	if err := json.Unmarshal(r2.Structured, &sc2); err != nil || r2.Outcome != session.OutcomeOK {
		t.Fatalf("second call: %+v %v", r2, err)
	}
	if a, b := flakyRetries(t, filepath.Join(sessions, sc.Session)), flakyRetries(t, filepath.Join(sessions, sc2.Session)); a != 1 || b != 1 {
		t.Errorf("retries of the flaky desk tool: first call %d, second call %d; want 1 each", a, b)
	}
	progress := 0
	for _, ev := range col.Events() {
		if ev.Kind == session.MCPNotification && ev.Str("kind") == "progress" && strings.Contains(ev.Str("message"), "task ") {
			progress++
		}
	}
	if progress != 4 {
		t.Errorf("%d progress notifications, want one per task of each call (2 × 2)", progress)
	}
}

// A missing required input is an isError result naming it; the server
// keeps serving.
func TestServeMissingInput(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		"crew.jsonc":     `{"name": "Greeter Crew", "agents": ["a"], "tasks": [{"name": "t", "description": "Greet {name} in {lang}", "expected_output": "A greeting", "agent": "a"}], "inputs": {"lang": "English"}}`,
		"agents/a.jsonc": `{"role": "Greeter", "goal": "Greet", "backstory": "Friendly", "llm": "scripted:script.yaml"}`,
		"script.yaml":    "replies:\n  - \"Final Answer: hello\"\n",
	})
	spec := serveSpec(t, t.TempDir(), dir, "--no-record")
	pool := mcpconn.NewPool(nil)
	defer pool.Close()
	d, err := mcpconn.Discover(t.Context(), spec, mcpconn.Options{Pool: pool})
	if err != nil || len(d.Tools) != 1 || d.Tools[0].Name != "greeter_crew" {
		t.Fatalf("tools %+v, %v", d, err)
	}
	if s := string(d.Tools[0].InputSchema); !strings.Contains(s, `"required":["name"]`) || !strings.Contains(s, `"default":"English"`) {
		t.Errorf("schema %s: name is required, lang has the crew's default", s)
	}
	r := mcpconn.Call(t.Context(), spec, "greeter_crew", map[string]any{}, mcpconn.Options{Pool: pool})
	if r.Outcome != session.OutcomeIsError || !strings.Contains(r.Text, "missing required input(s): name") {
		t.Errorf("missing input: %+v", r)
	}
	r = mcpconn.Call(t.Context(), spec, "greeter_crew", map[string]any{"name": "Ana"}, mcpconn.Options{Pool: pool})
	if r.Outcome != session.OutcomeOK || r.Text != "hello" {
		t.Errorf("call: %+v", r)
	}
}

// Over streamable HTTP: the URL goes to stderr, a client calls the crew,
// and cancelling the command's context stops it cleanly.
// startServeHTTP runs `serve --demo --http` under ctx and returns its URL,
// its exit code channel and its stderr so far.
func startServeHTTP(t *testing.T, ctx context.Context, project ...string) (string, <-chan int, func() string) {
	t.Helper()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	var mu sync.Mutex
	read := func() string {
		mu.Lock()
		defer mu.Unlock()
		return stderr.String()
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			stderr.WriteString(line + "\n")
			mu.Unlock()
			if _, u, ok := strings.Cut(line, "listening on "); ok {
				urls <- u
			}
		}
	}()
	done := make(chan int, 1)
	go func() {
		args := []string{"serve", "--http", "127.0.0.1:0", "--no-record", "--token", "t0ken-for-the-test"}
		if len(project) == 0 {
			project = []string{"--demo"}
		}
		done <- execute(ctx, append(args, project...), strings.NewReader(""), io.Discard, pw)
		pw.Close()
	}()
	select {
	case url := <-urls:
		return url, done, read
	case code := <-done:
		t.Fatalf("serve exited %d:\n%s", code, read())
	case <-time.After(30 * time.Second):
		t.Fatal("no listening URL")
	}
	return "", nil, nil
}

func TestServeOverHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done, stderr := startServeHTTP(t, ctx)
	spec := mcpconn.ServerSpec{Name: "crew", Transport: mcpconn.TransportHTTP, URL: url, Policy: mcpconn.PolicySession,
		Headers: map[string]string{"Authorization": "Bearer t0ken-for-the-test"}, Timeouts: mcpconn.Timeouts{Call: 2 * time.Minute}}
	r := mcpconn.Call(ctx, spec, "weekend_weather_brief", map[string]any{"city": "Porto"}, mcpconn.Options{})
	if r.Outcome != session.OutcomeOK || !strings.HasPrefix(r.Text, "Lisbon's weekend") {
		t.Fatalf("call over HTTP: %+v", r)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d:\n%s", code, stderr())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context ended")
	}
	if !strings.Contains(stderr(), `weekend_weather_brief {"city":"Porto"} → ok with 1 tool failure(s)`) {
		t.Errorf("the per-call log line is missing:\n%s", stderr())
	}
}

// A call still running when serve stops (Ctrl+C) gets an isError answer
// saying cancelled, not an empty HTTP 200.
func TestServeCancelledCallAnswers(t *testing.T) {
	// The first task answers at once, the second waits for ever.
	dir := t.TempDir()
	for name, content := range map[string]string{
		"crew.jsonc": `{"name": "Two Steps", "agents": ["a"], "tasks": [
			{"name": "quick", "description": "About {city}", "expected_output": "e", "agent": "a"},
			{"name": "stuck", "description": "More", "expected_output": "e", "agent": "a"}]}`,
		"agents/a.jsonc": `{"role": "R", "goal": "G", "backstory": "B"}`,
		"script.yaml": "conversations:\n  - task: quick\n    replies: [\"Final Answer: done\"]\n" +
			"  - task: stuck\n    replies: [{content: \"Final Answer: late\", delay: 10m}]\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	serveCtx, stopServe := context.WithCancel(context.Background())
	defer stopServe()
	url, done, stderr := startServeHTTP(t, serveCtx, dir, "--llm", "scripted:"+filepath.Join(dir, "script.yaml"))
	spec := mcpconn.ServerSpec{Name: "crew", Transport: mcpconn.TransportHTTP, URL: url, Policy: mcpconn.PolicySession,
		Headers: map[string]string{"Authorization": "Bearer t0ken-for-the-test"}, Timeouts: mcpconn.Timeouts{Call: 2 * time.Minute}}
	var once sync.Once
	// The first progress notification says the crew is running.
	em := session.NewEmitter(session.SinkFunc(func(ev session.Event) {
		if ev.Kind == session.MCPNotification {
			once.Do(stopServe)
		}
	}))
	r := mcpconn.Call(context.Background(), spec, "two_steps", map[string]any{"city": "Porto"}, mcpconn.Options{Emitter: em})
	if r.Outcome != session.OutcomeIsError || !strings.Contains(r.Text, "cancelled: the server is shutting down") {
		t.Errorf("call cancelled by serve stopping: outcome %q, text %q, error %q", r.Outcome, r.Text, r.Error)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context ended")
	}
	if !strings.Contains(stderr(), `two_steps {"city":"Porto"} → cancelled`) {
		t.Errorf("the per-call log line does not say cancelled:\n%s", stderr())
	}
}

// Over stdio, the server ends by itself (exit 0) when its client closes
// stdin, and writes nothing but MCP to stdout.
func TestServeStdioEndsWhenStdinCloses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, cliArg0, "serve", "--demo", "--no-record")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	time.Sleep(300 * time.Millisecond)
	_ = stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("serve did not exit after stdin closed")
	}
	if out := strings.TrimSpace(stdout.String()); out != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("stdout must carry only MCP: %q", out)
	}
	if !strings.Contains(stderr.String(), `crew "Weekend Weather Brief" as tool weekend_weather_brief`) {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// flakyRetries counts the retries of the demo's flaky fixture in a
// recorded session.
func flakyRetries(t *testing.T, path string) int {
	t.Helper()
	f, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range f.Events {
		if ev.Kind == session.MCPRetryScheduled && strings.Contains(ev.Server, "flaky") {
			n++
		}
	}
	return n
}
