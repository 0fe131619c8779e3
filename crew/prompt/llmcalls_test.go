package prompt

import "testing"

// CrewPlanner._create_tasks_summary (utilities/planning_handler.py:134-164)
// for a task without an agent (hierarchical crews): "None" for the agent
// fields, and tasks joined with one space.
func TestPlannerTasksSummaryWithoutAgent(t *testing.T) {
	got := PlannerTasksSummary([]PlannedTask{
		{Description: "D1", ExpectedOutput: "E1", TaskTools: "[]", AgentTools: PlannerNoTools},
		{Description: "D2", ExpectedOutput: "E2", HasAgent: true, AgentRole: "R", AgentGoal: "G", TaskTools: "[t]", AgentTools: "[t]"},
	})
	const i = "\n                "
	want := i + "Task Number 1 - D1" + i + `"task_description": D1` + i + `"task_expected_output": E1` + i + `"agent": None` + i + `"agent_goal": None` + i + `"task_tools": []` + i + `"agent_tools": "agent has no tools"` +
		" " + i + "Task Number 2 - D2" + i + `"task_description": D2` + i + `"task_expected_output": E2` + i + `"agent": R` + i + `"agent_goal": G` + i + `"task_tools": [t]` + i + `"agent_tools": [t]`
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

// task.py:1377-1385.
func TestGuardrailGaveUp(t *testing.T) {
	if got := GuardrailGaveUp("guardrail 1", 3, "None"); got != "Task failed guardrail 1 validation after 3 retries. Last error: None" {
		t.Errorf("%q", got)
	}
}
