package prompt

// Conformance audit of the prompt texts against crewai-semantics.md §5, §7
// and crewai-formats.md §4.2–§4.5, §5: each slice as the spec quotes it
// (JSON string literals there, Go literals here, byte for byte), and the
// assembled messages in every mode.

import (
	"strings"
	"testing"

	"crewbench/crew/pyjson"
)

func TestConformanceSlices(t *testing.T) {
	cases := []struct{ name, got, want string }{
		{"role_playing", RolePlaying, "You are {role}. {backstory}\nYour personal goal is: {goal}"},
		{"tools", Tools, "\nYou ONLY have access to the following tools, and should NEVER make up tools that are not listed here:\n\n{tools}\n\nIMPORTANT: Use the following format in your response:\n\n```\nThought: you should always think about what to do\nAction: the action to take, only one name of [{tool_names}], just the name, exactly as it's written.\nAction Input: the input to the action, just a simple JSON object, enclosed in curly braces, using \" to wrap keys and values.\nObservation: the result of the action\n```\n\nOnce all necessary information is gathered, return the following format:\n\n```\nThought: I now know the final answer\nFinal Answer: the final answer to the original input question\n```"},
		{"task", Task, "\nCurrent Task: {input}\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer, your job depends on it!\n\nThought:"},
		{"task_no_tools", TaskNoTools, "\nCurrent Task: {input}\n\nProvide your complete response:"},
		{"native_task", NativeTask, "\nCurrent Task: {input}"},
		{"format", Format, "Decide if you need a tool or can provide the final answer. Use one at a time.\nTo use a tool, use:\nThought: [reasoning]\nAction: [name from {tool_names}]\nAction Input: [JSON object]\n\nTo provide the final answer, use:\nThought: [reasoning]\nFinal Answer: [complete response]"},
		{"expected_output", ExpectedOutput, "\nThis is the expected criteria for your final answer: {expected_output}\nyou MUST return the actual complete content as the final answer, not a summary."},
		{"markdown", Markdown, "Your final answer MUST be formatted in Markdown syntax.\nFollow these guidelines:\n- Use # for headers\n- Use ** for bold text\n- Use * for italic text\n- Use - or * for bullet points\n- Use `code` for inline code\n- Use ```language for code blocks"},
		{"formatted_task_instructions", FormattedTaskInstructions, "Format your final answer according to the following OpenAPI schema: {output_format}\n\nIMPORTANT: Preserve the original content exactly as-is. Do NOT rewrite, paraphrase, or modify the meaning of the content. Only structure it to match the schema format.\n\nDo not include the OpenAPI schema in the final output. Ensure the final output does not include any code block markers like ```json or ```python."},
		{"task_with_context", TaskWithContext, "{task}\n\nThis is the context you're working with:\n{context}"},
		{"DIVIDERS", ContextDivider, "\n\n----------\n\n"},
		{"force_final_answer", ForceFinalAnswer, "Now it's time you MUST give your absolute best final answer. You'll ignore all previous instructions, stop using any tools, and just return your absolute BEST Final answer."},
		{"post_tool_reasoning", PostToolReasoning, "Analyze the tool result. If requirements are met, provide the Final Answer. Otherwise, call the next tool. Deliver only the answer without meta-commentary."},
		{"tool_usage_exception", ToolUsageException, "I encountered an error while trying to use the tool. This was the error: {error}.\n Tool {tool} accepts these inputs: {tool_inputs}"},
		{"tool_usage_error", ToolUsageError, "I encountered an error: {error}"},
		{"task_repeated_usage", TaskRepeatedUsage, "I tried reusing the same input, I must stop using this action input. I'll try something else instead.\n\n"},
		{"native fallback", NativeFallback, "Native tool calling is unavailable for this model/provider. Continue using CrewAI text tool calling instead.\n"},
		{"missing Action", MissingActionAfterThought, "I did it wrong. Invalid Format: I missed the 'Action:' after 'Thought:'. I will do right next, and don't use a tool I have already used.\n"},
		{"missing Action Input", MissingActionInputAfterAction, "I did it wrong. Invalid Format: I missed the 'Action Input:' after 'Action:'. I will do right next, and don't use a tool I have already used.\n"},
		{"unknown action", ToolNotExist, "Action '{tool_name}' don't exist, these are the only available Actions:\n{tools_description}"},
		{"empty action", ToolNameMissing, "I forgot the Action name, these are the only available Actions: {tools_description}"},
		{"input not a dict (failure)", ToolArgumentsInvalid, "Tool input must be a valid dictionary in JSON or Python literal format"},
		{"input not a dict (observation)", ToolInputNotDict, "Error: the Action Input is not a valid key, value dictionary."},
		{"unknown tool after parsing", ToolUnknownCalling, "You tried to use the tool {tool}, but it doesn't exist. You must use one of the following tools, use one at time: {tools}."},
		{"usage limit", ToolUsageLimit, "Tool '{tool}' has reached its usage limit of {max} times and cannot be used anymore."},
		{"hook blocked", HookBlocked, "Tool execution blocked by hook. Tool: {tool}"},
		{"native unknown tool", NativeToolNotFound, "Tool not found"},
		{"native JSON error", NativeJSONError, "Error: Failed to parse tool arguments as JSON: {error}. Please provide valid JSON arguments for the '{tool}' tool."},
		{"native exception", NativeExecutionError, "Error executing tool: {error}"},
		{"native result_as_answer thought", NativeFinalThought, "Tool result is the final answer"},
		{"empty LLM reply", EmptyResponse, "Invalid response from LLM call - None or empty."},
		{"stop word", StopWord, "\nObservation:"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
}

// §7: the composite block, Python json.dumps(indent=2) with \uXXXX escapes
// and no HTML escaping, "{}" without a schema, the old-composite prefix
// stripped from the authored description; {tools} joined with "\n" and
// {tool_names} with ", ". An Optional collapses with the outer keys first
// (default, then the member's type), as the goldens' ReAct blocks show.
func TestConformanceToolBlockAndMessages(t *testing.T) {
	schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"q": {"type": "string", "description": "Text <b>&</b> in Zürich 天气 😀"}, "n": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}}, "required": ["q"]}`)
	block := DescribeTool("search_web", schema, "Searches <the> web & more.")
	wantBlock := "Tool Name: search_web\nTool Arguments: {\n  \"type\": \"object\",\n  \"properties\": {\n    \"q\": {\n      \"type\": \"string\",\n      \"description\": \"Text <b>&</b> in Z\\u00fcrich \\u5929\\u6c14 \\ud83d\\ude00\"\n    },\n    \"n\": {\n      \"default\": null,\n      \"type\": \"integer\"\n    }\n  },\n  \"required\": [\n    \"q\",\n    \"n\"\n  ],\n  \"additionalProperties\": false\n}\nTool Description: Searches <the> web & more."
	if block != wantBlock {
		t.Errorf("block:\n got %q\nwant %q", block, wantBlock)
	}
	if got := DescribeTool("ping", nil, "Tool Name: ping\nTool Arguments: {}\nTool Description: Pings."); got != "Tool Name: ping\nTool Arguments: {}\nTool Description: Pings." {
		t.Errorf("no-schema block / old composite: %q", got)
	}
	tools := ToolText{Description: block + "\n" + DescribeTool("ping", nil, "Pings."), Names: "search_web, ping"}
	p := Persona{Role: "Analyst", Goal: "Find {topic}", Backstory: "Careful.", UseSystemPrompt: true}
	cases := []struct {
		mode         Mode
		system, user string
	}{
		{ModeReAct,
			"You are Analyst. Careful.\nYour personal goal is: Find {topic}\nYou ONLY have access to the following tools, and should NEVER make up tools that are not listed here:\n\n" + tools.Description + "\n\nIMPORTANT: Use the following format in your response:\n\n```\nThought: you should always think about what to do\nAction: the action to take, only one name of [search_web, ping], just the name, exactly as it's written.\nAction Input: the input to the action, just a simple JSON object, enclosed in curly braces, using \" to wrap keys and values.\nObservation: the result of the action\n```\n\nOnce all necessary information is gathered, return the following format:\n\n```\nThought: I now know the final answer\nFinal Answer: the final answer to the original input question\n```",
			"\nCurrent Task: Do it.  \n\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer, your job depends on it!\n\nThought:"},
		{ModeNative, "You are Analyst. Careful.\nYour personal goal is: Find {topic}", "\nCurrent Task: Do it."},
		{ModeNoTools, "You are Analyst. Careful.\nYour personal goal is: Find {topic}", "\nCurrent Task: Do it.  \n\n\nProvide your complete response:"},
	}
	// Only the end of each message is right-stripped: the task text's own
	// trailing whitespace survives inside the user message.
	for _, c := range cases {
		m := Build(c.mode, p, "Do it.  \n", tools)
		if m.System != c.system || m.User != c.user {
			t.Errorf("%s:\n system %q\n   want %q\n user %q\n want %q", c.mode, m.System, c.system, m.User, c.user)
		}
	}
	// The "Moving on then." wrappers use the format slice with the names.
	if got := FormatReminder("search_web, ping"); !strings.Contains(got, "Action: [name from search_web, ping]\n") {
		t.Errorf("format reminder %q", got)
	}
	if got := ToolsReminder(tools); got != Fill(Tools, "{tools}", tools.Description, "{tool_names}", tools.Names) || !strings.HasPrefix(got, "\nYou ONLY") {
		t.Errorf("tools reminder %q", got)
	}
}

