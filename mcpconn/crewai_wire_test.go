package mcpconn

import (
	"context"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

// sentFrames is the method and payload of every frame crewbench sent.
func sentFrames(col *session.Collector) (methods, payloads []string) {
	for _, ev := range eventsOf(col, session.MCPFrame) {
		if ev.Str(session.KeyDirection) != "send" {
			continue
		}
		methods = append(methods, ev.Str(session.KeyMethod))
		payloads = append(payloads, ev.Str(session.KeyFrame))
	}
	return methods, payloads
}

// Under the native policy the wire is the MCP Python SDK's, as in the
// goldens: clientInfo mcp/0.1.0, no _meta.progressToken on tools/call, and
// a tools/list on the same session after a call that did not return
// isError (the SDK's output-schema lookup).
func TestNativePolicySpeaksAsCrewAISDK(t *testing.T) {
	leakCheck(t)
	for _, c := range []struct {
		tool   string
		faults []Fault
		want   string
	}{
		{"getForecast", nil, "initialize tools/call tools/list"},
		{"getForecast", []Fault{{Tool: "getForecast", Kind: FaultIsError, Message: "no"}}, "initialize tools/call"},
	} {
		spec := fixtureSpec(t, "weather")
		spec.Faults = c.faults
		spec.Timeouts = Timeouts{Shutdown: fastShutdown}
		em, col := recorder()
		r := Call(context.Background(), spec, c.tool, map[string]any{"city": "Oslo"}, Options{Emitter: em})
		if r.Raised {
			t.Fatalf("call raised: %s", r.Text)
		}
		methods, payloads := sentFrames(col)
		if got := strings.Join(methods, " "); got != c.want {
			t.Errorf("faults %v: sent %s, want %s", c.faults, got, c.want)
		}
		for i, m := range methods {
			if m == "initialize" && !strings.Contains(payloads[i], `"clientInfo":{"name":"mcp","version":"0.1.0"}`) {
				t.Errorf("initialize: %s", payloads[i])
			}
			if m == "tools/call" && strings.Contains(payloads[i], "_meta") {
				t.Errorf("tools/call carries _meta: %s", payloads[i])
			}
		}
		assertGone(t, spawnedPids(col))
	}
	if note := WireNote(fixtureSpec(t, "weather")); !strings.HasPrefix(note, "CrewAI's MCP SDK wire") {
		t.Errorf("WireNote(native) = %q", note)
	}
}

// crewbench's own session policy keeps its conveniences: its clientInfo and
// a progress token, and no extra tools/list.
func TestSessionPolicyKeepsCrewbenchWire(t *testing.T) {
	leakCheck(t)
	spec := fixtureSpec(t, "weather")
	spec.Policy = PolicySession
	spec.Timeouts = Timeouts{Shutdown: fastShutdown, Call: 10 * time.Second}
	em, col := recorder()
	r := Call(context.Background(), spec, "getForecast", map[string]any{"city": "Oslo"}, Options{Emitter: em})
	if r.Raised {
		t.Fatalf("call raised: %s", r.Text)
	}
	methods, payloads := sentFrames(col)
	for i, m := range methods {
		switch m {
		case "initialize":
			if !strings.Contains(payloads[i], `"clientInfo":{"name":"crewbench"`) {
				t.Errorf("initialize: %s", payloads[i])
			}
		case "tools/call":
			if !strings.Contains(payloads[i], `"progressToken":`) {
				t.Errorf("tools/call without a progress token: %s", payloads[i])
			}
		case "tools/list":
			t.Errorf("the session policy listed tools after the call: %v", methods)
		}
	}
	assertGone(t, spawnedPids(col))
	if note := WireNote(spec); !strings.HasPrefix(note, "crewbench's wire") {
		t.Errorf("WireNote(session) = %q", note)
	}
}

// CrewAI's client declares no capabilities: under every CrewAI policy the
// initialize carries "capabilities":{} even when client features are passed
// (over stdio and HTTP), and a server that lists a tool only to clients
// with roots hides it, as it does from CrewAI.
func TestCrewAIPoliciesDeclareNoCapabilities(t *testing.T) {
	leakCheck(t)
	features := ProbeFeatures([]Root{{URI: "file:///tmp"}})
	for transport, spec := range asksSpecs(t) {
		for _, p := range []Policy{PolicyNative, PolicyAdapter} {
			s := spec
			s.Policy = p
			em, col := recorder()
			r := Call(context.Background(), s, "ask_preferences", nil, Options{Emitter: em, Client: features})
			if got := initializeCapabilities(t, col); got != `{}` {
				t.Errorf("%s %s: declared %s", transport, p, got)
			}
			if !strings.Contains(r.Text, "Elicitation not supported") {
				t.Errorf("%s %s: %q", transport, p, r.Text)
			}
			d, err := Discover(context.Background(), s, Options{Cache: &ToolsCache{}, Client: features})
			if err != nil {
				t.Fatal(err)
			}
			if _, listed := d.Tool("list_roots"); listed || len(d.Info.Declared) > 0 {
				t.Errorf("%s %s: list_roots listed %v, declared %v", transport, p, listed, d.Info.Declared)
			}
			assertGone(t, spawnedPids(col))
		}
	}
	for _, p := range []Policy{PolicyNative, PolicyHTTPSString, PolicyAdapter} {
		if !crewAIWire(ServerSpec{Policy: p}) {
			t.Errorf("%s is not on CrewAI's wire", p)
		}
	}
	if crewAIWire(ServerSpec{Policy: PolicySession}) {
		t.Error("the session policy is crewbench's wire")
	}
}
