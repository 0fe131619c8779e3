package crew

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/react"
	"crewbench/crew/toolschema"
	"crewbench/names"
	"crewbench/session"
)

// callScope is one tool call (one run, in ReAct terms) and its span.
type callScope struct {
	span      string
	parent    string
	tool      Tool
	spec      *ToolSpec
	name      string // the LLM-visible name used for this call
	requested string // what the model asked for
	args      *pyjson.Object
	attempt   int
	start     time.Time
	// plan is the plan step a StepExecutor call runs in (nil in the agent
	// loop): its tool events carry plan_step_number and
	// plan_step_description.
	plan *todo
	// action is the ReAct action the call came from (nil for native
	// calls): ToolUsage's started event names the tool and its input as
	// the model wrote them (action.tool, action.tool_input,
	// tool_usage.py:274-280), not the parsed call.
	action *react.Action
}

func (ar *agentRun) newCall(parent string, t Tool, name, requested string, args *pyjson.Object, attempt int) *callScope {
	cs := &callScope{span: ar.rs.em.NewSpan(), parent: parent, tool: t, name: name, requested: requested, args: args, attempt: attempt}
	if t != nil {
		cs.spec = t.Spec()
	} else {
		cs.spec = &ToolSpec{Name: requested, LLMName: name}
	}
	return cs
}

func toolClass(s *ToolSpec) string {
	switch s.Kind {
	case KindMCP:
		return "MCPNativeTool"
	case KindDelegation:
		if s.llmName() == "ask_question_to_coworker" {
			return "AskQuestionTool"
		}
		return "DelegateWorkTool"
	case KindStandIn:
		return "StandInTool"
	}
	return "CrewStructuredTool"
}

func (ar *agentRun) toolEvent(kind session.Kind, cs *callScope, data map[string]any) session.Event {
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent = kind, cs.span, cs.parent
	ev.ToolName, ev.OriginalToolName, ev.Server = cs.name, cs.spec.OriginalName, cs.spec.Server
	d := map[string]any{
		"tool_name": cs.name, "tool_args": argsData(cs.args), "tool_class": toolClass(cs.spec),
		"run_attempts": cs.attempt, "agent_key": ar.agent.Key, "display_name": cs.spec.Name,
	}
	if cs.requested != "" && cs.requested != cs.name {
		d["requested_name"] = cs.requested
	}
	if kind == session.ToolUsageStarted && cs.action != nil {
		d["tool_name"], d["tool_args"], d["tool_class"] = cs.action.Tool, cs.action.Input, cs.action.Tool
	}
	if cs.plan != nil {
		d["plan_step_number"], d["plan_step_description"] = cs.plan.number, cs.plan.description
	}
	for k, v := range data {
		d[k] = v
	}
	ev.Data = d
	return ev
}

func argsData(o *pyjson.Object) any {
	if o == nil {
		return map[string]any{}
	}
	return o
}

func (ar *agentRun) started(cs *callScope) {
	cs.start = ar.rs.em.Now()
	ar.rs.emit(ar.toolEvent(session.ToolUsageStarted, cs, nil))
}

func (ar *agentRun) finished(cs *callScope, output string, fromCache bool, failure *ToolFailure, extra map[string]any) {
	end := ar.rs.em.Now()
	d := map[string]any{"output": output, "from_cache": fromCache, "started_at": cs.start, "finished_at": end}
	if failure != nil {
		d["failure"] = failure
	}
	for k, v := range extra {
		d[k] = v
	}
	ev := ar.toolEvent(session.ToolUsageFinished, cs, d)
	ev.Duration = end.Sub(cs.start)
	ev.Outcome = "ok"
	if failure != nil {
		ev.Outcome = "failed"
		ev.Error = failure.Message
	}
	ar.rs.emit(ev)
}

func (ar *agentRun) errored(cs *callScope, err string) {
	end := ar.rs.em.Now()
	ev := ar.toolEvent(session.ToolUsageError, cs, map[string]any{"error": err, "started_at": cs.start, "finished_at": end})
	ev.Duration = end.Sub(cs.start)
	ev.Outcome, ev.Error = "failed", err
	ar.rs.emit(ev)
}

