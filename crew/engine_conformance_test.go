package crew

// Conformance audit of the engine against crewai-semantics.md §5 and
// crewai-formats.md §4–§6: message texts, order of checks, counters,
// result handling and event order, one scenario per rule.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
	"crewbench/session"
)

// observation is the content of the assistant message of LLM call i's
// history that ends with an observation (the message before the
// post_tool_reasoning nudge).
func (r result) observation(t testing.TB, call int) string {
	t.Helper()
	m := r.requests()[call]
	s, _ := m[len(m)-2]["content"].(string)
	i := strings.Index(s, "\nObservation: ")
	if i < 0 {
		t.Fatalf("call %d: no observation in %q", call, s)
	}
	return s[i+len("\nObservation: "):]
}

func oneTaskCrew(a *Agent) *Crew {
	return &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "t", Description: "d", ExpectedOutput: "e", Agent: a}}}
}

// §5.1 step 3 / summary #22: an Action Input that is not a dict, for a tool
// that exists, gives exactly "Error: the Action Input is not a valid key,
// value dictionary." — no parse retries, no "Moving on then." wrapper; the
// input is validated twice (raise_error=True, then the returning pass), so
// two tool_validate_input_error events (tool_usage.py:889-937).
//
// A blank Action Input is refused by _validate_tool_input before it emits
// tool_validate_input_error (tool_usage.py:939-946), on both passes; the
// observation is the same tool_arguments_error text.
func TestConformanceReActInvalidActionInput(t *testing.T) {
	for _, tc := range []struct {
		name, input    string
		validateEvents int
	}{
		{"not a dict", " [1, 2]", 2},
		{"blank", " ", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			prov := scripted(t, fmt.Sprintf(`
function_calling: false
replies:
  - "Thought: t\nAction: get_forecast\nAction Input:%s"
  - "Final Answer: ok"
`, tc.input))
			a := NewAgent("a", "A", "g", "b", prov)
			a.Tools = []Tool{weatherTool(&calls)}
			r := kickoff(t, oneTaskCrew(a), nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if got := r.observation(t, 1); got != "Error: the Action Input is not a valid key, value dictionary." {
				t.Errorf("observation %q", got)
			}
			if calls.Load() != 0 || r.count(session.ToolValidateInputError) != tc.validateEvents || r.count(session.ToolSelectionError) != 0 {
				t.Errorf("calls %d, validate errors %d (want %d), selection errors %d", calls.Load(), r.count(session.ToolValidateInputError), tc.validateEvents, r.count(session.ToolSelectionError))
			}
			if n := r.count(session.ToolFailureDetected); n != 1 {
				t.Errorf("%d failures detected, want 1", n)
			}
			fs := r.out.ToolFailures()
			if len(fs) != 1 || fs[0].Failure.Reason != ReasonInvalidInput || fs[0].ToolName != "get_forecast" {
				t.Errorf("failures %+v", fs)
			}
		})
	}
}

// §5.1 step 10 and §5.6: a returned ToolFailure takes the non-exception
// branch — the use counts against max_usage_count and last_used_tool is
// set (so an identical retry trips the guard); only the cache write and
// result_as_answer are skipped.
func TestConformanceReActToolFailureCountsAsUse(t *testing.T) {
	var runs atomic.Int64
	failing := func(limit int) *FuncTool {
		schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"q": {"type": "string"}}}`)
		ft := NewFuncTool("lookup", "Lookup.", schema, func(context.Context, *pyjson.Object) ToolResult {
			runs.Add(1)
			return ToolResult{Failure: &ToolFailure{Message: "upstream said no", Reason: ReasonMCPError}}
		})
		ft.S.MaxUsageCount = limit
		ft.S.ResultAsAnswer = true
		return ft
	}
	// Usage limit 1: the second (different) call is refused.
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: lookup\nAction Input: {\"q\": \"a\"}"
  - "Action: lookup\nAction Input: {\"q\": \"b\"}"
  - "Final Answer: done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{failing(1)}
	r := kickoff(t, &Crew{Cache: true, Agents: []*Agent{a}, Tasks: []*Task{{Name: "t", Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "done" {
		t.Errorf("a failed call must not become the answer (result_as_answer): %q", r.out.Raw)
	}
	if got := r.observation(t, 1); got != "upstream said no" {
		t.Errorf("first observation %q", got)
	}
	if got := r.observation(t, 2); got != "Tool 'lookup' has reached its usage limit of 1 times and cannot be used anymore." {
		t.Errorf("second observation %q", got)
	}
	if runs.Load() != 1 || r.count(session.CacheHit) != 0 {
		t.Errorf("runs %d, cache hits %d", runs.Load(), r.count(session.CacheHit))
	}

	// No limit: the identical repeat trips the repeated-call guard.
	runs.Store(0)
	prov = scripted(t, `
