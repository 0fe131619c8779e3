package ui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"crewbench/crew"
	"crewbench/crew/bridge"
	"crewbench/crew/llm"
	"crewbench/session"
)

// fakeWatcher plays a watched real run: the bridge's hello, a line of
// output, then an LLM-call pause and a tool-call pause through the
// stepper, recording what it was told.
type fakeWatcher struct {
	argv      [][]string
	decisions chan crew.Decision
	messages  chan []llm.Message
}

func (w *fakeWatcher) Commands() []WatchCommand {
	return []WatchCommand{{Argv: []string{"uv", "run", "run_crew"}, Why: "pyproject.toml [project.scripts] run_crew"},
		{Argv: []string{"crewai", "run"}, Why: "pyproject.toml"}}
}

func (w *fakeWatcher) Start(ctx context.Context, req WatchRequest) (*RunHandle, error) {
	w.argv = append(w.argv, req.Command)
	events := make(chan session.Event, 64)
	done := make(chan RunOutcome, 1)
	go func() {
		defer close(done)
		defer close(events)
		events <- session.Event{Kind: bridge.KindBridgeConnected, Data: map[string]any{bridge.KeyRealCrewAI: true, "crewai_version": "1.15.17", "python": "3.12.3"}}
		events <- session.Event{Kind: session.CrewKickoffStarted, Span: "c1", Data: map[string]any{"crew_name": "real_crew"}}
		events <- session.Event{Kind: bridge.KindProcessOutput, Data: map[string]any{bridge.KeyStream: "stdout", session.KeyLine: "hello from the crew"}}
		llmPause := &crew.Pause{Kind: crew.PauseLLMCall, Model: "gpt-4o", AgentRole: "Researcher",
			Messages: []llm.Message{{Role: "system", Content: "You are a researcher."}, {Role: "user", Content: "Go."}}}
		d, err := req.Stepper.Before(ctx, llmPause)
		if err != nil {
			done <- RunOutcome{Err: err}
			return
		}
		w.decisions <- d
		w.messages <- llmPause.Messages
		tool := &crew.Pause{Kind: crew.PauseToolCall, ToolName: "word_counter", RequestedName: "word_counter"}
		d, err = req.Stepper.Before(ctx, tool)
		if err != nil {
			done <- RunOutcome{Err: err}
			return
		}
		w.decisions <- d
		events <- session.Event{Kind: session.CrewKickoffCompleted, Span: "c1"}
		done <- RunOutcome{Output: "done"}
	}()
	return &RunHandle{ID: "watch-1", Events: events, Done: done}, nil
}

// Flow: 5 Kickoff watches the detected command; 6 Trace marks the real
// run and shows its output; at the LLM call s says why it cannot be
// skipped and e sends edited messages; the tool breakpoint continues.
func TestFlow_WatchARealRunFromKickoff(t *testing.T) {
	w := &fakeWatcher{decisions: make(chan crew.Decision, 2), messages: make(chan []llm.Message, 1)}
	deps := goldenDeps()
	deps.Watcher = w
	tm := teatest.NewTestModel(t, New(deps), teatest.WithInitialTermSize(120, 40))
	send(tm, "5")
	screenHas(t, tm, "Real CrewAI run", "uv run run_crew", "detected: uv run run_crew · crewai run")
	send(tm, "d")
	screenHas(t, tm, "command from pyproject.toml")
	// d put the cursor on the command row; five rows up is "every step".
	send(tm, "k", "k", "k", "k", "k", " ", "w")
	screenHas(t, tm, "REAL CrewAI run 1.15.17 (Python 3.12.3)", "hello from the crew", "PAUSED before an LLM call (gpt-4o)",
		"e edit messages", "cannot skip an LLM call")
	send(tm, "u") // skip: not possible for a real LLM call
	screenHas(t, tm, "hooks can only block a call")
	send(tm, "e")
	screenHas(t, tm, "Edit the messages about to be sent")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	if d := <-w.decisions; d.Action != bridge.EditMessages {
		t.Fatalf("LLM pause answered %q, want %q", d.Action, bridge.EditMessages)
	}
	if msgs := <-w.messages; len(msgs) != 2 || msgs[0].Content != "You are a researcher." {
		t.Fatalf("edited messages: %+v", msgs)
	}
	screenHas(t, tm, "PAUSED before tool call word_counter")
	send(tm, "c")
	if d := <-w.decisions; d.Action != crew.Continue {
		t.Fatalf("tool pause answered %q", d.Action)
	}
	screenHas(t, tm, "RUN FINISHED")
	send(tm, "q")
	finalModel(t, tm)
	if len(w.argv) != 1 || strings.Join(w.argv[0], " ") != "crewai run" {
		t.Fatalf("watched %q, want the second detected command", w.argv)
	}
}
