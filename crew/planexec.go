package crew

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// The execution of a ready plan with steps, as CrewAI 1.15.17's
// AgentExecutor runs it instead of the agent loop (has_todos →
// get_ready_todos_method → execute_todo_sequential or
// execute_todos_parallel → observe_step_result → handle_step_observed_*,
// handle_replan_now / handle_replan, then finalize;
// experimental/agent_executor.py:643-1372, 2339-2761), at every
// reasoning_effort (the PlannerObserver's call, or the heuristic of "low"
// and observe_steps: false). Each step is a StepExecutor run
// (stepexec.go). Steps that are ready together run concurrently, as
// CrewAI runs them in threads (executeParallel).

// todo is TodoItem (utilities/planning_types.py:24-40).
type todo struct {
	planStep
	status string // pending, running, completed, failed
	result string
	span   string
}

// planState is what the AgentExecutor's state keeps of a plan's
// execution: the todos, replan_count and last_replan_reason.
type planState struct {
	todos      []*todo
	replans    int
	lastReason string
}

// deadlockReason is get_ready_todos_method's last_replan_reason when no
// todo is ready but the plan is not complete (agent_executor.py:1086-1093).
const deadlockReason = "No todos are ready but plan is not complete — likely a dependency deadlock or missing completion"

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
// (handle_replan routes to "no_todos" with no replan left or no pending
// todo after one).
func (ar *agentRun) executePlan(ctx context.Context, steps []planStep) (out string, ordinary bool, err error) {
	ps := &planState{todos: newTodos(steps)}
	for {
		ready := readyTodos(ps.todos)
		if len(ready) == 0 {
			if todosComplete(ps.todos) {
				return ar.finalizePlan(ctx, ps.todos)
			}
			ps.lastReason = deadlockReason
			if more, err := ar.handleReplan(ctx, ps); err != nil || !more {
				return "", err == nil, err
			}
			continue
		}
		if len(ready) == 1 {
			t := ready[0] // single_todo_ready marks the one todo (:1098-1100)
			ar.markRunning(t)
			ok, err := ar.executeStep(ctx, t, ps.todos)
			if err != nil {
				return "", false, err
			}
			obs, err := ar.observe(ctx, t, ok, ps.todos)
			if err != nil {
				return "", false, err
			}
			switch ar.routeObservation(ps, t, obs) {
			case routeFinalize:
				return ar.finalizePlan(ctx, ps.todos)
			case routeReplan:
				if more, err := ar.handleReplanNow(ctx, ps); err != nil || !more {
					if err != nil {
						return "", false, err
					}
					return ar.finalizePlan(ctx, ps.todos)
				}
			}
			continue
		}
		if err := ar.executeParallel(ctx, ps, ready); err != nil {
			return "", false, err
		}
		// after_parallel_execution (:1356-1372).
		if reason, ok := ar.shouldReplan(ps); ok {
			ps.lastReason = reason
			if more, err := ar.handleReplan(ctx, ps); err != nil || !more {
				return "", err == nil, err
			}
		}
	}
}

func newTodos(steps []planStep) []*todo {
	todos := make([]*todo, len(steps))
	for i, s := range steps {
		todos[i] = &todo{planStep: s, status: "pending"}
	}
	return todos
}

