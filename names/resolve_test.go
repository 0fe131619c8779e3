package names

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

var (
	inventory = Input{Kind: KindStdio, Command: "python", Args: []string{"servers/inventory.py"}, Tool: "lookup_stock"}
	absPython = Input{Kind: KindStdio, Command: "/opt/app/.venv/bin/python", Args: []string{"/opt/app/servers/inventory_server.py"}, Tool: "lookup_stock"}
	npxData   = Input{Kind: KindStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "./data"}, Tool: "list_allowed_directories"}
	npxBare   = Input{Kind: KindStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem"}, Tool: "x"}
	localHTTP = Input{Kind: KindHTTP, URL: "http://localhost:8765/mcp", Tool: "lookup_stock"}
	ipHTTP    = Input{Kind: KindHTTP, URL: "http://127.0.0.1:8765/mcp", Tool: "lookup_stock"}
)

func with(in Input, edit func(*Input)) Input {
	in.Args = append([]string(nil), in.Args...)
	edit(&in)
	return in
}

// TestDiagnostics checks every diagnostic on inputs that must raise it and
// on close inputs that must not.
func TestDiagnostics(t *testing.T) {
	cases := []struct {
		code     Code
		positive []Input
		negative []Input
	}{
		{CodeNameHashed,
			[]Input{absPython, npxData,
				{Kind: KindTool, Name: "Read the contents of a file located at the given absolute path on disk and return it"},
				with(localHTTP, func(i *Input) { i.Tool = strings.Repeat("x", 80) }),
				with(localHTTP, func(i *Input) { i.Tool = strings.Repeat("y", 70); i.Scheme = SchemeAdapter })},
			[]Input{inventory, localHTTP, {Kind: KindTool, Name: strings.Repeat("x", 64)}}},
		{CodeLeadingDigit,
			[]Input{ipHTTP, {Kind: KindTool, Name: "3D Render"}, {Kind: KindTool, Name: "_3d"}, // "_" is stripped before the check
				{Kind: KindSSE, URL: "http://[::1]:8000/sse", Tool: "list_files"},
				with(localHTTP, func(i *Input) { i.Tool = "2fa"; i.Scheme = SchemeAdapter }),
				{Kind: KindRef, Ref: "local#ping", AMPConfigURL: "http://10.0.0.5:9000/mcp", Tool: "ping"}},
			[]Input{localHTTP, {Kind: KindTool, Name: "Render 3D"}, {Kind: KindTool, Name: "Render3D"}}},
		{CodeEmptyName,
			[]Input{{Kind: KindTool, Name: "ﾃｽﾄ"}, {Kind: KindTool, Name: "!!!"},
				with(localHTTP, func(i *Input) { i.Tool = "天气"; i.Scheme = SchemeAdapter })},
			[]Input{{Kind: KindTool, Name: "search"}, with(localHTTP, func(i *Input) { i.Tool = "天气" })}},
		{CodeServerPath,
			[]Input{absPython,
				with(inventory, func(i *Input) { i.Args = []string{"~/servers/x.py"} }),
				with(inventory, func(i *Input) { i.Args = []string{"server.py", "--root=/srv/data"} }),
				with(inventory, func(i *Input) { i.Command = `C:\Python\python.exe` }),
				with(npxData, func(i *Input) {
					i.Args = []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/alice/projects/acme"}
				})},
			[]Input{inventory, npxData, with(inventory, func(i *Input) { i.Args = []string{"-m", "inventory.server"} }),
				with(absPython, func(i *Input) { i.Scheme = SchemeAdapter })}},
		{CodeIPHost,
			[]Input{ipHTTP, {Kind: KindSSE, URL: "http://[::1]:8000/sse", Tool: "t"},
				{Kind: KindRef, Ref: "https://[::1]:8443/mcp#ping", Tool: "ping"},
				{Kind: KindRef, Ref: "local", AMPConfigURL: "http://192.168.1.2/mcp", Tool: "ping"}},
			[]Input{localHTTP, {Kind: KindHTTP, URL: "https://mcp.example.com/mcp", Tool: "t"},
				{Kind: KindHTTP, URL: "http://127.0.0.1.nip.io/mcp", Tool: "t"}}},
		{CodeCredentialsInURL,
			[]Input{{Kind: KindHTTP, URL: "https://user:pw@mcp.example.com/mcp", Tool: "t"},
				{Kind: KindHTTP, URL: "https://mcp.exa.ai/mcp?api_key=key", Tool: "t"},
				{Kind: KindRef, Ref: "https://h.example/mcp?token=abc#t", Tool: "t"}},
			[]Input{localHTTP, {Kind: KindHTTP, URL: "https://h.example/mcp?page=2", Tool: "t"}}},
		{CodeToolDropped,
			[]Input{with(inventory, func(i *Input) { i.Tool = "天气预报" }),
				{Kind: KindRef, Ref: "notion", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "😀"}},
			[]Input{inventory, {Kind: KindRef, Ref: "https://h.example.com/mcp", Tool: "天气"}}},
		{CodeToolNameEmpty,
			[]Input{{Kind: KindRef, Ref: "https://h.example.com/mcp", Tool: "天气"}},
			[]Input{{Kind: KindRef, Ref: "https://h.example.com/mcp", Tool: "weather"}}},
		{CodeLongPrefix,
			[]Input{npxData, absPython},
			// 44 sanitized characters + "_" = 45: exactly at the budget.
			[]Input{npxBare, inventory, with(npxData, func(i *Input) { i.Scheme = SchemeAdapter })}},
		{CodeHTTPSCallName,
			[]Input{{Kind: KindRef, Ref: "https://api.weather.com/mcp#get_forecast", Tool: "getForecast"},
				{Kind: KindRef, Ref: "https://api.weather.com/mcp", Tool: "Get Alerts"}},
			[]Input{{Kind: KindRef, Ref: "https://api.weather.com/mcp", Tool: "get_forecast"},
				with(localHTTP, func(i *Input) { i.Tool = "getForecast" }),
				{Kind: KindRef, Ref: "weather", AMPConfigURL: "https://api.weather.com/mcp", Tool: "getForecast"}}},
		{CodeNotSelected,
			[]Input{{Kind: KindRef, Ref: "https://api.weather.com/mcp#get_forecast", Tool: "get_alerts"},
				{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "searchPages"}},
			[]Input{{Kind: KindRef, Ref: "https://api.weather.com/mcp#get_forecast", Tool: "getForecast"},
				{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "search"}}},
		{CodeSuffixMatch,
			[]Input{{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "advanced_search"}},
			[]Input{{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "search"},
				{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "Search"},
				{Kind: KindRef, Ref: "notion", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "advanced_search"}}},
		{CodeFragmentList,
			[]Input{{Kind: KindRef, Ref: "https://h.example/mcp#a,b", Tool: "a"}},
			[]Input{{Kind: KindRef, Ref: "https://h.example/mcp#a", Tool: "a"}}},
		{CodeServerKeyAssumed,
			[]Input{with(inventory, func(i *Input) { i.Scheme = SchemeClaudeCode })},
			[]Input{with(inventory, func(i *Input) { i.Scheme = SchemeClaudeCode; i.Server = "inventory" }), inventory}},
		{CodeHostNameRejected,
			[]Input{with(inventory, func(i *Input) { i.Scheme = SchemeCrush; i.Server = "my server" }),
				with(inventory, func(i *Input) { i.Scheme = SchemeMCPHost; i.Server = "9lives" }),
				with(inventory, func(i *Input) { i.Scheme = SchemeClaudeCode; i.Server = strings.Repeat("s", 60) })},
			[]Input{with(inventory, func(i *Input) { i.Scheme = SchemeClaudeCode; i.Server = "inventory" }),
				with(inventory, func(i *Input) { i.Scheme = SchemeMCPHost; i.Server = "inv-1" })}},
	}
	covered := map[Code]bool{CodeCollision: true} // TestCollisions
	for _, tc := range cases {
		covered[tc.code] = true
		for _, in := range tc.positive {
			r := mustResolve(t, in)
			d := diagOf(r, tc.code)
			if d.Code == "" {
				t.Errorf("%s: missing for %+v (got %v)", tc.code, in, codesOf(r))
				continue
			}
			if d.Severity != severityOf[tc.code] || d.Message == "" || d.Fix == "" || strings.Contains(d.Message, "\n") || strings.Contains(d.Fix, "\n") {
				t.Errorf("%s: malformed %+v", tc.code, d)
			}
		}
		for _, in := range tc.negative {
			if r := mustResolve(t, in); Has(r.Diagnostics, tc.code) {
				t.Errorf("%s: unexpected for %+v: %s", tc.code, in, diagOf(r, tc.code).Message)
			}
		}
	}
	for _, c := range Codes() {
		if !covered[c] {
			t.Errorf("code %s has no test case", c)
		}
		if severityOf[c] == "" {
			t.Errorf("code %s has no severity", c)
		}
	}
}

