package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A run described by what matters to a diff; runOf turns it into the events
// the engine emits (fresh random ids every time, so matching must not rely
// on them).
type diffRun struct {
	crew   string
	agents map[string][]DiffTool // tools offered, by agent role
	tasks  []diffTask
	// failCrew ends the crew with an error after the tasks.
	failCrew string
}

type diffTask struct {
	name, agent string
	llmCalls    int
	tokensIn    int64
	calls       [][]diffCall // per agent step, calls made in parallel
	output      string
	fail        string
	extra       time.Duration // added to the task's duration
}

type diffCall struct {
	tool     DiffTool
	attempts []string // MCP attempt outcomes; empty: a local tool
	took     time.Duration
	err      string // the tool-level error (a failed call)
}

var (
	forecast = DiffTool{Name: "weather_get_forecast", Original: "getForecast", Server: "weather"}
	alerts   = DiffTool{Name: "weather_get_alerts", Original: "getAlerts", Server: "weather"}
	report   = DiffTool{Name: "slow_slow_report", Original: "slow_report", Server: "slow"}
)

func baseRun() diffRun {
	return diffRun{
		crew: "Weekend Brief",
		agents: map[string][]DiffTool{
			"Forecaster": {forecast, alerts, report},
			"Writer":     {},
		},
		tasks: []diffTask{
			{name: "forecast_task", agent: "Forecaster", llmCalls: 3, tokensIn: 1000,
				calls: [][]diffCall{
					{{tool: forecast, attempts: []string{OutcomeOK}, took: 90 * time.Millisecond},
						{tool: alerts, attempts: []string{OutcomeOK}, took: 60 * time.Millisecond}},
					{{tool: report, attempts: []string{OutcomeTimeout, OutcomeOK}, took: 1200 * time.Millisecond}},
				},
				output: "- Forecast: sunny\n- Alerts: none\n- Report: delivered\n"},
			{name: "brief_task", agent: "Writer", llmCalls: 1, tokensIn: 200,
				output: "Lisbon looks sunny. Pack light."},
		},
	}
}

func runOf(r diffRun) []Event {
	var c Collector
	clock := newFakeClock()
	em := NewEmitter(&c).WithClock(clock.now, nil)
	run := NewID()
	emit := func(ev Event) { ev.RunID = run; em.Emit(ev) }
	crew := em.NewSpan()
	emit(Event{Kind: CrewKickoffStarted, Span: crew, Data: map[string]any{KeyCrewName: r.crew, KeyInputs: map[string]any{"city": "Lisbon"}}})
	var final string
	start := clock.now()
	for _, t := range r.tasks {
		task := em.NewSpan()
		base := Event{TaskName: t.name, AgentRole: t.agent, TaskID: NewID()}
		ev := base
		ev.Kind, ev.Span, ev.Parent = TaskStarted, task, crew
		emit(ev)
		tstart := clock.now()
		agent := em.NewSpan()
		var tools []any
		for _, tl := range r.agents[t.agent] {
			tools = append(tools, map[string]any{"name": tl.Name, "llm_name": tl.Name, "original_name": tl.Original,
				"server": tl.Server, "kind": "mcp", "description": "a tool"})
		}
		ev = base
		ev.Kind, ev.Span, ev.Parent = AgentExecutionStarted, agent, task
		ev.Data = map[string]any{"agent": t.agent, KeyTools: tools}
		emit(ev)
		for i := 0; i < t.llmCalls; i++ {
			step := em.NewSpan()
			ev = base
			ev.Kind, ev.Span, ev.Parent, ev.Data = AgentStepStarted, step, agent, map[string]any{KeyStep: i + 1}
			emit(ev)
			llm := em.NewSpan()
			ev = base
			ev.Kind, ev.Span, ev.Parent, ev.Data = LLMCallStarted, llm, step, map[string]any{KeyModel: "openai/gpt-4o-mini"}
			emit(ev)
			clock.advance(700 * time.Millisecond)
			ev = base
			ev.Kind, ev.Span, ev.Parent = LLMCallCompleted, llm, step
			ev.Data = map[string]any{KeyModel: "openai/gpt-4o-mini", KeyUsage: map[string]any{"prompt_tokens": t.tokensIn, "completion_tokens": 40}}
			emit(ev)
			if i < len(t.calls) {
				for _, call := range t.calls[i] {
					emitCall(emit, em, clock, base, step, call)
				}
			}
			ev = base
			ev.Kind, ev.Span, ev.Parent = AgentStepFinished, step, agent
			emit(ev)
		}
		clock.advance(t.extra)
		ev = base
		ev.Span, ev.Parent = agent, task
		if t.fail != "" {
			ev.Kind, ev.Outcome, ev.Error = AgentExecutionError, "failed", t.fail
			emit(ev)
			ev = base
			ev.Kind, ev.Span, ev.Parent, ev.Outcome, ev.Error = TaskFailed, task, crew, "failed", t.fail
			ev.Duration = clock.now().Sub(tstart)
			emit(ev)
			break // like a sequential crew, stop at the failed task
		}
		ev.Kind, ev.Outcome = AgentExecutionCompleted, "ok"
		emit(ev)
		ev = base
		ev.Kind, ev.Span, ev.Parent, ev.Outcome = TaskCompleted, task, crew, "ok"
		ev.Duration = clock.now().Sub(tstart)
		ev.Data = map[string]any{KeyOutput: map[string]any{"raw": t.output, "agent": t.agent}}
		emit(ev)
		final = t.output
	}
	if r.failCrew != "" {
		emit(Event{Kind: CrewKickoffFailed, Span: crew, Outcome: "failed", Error: r.failCrew, Duration: clock.now().Sub(start)})
	} else {
		emit(Event{Kind: CrewKickoffCompleted, Span: crew, Outcome: "ok", Duration: clock.now().Sub(start),
			Data: map[string]any{KeyCrewName: r.crew, KeyOutput: map[string]any{"raw": final}}})
	}
	return c.Events()
}

