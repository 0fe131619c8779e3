package ui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew"
	"crewbench/crew/prompt"
)

// The human-input pause: a human_input task's agent has given its final
// answer and CrewAI asks for feedback. The panel shows the answer and
// CrewAI's own request text, with a text field: enter sends what is typed
// (the agent runs again with it), an empty enter accepts the answer.

// humanInputMode is the editMode of a human-input pause: the text field
// has the keys from the moment the pause arrives.
const humanInputMode = 5

func newFeedbackInput(st *Styles) textinput.Model {
	in := textinput.New()
	in.Prompt = "feedback> "
	in.Placeholder = "what the agent should improve (empty: accept the answer)"
	in.PlaceholderStyle = st.Text.Subtle
	return in
}

// askHuman opens the text field for a human-input pause, keeping what was
// typed before an esc.
func (p *tracePane) askHuman() tea.Cmd {
	p.editMode = humanInputMode
	return p.feedback.Focus()
}

// humanHints are the keys of a human-input pause while not typing.
func (pk PauseKeys) humanHints() string {
	return keyHint(pk.Continue, "accept the answer") + " · " + keyHint(pk.Edit, "type feedback") + " · " + keyHint(pk.Abort)
}

// decideHuman handles the keys of a human-input pause once esc has left
// the text field: accept, type again, or stop the run.
func (p tracePane) decideHuman(k tea.KeyMsg) (tracePane, tea.Cmd, bool) {
	pk := p.km.Pause
	switch {
	case key.Matches(k, pk.Continue):
		return p.reply(crew.Decision{Action: crew.Continue}, "answer accepted")
	case key.Matches(k, pk.Edit):
		return p, p.askHuman(), true
	case key.Matches(k, pk.Abort):
		return p.reply(crew.Decision{Action: crew.Abort}, "aborted")
	}
	return p, nil, false
}

// updateHumanInput handles the keys of the text field: enter answers, esc
// leaves the field, the page keys scroll the answer, the rest is typing.
func (p tracePane) updateHumanInput(k tea.KeyMsg) (tracePane, tea.Cmd) {
	switch {
	case key.Matches(k, p.km.Pause.Feedback):
		text := p.feedback.Value()
		what := "feedback sent: the agent runs again"
		if prompt.Blank(text) {
			what = "answer accepted"
		}
		d, cmd, _ := p.reply(crew.Decision{Action: crew.Continue, Feedback: text}, what)
		return d, cmd
	case key.Matches(k, p.km.Input.Cancel):
		p.editMode = 0
		p.feedback.Blur()
		return p, nil
	case key.Matches(k, p.km.List.PageUp):
		p.pauseView.PageUp()
		return p, nil
	case key.Matches(k, p.km.List.PageDown):
		p.pauseView.PageDown()
		return p, nil
	}
	var cmd tea.Cmd
	p.feedback, cmd = p.feedback.Update(k)
	return p, cmd
}

// humanInputLines are the answer under review and CrewAI's request.
func (p *tracePane) humanInputLines(pz *crew.Pause) []string {
	st := p.st.Text
	return []string{
		st.Heading.Render("Final answer"),
		printable(p.red.RedactString(pz.FinalAnswer)),
		"",
		st.Heading.Render(prompt.HumanFeedbackTitle),
		st.Muted.Render(prompt.HumanFeedbackPrompt),
	}
}
