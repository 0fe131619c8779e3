package crew

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/react"
	"crewbench/crew/toolschema"
	"crewbench/names"
	"crewbench/session"
)

// agentRun is one agent execution of one task (one attempt of
// Agent.execute_task): its messages, iteration count, tool usage counters,
// repeated-call guard state and failure records.
type agentRun struct {
	rs    *runState
	agent *Agent
	p     persona
	tr    *taskRun
	tools []Tool
	mode  prompt.Mode
	span  string
	base  session.Event

	messages []llm.Message
	// wire is messages in the event form, built once per message and shared
	// by every event that records the history.
	wire       []map[string]any
	iterations int
	// turn counts the LLM calls (parallel plan steps make them at once).
	turn     atomic.Int64
	fellBack bool
	// stepFellBack: the StepExecutor's steps use text tool calling after
	// a provider refused native tools (stepNative); parallel steps read it
	// while one of them may set it.
	stepFellBack atomic.Bool
	// planModel: a plan's synthesis answered with the task's output model
	// (synthesize), which the task takes as the agent's BaseModel result.
	planModel bool

	// responseFormat is the task's output_json model as a response_format,
	// nil without one; responseModel is that model, which validates the
	// reply (parseStructuredReply).
	responseFormat *llm.ResponseFormat
	responseModel  *toolschema.Model

	// stops are the executor's stop words (stopWords).
	stops []string

	toolText   prompt.ToolText
	native     []llm.Tool
	nativeMap  map[string]Tool
	reactNames []string

	mu         sync.Mutex
	usage      map[Tool]int
	failures   []ToolFailureRecord
	lastFailed bool
}

// lastCall is ToolsHandler.last_used_tool: the last successful ReAct call
// (Agent.lastUsedTool).
type lastCall struct {
	name string
	args *pyjson.Object
}

// maxParsingAttempts is ToolUsage._max_parsing_attempts unless the agent's
// function_calling_llm is one of OpenAI's bigger models (parsingAttempts);
// it also bounds the runs of a raising tool.
const maxParsingAttempts = 3

// maxParallelToolCalls bounds the native path's thread pool.
const maxParallelToolCalls = 8

// runAgent performs one execution attempt.
func (rs *runState) runAgent(ctx context.Context, a *Agent, tr *taskRun, contextText string, tools []Tool, parent string) (string, *agentRun, error) {
	p := rs.personaOf(a)
	ar := &agentRun{
		rs: rs, agent: a, p: p, tr: tr, tools: tools, span: rs.em.NewSpan(),
		base:  session.Event{RunID: rs.runID, TaskID: tr.id, TaskName: tr.name, AgentRole: p.role, AgentID: agentID(a)},
		usage: map[Tool]int{},
	}
	ar.prepareTools()
	spec := prompt.TaskSpec{Description: tr.text.description + tr.text.trigger, ExpectedOutput: tr.text.expectedOutput}
	if tr.task != nil {
		spec.Markdown = tr.task.Markdown
		if b := tr.task.builtin; b != nil {
			spec.OutputSchema, ar.responseFormat, ar.responseModel = b.promptSchema, b.format, b.model
		} else if m := tr.task.outputModel(); m != nil {
			// The "OpenAPI schema" of the output instructions is the model
			// rendered as the ReAct tools block renders tool models.
			spec.OutputSchema = toolschema.StrictSchema(m.Schema(), true)
			ar.responseFormat, ar.responseModel = responseFormat(m), m
		}
	}
	taskPrompt := prompt.TaskPrompt(spec, contextText)
	ar.stops = stopWords(a)
	msgs := prompt.Build(ar.mode, rs.promptPersona(a, p, ar.base, parent), taskPrompt, ar.toolText)
	ar.appendPrompt(msgs)

	ev := ar.base
	ev.Kind, ev.Span, ev.Parent = session.AgentExecutionStarted, ar.span, parent
	ev.Data = map[string]any{
		"agent": p.role, "agent_key": a.Key, "task": taskData(tr), "task_prompt": taskPrompt,
		"tools": ar.toolsData(), "mode": string(ar.mode), "model": modelName(a),
		"messages": ar.wireView(),
	}
	rs.emit(ev)
	start := rs.em.Now()

	out, err := ar.flow(ctx)
	if err == nil && tr.task != nil && tr.task.HumanInput {
		out, err = ar.humanFeedback(ctx, out)
		err = timeoutCause(ctx, err)
	}
	ev = ar.base
	ev.Span, ev.Parent, ev.Duration = ar.span, parent, rs.em.Now().Sub(start)
	if err != nil {
		ev.Kind, ev.Outcome, ev.Error = session.AgentExecutionError, "failed", err.Error()
		ev.Data = map[string]any{"agent": p.role, "task": taskData(tr), "error": err.Error()}
		rs.emit(ev)
		return "", ar, err
	}
	ev = ar.base
	ev.Span, ev.Parent, ev.Duration = ar.span, parent, rs.em.Now().Sub(start)
	ev.Kind, ev.Outcome = session.AgentExecutionCompleted, "ok"
	ev.Data = map[string]any{"agent": p.role, "task": taskData(tr), "output": out, "iterations": ar.iterations}
	rs.emit(ev)
	return out, ar, nil
}