// emitCall emits a tool call (tool_usage_*), its MCP call and attempts.
func emitCall(emit func(Event), em *Emitter, clock *fakeClock, base Event, parent string, c diffCall) {
	base.ToolName, base.OriginalToolName, base.Server = c.tool.Name, c.tool.Original, c.tool.Server
	tool := em.NewSpan()
	ev := base
	ev.Kind, ev.Span, ev.Parent, ev.Data = ToolUsageStarted, tool, parent, map[string]any{KeyToolArgs: map[string]any{"city": "Lisbon"}}
	emit(ev)
	final := OutcomeOK
	if len(c.attempts) > 0 {
		mcp := em.NewSpan()
		ev = base
		ev.Kind, ev.Span, ev.Parent, ev.Data = MCPToolExecutionStarted, mcp, tool, map[string]any{KeyMaxAttempts: 3}
		emit(ev)
		each := c.took / time.Duration(len(c.attempts))
		for i, oc := range c.attempts {
			att := em.NewSpan()
			ev = base
			ev.Kind, ev.Span, ev.Parent, ev.Attempt = MCPAttemptStarted, att, mcp, i+1
			emit(ev)
			clock.advance(each)
			ev = base
			ev.Kind, ev.Span, ev.Parent, ev.Attempt, ev.Outcome, ev.Duration = MCPAttemptFinished, att, mcp, i+1, oc, each
			if oc != OutcomeOK {
				ev.Error = "no response within 1s"
			}
			emit(ev)
			final = oc
		}
		ev = base
		ev.Span, ev.Parent, ev.Outcome, ev.Duration = mcp, tool, final, c.took
		if final == OutcomeOK {
			ev.Kind = MCPToolExecutionCompleted
		} else {
			ev.Kind, ev.Error = MCPToolExecutionFailed, c.err
		}
		emit(ev)
	} else {
		clock.advance(c.took)
		if c.err != "" {
			final = "failed"
		}
	}
	ev = base
	ev.Span, ev.Parent, ev.Duration = tool, parent, c.took
	if final == OutcomeOK {
		ev.Kind, ev.Outcome, ev.Data = ToolUsageFinished, "ok", map[string]any{KeyOutput: "fine"}
	} else {
		ev.Kind, ev.Outcome, ev.Error = ToolUsageError, "failed", c.err
	}
	emit(ev)
}

