package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"crewbench/session"
)

// recordRun plays a short native run against p and returns the events the
// engine would emit under the contract in eventdata.go, plus the requests.
func recordRun(t *testing.T, p Provider) ([]session.Event, []Request, []Response) {
	t.Helper()
	var events []session.Event
	var reqs []Request
	var resps []Response
	emit := func(kind session.Kind, agent, task string, data map[string]any) {
		events = append(events, session.Event{Kind: kind, AgentRole: agent, TaskName: task, Data: data})
	}
	msgs := []Message{{Role: RoleSystem, Content: "You are Researcher."}, {Role: RoleUser, Content: "\nCurrent Task: find"}}
	tools := []Tool{{Name: "search_web", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	for turn := 1; turn <= 4; turn++ {
		req := Request{Messages: append([]Message(nil), msgs...), Tools: tools, Meta: CallMeta{AgentRole: "Researcher", TaskName: "research", CallID: "c" + string(rune('0'+turn))}}
		emit(session.LLMCallStarted, "Researcher", "research", StartedEventData(p.Model(), req))
		resp, err := p.Call(ctxTimeout(t, 10*time.Second), req, nil)
		if err != nil {
			emit(session.LLMCallFailed, "Researcher", "research", FailedEventData(p.Model(), req, err))
			reqs, resps = append(reqs, req), append(resps, Response{})
			continue // the engine retries the same request
		}
		emit(session.LLMCallCompleted, "Researcher", "research", CompletedEventData(p.Model(), req, resp))
		reqs, resps = append(reqs, req), append(resps, resp)
		if len(resp.ToolCalls) == 0 {
			break
		}
		msgs = append(msgs, Message{Role: RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		for _, tc := range resp.ToolCalls {
			msgs = append(msgs, Message{Role: RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: "result of " + tc.Name})
		}
	}
	return events, reqs, resps
}

const recordScript = `replies:
  - tool_calls: [{name: search_web, arguments: {q: mcp}}, {name: search_web, arguments: '{"q": "broken'}]
  - error: {kind: rate_limit, retry_after: 2s}
  - content: "Final Answer: done"
    usage: {prompt_tokens: 7, completion_tokens: 3}
`

// writeSession writes events as JSONL behind a header line, with a torn
// last line as a crash would leave.
func writeSession(t *testing.T, events []session.Event) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"crewbench_session":1,"started":"2026-11-29T10:00:00Z"}` + "\n")
	for i, ev := range events {
		ev.Seq = int64(i + 1)
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(`{"seq":99,"type":"llm_call_sta`)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReplayServesRecordingInOrder(t *testing.T) {
	events, reqs, resps := recordRun(t, mustScript(t, recordScript))
	if len(reqs) != 3 {
		t.Fatalf("recorded %d calls", len(reqs))
	}
	path := writeSession(t, events)
	p, err := New(Config{Model: "replay:" + filepath.Base(path), Dir: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	if !p.SupportsFunctionCalling() || p.Model() != "scripted" {
		t.Errorf("fc %v model %q", p.SupportsFunctionCalling(), p.Model())
	}
	for i, req := range reqs {
		var log chunkLog
		req.Stream = true
		resp, err := p.Call(ctxTimeout(t, time.Second), req, log.on)
		if i == 1 {
			e := asError(t, err, KindRateLimit)
			if e.RetryAfter != 2*time.Second {
				t.Errorf("recorded retry-after %v", e.RetryAfter)
			}
			continue
		}
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if d := cmp.Diff(resps[i], resp); d != "" {
			t.Errorf("call %d (-recorded +replayed):\n%s", i+1, d)
		}
		if len(log.content)+len(log.calls) == 0 {
			t.Errorf("call %d streamed nothing", i+1)
		}
	}
	_, err = p.Call(ctxTimeout(t, time.Second), reqs[0], nil)
	if e := asError(t, err, KindReplay); !strings.Contains(e.Error(), "the recording has 3 LLM calls and this is call 4") {
		t.Errorf("exhaustion: %v", e)
	}
}

func TestReplayDivergence(t *testing.T) {
	events, reqs, _ := recordRun(t, mustScript(t, recordScript))
	var heard []Divergence
	p := NewReplay(events, ReplayOptions{OnDivergence: func(d Divergence) { heard = append(heard, d) }})
	if _, err := p.Call(ctxTimeout(t, time.Second), reqs[0], nil); err != nil {
		t.Fatal(err)
	}
	// The second request changes one tool result deep in the conversation.
	req := reqs[1]
	req.Messages = append([]Message(nil), req.Messages...)
	req.Messages[3].Content = "result of search_web, edited"
	_, err := p.Call(ctxTimeout(t, time.Second), req, nil)
	e := asError(t, err, KindReplay)
	var d *Divergence
	if !errorsAs(err, &d) {
		t.Fatalf("no *Divergence in %v", err)
	}
	want := Divergence{Call: 2, Agent: "Researcher", Task: "research", Message: 3, Role: "tool", Field: "content",
		Recorded: `at byte 20: "result of search_web"`, Got: `at byte 20: "result of search_web, edited"`}
	if diff := cmp.Diff(want, *d); diff != "" {
		t.Errorf("divergence (-want +got):\n%s", diff)
	}
	for _, s := range []string{"LLM call 2", `agent "Researcher"`, "message 3 (tool) differs in content"} {
		if !strings.Contains(e.Error(), s) {
			t.Errorf("error %q lacks %q", e, s)
		}
	}
	if len(heard) != 1 {
		t.Errorf("OnDivergence heard %d", len(heard))
	}
}

func TestReplayDivergenceKinds(t *testing.T) {
	events, reqs, _ := recordRun(t, mustScript(t, recordScript))
	cases := []struct {
		name  string
		edit  func(r *Request)
		field string
		index int
	}{
		{"other agent", func(r *Request) { r.Meta.AgentRole = "Writer" }, "agent", -1},
		{"other task", func(r *Request) { r.Meta.TaskName = "write" }, "task", -1},
		{"extra message", func(r *Request) { r.Messages = append(r.Messages, Message{Role: RoleUser, Content: "more"}) }, "count", 2},
		{"fewer messages", func(r *Request) { r.Messages = r.Messages[:1] }, "count", 1},
		{"role", func(r *Request) { r.Messages[0].Role = RoleUser }, "role", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewReplay(events, ReplayOptions{})
			req := reqs[0]
			req.Messages = append([]Message(nil), req.Messages...)
			tc.edit(&req)
			_, err := p.Call(ctxTimeout(t, time.Second), req, nil)
			var d *Divergence
			if !errorsAs(err, &d) {
				t.Fatalf("no divergence: %v", err)
			}
			if d.Field != tc.field || d.Message != tc.index {
				t.Errorf("field %q message %d; %v", d.Field, d.Message, d)
			}
		})
	}
}

func TestReplayContinueOnDivergence(t *testing.T) {
	events, reqs, resps := recordRun(t, mustScript(t, recordScript))
	var heard []Divergence
	p := NewReplay(events, ReplayOptions{ContinueOnDivergence: true, OnDivergence: func(d Divergence) { heard = append(heard, d) }})
	req := reqs[0]
	req.Messages = []Message{{Role: RoleSystem, Content: "You are Writer."}, req.Messages[1]}
	resp, err := p.Call(ctxTimeout(t, time.Second), req, nil)
	if err != nil {
		t.Fatalf("what-if replay failed: %v", err)
	}
	if d := cmp.Diff(resps[0], resp); d != "" {
		t.Errorf("served reply (-recorded +got):\n%s", d)
	}
	if len(heard) != 1 || heard[0].Message != 0 || len(p.Divergences()) != 1 {
		t.Errorf("divergences: heard %v, kept %v", heard, p.Divergences())
	}
	if p.Served() != 1 || p.Len() != 3 {
		t.Errorf("served %d of %d", p.Served(), p.Len())
	}
}

func TestReplayTolerantReader(t *testing.T) {
	// Events in CrewAI's own shapes: response as a list of tool calls with
	// call_id, usage with input/output tokens, messages only on the started
	// event.
	events := []session.Event{
		{Kind: session.LLMCallStarted, Data: map[string]any{"call_id": "x1", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "tools": []any{map[string]any{"type": "function"}}}},
		{Kind: session.LLMCallCompleted, Data: map[string]any{"call_id": "x1", "model": "gpt-4o",
			"response": []any{map[string]any{"call_id": "toolu_1", "function": map[string]any{"name": "s", "arguments": map[string]any{"q": 1}}}},
			"usage":    map[string]any{"input_tokens": 5.0, "output_tokens": 2.0}}},
		{Kind: session.LLMCallCompleted, Data: map[string]any{"response": map[string]any{"content": "done", "tool_calls": nil}}},
		{Kind: session.LLMCallFailed, Error: "openai: rate limited", ErrorType: "rate_limit"},
	}
	p := NewReplay(events, ReplayOptions{})
	if !p.SupportsFunctionCalling() || p.Model() != "gpt-4o" {
		t.Errorf("fc %v model %q", p.SupportsFunctionCalling(), p.Model())
	}
	resp, err := p.Call(ctxTimeout(t, time.Second), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Response{ToolCalls: []ToolCall{{ID: "toolu_1", Name: "s", Arguments: `{"q":1}`}}, Model: "gpt-4o", Usage: Usage{5, 2, 7}}
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The second call recorded no messages: nothing to compare, served as is.
	resp, err = p.Call(ctxTimeout(t, time.Second), Request{Messages: []Message{{Role: RoleUser, Content: "anything"}}}, nil)
	if err != nil || resp.Content != "done" {
		t.Fatalf("%+v %v", resp, err)
	}
	_, err = p.Call(ctxTimeout(t, time.Second), Request{}, nil)
	if e := asError(t, err, KindRateLimit); e.Message != "openai: rate limited" {
		t.Errorf("recorded failure %v", e)
	}
}

// The replay provider reads session files with session's reader: a header
// or none (an event stream from --json), blank lines and a torn last line
// are fine; a corrupt line in the middle is a config error naming it.
func TestReplayReadsSessionFiles(t *testing.T) {
	const completed = `{"seq":2,"type":"llm_call_completed","data":{"response":"done"}}`
	for _, tc := range []struct {
		name, text string
		wantErr    string // "" for a provider with one call
	}{
		{"header, blank line, torn last line", `{"crewbench_session":1}` + "\n\n" + `{"seq":1,"type":"task_started"}` + "\n" + completed + "\n" + `{"seq":3,"ty`, ""},
		{"no header", `{"seq":1,"type":"task_started"}` + "\n" + completed + "\n", ""},
		{"corrupt middle line", `{"crewbench_session":1}` + "\n" + completed + "\nnot json\n" + completed + "\n", "line 3"},
		{"not a session", `{"h":1}` + "\n" + completed + "\n", "not a crewbench session file"},
		{"no LLM calls", `{"crewbench_session":1}` + "\n" + `{"seq":1,"type":"task_started"}` + "\n", "records no LLM calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := New(Config{Model: "replay:" + path})
			if tc.wantErr != "" {
				if e := asError(t, err, KindConfig); !strings.Contains(e.Error(), tc.wantErr) {
					t.Errorf("error %q lacks %q", e.Error(), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Call(ctxTimeout(t, time.Second), Request{}, nil)
			if err != nil || resp.Content != "done" {
				t.Errorf("replayed %+v, %v", resp, err)
			}
		})
	}
	_, err := New(Config{Model: "replay:" + filepath.Join(t.TempDir(), "none.jsonl")})
	asError(t, err, KindConfig)
}

// A request that carries a secret (a .env value interpolated into a
// prompt, a token in a tool result) matches its recording, which the
// recorder wrote redacted; the divergence report never quotes the secret.
func TestReplayRedactsTheRequestLikeTheRecorder(t *testing.T) {
	const envSecret = "wx-9f8e7d6c5b4a" // as if from .env: no token shape, only marked
	red := session.NewRedactor(envSecret)
	secretReq := func(city string) Request {
		return Request{Meta: CallMeta{AgentRole: "Researcher", TaskName: "forecast", CallID: "c1"}, Messages: []Message{
			{Role: RoleSystem, Content: "You are Researcher."},
			{Role: RoleUser, Content: "Call the weather API with key " + envSecret + " for " + city},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "t1", Name: "get_forecast", Arguments: `{"city":"` + city + `","api_key":"sk-live-0123456789abcdefghij"}`}}},
			{Role: RoleTool, ToolCallID: "t1", Name: "get_forecast", Content: "sunny; Authorization: Bearer " + envSecret},
		}}
	}
	req := secretReq("Paris")
	var file bytes.Buffer
	rec, err := session.NewRecorder(&file, session.RecorderOptions{Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	rec.Emit(session.Event{Kind: session.LLMCallCompleted, AgentRole: "Researcher", TaskName: "forecast",
		Data: CompletedEventData("gpt-4o", req, Response{Content: "Final Answer: sunny"})})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(file.String(), envSecret) || strings.Contains(file.String(), "sk-live-") {
		t.Fatalf("the recorder wrote a secret:\n%s", file.String())
	}
	f, err := session.Read(&file, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}

	p := NewReplay(f.Events, ReplayOptions{Redactor: red})
	resp, err := p.Call(ctxTimeout(t, time.Second), req, nil)
	if err != nil {
		t.Fatalf("the same request diverged from its redacted recording: %v", err)
	}
	if resp.Content != "Final Answer: sunny" {
		t.Errorf("replayed %q", resp.Content)
	}

	// A real divergence next to the secret is still one, and its report
	// shows the secret redacted.
	p = NewReplay(f.Events, ReplayOptions{Redactor: red})
	_, err = p.Call(ctxTimeout(t, time.Second), secretReq("Lyon"), nil)
	e := asError(t, err, KindReplay)
	var d *Divergence
	if !errors.As(err, &d) || d.Message != 1 || d.Field != "content" {
		t.Fatalf("divergence %+v (%v)", d, err)
	}
	if strings.Contains(e.Error(), envSecret) || !strings.Contains(e.Error(), "Lyon") {
		t.Errorf("divergence report: %v", e)
	}
}

// Whatever a session file holds, reading it and replaying it never panics.
func FuzzReplaySessionFile(f *testing.F) {
	f.Add([]byte("{\"crewbench_session\":1}\n{\"seq\":1,\"type\":\"llm_call_completed\",\"data\":{\"response\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}}\n{\"seq\":2,\"ty"))
	f.Add([]byte("{\"seq\":1,\"type\":\"llm_call_completed\",\"data\":{\"response\":[{\"call_id\":\"a\",\"function\":{\"name\":\"n\",\"arguments\":{}}}],\"usage\":{\"input_tokens\":1}}}\n"))
	f.Add([]byte("{\"seq\":1,\"type\":\"llm_call_failed\",\"data\":{\"error\":\"e\",\"error_kind\":\"rate_limit\",\"retry_after_ms\":5}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := session.Read(bytes.NewReader(data), session.ReadOptions{Lenient: true})
		if err != nil {
			return
		}
		// Whatever was recorded, replaying it must not panic.
		p := NewReplay(sf.Events, ReplayOptions{ContinueOnDivergence: true})
		for range 3 {
			_, _ = p.Call(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "q sk-live-0123456789abcdefghij"}}, Stream: true}, func(Chunk) {})
		}
	})
}
