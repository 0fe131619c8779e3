package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"crewbench/session"
)

// ErrorKind classifies a failed call so the engine can decide what to do
// (retry after a delay, fall back to ReAct, summarize, give up).
type ErrorKind string

// Error kinds.
const (
	// KindAuth: 401/403, a missing or wrong API key.
	KindAuth ErrorKind = "auth"
	// KindRateLimit: 429; Error.RetryAfter holds the server's Retry-After.
	KindRateLimit ErrorKind = "rate_limit"
	// KindServer: 5xx, Anthropic's 529 "overloaded", an error event mid-stream.
	KindServer ErrorKind = "server"
	// KindBadRequest: any other 4xx.
	KindBadRequest ErrorKind = "bad_request"
	// KindContextLength: the prompt does not fit the model's context window
	// (OpenAI code context_length_exceeded, Anthropic "prompt is too long").
	KindContextLength ErrorKind = "context_length"
	// KindUnsupportedTools: the error text contains one of CrewAI's "does
	// not support tools" phrases; the engine switches to ReAct (§5.0).
	KindUnsupportedTools ErrorKind = "unsupported_tools"
	// KindMalformedResponse: the server answered 2xx with a body that is not
	// the API's format.
	KindMalformedResponse ErrorKind = "malformed_response"
	// KindTimeout: the context deadline (or Config.Timeout) expired.
	KindTimeout ErrorKind = "timeout"
	// KindNetwork: connection refused, reset, DNS, a stream cut short.
	KindNetwork ErrorKind = "network"
	// KindCanceled: the caller cancelled the context (Ctrl+C, abort).
	KindCanceled ErrorKind = "canceled"
	// KindConfig: the provider cannot be built (unknown provider, unreadable
	// script or session file).
	KindConfig ErrorKind = "config"
	// KindScript: the scripted LLM has no reply for this call, or a reply's
	// expectation about the request failed.
	KindScript ErrorKind = "script"
	// KindReplay: the recording has no more LLM calls, or the conversation
	// diverged from it (Error.Err is then a *Divergence).
	KindReplay ErrorKind = "replay"
)

