package llm

import (
	"context"
	"crewbench/crew/filelimit"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Scripted is the scripted LLM: a Provider that answers from a Script (see
// [Script] for the format). It is safe for concurrent use; concurrent calls
// for the same conversation get consecutive replies.
type Scripted struct {
	script *Script
	mu     sync.Mutex
	next   []int // per conversation: index of the next reply
}

// NewScripted returns a provider serving s.
func NewScripted(s *Script) *Scripted {
	return &Scripted{script: s, next: make([]int, len(s.Conversations))}
}

func newScriptedFromConfig(cfg Config, path string) (*Scripted, error) {
	data := cfg.Script
	name := path
	if data == nil {
		if path == "" {
			return nil, configError(ProviderScripted, "scripted: needs a script file (scripted:FILE)")
		}
		b, err := filelimit.Read(cfg.path(path), filelimit.Script)
		if err != nil {
			return nil, &Error{Kind: KindConfig, Provider: ProviderScripted, Message: fmt.Sprintf("reading the script: %v", err), Err: err}
		}
		data = b
	}
	if name == "" {
		name = "<embedded script>"
	}
	s, err := ParseScript(name, data)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Provider: ProviderScripted, Message: "invalid script:\n" + err.Error(), Err: err}
	}
	return NewScripted(s), nil
}

// Model implements Provider.
func (s *Scripted) Model() string { return s.script.Model }

// SupportsFunctionCalling implements Provider; the script's
// function_calling setting (default true).
func (s *Scripted) SupportsFunctionCalling() bool { return s.script.FunctionCalling }

// ServesInOrder is true: a conversation's replies go to its calls in the
// order they come (see [ServesInOrder]).
func (s *Scripted) ServesInOrder() bool { return true }

// Unserved describes replies no call has consumed, one line per
// conversation, so a test can insist the whole script was used.
func (s *Scripted) Unserved() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, c := range s.script.Conversations {
		if left := len(c.Replies) - s.next[i]; left > 0 {
			out = append(out, fmt.Sprintf("%s:%d: %s: %d of %d replies not used", s.script.Name, c.Line, describeKey(c.Agent, c.Task), left, len(c.Replies)))
		}
	}
	return out
}

// pick chooses the conversation for meta and consumes its next reply.
func (s *Scripted) pick(meta CallMeta) (conv int, turn int, r *Reply, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	conv = s.match(meta)
	if conv < 0 {
		var have []string
		for _, c := range s.script.Conversations {
			have = append(have, fmt.Sprintf("%s (line %d)", describeKey(c.Agent, c.Task), c.Line))
		}
		return -1, 0, nil, s.fail(fmt.Sprintf("no conversation for agent %q, task %q; the script has: %s", meta.AgentRole, meta.TaskName, strings.Join(have, "; ")))
	}
	c := s.script.Conversations[conv]
	turn = s.next[conv] + 1
	if turn > len(c.Replies) {
		return conv, turn, nil, s.fail(fmt.Sprintf("the script ran out of replies: agent %q, task %q asked for turn %d, but the conversation for %s at %s:%d has only %d", meta.AgentRole, meta.TaskName, turn, describeKey(c.Agent, c.Task), s.script.Name, c.Line, len(c.Replies)))
	}
	s.next[conv]++
	return conv, turn, c.Replies[turn-1], nil
}

// match returns the most specific conversation for meta, or -1.
func (s *Scripted) match(meta CallMeta) int {
	agent, task := strings.TrimSpace(meta.AgentRole), strings.TrimSpace(meta.TaskName)
	for _, want := range [][2]string{{agent, task}, {"", task}, {agent, ""}, {"", ""}} {
		for i, c := range s.script.Conversations {
			if keyMatches(c, want[0], want[1]) {
				return i
			}
		}
	}
	return -1
}

// keyMatches: the conversation's key is exactly (agent, task), where ""
// means "not given".
func keyMatches(c *Conversation, agent, task string) bool {
	return strings.EqualFold(c.Agent, agent) && strings.EqualFold(c.Task, task)
}

func (s *Scripted) fail(msg string) *Error {
	return &Error{Kind: KindScript, Provider: ProviderScripted, Model: s.script.Model, Message: msg}
}

