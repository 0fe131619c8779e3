package crew

import (
	"crewbench/crew/pyjson"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/session"
)

func fixtureSpec(name string, extra ...string) mcpconn.ServerSpec {
	cmd, args := fixturetest.Command(name, extra...)
	return mcpconn.ServerSpec{Name: name, Transport: mcpconn.TransportStdio, Command: cmd, Args: args, Ref: mcpconn.RefNative}
}

// A tool that outlives the call timeout under the native policy: three
// attempts with backoff, then the agent sees CrewAI's error text.
func TestSlowMCPToolUnderNativePolicy(t *testing.T) {
	spec := fixtureSpec("slow")
	spec.Timeouts = mcpconn.Timeouts{Call: 300 * time.Millisecond, Attempts: 3, Backoff: 20 * time.Millisecond}
	// The tool's LLM name depends on the test binary's path, so the script
	// is built after discovery tells us the name.
	m := &MCP{}
	a := NewAgent("a", "Reporter", "g", "b", nil)
	a.MCPs = []MCPRef{{Spec: spec}}
	name := discoverOne(t, m, a, "slow_report")
	a.LLM = scripted(t, `
replies:
  - tool_calls: [{name: `+name+`, arguments: {seconds: 30}}]
  - "gave up"
`)
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "report", Description: "d", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	attempts := 0
	for _, ev := range r.events {
		if ev.Kind == session.MCPAttemptStarted {
			attempts++
		}
	}
	if attempts != 3 {
		t.Errorf("%d MCP attempts, want 3", attempts)
	}
	got := r.lastContent(t, 1)
	if !strings.HasPrefix(got, "Error executing tool: Error executing MCP tool slow_report: Operation timed out after ") {
		t.Errorf("agent saw %q", got)
	}
	fs := r.out.ToolFailures()
	if len(fs) != 1 || fs[0].Failure.Reason != ReasonException || fs[0].Failure.Code != "RuntimeError" {
		t.Errorf("failures = %+v", fs)
	}
	// MCP attempt events nest under the tool call span.
	toolSpans := map[string]bool{}
	for _, ev := range r.events {
		if ev.Kind == session.ToolUsageStarted {
			toolSpans[ev.Span] = true
		}
	}
	for _, ev := range r.events {
		if ev.Kind == session.MCPToolExecutionStarted && !toolSpans[ev.Parent] {
			t.Errorf("mcp_tool_execution_started parent %q is not a tool call", ev.Parent)
		}
	}
}

// discoverOne resolves the agent's first MCP ref and returns the LLM name
// of the remote tool.
func discoverOne(t *testing.T, m *MCP, a *Agent, remote string) string {
	t.Helper()
	tools, err := m.Resolve(t.Context(), a, a.MCPs[0], RunContext{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.Spec().OriginalName == remote {
			return tool.Spec().LLMName
		}
	}
	t.Fatalf("no tool %s among %d", remote, len(tools))
	return ""
}

// A JSON-RPC error on the first attempt is retried by the native policy and
// the call recovers: the agent sees the result, and no failure is recorded.
func TestFlakyMCPToolRecovers(t *testing.T) {
	spec := fixtureSpec("flaky", "--mode", "jsonrpc", "--fail", "1", "--state", t.TempDir()+"/count")
	spec.Timeouts = mcpconn.Timeouts{Backoff: 10 * time.Millisecond}
	m := &MCP{}
	a := NewAgent("a", "Echoer", "g", "b", nil)
	a.MCPs = []MCPRef{{Spec: spec}}
	name := discoverOne(t, m, a, "flaky_echo")
	a.LLM = scripted(t, `
replies:
  - tool_calls: [{name: `+name+`, arguments: {message: hi}}]
  - "ok"
`)
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.lastContent(t, 1); got != "call 2: hi" {
		t.Errorf("agent saw %q", got)
	}
	if r.out.HasToolFailures() {
		t.Errorf("unexpected failures %+v", r.out.ToolFailures())
	}
}

// A native server that cannot be discovered fails the run with CrewAI's
// text; an https ref that fails only warns.
func TestMCPDiscoveryFailure(t *testing.T) {
	spec := fixtureSpec("crash-on-start")
	a := NewAgent("a", "A", "g", "b", scripted(t, `replies: ["x"]`))
	a.MCPs = []MCPRef{{Spec: spec}}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{MCP: &MCP{}})
	if r.err == nil || !strings.HasPrefix(r.err.Error(), "Failed to get native MCP tools: ") {
		t.Fatalf("err = %v", r.err)
	}
	if r.count(session.CrewKickoffFailed) != 1 {
		t.Error("no crew_kickoff_failed")
	}
}

