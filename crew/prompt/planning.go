package prompt

import (
	"strconv"
	"strings"
)

// Texts of CrewAI's crew planning (CrewPlanner), verbatim from 1.15.17.
const (
	// The planning agent (utilities/planning_handler.py:86-94).
	PlannerRole      = "Task Execution Planner"
	PlannerGoal      = "Your goal is to create an extremely detailed, step-by-step plan based on the tasks and tools available to each agent so that they can perform the tasks in an exemplary manner"
	PlannerBackstory = "Planner agent for crew planning"

	// PlannerDefaultModel is the planner's LLM without planning_llm
	// (utilities/planning_handler.py:55).
	PlannerDefaultModel = "gpt-5.4-mini"

	// PlannerExpectedOutput is the planner task's expected_output
	// (utilities/planning_handler.py:112).
	PlannerExpectedOutput = "Step by step plan on how the agents can execute their tasks using the available tools with mastery"

	// PlannerNoTools stands for an agent without tools in the summary
	// (utilities/planning_handler.py:149).
	PlannerNoTools = `"agent has no tools"`

	// PlannerFailed is CrewPlanner's error when the planner's output is not
	// the plan model (utilities/planning_handler.py:77).
	PlannerFailed = "Failed to get the Planning output"
)

// PlannerTaskDescription is the planner task's description
// (utilities/planning_handler.py:107-111).
func PlannerTaskDescription(tasksSummary string) string {
	return "Based on these tasks summary: " + tasksSummary + " \n Create the most descriptive plan based on the tasks descriptions, tools available, and agents' goals for them to execute their goals with perfection."
}

// PlannedTask is what the tasks summary says about one task, already
// interpolated. Without HasAgent the agent fields are CrewAI's "None".
type PlannedTask struct {
	Description, ExpectedOutput string
	AgentRole, AgentGoal        string
	HasAgent                    bool
	// TaskTools is str(task.tools) and AgentTools the agent-tools field:
	// "[…]" or PlannerNoTools.
	TaskTools, AgentTools string
}

// PlannerTasksSummary is CrewPlanner._create_tasks_summary
// (utilities/planning_handler.py:134-164): one f-string per task, each
// line indented sixteen spaces as in the source, joined with " ".
func PlannerTasksSummary(tasks []PlannedTask) string {
	const ind = "\n                "
	parts := make([]string, len(tasks))
	for i, t := range tasks {
		role, goal := "None", "None"
		if t.HasAgent {
			role, goal = t.AgentRole, t.AgentGoal
		}
		parts[i] = ind + "Task Number " + strconv.Itoa(i+1) + " - " + t.Description +
			ind + `"task_description": ` + t.Description +
			ind + `"task_expected_output": ` + t.ExpectedOutput +
			ind + `"agent": ` + role +
			ind + `"agent_goal": ` + goal +
			ind + `"task_tools": ` + t.TaskTools +
			ind + `"agent_tools": ` + t.AgentTools
	}
	return strings.Join(parts, " ")
}
