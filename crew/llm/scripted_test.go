package llm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const demoScript = `# a script covering every reply kind
model: demo-llm
defaults:
  chunk_size: 4
conversations:
  - agent: Senior Researcher
    task: research_task
    replies:
      - tool_calls:
          - name: search_web
            arguments: {query: "MCP servers", limit: 3, tags: [a, b], deep: {x: null, y: true, z: 1.5}}
          - name: fetch_url
            id: my_call
            arguments: '{"url": "http://x'
      - content: |
          Thought: I now know the final answer
          Final Answer: MCP is a protocol.
        usage: {prompt_tokens: 100, completion_tokens: 20}
  - task: research_task
    replies:
      - "Final Answer: from the task-only conversation"
  - agent: Writer
    replies:
      - content: "Thought: use a tool\nAction: serch_web\nAction Input: {\"q\": 1}\nObservation: made up"
      - content: "I have no idea what format to use"
      - error: rate_limit
      - error: {kind: server, status: 503, message: "upstream down", retry_after: 1.5}
      - error: {kind: unsupported_tools}
      - error: {kind: context_length}
      - chunks: ["Final ", "Answer: ", "streamed"]
        chunk_delay: 1ms
      - content: ""
  - replies:
      - content: "catch-all"
        expect: {contains: "Current Task", role: user, tools: []}
`

func mustScript(t *testing.T, src string) *Scripted {
	t.Helper()
	s, err := ParseScript("demo.yaml", []byte(src))
	if err != nil {
		t.Fatalf("ParseScript: %v", err)
	}
	return NewScripted(s)
}