func (ar *agentRun) point(kind session.Kind, cs *callScope, data map[string]any) {
	ev := ar.toolEvent(kind, cs, data)
	ev.Span = ""
	ev.Parent = cs.parent
	ar.rs.emit(ev)
}

// reactTool is execute_tool_and_check_finality + ToolUsage for one ReAct
// action: the tool call parsed (toolCalling), the repeated-call guard, the
// cache read, the usage limit (which beats the cache), execution with
// CrewAI's retries, and the observation text. asAnswer reports
// result_as_answer.
func (ar *agentRun) reactTool(ctx context.Context, step string, act *react.Action) (obs string, asAnswer bool, err error) {
	call, obs, err := ar.toolCalling(ctx, step, act)
	if call == nil {
		return obs, false, err
	}
	tool, args := call.tool, call.args
	spec := tool.Spec()
	name := spec.llmName()
	scope := func(args *pyjson.Object, attempt int) *callScope {
		cs := ar.newCall(step, tool, name, act.Tool, args, attempt)
		cs.action = act
		return cs
	}

	// Repeated-call guard: the last successful call had the same name and
	// equal arguments (Python dict ==: key order does not matter and
	// 1 == 1.0 == True, tool_usage.py:776-785).
	ar.mu.Lock()
	last := ar.agent.lastUsedTool
	repeated := last != nil && last.name == name && pyjson.Equal(last.args, args)
	ar.mu.Unlock()
	probe := scope(args, 0)
	if repeated {
		ar.point(session.GuardTripped, probe, map[string]any{"message": prompt.TaskRepeatedUsage})
		return ar.formatResult(prompt.TaskRepeatedUsage), false, nil
	}

	key := cacheKey(name, args)
	cached, hit := ar.cacheRead(key)
	if spec.MaxUsageCount > 0 && ar.usageOf(tool) >= spec.MaxUsageCount {
		// The limit reply is a tool result to ToolUsage: it has its
		// started/finished events and goes through _format_result, so it
		// counts toward used_tools and can get the tools reminder
		// (tool_usage.py:581-595).
		msg := prompt.Fill(prompt.ToolUsageLimit, "{tool}", name, "{max}", strconv.Itoa(spec.MaxUsageCount))
		cs := scope(args, call.runAttempts)
		ar.started(cs)
		ar.point(session.UsageLimitReached, cs, map[string]any{"message": msg, "max_usage_count": spec.MaxUsageCount})
		ar.finished(cs, msg, false, nil, nil)
		return ar.formatResult(msg), false, ar.recordFailure(cs.span, name, spec, &ToolFailure{Message: msg, Reason: ReasonUsageLimit}, args)
	}
	if hit {
		cs := scope(args, call.runAttempts)
		ar.started(cs)
		ar.point(session.CacheHit, cs, map[string]any{"cache_key": key})
		ar.finished(cs, cached, true, nil, nil)
		// result_as_answer applies to any call that did not fail
		// (crewai-semantics.md §5.1 step 13); a cached result is one.
		return ar.reactAnswer(ar.formatResult(cached), name)
	}

	cs := scope(args, call.runAttempts)
	d, err := ar.pauseTool(ctx, cs)
	if err != nil {
		return "", false, err
	}
	if d.Action == Skip {
		ar.started(cs)
		ar.finished(cs, d.Result, false, nil, map[string]any{session.KeySkipped: true})
		return ar.formatResult(d.Result), false, nil
	}

	var res ToolResult
	// The runs go on counting ToolUsage._run_attempts from where parsing
	// left it (tool_usage.py:725-747).
	for run := call.runAttempts; run <= ar.parsingAttempts(); run++ {
		if run > call.runAttempts {
			cs = scope(cs.args, run)
		}
		ar.started(cs)
		res = ar.invokeFilteredThenRaw(ctx, cs)
		if res.Err == nil {
			break
		}
		ar.errored(cs, res.Err.Error())
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		if errors.Is(res.Err, ErrAborted) {
			return "", false, res.Err
		}
	}
	switch {
	case res.Err != nil:
		obs := "\n" + prompt.Fill(prompt.ToolUsageException, "{error}", res.Err.Error(), "{tool}", name, "{tool_inputs}", describe(tool)) +
			".\nMoving on then. " + prompt.FormatReminder(ar.toolText.Names)
		return obs, false, ar.recordFailure(step, name, spec, failureFromError(res.Err, res.ErrType), cs.args)
	case res.Failure != nil:
		text := res.Failure.Render()
		ar.finished(cs, text, false, res.Failure, nil)
		// A returned ToolFailure goes down CrewAI's non-exception branch
		// (crewai-semantics.md §5.1 step 10 "On success", §5.6 "the LLM
		// sees the same text it would have seen before"): the use is
		// counted and last_used_tool is set; only the cache write and
		// result_as_answer are skipped.
		ar.mu.Lock()
		ar.agent.lastUsedTool = &lastCall{name: name, args: cs.args.Clone()}
		ar.usage[tool] += reactUsesPerRun
		ar.mu.Unlock()
		if err := ar.recordFailure(cs.span, name, spec, res.Failure, cs.args); err != nil {
			return "", false, err
		}
		return ar.formatResult(text), false, nil
	}
	ar.finished(cs, res.Text, false, nil, nil)
	if !spec.NeverCache {
		ar.cacheWrite(cacheKey(name, cs.args), res.Text)
	}
	ar.mu.Lock()
	ar.agent.lastUsedTool = &lastCall{name: name, args: cs.args.Clone()}
	ar.usage[tool] += reactUsesPerRun
	ar.mu.Unlock()
	return ar.reactAnswer(ar.formatResult(res.Text), name)
}

