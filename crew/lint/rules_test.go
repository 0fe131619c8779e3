package lint

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn/oauth"
)

func TestMain(m *testing.M) {
	fixturetest.RunIfFixture()
	// https string refs are linted against a loopback TLS fixture.
	if err := fixturetest.TrustTestTLS(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// lintDir lints a testdata project statically.
func lintDir(t *testing.T, dir string) []Finding {
	t.Helper()
	p, fs, err := LintPath(t.Context(), dir, "", Options{})
	if err != nil || p == nil {
		t.Fatalf("LintPath(%s): project %v, error %v", dir, p, err)
	}
	return fs
}

func withCode(fs []Finding, code string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func locations(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Location()+" "+string(f.Severity))
	}
	sort.Strings(out)
	return out
}

// Every static rule on a small real project where it must fire (with the
// exact places and severities) and on its corrected twin where it must not.
var ruleCases = []struct {
	dir  string
	code string
	want []string // "file:line:col severity", sorted; nil: the rule must not fire
	// fix must appear in the (first) finding's fix
	fix string
}{
	{"loader_error_bad", CodeLoaderError, []string{"agents/a.jsonc:3:3 error"}, `did you mean "goal"`},
	{"clean", CodeLoaderError, nil, ""},

	{"http_ref_bad", CodeHTTPStringRef, []string{"agents/a.jsonc:7:5 error"}, `{"url": "http://localhost:8000/mcp"}`},
	{"http_ref_good", CodeHTTPStringRef, nil, ""},
	{"ref_list_bad", CodeRefToolList, []string{"agents/a.jsonc:7:5 error"}, `"github#create_issue", "github#list_issues"`},
	{"ref_list_https_bad", CodeRefToolList, []string{"agents/a.jsonc:7:5 warning"}, `"https://mcp.example.com/mcp#a", "https://mcp.example.com/mcp#b"`},
	{"ref_list_good", CodeRefToolList, nil, ""},
	{"invalid_ref_bad", CodeInvalidRef, []string{"agents/a.jsonc:7:5 error"}, "https://"},
	{"invalid_ref_good", CodeInvalidRef, nil, ""},
	{"https_ref_bad", CodeHTTPSStringRef, []string{"agents/a.jsonc:7:5 warning"}, `{"url": "https://mcp.example.com/mcp", "tool_filter": {"type": "static", "allowed_tool_names": ["search_docs"]}}`},
	{"https_ref_good", CodeHTTPSStringRef, nil, ""},
	{"akickoff_bad", CodeHTTPSAkickoffRef, []string{"agents/a.jsonc:7:5 error"}, `{"url": "https://mcp.example.com/mcp"}`},
	{"akickoff_good", CodeHTTPSAkickoffRef, nil, ""},
	{"ip_host_bad", CodeIPHost, []string{"agents/a.jsonc:7:13 error"}, "http://localhost:8765/mcp"},
	{"ip_host_good", CodeIPHost, nil, ""},
	{"abs_path_bad", CodeAbsolutePath, []string{"agents/a.jsonc:7:17 warning"}, `"command": "python"`},
	{"abs_path_good", CodeAbsolutePath, nil, ""},
	{"hashed_bad", CodeNameHashed, []string{"agents/a.jsonc:7:17 warning"}, "MCPServerAdapter"},
	{"hashed_good", CodeNameHashed, nil, ""},
	{"deploy_bad", CodeNotDeployable, []string{"agents/a.jsonc:7:17 warning", "agents/a.jsonc:8:13 warning"}, "https://"},
	{"deploy_good", CodeNotDeployable, nil, ""},
	{"hashed_bad", CodeNotDeployable, nil, ""}, // npx, but not a deployable project
	{"sse_bad", CodeSSEInJSON, []string{"agents/a.jsonc:7:47 warning", "agents/a.jsonc:8:13 warning"}, "MCPServerSSE"},
	{"sse_good", CodeSSEInJSON, nil, ""},
	{"oauth_bad", CodeOAuth, []string{"agents/a.jsonc:7:13 info"}, `headers={"Authorization": f"Bearer {os.environ['`},
	{"oauth_good", CodeOAuth, nil, ""},
	{"streamable_bad", CodeStreamableFalse, []string{"agents/a.jsonc:7:61 warning"}, "MCPServerSSE"},
	{"streamable_good", CodeStreamableFalse, nil, ""},
	{"missing_env_bad", CodeStdioMissingEnv, []string{"agents/a.jsonc:7:17 warning", "agents/a.jsonc:8:17 warning"}, `"env": {"GITHUB_PERSONAL_ACCESS_TOKEN"`},
	{"missing_env_good", CodeStdioMissingEnv, nil, ""},
	{"file_missing_bad", CodeStdioFile, []string{"agents/a.jsonc:7:36 warning"}, "servers/missing.py"},
	{"file_missing_good", CodeStdioFile, nil, ""},
	{"secret_bad", CodeSecretLiteral, []string{"agents/a.jsonc:7:73 warning", "agents/a.jsonc:8:90 warning"}, "crew.py"},
	{"secret_good", CodeSecretLiteral, nil, ""},
	{"filter_bad", CodeFilterNotSanitized, []string{"agents/a.jsonc:8:102 warning", "agents/a.jsonc:8:63 error"}, `write "lookup_stock"`},
	{"filter_good", CodeFilterNotSanitized, nil, ""},
	{"filter_ignored_bad", CodeFilterIgnored, []string{"crewbench.yaml:2:3 warning"}, `{"url": "https://mcp.example.com/mcp"}`},
	{"filter_ignored_good", CodeFilterIgnored, nil, ""},
	{"bare_name_bad", CodeBareToolName, []string{"crew.jsonc:6:22 warning"}, "python_servers_inventory_py_lookup_stock"},
	{"bare_name_good", CodeBareToolName, nil, ""},
	{"inputs_bad", CodeMissingInput, []string{"crew.jsonc:6:22 error"}, `"year"`},
	{"inputs_empty_bad", CodeMissingInput, []string{"crew.jsonc:6:22 warning"}, `"topic"`},
	{"inputs_good", CodeMissingInput, nil, ""},
	{"inputs_bad", CodeUnusedInput, []string{"crew.jsonc:11:47 info"}, `"region"`},
	{"inputs_good", CodeUnusedInput, nil, ""},
	{"hierarchical_bad", CodeHierarchical, []string{"crew.jsonc:11:14 error"}, `"manager_llm"`},
	{"hierarchical_good", CodeHierarchical, nil, ""},
	{"hierarchical_classic_bad", CodeHierarchical, []string{"src/inventory/crew.py:23:67 error"}, "manager_llm="},
	{"adapter_reuse_good", CodeHierarchical, nil, ""},
	{"context_bad", CodeContextFuture, []string{"crew.jsonc:5:18 error"}, "earlier tasks"},
	{"context_good", CodeContextFuture, nil, ""},
	{"context_classic_bad", CodeContextFuture, []string{"src/inventory/config/tasks.yaml:5:13 error"}, "earlier tasks"},
	{"context_classic_good", CodeContextFuture, nil, ""},
	{"max_usage_bad", CodeMaxUsageCount, []string{"agents/a.jsonc:6:13 error", "tools/limits.py:4:17 error"}, "positive"},
	{"max_usage_good", CodeMaxUsageCount, nil, ""},
	{"cache_bad", CodeCacheStateChange, []string{"crew.jsonc:11:12 warning"}, `"cache": false`},
	{"cache_good", CodeCacheStateChange, nil, ""},
	{"needs_python_bad", CodeNeedsPython, []string{"agents/a.jsonc:6:13 info"}, "tools: {SerperDevTool: {result:"},
	{"needs_python_good", CodeNeedsPython, nil, ""},
	{"unknown_class_bad", CodeUnknownToolClass, []string{"agents/a.jsonc:6:13 error"}, "SerperDevTool"},
	{"unknown_class_good", CodeUnknownToolClass, nil, ""},
	{"extra_bad", CodeMissingExtra, []string{"agents/a.jsonc:6:13 warning"}, `uv add "crewai-tools[exa-py]"`},
	{"extra_good", CodeMissingExtra, nil, ""},
	{"unresolved_bad", CodeUnresolved, []string{"agents/a.jsonc:7:76 warning"}, "crewbench.yaml"},
	{"unresolved_good", CodeUnresolved, nil, ""},
	{"import_bad", CodeImportPath, []string{"tools/price.py:1:26 error", "tools/price.py:4:5 error"}, "from crewai.tools import BaseTool"},
	{"import_good", CodeImportPath, nil, ""},
	{"missing_run_bad", CodeMissingRun, []string{"tools/price.py:4:1 error"}, "async def _run"},
	{"missing_run_good", CodeMissingRun, nil, ""},
	{"docstring_bad", CodeNoDocstring, []string{"tools/convert.py:5:1 error"}, `"""`},
	{"docstring_good", CodeNoDocstring, nil, ""},
	{"adapter_reuse_bad", CodeAdapterReused, []string{"src/inventory/main.py:7:9 warning"}, "InventoryCrew().crew().kickoff"},
	{"adapter_reuse_good", CodeAdapterReused, nil, ""},
	{"note_bad", "mcp-command-and-url", []string{"agents/a.jsonc:7:61 warning"}, `"command"`},
	{"clean", "mcp-command-and-url", nil, ""},
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.dir+"/"+tc.code, func(t *testing.T) {
			all := lintDir(t, filepath.Join("testdata", "rules", tc.dir))
			got := withCode(all, tc.code)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(locations(got), "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s findings:\n got %q\nwant %q\nall: %+v", tc.code, locations(got), want, all)
			}
			for _, f := range got {
				if f.Message == "" || f.Fix == "" || f.Explanation == "" {
					t.Errorf("finding without message, fix or explanation: %+v", f)
				}
				if strings.ContainsAny(f.Message, "\n\r") {
					t.Errorf("message is not one line: %q", f.Message)
				}
			}
			if tc.fix != "" && !strings.Contains(got[0].Fix, tc.fix) {
				t.Errorf("fix %q does not contain %q", got[0].Fix, tc.fix)
			}
		})
	}
}

