package crew

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/crew/prompt"
	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// Agent planning against the loopback chat-completions server. The
// expected bodies are built from CrewAI 1.15.17's texts:
// translations/en.json "planning" (system_prompt, create_plan_prompt,
// refine_plan_prompt) and FUNCTION_SCHEMA (utilities/reasoning_handler.py:
// 50-104), sent as a strict OpenAI tool (llms/providers/openai/
// completion.py:1853-1880) with tool_choice "auto".

const planSystemWire = `"You are a strategic planning assistant. Create concrete, executable plans where every step produces a verifiable result."`

// planToolWire is FUNCTION_SCHEMA on the wire, in the source's key order.
const planToolWire = `[{"type":"function","function":{"name":"create_reasoning_plan","description":"Create or refine a reasoning plan for a task with structured steps","strict":true,"parameters":{"type":"object","properties":{"plan":{"type":"string","description":"A brief summary of the overall plan."},"steps":{"type":"array","description":"List of discrete steps to execute the plan","items":{"type":"object","properties":{"step_number":{"type":"integer","description":"Step number (1-based)"},"description":{"type":"string","description":"What to do in this step"},"tool_to_use":{"type":["string","null"],"description":"Tool to use for this step, or null if no tool needed"},"depends_on":{"type":"array","items":{"type":"integer"},"description":"Step numbers this step depends on (empty array if none)"}},"required":["step_number","description","tool_to_use","depends_on"],"additionalProperties":false}},"ready":{"type":"boolean","description":"Whether the agent is ready to execute the task."}},"required":["plan","steps","ready"],"additionalProperties":false}}}]`

// planCreateUser is planning.create_plan_prompt for the Berlin task, an
// agent without tools (reasoning_handler.py:546-547) and max_steps 20.
const planCreateUser = "Create an execution plan for the following task:\n\n## Task\nWrite about Berlin.\n\n## Expected Output\nOne sentence.\n\n## Available Tools\nNo tools available\n\n## Planning Principles\nFocus on CONCRETE, EXECUTABLE steps. Each step must clearly state WHAT ACTION to take and HOW to verify it succeeded. The number of steps should match the task complexity. Hard limit: 20 steps.\n\n## Rules:\n- Each step must have a clear DONE criterion\n- Do NOT group unrelated actions: if steps can fail independently, keep them separate\n- NO standalone \"thinking\" or \"planning\" steps — act, don't just observe\n- The last step must produce the required output\n\nAfter your plan, state READY or NOT READY."

func planBody(user string) string {
	return `{"messages":[{"role":"system","content":` + planSystemWire + `},{"role":"user","content":` + wireJSON(user) +
		`}],"model":"gpt-4o","tool_choice":"auto","tools":` + planToolWire + `}`
}

