package names

import (
	"strings"
	"testing"
)

// TestSeedExamples checks every naming example in the seed documents
// (/work/shared/seeds: connect-tools-and-mcp.txt, mcp-connections-reference.txt)
// and in anchors.md §1.7/§5.2 and crewai-semantics.md §1.5.
func TestSeedExamples(t *testing.T) {
	for _, tc := range []struct {
		source       string
		in           Input
		llm, display string
		len          int // 0: not stated
	}{
		{"connect-tools §4: @tool(\"Unit Converter\")", Input{Kind: KindTool, Name: "Unit Converter"}, "unit_converter", "Unit Converter", 0},
		{"connect-tools §5: DirectoryReadTool", Input{Kind: KindTool, Name: "List files in directory"}, "list_files_in_directory", "List files in directory", 0},
		{"connect-tools §5: FileReadTool", Input{Kind: KindTool, Name: "Read a file's content"}, "read_a_files_content", "Read a file's content", 0},
		{"connect-tools §7: stdio relative", inventory, "python_servers_inventory_py_lookup_stock", "python_servers/inventory.py_lookup_stock", 0},
		{"connect-tools §7: stdio absolute", absPython, "opt_app_venv_bin_python_opt_app_servers_inventory_serve_a87662e9", "/opt/app/.venv/bin/python_/opt/app/servers/inventory_server.py_lookup_stock", 64},
		{"connect-tools §6/§7: http localhost", localHTTP, "localhost_8765_mcp_lookup_stock", "localhost:8765_mcp_lookup_stock", 0},
		{"connect-tools §6: http IP", ipHTTP, "127_0_0_1_8765_mcp_lookup_stock", "127_0_0_1:8765_mcp_lookup_stock", 0},
		{"connect-tools §7: MCPServerHTTP", Input{Kind: KindHTTP, URL: "https://mcp.example.com/mcp", Tool: "lookup_stock"}, "mcp_example_com_mcp_lookup_stock", "mcp_example_com_mcp_lookup_stock", 0},
		{"connect-tools §7: same https string", Input{Kind: KindRef, Ref: "https://mcp.example.com/mcp", Tool: "lookup_stock"}, "mcp_example_com_mcp_lookup_stock", "mcp_example_com_mcp_lookup_stock", 0},
		{"connect-tools §7: MCPServerAdapter bare", with(inventory, func(i *Input) { i.Scheme = SchemeAdapter }), "lookup_stock", "lookup_stock", 0},
		{"connect-tools §7: claude-haiku called", Input{Kind: KindStdio, Command: "python", Args: []string{"mcp_server.py"}, Tool: "lookup_stock"}, "python_mcp_server_py_lookup_stock", "python_mcp_server.py_lookup_stock", 0},
		{"connect-tools §7: npx ./data", npxData, "npx_y_modelcontextprotocol_server_filesystem_data_list_4ab656ee", "npx_-y_@modelcontextprotocol/server-filesystem_./data_list_allowed_directories", 63},
		{"mcp-connections §4: original_tool_name → .name", Input{Kind: KindStdio, Command: "python", Args: []string{"mcp_server.py"}, Tool: "lookup_stock"}, "python_mcp_server_py_lookup_stock", "python_mcp_server.py_lookup_stock", 0},
		{"mcp-connections §3: filters see get_forecast", Input{Kind: KindTool, Name: "getForecast"}, "get_forecast", "getForecast", 0},
		{"anchors §1.7: githubcopilot", Input{Kind: KindHTTP, URL: "https://api.githubcopilot.com/mcp/", Tool: "get_pull_request_diff"}, "api_githubcopilot_com_mcp_get_pull_request_diff", "api_githubcopilot_com_mcp_get_pull_request_diff", 0},
		{"anchors §1.7: filesystem /var", Input{Kind: KindStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/var"}, Tool: "read_text_file"}, "npx_y_modelcontextprotocol_server_filesystem_var_read_text_file", "npx_-y_@modelcontextprotocol/server-filesystem_/var_read_text_file", 63}, // anchors.md says "(61 chars)"; the name it prints has 63
		{"anchors §1.7: filesystem acme read_text_file", Input{Kind: KindStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/alice/projects/acme"}, Tool: "read_text_file"}, "npx_y_modelcontextprotocol_server_filesystem_users_alic_265b47d5", "npx_-y_@modelcontextprotocol/server-filesystem_/Users/alice/projects/acme_read_text_file", 64},
		{"anchors §1.7: filesystem acme read_multiple_files", Input{Kind: KindStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/alice/projects/acme"}, Tool: "read_multiple_files"}, "npx_y_modelcontextprotocol_server_filesystem_users_alic_95ac80c8", "npx_-y_@modelcontextprotocol/server-filesystem_/Users/alice/projects/acme_read_multiple_files", 64},
		{"anchors §5.2: Claude Code", with(inventory, func(i *Input) { i.Scheme = SchemeClaudeCode; i.Server = "filesystem"; i.Tool = "list_files" }), "mcp__filesystem__list_files", "mcp__filesystem__list_files", 0},
		{"semantics §2.4: notion sse", Input{Kind: KindRef, Ref: "notion", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "search"}, "mcp_notion_so_sse_search", "mcp_notion_so_sse_search", 0},
	} {
		r := mustResolve(t, tc.in)
		if r.Status != StatusOK || r.LLMName != tc.llm || r.DisplayName != tc.display {
			t.Errorf("%s:\n got %s %q / %q\nwant %q / %q", tc.source, r.Status, r.LLMName, r.DisplayName, tc.llm, tc.display)
		}
		if tc.len != 0 && len(r.LLMName) != tc.len {
			t.Errorf("%s: %d characters, the seed says %d", tc.source, len(r.LLMName), tc.len)
		}
	}
}

func TestSeedMessagesAndRules(t *testing.T) {
	// connect-tools §6 and mcp-connections §1: the Anthropic failure.
	want := "Anthropic function name '127_0_0_1_8765_mcp_lookup_stock' must start with a letter or underscore"
	if err := CheckProviderName(Anthropic, mustResolve(t, ipHTTP).LLMName); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if err := CheckProviderName(Anthropic, mustResolve(t, localHTTP).LLMName); err != nil {
		t.Errorf("localhost works: %v", err)
	}
	// connect-tools §6: http:// strings and "slug#a,b" are rejected at construction.
	for ref, repr := range map[string]string{"http://localhost:8000/mcp": "'http://localhost:8000/mcp'", "github#a,b": "'github#a,b'"} {
		err := ValidateMCPRef(ref)
		if err == nil || !strings.HasPrefix(err.Error(), "Invalid MCP reference: "+repr+". String references must be an 'https://' URL or a valid slug") {
			t.Errorf("%s: %v", ref, err)
		}
	}
	// connect-tools §6: "https://...#a,b" is accepted but selects zero tools.
	for _, tool := range []string{"a", "b"} {
		if r := mustResolve(t, Input{Kind: KindRef, Ref: "https://mcp.example.com/mcp#a,b", Tool: tool}); r.Status != StatusNotSelected {
			t.Errorf("#a,b selected %q", tool)
		}
	}
	// connect-tools §7: for "acme#lookup_stock" only the _lookup_stock suffix is stable;
	// the prefix comes from the URL the account returns, not from the slug.
	for _, url := range []string{"https://mcp.acme-corp.example/mcp", "https://tools.example.net/sse"} {
		r := mustResolve(t, Input{Kind: KindRef, Ref: "acme#lookup_stock", AMPConfigURL: url, Tool: "lookup_stock"})
		if !strings.HasSuffix(r.LLMName, "_lookup_stock") || strings.HasPrefix(r.LLMName, "acme") {
			t.Errorf("AMP name %q from %s", r.LLMName, url)
		}
	}
	// connect-tools §8 deployment table: the model called <host>_mcp_<tool>.
	if r := mustResolve(t, Input{Kind: KindHTTP, URL: "https://abc-123.example.dev/mcp", Tool: "lookup_stock"}); r.LLMName != "abc_123_example_dev_mcp_lookup_stock" {
		t.Errorf("<host>_mcp_<tool>: %q", r.LLMName)
	}
	// connect-tools §7: "A scoped npx package already uses about 45 characters".
	if r := mustResolve(t, npxBare); Has(r.Diagnostics, CodeLongPrefix) || len(Sanitize("npx_-y_@modelcontextprotocol/server-filesystem"))+1 != 45 {
		t.Errorf("the bare npx prefix is 45 characters and within budget: %v", codesOf(r))
	}
}
