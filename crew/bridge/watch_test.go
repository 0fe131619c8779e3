package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// §2.2, native function calling, with a Python @tool and an MCP tool. With
// no breakpoints the bridge registers no hook, so the run has exactly the
// events it has without crewbench: no hook_dispatched anywhere.
const nativeSequence = "default_env crew_kickoff_started mcp_connection_started mcp_connection_completed " +
	"task_started agent_execution_started flow_started agent_logs_started " +
	"llm_call_started llm_call_completed tool_usage_started tool_usage_finished " +
	"llm_call_started llm_call_completed " +
	"tool_usage_started mcp_connection_started mcp_connection_completed " +
	"mcp_tool_execution_started mcp_tool_execution_completed tool_usage_finished " +
	"llm_call_started llm_call_completed " +
	"agent_logs_execution flow_finished agent_execution_completed task_completed crew_kickoff_completed"

// ReAct: the same, with tool_usage_* emitted by ToolUsage.
const reactSequence = nativeSequence

func checkOrder(t *testing.T, evs []session.Event, want string) {
	t.Helper()
	if got := strings.Join(crewaiKinds(evs), " "); got != want {
		t.Fatalf("CrewAI events:\n got %s\nwant %s", got, want)
	}
	var last int64
	for _, ev := range evs {
		if _, ok := ev.Data[KeyCrewAIClass]; !ok {
			continue
		}
		seq := ev.Int(KeyBridgeSeq)
		if seq <= last {
			t.Fatalf("%s: bridge seq %d after %d: not in emit order", ev.Kind, seq, last)
		}
		last = seq
		if ev.RunID != "run-1" {
			t.Fatalf("%s: run id %q", ev.Kind, ev.RunID)
		}
	}
}

func TestWatchNativeRunArrivesInOrderAsOneTree(t *testing.T) {
	res, evs, err := watchStub(t, nil, stubEnv(t), "native")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	checkOrder(t, evs, nativeSequence)
	if !res.Completed || res.ExitCode != 0 || len(res.Bridges) != 1 || res.Bridges[0].CrewAIVersion != "1.15.17" || !res.Bridges[0].Hooks {
		t.Fatalf("result: %+v", res)
	}
	// The tree reads like an engine run: crew ▸ task ▸ agent ▸ LLM call ▸
	// tool call ▸ MCP call (flow_* is transparent).
	tree := session.BuildTree(evs)
	var path []string
	tree.Walk(func(n *session.Node, depth int) bool {
		if n.Kind == session.NodeMCPCall {
			for a := n; a != nil && a.Kind != session.NodeRoot; a = a.Parent {
				path = append([]string{a.Kind.String()}, path...)
			}
		}
		return true
	})
	if got := strings.Join(path, " ▸ "); got != "crew ▸ task ▸ agent ▸ llm ▸ tool ▸ mcp_call" {
		t.Fatalf("MCP call path: %q", got)
	}
	for _, n := range tree.Nodes() {
		if n.Orphan() {
			t.Fatalf("orphan node %s %q", n.Kind, n.Span)
		}
	}
	// Object fields are summarised, not dumped: the agent's StaticToolFilter
	// would make model_dump fail (spec §2.4).
	for _, ev := range evs {
		if ev.Kind == session.AgentExecutionStarted {
			if ev.AgentRole != "Researcher" || ev.Data["crewbench_serialization_error"] != nil {
				t.Fatalf("agent_execution_started: role %q data %v", ev.AgentRole, ev.Data)
			}
		}
	}
	var connected bool
	for _, ev := range evs {
		if ev.Kind == KindBridgeConnected && ev.Bool(KeyRealCrewAI) {
			connected = true
		}
	}
	if !connected {
		t.Fatal("no crewbench_bridge_connected event marking a real CrewAI run")
	}
}

func TestWatchReActRunArrivesInOrder(t *testing.T) {
	_, evs, err := watchStub(t, nil, stubEnv(t), "react")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	checkOrder(t, evs, reactSequence)
	for _, ev := range evs {
		if ev.Kind == session.ToolUsageStarted {
			if _, ok := ev.Data["tool_args"].(string); !ok {
				t.Fatalf("ReAct tool_usage_started tool_args should be the raw Action Input string: %#v", ev.Data["tool_args"])
			}
		}
	}
}

