package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"crewbench/session"
)

// AnthropicDefaultMaxTokens is sent when neither the request nor the config
// sets max_tokens (the Messages API requires it). It is CrewAI's default for
// its native Anthropic provider.
const AnthropicDefaultMaxTokens = 4096

const anthropicDefaultBase = "https://api.anthropic.com"

// anthropicProvider speaks the Messages API through anthropic-sdk-go.
//
// Temperature is not sent: the API version this SDK speaks (2026-10-21) has
// no temperature parameter, and sending one as an extra field would turn
// every CrewAI config that sets it into a 400.
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
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
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
	params, err := p.params(req)
	if err != nil {
		return Response{}, err
	}
	timeout := p.cfg.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var seen responseCapture
	mw := option.WithMiddleware(seen.middleware)
	var r Response
	if req.Stream {
		r, err = p.stream(ctx, params, mw, &seen, onChunk)
	} else {
		// WithRequestTimeout also skips the SDK's "streaming is required"
		// check for large max_tokens; the context deadline is what bounds
		// the call.
		var msg *anthropic.Message
		if msg, err = p.svc.New(ctx, params, mw, option.WithRequestTimeout(timeout)); err != nil {
			return Response{}, p.classify(ctx, err, &seen)
		}
		r, err = p.fromMessage(msg)
	}
	if err != nil {
		return r, err
	}
	// CrewAI's Anthropic provider sends the stop sequences and cuts at them
	// client-side too (llms/providers/anthropic/completion.py:517, 1090).
	return applyStopWordsTo(req, r), nil
}

func (p *anthropicProvider) params(req Request) (anthropic.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	params := anthropic.MessageNewParams{Model: model, MaxTokens: AnthropicDefaultMaxTokens}
	if req.MaxTokens > 0 {
		params.MaxTokens = int64(req.MaxTokens)
	} else if p.cfg.MaxTokens > 0 && !req.Bare {
		params.MaxTokens = int64(p.cfg.MaxTokens)
	}
	sys, msgs, err := anthropicMessages(req.Messages)
	if err != nil {
		return params, &Error{Kind: KindBadRequest, Provider: ProviderAnthropic, Model: p.model, Message: err.Error()}
	}
	params.System, params.Messages = sys, msgs
	for _, t := range req.Tools {
		tp, err := anthropicTool(t)
		if err != nil {
			return params, &Error{Kind: KindBadRequest, Provider: ProviderAnthropic, Model: p.model, Message: err.Error()}
		}
		params.Tools = append(params.Tools, tp)
	}
	if len(req.Stop) > 0 {
		params.StopSequences = req.Stop
	}
	if req.ToolChoice != "" {
		params.ToolChoice = anthropic.ToolChoiceParamOfTool(req.ToolChoice)
	}
	return params, nil
}

// anthropicMessages maps the neutral messages to the Messages API: system
// messages become the system parameter, assistant tool calls tool_use
// blocks, and each run of tool messages one user message of tool_result
// blocks (a user message right after the results joins it, so turns keep
// alternating).
func anthropicMessages(msgs []Message) ([]anthropic.TextBlockParam, []anthropic.MessageParam, error) {
	var (
		sys []anthropic.TextBlockParam
		out []anthropic.MessageParam
		// results is the open user message collecting tool results.
		results *anthropic.UserMessageParam
	)
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			sys = append(sys, anthropic.TextBlockParam{Text: m.Content})
		case RoleUser:
			if results != nil {
				results.Content = append(results.Content, anthropic.NewTextBlock(m.Content))
				results = nil
				continue
			}
			out = append(out, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		case RoleAssistant:
			results = nil
			// An SDK dump of a reply with no content blocks stays an empty
			// list (instructor's reask_anthropic_tools re-sends
			// response.content as it came).
			blocks := []anthropic.ContentBlockParamUnion{}
			if m.Content != "" || len(m.ToolCalls) == 0 && !m.SDKDump {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, toolUseInput(tc.Arguments), tc.Name))
			}
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		case RoleTool:
			block := anthropic.ContentBlockParamUnion{OfToolResult: &anthropic.ToolResultBlockParam{
				ToolUseID: m.ToolCallID,
				Content:   []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: m.Content}}},
			}}
			if results == nil {
				out = append(out, anthropic.NewUserMessage(block))
				results = out[len(out)-1].OfUser
				continue
			}
			results.Content = append(results.Content, block)
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return sys, out, nil
}

