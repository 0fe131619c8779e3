package crew

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/react"
	"crewbench/session"
)

// The execution of a ready plan with steps, as CrewAI 1.15.17's
// AgentExecutor runs it instead of the agent loop (has_todos →
// get_ready_todos_method → execute_todo_sequential or
// execute_todos_parallel → observe_step_result → handle_step_observed_*,
// then finalize; experimental/agent_executor.py:643-1372, 2339-2536).
// crewbench reproduces it for an agent without tools and a task without an
// output model, at every reasoning_effort (the PlannerObserver's call, or
// the heuristic of "low" and observe_steps: false), except replanning;
// planExecutionGap and replanGap name what CrewAI would do instead.

// todo is TodoItem (utilities/planning_types.py:24-40).
type todo struct {
	planStep
	status string // pending, running, completed, failed
	result string
	span   string
}

// planExecutionGap is what of CrewAI's plan execution this run would need
// that crewbench does not reproduce, "" when nothing.
func (ar *agentRun) planExecutionGap() string {
	switch {
	case len(ar.tools) > 0:
		return "StepExecutor calls with the agent's tools"
	case ar.responseModel != nil || ar.responseFormat != nil:
		return "the final synthesis with the task's output model"
	}
	return ""
}

// observesSteps is _should_observe_steps (agent_executor.py:553-565).
func (ar *agentRun) observesSteps() bool {
	cfg := ar.agent.Planning
	if cfg.ObserveSteps != nil {
		return *cfg.ObserveSteps
	}
	return cfg.Effort != effortLow
}

// executePlan runs the todos and returns the final answer. ordinary is
// true when CrewAI's flow leaves the todos for the ordinary agent loop
// (handle_replan with no replans left routes to "no_todos").
func (ar *agentRun) executePlan(ctx context.Context, steps []planStep) (out string, ordinary bool, err error) {
	todos := make([]*todo, len(steps))
	for i, s := range steps {
		todos[i] = &todo{planStep: s, status: "pending"}
	}
	for !todosComplete(todos) {
		ready := readyTodos(todos)
		if len(ready) == 0 {
			// A dependency deadlock: needs_replan (agent_executor.py:1081-1093).
			if ar.agent.Planning.MaxReplans == 0 {
				return "", true, nil // handle_replan → "no_todos" (:2745-2752)
			}
			ar.replanGap("no step is ready but the plan is not complete")
			break
		}
		for _, t := range ready {
			ar.markRunning(t)
			if len(ready) == 1 {
				break // single_todo_ready marks the one todo (:1098-1100)
			}
		}
		// Parallel steps all run before any is observed (:1243-1306); CrewAI
		// runs them in threads, crewbench one after another in plan order.
		success := make([]bool, len(ready))
		for i, t := range ready {
			ok, err := ar.executeStep(ctx, t, todos)
			if err != nil {
				return "", false, err
			}
			success[i] = ok
		}
		for i, t := range ready {
			obs, err := ar.observe(ctx, t, success[i], todos)
			if err != nil {
				return "", false, err
			}
			if len(ready) > 1 {
				// execute_todos_parallel marks by the observation only (:1301-1306).
				ar.finishTodo(t, map[bool]string{true: "completed", false: "failed"}[obs.success], nil)
				continue
			}
			if ar.routeObservation(t, obs, todos) {
				return ar.finalizePlan(ctx, todos)
			}
		}
		if len(ready) > 1 {
			// after_parallel_execution (:1356-1372).
			if reason, ok := ar.shouldReplan(todos); ok {
				if ar.agent.Planning.MaxReplans == 0 {
					return "", true, nil
				}
				ar.replanGap(reason)
				break
			}
		}
	}
	return ar.finalizePlan(ctx, todos)
}

func todosComplete(todos []*todo) bool {
	for _, t := range todos {
		if t.status != "completed" && t.status != "failed" {
			return false
		}
	}
	return len(todos) > 0
}

