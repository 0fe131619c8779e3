package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"crewbench/crew"
	"crewbench/session"
	"crewbench/themes"
	"crewbench/ui"
)

// watchScreenHas waits until the workbench's screen shows every text.
func watchScreenHas(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	var seen []byte
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		seen = append(seen, b...)
		plain := ansi.Strip(string(seen))
		if p := os.Getenv("UI_FLOW_DEBUG"); p != "" {
			_ = os.WriteFile(p, []byte(plain), 0o644)
		}
		for _, s := range texts {
			if !strings.Contains(plain, s) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(90*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func typeKeys(tm *teatest.TestModel, s string) {
	for _, r := range s {
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// Flow: crewbench watch opens the workbench on the real (stub) CrewAI run,
// which pauses before the Python tool; skipping it with a supplied result
// reaches the crew's own code, and the session records the real run.
func TestFlow_WatchARealRunAndSkipAToolAtABreakpoint(t *testing.T) {
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
		Watch: &ui.WatchStart{Command: []string{py, "-m", "stubcrew.main", "react"},
			Breakpoints: crew.Breakpoints{Tools: []string{"word_counter"}}},
	}
	tm := teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(120, 40))
	watchScreenHas(t, tm, "REAL CrewAI run", "PAUSED before tool call word_counter", "one two three")
	typeKeys(tm, "u") // skip with a supplied result
	typeKeys(tm, "7 words (supplied)")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	watchScreenHas(t, tm, "skipped with a canned result", "tools/call getForecast @ weather", "RUN FINISHED")
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
