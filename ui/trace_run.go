package ui

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew"
	"crewbench/session"
)

// The trace's crew run: kicking one off with a stepper the pane answers,
// stopping it, and remembering its events for 7 Sessions.

// activeRun is the kickoff in progress (or the last one).
type activeRun struct {
	gen       int
	handle    *RunHandle
	stepper   *crew.ChanStepper
	bp        crew.Breakpoints // the kickoff's breakpoints (step mode adds Every until continued)
	stepStart bool
	ctx       context.Context
	cancel    context.CancelFunc
	crew      string
	started   time.Time
	done      bool
	outcome   *RunOutcome
	events    bool // the event stream is still open
	real      bool // a watched real CrewAI run (StartWatch)
	// unmatched: the warnings for tool= and server= breakpoints that
	// named nothing the run had (they come as the run ends).
	unmatched []session.Event
}

// noteUnmatched keeps the run's unmatched-breakpoint warnings among evs,
// and reports whether there were any.
func (p *tracePane) noteUnmatched(evs []session.Event) bool {
	found := false
	for _, ev := range evs {
		if ev.Kind == session.Warning && ev.Str(session.KeyBreakpoint) != "" {
			p.run.unmatched = append(p.run.unmatched, ev)
			found = true
		}
	}
	return found
}

// unmatchedNotice says which breakpoints never paused, in a line: the
// first one's spec and the name meant; the warning in the trace lists the
// run's names.
func (p *tracePane) unmatchedNotice() tea.Cmd {
	u := p.run.unmatched
	msg := fmt.Sprintf("run finished, but breakpoint %s never paused: the run has no such name", u[0].Str(session.KeyBreakpoint))
	if g := u[0].Str(session.KeyDidYouMean); g != "" {
		msg += " — did you mean " + g + "?"
	}
	if len(u) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(u)-1)
	}
	return notice(noticeWarn, "%s", msg)
}

// runRecord keeps the events of the latest kickoff made in this
// workbench, so 7 Sessions can compare a recording with "this run" even
// after the trace shows something else.
type runRecord struct {
	gen    int
	label  string
	events []session.Event
	done   bool
}

// StartRun kicks off a crew with a stepper the pane answers.
func (p *tracePane) StartRun(ctx context.Context, r Runner, msg startRunMsg) tea.Cmd {
	if r == nil {
		return notice(noticeError, "this workspace has no crew to run")
	}
	if p.run != nil && !p.run.done {
		return notice(noticeWarn, "a run is in progress: X stops it first")
	}
	p.gen++
	bp := msg.bp
	if msg.step {
		bp.Every = true
	}
	stepper := crew.NewChanStepper(bp)
	rctx, cancel := context.WithCancel(ctx)
	p.run = &activeRun{gen: p.gen, stepper: stepper, bp: msg.bp, stepStart: msg.step, ctx: rctx, cancel: cancel,
		crew: msg.req.Crew, started: p.now(), events: true}
	p.last = &runRecord{gen: p.gen, label: "the run of " + msg.req.Crew}
	p.reset("run of " + msg.req.Crew)
	req := msg.req
	req.Stepper = stepper
	return tea.Batch(startRun(rctx, r, p.gen, req), waitForPause(rctx, p.gen, stepper),
		notice(noticeInfo, "kicking off %s…", msg.req.Crew))
}

// Stop cancels the run in progress (quit, or X).
func (p *tracePane) Stop() {
	if p.run != nil && p.run.cancel != nil && !p.run.done {
		p.run.cancel()
	}
}

// waitFinished waits up to d for the run (cancelled or not) to release
// everything, so quitting never cuts its recording short.
func (p tracePane) waitFinished(d time.Duration) {
	if p.run == nil || p.run.handle == nil || p.run.handle.Finished == nil {
		return
	}
	select {
	case <-p.run.handle.Finished:
	case <-time.After(d):
	}
}

// LastRun is a snapshot of the latest kickoff's events and its label; ok
// is false when no run was made in this workbench.
func (p tracePane) LastRun() (label string, events []session.Event, done, ok bool) {
	if p.last == nil {
		return "", nil, false, false
	}
	return p.last.label, append([]session.Event(nil), p.last.events...), p.last.done, true
}

// runBadge is the header's run summary.
func (p tracePane) runBadge() string {
	switch {
	case p.run == nil:
		return ""
	case p.pause != nil:
		return "⏸ paused"
	case !p.run.done:
		return "▶ running"
	case p.run.outcome != nil && p.run.outcome.Err != nil:
		return "✕ run failed"
	case p.summary.ToolFailures > 0:
		return fmt.Sprintf("⚠ run done, %s", pluralize(p.summary.ToolFailures, "tool failure"))
	}
	return "✓ run done"
}
