package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"crewbench/crew/pyjson"
	"crewbench/session"
)

// AnthropicDefaultMaxTokens is sent when neither the request nor the config
// sets max_tokens (the Messages API requires it). It is CrewAI's default for
// its native Anthropic provider.
const AnthropicDefaultMaxTokens = 4096

const anthropicDefaultBase = "https://api.anthropic.com"

// anthropicProvider speaks the Messages API through anthropic-sdk-go, with
// the body rendered by anthropicBody (CrewAI's bytes) and the Python SDK's
// anthropic-version (2023-06-01), under which temperature is a parameter.
type anthropicProvider struct {
	model string
	cfg   Config
	svc   anthropic.MessageService
	fc    bool
	red   *session.Redactor // the API key marked
	// endpoint is the base URL without credentials (ServerURL).
	endpoint string
}

func newAnthropic(cfg Config, model string) (*anthropicProvider, error) {
	if strings.TrimSpace(model) == "" {
		return nil, configError(ProviderAnthropic, fmt.Sprintf("model string %q names no model", cfg.Model))
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = cfg.firstEnv("ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE")
	}
	if base == "" {
		base = anthropicDefaultBase
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key = cfg.firstEnv("ANTHROPIC_API_KEY")
	}
	if key == "" && strings.TrimRight(base, "/") == anthropicDefaultBase {
		return nil, missingKeyError(ProviderAnthropic, model, "ANTHROPIC_API_KEY")
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0), // the engine owns retries
		option.WithHTTPClient(cfg.httpClient()),
	}
	// The anthropic Python SDK's headers: the API version it speaks and the
	// key as X-Api-Key (anthropic-sdk-go would send its own version and a
	// bearer token).
	opts = append(opts, option.WithHeader("anthropic-version", anthropicAPIVersion))
	if key != "" {
		opts = append(opts, option.WithHeader("X-Api-Key", key))
	}
	return &anthropicProvider{
		model: model,
		cfg:   cfg,
		// The service, not anthropic.NewClient: NewClient reads ANTHROPIC_*
		// and a credential chain from the process environment.
		svc:      anthropic.NewMessageService(opts...),
		fc:       cfg.functionCalling(),
		red:      session.NewRedactor(key),
		endpoint: endpointURL(base),
	}, nil
}

func (p *anthropicProvider) Model() string                 { return p.model }
func (p *anthropicProvider) SupportsFunctionCalling() bool { return p.fc }
func (p *anthropicProvider) ServerURL() string             { return p.endpoint }

// Call implements Provider.
func (p *anthropicProvider) Call(ctx context.Context, req Request, onChunk func(Chunk)) (Response, error) {
	req = withConfigStops(p.cfg, req)
	wire, err := p.anthropicBody(req)
	if err != nil {
		return Response{}, err
	}
	timeout := p.cfg.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var seen responseCapture
	// The SDK's serialization of params is replaced by the rendered body;
	// params carries only what the SDK itself looks at.
	params := anthropic.MessageNewParams{Model: p.model, MaxTokens: AnthropicDefaultMaxTokens}
	opts := []option.RequestOption{option.WithMiddleware(seen.middleware), option.WithRequestBody("application/json", wire.body)}
	if wire.beta {
		// client.beta.messages: ?beta=true and the beta named.
		opts = append(opts, option.WithQuery("beta", "true"), option.WithHeader("anthropic-beta", anthropicStructuredBeta))
	}
	if req.Stream {
		// messages.stream() names its helper in a header (anthropic 0.73
		// resources/messages/messages.py, beta/messages/messages.py).
		helper := "messages"
		if wire.beta {
			helper = "beta.messages"
		}
		opts = append(opts, option.WithHeader("X-Stainless-Stream-Helper", helper))
	}
	var r Response
	if req.Stream {
		r, err = p.stream(ctx, params, opts, &seen, onChunk)
	} else {
		// WithRequestTimeout also skips the SDK's "streaming is required"
		// check for large max_tokens; the context deadline is what bounds
		// the call.
		var msg *anthropic.Message
		if msg, err = p.svc.New(ctx, params, append(opts, option.WithRequestTimeout(timeout))...); err != nil {
			return Response{}, p.classify(ctx, err, &seen)
		}
		r, err = p.fromMessage(msg)
	}
	if err != nil {
		return r, err
	}
	if wire.structuredTool {
		r = anthropicStructuredReply(r)
	}
	if req.ResponseFormat != nil {
		// The structured reply is returned as it is, uncut
		// (completion.py returns before _apply_stop_words).
		return r, nil
	}
	// CrewAI's Anthropic provider sends the stop sequences and cuts at them
	// client-side too (llms/providers/anthropic/completion.py:517, 1090).
	return applyStopWordsTo(req, r), nil
}

