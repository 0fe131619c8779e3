package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"crewbench/session"
)

// openAIProvider speaks the chat completions API through openai-go: OpenAI
// itself and every compatible server (Ollama, vLLM, LM Studio, OpenRouter, …).
type openAIProvider struct {
	provider string
	model    string
	cfg      Config
	svc      openai.ChatCompletionService
	fc       bool
	red      *session.Redactor // the API key marked
	endpoint string            // the base URL without credentials (ServerURL)
}

func newOpenAI(cfg Config, provider, model string) (*openAIProvider, error) {
	svc := openAICompatible[provider]
	if strings.TrimSpace(model) == "" {
		return nil, configError(provider, fmt.Sprintf("model string %q names no model", cfg.Model))
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = cfg.firstEnv(svc.baseEnv...)
	}
	if base == "" {
		base = svc.defaultBase
	}
	if base == "" {
		return nil, configError(provider, fmt.Sprintf("model %q needs a base URL: set base_url or %s", cfg.Model, strings.Join(svc.baseEnv, "/")))
	}
	base = strings.TrimRight(base, "/")
	if svc.appendV1 && !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key = cfg.firstEnv(svc.keyEnv...)
	}
	if key == "" {
		key = svc.placeholderKey
	}
	// The hosted services need a key; say so now rather than as a 401 later.
	// Self-hosted servers (any other base URL) often need none.
	if key == "" && base == svc.defaultBase && len(svc.keyEnv) > 0 {
		return nil, missingKeyError(provider, model, svc.keyEnv[0])
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0), // the engine owns retries
		option.WithHTTPClient(cfg.httpClient()),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &openAIProvider{
		provider: provider,
		model:    model,
		cfg:      cfg,
		// The service, not openai.NewClient: NewClient reads OPENAI_* from the
		// process environment, which would bypass Config.Env.
		svc:      openai.NewChatCompletionService(opts...),
		fc:       openAIFunctionCalling(cfg, provider, model),
		red:      session.NewRedactor(key),
		endpoint: endpointURL(base),
	}, nil
}

// openAIFunctionCalling is supports_function_calling: CrewAI's native
// OpenAI provider says no for o1 models ("o1" anywhere in the name,
// openai/completion.py:2643-2645); the config can override it.
func openAIFunctionCalling(cfg Config, provider, model string) bool {
	if cfg.FunctionCalling == nil && provider == ProviderOpenAI && isO1(model) {
		return false
	}
	return cfg.functionCalling()
}

// isO1 is CrewAI's o1 test: "o1" in the lowercased model name.
func isO1(model string) bool { return strings.Contains(strings.ToLower(model), "o1") }

func (p *openAIProvider) Model() string                 { return p.model }
func (p *openAIProvider) SupportsFunctionCalling() bool { return p.fc }
func (p *openAIProvider) ServerURL() string             { return p.endpoint }

// Call implements Provider.
func (p *openAIProvider) Call(ctx context.Context, req Request, onChunk func(Chunk)) (Response, error) {
	req = withConfigStops(p.cfg, req)
	body, err := p.openAIBody(req)
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.timeout())
	defer cancel()
	var seen responseCapture
	// The body is rendered by openAIBody (CrewAI's bytes); the SDK's own
	// serialization of params is replaced, so params carries only the model.
	params := openai.ChatCompletionNewParams{Model: p.modelFor(req)}
	opts := []option.RequestOption{option.WithMiddleware(seen.middleware), option.WithRequestBody("application/json", body)}
	var r Response
	if req.Stream && req.ResponseFormat == nil {
		r, err = p.stream(ctx, params, opts, &seen, onChunk)
	} else {
		var out *openai.ChatCompletion
		if out, err = p.svc.New(ctx, params, opts...); err != nil {
			return Response{}, p.classify(ctx, err, &seen)
		}
		r, err = p.fromCompletion(out)
	}
	if err != nil || p.provider != ProviderOpenAI {
		// The other OpenAI-compatible services go through LiteLLM in
		// CrewAI, which sends the stop words and leaves the cut to them.
		return r, err
	}
	return applyStopWordsTo(req, r), nil
}

func (p *openAIProvider) modelFor(req Request) string {
	if req.Model != "" {
		return req.Model
	}
	return p.model
}

// wireToolDef is {"type":"function","function":{…}}, CrewAI's tool schema.
type wireToolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Strict      *bool           `json:"strict,omitempty"`
	} `json:"function"`
}

func wireTool(t Tool) wireToolDef {
	var w wireToolDef
	w.Type = "function"
	w.Function.Name = t.Name
	w.Function.Description = t.Description
	w.Function.Parameters = t.Parameters
	if t.Strict {
		strict := true
		w.Function.Strict = &strict
	}
	return w
}

func (p *openAIProvider) fromCompletion(c *openai.ChatCompletion) (Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return Response{}, &Error{Kind: KindMalformedResponse, Provider: p.provider, Model: p.model,
			Message: "the response has no choices"}
	}
	ch := c.Choices[0]
	r := Response{
		Content:      ch.Message.Content,
		FinishReason: ch.FinishReason,
		ResponseID:   c.ID,
		Model:        c.Model,
		Raw:          c.RawJSON(),
		Usage: Usage{
			PromptTokens:     int(c.Usage.PromptTokens),
			CompletionTokens: int(c.Usage.CompletionTokens),
			TotalTokens:      int(c.Usage.TotalTokens),
		},
	}
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom (free-form) tools are never offered by crewbench
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	if r.Usage.TotalTokens == 0 {
		r.Usage.TotalTokens = r.Usage.PromptTokens + r.Usage.CompletionTokens
	}
	return r, nil
}

