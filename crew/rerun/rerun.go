// Package rerun re-runs a recorded kickoff offline: the project as it is
// now (possibly with other tool filters or injected faults) runs through
// the engine, every LLM call is answered from the recording by crew/llm's
// replay provider, and the first point where the run stops matching the
// recording is reported. No API key, no LLM cost.
//
// Both `crewbench replay FILE --rerun` and the workbench's sessions view
// use it; what is CLI-specific (flags, finding the project a session
// recorded, printing) stays with the caller.
package rerun

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/session"
)

// Options say what to re-run and what to change.
type Options struct {
	// File is the recorded session; Path is its file, which the replay:
	// provider names (and reads) when the crew is built.
	File *session.File
	Path string
	// Project is the project to run. Changes are applied to it in place, so
	// pass one opened for this re-run.
	Project *project.Project
	Changes Changes
	// KeepGoing serves the recorded replies past a divergence (a what-if
	// run) instead of stopping the run at the first one.
	KeepGoing bool
	// MCP reaches the crew's servers (SelfCommand for the demo's fixtures);
	// nil means a fresh crew.MCP.
	MCP *crew.MCP
	// Sink receives the new run's events as they happen.
	Sink session.Sink
	// RunID names the new run; "" means a fresh id.
	RunID string
}

// Changes are what a re-run changes about the project's servers. Keys are
// server names as `crewbench tools` and the workbench show them.
type Changes struct {
	// Filters replace a server's tool filter, as tool_filter in
	// crewbench.yaml does (a CEL expression included).
	Filters map[string]mcpconn.FilterSpec
	// Faults are added to a server's injected faults.
	Faults map[string][]mcpconn.Fault
}

// UnknownServerError says a change names a server the project does not have.
type UnknownServerError struct {
	Server string
	// Known are the project's server names, in order.
	Known []string
}

func (e *UnknownServerError) Error() string {
	if len(e.Known) == 0 {
		return "the project has no MCP servers"
	}
	return fmt.Sprintf("the project has no server %q (servers: %s)", e.Server, strings.Join(e.Known, ", "))
}

// Apply applies the changes to p's servers: filters first, then faults,
// each in server-name order. The first unknown server stops it with an
// *UnknownServerError.
func (c Changes) Apply(p *project.Project) error {
	for _, name := range slices.Sorted(maps.Keys(c.Filters)) {
		s, err := server(p, name)
		if err != nil {
			return err
		}
		f := c.Filters[name]
		s.Spec.Filter = mcpconn.FilterSpec{Allowed: append([]string(nil), f.Allowed...),
			Blocked: append([]string(nil), f.Blocked...), Expr: f.Expr}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Faults)) {
		s, err := server(p, name)
		if err != nil {
			return err
		}
		s.Spec.Faults = append(append([]mcpconn.Fault(nil), s.Spec.Faults...), c.Faults[name]...)
	}
	return nil
}

// server finds a server by its name, or by the handle mcpconn shows for
// its spec (the same thing for every named server).
func server(p *project.Project, name string) (*project.Server, error) {
	if s := p.Server(name); s != nil {
		return s, nil
	}
	for _, s := range p.Servers {
		if mcpconn.Handle(s.Spec) == name {
			return s, nil
		}
	}
	return nil, &UnknownServerError{Server: name, Known: p.ServerNames()}
}

// Divergence is where a re-run stopped matching its recording. Its JSON
// form is part of `crewbench replay --rerun --json`.
type Divergence struct {
	// Kind is "request" (a request differs from the recorded one),
	// "extra_call" (the run asked for more LLM calls than were recorded) or
	// "ended_early" (the run ended before using every recorded reply).
	Kind     string `json:"kind"`
	LLMCall  int    `json:"llm_call"`
	Recorded int    `json:"recorded_calls"`
	Agent    string `json:"agent"`
	Task     string `json:"task"`
	// Message is the index of the first differing message (-1 when the
	// caller differs or for the other kinds); Role its role; Field what
	// differs ("content", "tool_calls", "count", "agent", …).
	Message   int    `json:"message"`
	Role      string `json:"role"`
	Field     string `json:"field"`
	WasText   string `json:"recorded"`
	NowText   string `json:"now"`
	Statement string `json:"text"`
}

