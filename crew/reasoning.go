package crew

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/names"
	"crewbench/session"
)

// Agent planning, as CrewAI 1.15.17 runs it for an agent with planning,
// reasoning or a planning_config: the default executor_class is the Flow
// AgentExecutor (agent/core.py:345-351), whose @start method generate_plan
// (experimental/agent_executor.py:347-388) runs
// AgentReasoning.handle_agent_reasoning (utilities/reasoning_handler.py:
// 187-349) after flow_started and before agent_logs_started
// (initialize_reasoning, agent_executor.py:1374-1387). The plan is kept in
// the executor's state and never enters the agent's messages
// (agent_executor.py:382-384), so a plan without steps (a text reply, or
// not ready) leads to the ordinary loop with unchanged messages
// (check_todos_available "no_todos", agent_executor.py:1053-1066). A ready
// plan with steps becomes todos that CrewAI runs instead of that loop
// (get_ready_todos_method, execute_todo_sequential/_parallel with a
// StepExecutor per step, observe_step_result with PlannerObserver calls at
// medium and high reasoning_effort, replanning, then finalize's synthesis
// call, agent_executor.py:643-1372, 2339-2536), reproduced in planexec.go
// and stepexec.go.

// planningTool is FUNCTION_SCHEMA as the OpenAI provider sends a dict tool
// (safe_tool_conversion, then _convert_tools_for_interference with
// "strict": true and sanitize_tool_params_for_openai_strict,
// llms/providers/openai/completion.py:1853-1880); Anthropic gets the
// Anthropic rendering of the same parameters.
func planningTool(anthropic bool) llm.Tool {
	o, err := pyjson.LoadsObject(prompt.PlanningFunctionParameters)
	if err != nil {
		panic("planning function parameters: " + err.Error()) // a constant: TestPlanningPromptTexts covers it
	}
	render := toolschema.OpenAIParameters
	if anthropic {
		render = toolschema.AnthropicParameters
	}
	return llm.Tool{
		Name: prompt.PlanningFunctionName, Description: prompt.PlanningFunctionDescription,
		Parameters: json.RawMessage(pyjson.DumpsStyle(render(o), pyjson.Wire)), Strict: true,
	}
}

// generatePlan is generate_plan (agent_executor.py:347-388):
// handle_agent_reasoning on the task's description. Planning never fails
// the run: CrewAI logs its errors and executes the task
// (agent_executor.py:388-390); only a cancelled run or an abort at a
// breakpoint stops it. It returns the steps of a ready plan, which become
// the todos (agent_executor.py:380-381).
func (ar *agentRun) generatePlan(ctx context.Context) ([]planStep, error) {
	if ar.agent.Planning == nil {
		return nil, nil
	}
	plan, err := ar.reason(ctx, ar.tr.text.description)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return nil, err
		}
		return nil, nil
	}
	if !plan.ready {
		return nil, nil
	}
	return plan.steps, nil
}

