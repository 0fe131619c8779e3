package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/fixtures/demo"
	"crewbench/mcpconn"
	"crewbench/session"
)

// Re-running a recorded kickoff with the recorded LLM replies
// (`crewbench replay FILE --rerun`): the project as it is now (possibly
// with other filters, servers or faults) runs through the engine, every
// LLM call is answered from the recording by crew/llm's replay provider,
// and the first point where the run stops matching the recording is
// reported. Nothing here is CLI-specific, so the TUI can call rerunSession
// too.

// rerunOptions say what to re-run and what to change.
type rerunOptions struct {
	// SessionPath is the recorded session (for the replay provider and
	// messages); File is it loaded.
	SessionPath string
	File        *session.File
	// ProjectPath is the project to run; "" means the one the session
	// records (the embedded demo for a demo session).
	ProjectPath string
	Overlay     string
	// Allow and Block replace a server's tool filter with a static one;
	// Faults are added to a server's injected faults. Keys are server
	// names as `crewbench tools` shows them.
	Allow  map[string][]string
	Block  map[string][]string
	Faults map[string][]mcpconn.Fault
	// KeepGoing serves the recorded replies past a divergence (a what-if
	// run) instead of stopping the run at the first one.
	KeepGoing bool
	// Sink receives the new run's events (printer, recorder, exporter).
	Sink session.Sink
	// RunID names the new run; "" means a fresh id.
	RunID string
}