// reactUsesPerRun is how much one ReAct run of a tool adds to its usage
// count: CrewStructuredTool.invoke and ToolUsage both increment the same
// counter (structured_tool.py:438, tool_usage.py:682), so a ReAct agent
// gets ⌈max_usage_count/2⌉ runs.
const reactUsesPerRun = 2

// reactAnswer returns a ReAct observation and whether it is the answer,
// keeping a result_as_answer result in the agent's tools_results.
func (ar *agentRun) reactAnswer(obs, name string) (string, bool, error) {
	asAnswer := ar.reactResultAsAnswer(name)
	if asAnswer {
		ar.rs.mu.Lock()
		ar.agent.toolsAnswer, ar.agent.hasToolsAnswer = obs, true
		ar.rs.mu.Unlock()
	}
	return obs, asAnswer, nil
}

// reactResultAsAnswer is result_as_answer as the ReAct executor reads it:
// from its name→tool map, which keeps the last tool of a name, although
// _select_tool runs the first exact match (crewai-semantics.md §2.6).
func (ar *agentRun) reactResultAsAnswer(name string) bool {
	for i := len(ar.tools) - 1; i >= 0; i-- {
		if s := ar.tools[i].Spec(); s.llmName() == name {
			return s.ResultAsAnswer
		}
	}
	return false
}

// pointEvent emits a selection/validation error event under the step.
func (ar *agentRun) pointEvent(kind session.Kind, parent, toolName string, data map[string]any) {
	ev := ar.base
	ev.Kind, ev.Parent, ev.ToolName = kind, parent, names.Sanitize(toolName)
	ev.Outcome = "failed"
	if e, ok := data["error"].(string); ok {
		ev.Error = e
	}
	ev.Data = data
	ar.rs.emit(ev)
}

// invokeFilteredThenRaw is CrewStructuredTool.invoke as ToolUsage calls it:
// arguments filtered to the schema's properties first; if that raises, the
// tool is invoked again with the arguments as given.
func (ar *agentRun) invokeFilteredThenRaw(ctx context.Context, cs *callScope) ToolResult {
	filtered := filterArgs(cs.args, cs.spec.Schema)
	res := ar.invoke(ctx, cs, filtered)
	if res.Err != nil && cs.args.Len() > 0 && ctx.Err() == nil {
		res = ar.invoke(ctx, cs, cs.args)
	}
	return res
}

func (ar *agentRun) invoke(ctx context.Context, cs *callScope, args *pyjson.Object) ToolResult {
	if args == nil {
		args = pyjson.NewObject()
	}
	return cs.tool.Run(ctx, args, RunContext{Emitter: ar.rs.em, Span: cs.span, Base: ar.base, adopt: ar.adopt})
}

