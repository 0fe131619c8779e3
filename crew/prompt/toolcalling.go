package prompt

// Texts of ToolUsage._function_calling (CrewAI 1.15.17 tools/
// tool_usage.py:860-887): the Converter a ReAct agent's
// function_calling_llm gets when an Action cannot be parsed, verbatim.

// FunctionCallingInstructions is the Converter's instructions (its system
// message): the dedent()ed block of tool_usage.py:873-881.
const FunctionCallingInstructions = "The schema should have the following structure, only two keys:\n- tool_name: str\n- arguments: dict (always a dictionary, with all arguments being passed)\n\nExample:\n{\"tool_name\": \"tool name\", \"arguments\": {\"arg_name1\": \"value\", \"arg_name2\": 2}}"

// FunctionCallingText is the Converter's text (its user message): the
// tools as ToolUsage._render joins their composite blocks ("\n--\n"), then
// the agent's whole reply.
func FunctionCallingText(renderedTools, reply string) string {
	return "Only tools available:\n###\n" + renderedTools +
		"\n\nReturn a valid schema for the tool, the tool name must be exactly equal one of the options, use this text to inform the valid output schema:\n\n### TEXT \n" + reply
}
