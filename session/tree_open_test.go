package session

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// openOutline is outline plus, for a closed scope, what closed it and
// when (seconds since t0), and its duration.
func openOutline(t *Tree, t0 time.Time) string {
	var b strings.Builder
	t.Walk(func(n *Node, depth int) bool {
		fmt.Fprintf(&b, "%s%s %s", strings.Repeat("  ", depth-1), n.Span, n.Status)
		if n.Status == StatusUnfinished {
			by := "run end"
			if n.ClosedBy != nil {
				by = n.ClosedBy.Span
			}
			fmt.Fprintf(&b, " by %s at %gs after %s", by, n.End.Sub(t0).Seconds(), n.Duration)
		}
		b.WriteString("\n")
		return true
	})
	return b.String()
}

// The closing rule (Tree.Add, Tree.Finish): a scope's end closes every
// scope still open under it, and a finished session closes what is left;
// a live run keeps open scopes running, and a scope's own end always wins.
func TestTreeClosesOpenScopes(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	start := func(k Kind, span, parent string, s int) Event {
		return Event{Kind: k, Span: span, Parent: parent, Time: at(s)}
	}
	// A crew run in which planning's attempt 1 (r1) is left open by a
	// failed refinement (r2), CrewAI's events exactly.
	planning := []Event{
		start(CrewKickoffStarted, "c", "", 0),
		start(TaskStarted, "t", "c", 1),
		start(AgentExecutionStarted, "a", "t", 2),
		{Kind: AgentReasoningStarted, Span: "r1", Parent: "a", Attempt: 1, Time: at(3)},
		{Kind: AgentReasoningStarted, Span: "r2", Parent: "r1", Attempt: 2, Time: at(4)},
		{Kind: AgentReasoningFailed, Span: "r2", Parent: "r1", Error: "'nothing'", Time: at(5)},
		start(LLMCallStarted, "l", "a", 6),
		{Kind: LLMCallCompleted, Span: "l", Parent: "a", Time: at(7)},
	}
	for _, tc := range []struct {
		name   string
		events []Event
		finish bool
		want   string
		status Status
		// closed are the spans the last Add (or Finish) closed.
		closed []string
	}{{
		name:   "an ancestor's end closes the scope left open",
		events: append(append([]Event(nil), planning...), Event{Kind: AgentExecutionCompleted, Span: "a", Parent: "t", Time: at(8)}),
		want: `c running
  t running
    a ok
      r1 unfinished by a at 8s after 5s
        r2 failed
      l ok
`,
		status: StatusRunning, closed: []string{"r1"},
	}, {
		name: "nested open scopes are closed by the end of the one above them all",
		events: []Event{
			start(CrewKickoffStarted, "c", "", 0),
			start(TaskStarted, "t", "c", 1),
			start(AgentExecutionStarted, "a", "t", 2),
			start(LLMCallStarted, "l", "a", 3),
			start(ToolUsageStarted, "u", "l", 4),
			start(MCPToolExecutionStarted, "m", "u", 5),
			{Kind: TaskFailed, Span: "t", Parent: "c", Error: "boom", Time: at(9)},
			{Kind: CrewKickoffFailed, Span: "c", Error: "boom", Time: at(10)},
		},
		want: `c failed
  t failed
    a unfinished by t at 9s after 7s
      l unfinished by t at 9s after 6s
        u unfinished by t at 9s after 5s
          m unfinished by t at 9s after 4s
`,
		status: StatusFailed, closed: nil,
	}, {
		name:   "a finished session closes what is left at its last event",
		events: planning, finish: true,
		want: `c unfinished by run end at 7s after 7s
  t unfinished by run end at 7s after 6s
    a unfinished by run end at 7s after 5s
      r1 unfinished by run end at 7s after 4s
        r2 failed
      l ok
`,
		status: StatusUnfinished, closed: []string{"r1", "a", "t", "c"},
	}, {
		name:   "a live run keeps open scopes running",
		events: planning,
		want: `c running
  t running
    a running
      r1 running
        r2 failed
      l ok
`,
		status: StatusRunning, closed: nil,
	}, {
		name: "a scope's own end after its ancestor's still wins",
		events: []Event{
			start(TaskStarted, "t", "", 0),
			start(ToolUsageStarted, "u", "t", 1),
			{Kind: TaskCompleted, Span: "t", Time: at(2)},
			{Kind: ToolUsageFinished, Span: "u", Parent: "t", Time: at(3)},
		},
		want: `t ok
  u ok
`,
		status: StatusOK, closed: nil,
	}, {
		// The watch bridge hangs a CrewAI tool call under the LLM call that
		// asked for it, which has ended by then: the tool is running.
		name: "a scope that starts under one already ended stays open",
		events: []Event{
			start(LLMCallStarted, "l", "", 0),
			{Kind: LLMCallCompleted, Span: "l", Time: at(1)},
			start(ToolUsageStarted, "u", "l", 2),
		},
		want: `l ok
  u running
`,
		status: StatusOK, closed: nil,
	}, {
		name: "... until the run's end",
		events: []Event{
			start(LLMCallStarted, "l", "", 0),
			{Kind: LLMCallCompleted, Span: "l", Time: at(1)},
			start(ToolUsageStarted, "u", "l", 2),
			{Kind: Warning, Span: "u", Time: at(3)},
		},
		finish: true,
		want: `l ok
  u unfinished by run end at 3s after 1s
`,
		status: StatusOK, closed: []string{"u"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tr := BuildTree(tc.events)
			if tc.finish {
				tr.Finish()
			}
			if diff := cmp.Diff(tc.want, openOutline(tr, t0)); diff != "" {
				t.Errorf("tree (-want +got):\n%s", diff)
			}
			var closed []string
			for _, n := range tr.Closed() {
				closed = append(closed, n.Span)
			}
			if diff := cmp.Diff(tc.closed, closed); diff != "" {
				t.Errorf("closed by the last call (-want +got):\n%s", diff)
			}
			s := tr.Summary()
			if s.Status != tc.status || s.Succeeded != (tc.status == StatusOK) {
				t.Errorf("summary status %v succeeded %v, want %v", s.Status, s.Succeeded, tc.status)
			}
			running, unfinished := 0, 0
			for _, n := range tr.Nodes() {
				switch n.Status {
				case StatusRunning:
					running++
				case StatusUnfinished:
					unfinished++
				}
			}
			if s.Running != running || s.Unfinished != unfinished {
				t.Errorf("summary running %d unfinished %d, want %d %d", s.Running, s.Unfinished, running, unfinished)
			}
		})
	}
}