// Every static rule has a positive case above, so a new rule cannot be
// added without a test.
func TestEveryStaticRuleIsTested(t *testing.T) {
	tested := map[string]bool{}
	for _, tc := range ruleCases {
		if tc.want != nil {
			tested[tc.code] = true
		}
	}
	for _, r := range Rules() {
		if r.Connected {
			continue
		}
		if !tested[r.Code] {
			t.Errorf("rule %s has no positive case in ruleCases", r.Code)
		}
	}
}

func TestCleanProjectHasNoFindings(t *testing.T) {
	if fs := lintDir(t, filepath.Join("testdata", "rules", "clean")); len(fs) != 0 {
		t.Fatalf("clean project: %+v", fs)
	}
}

// Secrets are shown redacted in every finding, in text and in JSON.
func TestFindingsNeverShowSecrets(t *testing.T) {
	secrets := []string{"sk-live-51Habcdefghijklmnop", "inv-0123456789abcdef", "ghp_abcdefghijklmnop1234", "sk-test-abcdefghijkl"}
	for _, dir := range []string{"secret_bad", "missing_env_bad"} {
		fs := lintDir(t, filepath.Join("testdata", "rules", dir))
		var text, js strings.Builder
		if err := WriteText(&text, fs); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, fs); err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(text.String(), s) || strings.Contains(js.String(), s) {
				t.Errorf("%s: output shows the secret %q:\n%s", dir, s, text.String())
			}
		}
		if dir == "secret_bad" && !strings.Contains(text.String(), "Bearer «redacted»") {
			t.Errorf("secret_bad: the header is not shown redacted:\n%s", text.String())
		}
	}
}

