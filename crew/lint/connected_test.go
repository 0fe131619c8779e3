package lint

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/crew/project"
	"crewbench/fixtures/fixturetest"
)

// writeCrew writes a JSON-first crew with one agent into a temp dir. mcps
// are the agent's mcps entries (JSON values).
func writeCrew(t *testing.T, crewExtra, description, llm string, mcps ...any) string {
	t.Helper()
	dir := t.TempDir()
	agent := map[string]any{"role": "Worker", "goal": "Get the work done", "backstory": "Careful.", "llm": llm, "mcps": mcps}
	crew := map[string]any{"agents": []string{"a"}, "tasks": []map[string]any{
		{"name": "t1", "description": description, "expected_output": "One line.", "agent": "a"}}}
	cb, _ := json.MarshalIndent(crew, "", "  ")
	cs := strings.TrimSuffix(strings.TrimSpace(string(cb)), "}") + crewExtra + "}\n"
	ab, _ := json.MarshalIndent(agent, "", "  ")
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "crew.jsonc"), []byte(cs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agents", "a.jsonc"), ab, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fixtureMCP is an mcps entry that starts a fixture over stdio under a short
// command name (a symlink to the test binary on PATH), so the tool names
// are what a user with a short command would get.
func fixtureMCP(t *testing.T, alias, name string, filter map[string]any, extra ...string) map[string]any {
	t.Helper()
	exe, args := fixturetest.Command(name, extra...)
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, alias)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	m := map[string]any{"command": alias, "args": args}
	if filter != nil {
		filter["type"] = "static"
		m["tool_filter"] = filter
	}
	return m
}

// posOf is the file:line:col of the first occurrence of text in a
// project file.
func posOf(t *testing.T, dir, file, text string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), text)
	if i < 0 {
		t.Fatalf("%s does not contain %q", file, text)
	}
	line := strings.Count(string(b[:i]), "\n") + 1
	col := len([]rune(string(b[strings.LastIndex(string(b[:i]), "\n")+1:i]))) + 1
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

func lintConnected(t *testing.T, dir string, timeout time.Duration) []Finding {
	t.Helper()
	p, fs, err := LintPath(t.Context(), dir, "", Options{Connect: true, ServerTimeout: timeout})
	if err != nil || p == nil {
		t.Fatalf("LintPath: %v", err)
	}
	return fs
}

func connectedOnly(fs []Finding, code string) []Finding {
	var out []Finding
	for _, f := range withCode(fs, code) {
		if f.Connected {
			out = append(out, f)
		}
	}
	return out
}

func TestConnectedFilters(t *testing.T) {
	dir := writeCrew(t, "", "Use getForecast to get the weekend forecast.", "openai/gpt-4o-mini",
		fixtureMCP(t, "wx", "weather", map[string]any{"allowed_tool_names": []string{"get_forcast"}}),
		fixtureMCP(t, "wx", "weather", map[string]any{"allowed_tool_names": []string{"get_forecast", "get_alertz"}}),
	)
	fs := lintConnected(t, dir, 30*time.Second)

	nothing := connectedOnly(fs, CodeFilterKeepsNothing)
	if len(nothing) != 1 || nothing[0].Severity != Error || nothing[0].Location() != posOf(t, dir, "agents/a.jsonc", `{
        "allowed_tool_names": [
          "get_forcast"`) {
		t.Fatalf("keeps-nothing: %+v\nall: %+v", nothing, fs)
	}
	if !strings.Contains(nothing[0].Fix, `"get_forecast" instead of "get_forcast"`) || !strings.Contains(nothing[0].Message, "No tools discovered from MCP server") {
		t.Errorf("keeps-nothing text: %q / %q", nothing[0].Message, nothing[0].Fix)
	}

	unmatched := connectedOnly(fs, CodeFilterUnmatched)
	if len(unmatched) != 1 || unmatched[0].Location() != posOf(t, dir, "agents/a.jsonc", `"get_alertz"`) || !strings.Contains(unmatched[0].Fix, `"get_alerts"`) {
		t.Fatalf("unmatched entry: %+v", unmatched)
	}

	// the task names the remote tool getForecast; the LLM sees it prefixed
	bare := connectedOnly(fs, CodeBareToolName)
	if len(bare) != 1 || bare[0].Location() != posOf(t, dir, "crew.jsonc", `"Use getForecast`) {
		t.Fatalf("bare tool name: %+v", bare)
	}
	if !strings.Contains(bare[0].Message, `"getForecast"`) || !strings.Contains(bare[0].Fix, "write the exact name wx_crewbench_fixture_weather_get_forecast") ||
		!strings.Contains(bare[0].Fix, "description") {
		t.Errorf("bare tool name text: %q / %q", bare[0].Message, bare[0].Fix)
	}
	for _, f := range withCode(fs, CodeConnectFailed) {
		t.Errorf("unexpected connection failure: %+v", f)
	}
}

