package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
)

// The tool's schema at a tool-call breakpoint: as CrewAI renders it for the
// provider (the argument model through the provider's cleanup, what the
// LLM was shown) beside the server's raw inputSchema. Side by side when the
// panel is wide enough; otherwise one at a time, v switching.

// Sections of a tool-call pause's schema when they do not fit side by side.
const (
	pauseSchemaRendered = iota
	pauseSchemaRaw
)

// schemaColumnMin is the narrowest a schema column may be side by side.
const schemaColumnMin = 44

// schemaSideBySide reports whether both schemas fit next to each other.
func (p tracePane) schemaSideBySide() bool {
	return p.pauseView.Width >= 2*schemaColumnMin+3
}

// schemaToggles reports whether v switches the schema shown: a tool-call
// pause with a schema, in a panel too narrow for both.
func (p tracePane) schemaToggles() bool {
	if p.pause == nil || p.editMode != 0 {
		return false
	}
	pz := p.pause.Pause
	return pz.Kind == crew.PauseToolCall && (pz.Schema != nil || pz.RawSchema != nil) && !p.schemaSideBySide()
}

// pauseSchemaLines are the schema section of a tool-call pause.
func (p *tracePane) pauseSchemaLines(pz *crew.Pause) []string {
	st := p.st.Text
	if pz.Schema == nil && pz.RawSchema == nil {
		return []string{st.Heading.Render("Input schema"), st.Subtle.Render("(not known for this tool)")}
	}
	provider, render := "OpenAI", toolschema.OpenAIParameters
	if p.anthropic {
		provider, render = "Anthropic", toolschema.AnthropicParameters
	}
	rendered := st.Subtle.Render("(none)")
	if pz.Schema != nil {
		rendered = printable(pyjson.DumpsStyle(render(pz.Schema), pyjson.Style{Indent: 2, KeepNonASCII: true}))
	}
	raw := st.Subtle.Render("(not an MCP tool)")
	if p.realRun() && pz.Server != "" {
		// CrewAI keeps only the argument model it built.
		raw = st.Subtle.Render("(not known: CrewAI keeps only its argument model)")
	}
	if pz.RawSchema != nil {
		raw = printable(pyjson.DumpsStyle(pz.RawSchema, pyjson.Style{Indent: 2, KeepNonASCII: true}))
	}
	renderedHead := st.Heading.Render("Schema the LLM sees") + st.Muted.Render(" (CrewAI, "+provider+")")
	rawHead := st.Heading.Render("Server's inputSchema") + st.Muted.Render(" (raw)")
	if !p.schemaSideBySide() {
		// One at a time; the heading says how to see the other.
		if p.pauseTab == pauseSchemaRaw {
			head := rawHead + st.Subtle.Render("  "+keyHint(p.km.Pause.View, "rendered"))
			return append([]string{head}, strings.Split(raw, "\n")...)
		}
		head := renderedHead + st.Subtle.Render("  "+keyHint(p.km.Pause.View, "raw"))
		return append([]string{head}, strings.Split(rendered, "\n")...)
	}
	colW := (p.pauseView.Width - 3) / 2
	col := func(head, body string) string {
		text := ansi.Truncate(head, colW, "…") + "\n" + wrapText(body, colW)
		return lipgloss.NewStyle().Width(colW).Render(text)
	}
	left, right := col(renderedHead, rendered), col(rawHead, raw)
	rule := st.Subtle.Render(" │ ")
	sep := strings.TrimSuffix(strings.Repeat(rule+"\n", max(lipgloss.Height(left), lipgloss.Height(right))), "\n")
	joined := lipgloss.JoinHorizontal(lipgloss.Top, left, sep, right)
	return strings.Split(joined, "\n")
}