// An https string ref whose server cannot be reached only warns: the agent
// runs without its tools (CrewAI logs and goes on).
func TestHTTPSRefFailureWarns(t *testing.T) {
	spec := mcpconn.ServerSpec{Name: "remote", Transport: mcpconn.TransportHTTP, URL: "https://127.0.0.1:1/mcp", Ref: mcpconn.RefHTTPS,
		RefString: "https://127.0.0.1:1/mcp", Timeouts: mcpconn.Timeouts{Backoff: 10 * time.Millisecond, Connect: time.Second, Discovery: 2 * time.Second}}
	a := NewAgent("a", "A", "g", "b", scripted(t, `replies: ["fine without it"]`))
	a.MCPs = []MCPRef{{Spec: spec}}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{MCP: &MCP{}})
	if r.err != nil || r.out.Raw != "fine without it" {
		t.Fatalf("err %v out %+v", r.err, r.out)
	}
	warned := false
	for _, ev := range r.events {
		if ev.Kind == session.Warning && strings.Contains(ev.Str("message"), "Failed to get MCP tool schemas from") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning for the failed https ref")
	}
}

// MCP arguments are validated as CrewAI's BaseTool does: a refused call
// never reaches the server and the agent sees Pydantic's text; an accepted
// one is sent coerced, with explicit nulls dropped.
func TestMCPArgumentsValidatedBeforeTheCall(t *testing.T) {
	m := &MCP{}
	a := NewAgent("a", "Forecaster", "g", "b", nil)
	a.MCPs = []MCPRef{{Spec: fixtureSpec("weather")}}
	name := discoverOne(t, m, a, "getForecast")
	a.LLM = scripted(t, `
replies:
  - tool_calls: [{name: `+name+`, arguments: {days: 2}}]
  - tool_calls: [{name: `+name+`, arguments: {city: Oslo, days: "2", units: null}}]
  - "done"
`)
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	refused := r.lastContent(t, 1)
	if !strings.HasPrefix(refused, "Error executing tool: Tool '"+name+"' arguments validation failed: 1 validation error for get_forecastSchema\ncity\n  Field required [type=missing, input_value={'days': 2}, input_type=dict]") ||
		!strings.Contains(refused, "\nExpected arguments: {\"city\": ") || !strings.HasSuffix(refused, "\nRequired: [\"city\"]") {
		t.Errorf("refused call: agent saw %q", refused)
	}
	// The explicit null is dropped, not replaced by the default.
	if sent := sentArguments(r); len(sent) != 1 || sent[0] != `{"city":"Oslo","days":2}` {
		t.Errorf("arguments sent: %q", sent)
	}
}

// sentArguments is the "arguments" of every tools/call frame on the wire,
// as the bytes sent.
func sentArguments(r result) []string {
	var sent []string
	for _, ev := range r.events {
		if ev.Kind != session.MCPFrame || ev.Str(session.KeyMethod) != "tools/call" || ev.Str("direction") != "send" {
			continue
		}
		var p struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(ev.Str("payload")), &p) == nil {
			sent = append(sent, string(p.Arguments))
		}
	}
	return sent
}