// readyTodos is get_ready_todos: pending todos whose dependencies all
// exist and are completed or failed (planning_types.py).
func readyTodos(todos []*todo) []*todo {
	var ready []*todo
	for _, t := range todos {
		if t.status != "pending" {
			continue
		}
		ok := true
		for _, d := range t.dependsOn {
			dep := todoByStep(todos, d)
			ok = ok && dep != nil && (dep.status == "completed" || dep.status == "failed")
		}
		if ok {
			ready = append(ready, t)
		}
	}
	return ready
}

func todoByStep(todos []*todo, n int) *todo {
	for _, t := range todos {
		if t.number == n {
			return t
		}
	}
	return nil
}

// markRunning is _mark_todo_running: plan_step_started, in a crewbench
// step scope that holds the step's LLM call.
func (ar *agentRun) markRunning(t *todo) {
	if t.status == "running" {
		return
	}
	t.status = "running"
	t.span = ar.rs.em.NewSpan()
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent = session.AgentStepStarted, t.span, ar.span
	ev.Data = map[string]any{session.KeyStep: t.number, session.KeyPlanStep: true, "mode": "plan"}
	ar.rs.emit(ev)
	ar.planStepEvent(session.PlanStepStarted, t, nil)
}

func (ar *agentRun) planStepEvent(kind session.Kind, t *todo, extra map[string]any) {
	var tool any
	if t.tool != "" {
		tool = t.tool
	}
	ev := ar.base
	ev.Kind, ev.Parent = kind, t.span
	ev.Data = map[string]any{"agent_role": ar.p.role, "step_number": t.number, "step_description": t.description, "tool_to_use": tool}
	for k, v := range extra {
		ev.Data[k] = v
	}
	ar.rs.emit(ev)
}

// executeStep is StepExecutor.execute for an agent without tools
// (agents/step_executor.py:127-242, 328-378): the RPM limit, the
// isolated system and user messages, one call of the agent's LLM; the
// Final Answer (or the whole reply) is the result. An LLM error or an
// empty reply is a failed step with an empty result.
func (ar *agentRun) executeStep(ctx context.Context, t *todo, todos []*todo) (bool, error) {
	if err := ar.rs.rpmWait(ctx, ar.agent, ar.base, t.span); err != nil {
		return false, err
	}
	var deps []prompt.StepDependency
	for _, n := range t.dependsOn {
		if d := todoByStep(todos, n); d != nil && d.result != "" {
			deps = append(deps, prompt.StepDependency{Step: n, Result: d.result})
		}
	}
	slices.SortStableFunc(deps, func(a, b prompt.StepDependency) int { return a.Step - b.Step })
	deps = slices.CompactFunc(deps, func(a, b prompt.StepDependency) bool { return a.Step == b.Step })
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: prompt.StepExecutorSystem(ar.p.role, ar.p.backstory, ar.p.goal)},
		{Role: llm.RoleUser, Content: prompt.StepExecutorUser(ar.tr.text.description, t.description, t.tool, deps)},
	}
	resp, err := ar.callLLMOn(ctx, t.span, ar.agentTarget(), msgs, nil, false)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return false, err
		}
		t.result = ""
		return false, nil
	}
	if resp.Content == "" {
		t.result = "" // ValueError("Empty response from LLM")
		return false, nil
	}
	action, finish, _ := react.FormatAnswer(resp.Content)
	if action != nil {
		ar.rs.warn(t.span, ar.base, "plan step "+strconv.Itoa(t.number)+": the reply is a ReAct Action, which CrewAI's StepExecutor would run as a tool call; crewbench does not reproduce that and takes the reply as the step's result")
		t.result = resp.Content
		return true, nil
	}
	t.result = finish.Output
	return true, nil
}

// observation is StepObservation (utilities/planning_types.py).
type observation struct {
	success, valid, replan, goal bool
	learned                      string
	replanReason                 any // str | None
	refinements                  []refinement
}

type refinement struct {
	step        int
	description string
}