// filterArgs keeps the arguments named in the schema's properties (all of
// them when the schema lists none).
func filterArgs(args *pyjson.Object, schema *pyjson.Object) *pyjson.Object {
	if args == nil {
		return pyjson.NewObject()
	}
	props, ok := schema.Get("properties")
	po, isObj := props.(*pyjson.Object)
	if !ok || !isObj {
		return args
	}
	out := pyjson.NewObject()
	for _, k := range args.Keys() {
		if po.Has(k) {
			v, _ := args.Get(k)
			out.Set(k, v)
		}
	}
	return out
}

// formatResult is ToolUsage._format_result: count the use for the task and
// append the tools block every third time. The counter is task.used_tools,
// so it lives on the taskRun and survives a max_retry_limit re-run of the
// same task (crewai-semantics.md §5.1 step 11).
func (ar *agentRun) formatResult(s string) string {
	n := ar.tr.usedTools.Add(1)
	if n%ar.rememberFormatEvery() == 0 {
		s += "\n\n" + prompt.ToolsReminder(ar.toolText)
	}
	return s
}

// nativeUsageLimit ends a native call refused by max_usage_count. The
// caller has emitted tool_usage_started when the check runs after it.
func (ar *agentRun) nativeUsageLimit(cs *callScope, name string, spec *ToolSpec) nativeResult {
	msg := prompt.Fill(prompt.ToolUsageLimit, "{tool}", name, "{max}", strconv.Itoa(spec.MaxUsageCount))
	if cs.start.IsZero() {
		ar.started(cs)
	}
	ar.point(session.UsageLimitReached, cs, map[string]any{"message": msg, "max_usage_count": spec.MaxUsageCount})
	f := &ToolFailure{Message: msg, Reason: ReasonUsageLimit}
	ar.finished(cs, msg, false, f, nil)
	return nativeResult{content: msg, done: true, err: ar.recordFailure(cs.span, name, spec, f, cs.args)}
}

// nativeResult is one native tool call's outcome.
type nativeResult struct {
	content  string
	asAnswer bool
	done     bool
	err      error
}

// nativeCalls runs the calls of one assistant message: in parallel (up to
// 8) unless a called tool has result_as_answer or max_usage_count, in which
// case sequentially, stopping at the first result_as_answer success.
func (ar *agentRun) nativeCalls(ctx context.Context, step string, calls []llm.ToolCall) ([]nativeResult, *string, error) {
	results := make([]nativeResult, len(calls))
	sequential := len(calls) == 1
	for _, c := range calls {
		if t := ar.nativeMap[names.Sanitize(c.Name)]; t != nil {
			if s := t.Spec(); s.ResultAsAnswer || s.MaxUsageCount > 0 {
				sequential = true
			}
		}
	}
	if sequential {
		for i, c := range calls {
			results[i] = ar.nativeCall(ctx, step, c, nil)
			if results[i].err != nil {
				return results, nil, results[i].err
			}
			if results[i].asAnswer {
				out := results[i].content
				return results, &out, nil
			}
		}
		return results, nil, nil
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, min(maxParallelToolCalls, len(calls)))
	for i, c := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = ar.nativeCall(ctx, step, c, nil)
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return results, nil, r.err
		}
	}
	return results, nil, nil
}

