package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// fixtureCommandLine is a --stdio value that starts fixture name as a real
// process (this test binary, re-executed).
func fixtureCommandLine(t *testing.T, name string, extra ...string) string {
	t.Helper()
	if !fixtureDispatch {
		t.Fatal("TestMain did not install the fixture dispatch")
	}
	cmd, args := fixturetest.Command(name, extra...)
	words := append([]string{cmd}, args...)
	for i, w := range words {
		words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code = execute(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// The "done when": the filter keeps nothing and the hint names get_forecast.
func TestToolsFilterKeepsNothingSuggestsSanitizedName(t *testing.T) {
	code, out, errs := run(t, "tools", "--stdio", fixtureCommandLine(t, "weather"), "--allow", "getForecast")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"getForecast", "getAlerts", "filtered", "not in allowed_tool_names",
		"the filter keeps nothing", "did you mean `get_forecast`?",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestToolsJSONAndEnvironment(t *testing.T) {
	t.Setenv("CREWBENCH_TEST_API_TOKEN", "leak-me-not")
	code, out, errs := run(t, "tools", "--json", "--stdio", fixtureCommandLine(t, "inventory"),
		"--env", "INVENTORY_API_KEY=supersecret", "--block", "write_stock")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var loose []map[string]any
	if err := json.Unmarshal([]byte(out), &loose); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(loose) != 1 || loose[0]["outcome"] != "ok" {
		t.Fatalf("report: %s", out)
	}
	statuses := map[string]string{}
	for _, tl := range loose[0]["tools"].([]any) {
		m := tl.(map[string]any)
		statuses[m["name"].(string)] = m["status"].(string)
	}
	if statuses["write_stock"] != "filtered" || statuses["lookup_stock"] != "kept" {
		t.Errorf("statuses %v", statuses)
	}
	if strings.Contains(out, "supersecret") || strings.Contains(out, "leak-me-not") {
		t.Error("a secret was printed")
	}
	if !strings.Contains(out, `"INVENTORY_API_KEY"`) || !strings.Contains(out, session.Redacted) {
		t.Errorf("environment should list INVENTORY_API_KEY redacted:\n%s", out)
	}
}

func TestToolsUsageAndConnectionErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tools"}, 1, "no server"},
		{[]string{"tools", "someserver"}, 1, "no project found"},
		{[]string{"tools", "--stdio", "'unterminated"}, 1, "unterminated quote"},
		{[]string{"tools", "--url", "ftp://x"}, 1, "want an http(s) URL"},
		{[]string{"tools", "--stdio", "/nonexistent/server-binary"}, 2, "spawn_failed"},
	}
	for _, c := range cases {
		code, out, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
}

func TestSmokeStdioFixture(t *testing.T) {
	cmd, args := fixturetest.Command("inventory")
	code, out, errs := run(t, append([]string{"smoke", "--include-destructive", "--"}, append([]string{cmd}, args...)...)...)
	if code != 0 || !strings.Contains(out, "3 passed, 0 failed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// errors fixture: JSON-RPC errors and the unknown content type fail the smoke.
	cmd, args = fixturetest.Command("errors")
	code, out, _ = run(t, append([]string{"smoke", "--json", "--"}, append([]string{cmd}, args...)...)...)
	if code != 3 {
		t.Fatalf("errors fixture smoke exit %d, want 3\n%s", code, out)
	}
	var rep smokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	pass := map[string]bool{}
	for _, tl := range rep.Tools {
		pass[tl.Tool] = tl.Passed
	}
	if !pass["returns_is_error"] || pass["returns_jsonrpc_error"] || pass["returns_unknown_content"] {
		t.Errorf("verdicts %v", pass)
	}
}

func TestSmokeURLIsLastArgument(t *testing.T) {
	url := fixturetest.StartHTTP(t, "weather", "http")
	code, out, errs := run(t, "smoke", "--timeout", "10s", url)
	if code != 0 || !strings.Contains(out, "2 passed, 0 failed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = run(t, "smoke", "not-a-configured-server")
	if code != 1 || !strings.Contains(errs, "no project found") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// Interop: crewbench smoke passes against the reference server-everything.
func TestSmokeServerEverything(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	code, out, errs := run(t, "smoke", "--timeout", "20s",
		// Tools that would reach the internet or run for 10 s by default.
		"--skip", "gzip-file-as-resource,trigger-long-running-operation", "--", bin)
	if code != 0 || !strings.Contains(out, " 0 failed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// npmBin finds an npm reference server installed by scripts/test.sh in
// $CREWBENCH_NPM_DIR (default .cache/npm). Absent servers skip the test,
// except under CREWBENCH_CI=1, where the interop tests are mandatory.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("CREWBENCH_NPM_DIR")
	if dir == "" {
		dir = filepath.Join(".cache", "npm")
	}
	bin, _ := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", name))
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CREWBENCH_CI") == "1" {
			t.Fatalf("interop server %s not installed at %s (scripts/test.sh installs it)", name, bin)
		}
		t.Skipf("%s not installed (run scripts/test.sh): %v", name, err)
	}
	return bin
}

// A URL that accepts connections and never answers fails tools at its
// connect deadline, not 5 s later after a health probe that would only
// hang too.
func TestToolsHangingURLEndsAtItsDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"hang": {"type": "http", "url": "http://`+ln.Addr().String()+`/mcp"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "crewbench.yaml"), []byte("servers:\n  hang:\n    timeouts: {connect: 1s, discovery: 1s, attempts: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, stdout, stderr := run(t, "tools", "--project", dir)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s for a 1 s connect timeout", took)
	}
	if code == 0 || !strings.Contains(stdout, "timed out after 1 seconds") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
