package mcpconn

import (
	"context"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

// The misbehaving-server matrix: every case ends within its deadline with
// the right outcome class, leaves no process behind and leaks no goroutine.
// Timeouts are scaled down through spec.Timeouts (the production path).
func TestMisbehavingMatrix(t *testing.T) {
	type tc struct {
		fixture  string
		extra    []string
		protocol string
		tool     string
		args     map[string]any
		class    string // final outcome class
		phase    string // "connect" or "call"
		text     string // substring of CrewAI's text
		deadline time.Duration
		connect  time.Duration // default 500 ms
	}
	cases := []tc{
		{fixture: "crash-on-start", class: session.OutcomeTransportClosed, phase: "connect", text: "Connection closed", deadline: 3 * time.Second},
		{fixture: "exit-mid-call", tool: "exit_on_call", class: session.OutcomeTransportClosed, phase: "call", text: "Connection closed", deadline: 3 * time.Second},
		{fixture: "hang-init", class: session.OutcomeTimeout, phase: "connect", text: "MCP connection timed out after 0.5 seconds", deadline: 3 * time.Second},
		{fixture: "hang-init", extra: []string{"--ignore-eof"}, class: session.OutcomeTimeout, phase: "connect", text: "MCP connection timed out", deadline: 4 * time.Second},
		{fixture: "garbage", class: session.OutcomeProtocol, phase: "connect", text: "Failed to connect to MCP server: ", deadline: 3 * time.Second},
		// The noise must be seen before the deadline to be classed protocol:
		// 3 s leaves a loaded machine time to start the fixture.
		{fixture: "garbage", extra: []string{"--mode", "noise"}, connect: 3 * time.Second, class: session.OutcomeProtocol, phase: "connect", text: "MCP connection timed out after 3 seconds", deadline: 6 * time.Second},
		{fixture: "huge", extra: []string{"--size", "1MiB"}, tool: "huge_result", class: session.OutcomeOK, phase: "call", deadline: 15 * time.Second},
		{fixture: "stderr-flood", tool: "echo", args: map[string]any{"message": "hi"}, class: session.OutcomeOK, phase: "call", text: "hi", deadline: 5 * time.Second},
		{fixture: "slow-start", extra: []string{"--delay", "3s"}, class: session.OutcomeTimeout, phase: "connect", text: "MCP connection timed out", deadline: 4 * time.Second},
		{fixture: "slow-start", extra: []string{"--delay", "200ms"}, tool: "echo", args: map[string]any{"message": "late"}, class: session.OutcomeOK, phase: "call", text: "late", deadline: 5 * time.Second},
		{fixture: "legacy", tool: "add", args: map[string]any{"a": 1, "b": 2}, class: session.OutcomeOK, phase: "call", deadline: 3 * time.Second},
		// "auto" probes server/discover; the legacy server ignores it, so the
		// probe timeout (scaled to 300 ms) passes before the classic handshake.
		{fixture: "legacy", protocol: "auto", tool: "add", args: map[string]any{"a": 1, "b": 2}, class: session.OutcomeOK, phase: "call", deadline: 3 * time.Second},
	}
	for _, c := range cases {
		name := c.fixture + strings.Join(c.extra, "") + c.protocol
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			spec := fixtureSpec(t, c.fixture, c.extra...)
			spec.ProtocolVersion = c.protocol
			spec.Timeouts = Timeouts{Connect: 500 * time.Millisecond, Call: time.Second, Attempts: 1,
				Probe: 300 * time.Millisecond, Shutdown: fastShutdown}
			if c.connect > 0 {
				spec.Timeouts.Connect = c.connect
			}
			if c.class != session.OutcomeTimeout && !strings.Contains(c.text, "timed out") {
				// These end by themselves (an answer, a crash, garbage): short
				// deadlines would only turn a slow spawn on a loaded machine
				// into a timeout, so the wait is generous and so is the bound.
				spec.Timeouts.Connect, spec.Timeouts.Call = 30*time.Second, 30*time.Second
				c.deadline = 40 * time.Second
			}
			tool := c.tool
			if tool == "" {
				tool = "anything"
			}
			em, col := recorder()
			start := time.Now()
			r := Call(context.Background(), spec, tool, c.args, Options{Emitter: em})
			took := time.Since(start)
			if took > c.deadline {
				t.Errorf("took %s, deadline %s", took, c.deadline)
			}
			if r.Outcome != c.class {
				t.Errorf("outcome %s, want %s (%s | %s)", r.Outcome, c.class, r.Text, r.Error)
			}
			if (c.phase == "connect") != (len(r.Attempts) == 0) {
				t.Errorf("failed in the wrong phase: %d attempts, connects %+v", len(r.Attempts), r.Connects)
			}
			if !strings.Contains(r.Text, c.text) {
				t.Errorf("text %q lacks %q", r.Text, c.text)
			}
			if c.fixture == "huge" && len(r.Text) != 1<<20 {
				t.Errorf("huge result: %d bytes", len(r.Text))
			}
			assertGone(t, spawnedPids(col))
		})
	}
}
