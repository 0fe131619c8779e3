package ui

import (
	"testing"

	"crewbench/session"
)

func TestSessionAbout(t *testing.T) {
	cases := []struct {
		h           session.Header
		kind, about string
	}{
		{session.Header{Command: "run", Meta: map[string]any{"crew": "Brief", "demo": true}}, "run", "crew Brief · demo"},
		{session.Header{Command: "tui", Meta: map[string]any{"crew": "Brief"}}, "run", "crew Brief · in the workbench"},
		{session.Header{Command: "call", Meta: map[string]any{"tool": "get_forecast", "server": "weather"}}, "call", "get_forecast @ weather"},
		{session.Header{Command: "smoke", Meta: map[string]any{"server": "http://127.0.0.1:9/mcp"}}, "smoke", "http://127.0.0.1:9/mcp"},
		{session.Header{Command: "replay --rerun", Meta: map[string]any{"rerun_of": "/s/a.jsonl"}}, "re-run", "re-run of a.jsonl"},
		{session.Header{Command: CallLogCommand, Meta: map[string]any{"workspace": "demo"}}, "calls", "try-a-tool calls · demo"},
		{session.Header{Command: "future-thing"}, "future-thing", ""},
		{session.Header{Command: "call", Meta: map[string]any{"tool": 42}}, "call", ""}, // wrong types are ignored, not a panic
	}
	for _, c := range cases {
		cmd, about := SessionAbout(c.h)
		if kind := sessionKind(cmd); kind != c.kind || about != c.about {
			t.Errorf("%s: got %q / %q, want %q / %q", c.h.Command, kind, about, c.kind, c.about)
		}
	}
}