// stepObservationSchema is StepObservation.model_json_schema() (with
// StepRefinement in $defs) as Pydantic 2 writes it
// (utilities/planning_types.py).
const stepObservationSchema = `{"$defs": {"StepRefinement": {"description": "A structured in-place update for a single pending step.\n\nReturned as part of StepObservation when the Planner learns new\ninformation that makes a pending step description more specific.\nApplied directly \u2014 no second LLM call required.", "properties": {"step_number": {"description": "The step number to update (1-based)", "title": "Step Number", "type": "integer"}, "new_description": {"description": "The updated, more specific description for this step", "title": "New Description", "type": "string"}}, "required": ["step_number", "new_description"], "title": "StepRefinement", "type": "object"}}, "description": "Planner's observation after a step execution completes.\n\nReturned by the PlannerObserver after EVERY step \u2014 not just failures.\nThe Planner uses this to decide whether to continue, refine, or replan.\n\nBased on PLAN-AND-ACT (Section 3.3): the Planner observes what the Executor\ndid and incorporates new information into the remaining plan.\n\nAttributes:\n    step_completed_successfully: Whether the step achieved its objective.\n    key_information_learned: New information revealed by this step\n        (e.g., \"Found 3 products: A, B, C\"). Used to refine upcoming steps.\n    remaining_plan_still_valid: Whether pending todos still make sense\n        given the new information. True does NOT mean no refinement needed.\n    suggested_refinements: Structured in-place updates to pending step\n        descriptions. Each entry targets a specific step by number. These\n        are applied directly without a second LLM call.\n        Example: [{\"step_number\": 3, \"new_description\": \"Select product B (highest rated)\"}]\n    needs_full_replan: The remaining plan is fundamentally wrong and must\n        be regenerated from scratch. Mutually exclusive with\n        remaining_plan_still_valid (if this is True, that should be False).\n    replan_reason: Explanation of why a full replan is needed (None if not).\n    goal_already_achieved: The overall task goal has been satisfied early.\n        No more steps needed \u2014 skip remaining todos and finalize.", "properties": {"step_completed_successfully": {"description": "Whether the step achieved what it was asked to do", "title": "Step Completed Successfully", "type": "boolean"}, "key_information_learned": {"default": "", "description": "What new information this step revealed", "title": "Key Information Learned", "type": "string"}, "remaining_plan_still_valid": {"default": true, "description": "Whether the remaining pending todos still make sense given new information", "title": "Remaining Plan Still Valid", "type": "boolean"}, "suggested_refinements": {"anyOf": [{"items": {"$ref": "#/$defs/StepRefinement"}, "type": "array"}, {"type": "null"}], "default": null, "description": "Structured updates to pending step descriptions based on new information. Each entry specifies a step_number and new_description. Applied directly \u2014 no separate replan needed.", "title": "Suggested Refinements"}, "needs_full_replan": {"default": false, "description": "The remaining plan is fundamentally wrong and must be regenerated", "title": "Needs Full Replan", "type": "boolean"}, "replan_reason": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "Explanation of why a full replan is needed", "title": "Replan Reason"}, "goal_already_achieved": {"default": false, "description": "The overall task goal has been satisfied early; no more steps needed", "title": "Goal Already Achieved", "type": "boolean"}}, "required": ["step_completed_successfully"], "title": "StepObservation", "type": "object"}`

var stepObservationModel = newBuiltinModel("StepObservation", stepObservationSchema)

