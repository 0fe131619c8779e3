package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func echoTool() Tool {
	return Tool{Name: "greet", Description: "greets",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"},"times":{"type":"integer","minimum":1}},"required":["who"]}`),
		Handler: func(_ context.Context, args map[string]any, _ Progress) Result {
			return Result{Text: []string{fmt.Sprintf("hello %v", args["who"])}}
		}}
}

func newTestServer(t *testing.T) *Server {
	t.Helper()
	s, err := New(Info{Name: "t", Version: "1"}, echoTool())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startHTTP serves on a free loopback port and returns the /mcp URL.
func startHTTP(t *testing.T, o HTTPOptions) string {
	t.Helper()
	s := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	o.Listening = func(u string) { urls <- u }
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, "127.0.0.1:0", o) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case u := <-urls:
		return u
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("not listening")
	}
	return ""
}

type rpc struct {
	status  int
	body    string
	session string
}

func post(t *testing.T, url, token, origin, session, body string) rpc {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rpc{resp.StatusCode, string(b), resp.Header.Get("Mcp-Session-Id")}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func call(args string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":` + args + `}}`
}

func TestHTTPGuard(t *testing.T) {
	const tok = "s3cret-token-value"
	url := startHTTP(t, HTTPOptions{Token: tok, Limits: HTTPLimits{MaxSessions: 2, MaxBody: 1 << 10}})

	if r := post(t, url, "", "", "", initBody); r.status != http.StatusUnauthorized {
		t.Errorf("no token: %d %s", r.status, r.body)
	}
	if r := post(t, url, "wrong", "", "", initBody); r.status != http.StatusUnauthorized {
		t.Errorf("wrong token: %d %s", r.status, r.body)
	}
	if r := post(t, url, tok, "http://evil.example", "", initBody); r.status != http.StatusForbidden {
		t.Errorf("foreign origin: %d %s", r.status, r.body)
	}
	if r := post(t, url, tok, "", "", `{"pad":"`+strings.Repeat("x", 2<<10)+`"}`); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("big body: %d", r.status)
	}
	init := post(t, url, tok, "http://localhost:6274", "", initBody)
	if init.status != http.StatusOK || init.session == "" {
		t.Fatalf("initialize: %d %q %s", init.status, init.session, init.body)
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"arguments not an object", call(`[1,2]`), `"code":-32602`},
		{"wrong type", call(`{"who":{"deep":[1,2,3]}}`), `Invalid arguments for tool greet: /who: got object, want string"}],"isError":true`},
		{"below minimum", call(`{"who":"a","times":0}`), `/times: minimum: got 0, want 1`},
		{"missing required", call(`{}`), `missing required input(s): who`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, `"code":-32600`},
		{"a good call", call(`{"who":"Ada"}`), `hello Ada`},
	} {
		r := post(t, url, tok, "", init.session, tc.body)
		if !strings.Contains(r.body, tc.want) {
			t.Errorf("%s: %d %s, want %s", tc.name, r.status, r.body, tc.want)
		}
	}
	if r := post(t, url, tok, "", "", initBody); r.status != http.StatusOK {
		t.Fatalf("second session: %d %s", r.status, r.body)
	}
	if r := post(t, url, tok, "", "", initBody); r.status != http.StatusServiceUnavailable {
		t.Errorf("third session over MaxSessions 2: %d %s", r.status, r.body)
	}
}

func TestHTTPRefusesNonLoopbackUnlessAllowed(t *testing.T) {
	s := newTestServer(t)
	err := s.ServeHTTP(context.Background(), "0.0.0.0:0", HTTPOptions{})
	if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("0.0.0.0: %v", err)
	}
	for addr, want := range map[string]bool{"127.0.0.1:1": true, "[::1]:1": true, "localhost:1": true, ":8765": false, "10.0.0.1:1": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}

// Over stdio the same screen answers refused lines itself, and a line over
// MaxMessage is refused without being held whole.
func TestStdioScreen(t *testing.T) {
	s := newTestServer(t)
	in := strings.Join([]string{
		initBody,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`,
		call(`{"who":5}`),
		`{"jsonrpc":"2.0","id":3,"method":"x","pad":"` + strings.Repeat("y", MaxMessage+10) + `"}`,
		call(`{"who":"Ada"}`),
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{`"code":-32600,"message":"Invalid Request: id must be`, `"isError":true`, `over 4194304 bytes`, `hello Ada`} {
		if !strings.Contains(got, want) {
			t.Errorf("stdio output lacks %s:\n%.2000s", want, got)
		}
	}
}

// A call still running when the server stops answers "cancelled" (an
// isError result), not HTTP 200 with an empty body.
func TestHTTPCallCancelledByShutdownAnswers(t *testing.T) {
	started := make(chan struct{})
	slow := Tool{Name: "greet", Description: "waits", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ map[string]any, _ Progress) Result {
			close(started)
			<-ctx.Done()
			return Result{}
		}}
	s, err := New(Info{Name: "t", Version: "1"}, slow)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- s.ServeHTTP(ctx, "127.0.0.1:0", HTTPOptions{Listening: func(u string) { urls <- u }})
	}()
	url := <-urls
	init := post(t, url, "", "", "", initBody)
	answer := make(chan rpc, 1)
	go func() { answer <- post(t, url, "", "", init.session, call(`{}`)) }()
	<-started
	cancel()
	r := <-answer
	if r.status != http.StatusOK || !strings.Contains(r.body, `"isError":true`) || !strings.Contains(r.body, "cancelled: the server is shutting down") {
		t.Errorf("cancelled call: %d %q, want an isError result saying cancelled", r.status, r.body)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}