// Call implements Provider.
func (s *Scripted) Call(ctx context.Context, req Request, onChunk func(Chunk)) (Response, error) {
	conv, turn, r, err := s.pick(req.Meta)
	if err != nil {
		return Response{}, err
	}
	where := fmt.Sprintf("%s:%d", s.script.Name, r.Line)
	if r.Expect != nil {
		if msg := r.Expect.check(req); msg != "" {
			return Response{}, s.fail(fmt.Sprintf("the reply at %s (agent %q, task %q, turn %d) expected %s", where, req.Meta.AgentRole, req.Meta.TaskName, turn, msg))
		}
	}
	if err := s.sleep(ctx, r.Delay); err != nil {
		return Response{}, err
	}
	if r.Err != nil {
		return Response{}, &Error{
			Kind: r.Err.Kind, Status: r.Err.Status, RetryAfter: r.Err.RetryAfter, Code: r.Err.Code,
			Provider: ProviderScripted, Model: s.script.Model, Message: r.Err.Message,
		}
	}
	// A stop sequence ends the reply with finish reason "stop", as a real
	// API would.
	content := cutAtStop(r.Content, req.Stop)
	resp := Response{
		Content:      content,
		FinishReason: r.FinishReason,
		ResponseID:   fmt.Sprintf("scripted-%d-%d", conv+1, turn),
		Model:        s.script.Model,
	}
	for i, tc := range r.ToolCalls {
		if tc.ID == "" {
			// Deterministic ids, whatever order concurrent agents call in.
			tc.ID = fmt.Sprintf("call_%d_%d_%d", conv+1, turn, i+1)
		}
		resp.ToolCalls = append(resp.ToolCalls, tc)
	}
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
		if len(resp.ToolCalls) > 0 {
			resp.FinishReason = "tool_calls"
		}
	}
	if r.Usage != nil {
		resp.Usage = *r.Usage
	} else {
		resp.Usage = estimateUsage(req, resp)
	}
	if req.Stream {
		if err := s.stream(ctx, r, resp, onChunk); err != nil {
			return Response{}, err
		}
	}
	return resp, nil
}

// stream delivers resp in pieces: the reply's chunks if it has them (cut
// like the content), else chunk_size pieces (one piece when 0).
func (s *Scripted) stream(ctx context.Context, r *Reply, resp Response, onChunk func(Chunk)) error {
	var pieces []string
	if r.Chunks != nil {
		left := len(resp.Content)
		for _, c := range r.Chunks {
			if left <= 0 {
				break
			}
			if len(c) > left {
				c = c[:left]
			}
			left -= len(c)
			pieces = append(pieces, c)
		}
	} else {
		pieces = splitRunes(resp.Content, r.ChunkSize)
	}
	first := true
	send := func(c Chunk) error {
		if !first {
			if err := s.sleep(ctx, r.ChunkDelay); err != nil {
				return err
			}
		}
		first = false
		if onChunk != nil {
			onChunk(c)
		}
		return nil
	}
	for _, p := range pieces {
		if p == "" {
			continue
		}
		if err := send(Chunk{Content: p}); err != nil {
			return err
		}
	}
	for i, tc := range resp.ToolCalls {
		if err := send(Chunk{ToolCall: &ToolCallDelta{Index: i, ID: tc.ID, Name: tc.Name}}); err != nil {
			return err
		}
		for _, a := range splitRunes(tc.Arguments, r.ChunkSize) {
			if err := send(Chunk{ToolCall: &ToolCallDelta{Index: i, Arguments: a}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// sleep waits d or until ctx is done, reporting the latter as a provider
// error (a scripted delay longer than the deadline is a real timeout).
func (s *Scripted) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		if err := ctx.Err(); err != nil {
			return transportError(ctx, ProviderScripted, s.script.Model, err, nil, nil)
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return transportError(ctx, ProviderScripted, s.script.Model, ctx.Err(), nil, nil)
	}
}

// splitRunes cuts s into pieces of n runes; n <= 0 gives one piece.
func splitRunes(s string, n int) []string {
	if s == "" {
		return nil
	}
	if n <= 0 {
		return []string{s}
	}
	var out []string
	r := []rune(s)
	for len(r) > n {
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return append(out, string(r))
}

// cutAtStop truncates text at the earliest stop sequence, as the APIs do
// (the stop sequence itself is not returned).
func cutAtStop(text string, stop []string) string {
	cut := -1
	for _, s := range stop {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return text
	}
	return text[:cut]
}

// estimateUsage gives plausible, deterministic token counts (about four
// characters per token) when a reply does not state them.
func estimateUsage(req Request, resp Response) Usage {
	var in, out int
	for _, m := range req.Messages {
		in += len(m.Content)
		for _, tc := range m.ToolCalls {
			in += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	out = len(resp.Content)
	for _, tc := range resp.ToolCalls {
		out += len(tc.Name) + len(tc.Arguments)
	}
	u := Usage{PromptTokens: (in + 3) / 4, CompletionTokens: (out + 3) / 4}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// check returns "" when req meets e, else what was expected and found.
func (e *Expectation) check(req Request) string {
	var last Message
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	if e.Role != "" && last.Role != e.Role {
		return fmt.Sprintf("the last message to be a %s message, but it is a %q message", e.Role, last.Role)
	}
	for _, want := range e.Contains {
		if !strings.Contains(last.Content, want) {
			return fmt.Sprintf("the last message (%s) to contain %q; it reads %q", last.Role, want, excerpt(last.Content, 200))
		}
	}
	if e.HasTools {
		var got []string
		for _, t := range req.Tools {
			got = append(got, t.Name)
		}
		want := append([]string(nil), e.Tools...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			return fmt.Sprintf("tools [%s] to be offered, got [%s]", strings.Join(want, ", "), strings.Join(got, ", "))
		}
	}
	return ""
}
