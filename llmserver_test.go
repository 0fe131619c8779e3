package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// chatServer is a loopback OpenAI-compatible chat-completions endpoint:
// every request to /v1/chat/completions with the key sk-test gets one
// assistant message with the given content; anything else a 401.
type chatServer struct {
	URL    string // the base URL, …/v1
	mu     sync.Mutex
	bodies []map[string]any
}

// startChatServer starts a chatServer and points OPENAI_BASE_URL and
// OPENAI_API_KEY at it for the test.
func startChatServer(t *testing.T, content string) *chatServer {
	t.Helper()
	reply, _ := json.Marshal(content)
	cs := &chatServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad request path or key"}}`, http.StatusUnauthorized)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		cs.mu.Lock()
		cs.bodies = append(cs.bodies, body)
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, reply)
	}))
	t.Cleanup(srv.Close)
	cs.URL = srv.URL + "/v1"
	t.Setenv("OPENAI_BASE_URL", cs.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	return cs
}

// Bodies are the request bodies received so far, oldest first.
func (cs *chatServer) Bodies() []map[string]any {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]map[string]any(nil), cs.bodies...)
}