// The wire carries the validated arguments in the model's field order (the
// schema's property order, here not alphabetical), at every level, as
// CrewAI's MCPClient sends its dict (crewai-fidelity-gaps.md B14); the
// tool_args of mcp_tool_execution_started are the same object.
func TestMCPArgumentsSentInModelOrder(t *testing.T) {
	m := &MCP{}
	a := NewAgent("a", "Cataloguer", "g", "b", nil)
	a.MCPs = []MCPRef{{Spec: fixtureSpec("names")}}
	name := discoverOne(t, m, a, "search_catalog")
	a.LLM = scripted(t, `
replies:
  - tool_calls: [{name: `+name+`, arguments: '{"filter": {"min_units": "3", "warehouse": "north"}, "name": "widget", "sku": null}'}]
  - "done"
`)
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := `{"name":"widget","filter":{"warehouse":"north","min_units":3}}`
	if sent := sentArguments(r); len(sent) != 1 || sent[0] != want {
		t.Errorf("arguments on the wire: %q, want %s", sent, want)
	}
	for _, ev := range r.events {
		if ev.Kind == session.MCPToolExecutionStarted {
			if b, _ := json.Marshal(ev.Data["tool_args"]); string(b) != want {
				t.Errorf("tool_args %s, want %s", b, want)
			}
		}
	}
}

// catalogCrew is one agent whose LLM calls the names fixture's
// search_catalog once, then answers.
func catalogCrew(t *testing.T) (*Crew, *MCP) {
	t.Helper()
	m := &MCP{}
	a := NewAgent("a", "Cataloguer", "g", "b", nil)
	a.MCPs = []MCPRef{{Spec: fixtureSpec("names")}}
	name := discoverOne(t, m, a, "search_catalog")
	a.LLM = scripted(t, `
replies:
  - tool_calls: [{name: `+name+`, arguments: {name: widget}}]
  - "done"
`)
	return &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}, m
}

// A tool-call breakpoint carries the tool's argument model schema and the
// server's raw inputSchema, for the TUI to show both.
func TestToolPauseCarriesTheSchemas(t *testing.T) {
	c, m := catalogCrew(t)
	st := NewChanStepper(Breakpoints{Tools: []string{"search_catalog"}})
	got := make(chan *Pause, 1)
	go func() {
		req := <-st.C
		got <- req.Pause
		req.Reply(Decision{Action: Continue})
	}()
	if r := kickoff(t, c, nil, Options{MCP: m, Stepper: st}); r.err != nil {
		t.Fatal(r.err)
	}
	pz := <-got
	if pz.RawSchema == nil || !strings.Contains(pyjson.Dumps(pz.RawSchema), `"title": "SearchCatalogArguments"`) {
		t.Errorf("raw schema %v", pz.RawSchema)
	}
	if pz.Schema == nil || !strings.Contains(pyjson.Dumps(pz.Schema), `"title": "search_catalogSchema"`) {
		t.Errorf("model schema %v", pz.Schema)
	}
}

// A breakpoint naming a tool or server the run never had says so as the
// run ends, with the name meant; one that names a tool by its server's
// name, or the server, says nothing.
func TestUnmatchedBreakpointsWarnAtTheEnd(t *testing.T) {
	c, m := catalogCrew(t)
	st := NewChanStepper(Breakpoints{Tools: []string{"search_catalog", "searchCatalog"}, Servers: []string{"names", "nmaes"}})
	go func() {
		select { // the call pauses once: search_catalog and server names both match it
		case req := <-st.C:
			req.Reply(Decision{Action: Continue})
		case <-t.Context().Done():
		}
	}()
	r := kickoff(t, c, nil, Options{MCP: m, Stepper: st})
	if r.err != nil {
		t.Fatal(r.err)
	}
	var warned []string
	for _, ev := range r.events {
		if ev.Kind == session.Warning && strings.Contains(ev.Str("message"), "never paused") {
			warned = append(warned, ev.Str("message"))
		}
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "tool=searchCatalog never paused") ||
		!strings.Contains(warned[0], "did you mean tool=search_catalog?") ||
		!strings.Contains(warned[1], "server=nmaes never paused: it names none of the run's servers (names, ") ||
		!strings.Contains(warned[1], "did you mean server=names?") {
		t.Fatalf("warnings %q", warned)
	}
	if last := r.events[len(r.events)-1]; last.Kind != session.CrewKickoffCompleted {
		t.Fatalf("the warnings should come before the kickoff ends, last is %s", last.Kind)
	}
}
