package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"crewbench/fixtures/fixturetest"
	"crewbench/names"
	"crewbench/session"
)

func httpSpec(t *testing.T, fixture, transport string) ServerSpec {
	t.Helper()
	u := fixturetest.StartHTTP(t, fixture, transport)
	s := ServerSpec{Name: fixture + "-" + transport, Transport: TransportHTTP, URL: u}
	if transport == "sse" {
		s.Transport = TransportSSE
	}
	return s
}

// Discovery over every transport: both names, raw schemas, server info.
func TestDiscoverAllTransports(t *testing.T) {
	leakCheck(t)
	specs := []ServerSpec{fixtureSpec(t, "weather"), httpSpec(t, "weather", "http"), httpSpec(t, "weather", "sse")}
	for _, spec := range specs {
		em, col := recorder()
		d, err := Discover(context.Background(), spec, Options{Emitter: em})
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		if d.Info.ProtocolVersion != DefaultProtocolVersion || d.Info.Name == "" {
			t.Errorf("%s: info %+v", spec.Name, d.Info)
		}
		fc, ok := d.Tool("getForecast")
		if !ok {
			t.Fatalf("%s: no getForecast in %+v", spec.Name, d.Tools)
		}
		server, _ := CrewAIServerName(spec)
		display, llm, _ := names.NativeTool(server, "getForecast")
		if fc.DisplayName != display || fc.LLMName != llm || fc.Sanitized != "get_forecast" || fc.CallName != "getForecast" {
			t.Errorf("%s: names %+v", spec.Name, fc)
		}
		if !json.Valid(fc.InputSchema) || !strings.Contains(string(fc.InputSchema), "city") {
			t.Errorf("%s: schema %s", spec.Name, fc.InputSchema)
		}
		if spec.Transport != TransportStdio {
			started := eventsOf(col, session.MCPConnectionStarted)
			if len(started) != 1 || started[0].Server != "127.0.0.1" || !strings.HasPrefix(started[0].Str("server_url"), "http://127.0.0.1:") {
				t.Errorf("%s: event server_name should be the URL hostname: %+v", spec.Name, started)
			}
		}
	}
}

