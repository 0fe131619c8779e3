package mcpconn

// Conformance audit of mcpconn against crewai-semantics.md §2, §4 and §6:
// every constant, message text and decision rule the spec quotes, one table
// row each, so a drift from the spec fails by name.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

// §4.1: the three constant sets, the 2**attempt backoff, the 300 s TTL and
// the SDK's 2.0 s termination grace.
func TestConformanceConstants(t *testing.T) {
	cases := []struct {
		name      string
		got, want time.Duration
	}{
		{"MCPClient connect (MCP_CONNECTION_TIMEOUT)", NativeConnectTimeout, 30 * time.Second},
		{"MCPClient discovery (MCP_DISCOVERY_TIMEOUT)", NativeDiscoveryTimeout, 30 * time.Second},
		{"MCPClient per call (MCP_TOOL_EXECUTION_TIMEOUT)", NativeCallTimeout, 30 * time.Second},
		{"https discovery initialize", HTTPSDiscoveryConnectTimeout, 10 * time.Second},
		{"https discovery whole attempt", HTTPSDiscoveryTimeout, 15 * time.Second},
		{"https call whole attempt", HTTPSCallTimeout, 60 * time.Second},
		{"schema/list cache TTL", ToolsListCacheTTL, 300 * time.Second},
		{"PROCESS_TERMINATION_TIMEOUT", ShutdownGrace, 2 * time.Second},
		{"native backoff after attempt 1", CallLimits(ServerSpec{}, PolicyNative).backoff(1), time.Second},
		{"native backoff after attempt 2", CallLimits(ServerSpec{}, PolicyNative).backoff(2), 2 * time.Second},
		{"https list_tools share (15 - 10)", DiscoveryLimits(ServerSpec{Ref: RefHTTPS}).Discovery - DiscoveryLimits(ServerSpec{Ref: RefHTTPS}).Connect, 5 * time.Second},
		{"https call limit", CallLimits(ServerSpec{Ref: RefHTTPS}, EffectivePolicy(ServerSpec{Ref: RefHTTPS})).Call, 60 * time.Second},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if MaxRetries != 3 || CallLimits(ServerSpec{}, PolicyNative).Attempts != 3 || DiscoveryLimits(ServerSpec{Ref: RefHTTPS}).Attempts != 3 {
		t.Errorf("MCP_MAX_RETRIES must be 3 on every path")
	}
	if EffectivePolicy(ServerSpec{Ref: RefHTTPS}) != PolicyHTTPSString || EffectivePolicy(ServerSpec{Transport: TransportStdio}) != PolicyNative ||
		EffectivePolicy(ServerSpec{Ref: RefAMP}) != PolicyNative {
		t.Errorf("default policies: https refs use the wrapper, configs and AMP the native MCPClient")
	}
}

// §4.2: MCPClient._retry_operation classifies by the lowercased message.
func TestConformanceNativeRetryDecision(t *testing.T) {
	l := CallLimits(ServerSpec{}, PolicyNative)
	cases := []struct {
		f     failureInfo
		text  string
		retry bool
	}{
		{failureInfo{Timeout: true, Text: "x"}, "Operation timed out after 30 seconds", true},
		{failureInfo{Text: "Authentication required"}, "Authentication failed: Authentication required", false},
		{failureInfo{Text: "Client error '401 Unauthorized'"}, "Authentication failed: Client error '401 Unauthorized'", false},
		{failureInfo{Text: "UNAUTHORIZED token"}, "Authentication failed: UNAUTHORIZED token", false},
		{failureInfo{Text: "Client error '404 Not Found'"}, "Resource not found: Client error '404 Not Found'", false},
		{failureInfo{Text: "Unknown tool: x"}, "Unknown tool: x", true},
		{failureInfo{Text: "Client error '403 Forbidden'"}, "Client error '403 Forbidden'", true},
		{failureInfo{Text: "database connection refused"}, "database connection refused", true},
	}
	for _, c := range cases {
		text, retry := nativeRetryDecision(c.f, l)
		if text != c.text || retry != c.retry {
			t.Errorf("%+v: got %q retry=%v, want %q retry=%v", c.f, text, retry, c.text, c.retry)
		}
	}
}

// §4.3: MCPToolWrapper's strings. TaskGroup / "unhandled errors" (anyio
// exception groups) read as timeouts; "not found" is by message only.
func TestConformanceHTTPSCallDecision(t *testing.T) {
	l := CallLimits(ServerSpec{Ref: RefHTTPS}, PolicyHTTPSString)
	const timeout = "Connection timed out after 60 seconds"
	cases := []struct {
		f     failureInfo
		text  string
		retry bool
	}{
		{failureInfo{Timeout: true}, timeout, true},
		{failureInfo{Class: session.OutcomeTransportClosed, Text: "Connection closed"}, timeout, true},
		{failureInfo{Text: "unhandled errors in a TaskGroup (1 sub-exception)"}, timeout, true},
		{failureInfo{Text: "boom in TaskGroup"}, timeout, true},
		{failureInfo{Text: "Unhandled errors while not found"}, timeout, true},
		{failureInfo{Text: "Client error '401 Unauthorized'"}, "Authentication failed for MCP server: Client error '401 Unauthorized'", false},
		{failureInfo{Text: "authentication required"}, "Authentication failed for MCP server: authentication required", false},
		{failureInfo{Text: "Client error '404 Not Found'", Class: session.OutcomeNotFound}, "Tool 'get_forecast' not found on MCP server", false},
		{failureInfo{Text: "tool 'x' not found: tool not found"}, "Tool 'get_forecast' not found on MCP server", false},
		// A JSON-RPC "Unknown tool" has no "not found" in its text.
		{failureInfo{Text: "Unknown tool: getForecast", Class: session.OutcomeNotFound}, "MCP execution error: Unknown tool: getForecast", false},
		{failureInfo{Text: "database connection refused"}, "Network connection failed: database connection refused", true},
		{failureInfo{Text: "network unreachable"}, "Network connection failed: network unreachable", true},
		{failureInfo{Text: "invalid JSON in response"}, "Server response parsing error: invalid JSON in response", true},
		{failureInfo{Text: "parsing failed"}, "Server response parsing error: parsing failed", true},
		{failureInfo{Text: "panic recovered"}, "MCP execution error: panic recovered", false},
	}
	for _, c := range cases {
		text, retry := httpsCallDecision(c.f, "get_forecast", l)
		if text != c.text || retry != c.retry {
			t.Errorf("%+v: got %q retry=%v, want %q retry=%v", c.f, text, retry, c.text, c.retry)
		}
	}
}

// §4.2: MCPClient.connect's texts, with the transport wraps doubled.
func TestConformanceConnectTexts(t *testing.T) {
	l := CallLimits(ServerSpec{}, PolicyNative)
	cases := []struct {
		spec ServerSpec
		f    failureInfo
		want string
	}{
		{ServerSpec{Transport: TransportHTTP}, failureInfo{Timeout: true}, "MCP connection timed out after 30 seconds. The server may be slow or unreachable."},
		{ServerSpec{Transport: TransportHTTP}, failureInfo{Class: session.OutcomeCancelled}, "MCP connection was cancelled. This may indicate an authentication error or server unavailability."},
		{ServerSpec{Transport: TransportStdio}, failureInfo{Class: session.OutcomeSpawnFailed, Text: "[Errno 2] No such file"},
			"Failed to connect to MCP server: Failed to start MCP server process: Failed to enter stdio transport context: [Errno 2] No such file"},
		{ServerSpec{Transport: TransportSSE}, failureInfo{Text: "refused"}, "Failed to connect to MCP server: Failed to connect to SSE MCP server: refused"},
		{ServerSpec{Transport: TransportHTTP}, failureInfo{Text: "refused"}, "Failed to connect to MCP server: refused"},
	}
	for _, c := range cases {
		if got := connectText(c.spec, l, c.f); got != c.want {
			t.Errorf("%s %+v:\n got %q\nwant %q", c.spec.Transport, c.f, got, c.want)
		}
	}
}

// §2.2 and §4.2: the raw server_name (tool prefix) and the event
// server_name.
func TestConformanceServerNames(t *testing.T) {
	cases := []struct {
		spec         ServerSpec
		prefix, even string
	}{
		{ServerSpec{Transport: TransportStdio, Command: "my-mcp-server"}, "my-mcp-server_", "my-mcp-server "},
		{ServerSpec{Transport: TransportStdio, Command: "python", Args: []string{"servers/inventory.py"}}, "python_servers/inventory.py", "python servers/inventory.py"},
		{ServerSpec{Transport: TransportStdio, Command: "npx", Args: []string{"-y", "@scope/pkg v1"}}, "npx_-y_@scope/pkg v1", "npx -y @scope/pkg v1"},
		{ServerSpec{Transport: TransportHTTP, URL: "http://localhost:8765/mcp"}, "localhost:8765_mcp", "localhost"},
		{ServerSpec{Transport: TransportHTTP, URL: "https://h/mcp;v=1?x=1#frag"}, "h_mcp", "h"},
		{ServerSpec{Transport: TransportHTTP, URL: "http://[::1]:8765/mcp"}, "[::1]:8765_mcp", "::1"},
		{ServerSpec{Transport: TransportSSE, URL: "https://User@API.Example.com/v1.0/sse/"}, "User@API_Example_com_v1.0_sse", "api.example.com"},
		{ServerSpec{Transport: TransportHTTP, URL: "https://mcp.exa.ai/mcp?api_key=key"}, "mcp_exa_ai_mcp", "mcp.exa.ai"},
		{ServerSpec{Transport: TransportHTTP, URL: "https://host.example.com"}, "host_example_com", "host.example.com"},
	}
	for _, c := range cases {
		got, err := CrewAIServerName(c.spec)
		if err != nil || got != c.prefix {
			t.Errorf("CrewAIServerName(%+v) = %q, %v; want %q", c.spec, got, err, c.prefix)
		}
		if got := EventServerName(c.spec); got != c.even {
			t.Errorf("EventServerName(%+v) = %q; want %q", c.spec, got, c.even)
		}
	}
	// No hostname: CrewAI's server_name is the URL (gaps B15).
	if got := EventServerName(ServerSpec{Transport: TransportHTTP, URL: "http:///mcp"}); got != "http:///mcp" {
		t.Errorf("EventServerName without a hostname = %q, want the URL", got)
	}
}

// §6: the SDK's default lists, the "()" skip, and env overriding.
func TestConformanceStdioEnvironment(t *testing.T) {
	if got := strings.Join(defaultInheritedEnvFor("linux"), ","); got != "HOME,LOGNAME,PATH,SHELL,TERM,USER" {
		t.Errorf("POSIX list = %s", got)
	}
	if got := strings.Join(defaultInheritedEnvFor("windows"), ","); got != "APPDATA,HOMEDRIVE,HOMEPATH,LOCALAPPDATA,PATH,PATHEXT,PROCESSOR_ARCHITECTURE,SYSTEMDRIVE,SYSTEMROOT,TEMP,USERNAME,USERPROFILE" {
		t.Errorf("Windows list = %s", got)
	}
	parent := []string{"HOME=() { :; }", "PATH=/usr/bin", "USER=()x", "SHELL=/bin/sh", "PWD=/tmp", "SECRET_TOKEN=t", "TERM= ()"}
	got := StdioEnvironment(ServerSpec{Env: map[string]string{"USER": "me", "EXTRA": "1"}}, parent)
	var b strings.Builder
	for _, v := range got {
		b.WriteString(v.Name + "=" + v.Value + "(" + string(v.Source) + ");")
	}
	want := "EXTRA=1(env);PATH=/usr/bin(inherited);SHELL=/bin/sh(inherited);TERM= ()(inherited);USER=me(env);"
	if b.String() != want {
		t.Errorf("environment\n got %s\nwant %s", b.String(), want)
	}
}

// §6: POSIX starts the server in a new session (start_new_session=True).
func TestConformanceStdioNewSession(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	tr := newStdioTransport("sleep", []string{"5"}, os.Environ(), 200*time.Millisecond, DefaultMaxMessage, stdioHooks{})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	pid := tr.cmd.Process.Pid
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the parenthesised command: state ppid pgrp session …
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if fields[2] != strconv.Itoa(pid) || fields[3] != strconv.Itoa(pid) {
		t.Errorf("child pid %d: pgrp %s, session %s; want both = pid", pid, fields[2], fields[3])
	}
}

// §4.3: the https-string wrapper talks to the SDK directly, so a failed
// connection's string has no MCPClient "Failed to connect to MCP server: "
// prefix, and it is returned as ordinary output.
func TestConformanceHTTPSConnectErrorIsBare(t *testing.T) {
	leakCheck(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	spec := ServerSpec{Transport: TransportHTTP, URL: srv.URL + "/mcp", Ref: RefHTTPS}
	r := Call(context.Background(), spec, "getForecast", nil, Options{})
	if r.Failed || r.Raised || r.Text != "Authentication failed for MCP server: Client error '401 Unauthorized'" {
		t.Errorf("https 401: failed=%v raised=%v text %q", r.Failed, r.Raised, r.Text)
	}
	if r.CallName != "get_forecast" || len(r.Attempts) != 1 {
		t.Errorf("call name %q (the sanitized key), %d attempts (auth is not retried)", r.CallName, len(r.Attempts))
	}
}