// Kinds of divergence.
const (
	KindRequest    = "request"
	KindExtraCall  = "extra_call"
	KindEndedEarly = "ended_early"
)

// Detail says what differs in a request divergence, in words ("message 3
// (tool) differs in content"); "" for the other kinds.
func (d *Divergence) Detail() string {
	if d.Kind != KindRequest {
		return ""
	}
	switch d.Field {
	case "agent", "task":
		return "the recorded call was made by a different " + d.Field
	case "count":
		return fmt.Sprintf("message %d (%s) is present on one side only", d.Message, d.Role)
	}
	return fmt.Sprintf("message %d (%s) differs in %s", d.Message, d.Role, d.Field)
}

func (d *Divergence) text() string {
	switch d.Kind {
	case KindExtraCall:
		return fmt.Sprintf("the run went further than the recording: it asked for LLM call %d (agent %q, task %q), but the recording has %d",
			d.LLMCall, d.Agent, d.Task, d.Recorded)
	case KindEndedEarly:
		return fmt.Sprintf("the run ended after %s of the %d recorded; recorded call %d was never made",
			countNoun(d.LLMCall-1, "LLM call", "LLM calls"), d.Recorded, d.LLMCall)
	}
	return fmt.Sprintf("diverged at LLM call %d of %d (agent %q, task %q): %s", d.LLMCall, d.Recorded, d.Agent, d.Task, d.Field)
}

// countNoun renders "1 LLM call", "3 LLM calls".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Result is what a re-run did.
type Result struct {
	// Project is the project that ran; Notes what the engine cannot
	// reproduce of it, and how it differs from what the session recorded.
	Project string
	Notes   []string
	// Events are the new run's events.
	Events []session.Event
	Output *crew.CrewOutput
	RunErr error
	// Recorded and Served count the recorded LLM calls and those used.
	Recorded, Served int
	// First is the first divergence (nil when the run followed the
	// recording to its end); All lists every request divergence met (more
	// than one only with KeepGoing).
	First *Divergence
	All   []Divergence
	// Recording is the session file the re-run was recorded to, when the
	// caller recorded it (Run itself writes no file).
	Recording string
}

// Diverged reports whether the run left its recording.
func (r *Result) Diverged() bool { return r.First != nil }

// Verdict says how the run itself ended, in words.
func (r *Result) Verdict() string {
	switch {
	case r.RunErr != nil:
		s := r.RunErr.Error()
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i] + " …"
		}
		return "failed: " + s
	case r.Output != nil && r.Output.HasToolFailures():
		return "finished with tool failures"
	}
	return "finished"
}

