package llm

import (
	"fmt"
	"slices"
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
// The key order is the SDK's, not the order of CrewAI's params dict. A
// plain call goes through messages.create(), whose body is max_tokens,
// messages, model, then every other parameter alphabetically (its
// signature order): stop_sequences, stream, system, temperature,
// tool_choice, tools, top_p. A streamed call goes through
// messages.stream() (completion.py _handle_streaming_completion), whose
// body dict has its own order: stop_sequences, system, temperature,
// top_p, tools, tool_choice, then "stream": true last (resources/messages/
// messages.py stream()). The structured-output extra_body
// (output_format) is merged after all of them. Inside, the dicts keep
// CrewAI's insertion order (_format_messages_for_anthropic,
// _convert_tools_for_interference): messages role, content; text blocks
// type, text, cache_control; tool_use type, id, name, input; tool_result
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
	temperature := req.Temperature
	if temperature == nil {
		temperature = cfg.Temperature
	}

	// tools and toolChoice are the values of the "tools" and "tool_choice"
	// keys, "" when absent.
	var tools, toolChoice, outputFormat string
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
			toolChoice = `{"type":"tool","name":"structured_output"}`
			tools = `[{"name":"structured_output","description":"Output the structured response","input_schema":` + schema + `}]`
		}
	}
	if !out.structuredTool && len(req.Tools) > 0 {
		var b strings.Builder
		b.WriteByte('[')
		for i, t := range req.Tools {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeAnthropicTool(&b, t); err != nil {
				return bad(err)
			}
		}
		b.WriteByte(']')
		tools = b.String()
		if name := anthropicToolChoice(req); name != "" {
			toolChoice = `{"type":"tool","name":` + wireString(name) + `}`
		}
	}

	var b strings.Builder
	field := func(key, value string) {
		if value == "" {
			return
		}
		b.WriteString(`,"`)
		b.WriteString(key)
		b.WriteString(`":`)
		b.WriteString(value)
	}
	var stops, temp, topP string
	if len(req.Stop) > 0 {
		quoted := make([]string, len(req.Stop))
		for i, s := range req.Stop {
			quoted[i] = wireString(s)
		}
		stops = "[" + strings.Join(quoted, ",") + "]"
	}
	if temperature != nil {
		temp = pyjson.FloatRepr(*temperature)
	}
	if cfg.TopP != nil {
		topP = pyjson.FloatRepr(*cfg.TopP)
	}
	b.WriteString(`{"max_tokens":`)
	b.WriteString(strconv.Itoa(maxTokens))
	field("messages", msgs)
	field("model", wireString(model))
	field("stop_sequences", stops)
	if req.Stream {
		field("system", system)
		field("temperature", temp)
		field("top_p", topP)
		field("tools", tools)
		field("tool_choice", toolChoice)
		field("stream", "true")
	} else {
		field("stream", "false")
		field("system", system)
		field("temperature", temp)
		field("tool_choice", toolChoice)
		field("tools", tools)
		field("top_p", topP)
	}
	field("output_format", outputFormat)
	b.WriteByte('}')
	out.body = []byte(b.String())
	return out, nil
}

// anthropicToolChoice is the tool a request forces: the caller's
// ToolChoice, else the one tool offered when the caller runs it itself
// (completion.py:537-540: available_functions and exactly one regular tool
// whose name is among them).
func anthropicToolChoice(req Request) string {
	if req.ToolChoice != "" {
		return req.ToolChoice
	}
	if len(req.Tools) == 1 && slices.Contains(req.AvailableFunctions, req.Tools[0].Name) {
		return req.Tools[0].Name
	}
	return ""
}

// anthropicBlock is one content block of a message as
// _format_messages_for_anthropic builds it: its JSON without the closing
// brace, so cache_control can still be added as its last key.
type anthropicBlock struct {
	open string
	// text is the text of a text block (isText).
	text   string
	isText bool
	cached bool
}

func (b anthropicBlock) render() string {
	if b.cached {
		return b.open + `,"cache_control":{"type":"ephemeral"}}`
	}
	return b.open + "}"
}

// anthropicItem is one message: string content, or blocks (list).
type anthropicItem struct {
	role    string
	content string
	blocks  []anthropicBlock
	list    bool
}

func (it anthropicItem) render() string {
	if !it.list {
		return `{"role":"` + it.role + `","content":` + wireString(it.content) + `}`
	}
	parts := make([]string, len(it.blocks))
	for i, bl := range it.blocks {
		parts[i] = bl.render()
	}
	return `{"role":"` + it.role + `","content":[` + strings.Join(parts, ",") + `]}`
}

