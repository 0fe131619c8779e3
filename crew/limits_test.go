package crew

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"crewbench/crew/project"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// A raising tool under ReAct: 3 runs, each invoking with filtered then raw
// arguments (6 invocations), then CrewAI's "Moving on then." observation.
func TestReActRaisingToolRetries(t *testing.T) {
	var invocations atomic.Int64
	var seen []string
	schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"q": {"type": "string"}}}`)
	boom := NewFuncTool("Boom", "Always fails.", schema, func(_ context.Context, args *pyjson.Object) ToolResult {
		invocations.Add(1)
		seen = append(seen, pyjson.Dumps(args))
		return ToolResult{Err: errors.New("disk full")}
	})
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: boom\nAction Input: {\"q\": \"x\", \"extra\": 1}"
  - "Final Answer: gave up"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{boom}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if invocations.Load() != 6 || seen[0] != `{"q": "x"}` || seen[1] != `{"q": "x", "extra": 1}` {
		t.Errorf("invocations %d: %v", invocations.Load(), seen)
	}
	m := r.requests()[1]
	obs := m[len(m)-2]["content"].(string)
	want := "\nObservation: \nI encountered an error while trying to use the tool. This was the error: disk full.\n Tool boom accepts these inputs: Tool Name: boom\nTool Arguments: {\n  \"type\": \"object\",\n  \"properties\": {\n    \"q\": {\n      \"type\": \"string\"\n    }\n  },\n  \"required\": [\n    \"q\"\n  ],\n  \"additionalProperties\": false\n}\nTool Description: Always fails..\nMoving on then. Decide if you need a tool"
	if !strings.Contains(obs, want) {
		t.Errorf("observation:\n%q\nwant it to contain\n%q", obs, want)
	}
	if r.count(session.ToolUsageError) != 3 || r.count(session.ToolUsageStarted) != 3 {
		t.Errorf("%d errors, %d starts", r.count(session.ToolUsageError), r.count(session.ToolUsageStarted))
	}
	fs := r.out.ToolFailures()
	if len(fs) != 1 || fs[0].Failure.Reason != ReasonException || fs[0].Failure.Message != "disk full" {
		t.Errorf("failures %+v", fs)
	}
}

func TestMaxExecutionTime(t *testing.T) {
	slow := NewFuncTool("wait", "Waits.", nil, func(ctx context.Context, _ *pyjson.Object) ToolResult {
		select {
		case <-ctx.Done():
			return ToolResult{Err: ctx.Err()}
		case <-time.After(10 * time.Second):
			return ToolResult{Text: "late"}
		}
	})
	prov := scripted(t, `
replies:
  - tool_calls: [{name: wait, arguments: {}}]
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.MaxExecutionTime = 200 * time.Millisecond
	a.Tools = []Tool{slow}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "Slow task", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	want := "Task 'Slow task' execution timed out after 0.2 seconds. Consider increasing max_execution_time or optimizing the task."
	if r.err == nil || r.err.Error() != want {
		t.Fatalf("err = %v", r.err)
	}
	if a.timesExecuted != 0 {
		t.Error("a timeout must not be retried")
	}
}