// The raw tools/list keeps schema parts mcp-go's decoder drops (anyOf,
// title, description) and a null description.
func TestDiscoverKeepsRawSchemaAndNullDescription(t *testing.T) {
	spec := fixtureSpec(t, "names")
	d, err := Discover(context.Background(), spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sawAnyOf, sawNull, sawSkipped bool
	for _, tl := range d.Tools {
		if strings.Contains(string(tl.InputSchema), "anyOf") {
			sawAnyOf = true
		}
		if tl.DescriptionNull {
			sawNull = true
			if tl.Status != ToolDropped {
				t.Errorf("null description: status %s", tl.Status)
			}
		}
		if tl.Status == ToolSkipped {
			sawSkipped = true
			if !names.Has(tl.Diagnostics, names.CodeToolDropped) {
				t.Errorf("skipped tool lacks the tool_dropped diagnostic: %+v", tl.Diagnostics)
			}
		}
	}
	if !sawAnyOf || !sawNull {
		t.Errorf("anyOf kept: %v, null description seen: %v", sawAnyOf, sawNull)
	}
	_ = sawSkipped // the names fixture may or may not carry a name that sanitizes to empty
	collisions := 0
	for _, tl := range d.Tools {
		if names.Has(tl.Diagnostics, names.CodeCollision) {
			collisions++
		}
	}
	if collisions < 2 {
		t.Errorf("the colliding names should carry collision diagnostics (%d)", collisions)
	}
}

// https string refs: discovery without headers, sanitized keys, #tool
// selection, sanitized call names; adapter: bare names.
func TestNamingPerRefKindAndPolicy(t *testing.T) {
	base := httpSpec(t, "weather", "http")
	https := base
	https.Ref, https.SelectTool = RefHTTPS, "get_forecast"
	d, err := Discover(context.Background(), https, Options{Cache: &ToolsCache{}})
	if err != nil {
		t.Fatal(err)
	}
	fc, _ := d.Tool("getForecast")
	al, _ := d.Tool("getAlerts")
	if fc.Status != ToolKept || al.Status != ToolNotSelected || fc.CallName != "get_forecast" {
		t.Errorf("https: forecast %+v alerts %+v", fc, al)
	}
	// (names diagnostics need an https:// ref; the loopback fixture is http.)
	https.URL = "https://mcp.example.com/mcp"
	r, err := names.Resolve(nameInput(https, "getForecast"))
	if err != nil || !names.Has(r.Diagnostics, names.CodeHTTPSCallName) {
		t.Errorf("https call name diagnostic missing: %+v %v", r.Diagnostics, err)
	}

	amp := base
	amp.Ref, amp.RefString, amp.AMPSlug, amp.SelectTool = RefAMP, "weather#alerts", "weather", "alerts"
	d, err = Discover(context.Background(), amp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fc, _ = d.Tool("getForecast")
	al, _ = d.Tool("getAlerts")
	if fc.Status != ToolNotSelected || al.Status != ToolKept {
		t.Errorf("amp suffix selection: forecast %s alerts %s", fc.Status, al.Status)
	}

	adapter := base
	adapter.Policy = PolicyAdapter
	d, err = Discover(context.Background(), adapter, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fc, _ = d.Tool("getForecast")
	if fc.LLMName != "get_forecast" || fc.DisplayName != "get_forecast" {
		t.Errorf("adapter names: %+v", fc)
	}
}

// The https-string path's schema cache (keyed by URL, 300 s) and the
// native cache_tools_list cache: a second discovery within the TTL does not
// connect; after the TTL it does.
func TestToolsListCaches(t *testing.T) {
	now := time.Unix(1000, 0)
	cache := &ToolsCache{Now: func() time.Time { return now }}
	spec := fixtureSpec(t, "weather")
	spec.CacheToolsList = true
	em, col := recorder()
	for i := 0; i < 2; i++ {
		d, err := Discover(context.Background(), spec, Options{Emitter: em, Cache: cache})
		if err != nil || d.FromCache != (i == 1) {
			t.Fatalf("discovery %d: from cache %v, %v", i, d.FromCache, err)
		}
	}
	if n := len(spawnedPids(col)); n != 1 {
		t.Errorf("%d spawns, want 1 (second from cache)", n)
	}
	now = now.Add(ToolsListCacheTTL)
	if d, _ := Discover(context.Background(), spec, Options{Emitter: em, Cache: cache}); d.FromCache {
		t.Error("cache entry outlived its 300 s TTL")
	}
	spec.CacheToolsList = false
	if CacheKey(spec) != "" {
		t.Error("without cache_tools_list CrewAI caches nothing")
	}
	spec.CacheToolsList = true
	if k := CacheKey(spec); k != "mcp:stdio:"+spec.Command+":"+strings.Join(spec.Args, ":")+":tools" {
		t.Errorf("key %q", k)
	}
	assertGone(t, spawnedPids(col))
}

// Policies over HTTP and SSE: outcomes, texts, attempts.
func TestPoliciesOverHTTPAndSSE(t *testing.T) {
	leakCheck(t)
	for _, transport := range []string{"http", "sse"} {
		spec := httpSpec(t, "errors", transport)
		spec.Timeouts.Backoff = 10 * time.Millisecond
		// native: isError → ToolFailure mcp_error.
		r := Call(context.Background(), spec, "returns_is_error", nil, Options{})
		if r.Outcome != session.OutcomeIsError || r.FailureReason != FailureMCPError {
			t.Errorf("%s native: %+v", transport, r)
		}
		// adapter: no retries, error raised unchanged.
		a := spec
		a.Policy = PolicyAdapter
		r = Call(context.Background(), a, "returns_jsonrpc_error", nil, Options{})
		if len(r.Attempts) != 1 || r.Outcome != session.OutcomeJSONRPCError || !r.Raised || !strings.Contains(r.Text, "database connection refused") {
			t.Errorf("%s adapter: %+v", transport, r)
		}
	}
	// https-string: isError ignored (text returned as success), errors as strings.
	spec := httpSpec(t, "errors", "http")
	spec.Policy = PolicyHTTPSString
	spec.Timeouts.Backoff = 10 * time.Millisecond
	r := Call(context.Background(), spec, "returns_is_error", nil, Options{})
	if r.Failed || r.Text == "" || r.Outcome != session.OutcomeIsError {
		t.Errorf("https isError: %+v", r)
	}
	// "…connection refused…" reads as a network error to CrewAI: retried.
	r = Call(context.Background(), spec, "returns_jsonrpc_error", nil, Options{})
	if r.Failed || r.Text != "MCP tool execution failed after 3 attempts: Network connection failed: database connection refused (simulated)" || len(r.Attempts) != 3 {
		t.Errorf("https jsonrpc error: %+v", r)
	}
	r = Call(context.Background(), spec, "panics", nil, Options{})
	if r.Failed || !strings.HasPrefix(r.Text, "MCP execution error: panic recovered") || len(r.Attempts) != 1 {
		t.Errorf("https panic: %+v", r)
	}
}

// https-string timeouts: a fresh session per attempt, 3 attempts, the
// wrapper's texts, returned not raised.
func TestHTTPSStringTimeoutRetries(t *testing.T) {
	spec := httpSpec(t, "slow", "http")
	spec.Policy = PolicyHTTPSString
	spec.Timeouts = Timeouts{Call: 300 * time.Millisecond, Backoff: 50 * time.Millisecond}
	em, col := recorder()
	r := Call(context.Background(), spec, "slow_report", map[string]any{"seconds": 5}, Options{Emitter: em})
	if len(r.Attempts) != 3 || r.Failed || r.Text != "MCP tool execution failed after 3 attempts: Connection timed out after 0.3 seconds" {
		t.Errorf("https-string timeout: %+v", r)
	}
	if n := len(eventsOf(col, session.OwnMCPConnectionStarted)); n != 3 {
		t.Errorf("%d connections, want a fresh one per attempt", n)
	}
}

// 401/403/404 from HTTP endpoints are classified by status.
func TestHTTPStatusClasses(t *testing.T) {
	leakCheck(t)
	for _, c := range []struct {
		status int
		class  string
		text   string
	}{
		{401, session.OutcomeAuth, "Failed to connect to MCP server: Client error '401 Unauthorized'"},
		{403, session.OutcomeAuth, "Failed to connect to MCP server: Client error '403 Forbidden'"},
		{404, session.OutcomeNotFound, "Failed to connect to MCP server: Client error '404 Not Found'"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
		}))
		spec := ServerSpec{Name: "status", Transport: TransportHTTP, URL: srv.URL + "/mcp?token=s3cr3t-value",
			Headers: map[string]string{"Authorization": "Bearer abcdefgh"}}
		r := Call(context.Background(), spec, "x", nil, Options{})
		if r.Outcome != c.class || !strings.HasPrefix(r.Text, "Error executing MCP tool x: "+c.text) {
			t.Errorf("%d: %s %q (%s)", c.status, r.Outcome, r.Text, r.Error)
		}
		if strings.Contains(r.Text+r.Error, "s3cr3t-value") || strings.Contains(r.Text+r.Error, "abcdefgh") {
			t.Errorf("%d: secret in %q / %q", c.status, r.Text, r.Error)
		}
		h := ProbeHTTP(context.Background(), srv.URL+"/mcp", nil, 2*time.Second)
		want := map[int]Health{401: HealthAuth, 403: HealthAuth, 404: HealthWrongPath}[c.status]
		if h.Health != want {
			t.Errorf("probe %d: %+v", c.status, h)
		}
		srv.Close()
	}
}

func TestHealthProbe(t *testing.T) {
	leakCheck(t)
	u := fixturetest.StartHTTP(t, "weather", "http")
	if h := ProbeHTTP(context.Background(), u, nil, 5*time.Second); h.Health != HealthOK && h.Health != HealthStream {
		t.Errorf("healthy fixture: %+v", h)
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	down := srv.URL
	srv.Close()
	if h := ProbeHTTP(context.Background(), down+"/mcp", nil, 2*time.Second); h.Health != HealthDown {
		t.Errorf("closed port: %+v", h)
	}
	srv406 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(406) }))
	defer srv406.Close()
	if h := ProbeHTTP(context.Background(), srv406.URL+"/mcp", nil, 2*time.Second); h.Health != HealthOK || h.Status != 406 {
		t.Errorf("406: %+v", h)
	}
}