func (p *anthropicProvider) fromMessage(m *anthropic.Message) (Response, error) {
	if m == nil || (m.ID == "" && len(m.Content) == 0 && m.StopReason == "") {
		return Response{}, &Error{Kind: KindMalformedResponse, Provider: ProviderAnthropic, Model: p.model,
			Message: "the response is not a message"}
	}
	r := Response{
		FinishReason: string(m.StopReason),
		ResponseID:   m.ID,
		Raw:          m.RawJSON(),
		Model:        m.Model,
		Usage:        anthropicUsage(m.Usage.InputTokens+m.Usage.CacheReadInputTokens+m.Usage.CacheCreationInputTokens, m.Usage.OutputTokens),
	}
	var text strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if isToolUseBlock(b.RawJSON()) {
				r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
			}
		}
	}
	r.Content = text.String()
	return r, nil
}

// isToolUseBlock is CrewAI's _is_tool_use_block (completion.py:147-166):
// a tool_use block counts only with a string id and name and a dict input.
// Any other block is dropped from the reply's tool calls (and, having no
// text, adds nothing to its text either), so a reply whose only tool_use
// has, say, an array as input is an empty text reply to the executor.
func isToolUseBlock(raw string) bool {
	v, err := pyjson.Loads(raw)
	if err != nil {
		return false
	}
	o, ok := v.(*pyjson.Object)
	if !ok {
		return false
	}
	id, _ := o.Get("id")
	name, _ := o.Get("name")
	input, _ := o.Get("input")
	_, idOK := id.(string)
	_, nameOK := name.(string)
	_, inputOK := input.(*pyjson.Object)
	return idOK && nameOK && inputOK
}

// anthropicUsage is _extract_anthropic_token_usage (completion.py:
// 1963-1986): the prompt tokens are the input tokens plus the tokens read
// from and written to the prompt cache, which the cache_control breakpoints
// make the API report.
func anthropicUsage(in, out int64) Usage {
	return Usage{PromptTokens: int(in), CompletionTokens: int(out), TotalTokens: int(in + out)}
}