func codesOf(r Result) []Code {
	var out []Code
	for _, d := range r.Diagnostics {
		out = append(out, d.Code)
	}
	return out
}

func TestDiagnosticDetails(t *testing.T) {
	r := mustResolve(t, ipHTTP)
	if d := diagOf(r, CodeLeadingDigit); !strings.Contains(d.Message, "Anthropic function name '127_0_0_1_8765_mcp_lookup_stock' must start with a letter or underscore") ||
		!strings.Contains(d.Fix, "http://localhost:8765/mcp") {
		t.Errorf("leading digit: %+v", d)
	}
	if r.Diagnostics[0].Severity != SeverityError {
		t.Errorf("errors come first: %v", codesOf(r))
	}
	r = mustResolve(t, npxData)
	if d := diagOf(r, CodeNameHashed); !strings.Contains(d.Message, `only "list" of the tool's own name "list_allowed_directories" is left`) {
		t.Errorf("hashed: %s", d.Message)
	}
	if d := diagOf(r, CodeLongPrefix); !strings.Contains(d.Message, "takes 50 of the 64") || !strings.Contains(d.Message, "leaving 14") {
		t.Errorf("long prefix: %s", d.Message)
	}
	r = mustResolve(t, absPython)
	if d := diagOf(r, CodeNameHashed); !strings.Contains(d.Message, `"lookup_stock" is no longer visible`) {
		t.Errorf("hashed: %s", d.Message)
	}
	if d := diagOf(r, CodeServerPath); !strings.Contains(d.Message, `"/opt/app/.venv/bin/python"`) {
		t.Errorf("path: %s", d.Message)
	}
	// Secrets never appear in messages or explanations.
	r = mustResolve(t, Input{Kind: KindHTTP, URL: "https://mcp.exa.ai/mcp?api_key=s3cr3tvalue", Tool: "t"})
	for _, d := range r.Diagnostics {
		if strings.Contains(d.Message+d.Fix, "s3cr3tvalue") {
			t.Errorf("secret in diagnostic: %+v", d)
		}
	}
	if strings.Contains(r.Explanation.String(), "s3cr3tvalue") {
		t.Errorf("secret in explanation:\n%s", r.Explanation)
	}
}

