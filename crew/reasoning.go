package crew

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/names"
	"crewbench/session"
)

// Agent planning, as CrewAI 1.15.17 runs it for an agent with planning,
// reasoning or a planning_config: AgentExecutor's @start method
// generate_plan (experimental/agent_executor.py:347-386) runs
// AgentReasoning.handle_agent_reasoning (utilities/reasoning_handler.py:
// 187-349) after flow_started and before agent_logs_started
// (initialize_reasoning, agent_executor.py:1374-1387). Each attempt is
// agent_reasoning_started, one planning call (system planning.system_prompt,
// user create_plan_prompt, then refine_plan_prompt while the plan is not
// ready and max_attempts allows), agent_reasoning_completed. The plan is kept
// in the executor's state and never enters the agent's messages
// (agent_executor.py:382-384), so a plan without steps (a text reply, or
// not ready) leads to the ordinary loop with unchanged messages
// (check_todos_available "no_todos", agent_executor.py:1053-1066). A ready
// plan with steps becomes todos that CrewAI runs through its StepExecutor
// and PlannerObserver; crewbench does not reproduce that part and runs the
// ordinary loop, with a warning in the trace.

// reasoningPlan is ReasoningPlan: the plan text, how many PlanSteps it
// has (utilities/planning_types.py), readiness.
type reasoningPlan struct {
	plan  string
	steps int
	ready bool
}

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

// generatePlan runs the planning attempts of an agent with planning on.
// Planning never fails the run: CrewAI logs its errors and executes the
// task (agent_executor.py:388-390); only a cancelled run or an abort at a
// breakpoint stops it.
func (ar *agentRun) generatePlan(ctx context.Context) error {
	cfg := ar.agent.Planning
	if cfg == nil {
		return nil
	}
	user := prompt.PlanningCreatePrompt(ar.tr.text.description, ar.tr.text.expectedOutput, ar.planningTools(), cfg.MaxSteps)
	var p reasoningPlan
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			user = prompt.PlanningRefinePrompt(p.plan)
		}
		var err error
		p, err = ar.planAttempt(ctx, attempt, user)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrAborted) {
				return err
			}
			return nil
		}
		// The refinement loop (reasoning_handler.py:296-347).
		if p.ready || (cfg.MaxAttempts > 0 && attempt >= cfg.MaxAttempts) {
			break
		}
	}
	if p.ready && p.steps > 0 {
		ar.rs.warn(ar.span, ar.base, "agent "+ar.p.role+": the plan has steps, which CrewAI executes one by one through its StepExecutor; crewbench does not reproduce that and runs the task directly")
	}
	return nil
}

// planAttempt is one attempt between agent_reasoning_started and
// agent_reasoning_completed (or agent_reasoning_failed, with the error).
func (ar *agentRun) planAttempt(ctx context.Context, attempt int, user string) (reasoningPlan, error) {
	span := ar.rs.em.NewSpan()
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent, ev.Attempt = session.AgentReasoningStarted, span, ar.span, attempt
	ev.Data = map[string]any{"agent_role": ar.p.role, "task_id": ar.tr.id, "attempt": attempt}
	ar.rs.emit(ev)
	start := ar.rs.em.Now()
	p, err := ar.planCall(ctx, span, user)
	ev = ar.base
	ev.Span, ev.Parent, ev.Attempt, ev.Duration = span, ar.span, attempt, ar.rs.em.Now().Sub(start)
	if err != nil {
		ev.Kind, ev.Outcome, ev.Error = session.AgentReasoningFailed, "failed", err.Error()
		ev.Data = map[string]any{"agent_role": ar.p.role, "task_id": ar.tr.id, "error": err.Error(), "attempt": attempt}
		ar.rs.emit(ev)
		return p, err
	}
	ev.Kind, ev.Outcome = session.AgentReasoningCompleted, "ok"
	ev.Data = map[string]any{"agent_role": ar.p.role, "task_id": ar.tr.id, "plan": p.plan, "ready": p.ready, "attempt": attempt}
	ar.rs.emit(ev)
	return p, nil
}

