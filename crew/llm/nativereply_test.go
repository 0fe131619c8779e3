package llm

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// ApplyStopWords against BaseLLM._apply_stop_words
// (llms/base_llm.py:455-495), the outputs as Python gives them.
func TestApplyStopWords(t *testing.T) {
	cases := []struct {
		name, text string
		stops      []string
		want       string
	}{
		{"no stop words", "  a\nObservation: b  ", nil, "  a\nObservation: b  "},
		{"no occurrence is not stripped", "  answer  ", []string{"\nObservation:"}, "  answer  "},
		{"cut and stripped", "  The answer.  \nObservation: made up", []string{"\nObservation:"}, "The answer."},
		{"the earliest of several", "x END y\nObservation: z", []string{"\nObservation:", "END"}, "x"},
		{"first occurrence", "a\nObservation: b\nObservation: c", []string{"\nObservation:"}, "a"},
		{"Python whitespace", "\u00a0a\u2003\nObservation:", []string{"\nObservation:"}, "a"},
		{"an empty stop word cuts everything", "answer", []string{"\nObservation:", ""}, ""},
		{"empty text", "", []string{"\nObservation:"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ApplyStopWords(c.text, c.stops); got != c.want {
				t.Errorf("ApplyStopWords(%q, %q) = %q, want %q", c.text, c.stops, got, c.want)
			}
		})
	}
}

// The native providers cut a text reply at the stop words client-side:
// OpenAI never sends them, Anthropic sends them too; a tool-call reply and
// a structured reply are returned as they came; the LiteLLM route sends
// "stop" and leaves the cut to the server.
func TestProvidersApplyStopWordsToTextReplies(t *testing.T) {
	const text = "  The forecast is mild.\nObservation: invented"
	openAIText := `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":` + quoted(text) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	openAITools := `{"id":"c2","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":` + quoted(text) + `,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"t","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	anthropicText := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":` + quoted(text) + `}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`
	stops := []string{"\nObservation:"}
	tools := []Tool{{Name: "t", Description: "d", Parameters: []byte(`{"type":"object","properties":{}}`)}}
	cases := []struct {
		name     string
		reply    string
		provider func(*testing.T, *wire) Provider
		req      Request
		want     string
		stopKey  string // the request key that carries the stop words, "" for none
	}{
		{"openai native text", openAIText, func(t *testing.T, s *wire) Provider { return newOpenAIForTest(t, s) },
			Request{Tools: tools, Stop: stops}, "The forecast is mild.", ""},
		{"openai tool calls", openAITools, func(t *testing.T, s *wire) Provider { return newOpenAIForTest(t, s) },
			Request{Tools: tools, Stop: stops}, text, ""},
		{"openai structured reply", openAIText, func(t *testing.T, s *wire) Provider { return newOpenAIForTest(t, s) },
			Request{Stop: stops, ResponseFormat: &ResponseFormat{Name: "M", Schema: []byte(`{"type":"object"}`), Strict: true}}, text, ""},
		{"ollama through LiteLLM", openAIText, func(t *testing.T, s *wire) Provider {
			p, err := New(Config{Model: "ollama/llama3.1", BaseURL: s.URL + "/v1", Env: envMap()})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, Request{Stop: stops}, text, "stop"},
		{"anthropic native text", anthropicText, newAnthropicForTest, Request{Tools: tools, Stop: stops}, "The forecast is mild.", "stop_sequences"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { jsonReply(w, 200, c.reply) })
			c.req.Messages = []Message{{Role: RoleUser, Content: "q"}}
			resp, err := c.provider(t, s).Call(ctxTimeout(t, 10*time.Second), c.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != c.want {
				t.Errorf("content %q, want %q", resp.Content, c.want)
			}
			body := s.lastBody(t)
			for _, k := range []string{"stop", "stop_sequences"} {
				_, has := body[k]
				if has != (k == c.stopKey) {
					t.Errorf("request key %q present=%v: %s", k, has, s.lastRaw())
				}
			}
			if c.stopKey != "" {
				assertJSON(t, c.stopKey, body[c.stopKey], `["\nObservation:"]`)
			}
		})
	}
}

func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