// reason is handle_agent_reasoning (reasoning_handler.py:187-254) with the
// task's description as description (a replan passes the enhanced one,
// as _trigger_replan sets task.description around the call):
// agent_reasoning_started for attempt 1, the plan call and every
// refinement, then agent_reasoning_completed for attempt 1 with the final
// plan, or one agent_reasoning_failed (attempt 1) and the error. Each
// refinement is its own started/completed pair, inside attempt 1's scope.
func (ar *agentRun) reason(ctx context.Context, description string) (reasoningPlan, error) {
	span := ar.reasoningStarted(ar.span, 1)
	start := ar.rs.em.Now()
	p, open, err := ar.executePlanning(ctx, span, description)
	var plan reasoningPlan
	if err == nil {
		// ReasoningPlan(plan=…, steps=…, ready=…) (reasoning_handler.py:253).
		plan, err = p.validated()
	}
	ev := ar.base
	ev.Span, ev.Parent, ev.Attempt, ev.Duration = span, ar.span, 1, ar.rs.em.Now().Sub(start)
	if err != nil {
		// CrewAI's event bus pairs this one failed event with the innermost
		// open start (events/event_bus.py:548-560): a refinement's, when
		// one raised, and attempt 1's start is then never paired. The event
		// still says attempt 1. The trace tree closes attempt 1's scope as
		// unfinished when the agent's ends (session.Tree.Add).
		if open.span != "" {
			ev.Span, ev.Parent, ev.Duration = open.span, span, ar.rs.em.Now().Sub(open.start)
		}
		ev.Kind, ev.Outcome, ev.Error = session.AgentReasoningFailed, "failed", err.Error()
		ev.Data = map[string]any{"agent_role": ar.p.role, "task_id": ar.tr.id, "error": err.Error(), "attempt": 1}
		ar.rs.emit(ev)
		return reasoningPlan{}, err
	}
	ev.Kind, ev.Outcome = session.AgentReasoningCompleted, "ok"
	ev.Data = map[string]any{"agent_role": ar.p.role, "task_id": ar.tr.id, "plan": plan.plan, "ready": plan.ready, "attempt": 1}
	ar.rs.emit(ev)
	return plan, nil
}

// openRefinement is the refinement scope an error left open.
type openRefinement struct {
	span  string
	start time.Time
}

func (ar *agentRun) reasoningStarted(parent string, attempt int) string {
	span := ar.rs.em.NewSpan()
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent, ev.Attempt = session.AgentReasoningStarted, span, parent, attempt
	ev.Data = map[string]any{"agent_role": ar.p.role, "task_id": ar.tr.id, "attempt": attempt}
	ar.rs.emit(ev)
	return span
}

// executePlanning is _execute_planning (reasoning_handler.py:244-349): the
// plan call, then refinements while the plan is not ready (Python
// truthiness of the reply's ready) and max_attempts allows. A refinement's
// agent_reasoning_completed is left out when its plan and ready do not
// validate, as constructing the event raises and CrewAI ignores it. An
// error in a refinement leaves its scope open, emitting nothing (the error
// propagates to handle_agent_reasoning): the scope is returned with it.
func (ar *agentRun) executePlanning(ctx context.Context, span, description string) (rawPlan, openRefinement, error) {
	cfg := ar.agent.Planning
	user, err := ar.planningPrompt(description)
	if err != nil {
		return rawPlan{}, openRefinement{}, err
	}
	p, err := ar.planCall(ctx, span, user)
	if err != nil {
		return rawPlan{}, openRefinement{}, err
	}
	for attempt := 1; !pyjson.Truthy(p.ready) && (cfg.MaxAttempts == 0 || attempt < cfg.MaxAttempts); {
		attempt++
		inner := ar.reasoningStarted(span, attempt)
		start := ar.rs.em.Now()
		refine, err := ar.refinePrompt(pyjson.Str(p.plan))
		if err == nil {
			p, err = ar.planCall(ctx, inner, refine)
		}
		if err != nil {
			return rawPlan{}, openRefinement{span: inner, start: start}, err
		}
		if v, verr := p.validated(); verr == nil {
			ev := ar.base
			ev.Kind, ev.Outcome, ev.Span, ev.Parent, ev.Attempt, ev.Duration = session.AgentReasoningCompleted, "ok", inner, span, attempt, ar.rs.em.Now().Sub(start)
			ev.Data = map[string]any{"agent_role": ar.p.role, "task_id": ar.tr.id, "plan": v.plan, "ready": v.ready, "attempt": attempt}
			ar.rs.emit(ev)
		}
		if cfg.MaxAttempts > 0 && attempt >= cfg.MaxAttempts {
			break
		}
	}
	return p, openRefinement{}, nil
}

