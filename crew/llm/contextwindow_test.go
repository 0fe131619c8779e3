package llm

import "testing"

// get_context_window_size of the provider CrewAI 1.15.17 routes each model
// to: OpenAICompletion's table, first match in dict order
// (llms/providers/openai/completion.py:2668-2690), which OpenAI-compatible
// providers inherit, and AnthropicCompletion's
// (llms/providers/anthropic/completion.py:1926-1946), all × 0.85.
func TestContextWindowSize(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int
	}{
		{"openai/gpt-4o", 6963}, // "gpt-4" comes first in the dict
		{"openai/gpt-4o-mini", 6963},
		{"gpt-4.1-mini", 6963},
		{"openai/gpt-5-mini", 890439},
		{"openai/o3-mini", 170000},
		{"openai/o1", 6963},
		{"openai/GPT-5", 6963}, // str.startswith is case-sensitive
		{"ollama/llama3.1", 6963},
		{"deepseek/deepseek-chat", 6963}, // not llm.py's table: the native class's
		{"anthropic/claude-sonnet-4-5", 170000},
		{"anthropic/claude-2", 85000},
		{"anthropic/claude-2.1", 170000},
		{"anthropic/claude-instant-1.2", 85000},
	} {
		p, err := New(Config{Model: tc.model, APIKey: "k", BaseURL: "http://127.0.0.1:1/v1"})
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if got := ContextWindowSize(p); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.model, got, tc.want)
		}
	}
	s, err := ParseScript("s.yaml", []byte("model: gpt-5\nreplies: [\"ok\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ContextWindowSize(NewScripted(s)); got != 890439 {
		t.Errorf("scripted gpt-5: %d, want OpenAI's table (890439)", got)
	}
}
