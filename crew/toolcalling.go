package crew

import (
	"context"
	"errors"
	"slices"
	"strings"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/react"
	"crewbench/names"
	"crewbench/session"
)

// ToolUsage._tool_calling as CrewAI 1.15.17 runs it for one ReAct action
// (tools/tool_usage.py:889-937): the requested tool is selected and its
// Action Input parsed; when either raises and the agent has a
// function_calling_llm, ToolUsage._function_calling (tool_usage.py:
// 860-887) asks that LLM for the call through a Converter (to_pydantic,
// max_attempts 1) with InstructorToolCalling, or ToolCalling when the LLM
// has no function calling, as the response model. A failure of either is
// retried until _max_parsing_attempts, then the observation is the
// tool_usage_error text.

// toolCallingSchema is InstructorToolCalling.model_json_schema() and
// ToolCalling's (tools/tool_calling.py:11-23) as Pydantic 2.12 writes
// them: the two classes differ only in their name. dict[str, Any] has
// "additionalProperties": true since Pydantic 2.11.
func toolCallingSchema(title string) string {
	return `{"properties": {"tool_name": {"description": "The name of the tool to be called.", "title": "Tool Name", "type": "string"}, "arguments": {"anyOf": [{"additionalProperties": true, "type": "object"}, {"type": "null"}], "description": "A dictionary of arguments to be passed to the tool.", "title": "Arguments"}}, "required": ["tool_name", "arguments"], "title": "` + title + `", "type": "object"}`
}

var (
	instructorToolCallingModel = newBuiltinModel("InstructorToolCalling", toolCallingSchema("InstructorToolCalling"))
	toolCallingModel           = newBuiltinModel("ToolCalling", toolCallingSchema("ToolCalling"))
)

// openAIBiggerModels is OPENAI_BIGGER_MODELS (tool_usage.py:52-70): a
// function_calling_llm whose model is one of them gets 2 parsing attempts
// and the tools reminder every 4th tool use.
var openAIBiggerModels = []string{"gpt-4", "gpt-4o", "o1-preview", "o1-mini", "o1", "o3", "o3-mini"}

// biggerFunctionCallingLLM reports ToolUsage.__init__'s test
// (tool_usage.py:130-135): the LLM object's model, which the native
// providers keep without their "openai/" prefix.
func (ar *agentRun) biggerFunctionCallingLLM() bool {
	fc := ar.agent.FunctionCallingLLM
	return fc != nil && slices.Contains(openAIBiggerModels, fc.Model())
}

// parsingAttempts is ToolUsage._max_parsing_attempts: how often a ReAct
// action's parse, and then its tool's run, is tried.
func (ar *agentRun) parsingAttempts() int {
	if ar.biggerFunctionCallingLLM() {
		return 2
	}
	return maxParsingAttempts
}

// rememberFormatEvery is ToolUsage._remember_format_after_usages: the
// tools block is re-appended to every n-th tool use of the task.
func (ar *agentRun) rememberFormatEvery() int64 {
	if ar.biggerFunctionCallingLLM() {
		return 4
	}
	return 3
}

// reactCall is the ToolCalling _tool_calling produced.
type reactCall struct {
	tool Tool
	args *pyjson.Object
	// runAttempts is ToolUsage._run_attempts after parsing: the first run
	// of the tool has this number, and its retries stop at
	// parsingAttempts.
	runAttempts int
}

