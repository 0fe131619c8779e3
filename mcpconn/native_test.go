package mcpconn

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures"
	"crewbench/session"
)

// The native policy with time scaled down: three timed-out attempts on one
// spawned server, backoff 1×B then 2×B, CrewAI's final text.
func TestNativeTimeoutRetriesWithBackoff(t *testing.T) {
	leakCheck(t)
	spec := fixtureSpec(t, "slow")
	spec.Timeouts.Call = 300 * time.Millisecond
	spec.Timeouts.Backoff = 200 * time.Millisecond
	em, col := recorder()
	r := Call(context.Background(), spec, "slow_report", map[string]any{"seconds": 5}, Options{Emitter: em})

	if len(r.Attempts) != 3 {
		t.Fatalf("attempts = %d, want 3: %+v", len(r.Attempts), r.Attempts)
	}
	// Lower bounds are exact (the timeout and the backoff are waited out);
	// the slack is wide because a busy machine delays timers by a second or
	// more, yet below the 5 s the server would take to answer, so a
	// timeout that never fires still fails.
	for _, a := range r.Attempts {
		if a.Outcome != session.OutcomeTimeout || !within(a.Duration, 300*time.Millisecond, 2500*time.Millisecond) {
			t.Errorf("attempt %d: outcome %s after %s, want timeout after ~300ms", a.N, a.Outcome, a.Duration)
		}
	}
	g := gaps(r)
	if !within(g[0], 200*time.Millisecond, 2*time.Second) || !within(g[1], 400*time.Millisecond, 2*time.Second) {
		t.Errorf("gaps = %v, want ~200ms then ~400ms", g)
	}
	const want = "Error executing MCP tool slow_report: Operation timed out after 0.3 seconds"
	if r.Text != want || !r.Failed || !r.Raised || r.FailureReason != FailureException {
		t.Errorf("result = %q failed=%v raised=%v reason=%s, want %q raised", r.Text, r.Failed, r.Raised, r.FailureReason, want)
	}
	if r.Outcome != session.OutcomeTimeout {
		t.Errorf("outcome = %s", r.Outcome)
	}
	// One server for the whole call: retries reuse the call's session.
	if pids := spawnedPids(col); len(pids) != 1 {
		t.Errorf("spawned %d servers, want 1", len(pids))
	} else {
		assertGone(t, pids)
	}
	retries := eventsOf(col, session.MCPRetryScheduled)
	if len(retries) != 2 || retries[0].Duration != 200*time.Millisecond || retries[1].Duration != 400*time.Millisecond {
		t.Errorf("retry events = %+v", retries)
	}
	if n := len(eventsOf(col, session.MCPAttemptFinished)); n != 3 {
		t.Errorf("%d attempt_finished events", n)
	}
	failed := eventsOf(col, session.MCPToolExecutionFailed)
	if len(failed) != 1 || failed[0].ErrorType != "timeout" || failed[0].Error != want {
		t.Errorf("mcp_tool_execution_failed = %+v", failed)
	}
	// The server saw notifications/cancelled and said so on stderr.
	sawCancel := false
	for _, e := range eventsOf(col, session.MCPStderr) {
		if strings.Contains(e.Str("line"), "cancelled after") {
			sawCancel = true
		}
	}
	if !sawCancel {
		t.Error("no stderr line shows the server noticing the cancellation")
	}
}

