package llm

import "testing"

// str(ChatCompletion) as openai 2.41.0 builds it (types/chat/
// chat_completion.py, chat_completion_message.py, completion_usage.py:
// declared fields in order, absent ones None, a server's extra fields
// last, Pydantic's repr).
func TestCompletionRepr(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"text reply with details and extras",
			`{"id":"c1","object":"chat.completion","created":1700000001,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"it's \"x\"","refusal":null,"annotations":[]},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0}},"system_fingerprint":null,"obfuscation":"ab"}`,
			`ChatCompletion(id='c1', choices=[Choice(finish_reason='stop', index=0, logprobs=None, message=ChatCompletionMessage(content='it\'s "x"', refusal=None, role='assistant', annotations=[], audio=None, function_call=None, tool_calls=None))], created=1700000001, model='gpt-4o', object='chat.completion', service_tier=None, system_fingerprint=None, usage=CompletionUsage(completion_tokens=20, prompt_tokens=100, total_tokens=120, completion_tokens_details=None, prompt_tokens_details=PromptTokensDetails(audio_tokens=0, cached_tokens=0)), obfuscation='ab')`},
		{"no reply", "", "None"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CompletionRepr(tc.raw); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
