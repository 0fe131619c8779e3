package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
	"crewbench/names"
)

// The tool detail: everything known about the selected tool, under a
// naming scheme the user can switch.

func (p toolsPane) updateDetail(k tea.KeyMsg) (toolsPane, tea.Cmd) {
	l, t := p.km.List, p.km.Tools
	switch {
	case key.Matches(k, p.km.Global.Back):
		p.detailOpen = false
	case l.scroll(&p.detail, k):
	case key.Matches(k, t.Scheme):
		p.scheme = (p.scheme + 1) % len(names.Schemes())
		y := p.detail.YOffset
		p.renderDetail()
		p.detail.SetYOffset(y)
		return p, notice(noticeInfo, "naming scheme: %s", names.Schemes()[p.scheme])
	case key.Matches(k, t.Try):
		if r, ok := p.selectedRow(); ok {
			return p, emit(showTryMsg{server: r.server, tool: r.tool.Name})
		}
	case key.Matches(k, t.Filter):
		if r, ok := p.selectedRow(); ok {
			return p, emit(showFilterMsg{server: r.server})
		}
	}
	return p, nil
}

// renderDetail builds the detail text for the selected tool at the current
// width. It runs on open, on resize and on a scheme switch only.
func (p *toolsPane) renderDetail() {
	r, ok := p.selectedRow()
	if !ok {
		p.detailOpen = false
		return
	}
	p.detailKey = r.server + "\x00" + r.tool.Name
	text := toolDetail(p.st, r.spec, r.server, r.tool, names.Schemes()[p.scheme], p.detail.Width) +
		renderedSchema(p.st, r.tool, strings.HasPrefix(p.ws.LLM, "anthropic/")) +
		clientCapabilitiesNote(p.st, r.declared)
	p.detail.SetContent(wrapText(text, p.detail.Width))
}

// renderedSchema is the tool's input schema as CrewAI sends it to the LLM
// (crew/toolschema: the Pydantic model CrewAI builds from the MCP schema,
// then the provider's strict cleanup), to read beside the server's raw one
// above it: descriptions enriched with limits and examples, optional
// properties as anyOf null, defaults dropped.
func renderedSchema(st *Styles, t *mcpconn.Tool, anthropic bool) string {
	provider := "OpenAI"
	if anthropic {
		provider = "Anthropic"
	}
	head := "\n\n" + st.Text.Heading.Render("Input schema as the LLM sees it") +
		st.Text.Muted.Render("  (CrewAI 1.15's rendering for "+provider+")") + "\n"
	view, err := toolschema.ProviderView(t.Name, t.InputSchema, anthropic)
	if err != nil {
		return head + st.Text.Danger.Render(err.Error())
	}
	return head + printable(view)
}

