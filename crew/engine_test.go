package crew

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

func TestNativeSequentialWithContext(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
conversations:
  - agent: Weather Analyst
    replies:
      - tool_calls:
          - {name: get_forecast, arguments: {city: Paris}}
      - "It will be sunny in Paris."
  - agent: Writer
    replies:
      - "Bring sunglasses."
`)
	analyst := NewAgent("analyst", "Weather Analyst", "Know the weather", "You read forecasts.", prov)
	analyst.Tools = []Tool{weatherTool(&calls)}
	writer := NewAgent("writer", "Writer", "Write advice", "You write short advice.", prov)
	c := &Crew{Name: "trip", Agents: []*Agent{analyst, writer}, Tasks: []*Task{
		{Name: "forecast", Description: "Get the weather in {city}.", ExpectedOutput: "One sentence.", Agent: analyst},
		{Name: "advice", Description: "Advise a traveller.", ExpectedOutput: "Advice.", Agent: writer},
	}}
	r := kickoff(t, c, map[string]any{"city": "Paris"}, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Bring sunglasses." || len(r.out.TasksOutput) != 2 {
		t.Fatalf("output = %+v", r.out)
	}
	if calls.Load() != 1 {
		t.Errorf("tool ran %d times", calls.Load())
	}
	reqs := r.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d LLM calls", len(reqs))
	}
	// The tool result comes back as a tool message after the assistant
	// message carrying the call.
	second := reqs[1]
	if got := second[len(second)-1]; got["role"] != "tool" || got["content"] != "Sunny in Paris" || got["name"] != "get_forecast" {
		t.Errorf("tool message = %v", got)
	}
	// The writer's task has the analyst's output as context (absent context
	// = all earlier outputs) and uses task_no_tools.
	wantUser := "\nCurrent Task: Advise a traveller.\n\nThis is the expected criteria for your final answer: Advice.\nyou MUST return the actual complete content as the final answer, not a summary.\n\nThis is the context you're working with:\nIt will be sunny in Paris.\n\nProvide your complete response:"
	if got := reqs[2][1]["content"]; got != wantUser {
		t.Errorf("writer user message:\n got %q\nwant %q", got, wantUser)
	}
	if got := reqs[0][0]["content"]; got != "You are Weather Analyst. You read forecasts.\nYour personal goal is: Know the weather" {
		t.Errorf("system = %q", got)
	}
	if got := reqs[0][1]["content"]; !strings.HasPrefix(got.(string), "\nCurrent Task: Get the weather in Paris.") || strings.Contains(got.(string), "Begin!") {
		t.Errorf("native user message = %q", got)
	}
	// Event order for a task (crewai-formats.md §6.3).
	want := []session.Kind{session.CrewKickoffStarted, session.TaskStarted, session.AgentExecutionStarted,
		session.LLMCallStarted, session.LLMCallCompleted, session.ToolUsageStarted, session.ToolUsageFinished,
		session.LLMCallStarted, session.LLMCallCompleted, session.AgentExecutionCompleted, session.TaskCompleted}
	got := r.kinds(want...)
	if strings.Join(kindStrings(got[:len(want)]), ",") != strings.Join(kindStrings(want), ",") {
		t.Errorf("event order:\n got %v\nwant %v", got[:len(want)], want)
	}
	if last := r.events[len(r.events)-1]; last.Kind != session.CrewKickoffCompleted {
		t.Errorf("last event %s", last.Kind)
	}
}

func kindStrings(ks []session.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// Every event but the crew's has a Parent that is the Span of an enclosing
// scope, so the tree builds from events alone.
func TestEventTreeIsConnected(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: {city: Oslo}}]
  - "done"
`)
	a := NewAgent("a", "Analyst", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	spans := map[string]session.Kind{}
	for _, ev := range r.events {
		if ev.Span != "" && ev.Kind.IsStart() {
			spans[ev.Span] = ev.Kind
		}
	}
	parentKind := map[session.Kind]session.Kind{
		session.TaskStarted:           session.CrewKickoffStarted,
		session.AgentExecutionStarted: session.TaskStarted,
		session.AgentStepStarted:      session.AgentExecutionStarted,
		session.LLMCallStarted:        session.AgentStepStarted,
		session.ToolUsageStarted:      session.AgentStepStarted,
	}
	for _, ev := range r.events {
		if want, ok := parentKind[ev.Kind]; ok {
			if spans[ev.Parent] != want {
				t.Errorf("%s has parent %q (%s), want a %s", ev.Kind, ev.Parent, spans[ev.Parent], want)
			}
		}
	}
}

