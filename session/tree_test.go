package session

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func outline(t *Tree) string {
	var b strings.Builder
	t.Walk(func(n *Node, depth int) bool {
		fmt.Fprintf(&b, "%s%s %q %s", strings.Repeat("  ", depth-1), n.Kind, n.Title, n.Status)
		if n.Orphan() {
			b.WriteString(" orphan")
		}
		b.WriteString("\n")
		return true
	})
	return b.String()
}

const demoOutline = `crew "crew trip_crew" ok
  connection "connect weather" ok
  task "task research_task" ok
    agent "agent Weather researcher" ok
      step "step 1" ok
        llm "chat openai/gpt-4o-mini" ok
        tool "get_forecast ← getForecast @ weather" ok
          mcp_call "tools/call getForecast @ weather" ok
            attempt "attempt 1/3" failed
            attempt "attempt 2/3" ok
      step "step 2" ok
        llm "chat openai/gpt-4o-mini" ok
  task "task writing_task" ok
    agent "agent Trip writer" ok
      step "step 1" ok
        llm "chat openai/gpt-4o-mini" ok
        tool "get_forecast ← getForecast @ weather" ok
        tool "get_forecast ← getForecast @ weather" ok
        tool "get_forecast ← getForecast @ weather" ok
        tool "get_forecast ← getForecast @ weather" failed
          mcp_call "tools/call getForecast @ weather" failed
            attempt "attempt 1/3" failed
      step "step 2" ok
        llm "chat openai/gpt-4o-mini" ok
`

func demoEvents() []Event {
	var c Collector
	demoRun(&c)
	return c.Events()
}

func TestTreeDemo(t *testing.T) {
	tr := BuildTree(demoEvents())
	if diff := cmp.Diff(demoOutline, outline(tr)); diff != "" {
		t.Fatalf("outline (-want +got):\n%s", diff)
	}
	s := tr.Summary()
	want := Summary{
		Crews: 1, Tasks: 2, Agents: 2, Steps: 4, LLMCalls: 4, ToolCalls: 5, ToolFailures: 1, MCPCalls: 2,
		Attempts: 3, FailedAttempts: 2, Retries: 1, CacheHits: 1, Guards: 1, UsageLimits: 1,
		// The failed tool call and its MCP call.
		Failures: 2,
		Usage:    Usage{Input: 840 + 1080 + 900 + 1100, Output: 64 + 64 + 80 + 90, Total: 840 + 1080 + 900 + 1100 + 298},
		Status:   StatusOK, Succeeded: true,
	}
	got := s
	got.Events, got.Start, got.End, got.Duration, got.FailedTools = 0, time.Time{}, time.Time{}, 0, nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if len(s.FailedTools) != 1 || s.FailedTools[0].Kind != NodeTool || s.FailedTools[0].ToolName != "get_forecast" {
		t.Errorf("FailedTools = %v", s.FailedTools)
	}
	if s.Duration != 5742*time.Millisecond {
		t.Errorf("duration = %v", s.Duration)
	}
	// Token totals roll up: each task holds its own LLM calls' usage.
	tasks := tr.Root.Children[0].Children[1:]
	if tasks[0].Usage.Input != 840+1080 || tasks[1].Usage.Input != 900+1100 {
		t.Errorf("task usage = %+v, %+v", tasks[0].Usage, tasks[1].Usage)
	}
	// Markers land on the scope they happened in.
	step1 := tasks[1].Children[0].Children[0]
	tools := step1.Children[1:]
	if !tools[0].CacheHit || !tools[1].UsageLimit || !tools[2].GuardTripped {
		t.Errorf("markers: cache %v, limit %v, guard %v", tools[0].CacheHit, tools[1].UsageLimit, tools[2].GuardTripped)
	}
	mcp := tasks[0].Children[0].Children[0].Children[1].Children[0]
	if mcp.Retries != 1 || mcp.MaxAttempts != 3 || mcp.Children[0].Outcome != OutcomeTimeout || mcp.Children[0].Duration != time.Second {
		t.Errorf("mcp call: %+v", mcp)
	}
	if n := len(mcp.Events); n != 3 { // started, retry_scheduled, failed/completed
		t.Errorf("mcp call has %d events, want 3", n)
	}
}

