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
		// str(Message) as anthropic 0.73.0 builds it (types/message.py,
		// usage.py, text_block.py, tool_use_block.py).
		{"anthropic message with text and tool_use blocks", anthropicToolUseBody,
			`Message(id='msg_01XFDUDYJgAACzvnptvVoYEL', content=[TextBlock(citations=None, text="I'll search for that.", type='text'), ToolUseBlock(id='toolu_01A09q90qw90lq917835lq9', input={'query': 'mcp servers', 'limit': 3}, name='search_web', type='tool_use'), ToolUseBlock(id='toolu_01B7aAq2ZxCv8bN3mK4pQ5rS', input={'url': 'https://modelcontextprotocol.io'}, name='fetch_url', type='tool_use')], model='claude-haiku-4-5-20251001', role='assistant', stop_reason='tool_use', stop_sequence=None, type='message', usage=Usage(cache_creation=None, cache_creation_input_tokens=0, cache_read_input_tokens=0, input_tokens=472, output_tokens=89, server_tool_use=None, service_tier='standard'))`},
		{"no reply", "", "None"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CompletionRepr(tc.raw); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
