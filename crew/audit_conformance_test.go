package crew

// Mechanisms of the unpublished golden crews (issue 11) that the public
// goldens do not reach: what CrewAI 1.15.17 sends for unknown tools,
// malformed native arguments and ReAct chosen by an o1 model name, from
// CrewAI's code (file:line at each test).

import (
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/session"
)

// An unknown tool called under an unsanitized name goes back to the model
// under the sanitized one, in the assistant echo as in the tool message:
// extract_tool_call_info sanitizes the name (agent_utils.py:1377-1384) and
// execute_native_tool builds the echo from it (agent_executor.py:1714-1741).
func TestConformanceNativeEchoesSanitizedNames(t *testing.T) {
	var calls atomic.Int64
	cs, prov := newChatServer(t, "call No-Such.Tool {}", "done")
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"no_such_tool","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","name":"no_such_tool","content":"Tool not found"}],"model":"gpt-4o"`
	if body := cs.body(t, 1); !strings.Contains(body, want) {
		t.Errorf("second request lacks the sanitized echo:\n got %s\nwant …%s…", body, want)
	}
	if calls.Load() != 0 {
		t.Errorf("tool ran %d times", calls.Load())
	}
}

// Native arguments go through `parsed_args or {}` (agent_executor.py:
// 1941-1952): a falsy JSON value runs the tool with no arguments, exactly as
// "{}" does; a non-empty JSON string passes ToolUsageStartedEvent (tool_args
// is dict | str) and fails in `tool.run(**args)` with Python's TypeError,
// reported as a tool error (agent_executor.py:2033-2063).
func TestConformanceNativeFalsyAndStringArguments(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: "{}"}]
  - tool_calls: [{name: get_forecast, arguments: "null"}]
  - tool_calls: [{name: get_forecast, arguments: "[]"}]
  - tool_calls: [{name: get_forecast, arguments: "0"}]
  - tool_calls: [{name: get_forecast, arguments: "false"}]
  - tool_calls: [{name: get_forecast, arguments: "\"Berlin\""}]
  - "done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	empty := r.lastContent(t, 1)
	if empty != "Sunny in None" {
		t.Fatalf(`"{}" result %q: want the tool run with no arguments`, empty)
	}
	for i, arg := range []string{"null", "[]", "0", "false"} {
		if got := r.lastContent(t, i+2); got != empty {
			t.Errorf("arguments %s: tool message %q, want the {} result %q", arg, got, empty)
		}
	}
	want := "Error executing tool: crewai.tools.base_tool.BaseTool.run() argument after ** must be a mapping, not str"
	if got := r.lastContent(t, 6); got != want {
		t.Errorf("string arguments: tool message %q, want %q", got, want)
	}
	// Five runs with no arguments; the TypeError is a started use that ends
	// with tool_usage_error and tool_failure_detected, and never runs.
	kinds := r.kinds(session.ToolUsageStarted, session.ToolUsageFinished, session.ToolUsageError, session.ToolFailureDetected)
	var b strings.Builder
	for range 5 {
		b.WriteString("tool_usage_started,tool_usage_finished,")
	}
	b.WriteString("tool_usage_started,tool_usage_error,tool_failure_detected,")
	if got := strings.Join(kindStrings(kinds), ",") + ","; got != b.String() {
		t.Errorf("tool events:\n got %s\nwant %s", got, b.String())
	}
	if calls.Load() != 5 {
		t.Errorf("tool ran %d times, want 5", calls.Load())
	}
}

// An openai/* model with "o1" in its name gets the ReAct text path
// (openai/completion.py:2643-2645): the system prompt (role_playing + tools
// slices, prompts.py:96-103) becomes a "System: " user message
// (completion.py:2749-2752), the task ends with the "task" slice's Begin!
// suffix (en.json "task"), and neither tools, tool_choice nor stop are sent
// (completion.py:1790-1847).
func TestConformanceO1ModelUsesReAct(t *testing.T) {
	var calls atomic.Int64
	cs, _ := newChatServer(t,
		"Thought: look\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}",
		"Thought: I now know the final answer\nFinal Answer: Sunny in Oslo.")
	a := NewAgent("a", "A", "g", "b", cs.provider(t, "openai/o1-mini"))
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Sunny in Oslo." || calls.Load() != 1 {
		t.Fatalf("output %q, %d tool runs", r.out.Raw, calls.Load())
	}
	first := cs.body(t, 0)
	prefix := `{"messages":[{"role":"user","content":"System: You are A. b\nYour personal goal is: g\nYou ONLY have access to the following tools, and should NEVER make up tools that are not listed here:\n\nTool Name: get_forecast\n`
	task := `{"role":"user","content":"\nCurrent Task: d\n\nThis is the expected criteria for your final answer: e\nyou MUST return the actual complete content as the final answer, not a summary.\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer, your job depends on it!\n\nThought:"}],"model":"o1-mini"}`
	if !strings.HasPrefix(first, prefix) || !strings.HasSuffix(first, task) {
		t.Errorf("first request:\n%s", first)
	}
	second := cs.body(t, 1)
	obs := `{"role":"assistant","content":"Thought: look\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}\nObservation: Sunny in Oslo"},` +
		`{"role":"user","content":"Analyze the tool result. If requirements are met, provide the Final Answer. Otherwise, call the next tool. Deliver only the answer without meta-commentary."}],"model":"o1-mini"}`
	if !strings.HasSuffix(second, obs) {
		t.Errorf("second request:\n%s", second)
	}
	for i, body := range []string{first, second} {
		for _, key := range []string{`"tools"`, `"tool_choice"`, `"stop"`, `"role":"system"`} {
			if strings.Contains(body, key) {
				t.Errorf("request %d carries %s", i+1, key)
			}
		}
	}
}

// The repeated-call guard's text keeps the translation's trailing "\n\n"
// (en.json errors.task_repeated_usage): rstripped away when it ends the
// assistant message (agent_utils.py:449), kept when the third formatted
// result appends the tools reminder (tool_usage.py:510-520, 760-777).
func TestConformanceReActRepeatedCallBeforeTheReminder(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
function_calling: false
replies:
  - "Thought: t\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: t\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: t\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: I now know the final answer\nFinal Answer: Sunny."
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	guard := "I tried reusing the same input, I must stop using this action input. I'll try something else instead."
	if got := r.observation(t, 2); got != guard {
		t.Errorf("second use: observation %q, want %q", got, guard)
	}
	if got := r.observation(t, 3); !strings.HasPrefix(got, guard+"\n\n\n\n\nYou ONLY have access to the following tools") {
		t.Errorf("third use: observation %q, want the guard text, its \\n\\n, then the reminder", got)
	}
	if calls.Load() != 1 {
		t.Errorf("tool ran %d times, want 1", calls.Load())
	}
}

// The repeated-call guard reads the agent's ToolsHandler.last_used_tool
// (tool_usage.py:779-789), which belongs to the agent for the whole kickoff
// (base_agent.py:347-350; agent/core.py:1214 hands the same handler to every
// executor): a later task whose first call repeats the last successful call
// of the agent's previous task gets the guard text, and the tool does not run.
func TestConformanceReActRepeatedCallGuardSpansTasks(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
function_calling: false
replies:
  - "Thought: t\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: I now know the final answer\nFinal Answer: one"
  - "Thought: t\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: I now know the final answer\nFinal Answer: two"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{
		{Name: "one", Description: "d1", ExpectedOutput: "e", Agent: a},
		{Name: "two", Description: "d2", ExpectedOutput: "e", Agent: a, ContextMode: ContextNone},
	}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	guard := "I tried reusing the same input, I must stop using this action input. I'll try something else instead."
	if got := r.observation(t, 3); got != guard {
		t.Errorf("task two's first call: observation %q, want the guard text", got)
	}
	if calls.Load() != 1 || r.out.Raw != "two" {
		t.Errorf("tool ran %d times (want 1), output %q", calls.Load(), r.out.Raw)
	}
}