// A run that failed, one that was cancelled, one still running.
func TestTreeVerdicts(t *testing.T) {
	for _, tc := range []struct {
		end       Event
		status    Status
		succeeded bool
	}{
		{Event{Kind: CrewKickoffCompleted, Span: "c"}, StatusOK, true},
		{Event{Kind: CrewKickoffFailed, Span: "c", Error: "boom"}, StatusFailed, false},
		{Event{Kind: CrewKickoffFailed, Span: "c", Outcome: OutcomeCancelled}, StatusCancelled, false},
		{Event{Kind: Warning, Span: "c"}, StatusRunning, false},
	} {
		tr := BuildTree([]Event{{Kind: CrewKickoffStarted, Span: "c"}, tc.end})
		s := tr.Summary()
		if s.Status != tc.status || s.Succeeded != tc.succeeded {
			t.Errorf("%s: status %v succeeded %v, want %v %v", tc.end.Kind, s.Status, s.Succeeded, tc.status, tc.succeeded)
		}
	}
	// No crew: a lone `crewbench call` is judged by its MCP call.
	tr := BuildTree([]Event{
		{Kind: MCPToolExecutionStarted, Span: "m", Server: "w", OriginalToolName: "getForecast"},
		{Kind: MCPToolExecutionFailed, Span: "m", Outcome: OutcomeTimeout, Error: "timed out"},
	})
	s := tr.Summary()
	if s.Succeeded || s.ToolCalls != 1 || s.ToolFailures != 1 || s.Status != StatusFailed {
		t.Errorf("call session summary: %+v", s)
	}
	// A tool_failure_detected inside a finished tool scope marks it failed;
	// one outside any tool scope still counts.
	tr = BuildTree([]Event{
		{Kind: CrewKickoffStarted, Span: "c"},
		{Kind: ToolUsageStarted, Span: "t", Parent: "c"},
		{Kind: ToolFailureDetected, Span: "t", Error: "bad"},
		{Kind: ToolUsageFinished, Span: "t", Parent: "c"},
		{Kind: ToolSelectionError, Span: "c", Error: "no such tool"},
		{Kind: CrewKickoffCompleted, Span: "c"},
	})
	s = tr.Summary()
	if !s.Succeeded || s.ToolFailures != 2 || s.ToolCalls != 1 {
		t.Errorf("tool failure summary: succeeded %v, tool failures %d, calls %d", s.Succeeded, s.ToolFailures, s.ToolCalls)
	}
}

// Shuffled input builds the same tree: placeholders stand in for parents
// not seen yet and children are kept in emission order.
func TestTreeOutOfOrder(t *testing.T) {
	evs := demoEvents()
	want := outline(BuildTree(evs))
	wantSum := BuildTree(evs).Summary()
	for seed := int64(1); seed <= 20; seed++ {
		sh := append([]Event(nil), evs...)
		rand.New(rand.NewSource(seed)).Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		tr := BuildTree(sh)
		if diff := cmp.Diff(want, outline(tr)); diff != "" {
			t.Fatalf("seed %d: outline (-in order +shuffled):\n%s", seed, diff)
		}
		s := tr.Summary()
		if s.Usage != wantSum.Usage || s.ToolFailures != wantSum.ToolFailures || s.Retries != wantSum.Retries || s.Orphans != 0 {
			t.Fatalf("seed %d: summary %+v, want %+v", seed, s, wantSum)
		}
		if tr.Root.Usage != wantSum.Usage || tr.Root.Children[0].Usage != wantSum.Usage {
			t.Fatalf("seed %d: usage did not follow re-parenting: root %+v crew %+v", seed, tr.Root.Usage, tr.Root.Children[0].Usage)
		}
	}
}

// Events whose parents never arrive hang on the root, under a placeholder
// for the missing scope.
func TestTreeOrphans(t *testing.T) {
	var kept []Event
	for _, ev := range demoEvents() {
		// Lose the crew and the first task entirely.
		if ev.Kind == CrewKickoffStarted || ev.Kind == CrewKickoffCompleted || (ev.TaskName == "research_task" && (ev.Kind == TaskStarted || ev.Kind == TaskCompleted)) {
			continue
		}
		kept = append(kept, ev)
	}
	tr := BuildTree(kept)
	// The crew and the research task are unknown: each becomes a
	// placeholder on the root holding what declared it as parent.
	top := tr.Root.Children
	if len(top) != 2 || top[0].Kind != NodeUnknown || !top[0].Orphan() || top[1].Kind != NodeUnknown || !top[1].Orphan() {
		t.Fatalf("want two placeholders on the root, got:\n%s", outline(tr))
	}
	if crew := top[0]; len(crew.Children) != 2 || crew.Children[0].Kind != NodeConnection || crew.Children[1].TaskName != "writing_task" {
		t.Errorf("crew placeholder should hold the connection and the writing task:\n%s", outline(tr))
	}
	if task := top[1]; len(task.Children) != 1 || task.Children[0].Kind != NodeAgent || task.Children[0].AgentRole != "Weather researcher" {
		t.Errorf("task placeholder should hold the research agent:\n%s", outline(tr))
	}
	s := tr.Summary()
	if s.Orphans != 2 || s.Succeeded || s.Status != StatusRunning || s.LLMCalls != 4 || s.ToolFailures != 1 {
		t.Errorf("summary: %+v", s)
	}

	// An end without its start still becomes a finished node, and a point
	// event for an unknown scope does not vanish.
	tr = BuildTree([]Event{
		{Kind: LLMCallCompleted, Span: "l", Parent: "gone", Duration: time.Second, Time: time.Unix(10, 0),
			Data: map[string]any{KeyUsage: map[string]any{"input_tokens": 5.0, "output_tokens": 2.0}}},
		{Kind: MCPStderr, Span: "nowhere", Data: map[string]any{KeyLine: "x"}},
		{Kind: Warning, Data: map[string]any{KeyMessage: "loose"}},
	})
	l := tr.Node("l")
	if l == nil || l.Kind != NodeLLM || l.Status != StatusOK || l.Started || !l.Start.Equal(time.Unix(9, 0)) || l.Parent != tr.Node("gone") {
		t.Fatalf("end-only node: %+v", l)
	}
	if tr.Root.Usage.Total != 7 {
		t.Errorf("root usage = %+v", tr.Root.Usage)
	}
	if n := tr.Node("nowhere"); n == nil || len(n.Events) != 1 {
		t.Errorf("stderr for an unknown scope lost")
	}
	if len(tr.Root.Events) != 1 {
		t.Errorf("loose warning should sit on the root")
	}
}