// toolDetail is everything known about one tool, as text.
func toolDetail(st *Styles, spec mcpconn.ServerSpec, server string, t *mcpconn.Tool, scheme names.Scheme, w int) string {
	var b strings.Builder
	h := func(s string) { b.WriteString("\n" + st.Text.Heading.Render(s) + "\n") }
	kv := func(k, v string) { b.WriteString(st.Text.Muted.Render(pad(k, 14)) + " " + v + "\n") }

	glyph, gst := "✓", st.Verdict.Kept
	if !t.Kept() {
		glyph, gst = "✕", st.Verdict.Filtered
	}
	reason := t.Reason
	if reason == string(t.Status) {
		reason = ""
	}
	kv("verdict", gst.Render(glyph+" "+string(t.Status))+"  "+reason)
	if t.FilterStage != "" {
		kv("decided by", string(t.FilterStage))
	}
	kv("original name", printable(t.Name))
	kv("LLM name", st.Text.Bold.Render(t.LLMName))
	if t.DisplayName != t.LLMName {
		kv("tool.name", t.DisplayName)
	}
	if t.CallName != t.Name {
		kv("tools/call", t.CallName)
	}
	kv("filters match", t.Sanitized+st.Text.Subtle.Render("  (static filters compare this)"))
	if t.Title != "" {
		kv("title", t.Title)
	}

	h("Description")
	switch {
	case t.DescriptionNull:
		b.WriteString(st.Text.Danger.Render("null — CrewAI cannot build this tool") + "\n")
	case t.Description == "":
		b.WriteString(st.Text.Subtle.Render("(empty)") + "\n")
	default:
		b.WriteString(wrapText(printable(t.Description), w) + "\n")
	}

	if len(t.Diagnostics) > 0 {
		h("Warnings")
		for _, d := range t.Diagnostics {
			s := st.Text.Warning
			if d.Severity == names.SeverityError {
				s = st.Text.Danger
			}
			b.WriteString(wrapText(s.Render(fmt.Sprintf("%s %s: ", d.Severity, d.Code))+d.Message, w) + "\n")
			if d.Fix != "" {
				b.WriteString(wrapText(st.Text.Muted.Render("  fix: ")+d.Fix, w) + "\n")
			}
		}
	}

	in := mcpconn.NameInput(spec, t.Name)
	if scheme != names.SchemeCrewAI {
		in.Scheme = scheme
	}
	h("How the name is derived" + st.Text.Muted.Render("  scheme "+string(scheme)+" (n: next)"))
	if scheme != names.SchemeCrewAI {
		if res, err := names.Resolve(in); err == nil {
			kv(string(scheme), st.Text.Bold.Render(res.LLMName))
			for _, d := range res.Diagnostics {
				b.WriteString(wrapText(st.Text.Warning.Render(string(d.Code)+": ")+d.Message, w) + "\n")
			}
		}
	}
	if x, err := names.Explain(in); err != nil {
		b.WriteString(st.Text.Danger.Render(err.Error()) + "\n")
	} else {
		// One value column for every sanitizer stage of every step: the
		// widest stage name sets it, unless that leaves the values too
		// little room (then long stage names are cut). A value longer than
		// its room continues under itself.
		stageW := 0
		for _, s := range x.Steps {
			for _, sg := range s.Stages {
				stageW = max(stageW, ansi.StringWidth(sg.Name))
			}
		}
		const indent, minValue = 3, 24
		stageW = max(1, min(stageW, w-indent-1-minValue))
		valueW := max(1, w-indent-stageW-1)
		hang := strings.Repeat(" ", indent+stageW+1)
		for i, s := range x.Steps {
			b.WriteString(fmt.Sprintf("%s %s %s\n", st.Text.Accent.Render(fmt.Sprintf("%d.", i+1)), st.Text.Bold.Render(s.Title), printable(s.Value)))
			if s.Rule != "" {
				b.WriteString(wrapText(st.Text.Muted.Render("   "+withoutSpecRefs(s.Rule)), w) + "\n")
			}
			for _, sg := range s.Stages {
				value := strings.ReplaceAll(wrapText(printable(sg.Output), valueW), "\n", "\n"+hang)
				b.WriteString(st.Text.Subtle.Render(strings.Repeat(" ", indent)+pad(sg.Name, stageW)) + " " + value + "\n")
			}
			if s.Hash != nil {
				b.WriteString(st.Text.Warning.Render(fmt.Sprintf("   %d chars > 64: %s + _ + sha256[:8] %s", len(s.Hash.Full), s.Hash.Prefix, s.Hash.Hash)) + "\n")
			}
		}
	}

	if len(t.Annotations) > 0 {
		h("Annotations")
		b.WriteString(prettyJSON(t.Annotations) + "\n")
	}
	h("Input schema" + st.Text.Muted.Render("  (exactly as the server sent it)"))
	if len(t.InputSchema) == 0 {
		b.WriteString(st.Text.Subtle.Render("(none)") + "\n")
	} else {
		b.WriteString(printable(prettyJSON(t.InputSchema)) + "\n")
	}
	if len(t.OutputSchema) > 0 {
		h("Output schema")
		b.WriteString(printable(prettyJSON(t.OutputSchema)) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// clientCapabilitiesNote says what the listing connection declared, and
// why that matters: a server may list some tools only to a client that
// declares a capability, and CrewAI's client declares none.
func clientCapabilitiesNote(st *Styles, declared []string) string {
	var b strings.Builder
	b.WriteString("\n" + st.Text.Heading.Render("Client capabilities") + "\n")
	if len(declared) == 0 {
		b.WriteString("this listing's connection declared none, as CrewAI's client does\n")
	} else {
		b.WriteString("this listing's connection declared " + strings.Join(declared, ", ") +
			st.Text.Warning.Render("  (beyond CrewAI, which declares none)") + "\n")
	}
	b.WriteString(st.Text.Muted.Render("A server may hide tools from a client without elicitation, sampling or roots "+
		"(server-everything lists get-roots-list only to clients with roots), so CrewAI's agents never see them; "+
		"crewbench tools --compare-capabilities lists the tools such a server hides.") + "\n")
	return b.String()
}
