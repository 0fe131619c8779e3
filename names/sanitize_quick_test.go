package names

import "testing"

func TestSanitizeQuick(t *testing.T) {
	for in, want := range map[string]string{
		"Unit Converter":  "unit_converter",
		"getForecast":     "get_forecast",
		"HTTPServer":      "http_server",
		"lowerUPPERlower": "lower_uppe_rlower",
		"Straße":          "strae",
		"½ cup":           "12_cup",
		"Read the contents of a file located at the given absolute path on disk and return it": "read_the_contents_of_a_file_located_at_the_given_absolu_60d5bba8",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServerNamesQuick(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://localhost:8765/mcp", "localhost:8765_mcp"},
		{"https://mcp.exa.ai/mcp?api_key=key", "mcp_exa_ai_mcp"},
		{"http://[::1]:8000/sse", "[::1]:8000_sse"},
		{"https://h/mcp;v=1", "h_mcp"},
		{"https://API.Example.COM/MCP", "API_Example_COM_MCP"},
		{"http://localhost:8000/mcp/", "localhost:8000_mcp"},
		{"https://host", "host"},
	} {
		got, err := URLServerName(tc.url)
		if err != nil || got != tc.want {
			t.Errorf("URLServerName(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
	if _, err := URLServerName("http://[::1:8000/sse"); err == nil {
		t.Error("unbalanced bracket must fail")
	}
	d, l, _ := NativeTool(StdioServerName("npx", []string{"-y", "@modelcontextprotocol/server-filesystem", "./data"}), "list_allowed_directories")
	if d != "npx_-y_@modelcontextprotocol/server-filesystem_./data_list_allowed_directories" || l != "npx_y_modelcontextprotocol_server_filesystem_data_list_4ab656ee" {
		t.Errorf("npx: %q %q", d, l)
	}
}
