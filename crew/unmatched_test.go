package crew

import (
	"strings"
	"testing"

	"crewbench/session"
)

func TestBreakpointsUnmatched(t *testing.T) {
	tools := []string{"weather_get_forecast", "getForecast", "word_counter", "Word Counter"}
	servers := []string{"weather"}
	cases := []struct {
		name string
		bp   Breakpoints
		want []string // one substring per message, in order
	}{
		{"every name matches", Breakpoints{Tools: []string{"getForecast", "WORD_COUNTER", "word counter"}, Servers: []string{"Weather"}}, nil},
		{"no names", Breakpoints{Every: true, LLMCalls: true}, nil},
		{"a typo gets the near name", Breakpoints{Tools: []string{"get_forecast"}},
			[]string{"tool=get_forecast never paused: it names none of the run's tools (getForecast, Word Counter, word_counter, weather_get_forecast) — did you mean tool=getForecast?"}},
		{"a part gets the whole name", Breakpoints{Tools: []string{"forecast"}}, []string{"did you mean tool=getForecast?"}},
		{"nothing near", Breakpoints{Tools: []string{"search"}}, []string{"tool=search never paused"}},
		{"a server", Breakpoints{Servers: []string{"wether"}}, []string{"server=wether never paused: it names none of the run's servers (weather) — did you mean server=weather?"}},
		{"tools then servers", Breakpoints{Tools: []string{"x"}, Servers: []string{"y"}}, []string{"tool=x", "server=y"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := messages(c.bp.Unmatched(tools, servers))
			if len(got) != len(c.want) {
				t.Fatalf("got %q, want %d messages", got, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("message %d = %q, want it to contain %q", i, got[i], w)
				}
			}
			if c.name == "nothing near" && strings.Contains(got[0], "did you mean") {
				t.Errorf("no name is near search: %q", got[0])
			}
		})
	}
}

func TestBreakpointsUnmatchedNamesNothingShown(t *testing.T) {
	got := messages(Breakpoints{Servers: []string{"weather"}}.Unmatched([]string{"a"}, nil))
	if len(got) != 1 || !strings.HasSuffix(got[0], "the run showed no servers") {
		t.Fatalf("got %q", got)
	}
}

func TestBreakpointsUnmatchedListsAFew(t *testing.T) {
	var many []string
	for _, c := range "abcdefghijkl" {
		many = append(many, "tool_"+string(c))
	}
	got := messages(Breakpoints{Tools: []string{"zzz"}}.Unmatched(many, nil))
	if len(got) != 1 || !strings.Contains(got[0], "(tool_a, tool_b, tool_c, tool_d, tool_e, tool_f, tool_g, tool_h and 4 more)") || strings.Contains(got[0], "tool_i") {
		t.Fatalf("got %q", got)
	}
}

func messages(us []UnmatchedBreakpoint) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Message)
	}
	return out
}

func TestUnmatchedBreakpointGuess(t *testing.T) {
	us := Breakpoints{Tools: []string{"get_forecast"}}.Unmatched([]string{"getForecast"}, nil)
	if len(us) != 1 || us[0].Guess != "tool=getForecast" {
		t.Fatalf("got %+v", us)
	}
}

func TestUnmatchedBreakpointEvent(t *testing.T) {
	us := Breakpoints{Tools: []string{"x"}, Servers: []string{"y"}}.Unmatched(nil, nil)
	if len(us) != 2 || us[0].Spec != "tool=x" || us[1].Spec != "server=y" || us[0].Guess != "" {
		t.Fatalf("got %+v", us)
	}
	ev := us[0].Event()
	if ev.Kind != session.Warning || ev.Str(session.KeyBreakpoint) != "tool=x" || ev.Str(session.KeyMessage) != us[0].Message {
		t.Fatalf("event %+v", ev)
	}
}

func TestSeenNamesOnlyForNamedBreakpoints(t *testing.T) {
	n := SeenNamesFor(Breakpoints{Every: true, LLMCalls: true, OnFailure: true})
	if n != nil {
		t.Fatal("breakpoints naming no tool or server need no names")
	}
	n.Event(session.Event{Kind: session.ToolUsageStarted, ToolName: "x"}) // a nil one notes nothing
	if u := n.Unmatched(Breakpoints{Tools: []string{"y"}}); u != nil {
		t.Fatalf("nil SeenNames: %+v", u)
	}
	bp := Breakpoints{Tools: []string{"word_counter", "search"}}
	n = SeenNamesFor(bp)
	n.Event(session.Event{Kind: session.ToolUsageStarted, ToolName: "Word_Counter"})
	if u := n.Unmatched(bp); len(u) != 1 || u[0].Spec != "tool=search" || u[0].Guess != "" {
		t.Fatalf("got %+v", u)
	}
}
