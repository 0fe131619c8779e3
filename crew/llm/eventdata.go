package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The session contract for LLM calls.
//
// The engine emits, for every Provider.Call, an llm_call_started event and
// then exactly one of llm_call_completed or llm_call_failed, with Data built
// by StartedEventData, CompletedEventData and FailedEventData and the
// event's AgentRole and TaskName set. The replay provider (NewReplay) reads
// those events back, so these keys are a contract; they follow CrewAI's
// event fields (crewai-formats.md §6.2) where CrewAI has them:
//
//	llm_call_started:
//	  call_id        string   CallMeta.CallID
//	  model          string
//	  messages       []msg    the request messages (below)
//	  tools          []tool   {"type":"function","function":{name,description,parameters,strict}}
//	  stop_sequences []string
//	  temperature    number   (only when set)
//	  max_tokens     int      (only when set)
//	  stream         bool
//	  server_url     string   the provider's base URL without credentials
//	                          (only for providers with a server; on every
//	                          llm_call_* event)
//	llm_call_completed:
//	  call_id, model, messages   as above (messages again, so one event suffices)
//	  response       string   the text content (CrewAI's field; "" for pure tool calls)
//	  tool_calls     []call   [{"id","type":"function","function":{"name","arguments"}}]
//	  call_type      string   "tool_call" when tool_calls is non-empty, else "llm_call"
//	  usage          object   {prompt_tokens, completion_tokens, total_tokens}
//	  finish_reason  string
//	  response_id    string
//	llm_call_failed:
//	  call_id, model, messages   as above
//	  error          string   the error text (CrewAI's field)
//	  error_kind     string   the ErrorKind
//	  status         int      HTTP status (0 if none)
//	  retry_after_ms int      (only when set)
//	  code           string   (only when set)
//
// A message is {"role","content"} plus "tool_calls" (same shape as above) on
// assistant messages, and "tool_call_id" and "name" on tool messages: the
// OpenAI chat format CrewAI itself records.
//
// The reader is tolerant: "response" may also be an object {content,
// tool_calls} or a list of tool calls; a tool call's id may be under
// call_id, id or toolUseId (crewai-semantics.md §5.2); usage may use
// input_tokens/output_tokens or prompt_token_count/candidates_token_count;
// an llm_call_completed without messages borrows them from the
// llm_call_started with the same call_id.

// wireToolCall is a tool call in the recorded (OpenAI chat) form.
type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func toWireToolCalls(calls []ToolCall) []wireToolCall {
	out := make([]wireToolCall, 0, len(calls))
	for _, c := range calls {
		var w wireToolCall
		w.ID, w.Type = c.ID, "function"
		w.Function.Name, w.Function.Arguments = c.Name, c.Arguments
		out = append(out, w)
	}
	return out
}

// WireMessages renders messages in the OpenAI chat form used in events.
func WireMessages(msgs []Message) []map[string]any {
	out := make([]map[string]any, 0, len(msgs))
	for _, m := range msgs {
		w := map[string]any{"role": string(m.Role), "content": m.Content}
		if len(m.ToolCalls) > 0 {
			w["tool_calls"] = toWireToolCalls(m.ToolCalls)
		}
		if m.ToolCallID != "" {
			w["tool_call_id"] = m.ToolCallID
		}
		if m.Name != "" {
			w["name"] = m.Name
		}
		if m.CacheBreakpoint {
			// The event carries the executor's own dicts, mark included
			// (mark_cache_breakpoint; _emit_call_started_event gets the
			// messages before _format_messages drops the key).
			w["cache_breakpoint"] = true
		}
		out = append(out, w)
	}
	return out
}

// WireTools renders tools in CrewAI's function-schema form.
func WireTools(tools []Tool) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, wireTool(t))
	}
	return out
}

// StartedEventData is the Data of an llm_call_started event.
func StartedEventData(model string, req Request) map[string]any {
	d := map[string]any{
		"call_id":  req.Meta.CallID,
		"model":    model,
		"messages": WireMessages(req.Messages),
		"stream":   req.Stream,
	}
	if len(req.Tools) > 0 {
		d["tools"] = WireTools(req.Tools)
	}
	if len(req.Stop) > 0 {
		d["stop_sequences"] = append([]string(nil), req.Stop...)
	}
	if req.Temperature != nil {
		d["temperature"] = *req.Temperature
	}
	if req.MaxTokens > 0 {
		d["max_tokens"] = req.MaxTokens
	}
	return d
}

// CompletedEventData is the Data of an llm_call_completed event.
func CompletedEventData(model string, req Request, resp Response) map[string]any {
	callType := "llm_call"
	if len(resp.ToolCalls) > 0 {
		callType = "tool_call"
	}
	if resp.Model != "" {
		model = resp.Model
	}
	return map[string]any{
		"call_id":    req.Meta.CallID,
		"model":      model,
		"messages":   WireMessages(req.Messages),
		"response":   resp.Content,
		"tool_calls": toWireToolCalls(resp.ToolCalls),
		"call_type":  callType,
		"usage": map[string]any{
			"prompt_tokens":     resp.Usage.PromptTokens,
			"completion_tokens": resp.Usage.CompletionTokens,
			"total_tokens":      resp.Usage.TotalTokens,
		},
		"finish_reason": resp.FinishReason,
		"response_id":   resp.ResponseID,
	}
}