func outputLines(evs []session.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Kind == KindProcessOutput {
			b.WriteString(ev.Str(session.KeyLine) + "\n")
		}
	}
	return b.String()
}

func finalOutput(evs []session.Event) string {
	for _, ev := range evs {
		if ev.Kind == session.CrewKickoffCompleted {
			return ev.Str(session.KeyOutput)
		}
	}
	return ""
}

func mustObject(t *testing.T, s string) *pyjson.Object {
	t.Helper()
	o, err := pyjson.LoadsObject(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A tool= or server= breakpoint naming nothing the run has never pauses;
// the run ends with a warning that says so and names the tool meant. A
// display name ("Word Counter") is a name the breakpoint matches.
func TestWatchSaysWhichBreakpointsNeverMatched(t *testing.T) {
	for _, mode := range []string{"native", "react"} {
		t.Run(mode, func(t *testing.T) {
			st := &scriptedStepper{bp: crew.Breakpoints{
				Tools: []string{"get_forecast", "Word Counter"}, Servers: []string{"weather", "wether"}}}
			res, evs, err := watchStub(t, st, stubEnv(t), mode)
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			if len(st.pauses) != 2 || st.pauses[0].ToolName != "word_counter" || st.pauses[1].Server != "weather" {
				t.Fatalf("pauses %+v, want word_counter's and the weather server's", st.pauses)
			}
			var unmatched []string
			for _, w := range res.Warnings {
				if strings.Contains(w, "never paused") {
					unmatched = append(unmatched, w)
				}
			}
			if len(unmatched) != 2 || !strings.Contains(unmatched[0], "tool=get_forecast never paused") ||
				!strings.Contains(unmatched[0], "did you mean tool=getForecast?") ||
				!strings.Contains(unmatched[0], "weather_get_forecast") ||
				!strings.Contains(unmatched[1], "server=wether never paused") ||
				!strings.Contains(unmatched[1], "did you mean server=weather?") {
				t.Fatalf("warnings %q", res.Warnings)
			}
			var recorded int
			for _, ev := range evs {
				if msg, _ := ev.Data[session.KeyMessage].(string); ev.Kind == session.Warning && strings.Contains(msg, "never paused") {
					if bp := ev.Str(session.KeyBreakpoint); bp != "tool=get_forecast" && bp != "server=wether" {
						t.Errorf("warning's breakpoint %q", bp)
					}
					recorded++
				}
			}
			if recorded != 2 {
				t.Fatalf("%d of the warnings are in the events, want 2", recorded)
			}
		})
	}
}

func TestWatchToolBreakpointEditsArguments(t *testing.T) {
	for _, mode := range []string{"native", "react"} {
		t.Run(mode, func(t *testing.T) {
			st := &scriptedStepper{
				bp: crew.Breakpoints{Tools: []string{"word_counter", "getForecast"}},
				decisions: []crew.Decision{
					{Action: crew.EditArgs, Args: mustObject(t, `{"text": "alpha beta gamma delta"}`)},
					{Action: crew.EditArgs, Args: mustObject(t, `{"city": "Lisbon", "days": 1}`)},
				},
			}
			_, evs, err := watchStub(t, st, stubEnv(t), mode)
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			if len(st.pauses) != 2 {
				t.Fatalf("pauses: %d, want 2", len(st.pauses))
			}
			// §3.5: native tool calls emit tool_usage_started before the
			// hooks run; ReAct runs the hooks first.
			var order []string
			for _, ev := range evs {
				if ev.Kind == session.StepPaused || ev.Kind == session.ToolUsageStarted {
					order = append(order, string(ev.Kind))
				}
			}
			want := "tool_usage_started crewbench_step_paused"
			if mode == "react" {
				want = "crewbench_step_paused tool_usage_started"
			}
			if got := strings.Join(order[:2], " "); got != want {
				t.Fatalf("%s order: %s, want %s", mode, got, want)
			}
			p := st.pauses[1]
			if p.Kind != crew.PauseToolCall || p.ToolName != "weather_get_forecast" || p.OriginalName != "getForecast" ||
				p.Server != "weather" || pyjson.Dumps(p.Args) != `{"city": "Berlin", "days": 1}` {
				t.Fatalf("MCP pause: %+v args %s", p, pyjson.Dumps(p.Args))
			}
			// The pause carries the tool's argument model (ctx.tool.args_schema)
			// for the pause panel's schema.
			if p.Schema == nil || !strings.Contains(pyjson.Dumps(p.Schema), `"properties": {"city": {`) {
				t.Fatalf("MCP pause schema: %v", p.Schema)
			}
			if out := outputLines(evs); !strings.Contains(out, `word_counter received {"text": "alpha beta gamma delta"}`) {
				t.Fatalf("the @tool did not receive the edited arguments:\n%s", out)
			}
			// The MCP server received the edited arguments.
			var sent map[string]any
			for _, ev := range evs {
				if ev.Kind == session.MCPToolExecutionStarted {
					sent, _ = ev.Data["tool_args"].(map[string]any)
				}
			}
			if sent["city"] != "Lisbon" || !strings.Contains(finalOutput(evs), `"city": "Lisbon"`) {
				t.Fatalf("MCP call args %v, final %q", sent, finalOutput(evs))
			}
			if !strings.HasPrefix(finalOutput(evs), "4 words") {
				t.Fatalf("final: %q", finalOutput(evs))
			}
			var paused, resumed int
			for _, ev := range evs {
				switch ev.Kind {
				case session.StepPaused:
					paused++
				case session.StepResumed:
					resumed++
					if ev.Str("decision") != string(crew.EditArgs) {
						t.Fatalf("resumed: %v", ev.Data)
					}
				}
			}
			if paused != 2 || resumed != 2 {
				t.Fatalf("paused %d resumed %d", paused, resumed)
			}
		})
	}
}

// A skip supplies the result, and the trace keeps the call's node, marked
// skipped with that result, under the LLM call that asked for it: on the
// native path CrewAI's own tool events are marked; on the ReAct path, where
// CrewAI emits no tool event for a blocked call, crewbench makes the node.
func TestWatchSkipSuppliesTheResult(t *testing.T) {
	for _, tc := range []struct {
		mode        string
		synthesized bool
	}{{"native", false}, {"react", true}} {
		t.Run(tc.mode, func(t *testing.T) {
			const supplied = "99 words (supplied)"
			st := &scriptedStepper{
				bp:        crew.Breakpoints{Tools: []string{"Word Counter"}},
				decisions: []crew.Decision{{Action: crew.Skip, Result: supplied}},
			}
			_, evs, err := watchStub(t, st, stubEnv(t), tc.mode)
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			if strings.Contains(outputLines(evs), "word_counter received") {
				t.Fatal("a skipped tool ran")
			}
			if !strings.HasPrefix(finalOutput(evs), supplied) {
				t.Fatalf("final %q", finalOutput(evs))
			}
			var tools []*session.Node
			for _, n := range session.BuildTree(evs).Nodes() {
				if n.Kind == session.NodeTool && n.ToolName == "word_counter" {
					tools = append(tools, n)
				}
			}
			if len(tools) != 1 {
				t.Fatalf("%d word_counter nodes, want 1", len(tools))
			}
			n := tools[0]
			if n.Parent == nil || n.Parent.Kind != session.NodeLLM || n.Orphan() {
				t.Fatalf("the skipped call hangs under %v", n.Parent)
			}
			var finished *session.Event
			var synthesized bool
			for i, ev := range n.Events {
				synthesized = synthesized || ev.Bool(KeySynthesized)
				if ev.Kind == session.ToolUsageFinished {
					finished = &n.Events[i]
				}
			}
			if finished == nil || !finished.Bool(session.KeySkipped) || finished.Str(session.KeyOutput) != supplied {
				t.Fatalf("tool_usage_finished: %+v", finished)
			}
			if synthesized != tc.synthesized {
				t.Fatalf("synthesized = %v, want %v", synthesized, tc.synthesized)
			}
			if n.Status == session.StatusRunning {
				t.Fatalf("the skipped call is still running in the tree")
			}
		})
	}
}

func TestWatchLLMBreakpointEditsMessages(t *testing.T) {
	st := &scriptedStepper{bp: crew.Breakpoints{LLMCalls: true}}
	_, evs, err := watchStub(t, &editingStepper{st}, stubEnv(t), "native")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	if len(st.pauses) != 3 {
		t.Fatalf("LLM pauses: %d, want 3", len(st.pauses))
	}
	var msgs []any
	for _, ev := range evs {
		if ev.Kind == session.LLMCallStarted {
			msgs, _ = ev.Data["messages"].([]any)
			break
		}
	}
	if len(msgs) != 3 || !strings.Contains(pyjson.Dumps(msgs[2]), "crewbench was here") {
		t.Fatalf("first LLM call messages: %v", msgs)
	}
}

// editingStepper appends a message at the first LLM pause.
type editingStepper struct{ *scriptedStepper }

func (e *editingStepper) Before(ctx context.Context, p *crew.Pause) (crew.Decision, error) {
	if _, err := e.scriptedStepper.Before(ctx, p); err != nil || len(e.pauses) > 1 {
		return crew.Decision{Action: crew.Continue}, err
	}
	p.Messages = append(p.Messages, llm.Message{Role: llm.RoleUser, Content: "crewbench was here"})
	return crew.Decision{Action: EditMessages}, nil
}

func TestWatchMissingCrewAISaysWhichInterpreter(t *testing.T) {
	py := python3(t)
	env := append(os.Environ(), "PYTHONPATH=") // no stub: crewai is not importable
	_, evs, err := watchStub(t, nil, env, "native")
	var me *CrewAIMissingError
	if !errors.As(err, &me) || me.Executable == "" || !strings.Contains(err.Error(), "uv run") {
		t.Fatalf("err = %v", err)
	}
	if real, _ := filepath.EvalSymlinks(py); !strings.Contains(err.Error(), me.Executable) || me.Executable == "" {
		t.Fatalf("interpreter %q (python3 is %s) not named in %v", me.Executable, real, err)
	}
	if !strings.Contains(outputLines(evs), "No module named 'crewai'") {
		t.Fatal("the traceback was not kept")
	}
}

func TestWatchMissingCommand(t *testing.T) {
	_, err := Watch(t.Context(), Options{Command: []string{"python3-crewbench-nonexistent"}})
	var ce *CommandNotFoundError
	if !errors.As(err, &ce) || !ce.Python || !strings.Contains(err.Error(), "no Python on PATH") {
		t.Fatalf("err = %v", err)
	}
	_, err = Watch(t.Context(), Options{Command: []string{"crewai-crewbench-nonexistent", "run"}})
	if !errors.As(err, &ce) || ce.Python || !strings.Contains(err.Error(), "uv run") {
		t.Fatalf("err = %v", err)
	}
}

func TestWatchNeverConnectedKeepsOutput(t *testing.T) {
	py := python3(t)
	col := &session.Collector{}
	_, err := Watch(t.Context(), Options{
		Command: []string{py, "-c", "import time; print('no crew here', flush=True); time.sleep(1)"},
		Sink:    col, ConnectTimeout: 200 * time.Millisecond,
	})
	var ne *NeverConnectedError
	if !errors.As(err, &ne) {
		t.Fatalf("err = %v", err)
	}
	evs := col.Events()
	if !strings.Contains(outputLines(evs), "no crew here") {
		t.Fatal("output lost")
	}
	var warned bool
	for _, ev := range evs {
		if ev.Kind == session.Warning && strings.Contains(ev.Str(session.KeyMessage), "has not connected after 200ms") {
			warned = true
		}
	}
	if !warned {
		t.Fatal("no deadline warning")
	}
}

func warnings(evs []session.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Kind == session.Warning {
			b.WriteString(ev.Str(session.KeyMessage) + "\n")
		}
	}
	return b.String()
}

func TestWatchWarnsWhenHooksAreCleared(t *testing.T) {
	st := &scriptedStepper{bp: crew.Breakpoints{Tools: []string{"word_counter"}}}
	_, evs, err := watchStub(t, st, stubEnv(t, "STUB_CLEAR_HOOKS=1"), "native")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	var detected bool
	for _, ev := range evs {
		detected = detected || (ev.Kind == session.Warning && ev.Str("detected") == "clear_all_global_hooks")
	}
	// clear_all_global_hooks clears through clear_all_llm_call_hooks and
	// clear_all_tool_call_hooks: one call, one warning.
	if !detected || strings.Count(warnings(evs), "the crew called crewai.hooks.") != 1 {
		t.Fatalf("want one warning, for clear_all_global_hooks:\n%s", warnings(evs))
	}
	if len(st.pauses) != 1 {
		t.Fatalf("the tool breakpoint should survive clear_all_global_hooks: %d pauses", len(st.pauses))
	}
}

// scoped_handlers() hides every handler, but the bridge captures events in
// the bus's _prepare_event, which emit runs whether or not handlers exist:
// a kickoff inside the block is watched like any other.
func TestWatchSeesEventsInsideScopedHandlers(t *testing.T) {
	_, evs, err := watchStub(t, nil, stubEnv(t, "STUB_SCOPED=1"), "native")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	checkOrder(t, evs, nativeSequence)
	if w := warnings(evs); w != "" {
		t.Fatalf("warnings:\n%s", w)
	}
}

func TestWatchHooksMissingDegradesToEvents(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "crewai")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "__init__.py"), []byte("__version__ = '0.30.0'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	col := &session.Collector{}
	res, err := Watch(t.Context(), Options{
		Command: []string{python3(t), "-c", "import crewai"}, Env: append(os.Environ(), "PYTHONPATH="+dir), Sink: col,
	})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	w := warnings(col.Events())
	if !strings.Contains(w, "crewai 0.30.0") || !strings.Contains(w, "execution-hooks API") || len(res.Bridges) != 1 {
		t.Fatalf("warnings:\n%s", w)
	}
}

