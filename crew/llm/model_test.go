package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"crewbench/session"
)

func TestParseModel(t *testing.T) {
	cases := []struct{ in, provider, model string }{
		{"openai/gpt-4o-mini", "openai", "gpt-4o-mini"},
		{"  anthropic/claude-haiku-4-5 ", "anthropic", "claude-haiku-4-5"},
		{"claude/claude-sonnet-4-6", "anthropic", "claude-sonnet-4-6"},
		{"OLLAMA/llama3.1", "ollama", "llama3.1"},
		{"ollama_chat/llama3.1:8b", "ollama", "llama3.1:8b"},
		{"openrouter/meta-llama/llama-3.1-8b", "openrouter", "meta-llama/llama-3.1-8b"},
		{"groq/llama-3.1-8b-instant", "groq", "llama-3.1-8b-instant"},
		{"google/gemini-2.5-flash", "gemini", "gemini-2.5-flash"},
		{"gpt-4.1-mini", "openai", "gpt-4.1-mini"},
		{"o3-mini", "openai", "o3-mini"},
		{"o1", "openai", "o1"},
		{"chatgpt-4o-latest", "openai", "chatgpt-4o-latest"},
		{"claude-haiku-4-5", "anthropic", "claude-haiku-4-5"},
		{"gemini-2.5-pro", "gemini", "gemini-2.5-pro"},
		{"llama3", "", "llama3"},
		{"omni", "", "omni"},
		{"scripted:demo.yaml", "scripted", "demo.yaml"},
		{"scripted:", "scripted", ""},
		{"replay:runs/a.jsonl", "replay", "runs/a.jsonl"},
		{"", "", ""},
	}
	for _, tc := range cases {
		p, m := ParseModel(tc.in)
		if p != tc.provider || m != tc.model {
			t.Errorf("ParseModel(%q) = (%q, %q), want (%q, %q)", tc.in, p, m, tc.provider, tc.model)
		}
	}
}

func TestNewConfigErrors(t *testing.T) {
	cases := []struct {
		cfg    Config
		kind   ErrorKind
		msgHas string
	}{
		{Config{Model: "gpt-4o", Env: envMap()}, KindAuth, "OPENAI_API_KEY is not set"},
		{Config{Model: "anthropic/claude-haiku-4-5", Env: envMap()}, KindAuth, "ANTHROPIC_API_KEY is not set"},
		{Config{Model: "groq/llama", Env: envMap()}, KindAuth, "GROQ_API_KEY is not set"},
		{Config{Model: "llama3", Env: envMap()}, KindConfig, "cannot tell which provider serves model \"llama3\""},
		{Config{Model: "gemini/gemini-2.5-flash", Env: envMap()}, KindConfig, "provider \"gemini\" is not supported"},
		{Config{Model: "bedrock/anthropic.claude", Env: envMap()}, KindConfig, "for another OpenAI-compatible server use openai/<model> with base_url"},
		{Config{Model: "hosted_vllm/x", Env: envMap()}, KindConfig, "needs a base URL: set base_url or HOSTED_VLLM_API_BASE"},
		{Config{Model: "openai/", Env: envMap("OPENAI_API_KEY", "k")}, KindConfig, "names no model"},
		{Config{Model: "scripted:"}, KindConfig, "needs a script file"},
		{Config{Model: "replay:"}, KindConfig, "needs a session file"},
	}
	for _, tc := range cases {
		_, err := New(tc.cfg)
		e := asError(t, err, tc.kind)
		if !strings.Contains(e.Error(), tc.msgHas) {
			t.Errorf("New(%q): %v; want it to mention %q", tc.cfg.Model, e, tc.msgHas)
		}
	}
}