// planningPrompt is _create_planning_prompt (reasoning_handler.py:498-532):
// planning_config.plan_prompt formatted with the agent, the task (its
// description as given), tools and max_steps, else
// planning.create_plan_prompt.
func (ar *agentRun) planningPrompt(description string) (string, error) {
	cfg := ar.agent.Planning
	tools := ar.planningTools()
	if cfg.PlanPrompt == nil {
		return prompt.PlanningCreatePrompt(description, ar.tr.text.expectedOutput, tools, cfg.MaxSteps), nil
	}
	return prompt.PyFormat(*cfg.PlanPrompt, map[string]string{
		"role": ar.p.role, "goal": ar.p.goal, "backstory": ar.p.backstory,
		"description": description, "expected_output": ar.tr.text.expectedOutput,
		"tools": tools, "max_steps": strconv.Itoa(cfg.MaxSteps),
	})
}

// refinePrompt is _create_refine_prompt (reasoning_handler.py:552-580):
// planning_config.refine_prompt formatted with the agent, the current plan
// and max_steps, else planning.refine_plan_prompt.
func (ar *agentRun) refinePrompt(current string) (string, error) {
	cfg := ar.agent.Planning
	if cfg.RefinePrompt == nil {
		return prompt.PlanningRefinePrompt(current), nil
	}
	return prompt.PyFormat(*cfg.RefinePrompt, map[string]string{
		"role": ar.p.role, "goal": ar.p.goal, "backstory": ar.p.backstory,
		"current_plan": current, "max_steps": strconv.Itoa(cfg.MaxSteps),
	})
}

// planningSystem is _get_system_prompt (reasoning_handler.py:472-488):
// planning_config.system_prompt as it is, else planning.system_prompt.
func (ar *agentRun) planningSystem() string {
	if sp := ar.agent.Planning.SystemPrompt; sp != nil {
		return *sp
	}
	return prompt.PlanningSystemPrompt
}

// planTarget is _resolve_llm (reasoning_handler.py:175-185):
// planning_config.llm, else the agent's LLM.
func (ar *agentRun) planTarget() llmTarget {
	cfg := ar.agent.Planning
	if cfg.LLM == nil {
		return ar.agentTarget()
	}
	return llmTarget{prov: cfg.LLM, model: cfg.Model, separate: true}
}

// planCall is one planning call. With function calling it offers
// create_reasoning_plan as an available function, which the provider runs
// (runAvailableFunction); a failed call, or a reply _call_with_function
// cannot read without raising, is retried once without the tool, and a
// failure of that is a ready "Failed to generate a plan" plan
// (reasoning_handler.py:351-444). Without function calling an LLM error
// fails the attempt (_call_llm_with_prompt, :446-470).
func (ar *agentRun) planCall(ctx context.Context, span, user string) (rawPlan, error) {
	target := ar.planTarget()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: ar.planningSystem()}, {Role: llm.RoleUser, Content: user}}
	if !target.prov.SupportsFunctionCalling() {
		resp, err := ar.callLLMOn(ctx, span, target, msgs, nil, false)
		if err != nil {
			return rawPlan{}, err
		}
		return textPlan(resp.Content), nil
	}
	p, _ := validatingProvider(target.model)
	withFn := target
	withFn.functions, withFn.functionNames = runPlanningFunction, []string{prompt.PlanningFunctionName}
	resp, err := ar.callLLMOn(ctx, span, withFn, msgs, []llm.Tool{planningTool(p == names.Anthropic)}, false)
	if err == nil {
		if plan, ok := functionPlan(resp.Content); ok {
			return plan, nil
		}
	} else if ctx.Err() != nil || errors.Is(err, ErrAborted) {
		return rawPlan{}, err
	}
	resp, err = ar.callLLMOn(ctx, span, target, msgs, nil, false)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return rawPlan{}, err
		}
		return rawPlan{plan: prompt.PlanningCallFailed, ready: true}, nil
	}
	return markerPlan(resp.Content), nil
}

// planningTools is _format_available_tools (reasoning_handler.py:534-550):
// the task's tools, else the agent's, as sanitized names.
func (ar *agentRun) planningTools() string {
	var tools []Tool
	if ar.tr.task != nil {
		tools = ar.tr.task.Tools
	}
	if len(tools) == 0 {
		tools = ar.agent.Tools
	}
	if len(tools) == 0 {
		return prompt.PlanningNoTools
	}
	ns := make([]string, len(tools))
	for i, t := range tools {
		ns[i] = names.Sanitize(t.Spec().Name)
	}
	return strings.Join(ns, ", ")
}

