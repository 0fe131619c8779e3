package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/crew/lint"
	"crewbench/fixtures/demo"
	"crewbench/fixtures/fixturetest"
)

// lintPlant replaces old with new in a project file, failing when old is not
// there (the demo changed under the test).
func lintPlant(t *testing.T, dir, file, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("cannot plant the mistake: %s has no %q", file, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lintLineOf is the 1-based line of the first occurrence of text in a file.
func lintLineOf(t *testing.T, dir, file, text string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(text))
	if i < 0 {
		t.Fatalf("%s has no %q", file, text)
	}
	return bytes.Count(b[:i], []byte("\n")) + 1
}

// Done when: lint on a copy of the demo project with three planted
// mistakes reports exactly those three, with their lines and fixes.
func TestLintDemoWithThreePlantedMistakes(t *testing.T) {
	dir, err := demo.Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// the demo itself is clean
	code, out, errOut := runCLI(t, nil, "lint", "--strict", dir)
	if code != 0 || !strings.Contains(out, "no problems found") {
		t.Fatalf("the demo project is not lint-clean (exit %d):\n%s%s", code, out, errOut)
	}

	const agent = "agents/forecaster.jsonc"
	// 1. a camelCase filter name
	lintPlant(t, dir, agent, `"allowed_tool_names": ["get_forecast"]`, `"allowed_tool_names": ["getForecast"]`)
	// 2. an http:// string ref and 3. an absolute-path stdio server
	lintPlant(t, dir, agent, `"mcps": [`, `"mcps": [
    "http://localhost:8000/mcp",
    { "command": "/usr/local/bin/python3", "args": ["/Users/ana/mcp/inventory_server.py"] },`)

	code, out, errOut = runCLI(t, nil, "lint", "--json", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (errors):\n%s%s", code, out, errOut)
	}
	var fs []lint.Finding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	want := []struct {
		code, loc, fix string
		sev            lint.Severity
	}{
		{lint.CodeHTTPStringRef, fmt.Sprintf("%s:%d:5", agent, lintLineOf(t, dir, agent, `"http://localhost:8000/mcp"`)),
			`{"url": "http://localhost:8000/mcp"}`, lint.Error},
		{lint.CodeAbsolutePath, fmt.Sprintf("%s:%d:18", agent, lintLineOf(t, dir, agent, `/usr/local/bin/python3`)),
			`"command": "python"`, lint.Warning},
		{lint.CodeFilterNotSanitized, fmt.Sprintf("%s:%d:", agent, lintLineOf(t, dir, agent, `"getForecast"]`)),
			`write "get_forecast"`, lint.Error},
	}
	if len(fs) != len(want) {
		t.Fatalf("got %d findings, want exactly %d:\n%s", len(fs), len(want), out)
	}
	for _, w := range want {
		found := false
		for _, f := range fs {
			if f.Code == w.code && strings.HasPrefix(f.Location(), w.loc) && f.Severity == w.sev && strings.Contains(f.Fix, w.fix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s %s at %s with a fix containing %q:\n%s", w.sev, w.code, w.loc, w.fix, out)
		}
	}
	// the absolute path finding shows the hashed name it causes
	for _, f := range fs {
		if f.Code == lint.CodeAbsolutePath && !strings.Contains(f.Message, "usr_local_bin_python3_users_ana_mcp_inventory_server_py_") {
			t.Errorf("absolute path finding does not show the hashed name: %q", f.Message)
		}
	}

	// the same in text form: grouped by file, fixes indented
	code, out, _ = runCLI(t, nil, "lint", dir)
	if code != 2 || !strings.HasPrefix(out, agent+"\n  "+agent+":") || !strings.Contains(out, "\n      fix: write \"get_forecast\"") ||
		!strings.Contains(out, "3 findings (2 errors, 1 warning, 0 info)") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
}

func TestLintExitCodes(t *testing.T) {
	rules := filepath.Join("crew", "lint", "testdata", "rules")
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"lint", filepath.Join(rules, "clean")}, 0},
		{[]string{"lint", "--strict", filepath.Join(rules, "clean")}, 0},
		{[]string{"lint", filepath.Join(rules, "needs_python_bad")}, 0},             // info only
		{[]string{"lint", "--strict", filepath.Join(rules, "needs_python_bad")}, 0}, // info never fails
		{[]string{"lint", filepath.Join(rules, "https_ref_bad")}, 0},                // warnings only
		{[]string{"lint", "--strict", filepath.Join(rules, "https_ref_bad")}, 1},
		{[]string{"lint", filepath.Join(rules, "http_ref_bad")}, 2},
		{[]string{"lint", "--strict", filepath.Join(rules, "http_ref_bad")}, 2},
		{[]string{"lint", filepath.Join(t.TempDir(), "missing")}, 2},
		{[]string{"lint", t.TempDir()}, 2}, // no project there
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != c.want {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
	// --json prints an array even when clean
	code, out, _ := runCLI(t, nil, "lint", "--json", filepath.Join(rules, "clean"))
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("--json on a clean project: exit %d, %q", code, out)
	}
}

