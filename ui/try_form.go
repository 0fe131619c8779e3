package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Try-a-tool's argument form: editing its fields (or the raw JSON) and
// drawing it, with a hint for the row under the cursor.

func (p tryPane) updateInput(msg tea.Msg) (tryPane, tea.Cmd) {
	var cmd tea.Cmd
	switch {
	case p.raw:
		p.rawText, cmd = p.rawText.Update(msg)
	case p.cursor < len(p.fields):
		p.fields[p.cursor].input, cmd = p.fields[p.cursor].input.Update(msg)
	default:
		i := p.cursor - len(p.fields)
		p.settings[i], cmd = p.settings[i].Update(msg)
	}
	return p, cmd
}

func (p tryPane) updateEditing(k tea.KeyMsg) (tryPane, tea.Cmd) {
	in := p.km.Input
	switch {
	case key.Matches(k, in.Cancel):
		p.stopEditing()
		if p.raw {
			p.syncFromRaw()
		}
		return p, nil
	case p.raw && key.Matches(k, p.km.Try.Editor):
		return p, p.openEditor()
	case p.raw:
		return p.updateInput(k)
	case key.Matches(k, in.Done):
		p.stopEditing()
		return p, nil
	}
	if to, ok := (focusRing{keys: in, n: p.rows()}).move(k, p.cursor); ok {
		p.stopEditing()
		p.cursor = to
		return p, p.startEditing()
	}
	return p.updateInput(k)
}

// startEditing focuses the row's text input; bools and enums do not edit.
func (p *tryPane) startEditing() tea.Cmd {
	if p.raw {
		p.editing = true
		return p.rawText.Focus()
	}
	switch {
	case p.cursor < len(p.fields):
		f := &p.fields[p.cursor]
		if f.kind == kindBool || f.kind == kindEnum {
			return nil
		}
		p.editing = true
		return f.input.Focus()
	case p.cursor-len(p.fields) == setPolicy:
		return nil
	default:
		p.editing = true
		return p.settings[p.cursor-len(p.fields)].Focus()
	}
}

func (p *tryPane) syncFromRaw() {
	v, _, err := decodeJSONValue(p.rawText.Value())
	if err != nil {
		p.rawErr = err.Error()
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.rawErr = "arguments must be a JSON object"
		return
	}
	p.rawErr = ""
	fillForm(p.fields, m)
}

// toggle cycles a boolean (unset → true → false), an enum or the policy.
func (p *tryPane) toggle(back bool) {
	step := 1
	if back {
		step = -1
	}
	if p.cursor >= len(p.fields) {
		if p.cursor-len(p.fields) == setPolicy {
			p.policy = (p.policy + step + len(policyChoices)) % len(policyChoices)
			p.refreshPlaceholders()
		}
		return
	}
	f := &p.fields[p.cursor]
	switch f.kind {
	case kindBool:
		f.boolVal = (f.boolVal + step + 3) % 3
	case kindEnum:
		n := len(f.enum) + 1 // plus "unset"
		f.choice = (f.choice+1+step+n)%n - 1
	}
}

func (p *tryPane) openEditor() tea.Cmd {
	if p.deps.Editor == "" {
		return notice(noticeWarn, "set $EDITOR to edit the arguments in your editor")
	}
	return prepareEditor(editTryArgs, p.rawText.Value(), ".json")
}