// The RPM controller's window is a 60 s timer from its creation, and at the
// limit it sleeps a fixed 60 s, then counts the request as the first of
// the new minute (crewai-fidelity-gaps.md B11).
func TestRPMLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	l := newRPMLimiter(2, clock)
	var slept []time.Duration
	l.sleep = func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		now = now.Add(d)
		return nil
	}
	ctx := context.Background()
	waits := 0
	notify := func() { waits++ }
	now = now.Add(50 * time.Second) // the window started at creation, not at the first request
	for i := 0; i < 2; i++ {
		if err := l.wait(ctx, notify); err != nil {
			t.Fatal(err)
		}
	}
	if waits != 0 {
		t.Fatal("waited under the limit")
	}
	now = now.Add(9 * time.Second) // 59 s after creation: same window
	if err := l.wait(ctx, notify); err != nil || waits != 1 || len(slept) != 1 || slept[0] != time.Minute {
		t.Fatalf("at the limit: err %v waits %d slept %v (want a fixed 60 s)", err, waits, slept)
	}
	// 119 s: the request after the sleep counted as the first of its window.
	if err := l.wait(ctx, notify); err != nil || waits != 1 {
		t.Fatalf("second of the new window: err %v waits %d", err, waits)
	}
	if err := l.wait(ctx, notify); err != nil || waits != 2 {
		t.Fatalf("third of the new window: err %v waits %d", err, waits)
	}
	now = now.Add(61 * time.Second)
	if err := l.wait(ctx, notify); err != nil || waits != 2 {
		t.Fatalf("after the reset: err %v waits %d", err, waits)
	}
	l.sleep = sleepContext
	for l.count < l.max {
		l.count++
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.wait(cctx, notify); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
}

func TestOutputJSONAndOutputFile(t *testing.T) {
	prov := scripted(t, "replies:\n  - \"```json\\n{\\\"summary\\\": \\\"Sunny\\\", \\\"score\\\": 9.5}\\n```\"\n")
	schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"summary": {"type": "string"}, "score": {"type": "number"}}}`)
	a := NewAgent("a", "A", "g", "b", prov)
	task := &Task{Name: "t", Description: "Rate {city}", ExpectedOutput: "JSON", Agent: a, OutputJSON: schema, OutputFile: "out/{city}.json"}
	dir := t.TempDir()
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{task}}, map[string]any{"city": "Rome"}, Options{OutputDir: dir})
	if r.err != nil {
		t.Fatal(r.err)
	}
	to := r.out.TasksOutput[0]
	if to.OutputFormat != FormatJSON || to.JSONDict == nil || r.out.String() != "{'summary': 'Sunny', 'score': 9.5}" {
		t.Errorf("output %+v / %s", to, r.out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "Rome.json"))
	if err != nil || string(b) != "{\n  \"summary\": \"Sunny\",\n  \"score\": 9.5\n}" {
		t.Errorf("output file %q %v", b, err)
	}
	// The schema is the model CrewAI builds from output_json (sorted keys,
	// extra keys forbidden, titles), as in the output_json golden.
	if !strings.Contains(r.lastContent(t, 0), "Format your final answer according to the following OpenAPI schema: {\n  \"additionalProperties\": false,\n  \"properties\": {\n    \"summary\": {") {
		t.Errorf("prompt lacks the schema instructions")
	}
	if to.Summary != "Rate Rome..." {
		t.Errorf("summary %q", to.Summary)
	}
}

func TestCrewValidation(t *testing.T) {
	a := NewAgent("a", "A", "g", "b", nil)
	cases := map[string]*Crew{
		"Sequential process error: Agent is missing in the task with the following description: orphan": {Agents: []*Agent{a}, Tasks: []*Task{{Description: "orphan"}}},
		"Attribute `manager_llm` or `manager_agent` is required when using hierarchical process.":       {Process: Hierarchical, Agents: []*Agent{a}, Tasks: []*Task{{Description: "x"}}},
		"Manager agent should not be included in agents list.":                                          {Process: Hierarchical, ManagerAgent: a, Agents: []*Agent{a}, Tasks: []*Task{{Description: "x"}}},
	}
	for want, c := range cases {
		if err := c.Validate(); err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
	m := NewAgent("m", "Lead", "g", "b", scripted(t, `replies: ["x"]`))
	m.Tools = []Tool{echoTool()}
	r := kickoff(t, &Crew{Process: Hierarchical, ManagerAgent: m, Agents: []*Agent{a}, Tasks: []*Task{{Description: "x", ExpectedOutput: "e"}}}, nil, Options{})
	if r.err == nil || r.err.Error() != "Manager agent should not have tools" {
		t.Errorf("err = %v", r.err)
	}
}

func TestNativeUsageLimitCountsEveryExecution(t *testing.T) {
	var calls atomic.Int64
	tool := weatherTool(&calls)
	tool.S.MaxUsageCount = 2
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: {city: A}}, {name: get_forecast, arguments: {city: B}}, {name: get_forecast, arguments: {city: C}}]
  - "done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if calls.Load() != 2 || r.lastContent(t, 1) != "Tool 'get_forecast' has reached its usage limit of 2 times and cannot be used anymore." {
		t.Errorf("calls %d, last %q", calls.Load(), r.lastContent(t, 1))
	}
}

// An inline output_pydantic schema: an agent without tools asks for the
// model with response_format, the answer is validated (coerced) by the
// model, raw becomes model_dump_json() and str(output) is the model's str.
func TestOutputPydanticModel(t *testing.T) {
	prov := scripted(t, "replies:\n  - '{\"city\": \"Oslo\", \"days\": \"2\"}'\n")
	schema, _ := pyjson.LoadsObject(`{"title": "Forecast", "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "note": {"type": "string"}}, "required": ["city", "days"]}`)
	a := NewAgent("a", "A", "g", "b", prov)
	task := &Task{Name: "t", Description: "d", ExpectedOutput: "e", Agent: a, OutputJSON: schema, OutputPydantic: true}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{task}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	to := r.out.TasksOutput[0]
	if got := r.out.String(); got != "city='Oslo' days=2 note=None" {
		t.Errorf("str(output) = %q", got)
	}
	if to.OutputFormat != FormatPydantic || to.Raw != `{"city":"Oslo","days":2,"note":null}` || to.JSONDict != nil {
		t.Errorf("task output %+v", to)
	}
	if _, err := r.out.JSON(); err == nil {
		t.Error("CrewOutput.json must fail for a pydantic output")
	}
}

