package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// wire is a loopback server speaking a provider's real wire format. It
// records every request so tests can assert on what the provider sent.
type wire struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	paths    []string
	queries  []string
	released chan struct{}
}

// newWire starts a server whose handler writes the response; it gets the
// request body already read.
func newWire(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body []byte)) *wire {
	t.Helper()
	s := &wire{released: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.paths = append(s.paths, r.URL.Path)
		s.queries = append(s.queries, r.URL.RawQuery)
		s.mu.Unlock()
		handle(w, r, body)
	}))
	t.Cleanup(func() {
		close(s.released)
		s.Close()
	})
	return s
}

func (s *wire) lastBody(t *testing.T) map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		t.Fatal("the server received no request")
	}
	var m map[string]any
	if err := json.Unmarshal(s.bodies[len(s.bodies)-1], &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, s.bodies[len(s.bodies)-1])
	}
	return m
}

func (s *wire) lastRaw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		return ""
	}
	return string(s.bodies[len(s.bodies)-1])
}

func (s *wire) lastHeader() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[len(s.headers)-1]
}

func (s *wire) lastPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[len(s.paths)-1]
}

func (s *wire) lastRawQuery() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[len(s.queries)-1]
}

func (s *wire) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// hang blocks until the client goes away (or the test ends), like a server
// that accepted the request and never answered.
func (s *wire) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.released:
	}
}

// jsonReply writes a JSON body with a status.
func jsonReply(w http.ResponseWriter, status int, body string, headers ...string) {
	for i := 0; i+1 < len(headers); i += 2 {
		w.Header().Set(headers[i], headers[i+1])
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// sse writes a text/event-stream body, flushing after every event so the
// client really receives it in pieces.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, e := range events {
		_, _ = io.WriteString(w, e)
		if !strings.HasSuffix(e, "\n\n") {
			_, _ = io.WriteString(w, "\n\n")
		}
		if f != nil {
			f.Flush()
		}
	}
}

// mustJSON decodes a JSON literal written in a test.
func mustJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON: %v\n%s", err, s)
	}
	return v
}

func assertJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	if d := cmp.Diff(mustJSON(t, want), got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// asError asserts err is an *Error of kind.
func asError(t *testing.T, err error, kind ErrorKind) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want a %s error, got nil", kind)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T: %v", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("want kind %s, got %s: %v", kind, e.Kind, err)
	}
	return e
}

// chunkLog collects streamed chunks.
type chunkLog struct {
	content []string
	calls   []ToolCallDelta
}

func (c *chunkLog) on(ch Chunk) {
	if ch.ToolCall != nil {
		c.calls = append(c.calls, *ch.ToolCall)
		return
	}
	c.content = append(c.content, ch.Content)
}

func envMap(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func ptr[T any](v T) *T { return &v }

// conversation is the request every HTTP provider test sends: a system
// prompt, a task, an assistant turn with two parallel tool calls, their two
// results, and a follow-up user message.
func conversation() Request {
	return Request{
		Messages: []Message{
			{Role: RoleSystem, Content: "You are Researcher. You dig.\nYour personal goal is: find facts"},
			{Role: RoleUser, Content: "\nCurrent Task: find MCP servers"},
			{Role: RoleAssistant, Content: "", ToolCalls: []ToolCall{
				{ID: "call_1", Name: "search_web", Arguments: `{"query":"mcp","limit":3}`},
				{ID: "call_2", Name: "fetch_url", Arguments: `{"url":"https://example.com"}`},
			}},
			{Role: RoleTool, ToolCallID: "call_1", Name: "search_web", Content: "3 results"},
			{Role: RoleTool, ToolCallID: "call_2", Name: "fetch_url", Content: "Error executing tool: timeout"},
			{Role: RoleUser, Content: "Analyze the tool result."},
		},
		Tools: []Tool{{
			Name:        "search_web",
			Description: "Search the web",
			// Property order matters to models: query before limit.
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query","limit"],"additionalProperties":false}`),
			Strict:     true,
		}},
		Stop:        []string{"\nObservation:"},
		Temperature: ptr(0.2),
		MaxTokens:   512,
		Meta:        CallMeta{AgentRole: "Researcher", TaskName: "research"},
	}
}

func describe(v any) string { return fmt.Sprintf("%+v", v) }

func errorsAs[T any](err error, target *T) bool { return errors.As(err, target) }

// providerErrorCase is one failed call a provider must classify: the
// loopback server's handler and what the *Error must say.
type providerErrorCase struct {
	name      string
	stream    bool
	handle    func(s *wire, w http.ResponseWriter, r *http.Request)
	kind      ErrorKind
	status    int
	retry     time.Duration
	msgHas    string
	toolsFall bool
}

// runProviderErrorCases makes each failing call against its own loopback
// server and checks the classification, the deadline, that the API key
// never shows, and that the SDK did not retry (the engine owns retries).
func runProviderErrorCases(t *testing.T, cases []providerErrorCase, newProvider func(*testing.T, *wire) Provider, provider, model, secret string) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s *wire
			s = newWire(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { tc.handle(s, w, r) })
			p := newProvider(t, s)
			req := conversation()
			req.Stream = tc.stream
			start := time.Now()
			_, err := p.Call(ctxTimeout(t, 300*time.Millisecond), req, nil)
			e := asError(t, err, tc.kind)
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v: the deadline was not honoured", time.Since(start))
			}
			if e.Status != tc.status {
				t.Errorf("status = %d, want %d", e.Status, tc.status)
			}
			if e.RetryAfter != tc.retry {
				t.Errorf("retry after = %v, want %v", e.RetryAfter, tc.retry)
			}
			if !strings.Contains(err.Error(), tc.msgHas) {
				t.Errorf("error %q lacks %q", err, tc.msgHas)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks the API key: %v", err)
			}
			if IsToolsUnsupported(err) != tc.toolsFall {
				t.Errorf("IsToolsUnsupported = %v", !tc.toolsFall)
			}
			if e.Provider != provider || e.Model != model {
				t.Errorf("provider/model = %q/%q", e.Provider, e.Model)
			}
			if n := s.requests(); n != 1 {
				t.Errorf("%d requests: the SDK retried", n)
			}
		})
	}
}
