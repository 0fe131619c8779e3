package crew

// Context-window summarisation as CrewAI 1.15.17 does it
// (utilities/agent_utils.py:795-1131, translations/en.json:25-27), against
// the loopback OpenAI server of llmcalls_test.go: the summarizing requests
// are compared byte for byte with what the native OpenAI provider sends.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

func warnings(r result) []string {
	var out []string
	for _, ev := range r.events {
		if ev.Kind == session.Warning {
			out = append(out, ev.Str("message"))
		}
	}
	return out
}

// summarizerSystem and summarizeInstruction are en.json:25-26, written out
// here so a changed slice fails the tests.
const (
	summarizerSystem     = "You are a precise assistant that creates structured summaries of agent conversations. You preserve critical context needed for seamless task continuation."
	summarizeInstruction = "Analyze the following conversation and create a structured summary that preserves all information needed to continue the task seamlessly.\n\n<conversation>\n{conversation}\n</conversation>\n\nCreate a summary with these sections:\n1. **Task Overview**: What is the agent trying to accomplish?\n2. **Current State**: What has been completed so far? What step is the agent on?\n3. **Important Discoveries**: Key facts, data, tool results, or findings that must not be lost.\n4. **Next Steps**: What should the agent do next based on the conversation?\n5. **Context to Preserve**: Any specific values, names, URLs, code snippets, or details referenced in the conversation.\n\nWrap your entire summary in <summary> tags.\n\n<summary>\n[Your structured summary here]\n</summary>"
)

// summaryMessage is the summary slice (en.json:27) around merged.
func summaryMessage(merged string) string {
	return "<summary>\n" + merged + "\n</summary>\n\nContinue the task from where the conversation left off. The above is a structured summary of prior context."
}

// summarizeBody is one summarizing request as the native OpenAI provider
// writes it: the two messages of _summarize_one (agent_utils.py:1093-1102),
// no tools, no response_format (llm.call gets neither), so no "stream".
func summarizeBody(conversation string) string {
	return `{"messages":[{"role":"system","content":` + wireJSON(summarizerSystem) + `},{"role":"user","content":` +
		wireJSON(strings.Replace(summarizeInstruction, "{conversation}", conversation, 1)) + `}],"model":"gpt-4o"}`
}

// bigTool answers every call with text.
func bigTool(text string) *FuncTool {
	schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)
	return NewFuncTool("Get Forecast", "Forecast for a city.", schema, func(context.Context, *pyjson.Object) ToolResult {
		return ToolResult{Text: text}
	})
}

func forecastCrew(prov llm.Provider, tool Tool, retries int) *Crew {
	a := NewAgent("a", "Researcher", "Find facts", "Thorough.", prov)
	a.Model = "gpt-4o"
	a.Tools = []Tool{tool}
	a.MaxRetryLimit = retries
	return &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "t", Description: "Forecast Oslo", ExpectedOutput: "One line", Agent: a}}}
}

// respect_context_window true (the default): the system message is kept,
// the other messages are labelled (_format_messages_for_summary, :900-952)
// and summarized in one request, the <summary> tags of the reply are
// extracted (:995-1009), and the history becomes system + the summary
// slice; the loop goes on with it.
func TestContextLengthSummarizesExactRequest(t *testing.T) {
	var calls atomic.Int64
	cs, prov := newChatServer(t, `call get_forecast {"city": "Oslo"}`, contextLengthReply,
		"Here it is.\n<summary>\n  1. **Task Overview**: forecast Oslo\n</summary> trailing", "Final: sunny in Oslo")
	r := kickoff(t, forecastCrew(prov, weatherTool(&calls), 2), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Final: sunny in Oslo" || calls.Load() != 1 {
		t.Errorf("raw %q, %d tool calls", r.out.Raw, calls.Load())
	}
	reqs := r.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d LLM calls, want 4 (tool call, overflow, summary, answer)", len(reqs))
	}
	system, _ := reqs[0][0]["content"].(string)
	task, _ := reqs[0][1]["content"].(string)
	if reqs[0][0]["role"] != "system" || !strings.HasPrefix(system, "You are Researcher.") {
		t.Fatalf("first request %v", reqs[0])
	}
	// The tool-call message has content None: "[Called tools: …]"
	// (:919-931); the tool message is labelled with its name (:944-946).
	want := summarizeBody("[USER]: " + task + "\n\n[ASSISTANT]: [Called tools: get_forecast]\n\n[TOOL_RESULT (get_forecast)]: Sunny in Oslo")
	if got := cs.body(t, 2); got != want {
		t.Errorf("summarizing request\n got %s\nwant %s", got, want)
	}
	after := reqs[3]
	if len(after) != 2 || after[0]["role"] != "system" || after[0]["content"] != system ||
		after[1]["role"] != "user" || after[1]["content"] != summaryMessage("1. **Task Overview**: forecast Oslo") {
		t.Errorf("history after summarizing: %v", after)
	}
	if w := warnings(r); !containsString(w, prompt.ContextSummarizing) || !containsString(w, "Summarizing 1/1...") {
		t.Errorf("warnings %q", w)
	}
	// llm.call gets neither from_task nor from_agent (:1103).
	var started []session.Event
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallStarted {
			started = append(started, ev)
		}
	}
	if s := started[2]; s.TaskName != "" || s.AgentRole != "" {
		t.Errorf("summarizing call carries task %q agent %q", s.TaskName, s.AgentRole)
	}
	if s := started[3]; s.TaskName != "t" || s.AgentRole != "Researcher" {
		t.Errorf("the agent's next call carries task %q agent %q", s.TaskName, s.AgentRole)
	}
}

