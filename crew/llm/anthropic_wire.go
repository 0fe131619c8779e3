package llm

import (
	"fmt"
	"strconv"
	"strings"

	"crewbench/crew/pyjson"
)

// anthropicAPIVersion is the anthropic-version header the anthropic Python
// SDK sends (its default headers); CrewAI 1.15.17 pins anthropic~=0.73.0.
const anthropicAPIVersion = "2023-06-01"

// anthropicStructuredBeta is the anthropic-beta CrewAI's provider asks for
// when it sends output_format (ANTHROPIC_STRUCTURED_OUTPUTS_BETA).
const anthropicStructuredBeta = "structured-outputs-2025-11-13"

// anthropicStructuredTool is the tool CrewAI's provider offers in place of
// the agent's tools for a response model on models without native
// structured outputs; its input is the structured reply.
const anthropicStructuredTool = "structured_output"

// anthropicRequest is one Messages API request as CrewAI's native Anthropic
// provider sends it.
type anthropicRequest struct {
	body []byte
	// beta: the request goes through client.beta.messages (output_format),
	// so it carries ?beta=true and the anthropic-beta header.
	beta bool
	// structuredTool: the reply's structured_output tool call is the
	// structured reply.
	structuredTool bool
}

// nativeStructuredModels are the model-name fragments CrewAI treats as
// supporting output_format (NATIVE_STRUCTURED_OUTPUT_MODELS).
var nativeStructuredModels = []string{
	"claude-sonnet-4-5", "claude-sonnet-4.5", "claude-opus-4-5", "claude-opus-4.5",
	"claude-opus-4-1", "claude-opus-4.1", "claude-haiku-4-5", "claude-haiku-4.5",
}