// A classic project's MCP servers come from the literal calls in crew.py;
// lint reads them with their crew.py positions.
func TestClassicProjectFromCrewPy(t *testing.T) {
	fs := lintDir(t, filepath.Join("..", "project", "testdata", "classic", "mcp"))
	want := map[string]string{
		CodeNotDeployable:  "src/research/crew.py:16:13",
		CodeNameHashed:     "src/research/crew.py:16:13",
		CodeHTTPSStringRef: "src/research/crew.py:47:33",
		CodeStdioFile:      "src/research/crew.py:56:19",
	}
	for code, loc := range want {
		got := withCode(fs, code)
		if len(got) != 1 || got[0].Location() != loc {
			t.Errorf("%s: got %q, want one at %s", code, locations(got), loc)
		}
	}
	// the https ref in crew.py gets the Python fix
	if f := withCode(fs, CodeHTTPSStringRef); len(f) == 1 && !strings.Contains(f[0].Fix, "MCPServerHTTP(url=") {
		t.Errorf("https ref fix in crew.py: %q", f[0].Fix)
	}
}

func TestSortAndExitCode(t *testing.T) {
	fs := lintDir(t, filepath.Join("testdata", "rules", "filter_bad"))
	for i := 1; i < len(fs); i++ {
		a, b := fs[i-1].Pos, fs[i].Pos
		if a.File > b.File || (a.File == b.File && (a.Line > b.Line || (a.Line == b.Line && a.Col > b.Col))) {
			t.Fatalf("not sorted: %s before %s", a, b)
		}
	}
	cases := []struct {
		sevs   []Severity
		strict bool
		want   int
	}{
		{nil, true, 0},
		{[]Severity{Info}, true, 0},
		{[]Severity{Warning}, false, 0},
		{[]Severity{Warning, Info}, true, 1},
		{[]Severity{Error}, false, 2},
		{[]Severity{Warning, Error}, true, 2},
	}
	for _, c := range cases {
		var fs []Finding
		for _, s := range c.sevs {
			fs = append(fs, Finding{Severity: s})
		}
		if got := ExitCode(fs, c.strict); got != c.want {
			t.Errorf("ExitCode(%v, strict=%v) = %d, want %d", c.sevs, c.strict, got, c.want)
		}
	}
}

