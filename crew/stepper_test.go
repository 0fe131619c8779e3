package crew

import (
	"context"
	"testing"
	"time"
)

func TestBreakpointsMatch(t *testing.T) {
	tool := &Pause{Kind: PauseToolCall, ToolName: "weather_get_forecast", OriginalName: "getForecast", RequestedName: "get_forcast", Server: "weather"}
	llmCall := &Pause{Kind: PauseLLMCall}
	failed := &Pause{Kind: PauseLLMCall, AfterFailure: true}
	cases := []struct {
		name string
		bp   Breakpoints
		p    *Pause
		want bool
	}{
		{"none", Breakpoints{}, tool, false},
		{"every", Breakpoints{Every: true}, llmCall, true},
		{"by LLM name", Breakpoints{Tools: []string{"WEATHER_GET_FORECAST"}}, tool, true},
		{"by original name", Breakpoints{Tools: []string{"getForecast"}}, tool, true},
		{"by server", Breakpoints{Servers: []string{"weather"}}, tool, true},
		{"other server", Breakpoints{Servers: []string{"slow"}}, tool, false},
		{"tool bp does not stop LLM calls", Breakpoints{Tools: []string{"getForecast"}}, llmCall, false},
		{"llm calls", Breakpoints{LLMCalls: true}, llmCall, true},
		{"on failure", Breakpoints{OnFailure: true}, failed, true},
		{"on failure, none happened", Breakpoints{OnFailure: true}, llmCall, false},
	}
	for _, c := range cases {
		if got := c.bp.Match(c.p); got != c.want {
			t.Errorf("%s: got %v", c.name, got)
		}
	}
}

// A pause that nobody answers ends with the context.
func TestChanStepperHonoursContext(t *testing.T) {
	s := NewChanStepper(Breakpoints{Every: true})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Before(ctx, &Pause{Kind: PauseLLMCall}); err == nil {
		t.Fatal("want the context error")
	}
	// No breakpoint: no pause, no reader needed.
	s.SetBreakpoints(Breakpoints{})
	if d, err := s.Before(context.Background(), &Pause{Kind: PauseLLMCall}); err != nil || d.Action != Continue {
		t.Fatalf("%v %v", d, err)
	}
}

// Abort at a breakpoint stops the run with ErrAborted.
func TestStepperAbort(t *testing.T) {
	a := NewAgent("a", "A", "g", "b", scripted(t, `replies: ["x"]`))
	st := NewChanStepper(Breakpoints{LLMCalls: true})
	go func() {
		req := <-st.C
		req.Reply(Decision{Action: Abort})
	}()
	r := kickoff(t, &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}, nil, Options{Stepper: st})
	if r.err == nil || r.err.Error() != ErrAborted.Error() {
		t.Fatalf("err = %v", r.err)
	}
	if a.timesExecuted != 0 {
		t.Error("an abort must not be retried")
	}
}
