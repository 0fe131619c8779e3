package names

import (
	"strings"
	"testing"
)

// urlCases: expected parts from Python 3.11.7's urllib.parse.urlparse.
var urlCases = []struct {
	url                                  string
	netloc, path, params, query, fragent string
	host                                 string
	err                                  string // substring of the error; "" = parses
}{
	{url: "http://localhost:8765/mcp", netloc: "localhost:8765", path: "/mcp", host: "localhost"},
	{url: "https://mcp.exa.ai/mcp?api_key=key", netloc: "mcp.exa.ai", path: "/mcp", query: "api_key=key", host: "mcp.exa.ai"},
	{url: "http://[::1]:8000/sse", netloc: "[::1]:8000", path: "/sse", host: "::1"},
	{url: "https://h/mcp;v=1", netloc: "h", path: "/mcp", params: "v=1", host: "h"},
	{url: "https://API.Example.COM/MCP", netloc: "API.Example.COM", path: "/MCP", host: "api.example.com"},
	{url: "ws://h/a;b", netloc: "h", path: "/a;b", host: "h"}, // ws is not in uses_params
	{url: "https://[v1.x]/mcp", netloc: "[v1.x]", path: "/mcp", host: "v1.x"},
	{url: "http://h/a;b/c;d", netloc: "h", path: "/a;b/c", params: "d", host: "h"},
	{url: "https://h/a/b;c/d", netloc: "h", path: "/a/b;c/d", host: "h"},
	{url: "https://u:p@[::1%eth0]:80/x", netloc: "u:p@[::1%eth0]:80", path: "/x", host: "::1%eth0"},
	{url: "HTTPS://H/p;q", netloc: "H", path: "/p", params: "q", host: "h"},
	{url: " \x01https://h/p", netloc: "h", path: "/p", host: "h"},
	{url: "ht\ttp://h\n/p", netloc: "h", path: "/p", host: "h"},
	{url: "https://exémple.com/x", netloc: "exémple.com", path: "/x", host: "exémple.com"},
	{url: "1http://h/p", path: "1http://h/p"},
	{url: "h:80/p", path: "80/p"},
	{url: "//h/p?q#f", netloc: "h", path: "/p", query: "q", fragent: "f", host: "h"},
	{url: "https://h/p#f?q", netloc: "h", path: "/p", fragent: "f?q", host: "h"},
	{url: "https://h?q/p", netloc: "h", query: "q/p", host: "h"},
	{url: "https://h:/p", netloc: "h:", path: "/p", host: "h"},
	{url: "https://[::ffff:1.2.3.4]/", netloc: "[::ffff:1.2.3.4]", path: "/", host: "::ffff:1.2.3.4"},
	{url: "file:///tmp/x;y", path: "/tmp/x;y"},
	{url: ""},
	{url: "https://[V1.x]/", err: "does not appear to be an IPv4 or IPv6 address"},
	{url: "http://[::1:8000/sse", err: "Invalid IPv6 URL"},
	{url: "http://::1]/x", err: "Invalid IPv6 URL"},
	{url: "https://[127.0.0.1]/", err: "does not appear"},
	{url: "https://[v1.]/", err: "does not appear"},
	{url: "https://[vg.x]/", err: "does not appear"},
	{url: "https://ex\u2100ample.com/", err: "NFKC"},
	{url: "https://exa\uff0fmple.com/", err: "NFKC"},
}

func TestPyURLParse(t *testing.T) {
	for _, tc := range urlCases {
		u, err := PyURLParse(tc.url)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("PyURLParse(%q) error = %v, want one containing %q", tc.url, err, tc.err)
			}
			if _, err := URLServerName(tc.url); err == nil {
				t.Errorf("URLServerName(%q) must fail like urlparse", tc.url)
			}
			continue
		}
		if err != nil {
			t.Errorf("PyURLParse(%q): %v", tc.url, err)
			continue
		}
		got := [5]string{u.Netloc, u.Path, u.Params, u.Query, u.Fragment}
		want := [5]string{tc.netloc, tc.path, tc.params, tc.query, tc.fragent}
		if got != want {
			t.Errorf("PyURLParse(%q) = %q, want %q", tc.url, got, want)
		}
		if h := u.Hostname(); h != tc.host {
			t.Errorf("PyURLParse(%q).Hostname() = %q, want %q", tc.url, h, tc.host)
		}
	}
}

