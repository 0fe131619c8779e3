package crew

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/names"
	"crewbench/session"
)

// The output converter, as CrewAI 1.15.17 turns a task's answer into its
// output_json / output_pydantic model (Task._export_output, task.py:
// 1191-1240, and utilities/converter.py):
//
//   - convert_to_model (converter.py:190-258): the answer parsed with
//     json.loads(strict=False) and validated; when it is not JSON or does
//     not validate, handle_partial_json (converter.py:280-332) tries the
//     text from the first "{" to the last "}". A fragment that parses but
//     does not validate re-raises the ValidationError, and the task fails
//     with it (nothing between convert_to_model and _execute_core's
//     TaskFailedEvent catches it, task.py:953-956).
//   - Otherwise convert_with_instructions (converter.py:335-389): the agent's
//     function_calling_llm or llm, the formatted_task_instructions slice
//     with json.dumps(generate_model_description(model), indent=2), and a
//     Converter with max_attempts 3 (base_output_converter.py:31-34).
//   - output_pydantic, Converter.to_pydantic (converter.py:84-116):
//     llm.call([system instructions, user answer], response_model=model)
//     when the LLM supports function calling, else a plain call; the reply
//     validated (whole, then its "{…}" fragment); any failure retries, and
//     after the last attempt its ConverterError is raised: the task fails.
//   - output_json, Converter.to_json (converter.py:142-162): with function
//     calling, InternalInstructor (internal_instructor.py) asks instructor
//     (TOOLS mode) through a fresh OpenAI SDK client — no CrewAI LLM events,
//     no token accounting — and returns model_dump_json(indent=2); without
//     it, json.dumps(llm.call(messages)), a JSON string that
//     _unpack_model_output loads back into a str, which TaskOutput then
//     rejects as json_dict (CrewAI fails the task; crewbench reproduces
//     that). Failures retry; after the last attempt the ConverterError is
//     returned and the original answer kept (raw only).
//
// Converter and InternalInstructor pass neither from_task nor from_agent to
// the LLM, so their llm_call_* events carry no task or agent.

// converterMaxAttempts is OutputConverter.max_attempts' default
// (agents/agent_builder/utilities/base_output_converter.py:31-34).
const converterMaxAttempts = 3

// instructorMaxRetries is Instructor.create's max_retries default
// (instructor 1.15.1 core/client.py Instructor.create): attempts, not
// retries — tenacity's stop_after_attempt(3), retrying on any exception.
const instructorMaxRetries = 3

// fragmentInvalidError is the ValidationError of a reply whose "{…}"
// fragment parses but does not validate: to_pydantic words its
// ConverterError after a ValidationError (converter.py:105-110).
type fragmentInvalidError struct{ err error }

func (e *fragmentInvalidError) Error() string { return e.err.Error() }

// exportOutput is Task._export_output(raw) followed by
// _unpack_model_output (task.py:1191-1240): it sets the output's json_dict
// or model from its raw answer. An error is the exception CrewAI raises
// out of the conversion: the task fails with it.
func (rs *runState) exportOutput(ctx context.Context, tr *taskRun, agent *Agent, to *TaskOutput, base session.Event) error {
	t := tr.task
	m := t.outputModel()
	to.JSONDict, to.Pydantic, to.model = nil, "", nil
	if m == nil {
		return nil
	}
	if t.ConverterClass != "" {
		// convert_to_model hands a converter_cls straight to
		// convert_with_instructions (converter.py:220-227).
		rs.warn(tr.span, base, "task "+tr.name+": converter_cls "+t.ConverterClass+" is a Python class crewbench cannot run; the output is left unconverted (raw only)")
		return nil
	}
	c := &converter{rs: rs, tr: tr, parent: tr.span, agent: agent, model: m, json: t.OutputJSON != nil && !t.OutputPydantic, base: base}
	v, err := c.convertToModel(ctx, to.Raw)
	if err != nil {
		return err
	}
	switch out := v.(type) {
	case *pyjson.Object:
		setModelOutput(to, t, m, out)
	case string:
		// _unpack_model_output: a str result is json.loads'd into
		// json_dict, or dropped when it is not JSON (task.py:1228-1240).
		loaded, lerr := pyjson.Loads(out)
		if lerr != nil {
			return nil
		}
		if o, ok := loaded.(*pyjson.Object); ok {
			to.JSONDict = o
			return nil
		}
		// TaskOutput.json_dict is dict[str, Any] | None
		// (tasks/task_output.py:40): any other JSON value fails the
		// TaskOutput it builds.
		return &toolschema.ValidationError{Model: "TaskOutput", Errors: []toolschema.LineError{{
			Loc: []string{"json_dict"}, Type: "dict_type", Msg: "Input should be a valid dictionary", Input: loaded,
		}}}
	}
	return nil
}