// A text plan without the READY marker is refined (reasoning_handler.py:
// 296-347) with the plan as current_plan; the function-call reply is ready,
// and the task then runs with the messages it has without planning
// (agent_executor.py:382-384, 1053-1066).
func TestAgentPlanningRefinesThenRunsTask(t *testing.T) {
	plain, plainProv := newChatServer(t, "Berlin is big.")
	if r := kickoff(t, guardedCrew(plainProv, nil, false, 0), nil, Options{}); r.err != nil {
		t.Fatal(r.err)
	}
	const firstPlan = "1. Write the sentence.\nNOT READY: I need to refine my plan."
	cs, prov := newChatServer(t, firstPlan, `call create_reasoning_plan {"plan":"Write one sentence.","steps":[]}`, "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 3, MaxSteps: 20}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.body(t, 0), planBody(planCreateUser); got != want {
		t.Errorf("plan request\n got %s\nwant %s", got, want)
	}
	refine := "Your previous plan:\n" + firstPlan + "\n\nYou indicated you weren't ready. Refine your plan to address the specific gap.\n\nKeep the plan minimal - only add steps that directly address the issue.\n\nConclude with READY or NOT READY as before."
	if got, want := cs.body(t, 1), planBody(refine); got != want {
		t.Errorf("refine request\n got %s\nwant %s", got, want)
	}
	if got, want := cs.body(t, 2), plain.body(t, 0); got != want {
		t.Errorf("task request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != "Berlin is big." {
		t.Errorf("raw %q", r.out.Raw)
	}
	// generate_plan runs after flow_started and before agent_logs_started;
	// handle_agent_reasoning opens attempt 1, each refinement is its own
	// started/completed pair inside it, and attempt 1 completes last with
	// the final plan (reasoning_handler.py:196-225, 299-338). The function
	// call is run by the provider: tool_usage_started/finished, then a
	// tool_call llm_call_completed (base_llm.py:750-781).
	want := []session.Kind{
		session.DefaultEnv, session.CrewKickoffStarted, session.TaskStarted, session.AgentExecutionStarted, session.FlowStarted,
		session.AgentReasoningStarted, session.LLMCallStarted, session.LLMCallCompleted,
		session.AgentReasoningStarted, session.LLMCallStarted, session.ToolUsageStarted, session.ToolUsageFinished, session.LLMCallCompleted,
		session.AgentReasoningCompleted, session.AgentReasoningCompleted,
		session.AgentLogsStarted, session.LLMCallStarted, session.LLMCallCompleted,
		session.AgentLogsExecution, session.FlowFinished, session.AgentExecutionCompleted, session.TaskCompleted, session.CrewKickoffCompleted,
	}
	if got := crewAIKinds(r); !slices.Equal(got, want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	var attempts []int64
	for _, ev := range r.events {
		switch ev.Kind {
		case session.AgentReasoningCompleted:
			attempts = append(attempts, ev.Int("attempt"))
			if ev.Str("agent_role") != "Writer" || ev.Str("plan") != "Write one sentence." || !ev.Bool("ready") {
				t.Errorf("completed %+v", ev.Data)
			}
		case session.ToolUsageFinished:
			// json.dumps({"plan", "steps": steps or [], "ready"}) with ready's
			// default True (reasoning_handler.py:368-374).
			if got := ev.Str("output"); got != `{"plan": "Write one sentence.", "steps": [], "ready": true}` || ev.Str("tool_name") != "create_reasoning_plan" {
				t.Errorf("tool finished %+v", ev.Data)
			}
		case session.LLMCallCompleted:
			if ev.Str("call_type") == "tool_call" && ev.Str("response") != `{"plan": "Write one sentence.", "steps": [], "ready": true}` {
				t.Errorf("tool_call completion %+v", ev.Data)
			}
		}
	}
	// Attempt 2 completes, then attempt 1 (reasoning_handler.py:212-223, 327-338).
	if !slices.Equal(attempts, []int64{2, 1}) {
		t.Errorf("completed attempts %v", attempts)
	}
}

// Bare planning: true is max_attempts 1 (agent/core.py:396-403): a reply
// that is neither the function call nor JSON is the plan, not ready, and
// is not refined.
func TestAgentPlanningUnparseableReplyIsNotRefined(t *testing.T) {
	cs, prov := newChatServer(t, "{not json", "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.body(t, 0), planBody(planCreateUser); got != want {
		t.Errorf("plan request\n got %s\nwant %s", got, want)
	}
	if r.count(session.AgentReasoningCompleted) != 1 || r.out.Raw != "Berlin is big." {
		t.Errorf("completed %d, raw %q", r.count(session.AgentReasoningCompleted), r.out.Raw)
	}
}

func TestPlanningReplies(t *testing.T) {
	step := planStep{number: 1, description: "d"}
	for _, tc := range []struct {
		name  string
		reply string
		want  rawPlan
		ok    bool
	}{
		// reasoning_handler.py:386-404: JSON with "plan" and "ready" is the plan.
		{"function result", `{"plan": "p", "steps": [{"step_number": 1, "description": "d", "tool_to_use": null, "depends_on": []}], "ready": true}`, rawPlan{plan: "p", steps: []planStep{step}, ready: true}, true},
		// :392-403: steps are read until the first that fails PlanStep.
		{"a bad step keeps the earlier ones", `{"plan": "p", "steps": [{"step_number": 1, "description": "d"}, 2, {"step_number": 3}], "ready": true}`, rawPlan{plan: "p", steps: []planStep{step}, ready: true}, true},
		{"an invalid step number ends the steps", `{"plan": "p", "steps": [{"step_number": "x"}], "ready": true}`, rawPlan{plan: "p", ready: true}, true},
		// :394-397: missing fields take get()'s defaults.
		{"defaults", `{"plan": "p", "steps": [{}], "ready": false}`, rawPlan{plan: "p", steps: []planStep{{}}, ready: false}, true},
		{"JSON text", ` {"plan": "p", "ready": false} `, rawPlan{plan: "p", ready: false}, true},
		// :388, 408-413: without both keys the reply is the plan.
		{"JSON without ready is text", `{"plan":"p"}`, rawPlan{plan: `{"plan":"p"}`, ready: false}, true},
		{"marker text", "do it\nREADY: I am ready to execute the task.", rawPlan{plan: "do it\nREADY: I am ready to execute the task.", ready: true}, true},
		{"bare READY is not the marker", "READY", rawPlan{plan: "READY", ready: false}, true},
		{"empty", "", rawPlan{plan: "", ready: false}, true},
		// :387-388 raise outside (JSONDecodeError, KeyError): the call is
		// made again without the tool (:415-437).
		{"a number", "5", rawPlan{}, false},
		{"null", "null", rawPlan{}, false},
		{"a string holding both", `"plan ready"`, markerPlan(`"plan ready"`), false},
		{"a list holding both", `["plan", "ready"]`, markerPlan(`["plan", "ready"]`), false},
		{"a list without both", `["plan"]`, markerPlan(`["plan"]`), true},
		// :392, 400-403: iterating None raises inside the handler, whose
		// step_data is unbound.
		{"null steps", `{"plan": "p", "steps": null, "ready": true}`, rawPlan{plan: "p", ready: true}, false},
		{"string steps", `{"plan": "p", "steps": "abc", "ready": true}`, rawPlan{plan: "p", ready: true}, true},
	} {
		got, ok := functionPlan(tc.reply)
		if ok != tc.ok || (ok && fmt.Sprint(got) != fmt.Sprint(tc.want)) {
			t.Errorf("%s: got %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// reasoning_handler.py:592-593.
	if got := textPlan(""); got.plan != "No plan was generated." || got.ready != false {
		t.Errorf("empty text plan %+v", got)
	}
}

// _create_reasoning_plan(**args) as the provider calls it
// (reasoning_handler.py:368-374, base_llm.py:760-761), with Python 3's
// TypeError texts for arguments it cannot take.
func TestPlanningFunction(t *testing.T) {
	const fn = "AgentReasoning._call_with_function.<locals>._create_reasoning_plan()"
	for _, tc := range []struct{ args, out, err string }{
		{`{"plan": "p", "steps": [], "ready": false}`, `{"plan": "p", "steps": [], "ready": false}`, ""},
		{`{"plan": "p"}`, `{"plan": "p", "steps": [], "ready": true}`, ""},
		{`{"plan": 5, "steps": null}`, `{"plan": 5, "steps": [], "ready": true}`, ""},
		{`{"steps": []}`, "", fn + " missing 1 required positional argument: 'plan'"},
		{`{"plan": "p", "x": 1}`, "", fn + " got an unexpected keyword argument 'x'"},
		{`[1]`, "", fn + " argument after ** must be a mapping, not list"},
		// completion.py:1959-1963: unparseable arguments are {}.
		{`{bad`, "", fn + " missing 1 required positional argument: 'plan'"},
	} {
		out, err, ok := runPlanningFunction(llm.ToolCall{Name: prompt.PlanningFunctionName, Arguments: tc.args})
		if !ok || out != tc.out || fmt.Sprint(err) != fmt.Sprint(map[bool]any{true: nil, false: tc.err}[tc.err == ""]) {
			t.Errorf("%s: got %q, %v", tc.args, out, err)
		}
	}
	if _, _, ok := runPlanningFunction(llm.ToolCall{Name: "other"}); ok {
		t.Error("another function name ran") // base_llm.py:741-745
	}
}

func TestPlanningPromptTexts(t *testing.T) {
	if got := prompt.PlanningCreatePrompt("Write about Berlin.", "One sentence.", prompt.PlanningNoTools, 20); got != planCreateUser {
		t.Errorf("create prompt\n got %q\nwant %q", got, planCreateUser)
	}
	if got := string(planningTool(false).Parameters); "["+`{"type":"function","function":{"name":"create_reasoning_plan","description":"Create or refine a reasoning plan for a task with structured steps","strict":true,"parameters":`+got+`}}]` != planToolWire {
		t.Errorf("parameters %s", got)
	}
}

// An explicit planning_config wins over planning and reasoning
// (agent/core.py:385-404); its prompts and llm are read
// (agent/planning_config.py:110-149), the fields the planning calls do not
// read are named in a note.
func TestFromProjectReadsPlanningConfig(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		"crew.jsonc": `{"name": "p", "agents": ["writer"], "tasks": [{"name": "write", "description": "Write.", "expected_output": "Text.", "agent": "writer"}]}`,
		"agents/writer.jsonc": `{"role": "Writer", "goal": "g", "backstory": "b", "planning": true, "llm": "scripted:inline.yaml",
  "planning_config": {"max_attempts": 3, "max_steps": 5, "plan_prompt": "Plan {description}", "system_prompt": "S", "refine_prompt": null,
    "llm": {"model": "gpt-4o", "base_url": "http://127.0.0.1:9/v1", "api_key": "k"}, "reasoning_effort": "high", "observe_steps": false, "max_step_iterations": 4, "step_timeout": 30, "future_field": 1}}`,
	})
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	c, notes, err := FromProject(p, ProjectOptions{Script: []byte("replies: [\"x\"]\n")})
	if err != nil {
		t.Fatal(err)
	}
	pc := c.Agents[0].Planning
	// max_replans defaults to 3 (agent/planning_config.py:122-126).
	if pc == nil || pc.MaxAttempts != 3 || pc.MaxSteps != 5 || *pc.PlanPrompt != "Plan {description}" || *pc.SystemPrompt != "S" || pc.RefinePrompt != nil ||
		pc.Effort != "high" || pc.ObserveSteps == nil || *pc.ObserveSteps || pc.MaxReplans != 3 || pc.MaxStepIterations != 4 || pc.StepTimeout != 30*time.Second {
		t.Fatalf("planning %+v", pc)
	}
	if pc.LLM == nil || pc.Model != "gpt-4o" || pc.LLM == c.Agents[0].LLM {
		t.Errorf("planning llm %v %q", pc.LLM, pc.Model)
	}
	if all := fmt.Sprint(notes); !strings.Contains(all, "planning_config sets future_field, which crewbench's planning calls do not read") {
		t.Errorf("notes %s", all)
	}
}

func strPtr(s string) *string { return &s }

// CrewAI refines while attempt < max_attempts, attempt counting from 1
// (reasoning_handler.py:293-296): max_attempts 0 (or below, or
// max_reasoning_attempts 0 under reasoning: true, agent/core.py:385-394)
// allows no refinement, as 1 does; only None refines until ready.
func TestFromProjectMaxAttemptsZeroRefinesNever(t *testing.T) {
	const notReady = "Plan.\nNOT READY: I need to refine my plan."
	for _, tc := range []struct {
		name, agent string
		replies     []string
		starts      int
	}{
		{"planning_config max_attempts 0", `"planning_config": {"max_attempts": 0}`, []string{notReady, "Short."}, 1},
		{"planning_config max_attempts -1", `"planning_config": {"max_attempts": -1}`, []string{notReady, "Short."}, 1},
		{"reasoning max_reasoning_attempts 0", `"reasoning": true, "max_reasoning_attempts": 0`, []string{notReady, "Short."}, 1},
		{"planning_config max_attempts 2", `"planning_config": {"max_attempts": 2}`, []string{notReady, notReady, "Short."}, 2},
		{"planning_config max_attempts None", `"planning_config": {"max_attempts": null}`, []string{notReady, notReady, "Plan.\nREADY: I am ready to execute the task.", "Short."}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fixturetest.WriteFiles(t, dir, map[string]string{
				"crew.jsonc":          `{"name": "p", "agents": ["writer"], "tasks": [{"name": "write", "description": "Write.", "expected_output": "Text.", "agent": "writer"}]}`,
				"agents/writer.jsonc": `{"role": "Writer", "goal": "g", "backstory": "b", "llm": "scripted:inline.yaml", ` + tc.agent + `}`,
			})
			p, err := project.Open(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			script, _ := json.Marshal(map[string]any{"replies": tc.replies})
			c, _, err := FromProject(p, ProjectOptions{Script: script})
			if err != nil {
				t.Fatal(err)
			}
			r := kickoff(t, c, nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if got := r.count(session.AgentReasoningStarted); got != tc.starts || r.out.Raw != "Short." {
				t.Errorf("%d planning attempts, want %d; raw %q", got, tc.starts, r.out.Raw)
			}
		})
	}
}

// planning_config's prompts (reasoning_handler.py:472-580): system_prompt
// is sent as it is, plan_prompt and refine_prompt are str.format-ed with
// the agent, the task, the tool names, max_steps and the current plan;
// planning_config.llm takes every planning call, the agent's LLM the task.
func TestAgentPlanningConfigPromptsAndLLM(t *testing.T) {
	plain, plainProv := newChatServer(t, "Berlin is big.")
	if r := kickoff(t, guardedCrew(plainProv, nil, false, 0), nil, Options{}); r.err != nil {
		t.Fatal(r.err)
	}
	planner, planProv := newChatServer(t, "draft", `call create_reasoning_plan {"plan":"final","steps":[],"ready":true}`)
	cs, prov := newChatServer(t, "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{
		MaxAttempts: 2, MaxSteps: 4, LLM: planProv, Model: "gpt-4o",
		SystemPrompt: strPtr("Plan {carefully}."),
		PlanPrompt:   strPtr("{role} ({goal}; {backstory}) plans {description!r} for {expected_output} with {tools} in {max_steps} {{steps}}"),
		RefinePrompt: strPtr("{current_plan} again, {role}, at most {max_steps}"),
	}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	body := func(user string) string {
		return `{"messages":[{"role":"system","content":"Plan {carefully}."},{"role":"user","content":` + wireJSON(user) +
			`}],"model":"gpt-4o","tool_choice":"auto","tools":` + planToolWire + `}`
	}
	// reasoning_handler.py:506-515: role, goal, backstory, description,
	// expected_output, tools ("No tools available", :546-547), max_steps.
	if got, want := planner.body(t, 0), body("Writer (Write well; You write.) plans 'Write about Berlin.' for One sentence. with No tools available in 4 {steps}"); got != want {
		t.Errorf("plan request\n got %s\nwant %s", got, want)
	}
	// reasoning_handler.py:561-568.
	if got, want := planner.body(t, 1), body("draft again, Writer, at most 4"); got != want {
		t.Errorf("refine request\n got %s\nwant %s", got, want)
	}
	if got, want := cs.body(t, 0), plain.body(t, 0); got != want || len(cs.bodies) != 1 {
		t.Errorf("task request\n got %s\nwant %s (%d requests)", got, want, len(cs.bodies))
	}
}

// A custom prompt that str.format cannot fill raises inside
// handle_agent_reasoning: agent_reasoning_failed (attempt 1) with str() of
// the KeyError, and the task runs (reasoning_handler.py:226-242,
// agent_executor.py:388-390).
func TestAgentPlanningPromptErrorFailsPlanning(t *testing.T) {
	cs, prov := newChatServer(t, "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20, PlanPrompt: strPtr("Plan {task}")}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	var failed []session.Event
	for _, ev := range r.events {
		if ev.Kind == session.AgentReasoningFailed {
			failed = append(failed, ev)
		}
	}
	if len(failed) != 1 || failed[0].Str("error") != "'task'" || failed[0].Int("attempt") != 1 {
		t.Errorf("failed %+v", failed)
	}
	if len(cs.bodies) != 1 || r.out.Raw != "Berlin is big." || r.count(session.AgentReasoningCompleted) != 0 {
		t.Errorf("%d requests, raw %q", len(cs.bodies), r.out.Raw)
	}
}

// A refinement that raises (here its refine_prompt, which str.format
// cannot fill) ends planning with CrewAI's exact events: one
// agent_reasoning_failed (attempt 1, the KeyError), which its event bus
// pairs with the innermost started scope, the refinement's, so attempt
// 1's start is never paired (reasoning_handler.py:296-318, 226-242;
// events/event_bus.py:548-560). The trace tree closes attempt 1 as
// unfinished when the agent ends, and nothing is left running.
func TestAgentPlanningRefineErrorEmitsCrewAIsEvents(t *testing.T) {
	cs, prov := newChatServer(t, "draft", "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 2, MaxSteps: 20, RefinePrompt: strPtr("Refine {nothing}")}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(cs.bodies) != 2 || r.out.Raw != "Berlin is big." {
		t.Fatalf("%d requests, raw %q", len(cs.bodies), r.out.Raw)
	}
	want := []session.Kind{
		session.AgentReasoningStarted, session.LLMCallStarted, session.LLMCallCompleted,
		session.AgentReasoningStarted, session.AgentReasoningFailed, session.AgentLogsStarted,
	}
	got := crewAIKinds(r)
	if i := slices.Index(got, session.AgentReasoningStarted); i < 0 || i+len(want) > len(got) || !slices.Equal(got[i:i+len(want)], want) {
		t.Fatalf("events %v, want %v in them", got, want)
	}
	var started, failed []session.Event
	for _, ev := range r.events {
		switch ev.Kind {
		case session.AgentReasoningStarted:
			started = append(started, ev)
		case session.AgentReasoningFailed:
			failed = append(failed, ev)
		}
	}
	if len(started) != 2 || len(failed) != 1 {
		t.Fatalf("%d started, %d failed", len(started), len(failed))
	}
	f := failed[0]
	if f.Int("attempt") != 1 || f.Str("error") != "'nothing'" {
		t.Errorf("failed data %+v", f.Data)
	}
	// The envelope as CrewAI's bus stamps it: paired with the refinement's
	// start, inside attempt 1's scope.
	if f.StartedEventID != started[1].ID || f.ParentEventID != started[0].ID {
		t.Errorf("failed started_event_id %q parent_event_id %q, want %q and %q", f.StartedEventID, f.ParentEventID, started[1].ID, started[0].ID)
	}
	if r.count(session.AgentReasoningCompleted) != 0 {
		t.Errorf("completed %d", r.count(session.AgentReasoningCompleted))
	}
	tree := session.BuildTree(r.events) // not finished: the ancestor rule alone closes attempt 1
	var reasoning []string
	for _, n := range tree.Nodes() {
		if n.Kind == session.NodeReasoning {
			s := n.Status.String()
			if n.ClosedBy != nil {
				s += " by " + n.ClosedBy.Kind.String()
			}
			reasoning = append(reasoning, s)
		}
		if n.Status == session.StatusRunning {
			t.Errorf("%s node %s is still running", n.Kind, n.Span)
		}
	}
	if !slices.Equal(reasoning, []string{"unfinished by agent", "failed"}) {
		t.Errorf("reasoning nodes %v, want attempt 1 unfinished (closed by the agent's end) and its refinement failed", reasoning)
	}
}

// A plan that is not a string passes _call_with_function and fails
// ReasoningPlan(plan=…) (reasoning_handler.py:386-404, 253): the
// ValidationError is agent_reasoning_failed's error, and the task runs.
func TestAgentPlanningNonStringPlanFails(t *testing.T) {
	cs, prov := newChatServer(t, `call create_reasoning_plan {"plan":5,"steps":[],"ready":true}`, "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Pydantic's str(ValidationError) for a str field given an int.
	const want = "1 validation error for ReasoningPlan\nplan\n  Input should be a valid string [type=string_type, input_value=5, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type"
	var errs []string
	for _, ev := range r.events {
		if ev.Kind == session.AgentReasoningFailed {
			errs = append(errs, ev.Str("error"))
		}
	}
	if !slices.Equal(errs, []string{want}) {
		t.Errorf("failed errors %q", errs)
	}
	if len(cs.bodies) != 2 || r.out.Raw != "Berlin is big." {
		t.Errorf("%d requests, raw %q", len(cs.bodies), r.out.Raw)
	}
}

// Arguments the function cannot take: tool_usage_error and llm_call_failed
// with "Error executing function …", then the call completes with the
// message text (base_llm.py:785-811, completion.py:1965-1975), an empty
// plan that is not ready (reasoning_handler.py:408-413).
func TestAgentPlanningFunctionErrorEvents(t *testing.T) {
	_, prov := newChatServer(t, `call create_reasoning_plan {"steps":[]}`, "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []session.Kind{
		session.AgentReasoningStarted, session.LLMCallStarted, session.ToolUsageStarted, session.ToolUsageError, session.LLMCallFailed,
		session.LLMCallCompleted, session.AgentReasoningCompleted, session.AgentLogsStarted,
	}
	got := crewAIKinds(r)
	if i := slices.Index(got, session.AgentReasoningStarted); i < 0 || !slices.Equal(got[i:i+len(want)], want) {
		t.Errorf("events %v", got)
	}
	for _, ev := range r.events {
		if ev.Kind == session.ToolUsageError && ev.Str("error") != "Error executing function 'create_reasoning_plan': AgentReasoning._call_with_function.<locals>._create_reasoning_plan() missing 1 required positional argument: 'plan'" {
			t.Errorf("error %q", ev.Str("error"))
		}
		if ev.Kind == session.AgentReasoningCompleted && (ev.Str("plan") != "" || ev.Bool("ready")) {
			t.Errorf("completed %+v", ev.Data)
		}
	}
}
