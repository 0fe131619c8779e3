package crew

import (
	"fmt"
	"slices"
	"strings"
	"testing"

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
	// generate_plan runs after flow_started and before agent_logs_started.
	want := []session.Kind{
		session.DefaultEnv, session.CrewKickoffStarted, session.TaskStarted, session.AgentExecutionStarted, session.FlowStarted,
		session.AgentReasoningStarted, session.LLMCallStarted, session.LLMCallCompleted, session.AgentReasoningCompleted,
		session.AgentReasoningStarted, session.LLMCallStarted, session.LLMCallCompleted, session.AgentReasoningCompleted,
		session.AgentLogsStarted, session.LLMCallStarted, session.LLMCallCompleted,
		session.AgentLogsExecution, session.FlowFinished, session.AgentExecutionCompleted, session.TaskCompleted, session.CrewKickoffCompleted,
	}
	if got := crewAIKinds(r); !slices.Equal(got, want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	var plans []string
	for _, ev := range r.events {
		if ev.Kind == session.AgentReasoningCompleted {
			plans = append(plans, ev.Str("plan"))
			if ev.Str("agent_role") != "Writer" || ev.Int("attempt") != int64(len(plans)) || ev.Bool("ready") != (len(plans) == 2) {
				t.Errorf("completed %+v", ev)
			}
		}
	}
	if !slices.Equal(plans, []string{firstPlan, "Write one sentence."}) {
		t.Errorf("plans %q", plans)
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
	call := func(args string) llm.Response {
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c", Name: prompt.PlanningFunctionName, Arguments: args}}}
	}
	text := func(s string) llm.Response { return llm.Response{Content: s} }
	for _, tc := range []struct {
		name string
		resp llm.Response
		want reasoningPlan
	}{
		{"call", call(`{"plan":"p","steps":[{"step_number":1,"description":"d","tool_to_use":null,"depends_on":[]}],"ready":true}`), reasoningPlan{plan: "p", steps: 1, ready: true}},
		{"call without ready defaults to ready", call(`{"plan":"p"}`), reasoningPlan{plan: "p", ready: true}},
		{"call with a bad step keeps the earlier ones", call(`{"plan":"p","steps":[{"step_number":1},2,{"step_number":3}],"ready":true}`), reasoningPlan{plan: "p", steps: 1, ready: true}},
		{"JSON text", text(` {"plan":"p","ready":false} `), reasoningPlan{plan: "p"}},
		{"JSON without ready is text", text(`{"plan":"p"}`), reasoningPlan{plan: `{"plan":"p"}`}},
		{"marker text", text("do it\nREADY: I am ready to execute the task."), reasoningPlan{plan: "do it\nREADY: I am ready to execute the task.", ready: true}},
		{"bare READY is not the marker", text("READY"), reasoningPlan{plan: "READY"}},
		{"empty", text(""), reasoningPlan{}},
	} {
		if got := functionPlan(tc.resp); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if got := textPlan(""); got != (reasoningPlan{plan: "No plan was generated."}) {
		t.Errorf("empty text plan %+v", got)
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
// (agent/core.py:385-404); the fields the planning calls do not read are
// named in a note.
func TestFromProjectReadsPlanningConfig(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		"crew.jsonc": `{"name": "p", "agents": ["writer"], "tasks": [{"name": "write", "description": "Write.", "expected_output": "Text.", "agent": "writer"}]}`,
		"agents/writer.jsonc": `{"role": "Writer", "goal": "g", "backstory": "b", "planning": true,
  "planning_config": {"max_attempts": 3, "max_steps": 5, "plan_prompt": "Plan {description}"}}`,
	})
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	c, notes, err := FromProject(p, ProjectOptions{LLM: "scripted:inline.yaml", Script: []byte("replies: [\"x\"]\n")})
	if err != nil {
		t.Fatal(err)
	}
	if pc := c.Agents[0].Planning; pc == nil || *pc != (PlanningConfig{MaxAttempts: 3, MaxSteps: 5}) {
		t.Errorf("planning %+v", pc)
	}
	if all := fmt.Sprint(notes); !strings.Contains(all, "planning_config reads max_attempts and max_steps only; plan_prompt keep") {
		t.Errorf("notes %s", all)
	}
}
