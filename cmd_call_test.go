package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/session"
)

// The "done when", time scaled down: three timed-out attempts,
// gaps of one and two backoffs, CrewAI's exact final message, exit 4.
func TestCallTimeoutTimeline(t *testing.T) {
	code, out, errs := run(t, "call", "--stdio", fixtureCommandLine(t, "slow"), "slow_report",
		"--args", `{"seconds":3}`, "--timeout", "300ms", "--backoff", "200ms", "--json")
	if code != exitTimeout {
		t.Fatalf("exit %d, want 4\n%s\n%s", code, out, errs)
	}
	var r mcpconn.CallResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Attempts) != 3 {
		t.Fatalf("attempts %+v", r.Attempts)
	}
	for i, want := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond} {
		prev := r.Attempts[i]
		gap := r.Attempts[i+1].Start.Sub(prev.Start.Add(prev.Duration))
		if gap < want || gap > want+200*time.Millisecond {
			t.Errorf("gap %d = %s, want ~%s", i+1, gap, want)
		}
		if prev.Backoff != want {
			t.Errorf("attempt %d backoff %s", prev.N, prev.Backoff)
		}
	}
	if r.Text != "Error executing MCP tool slow_report: Operation timed out after 0.3 seconds" {
		t.Errorf("text %q", r.Text)
	}

	// Human output shows the timeline and the message.
	code, out, errs = run(t, "call", "--stdio", fixtureCommandLine(t, "slow"), "slow_report",
		"--args", `{"seconds":3}`, "--timeout", "200ms", "--backoff", "100ms")
	if code != exitTimeout {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"ATTEMPT", "timeout", "wait 100ms", "wait 200ms", "Operation timed out after 0.2 seconds"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "retrying in 100ms") {
		t.Errorf("progress lacks the retry:\n%s", errs)
	}
}

func TestCallExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"ok", []string{"--stdio", fixtureCommandLine(t, "weather"), "getForecast", "--args", `{"city":"Oslo"}`}, exitOK, "CrewAI's tool returns"},
		{"is_error", []string{"--stdio", fixtureCommandLine(t, "errors"), "returns_is_error"}, exitToolError, "ToolFailure(reason=mcp_error)"},
		{"not found", []string{"--stdio", fixtureCommandLine(t, "errors"), "nope"}, exitToolError, "Resource not found"},
		{"spawn", []string{"--stdio", "/nonexistent/bin/server", "x"}, exitConnection, "Failed to start MCP server process"},
		{"crash", []string{"--stdio", fixtureCommandLine(t, "crash-on-start"), "x"}, exitConnection, "Connection closed"},
		{"exit mid-call", []string{"--stdio", fixtureCommandLine(t, "exit-mid-call"), "exit_on_call", "--attempts", "1"}, exitConnection, "transport_closed"},
		{"bad args", []string{"--stdio", "x", "t", "--args", "[1]"}, exitUsage, "--args"},
		{"bad policy", []string{"--stdio", "x", "t", "--policy", "fast"}, exitUsage, "--policy"},
		{"https on stdio", []string{"--stdio", "x", "t", "--policy", "https-string"}, exitUsage, "needs an HTTP server"},
		{"no tool", []string{"--stdio", "x"}, exitUsage, "exactly one argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, append([]string{"call"}, c.args...)...)
			if code != c.code || !strings.Contains(out+errs, c.want) {
				t.Errorf("exit %d (want %d), output lacks %q?\n%s\n%s", code, c.code, c.want, out, errs)
			}
		})
	}
}

func TestCallPoliciesOverHTTP(t *testing.T) {
	url := startHTTPFixture(t, "weather")
	// https-string: called by the sanitized name, which the server does not
	// know; CrewAI returns the error as an ordinary string.
	code, out, _ := run(t, "call", "--url", url, "getForecast", "--policy", "https-string", "--args", `{"city":"Oslo"}`, "--json")
	var r mcpconn.CallResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.CallName != "get_forecast" || r.Text != "Tool 'get_forecast' not found on MCP server" || r.Failed || code != exitToolError {
		t.Errorf("https-string: exit %d %+v", code, r)
	}
	for _, p := range []string{"native", "adapter", "session"} {
		code, out, errs := run(t, "call", "--url", url, "getForecast", "--policy", p, "--args", `{"city":"Oslo"}`, "--json")
		var r mcpconn.CallResult
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Outcome != session.OutcomeOK {
			t.Errorf("%s: exit %d %v %s %s", p, code, err, out, errs)
		}
	}
}

func startHTTPFixture(t *testing.T, name string) string {
	t.Helper()
	return fixturetest.StartHTTP(t, name, "http")
}