func TestConnectedNames(t *testing.T) {
	// "3dfx" makes every tool name start with a digit (3dfx_crewbench_fixture_names_…)
	dir := writeCrew(t, "", "Summarise the catalogue.", "anthropic/claude-haiku-4-5", fixtureMCP(t, "3dfx", "names", nil))
	fs := lintConnected(t, dir, 30*time.Second)

	digit := connectedOnly(fs, CodeLeadingDigit)
	if len(digit) != 1 || digit[0].Severity != Error || !strings.Contains(digit[0].Message, "3dfx_crewbench_fixture_names_3d_render") ||
		!strings.Contains(digit[0].Message, "anthropic/claude-haiku-4-5") {
		t.Fatalf("leading digit with a native Anthropic model: %+v", digit)
	}
	coll := connectedOnly(fs, CodeCollision)
	if len(coll) != 1 || !strings.Contains(coll[0].Message, "3 tools named") || !strings.Contains(coll[0].Message, "get_forecast_2") {
		t.Fatalf("collision: %+v", coll)
	}
	dropped := connectedOnly(fs, CodeToolDropped)
	var texts []string
	for _, f := range dropped {
		texts = append(texts, f.Message)
	}
	joined := strings.Join(texts, "\n")
	if len(dropped) != 2 || !strings.Contains(joined, `"no_description" with a null description`) || !strings.Contains(joined, "天气") {
		t.Fatalf("dropped tools: %q", texts)
	}
	hashed := connectedOnly(fs, CodeNameHashed)
	if len(hashed) != 1 || !strings.Contains(hashed[0].Message, "list_all_open_purchase_orders") {
		t.Fatalf("hashed: %+v", hashed)
	}

	// with a LiteLLM model the digit is a warning, not an error
	dir = writeCrew(t, "", "Summarise the catalogue.", "groq/llama-3.1-8b-instant", fixtureMCP(t, "3dfx", "names", nil))
	digit = connectedOnly(lintConnected(t, dir, 30*time.Second), CodeLeadingDigit)
	if len(digit) != 1 || digit[0].Severity != Warning {
		t.Fatalf("leading digit with a LiteLLM model: %+v", digit)
	}
}

func TestConnectedCacheWithWritingTools(t *testing.T) {
	dir := writeCrew(t, `,
  "cache": true
`, "Tidy the notes.", "openai/gpt-4o-mini", fixtureMCP(t, "fs", "files", nil))
	fs := lintConnected(t, dir, 30*time.Second)
	got := connectedOnly(fs, CodeCacheStateChange)
	if len(got) != 1 {
		t.Fatalf("cache with writing tools: %+v", fs)
	}
	msg := got[0].Message
	for _, w := range []string{"write_file", "edit_file", "move_file"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message lacks %s: %q", w, msg)
		}
	}
	for _, r := range []string{"read_text_file", "list_directory"} {
		if strings.Contains(msg, r) {
			t.Errorf("read-only tool %s reported as state-changing: %q", r, msg)
		}
	}

	// without the crew cache nothing is reported
	dir = writeCrew(t, "", "Tidy the notes.", "openai/gpt-4o-mini", fixtureMCP(t, "fs", "files", nil))
	if got := withCode(lintConnected(t, dir, 30*time.Second), CodeCacheStateChange); len(got) != 0 {
		t.Fatalf("no crew cache: %+v", got)
	}
}

// Servers that cannot be reached are findings, not errors of Lint, and a
// server that never answers is cut off at the per-server deadline while
// the others are still discovered.
func TestConnectedFailuresAreFindings(t *testing.T) {
	dir := writeCrew(t, "", "Do the work.", "openai/gpt-4o-mini",
		map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")},
		fixtureMCP(t, "hang", "hang-init", nil),
		fixtureMCP(t, "wx", "weather", nil),
		"notion",
	)
	start := time.Now()
	fs := lintConnected(t, dir, 2*time.Second)
	elapsed := time.Since(start)
	failed := connectedOnly(fs, CodeConnectFailed)
	if len(failed) != 2 {
		t.Fatalf("connection failures: %+v\nall: %+v", failed, fs)
	}
	var sawMissing, sawHang bool
	for _, f := range failed {
		if f.Severity != Error {
			t.Errorf("a native server that fails discovery is an error: %+v", f)
		}
		sawMissing = sawMissing || strings.Contains(f.Message, "no-such-server")
		sawHang = sawHang || strings.Contains(f.Message, "no answer within 2s")
	}
	if !sawMissing || !sawHang {
		t.Errorf("failure texts: %+v", failed)
	}
	if elapsed > 20*time.Second {
		t.Errorf("lint took %s: the per-server deadline did not hold", elapsed)
	}
	if nc := connectedOnly(fs, CodeNotConnectable); len(nc) != 1 || nc[0].Severity != Info || !strings.Contains(nc[0].Message, "notion") {
		t.Errorf("AMP slug without a URL: %+v", nc)
	}
}

