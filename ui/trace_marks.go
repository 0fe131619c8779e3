package ui

import (
	"fmt"
	"time"

	"crewbench/session"
)

// What the trace says about decisions the user made: a call cancelled is
// not a failure, a tool skipped at a breakpoint was not called (its result
// was supplied), and time spent paused is not the step's own.

// splitCancelled takes the cancelled tool calls out of the summary's
// failures (Summary counts them together) and returns them apart.
func splitCancelled(s session.Summary) (session.Summary, []*session.Node) {
	var failed, cancelled []*session.Node
	for _, n := range s.FailedTools {
		if n.Status == session.StatusCancelled {
			cancelled = append(cancelled, n)
		} else {
			failed = append(failed, n)
		}
	}
	s.FailedTools = failed
	s.ToolFailures -= len(cancelled)
	return s, cancelled
}

// skippedResult is the result the user supplied for a tool skipped at a
// breakpoint (the engine marks its finished event "skipped").
func skippedResult(n *session.Node) (string, bool) {
	if n.Kind != session.NodeTool {
		return "", false
	}
	for _, ev := range n.Events {
		if ev.Kind == session.ToolUsageFinished && ev.Bool(session.KeySkipped) {
			return ev.Str(session.KeyOutput), true
		}
	}
	return "", false
}

// pausedIn is the time n and what is under it spent waiting at
// breakpoints: from each pause to its resume (or n's end when the run
// stopped there).
func pausedIn(n *session.Node) time.Duration {
	var d time.Duration
	var since time.Time
	for _, ev := range n.Events {
		switch ev.Kind {
		case session.StepPaused:
			since = ev.Time
		case session.StepResumed:
			if !since.IsZero() && ev.Time.After(since) {
				d += ev.Time.Sub(since)
			}
			since = time.Time{}
		}
	}
	if !since.IsZero() && n.Ended && n.End.After(since) {
		d += n.End.Sub(since)
	}
	for _, c := range n.Children {
		d += pausedIn(c)
	}
	return d
}

// durationCell is a node's time without the time it spent paused, and the
// paused time apart ("0.3s ⏸ 18.0s").
func durationCell(n *session.Node) string {
	if n.Duration <= 0 {
		return ""
	}
	paused := pausedIn(n)
	if paused <= 0 || paused > n.Duration {
		return fmtDur(n.Duration)
	}
	return fmt.Sprintf("%s ⏸ %s", fmtDur(n.Duration-paused), fmtDur(paused))
}
