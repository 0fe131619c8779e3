package crew

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/session"
)

// human_input: after a task's final answer CrewAI asks a human for
// feedback (SyncHumanInputProvider, core/providers/human_input.py). A blank
// reply accepts the answer; anything else goes back to the agent as the
// feedback_instructions user message, the executor runs again with its
// history kept, and the human is asked again. CrewAI emits no event for
// this (its HumanFeedback* events belong to Flow's @human_feedback), so
// crewbench records its own: crewbench_human_input_requested and
// crewbench_human_input_received. The answer comes from the Stepper (a
// PauseHumanInput pause): the TUI asks in a text field, `crewbench run`
// reads a line of stdin (LineFeedback), and Headless accepts at once.

// humanFeedback is _handle_regular_feedback (human_input.py:237-264) with
// the executor's _invoke_loop (experimental/agent_executor.py:3256-3284):
// iterations back to 0, the messages kept, one more executor flow.
func (ar *agentRun) humanFeedback(ctx context.Context, answer string) (string, error) {
	for {
		feedback, err := ar.rs.askHuman(ctx, ar, answer)
		if err != nil {
			return "", err
		}
		if prompt.Blank(feedback) {
			return answer, nil
		}
		msg := prompt.Fill(prompt.FeedbackInstructions, "{feedback}", feedback)
		ar.appendMsg(llm.Message{Role: llm.RoleUser, Content: prompt.RStrip(msg)})
		ar.iterations = 0
		if ar.fellBack {
			// use_native_tools is reset and native support checked again
			// (agent_executor.py:1374-1386): the next call offers the tools
			// natively, and a provider that refuses them falls back again.
			ar.mode, ar.fellBack = prompt.ModeNative, false
		}
		if answer, err = ar.flow(ctx); err != nil {
			return "", err
		}
	}
}

// askHuman asks the stepper for the human's feedback on answer, between
// the two crewbench events.
func (rs *runState) askHuman(ctx context.Context, ar *agentRun, answer string) (string, error) {
	ev := ar.base
	ev.Kind, ev.Parent = session.HumanInputRequested, ar.span
	ev.Data = map[string]any{"final_answer": answer, "title": prompt.HumanFeedbackTitle, session.KeyMessage: prompt.HumanFeedbackPrompt, "task": taskData(ar.tr)}
	rs.emit(ev)
	d, err := rs.pause(ctx, &Pause{
		Kind: PauseHumanInput, RunID: rs.runID, TaskName: ar.tr.name, AgentRole: ar.p.role, Span: ar.span, FinalAnswer: answer,
	}, ar.base, ar.span)
	if err != nil {
		return "", err
	}
	ev = ar.base
	ev.Kind, ev.Parent = session.HumanInputReceived, ar.span
	ev.Data = map[string]any{session.KeyFeedback: d.Feedback, "accepted": prompt.Blank(d.Feedback)}
	if !prompt.Blank(d.Feedback) {
		ev.Data[session.KeyMessage] = prompt.HumanFeedbackProcessing
	}
	rs.emit(ev)
	return d.Feedback, nil
}

// LineFeedback answers human-input pauses with one line read from a reader
// (input() in CrewAI), after printing CrewAI's panel to out; end of input
// or a blank line accepts the answer. Every other pause continues at once:
// it is the stepper of a headless run.
type LineFeedback struct {
	out io.Writer
	in  *bufio.Reader

	mu      sync.Mutex
	pending chan lineRead // a read still under way after a cancelled ask
}

type lineRead struct {
	line string
	err  error
}

// NewLineFeedback reads feedback lines from in and prints the prompts to out.
func NewLineFeedback(in io.Reader, out io.Writer) *LineFeedback {
	return &LineFeedback{out: out, in: bufio.NewReader(in)}
}

// Before implements Stepper.
func (s *LineFeedback) Before(ctx context.Context, p *Pause) (Decision, error) {
	if p.Kind != PauseHumanInput {
		return Decision{Action: Continue}, nil
	}
	fmt.Fprintf(s.out, "\nFinal answer of %s for %s:\n%s\n\n%s\n%s\n> ", p.AgentRole, p.TaskName, p.FinalAnswer, prompt.HumanFeedbackTitle, prompt.HumanFeedbackPrompt)
	p.Paused()
	line, err := s.readLine(ctx)
	if err != nil {
		return Decision{}, err
	}
	if !prompt.Blank(line) {
		fmt.Fprintln(s.out, "\n"+prompt.HumanFeedbackProcessing)
	}
	return Decision{Action: Continue, Feedback: line}, nil
}

// readLine reads one line without its line ending; at the end of input
// it returns what is left (nothing: no feedback). The read runs on its own
// goroutine so a cancelled run does not wait for the terminal; its line is
// kept for the next ask.
func (s *LineFeedback) readLine(ctx context.Context) (string, error) {
	s.mu.Lock()
	ch := s.pending
	if ch == nil {
		ch = make(chan lineRead, 1)
		s.pending = ch
		go func() {
			line, err := s.in.ReadString('\n')
			ch <- lineRead{line: line, err: err}
		}()
	}
	s.mu.Unlock()
	select {
	case r := <-ch:
		s.mu.Lock()
		s.pending = nil
		s.mu.Unlock()
		if r.err != nil && r.err != io.EOF {
			return "", fmt.Errorf("reading human feedback: %w", r.err)
		}
		return strings.TrimSuffix(strings.TrimSuffix(r.line, "\n"), "\r"), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