// flow is one kickoff of CrewAI's AgentExecutor flow: flow_started and
// agent_logs_started, the loop, then agent_logs_execution and
// flow_finished, or flow_failed.
func (ar *agentRun) flow(ctx context.Context) (string, error) {
	ar.flowEvent(session.FlowStarted, nil)
	steps, err := ar.generatePlan(ctx)
	if err != nil {
		err = timeoutCause(ctx, err)
		ar.flowEvent(session.FlowFailed, map[string]any{"error": err.Error()})
		return "", err
	}
	if len(steps) > 0 {
		// A ready plan with steps runs as todos instead of the loop
		// (check_todos_available "has_todos", agent_executor.py:1053-1066).
		out, ordinary, err := ar.executePlan(ctx, steps)
		if err = timeoutCause(ctx, err); err != nil {
			ar.flowEvent(session.FlowFailed, map[string]any{"error": err.Error()})
			return "", err
		}
		if !ordinary {
			ar.agentLogs(KindAgentLogsExecution, map[string]any{"agent_role": ar.p.role, "formatted_answer": out, "verbose": false})
			ar.flowEvent(session.FlowFinished, map[string]any{"result": out})
			return out, nil
		}
	}
	ar.agentLogs(KindAgentLogsStarted, map[string]any{"agent_role": ar.p.role, "task_description": ar.tr.text.description, "verbose": false})
	out, err := ar.loop(ctx)
	if err = timeoutCause(ctx, err); err != nil {
		ar.flowEvent(session.FlowFailed, map[string]any{"error": err.Error()})
		return "", err
	}
	ar.agentLogs(KindAgentLogsExecution, map[string]any{"agent_role": ar.p.role, "formatted_answer": out, "verbose": false})
	ar.flowEvent(session.FlowFinished, map[string]any{"result": out})
	return out, nil
}

// timeoutCause is err, or CrewAI's TimeoutError when max_execution_time
// expired (the deadline's cause).
func timeoutCause(ctx context.Context, err error) error {
	var timeout *taskTimeoutError
	if err != nil && ctx.Err() != nil && errors.As(context.Cause(ctx), &timeout) {
		return timeout
	}
	return err
}

// CrewAI's agent log events (crewai-formats.md §6.2, §6.3):
// agent_logs_started follows agent_execution_started, and
// agent_logs_execution (the final answer) precedes
// agent_execution_completed. They are point events under the agent scope.
const (
	KindAgentLogsStarted   = session.AgentLogsStarted
	KindAgentLogsExecution = session.AgentLogsExecution
)

func (ar *agentRun) agentLogs(kind session.Kind, data map[string]any) {
	ev := ar.base
	ev.Kind, ev.Parent, ev.Data = kind, ar.span, data
	ar.rs.emit(ev)
}

// executorFlowName is the Flow CrewAI runs each agent execution as.
const executorFlowName = "AgentExecutor"

// flowEvent emits one of the flow events that wrap CrewAI's agent
// execution, a point event under the agent scope.
func (ar *agentRun) flowEvent(kind session.Kind, data map[string]any) {
	d := map[string]any{"flow_name": executorFlowName}
	for k, v := range data {
		d[k] = v
	}
	ev := ar.base
	ev.Kind, ev.Parent, ev.Data = kind, ar.span, d
	ar.rs.emit(ev)
}

func modelName(a *Agent) string {
	if a.Model != "" {
		return a.Model
	}
	if a.LLM != nil {
		return a.LLM.Model()
	}
	return ""
}

