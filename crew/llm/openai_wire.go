package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"crewbench/crew/pyjson"
)

// ResponseFormat asks for a structured reply: OpenAI's response_format
// {"type":"json_schema","json_schema":{"schema":…,"name":…,"strict":true}},
// as CrewAI's native OpenAI provider sends it for output_json and for the
// converter call (llms/providers/openai/completion.py). Schema is the JSON
// text of the schema object in the wire form.
type ResponseFormat struct {
	Name   string
	Schema json.RawMessage
	Strict bool
	// ModelSchema is the response model's own model_json_schema(), for
	// providers that derive their wire schema from it themselves
	// (Anthropic's transform_schema); empty means Schema is used.
	ModelSchema json.RawMessage
}

// openAIBody renders the chat-completions body byte for byte as CrewAI's
// native OpenAI provider puts it on the wire (the OpenAI Python SDK through
// httpx 0.28: json.dumps(ensure_ascii=False, separators=(",", ":"))).
//
// The key order is the SDK's: its create() builds the body as messages,
// model, then every other parameter in alphabetical order (the order of
// its signature), so max_tokens comes after model, not before messages;
// messages as role, content (null on an assistant message that carries
// tool calls), tool_calls / tool_call_id, name; tool calls as id, type,
// function{name, arguments}; tools as type, function{name, description,
// strict, parameters}. No stop is ever sent: the provider cuts at the stop
// words client-side (base_llm.py), which the engine does too. tool_choice
// is "auto" whenever tools are offered. A response_format forces
// "stream": false.
func (p *openAIProvider) openAIBody(req Request) ([]byte, error) {
	type field struct{ key, raw string }
	var fields []field
	add := func(k, raw string) { fields = append(fields, field{k, raw}) }

	// o1 models take no system role: CrewAI's provider sends each system
	// message as a user message prefixed "System: ".
	o1 := p.provider == ProviderOpenAI && isO1(p.modelFor(req))
	var msgs strings.Builder
	msgs.WriteByte('[')
	for i, m := range req.Messages {
		if i > 0 {
			msgs.WriteByte(',')
		}
		if o1 && m.Role == RoleSystem {
			m = Message{Role: RoleUser, Content: "System: " + m.Content}
		}
		if err := writeOpenAIMessage(&msgs, m); err != nil {
			return nil, &Error{Kind: KindBadRequest, Provider: p.provider, Model: p.model, Message: fmt.Sprintf("message %d: %v", i, err)}
		}
	}
	msgs.WriteByte(']')
	add("messages", msgs.String())
	add("model", wireString(p.modelFor(req)))

	if len(req.Tools) > 0 {
		var tools strings.Builder
		tools.WriteByte('[')
		for i, t := range req.Tools {
			if i > 0 {
				tools.WriteByte(',')
			}
			if err := writeOpenAITool(&tools, t); err != nil {
				return nil, &Error{Kind: KindBadRequest, Provider: p.provider, Model: p.model, Message: err.Error()}
			}
		}
		tools.WriteByte(']')
		add("tools", tools.String())
		if req.ToolChoice != "" {
			add("tool_choice", `{"type":"function","function":{"name":`+wireString(req.ToolChoice)+`}}`)
		} else {
			add("tool_choice", `"auto"`)
		}
	}
	if len(req.Stop) > 0 && p.provider != ProviderOpenAI {
		// OpenAI-compatible services other than OpenAI itself go through
		// LiteLLM in CrewAI, which does send the stop words.
		stops := make([]any, len(req.Stop))
		for i, s := range req.Stop {
			stops[i] = s
		}
		add("stop", pyjson.DumpsStyle(stops, pyjson.Wire))
	}
	cfg := p.cfg
	if req.Bare {
		cfg = Config{}
	}
	if t := req.Temperature; t != nil {
		add("temperature", pyjson.FloatRepr(*t))
	} else if t := cfg.Temperature; t != nil {
		add("temperature", pyjson.FloatRepr(*t))
	}
	if cfg.TopP != nil {
		// openai/completion.py:1804-1805 (and LiteLLM's top_p).
		add("top_p", pyjson.FloatRepr(*cfg.TopP))
	}
	if req.MaxTokens > 0 {
		add("max_tokens", strconv.Itoa(req.MaxTokens))
	} else if cfg.MaxTokens > 0 {
		add("max_tokens", strconv.Itoa(cfg.MaxTokens))
	}
	if cfg.MaxCompletionTokens > 0 {
		add("max_completion_tokens", strconv.Itoa(cfg.MaxCompletionTokens))
	}
	switch {
	case req.ResponseFormat != nil:
		rf, err := responseFormatJSON(*req.ResponseFormat)
		if err != nil {
			return nil, &Error{Kind: KindBadRequest, Provider: p.provider, Model: p.model, Message: err.Error()}
		}
		add("response_format", rf)
		add("stream", "false")
	case req.Stream:
		add("stream", "true")
		// Without this the stream carries no token usage at all.
		add("stream_options", `{"include_usage":true}`)
	}
	// messages and model were added first; the rest go alphabetically.
	slices.SortFunc(fields[2:], func(a, b field) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(wireString(f.key))
		b.WriteByte(':')
		b.WriteString(f.raw)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// wireString is a JSON string literal as httpx writes it (no \u escapes
// for non-ASCII, no HTML escaping).
func wireString(s string) string {
	var b strings.Builder
	pyjson.WriteString(&b, s, false)
	return b.String()
}

func writeOpenAIMessage(b *strings.Builder, m Message) error {
	b.WriteString(`{"role":`)
	b.WriteString(wireString(string(m.Role)))
	switch m.Role {
	case RoleSystem, RoleUser:
		b.WriteString(`,"content":`)
		b.WriteString(wireString(m.Content))
	case RoleAssistant:
		b.WriteString(`,"content":`)
		if len(m.ToolCalls) > 0 && m.SDKDump {
			writeDumpedToolCalls(b, m)
		} else if len(m.ToolCalls) > 0 {
			// CrewAI's executor sends null content beside tool calls, even
			// when the model wrote some text (agent_executor.py).
			b.WriteString("null")
			b.WriteString(`,"tool_calls":[`)
			for i, tc := range m.ToolCalls {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"id":`)
				b.WriteString(wireString(tc.ID))
				b.WriteString(`,"type":"function","function":{"name":`)
				b.WriteString(wireString(tc.Name))
				b.WriteString(`,"arguments":`)
				b.WriteString(wireString(tc.Arguments))
				b.WriteString("}}")
			}
			b.WriteByte(']')
		} else {
			b.WriteString(wireString(m.Content))
		}
	case RoleTool:
		b.WriteString(`,"tool_call_id":`)
		b.WriteString(wireString(m.ToolCallID))
		if m.Name != "" {
			b.WriteString(`,"name":`)
			b.WriteString(wireString(m.Name))
		}
		b.WriteString(`,"content":`)
		b.WriteString(wireString(m.Content))
	default:
		return fmt.Errorf("unknown role %q", m.Role)
	}
	b.WriteByte('}')
	return nil
}

// writeDumpedToolCalls is the rest of an assistant message as instructor's
// dump_message writes it (instructor/utils/core.py dump_message, 1.15.1):
// content is message.content or "", tool_calls the SDK's model_dump of
// ChatCompletionMessageFunctionToolCall (fields id, function, type;
// Function's arguments, name — openai 2.41.0 types).
func writeDumpedToolCalls(b *strings.Builder, m Message) {
	b.WriteString(wireString(m.Content))
	b.WriteString(`,"tool_calls":[`)
	for i, tc := range m.ToolCalls {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":`)
		b.WriteString(wireString(tc.ID))
		b.WriteString(`,"function":{"arguments":`)
		b.WriteString(wireString(tc.Arguments))
		b.WriteString(`,"name":`)
		b.WriteString(wireString(tc.Name))
		b.WriteString(`},"type":"function"}`)
	}
	b.WriteByte(']')
}

func writeOpenAITool(b *strings.Builder, t Tool) error {
	b.WriteString(`{"type":"function","function":{"name":`)
	b.WriteString(wireString(t.Name))
	b.WriteString(`,"description":`)
	b.WriteString(wireString(t.Description))
	if t.Strict {
		b.WriteString(`,"strict":true`)
	}
	if len(t.Parameters) > 0 {
		params, err := compactRaw(t.Parameters)
		if err != nil {
			return fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		b.WriteString(`,"parameters":`)
		b.Write(params)
	}
	b.WriteString("}}")
	return nil
}

func responseFormatJSON(rf ResponseFormat) (string, error) {
	schema, err := compactRaw(rf.Schema)
	if err != nil {
		return "", fmt.Errorf("response_format %q: schema: %w", rf.Name, err)
	}
	var b strings.Builder
	b.WriteString(`{"type":"json_schema","json_schema":{"schema":`)
	b.Write(schema)
	b.WriteString(`,"name":`)
	b.WriteString(wireString(rf.Name))
	if rf.Strict {
		b.WriteString(`,"strict":true`)
	}
	b.WriteString("}}")
	return b.String(), nil
}

// compactRaw removes insignificant whitespace and keeps everything else
// (key order, escapes) as it is; the engine renders schemas in the wire form
// already, so this is a check more than a rewrite.
func compactRaw(raw json.RawMessage) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	return out.Bytes(), nil
}