func TestLintConnectFlag(t *testing.T) {
	if !fixtureDispatch {
		t.Fatal("TestMain did not install the fixture dispatch")
	}
	command, args := fixturetest.Command("weather")
	dir := t.TempDir()
	lintWriteFile(t, dir, "crew.jsonc", `{
  "agents": ["a"],
  "tasks": [{"name": "t1", "description": "Forecast.", "expected_output": "x", "agent": "a"}]
}`)
	argsJSON, _ := json.Marshal(args)
	lintWriteFile(t, dir, "agents/a.jsonc", fmt.Sprintf(`{
  "role": "r", "goal": "g", "backstory": "b",
  "mcps": [{"command": %q, "args": %s, "tool_filter": {"type": "static", "allowed_tool_names": ["forecast"]}}]
}`, command, argsJSON))
	code, out, errOut := runCLI(t, nil, "lint", "--connect", "--json", dir)
	if code != 2 || !strings.Contains(out, lint.CodeFilterKeepsNothing) {
		t.Fatalf("lint --connect: exit %d\n%s%s", code, out, errOut)
	}
	// without --connect the filter cannot be checked against the server
	_, out, _ = runCLI(t, nil, "lint", "--json", dir)
	if strings.Contains(out, lint.CodeFilterKeepsNothing) {
		t.Errorf("connected rule ran without --connect:\n%s", out)
	}
}

func lintWriteFile(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLintRulesList(t *testing.T) {
	code, out, _ := runCLI(t, nil, "lint", "--rules")
	if code != 0 || !strings.Contains(out, lint.CodeFilterNotSanitized) || !strings.Contains(out, "--connect") {
		t.Fatalf("lint --rules: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, nil, "lint", "--rules", "--json")
	var rules []lint.Rule
	if code != 0 || json.Unmarshal([]byte(out), &rules) != nil || len(rules) != len(lint.Rules()) {
		t.Fatalf("lint --rules --json: exit %d\n%s", code, out)
	}
}

// --max-per-rule N lists N findings of a rule per file and summarises the
// rest; 0 lists them all.
func TestLintMaxPerRuleFlag(t *testing.T) {
	dir := t.TempDir()
	var tasks []string
	for i := 0; i < 12; i++ {
		// each task names an agent that does not exist: one error per task
		tasks = append(tasks, fmt.Sprintf(`{"name": "t%d", "description": "D.", "expected_output": "x", "agent": "ghost"}`, i))
	}
	lintWriteFile(t, dir, "crew.jsonc", `{"agents": ["a"], "tasks": [`+strings.Join(tasks, ",\n")+`]}`)
	lintWriteFile(t, dir, "agents/a.jsonc", `{"role": "r", "goal": "g", "backstory": "b"}`)
	for _, tc := range []struct {
		flag        string
		listed      int
		wantOmitted bool
	}{{"5", 5, true}, {"0", 12, false}} {
		code, out, errOut := runCLI(t, nil, "lint", "--json", "--max-per-rule", tc.flag, dir)
		var fs []lint.Finding
		if err := json.Unmarshal([]byte(out), &fs); err != nil {
			t.Fatalf("--max-per-rule %s: %v\n%s%s", tc.flag, err, out, errOut)
		}
		byCode := map[string]int{}
		omitted := 0
		for _, f := range fs {
			if f.Omitted > 0 {
				omitted += f.Omitted
				continue
			}
			byCode[f.Code]++
		}
		most := 0
		for _, n := range byCode {
			most = max(most, n)
		}
		if code != 2 || most != tc.listed || (omitted > 0) != tc.wantOmitted {
			t.Errorf("--max-per-rule %s: exit %d, at most %d of one code listed, %d omitted; want exit 2, %d listed\n%s", tc.flag, code, most, omitted, tc.listed, out)
		}
	}
	_, out, _ := runCLI(t, nil, "lint", "--max-per-rule", "5", dir)
	if !strings.Contains(out, "… and 7 more") || !strings.Contains(out, "7 of them not listed") {
		t.Errorf("text output lacks the summary:\n%s", out)
	}
}
