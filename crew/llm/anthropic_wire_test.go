package llm

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"crewbench/crew/pyjson"
)

// TestAnthropicBodyBytes pins whole request bodies to the bytes CrewAI
// 1.15.17's Anthropic provider sends through the anthropic Python SDK:
// max_tokens, messages, model, then the rest alphabetically; system as one
// string; tool results as string content in their own user message; stop
// words as stop_sequences; compact separators; non-ASCII and <>& as they
// are.
func TestAnthropicBodyBytes(t *testing.T) {
	const sys = `"system":"You are Researcher. You dig.\nYour personal goal is: find facts"`
	const tools = anthropicSearchTool
	plain := func(r *Request) {
		r.Tools, r.Stop, r.Temperature, r.MaxTokens = nil, nil, nil, 0
		r.Messages = r.Messages[:2]
	}
	cases := []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"system and user", plain,
			`{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5","stream":false,` + sys + `}`},
		{"two system messages joined, first message not user", func(r *Request) {
			plain(r)
			r.Messages = []Message{{Role: RoleSystem, Content: "A"}, {Role: RoleSystem, Content: "B"}, {Role: RoleAssistant, Content: "hi"}}
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"Hello"},{"role":"assistant","content":"hi"}],"model":"claude-haiku-4-5","stream":false,"system":"A\n\nB"}`},
		{"non-ASCII and HTML characters", func(r *Request) {
			plain(r)
			r.Messages[1].Content = "Grüße <b> & \u2028 \"q\" 日本\n"
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"Grüße <b> & ` + "\u2028" + ` \"q\" 日本\n"}],"model":"claude-haiku-4-5","stream":false,` + sys + `}`},
		{"tools, tool results and stop words", func(r *Request) {
			// The assistant's text beside tool calls is dropped, as CrewAI does.
			r.Messages[2].Content = "I will search."
			r.Messages[2].ToolCalls[0].Arguments = `{"query": "caf\u00e9 <x>", "limit": 3.0}`
		}, `{"max_tokens":512,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"search_web","input":{"query":"café <x>","limit":3.0}},` +
			`{"type":"tool_use","id":"call_2","name":"fetch_url","input":{"url":"https://example.com"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"3 results"},{"type":"tool_result","tool_use_id":"call_2","content":"Error executing tool: timeout"}]},` +
			`{"role":"user","content":"Analyze the tool result."}],"model":"claude-haiku-4-5","stop_sequences":["\nObservation:"],"stream":false,` +
			sys + `,"temperature":0.2,` + tools + `}`},
		{"streamed, with a forced tool", func(r *Request) {
			// messages.stream()'s body dict (anthropic 0.73
			// resources/messages/messages.py stream()): system, temperature,
			// top_p, tools, tool_choice, and "stream": true last.
			plain(r)
			r.Tools, r.ToolChoice, r.Stream = conversation().Tools, "search_web", true
			r.Stop = []string{"\nObservation:"}
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5","stop_sequences":["\nObservation:"],` + sys +
			`,` + tools + `,"tool_choice":{"type":"tool","name":"search_web"},"stream":true}`},
		{"streamed, output_format last", func(r *Request) {
			// beta.messages.stream(**stream_params, extra_body=…)
			// (completion.py _handle_streaming_completion): output_format
			// is merged after the SDK's body, "stream": true included.
			plain(r)
			r.ResponseFormat, r.Stream = &outputModel, true
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5",` + sys +
			`,"stream":true,"output_format":{"type":"json_schema","schema":` + transformedOutputModel + `}}`},
		{"the one tool of available_functions forced", func(r *Request) {
			// completion.py:537-540: available_functions and exactly one
			// regular tool whose name is among them.
			plain(r)
			r.Tools, r.AvailableFunctions = conversation().Tools, []string{"search_web"}
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5","stream":false,` + sys +
			`,"tool_choice":{"type":"tool","name":"search_web"},` + tools + `}`},
		{"available_functions without the tool offered", func(r *Request) {
			plain(r)
			r.Tools, r.AvailableFunctions = conversation().Tools, []string{"other"}
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5","stream":false,` + sys + `,` + tools + `}`},
		{"cache breakpoints on the system prompt and the task prompt", func(r *Request) {
			// The executor's marks (agent_executor.py:310-335) as
			// completion.py:758-935 stamps them: the joined system prompt
			// as one text block, the first user message with the marked
			// content as one text block, both with cache_control last; the
			// later user message is not marked.
			r.Messages[0].CacheBreakpoint, r.Messages[1].CacheBreakpoint = true, true
			r.Messages = append(r.Messages[:1], append([]Message{{Role: RoleSystem, Content: "More."}}, r.Messages[1:]...)...)
			r.Tools, r.Temperature, r.MaxTokens = nil, nil, 0
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"\nCurrent Task: find MCP servers","cache_control":{"type":"ephemeral"}}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"search_web","input":{"query":"mcp","limit":3}},` +
			`{"type":"tool_use","id":"call_2","name":"fetch_url","input":{"url":"https://example.com"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"3 results"},{"type":"tool_result","tool_use_id":"call_2","content":"Error executing tool: timeout"}]},` +
			`{"role":"user","content":"Analyze the tool result."}],"model":"claude-haiku-4-5","stop_sequences":["\nObservation:"],"stream":false,` +
			`"system":[{"type":"text","text":"You are Researcher. You dig.\nYour personal goal is: find facts\n\nMore.","cache_control":{"type":"ephemeral"}}]}`},
		{"marks matched by content, first match only; assistant and tool marks ignored", func(r *Request) {
			// completion.py:767-796: only system and user marks count, a
			// user mark by its text; 908-925: the first user message with
			// that text is stamped, "Hello" included.
			plain(r)
			r.Messages = []Message{
				{Role: RoleAssistant, Content: "a", CacheBreakpoint: true},
				{Role: RoleUser, Content: "Hello", CacheBreakpoint: true},
				{Role: RoleUser, Content: "Hello"},
				{Role: RoleUser, Content: "", CacheBreakpoint: true},
			}
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"Hello","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":"a"},` +
			`{"role":"user","content":"Hello"},{"role":"user","content":"Hello"},{"role":"user","content":""}],"model":"claude-haiku-4-5","stream":false}`},
		{"a marked empty system prompt is left out", func(r *Request) {
			plain(r)
			r.Messages[0].Content, r.Messages[0].CacheBreakpoint = "", true
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5","stream":false}`},
		{"tool without parameters", func(r *Request) {
			plain(r)
			r.Tools = []Tool{{Name: "now", Description: "Time"}}
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5","stream":false,` + sys +
			`,"tools":[{"name":"now","description":"Time","input_schema":{"type":"object","properties":{},"required":[]}}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newWire(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
				if strings.Contains(string(body), `"stream":true`) {
					sse(w, anthropicStream(anthropicStreamTools...)...)
					return
				}
				jsonReply(w, 200, anthropicToolUseBody)
			})
			req := conversation()
			tc.edit(&req)
			if _, err := newAnthropicForTest(t, s).Call(ctxTimeout(t, 10*time.Second), req, nil); err != nil {
				t.Fatal(err)
			}
			if got := s.lastRaw(); got != tc.want {
				t.Errorf("body:\n got %s\nwant %s", got, tc.want)
			}
			// Only output_format goes through client.beta.messages.
			wantQuery := ""
			if req.ResponseFormat != nil {
				wantQuery = "beta=true"
			}
			if q := s.lastRawQuery(); q != wantQuery {
				t.Errorf("query %q, want %q", q, wantQuery)
			}
			if h := s.lastHeader().Get("X-Stainless-Stream-Helper"); req.Stream && h != "messages" && h != "beta.messages" {
				t.Errorf("X-Stainless-Stream-Helper %q on a streamed request", h)
			}
		})
	}
}

// anthropicSearchTool is conversation()'s tool on the wire.
const anthropicSearchTool = `"tools":[{"name":"search_web","description":"Search the web","input_schema":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query","limit"],"additionalProperties":false},"strict":true}]`

// outputModel is a response model as the engine hands it over: the OpenAI
// strict schema and the model's own model_json_schema().
var outputModel = ResponseFormat{
	Name: "Report", Strict: true,
	Schema:      json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}`),
	ModelSchema: json.RawMessage(`{"properties":{"title":{"description":"Headline <h1>","maxLength":80,"title":"Title","type":"string"},"tags":{"items":{"type":"string"},"minItems":2,"title":"Tags","type":"array"},"kind":{"enum":["a","b"],"title":"Kind","type":"string"},"when":{"anyOf":[{"format":"date","type":"string"},{"type":"null"}],"default":null,"title":"When"}},"required":["title","tags","kind"],"title":"Report","type":"object"}`),
}

// transformedOutputModel is transform_schema(outputModel.ModelSchema).
const transformedOutputModel = `{"type":"object","title":"Report","properties":{"title":{"type":"string","description":"Headline <h1>\n\n{maxLength: 80}","title":"Title"},` +
	`"tags":{"type":"array","title":"Tags","items":{"type":"string"},"description":"{minItems: 2}"},` +
	`"kind":{"enum":["a","b"],"title":"Kind"},"when":{"anyOf":[{"type":"string","format":"date"},{"type":"null"}],"title":"When","description":"{default: None}"}},` +
	`"additionalProperties":false,"required":["title","tags","kind"]}`

// TestAnthropicBodyResponseModel: a response model (output_json, the
// converter) replaces the tools by the structured_output tool, forced, on
// models without native structured outputs, and its tool call comes back
// as the reply's text; on Claude 4.5 models it is output_format through
// the beta endpoint.
func TestAnthropicBodyResponseModel(t *testing.T) {
	const reply = `{"id":"msg_3","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_9","name":"structured_output","input":{"title": "Grüße", "tags": ["x", "y"], "kind": "a"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":7}}`
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { jsonReply(w, 200, reply) })
	p, err := New(Config{Model: "anthropic/claude-3-5-haiku-latest", BaseURL: s.URL, APIKey: "k", Env: envMap()})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []Message{{Role: RoleUser, Content: "report"}}, Tools: conversation().Tools, ResponseFormat: &outputModel}
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_tokens":4096,"messages":[{"role":"user","content":"report"}],"model":"claude-3-5-haiku-latest","stream":false,` +
		`"tool_choice":{"type":"tool","name":"structured_output"},"tools":[{"name":"structured_output","description":"Output the structured response","input_schema":` + transformedOutputModel + `}]}`
	if got := s.lastRaw(); got != want {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
	if resp.Content != `{"title":"Grüße","tags":["x","y"],"kind":"a"}` || len(resp.ToolCalls) != 0 {
		t.Errorf("reply %q, tool calls %v", resp.Content, resp.ToolCalls)
	}
	if h := s.lastHeader().Get("Anthropic-Beta"); h != "" {
		t.Errorf("anthropic-beta %q on the tool path", h)
	}

	native := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"msg_4","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"{\"title\":\"t\"}"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":7}}`)
	})
	req.Stop = []string{"\nObservation:"}
	resp, err = newAnthropicForTest(t, native).Call(ctxTimeout(t, 10*time.Second), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"max_tokens":4096,"messages":[{"role":"user","content":"report"}],"model":"claude-haiku-4-5","stop_sequences":["\nObservation:"],"stream":false,` +
		anthropicSearchTool + `,"output_format":{"type":"json_schema","schema":` + transformedOutputModel + `}}`
	if got := native.lastRaw(); got != want {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
	if h := native.lastHeader().Get("Anthropic-Beta"); h != anthropicStructuredBeta || native.lastRawQuery() != "beta=true" {
		t.Errorf("anthropic-beta %q, query %q", h, native.lastRawQuery())
	}
	if resp.Content != `{"title":"t"}` {
		t.Errorf("reply %q", resp.Content)
	}
}

// TestTransformSchema covers transform_schema's rules one by one.
func TestTransformSchema(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"$ref with $defs", `{"$defs":{"X":{"type":"integer","minimum":1}},"$ref":"#/$defs/X","title":"ignored"}`,
			`{"$defs":{"X":{"type":"integer","description":"{minimum: 1}"}},"$ref":"#/$defs/X"}`},
		{"oneOf becomes anyOf", `{"oneOf":[{"type":"string"},{"type":"integer"}],"description":"d"}`,
			`{"anyOf":[{"type":"string"},{"type":"integer"}],"description":"d"}`},
		{"allOf", `{"allOf":[{"$ref":"#/$defs/A"}]}`, `{"allOf":[{"$ref":"#/$defs/A"}]}`},
		{"object additionalProperties replaced", `{"type":"object","additionalProperties":true,"properties":{"a":{"type":"boolean","default":true}}}`,
			`{"type":"object","properties":{"a":{"type":"boolean","description":"{default: True}"}},"additionalProperties":false}`},
		{"unknown format folded", `{"type":"string","format":"binary"}`, `{"type":"string","description":"{format: binary}"}`},
		{"minItems 1 kept", `{"type":"array","items":{"type":"number"},"minItems":1,"maxItems":3}`,
			`{"type":"array","items":{"type":"number"},"minItems":1,"description":"{maxItems: 3}"}`},
		{"list leftovers in repr", `{"type":"integer","examples":[1,"two"]}`, `{"type":"integer","description":"{examples: [1, 'two']}"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := pyjson.LoadsObject(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := transformSchema(o)
			if err != nil {
				t.Fatal(err)
			}
			if s := pyjson.DumpsStyle(got, pyjson.Wire); s != tc.want {
				t.Errorf("\n got %s\nwant %s", s, tc.want)
			}
		})
	}
	for _, bad := range []string{`{"description":"no type"}`, `{"type":["string","null"]}`, `{"type":"object","properties":{"a":1}}`} {
		o, err := pyjson.LoadsObject(bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := transformSchema(o); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestAnthropicTopPAndTemperature: the LLM's temperature and top_p are
// sent when set (completion.py _prepare_completion_params), in each SDK
// method's own place: create() puts top_p last, stream() before tools; a
// bare request (a fresh SDK client's) carries neither.
func TestAnthropicTopPAndTemperature(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if strings.Contains(string(body), `"stream":true`) {
			sse(w, anthropicStream(anthropicStreamTools...)...)
			return
		}
		jsonReply(w, 200, anthropicToolUseBody)
	})
	temp, topP := 0.5, 0.9
	p, err := New(Config{Model: "anthropic/claude-haiku-4-5", BaseURL: s.URL, APIKey: "k", Env: envMap(), Temperature: &temp, TopP: &topP})
	if err != nil {
		t.Fatal(err)
	}
	const head = `{"max_tokens":4096,"messages":[{"role":"user","content":"hi"}],"model":"claude-haiku-4-5",`
	one := []Tool{{Name: "now", Description: "Time"}}
	const nowTool = `"tools":[{"name":"now","description":"Time","input_schema":{"type":"object","properties":{},"required":[]}}]`
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"create", Request{Tools: one}, head + `"stream":false,"temperature":0.5,` + nowTool + `,"top_p":0.9}`},
		{"stream", Request{Tools: one, Stream: true}, head + `"temperature":0.5,"top_p":0.9,` + nowTool + `,"stream":true}`},
		{"bare", Request{Bare: true}, head + `"stream":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Messages = []Message{{Role: RoleUser, Content: "hi"}}
			if _, err := p.Call(ctxTimeout(t, 10*time.Second), tc.req, nil); err != nil {
				t.Fatal(err)
			}
			if got := s.lastRaw(); got != tc.want {
				t.Errorf("body:\n got %s\nwant %s", got, tc.want)
			}
			if h := s.lastHeader().Get("X-Stainless-Stream-Helper"); (h == "messages") != tc.req.Stream {
				t.Errorf("X-Stainless-Stream-Helper %q", h)
			}
		})
	}
}

// TestAnthropicToolUseShape: a tool_use block whose input is not an
// object (or without a string id or name) is no tool call for CrewAI
// (_is_tool_use_block, completion.py:147-166), streamed or not; its text
// blocks still make the reply.
func TestAnthropicToolUseShape(t *testing.T) {
	const plain = `{"id":"msg_5","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Let me see."},` +
		`{"type":"tool_use","id":"toolu_1","name":"search_web","input":["mcp"]},{"type":"tool_use","id":"toolu_2","input":{}},` +
		`{"type":"tool_use","id":"toolu_3","name":"fetch_url","input":{"url":"u"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`
	streamed := []string{
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"search_web\",\"input\":{}}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"[1, 2]\"}}",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_3\",\"name\":\"fetch_url\",\"input\":{}}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"url\\\":\\\"u\\\"}\"}}",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}",
	}
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if strings.Contains(string(body), `"stream":true`) {
			sse(w, anthropicStream(streamed...)...)
			return
		}
		jsonReply(w, 200, plain)
	})
	for _, stream := range []bool{false, true} {
		resp, err := newAnthropicForTest(t, s).Call(ctxTimeout(t, 10*time.Second), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Stream: stream}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "toolu_3" || resp.ToolCalls[0].Arguments != `{"url":"u"}` {
			t.Errorf("stream %v: tool calls %+v, want toolu_3 only", stream, resp.ToolCalls)
		}
	}
}

// TestAnthropicCacheUsage: with prompt caching the API reports the cached
// prompt tokens apart; CrewAI counts them as prompt tokens
// (_extract_anthropic_token_usage, completion.py:1963-1986), streamed from
// the SDK's accumulated message (message_start, then a message_delta's
// counts when it has them).
func TestAnthropicCacheUsage(t *testing.T) {
	const plain = `{"id":"msg_6","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":2000,"output_tokens":5}}`
	streamed := []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_7\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":300,\"cache_read_input_tokens\":1000,\"output_tokens\":1},\"content\":[],\"stop_reason\":null}}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"ok\"}}",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5,\"cache_read_input_tokens\":2000}}",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}",
	}
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if strings.Contains(string(body), `"stream":true`) {
			sse(w, streamed...)
			return
		}
		jsonReply(w, 200, plain)
	})
	want := Usage{PromptTokens: 2312, CompletionTokens: 5, TotalTokens: 2317}
	for _, stream := range []bool{false, true} {
		resp, err := newAnthropicForTest(t, s).Call(ctxTimeout(t, 10*time.Second), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Stream: stream}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage != want {
			t.Errorf("stream %v: usage %+v, want %+v", stream, resp.Usage, want)
		}
	}
}

// TestAnthropicConfigStops: the LLM's own stop words are sent alone on a
// call without the executor's, kept as they are when the executor's are
// among them, and extended by the executor's otherwise
// (_llm_stop_words_applied, agent_utils.py:344-360); the reply is cut at
// them (completion.py:1090) and a bare request has none.
func TestAnthropicConfigStops(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"msg_8","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Thought: a\nEND b"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
	})
	p, err := New(Config{Model: "anthropic/claude-haiku-4-5", BaseURL: s.URL, APIKey: "k", Env: envMap(), Stop: []string{"END", "\nObservation:"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		req       Request
		stops     string
		wantReply string
	}{
		{"the LLM's alone", Request{}, `"stop_sequences":["END","\nObservation:"],`, "Thought: a"},
		{"the executor's among them", Request{Stop: []string{"\nObservation:"}}, `"stop_sequences":["END","\nObservation:"],`, "Thought: a"},
		{"the executor's added", Request{Stop: []string{"\nObservation:", "b"}}, `"stop_sequences":["END","\nObservation:","b"],`, "Thought: a"},
		{"bare", Request{Bare: true}, "", "Thought: a\nEND b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Messages = []Message{{Role: RoleUser, Content: "hi"}}
			resp, err := p.Call(ctxTimeout(t, 10*time.Second), tc.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"max_tokens":4096,"messages":[{"role":"user","content":"hi"}],"model":"claude-haiku-4-5",` + tc.stops + `"stream":false}`
			if got := s.lastRaw(); got != want {
				t.Errorf("body:\n got %s\nwant %s", got, want)
			}
			if resp.Content != tc.wantReply {
				t.Errorf("reply %q, want %q", resp.Content, tc.wantReply)
			}
		})
	}
}