// Run re-runs the recorded kickoff. An error means the run could not start
// (no session, an unknown server, a session without LLM calls, a project
// the engine cannot build); how the run itself went is in the result.
func Run(ctx context.Context, o Options) (*Result, error) {
	f, p := o.File, o.Project
	if f == nil {
		return nil, errors.New("rerun: no session loaded")
	}
	if p == nil {
		return nil, errors.New("rerun: no project to run")
	}
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, fmt.Errorf("rerun: %w", err)
	}
	if err := o.Changes.Apply(p); err != nil {
		return nil, err
	}
	c, notes, err := crew.FromProject(p, crew.ProjectOptions{LLM: "replay:" + abs})
	if err != nil {
		return nil, fmt.Errorf("rerun: %w", err)
	}
	rp := NewProvider(f.Events, o.KeepGoing)
	if rp.replay.Len() == 0 {
		return nil, fmt.Errorf("%s records no LLM calls (no llm_call_completed or llm_call_failed events): there is nothing to replay", o.Path)
	}
	res := &Result{Project: p.Dir}
	for _, n := range notes {
		res.Notes = append(res.Notes, string(n))
	}
	if rc := RecordedCrew(f); rc != "" && c.Name != "" && rc != c.Name {
		res.Notes = append(res.Notes, fmt.Sprintf("the session recorded crew %q; this project runs crew %q", rc, c.Name))
	}
	// One provider for every agent: the recording is one sequence of calls,
	// whoever made them.
	swap := func(a *crew.Agent) {
		if a != nil {
			a.LLM = rp
		}
	}
	for _, a := range c.Agents {
		swap(a)
	}
	for _, t := range c.Tasks {
		swap(t.Agent)
	}
	swap(c.ManagerAgent)
	if c.ManagerLLM != nil {
		c.ManagerLLM = rp
	}

	var col session.Collector
	sinks := session.Fanout{&col}
	if o.Sink != nil {
		sinks = append(sinks, o.Sink)
	}
	runID := o.RunID
	if runID == "" {
		runID = session.NewID()
	}
	mcp := o.MCP
	if mcp == nil {
		mcp = &crew.MCP{}
	}
	// Output files are not written: a re-run is an experiment, and must
	// not overwrite what the real run produced.
	// The human answers and the dates are the recorded run's, so a re-run
	// of a human_input or inject_date crew asks the same things.
	res.Output, res.RunErr = crew.Kickoff(ctx, c, RecordedInputs(f), crew.Options{
		Emitter: session.NewEmitter(sinks), RunID: runID, MCP: mcp,
		Stepper: newRecordedFeedback(f.Events), Now: recordedClock(f.Events),
	})
	res.Events = col.Events()
	res.Recorded, res.Served = rp.replay.Len(), rp.replay.Served()
	res.All, res.First = rp.Result(res.Served)
	return res, nil
}

// RecordedInputs are the kickoff inputs of the recorded run, as the crew
// saw them (its defaults merged with the given inputs).
func RecordedInputs(f *session.File) map[string]any {
	for _, ev := range f.Events {
		if ev.Kind == session.CrewKickoffStarted {
			if m, ok := ev.Data[session.KeyInputs].(map[string]any); ok {
				return m
			}
			break
		}
	}
	if m, ok := f.Header.Meta["inputs"].(map[string]any); ok {
		return m
	}
	return nil
}

// RecordedCrew is the name of the crew the session ran ("" if unknown).
func RecordedCrew(f *session.File) string {
	for _, ev := range f.Events {
		if ev.Kind == session.CrewKickoffStarted {
			return ev.Str(session.KeyCrewName)
		}
	}
	s, _ := f.Header.Meta["crew"].(string)
	return s
}

// IsDemo reports whether the session recorded a run of the embedded demo.
func IsDemo(f *session.File) bool {
	demo, _ := f.Header.Meta["demo"].(bool)
	return demo
}

// --- the provider -------------------------------------------------------------

// Provider wraps the replay provider: it collects divergences, notices a
// run that asks for more calls than were recorded, and — unless the run
// keeps going — fails every call after the first divergence, so the
// engine's own retries cannot consume recorded replies out of order and
// report divergences that are only echoes of the first.
type Provider struct {
	replay    *llm.Replay
	keepGoing bool

	mu      sync.Mutex
	divs    []llm.Divergence
	extra   *Divergence
	stopped error
}

// NewProvider serves the LLM replies recorded among events.
func NewProvider(events []session.Event, keepGoing bool) *Provider {
	rp := &Provider{keepGoing: keepGoing}
	rp.replay = llm.NewReplay(events, llm.ReplayOptions{
		ContinueOnDivergence: keepGoing,
		OnDivergence: func(d llm.Divergence) {
			rp.mu.Lock()
			rp.divs = append(rp.divs, d)
			rp.mu.Unlock()
		},
	})
	return rp
}

// Model implements llm.Provider.
func (rp *Provider) Model() string { return rp.replay.Model() }

// SupportsFunctionCalling implements llm.Provider.
func (rp *Provider) SupportsFunctionCalling() bool { return rp.replay.SupportsFunctionCalling() }

