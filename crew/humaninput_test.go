package crew

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"crewbench/crew/prompt"
	"crewbench/session"
)

// human_input: true (core/providers/human_input.py:237-264, 336-368;
// experimental/agent_executor.py:3213-3311): after the final answer the
// human is asked; feedback becomes the feedback_instructions user message
// (translations/en.json:31) after the assistant's answer, the executor runs
// again with the history kept, and a blank reply accepts the last answer.
func TestHumanInputFeedbackThenAccept(t *testing.T) {
	cases := []struct {
		name  string
		stdin string
	}{
		{"feedback, then an empty line", "Make it shorter.\n\n"},
		{"feedback, then the end of input", "Make it shorter.\r\n"},
		{"feedback without a newline before the end of input", "Make it shorter."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, "replies:\n  - \"Final Answer: A long first greeting.\"\n  - \"Final Answer: Hi.\"\n"))
			cr := greetingCrew(a)
			cr.Tasks[0].HumanInput = true
			var printed bytes.Buffer
			r := kickoff(t, cr, nil, Options{Stepper: NewLineFeedback(strings.NewReader(c.stdin), &printed)})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.out.Raw != "Hi." {
				t.Errorf("final %q", r.out.Raw)
			}
			const role = "You are Analyst. Careful.\nYour personal goal is: Find facts"
			first := []string{"system: " + role, "user: \nCurrent Task: " + promptTaskText + "\n\nProvide your complete response:"}
			second := append(append([]string{}, first...),
				"assistant: Final Answer: A long first greeting.",
				"user: User feedback: Make it shorter.\nInstructions: Use this feedback to enhance the next output iteration.\nNote: Do not respond or add commentary.")
			got := messageTexts(r)
			if len(got) != 2 || strings.Join(got[0], "\x00") != strings.Join(first, "\x00") || strings.Join(got[1], "\x00") != strings.Join(second, "\x00") {
				t.Fatalf("requests:\n got %q\nwant %q then %q", got, first, second)
			}
			// What a headless user sees: the answer, CrewAI's panel text, twice.
			out := printed.String()
			if strings.Count(out, prompt.HumanFeedbackTitle) != 2 || !strings.Contains(out, "A long first greeting.") ||
				!strings.Contains(out, "• If you are happy with the result, simply hit Enter without typing anything.") ||
				strings.Count(out, prompt.HumanFeedbackProcessing) != 1 {
				t.Errorf("printed:\n%s", out)
			}
			// The second run is one more executor flow inside the same agent
			// execution, between the two questions.
			want := []session.Kind{
				session.AgentExecutionStarted, session.FlowStarted, session.LLMCallStarted, session.FlowFinished,
				session.HumanInputRequested, session.StepPaused, session.StepResumed, session.HumanInputReceived,
				session.FlowStarted, session.LLMCallStarted, session.FlowFinished,
				session.HumanInputRequested, session.StepPaused, session.StepResumed, session.HumanInputReceived,
				session.AgentExecutionCompleted,
			}
			if got := r.kinds(want...); strings.Join(kindStrings(got), ",") != strings.Join(kindStrings(want), ",") {
				t.Errorf("events:\n got %v\nwant %v", got, want)
			}
			var feedback []string
			for _, ev := range r.events {
				if ev.Kind == session.HumanInputReceived {
					feedback = append(feedback, ev.Str(session.KeyFeedback))
				}
				if ev.Kind == session.HumanInputRequested && ev.Str("final_answer") == "" {
					t.Errorf("requested without the answer: %v", ev.Data)
				}
			}
			if strings.Join(feedback, "|") != "Make it shorter.|" {
				t.Errorf("feedback %q", feedback)
			}
		})
	}
}

// Headless (serve, tests) never pauses: the first answer is accepted.
func TestHumanInputHeadlessAccepts(t *testing.T) {
	a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, "replies:\n  - \"Final Answer: Hello.\"\n"))
	cr := greetingCrew(a)
	cr.Tasks[0].HumanInput = true
	r := kickoff(t, cr, nil, Options{})
	if r.err != nil || r.out.Raw != "Hello." || len(r.requests()) != 1 || r.count(session.HumanInputReceived) != 1 {
		t.Fatalf("err %v raw %q calls %d", r.err, r.out.Raw, len(r.requests()))
	}
}

