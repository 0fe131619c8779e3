package llm

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const anthropicToolUseBody = `{
  "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
  "type": "message",
  "role": "assistant",
  "model": "claude-haiku-4-5-20251001",
  "content": [
    {"type": "text", "text": "I'll search for that."},
    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "search_web", "input": {"query": "mcp servers", "limit": 3}},
    {"type": "tool_use", "id": "toolu_01B7aAq2ZxCv8bN3mK4pQ5rS", "name": "fetch_url", "input": {"url": "https://modelcontextprotocol.io"}}
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 472, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 89, "service_tier": "standard"}
}`

func newAnthropicForTest(t *testing.T, s *wire) Provider {
	t.Helper()
	p, err := New(Config{Model: "anthropic/claude-haiku-4-5", BaseURL: s.URL, APIKey: "sk-ant-test-secret-99", Env: envMap()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func TestAnthropicToolUseAndRequestBody(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, anthropicToolUseBody, "request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
	})
	p := newAnthropicForTest(t, s)
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), conversation(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Response{
		Content: "I'll search for that.",
		ToolCalls: []ToolCall{
			{ID: "toolu_01A09q90qw90lq917835lq9", Name: "search_web", Arguments: `{"query": "mcp servers", "limit": 3}`},
			{ID: "toolu_01B7aAq2ZxCv8bN3mK4pQ5rS", Name: "fetch_url", Arguments: `{"url": "https://modelcontextprotocol.io"}`},
		},
		FinishReason: "tool_use",
		ResponseID:   "msg_01XFDUDYJgAACzvnptvVoYEL",
		Model:        "claude-haiku-4-5-20251001",
		Usage:        Usage{PromptTokens: 472, CompletionTokens: 89, TotalTokens: 561},
		Raw:          anthropicToolUseBody,
	}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	if s.lastPath() != "/v1/messages" {
		t.Errorf("path %q", s.lastPath())
	}
	h := s.lastHeader()
	// The anthropic Python SDK's headers, not anthropic-sdk-go's.
	if h.Get("X-Api-Key") != "sk-ant-test-secret-99" || h.Get("Authorization") != "" || h.Get("Anthropic-Version") != "2023-06-01" {
		t.Errorf("headers: x-api-key %q, authorization %q, anthropic-version %q", h.Get("X-Api-Key"), h.Get("Authorization"), h.Get("Anthropic-Version"))
	}
	// The full bytes are pinned by TestAnthropicBodyBytes.
	body := s.lastBody(t)
	assertJSON(t, "system", body["system"], `"You are Researcher. You dig.\nYour personal goal is: find facts"`)
	assertJSON(t, "max_tokens", body["max_tokens"], `512`)
	assertJSON(t, "temperature", body["temperature"], `0.2`)
}

func TestAnthropicDefaultsAndBrokenArguments(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"Final Answer: done"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":4}}`)
	})
	p := newAnthropicForTest(t, s)
	req := Request{Messages: []Message{
		{Role: RoleUser, Content: "go"},
		// A recorded call whose arguments were broken JSON.
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":`}}},
		{Role: RoleTool, ToolCallID: "c1", Content: "Error: Failed to parse tool arguments as JSON"},
	}}
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Final Answer: done" || resp.FinishReason != "end_turn" || resp.Usage.TotalTokens != 14 {
		t.Errorf("response %+v", resp)
	}
	body := s.lastBody(t)
	assertJSON(t, "max_tokens", body["max_tokens"], `4096`)
	for _, k := range []string{"system", "tools", "stop_sequences", "temperature"} {
		if _, ok := body[k]; ok {
			t.Errorf("request has %q: %v", k, body[k])
		}
	}
	assertJSON(t, "messages", body["messages"], `[
	  {"role":"user","content":"go"},
	  {"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"t","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"Error: Failed to parse tool arguments as JSON"}]}]`)
}

func anthropicStream(extra ...string) []string {
	ev := []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_014p7gG3wDgGV9EUtLvnow3U\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-haiku-4-5-20251001\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":472,\"output_tokens\":2},\"content\":[],\"stop_reason\":null}}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"event: ping\ndata: {\"type\": \"ping\"}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay, let me\"}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" check.\"}}",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
	}
	return append(ev, extra...)
}

var anthropicStreamTools = []string{
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\",\"name\":\"get_weather\",\"input\":{}}}",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\":\"}}",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" \\\"San Francisco, CA\\\"}\"}}",
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}",
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_02\",\"name\":\"list_cities\",\"input\":{}}}",
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}",
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}",
	"event: message_stop\ndata: {\"type\":\"message_stop\"}",
}