// observe is _observe_completed_step (agent_executor.py:579-608): the
// PlannerObserver's call when steps are observed, else the heuristic
// (the step's success, the plan still valid, no replan).
func (ar *agentRun) observe(ctx context.Context, t *todo, success bool, todos []*todo) (observation, error) {
	if !ar.observesSteps() {
		return observation{success: success, valid: true}, nil
	}
	base := map[string]any{"agent_role": ar.p.role, "step_number": t.number, "step_description": t.description}
	started := ar.base
	started.Kind, started.Parent, started.Data = session.StepObservationStarted, t.span, base
	var completed, remaining []prompt.ObservedStep
	for _, o := range todos {
		switch o.status {
		case "completed":
			completed = append(completed, prompt.ObservedStep{Step: o.number, Description: o.description, Result: o.result})
		case "pending":
			remaining = append(remaining, prompt.ObservedStep{Step: o.number, Description: o.description})
		}
	}
	ar.rs.emit(started)
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: prompt.ObservationSystem},
		{Role: llm.RoleUser, Content: prompt.ObservationUser(ar.tr.text.description, ar.tr.text.expectedOutput, completed,
			prompt.ObservedStep{Step: t.number, Description: t.description, Result: t.result}, remaining)},
	}
	target := ar.planTarget()
	target.structured = stepObservationModel
	resp, err := ar.callLLMOn(ctx, t.span, target, msgs, nil, false)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return observation{}, err
		}
		// observe's except: step_observation_failed and a success
		// (planner_observer.py).
		ev := ar.base
		ev.Kind, ev.Parent = session.StepObservationFailed, t.span
		ev.Data = maps.Clone(base)
		ev.Data["error"] = err.Error()
		ar.rs.emit(ev)
		return observation{success: true, valid: true}, nil
	}
	obs := parseObservation(resp.Content)
	var summaries any
	if len(obs.refinements) > 0 {
		list := make([]any, len(obs.refinements))
		for i, r := range obs.refinements {
			list[i] = "Step " + strconv.Itoa(r.step) + ": " + r.description
		}
		summaries = list
	}
	ev := ar.base
	ev.Kind, ev.Parent = session.StepObservationCompleted, t.span
	ev.Data = map[string]any{"step_completed_successfully": obs.success, "key_information_learned": obs.learned,
		"remaining_plan_still_valid": obs.valid, "needs_full_replan": obs.replan, "replan_reason": obs.replanReason,
		"goal_already_achieved": obs.goal, "suggested_refinements": summaries}
	maps.Copy(ev.Data, base)
	ar.rs.emit(ev)
	return obs, nil
}

// parseObservation is _parse_observation_response (planner_observer.py)
// for a text reply: the JSON (or a fenced JSON block) validated as
// StepObservation, else a failed observation holding the reply.
func parseObservation(reply string) observation {
	text := strings.TrimSpace(reply)
	candidates := []string{text}
	if strings.HasPrefix(text, "```") {
		lines := strings.Split(text, "\n")
		inner := lines[1:]
		if strings.TrimSpace(lines[len(lines)-1]) == "```" && len(lines) > 1 {
			inner = lines[1 : len(lines)-1]
		}
		candidates = append(candidates, strings.TrimSpace(strings.Join(inner, "\n")))
	}
	for _, c := range candidates {
		if v, verr := stepObservationModel.model.ValidateJSON(c); verr == nil {
			return observationOf(v)
		}
	}
	return observation{learned: reply}
}

func observationOf(v *pyjson.Object) observation {
	get := func(k string) any { x, _ := v.Get(k); return x }
	var o observation
	o.success, _ = get("step_completed_successfully").(bool)
	o.valid, _ = get("remaining_plan_still_valid").(bool)
	o.replan, _ = get("needs_full_replan").(bool)
	o.goal, _ = get("goal_already_achieved").(bool)
	o.learned, _ = get("key_information_learned").(string)
	o.replanReason = get("replan_reason")
	list, _ := get("suggested_refinements").([]any)
	for _, it := range list {
		if r, ok := it.(*pyjson.Object); ok {
			n, _ := r.Get("step_number")
			d, _ := r.Get("new_description")
			ds, _ := d.(string)
			o.refinements = append(o.refinements, refinement{step: intOf(n), description: ds})
		}
	}
	return o
}

// routeObservation marks a single step by its observation as
// handle_step_observed_low/_medium and decide_next_action do
// (agent_executor.py:710-930) and reports whether the plan ends here:
// early goal achievement, or a replan (replan_now, which finalizes when no
// replan is left, :1011-1024; crewbench does not reproduce replanning).
func (ar *agentRun) routeObservation(t *todo, obs observation, todos []*todo) bool {
	switch ar.agent.Planning.Effort {
	case "high":
		switch {
		case obs.goal:
			ar.finishTodo(t, "completed", nil)
			ar.goalAchieved(t, todos)
			return true
		case obs.replan:
			ar.finishTodo(t, "failed", obs.replanReason)
			return ar.replanNow(cmp.Or(reasonText(obs.replanReason), "Dynamic replan triggered"))
		case !obs.success:
			ar.finishTodo(t, "failed", nil)
			return ar.replanNow("Step did not complete successfully")
		}
		ar.finishTodo(t, "completed", nil)
		if obs.valid && len(obs.refinements) > 0 {
			ar.refine(t, obs, todos)
		}
		return false
	default: // low and medium gate the same way on a failed step
		if obs.success {
			ar.finishTodo(t, "completed", nil)
			return false
		}
		if obs.replan {
			ar.finishTodo(t, "failed", obs.replanReason)
			return ar.replanNow(cmp.Or(reasonText(obs.replanReason), "Step did not complete successfully"))
		}
		ar.finishTodo(t, "failed", nil)
		return false
	}
}