function_calling: false
replies:
  - "Action: lookup\nAction Input: {\"q\": \"a\"}"
  - "Action: lookup\nAction Input: {'q': 'a'}"
  - "Final Answer: done"
`)
	a = NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{failing(0)}
	r = kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.observation(t, 2); got != prompt.RStrip(prompt.TaskRepeatedUsage) {
		t.Errorf("repeat observation %q", got)
	}
	if runs.Load() != 1 {
		t.Errorf("runs %d, want 1", runs.Load())
	}
}

// §5.1 step 11: the tools reminder counts task.used_tools, which belongs
// to the task and survives a max_retry_limit re-run of it.
func TestConformanceToolsReminderCountsPerTask(t *testing.T) {
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: echo\nAction Input: {\"n\": 1}"
  - "Action: echo\nAction Input: {\"n\": 2}"
  - error: server
  - "Action: echo\nAction Input: {\"n\": 3}"
  - "Final Answer: ok"
`)
	echo := NewFuncTool("echo", "Echo.", nil, func(_ context.Context, args *pyjson.Object) ToolResult {
		return ToolResult{Text: "got " + pyjson.Dumps(args)}
	})
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{echo}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Calls: 0 → use 1, 1 → use 2, 2 fails, retry: 3 → use 3, 4 final.
	obs := r.observation(t, 4)
	want := "got {\"n\": 3}\n\n" + prompt.ToolsReminder(prompt.ToolText{Description: describe(echo), Names: "echo"})
	if obs != want {
		t.Errorf("third use of the task:\n got %q\nwant %q", obs, want)
	}
	if strings.Contains(r.observation(t, 1), "You ONLY have access") {
		t.Error("first use must not carry the reminder")
	}
}

// §5.1 step 13 / §5.2: result_as_answer applies to any call that did not
// fail, a cache hit included; and on the native path the cache is read
// before the usage limit (order of checks), unlike ReAct.
func TestConformanceResultAsAnswerFromCache(t *testing.T) {
	for _, native := range []bool{false, true} {
		var calls atomic.Int64
		tool := weatherTool(&calls)
		tool.S.ResultAsAnswer = true
		// ReAct: the agent's last_used_tool outlives the task, so task two
		// makes another call first, or the repeat would trip the guard
		// before the cache is read (tool_usage.py:509-523).
		script := `
function_calling: false
replies:
  - "Action: get_forecast\nAction Input: {\"city\": \"Rome\"}"
  - "Action: other\nAction Input: {}"
  - "Action: get_forecast\nAction Input: {\"city\": \"Rome\"}"
`
		if native {
			script = `
replies:
  - tool_calls: [{name: get_forecast, arguments: {city: Rome}}]
  - tool_calls: [{name: get_forecast, arguments: {city: Rome}}]
`
		}
		prov := scripted(t, script)
		a := NewAgent("a", "A", "g", "b", prov)
		a.Tools = []Tool{tool, NewFuncTool("other", "Another tool.", nil, func(context.Context, *pyjson.Object) ToolResult { return ToolResult{Text: "ok"} })}
		c := &Crew{Cache: true, Agents: []*Agent{a}, Tasks: []*Task{
			{Name: "one", Description: "d1", ExpectedOutput: "e", Agent: a},
			{Name: "two", Description: "d2", ExpectedOutput: "e", Agent: a, ContextMode: ContextNone},
		}}
		r := kickoff(t, c, nil, Options{})
		if r.err != nil {
			t.Fatalf("native=%v: %v", native, r.err)
		}
		if calls.Load() != 1 || r.count(session.CacheHit) != 1 {
			t.Errorf("native=%v: tool ran %d times, %d cache hits", native, calls.Load(), r.count(session.CacheHit))
		}
		if got := r.out.TasksOutput[1].Raw; got != "Sunny in Rome" {
			t.Errorf("native=%v: second task's answer %q, want the cached result", native, got)
		}
	}
}