// TestResolveForms covers every input form and scheme end to end.
func TestResolveForms(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		in                   Input
		llm, display, server string
		call                 string
		status               Status
	}{
		{"plain", Input{Kind: KindTool, Name: "Unit Converter"}, "unit_converter", "Unit Converter", "", "", StatusOK},
		{"plain dedupe", Input{Kind: KindTool, Name: "search", Dedupe: 3}, "search_3", "search", "", "", StatusOK},
		{"stdio", inventory, "python_servers_inventory_py_lookup_stock", "python_servers/inventory.py_lookup_stock", "python_servers/inventory.py", "lookup_stock", StatusOK},
		{"stdio camel", with(inventory, func(i *Input) { i.Tool = "LookupStock" }), "python_servers_inventory_py_lookup_stock", "python_servers/inventory.py_lookup_stock", "python_servers/inventory.py", "LookupStock", StatusOK},
		{"stdio skipped", with(inventory, func(i *Input) { i.Tool = "天气" }), "", "", "python_servers/inventory.py", "天气", StatusSkipped},
		{"http", localHTTP, "localhost_8765_mcp_lookup_stock", "localhost:8765_mcp_lookup_stock", "localhost:8765_mcp", "lookup_stock", StatusOK},
		{"sse", Input{Kind: KindSSE, URL: "https://mcp.notion.so/sse", Tool: "search"}, "mcp_notion_so_sse_search", "mcp_notion_so_sse_search", "mcp_notion_so_sse", "search", StatusOK},
		{"https all", Input{Kind: KindRef, Ref: "https://mcp.example.com/mcp", Tool: "lookup_stock"}, "mcp_example_com_mcp_lookup_stock", "mcp_example_com_mcp_lookup_stock", "mcp_example_com_mcp", "lookup_stock", StatusOK},
		{"https empty fragment", Input{Kind: KindRef, Ref: "https://mcp.example.com/mcp#", Tool: "other"}, "mcp_example_com_mcp_other", "mcp_example_com_mcp_other", "mcp_example_com_mcp", "other", StatusOK},
		{"https selected sanitized", Input{Kind: KindRef, Ref: "https://api.weather.com/mcp#get_forecast", Tool: "getForecast"}, "api_weather_com_mcp_get_forecast", "api_weather_com_mcp_get_forecast", "api_weather_com_mcp", "get_forecast", StatusOK},
		{"https not selected", Input{Kind: KindRef, Ref: "https://api.weather.com/mcp#get_forecast", Tool: "get_alerts"}, "", "", "api_weather_com_mcp", "get_alerts", StatusNotSelected},
		{"https empty key", Input{Kind: KindRef, Ref: "https://host.example.com/mcp", Tool: "天气"}, "host_example_com_mcp", "host_example_com_mcp_", "host_example_com_mcp", "", StatusOK},
		{"amp slug", Input{Kind: KindRef, Ref: "notion", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "searchPages"}, "mcp_notion_so_sse_search_pages", "mcp_notion_so_sse_search_pages", "mcp_notion_so_sse", "searchPages", StatusOK},
		{"amp prefix", Input{Kind: KindRef, Ref: "crewai-amp:notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "search"}, "mcp_notion_so_sse_search", "mcp_notion_so_sse_search", "mcp_notion_so_sse", "search", StatusOK},
		{"amp suffix", Input{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "advanced_search"}, "mcp_notion_so_sse_advanced_search", "mcp_notion_so_sse_advanced_search", "mcp_notion_so_sse", "advanced_search", StatusOK},
		{"amp not selected", Input{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "searchPages"}, "", "", "mcp_notion_so_sse", "searchPages", StatusNotSelected},
		{"amp skipped before selection", Input{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "天气"}, "", "", "mcp_notion_so_sse", "天气", StatusSkipped},
		{"adapter", with(inventory, func(i *Input) { i.Tool = "getForecast"; i.Scheme = SchemeAdapter }), "get_forecast", "get_forecast", "python_servers/inventory.py", "getForecast", StatusOK},
		{"claude-code", with(inventory, func(i *Input) { i.Scheme = SchemeClaudeCode; i.Server = "inventory" }), "mcp__inventory__lookup_stock", "mcp__inventory__lookup_stock", "inventory", "lookup_stock", StatusOK},
		{"crush", with(localHTTP, func(i *Input) { i.Scheme = SchemeCrush; i.Server = "inv"; i.Tool = "getForecast" }), "mcp_inv_getForecast", "mcp_inv_getForecast", "inv", "getForecast", StatusOK},
		{"mcphost", with(inventory, func(i *Input) { i.Scheme = SchemeMCPHost; i.Server = "inventory" }), "inventory__lookup_stock", "inventory__lookup_stock", "inventory", "lookup_stock", StatusOK},
		{"claude-code default key", with(localHTTP, func(i *Input) { i.Scheme = SchemeClaudeCode }), "mcp__localhost:8765_mcp__lookup_stock", "mcp__localhost:8765_mcp__lookup_stock", "localhost:8765_mcp", "lookup_stock", StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustResolve(t, tc.in)
			got := [5]string{r.LLMName, r.DisplayName, r.ServerName, r.CallName, string(r.Status)}
			want := [5]string{tc.llm, tc.display, tc.server, tc.call, string(tc.status)}
			if got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
			if r.Diagnostics == nil {
				t.Error("Diagnostics must be non-nil (it is JSON [])")
			}
			if len(r.Explanation.Steps) < 2 {
				t.Errorf("explanation has %d steps", len(r.Explanation.Steps))
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{Kind: KindRef, Ref: "http://localhost:8000/mcp", Tool: "t"}, "Invalid MCP reference: 'http://localhost:8000/mcp'. String references must be"},
		{Input{Kind: KindRef, Ref: "notion#search", Tool: "t"}, "needs the config URL"},
		{Input{Kind: KindRef, Ref: "https://h/mcp"}, "remote tool"},
		{Input{Kind: KindHTTP, URL: "http://[::1:8000/sse", Tool: "t"}, "Invalid IPv6 URL"},
		{Input{Kind: KindHTTP, Tool: "t"}, "needs a url"},
		{Input{Kind: KindStdio, Tool: "t"}, "needs a command"},
		{Input{Kind: KindStdio, Command: "x"}, "remote tool"},
		{Input{Kind: KindTool, Name: "x", Dedupe: -1}, "dedupe"},
		{Input{Kind: KindTool, Name: "x", Scheme: "vscode"}, "unknown naming scheme"},
		{Input{Kind: KindTool, Name: "x", Scheme: SchemeClaudeCode}, "names MCP tools"},
		{Input{Kind: KindRef, Ref: "notion", Tool: "x", Scheme: SchemeAdapter}, "string refs"},
		{Input{Kind: "pipe"}, "unknown input kind"},
	} {
		_, err := Resolve(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%+v) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
	_, err := Resolve(Input{Kind: KindRef, Ref: "github#a,b", Tool: "a"})
	if !errors.Is(err, ErrInvalidRef) {
		t.Errorf("invalid ref error %v does not match ErrInvalidRef", err)
	}
}

func TestServerName(t *testing.T) {
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{Kind: KindTool, Name: "x"}, ""},
		{inventory, "python_servers/inventory.py"},
		{localHTTP, "localhost:8765_mcp"},
		{Input{Kind: KindRef, Ref: "https://[::1]:8443/mcp#ping"}, "[::1]:8443_mcp"},
		{Input{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse"}, "mcp_notion_so_sse"},
	} {
		if got, err := ServerName(tc.in); err != nil || got != tc.want {
			t.Errorf("ServerName(%+v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := ServerName(Input{Kind: KindRef, Ref: "notion"}); err == nil {
		t.Error("an AMP ref without config URL has no server name")
	}
}

func TestSchemes(t *testing.T) {
	for _, s := range Schemes() {
		if got, err := ParseScheme(string(s)); err != nil || got != s {
			t.Errorf("ParseScheme(%q) = %q, %v", s, got, err)
		}
	}
	if got, _ := ParseScheme(""); got != SchemeCrewAI {
		t.Errorf("default scheme %q", got)
	}
	for _, tc := range []struct {
		s            Scheme
		server, tool string
		want         string
	}{
		{SchemeClaudeCode, "filesystem", "list_files", "mcp__filesystem__list_files"}, // anchors §5.2 example
		{SchemeCrush, "filesystem", "list_files", "mcp_filesystem_list_files"},
		{SchemeMCPHost, "filesystem", "list_files", "filesystem__list_files"},
		{SchemeAdapter, "ignored", "lookupStock", "lookup_stock"},
		{SchemeCrewAI, "python_mcp_server.py", "lookup_stock", "python_mcp_server_py_lookup_stock"},
	} {
		if got := HostToolName(tc.s, tc.server, tc.tool); got != tc.want {
			t.Errorf("HostToolName(%s, %q, %q) = %q, want %q", tc.s, tc.server, tc.tool, got, tc.want)
		}
	}
}

// FuzzResolveStdio: any command, arg and tool resolve without panicking to
// a well-formed result.
func FuzzResolveStdio(f *testing.F) {
	f.Add("python", "servers/inventory.py", "lookup_stock", 0)
	f.Add("/opt/x", "~/y", "天气", 2)
	f.Fuzz(func(t *testing.T, cmd, arg, tool string, dedupe int) {
		if cmd == "" || tool == "" || dedupe < 0 || dedupe > 100 {
			return
		}
		for _, s := range Schemes() {
			r, err := Resolve(Input{Kind: KindStdio, Command: cmd, Args: []string{arg}, Tool: tool, Dedupe: dedupe, Scheme: s})
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			if (s == SchemeCrewAI || s == SchemeAdapter) && (!sanitizedShape.MatchString(r.LLMName) || len(r.LLMName) > MaxLength) {
				t.Fatalf("%s: LLM name %q", s, r.LLMName)
			}
			_ = r.Explanation.String()
		}
	})
}

// Codes lists every diagnostic code.
func Codes() []Code {
	return []Code{
		CodeNameHashed, CodeLeadingDigit, CodeEmptyName, CodeServerPath, CodeIPHost,
		CodeCredentialsInURL, CodeCollision, CodeToolDropped, CodeToolNameEmpty,
		CodeLongPrefix, CodeHTTPSCallName, CodeNotSelected, CodeSuffixMatch,
		CodeFragmentList, CodeServerKeyAssumed, CodeHostNameRejected,
	}
}

// ServerName is CrewAI's server_name for an input (§2.2–§2.4): the stdio
// join, or the netloc/path rule on the URL (the https ref's URL, or the AMP
// config URL). Plain tools have none ("").
func ServerName(in Input) (string, error) {
	switch in.Kind {
	case KindTool:
		return "", nil
	case KindStdio:
		return StdioServerName(in.Command, in.Args), nil
	case KindHTTP, KindSSE:
		return URLServerName(in.URL)
	case KindRef:
		ref, err := ParseRef(in.Ref)
		if err != nil {
			return "", err
		}
		if ref.Kind == RefHTTPS {
			return URLServerName(ref.URL)
		}
		if in.AMPConfigURL == "" {
			return "", errMissingAMPURL(ref)
		}
		return URLServerName(in.AMPConfigURL)
	}
	return "", fmt.Errorf("unknown input kind %q", in.Kind)
}