// reasonText is a replan_reason (str | None) as text.
func reasonText(v any) string {
	s, _ := v.(string)
	return s
}

// replanNow is handle_replan_now: with replans left CrewAI would replan,
// which crewbench does not reproduce; either way the plan ends.
func (ar *agentRun) replanNow(reason string) bool {
	if ar.agent.Planning.MaxReplans > 0 {
		ar.replanGap(reason)
	}
	return true
}

// goalAchieved is handle_goal_achieved (agent_executor.py:985-1009).
func (ar *agentRun) goalAchieved(t *todo, todos []*todo) {
	var completed, pending []*todo
	for _, o := range todos {
		switch o.status {
		case "completed":
			completed = append(completed, o)
		case "pending":
			pending = append(pending, o)
		}
	}
	step := 0
	if len(completed) > 0 {
		step = completed[len(completed)-1].number
	}
	ev := ar.base
	ev.Kind, ev.Parent = session.GoalAchievedEarly, ar.span
	ev.Data = map[string]any{"agent_role": ar.p.role, "step_number": step, "step_description": "", "steps_completed": len(completed), "steps_remaining": len(pending)}
	ar.rs.emit(ev)
}

// refine is handle_refine_and_continue (agent_executor.py:932-976): the
// refinements' descriptions replace those of the pending steps they name,
// and plan_refinement reports them.
func (ar *agentRun) refine(t *todo, obs observation, todos []*todo) {
	var pending []*todo
	for _, o := range todos {
		if o.status == "pending" {
			pending = append(pending, o)
		}
	}
	summaries := make([]any, len(obs.refinements))
	for i, r := range obs.refinements {
		summaries[i] = "Step " + strconv.Itoa(r.step) + ": " + r.description
		if r.description == "" {
			continue
		}
		// A dict by step number: the last pending todo with the number.
		var target *todo
		for _, p := range pending {
			if p.number == r.step {
				target = p
			}
		}
		if target != nil {
			target.description = r.description
		}
	}
	ev := ar.base
	ev.Kind, ev.Parent = session.PlanRefinement, ar.span
	ev.Data = map[string]any{"agent_role": ar.p.role, "step_number": ar.lastObserved(t, todos), "step_description": "", "refined_step_count": len(pending), "refinements": summaries}
	ar.rs.emit(ev)
}

// lastObserved is max(state.observations): the highest step number
// observed so far.
func (ar *agentRun) lastObserved(t *todo, todos []*todo) int {
	n := t.number
	for _, o := range todos {
		if (o.status == "completed" || o.status == "failed") && o.number > n {
			n = o.number
		}
	}
	return n
}

// finishTodo is _mark_todo_completed / _mark_todo_failed: the status, then
// plan_step_completed (success, result, no error on these paths).
func (ar *agentRun) finishTodo(t *todo, status string, errText any) {
	t.status = status
	ar.planStepEvent(session.PlanStepCompleted, t, map[string]any{"success": status == "completed", "result": t.result, "error": errText})
	ev := ar.base
	ev.Kind, ev.Span, ev.Parent, ev.Outcome = session.AgentStepFinished, t.span, ar.span, "ok"
	if status == "failed" {
		ev.Outcome = "failed"
	}
	ev.Data = map[string]any{session.KeyStep: t.number, session.KeyPlanStep: true}
	ar.rs.emit(ev)
}

