package llm

import (
	"slices"
	"strings"

	"crewbench/crew/pyjson"
)

// ApplyStopWords is what CrewAI's native providers (OpenAI, Anthropic) do
// to a text reply client-side (BaseLLM._apply_stop_words,
// llms/base_llm.py:455-495): the text before the earliest occurrence of any
// stop word, stripped; the text unchanged, not stripped, when none occurs.
// An empty stop word occurs at 0, as Python's str.find finds it.
func ApplyStopWords(text string, stops []string) string {
	if len(stops) == 0 || text == "" {
		return text
	}
	cut := -1
	for _, s := range stops {
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return text
	}
	return pyjson.Strip(text[:cut])
}

// withConfigStops is req with the LLM's own stop words merged into its
// stop words (Config.Stop). A bare request (a fresh SDK client's) has
// none of the LLM's.
func withConfigStops(cfg Config, req Request) Request {
	if req.Bare || len(cfg.Stop) == 0 {
		return req
	}
	stops := slices.Clone(cfg.Stop)
	for _, s := range req.Stop {
		if !slices.Contains(stops, s) {
			stops = append(stops, s)
		}
	}
	req.Stop = stops
	return req
}

// applyStopWordsTo applies req's stop words to a text reply, as the native
// providers do: a reply with tool calls is returned as tool calls, and a
// reply parsed into the response model is returned before the stop words
// are applied (llms/providers/openai/completion.py:1911-1997).
func applyStopWordsTo(req Request, r Response) Response {
	if len(r.ToolCalls) > 0 || req.ResponseFormat != nil {
		return r
	}
	r.Content = ApplyStopWords(r.Content, req.Stop)
	return r
}

// ParsesStructuredReplies reports whether p is CrewAI's native OpenAI
// provider, which sends a response model through the SDK's
// beta.chat.completions.parse: the SDK validates a non-empty reply with
// the model's model_validate_json and raises Pydantic's ValidationError
// when it does not validate (llms/providers/openai/completion.py:1892-1923).
func ParsesStructuredReplies(p Provider) bool {
	o, ok := p.(*openAIProvider)
	return ok && o.provider == ProviderOpenAI
}