// setModelOutput fills the structured part of an output from a validated
// model instance: json_dict for output_json, the model for output_pydantic.
func setModelOutput(to *TaskOutput, t *Task, m *toolschema.Model, v *pyjson.Object) {
	if t.OutputPydantic || t.builtin != nil {
		to.Pydantic, to.model, to.modelClass = m.Str(v), v, m.Name
		return
	}
	to.JSONDict = v
}

// directModel reports the model instance an agent without tools got back
// for its response_model (agent_executor.py:1425-1446): the executor's
// result is then a BaseModel, and the task takes raw, json_dict and
// pydantic from it without converting (task.py:858-867).
func directModel(ar *agentRun, answer string, m *toolschema.Model) (*pyjson.Object, bool) {
	if ar == nil || ar.responseFormat == nil || ar.mode != prompt.ModeNoTools && !ar.planModel {
		return nil, false
	}
	v, err := m.ValidateJSON(strings.TrimSpace(answer))
	return v, err == nil
}

// converter is one Converter run: convert_to_model for one task output,
// or the tool call a ReAct agent's function_calling_llm is asked for.
type converter struct {
	rs *runState
	tr *taskRun
	// parent is the span its LLM calls are parented on.
	parent string
	agent  *Agent
	model  *toolschema.Model
	// format is the response_format of a model CrewAI defines itself (nil:
	// the task's output model's).
	format *llm.ResponseFormat
	// json: output_json (to_json), else output_pydantic (to_pydantic).
	json bool
	base session.Event
}

// convertToModel is convert_to_model on a str result: a validated
// instance (*pyjson.Object), or the original text (string) when the
// converter gave up.
func (c *converter) convertToModel(ctx context.Context, result string) (any, error) {
	if v, err := pyjson.LoadsNonStrict(result); err == nil {
		if o, ok := v.(*pyjson.Object); ok {
			if valid, verr := c.model.Validate(o); verr == nil {
				return valid, nil
			}
		}
	}
	// JSONDecodeError or ValidationError: handle_partial_json.
	if frag, ok := jsonFragment(result); ok {
		v, err := pyjson.LoadsNonStrict(frag)
		if err == nil {
			// A fragment from "{" to "}" that parses is an object.
			o, _ := v.(*pyjson.Object)
			valid, verr := c.model.Validate(o)
			if verr != nil {
				return nil, verr
			}
			return valid, nil
		}
	}
	return c.convertWithInstructions(ctx, result)
}

// jsonFragment is _JSON_PATTERN.search (converter.py:24, r"({.*})" with
// DOTALL): the text from the first "{" to the last "}" after it.
func jsonFragment(s string) (string, bool) {
	i := strings.IndexByte(s, '{')
	j := strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return "", false
	}
	return s[i : j+1], true
}

