package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew"
)

// humanPause asks a real ChanStepper for feedback, as the engine does
// after a human_input task's final answer, and returns the request with
// the decision the stepper hands back to the engine.
func humanPause(t *testing.T, answer string) (*crew.PauseRequest, <-chan crew.Decision) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	s := crew.NewChanStepper(crew.Breakpoints{}) // no breakpoints: human input pauses anyway
	decided := make(chan crew.Decision, 1)
	go func() {
		d, _ := s.Before(ctx, &crew.Pause{Kind: crew.PauseHumanInput, TaskName: "forecast_task", AgentRole: "Weekend Forecaster", FinalAnswer: answer})
		decided <- d
	}()
	select {
	case req := <-s.C:
		return req, decided
	case <-ctx.Done():
		t.Fatal("the stepper did not pause for human input")
	}
	return nil, nil
}

func decision(t *testing.T, c <-chan crew.Decision) crew.Decision {
	t.Helper()
	select {
	case d := <-c:
		return d
	case <-time.After(time.Minute):
		t.Fatal("no decision reached the engine")
	}
	return crew.Decision{}
}

// A human-input pause shows the answer and CrewAI's request with a text
// field that has the keys at once: typing then enter sends the feedback;
// an empty enter accepts.
func TestPause_HumanInputSendsFeedbackThenAccepts(t *testing.T) {
	m := settled(t, goldenDeps(), 100, 30)
	m = step(t, m, startRunMsg{req: KickoffRequest{Crew: "Weekend Weather Brief"}})
	gen := m.trace.run.gen
	m = step(t, m, runStartedMsg{gen: gen, handle: &RunHandle{ID: "run-1"}})

	req, decided := humanPause(t, "Sunny all weekend, 24°C.")
	m = step(t, m, pauseMsg{gen: gen, req: req})
	v := ansi.Strip(m.View())
	for _, want := range []string{"PAUSED before the final answer is accepted: human feedback", "Final answer", "Sunny all weekend, 24°C.",
		"💬 Human Feedback Required", "Provide feedback on the Final Result above.", "feedback>", "enter send (empty: accept)"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if !m.trace.CapturesInput() {
		t.Fatal("the text field must have the keys")
	}
	// Letters that are keys elsewhere (q quits, c continues, X stops) are typed.
	m = typeText(t, m, "Say the wind too, quickly. X")
	m = step(t, m, keyType(tea.KeyEnter))
	if d := decision(t, decided); d.Action != crew.Continue || d.Feedback != "Say the wind too, quickly. X" {
		t.Fatalf("decision %+v", d)
	}
	if m.trace.pause != nil || m.trace.CapturesInput() {
		t.Fatal("answered: the pause must close")
	}

	req, decided = humanPause(t, "Sunny, 24°C, light wind.")
	m = step(t, m, pauseMsg{gen: gen, req: req})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Sunny, 24°C, light wind.") || strings.Contains(v, "quickly") {
		t.Errorf("the second question shows the new answer and an empty field:\n%s", v)
	}
	m = step(t, m, keyType(tea.KeyEnter))
	if d := decision(t, decided); d.Action != crew.Continue || d.Feedback != "" {
		t.Fatalf("an empty enter accepts: %+v", d)
	}

	// esc leaves the field (what was typed stays); e types again; c accepts.
	req, decided = humanPause(t, "Third answer.")
	m = step(t, m, pauseMsg{gen: gen, req: req})
	m = typeText(t, m, "draft")
	m = step(t, m, keyType(tea.KeyEsc))
	if m.trace.CapturesInput() || m.trace.pause == nil {
		t.Fatal("esc leaves the field, not the pause")
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "c accept the answer · e type feedback · X stop run") {
		t.Errorf("the pause offers its keys:\n%s", v)
	}
	m = step(t, m, keyRunes("e"))
	m = typeText(t, m, " two")
	if got := m.trace.feedback.Value(); got != "draft two" {
		t.Errorf("typed %q", got)
	}
	m = step(t, m, keyType(tea.KeyEsc))
	m = step(t, m, keyRunes("c"))
	if d := decision(t, decided); d.Action != crew.Continue || d.Feedback != "" {
		t.Fatalf("c accepts the answer: %+v", d)
	}

	req, decided = humanPause(t, "Fourth answer.")
	m = step(t, m, pauseMsg{gen: gen, req: req})
	m = step(t, m, keyType(tea.KeyEsc))
	m = step(t, m, keyRunes("X"))
	if d := decision(t, decided); d.Action != crew.Abort {
		t.Fatalf("X stops the run: %+v", d)
	}
	m.trace.Stop()
}