// Discovery failures carry CrewAI's texts for each path.
func TestDiscoveryFailureTexts(t *testing.T) {
	leakCheck(t)
	hang := httpSpec(t, "hang-init", "http")
	hang.Ref = RefHTTPS
	hang.Timeouts = Timeouts{Connect: 200 * time.Millisecond, Discovery: 300 * time.Millisecond, Backoff: 20 * time.Millisecond}
	d, err := Discover(context.Background(), hang, Options{Cache: &ToolsCache{}})
	want := "Failed to get MCP tool schemas from " + hang.URL + ": Failed to discover MCP tools after 3 attempts: MCP discovery timed out after 0.3 seconds"
	if err == nil || d.CrewAIError != want || len(d.Attempts) != 3 || d.Outcome != session.OutcomeTimeout {
		t.Errorf("https discovery: %q (%d attempts, %s)\nwant %q", d.CrewAIError, len(d.Attempts), d.Outcome, want)
	}

	native := fixtureSpec(t, "hang-init")
	native.Timeouts.Connect = 200 * time.Millisecond
	d, err = Discover(context.Background(), native, Options{})
	if err == nil || d.CrewAIError != "Failed to get native MCP tools: Error during setup client and list tools: MCP connection timed out after 0.2 seconds. The server may be slow or unreachable." {
		t.Errorf("native discovery: %q", d.CrewAIError)
	}
}