// Bad input never panics and never loops: cycles, self-parents, scope
// events without ids, a second start for the same span.
func TestTreeHostileInput(t *testing.T) {
	tr := BuildTree([]Event{
		{Kind: TaskStarted, Span: "a", Parent: "b"},
		{Kind: TaskStarted, Span: "b", Parent: "a"},
		{Kind: TaskStarted, Span: "c", Parent: "c"},
		{Kind: ToolUsageStarted},
		{Kind: ToolUsageFinished},
		{Kind: TaskStarted, Span: "a", Parent: "z"},
		{Kind: TaskCompleted, Span: "a"},
	})
	seen := map[*Node]int{}
	tr.Walk(func(n *Node, _ int) bool { seen[n]++; return true })
	if len(seen) != len(tr.Nodes()) {
		t.Fatalf("walk reached %d nodes, tree has %d", len(seen), len(tr.Nodes()))
	}
	for n, k := range seen {
		if k != 1 {
			t.Errorf("node %q reached %d times", n.Span, k)
		}
	}
	// a declared b first, so a hangs under b; b's claim on a would close a
	// cycle and is ignored, leaving b on the root as an orphan.
	if a, b := tr.Node("a"), tr.Node("b"); a.Parent != b || b.Parent != tr.Root || !b.Orphan() {
		t.Errorf("a.Parent=%q b.Parent=%q", a.Parent.Span, b.Parent.Span)
	}
	if c := tr.Node("c"); c.Parent != tr.Root {
		t.Errorf("self-parented c should be on the root")
	}
}

func FuzzTreeAdd(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	kindsList := []Kind{CrewKickoffStarted, CrewKickoffCompleted, TaskStarted, TaskFailed, LLMCallStarted, LLMCallCompleted,
		ToolUsageStarted, ToolUsageError, MCPAttemptStarted, MCPAttemptFinished, MCPRetryScheduled, CacheHit, GuardTripped, ToolFailureDetected, Warning}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := NewTree()
		var want Usage
		for i := 0; i+2 < len(data); i += 3 {
			ev := Event{Kind: kindsList[int(data[i])%len(kindsList)], Seq: int64(data[i+1]) % 7}
			if data[i+1]%5 != 0 {
				ev.Span = string('a' + rune(data[i+1]%6))
			}
			if data[i+2]%4 != 0 {
				ev.Parent = string('a' + rune(data[i+2]%6))
			}
			if ev.Kind == LLMCallCompleted {
				ev.Data = map[string]any{KeyUsage: map[string]any{"input_tokens": 1, "output_tokens": 1}}
			}
			tr.Add(ev)
		}
		count := 0
		tr.Walk(func(n *Node, depth int) bool {
			count++
			if depth > len(tr.Nodes())+1 {
				t.Fatal("walk deeper than the node count: a cycle")
			}
			return true
		})
		if count != len(tr.Nodes()) {
			t.Fatalf("walk reached %d of %d nodes", count, len(tr.Nodes()))
		}
		for _, n := range tr.Nodes() {
			if n.Kind == NodeLLM {
				want = want.plus(n.ownUsage)
			}
		}
		if tr.Root.Usage != want {
			t.Fatalf("root usage %+v, sum of LLM calls %+v", tr.Root.Usage, want)
		}
		_ = tr.Summary()
	})
}

// BenchmarkTreeAdd feeds the tree the way the TUI will: 100,000 events.
func BenchmarkTreeAdd(b *testing.B) {
	evs := manyEvents(100_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := NewTree()
		for _, ev := range evs {
			tr.Add(ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

// A session that ended before any scope began (a watched command whose
// Python cannot import crewai: the bridge's hello, the output, the exit)
// is over, not running, once the tree is finished.
func TestFinishedTreeWithoutScopesIsUnfinished(t *testing.T) {
	tree := NewTree()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tree.Add(Event{Kind: Warning, Time: t0, Data: map[string]any{KeyMessage: "cannot import crewai"}})
	tree.Add(Event{Kind: Warning, Time: t0.Add(5 * time.Millisecond)})
	if s := tree.Summary(); s.Status != StatusRunning {
		t.Fatalf("live: status %v, want running", s.Status)
	}
	tree.Finish()
	if s := tree.Summary(); s.Status != StatusUnfinished || s.Succeeded {
		t.Fatalf("finished: status %v (succeeded %v), want unfinished", s.Status, s.Succeeded)
	}
}