// rerunDivergence is where a re-run stopped matching its recording.
type rerunDivergence struct {
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

// rerunResult is what a re-run did.
type rerunResult struct {
	// Project is the project that ran; Notes what the engine cannot
	// reproduce of it.
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
	First *rerunDivergence
	All   []rerunDivergence
}

// Diverged reports whether the run left its recording.
func (r *rerunResult) Diverged() bool { return r.First != nil }

// rerunSession re-runs the recorded kickoff. An error means the run could
// not start (no project, a bad flag, a session without LLM calls); how the
// run itself went is in the result.
func rerunSession(ctx context.Context, o rerunOptions) (*rerunResult, error) {
	f := o.File
	if f == nil {
		return nil, errors.New("rerun: no session loaded")
	}
	abs, err := filepath.Abs(o.SessionPath)
	if err != nil {
		return nil, fmt.Errorf("rerun: %w", err)
	}
	mcp := &crew.MCP{}
	path, cleanup, err := rerunProject(f, o.ProjectPath, mcp)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	p, err := project.Open(path, o.Overlay)
	if err != nil {
		return nil, fmt.Errorf("open project: %w", err)
	}
	if err := applyServerChanges(p, o.Allow, o.Block, o.Faults); err != nil {
		return nil, err
	}
	c, notes, err := crew.FromProject(p, crew.ProjectOptions{LLM: "replay:" + abs})
	if err != nil {
		return nil, fmt.Errorf("rerun: %w", err)
	}
	res := &rerunResult{Project: p.Dir}
	for _, n := range notes {
		res.Notes = append(res.Notes, string(n))
	}
	if rc := recordedCrew(f); rc != "" && c.Name != "" && rc != c.Name {
		res.Notes = append(res.Notes, fmt.Sprintf("the session recorded crew %q; this project runs crew %q", rc, c.Name))
	}

	rp := newRerunProvider(f.Events, o.KeepGoing)
	if rp.replay.Len() == 0 {
		return nil, fmt.Errorf("%s records no LLM calls (no llm_call_completed or llm_call_failed events): there is nothing to replay", o.SessionPath)
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
	em := session.NewEmitter(sinks)
	runID := o.RunID
	if runID == "" {
		runID = session.NewID()
	}
	// Output files are not written: a re-run is an experiment, and must
	// not overwrite what the real run produced.
	res.Output, res.RunErr = crew.Kickoff(ctx, c, recordedInputs(f), crew.Options{Emitter: em, RunID: runID, MCP: mcp})
	res.Events = col.Events()
	res.Recorded, res.Served = rp.replay.Len(), rp.replay.Served()
	res.All, res.First = rp.result(res.Served)
	return res, nil
}

// rerunProject finds the project to run: the one given, else the one the
// session recorded (the embedded demo, materialized afresh, for a demo
// session). A demo session's fixture servers (`crewbench fixture NAME`)
// are started from this executable, as `crewbench run --demo` does, also
// when the demo project is given as PATH.
func rerunProject(f *session.File, given string, mcp *crew.MCP) (string, func(), error) {
	nothing := func() {}
	if demoSession, _ := f.Header.Meta["demo"].(bool); demoSession {
		dir, err := os.MkdirTemp("", "crewbench-rerun-")
		if err != nil {
			return "", nothing, fmt.Errorf("rerun: %w", err)
		}
		cleanup := func() { _ = os.RemoveAll(dir) }
		exe, err := os.Executable()
		if err != nil {
			cleanup()
			return "", nothing, fmt.Errorf("rerun: cannot find the crewbench executable for the demo's servers: %w", err)
		}
		mcp.SelfCommand = exe
		// A private TMPDIR gives the flaky fixture a fresh call counter,
		// as in the recorded run.
		mcp.SelfEnv = map[string]string{"TMPDIR": dir}
		path := given
		if path == "" {
			if path, err = demo.Materialize(filepath.Join(dir, "project")); err != nil {
				cleanup()
				return "", nothing, err
			}
		}
		return path, cleanup, nil
	}
	if given != "" {
		return given, nothing, nil
	}
	dir := f.Header.Project
	if dir == "" {
		return "", nothing, errors.New("the session does not say which project it ran; give it: crewbench replay FILE --rerun PATH")
	}
	if _, err := os.Stat(dir); err != nil {
		return "", nothing, fmt.Errorf("the recorded project %s is not there any more (%v); give its path: crewbench replay FILE --rerun PATH", session.RedactString(dir), errors.Unwrap(err))
	}
	return dir, nothing, nil
}

// recordedInputs are the kickoff inputs of the recorded run, as the crew
// saw them (its defaults merged with the given inputs).
func recordedInputs(f *session.File) map[string]any {
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

func recordedCrew(f *session.File) string {
	for _, ev := range f.Events {
		if ev.Kind == session.CrewKickoffStarted {
			return ev.Str(session.KeyCrewName)
		}
	}
	s, _ := f.Header.Meta["crew"].(string)
	return s
}

// applyServerChanges applies --allow/--block/--fault to the project's
// servers before the crew is built from it.
func applyServerChanges(p *project.Project, allow, block map[string][]string, faults map[string][]mcpconn.Fault) error {
	server := func(flag, name string) (*project.Server, error) {
		if s := p.Server(name); s != nil {
			return s, nil
		}
		names := p.ServerNames()
		if len(names) == 0 {
			return nil, fmt.Errorf("%s %s: the project has no MCP servers", flag, name)
		}
		return nil, fmt.Errorf("%s %s: the project has no server %q (servers: %s)", flag, name, name, strings.Join(names, ", "))
	}
	filtered := map[string]bool{}
	for _, m := range []map[string][]string{allow, block} {
		for name := range m {
			filtered[name] = true
		}
	}
	for _, name := range sortedNames(filtered) {
		flag := "--allow"
		if _, ok := allow[name]; !ok {
			flag = "--block"
		}
		s, err := server(flag, name)
		if err != nil {
			return err
		}
		// Like tool_filter in crewbench.yaml, the flags replace the
		// server's filter (a CEL expression included).
		s.Spec.Filter = mcpconn.FilterSpec{Allowed: allow[name], Blocked: block[name]}
	}
	names := make(map[string]bool, len(faults))
	for name := range faults {
		names[name] = true
	}
	for _, name := range sortedNames(names) {
		s, err := server("--fault", name)
		if err != nil {
			return err
		}
		s.Spec.Faults = append(append([]mcpconn.Fault(nil), s.Spec.Faults...), faults[name]...)
	}
	return nil
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// --- the provider -------------------------------------------------------------

// rerunProvider wraps the replay provider: it collects divergences, notices
// a run that asks for more calls than were recorded, and — unless the run
// keeps going — fails every call after the first divergence, so the
// engine's own retries cannot consume recorded replies out of order and
// report divergences that are only echoes of the first.
type rerunProvider struct {
	replay    *llm.Replay
	keepGoing bool

	mu      sync.Mutex
	divs    []llm.Divergence
	extra   *rerunDivergence
	stopped error
}

func newRerunProvider(events []session.Event, keepGoing bool) *rerunProvider {
	rp := &rerunProvider{keepGoing: keepGoing}
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

func (rp *rerunProvider) Model() string                 { return rp.replay.Model() }
func (rp *rerunProvider) SupportsFunctionCalling() bool { return rp.replay.SupportsFunctionCalling() }

func (rp *rerunProvider) Call(ctx context.Context, req llm.Request, onChunk func(llm.Chunk)) (llm.Response, error) {
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
		rp.extra = &rerunDivergence{Kind: "extra_call", LLMCall: before + 1, Recorded: rp.replay.Len(),
			Agent: req.Meta.AgentRole, Task: req.Meta.TaskName, Message: -1}
	}
	if !rp.keepGoing && llm.KindOf(err) == llm.KindReplay && rp.stopped == nil {
		rp.stopped = &llm.Error{Kind: llm.KindReplay, Provider: llm.ProviderReplay, Model: rp.replay.Model(),
			Message: "the run left the recording earlier; no more recorded replies are served (--keep-going serves them anyway)", Err: err}
	}
	return llm.Response{}, err
}

// result lists the divergences and picks the first.
func (rp *rerunProvider) result(served int) ([]rerunDivergence, *rerunDivergence) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	all := make([]rerunDivergence, 0, len(rp.divs))
	for _, d := range rp.divs {
		all = append(all, rerunDivergence{Kind: "request", LLMCall: d.Call, Recorded: rp.replay.Len(),
			Agent: d.Agent, Task: d.Task, Message: d.Message, Role: d.Role, Field: d.Field,
			WasText: d.Recorded, NowText: d.Got, Statement: d.Error()})
	}
	var first *rerunDivergence
	switch {
	case len(all) > 0:
		first = &all[0]
	case rp.extra != nil:
		first = rp.extra
	case served < rp.replay.Len():
		first = &rerunDivergence{Kind: "ended_early", LLMCall: served + 1, Recorded: rp.replay.Len(), Message: -1}
	}
	if first != nil && first.Statement == "" {
		first.Statement = first.text()
	}
	return all, first
}

func (d *rerunDivergence) text() string {
	switch d.Kind {
	case "extra_call":
		return fmt.Sprintf("the run went further than the recording: it asked for LLM call %d (agent %q, task %q), but the recording has %d",
			d.LLMCall, d.Agent, d.Task, d.Recorded)
	case "ended_early":
		return fmt.Sprintf("the run ended after %s of the %d recorded; recorded call %d was never made",
			rerunPlural(d.LLMCall-1, "LLM call", "LLM calls"), d.Recorded, d.LLMCall)
	}
	return fmt.Sprintf("diverged at LLM call %d of %d (agent %q, task %q): %s", d.LLMCall, d.Recorded, d.Agent, d.Task, d.Field)
}

func rerunPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
