package prompt

import "strconv"

// Texts of an agent's planning (AgentReasoning), verbatim from CrewAI
// 1.15.17: the "planning" slices of translations/en.json and the function
// utilities/reasoning_handler.py offers the planning LLM.
const (
	// PlanningSystemPrompt is planning.system_prompt, the system message of
	// every planning call (reasoning_handler.py:472-482).
	PlanningSystemPrompt = "You are a strategic planning assistant. Create concrete, executable plans where every step produces a verifiable result."

	planningCreatePrompt = "Create an execution plan for the following task:\n\n## Task\n{description}\n\n## Expected Output\n{expected_output}\n\n## Available Tools\n{tools}\n\n## Planning Principles\nFocus on CONCRETE, EXECUTABLE steps. Each step must clearly state WHAT ACTION to take and HOW to verify it succeeded. The number of steps should match the task complexity. Hard limit: {max_steps} steps.\n\n## Rules:\n- Each step must have a clear DONE criterion\n- Do NOT group unrelated actions: if steps can fail independently, keep them separate\n- NO standalone \"thinking\" or \"planning\" steps \u2014 act, don't just observe\n- The last step must produce the required output\n\nAfter your plan, state READY or NOT READY."

	planningRefinePrompt = "Your previous plan:\n{current_plan}\n\nYou indicated you weren't ready. Refine your plan to address the specific gap.\n\nKeep the plan minimal - only add steps that directly address the issue.\n\nConclude with READY or NOT READY as before."

	// PlanningNoTools stands for an agent without tools in the plan prompt
	// (reasoning_handler.py:546-550).
	PlanningNoTools = "No tools available"

	// PlanningReadyMarker is the text whose presence makes a plain-text
	// plan ready (reasoning_handler.py:412, 436, 596).
	PlanningReadyMarker = "READY: I am ready to execute the task."

	// PlanningEmptyReply is the plan of an empty text reply
	// (reasoning_handler.py:592-593).
	PlanningEmptyReply = "No plan was generated."

	// PlanningCallFailed is the plan when the function call and its plain
	// fallback both failed; it counts as ready (reasoning_handler.py:438-444).
	PlanningCallFailed = "Failed to generate a plan due to an error."

	// PlanningFunctionName, PlanningFunctionDescription and
	// PlanningFunctionParameters are FUNCTION_SCHEMA
	// (reasoning_handler.py:50-104), the one tool of a planning call to a
	// model with function calling. The parameters keep the source's key order.
	PlanningFunctionName        = "create_reasoning_plan"
	PlanningFunctionDescription = "Create or refine a reasoning plan for a task with structured steps"
	PlanningFunctionParameters  = `{"type": "object", "properties": {"plan": {"type": "string", "description": "A brief summary of the overall plan."}, "steps": {"type": "array", "description": "List of discrete steps to execute the plan", "items": {"type": "object", "properties": {"step_number": {"type": "integer", "description": "Step number (1-based)"}, "description": {"type": "string", "description": "What to do in this step"}, "tool_to_use": {"type": ["string", "null"], "description": "Tool to use for this step, or null if no tool needed"}, "depends_on": {"type": "array", "items": {"type": "integer"}, "description": "Step numbers this step depends on (empty array if none)"}}, "required": ["step_number", "description", "tool_to_use", "depends_on"], "additionalProperties": false}}, "ready": {"type": "boolean", "description": "Whether the agent is ready to execute the task."}}, "required": ["plan", "steps", "ready"], "additionalProperties": false}`
)

// PlanningCreatePrompt is the first planning call's user message,
// planning.create_plan_prompt filled in (reasoning_handler.py:517-523).
// tools is the comma-separated sanitized tool names or PlanningNoTools.
func PlanningCreatePrompt(description, expectedOutput, tools string, maxSteps int) string {
	return fill(planningCreatePrompt, "{description}", description, "{expected_output}", expectedOutput,
		"{tools}", tools, "{max_steps}", strconv.Itoa(maxSteps))
}

// PlanningRefinePrompt is a refinement call's user message,
// planning.refine_plan_prompt with the current plan (reasoning_handler.py:570-573).
func PlanningRefinePrompt(currentPlan string) string {
	return fill(planningRefinePrompt, "{current_plan}", currentPlan)
}