// executeParallel is execute_todos_parallel (agent_executor.py:1220-1354):
// every ready todo starts (plan_step_started in plan order), then the
// steps run at once, each a StepExecutor run in its own conversation with
// the results of its dependencies (asyncio.to_thread on the flow loop's
// default pool: parallelStepWorkers at a time, the first todos first).
// When all have returned, in plan order (asyncio.gather keeps its input's
// order): a step that raised (a tool failure under the raise policy) is
// failed with "Error: …" as its result and not observed; then the others
// are observed one after another and marked by the observation alone.
//
// A step's events are recorded in plan order, whatever order the steps
// ran in (session.Ordered): the first step's as they happen, a later
// step's once the steps before it are done. On a provider that serves
// replies in arrival order (scripted, replay) the steps run one after
// another instead, so a script or a recording answers the same step.
// An abort or a cancellation in one step cancels the others and ends the
// run once all have returned.
func (ar *agentRun) executeParallel(ctx context.Context, ps *planState, ready []*todo) error {
	for _, t := range ready {
		ar.markRunning(t)
	}
	oks, errs := make([]bool, len(ready)), make([]error, len(ready))
	if ar.stepsInOrder() {
		for i, t := range ready {
			oks[i], errs[i] = ar.executeStep(ctx, t, ps.todos)
			if errs[i] != nil && !raisedInStep(ctx, errs[i]) {
				return errs[i]
			}
		}
	} else if err := ar.runStepsAtOnce(ctx, ps, ready, oks, errs); err != nil {
		return err
	}
	var ran []*todo
	var success []bool
	for i, t := range ready {
		if errs[i] != nil {
			t.result = "Error: " + errs[i].Error()
			ar.finishTodo(t, "failed", t.result)
			continue
		}
		ran, success = append(ran, t), append(success, oks[i])
	}
	for i, t := range ran {
		obs, err := ar.observe(ctx, t, success[i], ps.todos)
		if err != nil {
			return err
		}
		ar.finishTodo(t, map[bool]string{true: "completed", false: "failed"}[obs.success], nil)
	}
	return nil
}

// raisedInStep reports whether a step's error is one asyncio.gather
// returns for the step (ToolExecutionFailedError, re-raised by
// StepExecutor.execute) rather than one that ends the run.
func raisedInStep(ctx context.Context, err error) bool {
	var tf *ToolExecutionFailedError
	return errors.As(err, &tf) && ctx.Err() == nil && !errors.Is(err, ErrAborted)
}

// runStepsAtOnce runs the ready todos' steps concurrently, at most
// parallelStepWorkers at a time, started in plan order, and fills oks and
// errs by todo. A step error that ends the run cancels the other steps;
// the first such error is returned after every step has returned.
func (ar *agentRun) runStepsAtOnce(ctx context.Context, ps *planState, ready []*todo, oks []bool, errs []error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	spans := make([]string, len(ready))
	for i, t := range ready {
		spans[i] = t.span
	}
	order := ar.rs.em.Order(spans)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fatal error
	)
	stop := func(err error) {
		mu.Lock()
		if fatal == nil {
			fatal = err
		}
		mu.Unlock()
		cancel()
	}
	sem := make(chan struct{}, min(parallelStepWorkers(), len(ready)))
	for i, t := range ready {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil {
			// The run is ending: a step not started yet is not started.
			stop(err)
			order.Done(t.span)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer order.Done(t.span)
			oks[i], errs[i] = ar.executeStep(ctx, t, ps.todos)
			if errs[i] != nil && !raisedInStep(ctx, errs[i]) {
				stop(errs[i])
			}
		}()
	}
	wg.Wait()
	return fatal
}

// parallelStepWorkers is the size of the pool asyncio.to_thread runs the
// steps in: the event loop's default ThreadPoolExecutor, min(32, CPUs + 4)
// (concurrent/futures/thread.py; Flow.kickoff runs a fresh loop).
func parallelStepWorkers() int {
	return min(32, runtime.NumCPU()+4)
}

// stepsInOrder reports whether the steps' LLM answers in arrival order
// (llm.ServesInOrder): the agent's, or the function_calling_llm a text
// step's tool call may ask.
func (ar *agentRun) stepsInOrder() bool {
	a := ar.agent
	return llm.ServesInOrder(a.LLM) || (a.FunctionCallingLLM != nil && llm.ServesInOrder(a.FunctionCallingLLM))
}