// convertWithInstructions is convert_with_instructions with CrewAI's
// Converter (converter.py:335-389, agent/core.py get_output_converter).
func (c *converter) convertWithInstructions(ctx context.Context, result string) (any, error) {
	ar := c.callContext()
	if c.json {
		return c.toJSON(ctx, ar, result)
	}
	v, err := c.toPydantic(ctx, ar, c.messages(result), converterMaxAttempts)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// callContext is the agent run the converter's LLM calls go through:
// `agent.function_calling_llm or agent.llm` (converter.py:363), events
// parented on the task and carrying no task or agent (Converter passes
// neither from_task nor from_agent), no stop words (the executor's are
// lifted once it returns).
func (c *converter) callContext() *agentRun {
	p := c.rs.personaOf(c.agent)
	caller := c.agent
	if caller.FunctionCallingLLM != nil {
		// A view of the agent answering on function_calling_llm; the
		// agent's own counters stay on the original.
		caller = &Agent{Key: c.agent.Key, Role: c.agent.Role, LLM: c.agent.FunctionCallingLLM, Model: c.agent.FunctionCallingModel}
	}
	return &agentRun{
		rs: c.rs, agent: caller, p: p, tr: c.tr, span: c.parent,
		base:  session.Event{RunID: c.rs.runID},
		usage: map[Tool]int{}, mode: prompt.ModeNoTools,
	}
}

// target is the LLM the converter's calls go to: the agent's llm, or its
// function_calling_llm, another LLM object whose tokens are not the
// crew's (calculate_usage_metrics reads the agents' llm only,
// crew.py:2201-2225).
func (c *converter) target(ar *agentRun) llmTarget {
	t := ar.agentTarget()
	t.separate = c.agent.FunctionCallingLLM != nil
	return t
}

// instructions is get_conversion_instructions (converter.py:530-562):
// both branches fill formatted_task_instructions with the whole
// generate_model_description dict, indented.
func (c *converter) instructions() string {
	desc := pyjson.ObjectOf("type", "json_schema", "json_schema",
		pyjson.ObjectOf("name", c.model.Name, "strict", true, "schema", promptSchemaOf(c.tr.task, c.model)))
	return prompt.Fill(prompt.FormattedTaskInstructions, "{output_format}", pyjson.DumpsIndent(desc))
}

// promptSchemaOf is generate_model_description(model)["json_schema"]["schema"]
// for a task's output model, as the task prompt shows it.
func promptSchemaOf(t *Task, m *toolschema.Model) *pyjson.Object {
	if t.builtin != nil {
		return t.builtin.promptSchema
	}
	return toolschema.StrictSchema(m.Schema(), true)
}

// messages is Converter._build_messages for a task output: the
// conversion instructions, then the text (converter.py:45-49).
func (c *converter) messages(text string) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: c.instructions()}, {Role: llm.RoleUser, Content: text}}
}

// toPydantic is Converter.to_pydantic on msgs: up to maxAttempts calls;
// the ConverterError after the last one is the caller's error.
func (c *converter) toPydantic(ctx context.Context, ar *agentRun, msgs []llm.Message, maxAttempts int) (*pyjson.Object, error) {
	var last error
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		target := c.target(ar)
		if ar.agent.LLM != nil && ar.agent.LLM.SupportsFunctionCalling() {
			// llm.call(messages, response_model=model): the native OpenAI
			// provider's beta.chat.completions.parse, which validates the
			// reply itself (parseStructuredReply).
			target.structured = &builtinModel{format: c.responseFormat(), model: c.model}
		}
		resp, err := ar.call(ctx, c.parent, target, llm.Request{Messages: msgs, Stream: c.rs.opts.Stream}, callOpts{})
		if err == nil {
			var v *pyjson.Object
			if v, err = c.coerce(resp.Content); err == nil {
				return v, nil
			}
		}
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return nil, err
		}
		last = err
	}
	var fe *fragmentInvalidError
	if errors.As(last, &fe) || isStructuredReplyError(last) {
		return nil, prompt.TextError(prompt.ConverterPydanticValidation + last.Error())
	}
	return nil, prompt.TextError(prompt.ConverterPydanticError + last.Error())
}

// responseFormat is the model as llm.call(response_model=…) sends it: the
// same response_format an agent without tools sends for it.
func (c *converter) responseFormat() *llm.ResponseFormat {
	if c.format != nil {
		return c.format
	}
	if b := c.tr.task.builtin; b != nil {
		return b.format
	}
	return responseFormat(c.model)
}

// coerce is Converter._coerce_response_to_pydantic on a text reply
// (converter.py:51-82): model_validate_json, else handle_partial_json
// with agent=None, whose own convert_with_instructions call raises the
// missing-agent TypeError.
func (c *converter) coerce(reply string) (*pyjson.Object, error) {
	if v, err := c.model.ValidateJSON(reply); err == nil {
		return v, nil
	}
	frag, ok := jsonFragment(reply)
	if !ok {
		return nil, prompt.TextError(prompt.ConverterNoAgent)
	}
	parsed, err := pyjson.LoadsNonStrict(frag)
	if err != nil {
		return nil, prompt.TextError(prompt.ConverterNoAgent)
	}
	o, _ := parsed.(*pyjson.Object)
	v, verr := c.model.Validate(o)
	if verr != nil {
		return nil, &fragmentInvalidError{err: verr}
	}
	return v, nil
}