func supportsNativeStructuredOutputs(model string) bool {
	m := strings.ToLower(model)
	for _, p := range nativeStructuredModels {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// anthropicBody renders the Messages API body byte for byte as CrewAI
// 1.15.17's native Anthropic provider puts it on the wire through the
// anthropic Python SDK (0.73) and httpx 0.28: json.dumps with
// ensure_ascii=False and separators (",", ":"), so no \u escapes for
// non-ASCII and no HTML escaping.
//
// The key order is the SDK's, not the order of CrewAI's params dict:
// messages.create() builds its body as max_tokens, messages, model, then
// every other parameter alphabetically (its signature order), dropping
// the ones not given. CrewAI always gives stream (false or true). The
// structured-output extra_body (output_format) is merged after all of
// them. Inside, the dicts keep CrewAI's insertion order
// (_format_messages_for_anthropic, _convert_tools_for_interference):
// messages role, content; tool_use type, id, name, input; tool_result
// type, tool_use_id, content; tools name, description, input_schema,
// strict.
func (p *anthropicProvider) anthropicBody(req Request) (anthropicRequest, error) {
	var out anthropicRequest
	bad := func(err error) (anthropicRequest, error) {
		return anthropicRequest{}, &Error{Kind: KindBadRequest, Provider: ProviderAnthropic, Model: p.model, Message: err.Error()}
	}
	model := req.Model
	if model == "" {
		model = p.model
	}
	cfg := p.cfg
	if req.Bare {
		cfg = Config{}
	}
	maxTokens := AnthropicDefaultMaxTokens
	if req.MaxTokens > 0 {
		maxTokens = req.MaxTokens
	} else if cfg.MaxTokens > 0 {
		maxTokens = cfg.MaxTokens
	}
	system, msgs, err := anthropicMessages(req.Messages)
	if err != nil {
		return bad(err)
	}

	var b strings.Builder
	b.WriteString(`{"max_tokens":`)
	b.WriteString(strconv.Itoa(maxTokens))
	b.WriteString(`,"messages":`)
	b.WriteString(msgs)
	b.WriteString(`,"model":`)
	b.WriteString(wireString(model))
	if len(req.Stop) > 0 {
		b.WriteString(`,"stop_sequences":[`)
		for i, s := range req.Stop {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(wireString(s))
		}
		b.WriteByte(']')
	}
	b.WriteString(`,"stream":`)
	b.WriteString(strconv.FormatBool(req.Stream))
	if system != "" {
		// CrewAI joins the system messages with a blank line and sends a
		// plain string ("if system_message", so an empty one is left out).
		b.WriteString(`,"system":`)
		b.WriteString(wireString(system))
	}
	if t := req.Temperature; t != nil {
		b.WriteString(`,"temperature":`)
		b.WriteString(pyjson.FloatRepr(*t))
	} else if t := cfg.Temperature; t != nil {
		b.WriteString(`,"temperature":`)
		b.WriteString(pyjson.FloatRepr(*t))
	}

	var outputFormat string
	tools, toolChoice := req.Tools, req.ToolChoice
	if rf := req.ResponseFormat; rf != nil {
		schema, err := anthropicOutputSchema(*rf)
		if err != nil {
			return bad(err)
		}
		if supportsNativeStructuredOutputs(p.model) {
			out.beta = true
			outputFormat = `{"type":"json_schema","schema":` + schema + `}`
		} else {
			// The response model's tool replaces the agent's tools
			// (completion.py _handle_completion).
			out.structuredTool = true
			toolChoice = anthropicStructuredTool
			tools = nil
			b.WriteString(`,"tool_choice":{"type":"tool","name":"structured_output"}`)
			b.WriteString(`,"tools":[{"name":"structured_output","description":"Output the structured response","input_schema":`)
			b.WriteString(schema)
			b.WriteString(`}]`)
		}
	}
	if !out.structuredTool {
		if toolChoice != "" && len(tools) > 0 {
			b.WriteString(`,"tool_choice":{"type":"tool","name":`)
			b.WriteString(wireString(toolChoice))
			b.WriteByte('}')
		}
		if len(tools) > 0 {
			b.WriteString(`,"tools":[`)
			for i, t := range tools {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := writeAnthropicTool(&b, t); err != nil {
					return bad(err)
				}
			}
			b.WriteByte(']')
		}
	}
	if outputFormat != "" {
		b.WriteString(`,"output_format":`)
		b.WriteString(outputFormat)
	}
	b.WriteByte('}')
	out.body = []byte(b.String())
	return out, nil
}

// anthropicMessages renders the messages array as
// _format_messages_for_anthropic builds it, and returns the system prompt
// beside it: system messages are joined with "\n\n"; user and plain
// assistant messages keep string content; an assistant message with tool
// calls is tool_use blocks only (its text is dropped); each run of tool
// messages becomes one user message of tool_result blocks, flushed before
// the next user or assistant message (a user message after the results
// stays a message of its own); and a conversation that does not start with
// a user message gets a "Hello" user message first.
func anthropicMessages(msgs []Message) (string, string, error) {
	var (
		system  strings.Builder
		items   []string
		results []string
	)
	flush := func() {
		if len(results) > 0 {
			items = append(items, `{"role":"user","content":[`+strings.Join(results, ",")+`]}`)
			results = nil
		}
	}
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			if system.Len() > 0 {
				system.WriteString("\n\n")
			}
			system.WriteString(m.Content)
		case RoleTool:
			if m.ToolCallID == "" {
				return "", "", fmt.Errorf("message %d: tool message missing required tool_call_id", i)
			}
			results = append(results, `{"type":"tool_result","tool_use_id":`+wireString(m.ToolCallID)+`,"content":`+wireString(m.Content)+`}`)
		case RoleAssistant:
			flush()
			items = append(items, anthropicAssistant(m))
		case RoleUser:
			flush()
			items = append(items, `{"role":"user","content":`+wireString(m.Content)+`}`)
		default:
			return "", "", fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	flush()
	if len(items) == 0 || !strings.HasPrefix(items[0], `{"role":"user",`) {
		items = append([]string{`{"role":"user","content":"Hello"}`}, items...)
	}
	return system.String(), "[" + strings.Join(items, ",") + "]", nil
}

func anthropicAssistant(m Message) string {
	if len(m.ToolCalls) == 0 && !m.SDKDump {
		return `{"role":"assistant","content":` + wireString(m.Content) + `}`
	}
	var blocks []string
	if m.SDKDump && m.Content != "" {
		// A reply re-sent as its content blocks (instructor's reask keeps
		// response.content as it came).
		blocks = append(blocks, `{"type":"text","text":`+wireString(m.Content)+`}`)
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, `{"type":"tool_use","id":`+wireString(tc.ID)+`,"name":`+wireString(tc.Name)+`,"input":`+toolUseInput(tc.Arguments)+`}`)
	}
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

// toolUseInput is a tool call's arguments as CrewAI writes them into a
// tool_use block: json.loads of the text, dumped again by the SDK (so
// spacing and \u escapes are normalised, key order kept). The Messages API
// only accepts an object; arguments that are not a JSON object (a recorded
// OpenAI reply with broken JSON, say, on which CrewAI's json.loads raises)
// are sent as {} — the tool message that follows already tells the model
// what went wrong.
func toolUseInput(args string) string {
	v, err := pyjson.Loads(args)
	if _, ok := v.(*pyjson.Object); err != nil || !ok {
		return `{}`
	}
	return pyjson.DumpsStyle(v, pyjson.Wire)
}

// writeAnthropicTool writes one tool as _convert_tools_for_interference
// builds it: name, description, input_schema (the engine's Anthropic
// rendering of the schema, already sanitised for strict mode), strict.
func writeAnthropicTool(b *strings.Builder, t Tool) error {
	b.WriteString(`{"name":`)
	b.WriteString(wireString(t.Name))
	b.WriteString(`,"description":`)
	b.WriteString(wireString(t.Description))
	b.WriteString(`,"input_schema":`)
	if len(t.Parameters) > 0 {
		params, err := compactRaw(t.Parameters)
		if err != nil {
			return fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		if len(params) == 0 || params[0] != '{' {
			return fmt.Errorf("tool %q: parameters are not a JSON object", t.Name)
		}
		b.Write(params)
	} else {
		b.WriteString(`{"type":"object","properties":{},"required":[]}`)
	}
	if t.Strict {
		b.WriteString(`,"strict":true`)
	}
	b.WriteByte('}')
	return nil
}

// anthropicOutputSchema is the response model's schema as CrewAI sends it
// to Anthropic: the SDK's transform_schema of model_json_schema().
func anthropicOutputSchema(rf ResponseFormat) (string, error) {
	src := rf.ModelSchema
	if len(src) == 0 {
		src = rf.Schema
	}
	v, err := pyjson.Loads(string(src))
	if err != nil {
		return "", fmt.Errorf("response model %q: schema: %w", rf.Name, err)
	}
	o, ok := v.(*pyjson.Object)
	if !ok {
		return "", fmt.Errorf("response model %q: schema is not a JSON object", rf.Name)
	}
	t, err := transformSchema(o)
	if err != nil {
		return "", fmt.Errorf("response model %q: %w", rf.Name, err)
	}
	return pyjson.DumpsStyle(t, pyjson.Wire), nil
}

// anthropicStructuredReply turns the reply to a structured_output tool
// request into the structured reply CrewAI's provider returns: the tool's
// input as JSON text (model_validate then model_dump_json, compact), with
// no tool calls left.
func anthropicStructuredReply(r Response) Response {
	for _, tc := range r.ToolCalls {
		if tc.Name != anthropicStructuredTool {
			continue
		}
		if v, err := pyjson.Loads(tc.Arguments); err == nil {
			r.Content = pyjson.DumpsStyle(v, pyjson.Wire)
		} else {
			r.Content = tc.Arguments
		}
		r.ToolCalls = nil
		return r
	}
	return r
}
