package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
)

// The pause panel: at a breakpoint the run waits for a decision. The panel
// shows exactly what is about to happen — the full messages and the tools
// offered (LLM names) for an LLM call; the requested name, the resolved
// tool, its original name and the arguments for a tool call — and answers
// continue, step, skip with a canned result, edit arguments or the reply,
// or abort.

// pauseWhat names what a pause is before, for the status bar.
func pauseWhat(p *crew.Pause) string {
	switch p.Kind {
	case crew.PauseLLMCall:
		return "an LLM call (" + p.Model + ")"
	case crew.PauseHumanInput:
		return "the final answer is accepted: human feedback"
	}
	name := p.ToolName
	if name == "" {
		name = p.RequestedName
	}
	return "tool call " + name
}

// decide handles the decision keys; ok is false for keys that are not a
// decision (they move the tree cursor as usual).
func (p tracePane) decide(k tea.KeyMsg) (tracePane, tea.Cmd, bool) {
	pk := p.km.Pause
	req := p.pause
	if req.Pause.Kind == crew.PauseHumanInput {
		return p.decideHuman(k)
	}
	switch {
	case key.Matches(k, pk.Continue):
		if p.run != nil && p.run.stepStart {
			// "step" started the run pausing everywhere; continuing returns
			// to the kickoff's own breakpoints.
			p.run.stepper.SetBreakpoints(p.run.bp)
			p.run.stepStart = false
		}
		return p.reply(crew.Decision{Action: crew.Continue}, "continued")
	case key.Matches(k, pk.Step):
		return p.reply(crew.Decision{Action: crew.Step}, "stepping")
	case key.Matches(k, pk.Abort):
		return p.reply(crew.Decision{Action: crew.Abort}, "aborted")
	case p.realRun() && req.Pause.Kind == crew.PauseLLMCall && (key.Matches(k, pk.Edit) || key.Matches(k, pk.Skip)):
		return p.realLLMKey(k)
	case key.Matches(k, pk.Skip) && req.Pause.Kind == crew.PauseToolCall:
		p.editMode = 1
		p.canned.SetValue("")
		return p, p.canned.Focus(), true
	case key.Matches(k, pk.Edit):
		if req.Pause.Kind == crew.PauseToolCall {
			p.editMode = 2
			args := "{}"
			if req.Pause.Args != nil {
				args = pyjson.DumpsIndent(req.Pause.Args)
			}
			p.editor.SetValue(args)
		} else {
			p.editMode = 3
			p.editor.SetValue("")
			p.editor.Placeholder = "the reply the model gives instead of calling it"
		}
		p.editErr = ""
		p.SetSize(p.width, p.height)
		return p, p.editor.Focus(), true
	}
	return p, nil, false
}

func (p tracePane) reply(d crew.Decision, what string) (tracePane, tea.Cmd, bool) {
	req := p.pause
	req.Reply(d)
	p.pause, p.editMode, p.editErr = nil, 0, ""
	p.canned.Blur()
	p.editor.Blur()
	p.feedback.Blur()
	p.SetSize(p.width, p.height)
	var next tea.Cmd
	if p.run != nil && !p.run.done {
		next = waitForPause(p.run.ctx, p.run.gen, p.run.stepper)
	}
	return p, tea.Batch(next, notice(noticeInfo, "%s", what)), true
}

// updateEdit handles typing a canned result or editing args / the reply.
func (p tracePane) updateEdit(k tea.KeyMsg) (tracePane, tea.Cmd) {
	in, pk := p.km.Input, p.km.Pause
	switch {
	case key.Matches(k, in.Cancel):
		p.editMode, p.editErr = 0, ""
		p.canned.Blur()
		p.editor.Blur()
		p.SetSize(p.width, p.height)
		return p, nil
	case p.editMode == 1 && key.Matches(k, in.Done):
		d, cmd, _ := p.reply(crew.Decision{Action: crew.Skip, Result: p.canned.Value()}, "skipped with a canned result")
		return d, cmd
	case p.editMode > 1 && key.Matches(k, pk.Editor):
		target := editPauseArgs
		ext := ".json"
		if p.editMode == 3 {
			target, ext = editPauseReply, ".txt"
		}
		return p, prepareEditor(target, p.editor.Value(), ext)
	case p.editMode == 2 && key.Matches(k, pk.Submit):
		obj, err := pyjson.LoadsObject(p.editor.Value())
		if err != nil {
			p.editErr = "arguments: " + err.Error()
			return p, nil
		}
		d, cmd, _ := p.reply(crew.Decision{Action: crew.EditArgs, Args: obj}, "running the tool with edited arguments")
		return d, cmd
	case p.editMode == editMessagesMode && key.Matches(k, pk.Submit):
		return p.submitMessages()
	case p.editMode == 3 && key.Matches(k, pk.Submit):
		d, cmd, _ := p.reply(crew.Decision{Action: crew.EditReply, Reply: &llm.Response{Content: p.editor.Value(), FinishReason: "stop"}},
			"using the edited reply instead of calling the LLM")
		return d, cmd
	}
	var cmd tea.Cmd
	if p.editMode == 1 {
		p.canned, cmd = p.canned.Update(k)
	} else {
		p.editor, cmd = p.editor.Update(k)
	}
	return p, cmd
}