// nativeCall is _execute_single_native_tool_call: parse the JSON arguments,
// find the tool, cache read, started event, usage limit, execute. There is
// no retry and no repeated-call guard on this path. In a plan step (plan
// non-nil) it is agent_utils.execute_single_native_tool_call
// (agent_utils.py:1602-1880), which has no usage check of its own: only
// BaseTool.run's claim refuses a spent tool, after the cache read.
func (ar *agentRun) nativeCall(ctx context.Context, step string, call llm.ToolCall, plan *todo) nativeResult {
	name := names.Sanitize(call.Name)
	tool := ar.nativeMap[name]
	args, perr := parseNativeArgs(call.Arguments)
	var nonObject *nonObjectArgsError
	if errors.As(perr, &nonObject) && nonObject.crashesListener() {
		// CrewAI's ToolUsageStartedEvent refuses the value and the
		// exception leaves the executor: the agent execution fails and is
		// retried from a fresh conversation (crewai-fidelity-gaps.md A.9).
		return nativeResult{err: nonObject.eventError()}
	}
	if errors.As(perr, &nonObject) {
		return ar.nativeStringArgs(step, tool, name, call, plan)
	}
	if perr != nil {
		// Unparseable arguments are answered before any tool event
		// (agent_executor.py:1941-1951).
		msg := prompt.Fill(prompt.NativeJSONError, "{error}", perr.Error(), "{tool}", name)
		cs := ar.newCall(step, tool, name, call.Name, nil, 1)
		cs.plan = plan
		f := &ToolFailure{Message: msg, Reason: ReasonInvalidInput, Code: "json_decode_error"}
		return nativeResult{content: msg, done: true, err: ar.recordFailure(cs.span, name, cs.specOrNil(), f, nil)}
	}
	if tool == nil {
		return ar.nativeUnknownTool(step, name, call, args, plan)
	}
	spec := tool.Spec()
	cs := ar.newCall(step, tool, name, call.Name, args, 1)
	cs.spec, cs.plan = spec, plan
	key := cacheKey(name, args)
	// The usage limit wins over a cache hit (agent_executor.py:1961-1968,
	// 1989-1998, 2076).
	if plan == nil && spec.MaxUsageCount > 0 && ar.usageOf(tool) >= spec.MaxUsageCount {
		return ar.nativeUsageLimit(cs, name, spec)
	}
	if cached, hit := ar.cacheRead(key); hit {
		ar.started(cs)
		ar.point(session.CacheHit, cs, map[string]any{"cache_key": key})
		ar.finished(cs, cached, true, nil, nil)
		// A cached result is a success: result_as_answer applies (§5.2).
		return nativeResult{content: cached, done: true, asAnswer: spec.ResultAsAnswer}
	}
	d, err := ar.pauseTool(ctx, cs)
	if err != nil {
		return nativeResult{err: err}
	}
	ar.started(cs)
	if d.Action == Skip {
		ar.finished(cs, d.Result, false, nil, map[string]any{session.KeySkipped: true})
		return nativeResult{content: d.Result, done: true}
	}
	if spec.MaxUsageCount > 0 {
		ar.mu.Lock()
		over := ar.usage[tool] >= spec.MaxUsageCount
		if !over {
			ar.usage[tool]++ // BaseTool.run claims the use before running
		}
		ar.mu.Unlock()
		if over {
			return ar.nativeUsageLimit(cs, name, spec)
		}
	} else {
		ar.mu.Lock()
		ar.usage[tool]++
		ar.mu.Unlock()
	}
	res := ar.invoke(ctx, cs, cs.args)
	switch {
	case res.Err != nil:
		if ctx.Err() != nil || errors.Is(res.Err, ErrAborted) {
			ar.errored(cs, res.Err.Error())
			return nativeResult{err: res.Err}
		}
		msg := prompt.Fill(prompt.NativeExecutionError, "{error}", res.Err.Error())
		ar.errored(cs, res.Err.Error())
		return nativeResult{content: msg, done: true, err: ar.recordFailure(cs.span, name, spec, failureFromError(res.Err, res.ErrType), cs.args)}
	case res.Failure != nil:
		text := res.Failure.Render()
		ar.finished(cs, text, false, res.Failure, nil)
		return nativeResult{content: text, done: true, err: ar.recordFailure(cs.span, name, spec, res.Failure, cs.args)}
	}
	ar.finished(cs, res.Text, false, nil, nil)
	if !spec.NeverCache {
		ar.cacheWrite(cacheKey(name, cs.args), res.Text)
	}
	return nativeResult{content: res.Text, done: true, asAnswer: spec.ResultAsAnswer}
}

func (cs *callScope) specOrNil() *ToolSpec {
	if cs.tool == nil {
		return nil
	}
	return cs.spec
}

// parseNativeArgs decodes a native call's arguments with json.loads. An
// empty string is a JSON error too ("Expecting value: line 1 column 1
// (char 0)"), as in CrewAI's executor (agent_utils.py:1896-1903). The
// executor then takes `parsed_args or {}` (agent_executor.py:1941-1952):
// any falsy value (null, false, 0, "", [], {}) runs the tool with no
// arguments; only a truthy non-object is a *nonObjectArgsError.
func parseNativeArgs(s string) (*pyjson.Object, error) {
	v, err := pyjson.Loads(s)
	if err != nil {
		return nil, err
	}
	if !pyjson.Truthy(v) {
		return pyjson.NewObject(), nil
	}
	o, ok := v.(*pyjson.Object)
	if !ok {
		return nil, &nonObjectArgsError{value: v}
	}
	return o, nil
}

