package llm

import "strings"

// contextWindowUsage is CrewAI's CONTEXT_WINDOW_USAGE_RATIO (llm.py:326):
// get_context_window_size returns this share of a model's window.
const contextWindowUsage = 0.85

// modelWindow is one prefix of a provider's context-window table.
type modelWindow struct {
	prefix string
	size   int
}

// openAIContextWindows is the table of OpenAICompletion.get_context_window_size
// (llms/providers/openai/completion.py:2668-2684), in its dict order. The
// first prefix that matches wins, so every "gpt-4…" model (gpt-4o,
// gpt-4.1, gpt-4o-mini) gets gpt-4's 8192: CrewAI's behaviour, kept.
// OpenAICompatibleCompletion (ollama, openrouter, deepseek, …) inherits it.
var openAIContextWindows = []modelWindow{
	{"gpt-4", 8192},
	{"gpt-4o", 128000},
	{"gpt-4o-mini", 200000},
	{"gpt-5.4-mini", 200000},
	{"gpt-4-turbo", 128000},
	{"gpt-4.1", 1047576},
	{"gpt-4.1-mini-2025-04-14", 1047576},
	{"gpt-4.1-nano-2025-04-14", 1047576},
	{"gpt-5", 1047576},
	{"gpt-5-mini", 1047576},
	{"gpt-5-nano", 1047576},
	{"o1-preview", 128000},
	{"o1-mini", 128000},
	{"o3-mini", 200000},
	{"o4-mini", 200000},
}

// openAIDefaultWindow is that method's fallback (completion.py:2690).
const openAIDefaultWindow = 8192

// anthropicContextWindows is AnthropicCompletion.get_context_window_size's
// table (llms/providers/anthropic/completion.py:1930-1940), first match
// wins; newer models (claude-sonnet-4-5, claude-haiku-4-5, …) match none
// and get the 200000 fallback (completion.py:1946).
var anthropicContextWindows = []modelWindow{
	{"claude-3-5-sonnet", 200000},
	{"claude-3-5-haiku", 200000},
	{"claude-3-opus", 200000},
	{"claude-3-sonnet", 200000},
	{"claude-3-haiku", 200000},
	{"claude-3-7-sonnet", 200000},
	{"claude-2.1", 200000},
	{"claude-2", 100000},
	{"claude-instant", 100000},
}

const anthropicDefaultWindow = 200000

// windowOf is the providers' loop: the first prefix of model (case
// sensitive, as str.startswith), else fallback, times the usage ratio.
func windowOf(table []modelWindow, fallback int, model string) int {
	size := fallback
	for _, w := range table {
		if strings.HasPrefix(model, w.prefix) {
			size = w.size
			break
		}
	}
	// A run-time float64 product, truncated: Python's int(size * 0.85).
	return int(float64(size) * contextWindowUsage)
}

// ContextWindowSize is the agent LLM's get_context_window_size(): the
// token budget of one summarizing chunk (summarize_messages,
// utilities/agent_utils.py:1074). The OpenAI-compatible and Anthropic
// providers use their CrewAI class's table on the model name without its
// provider prefix (self.model); the scripted and replayed LLMs, which stand
// in for CrewAI's default provider, use OpenAI's.
func ContextWindowSize(p Provider) int {
	if _, ok := p.(*anthropicProvider); ok {
		return windowOf(anthropicContextWindows, anthropicDefaultWindow, p.Model())
	}
	return windowOf(openAIContextWindows, openAIDefaultWindow, p.Model())
}