// shouldReplan is _should_replan (agent_executor.py:2537-2587) with no
// replan made yet: two failed todos, two results starting "Error:", or a
// replan phrase in the agent's last message.
func (ar *agentRun) shouldReplan(todos []*todo) (string, bool) {
	if ar.agent.Planning.MaxReplans <= 0 {
		return "", false
	}
	failed, errs := 0, 0
	for _, t := range todos {
		if t.status == "failed" {
			failed++
		}
		if strings.HasPrefix(t.result, "Error:") {
			errs++
		}
	}
	if failed >= 2 {
		return "Multiple todos failed (" + strconv.Itoa(failed) + " failures)", true
	}
	if errs >= 2 {
		return "Multiple todos encountered errors (" + strconv.Itoa(errs) + " errors)", true
	}
	if n := len(ar.messages); n > 0 {
		content := strings.ToLower(ar.messages[n-1].Content)
		for _, ind := range []string{"need to reconsider", "approach isn't working", "try a different approach", "replan", "revise the plan", "plan needs adjustment"} {
			if strings.Contains(content, ind) {
				return "Agent indicated replanning needed: '" + ind + "'", true
			}
		}
	}
	return "", false
}

func (ar *agentRun) replanGap(reason string) {
	ar.rs.warn(ar.span, ar.base, "agent "+ar.p.role+": CrewAI would replan here ("+reason+"); crewbench does not reproduce replanning and finalizes with the steps done so far")
}

// finalizePlan is finalize for the todos (agent_executor.py:2339-2411):
// the last todo's result when it reads as a final answer, else the
// synthesis call, else the completed steps' results.
func (ar *agentRun) finalizePlan(ctx context.Context, todos []*todo) (string, bool, error) {
	var withResults []*todo
	for _, t := range todos {
		if t.result != "" {
			withResults = append(withResults, t)
		}
	}
	if len(withResults) > 0 {
		if last := lastTodo(withResults); lastResultIsAnswer(last) {
			return last.result, false, nil
		}
		out, err := ar.synthesize(ctx, withResults)
		return out, false, err
	}
	var partial []string
	for _, t := range todos {
		if t.status == "completed" {
			r := t.result
			if r == "" {
				r = "(no result)"
			}
			partial = append(partial, "Step "+strconv.Itoa(t.number)+": "+r)
		}
	}
	if len(partial) > 0 {
		return strings.Join(partial, "\n\n"), false, nil
	}
	return prompt.PlanNoFinalOutput, false, nil
}

// lastTodo is max(todos, key=step_number): the first of the highest.
func lastTodo(todos []*todo) *todo {
	last := todos[0]
	for _, t := range todos[1:] {
		if t.number > last.number {
			last = t
		}
	}
	return last
}

// lastResultIsAnswer is _can_use_last_todo_result_as_final_answer
// (agent_executor.py:2413-2442) without a response model: no suggested
// tool, no error, at least 200 characters or 30 words, and a sentence
// mark.
func lastResultIsAnswer(t *todo) bool {
	if t.tool != "" {
		return false
	}
	r := strings.TrimSpace(t.result)
	if r == "" {
		return false
	}
	lower := strings.ToLower(r)
	if strings.HasPrefix(lower, "error:") || strings.Contains(lower, "tool execution error") {
		return false
	}
	return (utf8.RuneCountInString(r) >= 200 || len(strings.Fields(r)) >= 30) && strings.ContainsAny(r, ".!?")
}

// synthesize is _synthesize_final_answer_from_todos (agent_executor.py:
// 2444-2531): one call of the agent's LLM with the task (cut before an
// appended "Planning:") and each step's result; an error or an empty reply
// falls back to the results joined.
func (ar *agentRun) synthesize(ctx context.Context, todos []*todo) (string, error) {
	results := make([]string, len(todos))
	for i, t := range todos {
		results[i] = "Step " + strconv.Itoa(t.number) + " (" + t.description + "):\n" + t.result
	}
	combined := strings.Join(results, "\n\n")
	desc, _, _ := strings.Cut(ar.tr.text.description, "\n\nPlanning:\n")
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: prompt.SynthesisSystem(ar.p.role)},
		{Role: llm.RoleUser, Content: prompt.SynthesisUser(desc, combined)},
	}
	resp, err := ar.callLLMOn(ctx, ar.span, ar.agentTarget(), msgs, nil, false)
	if err != nil && (ctx.Err() != nil || errors.Is(err, ErrAborted)) {
		return "", err
	}
	if err == nil && resp.Content != "" {
		return resp.Content, nil
	}
	return combined, nil
}
