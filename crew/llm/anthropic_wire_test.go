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
			plain(r)
			r.Tools, r.ToolChoice, r.Stream = conversation().Tools, "search_web", true
		}, `{"max_tokens":4096,"messages":[{"role":"user","content":"\nCurrent Task: find MCP servers"}],"model":"claude-haiku-4-5","stream":true,` + sys +
			`,"tool_choice":{"type":"tool","name":"search_web"},` + tools + `}`},
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
			if q := s.lastRawQuery(); q != "" {
				t.Errorf("query %q, want none", q)
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