// §5.2 order of checks: the cache is read first (1), but a reached usage
// limit (4) overrides the cached result on the native path
// (crewai-fidelity-gaps.md B6, agent_executor.py:1961-1968, 2076).
func TestConformanceNativeUsageLimitBeatsCache(t *testing.T) {
	var calls atomic.Int64
	tool := weatherTool(&calls)
	tool.S.MaxUsageCount = 1
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: {city: Rome}}]
  - tool_calls: [{name: get_forecast, arguments: {city: Rome}}]
  - tool_calls: [{name: get_forecast, arguments: {city: Oslo}}]
  - "done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{tool}
	r := kickoff(t, &Crew{Cache: true, Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	const limited = "Tool 'get_forecast' has reached its usage limit of 1 times and cannot be used anymore."
	if got := r.lastContent(t, 2); got != limited {
		t.Errorf("cached call over the limit: %q", got)
	}
	if got := r.lastContent(t, 3); got != limited {
		t.Errorf("limited call: %q", got)
	}
	if calls.Load() != 1 || r.count(session.CacheHit) != 0 {
		t.Errorf("tool ran %d times, %d cache hits", calls.Load(), r.count(session.CacheHit))
	}
}

// §2.6: ReAct runs the first exact match but reads result_as_answer from
// the name map, which keeps the last tool of a name.
func TestConformanceReActDuplicateNames(t *testing.T) {
	var ran []string
	mk := func(tag string, asAnswer bool) *FuncTool {
		ft := NewFuncTool("Dup", "dup", nil, func(context.Context, *pyjson.Object) ToolResult {
			ran = append(ran, tag)
			return ToolResult{Text: "from " + tag}
		})
		ft.S.ResultAsAnswer = asAnswer
		return ft
	}
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: dup\nAction Input: {}"
  - "Final Answer: not reached"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{mk("first", false), mk("last", true)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if strings.Join(ran, ",") != "first" || r.out.Raw != "from first" {
		t.Errorf("ran %v, answer %q", ran, r.out.Raw)
	}
}

// §6.3: the typical order for a sequential crew, agent log events included.
// In ReAct each action is logged with its result after tool_usage_finished
// (the react_fallback golden).
func TestConformanceSequentialEventOrder(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
function_calling: false
replies:
  - "Action: get_forecast\nAction Input: {\"city\": \"Oslo\"}"
  - "Thought: done\nFinal Answer: Sunny."
`)
	a := NewAgent("a", "Analyst", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, &Crew{Name: "c", Agents: []*Agent{a}, Tasks: []*Task{{Name: "t", Description: "Weather in Oslo?", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []session.Kind{
		session.CrewKickoffStarted, session.TaskStarted, session.AgentExecutionStarted, KindAgentLogsStarted,
		session.LLMCallStarted, session.LLMCallCompleted, session.ToolUsageStarted, session.ToolUsageFinished,
		KindAgentLogsExecution, session.LLMCallStarted, session.LLMCallCompleted,
		KindAgentLogsExecution, session.AgentExecutionCompleted, session.TaskCompleted, session.CrewKickoffCompleted,
	}
	got := r.kinds(want...)
	if strings.Join(kindStrings(got), ",") != strings.Join(kindStrings(want), ",") {
		t.Errorf("order:\n got %v\nwant %v", got, want)
	}
	for _, ev := range r.events {
		switch ev.Kind {
		case KindAgentLogsStarted:
			if ev.Str("agent_role") != "Analyst" || ev.Str("task_description") != "Weather in Oslo?" {
				t.Errorf("agent_logs_started %v", ev.Data)
			}
		case KindAgentLogsExecution:
			action, _ := ev.Data["formatted_answer"].(map[string]any)
			switch {
			case action != nil:
				if ev.Str("agent_role") != "Analyst" || action["tool"] != "get_forecast" || action["result"] != "Sunny in Oslo" {
					t.Errorf("agent_logs_execution of the action %v", ev.Data)
				}
			case ev.Str("agent_role") != "Analyst" || ev.Str("formatted_answer") != "Sunny.":
				t.Errorf("agent_logs_execution %v", ev.Data)
			}
		}
	}
}

// §4.4: CrewOutput.json.
func TestConformanceCrewOutputJSON(t *testing.T) {
	o := &CrewOutput{TasksOutput: []*TaskOutput{{OutputFormat: FormatJSON}, {OutputFormat: FormatRaw}}}
	if _, err := o.JSON(); err == nil || err.Error() != "No JSON output found in the final task. Please make sure to set the output_json property in the final task in your crew." {
		t.Errorf("raw last task: %v", err)
	}
	o = &CrewOutput{JSONDict: pyjson.ObjectOf("city", "Zürich", "n", pyjson.Int(1)), TasksOutput: []*TaskOutput{{OutputFormat: FormatJSON}}}
	if s, err := o.JSON(); err != nil || s != `{"city": "Z\u00fcrich", "n": 1}` {
		t.Errorf("json = %q, %v", s, err)
	}
}

// §2.4: an AMP slug without a config emits MCPConfigFetchFailedEvent
// (not_connected) and contributes nothing; the run goes on.
func TestConformanceAMPNotConnected(t *testing.T) {
	col := &session.Collector{}
	em := session.NewEmitter(col)
	spec := mcpconn.ServerSpec{Ref: mcpconn.RefAMP, AMPSlug: "notion", SelectTool: "search", Transport: mcpconn.TransportHTTP}
	tools, err := (&MCP{}).Resolve(context.Background(), nil, MCPRef{Spec: spec}, RunContext{Emitter: em})
	if err != nil || len(tools) != 0 {
		t.Fatalf("tools %v, err %v", tools, err)
	}
	evs := col.Events()
	if len(evs) != 1 || evs[0].Kind != session.MCPConfigFetchFailed || evs[0].ErrorType != "not_connected" ||
		evs[0].Error != "Config for 'notion' not found. Make sure it is connected in your account." || evs[0].Str("slug") != "notion" {
		t.Errorf("events %+v", evs)
	}
}

// Exact texts the engine builds (crewai-semantics.md §5.6, §5.3;
// crewai-formats.md §4.4, §4.5).
func TestConformanceEngineTexts(t *testing.T) {
	args := pyjson.ObjectOf("city", "Zürich <&>", "days", pyjson.Int(2), "opts", pyjson.ObjectOf("a", nil))
	cases := []struct{ name, got, want string }{
		{"cache key", cacheKey("get_forecast", args), `get_forecast-{"city": "Z\u00fcrich <&>", "days": 2, "opts": {"a": null}}`},
		{"cache key, no arguments", cacheKey("get_forecast", pyjson.NewObject()), "get_forecast-"},
		{"cache key, nil arguments", cacheKey("get_forecast", nil), "get_forecast-"},
		{"raise text", (&ToolExecutionFailedError{ToolName: "x", Task: "research", Message: "boom"}).Error(), "Tool 'x' failed during 'research': boom"},
		{"raise text without task", (&ToolExecutionFailedError{ToolName: "x", Message: "boom"}).Error(), "Tool 'x' failed: boom"},
		{"failure render with code", (&ToolFailure{Message: "m", Code: "E1"}).Render(), "m (code: E1)"},
		{"failure render", (&ToolFailure{Message: "m"}).Render(), "m"},
		{"failure_from_exception", failureFromError(errors.New(""), "ValueError").Message, "ValueError"},
		{"summary", summary("one two three four five six seven eight nine ten eleven"), "one two three four five six seven eight nine ten..."},
		{"summary short", summary("Rate  Rome"), "Rate  Rome..."},
		{"manager role", ManagerRole, "Crew Manager"},
		{"manager goal", ManagerGoal, "Manage the team to complete the task in the best way possible."},
		{"manager backstory", ManagerBackstory, "You are a seasoned manager with a knack for getting the best out of your team.\nYou are also known for your ability to delegate work to the right people, and to ask the right questions to get the best out of your team.\nEven though you don't perform tasks by yourself, you have a lot of experience in the field, which allows you to properly evaluate the work of your team members."},
		{"manager_request", ManagerRequest, "Your best answer to your coworker asking you this, accounting for the context shared."},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
	if f := failureFromError(errors.New("disk full"), ""); f.Reason != ReasonException || f.Code != "Exception" || f.Message != "disk full" {
		t.Errorf("failure_from_exception %+v", f)
	}
}

// §4.5: the delegation tools' names, descriptions and argument schemas.
func TestConformanceDelegationTools(t *testing.T) {
	rs := &runState{personas: map[*Agent]persona{}}
	tools := rs.delegationTools([]*Agent{NewAgent("r", "Researcher", "g", "b", nil), NewAgent("w", "Senior  Writer", "g", "b", nil)})
	cases := []struct {
		llmName, desc string
		args          []string
		argDescs      []string
	}{
		{"delegate_work_to_coworker",
			"Delegate a specific task to one of the following coworkers: Researcher, Senior  Writer\nThe input to this tool should be the coworker, the task you want them to do, and ALL necessary context to execute the task, they know nothing about the task, so share absolutely everything you know, don't reference things but instead explain them.",
			[]string{"task", "context", "coworker"}, []string{"The task to delegate", "The context for the task", "The role/name of the coworker to delegate to"}},
		{"ask_question_to_coworker",
			"Ask a specific question to one of the following coworkers: Researcher, Senior  Writer\nThe input to this tool should be the coworker, the question you have for them, and ALL necessary context to ask the question properly, they know nothing about the question, so share absolutely everything you know, don't reference things but instead explain them.",
			[]string{"question", "context", "coworker"}, []string{"The question to ask", "The context for the question", "The role/name of the coworker to ask"}},
	}
	if len(tools) != 2 {
		t.Fatalf("%d tools", len(tools))
	}
	for i, c := range cases {
		s := tools[i].Spec()
		if s.llmName() != c.llmName || s.Description != c.desc {
			t.Errorf("tool %d: %q\n%q", i, s.llmName(), s.Description)
		}
		params := toolschema.OpenAIParameters(s.Schema)
		req, _ := params.Get("required")
		props, _ := params.Get("properties")
		po := props.(*pyjson.Object)
		if pyjson.Dumps(req) != pyjson.Dumps(c.args) || strings.Join(po.Keys(), ",") != strings.Join(c.args, ",") {
			t.Errorf("tool %d: required %s, properties %v", i, pyjson.Dumps(req), po.Keys())
		}
		for j, k := range c.args {
			p, _ := po.Get(k)
			d, _ := p.(*pyjson.Object).Get("description")
			ty, _ := p.(*pyjson.Object).Get("type")
			if d != c.argDescs[j] || ty != "string" {
				t.Errorf("tool %d arg %s: %v %v", i, k, d, ty)
			}
		}
	}
	// The not-found text lists normalized roles.
	res := tools[0].Run(context.Background(), pyjson.ObjectOf("task", "x", "context", "y", "coworker", "Nobody"), RunContext{})
	if res.Text != "\nError executing tool. coworker mentioned not found, it must be one of the following options:\n- researcher\n- senior writer\n" {
		t.Errorf("not found: %q", res.Text)
	}
}

// crewai-formats.md §5: the forced call after max_iter — a reply that
// parses as an action becomes the answer as a whole; "Final Answer:" gives
// the text after it; the force_final_answer text is an assistant message.
func TestConformanceForcedFinalAnswer(t *testing.T) {
	cases := []struct{ reply, want string }{
		{"Thought: x\nAction: get_forecast\nAction Input: {\"city\": \"B\"}", "Thought: x\nAction: get_forecast\nAction Input: {\"city\": \"B\"}"},
		{"Thought: ok\nFinal Answer:  forced  ", "forced"},
		{"plain prose", "plain prose"},
	}
	for _, c := range cases {
		var calls atomic.Int64
		prov := scripted(t, "function_calling: false\nreplies:\n  - \"Action: get_forecast\\nAction Input: {\\\"city\\\": \\\"A\\\"}\"\n  - "+pyjson.Quote(c.reply)+"\n")
		a := NewAgent("a", "A", "g", "b", prov)
		a.MaxIter = 1
		a.Tools = []Tool{weatherTool(&calls)}
		r := kickoff(t, oneTaskCrew(a), nil, Options{})
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.out.Raw != c.want {
			t.Errorf("reply %q: answer %q, want %q", c.reply, r.out.Raw, c.want)
		}
		reqs := r.requests()
		last := reqs[len(reqs)-1]
		if len(reqs) != 2 || last[len(last)-1]["role"] != "assistant" || last[len(last)-1]["content"] != prompt.ForceFinalAnswer {
			t.Errorf("reply %q: %d calls, last message %v", c.reply, len(reqs), last[len(last)-1])
		}
	}
}

// crewai-formats.md §5: on max_execution_time expiry the TimeoutError is
// what AgentExecutionErrorEvent reports, and it is not retried.
func TestConformanceExecutionTimeoutEvent(t *testing.T) {
	slow := NewFuncTool("wait", "Waits.", nil, func(ctx context.Context, _ *pyjson.Object) ToolResult {
		<-ctx.Done()
		return ToolResult{Err: ctx.Err()}
	})
	prov := scripted(t, "replies:\n  - tool_calls: [{name: wait, arguments: {}}]\n")
	a := NewAgent("a", "A", "g", "b", prov)
	a.MaxExecutionTime = 100 * time.Millisecond
	a.Tools = []Tool{slow}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "Slow", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	want := "Task 'Slow' execution timed out after 0.1 seconds. Consider increasing max_execution_time or optimizing the task."
	if r.err == nil || r.err.Error() != want {
		t.Fatalf("err = %v", r.err)
	}
	var errs []string
	for _, ev := range r.events {
		if ev.Kind == session.AgentExecutionError {
			errs = append(errs, ev.Error)
		}
	}
	if len(errs) != 1 || errs[0] != want {
		t.Errorf("agent_execution_error events: %q", errs)
	}
}

// agent_utils.py:449: the assistant message carrying a ReAct observation is
// rstripped, so a tool result's trailing whitespace never reaches the LLM.
func TestConformanceReActObservationRStripped(t *testing.T) {
	prov := scripted(t, `
function_calling: false
replies:
  - "Thought: t\nAction: pad\nAction Input: {}"
  - "Final Answer: ok"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{NewFuncTool("pad", "Pads.", nil, func(context.Context, *pyjson.Object) ToolResult {
		return ToolResult{Text: "result \n\n\t "}
	})}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.observation(t, 1); got != "result" {
		t.Errorf("observation %q", got)
	}
}

// agent_utils.py:1896-1903: empty native arguments are not "no arguments"
// but a JSON error, and the tool does not run.
func TestConformanceNativeEmptyArguments(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: ""}]
  - "done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := "Error: Failed to parse tool arguments as JSON: Expecting value: line 1 column 1 (char 0). Please provide valid JSON arguments for the 'get_forecast' tool."
	if got := r.lastContent(t, 1); got != want || calls.Load() != 0 {
		t.Errorf("tool message %q, %d runs", got, calls.Load())
	}
}