// appendPrompt starts the history as the executor's _setup_messages does
// (experimental/agent_executor.py:310-335): the system prompt, when the
// prompt has one, and the user prompt, each marked as a cache breakpoint
// (mark_cache_breakpoint), which the Anthropic provider turns into
// cache_control.
func (ar *agentRun) appendPrompt(msgs prompt.Messages) {
	if msgs.System != "" {
		ar.appendMsg(llm.Message{Role: llm.RoleSystem, Content: msgs.System, CacheBreakpoint: true})
	}
	ar.appendMsg(llm.Message{Role: llm.RoleUser, Content: msgs.User, CacheBreakpoint: true})
}

// appendMsg adds messages to the history and to its event form.
func (ar *agentRun) appendMsg(msgs ...llm.Message) {
	ar.messages = append(ar.messages, msgs...)
	ar.wire = append(ar.wire, llm.WireMessages(msgs)...)
}

// wireView is the history in event form, capped so later appends never
// show through.
func (ar *agentRun) wireView() []map[string]any {
	return ar.wire[:len(ar.wire):len(ar.wire)]
}

// llmEventData builds llm_call_started (started != nil) or
// llm_call_completed data with the crew/llm contract, reusing the shared
// event form of the history instead of rendering it again.
func (ar *agentRun) llmEventData(prov llm.Provider, started func(string, llm.Request) map[string]any, model string, req llm.Request, resp llm.Response, history bool) map[string]any {
	bare := req
	bare.Messages = nil
	var d map[string]any
	if started != nil {
		d = started(model, bare)
	} else {
		d = llm.CompletedEventData(model, bare, resp)
	}
	ar.addServerURL(prov, d)
	if history && len(req.Messages) == len(ar.wire) {
		d["messages"] = ar.wireView()
	} else {
		d["messages"] = llm.WireMessages(req.Messages)
	}
	return d
}

// addServerURL puts the LLM provider's address (credentials dropped) on an
// llm_call_* event's data: the OTLP export maps it to server.address and
// server.port, as the GenAI conventions ask of chat spans.
func (ar *agentRun) addServerURL(prov llm.Provider, d map[string]any) {
	if u := llm.ServerURLOf(prov); u != "" {
		d[session.KeyServerURL] = u
	}
}

// prepareTools decides the mode and renders the tools both ways: the ReAct
// block and names, and the native function schemas with collision suffixes.
func (ar *agentRun) prepareTools() {
	var blocks, llmNames []string
	for _, t := range ar.tools {
		s := t.Spec()
		blocks = append(blocks, describe(t))
		llmNames = append(llmNames, s.llmName())
	}
	ar.reactNames = llmNames
	ar.toolText = prompt.ToolText{Description: strings.Join(blocks, "\n"), Names: strings.Join(llmNames, ", ")}
	switch {
	case len(ar.tools) == 0:
		ar.mode = prompt.ModeNoTools
	case ar.agent.LLM != nil && ar.agent.LLM.SupportsFunctionCalling():
		ar.mode = prompt.ModeNative
	default:
		ar.mode = prompt.ModeReAct
	}
	ar.nativeMap = map[string]Tool{}
	nativeNames := names.DedupeNative(llmNames)
	render := toolschema.OpenAIParameters
	if p, _ := validatingProvider(ar.agent.Model); p == names.Anthropic {
		render = toolschema.AnthropicParameters
	}
	for i, t := range ar.tools {
		s := t.Spec()
		name := nativeNames[i]
		ar.native = append(ar.native, llm.Tool{
			Name: name, Description: prompt.AuthoredDescription(s.Description),
			Parameters: json.RawMessage(pyjson.DumpsStyle(render(s.Schema), pyjson.Wire)), Strict: true,
		})
		ar.nativeMap[name] = t
	}
}

// responseFormat is the OpenAI response_format of an output model: its
// strict schema with titles kept, named after the model.
func responseFormat(m *toolschema.Model) *llm.ResponseFormat {
	schema := toolschema.StrictSchema(m.Schema(), false)
	return &llm.ResponseFormat{Name: m.Name, Schema: json.RawMessage(pyjson.DumpsStyle(schema, pyjson.Wire)), Strict: true,
		ModelSchema: json.RawMessage(pyjson.DumpsStyle(m.Schema(), pyjson.Wire))}
}

