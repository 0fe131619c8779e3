package crew

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/react"
	"crewbench/session"
)

// The execution of a ready plan with steps, as CrewAI 1.15.17's
// AgentExecutor runs it instead of the agent loop (has_todos →
// get_ready_todos_method → execute_todo_sequential or
// execute_todos_parallel → observe_step_result → handle_step_observed_*,
// then finalize; experimental/agent_executor.py:643-1372, 2339-2536).
// crewbench reproduces the heuristic observation (reasoning_effort "low",
// the default of planning: true, or observe_steps: false) for an agent
// without tools and a task without an output model; planExecutionGap names
// what else CrewAI would do.

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
	case ar.observesSteps():
		return "a PlannerObserver LLM call after each step (reasoning_effort " + ar.agent.Planning.Effort + " without observe_steps: false)"
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
			if ar.observeStep(t, success[i], len(ready) > 1) {
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

// observeStep applies the heuristic observation (PlannerObserver.
// heuristic_observation: the step's success, the plan still valid, no
// replan) as handle_step_observed_low/_medium and decide_next_action do
// (agent_executor.py:710-930), or as execute_todos_parallel marks its steps
// (:1301-1306): a success completes the step, a failure fails it; at high
// effort a failed single step replans.
// It reports whether the plan ends here (replan_now, which finalizes when
// no replan is left, :1011-1024).
func (ar *agentRun) observeStep(t *todo, success, parallel bool) bool {
	if success {
		ar.finishTodo(t, "completed")
		return false
	}
	ar.finishTodo(t, "failed")
	if parallel || ar.agent.Planning.Effort != "high" {
		return false
	}
	if ar.agent.Planning.MaxReplans > 0 {
		ar.replanGap("Step did not complete successfully")
	}
	return true
}

// finishTodo is _mark_todo_completed / _mark_todo_failed: the status, then
// plan_step_completed (success, result, no error on these paths).
func (ar *agentRun) finishTodo(t *todo, status string) {
	t.status = status
	ar.planStepEvent(session.PlanStepCompleted, t, map[string]any{"success": status == "completed", "result": t.result, "error": nil})
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
