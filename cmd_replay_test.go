package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"crewbench/crew/llm"
	"crewbench/crew/rerun"
	"crewbench/fixtures/demo"
	"crewbench/mcpconn"
	"crewbench/session"
)

// Planted secrets: every one contains "PLANTED", and none may reach any
// output of replay, diff or export.
const (
	plantedBearer = "PLANTED-bearer-7f3a9c"
	plantedEnv    = "PLANTED-env-token-41d2"
)

// sessionSpec describes a synthetic but realistic crew run: what the
// engine and mcpconn emit for a two-task crew with MCP tools.
type sessionSpec struct {
	// hideAlerts: a tool filter keeps get_alerts from the forecaster.
	hideAlerts bool
	// failReport: the slow_report call times out three times.
	failReport bool
	// output is the writer's answer.
	output string
}

func (s sessionSpec) events() []session.Event {
	var c session.Collector
	clock := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	em := session.NewEmitter(&c).WithClock(func() time.Time { return clock }, nil)
	adv := func(d time.Duration) { clock = clock.Add(d) }
	run := session.NewID()
	emit := func(ev session.Event) {
		ev.RunID = run
		em.Emit(ev)
	}
	crewSpan := em.NewSpan()
	emit(session.Event{Kind: session.CrewKickoffStarted, Span: crewSpan, Data: map[string]any{
		session.KeyCrewName: "Weekend Brief", session.KeyInputs: map[string]any{"city": "Lisbon"}}})
	conn := em.NewSpan()
	emit(session.Event{Kind: session.MCPConnectionStarted, Span: conn, Parent: crewSpan, Server: "weather", Data: map[string]any{
		session.KeyServerURL: "https://mcp.example.com/mcp", session.KeyTransport: "streamable-http",
		"headers": map[string]any{"Authorization": "Bearer " + plantedBearer},
		"env":     map[string]any{"GITHUB_TOKEN": plantedEnv, "HOME": "/home/u"},
	}})
	adv(120 * time.Millisecond)
	emit(session.Event{Kind: session.MCPConnectionCompleted, Span: conn, Parent: crewSpan, Server: "weather", Outcome: "ok"})

	type tool struct{ llm, orig, server string }
	forecast := tool{"weather_get_forecast", "getForecast", "weather"}
	alerts := tool{"weather_get_alerts", "getAlerts", "weather"}
	report := tool{"slow_slow_report", "slow_report", "slow"}
	offered := []tool{forecast, alerts, report}
	if s.hideAlerts {
		offered = []tool{forecast, report}
	}
	task := func(name, role string, tools []tool, steps [][]tool, answer string) {
		taskSpan := em.NewSpan()
		base := session.Event{TaskName: name, AgentRole: role, TaskID: session.NewID()}
		ev := base
		ev.Kind, ev.Span, ev.Parent = session.TaskStarted, taskSpan, crewSpan
		emit(ev)
		start := clock
		agent := em.NewSpan()
		var list []any
		for _, t := range tools {
			list = append(list, map[string]any{"name": t.llm, "llm_name": t.llm, "original_name": t.orig, "server": t.server, "kind": "mcp"})
		}
		ev = base
		ev.Kind, ev.Span, ev.Parent = session.AgentExecutionStarted, agent, taskSpan
		ev.Data = map[string]any{"agent": role, session.KeyTools: list}
		emit(ev)
		for i := 0; i <= len(steps); i++ {
			llm := em.NewSpan()
			ev = base
			ev.Kind, ev.Span, ev.Parent = session.LLMCallStarted, llm, agent
			ev.Data = map[string]any{session.KeyModel: "openai/gpt-4o-mini", session.KeyCallID: llm,
				session.KeyMessages: []any{map[string]any{"role": "user", "content": "Go (the key is in GITHUB_TOKEN=" + plantedEnv + ")"}}}
			emit(ev)
			adv(600 * time.Millisecond)
			ev.Kind = session.LLMCallCompleted
			ev.Data = map[string]any{session.KeyModel: "openai/gpt-4o-mini", session.KeyCallID: llm, session.KeyResponse: "",
				session.KeyUsage: map[string]any{"prompt_tokens": 900, "completion_tokens": 30, "total_tokens": 930}}
			emit(ev)
			if i == len(steps) {
				break
			}
			for _, t := range steps[i] {
				ts := em.NewSpan()
				tb := base
				tb.ToolName, tb.OriginalToolName, tb.Server = t.llm, t.orig, t.server
				ev = tb
				ev.Kind, ev.Span, ev.Parent, ev.Data = session.ToolUsageStarted, ts, agent, map[string]any{session.KeyToolArgs: map[string]any{"city": "Lisbon"}}
				emit(ev)
				mcp := em.NewSpan()
				ev = tb
				ev.Kind, ev.Span, ev.Parent, ev.Data = session.MCPToolExecutionStarted, mcp, ts, map[string]any{session.KeyMaxAttempts: 3}
				emit(ev)
				outcomes := []string{session.OutcomeOK}
				if t == report && s.failReport {
					outcomes = []string{session.OutcomeTimeout, session.OutcomeTimeout, session.OutcomeTimeout}
				}
				for n, oc := range outcomes {
					att := em.NewSpan()
					ev = tb
					ev.Kind, ev.Span, ev.Parent, ev.Attempt = session.MCPAttemptStarted, att, mcp, n+1
					emit(ev)
					adv(300 * time.Millisecond)
					ev.Kind, ev.Outcome, ev.Duration = session.MCPAttemptFinished, oc, 300*time.Millisecond
					if oc != session.OutcomeOK {
						ev.Error = "no response within 1s (Authorization: Bearer " + plantedBearer + ")"
					}
					emit(ev)
				}
				ev = tb
				ev.Span, ev.Parent = mcp, ts
				failed := outcomes[len(outcomes)-1] != session.OutcomeOK
				if failed {
					ev.Kind, ev.Outcome, ev.Error = session.MCPToolExecutionFailed, session.OutcomeTimeout, "Error executing MCP tool slow_report: Operation timed out after 1 seconds"
				} else {
					ev.Kind, ev.Outcome = session.MCPToolExecutionCompleted, session.OutcomeOK
				}
				emit(ev)
				ev = tb
				ev.Span, ev.Parent = ts, agent
				if failed {
					ev.Kind, ev.Outcome, ev.Error = session.ToolUsageError, "failed", "Error executing MCP tool slow_report: Operation timed out after 1 seconds"
				} else {
					ev.Kind, ev.Outcome, ev.Data = session.ToolUsageFinished, "ok", map[string]any{session.KeyOutput: "sunny, 24°C"}
				}
				emit(ev)
			}
		}
		ev = base
		ev.Kind, ev.Span, ev.Parent, ev.Outcome = session.AgentExecutionCompleted, agent, taskSpan, "ok"
		emit(ev)
		ev = base
		ev.Kind, ev.Span, ev.Parent, ev.Outcome, ev.Duration = session.TaskCompleted, taskSpan, crewSpan, "ok", clock.Sub(start)
		ev.Data = map[string]any{session.KeyOutput: map[string]any{"raw": answer}}
		emit(ev)
	}
	steps := [][]tool{{forecast, alerts}, {report}}
	if s.hideAlerts {
		steps = [][]tool{{forecast}, {report}}
	}
	task("forecast_task", "Weekend Forecaster", offered, steps, "- sunny\n- no alerts\n- report delivered")
	out := s.output
	if out == "" {
		out = "Lisbon looks sunny this weekend."
	}
	task("brief_task", "Travel Brief Writer", nil, nil, out)
	emit(session.Event{Kind: session.CrewKickoffCompleted, Span: crewSpan, Outcome: "ok", Data: map[string]any{
		session.KeyCrewName: "Weekend Brief", session.KeyOutput: map[string]any{"raw": out}}})
	return c.Events()
}