// toolsData describes the offered tools for agent_execution_started, with
// both names, so a session diff can compare tool sets.
func (ar *agentRun) toolsData() []map[string]any {
	out := make([]map[string]any, 0, len(ar.tools))
	for i, t := range ar.tools {
		s := t.Spec()
		d := map[string]any{
			"name": s.Name, "llm_name": s.llmName(), "kind": string(s.Kind),
			"description": s.Description,
		}
		if i < len(ar.native) && ar.native[i].Name != s.llmName() {
			d["native_name"] = ar.native[i].Name
		}
		if s.OriginalName != "" {
			d["original_name"] = s.OriginalName
		}
		if s.Server != "" {
			d["server"] = s.Server
			d["server_name"] = s.ServerName
		}
		if s.ResultAsAnswer {
			d["result_as_answer"] = true
		}
		if s.MaxUsageCount > 0 {
			d["max_usage_count"] = s.MaxUsageCount
		}
		if s.Schema != nil {
			d["args_schema"] = s.Schema
		}
		out = append(out, d)
	}
	return out
}

// loop is the executor's main loop: check max_iter, one reasoning step,
// repeat until a final answer.
func (ar *agentRun) loop(ctx context.Context) (string, error) {
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if ar.iterations >= ar.agent.MaxIter {
			return ar.forceFinalAnswer(ctx)
		}
		step := ar.startStep()
		var out string
		var done bool
		var err error
		if ar.mode == prompt.ModeNative {
			out, done, err = ar.nativeStep(ctx, step)
		} else {
			out, done, err = ar.reactStep(ctx, step)
		}
		ar.finishStep(step, err)
		if err != nil {
			handled, herr := ar.handleContextLength(ctx, err)
			if handled {
				continue
			}
			err = herr
		}
		if err != nil || done {
			return out, err
		}
	}
}

func (ar *agentRun) startStep() string {
	span := ar.rs.em.NewSpan()
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent = session.AgentStepStarted, span, ar.span
	ev.Data = map[string]any{"iteration": ar.iterations, "mode": string(ar.mode)}
	ar.rs.emit(ev)
	return span
}

func (ar *agentRun) finishStep(span string, err error) {
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent, ev.Outcome = session.AgentStepFinished, span, ar.span, "ok"
	if err != nil {
		ev.Outcome, ev.Error = "failed", err.Error()
	}
	ev.Data = map[string]any{"iteration": ar.iterations}
	ar.rs.emit(ev)
}

// reactStep is one ReAct (or no-tools) iteration.
func (ar *agentRun) reactStep(ctx context.Context, step string) (string, bool, error) {
	resp, err := ar.callLLM(ctx, step, nil)
	if err != nil {
		return "", false, err
	}
	text := resp.Content
	if text == "" {
		return "", false, prompt.TextError(prompt.EmptyResponse)
	}
	action, finish, perr := react.FormatAnswer(text)
	if perr != nil && len(ar.tools) > 0 {
		ar.rs.warn(step, ar.base, "the reply does not parse as an Action or a Final Answer ("+strings.TrimSpace(perr.Error())+"); CrewAI's format_answer takes the whole reply as the final answer")
	}
	if finish != nil {
		ar.appendMsg(llm.Message{Role: llm.RoleAssistant, Content: text})
		return finish.Output, true, nil
	}
	obs, asAnswer, err := ar.reactTool(ctx, step, action)
	if err != nil {
		return "", false, err
	}
	if asAnswer {
		return obs, true, nil
	}
	// CrewAI logs each ReAct action with its result (agent_logs_execution
	// after tool_usage_finished, as the goldens record); native steps log
	// only the final answer.
	ar.agentLogs(KindAgentLogsExecution, map[string]any{"agent_role": ar.p.role, "verbose": false, "formatted_answer": map[string]any{
		"thought": action.Thought, "tool": action.Tool, "tool_input": action.Input, "text": action.Text, "result": obs,
	}})
	// The assistant text with its observation is rstripped
	// (agent_utils.py:449).
	ar.appendMsg(llm.Message{Role: llm.RoleAssistant, Content: prompt.RStrip(text + "\nObservation: " + obs)},
		llm.Message{Role: llm.RoleUser, Content: prompt.PostToolReasoning})
	ar.iterations++
	return "", false, nil
}