func TestDiffIdenticalRunsWithFreshIDs(t *testing.T) {
	a, b := runOf(baseRun()), runOf(baseRun())
	if a[0].Span == b[0].Span {
		t.Fatal("the two runs share span ids; the test would not prove matching by meaning")
	}
	d := Diff(a, b, DiffOptions{})
	if !d.Identical {
		t.Fatalf("identical runs differ: %+v", d)
	}
	var buf bytes.Buffer
	if err := d.WriteText(&buf, DiffTextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no differences\n") {
		t.Errorf("text:\n%s", buf.String())
	}
}

func TestDiffParallelCallsInAnotherOrderAreTheSame(t *testing.T) {
	r := baseRun()
	b := baseRun()
	b.tasks = append([]diffTask(nil), r.tasks...)
	b.tasks[0].calls = [][]diffCall{{r.tasks[0].calls[0][1], r.tasks[0].calls[0][0]}, r.tasks[0].calls[1]}
	if d := Diff(runOf(r), runOf(b), DiffOptions{}); !d.Identical {
		t.Fatalf("reordered parallel calls count as a change: tasks %+v", d.Tasks)
	}
}

func TestDiffChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *diffRun)
		check  func(t *testing.T, d *SessionDiff)
	}{
		{
			name: "a filter hides a tool, and its call now fails as unknown",
			change: func(r *diffRun) {
				r.agents = map[string][]DiffTool{"Forecaster": {forecast, report}, "Writer": {}}
				t0 := r.tasks[0]
				t0.calls = [][]diffCall{
					{{tool: forecast, attempts: []string{OutcomeOK}, took: 90 * time.Millisecond},
						{tool: DiffTool{Name: alerts.Name}, took: time.Millisecond, err: "Tool not found"}},
					t0.calls[1],
				}
				r.tasks = []diffTask{t0, r.tasks[1]}
			},
			check: func(t *testing.T, d *SessionDiff) {
				if len(d.Agents) != 1 || d.Agents[0].Agent != "Forecaster" || len(d.Agents[0].Removed) != 1 ||
					d.Agents[0].Removed[0] != alerts || len(d.Agents[0].Added) != 0 {
					t.Errorf("agents = %+v", d.Agents)
				}
				if len(d.Tasks) != 1 || d.Tasks[0].Task != "forecast_task" {
					t.Fatalf("tasks = %+v", d.Tasks)
				}
				nf := d.Tasks[0].NewFailures
				if len(nf) != 1 || nf[0].Name != alerts.Name || nf[0].Outcome != "failed" || nf[0].Error != "Tool not found" || nf[0].A != 0 || nf[0].B != 1 {
					t.Errorf("new failures = %+v", nf)
				}
				if !hasFailure(d, "tool", alerts.Name, "failed", 0, 1) {
					t.Errorf("failures = %+v", d.Failures)
				}
			},
		},
		{
			name: "a call fails in B after three timeouts",
			change: func(r *diffRun) {
				t0 := r.tasks[0]
				t0.calls = [][]diffCall{t0.calls[0], {{tool: report, attempts: []string{OutcomeTimeout, OutcomeTimeout, OutcomeTimeout},
					took: 3 * time.Second, err: "Error executing MCP tool slow_report: Operation timed out after 1 seconds"}}}
				r.tasks = []diffTask{t0, r.tasks[1]}
			},
			check: func(t *testing.T, d *SessionDiff) {
				if len(d.Tasks) != 1 {
					t.Fatalf("tasks = %+v", d.Tasks)
				}
				got := map[string][2]int{}
				for _, c := range d.Tasks[0].Calls {
					got[c.Name+" "+c.Outcome] = [2]int{c.A, c.B}
				}
				want := map[string][2]int{report.Name + " ok": {1, 0}, report.Name + " timeout": {0, 1}}
				if len(got) != len(want) || got[report.Name+" ok"] != want[report.Name+" ok"] || got[report.Name+" timeout"] != want[report.Name+" timeout"] {
					t.Errorf("calls = %v, want %v", got, want)
				}
				if nf := d.Tasks[0].NewFailures; len(nf) != 1 || nf[0].Outcome != OutcomeTimeout || !strings.Contains(nf[0].Error, "timed out") {
					t.Errorf("new failures = %+v", nf)
				}
				// One timeout attempt before, three now.
				if !hasFailure(d, "mcp_attempt", "slow_report @ slow", OutcomeTimeout, 1, 3) {
					t.Errorf("failures = %+v", d.Failures)
				}
				if len(d.Agents) != 0 || len(d.Outputs) != 0 || d.Tokens.Changed {
					t.Errorf("unrelated sections changed: %+v %+v %+v", d.Agents, d.Outputs, d.Tokens)
				}
			},
		},
		{
			name: "a tool is renamed (same MCP tool, another LLM name)",
			change: func(r *diffRun) {
				renamed := forecast
				renamed.Name = "weather_getforecast"
				r.agents = map[string][]DiffTool{"Forecaster": {renamed, alerts, report}, "Writer": {}}
			},
			check: func(t *testing.T, d *SessionDiff) {
				want := ToolRename{Original: "getForecast", Server: "weather", From: forecast.Name, To: "weather_getforecast"}
				if len(d.Agents) != 1 || len(d.Agents[0].Renamed) != 1 || d.Agents[0].Renamed[0] != want ||
					len(d.Agents[0].Added)+len(d.Agents[0].Removed) != 0 {
					t.Errorf("agents = %+v", d.Agents)
				}
			},
		},
		{
			name: "the output and tokens change",
			change: func(r *diffRun) {
				r.tasks[1].output = "Lisbon looks rainy. Pack an umbrella."
				r.tasks[1].tokensIn = 260
			},
			check: func(t *testing.T, d *SessionDiff) {
				if len(d.Outputs) != 1 || d.Outputs[0].Name != "brief_task" {
					t.Fatalf("outputs = %+v (the crew's output is the last task's and must not be repeated)", d.Outputs)
				}
				u := d.Outputs[0].Unified
				if !strings.Contains(u, "-Lisbon looks sunny. Pack light.") || !strings.Contains(u, "+Lisbon looks rainy. Pack an umbrella.") {
					t.Errorf("unified:\n%s", u)
				}
				if !d.Tokens.Changed || d.Tokens.A.Input != 3200 || d.Tokens.B.Input != 3260 {
					t.Errorf("tokens = %+v", d.Tokens)
				}
			},
		},
		{
			name: "the first task fails, so the second never runs",
			change: func(r *diffRun) {
				r.tasks[0].fail = "Tool 'slow_slow_report' failed: timed out"
				r.failCrew = "Tool 'slow_slow_report' failed: timed out"
			},
			check: func(t *testing.T, d *SessionDiff) {
				if d.B.Status != "failed" || d.A.Status != "ok" {
					t.Errorf("status %s → %s", d.A.Status, d.B.Status)
				}
				st := map[string]string{}
				for _, td := range d.Tasks {
					st[td.Task] = td.StatusA + "→" + td.StatusB
				}
				if st["forecast_task"] != "ok→failed" || st["brief_task"] != "ok→absent" {
					t.Errorf("task statuses = %v", st)
				}
				if !hasFailure(d, "crew", "Weekend Brief", "failed", 0, 1) || !hasFailure(d, "task", "forecast_task", "failed", 0, 1) {
					t.Errorf("failures = %+v", d.Failures)
				}
				if len(d.Agents) != 1 || d.Agents[0].Agent != "Writer" || d.Agents[0].Only != "a" {
					t.Errorf("agents = %+v", d.Agents)
				}
			},
		},
		{
			name: "only timing changes: reported, not a difference",
			change: func(r *diffRun) {
				r.tasks[1].extra = 3 * time.Second
				r.tasks[0].extra = 100 * time.Millisecond // under the threshold
			},
			check: func(t *testing.T, d *SessionDiff) {
				if !d.Identical {
					t.Errorf("timing made the runs different: %+v", d)
				}
				var names []string
				for _, c := range d.Timing.Changes {
					names = append(names, c.Scope+" "+c.Name)
				}
				if strings.Join(names, ",") != "crew Weekend Brief,task brief_task" {
					t.Errorf("timing changes = %v", names)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := baseRun()
			b.tasks = append([]diffTask(nil), b.tasks...)
			tt.change(&b)
			d := Diff(runOf(baseRun()), runOf(b), DiffOptions{})
			if strings.HasPrefix(tt.name, "only timing") != d.Identical {
				t.Errorf("Identical = %v", d.Identical)
			}
			tt.check(t, d)
			// The JSON form decodes back to the same diff.
			raw, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			var back SessionDiff
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(&back)
			if !bytes.Equal(raw, again) {
				t.Errorf("JSON does not round-trip:\n%s\n%s", raw, again)
			}
			var buf bytes.Buffer
			if err := d.WriteText(&buf, DiffTextOptions{Color: true}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "\x1b[") {
				t.Error("Color: no ANSI codes")
			}
		})
	}
}

