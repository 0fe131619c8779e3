package session

// ToolNames returns every name ev gives a tool — the LLM's, the display
// name, the server's own — and every server it names: a called tool's
// fields, and the tool lists of agent_execution_started (display names or
// crewbench's tool records) and llm_call_started (function schemas). These
// are the names a tool= or server= breakpoint can match.
func ToolNames(ev Event) (tools, servers []string) {
	add := func(list *[]string, names ...string) {
		for _, s := range names {
			if s != "" {
				*list = append(*list, s)
			}
		}
	}
	add(&tools, ev.ToolName, ev.OriginalToolName)
	add(&servers, ev.Server)
	switch ev.Kind {
	case AgentExecutionStarted, LiteAgentExecutionStarted, LLMCallStarted:
	default:
		return tools, servers
	}
	list := ev.Data[KeyTools]
	switch names := list.(type) {
	case []string:
		add(&tools, names...)
	case []any:
		for _, n := range names {
			if s, ok := n.(string); ok {
				add(&tools, s)
			}
		}
	}
	for _, m := range objects(list) {
		if fn, ok := m["function"].(map[string]any); ok {
			add(&tools, str(fn["name"]))
			continue
		}
		add(&tools, str(m["name"]), str(m["llm_name"]), str(m["native_name"]), str(m["original_name"]))
		add(&servers, str(m["server"]), str(m["server_name"]))
	}
	return tools, servers
}