func TestNewRoutesAndEnv(t *testing.T) {
	// The key may come from the project's .env through Config.Env; the
	// process environment is never consulted when Env is set.
	t.Setenv("OPENAI_API_KEY", "")
	p, err := New(Config{Model: "gpt-4o", Env: envMap("OPENAI_API_KEY", "sk-dotenv")})
	if err != nil {
		t.Fatal(err)
	}
	if op, ok := p.(*openAIProvider); !ok || op.provider != "openai" || p.Model() != "gpt-4o" || !p.SupportsFunctionCalling() {
		t.Errorf("provider %T %+v", p, p)
	}
	// An explicit provider forces routing (CrewAI's `provider` key).
	p, err = New(Config{Model: "llama3", Provider: "ollama", Env: envMap()})
	if err != nil {
		t.Fatal(err)
	}
	if op, ok := p.(*openAIProvider); !ok || op.provider != "ollama" || p.Model() != "llama3" {
		t.Errorf("provider %T %+v", p, p)
	}
	off := false
	p, err = New(Config{Model: "claude-haiku-4-5", APIKey: "k", FunctionCalling: &off})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*anthropicProvider); !ok || p.SupportsFunctionCalling() {
		t.Errorf("provider %T fc %v", p, p.SupportsFunctionCalling())
	}
}

func TestFromEnv(t *testing.T) {
	c := FromEnv(envMap())
	if c.Model != DefaultModel || c.BaseURL != "" {
		t.Errorf("defaults: %+v", c)
	}
	c = FromEnv(envMap("MODEL_NAME", "ollama/llama3.1", "OPENAI_MODEL_NAME", "gpt-4o", "OPENAI_BASE_URL", "http://b", "OPENAI_API_BASE", "http://a"))
	if c.Model != "ollama/llama3.1" || c.BaseURL != "http://a" {
		t.Errorf("precedence: %+v", c)
	}
}

func TestIsToolsUnsupported(t *testing.T) {
	yes := []string{
		"registry.ollama.ai/library/gemma:2b does not support tools",
		"This model doesn't support tools.",
		"Tools are not supported for this model",
		"tool calling is not supported",
		"Tool calls are not supported by the endpoint",
		"Function calling is not supported",
		"deepseek-reasoner does not support function calling",
	}
	no := []string{"", "rate limited", "does not support images", "tools unsupported", "function calling failed"}
	for _, s := range yes {
		if !IsToolsUnsupported(errors.New(s)) {
			t.Errorf("%q not recognized", s)
		}
	}
	for _, s := range no {
		if s != "" && IsToolsUnsupported(errors.New(s)) {
			t.Errorf("%q recognized", s)
		}
	}
	if IsToolsUnsupported(nil) {
		t.Error("nil recognized")
	}
	// Wrapped errors work: the engine may add context.
	if !IsToolsUnsupported(fmt.Errorf("call 3: %w", &Error{Kind: KindBadRequest, Message: "llama2 does not support tools"})) {
		t.Error("wrapped error not recognized")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"20"}}, 20 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{nil, 0},
	}
	for _, tc := range cases {
		if got := parseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("parseRetryAfter(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Kind: KindRateLimit, Status: 429, RetryAfter: 2 * time.Second, Provider: "openai", Model: "gpt-4o", Message: "slow down"}
	if got, want := e.Error(), "openai gpt-4o: rate limited (HTTP 429, retry after 2s): slow down"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !e.Retryable() || (&Error{Kind: KindAuth}).Retryable() {
		t.Error("Retryable wrong")
	}
	if KindOf(fmt.Errorf("x: %w", e)) != KindRateLimit || KindOf(errors.New("x")) != "" {
		t.Error("KindOf wrong")
	}
	// A transport error quotes the URL: its credentials and the provider's
	// key never reach the message.
	ue := &url.Error{Op: "Post", URL: "https://user:hunter22@host/p?api_key=sk-1&x=2", Err: errors.New("dial tcp: refused by key-1234abcd")}
	got := transportError(context.Background(), "openai", "gpt-4o", ue, nil, session.NewRedactor("key-1234abcd")).Message
	for _, leak := range []string{"sk-1", "hunter22", "key-1234abcd"} {
		if strings.Contains(got, leak) {
			t.Errorf("transport error leaks %q: %s", leak, got)
		}
	}
	if !strings.Contains(got, "x=2") || !strings.Contains(got, session.Redacted) {
		t.Errorf("transport error %q should keep the rest of the URL and show the marker", got)
	}
}
