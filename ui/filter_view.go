package ui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
)

// Drawing the filter playground: the filter's fields and hints, then the
// server's tools with the playground's verdicts (or the export).

func (p filterPane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	f := p.st.Pane.Blurred
	if p.focused {
		f = p.st.Pane.Focused
	}
	eh := p.editorHeight()
	editor := p.editorView(f, p.width, eh)
	lower := p.listView(p.width, p.height-eh)
	return editor + "\n" + lower
}

func (p filterPane) editorView(f lipgloss.Style, w, h int) string {
	iw, _ := inner(f, w, h)
	if p.server == "" {
		return box(f, w, h, p.st.Pane.Title.Render("Filter playground")+"\n"+p.st.Text.Muted.Render("no server has listed its tools yet"))
	}
	kept, total := p.counts()
	count := fmt.Sprintf("  %s · keeps %d of %d", p.server, kept, total)
	switch {
	case p.err != nil && len(p.verdicts) > 0:
		count += " with the last filter that compiled"
	case p.err != nil:
		count = fmt.Sprintf("  %s · the filter does not compile", p.server)
	}
	if p.pending {
		count += " …"
	}
	title := p.st.Pane.Title.Render("Filter playground") + p.st.Pane.TitleMuted.Render(count)
	lines := []string{title}
	for i := range p.fields {
		label := p.st.Form.Label.Render(pad(fieldLabels[i], 19))
		marker := "  "
		if p.editing && p.field == i {
			label = p.st.Form.LabelFocused.Render(pad(fieldLabels[i], 19))
			marker = p.st.Row.Cursor.Render("› ")
		} else if !p.editing && p.field == i {
			marker = p.st.Text.Subtle.Render("· ")
		}
		lines = append(lines, marker+label+" "+p.fields[i].View())
	}
	ctxLine := p.st.Text.Muted.Render("context: server_name=" + p.serverName())
	if a := p.agentName(); a != "" {
		ctxLine += p.st.Text.Muted.Render(" · agent_role=") + rowLabel(p.agentsFor(p.server)[p.agent].Role) + p.st.Text.Subtle.Render(" (a: other agent)")
	}
	lines = append(lines, ctxLine)
	switch {
	case p.err != nil:
		lines = append(lines, p.errLines(iw)...)
	case len(p.hints) == 0:
		lines = append(lines, p.st.Text.Success.Render(fmt.Sprintf("✓ %d kept, %d dropped", kept, total-kept)))
	}
	lines = append(lines, p.hintLines(iw)...)
	return box(f, w, h, strings.Join(lines, "\n"))
}

func (p filterPane) listView(w, h int) string {
	f := p.st.Pane.Blurred
	iw, ih := inner(f, w, h)
	if p.exportMode != 0 {
		title := p.st.Pane.Title.Render("Export")
		text := p.exportText
		switch p.exportMode {
		case 1:
			title += p.st.Pane.TitleMuted.Render("  the agent's mcps entry (x: next format · w: write to the project · esc: back)")
		case 2:
			title += p.st.Pane.TitleMuted.Render("  crew.py snippet (x: next format · esc: back)")
		case 3:
			title += p.st.Pane.TitleMuted.Render("  mcpServers JSON (x: next format · esc: back)")
		case exportPlan:
			if p.plan != nil {
				title += p.st.Pane.TitleMuted.Render("  write " + p.plan.File + " — y writes (backup kept), esc cancels")
				text = colorDiff(p.st, p.plan.Diff)
			}
		}
		body := p.exportBody(iw)
		if p.exportMode == exportPlan && p.plan != nil {
			body = wrapText(text, iw)
		}
		return box(f, w, h, title+"\n"+body)
	}
	// The tool column takes what the names need (up to half), the reason
	// the rest.
	toolW := 0
	for _, t := range p.tools {
		toolW = max(toolW, ansi.StringWidth(p.toolCell(t)))
	}
	head := "TOOL (filters compare the sanitized name)"
	toolW = clamp(toolW+1, len("TOOL (sanitized name)"), iw/2)
	if toolW < ansi.StringWidth(head) {
		head = "TOOL (sanitized name)"
	}
	lines := []string{p.st.Row.Header.Render(pad("  "+pad("VERDICT", 10)+" "+pad(head, toolW)+" REASON", iw))}
	for i := p.offset; i < min(len(p.tools), p.offset+ih-1); i++ {
		t := p.tools[i]
		glyph, word, style := "–", string(t.Status), p.st.Verdict.Skipped
		reason := t.Reason
		v, ok := p.verdictFor(i)
		switch {
		case !ok && p.err != nil && t.Status != mcpconn.ToolDropped:
			glyph, word, reason = "?", "undecided", "the expression does not compile"
		case ok && t.Status != mcpconn.ToolDropped:
			reason = v.Reason
			if v.Kept {
				glyph, word, style = "✓", "kept", p.st.Verdict.Kept
			} else {
				glyph, word, style = "✕", "dropped", p.st.Verdict.Filtered
			}
		}
		name := p.toolCell(t)
		cursor := "  "
		if i == p.cursor {
			cursor = p.st.Row.Cursor.Render("›") + " "
		}
		line := cursor + style.Render(pad(glyph+" "+word, 10)) + " " + pad(name, toolW) + " " + p.st.Text.Muted.Render(reason)
		lines = append(lines, fit(line, iw))
	}
	if len(p.tools) == 0 && p.server != "" {
		lines = append(lines, p.st.Text.Muted.Render("this server lists no tools"))
	}
	return box(f, w, h, strings.Join(lines, "\n"))
}

// toolCell is a tool's name as the filter compares it, and its own name
// when that differs.
func (p filterPane) toolCell(t mcpconn.Tool) string {
	name := t.Sanitized
	if t.Sanitized != t.Name {
		name += p.st.Text.Subtle.Render(" ← " + printable(t.Name))
	}
	return name
}

// errLines say the expression does not compile, wrapped to w cells, and
// that the rows show the last filter that did.
func (p filterPane) errLines(w int) []string {
	if p.err == nil {
		return nil
	}
	msg := p.err.Error()
	var ce *filter.CompileError
	if errors.As(p.err, &ce) {
		msg = fmt.Sprintf("line %d, column %d: %s", ce.Line, ce.Column, ce.Message)
	}
	if len(p.verdicts) > 0 {
		msg += " — the verdicts below are the last filter's that compiled"
	}
	var out []string
	for _, l := range strings.Split(wrapText("✕ expression does not compile: "+msg, max(1, w)), "\n") {
		out = append(out, p.st.Text.Danger.Render(l))
	}
	return out
}

// maxHintLines bounds the hints shown above the tool list.
const maxHintLines = 5

// hintLines renders the filter's hints wrapped to w cells.
func (p filterPane) hintLines(w int) []string {
	var out []string
	for _, hnt := range p.hints {
		style := p.st.Text.Warning
		glyph := "⚠ "
		if hnt.Kind == filter.HintKeepsNothing {
			style, glyph = p.st.Text.Danger, "✕ "
		}
		text := glyph + hnt.Message
		if hnt.Kind == filter.HintDidYouMean {
			text += " (F applies it)"
		}
		for _, l := range strings.Split(wrapText(text, max(1, w)), "\n") {
			out = append(out, style.Render(l))
		}
	}
	if len(out) > maxHintLines {
		out = append(out[:maxHintLines-1], p.st.Text.Subtle.Render(fmt.Sprintf("… %d more hint lines", len(out)-maxHintLines+1)))
	}
	return out
}
