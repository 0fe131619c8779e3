package project

import (
	"path/filepath"
	"strings"
	"testing"

	"crewbench/mcpconn"
)

func noteTexts(p *Project, code string) []string {
	var out []string
	for _, n := range p.Notes {
		if n.Code == code {
			out = append(out, n.String())
		}
	}
	return out
}

func TestMCPServersDialects(t *testing.T) {
	t.Run("Claude Desktop", func(t *testing.T) {
		p := open(t, "testdata/mcpservers/claude_desktop")
		eq(t, "kind", p.Kind, KindMCPServers)
		eq(t, "opened", p.Opened, "opened claude_desktop_config.json as an mcpServers file (Claude Desktop dialect)")
		eq(t, "names", p.ServerNames(), []string{"filesystem", "weather"})
		w := p.Server("weather")
		eq(t, "stdio", w.Spec.Transport, mcpconn.TransportStdio)
		eq(t, "args", w.Spec.Args, []string{"--directory", "/Users/me/weather", "run", "weather.py"})
		eq(t, "env", w.Spec.Env, map[string]string{"API_KEY": "abc"})
		eq(t, "origin", w.Spec.Origin, "claude_desktop_config.json:7:16")
		eq(t, "env position", w.Positions.At("env.API_KEY").String(), "claude_desktop_config.json:10:27")
	})
	t.Run("Claude Code .mcp.json", func(t *testing.T) {
		p := open(t, "testdata/mcpservers/claude_code", "GITHUB_TOKEN=ghp_1")
		eq(t, "names", p.ServerNames(), []string{"github", "legacy", "db", "helper"})
		gh := p.Server("github")
		eq(t, "http", gh.Spec.Transport, mcpconn.TransportHTTP)
		// expanded as Claude Code would, and kept as an Unresolved entry
		// because CrewAI itself would pass "${GITHUB_TOKEN}" literally
		eq(t, "expanded header", gh.Spec.Headers["Authorization"], "Bearer ghp_1")
		u := p.UnresolvedByID("servers.github.headers.Authorization")
		eq(t, "host variable", [3]any{u.Resolved, u.EnvVar, u.Expr}, [3]any{true, "GITHUB_TOKEN", "Bearer ${GITHUB_TOKEN}"})
		eq(t, "sse", p.Server("legacy").Spec.Transport, mcpconn.TransportSSE)
		eq(t, "default", p.Server("db").Spec.Args[3], "sqlite:///tmp/x.db")
		eq(t, "dropped", noteTexts(p, "mcp-dropped-field"), []string{".mcp.json:13:69: mcpServers.helper.headersHelper: CrewAI does not run header helpers: put the headers in headers"})
		// without the variable the value stays as written and unresolved
		p2 := open(t, "testdata/mcpservers/claude_code")
		eq(t, "unexpanded", p2.Server("github").Spec.Headers["Authorization"], "Bearer ${GITHUB_TOKEN}")
		if ok, why := p2.Server("github").Ready(p2); ok || !strings.Contains(why, "values:") {
			t.Errorf("github must not be ready without GITHUB_TOKEN: %v %q", ok, why)
		}
	})
	t.Run("Cursor", func(t *testing.T) {
		p := open(t, "testdata/mcpservers/cursor", "LOCAL_TOKEN=t0k")
		eq(t, "opened", p.Opened, "opened .cursor/mcp.json as an mcpServers file (Cursor dialect)")
		eq(t, "url without type is streamable HTTP", p.Server("linear").Spec.Transport, mcpconn.TransportHTTP)
		eq(t, "${env:VAR}", p.Server("local").Spec.Env["TOKEN"], "t0k")
		eq(t, "envFile note", len(noteTexts(p, "mcp-dropped-field")), 1)
		eq(t, "no-type note", noteTexts(p, "mcp-no-type")[0], `.cursor/mcp.json:3:24: mcpServers.linear: no "type": assumed streamable HTTP (MCPServerHTTP); add "type": "sse" if the server speaks SSE`)
	})
	t.Run("VS Code servers", func(t *testing.T) {
		p := open(t, "testdata/mcpservers/vscode")
		eq(t, "names", p.ServerNames(), []string{"perplexity", "fetch", "files"})
		abs, _ := filepath.Abs("testdata/mcpservers/vscode")
		eq(t, "${workspaceFolder}", p.Server("files").Spec.Args[0], abs+"/server.js")
		u := p.UnresolvedByID("servers.perplexity.env.PERPLEXITY_API_KEY")
		eq(t, "${input:…} unresolved", u.Resolved, false)
		eq(t, "cwd dropped", noteTexts(p, "mcp-dropped-field")[0][:35], ".vscode/mcp.json:18:7: servers.file")
	})
	t.Run("Gemini CLI", func(t *testing.T) {
		p := open(t, "testdata/mcpservers/gemini", "API_KEY=k")
		eq(t, "url is SSE", p.Server("events").Spec.Transport, mcpconn.TransportSSE)
		eq(t, "httpUrl is streamable HTTP", p.Server("stream").Spec.Transport, mcpconn.TransportHTTP)
		eq(t, "httpUrl", p.Server("stream").Spec.URL, "https://example.com/mcp")
		eq(t, "$VAR", p.Server("stream").Spec.Headers["X-Key"], "k")
		drops := noteTexts(p, "mcp-dropped-field")
		eq(t, "drops", len(drops), 5) // timeout, trust, cwd, includeTools, excludeTools
		eq(t, "includeTools translated", strings.HasSuffix(drops[3], "sanitized names: ['get_forecast', 'list_alerts']"), true)
	})
	t.Run("spellings and mcphost shapes", func(t *testing.T) {
		p := open(t, "testdata/mcpservers/generic/mcp.json")
		eq(t, "streamable-http", p.Server("inspector").Spec.Transport, mcpconn.TransportHTTP)
		eq(t, "streamableHttp", p.Server("shttp").Spec.Transport, mcpconn.TransportHTTP)
		h := p.Server("host")
		eq(t, "command array", [2]any{h.Spec.Command, h.Spec.Args}, [2]any{"uvx", []string{"mcp-server-time", "--local-timezone", "UTC"}})
		eq(t, "environment", h.Spec.Env, map[string]string{"TZ": "UTC"})
		eq(t, "header array", p.Server("remote").Spec.Headers, map[string]string{"Authorization": "Bearer abc", "X-Team": "core"})
		var dropped []string
		for _, n := range p.Notes {
			if n.Code == "mcp-dropped-field" {
				dropped = append(dropped, n.Text[:strings.Index(n.Text, ":")])
			}
		}
		eq(t, "dropped", dropped, []string{"mcpServers.inspector.oauth", "mcpServers.host.disabled", "mcpServers.host.alwaysAllow"})
	})
}

func TestNormTransport(t *testing.T) {
	for in, want := range map[string]mcpconn.Transport{
		"stdio": mcpconn.TransportStdio, "local": mcpconn.TransportStdio,
		"http": mcpconn.TransportHTTP, "streamable-http": mcpconn.TransportHTTP, "streamableHttp": mcpconn.TransportHTTP,
		"streamable_http": mcpconn.TransportHTTP, "streamable": mcpconn.TransportHTTP, "httpUrl": mcpconn.TransportHTTP,
		"sse": mcpconn.TransportSSE, "SSE": mcpconn.TransportSSE, "websocket": "",
	} {
		eq(t, in, normTransport(in), want)
	}
}