// toJSON is Converter.to_json: the instructor path with function calling,
// else json.dumps of a plain call's text. After the last failed attempt
// the original text comes back (convert_with_instructions returns the
// result on a ConverterError, converter.py:381-387).
func (c *converter) toJSON(ctx context.Context, ar *agentRun, text string) (any, error) {
	var last error
	for attempt := 1; attempt <= converterMaxAttempts; attempt++ {
		var v any
		var err error
		if ar.agent.LLM != nil && ar.agent.LLM.SupportsFunctionCalling() {
			v, err = c.instructor(ctx, ar, text)
		} else {
			var resp llm.Response
			resp, err = ar.call(ctx, c.parent, c.target(ar), llm.Request{Messages: c.messages(text), Stream: c.rs.opts.Stream}, callOpts{})
			// json.dumps(str): loaded back, it is the reply text itself.
			v = pyjson.Dumps(resp.Content)
		}
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil || errors.Is(err, ErrAborted) {
			return nil, err
		}
		last = err
	}
	c.rs.warn(c.tr.span, c.base, "output converter: Failed to convert result to model: Failed to convert text into JSON, error: "+last.Error()+". The task keeps its raw answer.")
	return text, nil
}

// instructor is InternalInstructor.to_pydantic (internal_instructor.py:
// 139-162) through instructor 1.15.1's from_provider("openai/<model>")
// client in TOOLS mode: one user message with the answer (the
// instructions are not sent), the model as a forced function, and the
// reply's arguments validated; a reply that does not validate is asked
// again with instructor's reask messages, any other failure re-sent as
// it was, up to max_retries attempts.
func (c *converter) instructor(ctx context.Context, ar *agentRun, text string) (*pyjson.Object, error) {
	p, _ := validatingProvider(ar.agent.Model)
	anthropic := p == names.Anthropic
	tool := instructorTool(c.model, anthropic)
	msgs := []llm.Message{{Role: llm.RoleUser, Content: text}}
	var failed []prompt.FailedAttempt
	// completion is retry_sync's response variable: the last reply
	// received, kept across attempts (core/retry.py retry_sync).
	completion := "None"
	var last error
	for attempt := 1; attempt <= instructorMaxRetries; attempt++ {
		req := llm.Request{Messages: slices.Clip(msgs), Tools: []llm.Tool{tool}, ToolChoice: tool.Name, Bare: true}
		resp, err := ar.call(ctx, c.parent, c.target(ar), req, callOpts{own: true})
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrAborted) {
				return nil, err
			}
			failed = append(failed, prompt.FailedAttempt{Number: attempt, Exception: err.Error(), Completion: completion})
			last = err
			continue
		}
		completion = llm.CompletionRepr(resp.Raw)
		var v *pyjson.Object
		var perr error
		if anthropic {
			v, perr = c.parseAnthropicTools(resp)
		} else {
			v, perr = c.parseTools(resp, tool.Name)
		}
		if perr == nil {
			return v, nil
		}
		failed = append(failed, prompt.FailedAttempt{Number: attempt, Exception: perr.Error(), Completion: completion})
		last = perr
		var ve *toolschema.ValidationError
		if errors.As(perr, &ve) && anthropic && len(resp.ToolCalls) == 0 {
			// reask_anthropic_tools without a tool_use block: the reply's
			// content as it came, then the error as a user message.
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content, SDKDump: true},
				llm.Message{Role: llm.RoleUser, Content: prompt.InstructorNoToolReask(failed, perr.Error())})
		} else if errors.As(perr, &ve) {
			// reask_tools (instructor/providers/openai/utils.py): the reply
			// as dump_message writes it, then a tool message per call.
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls, SDKDump: true})
			for _, tc := range resp.ToolCalls {
				msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name,
					Content: prompt.InstructorReask(failed, perr.Error())})
			}
		}
	}
	return nil, last
}