// nativeStep is one native function-calling iteration.
func (ar *agentRun) nativeStep(ctx context.Context, step string) (string, bool, error) {
	resp, err := ar.callLLM(ctx, step, ar.native)
	if err != nil {
		if llm.IsToolsUnsupported(err) && !ar.fellBack {
			ar.fallBackToReAct(step)
			return "", false, nil
		}
		return "", false, err
	}
	if len(resp.ToolCalls) == 0 {
		if resp.Content == "" {
			return "", false, prompt.TextError(prompt.EmptyResponse)
		}
		ar.appendMsg(llm.Message{Role: llm.RoleAssistant, Content: resp.Content})
		return resp.Content, true, nil
	}
	calls := make([]llm.ToolCall, len(resp.ToolCalls))
	echo := make([]llm.ToolCall, len(resp.ToolCalls))
	for i, c := range resp.ToolCalls {
		if c.ID == "" {
			c.ID = "call_" + ar.rs.em.NewSpan()
		}
		calls[i] = c
		// The assistant message echoes each call under the name
		// extract_tool_call_info gives, which is sanitized
		// (agent_utils.py:1377-1384, agent_executor.py:1714-1741): a call
		// to "Get-Weather" goes back to the model as "get_weather".
		c.Name = names.Sanitize(c.Name)
		echo[i] = c
	}
	ar.appendMsg(llm.Message{Role: llm.RoleAssistant, Content: resp.Content, ToolCalls: echo})
	results, final, err := ar.nativeCalls(ctx, step, calls)
	for i, r := range results {
		if !r.done {
			continue
		}
		ar.appendMsg(llm.Message{Role: llm.RoleTool, ToolCallID: calls[i].ID, Name: names.Sanitize(calls[i].Name), Content: r.content})
	}
	if err != nil {
		return "", false, err
	}
	if final != nil {
		return *final, true, nil
	}
	ar.iterations++
	return "", false, nil
}

// fallBackToReAct switches to text tool calling after a provider rejected
// native tools, appending CrewAI's notice and the tools block.
func (ar *agentRun) fallBackToReAct(step string) {
	ar.fellBack = true
	ar.mode = prompt.ModeReAct
	ar.appendMsg(llm.Message{Role: llm.RoleUser, Content: prompt.NativeFallback + prompt.ToolsReminder(ar.toolText)})
	ar.rs.warn(step, ar.base, "the provider does not support native tool calling; falling back to CrewAI's ReAct text tool calling")
}

// forceFinalAnswer is handle_max_iterations_exceeded: one more call without
// tools, with an assistant message carrying the force_final_answer text.
// CrewAI sends that message on a copy of the history and does not keep it
// (agent_executor.py:1399-1406).
func (ar *agentRun) forceFinalAnswer(ctx context.Context) (string, error) {
	ar.rs.warn(ar.span, ar.base, "Maximum iterations reached. Requesting final answer.")
	msgs := append(slices.Clip(ar.messages), llm.Message{Role: llm.RoleAssistant, Content: prompt.ForceFinalAnswer})
	step := ar.startStep()
	resp, err := ar.callLLMWith(ctx, step, msgs, nil)
	if err == nil && resp.Content == "" {
		err = prompt.TextError(prompt.EmptyResponse)
	}
	ar.finishStep(step, err)
	if err != nil {
		return "", err
	}
	text := resp.Content
	ar.appendMsg(llm.Message{Role: llm.RoleAssistant, Content: text})
	action, finish, _ := react.FormatAnswer(text)
	if action != nil {
		return text, nil
	}
	return finish.Output, nil
}

// callLLM makes one LLM call with its events, the RPM limit and a stepping
// pause.
func (ar *agentRun) callLLM(ctx context.Context, step string, tools []llm.Tool) (llm.Response, error) {
	// A capped view, not a copy: messages are only ever appended, so every
	// request and event can share the history (a copy per call made a long
	// run quadratic in memory).
	return ar.callLLMWith(ctx, step, ar.messages[:len(ar.messages):len(ar.messages)], tools)
}

