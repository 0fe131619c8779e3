package crew

import (
	"context"
	"errors"
	"strings"
	"sync"

	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
)

// PauseKind says what the engine is about to do.
type PauseKind string

// Pause kinds.
const (
	PauseLLMCall  PauseKind = "llm_call"
	PauseToolCall PauseKind = "tool_call"
	// PauseHumanInput asks for a human's feedback on a human_input task's
	// final answer (Decision.Feedback; blank accepts). Every stepper that
	// pauses at all must answer it, breakpoints or not.
	PauseHumanInput PauseKind = "human_input"
)

// Pause is everything a UI needs to show before an LLM or tool call, or
// when a human_input task asks for feedback.
type Pause struct {
	Kind      PauseKind
	RunID     string
	TaskName  string
	AgentRole string
	// Span is the step (for an LLM call) or tool-call span.
	Span string
	// AfterFailure is set when the agent's previous tool call failed.
	AfterFailure bool

	// LLM call: the full messages and the tools offered (native mode).
	Messages []llm.Message
	Tools    []llm.Tool
	Mode     string
	Model    string

	// Tool call: the name the model asked for, the tool it resolved to
	// (LLM name and the server's original name), the server, and the
	// arguments.
	RequestedName string
	ToolName      string
	OriginalName  string
	Server        string
	Args          *pyjson.Object
	// Schema is the tool's argument model as a JSON schema (what the
	// provider's cleanup renders for the LLM); RawSchema the MCP server's
	// inputSchema as listed (nil for other tools). Both nil when unknown.
	Schema, RawSchema *pyjson.Object

	// Human input: the final answer the human reviews.
	FinalAnswer string

	onPause func()
}

// Paused must be called by a Stepper right before it blocks waiting for a
// decision, so the engine can record the pause (crewbench_step_paused).
func (p *Pause) Paused() {
	if p.onPause != nil {
		p.onPause()
		p.onPause = nil
	}
}

// Action is a stepping decision.
type Action string

// Decisions.
const (
	// Continue runs the call and pauses again only at the next breakpoint.
	Continue Action = "continue"
	// Step runs the call and pauses at the very next LLM or tool call.
	Step Action = "step"
	// Skip (tool calls) does not run the tool; Decision.Result is the
	// canned result the model sees.
	Skip Action = "skip"
	// EditArgs (tool calls) runs the tool with Decision.Args.
	EditArgs Action = "edit_args"
	// EditReply (LLM calls) does not call the LLM; Decision.Reply is used
	// as its answer.
	EditReply Action = "edit_reply"
	// Abort stops the run with ErrAborted.
	Abort Action = "abort"
)

// Decision is a Stepper's answer.
type Decision struct {
	Action Action
	Result string
	Args   *pyjson.Object
	Reply  *llm.Response
	// Feedback answers a PauseHumanInput: blank accepts the answer.
	Feedback string
}

// ErrAborted is returned when a stepper aborts the run.
var ErrAborted = errors.New("run aborted at a breakpoint")

// Stepper is consulted before each LLM call and each tool call. It may block
// (a UI waiting for the user) but must return when ctx is done.
type Stepper interface {
	Before(ctx context.Context, p *Pause) (Decision, error)
}

// Headless never pauses.
type Headless struct{}

// Before implements Stepper.
func (Headless) Before(context.Context, *Pause) (Decision, error) {
	return Decision{Action: Continue}, nil
}

// Breakpoints decide where a ChanStepper pauses.
type Breakpoints struct {
	// Every pauses before every LLM and tool call.
	Every bool
	// Tools pause before calls to these tools (LLM name, display or
	// original name, case-insensitive).
	Tools []string
	// Servers pause before calls to any tool of these servers.
	Servers []string
	// OnFailure pauses at the first call after a tool failure.
	OnFailure bool
	// LLMCalls pauses before every LLM call.
	LLMCalls bool
}

// Match reports whether p hits a breakpoint.
func (b Breakpoints) Match(p *Pause) bool {
	if b.Every {
		return true
	}
	if b.OnFailure && p.AfterFailure {
		return true
	}
	if p.Kind == PauseLLMCall {
		return b.LLMCalls
	}
	for _, t := range b.Tools {
		if strings.EqualFold(t, p.ToolName) || strings.EqualFold(t, p.OriginalName) || strings.EqualFold(t, p.RequestedName) {
			return true
		}
	}
	for _, s := range b.Servers {
		if p.Server != "" && strings.EqualFold(s, p.Server) {
			return true
		}
	}
	return false
}

// PauseRequest is a pause delivered to a UI; it must call Reply exactly once.
type PauseRequest struct {
	Pause *Pause
	reply chan Decision
}

// Reply answers the pause.
func (r *PauseRequest) Reply(d Decision) {
	select {
	case r.reply <- d:
	default:
	}
}

// ChanStepper pauses at breakpoints, and at every human-input question, by
// sending a PauseRequest on C and waiting for the reply. Pauses are
// serialised: parallel tool calls queue up one at a time. Change
// breakpoints with SetBreakpoints at any time.
type ChanStepper struct {
	C <-chan *PauseRequest

	c        chan *PauseRequest
	mu       sync.Mutex
	bp       Breakpoints
	stepping bool
	one      sync.Mutex // one pause at a time
}

// NewChanStepper returns a stepper with the given breakpoints.
func NewChanStepper(bp Breakpoints) *ChanStepper {
	c := make(chan *PauseRequest)
	return &ChanStepper{C: c, c: c, bp: bp}
}

// SetBreakpoints replaces the breakpoints.
func (s *ChanStepper) SetBreakpoints(bp Breakpoints) {
	s.mu.Lock()
	s.bp = bp
	s.mu.Unlock()
}

// Breakpoints returns the current breakpoints.
func (s *ChanStepper) Breakpoints() Breakpoints {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bp
}

// Before implements Stepper.
func (s *ChanStepper) Before(ctx context.Context, p *Pause) (Decision, error) {
	s.mu.Lock()
	human := p.Kind == PauseHumanInput
	pause := human || s.stepping || s.bp.Match(p)
	s.mu.Unlock()
	if !pause {
		return Decision{Action: Continue}, nil
	}
	s.one.Lock()
	defer s.one.Unlock()
	p.Paused()
	req := &PauseRequest{Pause: p, reply: make(chan Decision, 1)}
	select {
	case s.c <- req:
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
	select {
	case d := <-req.reply:
		if !human { // answering a human keeps the stepping mode as it was
			s.mu.Lock()
			s.stepping = d.Action == Step
			s.mu.Unlock()
		}
		return d, nil
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
}
