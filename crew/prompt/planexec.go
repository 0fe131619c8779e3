package prompt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Texts of the execution of a ready plan (AgentExecutor's todos,
// StepExecutor, the final synthesis), verbatim from CrewAI 1.15.17's
// translations/en.json "planning" slices.
const (
	stepExecutorSystem = "You are {role}. {backstory}\n\nYour goal: {goal}\n\nYou are executing ONE specific step in a larger plan. Your ONLY job is to fully complete this step — not to plan ahead.\n\nKey rules:\n- **ACT FIRST.** Execute the primary action of this step immediately. Do NOT read or explore files before attempting the main action unless exploration IS the step's goal.\n- If the step says 'run X', run X NOW. If it says 'write file Y', write Y NOW.\n- If the step requires producing an output file (e.g. /app/move.txt, report.jsonl, summary.csv), you MUST write that file using a tool call — do NOT just state the answer in text.\n- You may use tools MULTIPLE TIMES. After each tool use, check the result. If it failed, try a different approach.\n- Only output your Final Answer AFTER the concrete outcome is verified (file written, build succeeded, command exited 0).\n- If a command is not found or a path does not exist, fix it (different PATH, install missing deps, use absolute paths).\n- Do NOT spend more than 3 tool calls on exploration/analysis before attempting the primary action.{tools_section}"

	stepExecutorToolsSection = "\n\nAvailable tools: {tool_names}\n\nYou may call tools multiple times in sequence. Use this format for EACH tool call:\nThought: <what you observed and what you will try next>\nAction: <tool_name>\nAction Input: <input>\n\nAfter observing each result, decide: is the step complete? If yes:\nThought: The step is done because <evidence>\nFinal Answer: <concise summary of what was accomplished and the key result>"

	stepExecutorTaskContext = "## Task Context\nThe following is the full task you are helping complete. Keep this in mind — especially any required output files, exact filenames, and expected formats.\n\n{task_context}\n\n---\n"
	stepExecutorUser        = "## Current Step\n{step_description}"
	stepExecutorTool        = "\nSuggested tool: {tool_to_use}"
	stepExecutorContextHead = "\n## Context from previous steps:"
	stepExecutorContextLine = "Step {step_number} result: {result}"
	stepExecutorComplete    = "\n**Execute the primary action of this step NOW.** If the step requires writing a file, write it. If it requires running a command, run it. Verify the outcome with a follow-up tool call, then give your Final Answer. Your Final Answer must confirm what was DONE (file created at path X, command succeeded), not just what should be done."

	synthesisSystem = "You are {role}. You have completed a multi-step task. Synthesize the results from all steps into a single, coherent final response that directly addresses the original task. Do NOT list step numbers or say 'Step 1 result'. Produce a clean, polished answer as if you did it all at once."
	synthesisUser   = "## Original Task\n{task_description}\n\n## Results from each step\n{combined_steps}\n\nSynthesize these results into a single, coherent final answer."

	// ObservationSystem is planning.observation_system_prompt, the
	// PlannerObserver's system message (agents/planner_observer.py).
	ObservationSystem = "You are a Planning Agent observing execution progress. After each step completes, you analyze what happened and decide whether the remaining plan is still valid.\n\nReason step-by-step about:\n1. Did this step produce a concrete, verifiable result? (file created, command succeeded, service running, etc.) — or did it only explore without acting?\n2. What new information was learned from this step's result?\n3. Whether the remaining steps still make sense given this new information\n4. What refinements, if any, are needed for upcoming steps\n5. Whether the overall goal has already been achieved\n\nCritical: mark `step_completed_successfully=false` if:\n- The step result is only exploratory (ls, pwd, cat) without producing the required artifact or action\n- A command returned a non-zero exit code and the error was not recovered\n- The step description required creating/building/starting something and the result shows it was not done\n\nBe conservative about triggering full replans — only do so when the remaining plan is fundamentally wrong, not just suboptimal.\n\nIMPORTANT: Set step_completed_successfully=false if:\n- The step's stated goal was NOT achieved (even if other things were done)\n- The first meaningful action returned an error (file not found, command not found, etc.)\n- The result is exploration/discovery output rather than the concrete action the step required\n- The step ran out of attempts without producing the required output\nSet needs_full_replan=true if the current plan's remaining steps reference paths or state that don't exist yet and need to be created first."
	observationUser   = "## Original task\n{task_description}\n\n## Expected output\n{task_goal}\n{completed_summary}\n\n## Just completed step {step_number}\nDescription: {step_description}\nResult: {step_result}\n{remaining_summary}\n\nAnalyze this step's result and provide your observation."

	replanEnhancement = "\n\nIMPORTANT: Previous execution attempt did not fully succeed. Please create a revised plan that accounts for the following context from the previous attempt:\n\n{previous_context}\n\nConsider:\n1. What steps succeeded and can be built upon\n2. What steps failed and why they might have failed\n3. Alternative approaches that might work better\n4. Whether dependencies need to be restructured"

	// PlanNoFinalOutput is finalize's last resort when no todo has a result
	// (experimental/agent_executor.py:2379).
	PlanNoFinalOutput = "Agent completed execution but produced no final output."
)

// StepExecutorSystem is StepExecutor._build_system_prompt
// (agents/step_executor.py:260-281): toolNames are the agent's sanitized
// tool names joined by ", " ("" without tools); a text-mode step
// (textTools) gets step_executor_tools_section with the ReAct format, a
// native one only the names.
func StepExecutorSystem(role, backstory, goal, toolNames string, textTools bool) string {
	section := ""
	switch {
	case toolNames != "" && textTools:
		section = fill(stepExecutorToolsSection, "{tool_names}", toolNames)
	case toolNames != "":
		section = "\n\nAvailable tools: " + toolNames
	}
	return fill(stepExecutorSystem, "{role}", role, "{backstory}", backstory, "{goal}", goal, "{tools_section}", section)
}

// StepObservationMessage is the user message a text-mode step appends
// after each tool result (StepExecutor._build_observation_message).
func StepObservationMessage(result string) string { return "Observation: " + result }

// StepNotCalled is _validate_expected_tool_usage's ValueError: a step
// whose suggested tool exists was finished without calling it.
func StepNotCalled(tool string, step int) string {
	return "Expected tool '" + tool + "' was not called for step " + strconv.Itoa(step) + "."
}

// ReplanDescription is _enhance_task_for_replan
// (experimental/agent_executor.py:2719-2737): the task description the
// replan's planning call reads, with planning.replan_enhancement_prompt.
func ReplanDescription(original, previousContext string) string {
	return original + fill(replanEnhancement, "{previous_context}", previousContext)
}

// StepDependency is one completed dependency's result.
type StepDependency struct {
	Step   int
	Result string
}

// StepExecutorUser is StepExecutor._build_user_prompt
// (agents/step_executor.py:283-326): the task section, the step, its
// suggested tool, the results of its dependencies (sorted by step) and
// the closing instruction, one per line.
func StepExecutorUser(taskDescription, step, tool string, deps []StepDependency) string {
	var parts []string
	if taskDescription != "" {
		if section := taskSection(taskDescription); section != "" {
			parts = append(parts, fill(stepExecutorTaskContext, "{task_context}", section))
		}
	}
	parts = append(parts, fill(stepExecutorUser, "{step_description}", step))
	if tool != "" {
		parts = append(parts, fill(stepExecutorTool, "{tool_to_use}", tool))
	}
	if len(deps) > 0 {
		parts = append(parts, stepExecutorContextHead)
		for _, d := range deps {
			parts = append(parts, fill(stepExecutorContextLine, "{step_number}", strconv.Itoa(d.Step), "{result}", d.Result))
		}
	}
	parts = append(parts, stepExecutorComplete)
	return strings.Join(parts, "\n")
}

// taskSection is extract_task_section (utilities/agent_utils.py): the body
// of a "## Task" section up to the next "---" or "## " heading (or its
// first 2000 characters), else the whole text cut at 2000 characters.
func taskSection(text string) string {
	for _, marker := range []string{"\n## Task\n", "\n## Task:", "## Task\n"} {
		idx := strings.Index(text, marker)
		if idx < 0 {
			continue
		}
		start := idx + len(marker)
		for _, endMarker := range []string{"\n---\n", "\n## "} {
			if end := strings.Index(text[start:], endMarker); end >= 0 { // Python finds it at start+end > 0
				return strings.TrimSpace(text[start : start+end])
			}
		}
		return strings.TrimSpace(prefixRunes(text[start:], 2000))
	}
	if utf8.RuneCountInString(text) > 2000 {
		return prefixRunes(text, 2000) + "\n... [truncated]"
	}
	return text
}

// prefixRunes is s[:n] in Python's code points.
func prefixRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// SynthesisSystem and SynthesisUser are the final synthesis call's
// messages (experimental/agent_executor.py:2478-2485).
func SynthesisSystem(role string) string { return fill(synthesisSystem, "{role}", role) }

// SynthesisUser: see SynthesisSystem.
func SynthesisUser(taskDescription, combinedSteps string) string {
	return fill(synthesisUser, "{task_description}", taskDescription, "{combined_steps}", combinedSteps)
}

// ObservedStep is a step in the PlannerObserver's summaries.
type ObservedStep struct {
	Step        int
	Description string
	Result      string
}

// ObservationUser is the PlannerObserver's user message
// (_build_observation_messages, agents/planner_observer.py): the task, the
// completed steps with their results cut at 200 characters, the step just
// done with its full result, and the remaining steps.
func ObservationUser(task, goal string, completed []ObservedStep, step ObservedStep, remaining []ObservedStep) string {
	completedSummary := ""
	if len(completed) > 0 {
		lines := make([]string, len(completed))
		for i, c := range completed {
			lines[i] = "  Step " + strconv.Itoa(c.Step) + ": " + c.Description + "\n    Result: " + prefixRunes(c.Result, 200)
		}
		completedSummary = "\n## Previously completed steps:\n" + strings.Join(lines, "\n")
	}
	remainingSummary := ""
	if len(remaining) > 0 {
		lines := make([]string, len(remaining))
		for i, r := range remaining {
			lines[i] = "  Step " + strconv.Itoa(r.Step) + ": " + r.Description
		}
		remainingSummary = "\n## Remaining plan steps:\n" + strings.Join(lines, "\n")
	}
	return fill(observationUser, "{task_description}", task, "{task_goal}", goal, "{completed_summary}", completedSummary,
		"{step_number}", strconv.Itoa(step.Step), "{step_description}", step.Description, "{step_result}", step.Result,
		"{remaining_summary}", remainingSummary)
}