// llmTarget is the LLM a call goes to: the agent's, or another LLM object
// the executor calls (planning_config.llm), which gets none of the
// executor's stop words (_llm_stop_words_applied overrides the stop words
// of the agent's LLM only, agent_utils.py:344-360) and whose tokens are not
// the crew's (calculate_usage_metrics reads the agents' LLMs,
// crew.py:2201-2225).
type llmTarget struct {
	prov llm.Provider
	// model is the model string, for the provider name check.
	model    string
	separate bool
	// functions runs a tool call of the reply the way a provider runs
	// available_functions (nil: the reply's tool calls are returned).
	functions func(call llm.ToolCall) (result string, err error, ok bool)
	// functionNames are the names functions answers to (the keys of
	// available_functions).
	functionNames []string
	// structured is the call's response_model (nil: none, or the task's
	// for the agent's own calls).
	structured *builtinModel
	// unattributed: CrewAI makes the call with neither from_task nor
	// from_agent (summarize_messages' llm.call), so its events carry no
	// task or agent.
	unattributed bool
}

func (ar *agentRun) agentTarget() llmTarget {
	return llmTarget{prov: ar.agent.LLM, model: ar.agent.Model}
}

// callLLMWith makes one LLM call on the agent's LLM with msgs, the agent's
// history (its event form is shared). Side conversations go through
// callLLMOn.
func (ar *agentRun) callLLMWith(ctx context.Context, step string, msgs []llm.Message, tools []llm.Tool) (llm.Response, error) {
	return ar.callLLMOn(ctx, step, ar.agentTarget(), msgs, tools, true)
}

// callLLMOn is callLLMWith on target's LLM.
func (ar *agentRun) callLLMOn(ctx context.Context, step string, target llmTarget, msgs []llm.Message, tools []llm.Tool, history bool) (llm.Response, error) {
	req := llm.Request{Messages: msgs, Tools: tools, Stream: ar.rs.opts.Stream}
	// The executor's stop words hold for every call it makes, native and
	// side calls too (_llm_stop_words_applied around the whole invoke,
	// agent_executor.py:2862); the providers apply them.
	if !target.separate {
		req.Stop = ar.stops[:len(ar.stops):len(ar.stops)]
	}
	if target.functions != nil {
		// The provider is handed available_functions: the planning
		// function (reasoning_handler.py:382).
		req.AvailableFunctions = target.functionNames
	}
	if ar.mode == prompt.ModeNoTools && history {
		// An agent without tools asks for the output model directly
		// (response_model, agent_executor.py:1425-1437).
		req.ResponseFormat = ar.responseFormat
	}
	return ar.call(ctx, step, target, req, callOpts{history: history})
}

// callOpts say how call treats one request.
type callOpts struct {
	// history: req.Messages is the agent's history (its event form is
	// shared, and the RPM controller is consulted).
	history bool
	// own: a call CrewAI makes outside its LLM class (instructor's fresh
	// SDK client): crewbench's own crewbench_llm_call_* events, no name
	// check, and its tokens are not counted in the crew's usage.
	own bool
}

