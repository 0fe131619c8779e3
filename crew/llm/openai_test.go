package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"crewbench/session"
)

const openAIToolCallsBody = `{
  "id": "chatcmpl-BxQ9m2ZkLr",
  "object": "chat.completion",
  "created": 1764451200,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": null,
        "tool_calls": [
          {"id": "call_Ab12", "type": "function", "function": {"name": "search_web", "arguments": "{\"query\":\"mcp servers\",\"limit\":3}"}},
          {"id": "call_Cd34", "type": "function", "function": {"name": "fetch_url", "arguments": "{\"url\": \"https://modelcontextprotocol.io\"}"}}
        ],
        "refusal": null,
        "annotations": []
      },
      "logprobs": null,
      "finish_reason": "tool_calls"
    }
  ],
  "usage": {
    "prompt_tokens": 182,
    "completion_tokens": 45,
    "total_tokens": 227,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_560af6e559"
}`

func newOpenAIForTest(t *testing.T, s *wire, extra ...func(*Config)) Provider {
	t.Helper()
	cfg := Config{Model: "openai/gpt-4o-mini", BaseURL: s.URL + "/v1", APIKey: "sk-test-secret-1234", Env: envMap()}
	for _, f := range extra {
		f(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func TestOpenAIParallelToolCallsAndRequestBody(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, openAIToolCallsBody)
	})
	p := newOpenAIForTest(t, s)
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), conversation(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Response{
		ToolCalls: []ToolCall{
			{ID: "call_Ab12", Name: "search_web", Arguments: `{"query":"mcp servers","limit":3}`},
			// The arguments text is kept byte for byte, spaces included.
			{ID: "call_Cd34", Name: "fetch_url", Arguments: `{"url": "https://modelcontextprotocol.io"}`},
		},
		FinishReason: "tool_calls",
		ResponseID:   "chatcmpl-BxQ9m2ZkLr",
		Model:        "gpt-4o-mini-2024-07-18",
		Usage:        Usage{PromptTokens: 182, CompletionTokens: 45, TotalTokens: 227},
		// The body as it came, for texts that quote the whole completion.
		Raw: openAIToolCallsBody,
	}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}

	if got := s.lastPath(); got != "/v1/chat/completions" {
		t.Errorf("path = %q", got)
	}
	if got := s.lastHeader().Get("Authorization"); got != "Bearer sk-test-secret-1234" {
		t.Errorf("Authorization = %q", got)
	}
	body := s.lastBody(t)
	assertJSON(t, "messages", body["messages"], `[
	  {"role":"system","content":"You are Researcher. You dig.\nYour personal goal is: find facts"},
	  {"role":"user","content":"\nCurrent Task: find MCP servers"},
	  {"role":"assistant","content":null,"tool_calls":[
	    {"id":"call_1","type":"function","function":{"name":"search_web","arguments":"{\"query\":\"mcp\",\"limit\":3}"}},
	    {"id":"call_2","type":"function","function":{"name":"fetch_url","arguments":"{\"url\":\"https://example.com\"}"}}]},
	  {"role":"tool","tool_call_id":"call_1","name":"search_web","content":"3 results"},
	  {"role":"tool","tool_call_id":"call_2","name":"fetch_url","content":"Error executing tool: timeout"},
	  {"role":"user","content":"Analyze the tool result."}]`)
	assertJSON(t, "tools", body["tools"], `[{"type":"function","function":{
	  "name":"search_web","description":"Search the web",
	  "parameters":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query","limit"],"additionalProperties":false},
	  "strict":true}}]`)
	// CrewAI's native OpenAI provider cuts at the stop words client-side and
	// never sends them; it always sends tool_choice "auto" beside tools.
	if _, ok := body["stop"]; ok {
		t.Errorf("the OpenAI provider sent stop: %v", body["stop"])
	}
	assertJSON(t, "tool_choice", body["tool_choice"], `"auto"`)
	assertJSON(t, "model", body["model"], `"gpt-4o-mini"`)
	assertJSON(t, "temperature", body["temperature"], `0.2`)
	assertJSON(t, "max_tokens", body["max_tokens"], `512`)
	if _, ok := body["stream"]; ok {
		t.Errorf("a non-streaming call sent stream: %v", body["stream"])
	}
	// Schema key order survives to the wire.
	if raw := s.lastRaw(); !strings.Contains(raw, `"properties":{"query":{"type":"string"},"limit":{"type":"integer"}}`) {
		t.Errorf("tool schema property order not preserved:\n%s", raw)
	}
	// The top-level keys in the SDK's order: messages, model, then the rest
	// alphabetically (openai 2.41.0 resources/chat/completions/completions.py
	// builds the body in its signature order), so max_tokens follows model.
	var keys []string
	dec := json.NewDecoder(strings.NewReader(s.lastRaw()))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(keys, ","), "messages,model,max_tokens,temperature,tool_choice,tools"; got != want {
		t.Errorf("top-level key order %s, want %s", got, want)
	}
}

