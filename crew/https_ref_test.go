package crew

import (
	"net/url"
	"strings"
	"testing"

	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/session"
)

// https string refs over real TLS: the #tool fragment selects by sanitized
// equality, a tool whose name is already sanitized is called and answers,
// and a camelCase tool is called by its sanitized name (CrewAI's bug), so
// the server refuses it and the agent gets the error as ordinary text —
// no ToolFailure, the run "succeeds".
func TestHTTPSRefsOverTLS(t *testing.T) {
	inventory := fixturetest.StartHTTPS(t, "inventory")
	weather := fixturetest.StartHTTPS(t, "weather")
	ref := func(endpoint, tool string) MCPRef {
		return MCPRef{Spec: mcpconn.ServerSpec{Transport: mcpconn.TransportHTTP, URL: endpoint, Ref: mcpconn.RefHTTPS,
			RefString: endpoint + "#" + tool, SelectTool: tool}}
	}
	m := &MCP{}
	a := NewAgent("a", "Clerk", "g", "b", nil)
	a.MCPs = []MCPRef{ref(inventory, "lookup_stock"), ref(weather, "getForecast")}
	stock := discoverOne(t, m, a, "lookup_stock")
	forecast, err := m.Resolve(t.Context(), a, a.MCPs[1], RunContext{})
	if err != nil || len(forecast) != 1 {
		t.Fatalf("#getForecast selects one tool (sanitized equality): %d tools, %v", len(forecast), err)
	}
	fs := forecast[0].Spec()
	host := strings.NewReplacer(".", "_", ":", "_").Replace(strings.TrimPrefix(weather[:strings.LastIndex(weather, "/")], "https://"))
	if fs.LLMName != host+"_mcp_get_forecast" || fs.OriginalName != "getForecast" {
		t.Errorf("https ref tool: LLM name %q, original %q", fs.LLMName, fs.OriginalName)
	}
	a.LLM = scripted(t, `
replies:
  - tool_calls: [{name: `+stock+`, arguments: {sku: SKU-1001}}]
  - tool_calls: [{name: `+fs.LLMName+`, arguments: {city: Lisbon}}]
  - "done"
`)
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.lastContent(t, 1); !strings.Contains(got, "SKU-1001") || strings.Contains(got, "error") {
		t.Errorf("lookup_stock over TLS: the agent saw %q", got)
	}
	got := r.lastContent(t, 2)
	if got != "Tool 'get_forecast' not found on MCP server" {
		t.Errorf("getForecast must be called as get_forecast and refused; the agent saw %q", got)
	}
	if r.out.HasToolFailures() {
		t.Errorf("https-string errors are returned as text, not failures: %+v", r.out.ToolFailures())
	}
	// What went on the wire: the sanitized key, not the remote name.
	var sent []string
	for _, ev := range r.events {
		if ev.Kind == session.MCPAttemptStarted {
			sent = append(sent, ev.Str("call_name"))
		}
	}
	if strings.Join(sent, ",") != "lookup_stock,get_forecast" {
		t.Errorf("tools/call names sent: %v", sent)
	}
}

// An AMP slug mapped to a server URL: tools are named from the URL (not
// the slug), #tool selects by suffix on the display name, and calls go
// through the native policy (a ToolFailure on isError). An unreachable
// server emits MCPConfigFetchFailedEvent (connection_failed) and the run
// goes on without it.
func TestAMPSlugs(t *testing.T) {
	endpoint := fixturetest.StartHTTP(t, "weather", "http")
	amp := func(slug, tool, url string) MCPRef {
		return MCPRef{Spec: mcpconn.ServerSpec{Transport: mcpconn.TransportHTTP, URL: url, Ref: mcpconn.RefAMP,
			RefString: slug + "#" + tool, AMPSlug: slug, SelectTool: tool}}
	}
	m := &MCP{}
	a := NewAgent("a", "Forecaster", "g", "b", nil)
	// "alerts" selects getAlerts by suffix (…_get_alerts ends with _alerts).
	a.MCPs = []MCPRef{amp("weather", "alerts", endpoint), amp("gone", "", "http://127.0.0.1:1/mcp")}
	tools, err := m.Resolve(t.Context(), a, a.MCPs[0], RunContext{})
	if err != nil || len(tools) != 1 || tools[0].Spec().OriginalName != "getAlerts" {
		t.Fatalf("suffix selection: %d tools, %v", len(tools), err)
	}
	name := tools[0].Spec().LLMName
	u, _ := url.Parse(endpoint)
	if want := strings.NewReplacer(".", "_", ":", "_").Replace(u.Host) + "_mcp_get_alerts"; name != want {
		t.Errorf("AMP tool named %q, want %q (from the URL, not the slug)", name, want)
	}
	a.LLM = scripted(t, `
replies:
  - tool_calls: [{name: `+name+`, arguments: {region: PT}}]
  - "done"
`)
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	var failed []session.Event
	for _, ev := range r.events {
		if ev.Kind == session.MCPConfigFetchFailed {
			failed = append(failed, ev)
		}
	}
	if len(failed) != 1 || failed[0].ErrorType != "connection_failed" || failed[0].Str("slug") != "gone" {
		t.Errorf("config fetch failures: %+v", failed)
	}
	if got := r.lastContent(t, 1); !strings.Contains(got, "PT") {
		t.Errorf("the agent saw %q", got)
	}
}