// Sections of an LLM-call pause: the messages about to be sent, or the
// tools offered with them (v switches).
const (
	pauseMessages = iota
	pauseTools
)

// renderPause fills the pause viewport with the pause's full content: for
// an LLM call the section chosen (every message with its role and full
// content, or every tool offered under its LLM-visible name); for a tool
// call the requested name, the resolved tool, its original name and
// server, and the arguments pretty-printed.
func (p *tracePane) renderPause() {
	if p.pause == nil {
		return
	}
	pz := p.pause.Pause
	st := p.st.Text
	var b []string
	kv := func(k, v string) { b = append(b, st.Muted.Render(pad(k, 16))+" "+v) }
	if pz.TaskName != "" {
		kv("task", rowLabel(pz.TaskName))
	}
	if pz.AgentRole != "" {
		kv("agent", rowLabel(pz.AgentRole))
	}
	if pz.AfterFailure {
		kv("after", st.Danger.Render("the previous tool call failed"))
	}
	switch pz.Kind {
	case crew.PauseToolCall:
		kv("requested name", st.Bold.Render(printable(pz.RequestedName)))
		resolved := printable(pz.ToolName)
		if pz.ToolName == "" {
			resolved = st.Danger.Render("no such tool: the model gets CrewAI's not-found text")
		}
		kv("resolved tool", resolved)
		if pz.OriginalName != "" {
			kv("original name", printable(pz.OriginalName))
		}
		if pz.Server != "" {
			kv("server", printable(pz.Server))
		}
		b = append(b, st.Heading.Render("Arguments"))
		if pz.Args != nil {
			b = append(b, printable(p.red.RedactString(pyjson.DumpsIndent(pz.Args))))
		} else {
			b = append(b, st.Subtle.Render("(none)"))
		}
		b = append(b, "")
		b = append(b, p.pauseSchemaLines(pz)...)
	case crew.PauseHumanInput:
		b = append(b, "")
		b = append(b, p.humanInputLines(pz)...)
	case crew.PauseLLMCall:
		model := pz.Model
		if pz.Mode != "" {
			model += " · " + pz.Mode
		}
		kv("model", model)
		if p.realRun() {
			b = append(b, st.Subtle.Render(realLLMLimits))
		}
		b = append(b, "")
		if p.pauseTab == pauseTools {
			b = append(b, p.pauseToolLines(pz)...)
		} else {
			b = append(b, p.pauseMessageLines(pz)...)
		}
	}
	p.pauseView.SetContent(wrapText(strings.Join(b, "\n"), p.pauseView.Width))
}

// pauseMessageLines are the messages about to be sent, numbered from 0 as
// a re-run's divergence report numbers them.
func (p *tracePane) pauseMessageLines(pz *crew.Pause) []string {
	st := p.st.Text
	b := []string{st.Heading.Render(fmt.Sprintf("Messages about to be sent (%d)", len(pz.Messages)))}
	for i, m := range pz.Messages {
		role := fmt.Sprintf("── #%d %s", i, m.Role)
		if m.Name != "" {
			role += " " + m.Name
		}
		if m.ToolCallID != "" {
			role += " ↩ " + m.ToolCallID
		}
		b = append(b, st.Info.Render(printable(role)))
		if m.Content != "" {
			b = append(b, printable(p.red.RedactString(m.Content)))
		} else if len(m.ToolCalls) == 0 {
			b = append(b, st.Subtle.Render("(empty)"))
		}
		for _, tc := range m.ToolCalls {
			b = append(b, st.Accent.Render("→ "+printable(tc.Name))+" "+printable(p.red.RedactString(tc.Arguments)))
		}
	}
	return b
}