// nativeUnknownTool is a call of a tool the agent does not have: a
// started and finished use whose output is the not-found text
// (agent_executor.py:2096-2115). args is nil when they are not an object.
func (ar *agentRun) nativeUnknownTool(step, name string, call llm.ToolCall, args *pyjson.Object, plan *todo) nativeResult {
	cs := ar.newCall(step, nil, name, call.Name, args, 1)
	cs.plan = plan
	ar.started(cs)
	f := &ToolFailure{Message: prompt.NativeToolNotFound, Reason: ReasonUnknownTool, Code: name}
	ar.finished(cs, prompt.NativeToolNotFound, false, f, nil)
	return nativeResult{content: prompt.NativeToolNotFound, done: true, err: ar.recordFailure(cs.span, name, nil, f, args)}
}

// nativeStringArgs is a call whose arguments decode to a non-empty JSON
// string. ToolUsageStartedEvent accepts a str (tool_args is dict | str), so
// CrewAI goes on with it (agent_executor.py:1954-2080): an unknown tool gets
// "Tool not found", a spent usage limit its text, and any other tool fails
// in `tool.run(**args)` with Python's TypeError, reported as a tool error
// (started, error, failure detected). The delegation tools read
// tool_args.get("coworker") first (agent_utils.py:1349-1363), which raises
// out of the executor: the agent execution fails and is retried.
func (ar *agentRun) nativeStringArgs(step string, tool Tool, name string, call llm.ToolCall, plan *todo) nativeResult {
	if tool == nil {
		return ar.nativeUnknownTool(step, name, call, nil, plan)
	}
	spec := tool.Spec()
	cs := ar.newCall(step, tool, name, call.Name, nil, 1)
	cs.spec, cs.plan = spec, plan
	if plan == nil && spec.MaxUsageCount > 0 && ar.usageOf(tool) >= spec.MaxUsageCount {
		return ar.nativeUsageLimit(cs, name, spec)
	}
	ar.started(cs)
	if spec.Kind == KindDelegation {
		return nativeResult{err: prompt.TextError("'str' object has no attribute 'get'")}
	}
	// BaseTool.run is the bound method every MCP tool and BaseTool subclass
	// runs (tools/base_tool.py:326); Python names it in the TypeError.
	text := "crewai.tools.base_tool.BaseTool.run() argument after ** must be a mapping, not str"
	ar.errored(cs, text)
	msg := prompt.Fill(prompt.NativeExecutionError, "{error}", text)
	return nativeResult{content: msg, done: true, err: ar.recordFailure(cs.span, name, spec, &ToolFailure{Message: text, Reason: ReasonException, Code: "TypeError"}, nil)}
}

// nonObjectArgsError is native arguments that are valid JSON but not an
// object.
type nonObjectArgsError struct{ value any }

func (e *nonObjectArgsError) Error() string {
	return "the arguments must be a JSON object, got " + pyjson.TypeName(e.value)
}

// crashesListener: ToolUsageStartedEvent.tool_args is dict[str, Any] | str,
// so only a string gets past the event to the tool.
func (e *nonObjectArgsError) crashesListener() bool {
	_, isStr := e.value.(string)
	return !isStr
}

// eventError is the Pydantic error the event raises.
func (e *nonObjectArgsError) eventError() error {
	return &toolschema.ValidationError{Model: "ToolUsageStartedEvent", Errors: []toolschema.LineError{
		{Loc: []string{"tool_args", "dict[str,any]"}, Type: "dict_type", Msg: "Input should be a valid dictionary", Input: e.value},
		{Loc: []string{"tool_args", "str"}, Type: "string_type", Msg: "Input should be a valid string", Input: e.value},
	}}
}