func TestURLServerName(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://localhost:8765/mcp", "localhost:8765_mcp"},
		{"https://mcp.exa.ai/mcp?api_key=key", "mcp_exa_ai_mcp"}, // the docs' mcp_exa_ai_* is wrong (§8.3)
		{"http://[::1]:8000/sse", "[::1]:8000_sse"},
		{"https://h/mcp;v=1", "h_mcp"},
		{"https://API.Example.COM/MCP", "API_Example_COM_MCP"},
		{"http://localhost:8000/mcp/", "localhost:8000_mcp"},
		{"https://host", "host"},
		{"https://host/", "host"},
		{"https://user@h.example.com:8443/v1.0/mcp/", "user@h_example_com:8443_v1.0_mcp"},
		{"https://h/a//b/", "h_a__b"},
		{"https://h#frag", "h"},
	} {
		got, err := URLServerName(tc.url)
		if err != nil || got != tc.want {
			t.Errorf("URLServerName(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
}

func TestStdioServerName(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"python", []string{"servers/inventory.py"}, "python_servers/inventory.py"},
		{"my-mcp-server", nil, "my-mcp-server_"},
		{"server", []string{}, "server_"},
		{"npx", []string{"-y", "@modelcontextprotocol/server-filesystem", "./data"}, "npx_-y_@modelcontextprotocol/server-filesystem_./data"},
		{"python", []string{"my server.py", ""}, "python_my server.py_"},
	} {
		if got := StdioServerName(tc.cmd, tc.args); got != tc.want {
			t.Errorf("StdioServerName(%q, %q) = %q, want %q", tc.cmd, tc.args, got, tc.want)
		}
	}
}

func TestNativeTool(t *testing.T) {
	d, l, skipped := NativeTool("npx_-y_@modelcontextprotocol/server-filesystem_./data", "list_allowed_directories")
	if skipped || d != "npx_-y_@modelcontextprotocol/server-filesystem_./data_list_allowed_directories" || l != "npx_y_modelcontextprotocol_server_filesystem_data_list_4ab656ee" {
		t.Errorf("npx: %q %q %v", d, l, skipped)
	}
	if _, _, skipped := NativeTool("host_mcp", "天气预报"); !skipped {
		t.Error("a remote name that sanitizes to empty must be skipped")
	}
}

// FuzzPyURLParse: never panics; a parsed URL always yields a server name;
// the netloc never holds a delimiter; the server name keeps the netloc.
func FuzzPyURLParse(f *testing.F) {
	for _, tc := range urlCases {
		f.Add(tc.url)
	}
	f.Add("https://[fe80::1%25en0]:1/x;y?z#w")
	f.Add("http://[")
	f.Add("https://a@b@c:1:2/")
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := PyURLParse(raw)
		name, nerr := URLServerName(raw)
		if (err == nil) != (nerr == nil) {
			t.Fatalf("PyURLParse err %v but URLServerName err %v", err, nerr)
		}
		_ = redactURL(raw)
		if err != nil {
			return
		}
		if strings.ContainsAny(u.Netloc, "/?#") {
			t.Fatalf("netloc %q holds a delimiter", u.Netloc)
		}
		if !strings.HasPrefix(name, strings.ReplaceAll(u.Netloc, ".", "_")) {
			t.Fatalf("server name %q does not start with the netloc %q", name, u.Netloc)
		}
		_ = u.Hostname()
	})
}

// FuzzResolveURL: resolving any URL never panics and, when it succeeds,
// the LLM name has the sanitized shape.
func FuzzResolveURL(f *testing.F) {
	f.Add("http://127.0.0.1:8765/mcp", "lookup_stock")
	f.Add("https://u:p@[::1]/x?token=1", "getForecast")
	f.Fuzz(func(t *testing.T, url, tool string) {
		for _, k := range []Kind{KindHTTP, KindSSE} {
			r, err := Resolve(Input{Kind: k, URL: url, Tool: tool})
			if err != nil {
				continue
			}
			if !sanitizedShape.MatchString(r.LLMName) || len(r.LLMName) > MaxLength {
				t.Fatalf("LLM name %q", r.LLMName)
			}
			_ = r.Explanation.String()
		}
	})
}