func TestOpenAIFinalAnswerWithoutTools(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		jsonReply(w, 200, `{"id":"chatcmpl-2","object":"chat.completion","created":1764451201,"model":"llama3.1:8b",
		  "choices":[{"index":0,"message":{"role":"assistant","content":"Thought: I now know the final answer\nFinal Answer: 42"},"finish_reason":"stop"}],
		  "usage":{"prompt_tokens":20,"completion_tokens":12,"total_tokens":32}}`)
	})
	p := newOpenAIForTest(t, s)
	req := Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Thought: I now know the final answer\nFinal Answer: 42" || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Errorf("unexpected response %+v", resp)
	}
	body := s.lastBody(t)
	for _, k := range []string{"tools", "stop", "temperature", "max_tokens"} {
		if _, ok := body[k]; ok {
			t.Errorf("request has %q though nothing set it: %v", k, body[k])
		}
	}
}

func chunkJSON(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `data: {"id":"chatcmpl-S1","object":"chat.completion.chunk","created":1764451300,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_560af6e559","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + `}],"usage":null}`
}

const usageChunk = `data: {"id":"chatcmpl-S1","object":"chat.completion.chunk","created":1764451300,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_560af6e559","choices":[],"usage":{"prompt_tokens":91,"completion_tokens":17,"total_tokens":108,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`

func TestOpenAIStreamingText(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		sse(w,
			chunkJSON(`{"role":"assistant","content":"","refusal":null}`, ""),
			chunkJSON(`{"content":"Thought: I now"}`, ""),
			chunkJSON(`{"content":" know\nFinal Answer:"}`, ""),
			chunkJSON(`{"content":" MCP is a protocol."}`, ""),
			chunkJSON(`{}`, "stop"),
			usageChunk,
			"data: [DONE]",
		)
	})
	p := newOpenAIForTest(t, s)
	var log chunkLog
	req := conversation()
	req.Stream = true
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, log.on)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Thought: I now", " know\nFinal Answer:", " MCP is a protocol."}, log.content); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	want := Response{Content: "Thought: I now know\nFinal Answer: MCP is a protocol.", FinishReason: "stop",
		ResponseID: "chatcmpl-S1", Model: "gpt-4o-mini-2024-07-18", Usage: Usage{91, 17, 108}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response (-want +got):\n%s", d)
	}
	body := s.lastBody(t)
	assertJSON(t, "stream", body["stream"], `true`)
	assertJSON(t, "stream_options", body["stream_options"], `{"include_usage":true}`)
}

func TestOpenAIStreamingToolCalls(t *testing.T) {
	// Two parallel calls; arguments split mid-token and the two indices
	// interleaved, as the API does when it streams calls concurrently.
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		sse(w,
			chunkJSON(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_Ab12","type":"function","function":{"name":"search_web","arguments":""}}],"refusal":null}`, ""),
			chunkJSON(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"qu"}}]}`, ""),
			chunkJSON(`{"tool_calls":[{"index":1,"id":"call_Cd34","type":"function","function":{"name":"fetch_url","arguments":""}}]}`, ""),
			chunkJSON(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"url\":"}}]}`, ""),
			chunkJSON(`{"tool_calls":[{"index":0,"function":{"arguments":"ery\": \"mcp\", \"limit\": 3}"}}]}`, ""),
			chunkJSON(`{"tool_calls":[{"index":1,"function":{"arguments":" \"https://x.io\"}"}}]}`, ""),
			chunkJSON(`{}`, "tool_calls"),
			usageChunk,
			"data: [DONE]",
		)
	})
	p := newOpenAIForTest(t, s)
	var log chunkLog
	req := conversation()
	req.Stream = true
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, log.on)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []ToolCall{
		{ID: "call_Ab12", Name: "search_web", Arguments: `{"query": "mcp", "limit": 3}`},
		{ID: "call_Cd34", Name: "fetch_url", Arguments: `{"url": "https://x.io"}`},
	}
	if d := cmp.Diff(wantCalls, resp.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if resp.FinishReason != "tool_calls" || resp.Usage.TotalTokens != 108 {
		t.Errorf("finish %q usage %+v", resp.FinishReason, resp.Usage)
	}
	// The deltas reassemble to the same calls, and carry id/name once.
	got := map[int]*ToolCall{}
	for _, d := range log.calls {
		tc := got[d.Index]
		if tc == nil {
			tc = &ToolCall{}
			got[d.Index] = tc
		}
		if d.ID != "" {
			if tc.ID != "" {
				t.Errorf("index %d: id sent twice", d.Index)
			}
			tc.ID = d.ID
		}
		if d.Name != "" {
			tc.Name = d.Name
		}
		tc.Arguments += d.Arguments
	}
	if len(got) != 2 || *got[0] != wantCalls[0] || *got[1] != wantCalls[1] {
		t.Errorf("deltas reassemble to %s", describe(got))
	}
}

