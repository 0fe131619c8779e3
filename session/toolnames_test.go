package session

import (
	"slices"
	"testing"
)

func TestToolNames(t *testing.T) {
	cases := []struct {
		name           string
		ev             Event
		tools, servers []string
	}{
		{"a tool call", Event{Kind: ToolUsageStarted, ToolName: "weather_get_forecast"}, []string{"weather_get_forecast"}, nil},
		{"an MCP execution", Event{Kind: MCPToolExecutionStarted, OriginalToolName: "getForecast", Server: "weather"},
			[]string{"getForecast"}, []string{"weather"}},
		{"a watched agent's display names", Event{Kind: AgentExecutionStarted, Data: map[string]any{KeyTools: []any{"Word Counter", 3.0, ""}}},
			[]string{"Word Counter"}, nil},
		{"an engine agent's records", Event{Kind: AgentExecutionStarted, Data: map[string]any{KeyTools: []map[string]any{{
			"name": "get_forecast", "llm_name": "weather_get_forecast", "original_name": "getForecast", "server": "weather", "server_name": "npx_weather"}}}},
			[]string{"get_forecast", "weather_get_forecast", "getForecast"}, []string{"weather", "npx_weather"}},
		{"typed names", Event{Kind: LiteAgentExecutionStarted, Data: map[string]any{KeyTools: []string{"a", "b"}}}, []string{"a", "b"}, nil},
		{"function schemas", Event{Kind: LLMCallStarted, Data: map[string]any{KeyTools: []any{
			map[string]any{"type": "function", "function": map[string]any{"name": "word_counter"}}}}}, []string{"word_counter"}, nil},
		{"a list on another kind is not read", Event{Kind: TaskStarted, Data: map[string]any{KeyTools: []any{"x"}}}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tools, servers := ToolNames(c.ev)
			if !slices.Equal(tools, c.tools) || !slices.Equal(servers, c.servers) {
				t.Fatalf("got %q %q, want %q %q", tools, servers, c.tools, c.servers)
			}
		})
	}
}
