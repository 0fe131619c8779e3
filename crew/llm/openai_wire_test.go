package llm

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestOpenAIBodyBytes pins the body bytes to CrewAI's: sorted top-level
// keys, role before content, content null beside tool calls, tools as
// type/function{name, description, strict, parameters}, tool_choice auto, no
// stop, compact separators, non-ASCII and <>& written as they are.
func TestOpenAIBodyBytes(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, openAIToolCallsBody)
	})
	p := newOpenAIForTest(t, s)
	req := conversation()
	req.Temperature, req.MaxTokens = nil, 0
	req.Messages[1].Content = "Grüße <b> & \u2028 \"q\"\n"
	req.Messages[2].Content = "I will search."
	if _, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil); err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"system","content":"You are Researcher. You dig.\nYour personal goal is: find facts"},` +
		`{"role":"user","content":"Grüße <b> & ` + "\u2028" + ` \"q\"\n"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"search_web","arguments":"{\"query\":\"mcp\",\"limit\":3}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"fetch_url","arguments":"{\"url\":\"https://example.com\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","name":"search_web","content":"3 results"},` +
		`{"role":"tool","tool_call_id":"call_2","name":"fetch_url","content":"Error executing tool: timeout"},` +
		`{"role":"user","content":"Analyze the tool result."}],"model":"gpt-4o-mini","tool_choice":"auto",` +
		`"tools":[{"type":"function","function":{"name":"search_web","description":"Search the web","strict":true,` +
		`"parameters":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query","limit"],"additionalProperties":false}}}]}`
	if got := s.lastRaw(); got != want {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
}

// TestOpenAIBodyResponseFormat: a structured-output request carries
// response_format and "stream": false, even when streaming was asked for.
func TestOpenAIBodyResponseFormat(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]}`)
	})
	p := newOpenAIForTest(t, s)
	req := Request{
		Messages: []Message{{Role: RoleUser, Content: "hi"}},
		Stream:   true,
		ResponseFormat: &ResponseFormat{Name: "Forecast", Strict: true,
			Schema: json.RawMessage(`{"additionalProperties": false, "properties": {}, "type": "object"}`)},
	}
	if _, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil); err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"user","content":"hi"}],"model":"gpt-4o-mini",` +
		`"response_format":{"type":"json_schema","json_schema":{"schema":{"additionalProperties":false,"properties":{},"type":"object"},"name":"Forecast","strict":true}},"stream":false}`
	if got := s.lastRaw(); got != want {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
}

// TestCompatibleProvidersKeepStop: CrewAI reaches OpenAI-compatible services
// other than OpenAI through LiteLLM, which sends the stop words.
func TestCompatibleProvidersKeepStop(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	})
	p := newOpenAIForTest(t, s, func(c *Config) { c.Model = "ollama/llama3.1" })
	req := Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Stop: []string{"\nObservation:"}}
	if _, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil); err != nil {
		t.Fatal(err)
	}
	body := s.lastBody(t)
	assertJSON(t, "stop", body["stop"], `["\nObservation:"]`)
}

// TestOpenAIO1Models: o1 models get ReAct (no native function calling) and
// their system prompt as a "System: " user message.
func TestOpenAIO1Models(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"c1","object":"chat.completion","created":1,"model":"o1-mini","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	})
	p := newOpenAIForTest(t, s, func(c *Config) { c.Model = "openai/o1-mini" })
	if p.SupportsFunctionCalling() {
		t.Error("o1-mini must not use native function calling")
	}
	req := Request{Messages: []Message{{Role: RoleSystem, Content: "You are X."}, {Role: RoleUser, Content: "task"}}, Stop: []string{"\nObservation:"}}
	if _, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil); err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"user","content":"System: You are X."},{"role":"user","content":"task"}],"model":"o1-mini"}`
	if got := s.lastRaw(); got != want {
		t.Errorf("body:\n got %s\nwant %s", got, want)
	}
	if newOpenAIForTest(t, s, func(c *Config) { c.Model = "openai/gpt-4o" }).SupportsFunctionCalling() == false {
		t.Error("gpt-4o must use native function calling")
	}
}

// TestOpenAITopPAndConfigStops: the LLM's top_p is a parameter among the
// sorted ones (openai/completion.py:1804-1805); the LLM's own stop words
// are not sent to OpenAI but cut the reply, as _apply_stop_words does with
// the stop list in effect.
func TestOpenAITopPAndConfigStops(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Thought: a\nEND b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	})
	topP := 0.3
	p := newOpenAIForTest(t, s, func(c *Config) { c.TopP, c.Stop = &topP, []string{"END"} })
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Stop: []string{"\nObservation:"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"messages":[{"role":"user","content":"hi"}],"model":"gpt-4o-mini","top_p":0.3}`; s.lastRaw() != want {
		t.Errorf("body:\n got %s\nwant %s", s.lastRaw(), want)
	}
	if resp.Content != "Thought: a" {
		t.Errorf("reply %q, want it cut at the LLM's stop word", resp.Content)
	}
}