func textBlock(text string) anthropicBlock {
	return anthropicBlock{open: `{"type":"text","text":` + wireString(text), text: text, isText: true}
}

// stampCacheControl is _stamp_cache_control_on_message
// (completion.py:937-953): string content becomes one text block with
// cache_control; list content gets it on its last block.
func (it *anthropicItem) stampCacheControl() {
	if !it.list {
		it.blocks, it.list = []anthropicBlock{textBlock(it.content)}, true
	}
	if n := len(it.blocks); n > 0 {
		it.blocks[n-1].cached = true
	}
}

// matchesCacheNeedle is the stamping loop's test (completion.py:905-924):
// string content equal to the marked text, or list content whose only
// text block is.
func (it anthropicItem) matchesCacheNeedle(needle string) bool {
	if !it.list {
		return it.content == needle
	}
	var texts []string
	for _, bl := range it.blocks {
		if bl.isText {
			texts = append(texts, bl.text)
		}
	}
	return len(texts) == 1 && texts[0] == needle
}

// anthropicMessages renders the messages array as
// _format_messages_for_anthropic builds it, and returns the system
// parameter's value beside it ("" when there is none). System messages are
// joined with "\n\n"; user and plain assistant messages keep string
// content; an assistant message with tool calls is tool_use blocks only
// (its text is dropped); each run of tool messages becomes one user
// message of tool_result blocks, flushed before the next user or assistant
// message (a user message after the results stays a message of its own);
// and a conversation that does not start with a user message gets a
// "Hello" user message first.
//
// Cache breakpoints (completion.py:758-798, 905-935): a marked system
// message turns the whole joined system prompt into one text block with
// cache_control; a marked user message's text is looked up among the
// formatted user messages and the first one with that content is stamped
// (by content, not position, since tool results become user messages
// too). Marks on assistant and tool messages are ignored, as are marked
// messages with empty content.
func anthropicMessages(msgs []Message) (string, string, error) {
	var (
		system      strings.Builder
		cacheSystem bool
		needles     []string
		items       []anthropicItem
		results     []anthropicBlock
	)
	flush := func() {
		if len(results) > 0 {
			items = append(items, anthropicItem{role: "user", blocks: results, list: true})
			results = nil
		}
	}
	for i, m := range msgs {
		if m.CacheBreakpoint {
			switch {
			case m.Role == RoleSystem:
				cacheSystem = true
			case m.Role == RoleUser && m.Content != "":
				needles = append(needles, m.Content)
			}
		}
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
			results = append(results, anthropicBlock{open: `{"type":"tool_result","tool_use_id":` + wireString(m.ToolCallID) + `,"content":` + wireString(m.Content)})
		case RoleAssistant:
			flush()
			items = append(items, anthropicAssistant(m))
		case RoleUser:
			flush()
			items = append(items, anthropicItem{role: "user", content: m.Content})
		default:
			return "", "", fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	flush()
	if len(items) == 0 || items[0].role != "user" {
		items = append([]anthropicItem{{role: "user", content: "Hello"}}, items...)
	}
	for _, needle := range needles {
		for j := range items {
			if items[j].role == "user" && items[j].matchesCacheNeedle(needle) {
				items[j].stampCacheControl()
				break
			}
		}
	}
	rendered := make([]string, len(items))
	for i, it := range items {
		rendered[i] = it.render()
	}
	var sys string
	if s := system.String(); s != "" {
		sys = wireString(s)
		if cacheSystem {
			sys = "[" + anthropicBlock{open: `{"type":"text","text":` + wireString(s), cached: true}.render() + "]"
		}
	}
	return sys, "[" + strings.Join(rendered, ",") + "]", nil
}

func anthropicAssistant(m Message) anthropicItem {
	if len(m.ToolCalls) == 0 && !m.SDKDump {
		return anthropicItem{role: "assistant", content: m.Content}
	}
	it := anthropicItem{role: "assistant", list: true, blocks: []anthropicBlock{}}
	if m.SDKDump && m.Content != "" {
		// A reply re-sent as its content blocks (instructor's reask keeps
		// response.content as it came).
		it.blocks = append(it.blocks, textBlock(m.Content))
	}
	for _, tc := range m.ToolCalls {
		it.blocks = append(it.blocks, anthropicBlock{open: `{"type":"tool_use","id":` + wireString(tc.ID) + `,"name":` + wireString(tc.Name) + `,"input":` + toolUseInput(tc.Arguments)})
	}
	return it
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
