package ui

import (
	"crewbench/crew"
	"crewbench/crew/rerun"
	"crewbench/mcpconn"
	"crewbench/session"
)

// Snapshot is a read-only copy of where the workbench's Try, trace and
// sessions views ended up. It exists for the flows in package main that
// drive the workbench with the real engine adapters (which live there) and
// check what came of it; the views' state stays unexported. The pointers
// are shared with the model: read them, never change them.
type Snapshot struct {
	// TryResult is the last result of a call made in 4 Try (nil: none).
	TryResult *mcpconn.CallResult
	// Run is the trace's latest kickoff (nil: none was started).
	Run *RunSnapshot
	// TraceSource says what the trace shows ("run ID of CREW", a session
	// file, "re-run of NAME").
	TraceSource  string
	TraceSummary session.Summary
	// TraceBanner is the trace's verdict line.
	TraceBanner string
	// Rerun is the latest re-run started in 7 Sessions (nil: none).
	Rerun *RerunSnapshot
}

// RunSnapshot is a kickoff as the trace knows it.
type RunSnapshot struct {
	Done bool
	// Outcome is nil until the run's outcome arrived.
	Outcome *RunOutcome
	// Pause is the breakpoint the run waits at (nil: not paused). Each
	// pause is its own value, so a flow can tell two pauses apart that
	// look the same on screen (parallel calls of one tool): Bubble Tea
	// repaints only the lines that changed, so the second one's header
	// is never written again.
	Pause *crew.Pause
}

// RerunSnapshot is a re-run as the sessions view knows it.
type RerunSnapshot struct {
	// Path is the recorded session that was re-run.
	Path string
	// Filters are the tool filters the re-run tried, by server.
	Filters map[string]mcpconn.FilterSpec
	// Result is nil while the re-run is going (or when it failed).
	Result *rerun.Result
}

// Snapshot returns what the Try, trace and sessions views hold now.
func (m Model) Snapshot() Snapshot {
	s := Snapshot{
		TryResult:    m.try.result,
		TraceSource:  m.trace.source,
		TraceSummary: m.trace.summary,
		TraceBanner:  m.trace.banner(),
	}
	if r := m.trace.run; r != nil {
		s.Run = &RunSnapshot{Done: r.done, Outcome: r.outcome}
		if p := m.trace.pause; p != nil {
			s.Run.Pause = p.Pause
		}
	}
	if j := m.sessions.job; j != nil {
		s.Rerun = &RerunSnapshot{Path: j.path, Filters: j.filters, Result: j.res}
	}
	return s
}