// CrewAI's defaults are the defaults: nothing in Timeouts means 30 s / 3 / 1 s.
func TestDefaultLimits(t *testing.T) {
	spec := ServerSpec{Transport: TransportStdio, Command: "x"}
	cases := []struct {
		p    Policy
		want Limits
	}{
		{PolicyNative, Limits{Connect: 30 * time.Second, Discovery: 30 * time.Second, Call: 30 * time.Second, Attempts: 3, Backoff: time.Second}},
		{PolicyHTTPSString, Limits{Connect: 60 * time.Second, Discovery: 30 * time.Second, Call: 60 * time.Second, Attempts: 3, Backoff: time.Second}},
		{PolicyAdapter, Limits{Connect: 30 * time.Second, Discovery: 30 * time.Second, Call: 0, Attempts: 1, Backoff: time.Second}},
		{PolicySession, Limits{Connect: 30 * time.Second, Discovery: 30 * time.Second, Call: 30 * time.Second, Attempts: 1, Backoff: time.Second}},
	}
	for _, c := range cases {
		got := CallLimits(spec, c.p)
		if got.MaxMessage != DefaultMaxMessage || got.MaxTools != DefaultMaxTools {
			t.Errorf("%s: size limits %d / %d, want the defaults", c.p, got.MaxMessage, got.MaxTools)
		}
		got.Probe, got.Shutdown, got.MaxMessage, got.MaxTools = 0, 0, 0, 0
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.p, got, c.want)
		}
	}
	https := DiscoveryLimits(ServerSpec{Ref: RefHTTPS, URL: "https://h/mcp"})
	if https.Connect != 10*time.Second || https.Discovery != 15*time.Second || https.Attempts != 3 {
		t.Errorf("https discovery limits %+v", https)
	}
	o := CallLimits(ServerSpec{Timeouts: Timeouts{Call: time.Minute, Attempts: 5}}, PolicyNative)
	if o.Call != time.Minute || o.Attempts != 5 || o.Connect != 30*time.Second {
		t.Errorf("override: %+v", o)
	}
	if o.backoff(1) != time.Second || o.backoff(2) != 2*time.Second || o.backoff(3) != 4*time.Second {
		t.Errorf("backoff doubling wrong")
	}
}

// Every native call spawns its own server: N calls, N spawns, N exits,
// nothing left running.
func TestNativeFreshSessionPerCall(t *testing.T) {
	leakCheck(t)
	spec := fixtureSpec(t, "weather")
	em, col := recorder()
	for i := 0; i < 3; i++ {
		r := Call(context.Background(), spec, "getForecast", map[string]any{"city": "Oslo"}, Options{Emitter: em})
		if r.Outcome != session.OutcomeOK || r.Failed || r.Text == "" {
			t.Fatalf("call %d: %+v", i, r)
		}
		if len(r.Connects) != 1 || r.Connects[0].Pid == 0 {
			t.Fatalf("call %d connects: %+v", i, r.Connects)
		}
	}
	pids := spawnedPids(col)
	if len(pids) != 3 || pids[0] == pids[1] || pids[1] == pids[2] {
		t.Fatalf("spawned pids %v, want 3 distinct", pids)
	}
	if n := len(eventsOf(col, session.MCPProcessExited)); n != 3 {
		t.Errorf("%d exit events, want 3", n)
	}
	assertGone(t, pids)
	started := eventsOf(col, session.MCPConnectionStarted)
	if len(started) != 3 {
		t.Errorf("%d mcp_connection_started, want 3", len(started))
	}
	// CrewAI's event server_name for stdio: command and args joined with spaces.
	if started[0].Server != spec.Command+" "+strings.Join(spec.Args, " ") {
		t.Errorf("event server_name = %q", started[0].Server)
	}
}

// isError on the native path: a ToolFailure with reason mcp_error and the
// first content item's text; no retry.
func TestNativeIsErrorAndJSONRPCErrors(t *testing.T) {
	leakCheck(t)
	spec := fixtureSpec(t, "errors")
	em, col := recorder()
	cases := []struct {
		tool, outcome, text string
		attempts            int
		code                int
		failure             string
	}{
		{"returns_is_error", session.OutcomeIsError, fixtures.ErrorsIsErrorText, 1, 0, FailureMCPError},
		// Not auth, not "not found": CrewAI retries it, 3 attempts.
		{"returns_jsonrpc_error", session.OutcomeJSONRPCError, "Error executing MCP tool returns_jsonrpc_error: Operation failed after 3 attempts: ", 3, -32603, FailureException},
		{"panics", session.OutcomeJSONRPCError, "Error executing MCP tool panics: Operation failed after 3 attempts: ", 3, -32603, FailureException},
		{"returns_unknown_content", session.OutcomeProtocol, "Error executing MCP tool returns_unknown_content: Operation failed after 3 attempts: ", 3, 0, FailureException},
		{"no_such_tool", session.OutcomeNotFound, "Error executing MCP tool no_such_tool: Resource not found: tool 'no_such_tool' not found", 1, -32602, FailureException},
		{"returns_empty_content", session.OutcomeOK, "meta=None content=[] structuredContent=None isError=False", 1, 0, ""},
	}
	spec.Timeouts.Backoff = 10 * time.Millisecond
	for _, c := range cases {
		r := Call(context.Background(), spec, c.tool, nil, Options{Emitter: em})
		if r.Outcome != c.outcome || len(r.Attempts) != c.attempts || r.Code != c.code || r.FailureReason != c.failure {
			t.Errorf("%s: outcome %s code %d attempts %d reason %q; want %s %d %d %q (%s)", c.tool, r.Outcome, r.Code,
				len(r.Attempts), r.FailureReason, c.outcome, c.code, c.attempts, c.failure, r.Error)
		}
		if !strings.HasPrefix(r.Text, c.text) {
			t.Errorf("%s: text %q, want prefix %q", c.tool, r.Text, c.text)
		}
	}
	assertGone(t, spawnedPids(col))
}