// toolCalling is _tool_calling for act. Without a call it returns the
// observation CrewAI answers with instead; err is a raised failure
// policy, a cancelled run or an aborted breakpoint.
func (ar *agentRun) toolCalling(ctx context.Context, step string, act *react.Action) (*reactCall, string, error) {
	fc := ar.agent.FunctionCallingLLM != nil
	// Without a function_calling_llm each attempt parses twice: with
	// raise_error=True, then again with raise_error=False, and
	// _select_tool and _validate_tool_input emit their event both times
	// (tool_usage.py:889-937); with one, the failed first pass goes to the
	// LLM instead of the second.
	events := 2
	if fc {
		events = 1
	}
	attempts := ar.parsingAttempts()
	var lastErr error
	for attempt := 1; attempt <= attempts; attempt++ {
		idx, err := react.SelectTool(act.Tool, ar.reactNames, ar.toolText.Description)
		if err != nil {
			lastErr = err
			for range events {
				ar.pointEvent(session.ToolSelectionError, step, act.Tool, map[string]any{"error": err.Error(), "tool_name": act.Tool, "attempt": attempt})
			}
		} else {
			a, err := react.ParseToolInput(act.Input)
			if err == nil {
				return &reactCall{tool: ar.tools[idx], args: a, runAttempts: attempt}, "", nil
			}
			// A blank input is refused before the event
			// (tool_usage.py:939-946).
			if pyjson.Strip(act.Input) != "" {
				for range events {
					ar.pointEvent(session.ToolValidateInputError, step, ar.reactNames[idx], map[string]any{"error": err.Error(), "tool_input": act.Input, "attempt": attempt})
				}
			}
			if !fc {
				// Conformance (crewai-semantics.md §5.1 step 3, summary
				// #22): an Action Input that is not a dict, for a tool
				// that was found, is not retried and does not get the
				// "I encountered an error: … Moving on then." wrapper;
				// the raise_error=False pass returns the
				// tool_arguments_error text as the observation.
				f := &ToolFailure{Message: prompt.ToolInputNotDict, Reason: ReasonInvalidInput}
				return nil, prompt.ToolInputNotDict, ar.recordFailure(step, actionToolName(act), nil, f, nil)
			}
			lastErr = err
		}
		if !fc {
			continue
		}
		name, args, err := ar.functionCalling(ctx, step, act.Text)
		if err == nil {
			return ar.calledTool(step, name, args, attempt)
		}
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return nil, "", err
		}
		lastErr = err
	}
	obs := prompt.Fill(prompt.ToolUsageError, "{error}", lastErr.Error()) + "\nMoving on then. " + prompt.FormatReminder(ar.toolText.Names)
	f := &ToolFailure{Message: obs, Reason: ReasonInvalidInput}
	return nil, obs, ar.recordFailure(step, actionToolName(act), nil, f, nil)
}

// actionToolName is the tool name a ToolUsageError is reported under:
// the Action as the agent wrote it, or "unknown", and no tool, so the
// tool's own failure policy is not consulted (utilities/tool_utils.py:
// 94-108).
func actionToolName(act *react.Action) string {
	if act.Tool == "" {
		return "unknown"
	}
	return act.Tool
}

// functionCalling is ToolUsage._function_calling: one Converter.to_pydantic
// call on the agent's function_calling_llm, the tools and the agent's
// whole reply as its text. It returns the tool name and arguments the LLM
// gave (args nil for None).
func (ar *agentRun) functionCalling(ctx context.Context, step, reply string) (string, *pyjson.Object, error) {
	model := toolCallingModel
	if ar.agent.FunctionCallingLLM.SupportsFunctionCalling() {
		model = instructorToolCallingModel
	}
	blocks := make([]string, len(ar.tools))
	for i, t := range ar.tools {
		blocks[i] = describe(t)
	}
	c := &converter{rs: ar.rs, tr: ar.tr, parent: step, agent: ar.agent, model: model.model, format: model.format, base: ar.base}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: prompt.FunctionCallingInstructions},
		{Role: llm.RoleUser, Content: prompt.FunctionCallingText(strings.Join(blocks, "\n--\n"), reply)},
	}
	v, err := c.toPydantic(ctx, c.callContext(), msgs, 1)
	if err != nil {
		return "", nil, err
	}
	// Validated: tool_name is a str, arguments a dict or None.
	n, _ := v.Get("tool_name")
	a, _ := v.Get("arguments")
	args, _ := a.(*pyjson.Object)
	return pyjson.Str(n), args, nil
}

// calledTool is execute_tool_and_check_finality on the call the
// function_calling_llm gave (utilities/tool_utils.py:255-197): a name
// that is no tool's, after sanitizing, gets the wrong_tool_name text as
// its observation; otherwise ToolUsage.use selects the tool by that name.
func (ar *agentRun) calledTool(step, name string, args *pyjson.Object, runAttempts int) (*reactCall, string, error) {
	want := names.Sanitize(name)
	if !slices.Contains(ar.reactNames, want) {
		// tool_name_to_tool_map's keys: each sanitized name once, where it
		// first appears.
		var known []string
		for _, n := range ar.reactNames {
			if !slices.Contains(known, n) {
				known = append(known, n)
			}
		}
		obs := prompt.Fill(prompt.ToolUnknownCalling, "{tool}", want, "{tools}", strings.Join(known, ", "))
		f := &ToolFailure{Message: obs, Reason: ReasonUnknownTool, Code: want}
		return nil, obs, ar.recordFailure(step, want, nil, f, args)
	}
	idx, err := react.SelectTool(name, ar.reactNames, ar.toolText.Description)
	if err != nil {
		// Unreachable: an exact name is always selected.
		return nil, "", err
	}
	if args == nil {
		args = pyjson.NewObject()
	}
	return &reactCall{tool: ar.tools[idx], args: args, runAttempts: runAttempts}, "", nil
}
