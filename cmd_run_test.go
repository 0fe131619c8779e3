package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

func runCrewCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code = execute(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunDemo(t *testing.T) {
	code, stdout, stderr := runCrewCLI(t, "run", "--demo", "--color", "never")
	if code != runExitToolFailure {
		t.Fatalf("exit %d, want %d (the slow tool times out)\nstderr:\n%s", code, runExitToolFailure, stderr)
	}
	if !strings.HasPrefix(stdout, "Lisbon's weekend looks travel-friendly") {
		t.Errorf("stdout = %q", stdout)
	}
	for _, want := range []string{
		"crewbench_fixture_names_list_all_open_purchase_orders_f_c9afc2a6", // a hashed name
		"← getForecast @ weather",                                          // both names on a tool call
		"attempt 3 timeout",                                                // a timeout with retries
		"attempt 2 ok",                                                     // a recovered failure
		"1 TOOL CALL FAILED",                                               // said loudly
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("trace lacks %q:\n%s", want, stderr)
		}
	}
}

func TestRunDemoJSONAndRecord(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, stderr := runCrewCLI(t, "run", "--demo", "--json", "--record", rec)
	if code != runExitToolFailure {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var kinds []string
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON event line: %q: %v", sc.Text(), err)
		}
		kinds = append(kinds, ev.Type)
	}
	// CrewAI opens the context with default_env, then the kickoff.
	if len(kinds) < 10 || kinds[0] != string(session.DefaultEnv) || kinds[1] != string(session.CrewKickoffStarted) || kinds[len(kinds)-1] != string(session.CrewKickoffCompleted) {
		t.Errorf("events: %v", kinds)
	}
	f, err := session.ReadFile(rec, session.ReadOptions{})
	if err != nil {
		t.Fatalf("recorded session: %v", err)
	}
	if len(f.Events) != len(kinds) {
		t.Errorf("recorded %d events, printed %d", len(f.Events), len(kinds))
	}
}

// The demo project runs against an OpenAI-compatible endpoint given by
// OPENAI_BASE_URL, with --llm replacing the scripted model.
func TestRunDemoAgainstOpenAICompatibleServer(t *testing.T) {
	llm := startChatServer(t, "Answer from the fake server.")
	code, stdout, stderr := runCrewCLI(t, "run", "--demo", "--llm", "openai/gpt-4o-mini", "--color", "never")
	if code != runExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.TrimSpace(stdout) != "Answer from the fake server." {
		t.Errorf("stdout = %q", stdout)
	}
	bodies := llm.Bodies()
	if len(bodies) != 2 {
		t.Fatalf("%d requests", len(bodies))
	}
	tools, _ := bodies[0]["tools"].([]any)
	if len(tools) == 0 {
		t.Error("the forecaster's MCP tools were not offered as functions")
	}
	if strings.Contains(stderr, "sk-test") {
		t.Error("the API key leaked into the trace")
	}
}

func TestRunFailures(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) { fixturetest.WriteFiles(t, dir, map[string]string{name: content}) }
	write("crew.jsonc", `{"agents": ["a"], "tasks": [{"description": "About {topic}", "expected_output": "e", "agent": "a"}]}`)
	write("agents/a.jsonc", `{"role": "R", "goal": "G", "backstory": "B", "settings": {"max_retry_limit": 0}}`)
	write("script.yaml", "replies:\n  - error: auth\n")
	code, _, stderr := runCrewCLI(t, "run", dir, "--llm", "scripted:"+filepath.Join(dir, "script.yaml"), "--input", "topic=AI")
	if code != runExitFailed || !strings.Contains(stderr, "crewbench: the crew failed:") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCrewCLI(t, "run", dir, "--input", "novalue")
	if code != runExitFailed || !strings.Contains(stderr, `--input "novalue": want key=value`) {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCrewCLI(t, "run", "--demo", dir)
	if code != runExitFailed {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	code, stdout, _ := runCrewCLI(t, "run", "--help")
	if code != 0 || !strings.Contains(stdout, "3    the crew finished, but tool calls failed") {
		t.Errorf("help:\n%s", stdout)
	}
}

// human_input: true in a headless run: the feedback is a line of stdin,
// the agent runs again with CrewAI's feedback_instructions message, and an
// empty line accepts the new answer.
func TestRunHumanInputFromStdin(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) { fixturetest.WriteFiles(t, dir, map[string]string{name: content}) }
	write("crew.jsonc", `{"agents": ["a"], "tasks": [{"name": "greet", "description": "Greet {who}", "expected_output": "A greeting", "agent": "a", "human_input": true}]}`)
	write("agents/a.jsonc", `{"role": "Greeter", "goal": "Greet", "backstory": "Kind."}`)
	write("script.yaml", "replies:\n  - \"Final Answer: Hello, dear reader, how do you do today?\"\n  - \"Final Answer: Hi.\"\n")
	rec := filepath.Join(dir, "run.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := execute(ctx, []string{"run", dir, "--llm", "scripted:" + filepath.Join(dir, "script.yaml"), "--input", "who=Ana", "--color", "never", "--record", rec},
		strings.NewReader("Shorter, please.\n\n"), &out, &errb)
	stderr := errb.String()
	if code != runExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.TrimSpace(out.String()) != "Hi." {
		t.Errorf("stdout %q", out.String())
	}
	for _, want := range []string{
		"Final answer of Greeter for greet:\nHello, dear reader, how do you do today?",
		"💬 Human Feedback Required\nProvide feedback on the Final Result above.",
		"Processing your feedback...",
		"💬 human feedback: Shorter, please.",
		"💬 the human accepted the answer",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	f, err := session.ReadFile(rec, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var last []any
	for _, ev := range f.Events {
		if ev.Kind == session.LLMCallStarted {
			last, _ = ev.Data["messages"].([]any)
		}
	}
	if len(last) != 4 {
		t.Fatalf("the second call has %d messages", len(last))
	}
	m, _ := last[3].(map[string]any)
	if m["role"] != "user" || m["content"] != "User feedback: Shorter, please.\nInstructions: Use this feedback to enhance the next output iteration.\nNote: Do not respond or add commentary." {
		t.Errorf("feedback message %v", m)
	}
}