// Connect failures are not retried and carry CrewAI's texts.
func TestNativeConnectFailures(t *testing.T) {
	leakCheck(t)
	em, col := recorder()

	bad := ServerSpec{Name: "bad", Transport: TransportStdio, Command: "/nonexistent/crewbench-no-such-server"}
	r := Call(context.Background(), bad, "x", nil, Options{Emitter: em})
	if r.Outcome != session.OutcomeSpawnFailed || len(r.Attempts) != 0 ||
		!strings.HasPrefix(r.Text, "Error executing MCP tool x: Failed to connect to MCP server: Failed to start MCP server process: Failed to enter stdio transport context: ") {
		t.Errorf("spawn failure: %s %q", r.Outcome, r.Text)
	}

	hang := fixtureSpec(t, "hang-init")
	hang.Timeouts.Connect = 300 * time.Millisecond
	start := time.Now()
	r = Call(context.Background(), hang, "x", nil, Options{Emitter: em})
	if r.Outcome != session.OutcomeTimeout || r.Text != "Error executing MCP tool x: MCP connection timed out after 0.3 seconds. The server may be slow or unreachable." {
		t.Errorf("hang-init: %s %q", r.Outcome, r.Text)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("hang-init call took %s", d)
	}

	crash := fixtureSpec(t, "crash-on-start")
	r = Call(context.Background(), crash, "x", nil, Options{Emitter: em})
	if r.Outcome != session.OutcomeTransportClosed || r.Text != "Error executing MCP tool x: Failed to connect to MCP server: Connection closed" {
		t.Errorf("crash-on-start: %s %q (%s)", r.Outcome, r.Text, r.Error)
	}
	if !strings.Contains(r.Error, "exit status 3") {
		t.Errorf("crash-on-start detail should report the exit status: %q", r.Error)
	}
	failed := eventsOf(col, session.MCPConnectionFailed)
	if len(failed) != 3 || failed[1].ErrorType != "timeout" {
		t.Errorf("connection_failed events: %+v", failed)
	}
	assertGone(t, spawnedPids(col))
}

// The child gets exactly CrewAI's environment: the six inherited variables
// plus spec.Env; nothing else from the parent (checked in /proc/PID/environ).
func TestStdioEnvironmentOfSpawnedServer(t *testing.T) {
	t.Setenv("CREWBENCH_TEST_SECRET_TOKEN", "must-not-leak")
	t.Setenv("TERM", "xterm-test")
	t.Setenv("SHELL", "() { exported function; }")
	leakCheck(t)
	spec := fixtureSpec(t, "inventory")
	spec.Env = map[string]string{"INVENTORY_API_KEY": "k-123", "PATH": "/opt/custom/bin:" + os.Getenv("PATH")}
	p := NewPool(nil)
	defer p.Close()
	if err := p.Connect(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	st, _ := p.ServerStatus("inventory")
	if st.State != StateReady || st.Pid == 0 {
		t.Fatalf("status %+v", st)
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(st.Pid) + "/environ")
	if err != nil {
		t.Skipf("cannot read environ: %v", err)
	}
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := map[string]string{}
	for _, v := range StdioEnvironment(spec, nil) {
		want[v.Name] = v.Value
	}
	if len(got) != len(want) {
		t.Errorf("child env has %d vars, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("child %s=%q, want %q", k, got[k], v)
		}
	}
	if _, leaked := got["CREWBENCH_TEST_SECRET_TOKEN"]; leaked {
		t.Error("a parent variable leaked into the server's environment")
	}
	if _, ok := got["SHELL"]; ok {
		t.Error(`SHELL starting with "()" must be skipped`)
	}
	if got["TERM"] != "xterm-test" || got["INVENTORY_API_KEY"] != "k-123" || !strings.HasPrefix(got["PATH"], "/opt/custom/bin:") {
		t.Errorf("env = %v", got)
	}
	pid := st.Pid
	p.Close()
	assertGone(t, []int{pid})
}
