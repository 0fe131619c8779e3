package crew

import (
	"slices"
	"strings"
	"testing"

	"crewbench/session"
)

// The execution of a ready plan (experimental/agent_executor.py:643-1372,
// 2339-2536, agents/step_executor.py) against the loopback server. The
// texts are translations/en.json's "planning" slices.

// stepSystemWire is step_executor_system_prompt for the Writer agent
// without tools (step_executor.py:260-281: tools_section "").
const stepSystemWire = "You are Writer. You write.\n\nYour goal: Write well\n\nYou are executing ONE specific step in a larger plan. Your ONLY job is to fully complete this step — not to plan ahead.\n\nKey rules:\n- **ACT FIRST.** Execute the primary action of this step immediately. Do NOT read or explore files before attempting the main action unless exploration IS the step's goal.\n- If the step says 'run X', run X NOW. If it says 'write file Y', write Y NOW.\n- If the step requires producing an output file (e.g. /app/move.txt, report.jsonl, summary.csv), you MUST write that file using a tool call — do NOT just state the answer in text.\n- You may use tools MULTIPLE TIMES. After each tool use, check the result. If it failed, try a different approach.\n- Only output your Final Answer AFTER the concrete outcome is verified (file written, build succeeded, command exited 0).\n- If a command is not found or a path does not exist, fix it (different PATH, install missing deps, use absolute paths).\n- Do NOT spend more than 3 tool calls on exploration/analysis before attempting the primary action."

// stepUser is _build_user_prompt (step_executor.py:283-326): the task
// context (extract_task_section gives the whole short description), the
// step, the suggested tool, the dependency results, the closing line.
func stepUser(step, extra string) string {
	return "## Task Context\nThe following is the full task you are helping complete. Keep this in mind — especially any required output files, exact filenames, and expected formats.\n\nWrite about Berlin.\n\n---\n" +
		"\n## Current Step\n" + step + extra +
		"\n\n**Execute the primary action of this step NOW.** If the step requires writing a file, write it. If it requires running a command, run it. Verify the outcome with a follow-up tool call, then give your Final Answer. Your Final Answer must confirm what was DONE (file created at path X, command succeeded), not just what should be done."
}

func twoMessageBody(system, user string) string {
	return `{"messages":[{"role":"system","content":` + wireJSON(system) + `},{"role":"user","content":` + wireJSON(user) + `}],"model":"gpt-4o"}`
}