func TestReActUnknownActionGuardAndReminder(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
function_calling: false
replies:
  - "Thought: check\nAction: lookup_stock\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: right tool\nAction: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: again\nAction: get_forecast\nAction Input: {'city': 'Oslo'}"
  - "Thought: I now know the final answer\nFinal Answer: Sunny."
`)
	a := NewAgent("a", "Analyst", "Know", "Reads forecasts.", prov)
	tool := weatherTool(&calls)
	a.Tools = []Tool{tool}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "t", Description: "Weather?", ExpectedOutput: "A sentence.", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Sunny." {
		t.Errorf("raw = %q", r.out.Raw)
	}
	block := "Tool Name: get_forecast\nTool Arguments: {\n  \"type\": \"object\",\n  \"properties\": {\n    \"city\": {\n      \"type\": \"string\",\n      \"description\": \"City name\"\n    },\n    \"days\": {\n      \"type\": \"integer\",\n      \"description\": \"Days ahead\",\n      \"default\": 1\n    }\n  },\n  \"required\": [\n    \"city\",\n    \"days\"\n  ],\n  \"additionalProperties\": false\n}\nTool Description: Forecast for a city."
	format := "Decide if you need a tool or can provide the final answer. Use one at a time.\nTo use a tool, use:\nThought: [reasoning]\nAction: [name from get_forecast]\nAction Input: [JSON object]\n\nTo provide the final answer, use:\nThought: [reasoning]\nFinal Answer: [complete response]"
	reqs := r.requests()
	// After the unknown action: the assistant text with CrewAI's observation,
	// then the post_tool_reasoning nudge.
	m := reqs[1]
	wantObs := "Thought: check\nAction: lookup_stock\nAction Input: {\"city\": \"Oslo\"}\nObservation: I encountered an error: Action 'lookup_stock' don't exist, these are the only available Actions:\n" + block + "\nMoving on then. " + format
	if got := m[len(m)-2]["content"]; got != wantObs {
		t.Errorf("unknown-action observation:\n got %q\nwant %q", got, wantObs)
	}
	if got := m[len(m)-1]["content"]; got != "Analyze the tool result. If requirements are met, provide the Final Answer. Otherwise, call the next tool. Deliver only the answer without meta-commentary." {
		t.Errorf("nudge = %q", got)
	}
	if got := m[0]["content"].(string); !strings.Contains(got, "\nYou ONLY have access to the following tools") || !strings.Contains(got, block) {
		t.Errorf("ReAct system prompt lacks the tools block:\n%s", got)
	}
	// The Python-literal repeat of the same call trips the guard (the
	// second formatted result, so no tools reminder); the message is
	// rstripped, as CrewAI's is.
	m = reqs[3]
	obs := m[len(m)-2]["content"].(string)
	if !strings.HasSuffix(obs, "\nObservation: I tried reusing the same input, I must stop using this action input. I'll try something else instead.") {
		t.Errorf("guard observation:\n%s", obs)
	}
	if calls.Load() != 1 {
		t.Errorf("tool ran %d times, want 1 (guard)", calls.Load())
	}
	// Two tool_selection_error events per parsing attempt (the raise_error
	// pass and the fallback pass both run _select_tool, tool_usage.py:889-937).
	if r.count(session.GuardTripped) != 1 || r.count(session.ToolSelectionError) != 6 {
		t.Errorf("guard events %d, selection errors %d", r.count(session.GuardTripped), r.count(session.ToolSelectionError))
	}
	// The unknown action is recorded (reason invalid_input) under warn.
	fs := r.out.ToolFailures()
	if len(fs) != 1 || fs[0].Failure.Reason != ReasonInvalidInput || fs[0].Policy != PolicyWarn {
		t.Errorf("failures = %+v", fs)
	}
}

func TestToolsReminderEveryThirdUse(t *testing.T) {
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: echo\nAction Input: {\"n\": 1}"
  - "Action: echo\nAction Input: {\"n\": 2}"
  - "Action: echo\nAction Input: {\"n\": 3}"
  - "Final Answer: ok"
`)
	echo := NewFuncTool("echo", "Echo.", nil, func(_ context.Context, args *pyjson.Object) ToolResult {
		return ToolResult{Text: "got " + pyjson.Dumps(args)}
	})
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{echo}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	for i, wantReminder := range []bool{false, false, true} {
		m := r.requests()[i+1]
		obs := m[len(m)-2]["content"].(string)
		has := strings.Contains(obs, "\n\n\nYou ONLY have access to the following tools")
		if has != wantReminder {
			t.Errorf("use %d: reminder %v, want %v:\n%s", i+1, has, wantReminder, obs)
		}
	}
}

