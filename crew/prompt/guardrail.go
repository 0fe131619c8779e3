package prompt

import "strconv"

// Texts of CrewAI's string (LLM) task guardrails, verbatim from 1.15.17.
const (
	// The guardrail agent LLMGuardrail creates for every check
	// (tasks/llm_guardrail.py:70-75).
	GuardrailAgentRole      = "Guardrail Agent"
	GuardrailAgentGoal      = "Validate the output of the task"
	GuardrailAgentBackstory = "You are a expert at validating the output of a task. By providing effective feedback if the output is not valid."

	// GuardrailQuery is the kickoff message of the guardrail agent
	// (tasks/llm_guardrail.py:77-91): an f-string whose lines keep their
	// eight-space source indentation, with {task_output.raw} and
	// {self.description} filled in.
	GuardrailQuery = "\n        Ensure the following task result complies with the given guardrail.\n\n        Task result:\n        {task_output}\n\n        Guardrail:\n        {guardrail}\n\n        Your task:\n        - Confirm if the Task result complies with the guardrail.\n        - If not, provide clear feedback explaining what is wrong (e.g., by how much it violates the rule, or what specific part fails).\n        - Focus only on identifying issues \u2014 do not propose corrections.\n        - If the Task result complies with the guardrail, saying that is valid\n        "

	// GuardrailValidationError is the context of a task re-run after a
	// guardrail blocked it (translations/en.json:55, errors.validation_error).
	GuardrailValidationError = "### Previous attempt failed validation: {guardrail_result_error}\n\n\n### Previous result:\n{task_output}\n\n\nTry again, making sure to address the validation error."

	// GuardrailCheckFailed prefixes the error LLMGuardrail returns when its
	// check itself failed (tasks/llm_guardrail.py:118-119).
	GuardrailCheckFailed = "Error while validating the task output: "

	// GuardrailNotModel is the error when the check's result is not an
	// LLMGuardrailResult (tasks/llm_guardrail.py:111-112).
	GuardrailNotModel = "The guardrail result is not a valid pydantic model"
)

// GuardrailGaveUp is the task's error after the last retry
// (task.py:1377-1385): name is "guardrail", or "guardrail {i}" for an entry
// of guardrails:, and lastError the last check's error (Python's "None"
// when the guardrail gave no feedback).
func GuardrailGaveUp(name string, maxRetries int, lastError string) string {
	return "Task failed " + name + " validation after " + strconv.Itoa(maxRetries) + " retries. Last error: " + lastError
}
