// Package prompt builds the exact texts CrewAI 1.15 sends to an LLM: the
// role-playing system prompt, the ReAct tool block, the task slices, the
// expected-output and context wrappers, output-schema instructions, the
// error and nudge messages of the tool loop, and kickoff-input
// interpolation (crewai-formats.md §4.2, crewai-semantics.md §5, §7).
//
// Everything here is pure string work; the engine decides when each text is
// used.
package prompt

// Slices from CrewAI's translations/en.json, verbatim. "\n" are newlines.
const (
	RolePlaying = "You are {role}. {backstory}\nYour personal goal is: {goal}"

	Tools = "\nYou ONLY have access to the following tools, and should NEVER make up tools that are not listed here:\n\n{tools}\n\nIMPORTANT: Use the following format in your response:\n\n```\nThought: you should always think about what to do\nAction: the action to take, only one name of [{tool_names}], just the name, exactly as it's written.\nAction Input: the input to the action, just a simple JSON object, enclosed in curly braces, using \" to wrap keys and values.\nObservation: the result of the action\n```\n\nOnce all necessary information is gathered, return the following format:\n\n```\nThought: I now know the final answer\nFinal Answer: the final answer to the original input question\n```"

	Task        = "\nCurrent Task: {input}\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer, your job depends on it!\n\nThought:"
	TaskNoTools = "\nCurrent Task: {input}\n\nProvide your complete response:"
	NativeTask  = "\nCurrent Task: {input}"

	// Format is used in the "Moving on then." observations.
	Format = "Decide if you need a tool or can provide the final answer. Use one at a time.\nTo use a tool, use:\nThought: [reasoning]\nAction: [name from {tool_names}]\nAction Input: [JSON object]\n\nTo provide the final answer, use:\nThought: [reasoning]\nFinal Answer: [complete response]"

	ExpectedOutput = "\nThis is the expected criteria for your final answer: {expected_output}\nyou MUST return the actual complete content as the final answer, not a summary."

	Markdown = "Your final answer MUST be formatted in Markdown syntax.\nFollow these guidelines:\n- Use # for headers\n- Use ** for bold text\n- Use * for italic text\n- Use - or * for bullet points\n- Use `code` for inline code\n- Use ```language for code blocks"

	FormattedTaskInstructions = "Format your final answer according to the following OpenAPI schema: {output_format}\n\nIMPORTANT: Preserve the original content exactly as-is. Do NOT rewrite, paraphrase, or modify the meaning of the content. Only structure it to match the schema format.\n\nDo not include the OpenAPI schema in the final output. Ensure the final output does not include any code block markers like ```json or ```python."

	TaskWithContext = "{task}\n\nThis is the context you're working with:\n{context}"

	// ContextDivider joins the raw outputs that make up a task's context.
	ContextDivider = "\n\n----------\n\n"

	// ForceFinalAnswer is sent as an *assistant* message when max_iter trips.
	ForceFinalAnswer = "Now it's time you MUST give your absolute best final answer. You'll ignore all previous instructions, stop using any tools, and just return your absolute BEST Final answer."

	// PostToolReasoning is the user message after each ReAct observation.
	PostToolReasoning = "Analyze the tool result. If requirements are met, provide the Final Answer. Otherwise, call the next tool. Deliver only the answer without meta-commentary."

	// ToolUsageException is the template of the observation after a tool
	// raised on every retry.
	ToolUsageException = "I encountered an error while trying to use the tool. This was the error: {error}.\n Tool {tool} accepts these inputs: {tool_inputs}"

	// ToolUsageError opens the observation after a ReAct action's parsing
	// attempts are spent (en.json errors.tool_usage_error).
	ToolUsageError = "I encountered an error: {error}"

	// TaskRepeatedUsage is the repeated-call guard's observation, with the
	// translation's trailing "\n\n" (en.json errors.task_repeated_usage).
	// The recorded requests end without it (crewai-fidelity-gaps.md A.9)
	// because the assistant message is rstripped (agent_utils.py:449); when
	// _format_result appends the tools reminder, the newlines stay inside
	// (tool_usage.py:510-520, 760-777).
	TaskRepeatedUsage = "I tried reusing the same input, I must stop using this action input. I'll try something else instead.\n\n"

	// NativeFallback precedes the tools slice when a provider rejects native
	// tool calling and the executor switches to ReAct.
	NativeFallback = "Native tool calling is unavailable for this model/provider. Continue using CrewAI text tool calling instead.\n"

	// The ReAct parser's error texts (agents/parser.py). CrewAI's
	// format_answer turns a parse failure into a final answer, so the
	// executor does not send them in 1.15; they are kept for the trace.
	MissingActionAfterThought     = "I did it wrong. Invalid Format: I missed the 'Action:' after 'Thought:'. I will do right next, and don't use a tool I have already used.\n"
	MissingActionInputAfterAction = "I did it wrong. Invalid Format: I missed the 'Action Input:' after 'Action:'. I will do right next, and don't use a tool I have already used.\n"

	// Tool-selection and argument texts (tools/tool_usage.py).
	ToolNotExist         = "Action '{tool_name}' don't exist, these are the only available Actions:\n{tools_description}"
	ToolNameMissing      = "I forgot the Action name, these are the only available Actions: {tools_description}"
	ToolArgumentsInvalid = "Tool input must be a valid dictionary in JSON or Python literal format"
	ToolInputNotDict     = "Error: the Action Input is not a valid key, value dictionary."
	ToolUnknownCalling   = "You tried to use the tool {tool}, but it doesn't exist. You must use one of the following tools, use one at time: {tools}."
	ToolUsageLimit       = "Tool '{tool}' has reached its usage limit of {max} times and cannot be used anymore."
	HookBlocked          = "Tool execution blocked by hook. Tool: {tool}"

	// Native-path texts (experimental/agent_executor.py).
	NativeToolNotFound   = "Tool not found"
	NativeJSONError      = "Error: Failed to parse tool arguments as JSON: {error}. Please provide valid JSON arguments for the '{tool}' tool."
	NativeExecutionError = "Error executing tool: {error}"
	NativeFinalThought   = "Tool result is the final answer"

	// CurrentDate opens the inject_date block, the date follows
	// (utilities/prompts.py:163, an f-string, not a translation).
	CurrentDate = "\n\nCurrent Date: "

	// FeedbackInstructions is the user message that carries a human's
	// feedback on a task's final answer (translations/en.json:31
	// "feedback_instructions", formatted by _format_feedback_message,
	// experimental/agent_executor.py:3307-3311).
	FeedbackInstructions = "User feedback: {feedback}\nInstructions: Use this feedback to enhance the next output iteration.\nNote: Do not respond or add commentary."

	// What CrewAI prints when a human_input task asks for feedback
	// (core/providers/human_input.py:345-351, the panel's title and text)
	// and after a non-empty answer (human_input.py:366).
	HumanFeedbackTitle      = "💬 Human Feedback Required"
	HumanFeedbackPrompt     = "Provide feedback on the Final Result above.\n\n• If you are happy with the result, simply hit Enter without typing anything.\n• Otherwise, provide specific improvement requests.\n• You can provide multiple rounds of feedback until satisfied."
	HumanFeedbackProcessing = "Processing your feedback..."

	// EmptyResponse is raised when the LLM returns nothing.
	EmptyResponse = "Invalid response from LLM call - None or empty."

	// respect_context_window (formats §5): the texts printed on a
	// context-length error, and the SystemExit raised when the agent opted
	// out of summarizing.
	ContextSummarizing    = "Context length exceeded. Summarizing content to fit the model context window. Might take a while..."
	ContextNotSummarizing = "Context length exceeded. Consider using smaller text or RAG tools from crewai_tools."
	ContextExceededExit   = "Context length exceeded and user opted not to summarize. Consider using smaller text or RAG tools from crewai_tools."

	// The summarizing slices of CrewAI 1.15.17
	// (translations/en.json:25-27): summarizer_system_message,
	// summarize_instruction (filled with {conversation}) and summary
	// (filled with {merged_summary}).
	SummarizerSystem     = "You are a precise assistant that creates structured summaries of agent conversations. You preserve critical context needed for seamless task continuation."
	SummarizeInstruction = "Analyze the following conversation and create a structured summary that preserves all information needed to continue the task seamlessly.\n\n<conversation>\n{conversation}\n</conversation>\n\nCreate a summary with these sections:\n1. **Task Overview**: What is the agent trying to accomplish?\n2. **Current State**: What has been completed so far? What step is the agent on?\n3. **Important Discoveries**: Key facts, data, tool results, or findings that must not be lost.\n4. **Next Steps**: What should the agent do next based on the conversation?\n5. **Context to Preserve**: Any specific values, names, URLs, code snippets, or details referenced in the conversation.\n\nWrap your entire summary in <summary> tags.\n\n<summary>\n[Your structured summary here]\n</summary>"
	Summary              = "<summary>\n{merged_summary}\n</summary>\n\nContinue the task from where the conversation left off. The above is a structured summary of prior context."
)
