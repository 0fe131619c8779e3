package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"testing"

	"crewbench/fixtures/fixturetest"
)

// Image content shows its MIME type and size.
func TestCall_ImageContentShowsTypeAndSize(t *testing.T) {
	code, out, errs := run(t, "call", "--no-record", "--stdio", fixtureCommandLine(t, "reference"), "render_chart")
	if code != exitOK || !strings.Contains(out, "  [1] image image/png 69 B\n") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
}

// A server that accepts initialize and answers 401 to the call: call exits
// with the connection code, not the tool's.
func TestCall_UnauthorizedExitsWithTheConnectionCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
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
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"late-auth","version":"1"}}}`, msg.ID)
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	code, out, errs := run(t, "call", "--no-record", "--url", srv.URL+"/mcp", "x")
	if code != exitConnection {
		t.Errorf("exit %d, want %d:\n%s%s", code, exitConnection, out, errs)
	}
}

// Connect errors say what the probe says: a 404 is a wrong path, not "a
// legacy SSE server"; mcp-go's doubled wrap is said once.
func TestTools_ConnectErrorWording(t *testing.T) {
	url := strings.TrimSuffix(fixturetest.StartHTTP(t, "weather", "http"), "/mcp") + "/wrong"
	_, out, errs := run(t, "tools", "--url", url)
	if strings.Contains(out+errs, "legacy SSE") || !strings.Contains(out, "404 Not Found: nothing serves MCP at this path") {
		t.Errorf("wrong path:\n%s%s", out, errs)
	}
	_, out, errs = run(t, "tools", "--url", "http://127.0.0.1:1/mcp")
	if strings.Contains(out+errs, "failed to send request: failed to send request") || !strings.Contains(out, "failed to send request: ") {
		t.Errorf("refused connection:\n%s%s", out, errs)
	}
}

// The version is the module's, else the VCS revision, never a bare "dev"
// when the build knows better.
func TestVersionFromBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	cases := []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: vcs("0123456789abcdef", "false")}, "v1.4.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef", "false")}, "dev+0123456789ab"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc", "true")}, "dev+abc-dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	}
	for _, c := range cases {
		if got := versionFrom(c.bi); got != c.want {
			t.Errorf("versionFrom(%+v) = %q, want %q", c.bi, got, c.want)
		}
	}
}