// toolCallBuilder assembles one streamed tool call.
type toolCallBuilder struct {
	id, name string
	args     strings.Builder
}

func (p *openAIProvider) stream(ctx context.Context, params openai.ChatCompletionNewParams, opts []option.RequestOption, seen *responseCapture, onChunk func(Chunk)) (Response, error) {
	s := p.svc.NewStreaming(ctx, params, opts...)
	defer s.Close()
	var (
		r       Response
		content strings.Builder
		calls   []*toolCallBuilder
		slotOf  = map[int64]int{} // wire index → position in calls
		chunks  int
	)
	emit := func(c Chunk) {
		if onChunk != nil {
			onChunk(c)
		}
	}
	for s.Next() {
		ev := s.Current()
		chunks++
		if ev.ID != "" {
			r.ResponseID = ev.ID
		}
		if ev.Model != "" {
			r.Model = ev.Model
		}
		if u := ev.Usage; u.PromptTokens != 0 || u.CompletionTokens != 0 || u.TotalTokens != 0 {
			r.Usage = Usage{PromptTokens: int(u.PromptTokens), CompletionTokens: int(u.CompletionTokens), TotalTokens: int(u.TotalTokens)}
		}
		for _, ch := range ev.Choices {
			if ch.Index != 0 {
				continue // n > 1 is never requested
			}
			if ch.FinishReason != "" {
				r.FinishReason = ch.FinishReason
			}
			if d := ch.Delta.Content; d != "" {
				content.WriteString(d)
				emit(Chunk{Content: d})
			}
			for _, d := range ch.Delta.ToolCalls {
				slot, ok := slotOf[d.Index]
				// A fresh id on a known index means a new call: some servers
				// (older Ollama, Gemini's compat layer) send every call whole
				// with the same index.
				if !ok || (d.ID != "" && calls[slot].id != "" && d.ID != calls[slot].id) {
					calls = append(calls, &toolCallBuilder{})
					slot = len(calls) - 1
					slotOf[d.Index] = slot
				}
				b := calls[slot]
				delta := ToolCallDelta{Index: slot, Arguments: d.Function.Arguments}
				if d.ID != "" && b.id == "" {
					b.id, delta.ID = d.ID, d.ID
				}
				// Servers that repeat the name on every fragment send it whole,
				// so the first one is kept rather than concatenated.
				if d.Function.Name != "" && b.name == "" {
					b.name, delta.Name = d.Function.Name, d.Function.Name
				}
				b.args.WriteString(d.Function.Arguments)
				emit(Chunk{ToolCall: &delta})
			}
		}
	}
	if err := s.Err(); err != nil {
		return Response{}, p.classify(ctx, err, seen)
	}
	if chunks == 0 {
		return Response{}, &Error{Kind: KindMalformedResponse, Provider: p.provider, Model: p.model, Status: seen.status,
			Message: "the stream ended without a single chunk"}
	}
	r.Content = content.String()
	for _, b := range calls {
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.id, Name: b.name, Arguments: b.args.String()})
	}
	if r.Usage.TotalTokens == 0 {
		r.Usage.TotalTokens = r.Usage.PromptTokens + r.Usage.CompletionTokens
	}
	return r, nil
}

// classify turns an SDK error into *Error. The capture holds the raw error
// response, which is more reliable than the SDK's parse: servers that are
// only mostly compatible send {"error":"text"} or plain text.
func (p *openAIProvider) classify(ctx context.Context, err error, seen *responseCapture) *Error {
	if seen.status >= 300 {
		code, errType, msg := errorBody(seen.body)
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			if msg == "" {
				msg = apiErr.Message
			}
			if code == "" {
				code = apiErr.Code
			}
			if errType == "" {
				errType = apiErr.Type
			}
		}
		if msg == "" {
			msg = http.StatusText(seen.status)
		}
		e := httpError(p.provider, p.model, seen.status, seen.header, code, errType, p.red.RedactString(msg))
		e.Err = err
		return e
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		// An error event inside a 200 stream: the server failed mid-reply.
		code, errType, msg := errorBody(se.Event.Data)
		e := httpError(p.provider, p.model, 0, nil, code, errType, p.red.RedactString(msg))
		e.Err = err
		return e
	}
	return transportError(ctx, p.provider, p.model, err, seen, p.red)
}

// responseCapture is a per-call middleware that records the response status
// and headers, the body of error responses, and whether a success body was
// read to its end (then a decoding failure is a malformed response, not a
// dropped connection).
type responseCapture struct {
	status int
	header http.Header
	body   []byte
	track  *trackedBody
}

// maxErrorBody bounds how much of an error response is kept.
const maxErrorBody = 1 << 20

func (c *responseCapture) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil {
		return res, err
	}
	c.status = res.StatusCode
	c.header = res.Header.Clone()
	if res.Body == nil {
		return res, err
	}
	if res.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		c.body = b
		res.Body = io.NopCloser(bytes.NewReader(b))
		return res, err
	}
	c.track = &trackedBody{ReadCloser: res.Body}
	res.Body = c.track
	return res, err
}

// bodyComplete reports whether a 2xx body was read to a clean end.
func (c *responseCapture) bodyComplete() bool {
	return c.status >= 200 && c.status < 300 && c.track != nil && c.track.complete()
}

// trackedBody remembers how reading a response body ended.
type trackedBody struct {
	io.ReadCloser
	mu      sync.Mutex
	sawEOF  bool
	readErr error
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.mu.Lock()
		if errors.Is(err, io.EOF) {
			b.sawEOF = true
		} else if b.readErr == nil {
			b.readErr = err
		}
		b.mu.Unlock()
	}
	return n, err
}

func (b *trackedBody) complete() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sawEOF && b.readErr == nil
}
