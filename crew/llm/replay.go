package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"crewbench/session"
)

// ReplayOptions configures a replay provider.
type ReplayOptions struct {
	// ContinueOnDivergence serves the recorded reply even when the request
	// differs from the recording ("what if" replays after editing a prompt
	// or a tool). Each divergence is then reported to OnDivergence instead
	// of failing the call.
	ContinueOnDivergence bool
	// OnDivergence, if set, hears about every divergence (also when the
	// call fails because of it). It is called from Call's goroutine.
	OnDivergence func(Divergence)
	// Redactor is the one the recording was made with (nil: the
	// recorder's default, session.DefaultRedactor). The recorder wrote
	// prompts redacted, so each request is redacted with it before it is
	// compared: a secret in a prompt (a .env value, a token in a tool
	// result) matches its «redacted» in the recording instead of
	// diverging, and a divergence report never quotes it.
	Redactor *session.Redactor
}

// Divergence says where a conversation left its recording.
type Divergence struct {
	// Call is the 1-based number of the LLM call in the recording.
	Call int
	// Agent and Task are who made that call in the recording.
	Agent, Task string
	// Message is the index of the first differing message, -1 when the
	// difference is in who is calling.
	Message int
	// Role is that message's role (recorded, or current if the recording
	// has fewer messages).
	Role string
	// Field is what differs: "agent", "task", "role", "content",
	// "tool_calls", "tool_call_id", "name", or "count" (one side has more
	// messages).
	Field string
	// Recorded and Got are short excerpts around the difference.
	Recorded, Got string
}

func (d Divergence) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the run diverged from the recording at LLM call %d (agent %q, task %q): ", d.Call, d.Agent, d.Task)
	switch {
	case d.Field == "agent" || d.Field == "task":
		fmt.Fprintf(&b, "the recorded call was made by a different %s", d.Field)
	case d.Field == "count":
		fmt.Fprintf(&b, "message %d (%s) is present on one side only", d.Message, d.Role)
	default:
		fmt.Fprintf(&b, "message %d (%s) differs in %s", d.Message, d.Role, d.Field)
	}
	fmt.Fprintf(&b, "\n  recorded: %s\n  now:      %s", d.Recorded, d.Got)
	return b.String()
}

// recordedCall is one LLM call read from a session.
type recordedCall struct {
	agent, task string
	messages    []Message
	hasMessages bool
	resp        Response
	err         *Error // a recorded failure
	broken      error  // the event could not be decoded
}

// Replay serves the LLM replies recorded in a session, in order (see the
// session contract in eventdata.go). It is safe for concurrent use, but a
// replay is only meaningful when calls happen in the recorded order.
type Replay struct {
	calls []recordedCall
	model string
	fc    bool
	opts  ReplayOptions

	mu          sync.Mutex
	next        int
	divergences []Divergence
}

// NewReplay returns a provider serving the llm_call_completed and
// llm_call_failed events among events, in order. Events of other kinds are
// ignored. SupportsFunctionCalling is true when any recorded request offered
// tools, so the engine takes the recorded path (native or ReAct).
func NewReplay(events []session.Event, opts ReplayOptions) *Replay {
	r := &Replay{opts: opts, model: "replay"}
	started := map[string][]Message{}
	for _, ev := range events {
		// The converter's own calls (crewbench_llm_call_*) are replayed in
		// their place too: the engine makes them through its provider.
		switch session.ScopeKind(ev.Kind) {
		case session.LLMCallStarted:
			if tools, ok := ev.Data["tools"].([]any); ok && len(tools) > 0 {
				r.fc = true
			} else if t := ev.Data["tools"]; t != nil && !isEmptyList(t) {
				r.fc = true
			}
			if id := ev.Str("call_id"); id != "" {
				if msgs, err := recordedMessages(ev.Data["messages"]); err == nil && ev.Data["messages"] != nil {
					started[id] = msgs
				}
			}
		case session.LLMCallCompleted, session.LLMCallFailed:
			r.calls = append(r.calls, decodeCall(ev, started))
			if m := ev.Str("model"); m != "" && r.model == "replay" {
				r.model = m
			}
		}
	}
	return r
}

func isEmptyList(v any) bool {
	raw, err := json.Marshal(v)
	if err != nil {
		return true
	}
	s := strings.TrimSpace(string(raw))
	return s == "[]" || s == "null" || s == ""
}

