package llm

import (
	"strings"

	"crewbench/crew/pyjson"
)

// CompletionRepr is str() of the ChatCompletion the OpenAI Python SDK
// (2.41.0) builds from a reply's JSON: Pydantic's repr, fields in
// declaration order (the SDK's construct() fills every declared field,
// None when absent) and then the fields the server added. instructor
// quotes it in the reask text of a reply that did not validate. An
// Anthropic reply ("type": "message") is str() of the anthropic SDK's
// Message the same way. raw that is not a JSON object gives "None".
func CompletionRepr(raw string) string {
	o, err := pyjson.LoadsObject(raw)
	if err != nil {
		return "None"
	}
	root := "ChatCompletion"
	if t, _ := o.Get("type"); t == "message" {
		// An Anthropic reply, as instructor's Anthropic client gets it.
		root = "Message"
	}
	var b strings.Builder
	writeModelRepr(&b, root, o)
	return b.String()
}

// sdkField is one declared field of an SDK model: its name and, when the
// value is itself a model (or a list of them), that model's name.
type sdkField struct {
	name  string
	model string
	list  bool
}

// sdkModels are the openai 2.41.0 models of a chat completion
// (types/chat/chat_completion.py, chat_completion_message.py,
// chat_completion_message_function_tool_call.py, completion_usage.py,
// chat_completion_token_logprob.py, chat_completion_audio.py).
var sdkModels = map[string][]sdkField{
	"ChatCompletion": {{name: "id"}, {name: "choices", model: "Choice", list: true}, {name: "created"}, {name: "model"},
		{name: "object"}, {name: "service_tier"}, {name: "system_fingerprint"}, {name: "usage", model: "CompletionUsage"}},
	"Choice":         {{name: "finish_reason"}, {name: "index"}, {name: "logprobs", model: "ChoiceLogprobs"}, {name: "message", model: "ChatCompletionMessage"}},
	"ChoiceLogprobs": {{name: "content", model: "ChatCompletionTokenLogprob", list: true}, {name: "refusal", model: "ChatCompletionTokenLogprob", list: true}},
	"ChatCompletionTokenLogprob": {{name: "token"}, {name: "bytes"}, {name: "logprob"},
		{name: "top_logprobs", model: "TopLogprob", list: true}},
	"TopLogprob": {{name: "token"}, {name: "bytes"}, {name: "logprob"}},
	"ChatCompletionMessage": {{name: "content"}, {name: "refusal"}, {name: "role"},
		{name: "annotations", model: "Annotation", list: true}, {name: "audio", model: "ChatCompletionAudio"},
		{name: "function_call", model: "FunctionCall"}, {name: "tool_calls", model: "toolCall", list: true}},
	"Annotation":                            {{name: "type"}, {name: "url_citation", model: "AnnotationURLCitation"}},
	"AnnotationURLCitation":                 {{name: "end_index"}, {name: "start_index"}, {name: "title"}, {name: "url"}},
	"ChatCompletionAudio":                   {{name: "id"}, {name: "data"}, {name: "expires_at"}, {name: "transcript"}},
	"FunctionCall":                          {{name: "arguments"}, {name: "name"}},
	"ChatCompletionMessageFunctionToolCall": {{name: "id"}, {name: "function", model: "Function"}, {name: "type"}},
	"ChatCompletionMessageCustomToolCall":   {{name: "id"}, {name: "custom", model: "Custom"}, {name: "type"}},
	"Function":                              {{name: "arguments"}, {name: "name"}},
	"Custom":                                {{name: "input"}, {name: "name"}},
	"CompletionUsage": {{name: "completion_tokens"}, {name: "prompt_tokens"}, {name: "total_tokens"},
		{name: "completion_tokens_details", model: "CompletionTokensDetails"}, {name: "prompt_tokens_details", model: "PromptTokensDetails"}},
	"CompletionTokensDetails": {{name: "accepted_prediction_tokens"}, {name: "audio_tokens"}, {name: "reasoning_tokens"}, {name: "rejected_prediction_tokens"}},
	"PromptTokensDetails":     {{name: "audio_tokens"}, {name: "cached_tokens"}},

	// anthropic 0.73.0 (types/message.py, usage.py, cache_creation.py,
	// server_tool_usage.py and the content blocks of content_block.py).
	"Message": {{name: "id"}, {name: "content", model: "contentBlock", list: true}, {name: "model"}, {name: "role"},
		{name: "stop_reason"}, {name: "stop_sequence"}, {name: "type"}, {name: "usage", model: "Usage"}},
	"Usage": {{name: "cache_creation", model: "CacheCreation"}, {name: "cache_creation_input_tokens"}, {name: "cache_read_input_tokens"},
		{name: "input_tokens"}, {name: "output_tokens"}, {name: "server_tool_use", model: "ServerToolUsage"}, {name: "service_tier"}},
	"CacheCreation":         {{name: "ephemeral_1h_input_tokens"}, {name: "ephemeral_5m_input_tokens"}},
	"ServerToolUsage":       {{name: "web_search_requests"}},
	"TextBlock":             {{name: "citations"}, {name: "text"}, {name: "type"}},
	"ToolUseBlock":          {{name: "id"}, {name: "input"}, {name: "name"}, {name: "type"}},
	"ThinkingBlock":         {{name: "signature"}, {name: "thinking"}, {name: "type"}},
	"RedactedThinkingBlock": {{name: "data"}, {name: "type"}},
	"ServerToolUseBlock":    {{name: "id"}, {name: "input"}, {name: "name"}, {name: "type"}},
}

// contentBlocks are anthropic's ContentBlock union members, by their type
// discriminator.
var contentBlocks = map[string]string{"text": "TextBlock", "tool_use": "ToolUseBlock", "thinking": "ThinkingBlock",
	"redacted_thinking": "RedactedThinkingBlock", "server_tool_use": "ServerToolUseBlock"}

func writeModelRepr(b *strings.Builder, name string, o *pyjson.Object) {
	if name == "contentBlock" {
		t, _ := o.Get("type")
		name = contentBlocks[pyjson.Str(t)]
	}
	if name == "toolCall" {
		// ChatCompletionMessageToolCallUnion, discriminated by type.
		name = "ChatCompletionMessageFunctionToolCall"
		if t, _ := o.Get("type"); t == "custom" {
			name = "ChatCompletionMessageCustomToolCall"
		}
	}
	fields := sdkModels[name]
	declared := map[string]bool{}
	b.WriteString(name)
	b.WriteByte('(')
	for i, f := range fields {
		declared[f.name] = true
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.name)
		b.WriteByte('=')
		v, _ := o.Get(f.name)
		writeFieldRepr(b, f, v)
	}
	n := len(fields)
	for _, k := range o.Keys() {
		if declared[k] {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		v, _ := o.Get(k)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(pyjson.Repr(v))
	}
	b.WriteByte(')')
}

func writeFieldRepr(b *strings.Builder, f sdkField, v any) {
	if f.model == "" || v == nil {
		b.WriteString(pyjson.Repr(v))
		return
	}
	if o, ok := v.(*pyjson.Object); ok && !f.list {
		writeModelRepr(b, f.model, o)
		return
	}
	items, ok := v.([]any)
	if !ok || !f.list {
		b.WriteString(pyjson.Repr(v))
		return
	}
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		if o, ok := it.(*pyjson.Object); ok {
			writeModelRepr(b, f.model, o)
		} else {
			b.WriteString(pyjson.Repr(it))
		}
	}
	b.WriteByte(']')
}