// planCall is one planning call. With function calling it offers
// create_reasoning_plan and, when that call fails, retries once without
// the tool; a second failure is a ready "Failed to generate a plan" plan
// (_call_with_function, reasoning_handler.py:351-444). Without function
// calling an LLM error fails the attempt (_call_llm_with_prompt, :446-470).
func (ar *agentRun) planCall(ctx context.Context, span, user string) (reasoningPlan, error) {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: prompt.PlanningSystemPrompt}, {Role: llm.RoleUser, Content: user}}
	if !ar.agent.LLM.SupportsFunctionCalling() {
		resp, err := ar.callLLMWith(ctx, span, msgs, nil, false)
		if err != nil {
			return reasoningPlan{}, err
		}
		return textPlan(resp.Content), nil
	}
	p, _ := validatingProvider(ar.agent.Model)
	resp, err := ar.callLLMWith(ctx, span, msgs, []llm.Tool{planningTool(p == names.Anthropic)}, false)
	if err == nil {
		return functionPlan(resp), nil
	}
	if ctx.Err() != nil || errors.Is(err, ErrAborted) {
		return reasoningPlan{}, err
	}
	resp, err = ar.callLLMWith(ctx, span, msgs, nil, false)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return reasoningPlan{}, err
		}
		return reasoningPlan{plan: prompt.PlanningCallFailed, ready: true}, nil
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

// textPlan is _parse_planning_response (reasoning_handler.py:582-598).
func textPlan(reply string) reasoningPlan {
	if reply == "" {
		return reasoningPlan{plan: prompt.PlanningEmptyReply}
	}
	return markerPlan(reply)
}

// markerPlan is a reply taken as the plan, ready when it holds the marker.
func markerPlan(reply string) reasoningPlan {
	return reasoningPlan{plan: reply, ready: strings.Contains(reply, prompt.PlanningReadyMarker)}
}

// functionPlan reads a function-calling planning reply. A call of
// create_reasoning_plan is run by the provider (available_functions), whose
// result is json.dumps of plan, steps and ready (ready defaults to true);
// a text reply is read as that JSON when it is an object with "plan" and
// "ready", else as a marker plan (reasoning_handler.py:386-413).
func functionPlan(resp llm.Response) reasoningPlan {
	if len(resp.ToolCalls) > 0 && resp.ToolCalls[0].Name == prompt.PlanningFunctionName {
		args, err := pyjson.LoadsObject(resp.ToolCalls[0].Arguments)
		if err == nil {
			if _, ok := args.Get("ready"); !ok {
				args.Set("ready", true)
			}
			if p, ok := jsonPlan(args); ok {
				return p
			}
		}
	}
	reply := strings.TrimSpace(resp.Content)
	if o, err := pyjson.LoadsObject(reply); err == nil {
		if p, ok := jsonPlan(o); ok {
			return p
		}
	}
	return markerPlan(resp.Content)
}

// jsonPlan reads {"plan", "steps", "ready"}. Steps are read until the first
// one that is not an object (CrewAI logs it and keeps the earlier ones).
func jsonPlan(o *pyjson.Object) (reasoningPlan, bool) {
	pv, okPlan := o.Get("plan")
	rv, okReady := o.Get("ready")
	plan, isStr := pv.(string)
	ready, isBool := rv.(bool)
	if !okPlan || !okReady || !isStr || !isBool {
		return reasoningPlan{}, false
	}
	p := reasoningPlan{plan: plan, ready: ready}
	sv, _ := o.Get("steps")
	items, _ := sv.([]any)
	for _, it := range items {
		if _, ok := it.(*pyjson.Object); !ok {
			break
		}
		p.steps++
	}
	return p, true
}
