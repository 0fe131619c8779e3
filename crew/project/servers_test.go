package project

import (
	"errors"
	"path/filepath"
	"testing"

	"crewbench/mcpconn"
)

// The same server declared by two agents is one entry used by both; a
// different filter makes a different server; names that clash get _2.
func TestServersView(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crew.jsonc"), `{"agents": ["a", "b", "c"], "tasks": [{"description": "D", "expected_output": "E", "agent": "a"}]}`)
	fs := `{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "./data"]}`
	writeFile(t, filepath.Join(dir, "agents/a.jsonc"), `{"role": "R", "goal": "G", "backstory": "B", "mcps": [`+fs+`, "https://api.example.com/mcp"]}`)
	writeFile(t, filepath.Join(dir, "agents/b.jsonc"), `{"role": "R", "goal": "G", "backstory": "B", "mcps": [`+fs+`, "https://api.example.org/v2/mcp"]}`)
	writeFile(t, filepath.Join(dir, "agents/c.jsonc"), `{"role": "R", "goal": "G", "backstory": "B", "mcps": [
		{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "./data"], "tool_filter": {"type": "static", "allowed_tool_names": ["read_file"]}},
		{"url": "http://127.0.0.1:8765/mcp"}, {"url": "http://localhost:8000/mcp"}]}`)
	p := open(t, dir)
	eq(t, "names", p.ServerNames(), []string{"filesystem", "example", "example_2", "filesystem_2", "127_0_0_1_8765", "localhost_8000"})
	eq(t, "shared", p.Server("filesystem").Agents, []string{"a", "b"})
	eq(t, "filtered copy", p.Server("filesystem_2").Spec.Filter.Allowed, []string{"read_file"})
	eq(t, "agent refs", p.Agent("b").MCPs[0].Server, "filesystem")
	for _, s := range p.Servers {
		eq(t, s.Name+" spec name", s.Spec.Name, s.Name)
		if s.Spec.Origin == "" {
			t.Errorf("%s has no origin", s.Name)
		}
		if ok, why := s.Ready(p); !ok {
			t.Errorf("%s not ready: %s", s.Name, why)
		}
	}
	eq(t, "https ref policy left to mcpconn", p.Server("example").Spec.Policy, mcpconn.Policy(""))
}

func TestDeriveServerName(t *testing.T) {
	for _, tc := range []struct {
		spec mcpconn.ServerSpec
		want string
	}{
		{mcpconn.ServerSpec{Transport: "stdio", Command: "uvx", Args: []string{"mcp-server-time"}}, "time"},
		{mcpconn.ServerSpec{Transport: "stdio", Command: "python", Args: []string{"servers/weather_server.py"}}, "weather"},
		{mcpconn.ServerSpec{Transport: "stdio", Command: "python", Args: []string{"-m", "acme.inventory.server"}}, "inventory"},
		{mcpconn.ServerSpec{Transport: "stdio", Command: "uv", Args: []string{"run", "weather.py"}}, "weather"},
		{mcpconn.ServerSpec{Transport: "stdio", Command: "npx", Args: []string{"-y", "@acme/mcp-server-crm@latest"}}, "crm"},
		{mcpconn.ServerSpec{Transport: "stdio", Command: "/opt/tools/my-mcp"}, "my"},
		{mcpconn.ServerSpec{Transport: "stdio", Command: "node", Args: []string{"/srv/github/index.js"}}, "github"},
		{mcpconn.ServerSpec{Transport: "http", URL: "https://mcp.notion.so/mcp"}, "notion"},
		{mcpconn.ServerSpec{Transport: "http", URL: "https://www.example.co.uk/mcp"}, "example"},
		{mcpconn.ServerSpec{Transport: "sse", URL: "http://[::1]:9000/sse"}, "1_9000"},
		{mcpconn.ServerSpec{Transport: "http", Ref: "amp", AMPSlug: "github", SelectTool: "search"}, "github#search"},
	} {
		eq(t, tc.want, deriveServerName(tc.spec), tc.want)
	}
}

func TestErrorsAs(t *testing.T) {
	_, err := OpenWith("testdata/errors/agent_name_key", Options{Environ: []string{}})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("errors.As(*Error) on %v", err)
	}
	eq(t, "first", e.Pos.String(), "agents/a.jsonc:2:3")
	eq(t, "field", e.Field, "name")
}

// What CrewAI silently drops or ignores in mcps dicts becomes a Note.
func TestMCPDictNotes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crew.jsonc"), `{"agents": ["a"], "tasks": [{"description": "D", "expected_output": "E", "agent": "a"}]}`)
	writeFile(t, filepath.Join(dir, "agents/a.jsonc"), `{"role": "R", "goal": "G", "backstory": "B", "mcps": [
  {"url": "https://h.example.com/sse", "type": "sse"},
  {"url": "https://h.example.com/mcp", "streamable": false, "timeout": 5},
  {"command": "python", "url": "https://x", "env": {"KEY": "${API_KEY}"}},
  {"url": "https://f.example.com/mcp", "tool_filter": {"type": "static", "allowed_tool_names": ["a"], "mode": "strict"}}
]}`)
	p := open(t, dir, "API_KEY=secret")
	var got []string
	for _, n := range p.Notes {
		got = append(got, n.Code+" "+n.Pos.String())
	}
	eq(t, "notes", got, []string{
		"mcp-ignored-field agents/a.jsonc:2:40",    // "type": "sse"
		"mcp-streamable-false agents/a.jsonc:3:54", // streamable false is still streamable HTTP
		"mcp-ignored-field agents/a.jsonc:3:61",    // timeout
		"mcp-command-and-url agents/a.jsonc:4:25",  // command wins
		"mcp-literal-variable agents/a.jsonc:4:60", // ${API_KEY} is passed literally
		"mcp-ignored-field agents/a.jsonc:5:103",   // static filter ignores "mode"
	})
	// CrewAI does not expand ${API_KEY} in JSON env: neither does crewbench
	eq(t, "literal env", p.Server("python").Spec.Env["KEY"], "${API_KEY}")
	eq(t, "sse declared in JSON is streamable HTTP", p.Server("h").Spec.Transport, mcpconn.TransportHTTP)
}