// planning: true (reasoning_effort "low", agent/core.py:396-403): each
// step is one StepExecutor call (a Final Answer is its result, other text
// the whole reply), observed by the heuristic; a dependency's result goes
// to the step that depends on it; a short last result is synthesized
// (agent_executor.py:2413-2442, 2444-2531). No agent_logs_started: the
// todos path never reaches initialize_reasoning (:1374).
func TestAgentPlanExecutesStepsAndSynthesizes(t *testing.T) {
	const plan = `call create_reasoning_plan {"plan":"Two steps.","steps":[` +
		`{"step_number":1,"description":"Find a fact.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Write the sentence.","tool_to_use":"search","depends_on":[1,1]}],"ready":true}`
	cs, prov := newChatServer(t, plan, "Thought: found\nFinal Answer: Berlin has 3.7 million people.", "Berlin is big.", "Berlin, with 3.7 million people, is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.body(t, 1), twoMessageBody(stepSystemWire, stepUser("Find a fact.", "")); got != want {
		t.Errorf("step 1 request\n got %s\nwant %s", got, want)
	}
	// step_executor_suggested_tool, step_executor_context_header and one
	// step_executor_context_entry for the repeated dependency (a dict,
	// agent_executor.py:622-626).
	if got, want := cs.body(t, 2), twoMessageBody(stepSystemWire, stepUser("Write the sentence.", "\n\nSuggested tool: search\n\n## Context from previous steps:\nStep 1 result: Berlin has 3.7 million people.")); got != want {
		t.Errorf("step 2 request\n got %s\nwant %s", got, want)
	}
	// synthesis_system_prompt and synthesis_user_prompt (agent_executor.py:2478-2485).
	synthSystem := "You are Writer. You have completed a multi-step task. Synthesize the results from all steps into a single, coherent final response that directly addresses the original task. Do NOT list step numbers or say 'Step 1 result'. Produce a clean, polished answer as if you did it all at once."
	synthUser := "## Original Task\nWrite about Berlin.\n\n## Results from each step\nStep 1 (Find a fact.):\nBerlin has 3.7 million people.\n\nStep 2 (Write the sentence.):\nBerlin is big.\n\nSynthesize these results into a single, coherent final answer."
	if got, want := cs.body(t, 3), twoMessageBody(synthSystem, synthUser); got != want {
		t.Errorf("synthesis request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != "Berlin, with 3.7 million people, is big." || len(cs.bodies) != 4 {
		t.Errorf("raw %q after %d requests", r.out.Raw, len(cs.bodies))
	}
	want := []session.Kind{
		session.FlowStarted, session.AgentReasoningStarted, session.LLMCallStarted, session.ToolUsageStarted, session.ToolUsageFinished, session.LLMCallCompleted, session.AgentReasoningCompleted,
		session.PlanStepStarted, session.LLMCallStarted, session.LLMCallCompleted, session.PlanStepCompleted,
		session.PlanStepStarted, session.LLMCallStarted, session.LLMCallCompleted, session.PlanStepCompleted,
		session.LLMCallStarted, session.LLMCallCompleted, session.AgentLogsExecution, session.FlowFinished, session.AgentExecutionCompleted,
	}
	got := crewAIKinds(r)
	if i := slices.Index(got, session.FlowStarted); i < 0 || !slices.Equal(got[i:min(len(got), i+len(want))], want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	var completed []string
	for _, ev := range r.events {
		if ev.Kind == session.PlanStepCompleted {
			// PlanStepCompletedEvent (events/types/observation_events.py).
			completed = append(completed, ev.Str("step_description")+"|"+ev.Str("result")+"|"+strings.ToLower(strings.TrimSpace(ev.Str("tool_to_use"))))
			if !ev.Bool("success") || ev.Str("agent_role") != "Writer" {
				t.Errorf("plan step completed %+v", ev.Data)
			}
		}
	}
	if !slices.Equal(completed, []string{"Find a fact.|Berlin has 3.7 million people.|", "Write the sentence.|Berlin is big.|search"}) {
		t.Errorf("completed steps %q", completed)
	}
	var titles []string
	session.BuildTree(r.events).Walk(func(n *session.Node, _ int) bool {
		if n.Kind == session.NodeStep {
			titles = append(titles, n.Title)
		}
		return true
	})
	if !slices.Equal(titles, []string{"plan step 1", "plan step 2"}) {
		t.Errorf("trace steps %q", titles)
	}
}

// Steps with no dependencies are ready together: all start, run, then are
// observed (execute_todos_parallel, agent_executor.py:1220-1354); a last
// result of 30 words with a sentence mark is the answer without synthesis
// (:2413-2442). A failed step (an empty reply, step_executor.py:359-360)
// is plan_step_completed with success false.
func TestAgentPlanParallelStepsUseLastResult(t *testing.T) {
	const plan = `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Two.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	long := strings.TrimSpace(strings.Repeat("Berlin is a big city. ", 8)) // 40 words
	cs, prov := newChatServer(t, plan, "", long)
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.body(t, 2), twoMessageBody(stepSystemWire, stepUser("Two.", "")); got != want {
		t.Errorf("step 2 request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != long || len(cs.bodies) != 3 {
		t.Errorf("raw %q after %d requests", r.out.Raw, len(cs.bodies))
	}
	var kinds []session.Kind
	var success []bool
	for _, ev := range r.events {
		switch ev.Kind {
		case session.PlanStepStarted, session.PlanStepCompleted, session.LLMCallStarted:
			kinds = append(kinds, ev.Kind)
		}
		if ev.Kind == session.PlanStepCompleted {
			success = append(success, ev.Bool("success"))
		}
	}
	want := []session.Kind{session.LLMCallStarted, session.PlanStepStarted, session.PlanStepStarted, session.LLMCallStarted, session.LLMCallStarted, session.PlanStepCompleted, session.PlanStepCompleted}
	if !slices.Equal(kinds, want) || !slices.Equal(success, []bool{false, true}) {
		t.Errorf("kinds %v, success %v", kinds, success)
	}
}
