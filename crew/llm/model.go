package llm

import (
	"sort"
	"strings"
)

// Provider names ParseModel returns (canonical forms).
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderOllama    = "ollama"
	ProviderGemini    = "gemini"
	ProviderScripted  = "scripted"
	ProviderReplay    = "replay"
)

// openAIService describes a provider reached through the OpenAI-compatible
// chat completions API: where it lives and which variables hold its URL and
// key (LiteLLM's names).
type openAIService struct {
	defaultBase string
	baseEnv     []string
	keyEnv      []string
	// appendV1 normalizes a bare host URL to its /v1 API root (CrewAI does
	// this for Ollama: "http://localhost:11434" → ".../v1").
	appendV1 bool
	// placeholderKey is sent when no key is configured, for servers that
	// ignore the key but whose clients expect one.
	placeholderKey string
}

var openAICompatible = map[string]openAIService{
	ProviderOpenAI: {
		defaultBase: "https://api.openai.com/v1",
		baseEnv:     []string{"OPENAI_BASE_URL", "OPENAI_API_BASE"},
		keyEnv:      []string{"OPENAI_API_KEY"},
	},
	// CrewAI's scaffold writes API_BASE=http://localhost:11434 for Ollama
	// (crewai-formats.md §3.3); LiteLLM also reads OLLAMA_API_BASE.
	ProviderOllama: {
		defaultBase:    "http://localhost:11434",
		baseEnv:        []string{"OLLAMA_API_BASE", "API_BASE"},
		keyEnv:         []string{"OLLAMA_API_KEY"},
		appendV1:       true,
		placeholderKey: "ollama",
	},
	"openrouter": {
		defaultBase: "https://openrouter.ai/api/v1",
		baseEnv:     []string{"OPENROUTER_API_BASE"},
		keyEnv:      []string{"OPENROUTER_API_KEY"},
	},
	"deepseek": {
		defaultBase: "https://api.deepseek.com/v1",
		baseEnv:     []string{"DEEPSEEK_API_BASE"},
		keyEnv:      []string{"DEEPSEEK_API_KEY"},
	},
	"groq": {
		defaultBase: "https://api.groq.com/openai/v1",
		baseEnv:     []string{"GROQ_API_BASE"},
		keyEnv:      []string{"GROQ_API_KEY"},
	},
	"cerebras": {
		defaultBase: "https://api.cerebras.ai/v1",
		baseEnv:     []string{"CEREBRAS_API_BASE"},
		keyEnv:      []string{"CEREBRAS_API_KEY"},
	},
	"hosted_vllm": {
		baseEnv:        []string{"HOSTED_VLLM_API_BASE"},
		keyEnv:         []string{"HOSTED_VLLM_API_KEY"},
		placeholderKey: "none",
	},
}

// SupportedProviders lists the provider prefixes New accepts, sorted.
func SupportedProviders() []string {
	out := []string{ProviderAnthropic, ProviderScripted, ProviderReplay}
	for p := range openAICompatible {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// providerAliases maps LiteLLM/CrewAI prefixes to the canonical provider.
var providerAliases = map[string]string{
	"claude":      ProviderAnthropic,
	"ollama_chat": ProviderOllama,
	"google":      ProviderGemini,
}

func canonicalProvider(p string) string {
	if c, ok := providerAliases[p]; ok {
		return c
	}
	return p
}

// ParseModel splits a CrewAI/LiteLLM model string into provider and model.
//
//   - "scripted:FILE" and "replay:FILE" (crewbench's offline providers) give
//     ("scripted", FILE) and ("replay", FILE).
//   - "provider/model" splits at the first "/" (so "openrouter/meta/llama"
//     keeps "meta/llama" as the model). The prefix is lower-cased and aliases
//     are folded: claude → anthropic, ollama_chat → ollama, google → gemini.
//   - A bare name is inferred as CrewAI does: gpt-*, chatgpt-*, o1…o9*,
//     whisper-*, ft:gpt* → openai; claude-* → anthropic; gemini-*, gemma-*,
//     learnlm-* → gemini. Anything else gives provider "".
//
// ParseModel never fails; New reports providers it cannot serve.
func ParseModel(s string) (provider, model string) {
	s = strings.TrimSpace(s)
	for _, p := range []string{ProviderScripted, ProviderReplay} {
		if rest, ok := strings.CutPrefix(s, p+":"); ok {
			return p, strings.TrimSpace(rest)
		}
	}
	if prefix, rest, ok := strings.Cut(s, "/"); ok && prefix != "" {
		return canonicalProvider(strings.ToLower(prefix)), rest
	}
	return inferProvider(s), s
}

func inferProvider(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "gpt-"), strings.HasPrefix(m, "chatgpt-"),
		strings.HasPrefix(m, "whisper-"), strings.HasPrefix(m, "ft:gpt"):
		return ProviderOpenAI
	case len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9':
		return ProviderOpenAI
	case strings.HasPrefix(m, "claude-"):
		return ProviderAnthropic
	case strings.HasPrefix(m, "gemini-"), strings.HasPrefix(m, "gemma-"), strings.HasPrefix(m, "learnlm-"):
		return ProviderGemini
	}
	return ""
}