// FailedEventData is the Data of an llm_call_failed event.
func FailedEventData(model string, req Request, err error) map[string]any {
	d := map[string]any{
		"call_id":  req.Meta.CallID,
		"model":    model,
		"messages": WireMessages(req.Messages),
		"error":    errText(err),
	}
	var e *Error
	if errors.As(err, &e) {
		d["error_kind"] = string(e.Kind)
		d["status"] = e.Status
		if e.RetryAfter > 0 {
			d["retry_after_ms"] = e.RetryAfter.Milliseconds()
		}
		if e.Code != "" {
			d["code"] = e.Code
		}
	}
	return d
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// recordedReply decodes the reply side of an llm_call_completed Data.
func recordedReply(data map[string]any) (Response, error) {
	var r Response
	var calls []ToolCall
	switch v := data["response"].(type) {
	case nil:
	case string:
		r.Content = v
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return r, fmt.Errorf("response: %w", err)
		}
		var obj struct {
			Content   *string         `json:"content"`
			ToolCalls json.RawMessage `json:"tool_calls"`
		}
		trimmed := strings.TrimSpace(string(raw))
		switch {
		case strings.HasPrefix(trimmed, "["):
			if calls, err = decodeToolCalls(raw); err != nil {
				return r, fmt.Errorf("response: %w", err)
			}
		case json.Unmarshal(raw, &obj) == nil && (obj.Content != nil || obj.ToolCalls != nil):
			if obj.Content != nil {
				r.Content = *obj.Content
			}
			if len(obj.ToolCalls) > 0 && string(obj.ToolCalls) != "null" {
				if calls, err = decodeToolCalls(obj.ToolCalls); err != nil {
					return r, fmt.Errorf("response.tool_calls: %w", err)
				}
			}
		default:
			// Some other value: CrewAI records str(response).
			r.Content = trimmed
		}
	}
	if v, ok := data["tool_calls"]; ok && v != nil && len(calls) == 0 {
		raw, err := json.Marshal(v)
		if err != nil {
			return r, fmt.Errorf("tool_calls: %w", err)
		}
		if calls, err = decodeToolCalls(raw); err != nil {
			return r, fmt.Errorf("tool_calls: %w", err)
		}
	}
	r.ToolCalls = calls
	r.FinishReason, _ = data["finish_reason"].(string)
	r.ResponseID, _ = data["response_id"].(string)
	r.Model, _ = data["model"].(string)
	r.Usage = recordedUsage(data["usage"])
	return r, nil
}

// decodeToolCalls reads a list of tool calls in OpenAI's shape, or flat
// {id|call_id|toolUseId, name, arguments|input}.
func decodeToolCalls(raw []byte) ([]ToolCall, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("want a list of tool calls: %w", err)
	}
	var out []ToolCall
	for i, it := range items {
		var tc ToolCall
		for _, k := range []string{"call_id", "id", "toolUseId"} {
			if s := jsonString(it[k]); s != "" {
				tc.ID = s
				break
			}
		}
		fn := it
		if f, ok := it["function"]; ok {
			if err := json.Unmarshal(f, &fn); err != nil {
				return nil, fmt.Errorf("tool call %d: function: %w", i, err)
			}
		}
		tc.Name = jsonString(fn["name"])
		args, ok := fn["arguments"]
		if !ok {
			args = fn["input"]
		}
		if s, isString := jsonStringOK(args); isString {
			tc.Arguments = s
		} else if len(args) > 0 {
			tc.Arguments = string(args)
		}
		out = append(out, tc)
	}
	return out, nil
}

func jsonString(raw json.RawMessage) string {
	s, _ := jsonStringOK(raw)
	return s
}

func jsonStringOK(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func recordedUsage(v any) Usage {
	m, ok := v.(map[string]any)
	if !ok {
		raw, err := json.Marshal(v)
		if err != nil || json.Unmarshal(raw, &m) != nil {
			return Usage{}
		}
	}
	num := func(keys ...string) int {
		for _, k := range keys {
			switch n := m[k].(type) {
			case float64:
				return int(n)
			case int:
				return n
			case int64:
				return int(n)
			case json.Number:
				i, _ := n.Int64()
				return int(i)
			}
		}
		return 0
	}
	u := Usage{
		PromptTokens:     num("prompt_tokens", "input_tokens", "prompt_token_count"),
		CompletionTokens: num("completion_tokens", "output_tokens", "candidates_token_count"),
		TotalTokens:      num("total_tokens", "total_token_count"),
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u
}

// recordedMessages decodes a recorded messages list.
func recordedMessages(v any) ([]Message, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var wire []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, fmt.Errorf("want a list of messages: %w", err)
	}
	out := make([]Message, 0, len(wire))
	for i, w := range wire {
		m := Message{Role: Role(jsonString(w["role"])), ToolCallID: jsonString(w["tool_call_id"]), Name: jsonString(w["name"])}
		if c, ok := w["content"]; ok {
			if s, isString := jsonStringOK(c); isString {
				m.Content = s
			} else if string(c) != "null" {
				m.Content = string(c) // structured content: compare as JSON text
			}
		}
		if tc, ok := w["tool_calls"]; ok && string(tc) != "null" {
			calls, err := decodeToolCalls(tc)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			m.ToolCalls = calls
		}
		out = append(out, m)
	}
	return out, nil
}