func hasFailure(d *SessionDiff, scope, name, outcome string, a, b int) bool {
	for _, f := range d.Failures {
		if f.Scope == scope && f.Name == name && f.Outcome == outcome && f.A == a && f.B == b {
			return true
		}
	}
	return false
}

// The JSON structure scripts rely on: every key present, lists never null.
func TestDiffJSONShape(t *testing.T) {
	for _, pair := range [][2][]Event{
		{runOf(baseRun()), runOf(baseRun())},
		{nil, runOf(baseRun())},
	} {
		raw, err := json.Marshal(Diff(pair[0], pair[1], DiffOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"a", "b", "identical", "agents", "tasks", "failures", "timing", "outputs", "tokens"} {
			if _, ok := m[key]; !ok {
				t.Errorf("no %q in %s", key, raw)
			}
		}
		for _, key := range []string{"agents", "tasks", "failures", "outputs"} {
			if _, ok := m[key].([]any); !ok {
				t.Errorf("%q is %T, want a list", key, m[key])
			}
		}
		if _, ok := m["timing"].(map[string]any)["changes"].([]any); !ok {
			t.Errorf("timing.changes is not a list: %s", raw)
		}
		for _, side := range []string{"a", "b"} {
			for _, key := range []string{"label", "run_id", "crew", "status", "duration_ms", "events", "tasks", "llm_calls", "tool_calls", "tool_failures", "failures"} {
				if _, ok := m[side].(map[string]any)[key]; !ok {
					t.Errorf("no %s.%s", side, key)
				}
			}
		}
	}
}

// Sessions written before the engine listed tools in
// agent_execution_started still diff by the tools sent to the LLM.
func TestDiffToolsFromLLMCallsWhenAgentsDoNotListThem(t *testing.T) {
	mk := func(names ...string) []Event {
		var tools []any
		for _, n := range names {
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": n}})
		}
		return []Event{
			{Seq: 1, Kind: AgentExecutionStarted, Span: "ag", AgentRole: "R"},
			{Seq: 2, Kind: LLMCallStarted, Span: "l", Parent: "ag", AgentRole: "R", Data: map[string]any{KeyTools: tools}},
			{Seq: 3, Kind: LLMCallCompleted, Span: "l", Parent: "ag", AgentRole: "R"},
		}
	}
	d := Diff(mk("a", "b"), mk("a", "c"), DiffOptions{})
	if len(d.Agents) != 1 || len(d.Agents[0].Added) != 1 || d.Agents[0].Added[0].Name != "c" ||
		len(d.Agents[0].Removed) != 1 || d.Agents[0].Removed[0].Name != "b" {
		t.Errorf("agents = %+v", d.Agents)
	}
}

// A session that let a secret through (an event stream written without the
// recorder) never gets it quoted by a diff.
func TestDiffNeverQuotesSecrets(t *testing.T) {
	const token = "ghp_PLANTEDdiff0123456789abcdefABCDEF01"
	a := runOf(baseRun())
	b := baseRun()
	b.tasks = append([]diffTask(nil), b.tasks...)
	t0 := b.tasks[0]
	t0.calls = [][]diffCall{t0.calls[0], {{tool: report, attempts: []string{OutcomeAuth},
		took: time.Second, err: "401 from https://user:" + token + "@mcp.example.com/?access_token=" + token + " with Authorization: Bearer " + token}}}
	b.tasks[0] = t0
	b.tasks[1].output = "GITHUB_TOKEN=" + token
	d := Diff(a, runOf(b), DiffOptions{})
	raw, _ := json.Marshal(d)
	var buf bytes.Buffer
	_ = d.WriteText(&buf, DiffTextOptions{})
	for name, out := range map[string]string{"json": string(raw), "text": buf.String()} {
		if strings.Contains(out, "PLANTED") {
			t.Errorf("%s output quotes the secret:\n%s", name, out)
		}
		if !strings.Contains(out, Redacted) {
			t.Errorf("%s output does not show where the secret was", name)
		}
	}
}
