package crew

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/crew/prompt"
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

// respect_context_window true (the default): a context-length error is
// announced, the history is summarized with the summarizer slices and
// replaced by one user message holding the summary, and the loop goes on.
func TestContextLengthSummarizes(t *testing.T) {
	var calls atomic.Int64
	a := NewAgent("a", "Researcher", "Find facts", "Thorough.", scripted(t, `
function_calling: true
replies:
  - tool_calls: [{name: get_forecast, arguments: {city: Oslo}}]
  - error: context_length
  - "the short version"
  - "Final: sunny in Oslo"
`))
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "Forecast Oslo", ExpectedOutput: "One line", Agent: a}}}, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Final: sunny in Oslo" || calls.Load() != 1 {
		t.Errorf("raw %q, %d tool calls", r.out.Raw, calls.Load())
	}
	if w := warnings(r); !containsString(w, prompt.ContextSummarizing) {
		t.Errorf("warnings %q", w)
	}
	reqs := r.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d LLM calls, want 4 (tool call, overflow, summary, answer)", len(reqs))
	}
	// The summarizing call: the summarizer system message, then the whole
	// history joined by spaces — system prompt, task, the tool result.
	sum := reqs[2]
	if len(sum) != 2 || sum[0]["role"] != "system" || sum[0]["content"] != "You are a helpful assistant that summarizes text." {
		t.Fatalf("summarizing request %v", sum)
	}
	instr, _ := sum[1]["content"].(string)
	if !strings.HasPrefix(instr, "Summarize the following text, make sure to include all the important information: You are Researcher.") ||
		!strings.Contains(instr, "Forecast Oslo") || !strings.Contains(instr, "Sunny in Oslo") {
		t.Errorf("summarize instruction %q", instr)
	}
	// After it, the history is one user message with the summary.
	after := reqs[3]
	if len(after) != 1 || after[0]["role"] != "user" || after[0]["content"] != "This is a summary of our conversation so far:\nthe short version" {
		t.Errorf("history after summarizing: %v", after)
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

func TestSummarizeCutSize(t *testing.T) {
	for model, want := range map[string]int{
		"scripted:demo.yaml":          6963, // CrewAI's default window, 8192 × 0.85
		"openai/gpt-4o-mini":          108800,
		"gpt-4":                       6963,
		"anthropic/claude-sonnet-4-5": 170000,
	} {
		if got := summarizeCutSize(model); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
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