func TestWriteTextGroupsByFile(t *testing.T) {
	fs := lintDir(t, filepath.Join("testdata", "rules", "max_usage_bad"))
	var b strings.Builder
	if err := WriteText(&b, fs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"agents/a.jsonc\n  agents/a.jsonc:6:13  error    max-usage-count  crewai_tools.SerperDevTool has max_usage_count=0",
		"      fix: set max_usage_count to a positive number",
		"\ntools/limits.py\n  tools/limits.py:4:17  error    max-usage-count  max_usage_count=-1",
		"3 findings (2 errors, 0 warnings, 1 info)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// A server crewbench holds an OAuth token for wants OAuth: a config that
// sends no Authorization header gets a warning with the header to write (the
// https-without-headers note is not the only case), one with the header
// (in any case) gets nothing.
func TestOAuthTokenWithoutAuthorizationHeader(t *testing.T) {
	store := &oauth.Store{Path: filepath.Join(t.TempDir(), "oauth-tokens.json")}
	for _, u := range []string{"https://mcp.weather.example.com/mcp", "https://mcp.other.example.com/mcp"} {
		if err := store.Put(u, &oauth.Token{AccessToken: "at-" + u, TokenType: "Bearer"}); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join("testdata", "rules", "oauth_token_bad")
	lintWith := func(opts Options) []Finding {
		_, fs, err := LintPath(t.Context(), dir, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		return withCode(fs, CodeOAuth)
	}
	got := lintWith(Options{HasOAuthToken: store.Has})
	if want := []string{"agents/a.jsonc:9:13 warning"}; strings.Join(locations(got), ",") != strings.Join(want, ",") {
		t.Fatalf("findings %v, want %v: %+v", locations(got), want, got)
	}
	for _, w := range []string{"crewbench holds an OAuth token for https://mcp.weather.example.com/mcp", "CrewAI itself will not do the OAuth dance"} {
		if !strings.Contains(got[0].Message, w) {
			t.Errorf("message lacks %q: %s", w, got[0].Message)
		}
	}
	if w := `headers={"Authorization": f"Bearer {os.environ['WEATHER_TOKEN']}"}`; !strings.Contains(got[0].Fix, w) {
		t.Errorf("fix lacks %q: %s", w, got[0].Fix)
	}
	// without the token store, a server with headers gets no OAuth finding
	if got := lintWith(Options{}); len(got) != 0 {
		t.Errorf("without a token: %v", locations(got))
	}
}