func decodeCall(ev session.Event, started map[string][]Message) recordedCall {
	c := recordedCall{agent: ev.AgentRole, task: ev.TaskName}
	if v, ok := ev.Data["messages"]; ok && v != nil {
		msgs, err := recordedMessages(v)
		if err != nil {
			c.broken = fmt.Errorf("messages: %w", err)
			return c
		}
		c.messages, c.hasMessages = msgs, true
	} else if msgs, ok := started[ev.Str("call_id")]; ok {
		c.messages, c.hasMessages = msgs, true
	}
	if session.ScopeKind(ev.Kind) == session.LLMCallFailed {
		e := &Error{Provider: ProviderReplay, Model: ev.Str("model"), Kind: ErrorKind(ev.Str("error_kind")),
			Status: int(ev.Int("status")), Code: ev.Str("code"), Message: ev.Str("error")}
		if e.Message == "" {
			e.Message = ev.Error
		}
		if e.Kind == "" {
			e.Kind = ErrorKind(ev.ErrorType)
		}
		if e.Kind == "" {
			e.Kind = KindServer
		}
		if ms := ev.Int("retry_after_ms"); ms > 0 {
			e.RetryAfter = time.Duration(ms) * time.Millisecond
		}
		c.err = e
		return c
	}
	resp, err := recordedReply(ev.Data)
	if err != nil {
		c.broken = err
	}
	c.resp = resp
	return c
}

// Model implements Provider: the model of the first recorded call.
func (r *Replay) Model() string { return r.model }

// SupportsFunctionCalling implements Provider.
func (r *Replay) SupportsFunctionCalling() bool { return r.fc }

// ServesInOrder is true: the recorded replies are served in their order
// (see [ServesInOrder]).
func (r *Replay) ServesInOrder() bool { return true }

// Len is the number of recorded LLM calls.
func (r *Replay) Len() int { return len(r.calls) }

// Served is how many recorded calls have been consumed.
func (r *Replay) Served() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Divergences are the divergences met so far (with ContinueOnDivergence).
func (r *Replay) Divergences() []Divergence {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Divergence(nil), r.divergences...)
}

// Call implements Provider.
func (r *Replay) Call(ctx context.Context, req Request, onChunk func(Chunk)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, transportError(ctx, ProviderReplay, r.model, err, nil, nil)
	}
	live := r.redacted(req)
	r.mu.Lock()
	n := r.next + 1
	if n > len(r.calls) {
		r.mu.Unlock()
		return Response{}, &Error{Kind: KindReplay, Provider: ProviderReplay, Model: r.model,
			Message: fmt.Sprintf("the recording has %d LLM calls and this is call %d (agent %q, task %q): the run went further than the recording", len(r.calls), n, req.Meta.AgentRole, req.Meta.TaskName)}
	}
	rc := r.calls[n-1]
	r.next++
	d := rc.diverges(n, live, r.opts.Redactor)
	if d != nil && r.opts.ContinueOnDivergence {
		r.divergences = append(r.divergences, *d)
	}
	r.mu.Unlock()

	if rc.broken != nil {
		return Response{}, &Error{Kind: KindReplay, Provider: ProviderReplay, Model: r.model,
			Message: fmt.Sprintf("recorded LLM call %d (agent %q, task %q) is unreadable: %v", n, rc.agent, rc.task, rc.broken), Err: rc.broken}
	}
	if d != nil {
		if r.opts.OnDivergence != nil {
			r.opts.OnDivergence(*d)
		}
		if !r.opts.ContinueOnDivergence {
			return Response{}, &Error{Kind: KindReplay, Provider: ProviderReplay, Model: r.model, Message: d.Error(), Err: d}
		}
	}
	if rc.err != nil {
		e := *rc.err
		return Response{}, &e
	}
	resp := rc.resp
	resp.ToolCalls = append([]ToolCall(nil), rc.resp.ToolCalls...)
	if req.Stream && onChunk != nil {
		if resp.Content != "" {
			onChunk(Chunk{Content: resp.Content})
		}
		for i, tc := range resp.ToolCalls {
			onChunk(Chunk{ToolCall: &ToolCallDelta{Index: i, ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}})
		}
	}
	return resp, nil
}

// redacted returns req's who and messages as the recorder would have
// written them: through the same redactor, walked the same way (the
// messages in their recorded form, as RedactEvent walks Data).
func (r *Replay) redacted(req Request) Request {
	red := r.opts.Redactor
	req.Meta.AgentRole = red.RedactString(req.Meta.AgentRole)
	req.Meta.TaskName = red.RedactString(req.Meta.TaskName)
	if len(req.Messages) == 0 {
		return req
	}
	msgs, err := recordedMessages(red.RedactValue("messages", WireMessages(req.Messages)))
	if err != nil {
		// Cannot happen for messages WireMessages built; compare them as
		// they are rather than fail the call.
		return req
	}
	req.Messages = msgs
	return req
}