// recordSession writes the spec's events through a session.Recorder, as
// `crewbench run --record` does.
func recordSession(t *testing.T, path string, s sessionSpec) string {
	t.Helper()
	rec, err := session.Create(path, session.RecorderOptions{Header: session.Header{
		Version: "test", Project: "/work/proj", Command: "run"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range s.events() {
		rec.Emit(ev)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if bytes.Contains(b, []byte("PLANTED")) {
		t.Fatalf("the recorder wrote a planted secret to %s", path)
	}
	return path
}

// rawSession writes the events as JSON lines without the recorder (an
// event stream from elsewhere): the secrets are in the file, so the
// commands themselves must redact.
func rawSession(t *testing.T, path string, s sessionSpec) string {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString(`{"crewbench_session":1,"version":"test","command":"run"}` + "\n")
	for _, ev := range s.events() {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(b, '\n'))
	}
	if !bytes.Contains(buf.Bytes(), []byte(plantedBearer)) || !bytes.Contains(buf.Bytes(), []byte(plantedEnv)) {
		t.Fatal("the raw session lacks the planted secrets; the test would prove nothing")
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func runSessionCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := execute(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReplayPrintsSession(t *testing.T) {
	path := recordSession(t, filepath.Join(t.TempDir(), "run.jsonl"), sessionSpec{})
	code, out, errs := runSessionCLI(t, "replay", path, "--color", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"session " + path + " · crewbench run · version test",
		"▶ crew Weekend Brief",
		"▶ task forecast_task · Weekend Forecaster",
		"→ weather_get_forecast ← getForecast @ weather",
		"✓ crew Weekend Brief",
		"── summary",
		"✓ succeeded in",
		"tokens: 3600 in · 120 out · 3720 total",
		"── final output",
		"Lisbon looks sunny this weekend.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour with --color never")
	}
	// The trace is exactly what the printer prints for the events.
	f, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	p := session.NewPrinter(&want, session.PrinterOptions{})
	for _, ev := range f.Events {
		p.Emit(ev)
	}
	_ = p.Close()
	if !strings.Contains(out, want.String()) {
		t.Errorf("the trace differs from the printer's:\n%s\nwant:\n%s", out, want.String())
	}
	code, colored, _ := runSessionCLI(t, "replay", path, "--color", "always", "-v")
	if code != 0 || !strings.Contains(colored, "\x1b[") || !strings.Contains(colored, "[") {
		t.Errorf("--color always -v: exit %d, no colour", code)
	}
}

func TestReplayJSON(t *testing.T) {
	path := recordSession(t, filepath.Join(t.TempDir(), "run.jsonl"), sessionSpec{})
	code, out, errs := runSessionCLI(t, "replay", path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, _ := session.ReadFile(path, session.ReadOptions{})
	sc := bufio.NewScanner(strings.NewReader(out))
	n := 0
	for sc.Scan() {
		var ev session.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if ev.Seq != f.Events[n].Seq || ev.Kind != f.Events[n].Kind {
			t.Fatalf("line %d is %d %s, want %d %s", n+1, ev.Seq, ev.Kind, f.Events[n].Seq, f.Events[n].Kind)
		}
		n++
	}
	if n != len(f.Events) {
		t.Errorf("%d lines for %d events", n, len(f.Events))
	}
	// The JSON lines are a session stream themselves.
	again := filepath.Join(t.TempDir(), "again.jsonl")
	if err := os.WriteFile(again, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runSessionCLI(t, "diff", path, again); code != 0 {
		t.Errorf("diff of a session and its --json stream: exit %d %s", code, errs)
	}
}

func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	good := recordSession(t, filepath.Join(dir, "good.jsonl"), sessionSpec{})
	lines := strings.SplitAfter(readString(t, good), "\n")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := write("corrupt.jsonl", lines[0]+lines[1]+"{not json\n"+strings.Join(lines[2:], ""))
	torn := write("torn.jsonl", strings.Join(lines[:len(lines)-1], "")+`{"seq":999,"type":"task_sta`)
	newer := write("newer.jsonl", `{"crewbench_session":99,"version":"9.0"}`+"\n")
	notSession := write("notes.txt", "hello\n")
	tests := []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"missing file", []string{"replay", filepath.Join(dir, "nope.jsonl")}, 2, "", "no such file"},
		{"not a session", []string{"replay", notSession}, 2, "", "not a crewbench session file"},
		{"corrupt line", []string{"replay", corrupt}, 2, "", "--lenient skips corrupt lines"},
		{"corrupt line, lenient", []string{"replay", corrupt, "--lenient"}, 0, "── summary", "corrupt line skipped"},
		{"torn last line", []string{"replay", torn}, 0, "── summary", "torn last line"},
		{"newer schema", []string{"replay", newer}, 2, "", "newer than this crewbench reads"},
		{"filter without --rerun", []string{"replay", good, "--allow", "weather=get_forecast"}, 2, "", "--allow needs --rerun"},
		{"project without --rerun", []string{"replay", good, "."}, 2, "", "only taken with --rerun"},
		{"--no-record without --rerun", []string{"replay", good, "--no-record"}, 2, "", "--no-record needs --rerun"},
		{"bad colour", []string{"replay", good, "--color", "pink"}, 2, "", "want auto, always or never"},
		{"bad fault", []string{"replay", good, "--rerun", "--fault", "weather=explode"}, 2, "", "unknown fault kind"},
		{"rerun, project gone", []string{"replay", good, "--rerun"}, 2, "", "the recorded project /work/proj is not there any more"},
		{"rerun, project without a crew", []string{"replay", good, "--rerun", dir}, 2, "", "open project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runSessionCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.inStdout) || !strings.Contains(errs, tt.inStderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
		})
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplayOpensTheWorkbenchOnATerminal(t *testing.T) {
	path := recordSession(t, filepath.Join(t.TempDir(), "run.jsonl"), sessionSpec{})
	var opened []string
	terminal := true
	viewer := replayViewer{
		open: func(cmd *cobra.Command, p string) error {
			opened = append(opened, p)
			return nil
		},
		isTerminal: func(io.Writer) bool { return terminal },
	}
	// The command tree as execute builds it, with the workbench and the
	// terminal check replaced.
	runReplayCLI := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := executeRoot(context.Background(), newRootCmd(viewer), args, strings.NewReader(""), &out, io.Discard)
		return code, out.String()
	}
	if code, out := runReplayCLI("replay", path); code != 0 || out != "" || len(opened) != 1 || opened[0] != path {
		t.Fatalf("terminal: exit %d, out %q, opened %v", code, out, opened)
	}
	for _, flag := range []string{"--print", "--json"} {
		if code, out := runReplayCLI("replay", path, flag); code != 0 || out == "" || len(opened) != 1 {
			t.Errorf("%s: exit %d, opened %v", flag, code, opened)
		}
	}
	terminal = false
	if code, out := runReplayCLI("replay", path); code != 0 || out == "" || len(opened) != 1 {
		t.Errorf("not a terminal: exit %d, opened %v", code, opened)
	}
}

func TestReplayNeverPrintsSecrets(t *testing.T) {
	path := rawSession(t, filepath.Join(t.TempDir(), "raw.jsonl"), sessionSpec{failReport: true})
	for _, args := range [][]string{
		{"replay", path},
		{"replay", path, "-v"},
		{"replay", path, "--json"},
	} {
		code, out, errs := runSessionCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		if strings.Contains(out+errs, "PLANTED") {
			t.Errorf("%v printed a planted secret:\n%s", args, out)
		}
	}
}

func TestParseFaultFlag(t *testing.T) {
	tests := []struct {
		in     string
		server string
		want   mcpconn.Fault
		err    string
	}{
		{"weather=is_error", "weather", mcpconn.Fault{Kind: mcpconn.FaultIsError}, ""},
		{"slow=delay,delay=35s,tool=slow_report,times=1", "slow", mcpconn.Fault{Kind: mcpconn.FaultDelay, Delay: 35 * time.Second, Tool: "slow_report", Times: 1}, ""},
		{"gh=jsonrpc_error,code=-32603,message=boom, with a comma", "gh", mcpconn.Fault{Kind: mcpconn.FaultJSONRPCError, Code: -32603, Message: "boom, with a comma"}, ""},
		{" weather = hang , tool = get_forecast ", "weather", mcpconn.Fault{Kind: mcpconn.FaultHang, Tool: "get_forecast"}, ""},
		{"weather", "", mcpconn.Fault{}, "want SERVER=KIND"},
		{"=is_error", "", mcpconn.Fault{}, "want SERVER=KIND"},
		{"weather=boom", "", mcpconn.Fault{}, "unknown fault kind \"boom\""},
		{"weather=delay", "", mcpconn.Fault{}, "needs delay="},
		{"weather=drop,delay=1s", "", mcpconn.Fault{}, "only goes with kind delay"},
		{"weather=drop,times=-1", "", mcpconn.Fault{}, "whole number"},
		{"weather=drop,times=1,times=2", "", mcpconn.Fault{}, "given twice"},
		{"weather=drop,colour=red", "", mcpconn.Fault{}, "unknown key \"colour\""},
		{"weather=drop,tool", "", mcpconn.Fault{}, "is not key=value"},
	}
	for _, tt := range tests {
		server, f, err := parseFaultFlag(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || server != tt.server || f != tt.want {
			t.Errorf("%q: %q %+v %v, want %q %+v", tt.in, server, f, err, tt.server, tt.want)
		}
	}
}

func FuzzParseFaultFlag(f *testing.F) {
	for _, s := range []string{"weather=is_error", "slow=delay,delay=35s,tool=x,times=1", "a=jsonrpc_error,message=m,=,", "=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		server, fault, err := parseFaultFlag(s)
		if err != nil {
			return
		}
		if strings.TrimSpace(server) == "" || server != strings.TrimSpace(server) {
			t.Fatalf("%q: server %q", s, server)
		}
		valid := false
		for _, k := range mcpconn.FaultKinds {
			valid = valid || k == fault.Kind
		}
		if !valid || (fault.Kind == mcpconn.FaultDelay) != (fault.Delay > 0) || fault.Times < 0 {
			t.Fatalf("%q: accepted %+v", s, fault)
		}
	})
}

func TestParseToolListFlags(t *testing.T) {
	got, err := parseToolListFlags("--allow", []string{"weather=get_forecast, get_alerts", "slow=slow_report", "weather=x"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got["weather"], "|") != "get_forecast|get_alerts|x" || strings.Join(got["slow"], "|") != "slow_report" {
		t.Errorf("got %v", got)
	}
	for _, bad := range []string{"weather", "=a", "weather=", "weather= , "} {
		if _, err := parseToolListFlags("--allow", []string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The "done when": a demo run recorded with --record reopens
// identically, replays offline with a changed filter and reports where it
// diverges, diffs against the original, and exports spans.
func TestDemoSessionRecordReplayRerunDiffExport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo crew four times (~15 s)")
	}
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir) // if run records by default (sessionflags.go), not into $HOME
	recorded := filepath.Join(dir, "demo.jsonl")
	code, _, runTrace := runSessionCLI(t, "run", "--demo", "--record", recorded, "--color", "never")
	if code != runExitToolFailure {
		t.Fatalf("run --demo: exit %d\n%s", code, runTrace)
	}
	runTrace, _, _ = strings.Cut(runTrace, "session recorded to ")

	t.Run("replay shows what run showed", func(t *testing.T) {
		code, out, errs := runSessionCLI(t, "replay", recorded, "--print", "--color", "never")
		if code != 0 || !strings.Contains(out, runTrace) {
			t.Errorf("exit %d %s\nreplay:\n%s\nrun:\n%s", code, errs, out, runTrace)
		}
	})

	t.Run("rerun without changes follows the recording", func(t *testing.T) {
		again := filepath.Join(dir, "again.jsonl")
		code, out, errs := runSessionCLI(t, "replay", recorded, "--rerun", "--record", again, "--color", "never")
		if code != replayExitOK || !strings.Contains(out, "✓ followed the recording: all 5 recorded LLM calls were served") ||
			!strings.Contains(out, "no differences") || !strings.Contains(errs, "session recorded to "+again) {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		if code, out, _ := runSessionCLI(t, "diff", recorded, again); code != diffExitSame {
			t.Errorf("diff recorded rerun: exit %d\n%s", code, out)
		}
	})

	t.Run("a rerun is recorded by default, like a run", func(t *testing.T) {
		code, out, errs := runSessionCLI(t, "replay", recorded, "--rerun", "--color", "never")
		_, file, ok := strings.Cut(errs, "session recorded to ")
		file = strings.TrimSpace(file)
		if code != replayExitOK || !ok || !strings.HasPrefix(file, filepath.Join(dir, "crewbench", "sessions")) {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		f, err := session.ReadFile(file, session.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if f.Header.Command != "replay --rerun" || f.Header.Meta["rerun_of"] != recorded {
			t.Errorf("header %+v", f.Header)
		}
		code, _, errs = runSessionCLI(t, "replay", recorded, "--rerun", "--no-record", "--color", "never")
		if code != replayExitOK || strings.Contains(errs, "session recorded to") {
			t.Errorf("--no-record: exit %d\n%s", code, errs)
		}
	})

	changed := filepath.Join(dir, "changed.jsonl")
	t.Run("rerun with a changed filter reports the divergence", func(t *testing.T) {
		code, out, errs := runSessionCLI(t, "replay", recorded, "--rerun", "--allow", "weather=get_alerts", "--json", "--record", changed)
		if code != replayExitDiverged {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		var rep struct {
			Diverged   bool `json:"diverged"`
			Divergence struct {
				Kind    string `json:"kind"`
				LLMCall int    `json:"llm_call"`
				Agent   string `json:"agent"`
				Task    string `json:"task"`
				Message int    `json:"message"`
				Role    string `json:"role"`
				Field   string `json:"field"`
				Now     string `json:"now"`
			} `json:"divergence"`
			Recorded int    `json:"recorded_llm_calls"`
			Status   string `json:"run_status"`
			Changes  struct {
				Agents []struct {
					Agent string `json:"agent"`
					Added []struct {
						Original string `json:"original_name"`
					}
					Removed []struct {
						Original string `json:"original_name"`
					}
				} `json:"agents"`
			} `json:"changes"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		dv := rep.Divergence
		if !rep.Diverged || dv.Kind != "request" || dv.LLMCall != 2 || rep.Recorded != 5 || dv.Agent != "Weekend Forecaster" ||
			dv.Task != "forecast_task" || dv.Role != "tool" || dv.Field != "content" || !strings.Contains(dv.Now, "Tool not found") || rep.Status != "failed" {
			t.Errorf("report: %+v", rep)
		}
		found := false
		for _, a := range rep.Changes.Agents {
			if a.Agent == "Weekend Forecaster" && len(a.Removed) == 1 && a.Removed[0].Original == "getForecast" &&
				len(a.Added) == 1 && a.Added[0].Original == "getAlerts" {
				found = true
			}
		}
		if !found {
			t.Errorf("changes.agents: %+v", rep.Changes.Agents)
		}
	})

	t.Run("rerun against a changed project given as PATH", func(t *testing.T) {
		proj, err := demo.Materialize(filepath.Join(dir, "edited"))
		if err != nil {
			t.Fatal(err)
		}
		overlay := filepath.Join(proj, "crewbench.yaml")
		edited := readString(t, overlay) + "  weather:\n    tool_filter: { allowed_tool_names: [get_alerts] }\n"
		if err := os.WriteFile(overlay, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runSessionCLI(t, "replay", recorded, "--rerun", proj, "--color", "never")
		if code != replayExitDiverged || !strings.Contains(out, "✗ diverged at LLM call 2 of 5") || !strings.Contains(out, "message 3 (tool) differs in content") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
		code, _, errs = runSessionCLI(t, "replay", recorded, "--rerun", proj, "--block", "nosuch=x")
		if code != replayExitError || !strings.Contains(errs, `--block nosuch: the project has no server "nosuch" (servers: `) {
			t.Errorf("unknown server: exit %d %s", code, errs)
		}
	})

	t.Run("diff against the changed run", func(t *testing.T) {
		code, out, _ := runSessionCLI(t, "diff", recorded, changed, "--color", "never")
		for _, want := range []string{
			"    - crewbench_fixture_weather_get_forecast ← getForecast @ weather\n",
			"    + crewbench_fixture_weather_get_alerts ← getAlerts @ weather\n",
			"crewbench_fixture_weather_get_forecast failed 0 → 1 · new failure",
			"  task brief_task · ok → absent",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		if code != diffExitDifferent {
			t.Errorf("exit %d", code)
		}
	})

	t.Run("rerun with a fault keeps going and lists the new failure", func(t *testing.T) {
		code, out, errs := runSessionCLI(t, "replay", recorded, "--rerun", "--fault", "flaky=is_error,tool=flaky_echo", "--keep-going", "--color", "never")
		for _, want := range []string{
			"✗ diverged at LLM call 4 of 5 (agent \"Weekend Forecaster\", task \"forecast_task\")",
			"now:      at byte 0: \"injected tool error\"",
			"5 of 5 recorded LLM calls served · the run finished with tool failures",
			"flaky_echo @ flaky is_error 0 → 1 · new failure",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q:\n%s", want, out)
			}
		}
		if code != replayExitDiverged {
			t.Errorf("exit %d\n%s", code, errs)
		}
	})

	t.Run("export", func(t *testing.T) {
		out := filepath.Join(dir, "demo.otlp.json")
		if code, _, errs := runSessionCLI(t, "export", recorded, "--otlp-json", out); code != 0 {
			t.Fatalf("exit %d %s", code, errs)
		}
		checkSpanTree(t, spansOf(decodeOTLPJSON(t, []byte(readString(t, out)))),
			"invoke_workflow Weekend Weather Brief", "invoke_agent Weekend Forecaster", "invoke_agent Travel Brief Writer",
			"chat demo-llm", "execute_tool crewbench_fixture_weather_get_forecast", "tools/call getForecast",
			"execute_tool crewbench_fixture_slow_slow_report", "tools/call slow_report")
	})
}

func TestRerunProviderDivergenceKinds(t *testing.T) {
	req := func(agent, text string) llm.Request {
		return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}, Meta: llm.CallMeta{AgentRole: agent, TaskName: "t"}}
	}
	var recorded []session.Event
	for i, text := range []string{"one", "two", "three"} {
		r := req("A", text)
		recorded = append(recorded, session.Event{Seq: int64(i + 1), Kind: session.LLMCallCompleted, AgentRole: "A", TaskName: "t",
			Data: llm.CompletedEventData("m", r, llm.Response{Content: "reply " + text})})
	}
	// Round-trip through JSON, as a recorded file is read.
	recorded = jsonEvents(t, recorded)
	ctx := context.Background()

	t.Run("strict: stops at the first divergence", func(t *testing.T) {
		rp := rerun.NewProvider(recorded, false)
		if resp, err := rp.Call(ctx, req("A", "one"), nil); err != nil || resp.Content != "reply one" {
			t.Fatalf("call 1: %q %v", resp.Content, err)
		}
		if _, err := rp.Call(ctx, req("A", "TWO"), nil); err == nil {
			t.Fatal("call 2 diverged but succeeded")
		}
		// An engine retry must not consume the third recorded reply.
		if _, err := rp.Call(ctx, req("A", "three"), nil); err == nil || !strings.Contains(err.Error(), "left the recording earlier") {
			t.Fatalf("call after the divergence: %v", err)
		}
		all, first := rp.Result(rp.Served())
		if len(all) != 1 || first == nil || first.Kind != "request" || first.LLMCall != 2 || first.Field != "content" || first.Message != 0 {
			t.Errorf("divergences %+v first %+v", all, first)
		}
	})
	t.Run("keep going: every divergence, every reply", func(t *testing.T) {
		rp := rerun.NewProvider(recorded, true)
		for _, text := range []string{"one", "TWO", "THREE"} {
			if _, err := rp.Call(ctx, req("A", text), nil); err != nil {
				t.Fatalf("%s: %v", text, err)
			}
		}
		all, first := rp.Result(rp.Served())
		if len(all) != 2 || first.LLMCall != 2 || all[1].LLMCall != 3 {
			t.Errorf("divergences %+v", all)
		}
	})
	t.Run("the run asks for more calls than were recorded", func(t *testing.T) {
		rp := rerun.NewProvider(recorded, false)
		for _, text := range []string{"one", "two", "three"} {
			if _, err := rp.Call(ctx, req("A", text), nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := rp.Call(ctx, req("B", "four"), nil); err == nil {
			t.Fatal("a fourth call succeeded")
		}
		_, first := rp.Result(rp.Served())
		if first == nil || first.Kind != "extra_call" || first.LLMCall != 4 || first.Agent != "B" || !strings.Contains(first.Statement, "went further than the recording") {
			t.Errorf("first %+v", first)
		}
	})
	t.Run("the run ends before the recording does", func(t *testing.T) {
		rp := rerun.NewProvider(recorded, false)
		if _, err := rp.Call(ctx, req("A", "one"), nil); err != nil {
			t.Fatal(err)
		}
		_, first := rp.Result(rp.Served())
		if first == nil || first.Kind != "ended_early" || first.LLMCall != 2 || first.Statement != "the run ended after 1 LLM call of the 3 recorded; recorded call 2 was never made" {
			t.Errorf("first %+v", first)
		}
	})
}

func jsonEvents(t *testing.T, evs []session.Event) []session.Event {
	t.Helper()
	var buf bytes.Buffer
	if err := writeEventLines(&buf, evs, session.NewRedactor()); err != nil {
		t.Fatal(err)
	}
	var out []session.Event
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev session.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}