func TestOpenAIStreamingSameIndexNewID(t *testing.T) {
	// Older Ollama versions send each call whole, all with index 0.
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		sse(w,
			chunkJSON(`{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"call_x1","type":"function","function":{"name":"a","arguments":"{\"n\":1}"}}]}`, ""),
			chunkJSON(`{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"call_x2","type":"function","function":{"name":"b","arguments":"{\"n\":2}"}}]}`, ""),
			chunkJSON(`{"role":"assistant","content":""}`, "tool_calls"),
			"data: [DONE]",
		)
	})
	p := newOpenAIForTest(t, s)
	req := Request{Messages: []Message{{Role: RoleUser, Content: "q"}}, Stream: true}
	resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "call_x1", Name: "a", Arguments: `{"n":1}`}, {ID: "call_x2", Name: "b", Arguments: `{"n":2}`}}
	if d := cmp.Diff(want, resp.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
}

func TestOpenAIErrors(t *testing.T) {
	cases := []providerErrorCase{
		{name: "401", kind: KindAuth, status: 401, msgHas: "Incorrect API key provided: " + session.Redacted + ".",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 401, `{"error":{"message":"Incorrect API key provided: sk-test-secret-1234. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			}},
		{name: "429 retry-after seconds", kind: KindRateLimit, status: 429, retry: 2 * time.Second, msgHas: "Rate limit reached",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 429, `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 2s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
					"Retry-After", "2", "X-Ratelimit-Remaining-Requests", "0")
			}},
		{name: "429 retry-after-ms", kind: KindRateLimit, status: 429, retry: 1500 * time.Millisecond,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 429, `{"error":{"message":"Rate limit reached","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
					"Retry-After-Ms", "1500", "Retry-After", "2")
			}},
		{name: "429 streaming", stream: true, kind: KindRateLimit, status: 429, retry: 3 * time.Second,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 429, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "Retry-After", "3")
			}},
		{name: "500", kind: KindServer, status: 500, msgHas: "The server had an error",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 500, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`)
			}},
		{name: "502 plain text from a proxy", kind: KindServer, status: 502, msgHas: "upstream connect error",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(502)
				_, _ = w.Write([]byte("upstream connect error or disconnect/reset before headers"))
			}},
		{name: "context length", kind: KindContextLength, status: 400, msgHas: "maximum context length",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)
			}},
		{name: "ollama model without tools", kind: KindUnsupportedTools, status: 400, toolsFall: true,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 400, `{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error","param":null,"code":null}}`)
			}},
		{name: "error as a bare string", kind: KindUnsupportedTools, status: 400, toolsFall: true,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 400, `{"error":"llama2 does not support tools"}`)
			}},
		{name: "other 400", kind: KindBadRequest, status: 400, msgHas: "Invalid 'messages[2]'",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 400, `{"error":{"message":"Invalid 'messages[2]': empty content.","type":"invalid_request_error","param":"messages[2]","code":null}}`)
			}},
		{name: "malformed JSON body", kind: KindMalformedResponse,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 200, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`)
			}},
		{name: "JSON that is not a completion", kind: KindMalformedResponse,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				jsonReply(w, 200, `{"status":"ok"}`)
			}},
		{name: "malformed stream chunk", stream: true, kind: KindMalformedResponse,
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				sse(w, chunkJSON(`{"content":"Hel"}`, ""), `data: {"id":"chatcmpl-S1","choices":[{"index":0,"delta":{"content":`)
			}},
		{name: "error event mid-stream", stream: true, kind: KindServer, msgHas: "overloaded",
			handle: func(_ *wire, w http.ResponseWriter, _ *http.Request) {
				sse(w, chunkJSON(`{"content":"Hel"}`, ""), `data: {"error":{"message":"The model is overloaded. Please try again later.","type":"server_error","code":null}}`)
			}},
		{name: "hang", kind: KindTimeout,
			handle: func(s *wire, _ http.ResponseWriter, r *http.Request) { s.hang(r) }},
		{name: "hang mid-stream", stream: true, kind: KindTimeout,
			handle: func(s *wire, w http.ResponseWriter, r *http.Request) {
				sse(w, chunkJSON(`{"content":"Hel"}`, ""))
				s.hang(r)
			}},
	}
	runProviderErrorCases(t, cases, func(t *testing.T, s *wire) Provider { return newOpenAIForTest(t, s) }, "openai", "gpt-4o-mini", "sk-test-secret-1234")
}

func TestOpenAINetworkAndCancel(t *testing.T) {
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {})
	url := s.URL
	s.Close() // nothing listens there any more
	p, err := New(Config{Model: "openai/gpt-4o", BaseURL: url, APIKey: "k", Env: envMap()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Call(ctxTimeout(t, 5*time.Second), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	asError(t, err, KindNetwork)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.Call(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	asError(t, err, KindCanceled)
}

func TestOpenAIConfigTimeout(t *testing.T) {
	var s *wire
	s = newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { s.hang(r) })
	p := newOpenAIForTest(t, s, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	start := time.Now()
	_, err := p.Call(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil)
	asError(t, err, KindTimeout)
	if time.Since(start) > 5*time.Second {
		t.Errorf("Config.Timeout not honoured: %v", time.Since(start))
	}
}

func TestOllamaAndCompatibleRouting(t *testing.T) {
	reply := `{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"llama3.1:8b","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { jsonReply(w, 200, reply) })
	cases := []struct {
		name, model, wantModel, wantAuth string
		env                              func(string) string
		base                             string
	}{
		// CrewAI normalizes a bare Ollama host to its /v1 root.
		{name: "ollama via API_BASE", model: "ollama/llama3.1", wantModel: "llama3.1", wantAuth: "Bearer ollama", env: envMap("API_BASE", s.URL)},
		{name: "ollama via OLLAMA_API_BASE", model: "ollama_chat/llama3.1", wantModel: "llama3.1", wantAuth: "Bearer ollama", env: envMap("OLLAMA_API_BASE", s.URL+"/", "API_BASE", "http://127.0.0.1:1")},
		{name: "ollama base_url", model: "ollama/qwen3:8b", wantModel: "qwen3:8b", wantAuth: "Bearer ollama", env: envMap(), base: s.URL + "/v1"},
		{name: "openai via OPENAI_BASE_URL", model: "openai/my-local", wantModel: "my-local", wantAuth: "Bearer from-env", env: envMap("OPENAI_BASE_URL", s.URL+"/v1", "OPENAI_API_KEY", "from-env")},
		{name: "openai via OPENAI_API_BASE", model: "gpt-4o", wantModel: "gpt-4o", wantAuth: "", env: envMap("OPENAI_API_BASE", s.URL+"/v1")},
		{name: "bare name with a base URL", model: "llama3", wantModel: "llama3", wantAuth: "", env: envMap(), base: s.URL + "/v1"},
		{name: "hosted_vllm", model: "hosted_vllm/meta-llama/Llama-3.1-8B", wantModel: "meta-llama/Llama-3.1-8B", wantAuth: "Bearer none", env: envMap("HOSTED_VLLM_API_BASE", s.URL+"/v1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(Config{Model: tc.model, BaseURL: tc.base, Env: tc.env})
			if err != nil {
				t.Fatal(err)
			}
			if p.Model() != tc.wantModel {
				t.Errorf("Model() = %q", p.Model())
			}
			if _, err := p.Call(ctxTimeout(t, 10*time.Second), Request{Messages: []Message{{Role: RoleUser, Content: "q"}}}, nil); err != nil {
				t.Fatal(err)
			}
			if s.lastPath() != "/v1/chat/completions" {
				t.Errorf("path %q", s.lastPath())
			}
			assertJSON(t, "model", s.lastBody(t)["model"], `"`+tc.wantModel+`"`)
			if got := s.lastHeader().Get("Authorization"); got != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tc.wantAuth)
			}
		})
	}
}
