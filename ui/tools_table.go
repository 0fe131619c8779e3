package ui

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/names"
)

// The tool list's table: column widths that follow the content, and one
// row per tool with its verdict and warnings.

// colWidths are the four columns' widths, in cells; origMost is the
// original-name width that nine tools in ten fit in (one very long name
// should not starve the other columns).
type colWidths struct{ orig, llm, srv, warn, origMost int }

// Column headings, and the widths below which a column is not squeezed
// while another can still give way.
const (
	headOrig, headLLM, headSrv, headWarn = "ORIGINAL NAME", "LLM-VISIBLE NAME", "SERVER", "WARNINGS"
	minOrig, minLLM, minSrv, minWarn     = 20, 24, 8, 10
	// comfyOrig is where the original name stops growing until the
	// server and warnings are whole.
	comfyOrig = 40
	// colGap separates the columns.
	colGap = "  "
)

// measure finds the widest cell of each column among the tools shown.
func (p toolsPane) measure() colWidths {
	c := colWidths{orig: len(headOrig), llm: len(headLLM), srv: len(headSrv), warn: len(headWarn)}
	var hist [129]int // original-name widths, the last bucket for 128 and more
	lastServer := ""
	for _, m := range p.visible {
		r := &p.rows[m.row]
		t := r.tool
		ow := 2 + cellWidth(t.Name) // "✓ " glyph first
		c.orig = max(c.orig, ow)
		hist[min(ow, len(hist)-1)]++
		// LLM names are ASCII by construction (CrewAI's sanitizer): their
		// length is their width, and their bytes need not be read.
		c.llm = max(c.llm, len(p.llmCell(t)))
		if r.server != lastServer {
			c.srv = max(c.srv, cellWidth(r.server))
			lastServer = r.server
		}
		if len(t.Diagnostics) > 0 || (t.Status != mcpconn.ToolKept && t.Status != mcpconn.ToolFiltered) {
			w, _ := p.warningText(t)
			c.warn = max(c.warn, ansi.StringWidth(w))
		}
	}
	c.origMost = len(headOrig)
	for w, seen := 0, 0; w < len(hist); w++ {
		if seen += hist[w]; seen*10 >= len(p.visible)*9 {
			c.origMost = max(c.origMost, w)
			break
		}
	}
	return c
}

// cellWidth is the width of s as printable shows it; plain ASCII (nearly
// every tool name) is measured without allocating.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b >= 0x7f {
			return ansi.StringWidth(printable(s))
		}
	}
	return len(s)
}

// columns shares iw cells between the columns from their content: every
// column first gets its minimum (or its content, if smaller); then the
// LLM-visible name grows to its full width (at most 64 cells: the names
// the model sees deserve to be read whole), the original name to the width
// most names fit in, the server and the warnings to theirs, the original
// name to its full width, and what is left pads the warnings.
func (p toolsPane) columns(iw int, showServer bool) (origW, llmW, srvW, warnW int) {
	c := p.content
	if c == (colWidths{}) {
		c = colWidths{orig: len(headOrig), llm: len(headLLM), srv: len(headSrv), warn: len(headWarn)}
	}
	if !showServer {
		c.srv = 0
	}
	w := colWidths{orig: min(c.orig, minOrig), llm: min(c.llm, minLLM), srv: min(c.srv, minSrv), warn: min(c.warn, minWarn)}
	seps := 2 + 2*len(colGap) // the cursor, and the gaps between three columns
	if showServer {
		seps += len(colGap)
	}
	avail := iw - seps - w.orig - w.llm - w.srv - w.warn
	if avail < 0 {
		// Narrower than every minimum: shrink the columns in proportion.
		total := w.orig + w.llm + w.srv + w.warn
		room := max(0, iw-seps)
		w.orig, w.llm, w.srv = w.orig*room/total, w.llm*room/total, w.srv*room/total
		w.warn = room - w.orig - w.llm - w.srv
		return w.orig, w.llm, w.srv, w.warn
	}
	grow := func(col *int, upTo int) {
		if add := min(avail, upTo-*col); add > 0 {
			*col += add
			avail -= add
		}
	}
	grow(&w.llm, c.llm)
	grow(&w.orig, min(c.origMost, comfyOrig))
	grow(&w.srv, c.srv)
	grow(&w.warn, c.warn)
	grow(&w.orig, c.orig)
	w.warn += avail
	return w.orig, w.llm, w.srv, w.warn
}

// verdictGlyph shows a tool's status without colour.
func (p toolsPane) verdictGlyph(s mcpconn.ToolStatus) (string, lipgloss.Style) {
	switch s {
	case mcpconn.ToolKept:
		return "✓", p.st.Verdict.Kept
	case mcpconn.ToolFiltered:
		return "✕", p.st.Verdict.Filtered
	}
	return "–", p.st.Verdict.Skipped
}

func (p toolsPane) rowView(i, iw, origW, llmW, srvW, warnW int, showServer bool) string {
	m := p.visible[i]
	r := p.rows[m.row]
	t := r.tool
	sel := i == p.cursor
	base, hi := p.st.Row.Normal, p.st.Row.Match
	if !t.Kept() {
		base = p.st.Row.Muted
	}
	cursor := "  "
	if sel {
		cursor = p.st.Row.Cursor.Render("›") + " "
	}
	glyph, gst := p.verdictGlyph(t.Status)
	orig := highlight(printable(t.Name), m.origIdx, base, hi)
	llm := highlight(t.LLMName, m.llmIdx, base, hi)
	if t.LLMName == "" {
		llm = p.st.Text.Subtle.Render(p.llmCell(t))
	}
	line := cursor + gst.Render(glyph) + " " + pad(fitMiddle(orig, origW-2), origW-2) + colGap + pad(fitMiddle(llm, llmW), llmW) + colGap
	if showServer {
		line += pad(p.st.Text.Muted.Render(r.server), srvW) + colGap
	}
	line += pad(p.warnings(t), warnW)
	if sel && p.focused {
		return p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
	}
	return pad(line, iw)
}

// llmCell is the LLM-visible name column's text (unstyled).
func (p toolsPane) llmCell(t *mcpconn.Tool) string {
	if t.LLMName == "" {
		return "(" + string(t.Status) + ")"
	}
	return t.LLMName
}

// warnings summarises a tool's diagnostics in a few cells.
func (p toolsPane) warnings(t *mcpconn.Tool) string {
	s, style := p.warningText(t)
	if s == "" {
		return ""
	}
	return style.Render(s)
}

// warningText is the warnings cell unstyled, and the style it takes.
func (p toolsPane) warningText(t *mcpconn.Tool) (string, lipgloss.Style) {
	if len(t.Diagnostics) == 0 {
		if t.Status != mcpconn.ToolKept && t.Status != mcpconn.ToolFiltered {
			return string(t.Status), p.st.Text.Warning
		}
		return "", p.st.Text.Warning
	}
	d := t.Diagnostics[0]
	s := "⚠ " + string(d.Code)
	if d.Severity == names.SeverityError {
		s = "✕ " + string(d.Code)
	}
	if len(t.Diagnostics) > 1 {
		s = fmt.Sprintf("%s +%d", s, len(t.Diagnostics)-1)
	}
	if d.Severity == names.SeverityError {
		return s, p.st.Text.Danger
	}
	return s, p.st.Text.Warning
}