func TestUsageLimitAndRaisePolicy(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: get_forecast\nAction Input: {\"city\": \"A\"}"
  - "Action: get_forecast\nAction Input: {\"city\": \"B\"}"
  - "Final Answer: partial"
`)
	tool := weatherTool(&calls)
	tool.S.MaxUsageCount = 1
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "t", Description: "d", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	m := r.requests()[2]
	want := "\nObservation: Tool 'get_forecast' has reached its usage limit of 1 times and cannot be used anymore."
	if got := m[len(m)-2]["content"].(string); !strings.HasSuffix(got, want) {
		t.Errorf("got %q, want suffix %q", got, want)
	}
	if calls.Load() != 1 || r.count(session.UsageLimitReached) != 1 {
		t.Errorf("calls %d, limit events %d", calls.Load(), r.count(session.UsageLimitReached))
	}
	if !r.out.HasToolFailures() || r.out.ToolFailures()[0].Failure.Reason != ReasonUsageLimit {
		t.Errorf("failures = %+v", r.out.ToolFailures())
	}
	if !strings.Contains(r.out.FailureSummary(), "WARNING: the crew finished, but 1 tool call(s) failed") {
		t.Errorf("summary = %q", r.out.FailureSummary())
	}

	// The same run under "raise" aborts at the failure.
	prov = scripted(t, `
function_calling: false
replies:
  - "Action: get_forecast\nAction Input: {\"city\": \"A\"}"
  - "Action: get_forecast\nAction Input: {\"city\": \"B\"}"
`)
	tool = weatherTool(&calls)
	tool.S.MaxUsageCount = 1
	a = NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	c = &Crew{Agents: []*Agent{a}, ToolFailurePolicy: PolicyRaise, Tasks: []*Task{{Name: "t", Description: "d", ExpectedOutput: "e", Agent: a}}}
	r = kickoff(t, c, nil, Options{})
	var tf *ToolExecutionFailedError
	if !errors.As(r.err, &tf) || r.err.Error() != "Tool 'get_forecast' failed during 't': Tool 'get_forecast' has reached its usage limit of 1 times and cannot be used anymore." {
		t.Fatalf("err = %v", r.err)
	}
	if r.count(session.TaskFailed) != 1 || r.count(session.CrewKickoffFailed) != 1 || r.count(session.AgentExecutionError) != 1 {
		t.Errorf("events: %v", r.kinds(session.TaskFailed, session.CrewKickoffFailed, session.AgentExecutionError))
	}
	if len(r.out.ToolFailures()) != 1 {
		t.Errorf("a failed run still reports its failures: %+v", r.out)
	}
}

func TestPolicyResolutionOrder(t *testing.T) {
	spec := &ToolSpec{}
	task := &Task{}
	agent := &Agent{}
	ar := &agentRun{agent: agent, tr: &taskRun{task: task}, rs: &runState{crew: &Crew{}}}
	cases := []struct {
		tool, task, agent, crew FailurePolicy
		want                    FailurePolicy
	}{
		{"", "", "", "", PolicyWarn},
		{"", "", "", PolicyIgnore, PolicyIgnore},
		{"", "", PolicyRaise, PolicyIgnore, PolicyRaise},
		{"", PolicyIgnore, PolicyRaise, PolicyWarn, PolicyIgnore},
		{PolicyRaise, PolicyIgnore, PolicyIgnore, PolicyIgnore, PolicyRaise},
		{"bogus", "", "", PolicyIgnore, PolicyIgnore},
	}
	for _, c := range cases {
		spec.FailurePolicy, task.ToolFailurePolicy, agent.ToolFailurePolicy, ar.rs.crew.ToolFailurePolicy = c.tool, c.task, c.agent, c.crew
		if got := ar.policyFor(spec); got != c.want {
			t.Errorf("%+v: got %s", c, got)
		}
	}
}

func TestNativeCacheParallelAndErrors(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls:
      - {name: get_forecast, arguments: {city: Rome}}
      - {name: get_forecast, arguments: '{"city": '}
      - {name: no_such_tool, arguments: {}}
      - {name: boom, arguments: {}}
  - tool_calls:
      - {name: get_forecast, arguments: {city: Rome}}
  - "done"
`)
	boom := NewFuncTool("boom", "Always fails.", nil, func(context.Context, *pyjson.Object) ToolResult {
		return ToolResult{Err: errors.New("kaput")}
	})
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls), boom}
	c := &Crew{Cache: true, Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	m := r.requests()[1]
	tail := m[len(m)-4:]
	want := []string{
		"Sunny in Rome",
		"Error: Failed to parse tool arguments as JSON: Expecting value: line 1 column 10 (char 9). Please provide valid JSON arguments for the 'get_forecast' tool.",
		"Tool not found",
		"Error executing tool: kaput",
	}
	for i, w := range want {
		if tail[i]["content"] != w || tail[i]["role"] != "tool" {
			t.Errorf("tool message %d = %v, want %q", i, tail[i], w)
		}
	}
	// The second, identical call is served from the crew cache.
	if calls.Load() != 1 || r.count(session.CacheHit) != 1 {
		t.Errorf("tool ran %d times, cache hits %d", calls.Load(), r.count(session.CacheHit))
	}
	reasons := map[string]string{}
	for _, f := range r.out.ToolFailures() {
		reasons[f.ToolName] = f.Failure.Reason + "/" + f.Failure.Code
	}
	if reasons["get_forecast"] != "invalid_input/json_decode_error" || reasons["no_such_tool"] != "unknown_tool/no_such_tool" || reasons["boom"] != "exception/Exception" {
		t.Errorf("failure reasons = %v", reasons)
	}
}