func call(p Provider, agent, task string, mod ...func(*Request)) (Response, error) {
	req := Request{
		Messages: []Message{{Role: RoleSystem, Content: "sys"}, {Role: RoleUser, Content: "\nCurrent Task: x"}},
		Meta:     CallMeta{AgentRole: agent, TaskName: task},
		Stop:     []string{"\nObservation:"},
	}
	for _, f := range mod {
		f(&req)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.Call(ctx, req, nil)
}

func TestScriptedReplies(t *testing.T) {
	p := mustScript(t, demoScript)
	if p.Model() != "demo-llm" || !p.SupportsFunctionCalling() {
		t.Fatalf("model %q fc %v", p.Model(), p.SupportsFunctionCalling())
	}
	type step struct {
		agent, task string
		want        Response
		kind        ErrorKind
		check       func(t *testing.T, r Response, err error)
	}
	steps := []step{
		{agent: "Senior Researcher", task: "research_task", want: Response{
			ToolCalls: []ToolCall{
				{ID: "call_1_1_1", Name: "search_web", Arguments: `{"query":"MCP servers","limit":3,"tags":["a","b"],"deep":{"x":null,"y":true,"z":1.5}}`},
				{ID: "my_call", Name: "fetch_url", Arguments: `{"url": "http://x`},
			},
			FinishReason: "tool_calls", ResponseID: "scripted-1-1", Model: "demo-llm"}},
		// Names match case-insensitively and ignore surrounding whitespace
		// (YAML folded roles end in "\n").
		{agent: "senior researcher\n", task: "Research_Task", want: Response{
			Content:      "Thought: I now know the final answer\nFinal Answer: MCP is a protocol.\n",
			FinishReason: "stop", ResponseID: "scripted-1-2", Model: "demo-llm",
			Usage: Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}},
		// Another agent on research_task: the task-only conversation.
		{agent: "Reviewer", task: "research_task", want: Response{Content: "Final Answer: from the task-only conversation",
			FinishReason: "stop", ResponseID: "scripted-2-1", Model: "demo-llm"}},
		// The stop word cuts the hallucinated observation, as a real API would.
		{agent: "Writer", task: "write", want: Response{Content: "Thought: use a tool\nAction: serch_web\nAction Input: {\"q\": 1}",
			FinishReason: "stop", ResponseID: "scripted-3-1", Model: "demo-llm"}},
		{agent: "Writer", task: "edit", want: Response{Content: "I have no idea what format to use",
			FinishReason: "stop", ResponseID: "scripted-3-2", Model: "demo-llm"}},
		{agent: "Writer", kind: KindRateLimit, check: func(t *testing.T, _ Response, err error) {
			e := asError(t, err, KindRateLimit)
			if e.Status != 429 {
				t.Errorf("status %d", e.Status)
			}
		}},
		{agent: "Writer", kind: KindServer, check: func(t *testing.T, _ Response, err error) {
			e := asError(t, err, KindServer)
			if e.Status != 503 || e.RetryAfter != 1500*time.Millisecond || !strings.Contains(err.Error(), "upstream down") {
				t.Errorf("error %+v", e)
			}
		}},
		{agent: "Writer", kind: KindUnsupportedTools, check: func(t *testing.T, _ Response, err error) {
			if !IsToolsUnsupported(err) {
				t.Errorf("the default unsupported_tools message does not trigger the ReAct fallback: %v", err)
			}
		}},
		{agent: "Writer", kind: KindContextLength},
		{agent: "Writer", want: Response{Content: "Final Answer: streamed", FinishReason: "stop", ResponseID: "scripted-3-7", Model: "demo-llm"}},
		{agent: "Writer", want: Response{Content: "", FinishReason: "stop", ResponseID: "scripted-3-8", Model: "demo-llm"}},
		{agent: "Nobody", task: "other", want: Response{Content: "catch-all", FinishReason: "stop", ResponseID: "scripted-4-1", Model: "demo-llm"}},
	}
	for i, st := range steps {
		resp, err := call(p, st.agent, st.task)
		if st.check != nil {
			st.check(t, resp, err)
			continue
		}
		if st.kind != "" {
			asError(t, err, st.kind)
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if st.want.Usage == (Usage{}) {
			if resp.Usage.TotalTokens == 0 || resp.Usage.PromptTokens == 0 {
				t.Errorf("step %d: no estimated usage: %+v", i, resp.Usage)
			}
			resp.Usage = Usage{}
		}
		if d := cmp.Diff(st.want, resp); d != "" {
			t.Errorf("step %d (-want +got):\n%s", i, d)
		}
	}
	if left := p.Unserved(); len(left) != 0 {
		t.Errorf("unserved: %v", left)
	}
	// Every conversation is used up now: the next call says who ran out.
	_, err := call(p, "Writer", "write")
	e := asError(t, err, KindScript)
	for _, want := range []string{`agent "Writer"`, `task "write"`, "turn 9", "demo.yaml:", "has only 8"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("exhaustion error %q lacks %q", e, want)
		}
	}
}

func TestScriptedNoMatchAndFunctionCalling(t *testing.T) {
	p := mustScript(t, "function_calling: false\nconversations:\n  - agent: A\n    replies: [x]\n")
	if p.SupportsFunctionCalling() {
		t.Error("function_calling: false ignored")
	}
	_, err := call(p, "B", "t")
	e := asError(t, err, KindScript)
	if !strings.Contains(e.Error(), `no conversation for agent "B", task "t"`) || !strings.Contains(e.Error(), `agent "A" (any task) (line 3)`) {
		t.Errorf("no-match error: %v", e)
	}
}

func TestScriptedStreaming(t *testing.T) {
	p := mustScript(t, `
defaults: {chunk_size: 5}
replies:
  - content: "Thought: go\nObservation: hallucinated"
  - chunks: ["Thought: x", "\nObserv", "ation: no"]
  - tool_calls: [{name: search, arguments: {q: "abcdefgh"}}]
    chunk_size: 6
`)
	var log chunkLog
	ctx := ctxTimeout(t, 10*time.Second)
	req := Request{Stream: true, Stop: []string{"\nObservation:"}}
	resp, err := p.Call(ctx, req, log.on)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Thoug", "ht: g", "o"}, log.content); d != "" || resp.Content != "Thought: go" {
		t.Errorf("content %q chunks (-want +got):\n%s", resp.Content, d)
	}
	log = chunkLog{}
	if resp, err = p.Call(ctx, req, log.on); err != nil {
		t.Fatal(err)
	}
	// Scripted chunks are cut at the stop word like the content.
	if d := cmp.Diff([]string{"Thought: x"}, log.content); d != "" || resp.Content != "Thought: x" {
		t.Errorf("content %q chunks (-want +got):\n%s", resp.Content, d)
	}
	log = chunkLog{}
	if _, err := p.Call(ctx, req, log.on); err != nil {
		t.Fatal(err)
	}
	want := []ToolCallDelta{
		{Index: 0, ID: "call_1_3_1", Name: "search"},
		{Index: 0, Arguments: `{"q":"`}, {Index: 0, Arguments: `abcdef`}, {Index: 0, Arguments: `gh"}`},
	}
	if d := cmp.Diff(want, log.calls); d != "" {
		t.Errorf("tool deltas (-want +got):\n%s", d)
	}
}

func TestScriptedDelayHonoursDeadline(t *testing.T) {
	p := mustScript(t, "replies:\n  - content: slow\n    delay: 1m\n")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Call(ctx, Request{}, nil)
	asError(t, err, KindTimeout)
	if time.Since(start) > 5*time.Second {
		t.Errorf("delay ignored the deadline: %v", time.Since(start))
	}
}

