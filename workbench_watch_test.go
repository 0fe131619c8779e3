package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"crewbench/crew"
	"crewbench/session"
	"crewbench/themes"
	"crewbench/ui"
)

func typeKeys(tm *teatest.TestModel, s string) {
	for _, r := range s {
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// startWatchFlow opens the workbench on a watched run of the stub crew
// (stubcrew.main MODE) with the breakpoints, recording to the returned path.
func startWatchFlow(t *testing.T, mode string, bp crew.Breakpoints, width, height int) (*teatest.TestModel, string) {
	t.Helper()
	py := watchStubEnv(t)
	pal, err := themes.Select("", true)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("crew/bridge/testdata/project")
	rec := filepath.Join(t.TempDir(), "watch.jsonl")
	w := newBridgeWatcher(dir, "")
	w.record = rec
	deps := ui.Deps{
		Workspace: ui.Workspace{Name: "project"}, Palette: pal, Watcher: w,
		Watch: &ui.WatchStart{Command: []string{py, "-m", "stubcrew.main", mode}, Breakpoints: bp},
	}
	return teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(width, height)), rec
}

// Flow: crewbench watch opens the workbench on the real (stub) CrewAI run,
// which pauses before the Python tool; skipping it with a supplied result
// reaches the crew's own code, and the session records the real run.
func TestFlow_WatchARealRunAndSkipAToolAtABreakpoint(t *testing.T) {
	tm, rec := startWatchFlow(t, "react", crew.Breakpoints{Tools: []string{"word_counter"}}, 120, 40)
	screenHas(t, tm, "REAL CrewAI run", "PAUSED before tool call word_counter", "one two three")
	typeKeys(tm, "u") // skip with a supplied result
	typeKeys(tm, "7 words (supplied)")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	screenHas(t, tm, "skipped with a canned result", "tools/call getForecast @ weather", "RUN FINISHED")
	typeKeys(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))

	f, err := session.ReadFile(rec, session.ReadOptions{Lenient: true, AnySchema: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Command != "watch" || f.Header.Meta["real_crewai"] != true {
		t.Fatalf("header: %+v", f.Header)
	}
	var kinds, out []string
	for _, ev := range f.Events {
		kinds = append(kinds, string(ev.Kind))
		if line, ok := ev.Data[session.KeyLine].(string); ok {
			out = append(out, line)
		}
	}
	joined, printed := strings.Join(kinds, " "), strings.Join(out, "\n")
	for _, k := range []string{"crewbench_bridge_connected", "crewbench_step_paused", "crewbench_step_resumed", "tool_usage_finished", "crew_kickoff_completed"} {
		if !strings.Contains(joined, k) {
			t.Fatalf("no %s recorded: %s", k, joined)
		}
	}
	if strings.Contains(printed, "word_counter received") || !strings.Contains(printed, "FINAL: 7 words (supplied)") {
		t.Fatalf("the skipped tool ran, or the supplied result did not reach the crew:\n%s", printed)
	}
	_ = os.Remove(rec)
}

// The done-when chain of `crewbench watch -- python -m stubcrew.main`, a
// classic project whose crew uses a Python @tool and an MCP server: the
// workbench shows the live tree, pauses before the MCP tool call, sends the
// edited arguments to the server (the weather fixture, a real MCP server
// process), and records a session that `crewbench replay` prints.
func TestFlow_WatchPausesBeforeTheMCPCallEditsItsArgumentsAndReplays(t *testing.T) {
	tm, rec := startWatchFlow(t, "native", crew.Breakpoints{Servers: []string{"weather"}}, 160, 48)
	// The live tree, with the @tool's call done, paused before the MCP call.
	screenHas(t, tm, "REAL CrewAI run", "task research", "agent Researcher", "word_counter",
		"PAUSED before tool call weather_get_forecast", `"Berlin"`)
	// The tree follows its newest row, so when the events arrive in one
	// burst the crew's row is above the pane and was never drawn: go to
	// the top to see it.
	tm.Send(tea.KeyMsg{Type: tea.KeyHome})
	screenHas(t, tm, "crew stub_crew")
	typeKeys(tm, "e")
	screenHas(t, tm, "Edit the arguments (JSON)")
	for range 80 {
		tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	typeKeys(tm, `{"city": "Lisbon", "days": 1}`)
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	screenHas(t, tm, "running the tool with edited arguments", "RUN FINISHED")
	typeKeys(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))

	// The server got the edited arguments: its reply names Lisbon, and the
	// crew's final answer carries it.
	f, err := session.ReadFile(rec, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mcpArgs map[string]any
	var final string
	for _, ev := range f.Events {
		switch ev.Kind {
		case session.MCPToolExecutionStarted:
			mcpArgs, _ = ev.Data[session.KeyToolArgs].(map[string]any)
		case session.CrewKickoffCompleted:
			final = ev.Str(session.KeyOutput)
		}
	}
	if mcpArgs["city"] != "Lisbon" || !strings.Contains(final, `"city": "Lisbon"`) || strings.Contains(final, "Berlin") {
		t.Fatalf("MCP call arguments %v, final answer %q", mcpArgs, final)
	}

	var out, errb bytes.Buffer
	if code := execute(context.Background(), []string{"replay", rec, "--print", "--color", "never"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("replay exit %d: %s", code, errb.String())
	}
	printed := out.String()
	for _, want := range []string{"crew stub_crew", "task research", "→ word_counter", "→ weather_get_forecast", "connect weather"} {
		if !strings.Contains(printed, want) {
			t.Fatalf("replay does not show %q:\n%s", want, printed)
		}
	}
	var mcpResult string
	for _, l := range strings.Split(printed, "\n") {
		if strings.Contains(l, "✓ weather_get_forecast") {
			mcpResult = l
		}
	}
	if !strings.Contains(mcpResult, "Lisbon") {
		t.Fatalf("replay's MCP call result %q does not come from the edited arguments:\n%s", mcpResult, printed)
	}
}
