// Package llm puts every LLM crewbench can talk to behind one small interface,
// [Provider], so the crew engine's two agent loops (native function calling
// and ReAct text) never care which model answers.
//
// Providers, chosen by the CrewAI/LiteLLM model string ([ParseModel]):
//
//   - openai/<model>, bare gpt-*, o1…o9*, chatgpt-* names, and any
//     OpenAI-compatible server through a base URL (OPENAI_BASE_URL,
//     OPENAI_API_BASE); ollama/<model> (default http://localhost:11434/v1);
//     a few LiteLLM prefixes that are OpenAI-compatible services (openrouter,
//     deepseek, groq, cerebras, hosted_vllm). All go through openai-go/v3.
//   - anthropic/<model> and bare claude-* names, through anthropic-sdk-go/v2.
//   - scripted:FILE — replies written by hand in YAML (see [ParseScript] and
//     SCRIPTED.md), so every engine path can be reached offline.
//   - replay:FILE — the replies recorded in a session file, served in order
//     (see [NewReplay]).
//
// The SDKs' own retries are off: the engine owns retries and needs to see
// every failure. Failures are returned as *[Error] with an [ErrorKind] the
// engine can branch on (rate limits carry Retry-After). Deadlines come from the
// caller's context plus [Config.Timeout]; no http.Client.Timeout is used, so a
// streamed reply is never cut off by a wall-clock limit the caller did not ask
// for.
//
// Package llm is an engine package: it imports nothing from the UI.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Role is a chat message author, in OpenAI's vocabulary (the neutral form).
type Role string

// Message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one chat message in the neutral (OpenAI-shaped) form. Providers
// translate it to their wire format: for Anthropic, system messages become the
// system parameter, assistant ToolCalls become tool_use blocks and consecutive
// tool messages become one user message of tool_result blocks.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message asked for (native mode).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the (sanitized) tool name on a tool message, as CrewAI sends it.
	Name string `json:"name,omitempty"`
	// SDKDump marks an assistant message with tool calls re-sent the way
	// instructor's dump_message writes a reply back (content "" rather
	// than null, each call as the OpenAI SDK's model_dump: id,
	// function{arguments, name}, type); the OpenAI wire honours it, and the
	// Anthropic wire sends a dump without content or calls as no blocks.
	SDKDump bool `json:"-"`
	// CacheBreakpoint is CrewAI's mark_cache_breakpoint (llms/cache.py):
	// the agent executor marks its system and first user message, where the
	// stable prefix of the conversation ends (_setup_messages,
	// experimental/agent_executor.py:310-335). The Anthropic wire turns a
	// mark into cache_control {"type":"ephemeral"}; the other providers
	// drop it, as CrewAI's BaseLLM._format_messages does.
	CacheBreakpoint bool `json:"-"`
}

// ToolCall is one function call the model asked for.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the raw JSON text exactly as the model produced it. It may
	// be invalid JSON: the engine reports that to the model with CrewAI's text,
	// so it must not be "repaired" here.
	Arguments string `json:"arguments"`
}

// Tool is a function offered to the model. Parameters is the JSON schema as
// the engine built it (CrewAI's strict form); its key order is preserved on
// the wire, because models read property order as a hint.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

// CallMeta says who is calling. Real providers ignore it; the scripted LLM
// uses it to pick a reply and the replay provider to report where a run
// diverged.
type CallMeta struct {
	AgentRole string
	TaskName  string
	// Turn is the engine's 1-based LLM call number within the agent execution
	// (informational; the scripted LLM counts its own turns).
	Turn   int
	CallID string
}

// Request is one LLM call.
type Request struct {
	// Model overrides the provider's model for this call (rarely needed).
	Model    string
	Messages []Message
	// Tools are offered for native function calling; empty in ReAct mode.
	Tools []Tool
	// Stop sequences, e.g. CrewAI's ReAct stop word "\nObservation:". The
	// native OpenAI provider never sends them (CrewAI cuts client-side);
	// the others do.
	Stop []string
	// Temperature and MaxTokens override the provider's configured values when
	// set.
	Temperature *float64
	MaxTokens   int
	// Stream asks for a streamed reply; onChunk then sees each fragment.
	// A ResponseFormat turns it off, as CrewAI does for structured output.
	Stream bool
	// ResponseFormat asks for a JSON reply matching a schema (output_json
	// and the output converter).
	ResponseFormat *ResponseFormat
	// ToolChoice, when set, forces a call of the named tool
	// (tool_choice {"type":"function","function":{"name":…}}), as
	// instructor's TOOLS mode asks for its response model.
	ToolChoice string
	// AvailableFunctions names the functions the caller runs itself from
	// the reply (CrewAI's available_functions: the planning call's
	// create_reasoning_plan). The Anthropic provider forces the only tool
	// offered when it is one of them (completion.py:537-540).
	AvailableFunctions []string
	// Bare sends only what the request itself holds: no configured
	// temperature or token limits. A call CrewAI makes through a fresh SDK
	// client rather than its LLM class (instructor's) carries none.
	Bare bool
	Meta CallMeta
}