// B4/B5 of crewai-fidelity-gaps.md: in ReAct one run counts twice
// (CrewStructuredTool.invoke and ToolUsage both increment), so a limit of 3
// allows 2 runs; the limit reply is a ToolUsage result with its own
// started/finished events and counts toward used_tools (the third tool
// result gets the tools reminder).
func TestReActUsageLimitCountsTwicePerRun(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: get_forecast\nAction Input: {\"city\": \"A\"}"
  - "Action: get_forecast\nAction Input: {\"city\": \"B\"}"
  - "Action: get_forecast\nAction Input: {\"city\": \"C\"}"
  - "Final Answer: partial"
`)
	tool := weatherTool(&calls)
	tool.S.MaxUsageCount = 3
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "t", Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if calls.Load() != 2 {
		t.Errorf("tool ran %d times, want 2 (⌈3/2⌉)", calls.Load())
	}
	m := r.requests()[3]
	got := m[len(m)-2]["content"].(string)
	limit := "\nObservation: Tool 'get_forecast' has reached its usage limit of 3 times and cannot be used anymore.\n\n"
	if !strings.Contains(got, limit) {
		t.Errorf("third observation %q: want the limit text followed by the tools reminder", got)
	}
	if n := r.count(session.ToolUsageStarted); n != 3 || r.count(session.ToolUsageFinished) != 3 {
		t.Errorf("tool_usage_started %d, finished %d: the limit reply has its own tool events", n, r.count(session.ToolUsageFinished))
	}
}

// B19 of crewai-fidelity-gaps.md: the repeated-call guard compares argument
// dicts with Python's == (tool_usage.py:776-785), where 1 == 1.0 == True.
func TestReActRepeatedCallGuardUsesPythonEquality(t *testing.T) {
	var runs atomic.Int64
	tool := NewFuncTool("lookup", "Looks up.", nil, func(context.Context, *pyjson.Object) ToolResult {
		runs.Add(1)
		return ToolResult{Text: "found"}
	})
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: lookup\nAction Input: {\"n\": 1, \"q\": \"a\"}"
  - "Action: lookup\nAction Input: {\"q\": \"a\", \"n\": true}"
  - "Action: lookup\nAction Input: {\"q\": \"a\", \"n\": 1.0}"
  - "Final Answer: done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if runs.Load() != 1 || r.count(session.GuardTripped) != 2 {
		t.Errorf("runs %d, guard trips %d: want 1 run and 2 trips", runs.Load(), r.count(session.GuardTripped))
	}
}

// B9 of crewai-fidelity-gaps.md: a ReAct result_as_answer result stays in
// agent.tools_results and replaces the result of the agent's later tasks.
func TestReActResultAsAnswerStaysForLaterTasks(t *testing.T) {
	var calls atomic.Int64
	tool := weatherTool(&calls)
	tool.S.ResultAsAnswer = true
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Final Answer: my own second answer"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{
		{Name: "one", Description: "d1", ExpectedOutput: "e", Agent: a},
		{Name: "two", Description: "d2", ExpectedOutput: "e", Agent: a},
	}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.out.TasksOutput[1].Raw; got != r.out.TasksOutput[0].Raw || !strings.HasPrefix(got, "Sunny in Oslo") {
		t.Errorf("second task %q, first %q: want the first task's tool result in both", got, r.out.TasksOutput[0].Raw)
	}
}

// B18 of crewai-fidelity-gaps.md: output_file honours create_directory, a
// write failure fails the task with "Failed to save output file: …", and a
// leading "/" is kept when the authored path has a {var}.
func TestOutputFileAsCrewAIWritesIt(t *testing.T) {
	run := func(task *Task, inputs map[string]any) (result, string) {
		dir := t.TempDir()
		a := NewAgent("a", "A", "g", "b", scripted(t, "replies:\n  - \"Final Answer: text\"\n"))
		task.Description, task.ExpectedOutput, task.Agent = "d", "e", a
		return kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{task}}, inputs, Options{OutputDir: dir}), dir
	}
	r, dir := run(&Task{OutputFile: "/out/a.md"}, nil)
	if b, err := os.ReadFile(filepath.Join(dir, "out", "a.md")); r.err != nil || string(b) != "text" {
		t.Errorf("stripped leading /: err %v, file %q (%v)", r.err, b, err)
	}
	r, _ = run(&Task{OutputFile: "missing/a.md", NoCreateDirectory: true}, nil)
	if r.err == nil || !strings.HasPrefix(r.err.Error(), "Failed to save output file: ") || r.count(session.TaskFailed) != 1 {
		t.Errorf("create_directory false: err %v, task_failed %d", r.err, r.count(session.TaskFailed))
	}
	abs := filepath.Join(t.TempDir(), "abs")
	r, _ = run(&Task{OutputFile: filepath.ToSlash(abs) + "/{name}.md"}, map[string]any{"name": "x"})
	if b, err := os.ReadFile(filepath.Join(abs, "x.md")); r.err != nil || string(b) != "text" {
		t.Errorf("leading / with a {var}: err %v, file %q (%v)", r.err, b, err)
	}
}

// A stand-in carries the Python tool's attributes from the overlay: its
// args_schema is what the LLM is shown, and result_as_answer,
// max_usage_count and cache_function act as on the Python tool.
func TestStandInCarriesPythonToolAttributes(t *testing.T) {
	schema, _ := pyjson.LoadsObject(`{"properties": {"query": {"title": "Query", "type": "string"}}, "required": ["query"], "title": "SearchInput", "type": "object"}`)
	text := "found it"
	b := &builder{}
	tool := b.tool(project.ToolRef{Kind: project.ToolPython, Ref: "SerperDevTool", Class: "SerperDevTool",
		StandIn: &project.StandIn{Result: &text, ArgsSchema: schema, ResultAsAnswer: true, MaxUsageCount: 2, NeverCache: true}}, "agent a")
	s := tool.Spec()
	if s.Schema != schema || !s.ResultAsAnswer || s.MaxUsageCount != 2 || !s.NeverCache || s.Kind != KindStandIn {
		t.Fatalf("spec %+v", s)
	}
	prov := scripted(t, `
replies:
  - tool_calls: [{name: serper_dev_tool, arguments: {query: heat pumps}}]
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "found it" {
		t.Errorf("result_as_answer: answer %q", r.out.Raw)
	}
	var params string
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallStarted {
			b, _ := json.Marshal(ev.Data["tools"])
			params = string(b)
		}
	}
	if !strings.Contains(params, `\"query\"`) && !strings.Contains(params, `"query"`) {
		t.Errorf("the args_schema is not what the LLM is offered: %s", params)
	}
}