func TestResultAsAnswerAndSequentialNative(t *testing.T) {
	var order []string
	mk := func(name string, asAnswer bool) *FuncTool {
		ft := NewFuncTool(name, name, nil, func(context.Context, *pyjson.Object) ToolResult {
			order = append(order, name) // sequential: no race
			return ToolResult{Text: "result of " + name}
		})
		ft.S.ResultAsAnswer = asAnswer
		return ft
	}
	prov := scripted(t, `
replies:
  - tool_calls: [{name: first, arguments: {}}, {name: final, arguments: {}}, {name: never, arguments: {}}]
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{mk("first", false), mk("final", true), mk("never", false)}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "result of final" || strings.Join(order, ",") != "first,final" {
		t.Errorf("raw %q, order %v", r.out.Raw, order)
	}
}

func TestFallbackToReAct(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - error: {kind: unsupported_tools, message: "this model does not support tools"}
  - "Action: get_forecast\nAction Input: {\"city\": \"Lima\"}"
  - "Final Answer: warm"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "warm" || calls.Load() != 1 {
		t.Errorf("raw %q calls %d", r.out.Raw, calls.Load())
	}
	got := r.lastContent(t, 1)
	if !strings.HasPrefix(got, "Native tool calling is unavailable for this model/provider. Continue using CrewAI text tool calling instead.\n\nYou ONLY have access to the following tools") {
		t.Errorf("fallback message = %q", got)
	}
	var second session.Event
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallStarted {
			second = ev
		}
	}
	if _, hasTools := second.Data["tools"]; hasTools {
		t.Error("ReAct calls after the fallback must not offer native tools")
	}
}

func TestMaxIterForcedFinalAnswer(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: {city: A}}]
  - tool_calls: [{name: get_forecast, arguments: {city: B}}]
  - "Thought: ok\nFinal Answer: forced answer"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.MaxIter = 2
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "forced answer" {
		t.Errorf("raw = %q", r.out.Raw)
	}
	reqs := r.requests()
	last := reqs[len(reqs)-1]
	if got := last[len(last)-1]; got["role"] != "assistant" || got["content"] != "Now it's time you MUST give your absolute best final answer. You'll ignore all previous instructions, stop using any tools, and just return your absolute BEST Final answer." {
		t.Errorf("forced message = %v", got)
	}
	var lastStart session.Event
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallStarted {
			lastStart = ev
		}
	}
	if _, ok := lastStart.Data["tools"]; ok {
		t.Error("the forced call must not offer tools")
	}
}

func TestProviderNameCheckFailsTheRun(t *testing.T) {
	prov, err := llm.New(llm.Config{Model: "openai/gpt-4o-mini", BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	render := NewFuncTool("3D Render", "Render.", nil, func(context.Context, *pyjson.Object) ToolResult { return ToolResult{} })
	a := NewAgent("a", "A", "g", "b", prov)
	a.Model = "openai/gpt-4o-mini"
	a.MaxRetryLimit = 0
	a.Tools = []Tool{render}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err == nil || r.err.Error() != "OpenAI function name '3d_render' must start with a letter or underscore" {
		t.Fatalf("err = %v", r.err)
	}
}

func TestMaxRetryLimitRerunsTheTask(t *testing.T) {
	prov := scripted(t, `
replies:
  - error: server
  - error: server
  - "finally"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil || r.out.Raw != "finally" {
		t.Fatalf("err %v out %+v", r.err, r.out)
	}
	if n := r.count(session.AgentExecutionError); n != 2 {
		t.Errorf("%d agent_execution_error events, want 2", n)
	}
	// The budget is the agent's lifetime counter: it is now spent.
	if a.timesExecuted != 2 {
		t.Errorf("timesExecuted = %d", a.timesExecuted)
	}
}

func TestInterpolationErrors(t *testing.T) {
	a := NewAgent("a", "A {x}", "g", "b", scripted(t, `replies: ["x"]`))
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "About {topic}", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, map[string]any{"x": 1}, Options{})
	if r.err == nil || r.err.Error() != "Missing required template variable 'Template variable 'topic' not found in inputs dictionary' in description" {
		t.Fatalf("err = %v", r.err)
	}
	if r.count(session.CrewKickoffFailed) != 1 {
		t.Error("no crew_kickoff_failed")
	}
}