// crewai-fidelity-gaps.md A.9: a JSON array as native arguments makes
// ToolUsageStartedEvent raise, so the agent execution fails and is retried
// from a fresh conversation; the tool never runs.
func TestConformanceNativeArrayArgumentsRetryTheAgent(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: "[1, 2]"}]
  - "done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	reqs := r.requests()
	if len(reqs) != 2 || len(reqs[1]) != 2 || pyjson.Dumps(pyjson.FromGo(reqs[0])) != pyjson.Dumps(pyjson.FromGo(reqs[1])) {
		t.Errorf("the retry did not start from a fresh conversation: %v", reqs)
	}
	if calls.Load() != 0 || r.out.String() != "done" {
		t.Errorf("%d runs, output %q", calls.Load(), r.out.String())
	}
}

// crewai-fidelity-gaps.md B.7: on the native path an unknown tool is a
// started and finished use ("Tool not found"); unparseable arguments emit
// no tool events at all. Both are still recorded as failures.
func TestConformanceNativeUnknownToolAndBadJSONEvents(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls: [{name: no_such_tool, arguments: {}}]
  - tool_calls: [{name: get_forecast, arguments: "{\"city\": "}]
  - "done"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if s, f, e := r.count(session.ToolUsageStarted), r.count(session.ToolUsageFinished), r.count(session.ToolUsageError); s != 1 || f != 1 || e != 0 {
		t.Errorf("tool events: %d started, %d finished, %d errors", s, f, e)
	}
	if got := r.lastContent(t, 1); got != "Tool not found" {
		t.Errorf("unknown tool result %q", got)
	}
	if n := len(r.out.ToolFailures()); n != 2 {
		t.Errorf("%d failures recorded, want 2", n)
	}
}

// CrewAI's envelope of an agent execution (crewai-events-and-hooks.md §2.2):
// default_env opens the context, and the executor Flow's events wrap the
// agent logs; on failure flow_failed precedes agent_execution_error.
func TestConformanceFlowAndEnvEvents(t *testing.T) {
	prov := scripted(t, `
replies:
  - "Final Answer: done"
`)
	a := NewAgent("a", "Analyst", "g", "b", prov)
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []session.Kind{
		session.DefaultEnv, session.CrewKickoffStarted, session.TaskStarted, session.AgentExecutionStarted, session.FlowStarted,
		KindAgentLogsStarted, KindAgentLogsExecution, session.FlowFinished, session.AgentExecutionCompleted,
	}
	if got := r.kinds(want...); strings.Join(kindStrings(got), ",") != strings.Join(kindStrings(want), ",") {
		t.Errorf("order:\n got %v\nwant %v", got, want)
	}
	for _, ev := range r.events {
		if ev.Kind == session.FlowStarted && ev.Str("flow_name") != "AgentExecutor" {
			t.Errorf("flow_started %v", ev.Data)
		}
	}
}