// call makes one LLM call on target with its events, the RPM limit and a
// stepping pause. It fills req.Meta, and target's response model replaces
// the task's.
func (ar *agentRun) call(ctx context.Context, step string, target llmTarget, req llm.Request, o callOpts) (llm.Response, error) {
	a := ar.agent
	if target.prov == nil {
		return llm.Response{}, fmt.Errorf("agent %q has no LLM", ar.p.role)
	}
	base := ar.base
	if target.unattributed {
		base = session.Event{RunID: ar.base.RunID}
	}
	turn := int(ar.turn.Add(1))
	callID := ar.rs.em.NewSpan()
	req.Meta = llm.CallMeta{AgentRole: ar.p.role, TaskName: ar.tr.name, Turn: turn, CallID: callID}
	responseModel := ar.responseModel
	if target.structured != nil {
		req.ResponseFormat, responseModel = target.structured.format, target.structured.model
	}
	history, tools := o.history, req.Tools
	kind := func(k session.Kind) session.Kind {
		if o.own {
			return session.OwnLLMKind(k)
		}
		return k
	}
	// The RPM controller is consulted before the agent's own reasoning
	// calls only, not before side calls (summarising, converting).
	if history {
		if err := ar.rs.rpmWait(ctx, a, base, step); err != nil {
			return llm.Response{}, err
		}
	}
	model := target.prov.Model()
	d, err := ar.rs.pause(ctx, &Pause{
		Kind: PauseLLMCall, RunID: ar.rs.runID, TaskName: ar.tr.name, AgentRole: ar.p.role, Span: step,
		AfterFailure: ar.takeFailedFlag(), Messages: req.Messages, Tools: tools, Mode: string(ar.mode), Model: model,
	}, base, step)
	if err != nil {
		return llm.Response{}, err
	}
	ev := base
	ev.Kind, ev.Span, ev.Parent = kind(session.LLMCallStarted), callID, step
	ev.Data = ar.llmEventData(target.prov, llm.StartedEventData, model, req, llm.Response{}, history)
	ar.rs.emit(ev)
	start := ar.rs.em.Now()

	var resp llm.Response
	edited := d.Action == EditReply && d.Reply != nil
	if edited {
		resp = *d.Reply
	} else {
		if !o.own {
			err = ar.checkProviderNames(target.model, tools)
		}
		if err == nil {
			resp, err = target.prov.Call(ctx, req, ar.chunkSink(base, callID))
		}
		if err == nil && !o.own {
			resp, err = ar.parseStructuredReply(ctx, target, req, resp, responseModel)
		}
	}
	ran := false
	if err == nil && target.functions != nil && len(resp.ToolCalls) > 0 {
		resp, ran = ar.runAvailableFunction(callID, step, target, req, resp)
	}
	ev = base
	ev.Span, ev.Parent, ev.Duration = callID, step, ar.rs.em.Now().Sub(start)
	if err != nil {
		ev.Kind, ev.Outcome, ev.Error = kind(session.LLMCallFailed), "failed", err.Error()
		ev.Data = llm.FailedEventData(model, req, err)
		ar.addServerURL(target.prov, ev.Data)
		ar.rs.emit(ev)
		if !o.own && reportsFailureTwice(err) {
			// CrewAI's OpenAI provider emits llm_call_failed for an error
			// response in its request handler and again in call() (two
			// events for one call in the goldens); the second has no
			// scope left to close.
			ar.rs.emit(ev)
		}
		return llm.Response{}, err
	}
	if !edited && !o.own && !target.separate {
		ar.rs.mu.Lock()
		ar.rs.usage.add(resp.Usage)
		ar.rs.mu.Unlock()
	}
	ev.Kind, ev.Outcome = kind(session.LLMCallCompleted), "ok"
	ev.Data = ar.llmEventData(target.prov, nil, model, req, resp, history)
	if ran {
		// The provider reports the function's result as a tool_call
		// completion without messages or usage (base_llm.py:776-781).
		ev.Data["call_type"], ev.Data["messages"], ev.Data["usage"] = "tool_call", nil, nil
		ev.Data["finish_reason"], ev.Data["response_id"] = nil, nil
	}
	if edited {
		ev.Data["edited"] = true
	}
	ar.rs.emit(ev)
	return resp, nil
}

// reportsFailureTwice reports whether CrewAI would emit llm_call_failed
// twice for err: an HTTP error response of the OpenAI provider, or a reply
// its SDK could not parse into the response model.
func reportsFailureTwice(err error) bool {
	var e *llm.Error
	return errors.As(err, &e) && e.Status != 0 && e.Provider == "openai" || isStructuredReplyError(err)
}

// chunkSink returns the streaming callback of the call callID, whose
// events start from base, or nil when not streaming.
func (ar *agentRun) chunkSink(base session.Event, callID string) func(llm.Chunk) {
	if !ar.rs.opts.Stream {
		return nil
	}
	return func(c llm.Chunk) {
		ev := base
		ev.Kind, ev.Parent = session.LLMStreamChunk, callID
		d := map[string]any{"call_id": callID, "chunk": c.Content}
		if c.ToolCall != nil {
			d["tool_call"] = map[string]any{"id": c.ToolCall.ID, "index": c.ToolCall.Index, "type": "function",
				"function": map[string]any{"name": c.ToolCall.Name, "arguments": c.ToolCall.Arguments}}
		}
		ev.Data = d
		ar.rs.emit(ev)
	}
}

// checkProviderNames is safe_tool_conversion in the native providers that
// validate function names; a failure fails the call (and so the run).
func (ar *agentRun) checkProviderNames(model string, tools []llm.Tool) error {
	if len(tools) == 0 {
		return nil
	}
	p, ok := validatingProvider(model)
	if !ok {
		return nil
	}
	for _, t := range tools {
		if err := names.CheckProviderName(p, t.Name); err != nil {
			return err
		}
	}
	return nil
}