// Error is every failure a Provider returns.
type Error struct {
	Kind ErrorKind
	// Status is the HTTP status, 0 when there was no response.
	Status int
	// RetryAfter is the server's Retry-After (rate limits, overload), 0 if none.
	RetryAfter time.Duration
	// Provider is "openai", "anthropic", "ollama", "scripted", "replay", …
	Provider string
	Model    string
	// Code is the provider's machine-readable code or type when it sent one
	// ("context_length_exceeded", "rate_limit_error", …).
	Code string
	// Message is the provider's human-readable message, secrets redacted.
	Message string
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Provider == "" {
		b.WriteString("llm")
	}
	if e.Model != "" && e.Model != e.Provider {
		b.WriteString(" ")
		b.WriteString(e.Model)
	}
	b.WriteString(": ")
	b.WriteString(kindText[e.Kind])
	if e.Kind == "" {
		b.WriteString("error")
	}
	var detail []string
	if e.Status != 0 {
		detail = append(detail, fmt.Sprintf("HTTP %d", e.Status))
	}
	if e.RetryAfter > 0 {
		detail = append(detail, "retry after "+e.RetryAfter.String())
	}
	if len(detail) > 0 {
		b.WriteString(" (" + strings.Join(detail, ", ") + ")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	} else if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: rate limits,
// server errors, timeouts and network failures.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimit, KindServer, KindTimeout, KindNetwork:
		return true
	}
	return false
}

var kindText = map[ErrorKind]string{
	KindAuth:              "authentication failed",
	KindRateLimit:         "rate limited",
	KindServer:            "server error",
	KindBadRequest:        "bad request",
	KindContextLength:     "context length exceeded",
	KindUnsupportedTools:  "tools not supported",
	KindMalformedResponse: "malformed response",
	KindTimeout:           "timed out",
	KindNetwork:           "network error",
	KindCanceled:          "canceled",
	KindConfig:            "configuration error",
	KindScript:            "script error",
	KindReplay:            "replay error",
}

// KindOf returns the kind of an *Error in err's chain, or "" if there is none.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// crewAIContextLimitPhrases is CrewAI's CONTEXT_LIMIT_ERRORS
// (utilities/exceptions/context_window_exceeding_exception.py:4-13),
// verbatim.
var crewAIContextLimitPhrases = []string{
	"expected a string with maximum length",
	"maximum context length",
	"context length exceeded",
	"context_length_exceeded",
	"context window full",
	"too many tokens",
	"input is too long",
	"exceeds token limit",
}

// IsContextLengthExceeded is CrewAI's is_context_length_exceeded
// (utilities/agent_utils.py:781-792), which decides whether the executor
// summarises the history: one of CrewAI's phrases, case-insensitively, in
// what str(exception) shows of a provider error (its message, type and
// code). It is narrower than KindContextLength: Anthropic's "prompt is too
// long" is not among the phrases, so for Claude CrewAI does not summarise
// and the error ends the agent's execution.
func IsContextLengthExceeded(err error) bool {
	if err == nil {
		return false
	}
	text := err.Error()
	var e *Error
	if errors.As(err, &e) {
		// Not e.Error(): its kind's text ("context length exceeded") is
		// crewbench's, not the provider's.
		text = e.Message + " " + e.Code
	}
	text = strings.ToLower(text)
	for _, p := range crewAIContextLimitPhrases {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// toolsUnsupportedPhrases is CrewAI's list (crewai-semantics.md §5.0),
// verbatim.
var toolsUnsupportedPhrases = []string{
	"does not support tools",
	"doesn't support tools",
	"tools are not supported",
	"tool calling is not supported",
	"tool calls are not supported",
	"function calling is not supported",
	"does not support function calling",
}

// IsToolsUnsupported reports whether err's text contains one of CrewAI's
// "does not support tools" phrases, the signal to fall back from native
// function calling to ReAct (crewai-semantics.md §5.0). The text is compared
// lower-cased; the phrases themselves are all lower case.
func IsToolsUnsupported(err error) bool {
	if err == nil {
		return false
	}
	return containsToolsUnsupported(err.Error())
}

func containsToolsUnsupported(s string) bool {
	s = strings.ToLower(s)
	for _, p := range toolsUnsupportedPhrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// contextLengthPhrases recognize a context-window overflow in providers'
// messages. The spec lists no phrases for this; these are the texts OpenAI,
// Anthropic, Ollama, vLLM and LiteLLM use.
var contextLengthPhrases = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length exceeded",
	"exceeds the context window",
	"context window exceeded",
	"prompt is too long",
	"input is too long",
	"too many tokens",
	"reduce the length of the messages",
}

func looksLikeContextLength(code, msg string) bool {
	if code == "context_length_exceeded" {
		return true
	}
	m := strings.ToLower(msg)
	for _, p := range contextLengthPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// httpError classifies an HTTP error response. code and errType are the
// provider's machine-readable fields, msg its message.
func httpError(provider, model string, status int, header http.Header, code, errType, msg string) *Error {
	e := &Error{Provider: provider, Model: model, Status: status, Message: msg, Code: code}
	if e.Code == "" {
		e.Code = errType
	}
	e.RetryAfter = parseRetryAfter(header, time.Now())
	switch {
	case containsToolsUnsupported(msg):
		e.Kind = KindUnsupportedTools
	case looksLikeContextLength(code, msg):
		e.Kind = KindContextLength
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		errType == "authentication_error" || errType == "permission_error":
		e.Kind = KindAuth
	case status == http.StatusTooManyRequests || errType == "rate_limit_error":
		e.Kind = KindRateLimit
	case status == http.StatusRequestTimeout:
		e.Kind = KindTimeout
	case status >= 500 || errType == "overloaded_error" || errType == "api_error":
		e.Kind = KindServer
	case status >= 400:
		e.Kind = KindBadRequest
	default:
		e.Kind = KindServer
	}
	return e
}

// parseRetryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or
// an HTTP date).
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// transportError classifies a failure that is not an HTTP error response.
// seen (nil when there was no HTTP exchange) tells whether a 2xx response
// arrived and was read to its end: then a decoding failure means the body
// was malformed, not that the connection dropped.
//
// The message is redacted with red (nil: session.DefaultRedactor): a
// provider's redactor has its API key marked, and the rules hide
// credentials in the URL a *url.Error quotes.
func transportError(ctx context.Context, provider, model string, err error, seen *responseCapture, red *session.Redactor) *Error {
	gotResponse := seen != nil && seen.status >= 200 && seen.status < 300
	e := &Error{Provider: provider, Model: model, Err: err}
	var netErr net.Error
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (ctx != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)):
		e.Kind = KindTimeout
		e.Message = "no complete reply before the deadline"
	case errors.Is(err, context.Canceled) || (ctx != nil && errors.Is(ctx.Err(), context.Canceled)):
		e.Kind = KindCanceled
		e.Message = "the call was canceled"
	case errors.As(err, &syntaxErr) || errors.As(err, &typeErr):
		e.Kind = KindMalformedResponse
	case seen != nil && seen.bodyComplete() && errors.Is(err, io.ErrUnexpectedEOF):
		// The whole body arrived and still ended mid-JSON.
		e.Kind = KindMalformedResponse
		e.Message = "the response body ends in the middle of its JSON"
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		e.Kind = KindNetwork
		e.Message = "the connection closed before the reply was complete"
	case errors.As(err, &netErr) && netErr.Timeout():
		e.Kind = KindTimeout
	case errors.As(err, &netErr):
		e.Kind = KindNetwork
	case gotResponse:
		e.Kind = KindMalformedResponse
	default:
		e.Kind = KindNetwork
	}
	if e.Message == "" {
		e.Message = red.RedactString(err.Error())
	}
	return e
}

// errorBody extracts code, type and message from an error response body in
// any of the shapes servers use: {"error":{"message","type","code"}}
// (OpenAI, Anthropic), {"error":"text"} (Ollama's native API, some proxies),
// {"message":"text"}, or plain text.
func errorBody(body []byte) (code, errType, msg string) {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(body, &env) == nil {
		if len(env.Error) > 0 {
			var obj struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			}
			var s string
			if json.Unmarshal(env.Error, &obj) == nil && (obj.Message != "" || obj.Type != "") {
				if obj.Code != nil {
					code = fmt.Sprint(obj.Code)
				}
				return code, obj.Type, obj.Message
			}
			if json.Unmarshal(env.Error, &s) == nil {
				return "", "", s
			}
		}
		if env.Message != "" {
			return "", env.Type, env.Message
		}
	}
	return "", "", excerpt(strings.TrimSpace(string(body)), 300)
}

// excerpt shortens s to at most n runes, marking the cut.
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