// diverges compares the (redacted) request with the recording; nil when
// they agree. The recording is redacted with red too, so a recording made
// without redaction (an event stream from elsewhere) still matches.
func (rc recordedCall) diverges(n int, req Request, red *session.Redactor) *Divergence {
	d := &Divergence{Call: n, Agent: rc.agent, Task: rc.task, Message: -1}
	if rc.agent != "" && req.Meta.AgentRole != "" && !strings.EqualFold(strings.TrimSpace(rc.agent), strings.TrimSpace(req.Meta.AgentRole)) {
		d.Field, d.Recorded, d.Got = "agent", quoteExcerpt(rc.agent), quoteExcerpt(req.Meta.AgentRole)
		return d
	}
	if rc.task != "" && req.Meta.TaskName != "" && !strings.EqualFold(strings.TrimSpace(rc.task), strings.TrimSpace(req.Meta.TaskName)) {
		d.Field, d.Recorded, d.Got = "task", quoteExcerpt(rc.task), quoteExcerpt(req.Meta.TaskName)
		return d
	}
	if !rc.hasMessages {
		return nil
	}
	for i := 0; i < len(rc.messages) && i < len(req.Messages); i++ {
		want, got := rc.messages[i], req.Messages[i]
		if want.Content != got.Content {
			want.Content = red.RedactString(want.Content)
		}
		d.Message, d.Role = i, string(want.Role)
		switch {
		case want.Role != got.Role:
			d.Field, d.Recorded, d.Got = "role", string(want.Role), string(got.Role)
		case want.Content != got.Content:
			d.Field = "content"
			d.Recorded, d.Got = diffExcerpts(want.Content, got.Content)
		case want.ToolCallID != got.ToolCallID:
			d.Field, d.Recorded, d.Got = "tool_call_id", quoteExcerpt(want.ToolCallID), quoteExcerpt(got.ToolCallID)
		case want.Name != got.Name:
			d.Field, d.Recorded, d.Got = "name", quoteExcerpt(want.Name), quoteExcerpt(got.Name)
		case !sameCalls(want.ToolCalls, got.ToolCalls, red):
			d.Field = "tool_calls"
			d.Recorded, d.Got = diffExcerpts(red.RedactString(describeCalls(want.ToolCalls)), describeCalls(got.ToolCalls))
		default:
			continue
		}
		return d
	}
	if len(rc.messages) != len(req.Messages) {
		i := min(len(rc.messages), len(req.Messages))
		d.Message, d.Field = i, "count"
		d.Recorded = fmt.Sprintf("%d messages", len(rc.messages))
		d.Got = fmt.Sprintf("%d messages", len(req.Messages))
		if i < len(rc.messages) {
			d.Role = string(rc.messages[i].Role)
			d.Recorded += ", then " + quoteExcerpt(red.RedactString(rc.messages[i].Content))
		} else {
			d.Role = string(req.Messages[i].Role)
			d.Got += ", then " + quoteExcerpt(req.Messages[i].Content)
		}
		return d
	}
	return nil
}

// sameCalls compares recorded tool calls with (redacted) live ones,
// redacting the recorded side too when they differ as they are.
func sameCalls(want, got []ToolCall, red *session.Redactor) bool {
	w, g := describeCalls(want), describeCalls(got)
	return w == g || red.RedactString(w) == g
}

func describeCalls(calls []ToolCall) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, fmt.Sprintf("%s %s(%s)", c.ID, c.Name, c.Arguments))
	}
	return strings.Join(parts, "; ")
}

func quoteExcerpt(s string) string {
	return fmt.Sprintf("%q", excerpt(s, 80))
}

// diffExcerpts shows both texts from a little before their first difference.
func diffExcerpts(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	start := max(0, i-30)
	// Do not cut a UTF-8 sequence in half.
	for start > 0 && start < len(a) && (a[start]&0xC0) == 0x80 {
		start--
	}
	cut := func(s string) string {
		prefix := ""
		if start > 0 {
			prefix = "…"
		}
		if start >= len(s) {
			return fmt.Sprintf("%s(ends after %d bytes)", prefix, len(s))
		}
		return prefix + fmt.Sprintf("%q", excerpt(s[start:], 80))
	}
	return fmt.Sprintf("at byte %d: %s", i, cut(a)), fmt.Sprintf("at byte %d: %s", i, cut(b))
}

func newReplayFromConfig(cfg Config, path string) (*Replay, error) {
	if path == "" {
		return nil, configError(ProviderReplay, "replay: needs a session file (replay:FILE)")
	}
	// session's reader: a torn last line (a crash mid-write) is ignored,
	// any other unreadable line is an error naming it.
	f, err := session.ReadFile(cfg.path(path), session.ReadOptions{})
	if err != nil {
		return nil, &Error{Kind: KindConfig, Provider: ProviderReplay, Message: err.Error(), Err: err}
	}
	r := NewReplay(f.Events, cfg.Replay)
	if r.Len() == 0 {
		return nil, configError(ProviderReplay, fmt.Sprintf("%s records no LLM calls (no llm_call_completed or llm_call_failed events)", path))
	}
	return r, nil
}