func (p *anthropicProvider) stream(ctx context.Context, params anthropic.MessageNewParams, opts []option.RequestOption, seen *responseCapture, onChunk func(Chunk)) (Response, error) {
	s := p.svc.NewStreaming(ctx, params, opts...)
	defer s.Close()
	var (
		r       Response
		text    strings.Builder
		calls   []*toolCallBuilder
		slotOf  = map[int64]int{} // content block index → position in calls
		in, out int64
		// cacheRead and cacheWrite are the usage's cache_read_input_tokens
		// and cache_creation_input_tokens.
		cacheRead, cacheWrite int64
		started               bool
		completed             bool
	)
	emit := func(c Chunk) {
		if onChunk != nil {
			onChunk(c)
		}
	}
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "message_start":
			started = true
			r.ResponseID = ev.Message.ID
			r.Model = ev.Message.Model
			in, out = ev.Message.Usage.InputTokens, ev.Message.Usage.OutputTokens
			cacheRead, cacheWrite = ev.Message.Usage.CacheReadInputTokens, ev.Message.Usage.CacheCreationInputTokens
		case "content_block_start":
			switch ev.ContentBlock.Type {
			case "text":
				if ev.ContentBlock.Text != "" {
					text.WriteString(ev.ContentBlock.Text)
					emit(Chunk{Content: ev.ContentBlock.Text})
				}
			case "tool_use":
				calls = append(calls, &toolCallBuilder{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name})
				slot := len(calls) - 1
				slotOf[ev.Index] = slot
				emit(Chunk{ToolCall: &ToolCallDelta{Index: slot, ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}})
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				text.WriteString(ev.Delta.Text)
				emit(Chunk{Content: ev.Delta.Text})
			case "input_json_delta":
				slot, ok := slotOf[ev.Index]
				if !ok {
					return Response{}, &Error{Kind: KindMalformedResponse, Provider: ProviderAnthropic, Model: p.model,
						Message: fmt.Sprintf("input_json_delta for content block %d, which is not a tool_use block", ev.Index)}
				}
				calls[slot].args.WriteString(ev.Delta.PartialJSON)
				emit(Chunk{ToolCall: &ToolCallDelta{Index: slot, Arguments: ev.Delta.PartialJSON}})
			}
		case "message_delta":
			r.FinishReason = string(ev.Delta.StopReason)
			// message_delta usage is cumulative: it replaces, not adds.
			out = ev.Usage.OutputTokens
			if ev.Usage.InputTokens != 0 {
				in = ev.Usage.InputTokens
			}
			// The SDK's accumulator takes the cache counts of a
			// message_delta that has them (lib/streaming/_messages.py).
			if ev.Usage.CacheReadInputTokens != 0 {
				cacheRead = ev.Usage.CacheReadInputTokens
			}
			if ev.Usage.CacheCreationInputTokens != 0 {
				cacheWrite = ev.Usage.CacheCreationInputTokens
			}
		case "message_stop":
			completed = true
		}
	}
	if err := s.Err(); err != nil {
		return Response{}, p.classify(ctx, err, seen)
	}
	if !started || !completed {
		// The real API always ends with message_stop; a stream without it was
		// cut short (a proxy timeout, a dropped connection).
		return Response{}, &Error{Kind: KindNetwork, Provider: ProviderAnthropic, Model: p.model,
			Message: "the stream ended before message_stop"}
	}
	r.Content = text.String()
	for _, b := range calls {
		args := b.args.String()
		if args == "" {
			args = "{}" // a tool with no input streams no input_json_delta
		}
		if v, err := pyjson.Loads(args); err == nil {
			if _, ok := v.(*pyjson.Object); !ok {
				// The final message's input is not a dict: not a tool use
				// for CrewAI (_is_tool_use_block).
				continue
			}
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.id, Name: b.name, Arguments: args})
	}
	r.Usage = anthropicUsage(in+cacheRead+cacheWrite, out)
	return r, nil
}

// classify turns an SDK error into *Error.
func (p *anthropicProvider) classify(ctx context.Context, err error, seen *responseCapture) *Error {
	if seen.status >= 300 {
		_, errType, msg := errorBody(seen.body)
		if msg == "" {
			msg = http.StatusText(seen.status)
		}
		e := httpError(ProviderAnthropic, p.model, seen.status, seen.header, "", errType, p.red.RedactString(msg))
		e.Err = err
		return e
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		// An error event inside a 200 stream (overloaded_error, api_error, …).
		e := httpError(ProviderAnthropic, p.model, 0, nil, "", string(apiErr.Type()), p.red.RedactString(apiErr.Message))
		e.Err = err
		return e
	}
	if msg, ok := strings.CutPrefix(err.Error(), "received error while streaming: "); ok {
		_, errType, m := errorBody([]byte(msg))
		e := httpError(ProviderAnthropic, p.model, 0, nil, "", errType, p.red.RedactString(m))
		e.Err = err
		return e
	}
	return transportError(ctx, ProviderAnthropic, p.model, err, seen, p.red)
}