// The rules that back up CrewAI's own validators work on the model too
// (the loaders report the same mistakes as load errors; lint reports each
// once).
func TestModelRulesWithoutLoaderErrors(t *testing.T) {
	p := &project.Project{Kind: project.KindJSONCrew, Dir: t.TempDir()}
	t1 := &project.Task{Name: "t1", Index: 0, Context: []string{"t2"}, ContextSet: true,
		Positions: project.Positions{"context[0]": {File: "crew.jsonc", Line: 5, Col: 18}}}
	t2 := &project.Task{Name: "t2", Index: 1, Pos: project.Pos{File: "crew.jsonc", Line: 7, Col: 5}}
	p.Tasks = []*project.Task{t1, t2}
	p.Crew = &project.Crew{Process: "hierarchical", Tasks: p.Tasks,
		Positions: project.Positions{"process": {File: "crew.jsonc", Line: 9, Col: 14}}}
	fs := Lint(t.Context(), p, Options{})
	if got := locations(withCode(fs, CodeContextFuture)); strings.Join(got, ",") != "crew.jsonc:5:18 error" {
		t.Errorf("context: %q", got)
	}
	if got := locations(withCode(fs, CodeHierarchical)); strings.Join(got, ",") != "crew.jsonc:9:14 error" {
		t.Errorf("hierarchical: %q", got)
	}
	// with the loader's error for the same place, still one finding
	errs := project.Errors{{Pos: project.Pos{File: "crew.jsonc", Line: 9, Col: 14},
		Msg: "validation failed: Attribute `manager_llm` or `manager_agent` is required when using hierarchical process."}}
	fs = Lint(t.Context(), p, Options{LoadErrors: errs})
	if got := withCode(fs, CodeHierarchical); len(got) != 1 {
		t.Errorf("loader error and rule for one mistake: %+v", got)
	}
}

// An https string ref whose tool has a camelCase name: CrewAI calls it by
// its sanitized name, so every call will fail. Lint connects over TLS,
// finds the tool and says so at the ref; a snake_case tool through the
// same kind of ref is fine.
func TestConnectedHTTPSCallName(t *testing.T) {
	weather := fixturetest.StartHTTPS(t, "weather")
	inventory := fixturetest.StartHTTPS(t, "inventory")
	dir := writeCrew(t, "", "Do the work.", "openai/gpt-4o-mini", weather+"#getForecast", inventory+"#lookup_stock")
	fs := lintConnected(t, dir, 10*time.Second)
	got := connectedOnly(fs, CodeHTTPSCallName)
	if len(got) != 1 || got[0].Location() != posOf(t, dir, "agents/a.jsonc", `"`+weather+`#getForecast"`) ||
		!strings.Contains(got[0].Message, `"get_forecast"`) || !strings.Contains(got[0].Message, `"getForecast"`) {
		t.Fatalf("https call name: %+v\nall: %+v", got, fs)
	}
	for _, f := range withCode(fs, CodeConnectFailed) {
		t.Errorf("unexpected connection failure: %+v", f)
	}
}

// A remote server that answers 401 + WWW-Authenticate gets the note that
// CrewAI itself will not do the OAuth dance, with the headers fix.
func TestConnectedUnauthorizedServerGetsOAuthFinding(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer ts.Close()
	dir := writeCrew(t, "", "Do the work.", "openai/gpt-4o-mini", map[string]any{"url": ts.URL + "/mcp"})
	fs := connectedOnly(lintConnected(t, dir, 5*time.Second), CodeOAuth)
	if len(fs) != 1 || fs[0].Severity != Warning || !strings.Contains(fs[0].Message, "will not do the OAuth dance") ||
		!strings.Contains(fs[0].Fix, `headers={"Authorization": f"Bearer {os.environ['`) {
		t.Fatalf("findings: %+v", fs)
	}
}