// Usage is token accounting in OpenAI's field names (CrewAI's usage dict).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Response is a completed LLM call.
type Response struct {
	Content   string
	ToolCalls []ToolCall
	// FinishReason is the provider's own value ("stop", "tool_calls",
	// "length" for OpenAI; "end_turn", "tool_use", "stop_sequence",
	// "max_tokens" for Anthropic).
	FinishReason string
	ResponseID   string
	// Model is the model that answered, as the provider reported it.
	Model string
	Usage Usage
	// Raw is the reply's JSON as the server sent it (non-streamed OpenAI
	// and Anthropic replies; "" otherwise), for texts that quote the whole
	// completion.
	Raw string
}

// ToolCallDelta is a streamed fragment of one tool call. Index is the call's
// position in the final Response.ToolCalls (for Anthropic too, where the wire
// index counts text blocks as well). ID and Name arrive with the first
// fragment of a call; Arguments is the next piece of its raw JSON.
type ToolCallDelta struct {
	Index     int    `json:"index"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// Chunk is one streamed fragment, for a live display. Exactly one of Content
// and ToolCall is set. Chunks concatenate to the final Response; the Response
// returned by Call is authoritative.
type Chunk struct {
	Content  string
	ToolCall *ToolCallDelta
}

// Provider is an LLM behind crewbench's neutral request/response form.
type Provider interface {
	// Call sends one request. With req.Stream set, onChunk (which may be nil)
	// is called synchronously, in order, from Call's goroutine, before Call
	// returns. Errors are *Error.
	Call(ctx context.Context, req Request, onChunk func(Chunk)) (Response, error)
	// Model is the model name requests go to (without the provider prefix).
	Model() string
	// SupportsFunctionCalling decides native vs ReAct mode (CrewAI §5.0).
	SupportsFunctionCalling() bool
}

// ServerURLOf is the address a provider sends its requests to, for the
// server_url of its LLM events (OpenTelemetry's server.address and
// server.port on chat spans); "" for providers that talk to no server
// (scripted, replay).
func ServerURLOf(p Provider) string {
	if e, ok := p.(interface{ ServerURL() string }); ok {
		return e.ServerURL()
	}
	return ""
}

// ServesInOrder reports whether p answers calls in the order they arrive
// rather than by what they ask (the scripted LLM, a replay): the engine
// then makes the calls CrewAI makes concurrently one after another, in
// the order it records them, so the same script or recording gives the
// same run.
func ServesInOrder(p Provider) bool {
	s, ok := p.(interface{ ServesInOrder() bool })
	return ok && s.ServesInOrder()
}

// endpointURL is a base URL as events may carry it: scheme, host, port and
// path only. Userinfo, query and fragment can hold credentials (an API key
// in ?key=…, user:password@), so they are dropped rather than masked.
func endpointURL(base string) string {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// DefaultTimeout bounds one call when Config.Timeout is zero. It equals the
// OpenAI and Anthropic SDKs' own defaults (10 minutes): long enough for a slow
// local model, short enough that a hung server does not hang a run forever.
const DefaultTimeout = 10 * time.Minute

// DefaultModel is CrewAI's model when an agent has no llm and MODEL,
// MODEL_NAME and OPENAI_MODEL_NAME are unset (crewai-formats.md §1.5).
const DefaultModel = "gpt-4.1-mini"

// Config builds a Provider. It mirrors CrewAI's llm object form
// (crewai-formats.md §1.5): model, provider, base_url/api_base, api_key,
// temperature, max_tokens, max_completion_tokens, timeout.
type Config struct {
	// Model is the CrewAI/LiteLLM model string: "openai/gpt-4o-mini",
	// "anthropic/claude-haiku-4-5", "ollama/llama3.1", "gpt-4o",
	// "scripted:demo.yaml", "replay:run.jsonl".
	Model string
	// Provider, when set, forces the provider (CrewAI's explicit `provider`
	// key); Model is then taken as the bare model name.
	Provider string
	// BaseURL and APIKey override the environment.
	BaseURL string
	APIKey  string
	// Temperature and MaxTokens are defaults for every request.
	Temperature *float64
	MaxTokens   int
	// Stop are the LLM's own stop words (LLM(stop=…)). A call that brings
	// the executor's stop words gets both: CrewAI overrides the LLM's stop
	// with list(set(llm.stop + executor's)) unless the executor's are
	// already among them (_llm_stop_words_applied, agent_utils.py:344-360).
	// A Python set's order varies from one process to the next; crewbench
	// keeps the LLM's first, then the executor's new ones. Every provider
	// cuts replies at the result; those that send stop words send it.
	Stop []string
	// TopP is the LLM's top_p, sent when set (the native providers'
	// _prepare_completion_params).
	TopP *float64
	// MaxCompletionTokens is sent as max_completion_tokens (OpenAI reasoning
	// models reject max_tokens). Ignored by Anthropic.
	MaxCompletionTokens int
	// Timeout bounds each call (CrewAI's `timeout`); zero means DefaultTimeout.
	Timeout time.Duration
	// FunctionCalling overrides SupportsFunctionCalling for openai-compatible
	// and Anthropic providers (the scripted LLM sets it in its script).
	FunctionCalling *bool
	// Env looks up environment variables, including the project's .env; nil
	// means os.Getenv. The SDKs never read the process environment
	// themselves, so this is the only source.
	Env func(string) string
	// Dir resolves relative scripted:/replay: paths; empty means the current
	// directory.
	Dir string
	// Script, when set, is the scripted LLM's YAML (for embedded demos); the
	// text after "scripted:" then only names it in error messages.
	Script []byte
	// Replay configures replay: providers.
	Replay ReplayOptions
	// HTTPClient is used for HTTP providers; nil means a fresh client with no
	// Timeout (deadlines come from the context).
	HTTPClient *http.Client
}

func (c Config) env(key string) string {
	if c.Env != nil {
		return c.Env(key)
	}
	return os.Getenv(key)
}

// firstEnv returns the first non-empty value among keys.
func (c Config) firstEnv(keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(c.env(k)); v != "" {
			return v
		}
	}
	return ""
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.Dir == "" {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// functionCalling is the provider's native tool calling: on unless the
// config turns it off.
func (c Config) functionCalling() bool {
	return c.FunctionCalling == nil || *c.FunctionCalling
}

// missingKeyError says a hosted service's key is missing before the call,
// rather than as a 401 later.
func missingKeyError(provider, model, keyEnv string) *Error {
	return &Error{Kind: KindAuth, Provider: provider, Model: model,
		Message: keyEnv + " is not set (put it in the environment or the project's .env, or set api_key)"}
}

func (c Config) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	// A fresh client per provider so a test or one provider's transport
	// settings never leak into another. No Timeout: streamed replies can run
	// long; the context carries the deadline.
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// FromEnv returns the Config CrewAI uses for an agent with no llm
// (create_llm(None), crewai-formats.md §1.5): the model from MODEL,
// MODEL_NAME, OPENAI_MODEL_NAME or DefaultModel, and the base URL from
// BASE_URL, OPENAI_API_BASE or OPENAI_BASE_URL. env nil means os.Getenv.
func FromEnv(env func(string) string) Config {
	c := Config{Env: env}
	c.Model = c.firstEnv("MODEL", "MODEL_NAME", "OPENAI_MODEL_NAME")
	if c.Model == "" {
		c.Model = DefaultModel
	}
	c.BaseURL = c.firstEnv("BASE_URL", "OPENAI_API_BASE", "OPENAI_BASE_URL")
	return c
}

// New builds the provider the model string names. Errors are *Error of kind
// KindConfig (unknown provider, unreadable script, …).
func New(cfg Config) (Provider, error) {
	provider, model := ParseModel(cfg.Model)
	if cfg.Provider != "" {
		provider = canonicalProvider(strings.ToLower(strings.TrimSpace(cfg.Provider)))
		model = strings.TrimPrefix(strings.TrimSpace(cfg.Model), cfg.Provider+"/")
	}
	switch provider {
	case ProviderScripted:
		return newScriptedFromConfig(cfg, model)
	case ProviderReplay:
		return newReplayFromConfig(cfg, model)
	case ProviderAnthropic:
		return newAnthropic(cfg, model)
	case "":
		// A bare name CrewAI cannot route (e.g. "llama3"): usable only against
		// an explicit OpenAI-compatible server.
		if cfg.BaseURL != "" || cfg.firstEnv("OPENAI_BASE_URL", "OPENAI_API_BASE") != "" {
			return newOpenAI(cfg, ProviderOpenAI, model)
		}
		return nil, configError(provider, fmt.Sprintf("cannot tell which provider serves model %q: write it as provider/model (e.g. openai/%s, ollama/%s, anthropic/…) or set base_url for an OpenAI-compatible server", cfg.Model, model, model))
	}
	if _, ok := openAICompatible[provider]; ok {
		return newOpenAI(cfg, provider, model)
	}
	return nil, configError(provider, fmt.Sprintf("model %q: provider %q is not supported by crewbench (supported: %s); for another OpenAI-compatible server use openai/<model> with base_url", cfg.Model, provider, strings.Join(SupportedProviders(), ", ")))
}

func configError(provider, msg string) *Error {
	return &Error{Kind: KindConfig, Provider: provider, Message: msg}
}