// pauseTool consults the stepper before a tool call and applies an
// argument edit.
func (ar *agentRun) pauseTool(ctx context.Context, cs *callScope) (Decision, error) {
	d, err := ar.rs.pause(ctx, &Pause{
		Kind: PauseToolCall, RunID: ar.rs.runID, TaskName: ar.tr.name, AgentRole: ar.p.role, Span: cs.span,
		AfterFailure: ar.takeFailedFlag(), RequestedName: cs.requested, ToolName: cs.name,
		OriginalName: cs.spec.OriginalName, Server: cs.spec.Server, Args: cs.args,
		Schema: cs.spec.Schema, RawSchema: cs.spec.RawSchema,
	}, ar.base, cs.parent)
	if err != nil {
		return d, err
	}
	if d.Action == EditArgs && d.Args != nil {
		cs.args = d.Args
	}
	return d, nil
}

// policyFor resolves tool_failure_policy: tool → task → agent → crew → warn.
func (ar *agentRun) policyFor(spec *ToolSpec) FailurePolicy {
	for _, p := range []FailurePolicy{
		func() FailurePolicy {
			if spec != nil {
				return spec.FailurePolicy
			}
			return ""
		}(),
		func() FailurePolicy {
			if ar.tr.task != nil {
				return ar.tr.task.ToolFailurePolicy
			}
			return ""
		}(),
		ar.agent.ToolFailurePolicy,
		ar.rs.crew.ToolFailurePolicy,
	} {
		if p != PolicyInherit && p.Valid() {
			return p
		}
	}
	return PolicyWarn
}

// recordFailure applies the failure policy: ignore does nothing; warn and
// raise record a ToolFailureRecord and emit tool_failure_detected; raise
// then returns the error that aborts the agent.
func (ar *agentRun) recordFailure(parent, toolName string, spec *ToolSpec, f *ToolFailure, args *pyjson.Object) error {
	policy := ar.policyFor(spec)
	ar.mu.Lock()
	ar.lastFailed = true
	ar.mu.Unlock()
	if policy == PolicyIgnore {
		return nil
	}
	var argMap map[string]any
	if args != nil {
		argMap, _ = pyjson.ToGo(args).(map[string]any)
	}
	rec := ToolFailureRecord{ToolName: toolName, Failure: *f, ToolArgs: argMap, AgentRole: ar.p.role, TaskName: ar.tr.name, TaskID: ar.tr.id, Policy: policy}
	ar.mu.Lock()
	ar.failures = append(ar.failures, rec)
	ar.mu.Unlock()
	ev := ar.base
	ev.Kind, ev.Parent, ev.ToolName, ev.Outcome, ev.Error = session.ToolFailureDetected, parent, toolName, "failed", f.Message
	if spec != nil {
		ev.OriginalToolName, ev.Server = spec.OriginalName, spec.Server
	}
	ev.Data = map[string]any{"tool_name": toolName, "failure": f, "policy": string(policy), "tool_args": argsData(args)}
	ar.rs.emit(ev)
	if policy == PolicyRaise {
		return &ToolExecutionFailedError{ToolName: toolName, Task: ar.tr.name, Message: f.Message}
	}
	return nil
}

// adopt appends failure records produced on this agent's behalf.
func (ar *agentRun) adopt(recs []ToolFailureRecord) {
	ar.mu.Lock()
	ar.failures = append(ar.failures, recs...)
	ar.mu.Unlock()
}

func (ar *agentRun) usageOf(t Tool) int {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.usage[t]
}

// toolCache is the crew's CacheHandler: an in-memory map keyed
// "{tool}-{input}".
type toolCache struct {
	mu sync.Mutex
	m  map[string]string
}

// cacheKey is CrewAI's key: the sanitized name, "-", and json.dumps of the
// arguments ("" when there are none).
func cacheKey(name string, args *pyjson.Object) string {
	input := ""
	if args.Len() > 0 {
		input = pyjson.Dumps(args)
	}
	return name + "-" + input
}

func (ar *agentRun) cacheOn() bool { return ar.rs.cache != nil && ar.agent.Cache }

func (ar *agentRun) cacheRead(key string) (string, bool) {
	if !ar.cacheOn() {
		return "", false
	}
	c := ar.rs.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (ar *agentRun) cacheWrite(key, value string) {
	if !ar.cacheOn() {
		return
	}
	c := ar.rs.cache
	c.mu.Lock()
	c.m[key] = value
	c.mu.Unlock()
}
