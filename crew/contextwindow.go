package crew

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
)

// respect_context_window (crewai-formats.md §5): on a context-length error
// the executor either summarizes the conversation and goes on, or — when
// the agent opted out — ends the whole run (Python's SystemExit is not an
// Exception, so neither the executor nor max_retry_limit catches it).

// ContextExceededError is that SystemExit: the run ends, no task retry.
type ContextExceededError struct{}

func (*ContextExceededError) Error() string { return prompt.ContextExceededExit }

// contextWindowUsage is the share of a model's window CrewAI cuts the
// history into when summarizing (CONTEXT_WINDOW_USAGE_RATIO).
const contextWindowUsage = 0.85

// defaultContextWindow is the window of a model CrewAI has no size for.
const defaultContextWindow = 8192

// contextWindows are model-name prefixes and their windows, longest prefix
// first. CrewAI keeps its own table (LLM_CONTEXT_WINDOW_SIZES), which the
// spec does not list; these are the providers' published sizes, so the
// number of summarizing calls for a huge history may differ from
// CrewAI's. The default matches.
var contextWindows = []struct {
	prefix string
	size   int
}{
	{"gpt-4.1", 1047576},
	{"gpt-4o", 128000},
	{"gpt-4-turbo", 128000},
	{"gpt-4", 8192},
	{"gpt-3.5-turbo", 16385},
	{"o1", 200000},
	{"o3", 200000},
	{"o4", 200000},
	{"claude", 200000},
	{"gemini", 1048576},
}

// summarizeCutSize is get_context_window_size(): how many characters of
// the joined history go into one summarizing call.
func summarizeCutSize(model string) int {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "openai/gpt-4o" → "gpt-4o"
	}
	size := defaultContextWindow
	for _, w := range contextWindows {
		if strings.HasPrefix(m, w.prefix) {
			size = w.size
			break
		}
	}
	return int(float64(size) * contextWindowUsage)
}

// handleContextLength is handle_context_length: it reports whether err was
// a context-length error it dealt with (the loop then goes on with the
// summary), or returns the error that ends the run.
func (ar *agentRun) handleContextLength(ctx context.Context, err error) (bool, error) {
	if !llm.IsContextLengthExceeded(err) {
		return false, err
	}
	if !ar.agent.RespectContextWindow {
		ar.rs.warn(ar.span, ar.base, prompt.ContextNotSummarizing)
		return false, &ContextExceededError{}
	}
	ar.rs.warn(ar.span, ar.base, prompt.ContextSummarizing)
	step := ar.startStep()
	serr := ar.summarizeMessages(ctx, step)
	ar.finishStep(step, serr)
	if serr != nil {
		return false, serr
	}
	// The pass that hit the limit counts as an iteration (the executor's
	// finally), so a history that never fits ends at max_iter.
	ar.iterations++
	return true, nil
}

// summarizeMessages is summarize_messages: the contents of every message
// joined by spaces, cut into pieces of the window's size, each summarized
// by the agent's LLM with the summarizer slices; the history is then
// replaced by one user message holding the summaries (the system prompt
// and the task prompt included — CrewAI's behaviour, visible in the
// trace).
func (ar *agentRun) summarizeMessages(ctx context.Context, step string) error {
	parts := make([]string, len(ar.messages))
	for i, m := range ar.messages {
		parts[i] = m.Content
	}
	text := []rune(strings.Join(parts, " "))
	cut := summarizeCutSize(ar.agent.LLM.Model())
	var summaries []string
	for i := 0; i < len(text); i += cut {
		group := string(text[i:min(len(text), i+cut)])
		resp, err := ar.callLLMWith(ctx, step, []llm.Message{
			{Role: llm.RoleSystem, Content: prompt.SummarizerSystem},
			{Role: llm.RoleUser, Content: prompt.Fill(prompt.SummarizeInstruction, "{group}", group)},
		}, nil, false)
		if err != nil {
			if llm.IsContextLengthExceeded(err) {
				return errors.New("summarizing " + strconv.Itoa(len(text)) + " characters in pieces of " + strconv.Itoa(cut) +
					": a piece does not fit the model's context window either: " + err.Error())
			}
			return err
		}
		summaries = append(summaries, resp.Content)
	}
	// Fresh slices: earlier requests and events share the old ones.
	ar.messages, ar.wire = nil, nil
	ar.appendMsg(llm.Message{Role: llm.RoleUser, Content: prompt.Fill(prompt.Summary, "{merged_summary}", strings.Join(summaries, " "))})
	return nil
}