// toolUseInput is a tool call's arguments as a tool_use input. The Messages
// API only accepts an object; arguments that are not a JSON object (a
// recorded OpenAI reply with broken JSON, say) are sent as {} — the tool
// message that follows already tells the model what went wrong.
func toolUseInput(args string) json.RawMessage {
	trimmed := strings.TrimSpace(args)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	return json.RawMessage(`{}`)
}

// anthropicTool maps CrewAI's function schema to input_schema as the SDK
// writes one: properties, required, type, then every other top-level key
// (additionalProperties, $defs, …) in the schema's own order. The SDK's
// ExtraFields is a map, which it writes in random order, so the object is
// built here and given to the SDK whole.
func anthropicTool(t Tool) (anthropic.ToolUnionParam, error) {
	var in anthropic.ToolInputSchemaParam
	if len(t.Parameters) > 0 {
		raw, err := inputSchemaJSON(t.Parameters)
		if err != nil {
			return anthropic.ToolUnionParam{}, fmt.Errorf("tool %q: %v", t.Name, err)
		}
		in = param.Override[anthropic.ToolInputSchemaParam](raw)
	}
	tp := &anthropic.ToolParam{Name: t.Name, InputSchema: in}
	if t.Strict {
		// CrewAI's Anthropic provider sends its tools strict
		// (anthropic/completion.py:577-594).
		tp.Strict = anthropic.Bool(true)
	}
	if t.Description != "" {
		tp.Description = anthropic.String(t.Description)
	}
	return anthropic.ToolUnionParam{OfTool: tp}, nil
}

// inputSchemaJSON is a tool's parameters in input_schema's key order.
func inputSchemaJSON(params json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(params))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("parameters are not a JSON object")
	}
	fields := map[string]json.RawMessage{}
	var extras []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("parameters are not a JSON object: %v", err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("parameters are not a JSON object: %v", err)
		}
		if _, seen := fields[key]; !seen && key != "properties" && key != "required" && key != "type" {
			extras = append(extras, key)
		}
		fields[key] = v
	}
	if r, ok := fields["required"]; ok {
		var names []string
		if err := json.Unmarshal(r, &names); err != nil {
			return nil, fmt.Errorf("required is not a list of names: %v", err)
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	write := func(key string, v json.RawMessage) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		val, err := json.Marshal(v) // compacted and escaped as the SDK writes values
		if err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
		return nil
	}
	for _, key := range []string{"properties", "required"} {
		if v, ok := fields[key]; ok {
			if err := write(key, v); err != nil {
				return nil, err
			}
		}
	}
	// Always "object"; the SDK writes it whatever the schema says.
	if err := write("type", json.RawMessage(`"object"`)); err != nil {
		return nil, err
	}
	for _, key := range extras {
		if err := write(key, fields[key]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
		Usage:        anthropicUsage(m.Usage.InputTokens, m.Usage.OutputTokens),
	}
	var text strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	r.Content = text.String()
	return r, nil
}

func anthropicUsage(in, out int64) Usage {
	return Usage{PromptTokens: int(in), CompletionTokens: int(out), TotalTokens: int(in + out)}
}

func (p *anthropicProvider) stream(ctx context.Context, params anthropic.MessageNewParams, mw option.RequestOption, seen *responseCapture, onChunk func(Chunk)) (Response, error) {
	s := p.svc.NewStreaming(ctx, params, mw)
	defer s.Close()
	var (
		r         Response
		text      strings.Builder
		calls     []*toolCallBuilder
		slotOf    = map[int64]int{} // content block index → position in calls
		in, out   int64
		started   bool
		completed bool
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
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.id, Name: b.name, Arguments: args})
	}
	r.Usage = anthropicUsage(in, out)
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
