package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/fixtures/fixturetest"
)

// watchStubEnv points python3 at the stub crewai package and the weather
// fixture (this test binary) as the crew's MCP server. CI must have python3.
func watchStubEnv(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CREWBENCH_CI") == "1" {
			t.Fatalf("python3 is required in CI: %v", err)
		}
		t.Skipf("python3 not on PATH: %v", err)
	}
	stub, _ := filepath.Abs("crew/bridge/testdata/stub")
	cmd, args := fixturetest.Command("weather")
	argv, _ := json.Marshal(append([]string{cmd}, args...))
	t.Setenv("PYTHONPATH", stub)
	t.Setenv("STUB_MCP_COMMAND", string(argv))
	t.Setenv("PYTHONDONTWRITEBYTECODE", "1")
	return py
}

func runWatchCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(context.Background(), append([]string{"watch"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestWatchJSONRecordsASessionReplayPrints(t *testing.T) {
	py := watchStubEnv(t)
	rec := filepath.Join(t.TempDir(), "watch.jsonl")
	code, stdout, stderr := runWatchCLI(t, "", "--json", "--record", rec, "-C", "crew/bridge/testdata/project",
		"--", py, "-m", "stubcrew.main", "native")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		kinds = append(kinds, ev.Type)
	}
	joined := strings.Join(kinds, " ")
	for _, k := range []string{"crewbench_bridge_connected", "crew_kickoff_started", "mcp_tool_execution_completed", "crew_kickoff_completed", "crewbench_process_output"} {
		if !strings.Contains(joined, k) {
			t.Fatalf("no %s in the JSON stream: %s", k, joined)
		}
	}
	if !strings.Contains(stderr, "session recorded to "+rec) {
		t.Fatalf("stderr:\n%s", stderr)
	}
	var out, errb bytes.Buffer
	if code := execute(context.Background(), []string{"replay", rec, "--print", "--color", "never"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("replay exit %d: %s", code, errb.String())
	}
	printed := out.String() + errb.String()
	for _, want := range []string{"crew stub_crew", "task research", "word_counter", "weather_get_forecast", "connect weather"} {
		if !strings.Contains(printed, want) {
			t.Fatalf("replay does not show %q:\n%s", want, printed)
		}
	}
}

func TestWatchBreakEditsMCPArgumentsFromStdin(t *testing.T) {
	py := watchStubEnv(t)
	code, stdout, stderr := runWatchCLI(t, `e {"city": "Lisbon", "days": 1}`+"\n", "--no-record", "--break", "tool=getForecast",
		"-C", "crew/bridge/testdata/project", "--", py, "-m", "stubcrew.main", "native")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "⏸ paused before weather_get_forecast ← getForecast @ weather") {
		t.Fatalf("no pause shown:\n%s", stderr)
	}
	// Read from a pipe, the decision is not echoed by a terminal: crewbench
	// repeats it, so the trace's next line starts on a line of its own.
	if !strings.Contains(stderr, "a(bort) > e {\"city\": \"Lisbon\", \"days\": 1}\n") {
		t.Fatalf("the decision is not repeated after the prompt:\n%s", stderr)
	}
	if !strings.Contains(stdout, `"city": "Lisbon"`) || strings.Contains(stdout, "Berlin") {
		t.Fatalf("the MCP server did not get the edited arguments:\n%s", stdout)
	}
}

func TestWatchBreakSkipAndAbort(t *testing.T) {
	py := watchStubEnv(t)
	code, stdout, stderr := runWatchCLI(t, "s 7 words (supplied)\n", "--no-record", "--break", "tool=word_counter",
		"-C", "crew/bridge/testdata/project", "--", py, "-m", "stubcrew.main", "react")
	if code != 0 || !strings.Contains(stdout, "FINAL: 7 words (supplied)") || strings.Contains(stdout, "word_counter received") {
		t.Fatalf("skip: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runWatchCLI(t, "bogus\na\n", "--no-record", "--break", "tool=word_counter",
		"-C", "crew/bridge/testdata/project", "--", py, "-m", "stubcrew.main", "native")
	if code != watchExitFailed || !strings.Contains(stderr, "aborted") || strings.Contains(stdout, "FINAL") ||
		!strings.Contains(stderr, `unknown decision "bogus"`) {
		t.Fatalf("abort: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

func TestWatchMissingCrewAIIsAClearError(t *testing.T) {
	py := watchStubEnv(t)
	t.Setenv("PYTHONPATH", "")
	code, _, stderr := runWatchCLI(t, "", "--no-record", "--", py, "-c", "import crewai")
	if code != watchExitFailed || !strings.Contains(stderr, "cannot import crewai") || !strings.Contains(stderr, "uv run") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}

func TestWatchBadBreakSpec(t *testing.T) {
	code, _, stderr := runWatchCLI(t, "", "--break", "tools=x", "--", "python3")
	if code != watchExitUsage || !strings.Contains(stderr, "want tool=NAME") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}