func TestWatchProcessDyingMidRunKeepsEvents(t *testing.T) {
	res, evs, err := watchStub(t, nil, stubEnv(t, "STUB_DIE_IN_TOOL=1"), "native")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || ee.Completed || !strings.Contains(err.Error(), "mid-run") {
		t.Fatalf("err = %v", err)
	}
	if res.Events == 0 || !strings.Contains(strings.Join(crewaiKinds(evs), " "), "tool_usage_started") {
		t.Fatalf("events before the crash were lost: %v", crewaiKinds(evs))
	}
	// The run is over: the tool call the crash cut short, and everything
	// around it, is unfinished, not running.
	tree := session.BuildTree(evs)
	tree.Finish()
	tools := 0
	for _, n := range tree.Nodes() {
		if n.Status == session.StatusRunning {
			t.Errorf("%s %q still running after the run ended", n.Kind, n.Title)
		}
		if n.Kind == session.NodeTool && n.Status == session.StatusUnfinished && n.ClosedBy == nil {
			tools++
		}
	}
	if tools != 1 {
		t.Errorf("%d tool calls closed by the run's end, want the one that crashed", tools)
	}
}

// A paused agent thread proceeds when crewbench goes away: here a fake
// crewbench accepts the bridge, sets a breakpoint, and hangs up at the
// first pause.
func TestBridgeFailsOpenWhenCrewbenchExits(t *testing.T) {
	py := python3(t)
	dir := t.TempDir()
	if err := writePython(dir); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stub, _ := filepath.Abs("testdata/stub")
	cmd := exec.Command(py, "-m", "stubcrew.main", "native")
	cmd.Dir = "testdata/project"
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir+string(os.PathListSeparator)+stub,
		"CREWBENCH_BRIDGE_ADDR=tcp:"+ln.Addr().String(), "CREWBENCH_BRIDGE_TOKEN=t")
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	if _, err := br.ReadBytes('\n'); err != nil { // hello
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(wireOut{Op: "config", Breakpoints: &wireBreakpoints{Tools: []string{"word_counter"}}})
	_, _ = c.Write(append(cfg, '\n'))
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no pause request: %v", err)
		}
		if strings.Contains(string(line), `"op":"pause"`) {
			break
		}
	}
	c.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "FINAL: 3 words") {
			t.Fatalf("exit %v, output:\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the paused run blocked after crewbench went away:\n%s", out)
	}
}