// Frames carry method, id, direction and size; payloads are capped.
func TestFrameEvents(t *testing.T) {
	spec := fixtureSpec(t, "huge", "--size", "64KiB")
	em, col := recorder()
	r := Call(context.Background(), spec, "huge_result", nil, Options{Emitter: em})
	if r.Outcome != session.OutcomeOK {
		t.Fatal(r.Error)
	}
	var sawInit, sawBig bool
	for _, e := range eventsOf(col, session.MCPFrame) {
		if e.Str("method") == "initialize" && e.Str("direction") == "send" && e.Str("id") != "" {
			sawInit = true
		}
		if e.Str("method") == "tools/call" && e.Str("direction") == "recv" && e.Int("bytes") > 64<<10 {
			sawBig = e.Bool("truncated") && len(e.Str("payload")) <= maxFramePayload
		}
	}
	if !sawInit || !sawBig {
		t.Errorf("initialize frame %v, big capped response frame %v", sawInit, sawBig)
	}
}

// The adapter policy is crewai_tools' MCPServerAdapter tool (≥ 1.10):
// the one item's text, isError ignored, "[]" for no content, top-level None
// dropped only.
func TestAdapterResults(t *testing.T) {
	spec := fixtureSpec(t, "errors")
	spec.Policy = PolicyAdapter
	r := Call(context.Background(), spec, "returns_is_error", map[string]any{"x": nil, "y": map[string]any{"z": nil}}, Options{})
	if r.Failed || r.Outcome != session.OutcomeIsError || r.Text == "" {
		t.Errorf("isError: %+v", r)
	}
	if string(r.Arguments) != `{"y":{"z":null}}` {
		t.Errorf("adapter arguments %v: only top-level None is dropped", r.Arguments)
	}
	r = Call(context.Background(), spec, "returns_empty_content", nil, Options{})
	if r.Raised || r.Text != "[]" {
		t.Errorf("empty content: %+v", r)
	}
}