// rawPlan is a plan as _call_with_function returns it: plan and ready are
// whatever the reply held (validated only when ReasoningPlan is built).
type rawPlan struct {
	plan, ready any
	steps       []planStep
}

// planStep is PlanStep (utilities/planning_types.py).
type planStep struct {
	number      int
	description string
	tool        string // "" is None
	dependsOn   []int
}

// reasoningPlan is a validated ReasoningPlan.
type reasoningPlan struct {
	plan  string
	steps []planStep
	ready bool
}

// reasoningPlanModel is ReasoningPlan's plan and ready fields
// (reasoning_handler.py:30-37); the steps are PlanSteps already.
var reasoningPlanModel = newBuiltinModel("ReasoningPlan", `{"properties": {"plan": {"description": "The detailed reasoning plan for the task.", "title": "Plan", "type": "string"}, "ready": {"description": "Whether the agent is ready to execute the task.", "title": "Ready", "type": "boolean"}}, "required": ["plan", "ready"], "title": "ReasoningPlan", "type": "object"}`)

// planStepModel is PlanStep (utilities/planning_types.py:11-21).
var planStepModel = newBuiltinModel("PlanStep", `{"properties": {"step_number": {"description": "Step number (1-based)", "title": "Step Number", "type": "integer"}, "description": {"description": "What to do in this step", "title": "Description", "type": "string"}, "tool_to_use": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "Tool to use for this step, if any", "title": "Tool To Use"}, "depends_on": {"description": "Step numbers this step depends on", "items": {"type": "integer"}, "title": "Depends On", "type": "array"}}, "required": ["step_number", "description"], "title": "PlanStep", "type": "object"}`)

// validated builds ReasoningPlan: a plan that is not a string or a ready
// that is not a boolean (in Pydantic's lax sense) is its ValidationError.
func (p rawPlan) validated() (reasoningPlan, error) {
	o := pyjson.NewObject()
	o.Set("plan", p.plan)
	o.Set("ready", p.ready)
	v, verr := reasoningPlanModel.model.Validate(o)
	if verr != nil {
		return reasoningPlan{}, verr
	}
	plan, _ := v.Get("plan")
	ready, _ := v.Get("ready")
	s, _ := plan.(string)
	b, _ := ready.(bool)
	return reasoningPlan{plan: s, steps: p.steps, ready: b}, nil
}

// textPlan is _parse_planning_response (reasoning_handler.py:582-598).
func textPlan(reply string) rawPlan {
	if reply == "" {
		return rawPlan{plan: prompt.PlanningEmptyReply, ready: false}
	}
	return markerPlan(reply)
}

// markerPlan is a reply taken as the plan, ready when it holds the marker.
func markerPlan(reply string) rawPlan {
	return rawPlan{plan: reply, ready: strings.Contains(reply, prompt.PlanningReadyMarker)}
}

// runPlanningFunction is _create_reasoning_plan(**args)
// (reasoning_handler.py:368-374) as the provider calls it: json.dumps of
// plan, steps (an empty list for a falsy one) and ready (default true);
// arguments that are not an object with plan and no other keys than
// plan, steps and ready are Python's TypeError.
func runPlanningFunction(call llm.ToolCall) (string, error, bool) {
	if call.Name != prompt.PlanningFunctionName {
		return "", nil, false
	}
	const fn = "AgentReasoning._call_with_function.<locals>._create_reasoning_plan()"
	v, err := pyjson.Loads(call.Arguments)
	if err != nil {
		v = pyjson.NewObject() // the provider passes {} for arguments it cannot parse
	}
	args, ok := v.(*pyjson.Object)
	if !ok {
		return "", prompt.TextError(fn + " argument after ** must be a mapping, not " + pyjson.TypeName(v)), true
	}
	for _, k := range args.Keys() {
		if k != "plan" && k != "steps" && k != "ready" {
			return "", prompt.TextError(fn + " got an unexpected keyword argument '" + k + "'"), true
		}
	}
	plan, ok := args.Get("plan")
	if !ok {
		return "", prompt.TextError(fn + " missing 1 required positional argument: 'plan'"), true
	}
	steps, _ := args.Get("steps")
	if !pyjson.Truthy(steps) {
		steps = []any{}
	}
	ready, ok := args.Get("ready")
	if !ok {
		ready = true
	}
	out := pyjson.NewObject()
	out.Set("plan", plan)
	out.Set("steps", steps)
	out.Set("ready", ready)
	return pyjson.Dumps(out), nil, true
}