// The ReAct loop on the scripted LLM: its assistant turns (the
// observation appended, agent_utils.py:449) and the user reminder are
// labelled as such, and the ReAct system prompt with the tools block is the
// system message kept (:1068-1069, 1117-1118).
func TestContextLengthSummarizesReActHistory(t *testing.T) {
	var calls atomic.Int64
	a := NewAgent("a", "Researcher", "Find facts", "Thorough.", scripted(t, `
function_calling: false
replies:
  - "Thought: look\nAction: Get Forecast\nAction Input: {\"city\": \"Oslo\"}"
  - error: context_length
  - "<summary>s</summary>"
  - "Thought: done\nFinal Answer: sunny"
`))
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "Forecast Oslo", ExpectedOutput: "One line", Agent: a}}}, nil, Options{})
	if r.err != nil || r.out.Raw != "sunny" {
		t.Fatalf("err %v out %+v", r.err, r.out)
	}
	reqs := r.requests()
	if len(reqs) != 4 || len(reqs[1]) != 4 {
		t.Fatalf("%d LLM calls, want 4", len(reqs))
	}
	h := reqs[1]
	conv := "[USER]: " + h[1]["content"].(string) + "\n\n[ASSISTANT]: " + h[2]["content"].(string) + "\n\n[USER]: " + h[3]["content"].(string)
	if !strings.Contains(conv, "\nObservation: Sunny in Oslo\n\n[USER]: ") {
		t.Fatalf("unexpected ReAct history %q", conv)
	}
	if got, want := reqs[2][1]["content"], strings.Replace(summarizeInstruction, "{conversation}", conv, 1); got != want {
		t.Errorf("instruction\n got %q\nwant %q", got, want)
	}
	if after := reqs[3]; len(after) != 2 || after[0]["content"] != h[0]["content"] || after[1]["content"] != summaryMessage("s") {
		t.Errorf("history after summarizing: %v", after)
	}
}

// A history over get_context_window_size() (gpt-4o: OpenAI's table
// matches "gpt-4" first, 8192 × 0.85 = 6963 tokens of len//4) is cut at
// message boundaries; a message alone over it is split into "[Part i/n]"
// pieces of (6963-5)×4 characters (:867-885). Every chunk is one request,
// and the summaries are joined by blank lines (:1115).
func TestContextLengthSummarizesInChunks(t *testing.T) {
	big := strings.Repeat("x", 28000)
	cs, prov := newChatServer(t, `call get_forecast {"city": "Oslo"}`, contextLengthReply,
		"<summary>one</summary>", "two", "<summary>three</summary>", "Final: done")
	r := kickoff(t, forecastCrew(prov, bigTool(big), 2), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	reqs := r.requests()
	if len(reqs) != 6 {
		t.Fatalf("%d LLM calls, want 6 (tool call, overflow, 3 summaries, answer)", len(reqs))
	}
	task, _ := reqs[0][1]["content"].(string)
	for i, conv := range []string{
		"[USER]: " + task + "\n\n[ASSISTANT]: [Called tools: get_forecast]",
		"[TOOL_RESULT (get_forecast)]: [Part 1/2]\n" + big[:27832],
		"[TOOL_RESULT (get_forecast)]: [Part 2/2]\n" + big[27832:],
	} {
		if got, want := cs.body(t, 2+i), summarizeBody(conv); got != want {
			t.Errorf("summarizing request %d\n got %.300s…\nwant %.300s…", i+1, got, want)
		}
	}
	if got := reqs[5][1]["content"]; got != summaryMessage("one\n\ntwo\n\nthree") {
		t.Errorf("summary message %q", got)
	}
	if w := warnings(r); !containsString(w, "Summarizing 3 chunks in parallel...") {
		t.Errorf("warnings %q", w)
	}
}

// The summarizing call failing raises out of recover_from_context_length:
// an ordinary agent failure, retried under max_retry_limit (agent/core.py
// :743-750), here 0, so the run ends with the provider's error.
func TestContextLengthSummarizingFails(t *testing.T) {
	var calls atomic.Int64
	_, prov := newChatServer(t, `call get_forecast {"city": "Oslo"}`, contextLengthReply, contextLengthReply, "Final: must not be reached")
	r := kickoff(t, forecastCrew(prov, weatherTool(&calls), 0), nil, Options{})
	var ce *ContextExceededError
	if r.err == nil || errors.As(r.err, &ce) || !strings.Contains(r.err.Error(), "summarizing chunk 1 of 1") ||
		!strings.Contains(r.err.Error(), "maximum context length is 128000 tokens") {
		t.Fatalf("err = %v", r.err)
	}
	if n := len(r.requests()); n != 3 {
		t.Errorf("%d LLM calls, want 3", n)
	}
}

// respect_context_window false: CrewAI raises SystemExit — the run ends
// with its text, and max_retry_limit does not re-run the task.
func TestContextLengthWithoutSummarizingEndsTheRun(t *testing.T) {
	a := NewAgent("a", "Researcher", "Find facts", "Thorough.", scripted(t, `
replies:
  - error: context_length
  - "Final Answer: must not be reached"
`))
	a.RespectContextWindow = false
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	var ce *ContextExceededError
	if !errors.As(r.err, &ce) || !strings.Contains(r.err.Error(), prompt.ContextExceededExit) {
		t.Fatalf("err = %v", r.err)
	}
	if n := len(r.requests()); n != 1 {
		t.Errorf("%d LLM calls: the task must not be retried", n)
	}
	if w := warnings(r); !containsString(w, prompt.ContextNotSummarizing) {
		t.Errorf("warnings %q", w)
	}
}

// A history that never fits ends at max_iter instead of looping.
func TestContextLengthThatNeverFitsEndsAtMaxIter(t *testing.T) {
	a := NewAgent("a", "R", "g", "b", scripted(t, `
replies:
  - error: context_length
  - "s1"
  - error: context_length
  - "s2"
  - "Final Answer: forced"
`))
	a.MaxIter = 2
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{})
	if r.err != nil || r.out.Raw != "forced" {
		t.Fatalf("err %v out %+v", r.err, r.out)
	}
	if w := warnings(r); !containsString(w, "Maximum iterations reached. Requesting final answer.") {
		t.Errorf("warnings %q", w)
	}
}