// parseTools is OpenAISchema.parse_tools (instructor/processing/
// function_calls.py): a reply cut at the token limit is incomplete, it
// must hold exactly one call of the model's function, whose arguments are
// validated in strict mode (strict=True from Instructor.create's default).
func (c *converter) parseTools(resp llm.Response, name string) (*pyjson.Object, error) {
	if resp.FinishReason == "length" {
		return nil, prompt.TextError("The output is incomplete due to a max_tokens length limit.")
	}
	if len(resp.ToolCalls) != 1 {
		return nil, prompt.TextError("Instructor does not support multiple tool calls, use List[Model] instead")
	}
	if resp.ToolCalls[0].Name != name {
		return nil, prompt.TextError("Tool name does not match")
	}
	v, verr := c.model.ValidateJSONStrict(resp.ToolCalls[0].Arguments)
	if verr != nil {
		return nil, verr
	}
	return v, nil
}

// parseAnthropicTools is OpenAISchema.parse_anthropic_tools (instructor/
// processing/function_calls.py): a reply cut at max_tokens is incomplete;
// the tool_use blocks' inputs must be exactly one (a TypeAdapter of a list
// of length 1, so a ValidationError, which instructor reasks), whatever
// its name, validated in strict mode.
func (c *converter) parseAnthropicTools(resp llm.Response) (*pyjson.Object, error) {
	if resp.FinishReason == "max_tokens" {
		return nil, prompt.TextError("The output is incomplete due to a max_tokens length limit.")
	}
	if n := len(resp.ToolCalls); n != 1 {
		// The list holds json.dumps of each input.
		inputs := make([]any, n)
		for i, tc := range resp.ToolCalls {
			inputs[i] = tc.Arguments
			if v, err := pyjson.Loads(tc.Arguments); err == nil {
				inputs[i] = pyjson.Dumps(v)
			}
		}
		le := toolschema.LineError{Type: "too_short", Msg: "List should have at least 1 item after validation, not 0", Input: inputs}
		if n > 1 {
			le.Type, le.Msg = "too_long", "List should have at most 1 item after validation, not "+strconv.Itoa(n)
		}
		return nil, &toolschema.ValidationError{Model: "list[any]", Errors: []toolschema.LineError{le}}
	}
	v, verr := c.model.ValidateJSONStrict(resp.ToolCalls[0].Arguments)
	if verr != nil {
		return nil, verr
	}
	return v, nil
}

// instructorTool is the function TOOLS mode offers for a response model
// (instructor/providers/openai/utils.py handle_tools with
// processing/schema.py generate_openai_schema): name the schema's title,
// description the model's docstring or instructor's default text,
// parameters model_json_schema() without title and description, with
// required rewritten as the sorted fields that have no default. No
// "strict" key. For Anthropic (from_provider's ANTHROPIC_TOOLS mode,
// generate_anthropic_schema) the input schema is model_json_schema() as
// it is; the reask of a reply without a tool_use block is
// reask_anthropic_tools' (the reply's content blocks, then a user message),
// that of a tool_use that does not validate (tool_result blocks with
// is_error) is not reproduced: crewbench sends the OpenAI form's messages
// through its Anthropic wire.
func instructorTool(m *toolschema.Model, anthropic bool) llm.Tool {
	schema := m.Schema()
	params := schema
	if !anthropic {
		params = instructorParameters(schema)
	}
	name := m.Name
	if t, ok := schema.Get("title"); ok {
		if ts, ok := t.(string); ok {
			name = ts
		}
	}
	desc := prompt.InstructorDescription(name)
	if d, ok := schema.Get("description"); ok {
		if ds, ok := d.(string); ok {
			desc = ds
		}
	}
	return llm.Tool{Name: name, Description: desc, Parameters: json.RawMessage(pyjson.DumpsStyle(params, pyjson.Wire))}
}

// instructorParameters is generate_openai_schema's parameters: the schema
// without title and description, required the sorted properties that
// have no default (in place, or appended when Pydantic wrote none).
func instructorParameters(schema *pyjson.Object) *pyjson.Object {
	params := pyjson.NewObject()
	for _, k := range schema.Keys() {
		if k == "title" || k == "description" {
			continue
		}
		v, _ := schema.Get(k)
		params.Set(k, v)
	}
	var required []string
	if pv, ok := schema.Get("properties"); ok {
		if props, ok := pv.(*pyjson.Object); ok {
			for _, k := range props.Keys() {
				p, _ := props.Get(k)
				if po, ok := p.(*pyjson.Object); ok && po.Has("default") {
					continue
				}
				required = append(required, k)
			}
		}
	}
	slices.Sort(required)
	list := make([]any, len(required))
	for i, r := range required {
		list[i] = r
	}
	params.Set("required", list)
	return params
}