// unfinishedRun is a run CrewAI leaves with open scopes: a planning
// attempt whose refinement failed and a tool call that raised (both
// closed by their agent's end), then a tool call cut short when the
// process died (closed by the session's end in a replay).
func unfinishedRun(sink Sink) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	emit := func(ev Event) {
		n++
		ev.Seq, ev.Time = int64(n), t0.Add(time.Duration(n)*250*time.Millisecond)
		ev.TaskName, ev.AgentRole = "research_task", "Weather researcher"
		sink.Emit(ev)
	}
	emit(Event{Kind: CrewKickoffStarted, Span: "c", Data: map[string]any{KeyCrewName: "trip_crew"}})
	emit(Event{Kind: TaskStarted, Span: "t", Parent: "c"})
	emit(Event{Kind: AgentExecutionStarted, Span: "a", Parent: "t"})
	emit(Event{Kind: AgentReasoningStarted, Span: "r1", Parent: "a", Attempt: 1})
	emit(Event{Kind: AgentReasoningStarted, Span: "r2", Parent: "r1", Attempt: 2})
	emit(Event{Kind: AgentReasoningFailed, Span: "r2", Parent: "r1", Error: "'nothing'", Data: map[string]any{"attempt": 1}})
	emit(Event{Kind: ToolUsageStarted, Span: "u0", Parent: "a", ToolName: "search"}) // raised: no end of its own
	emit(Event{Kind: AgentExecutionCompleted, Span: "a", Parent: "t"})
	emit(Event{Kind: AgentExecutionStarted, Span: "a2", Parent: "t"})
	emit(Event{Kind: ToolUsageStarted, Span: "u", Parent: "a2", Server: "weather", ToolName: "get_forecast",
		OriginalToolName: "getForecast", Data: map[string]any{KeyToolArgs: map[string]any{"city": "Paris"}}})
	emit(Event{Kind: MCPStderr, Span: "u", Server: "weather", Data: map[string]any{KeyLine: "killed"}})
}

func TestPrinterUnfinishedGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	var buf bytes.Buffer
	p := NewPrinter(&buf, PrinterOptions{})
	unfinishedRun(p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	golden(t, "printer_unfinished.golden", buf.Bytes())
	if strings.Contains(buf.String(), "running") {
		t.Errorf("a finished session prints a scope as running:\n%s", buf.String())
	}
}

// A start event that comes again after the scope was closed (a bridge
// resending, trailing input) does not reopen it.
func TestTreeLateStartKeepsAScopeClosed(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr := BuildTree([]Event{
		{Kind: TaskStarted, Span: "t", Time: t0},
		{Kind: ToolUsageStarted, Span: "u", Parent: "t", Time: t0.Add(time.Second)},
		{Kind: Warning, Span: "u", Time: t0.Add(3 * time.Second)},
	})
	tr.Finish()
	tr.Add(Event{Kind: ToolUsageStarted, Span: "u", Parent: "t", Time: t0.Add(2 * time.Second)})
	u := tr.Node("u")
	if u.Status != StatusUnfinished || u.Duration != time.Second {
		t.Errorf("u %v after %v, want unfinished after 1s", u.Status, u.Duration)
	}
	if s := tr.Summary(); s.Running != 0 || s.Unfinished != 2 {
		t.Errorf("running %d unfinished %d", s.Running, s.Unfinished)
	}
}

// diff reads both sessions as finished (open scopes unfinished) unless B
// is a live run, whose open scopes are still running.
func TestDiffUnfinished(t *testing.T) {
	var c Collector
	unfinishedRun(&c)
	evs := c.Events()
	for _, tc := range []struct {
		live  bool
		wantB string
	}{{false, "unfinished"}, {true, "running"}} {
		d := Diff(evs, evs, DiffOptions{BLive: tc.live})
		if d.A.Status != "unfinished" || d.B.Status != tc.wantB {
			t.Errorf("live %v: statuses %q → %q, want unfinished → %s", tc.live, d.A.Status, d.B.Status, tc.wantB)
		}
		var tasks []string
		for _, td := range d.Tasks {
			tasks = append(tasks, td.StatusA+" → "+td.StatusB)
		}
		want := []string(nil)
		if tc.live {
			want = []string{"unfinished → running"}
		}
		if diff := cmp.Diff(want, tasks); diff != "" {
			t.Errorf("live %v: task changes (-want +got):\n%s", tc.live, diff)
		}
	}
}

// A tool call that lost its end is an "unfinished" call in a diff, not a
// new failure.
func TestDiffUnfinishedCallIsNoFailure(t *testing.T) {
	a := demoEvents()
	var b []Event
	dropped := false
	for _, ev := range a {
		if !dropped && ev.Kind == ToolUsageFinished {
			dropped = true // the first tool call's end is lost
			continue
		}
		b = append(b, ev)
	}
	d := Diff(a, b, DiffOptions{})
	var calls []string
	for _, td := range d.Tasks {
		for _, c := range td.Calls {
			calls = append(calls, fmt.Sprintf("%s %d→%d", c.Outcome, c.A, c.B))
		}
		if len(td.NewFailures) > 0 {
			t.Errorf("task %s: new failures %+v", td.Task, td.NewFailures)
		}
	}
	if diff := cmp.Diff([]string{"ok 1→0", "unfinished 0→1"}, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if len(d.Failures) != 0 {
		t.Errorf("failures %+v", d.Failures)
	}
}
