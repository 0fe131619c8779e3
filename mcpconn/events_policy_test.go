package mcpconn

import (
	"context"
	"strings"
	"testing"

	"crewbench/session"
)

// CrewAI's MCP events come from its MCPClient only: native configs (and
// crewbench's session policy, which follows it) emit mcp_connection_* and
// mcp_tool_execution_* with tool_name the server's own name; the
// https-string wrapper and MCPServerAdapter use the SDK directly and emit
// none, so crewbench records those scopes under its own crewbench_mcp_*
// kinds (crewai-fidelity-gaps.md B15).
func TestMCPEventsPerPolicy(t *testing.T) {
	base := httpSpec(t, "errors", "http")
	cases := []struct {
		name   string
		policy Policy
		ref    RefKind
		crewAI bool
	}{
		{"native", PolicyNative, RefNative, true},
		{"session", PolicySession, RefNative, true},
		{"adapter", PolicyAdapter, RefNative, false},
		{"https-string", PolicyHTTPSString, RefHTTPS, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := base
			spec.Policy, spec.Ref = c.policy, c.ref
			em, col := recorder()
			if _, err := Discover(context.Background(), spec, Options{Emitter: em, Cache: &ToolsCache{}}); err != nil {
				t.Fatal(err)
			}
			const tool = "returns_is_error"
			r := Call(context.Background(), spec, tool, nil, Options{Emitter: em})
			if r.Outcome != session.OutcomeOK && r.Outcome != session.OutcomeIsError {
				t.Fatalf("call: %+v", r)
			}
			var crewAIKinds, own []session.Kind
			for _, ev := range col.Events() {
				k := string(ev.Kind)
				switch {
				case strings.HasPrefix(k, "mcp_"):
					crewAIKinds = append(crewAIKinds, ev.Kind)
				case session.ScopeKind(ev.Kind) != ev.Kind:
					own = append(own, ev.Kind)
				}
				if session.ScopeKind(ev.Kind) == session.MCPToolExecutionStarted {
					if ev.ToolName != tool || ev.OriginalToolName != tool {
						t.Errorf("%s: tool_name %q (original %q), want the remote name %q", ev.Kind, ev.ToolName, ev.OriginalToolName, tool)
					}
					if ev.Server != "127.0.0.1" {
						t.Errorf("%s: server_name %q, want the URL's hostname", ev.Kind, ev.Server)
					}
				}
			}
			// discovery connection, call connection (adapter and session
			// keep none open without a pool: one each), call start and end
			wantKinds := []session.Kind{session.MCPConnectionStarted, session.MCPConnectionCompleted,
				session.MCPConnectionStarted, session.MCPConnectionCompleted,
				session.MCPToolExecutionStarted, session.MCPToolExecutionCompleted}
			if c.policy != PolicyNative {
				// the start precedes the connection outside the native path
				wantKinds[2], wantKinds[3], wantKinds[4] = session.MCPToolExecutionStarted, session.MCPConnectionStarted, session.MCPConnectionCompleted
			}
			got := own
			if c.crewAI {
				// isError is a failure to MCPClient, a result to the others
				wantKinds[5] = session.MCPToolExecutionFailed
				got = crewAIKinds
				if len(own) > 0 {
					t.Errorf("crewbench's own MCP scope kinds where CrewAI emits its own: %v", own)
				}
			} else if len(crewAIKinds) > 0 {
				t.Errorf("CrewAI MCP events where CrewAI emits none: %v", crewAIKinds)
			}
			var scope []session.Kind
			for _, k := range got {
				scope = append(scope, session.ScopeKind(k))
			}
			if strings.Join(kindStrings(scope), " ") != strings.Join(kindStrings(wantKinds), " ") {
				t.Errorf("MCP scopes %v, want %v", got, wantKinds)
			}
		})
	}
}

func kindStrings(ks []session.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