// The stub behaves as the spec says CrewAI does (testdata/stub_selftest.py).
func TestStubIsFaithful(t *testing.T) {
	stub, _ := filepath.Abs("testdata/stub")
	cmd := exec.Command(python3(t), "stub_selftest.py")
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "PYTHONPATH="+stub, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("%v\n%s", err, out)
	}
}

// The blocked LLM call of §3.4: three attempts, each flow_failed then
// agent_execution_error, then task_failed and crew_kickoff_failed; no
// llm_call_* events.
func TestWatchBlockedLLMCallSequence(t *testing.T) {
	_, evs, err := watchStub(t, nil, stubEnv(t), "fail-llm")
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, k := range crewaiKinds(evs) {
		if k != "hook_dispatched" {
			got = append(got, k)
		}
	}
	attempt := "agent_execution_started flow_started agent_logs_started flow_failed agent_execution_error "
	want := "default_env crew_kickoff_started mcp_connection_started mcp_connection_completed task_started " +
		strings.Repeat(attempt, 3) + "task_failed crew_kickoff_failed"
	if strings.Join(got, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// The injected sitecustomize runs the environment's own one first.
func TestSitecustomizeChainsToTheExistingOne(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sitecustomize.py"), []byte("import os\nos.environ['USER_SITECUSTOMIZE'] = 'ran'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	col := &session.Collector{}
	_, _ = Watch(t.Context(), Options{Sink: col, Env: append(os.Environ(), "PYTHONPATH="+dir),
		Command: []string{python3(t), "-c", "import os, sys; print('user sitecustomize', os.environ.get('USER_SITECUSTOMIZE'), 'crewai' in sys.modules)"}})
	if out := outputLines(col.Events()); !strings.Contains(out, "user sitecustomize ran False") {
		t.Fatalf("output:\n%s", out)
	}
}

// Events reach crewbench while the run goes on, not only at exit: the
// writer sleeps while nothing happens, and the first event after a quiet
// spell wakes it. Here every LLM call takes 1.5 s, so llm_call_started must
// arrive before the @tool's output line that follows the call.
func TestWatchStreamsEventsLive(t *testing.T) {
	_, evs, err := watchStub(t, nil, stubEnv(t, "STUB_LLM_LATENCY_MS=1500", "STUB_MCP_COMMAND=[]"), "native")
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	started, toolRan := -1, -1
	for i, ev := range evs {
		if ev.Kind == session.LLMCallStarted && started < 0 {
			started = i
		}
		if ev.Kind == KindProcessOutput && strings.Contains(ev.Str(session.KeyLine), "word_counter received") && toolRan < 0 {
			toolRan = i
		}
	}
	if started < 0 || toolRan < 0 || started > toolRan {
		t.Fatalf("llm_call_started at %d, the tool's output at %d: events were held back", started, toolRan)
	}
}

// Every field model_dump gives an event reaches the recorded event with
// the same value, whatever the bridge does to send it cheaply (values-only
// lines, message histories sent as what is new).
func TestWatchEventsKeepEveryField(t *testing.T) {
	for _, mode := range []string{"native", "react", "bench"} {
		t.Run(mode, func(t *testing.T) {
			dump := filepath.Join(t.TempDir(), "events.jsonl")
			args := []string{mode}
			if mode == "bench" {
				args = append(args, "60") // several LLM calls per task: histories that grow
			}
			_, evs, err := watchStub(t, nil, stubEnv(t, "STUB_DUMP_EVENTS="+dump), args...)
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			raw, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]map[string]any{} // event_id → model_dump
			for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
				var d map[string]any
				if err := json.Unmarshal([]byte(line), &d); err != nil {
					t.Fatalf("dump line %q: %v", line, err)
				}
				want[str(d["event_id"])] = d
			}
			// The envelope fields the translator moves out of Data.
			moved := map[string]bool{"timestamp": true, "type": true, "event_id": true, "task_id": true, "task_name": true,
				"agent_id": true, "agent_role": true, "server_name": true, "error": true}
			seen := 0
			for _, ev := range evs {
				if _, ok := ev.Data[KeyCrewAIClass]; !ok {
					continue
				}
				d, ok := want[ev.ID]
				if !ok {
					t.Fatalf("%s %s is not in the dump", ev.Kind, ev.ID)
				}
				seen++
				for k, v := range d {
					if moved[k] {
						continue
					}
					if got, ok := ev.Data[k]; !ok || !reflect.DeepEqual(got, v) {
						t.Errorf("%s.%s = %#v (present %v), model_dump has %#v", ev.Kind, k, got, ok, v)
					}
				}
				// (AgentExecution* leave task_id null: the translator takes it from the task's summary.)
				if (d["task_id"] != nil && ev.TaskID != str(d["task_id"])) || ev.Kind != session.Kind(str(d["type"])) {
					t.Errorf("%s: task %q kind %q, model_dump has %v %v", ev.ID, ev.TaskID, ev.Kind, d["task_id"], d["type"])
				}
			}
			if seen != len(want) {
				t.Fatalf("%d events recorded, %d dumped", seen, len(want))
			}
		})
	}
}