// crewai-formats.md §4.2: Task.prompt() pieces joined with "\n", the
// schema instructions, then task_with_context.
func TestConformanceTaskPrompt(t *testing.T) {
	schema := pyjson.ObjectOf("type", "object", "properties", pyjson.ObjectOf("ok", pyjson.ObjectOf("type", "boolean")))
	got := TaskPrompt(TaskSpec{Description: "Check.", ExpectedOutput: "A flag.", Markdown: true, OutputSchema: schema}, JoinContext([]string{"one", "", "three"}))
	want := "Check.\n\nThis is the expected criteria for your final answer: A flag.\nyou MUST return the actual complete content as the final answer, not a summary.\n" + Markdown +
		"\nFormat your final answer according to the following OpenAPI schema: {\n  \"type\": \"object\",\n  \"properties\": {\n    \"ok\": {\n      \"type\": \"boolean\"\n    }\n  }\n}\n\nIMPORTANT: Preserve the original content exactly as-is. Do NOT rewrite, paraphrase, or modify the meaning of the content. Only structure it to match the schema format.\n\nDo not include the OpenAPI schema in the final output. Ensure the final output does not include any code block markers like ```json or ```python." +
		"\n\nThis is the context you're working with:\none\n\n----------\n\n\n\n----------\n\nthree"
	if got != want {
		t.Errorf("task prompt:\n got %q\nwant %q", got, want)
	}
}
