package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"crewbench/crew"
	"crewbench/crew/bridge"
	"crewbench/session"
)

// skipAtBreakpoint skips the first tool call it is asked about.
type skipAtBreakpoint struct{ result string }

func (s skipAtBreakpoint) Breakpoints() crew.Breakpoints {
	return crew.Breakpoints{Tools: []string{"word_counter"}}
}

func (s skipAtBreakpoint) Before(_ context.Context, _ *crew.Pause) (crew.Decision, error) {
	return crew.Decision{Action: crew.Skip, Result: s.result}, nil
}

// A tool call skipped at a breakpoint of a watched real run shows in 6
// Trace as the engine's skipped calls do, live and from the recording, on
// both of CrewAI's paths (the ReAct one emits no tool event of its own).
func TestTraceShowsAWatchedRunsSkippedTool(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CREWBENCH_CI") == "1" {
			t.Fatalf("python3 is required in CI: %v", err)
		}
		t.Skipf("python3 not on PATH: %v", err)
	}
	stub, _ := filepath.Abs("../crew/bridge/testdata/stub")
	for _, mode := range []string{"native", "react"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "watch.jsonl")
			rec, err := session.Create(path, session.RecorderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			live := &session.Collector{}
			_, err = bridge.Watch(t.Context(), bridge.Options{
				Command: []string{py, "-m", "stubcrew.main", mode}, Dir: "../crew/bridge/testdata/project",
				Env:  append(os.Environ(), "PYTHONPATH="+stub, "PYTHONDONTWRITEBYTECODE=1", "STUB_MCP_COMMAND=[]"),
				Sink: session.SinkFunc(func(ev session.Event) { rec.Emit(ev); live.Emit(ev) }), RunID: "watch-1", Stepper: skipAtBreakpoint{"7 words (supplied)"},
			})
			if cerr := rec.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			recorded, err := session.ReadFile(path, session.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for name, evs := range map[string][]session.Event{"live": live.Events(), "recorded": recorded.Events} {
				v := ansi.Strip(tracePaneWith(t, 160, 48, evs).View())
				var row string
				for _, l := range strings.Split(v, "\n") {
					if strings.Contains(l, "word_counter") {
						row = l
					}
				}
				if !strings.Contains(row, "[skipped at a breakpoint]") || !strings.Contains(row, "→ 7 words (supplied)") {
					t.Errorf("%s: the skipped call's row: %q\n%s", name, row, v)
				}
			}
		})
	}
}