// async_execution: an async task without an explicit context gets none
// (CrewAI 1.15.17 builds it from a last_sync_output that only a replay
// sets); a later sync task gets every output so far.
func TestAsyncTaskWithoutContextGetsNone(t *testing.T) {
	prov := scripted(t, `
replies:
  - "one"
  - "two"
  - "three"
  - "four"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	mk := func(name string, async bool) *Task {
		return &Task{Name: name, Description: name, ExpectedOutput: "e", Agent: a, AsyncExecution: async}
	}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{mk("s1", false), mk("s2", false), mk("a1", true), mk("s3", false)}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	user := func(i int) string {
		m := r.requests()[i]
		return m[len(m)-1]["content"].(string)
	}
	if got := user(2); strings.Contains(got, "context you're working with") || !strings.HasPrefix(got, "\nCurrent Task: a1\n") {
		t.Errorf("async task prompt: %q", got)
	}
	if got := user(3); !strings.HasSuffix(got, "This is the context you're working with:\none\n\n----------\n\ntwo\n\n----------\n\nthree\n\nProvide your complete response:") {
		t.Errorf("sync task after it: %q", got)
	}
}

// A classic project's tool class gives the tool its name, description and
// args_schema, so the LLM sees what CrewAI shows it.
func TestToolClassFeedsTheSpec(t *testing.T) {
	p, err := project.Open("project/testdata/classic/toolclass", "")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := FromProject(p, ProjectOptions{LLM: "scripted:inline.yaml", Script: []byte("replies: [done]\n")})
	if err != nil {
		t.Fatal(err)
	}
	var lookup *ToolSpec
	for _, a := range c.Agents {
		for _, tl := range a.Tools {
			if tl.Spec().Name == "Lookup Things" {
				lookup = tl.Spec()
			}
		}
	}
	if lookup == nil || lookup.llmName() != "lookup_things" || lookup.Description != "Looks things up." || !lookup.ResultAsAnswer || lookup.MaxUsageCount != 2 {
		t.Fatalf("lookup spec %+v", lookup)
	}
	if s, _ := lookup.Schema.Get("title"); s != "LookupInput" {
		t.Errorf("schema %s", pyjson.Dumps(lookup.Schema))
	}
}

// B10 of crewai-fidelity-gaps.md: the force_final_answer message is sent on
// a copy of the history and not kept, so the task's messages end with the
// forced answer, not with the request for it.
func TestForcedFinalAnswerIsNotKept(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, "function_calling: false\nreplies:\n  - \"Action: get_forecast\\nAction Input: {\\\"city\\\": \\\"A\\\"}\"\n  - \"Final Answer: forced\"\n")
	a := NewAgent("a", "A", "g", "b", prov)
	a.MaxIter = 1
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	reqs := r.requests()
	if last := reqs[len(reqs)-1]; last[len(last)-1]["content"] != prompt.ForceFinalAnswer {
		t.Fatalf("the forced request does not end with the force_final_answer text: %v", last[len(last)-1])
	}
	msgs := r.out.TasksOutput[0].Messages
	for _, m := range msgs {
		if m.Content == prompt.ForceFinalAnswer {
			t.Errorf("the force_final_answer message was kept in the history: %+v", msgs)
		}
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Content != "Final Answer: forced" {
		t.Errorf("history does not end with the forced answer: %+v", msgs)
	}
}
