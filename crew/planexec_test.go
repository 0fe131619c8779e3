package crew

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
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

// synthesisSystem is synthesis_system_prompt for the Writer
// (agent_executor.py:2478-2480).
const synthesisSystem = "You are Writer. You have completed a multi-step task. Synthesize the results from all steps into a single, coherent final response that directly addresses the original task. Do NOT list step numbers or say 'Step 1 result'. Produce a clean, polished answer as if you did it all at once."

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
	synthUser := "## Original Task\nWrite about Berlin.\n\n## Results from each step\nStep 1 (Find a fact.):\nBerlin has 3.7 million people.\n\nStep 2 (Write the sentence.):\nBerlin is big.\n\nSynthesize these results into a single, coherent final answer."
	if got, want := cs.body(t, 3), twoMessageBody(synthesisSystem, synthUser); got != want {
		t.Errorf("synthesis request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != "Berlin, with 3.7 million people, is big." || cs.received() != 4 {
		t.Errorf("raw %q after %d requests", r.out.Raw, cs.received())
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

// stepMarker is what the request body of the step with description desc
// holds (its user message, JSON-escaped), for answerByContent and meet.
func stepMarker(desc string) string { return `## Current Step\n` + desc }

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
	cs, prov := newChatServer(t, plan)
	cs.answerByContent(stepMarker("One."), "")
	cs.answerByContent(stepMarker("Two."), long)
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.bodyWith(t, stepMarker("Two.")), twoMessageBody(stepSystemWire, stepUser("Two.", "")); got != want {
		t.Errorf("step 2 request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != long || cs.received() != 3 {
		t.Errorf("raw %q after %d requests", r.out.Raw, cs.received())
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

// Two independent steps and one that depends on both, at medium effort.
// The two run at once (the server holds each until both are in flight,
// and answers step 2 first); each sends its own StepExecutor conversation.
// After both return they are observed in plan order, step 1 with nothing
// completed yet (step 2 is still running) and step 2 with step 1
// completed, each marked right after its observation. Step 3 gets both
// results by step number, and the synthesis every result in plan order
// (agent_executor.py:610-642, 1220-1354, 2444-2531). The recorded events
// put step 1's LLM call before step 2's, whichever finished first
// (session.Ordered), with Seq, emission_sequence and previous_event_id
// following the recorded order.
func TestAgentPlanParallelStepsRunAtOnce(t *testing.T) {
	const plan = `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"Count the people.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Measure the area.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":3,"description":"Write the sentence.","tool_to_use":null,"depends_on":[2,1]}],"ready":true}`
	const sentence = "Berlin has 3.7 million people on 891 square km."
	cs, prov := newChatServer(t, plan)
	for i := 1; i <= 3; i++ {
		cs.answerByContent(fmt.Sprintf("Just completed step %d", i), observationReply(true, false, "null"))
	}
	cs.answerByContent("Synthesize these results", "S.")
	cs.answerByContent(stepMarker("Count the people."), "Thought: counted\nFinal Answer: 3.7 million people.")
	cs.answerByContent(stepMarker("Measure the area."), "Final Answer: 891 square km.")
	cs.answerByContent(stepMarker("Write the sentence."), sentence)
	together := cs.meet(30*time.Second, stepMarker("Measure the area."), stepMarker("Count the people."))
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "medium", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !together.Met() {
		t.Error("the two independent steps were not in flight at the same time")
	}
	for _, tc := range []struct{ name, has, want string }{
		{"step 1", stepMarker("Count the people."), twoMessageBody(stepSystemWire, stepUser("Count the people.", ""))},
		{"step 2", stepMarker("Measure the area."), twoMessageBody(stepSystemWire, stepUser("Measure the area.", ""))},
		{"step 3", stepMarker("Write the sentence."), twoMessageBody(stepSystemWire, stepUser("Write the sentence.",
			"\n\n## Context from previous steps:\nStep 1 result: 3.7 million people.\nStep 2 result: 891 square km."))},
		{"observation 1", "Just completed step 1", chatBody(observationSystem, "## Original task\nWrite about Berlin.\n\n## Expected output\nOne sentence.\n\n\n"+
			"## Just completed step 1\nDescription: Count the people.\nResult: 3.7 million people.\n\n## Remaining plan steps:\n  Step 3: Write the sentence.\n\n"+
			"Analyze this step's result and provide your observation.", "gpt-4o", "StepObservation", observationSchemaWire)},
		{"observation 2", "Just completed step 2", chatBody(observationSystem, "## Original task\nWrite about Berlin.\n\n## Expected output\nOne sentence.\n\n"+
			"## Previously completed steps:\n  Step 1: Count the people.\n    Result: 3.7 million people.\n\n"+
			"## Just completed step 2\nDescription: Measure the area.\nResult: 891 square km.\n\n## Remaining plan steps:\n  Step 3: Write the sentence.\n\n"+
			"Analyze this step's result and provide your observation.", "gpt-4o", "StepObservation", observationSchemaWire)},
		{"synthesis", "Synthesize these results", twoMessageBody(synthesisSystem, "## Original Task\nWrite about Berlin.\n\n## Results from each step\n"+
			"Step 1 (Count the people.):\n3.7 million people.\n\nStep 2 (Measure the area.):\n891 square km.\n\nStep 3 (Write the sentence.):\n"+sentence+
			"\n\nSynthesize these results into a single, coherent final answer.")},
	} {
		if got := cs.bodyWith(t, tc.has); got != tc.want {
			t.Errorf("%s request\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	if r.out.Raw != "S." || cs.received() != 8 {
		t.Errorf("raw %q after %d requests", r.out.Raw, cs.received())
	}
	// The plan's events in recorded order: which step each LLM call and
	// observation belongs to, by the step scope it is in.
	stepOf := map[string]int{}
	var got []string
	for _, ev := range r.events {
		switch ev.Kind {
		case session.AgentStepStarted:
			stepOf[ev.Span] = int(ev.Int(session.KeyStep))
		case session.PlanStepStarted, session.PlanStepCompleted:
			got = append(got, fmt.Sprint(ev.Kind, " ", ev.Int("step_number")))
		case session.LLMCallStarted, session.LLMCallCompleted, session.StepObservationCompleted:
			if n, ok := stepOf[ev.Parent]; ok {
				got = append(got, fmt.Sprint(ev.Kind, " ", n))
			}
		}
	}
	want := []string{
		"plan_step_started 1", "plan_step_started 2",
		"llm_call_started 1", "llm_call_completed 1", "llm_call_started 2", "llm_call_completed 2",
		"llm_call_started 1", "llm_call_completed 1", "step_observation_completed 1", "plan_step_completed 1",
		"llm_call_started 2", "llm_call_completed 2", "step_observation_completed 2", "plan_step_completed 2",
		"plan_step_started 3", "llm_call_started 3", "llm_call_completed 3",
		"llm_call_started 3", "llm_call_completed 3", "step_observation_completed 3", "plan_step_completed 3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan events\n got %q\nwant %q", got, want)
	}
	checkRecordedOrder(t, r.events)
}

// checkRecordedOrder: Seq counts the events as recorded, and each CrewAI
// event's emission_sequence and previous_event_id follow the one recorded
// before it.
func checkRecordedOrder(t *testing.T, events []session.Event) {
	t.Helper()
	var last session.Event
	for i, ev := range events {
		if ev.Seq != events[0].Seq+int64(i) {
			t.Fatalf("event %d (%s) has seq %d after %d", i, ev.Kind, ev.Seq, events[max(i-1, 0)].Seq)
		}
		if !ev.Kind.IsCrewAI() || ev.Kind == session.DefaultEnv || ev.Kind == session.CrewKickoffStarted {
			if ev.Kind.IsCrewAI() {
				last = ev
			}
			continue
		}
		if ev.EmissionSequence != last.EmissionSequence+1 || ev.PreviousEventID != last.ID {
			t.Fatalf("event %d (%s): emission_sequence %d, previous_event_id %q after %s %d %q",
				i, ev.Kind, ev.EmissionSequence, ev.PreviousEventID, last.Kind, last.EmissionSequence, last.ID)
		}
		last = ev
	}
}

// observationSystem is planning.observation_system_prompt (translations/en.json).
const observationSystem = "You are a Planning Agent observing execution progress. After each step completes, you analyze what happened and decide whether the remaining plan is still valid.\n\nReason step-by-step about:\n1. Did this step produce a concrete, verifiable result? (file created, command succeeded, service running, etc.) — or did it only explore without acting?\n2. What new information was learned from this step's result?\n3. Whether the remaining steps still make sense given this new information\n4. What refinements, if any, are needed for upcoming steps\n5. Whether the overall goal has already been achieved\n\nCritical: mark `step_completed_successfully=false` if:\n- The step result is only exploratory (ls, pwd, cat) without producing the required artifact or action\n- A command returned a non-zero exit code and the error was not recovered\n- The step description required creating/building/starting something and the result shows it was not done\n\nBe conservative about triggering full replans — only do so when the remaining plan is fundamentally wrong, not just suboptimal.\n\nIMPORTANT: Set step_completed_successfully=false if:\n- The step's stated goal was NOT achieved (even if other things were done)\n- The first meaningful action returned an error (file not found, command not found, etc.)\n- The result is exploration/discovery output rather than the concrete action the step required\n- The step ran out of attempts without producing the required output\nSet needs_full_replan=true if the current plan's remaining steps reference paths or state that don't exist yet and need to be created first."

// observationSchemaWire is StepObservation through the OpenAI SDK's
// to_strict_json_schema (openai/lib/_pydantic.py): additionalProperties
// appended to both objects, required = every property, the None defaults
// dropped and the others kept.
const observationSchemaWire = `{"$defs":{"StepRefinement":{"description":"A structured in-place update for a single pending step.\n\nReturned as part of StepObservation when the Planner learns new\ninformation that makes a pending step description more specific.\nApplied directly — no second LLM call required.","properties":{"step_number":{"description":"The step number to update (1-based)","title":"Step Number","type":"integer"},"new_description":{"description":"The updated, more specific description for this step","title":"New Description","type":"string"}},"required":["step_number","new_description"],"title":"StepRefinement","type":"object","additionalProperties":false}},"description":"Planner's observation after a step execution completes.\n\nReturned by the PlannerObserver after EVERY step — not just failures.\nThe Planner uses this to decide whether to continue, refine, or replan.\n\nBased on PLAN-AND-ACT (Section 3.3): the Planner observes what the Executor\ndid and incorporates new information into the remaining plan.\n\nAttributes:\n    step_completed_successfully: Whether the step achieved its objective.\n    key_information_learned: New information revealed by this step\n        (e.g., \"Found 3 products: A, B, C\"). Used to refine upcoming steps.\n    remaining_plan_still_valid: Whether pending todos still make sense\n        given the new information. True does NOT mean no refinement needed.\n    suggested_refinements: Structured in-place updates to pending step\n        descriptions. Each entry targets a specific step by number. These\n        are applied directly without a second LLM call.\n        Example: [{\"step_number\": 3, \"new_description\": \"Select product B (highest rated)\"}]\n    needs_full_replan: The remaining plan is fundamentally wrong and must\n        be regenerated from scratch. Mutually exclusive with\n        remaining_plan_still_valid (if this is True, that should be False).\n    replan_reason: Explanation of why a full replan is needed (None if not).\n    goal_already_achieved: The overall task goal has been satisfied early.\n        No more steps needed — skip remaining todos and finalize.","properties":{"step_completed_successfully":{"description":"Whether the step achieved what it was asked to do","title":"Step Completed Successfully","type":"boolean"},"key_information_learned":{"default":"","description":"What new information this step revealed","title":"Key Information Learned","type":"string"},"remaining_plan_still_valid":{"default":true,"description":"Whether the remaining pending todos still make sense given new information","title":"Remaining Plan Still Valid","type":"boolean"},"suggested_refinements":{"anyOf":[{"items":{"$ref":"#/$defs/StepRefinement"},"type":"array"},{"type":"null"}],"description":"Structured updates to pending step descriptions based on new information. Each entry specifies a step_number and new_description. Applied directly — no separate replan needed.","title":"Suggested Refinements"},"needs_full_replan":{"default":false,"description":"The remaining plan is fundamentally wrong and must be regenerated","title":"Needs Full Replan","type":"boolean"},"replan_reason":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Explanation of why a full replan is needed","title":"Replan Reason"},"goal_already_achieved":{"default":false,"description":"The overall task goal has been satisfied early; no more steps needed","title":"Goal Already Achieved","type":"boolean"}},"required":["step_completed_successfully","key_information_learned","remaining_plan_still_valid","suggested_refinements","needs_full_replan","replan_reason","goal_already_achieved"],"title":"StepObservation","type":"object","additionalProperties":false}`

const twoSequentialSteps = `call create_reasoning_plan {"plan":"p","steps":[` +
	`{"step_number":1,"description":"Find a fact.","tool_to_use":null,"depends_on":[]},` +
	`{"step_number":2,"description":"Write it.","tool_to_use":null,"depends_on":[1]}],"ready":true}`

func observationReply(success, goal bool, refinements string) string {
	return fmt.Sprintf(`{"step_completed_successfully":%v,"key_information_learned":"k","remaining_plan_still_valid":true,"suggested_refinements":%s,"needs_full_replan":false,"replan_reason":null,"goal_already_achieved":%v}`, success, refinements, goal)
}

// reasoning_effort medium (the default of an explicit planning_config and
// of reasoning: true): after each step the PlannerObserver asks the
// planning LLM for a StepObservation (response_model, planner_observer.py
// observe/_build_observation_messages, translations observation_*); a step
// it calls unsuccessful, without needs_full_replan, is failed and the plan
// goes on (handle_step_observed_medium, agent_executor.py:782-846).
func TestAgentPlanObserverMedium(t *testing.T) {
	cs, prov := newChatServer(t, twoSequentialSteps, "Final Answer: Fact A.", observationReply(true, false, "null"),
		"Fact B.", observationReply(false, false, "null"), "S.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "medium", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	obs1 := "## Original task\nWrite about Berlin.\n\n## Expected output\nOne sentence.\n\n\n## Just completed step 1\nDescription: Find a fact.\nResult: Fact A.\n\n## Remaining plan steps:\n  Step 2: Write it.\n\nAnalyze this step's result and provide your observation."
	if got, want := cs.body(t, 2), chatBody(observationSystem, obs1, "gpt-4o", "StepObservation", observationSchemaWire); got != want {
		t.Errorf("observation 1\n got %s\nwant %s", got, want)
	}
	obs2 := "## Original task\nWrite about Berlin.\n\n## Expected output\nOne sentence.\n\n## Previously completed steps:\n  Step 1: Find a fact.\n    Result: Fact A.\n\n## Just completed step 2\nDescription: Write it.\nResult: Fact B.\n\n\nAnalyze this step's result and provide your observation."
	if got, want := cs.body(t, 4), chatBody(observationSystem, obs2, "gpt-4o", "StepObservation", observationSchemaWire); got != want {
		t.Errorf("observation 2\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != "S." || cs.received() != 6 {
		t.Errorf("raw %q after %d requests", r.out.Raw, cs.received())
	}
	var kinds []session.Kind
	var success []bool
	for _, ev := range r.events {
		switch ev.Kind {
		case session.PlanStepStarted, session.StepObservationStarted, session.StepObservationCompleted:
			kinds = append(kinds, ev.Kind)
		case session.PlanStepCompleted:
			kinds = append(kinds, ev.Kind)
			success = append(success, ev.Bool("success"))
		}
	}
	want := []session.Kind{session.PlanStepStarted, session.StepObservationStarted, session.StepObservationCompleted, session.PlanStepCompleted,
		session.PlanStepStarted, session.StepObservationStarted, session.StepObservationCompleted, session.PlanStepCompleted}
	if !slices.Equal(kinds, want) || !slices.Equal(success, []bool{true, false}) {
		t.Errorf("kinds %v, success %v", kinds, success)
	}
}

// reasoning_effort high: suggested refinements rewrite the pending step
// before it runs, with plan_refinement (handle_refine_and_continue,
// agent_executor.py:932-976); goal_already_achieved ends the plan with
// goal_achieved_early (:985-1009), here after step 1 of 3.
func TestAgentPlanObserverHighRefinesAndEndsEarly(t *testing.T) {
	const plan = `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"Find a fact.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Write it.","tool_to_use":null,"depends_on":[1]},` +
		`{"step_number":3,"description":"Check it.","tool_to_use":null,"depends_on":[2]}],"ready":true}`
	cs, prov := newChatServer(t, plan, "Fact A.", observationReply(true, false, `[{"step_number":2,"new_description":"Write about A."}]`),
		"Fact B.", observationReply(true, true, "null"), "S.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "high", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.body(t, 3), twoMessageBody(stepSystemWire, stepUser("Write about A.", "\n\n## Context from previous steps:\nStep 1 result: Fact A.")); got != want {
		t.Errorf("refined step 2 request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != "S." || cs.received() != 6 {
		t.Errorf("raw %q after %d requests", r.out.Raw, cs.received())
	}
	for _, ev := range r.events {
		switch ev.Kind {
		case session.PlanRefinement:
			// refined_step_count is every pending step (agent_executor.py:956-966).
			if ev.Int("step_number") != 1 || ev.Int("refined_step_count") != 2 || fmt.Sprint(ev.Data["refinements"]) != "[Step 2: Write about A.]" {
				t.Errorf("refinement %+v", ev.Data)
			}
		case session.GoalAchievedEarly:
			if ev.Int("step_number") != 2 || ev.Int("steps_completed") != 2 || ev.Int("steps_remaining") != 1 {
				t.Errorf("goal achieved %+v", ev.Data)
			}
		}
	}
	if r.count(session.PlanRefinement) != 1 || r.count(session.GoalAchievedEarly) != 1 {
		t.Errorf("refinements %d, goals %d", r.count(session.PlanRefinement), r.count(session.GoalAchievedEarly))
	}
}

// forecastParamsWire is get_forecast's parameters as CrewAI 1.15.17 sent
// them in the native_basic golden (testdata/goldens/golden/native_basic).
const forecastParamsWire = `{"additionalProperties":false,"properties":{"city":{"description":"City name.. Examples: 'Berlin', 'Lisbon'","type":"string"},"days":{"anyOf":[{"maximum":7,"minimum":1,"type":"integer"},{"type":"null"}],"description":"Number of days, 1 to 7.. Minimum: 1. Maximum: 7"},"units":{"anyOf":[{"enum":["metric","imperial"],"type":"string"},{"type":"null"}],"description":"Temperature units.. Allowed values: ['metric', 'imperial']"}},"required":["city","days","units"],"type":"object"}`

// forecastResult is the weather fixture's reply for Berlin over 2 days, as
// the goldens' tool messages and observations carry it.
const forecastResult = "{\n  \"city\": \"Berlin\",\n  \"units\": \"metric\",\n  \"days\": [\n    {\n      \"day\": 1,\n      \"condition\": \"light rain\",\n      \"high\": 13,\n      \"low\": 6\n    },\n    {\n      \"day\": 2,\n      \"condition\": \"sunny\",\n      \"high\": 14,\n      \"low\": 7\n    }\n  ]\n}"

// stepExecutorSystem is step_executor_system_prompt for the Writer with
// tools_section (step_executor.py:260-281).
func stepExecutorSystem(section string) string { return stepSystemWire + section }

// plannedForecastCrew is the Writer with the weather fixture's
// get_forecast (filtered as in the goldens) and a one-step plan that
// suggests it; it returns the tool's LLM name.
func plannedForecastCrew(t *testing.T, m *MCP, prov llm.Provider) (*Crew, string) {
	t.Helper()
	spec := fixtureSpec("weather")
	spec.Filter = mcpconn.FilterSpec{Allowed: []string{"get_forecast"}}
	c := guardedCrew(prov, nil, false, 0)
	a := c.Agents[0]
	a.MCPs = []MCPRef{{Spec: spec}}
	name := discoverOne(t, m, a, "getForecast")
	a.Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	return c, name
}

// queue adds replies once the tool names they hold are known.
func (cs *chatServer) queue(replies ...string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.replies = append(cs.replies, replies...)
}

func onePlannedStep(tool string) string {
	return `call create_reasoning_plan {"plan":"p","steps":[{"step_number":1,"description":"Get the forecast.","tool_to_use":"` + tool + `","depends_on":[]}],"ready":true}`
}

// A plan step of an agent with native function calling
// (StepExecutor._execute_native, step_executor.py:524-651): the agent's
// tools offered as the agent loop offers them and "Available tools: …" in
// the system message; the tool call runs through
// execute_single_native_tool_call with the plan step on its events, its
// result goes back as a tool message after the assistant message with
// null content, and the text reply is the step's result, synthesized at
// the end as the suggested tool keeps the last result from being the
// answer (agent_executor.py:2425-2427).
func TestAgentPlanStepCallsMCPToolNatively(t *testing.T) {
	for _, tc := range []struct {
		name string
		// iterations is max_step_iterations (0: the default, 15).
		iterations int
		// replies after the plan and the tool call.
		replies []string
		// result is the step's result, as the synthesis request holds it.
		result string
	}{
		{"a text reply ends the step", 0, []string{"Rain, then sun.", "S."}, "Rain, then sun."},
		// Out of iterations, the batches' results joined are the result
		// (step_executor.py:577).
		{"out of iterations", 1, []string{"S."}, forecastResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &MCP{}
			cs, prov := newChatServer(t)
			c, name := plannedForecastCrew(t, m, prov)
			c.Agents[0].Planning.MaxStepIterations = tc.iterations
			cs.queue(onePlannedStep(name), "call "+name+` {"city": "Berlin", "days": 2}`)
			cs.queue(tc.replies...)
			r := kickoff(t, c, nil, Options{MCP: m})
			if r.err != nil {
				t.Fatal(r.err)
			}
			system := `{"role":"system","content":` + wireJSON(stepExecutorSystem("\n\nAvailable tools: "+name)) + `}`
			user := `{"role":"user","content":` + wireJSON(stepUser("Get the forecast.", "\n\nSuggested tool: "+name)) + `}`
			tools := `"model":"gpt-4o","tool_choice":"auto","tools":[{"type":"function","function":{"name":"` + name + `","description":"Daily weather forecast for a city.","strict":true,"parameters":` + forecastParamsWire + `}}]}`
			if got, want := cs.body(t, 1), `{"messages":[`+system+`,`+user+`],`+tools; got != want {
				t.Errorf("step request 1\n got %s\nwant %s", got, want)
			}
			last := cs.received() - 1
			if tc.iterations == 0 {
				assistant := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"` + name + `","arguments":"{\"city\": \"Berlin\", \"days\": 2}"}}]}`
				toolMsg := `{"role":"tool","tool_call_id":"call_1","name":"` + name + `","content":` + wireJSON(forecastResult) + `}`
				if got, want := cs.body(t, 2), `{"messages":[`+system+`,`+user+`,`+assistant+`,`+toolMsg+`],`+tools; got != want {
					t.Errorf("step request 2\n got %s\nwant %s", got, want)
				}
			}
			synthesized := wireJSON("Step 1 (Get the forecast.):\n" + tc.result)
			if !strings.Contains(cs.body(t, last), synthesized[1:len(synthesized)-1]) || r.out.Raw != "S." || last != 2+len(tc.replies)-1 {
				t.Errorf("synthesis %s, raw %q after %d requests", cs.body(t, last), r.out.Raw, cs.received())
			}
			if sent := sentArguments(r); len(sent) != 1 || sent[0] != `{"city":"Berlin","days":2,"units":"metric"}` {
				t.Errorf("arguments sent: %q", sent)
			}
			var steps []string
			for _, ev := range r.events {
				if (ev.Kind == session.ToolUsageStarted || ev.Kind == session.ToolUsageFinished) && ev.Str("tool_name") == name {
					steps = append(steps, fmt.Sprint(ev.Kind, " ", ev.Data["plan_step_number"], " ", ev.Data["plan_step_description"]))
				}
			}
			if want := []string{"tool_usage_started 1 Get the forecast.", "tool_usage_finished 1 Get the forecast."}; !slices.Equal(steps, want) {
				t.Errorf("tool events %q", steps)
			}
		})
	}
}

// A plan step in text mode (an agent LLM without function calling; the
// plan comes from a planning_config.llm that has it): the system message
// gets step_executor_tools_section with the ReAct format and no tools are
// offered; an Action runs the tool (ToolUsage's events inside the
// StepExecutor's own pair), and the reply and "Observation: …" are
// appended as they are (step_executor.py:328-378). A Final Answer ends the
// step. A step whose suggested tool was never called fails
// (_validate_expected_tool_usage, :491-522).
func TestAgentPlanStepReActCallsMCPTool(t *testing.T) {
	action := "Thought: look it up\nAction: NAME\nAction Input: {\"city\": \"Berlin\", \"days\": 2}"
	for _, tc := range []struct {
		name    string
		replies []string
		success bool
	}{
		{"action then final answer", []string{action, "Thought: done\nFinal Answer: Rain, then sun.", "S."}, true},
		{"suggested tool not called", []string{"Final Answer: Rain, then sun."}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &MCP{}
			cs, planner := newChatServer(t)
			text, err := llm.New(llm.Config{Model: "gpt-4o", BaseURL: cs.url, APIKey: "sk-test", FunctionCalling: new(bool)})
			if err != nil {
				t.Fatal(err)
			}
			c, name := plannedForecastCrew(t, m, text)
			c.Agents[0].Planning.LLM, c.Agents[0].Planning.Model = planner, "gpt-4o"
			cs.queue(onePlannedStep(name))
			for _, reply := range tc.replies {
				cs.queue(strings.ReplaceAll(reply, "NAME", name))
			}
			r := kickoff(t, c, nil, Options{MCP: m})
			if r.err != nil {
				t.Fatal(r.err)
			}
			section := "\n\nAvailable tools: " + name + "\n\nYou may call tools multiple times in sequence. Use this format for EACH tool call:\nThought: <what you observed and what you will try next>\nAction: <tool_name>\nAction Input: <input>\n\nAfter observing each result, decide: is the step complete? If yes:\nThought: The step is done because <evidence>\nFinal Answer: <concise summary of what was accomplished and the key result>"
			system := stepExecutorSystem(section)
			user := stepUser("Get the forecast.", "\n\nSuggested tool: "+name)
			if got, want := cs.body(t, 1), twoMessageBody(system, user); got != want {
				t.Errorf("step request 1\n got %s\nwant %s", got, want)
			}
			var success []bool
			for _, ev := range r.events {
				if ev.Kind == session.PlanStepCompleted {
					success = append(success, ev.Bool("success"))
				}
			}
			if !slices.Equal(success, []bool{tc.success}) {
				t.Errorf("step success %v", success)
			}
			if !tc.success {
				// No result: finalize's fallback, without synthesis.
				if r.out.Raw != "Agent completed execution but produced no final output." || cs.received() != 2 {
					t.Errorf("raw %q after %d requests", r.out.Raw, cs.received())
				}
				return
			}
			want := `{"messages":[{"role":"system","content":` + wireJSON(system) + `},{"role":"user","content":` + wireJSON(user) +
				`},{"role":"assistant","content":` + wireJSON(strings.ReplaceAll(action, "NAME", name)) + `},{"role":"user","content":` + wireJSON("Observation: "+forecastResult) + `}],"model":"gpt-4o"}`
			if got := cs.body(t, 2); got != want {
				t.Errorf("step request 2\n got %s\nwant %s", got, want)
			}
			if r.out.Raw != "S." || cs.received() != 4 {
				t.Errorf("raw %q after %d requests", r.out.Raw, cs.received())
			}
			// The StepExecutor's pair (the plan step, the input parsed)
			// around ToolUsage's.
			var tools []string
			for _, ev := range r.events {
				if (ev.Kind == session.ToolUsageStarted || ev.Kind == session.ToolUsageFinished) && ev.Str("tool_name") == name {
					tools = append(tools, fmt.Sprint(ev.Kind, " ", ev.Data["plan_step_number"]))
				}
			}
			if want := []string{"tool_usage_started 1", "tool_usage_started <nil>", "tool_usage_finished <nil>", "tool_usage_finished 1"}; !slices.Equal(tools, want) {
				t.Errorf("tool events %q", tools)
			}
		})
	}
}

// needs_full_replan at medium effort (handle_step_observed_medium →
// handle_replan_now, agent_executor.py:782-846, 1011-1051):
// plan_replan_triggered, then the planning calls again with the task
// description enhanced by _build_replan_context and
// replan_enhancement_prompt (:2589-2737); the new plan's steps replace the
// pending ones, the failed step is kept for the synthesis.
func TestAgentPlanReplansAfterNeedsFullReplan(t *testing.T) {
	const replanned = `call create_reasoning_plan {"plan":"p2","steps":[{"step_number":3,"description":"Search again.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	failed := `{"step_completed_successfully":false,"key_information_learned":"","remaining_plan_still_valid":false,"suggested_refinements":null,"needs_full_replan":true,"replan_reason":"No source.","goal_already_achieved":false}`
	cs, prov := newChatServer(t, twoSequentialSteps, "Final Answer: Nothing found.", failed, replanned,
		"Final Answer: Berlin has 3.7 million people.", observationReply(true, false, "null"), "S.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "medium", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	enhanced := "Write about Berlin.\n\nIMPORTANT: Previous execution attempt did not fully succeed. Please create a revised plan that accounts for the following context from the previous attempt:\n\n" +
		"\nFailed or errored steps:\n  - Step 1: Find a fact.\n    Error: Nothing found.\n\nThis is replan attempt 1.\nPrevious replan reason: No source." +
		"\n\nConsider:\n1. What steps succeeded and can be built upon\n2. What steps failed and why they might have failed\n3. Alternative approaches that might work better\n4. Whether dependencies need to be restructured"
	if got, want := cs.body(t, 3), planBody(strings.Replace(planCreateUser, "## Task\nWrite about Berlin.\n", "## Task\n"+enhanced+"\n", 1)); got != want {
		t.Errorf("replan request\n got %s\nwant %s", got, want)
	}
	if got, want := cs.body(t, 4), twoMessageBody(stepSystemWire, stepUser("Search again.", "")); got != want {
		t.Errorf("new step request\n got %s\nwant %s", got, want)
	}
	synthUser := "## Original Task\nWrite about Berlin.\n\n## Results from each step\nStep 1 (Find a fact.):\nNothing found.\n\nStep 3 (Search again.):\nBerlin has 3.7 million people.\n\nSynthesize these results into a single, coherent final answer."
	if got := cs.body(t, 6); !strings.Contains(got, wireJSON(synthUser)[1:len(wireJSON(synthUser))-1]) || r.out.Raw != "S." || cs.received() != 7 {
		t.Errorf("synthesis %s, raw %q after %d requests", got, r.out.Raw, cs.received())
	}
	var kinds []session.Kind
	for _, ev := range r.events {
		switch ev.Kind {
		case session.PlanReplanTriggered:
			if ev.Str("replan_reason") != "No source." || ev.Int("replan_count") != 1 || ev.Int("completed_steps_preserved") != 0 || ev.Int("step_number") != 0 {
				t.Errorf("replan triggered %+v", ev.Data)
			}
			fallthrough
		case session.PlanStepStarted, session.PlanStepCompleted, session.AgentReasoningStarted, session.AgentReasoningCompleted:
			kinds = append(kinds, ev.Kind)
		}
	}
	want := []session.Kind{session.AgentReasoningStarted, session.AgentReasoningCompleted, session.PlanStepStarted, session.PlanStepCompleted,
		session.PlanReplanTriggered, session.AgentReasoningStarted, session.AgentReasoningCompleted, session.PlanStepStarted, session.PlanStepCompleted}
	if !slices.Equal(kinds, want) {
		t.Errorf("events\n got %v\nwant %v", kinds, want)
	}
}

// A planned task with output_json: the last result is never the answer
// with a response model (agent_executor.py:2417-2419), and the synthesis
// call carries it as response_format (:2491-2512); the model's reply is
// the agent's BaseModel result, the task's raw its model_dump_json().
func TestAgentPlanSynthesisWithOutputJSON(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("Berlin is a big city. ", 8)) // would be the answer without a model
	cs, prov := newChatServer(t, `call create_reasoning_plan {"plan":"p","steps":[{"step_number":1,"description":"Get it.","tool_to_use":null,"depends_on":[]}],"ready":true}`,
		"Final Answer: "+long, `{"city": "Berlin", "days": 2, "summary": "Big."}`)
	c := guardedCrew(prov, nil, false, 0)
	schema, err := pyjson.LoadsObject(forecastSchema)
	if err != nil {
		t.Fatal(err)
	}
	c.Tasks[0].OutputJSON = schema
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.body(t, 1), twoMessageBody(stepSystemWire, stepUser("Get it.", "")); got != want {
		t.Errorf("step request\n got %s\nwant %s", got, want)
	}
	synthUser := "## Original Task\nWrite about Berlin.\n\n## Results from each step\nStep 1 (Get it.):\n" + long + "\n\nSynthesize these results into a single, coherent final answer."
	if got, want := cs.body(t, 2), chatBody(synthesisSystem, synthUser, "gpt-4o", "Forecast", forecastWire); got != want {
		t.Errorf("synthesis request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != `{"city":"Berlin","days":2,"summary":"Big."}` || r.out.JSONDict == nil || cs.received() != 3 {
		t.Errorf("raw %q, json %v after %d requests", r.out.Raw, r.out.JSONDict, cs.received())
	}
}

// A dependency deadlock (no todo ready, the plan not complete) is
// needs_replan (get_ready_todos_method, agent_executor.py:1069-1102):
// handle_replan replans without plan_replan_triggered, the deadlock as the
// previous reason (:2739-2761); with no replan left the todos are left for
// the agent loop ("no_todos").
func TestAgentPlanDeadlockReplans(t *testing.T) {
	const deadlocked = `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[2]},` +
		`{"step_number":2,"description":"Two.","tool_to_use":null,"depends_on":[1]}],"ready":true}`
	const replanned = `call create_reasoning_plan {"plan":"p2","steps":[{"step_number":3,"description":"Write it.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	long := strings.TrimSpace(strings.Repeat("Berlin is a big city. ", 8))
	for _, tc := range []struct {
		name     string
		replans  int
		replies  []string
		requests int
	}{
		{"a replan left", 3, []string{replanned, "Final Answer: " + long}, 3},
		{"no replan left", 0, []string{long}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, prov := newChatServer(t, append([]string{deadlocked}, tc.replies...)...)
			c := guardedCrew(prov, nil, false, 0)
			c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: tc.replans}
			r := kickoff(t, c, nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.out.Raw != long || cs.received() != tc.requests || r.count(session.PlanReplanTriggered) != 0 {
				t.Fatalf("raw %q after %d requests, %d replan events", r.out.Raw, cs.received(), r.count(session.PlanReplanTriggered))
			}
			if tc.replans == 0 {
				// The agent loop's own request, after agent_logs_started.
				if !strings.Contains(cs.body(t, 1), `Current Task: Write about Berlin.`) || r.count(session.AgentLogsStarted) != 1 {
					t.Errorf("agent loop request %s", cs.body(t, 1))
				}
				return
			}
			enhanced := "Write about Berlin.\n\nIMPORTANT: Previous execution attempt did not fully succeed. Please create a revised plan that accounts for the following context from the previous attempt:\n\n" +
				"\nThis is replan attempt 1.\nPrevious replan reason: No todos are ready but plan is not complete — likely a dependency deadlock or missing completion" +
				"\n\nConsider:\n1. What steps succeeded and can be built upon\n2. What steps failed and why they might have failed\n3. Alternative approaches that might work better\n4. Whether dependencies need to be restructured"
			if got, want := cs.body(t, 1), planBody(strings.Replace(planCreateUser, "## Task\nWrite about Berlin.\n", "## Task\n"+enhanced+"\n", 1)); got != want {
				t.Errorf("replan request\n got %s\nwant %s", got, want)
			}
			if got, want := cs.body(t, 2), twoMessageBody(stepSystemWire, stepUser("Write it.", "")); got != want {
				t.Errorf("new step request\n got %s\nwant %s", got, want)
			}
		})
	}
}

// downTool always fails with "down for maintenance".
func downTool() Tool {
	return NewFuncTool("down", "Always down.", nil, func(context.Context, *pyjson.Object) ToolResult {
		return ToolResult{Failure: &ToolFailure{Message: "down for maintenance", Reason: ReasonToolReported}}
	})
}

// A tool failure under the raise policy is ToolExecutionFailedError, which
// StepExecutor.execute re-raises (step_executor.py:209-212): a single step
// fails the run.
func TestAgentPlanStepToolFailureUnderRaise(t *testing.T) {
	single := `call create_reasoning_plan {"plan":"p","steps":[{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	cs, prov := newChatServer(t, single, `call down {}`)
	c := guardedCrew(prov, nil, false, 0)
	c.ToolFailurePolicy = PolicyRaise
	c.Agents[0].Tools = []Tool{downTool()}
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err == nil || r.err.Error() != "Tool 'down' failed during 'write': down for maintenance" || cs.received() != 2 {
		t.Fatalf("err %v after %d requests", r.err, cs.received())
	}
}

// Failing parallel steps, both in flight at once. A step that raises
// (a tool failure under the raise policy) is returned by asyncio.gather:
// the step is failed with "Error: …" as its result and error, unobserved,
// before the others are observed, while the others go on
// (agent_executor.py:1250-1275). A step that fails inside the
// StepExecutor (an empty reply) is observed as failed. Two failed todos
// after the batch are after_parallel_execution's replan (_should_replan,
// handle_replan: no plan_replan_triggered, :1356-1372, 2537-2587,
// 2739-2761), with both steps in the replan context.
func TestAgentPlanParallelStepFailures(t *testing.T) {
	parallel := `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Two.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	replanned := `call create_reasoning_plan {"plan":"p2","steps":[{"step_number":3,"description":"Three.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	const raised = "Error: Tool 'down' failed during 'write': down for maintenance"
	long := strings.TrimSpace(strings.Repeat("Berlin is a big city. ", 8))
	for _, tc := range []struct {
		name       string
		one, two   string
		plans      []string
		completed  []string
		requests   int
		replanFrom string // what the replan request holds ("" for no replan)
	}{
		{"a raising step", `call down {}`, long, []string{parallel}, []string{"1 false " + raised + " " + raised, "2 true " + long + " <nil>"}, 3, ""},
		{"two failed steps replan", nullReply, `call down {}`, []string{parallel, replanned},
			[]string{"2 false " + raised + " " + raised, "1 false  <nil>", "3 true " + long + " <nil>"}, 5,
			"\nFailed or errored steps:\n  - Step 1: One.\n  - Step 2: Two.\n    Error: " + raised +
				"\n\nThis is replan attempt 1.\nPrevious replan reason: Multiple todos failed (2 failures)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, prov := newChatServer(t, tc.plans...)
			cs.answerByContent(stepMarker("One."), tc.one)
			cs.answerByContent(stepMarker("Two."), tc.two)
			cs.answerByContent(stepMarker("Three."), long) // native mode: the text is the result
			together := cs.meet(30*time.Second, stepMarker("One."), stepMarker("Two."))
			c := guardedCrew(prov, nil, false, 0)
			c.ToolFailurePolicy = PolicyRaise
			c.Agents[0].Tools = []Tool{downTool()}
			c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
			r := kickoff(t, c, nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if !together.Met() {
				t.Error("the two steps were not in flight at the same time")
			}
			var completed []string
			for _, ev := range r.events {
				if ev.Kind == session.PlanStepCompleted {
					completed = append(completed, fmt.Sprint(ev.Int("step_number"), " ", ev.Bool("success"), " ", ev.Str("result"), " ", ev.Data["error"]))
				}
			}
			if !slices.Equal(completed, tc.completed) || r.out.Raw != long || cs.received() != tc.requests || r.count(session.PlanReplanTriggered) != 0 {
				t.Errorf("steps %q, raw %q after %d requests", completed, r.out.Raw, cs.received())
			}
			if tc.replanFrom != "" {
				if got := cs.bodyWith(t, "This is replan attempt 1."); !strings.Contains(got, wireJSON(tc.replanFrom)[1:len(wireJSON(tc.replanFrom))-1]) {
					t.Errorf("replan request %s", got)
				}
			}
			checkRecordedOrder(t, r.events)
		})
	}
}

// step_timeout is checked before each of a step's LLM calls
// (step_executor.py:539-548): past it the step ends, successfully, with
// the tool results so far, or "Step timed out after Ns" without any. The
// clock here moves 10 s each time it is read.
func TestAgentPlanStepTimeout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeout  time.Duration
		result   string
		requests int
	}{
		{"after a tool call", 15 * time.Second, "Sunny in Berlin", 3},
		{"before the first call", 5 * time.Second, "Step timed out after 10s", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, prov := newChatServer(t, `call create_reasoning_plan {"plan":"p","steps":[{"step_number":1,"description":"Look.","tool_to_use":null,"depends_on":[]}],"ready":true}`,
				`call get_forecast {"city": "Berlin"}`, "S.", "S.")
			c := guardedCrew(prov, nil, false, 0)
			c.Agents[0].Tools = []Tool{weatherTool(new(atomic.Int64))}
			c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3, StepTimeout: tc.timeout}
			var ticks atomic.Int64
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			r := kickoff(t, c, nil, Options{Now: func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * 10 * time.Second) }})
			if r.err != nil {
				t.Fatal(r.err)
			}
			var completed []string
			for _, ev := range r.events {
				if ev.Kind == session.PlanStepCompleted {
					completed = append(completed, fmt.Sprint(ev.Bool("success"), " ", ev.Str("result")))
				}
			}
			if !slices.Equal(completed, []string{"true " + tc.result}) || cs.received() != tc.requests {
				t.Errorf("steps %q after %d requests", completed, cs.received())
			}
		})
	}
}

// Parallel steps that call a tool, natively and in text mode: each step
// is its own conversation (its tool result comes back to it alone), both
// are in flight at once, and the tool events, which carry the plan step,
// are recorded step by step.
func TestAgentPlanParallelStepsCallTools(t *testing.T) {
	const plan = `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Two.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	for _, tc := range []struct {
		name       string
		text       bool
		one, two   []string
		toolEvents []string
	}{
		{"native", false,
			[]string{`call get_forecast {"city": "Berlin"}`, "one done."}, []string{`call get_forecast {"city": "Lisbon"}`, "two done."},
			[]string{"tool_usage_started 1", "tool_usage_finished 1", "tool_usage_started 2", "tool_usage_finished 2"}},
		{"text", true,
			[]string{"Thought: t\nAction: get_forecast\nAction Input: {\"city\": \"Berlin\"}", "Final Answer: one done."},
			[]string{"Thought: t\nAction: get_forecast\nAction Input: {\"city\": \"Lisbon\"}", "Final Answer: two done."},
			// The StepExecutor's pair around ToolUsage's (no plan step).
			[]string{"tool_usage_started 1", "tool_usage_started <nil>", "tool_usage_finished <nil>", "tool_usage_finished 1",
				"tool_usage_started 2", "tool_usage_started <nil>", "tool_usage_finished <nil>", "tool_usage_finished 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, prov := newChatServer(t, plan)
			c := guardedCrew(prov, nil, false, 0)
			c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
			if tc.text {
				text, err := llm.New(llm.Config{Model: "gpt-4o", BaseURL: cs.url, APIKey: "sk-test", FunctionCalling: new(bool)})
				if err != nil {
					t.Fatal(err)
				}
				c.Agents[0].LLM = text
				c.Agents[0].Planning.LLM, c.Agents[0].Planning.Model = prov, "gpt-4o"
			}
			c.Agents[0].Tools = []Tool{weatherTool(new(atomic.Int64))}
			cs.answerByContent(stepMarker("One."), tc.one...)
			cs.answerByContent(stepMarker("Two."), tc.two...)
			cs.answerByContent("Synthesize these results", "S.")
			together := cs.meet(30*time.Second, stepMarker("One."), stepMarker("Two."))
			r := kickoff(t, c, nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if !together.Met() || r.out.Raw != "S." || cs.received() != 6 {
				t.Errorf("in flight together %v, raw %q after %d requests", together.Met(), r.out.Raw, cs.received())
			}
			cs.mu.Lock()
			for _, b := range cs.bodies {
				if strings.Contains(b, stepMarker("One.")) && strings.Contains(b, "Lisbon") || strings.Contains(b, stepMarker("Two.")) && strings.Contains(b, "Sunny in Berlin") {
					t.Errorf("a step saw the other's conversation: %s", b)
				}
			}
			cs.mu.Unlock()
			if got := cs.bodyWith(t, "Synthesize these results"); !strings.Contains(got, `Step 1 (One.):\none done.\n\nStep 2 (Two.):\ntwo done.`) {
				t.Errorf("synthesis request %s", got)
			}
			var tools []string
			for _, ev := range r.events {
				if (ev.Kind == session.ToolUsageStarted || ev.Kind == session.ToolUsageFinished) && ev.Str("tool_name") == "get_forecast" {
					tools = append(tools, fmt.Sprint(ev.Kind, " ", ev.Data["plan_step_number"]))
				}
			}
			if !slices.Equal(tools, tc.toolEvents) {
				t.Errorf("tool events %q", tools)
			}
			checkRecordedOrder(t, r.events)
		})
	}
}

// On the scripted LLM, which answers in arrival order, parallel steps run
// one after another in plan order, so a script's replies go to the same
// steps on every run (llm.ServesInOrder): step 2's call starts only after
// step 1's, which takes a while, has completed.
func TestAgentPlanParallelStepsOnScriptedLLM(t *testing.T) {
	const script = `
conversations:
  - agent: Writer
    replies:
      - tool_calls:
          - name: create_reasoning_plan
            arguments: '{"plan":"p","steps":[{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[]},{"step_number":2,"description":"Two.","tool_to_use":null,"depends_on":[]}],"ready":true}'
      - content: "Final Answer: first."
        delay: 50ms
      - "Final Answer: second."
      - "S."
`
	c := guardedCrew(scripted(t, script), nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	var results []string
	stepOf := map[string]int{}
	var completed1, started2 time.Time
	for _, ev := range r.events {
		switch ev.Kind {
		case session.AgentStepStarted:
			stepOf[ev.Span] = int(ev.Int(session.KeyStep))
		case session.PlanStepCompleted:
			results = append(results, fmt.Sprint(ev.Int("step_number"), " ", ev.Str("result")))
		case session.LLMCallCompleted:
			if stepOf[ev.Parent] == 1 {
				completed1 = ev.Time
			}
		case session.LLMCallStarted:
			if stepOf[ev.Parent] == 2 {
				started2 = ev.Time
			}
		}
	}
	if !slices.Equal(results, []string{"1 first.", "2 second."}) || r.out.Raw != "S." {
		t.Errorf("steps %q, raw %q", results, r.out.Raw)
	}
	if completed1.IsZero() || started2.Before(completed1) {
		t.Errorf("step 2's call started at %v, before step 1's completed at %v", started2, completed1)
	}
}

// stepperFunc answers every pause with a function.
type stepperFunc func(context.Context, *Pause) (Decision, error)

func (f stepperFunc) Before(ctx context.Context, p *Pause) (Decision, error) { return f(ctx, p) }

// An abort at a breakpoint in one parallel step (crewbench's, no CrewAI
// counterpart) ends the run with ErrAborted once the other step has
// returned; the plan goes no further.
func TestAgentPlanParallelStepAborted(t *testing.T) {
	const plan = `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Two.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	cs, prov := newChatServer(t, plan)
	cs.answerByContent(stepMarker("One."), "Final Answer: one.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
	abortTwo := stepperFunc(func(_ context.Context, p *Pause) (Decision, error) {
		if p.Kind == PauseLLMCall && len(p.Messages) > 1 && strings.Contains(p.Messages[1].Content, "## Current Step\nTwo.") {
			return Decision{Action: Abort}, nil
		}
		return Decision{Action: Continue}, nil
	})
	r := kickoff(t, c, nil, Options{Stepper: abortTwo})
	if !errors.Is(r.err, ErrAborted) {
		t.Fatalf("err %v", r.err)
	}
	if n := r.count(session.PlanStepCompleted); n != 0 || cs.received() > 2 {
		t.Errorf("%d steps completed after %d requests", n, cs.received())
	}
	checkRecordedOrder(t, r.events)
}

// More ready steps than asyncio's default pool has threads
// (parallelStepWorkers): that many run at once, the others wait for a free
// one. The server holds every step's request until all of them are in
// flight, which the bound never allows: after the (short) deadline the
// held requests are answered, and no more than the pool's size were ever
// in flight together.
func TestAgentPlanParallelStepsBoundedByPool(t *testing.T) {
	workers := parallelStepWorkers()
	var steps, markers []string
	cs, prov := newChatServer(t)
	for i := 1; i <= workers+1; i++ {
		desc := fmt.Sprintf("Part %d.", i)
		steps = append(steps, fmt.Sprintf(`{"step_number":%d,"description":%q,"tool_to_use":null,"depends_on":[]}`, i, desc))
		markers = append(markers, stepMarker(desc))
		cs.answerByContent(stepMarker(desc), fmt.Sprintf("Final Answer: part %d.", i))
	}
	cs.queue(`call create_reasoning_plan {"plan":"p","steps":[`+strings.Join(steps, ",")+`],"ready":true}`, "S.")
	all := cs.meet(2*time.Second, markers...)
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 40, Effort: "low", MaxReplans: 3}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	cs.mu.Lock()
	most := cs.maxInFlight
	cs.mu.Unlock()
	if all.Met() || most != workers || r.out.Raw != "S." || r.count(session.PlanStepCompleted) != workers+1 {
		t.Errorf("all %d steps in flight together: %v; at most %d in flight, want %d; raw %q", workers+1, all.Met(), most, workers, r.out.Raw)
	}
}

// A recording of parallel steps that ran at once, and finished in the
// other order, replays without divergence: the recording holds each
// step's calls in plan order, and on the replay provider the steps run in
// that order. Step 1's reply waits until step 2 has had its tool result,
// so step 2's first call completes first.
func TestAgentPlanParallelStepsReplay(t *testing.T) {
	const plan = `call create_reasoning_plan {"plan":"p","steps":[` +
		`{"step_number":1,"description":"One.","tool_to_use":null,"depends_on":[]},` +
		`{"step_number":2,"description":"Two.","tool_to_use":null,"depends_on":[]}],"ready":true}`
	cs, prov := newChatServer(t, plan)
	cs.answerByContent(stepMarker("One."), "one.")
	cs.answerByContent(stepMarker("Two."), `call get_forecast {"city": "Lisbon"}`, "two.")
	cs.answerByContent("Synthesize these results", "S.")
	overtaken := cs.holdUntil(30*time.Second, stepMarker("One."), "Sunny in Lisbon")
	run := func(p llm.Provider) result {
		c := guardedCrew(p, nil, false, 0)
		c.Agents[0].Tools = []Tool{weatherTool(new(atomic.Int64))}
		c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, Effort: "low", MaxReplans: 3}
		return kickoff(t, c, nil, Options{})
	}
	live := run(prov)
	if live.err != nil || !overtaken.Met() || live.out.Raw != "S." {
		t.Fatalf("live run: %v, raw %q, step 2 went on while step 1 waited: %v", live.err, live.out.Raw, overtaken.Met())
	}
	replay := llm.NewReplay(live.events, llm.ReplayOptions{})
	again := run(replay)
	if again.err != nil || again.out.Raw != live.out.Raw || len(replay.Divergences()) != 0 || replay.Served() != replay.Len() {
		t.Errorf("replay: err %v, raw %q, divergences %v, served %d of %d", again.err, again.out.Raw, replay.Divergences(), replay.Served(), replay.Len())
	}
}