// _split_messages_into_chunks (:955-992) on small budgets: system
// messages dropped, greedy chunks at message boundaries, oversized
// messages expanded into parts that keep the message's role and name.
func TestSplitMessagesIntoChunks(t *testing.T) {
	user := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
	for _, tc := range []struct {
		name      string
		msgs      []llm.Message
		maxTokens int
		want      []string // each chunk formatted for the summary
	}{
		{"one chunk", []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, user("abcd"), {Role: llm.RoleAssistant, Content: "efgh"}}, 10,
			[]string{"[USER]: abcd\n\n[ASSISTANT]: efgh"}},
		{"boundary", []llm.Message{user("aaaaaaaa"), user("bbbbbbbb"), user("cccc")}, 3,
			[]string{"[USER]: aaaaaaaa", "[USER]: bbbbbbbb\n\n[USER]: cccc"}},
		{"exactly full", []llm.Message{user("aaaa"), user("bbbb")}, 2,
			[]string{"[USER]: aaaa\n\n[USER]: bbbb"}},
		// 10 characters are 2 tokens: they fit a budget of 2.
		{"fits alone", []llm.Message{{Role: llm.RoleTool, Name: "t", Content: strings.Repeat("y", 10)}}, 2,
			[]string{"[TOOL_RESULT (t)]: yyyyyyyyyy"}},
		// 14 characters are 3 tokens over 2: parts of max(1, 2-5)×4 = 4
		// characters, each one chunk.
		{"oversized tool result", []llm.Message{{Role: llm.RoleTool, Name: "t", Content: strings.Repeat("y", 14)}}, 2,
			[]string{"[TOOL_RESULT (t)]: [Part 1/4]\nyyyy", "[TOOL_RESULT (t)]: [Part 2/4]\nyyyy", "[TOOL_RESULT (t)]: [Part 3/4]\nyyyy", "[TOOL_RESULT (t)]: [Part 4/4]\nyy"}},
		// Content beside tool calls is None in CrewAI: it counts 0 tokens.
		{"tool calls", []llm.Message{{Role: llm.RoleAssistant, Content: strings.Repeat("z", 40), ToolCalls: []llm.ToolCall{{Name: "a"}, {Name: "b"}}}, {Role: llm.RoleTool, Content: "ok"}}, 1,
			[]string{"[ASSISTANT]: [Called tools: a, b]\n\n[TOOL_RESULT (unknown)]: ok"}},
		// len counts code points, not bytes.
		{"non-ASCII", []llm.Message{user("ééééééé"), user("ü")}, 1,
			[]string{"[USER]: ééééééé\n\n[USER]: ü"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range splitMessagesIntoChunks(tc.msgs, tc.maxTokens) {
				got = append(got, formatMessagesForSummary(c))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("chunks\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestExtractSummaryTags(t *testing.T) {
	for in, want := range map[string]string{
		"pre <summary>\n a \n</summary> post <summary>b</summary>": "a",
		"  no tags \n":                      "no tags",
		"<summary>unclosed":                 "<summary>unclosed",
		"</summary>x<summary> y </summary>": "y",
	} {
		if got := extractSummaryTags(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