func TestScriptedExpectations(t *testing.T) {
	src := `replies:
  - content: ok
    expect: {contains: ["Observation: 42"], role: user, tools: [a, b]}
  - content: ok
    expect: {role: tool}
  - content: ok
    expect: {tools: [a]}
`
	p := mustScript(t, src)
	req := Request{
		Messages: []Message{{Role: RoleUser, Content: "Thought\nObservation: 42"}},
		Tools:    []Tool{{Name: "b"}, {Name: "a"}},
	}
	ctx := ctxTimeout(t, 10*time.Second)
	if _, err := p.Call(ctx, req, nil); err != nil {
		t.Fatalf("met expectation failed: %v", err)
	}
	_, err := p.Call(ctx, req, nil)
	if e := asError(t, err, KindScript); !strings.Contains(e.Error(), "demo.yaml:4") || !strings.Contains(e.Error(), "tool message") {
		t.Errorf("role expectation error: %v", e)
	}
	_, err = p.Call(ctx, req, nil)
	if e := asError(t, err, KindScript); !strings.Contains(e.Error(), "tools [a] to be offered, got [a, b]") {
		t.Errorf("tools expectation error: %v", e)
	}
}

func TestScriptedConcurrentCallsGetDistinctReplies(t *testing.T) {
	var b strings.Builder
	b.WriteString("replies:\n")
	const n = 50
	for i := range n {
		fmt.Fprintf(&b, "  - \"reply %d\"\n", i)
	}
	p := mustScript(t, b.String())
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := p.Call(context.Background(), Request{}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			seen[r.Content] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("%d distinct replies for %d calls", len(seen), n)
	}
}

func TestScriptedViaNew(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("replies: [hello]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Model: "scripted:s.yaml", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := call(p, "", ""); err != nil || r.Content != "hello" {
		t.Fatalf("%+v %v", r, err)
	}
	p, err = New(Config{Model: "scripted:", Script: []byte("replies: [embedded]\n")})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := call(p, "", ""); err != nil || r.Content != "embedded" {
		t.Fatalf("%+v %v", r, err)
	}
	_, err = New(Config{Model: "scripted:missing.yaml", Dir: dir})
	asError(t, err, KindConfig)
	_, err = New(Config{Model: "scripted:bad.yaml", Script: []byte("replies:\n  - contnet: x\n")})
	e := asError(t, err, KindConfig)
	if !strings.Contains(e.Error(), `bad.yaml:2:5: replies[0]: unknown field "contnet" (did you mean "content"?)`) {
		t.Errorf("config error: %v", e)
	}
}

func TestScriptParseErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"empty", "", "s.yaml: the script is empty"},
		{"yaml syntax", "replies: [a\n", "s.yaml: line"},
		{"not a mapping", "- a\n", "s.yaml:1:1: want a mapping"},
		{"unknown top-level", "replys: [a]\n", `s.yaml:1:1: unknown field "replys" (did you mean "replies"?)`},
		{"no conversations", "model: x\n", "s.yaml:1:1: the script has no conversations"},
		{"conversations not a list", "conversations: {agent: a}\n", "s.yaml:1:16: conversations: want a list of conversations"},
		{"missing replies", "conversations:\n  - agent: a\n", "s.yaml:2:5: conversations[0]: missing replies"},
		{"empty replies", "conversations:\n  - agent: a\n    replies: []\n", "s.yaml:3:14: conversations[0].replies: the list is empty"},
		{"duplicate conversation", "conversations:\n  - agent: A\n    replies: [x]\n  - agent: ' a '\n    replies: [y]\n", `s.yaml:4:1: a second conversation for agent "a" (any task) (the first is at line 2)`},
		{"duplicate key", "replies:\n  - content: a\n    content: b\n", `s.yaml:3:5: replies[0].content: duplicate key`},
		{"reply without substance", "replies:\n  - delay: 1s\n", "s.yaml:2:5: replies[0]: a reply needs content, chunks, tool_calls or error"},
		{"null content", "replies:\n  - content:\n", `s.yaml:2:13: replies[0].content: content is empty; write content: "" for an empty reply`},
		{"content and chunks", "replies:\n  - content: a\n    chunks: [b]\n", "s.yaml:3:13: replies[0].chunks: use either content or chunks"},
		{"error with content", "replies:\n  - content: a\n    error: server\n", "s.yaml:3:12: replies[0].error: an error reply cannot also have content"},
		{"unknown error kind", "replies:\n  - error: {kind: ratelimit}\n", `s.yaml:2:19: replies[0].error.kind: unknown error kind "ratelimit" (want one of auth, bad_request, context_length, malformed_response, network, rate_limit, server, timeout, unsupported_tools)`},
		{"error without kind", "replies:\n  - error: {status: 500}\n", "s.yaml:2:12: replies[0].error: missing kind"},
		{"unsupported_tools without phrase", "replies:\n  - error: {kind: unsupported_tools, message: nope}\n", "replies[0].error.message: an unsupported_tools message must contain one of CrewAI's phrases"},
		{"tool call without name", "replies:\n  - tool_calls: [{arguments: {}}]\n", "s.yaml:2:18: replies[0].tool_calls[0]: missing name"},
		{"tool_calls not a list", "replies:\n  - tool_calls: {name: x}\n", "s.yaml:2:17: replies[0].tool_calls: want a list of tool calls"},
		{"bad duration", "replies:\n  - content: a\n    delay: soon\n", `s.yaml:3:12: replies[0].delay: want a duration like 500ms, 2s or 1.5 (seconds), got "soon"`},
		{"negative chunk size", "defaults: {chunk_size: -1}\nreplies: [a]\n", "s.yaml:1:24: defaults.chunk_size: want a whole number ≥ 0"},
		{"bad function_calling", "function_calling: maybe\nreplies: [a]\n", `s.yaml:1:19: function_calling: want true or false, got "maybe"`},
		{"bad expect role", "replies:\n  - content: a\n    expect: {role: robot}\n", `s.yaml:3:20: replies[0].expect.role: unknown role "robot"`},
		{"infinite argument", "replies:\n  - tool_calls: [{name: a, arguments: {x: .inf}}]\n", "replies[0].tool_calls[0].arguments: line 2: .inf is not a JSON number"},
		{"unknown usage field", "replies:\n  - content: a\n    usage: {tokens: 3}\n", `s.yaml:3:13: replies[0].usage: unknown field "tokens"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScript("s.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error for:\n%s", tc.src)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Errorf("not a *ScriptError: %T", err)
			}
		})
	}
}

func TestScriptParseReportsSeveralProblems(t *testing.T) {
	_, err := ParseScript("s.yaml", []byte("replies:\n  - contnet: a\n  - error: nope\n  - delay: x\n"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"s.yaml:2:5", "s.yaml:3:12", "s.yaml:4:12"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
}

func TestScriptAliasBombIsBounded(t *testing.T) {
	src := `a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
`
	_, err := ParseScript("bomb.yaml", []byte(src+"replies:\n  - tool_calls: [{name: t, arguments: {v: *f}}]\n"))
	if err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains(err.Error(), "too large") && !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("unexpected error: %v", err)
	}
}

// maxFuzzScript bounds FuzzParseScript's inputs.
const maxFuzzScript = 1 << 10

// FuzzParseScript's seeds are one feature each, a line or three: the
// engine minimizes every input that finds new coverage, and shrinking the
// 1.3 KB demo script (milliseconds of YAML per run) took the whole fuzzing
// time. Inputs over maxFuzzScript are skipped for the same reason.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"model: m\nreplies: [\"Final Answer: x\"]\n",
		"defaults: {chunk_size: 4, delay: 1ms}\nreplies: [{chunks: [a, b], chunk_delay: 1ms}]\n",
		"conversations:\n  - agent: A\n    task: t\n    replies: [x]\n  - task: t\n    replies: [y]\n",
		"replies:\n  - content: \"\"\n    usage: {prompt_tokens: 1, completion_tokens: 2}\n",
		"replies: [{error: {kind: context_length}}, {error: unsupported_tools}]\n",
		"replies: [{tool_calls: [{name: t, id: c1, arguments: '{\"a\": '}]}]\n",
		"replies: [{content: x, expect: {role: user, tools: [], contains: y}}]\n",
		"replies: [x]\nunknown: 1\n",
		"replies: {a: b}\n",
		"---\nreplies: [x]\n---\nreplies: [y]\n",
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte("replies: [a, {content: b}, {error: rate_limit}]\n"))
	f.Add([]byte("conversations:\n  - agent: x\n    replies:\n      - tool_calls: [{name: t, arguments: {a: [1, 2.5, null, true]}}]\n"))
	f.Add([]byte("a: &a [x]\nreplies:\n  - tool_calls: [{name: t, arguments: *a}]\n"))
	f.Add([]byte("replies:\n  - error: {kind: server, retry_after: 2}\n    delay: 0\n    expect: {contains: x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzScript {
			return
		}
		s, err := ParseScript("fuzz.yaml", data)
		if err != nil {
			if s != nil {
				t.Fatal("script returned with an error")
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		// A valid script must be servable without panics; delays are
		// skipped by an already-expired context.
		p := NewScripted(s)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for range 3 {
			_, _ = p.Call(ctx, Request{Stream: true, Stop: []string{"\n"}}, func(Chunk) {})
		}
		_ = p.Unserved()
	})
}