// pauseToolLines are the tools offered with the call, by LLM-visible name.
func (p *tracePane) pauseToolLines(pz *crew.Pause) []string {
	st := p.st.Text
	if len(pz.Tools) == 0 {
		if pz.Mode == "react" {
			return []string{st.Muted.Render("no tools offered as functions: in ReAct mode the tools are described in the system message (v: messages)")}
		}
		return []string{st.Muted.Render("no tools offered")}
	}
	b := []string{st.Heading.Render(fmt.Sprintf("Tools offered (%d, LLM-visible names)", len(pz.Tools)))}
	nameW := 0
	for _, t := range pz.Tools {
		nameW = max(nameW, ansi.StringWidth(printable(t.Name)))
	}
	nameW = min(nameW, 64) // the longest name CrewAI gives a tool
	// Descriptions in a column of their own, continuing under themselves;
	// when the names leave them too little room, under the name instead.
	descAt := 2 + nameW + 2
	if p.pauseView.Width-descAt < 24 {
		descAt = 6
	}
	descW := max(1, p.pauseView.Width-descAt)
	hang := "\n" + strings.Repeat(" ", descAt)
	for _, t := range pz.Tools {
		d := foldSpaces(t.Description)
		if d == "" {
			b = append(b, "  "+printable(t.Name))
			continue
		}
		desc := st.Subtle.Render(strings.ReplaceAll(wrapText(printable(d), descW), "\n", hang))
		if descAt == 6 {
			b = append(b, "  "+printable(t.Name), strings.Repeat(" ", descAt)+desc)
		} else {
			b = append(b, "  "+pad(printable(t.Name), nameW)+"  "+desc)
		}
	}
	return b
}

// pauseTabs is the section switch of an LLM-call pause.
func (p tracePane) pauseTabs() string {
	pz := p.pause.Pause
	if pz.Kind != crew.PauseLLMCall {
		return ""
	}
	labels := [2]string{fmt.Sprintf("Messages (%d)", len(pz.Messages)), fmt.Sprintf("Tools (%d)", len(pz.Tools))}
	var parts []string
	for i, l := range labels {
		if i == p.pauseTab {
			parts = append(parts, p.st.Header.TabActive.Render(l))
		} else {
			parts = append(parts, p.st.Header.Tab.Render(l))
		}
	}
	return strings.Join(parts, p.st.Text.Subtle.Render(" │ ")) + p.st.Text.Subtle.Render("  (v)")
}

func (p tracePane) pauseBox(w, h int) string {
	f := p.st.Pane.Focused
	iw, _ := inner(f, w, h)
	pz := p.pause.Pause
	tabs := p.pauseTabs()
	tw := ansi.StringWidth(tabs)
	if tw > 0 {
		tw += 2
	}
	head := p.st.Banner.Pause.Render(fit("⏸ PAUSED before "+pauseWhat(pz), max(1, iw-2-tw)))
	if tabs != "" {
		head = pad(head, iw-tw+2) + tabs
	}
	var body string
	switch p.editMode {
	case humanInputMode:
		body = p.pauseView.View() + "\n" + p.feedback.View()
	case 1:
		body = p.st.Text.Muted.Render("Skip the tool: type the result the model sees (enter submits, esc cancels)") + "\n" + p.canned.View()
	case 2, 3, editMessagesMode:
		what := "Edit the arguments (JSON)"
		if p.editMode == 3 {
			what = "Write the LLM's reply"
		} else if p.editMode == editMessagesMode {
			what = "Edit the messages about to be sent (JSON array of {role, content})"
		}
		body = p.st.Text.Muted.Render(what+" — ctrl+s submits, ctrl+e opens $EDITOR, esc cancels") + "\n" + p.editor.View()
		if p.editErr != "" {
			body += "\n" + p.st.Form.Error.Render(p.editErr)
		}
	default:
		keys := p.km.Pause.hints(pz.Kind == crew.PauseToolCall, p.realRun())
		if pz.Kind == crew.PauseHumanInput {
			keys = p.km.Pause.humanHints()
		}
		switch {
		case pz.Kind == crew.PauseLLMCall && p.pauseTab == pauseTools:
			keys += " · " + keyHint(p.km.Pause.View, "messages")
		case pz.Kind == crew.PauseLLMCall:
			keys += " · " + keyHint(p.km.Pause.View, "tools")
		case p.schemaToggles() && p.pauseTab == pauseSchemaRaw:
			keys += " · " + keyHint(p.km.Pause.View, "rendered schema")
		case p.schemaToggles():
			keys += " · " + keyHint(p.km.Pause.View, "raw schema")
		}
		keyLine := p.st.Text.Key.Render(keys)
		if total := p.pauseView.TotalLineCount(); total > p.pauseView.Height {
			// Say there is more, and where the view is.
			first := p.pauseView.YOffset + 1
			last := min(total, p.pauseView.YOffset+p.pauseView.Height)
			pos := fmt.Sprintf("%d–%d of %d · pgdn", first, last, total)
			if last == total {
				pos = fmt.Sprintf("%d–%d of %d · pgup", first, last, total)
			}
			pw := ansi.StringWidth(pos)
			keyLine = pad(fit(keyLine, max(0, iw-pw-2)), max(0, iw-pw)) + p.st.Text.Subtle.Render(pos)
		}
		body = p.pauseView.View() + "\n" + keyLine
	}
	return box(f, w, h, head+"\n"+body)
}
