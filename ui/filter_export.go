package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew/writeback"
	"crewbench/mcpconn"
)

// The playground's export: the tried filter in a project's formats (through
// the project exporter when there is one, else as the tool_filter
// fragment), and the diff a write to the project would make.

// exportPlan is the export mode that shows a write's diff.
const exportPlan = 4

// export renders the current filter in the chosen format: through the
// project exporter when there is one, else the tool_filter fragment.
func (p *filterPane) export() tea.Cmd {
	format := ExportMCPSJSON
	switch p.exportMode {
	case 2:
		format = ExportPython
	case 3:
		format = ExportMCPServers
	}
	fs := p.spec()
	if p.deps.Exporter != nil {
		p.exportText, p.exportCode = p.st.Text.Muted.Render("rendering…"), false
		return renderExport(p.deps.Ctx, p.deps.Exporter, format, ExportRequest{Server: p.server, Agent: p.agentName(), Filter: fs})
	}
	p.exportText, p.exportCode = filterFragment(format, fs), true
	return nil
}

// exportBody is the export text at width w: a crew.py snippet is wrapped
// as Python (only where Python allows a line break, comments as comments,
// so what is copied from the screen still parses); anything else as text.
func (p *filterPane) exportBody(w int) string {
	if p.exportMode == 2 && p.exportCode {
		return writeback.WrapPython(p.exportText, w)
	}
	return wrapText(p.exportText, w)
}

// filterFragment renders just the tool_filter of a server entry, in the
// shapes crewai-formats.md §1.5 documents. The rest of the entry (command,
// env, …) comes from the project exporter.
func filterFragment(format ExportFormat, fs mcpconn.FilterSpec) string {
	var b strings.Builder
	list := func(v []string) string {
		if len(v) == 0 {
			return "null"
		}
		return jsonLine(v)
	}
	pyList := func(v []string) string {
		if len(v) == 0 {
			return "None"
		}
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	switch format {
	case ExportPython:
		b.WriteString("from crewai.mcp.filters import create_static_tool_filter\n\n")
		if len(fs.Allowed)+len(fs.Blocked) == 0 {
			b.WriteString("# no static filter: every tool is kept\n")
		} else {
			fmt.Fprintf(&b, "tool_filter=create_static_tool_filter(\n    allowed_tool_names=%s,\n    blocked_tool_names=%s,\n)\n", pyList(fs.Allowed), pyList(fs.Blocked))
		}
	default:
		if len(fs.Allowed)+len(fs.Blocked) == 0 {
			b.WriteString("// no static filter: leave \"tool_filter\" out\n")
		} else {
			fmt.Fprintf(&b, "\"tool_filter\": {\"type\": \"static\", \"allowed_tool_names\": %s, \"blocked_tool_names\": %s}\n", list(fs.Allowed), list(fs.Blocked))
		}
	}
	comment := "//"
	if format == ExportPython {
		comment = "#"
	}
	if fs.Expr != "" {
		b.WriteString("\n" + comment + " The CEL expression has no CrewAI config form: CrewAI takes a Python callable\n")
		b.WriteString(comment + " ({\"python\": \"your_pkg.filters.fn\"} in JSON) that must implement:\n" + comment + "   " + foldSpaces(fs.Expr) + "\n")
	}
	b.WriteString("\n" + comment + " add this to the server's entry in the agent's mcps (writing to the project needs export-config)")
	return b.String()
}

// colorDiff styles a unified diff.
func colorDiff(st *Styles, diff string) string {
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			lines[i] = st.Text.Bold.Render(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = st.Text.Success.Render(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = st.Text.Danger.Render(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = st.Text.Accent.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}