// handleReplanNow is handle_replan_now (agent_executor.py:1011-1051): with
// a replan left, plan_replan_triggered and the replan; more reports
// pending todos to run, else the plan finalizes.
func (ar *agentRun) handleReplanNow(ctx context.Context, ps *planState) (more bool, err error) {
	if ps.replans >= ar.agent.Planning.MaxReplans {
		return false, nil
	}
	ps.replans++
	reason := cmp.Or(ps.lastReason, "Dynamic replan triggered")
	completed := todosIn(ps.todos, "completed")
	step := 0
	if len(completed) > 0 {
		step = completed[len(completed)-1].number
	}
	ev := ar.base
	ev.Kind, ev.Parent = session.PlanReplanTriggered, ar.span
	ev.Data = map[string]any{"agent_role": ar.p.role, "step_number": step, "step_description": "", "replan_reason": reason,
		"replan_count": ps.replans, "completed_steps_preserved": len(completed)}
	ar.rs.emit(ev)
	if err := ar.triggerReplan(ctx, ps, reason); err != nil {
		return false, err
	}
	return len(todosIn(ps.todos, "pending")) > 0, nil
}

// handleReplan is handle_replan (agent_executor.py:2739-2761), the
// needs_replan route of a dependency deadlock or after parallel steps: no
// event of its own; more false is "no_todos", the ordinary agent loop.
func (ar *agentRun) handleReplan(ctx context.Context, ps *planState) (more bool, err error) {
	if ps.replans >= ar.agent.Planning.MaxReplans {
		return false, nil
	}
	ps.replans++
	if err := ar.triggerReplan(ctx, ps, cmp.Or(ps.lastReason, "Dynamic replan triggered")); err != nil {
		return false, err
	}
	return len(todosIn(ps.todos, "pending")) > 0, nil
}

// triggerReplan is _trigger_replan (agent_executor.py:2589-2674): the
// planning calls again (handle_agent_reasoning, with the task description
// enhanced by what the steps did so far); a ready plan with steps
// replaces the pending todos (replace_pending_todos), anything else keeps
// them; a failed replan is only its reason ("Replan failed: …").
func (ar *agentRun) triggerReplan(ctx context.Context, ps *planState, reason string) error {
	ps.lastReason = reason
	plan, err := ar.reason(ctx, prompt.ReplanDescription(ar.tr.text.description, ar.replanContext(ps)))
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return err
		}
		ps.lastReason = "Replan failed: " + err.Error()
		return nil
	}
	if !plan.ready || len(plan.steps) == 0 {
		return nil
	}
	kept := slices.DeleteFunc(slices.Clone(ps.todos), func(t *todo) bool { return t.status == "pending" })
	fresh := newTodos(plan.steps)
	for _, t := range fresh {
		if old := todoByStep(kept, t.number); old != nil {
			// TodoList finds todos by step number (planning_types.py:83-110):
			// CrewAI would mark the kept step running again and run it,
			// never the new one, without end.
			ar.rs.warn(ar.span, ar.base, "agent "+ar.p.role+": the new plan reuses step number "+strconv.Itoa(t.number)+
				" of a step already run; CrewAI's TodoList finds todos by number and would re-run the old step without end, crewbench runs the new step instead")
			break
		}
	}
	ps.todos = append(kept, fresh...)
	return nil
}

// replanContext is _build_replan_context (agent_executor.py:2676-2717).
func (ar *agentRun) replanContext(ps *planState) string {
	var parts []string
	if completed := todosIn(ps.todos, "completed"); len(completed) > 0 {
		parts = append(parts, "Successfully completed steps:")
		for _, t := range completed {
			parts = append(parts, "  - Step "+strconv.Itoa(t.number)+": "+t.description)
			if t.result != "" {
				parts = append(parts, "    Result: "+t.result)
			}
		}
	}
	var failed []*todo
	for _, t := range ps.todos {
		if t.status == "failed" || strings.HasPrefix(t.result, "Error:") {
			failed = append(failed, t)
		}
	}
	if len(failed) > 0 {
		parts = append(parts, "\nFailed or errored steps:")
		for _, t := range failed {
			parts = append(parts, "  - Step "+strconv.Itoa(t.number)+": "+t.description)
			if t.result != "" {
				parts = append(parts, "    Error: "+t.result)
			}
		}
	}
	if ps.replans > 0 {
		parts = append(parts, "\nThis is replan attempt "+strconv.Itoa(ps.replans)+".")
		if ps.lastReason != "" {
			parts = append(parts, "Previous replan reason: "+ps.lastReason)
		}
	}
	return strings.Join(parts, "\n")
}