// functionPlan is how _call_with_function reads the reply
// (reasoning_handler.py:386-413): JSON holding "plan" and "ready" is the
// plan with its steps, read until the first that is not a valid PlanStep;
// other text is a marker plan. ok is false where CrewAI's reading raises
// (a JSON scalar, a string or list holding "plan" and "ready", steps that
// cannot be iterated), which sends it to the call without the tool.
func functionPlan(reply string) (rawPlan, bool) {
	v, err := pyjson.Loads(reply)
	if err != nil {
		return markerPlan(reply), true
	}
	switch t := v.(type) {
	case *pyjson.Object:
		plan, okPlan := t.Get("plan")
		ready, okReady := t.Get("ready")
		if !okPlan || !okReady {
			return markerPlan(reply), true
		}
		raw, has := t.Get("steps")
		if !has {
			raw = []any{}
		}
		steps, ok := planSteps(raw)
		return rawPlan{plan: plan, ready: ready, steps: steps}, ok
	case string:
		// "plan" in result, then result["plan"] on a str raises.
		return markerPlan(reply), !strings.Contains(t, "plan") || !strings.Contains(t, "ready")
	case []any:
		return markerPlan(reply), !slices.Contains(t, any("plan")) || !slices.Contains(t, any("ready"))
	}
	return rawPlan{}, false // "plan" in a number, a bool or None raises
}

// planSteps reads raw_steps (reasoning_handler.py:389-403). Iterating a
// string or an object yields strings, which end the steps; a scalar cannot
// be iterated, and CrewAI's handler then raises (ok false).
func planSteps(raw any) ([]planStep, bool) {
	var items []any
	switch t := raw.(type) {
	case []any:
		items = t
	case string, *pyjson.Object:
		return nil, true
	default:
		return nil, false
	}
	var steps []planStep
	for _, it := range items {
		d, ok := it.(*pyjson.Object)
		if !ok {
			break
		}
		kw := pyjson.NewObject()
		for _, f := range []struct {
			key string
			def any
		}{{"step_number", pyjson.Int(0)}, {"description", ""}, {"tool_to_use", nil}, {"depends_on", []any{}}} {
			v, ok := d.Get(f.key)
			if !ok {
				v = f.def
			}
			kw.Set(f.key, v)
		}
		v, verr := planStepModel.model.Validate(kw)
		if verr != nil {
			break
		}
		steps = append(steps, planStepOf(v))
	}
	return steps, true
}

func planStepOf(v *pyjson.Object) planStep {
	var s planStep
	n, _ := v.Get("step_number")
	s.number = intOf(n)
	d, _ := v.Get("description")
	s.description, _ = d.(string)
	t, _ := v.Get("tool_to_use")
	s.tool, _ = t.(string)
	deps, _ := v.Get("depends_on")
	list, _ := deps.([]any)
	for _, x := range list {
		s.dependsOn = append(s.dependsOn, intOf(x))
	}
	return s
}

// intOf is a validated integer as an int (0 when it does not fit).
func intOf(v any) int {
	switch t := v.(type) {
	case pyjson.Number:
		n, _ := strconv.Atoi(t.Repr())
		return n
	case int64:
		return int(t)
	case int:
		return t
	}
	return 0
}