func (p tryPane) formView(f lipgloss.Style, w, h int) string {
	iw, ih := inner(f, w, h)
	if p.tool == nil {
		msg := "Pick a tool in 2 Tools and press t to try it here."
		return box(f, w, h, p.st.Pane.Title.Render("Try a tool")+"\n"+p.st.Text.Muted.Render(msg))
	}
	title := p.st.Pane.Title.Render("Try ") + p.st.Text.Bold.Render(printable(p.tool.Name)) + p.st.Text.Muted.Render(" @ "+p.server)
	lines := []string{title, p.st.Text.Muted.Render("the LLM calls it ") + fitMiddle(p.tool.LLMName, max(1, iw-17))}
	if p.raw {
		lines = append(lines, p.st.Text.Muted.Render("raw JSON arguments (enter edits, J: back to the form, ctrl+e: $EDITOR)"))
		if p.formErr != "" {
			lines[2] = p.st.Text.Warning.Render("the schema cannot be shown as a form: " + p.formErr)
		}
		lines = append(lines, p.rawText.View())
		if p.rawErr != "" {
			lines = append(lines, p.st.Form.Error.Render(p.rawErr))
		}
		lines = append(lines, p.previewLines(iw)...)
		return box(f, w, h, strings.Join(lines, "\n"))
	}
	var rows []string
	if len(p.fields) == 0 {
		rows = append(rows, p.st.Text.Muted.Render("  this tool takes no arguments"))
	}
	for i, fl := range p.fields {
		rows = append(rows, p.fieldRow(i, fl, iw))
	}
	rows = append(rows, p.st.Text.Subtle.Render(strings.Repeat("─", max(0, iw))))
	for i := 0; i < setCount; i++ {
		rows = append(rows, p.settingRow(i, iw))
	}
	// Keep the cursor row visible (the form may be taller than the box);
	// the validation preview stays under the rows.
	preview := p.previewLines(iw)
	avail := max(1, ih-2-len(preview))
	cur := p.cursor
	if cur >= len(p.fields) {
		cur++ // the rule line
	}
	if len(p.fields) == 0 {
		cur++
	}
	if hint := p.cursorHint(); hint != "" {
		avail-- // the last line explains the field under the cursor
		off := window(cur, 0, max(1, avail), len(rows))
		lines = append(lines, rows[off:min(len(rows), off+max(1, avail))]...)
		lines = append(lines, preview...)
		lines = append(lines, p.st.Text.Subtle.Render(fit(hint, iw)))
		return box(f, w, h, strings.Join(lines, "\n"))
	}
	off := window(cur, 0, avail, len(rows))
	lines = append(lines, rows[off:min(len(rows), off+avail)]...)
	lines = append(lines, preview...)
	return box(f, w, h, strings.Join(lines, "\n"))
}

// cursorHint explains the row under the cursor: its type and description.
func (p tryPane) cursorHint() string {
	if p.cursor < len(p.fields) {
		f := p.fields[p.cursor]
		h := kindNames[f.kind]
		if f.kind == kindArray {
			h = "array of " + kindNames[f.itemKind]
		}
		if f.required {
			h += ", required"
		}
		if f.desc != "" {
			h += ": " + foldSpaces(f.desc)
		}
		return h
	}
	switch p.cursor - len(p.fields) {
	case setPolicy:
		return "how the call runs: CrewAI's timeouts, retries and sessions for that policy (←/→)"
	case setCall:
		return "per-attempt timeout, e.g. 1s or 500ms (empty: the number shown)"
	case setAttempts:
		return "tries per call; CrewAI retries timeouts only"
	case setBackoff:
		return "first sleep between attempts; it doubles each time"
	case setConnect:
		return "connect (and initialize) timeout"
	}
	return ""
}

func (p tryPane) label(i int, text string, required bool) string {
	l := pad(text, 18)
	style := p.st.Form.Label
	marker := "  "
	if i == p.cursor {
		style = p.st.Form.LabelFocused
		marker = p.st.Row.Cursor.Render("› ")
	}
	out := marker + style.Render(l)
	if required {
		out += p.st.Form.Required.Render("*")
	} else {
		out += " "
	}
	return out + " "
}

func (p tryPane) fieldRow(i int, f formField, iw int) string {
	row := p.label(i, f.label, f.required)
	switch f.kind {
	case kindBool:
		v := []string{"unset", "true", "false"}[f.boolVal]
		row += p.st.Text.Accent.Render("◂ " + v + " ▸")
	case kindEnum:
		v := "unset"
		if f.choice >= 0 {
			v = fmt.Sprint(f.enum[f.choice])
		}
		row += p.st.Text.Accent.Render("◂ "+v+" ▸") + p.st.Text.Subtle.Render(fmt.Sprintf(" (%d choices)", len(f.enum)))
	default:
		row += f.input.View()
	}
	return fit(row, iw)
}