// ServesInOrder is the replay's: true (llm.ServesInOrder).
func (rp *Provider) ServesInOrder() bool { return rp.replay.ServesInOrder() }

// Recorded is the number of recorded LLM calls; Served how many were used.
func (rp *Provider) Recorded() int { return rp.replay.Len() }

// Served is the number of recorded replies served so far.
func (rp *Provider) Served() int { return rp.replay.Served() }

// Call implements llm.Provider.
func (rp *Provider) Call(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
	rp.mu.Lock()
	stopped := rp.stopped
	rp.mu.Unlock()
	if stopped != nil {
		return llm.Response{}, stopped
	}
	before := rp.replay.Served()
	resp, err := rp.replay.Call(ctx, req, onChunk)
	if err == nil {
		return resp, nil
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if llm.KindOf(err) == llm.KindReplay && before == rp.replay.Len() && rp.extra == nil {
		rp.extra = &Divergence{Kind: KindExtraCall, LLMCall: before + 1, Recorded: rp.replay.Len(),
			Agent: req.Meta.AgentRole, Task: req.Meta.TaskName, Message: -1}
	}
	if !rp.keepGoing && llm.KindOf(err) == llm.KindReplay && rp.stopped == nil {
		rp.stopped = &llm.Error{Kind: llm.KindReplay, Provider: llm.ProviderReplay, Model: rp.replay.Model(),
			Message: "the run left the recording earlier; no more recorded replies are served (--keep-going serves them anyway)", Err: err}
	}
	return llm.Response{}, err
}

// Result lists the divergences and picks the first; served is the number
// of recorded replies the run used.
func (rp *Provider) Result(served int) ([]Divergence, *Divergence) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	all := make([]Divergence, 0, len(rp.divs))
	for _, d := range rp.divs {
		all = append(all, Divergence{Kind: KindRequest, LLMCall: d.Call, Recorded: rp.replay.Len(),
			Agent: d.Agent, Task: d.Task, Message: d.Message, Role: d.Role, Field: d.Field,
			WasText: d.Recorded, NowText: d.Got, Statement: d.Error()})
	}
	var first *Divergence
	switch {
	case len(all) > 0:
		first = &all[0]
	case rp.extra != nil:
		first = rp.extra
	case served < rp.replay.Len():
		first = &Divergence{Kind: KindEndedEarly, LLMCall: served + 1, Recorded: rp.replay.Len(), Message: -1}
	}
	if first != nil && first.Statement == "" {
		first.Statement = first.text()
	}
	return all, first
}

// recordedFeedback answers a re-run's human-input questions with what the
// human answered in the recording, in order, and accepts once those are
// used up; every other pause continues.
type recordedFeedback struct {
	mu      sync.Mutex
	answers []string
}

func newRecordedFeedback(events []session.Event) *recordedFeedback {
	s := &recordedFeedback{}
	for _, ev := range events {
		if ev.Kind == session.HumanInputReceived {
			s.answers = append(s.answers, ev.Str(session.KeyFeedback))
		}
	}
	return s
}

// Before implements crew.Stepper.
func (s *recordedFeedback) Before(_ context.Context, p *crew.Pause) (crew.Decision, error) {
	if p.Kind != crew.PauseHumanInput {
		return crew.Decision{Action: crew.Continue}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := crew.Decision{Action: crew.Continue}
	if len(s.answers) > 0 {
		d.Feedback, s.answers = s.answers[0], s.answers[1:]
	}
	return d, nil
}

// recordedClock runs from the recorded kickoff's time (in its zone, as
// datetime.now() saw it) at the real pace, so rpm limits still pass; nil
// (the wall clock) when the recording has no kickoff.
func recordedClock(events []session.Event) func() time.Time {
	for _, ev := range events {
		if ev.Kind == session.CrewKickoffStarted && !ev.Time.IsZero() {
			at, start := ev.Time, time.Now()
			return func() time.Time { return at.Add(time.Since(start)) }
		}
	}
	return nil
}