// todosIn is get_completed_todos / get_pending_todos / get_failed_todos.
func todosIn(todos []*todo, status string) []*todo {
	var out []*todo
	for _, t := range todos {
		if t.status == status {
			out = append(out, t)
		}
	}
	return out
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

// route is where a single step's observation sends the plan.
type route int

const (
	routeContinue route = iota
	routeFinalize       // goal achieved early
	routeReplan         // replan_now
)

// routeObservation marks a single step by its observation as
// handle_step_observed_low/_medium and decide_next_action do
// (agent_executor.py:710-930), keeping the replan reason they set:
// continue, early goal achievement, or a replan.
func (ar *agentRun) routeObservation(ps *planState, t *todo, obs observation) route {
	switch ar.agent.Planning.Effort {
	case "high":
		switch {
		case obs.goal:
			ar.finishTodo(t, "completed", nil)
			ar.goalAchieved(t, ps.todos)
			return routeFinalize
		case obs.replan:
			ar.finishTodo(t, "failed", obs.replanReason)
			ps.lastReason = reasonText(obs.replanReason)
			return routeReplan
		case !obs.success:
			ar.finishTodo(t, "failed", nil)
			ps.lastReason = "Step did not complete successfully"
			return routeReplan
		}
		ar.finishTodo(t, "completed", nil)
		if obs.valid && len(obs.refinements) > 0 {
			ar.refine(t, obs, ps.todos)
		}
		return routeContinue
	default: // low and medium gate the same way on a failed step
		if obs.success {
			ar.finishTodo(t, "completed", nil)
			return routeContinue
		}
		if obs.replan {
			ar.finishTodo(t, "failed", obs.replanReason)
			ps.lastReason = cmp.Or(reasonText(obs.replanReason), "Step did not complete successfully")
			return routeReplan
		}
		ar.finishTodo(t, "failed", nil)
		return routeContinue
	}
}

// reasonText is a replan_reason (str | None) as text.
func reasonText(v any) string {
	s, _ := v.(string)
	return s
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

// shouldReplan is _should_replan (agent_executor.py:2537-2587): with a
// replan left, two failed todos, two results starting "Error:", or a
// replan phrase in the agent's last message.
func (ar *agentRun) shouldReplan(ps *planState) (string, bool) {
	if ps.replans >= ar.agent.Planning.MaxReplans {
		return "", false
	}
	failed, errs := 0, 0
	for _, t := range ps.todos {
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

// finalizePlan is finalize for the todos (agent_executor.py:2339-2411):
// the last todo's result when it reads as a final answer (never with an
// output model), else the synthesis call, else the completed steps'
// results.
func (ar *agentRun) finalizePlan(ctx context.Context, todos []*todo) (string, bool, error) {
	var withResults []*todo
	for _, t := range todos {
		if t.result != "" {
			withResults = append(withResults, t)
		}
	}
	if len(withResults) > 0 {
		if last := lastTodo(withResults); ar.responseModel == nil && lastResultIsAnswer(last) {
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
// (agent_executor.py:2413-2442) after its response model check: no suggested
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
// appended "Planning:") and each step's result, with the task's output
// model as its response_model; an error (a reply the model refuses
// included) or an empty reply falls back to the results joined. A reply
// to the output model is the agent's BaseModel result (planModel).
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
	target := ar.agentTarget()
	if ar.responseFormat != nil {
		target.structured = &builtinModel{format: ar.responseFormat, model: ar.responseModel}
	}
	resp, err := ar.callLLMOn(ctx, ar.span, target, msgs, nil, false)
	if err != nil && (ctx.Err() != nil || errors.Is(err, ErrAborted)) {
		return "", err
	}
	if err == nil && resp.Content != "" {
		ar.planModel = ar.responseFormat != nil
		return resp.Content, nil
	}
	return combined, nil
}