func TestAnthropicStreaming(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		sse(w, anthropicStream(anthropicStreamTools...)...)
	})
	p := newAnthropicForTest(t, s)
	var log chunkLog
	req := conversation()
	req.Stream = true
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, log.on)
	if err != nil {
		t.Fatal(err)
	}
	want := Response{
		Content: "Okay, let me check.",
		ToolCalls: []ToolCall{
			{ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather", Arguments: `{"location": "San Francisco, CA"}`},
			{ID: "toolu_02", Name: "list_cities", Arguments: `{}`},
		},
		FinishReason: "tool_use",
		ResponseID:   "msg_014p7gG3wDgGV9EUtLvnow3U",
		Model:        "claude-haiku-4-5-20251001",
		Usage:        Usage{PromptTokens: 472, CompletionTokens: 89, TotalTokens: 561},
	}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Okay, let me", " check."}, log.content); d != "" {
		t.Errorf("text chunks (-want +got):\n%s", d)
	}
	// Tool deltas are indexed by call (0, 1), not by content block (1, 2).
	wantDeltas := []ToolCallDelta{
		{Index: 0, ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather"},
		{Index: 0},
		{Index: 0, Arguments: `{"location":`},
		{Index: 0, Arguments: ` "San Francisco, CA"}`},
		{Index: 1, ID: "toolu_02", Name: "list_cities"},
	}
	if d := cmp.Diff(wantDeltas, log.calls); d != "" {
		t.Errorf("tool deltas (-want +got):\n%s", d)
	}
	assertJSON(t, "stream", s.lastBody(t)["stream"], `true`)
}

func TestAnthropicErrors(t *testing.T) {
	cases := []providerErrorCase{
		{name: "401", kind: KindAuth, status: 401, msgHas: "invalid x-api-key",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`)
			}},
		{name: "429", kind: KindRateLimit, status: 429, retry: 7 * time.Second, msgHas: "rate limit",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 429, `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}`,
					"retry-after", "7", "anthropic-ratelimit-requests-remaining", "0")
			}},
		{name: "429 streaming", stream: true, kind: KindRateLimit, status: 429, retry: 7 * time.Second,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`, "retry-after", "7")
			}},
		{name: "500", kind: KindServer, status: 500, msgHas: "Internal server error",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 500, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)
			}},
		{name: "529 overloaded", kind: KindServer, status: 529, msgHas: "Overloaded",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			}},
		{name: "prompt too long", kind: KindContextLength, status: 400, msgHas: "prompt is too long",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215012 tokens > 200000 maximum"}}`)
			}},
		{name: "other 400", kind: KindBadRequest, status: 400, msgHas: "messages: text content blocks must be non-empty",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages: text content blocks must be non-empty"}}`)
			}},
		{name: "proxy without tool support", kind: KindUnsupportedTools, status: 400, toolsFall: true,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"tool calling is not supported by this deployment"}}`)
			}},
		{name: "malformed JSON body", kind: KindMalformedResponse,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 200, `{"id":"msg_1","type":"message","content":[{"type":"text","te`)
			}},
		{name: "error event mid-stream", stream: true, kind: KindServer, msgHas: "Overloaded",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				sse(w, append(anthropicStream()[:2],
					"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")...)
			}},
		{name: "stream cut before message_stop", stream: true, kind: KindNetwork, msgHas: "message_stop",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				sse(w, anthropicStream()...)
			}},
		{name: "hang", kind: KindTimeout,
			handle: func(s *wire, _ http.ResponseWriter, r *http.Request) { s.hang(r) }},
		{name: "hang mid-stream", stream: true, kind: KindTimeout,
			handle: func(s *wire, w http.ResponseWriter, r *http.Request) {
				sse(w, anthropicStream()[:2]...)
				s.hang(r)
			}},
	}
	runProviderErrorCases(t, cases, newAnthropicForTest, "anthropic", "claude-haiku-4-5", "sk-ant-test-secret-99")
}

// TestIsContextLengthExceeded: CrewAI summarises only on its own phrases
// (CONTEXT_LIMIT_ERRORS), found in the provider's message, type or code;
// Anthropic's "prompt is too long" is a context-length error to crewbench's
// kinds but not to CrewAI.
func TestIsContextLengthExceeded(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"OpenAI message", &Error{Kind: KindContextLength, Message: "This model's maximum context length is 8192 tokens."}, true},
		{"OpenAI code", &Error{Kind: KindContextLength, Message: "too long", Code: "context_length_exceeded"}, true},
		{"Anthropic prompt too long", &Error{Kind: KindContextLength, Message: "prompt is too long: 215012 tokens > 200000 maximum", Code: "invalid_request_error"}, false},
		{"case-insensitive", &Error{Kind: KindBadRequest, Message: "Input Is Too Long for this model"}, true},
		{"another error", &Error{Kind: KindBadRequest, Message: "bad"}, false},
		{"not an *Error", errors.New("context window full"), true},
		{"nil", nil, false},
	} {
		if got := IsContextLengthExceeded(tc.err); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
