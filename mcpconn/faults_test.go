package mcpconn

import (
	"context"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

// Faults are injected client-side: the server is never touched, and each
// kind produces its outcome class.
func TestFaultInjection(t *testing.T) {
	leakCheck(t)
	cases := []struct {
		fault   Fault
		outcome string
		code    int
		text    string
	}{
		{Fault{Kind: FaultDelay, Delay: 150 * time.Millisecond}, session.OutcomeOK, 0, ""},
		{Fault{Kind: FaultHang}, session.OutcomeTimeout, 0, "Operation timed out after 0.3 seconds"},
		{Fault{Kind: FaultJSONRPCError, Code: -32001, Message: "backend exploded"}, session.OutcomeJSONRPCError, -32001, "Operation failed after 1 attempts: backend exploded"},
		{Fault{Kind: FaultIsError, Message: "quota exceeded"}, session.OutcomeIsError, 0, "quota exceeded"},
		{Fault{Kind: FaultDrop}, session.OutcomeTransportClosed, 0, "Operation failed after 1 attempts: Connection closed"},
		{Fault{Kind: FaultGarbage}, session.OutcomeProtocol, 0, "Operation failed after 1 attempts: "},
	}
	for _, transport := range []string{"stdio", "http"} {
		for _, c := range cases {
			var spec ServerSpec
			if transport == "stdio" {
				spec = fixtureSpec(t, "weather")
			} else {
				spec = httpSpec(t, "weather", "http")
			}
			spec.Faults = []Fault{{Tool: "getAlerts", Kind: FaultIsError}, c.fault} // the first never matches getForecast
			spec.Faults[1].Tool = "getForecast"
			// Only the hang needs a short call timeout; the others answer, and
			// a loaded machine must not turn their answer into a timeout.
			call := 30 * time.Second
			if c.fault.Kind == FaultHang {
				call = 300 * time.Millisecond
			}
			spec.Timeouts = Timeouts{Call: call, Attempts: 1, Shutdown: fastShutdown}
			em, col := recorder()
			start := time.Now()
			r := Call(context.Background(), spec, "getForecast", map[string]any{"city": "Oslo"}, Options{Emitter: em})
			if r.Outcome != c.outcome || r.Code != c.code || !strings.Contains(r.Text, c.text) {
				t.Errorf("%s %s: outcome %s code %d text %q (%s)", transport, c.fault.Kind, r.Outcome, r.Code, r.Text, r.Error)
			}
			if c.fault.Kind == FaultDelay && time.Since(start) < 150*time.Millisecond {
				t.Errorf("delay fault did not delay")
			}
			fin := eventsOf(col, session.MCPAttemptFinished)
			if len(fin) != 1 || fin[0].Str("fault") != string(c.fault.Kind) {
				t.Errorf("%s %s: attempt event should name the fault: %+v", transport, c.fault.Kind, fin)
			}
			assertGone(t, spawnedPids(col))
		}
	}
}

// Times limits a fault to the first N matching calls: with Times 2 the
// first two attempts fail and the third succeeds.
func TestFaultTimes(t *testing.T) {
	spec := fixtureSpec(t, "weather")
	spec.Faults = []Fault{{Kind: FaultJSONRPCError, Times: 2, Message: "flaky"}}
	spec.Timeouts.Backoff = 10 * time.Millisecond
	r := Call(context.Background(), spec, "getForecast", map[string]any{"city": "Oslo"}, Options{})
	if r.Outcome != session.OutcomeOK || len(r.Attempts) != 3 || r.Attempts[0].Outcome != session.OutcomeJSONRPCError {
		t.Errorf("%+v", r.Attempts)
	}
}