// validatingProvider maps a model string to the native CrewAI provider that
// validates names, if any (OpenAI, Anthropic, Azure, Bedrock, Gemini).
func validatingProvider(model string) (names.Provider, bool) {
	provider, _ := llm.ParseModel(model)
	switch strings.ToLower(provider) {
	case "openai":
		return names.OpenAI, true
	case "anthropic", "claude":
		return names.Anthropic, true
	case "gemini", "google":
		return names.Gemini, true
	case "azure", "azure_openai":
		return names.Azure, true
	case "bedrock", "aws":
		return names.Bedrock, true
	}
	return "", false
}

func (ar *agentRun) takeFailedFlag() bool {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	f := ar.lastFailed
	ar.lastFailed = false
	return f
}

func (ar *agentRun) failureRecords() []ToolFailureRecord {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return append([]ToolFailureRecord(nil), ar.failures...)
}

// pause consults the stepper and reports a real pause as events.
func (rs *runState) pause(ctx context.Context, p *Pause, base session.Event, parent string) (Decision, error) {
	if _, ok := rs.stepper.(Headless); ok {
		return Decision{Action: Continue}, nil
	}
	paused := false
	p.onPause = func() {
		paused = true
		ev := base
		ev.Kind, ev.Parent = session.StepPaused, parent
		ev.ToolName, ev.OriginalToolName, ev.Server = p.ToolName, p.OriginalName, p.Server
		ev.Data = map[string]any{"kind": string(p.Kind), "after_failure": p.AfterFailure}
		rs.emit(ev)
	}
	d, err := rs.stepper.Before(ctx, p)
	if err != nil {
		return d, err
	}
	if d.Action == "" {
		d.Action = Continue
	}
	if paused {
		ev := base
		ev.Kind, ev.Parent = session.StepResumed, parent
		ev.ToolName, ev.OriginalToolName, ev.Server = p.ToolName, p.OriginalName, p.Server
		ev.Data = map[string]any{"kind": string(p.Kind), "decision": string(d.Action)}
		rs.emit(ev)
	}
	if d.Action == Abort {
		return d, ErrAborted
	}
	return d, nil
}

// runAvailableFunction runs the reply's first tool call as a provider runs
// available_functions (_handle_tool_execution, base_llm.py:721-811): an
// unknown name is skipped; otherwise tool_usage_started, then
// tool_usage_finished with the result, which becomes the reply (ran), or
// tool_usage_error and llm_call_failed with "Error executing function …",
// and the reply is the message's text. Either way the tool calls are
// consumed.
func (ar *agentRun) runAvailableFunction(callID, step string, target llmTarget, req llm.Request, resp llm.Response) (llm.Response, bool) {
	call := resp.ToolCalls[0]
	text := resp
	text.ToolCalls = nil
	var args any = map[string]any{}
	if v, err := pyjson.Loads(call.Arguments); err == nil {
		args = v
	}
	start := ar.rs.em.Now()
	result, err, ok := target.functions(call)
	if !ok {
		return text, false
	}
	span := ar.rs.em.NewSpan()
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent, ev.ToolName = session.ToolUsageStarted, span, callID, call.Name
	ev.Data = map[string]any{"tool_name": call.Name, "tool_args": args, "run_attempts": 0}
	ar.rs.emit(ev)
	end := ar.rs.em.Now()
	ev.Duration = end.Sub(start)
	if err != nil {
		msg := "Error executing function '" + call.Name + "': " + err.Error()
		ev.Kind, ev.Outcome, ev.Error = session.ToolUsageError, "failed", msg
		ev.Data = map[string]any{"tool_name": call.Name, "tool_args": args, "run_attempts": 0, "error": msg, "started_at": start, "finished_at": end}
		ar.rs.emit(ev)
		// On the call's own span, as the OpenAI provider's second
		// llm_call_failed is (callLLMOn): the completion that follows ends it.
		failed := ar.base
		failed.Kind, failed.Span, failed.Parent, failed.Outcome, failed.Error = session.LLMCallFailed, callID, step, "failed", msg
		failed.Data = llm.FailedEventData(target.prov.Model(), req, prompt.TextError(msg))
		failed.Data["messages"] = nil
		ar.rs.emit(failed)
		return text, false
	}
	ev.Kind, ev.Outcome = session.ToolUsageFinished, "ok"
	ev.Data = map[string]any{"tool_name": call.Name, "tool_args": args, "run_attempts": 0, "output": result, "from_cache": false, "started_at": start, "finished_at": end}
	ar.rs.emit(ev)
	return llm.Response{Content: result, Usage: resp.Usage, Model: resp.Model}, true
}