// A server that accepts initialize and answers 401 + WWW-Authenticate to
// the next request is an auth failure, not retried: the class must not
// fall back to the GET stream's 405.
func TestUnauthorizedAfterInitializeIsAuth(t *testing.T) {
	leakCheck(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if r.Method == http.MethodDelete {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&msg)
		switch msg.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s-1")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"late-auth","version":"1"}}}`, msg.ID)
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	spec := ServerSpec{Name: "late-auth", Transport: TransportHTTP, URL: srv.URL + "/mcp"}

	d, _ := Discover(context.Background(), spec, Options{})
	if d == nil || d.Outcome != session.OutcomeAuth {
		t.Fatalf("discovery: %+v", d)
	}
	if strings.Contains(d.CrewAIError, "attempts") {
		t.Errorf("discovery retried an auth failure: %q", d.CrewAIError)
	}

	r := Call(context.Background(), spec, "x", nil, Options{})
	if r.Outcome != session.OutcomeAuth || len(r.Attempts) != 1 {
		t.Errorf("call: outcome %s after %d attempts: %q", r.Outcome, len(r.Attempts), r.Text)
	}
	if !strings.Contains(r.Text, "Authentication failed") {
		t.Errorf("call text %q, want CrewAI's authentication wording", r.Text)
	}
}

// Several content items under the adapter policy: str() of the list of
// their texts.
func TestAdapterSeveralContentItems(t *testing.T) {
	c := &caller{r: &CallResult{}}
	c.finishAdapter(&toolResult{res: &mcp.CallToolResult{Content: []mcp.Content{
		mcp.TextContent{Type: "text", Text: "a"}, mcp.TextContent{Type: "text", Text: "it's"},
	}}})
	if c.r.Text != `['a', "it's"]` || c.r.Raised {
		t.Errorf("text %q raised %v", c.r.Text, c.r.Raised)
	}
}

// One server, one identity (issue 13, defect 6): CrewAI's MCP events keep
// CrewAI's server_name ("127.0.0.1" for a URL, "cmd args" with CrewAI's
// spacing), but every node of the session tree and every span of one call
// names the server by its handle.
func TestOneServerIdentityPerCall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the argument-less stdio server is a shell script")
	}
	leakCheck(t)
	// A command without arguments, as `--stdio mcp-server-everything`:
	// CrewAI's server_name is "cmd " with a trailing space.
	stdio := fixtureSpec(t, "weather")
	script := filepath.Join(t.TempDir(), "weather-server")
	quoted := []string{"exec", shellQuote(stdio.Command)}
	for _, a := range stdio.Args {
		quoted = append(quoted, shellQuote(a))
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"+strings.Join(quoted, " ")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdio.Name, stdio.Command, stdio.Args = "", script, nil
	web := httpSpec(t, "weather", "http")
	web.Name = ""
	for _, spec := range []ServerSpec{stdio, web} {
		em, col := recorder()
		r := Call(context.Background(), spec, "getForecast", map[string]any{"city": "Oslo"}, Options{Emitter: em})
		if r.Outcome != session.OutcomeOK {
			t.Fatalf("%s: %+v", spec.Transport, r)
		}
		want := Handle(spec)
		if crewAI := EventServerName(spec); crewAI == want {
			t.Fatalf("%s: the test needs CrewAI's server_name to differ from the handle (%q)", spec.Transport, want)
		}
		if started := eventsOf(col, session.MCPToolExecutionStarted); len(started) != 1 || started[0].Server != EventServerName(spec) {
			t.Errorf("%s: CrewAI's server_name changed: %+v", spec.Transport, started)
		}
		tree := session.BuildTree(col.Events())
		tree.Walk(func(n *session.Node, _ int) bool {
			if n.Server != "" && n.Server != want {
				t.Errorf("%s: %s node names the server %q, want %q", spec.Transport, n.Title, n.Server, want)
			}
			return true
		})
		for _, rs := range session.BuildTraces(col.Events(), session.ExportOptions{}).ResourceSpans {
			for _, sp := range rs.ScopeSpans[0].Spans {
				for _, kv := range sp.Attributes {
					if kv.Key == "crewbench.mcp.server" && kv.Value.GetStringValue() != want {
						t.Errorf("%s: span %s names the server %q, want %q", spec.Transport, sp.Name, kv.Value.GetStringValue(), want)
					}
				}
			}
		}
	}
}