// The TUI's stepper pauses for every human question, breakpoints or not,
// and answering it leaves the stepping mode alone; abort ends the run.
func TestHumanInputChanStepper(t *testing.T) {
	a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, "replies:\n  - \"Final Answer: One.\"\n  - \"Final Answer: Two.\"\n"))
	cr := greetingCrew(a)
	cr.Tasks[0].HumanInput = true
	st := NewChanStepper(Breakpoints{})
	done := make(chan result, 1)
	go func() { done <- kickoff(t, cr, nil, Options{Stepper: st}) }()
	next := func() *PauseRequest {
		select {
		case req := <-st.C:
			return req
		case <-time.After(time.Minute):
			t.Fatal("no pause")
		}
		return nil
	}
	req := next()
	if req.Pause.Kind != PauseHumanInput || req.Pause.FinalAnswer != "One." || req.Pause.TaskName != "greet" {
		t.Fatalf("pause %+v", req.Pause)
	}
	req.Reply(Decision{Action: Continue, Feedback: "Another one."})
	req = next()
	if req.Pause.Kind != PauseHumanInput || req.Pause.FinalAnswer != "Two." {
		t.Fatalf("second pause %+v", req.Pause)
	}
	req.Reply(Decision{Action: Abort})
	r := <-done
	if r.err != ErrAborted {
		t.Fatalf("err %v", r.err)
	}
}

// A cancelled run stops waiting for the terminal.
func TestHumanInputCancelled(t *testing.T) {
	a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, "replies:\n  - \"Final Answer: One.\"\n"))
	cr := greetingCrew(a)
	cr.Tasks[0].HumanInput = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdin, w := io.Pipe() // a terminal nobody types into
	defer w.Close()
	col := &session.Collector{}
	errc := make(chan error, 1)
	go func() {
		_, err := Kickoff(ctx, cr, nil, Options{Emitter: session.NewEmitter(col), Stepper: NewLineFeedback(stdin, io.Discard)})
		errc <- err
	}()
	for deadline := time.Now().Add(time.Minute); !hasKind(col.Events(), session.StepPaused); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the question was never asked")
		}
	}
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("a cancelled run must fail")
		}
	case <-time.After(time.Minute):
		t.Fatal("the run kept waiting for stdin")
	}
}

func hasKind(events []session.Event, k session.Kind) bool {
	for _, ev := range events {
		if ev.Kind == k {
			return true
		}
	}
	return false
}

// After a fallback to ReAct, a feedback iteration checks native support
// again (agent_executor.py:1374-1386, 3256-3271): tools are offered
// natively once more, and a provider that refuses them falls back again,
// appending the fallback notice a second time.
func TestHumanInputAfterReActFallback(t *testing.T) {
	a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, "replies:\n  - error: unsupported_tools\n  - \"Final Answer: one\"\n  - error: unsupported_tools\n  - \"Final Answer: two\"\n"))
	a.Tools = []Tool{pingTool()}
	cr := greetingCrew(a)
	cr.Tasks[0].HumanInput = true
	r := kickoff(t, cr, nil, Options{Stepper: NewLineFeedback(strings.NewReader("again\n"), io.Discard)})
	if r.err != nil || r.out.Raw != "two" {
		t.Fatalf("err %v raw %q", r.err, r.out.Raw)
	}
	var offered []int
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallStarted {
			tools, _ := ev.Data["tools"].([]any)
			offered = append(offered, len(tools))
		}
	}
	notices := 0
	for _, m := range r.out.TasksOutput[0].Messages {
		if strings.HasPrefix(m.Content, prompt.NativeFallback) {
			notices++
		}
	}
	if len(offered) != 4 || offered[0] == 0 || offered[1] != 0 || offered[2] == 0 || offered[3] != 0 || notices != 2 {
		t.Errorf("tools offered per call %v, fallback notices %d", offered, notices)
	}
}
