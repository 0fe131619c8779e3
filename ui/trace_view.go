package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"crewbench/session"
)

// Drawing the trace: the banner, the windowed tree (only the visible rows
// render) and the payload of the node under the cursor.

func (p tracePane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	th, ph := p.splitHeights()
	f := p.st.Pane.Blurred
	if p.focused && p.pause == nil {
		f = p.st.Pane.Focused
	}
	var top string
	if p.payloadOpen && p.pause == nil {
		n := p.payloadNode
		top = box(f, p.width, th, p.st.Pane.Title.Render("Payload ")+p.st.Text.Bold.Render(rowLabel(n.Title))+p.st.Text.Subtle.Render("  (esc back)")+"\n"+p.payload.View())
	} else if oh := p.outputHeight(th); oh > 0 {
		top = p.treeView(f, p.width, th-oh) + "\n" + p.outputBox(p.width, oh)
	} else {
		top = p.treeView(f, p.width, th)
	}
	if p.pause == nil {
		return top
	}
	return top + "\n" + p.pauseBox(p.width, ph)
}

// banner is the one-line verdict of a finished run: a run that finished
// with tool failures must be unmistakable.
func (p tracePane) banner() string {
	s := p.summary
	switch {
	case p.run != nil && p.run.outcome != nil && p.run.outcome.Err != nil:
		return runFailed + foldSpaces(p.red.RedactString(p.run.outcome.Err.Error()))
	case s.ToolFailures > 0 && (s.Status != session.StatusRunning || p.run == nil || p.run.done):
		names := make([]string, 0, len(s.FailedTools))
		for _, n := range s.FailedTools {
			label := rowLabel(n.Title)
			if n.Outcome != "" && n.Outcome != "failed" {
				label += " (" + n.Outcome + ")"
			}
			names = append(names, label)
		}
		how := "FINISHED WITH"
		if p.run == nil && s.Status == session.StatusFailed {
			// A recorded run (or a re-run) that failed outright says so first.
			how = "SESSION FAILED, WITH"
		}
		b := fmt.Sprintf("✕ %s %d TOOL FAILURE%s: %s", how, s.ToolFailures, map[bool]string{true: "S", false: ""}[s.ToolFailures != 1], strings.Join(names, "; "))
		if len(p.cancelled) > 0 {
			b += fmt.Sprintf(" · %d cancelled", len(p.cancelled))
		}
		return b
	case len(p.cancelled) > 0 && (s.Status != session.StatusRunning || p.run == nil || p.run.done):
		names := make([]string, 0, len(p.cancelled))
		for _, n := range p.cancelled {
			names = append(names, rowLabel(n.Title))
		}
		return fmt.Sprintf("⊘ %s CANCELLED: %s", strings.ToUpper(pluralize(len(p.cancelled), "tool call")), strings.Join(names, "; "))
	case s.ToolFailures > 0:
		return fmt.Sprintf("⚠ %s so far", pluralize(s.ToolFailures, "tool failure"))
	case s.Status == session.StatusUnfinished:
		// Only a finished session has it: the tree is finished once the
		// run is over.
		return fmt.Sprintf("⚠ UNFINISHED: the session ended before the run did (%s)", pluralize(s.Unfinished, "unfinished scope"))
	case p.run != nil && p.run.done:
		return "✓ RUN FINISHED"
	case s.Status == session.StatusFailed:
		return "✕ SESSION FAILED"
	}
	return ""
}

// runFailed starts the banner of a run that failed outright.
const runFailed = "✕ RUN FAILED: "

// maxBannerLines is how many lines the banner may wrap onto: a failed
// run's error names its cause at the end.
const maxBannerLines = 3

// bannerLines is the banner as drawn in iw cells (less its padding): a
// failed run's wrapped onto at most maxBannerLines (the full text is in
// the status line's ! view), any other cut to one line.
func (p tracePane) bannerLines(iw int) []string {
	b := p.banner()
	switch {
	case b == "":
		return nil
	case !strings.HasPrefix(b, runFailed):
		return []string{fit(b, iw-2)}
	}
	lines := strings.Split(wrapText(b, max(1, iw-2)), "\n")
	if len(lines) > maxBannerLines {
		// Too long even wrapped: the cause first, the context after it.
		lines = strings.Split(wrapText(runFailed+causeFirst(strings.TrimPrefix(b, runFailed)), max(1, iw-2)), "\n")
	}
	if len(lines) > maxBannerLines {
		lines = lines[:maxBannerLines]
		lines[maxBannerLines-1] = fit(lines[maxBannerLines-1]+" …", iw-2)
	}
	return lines
}

func (p tracePane) treeView(f lipgloss.Style, w, h int) string {
	iw, _ := inner(f, w, h)
	s := p.summary
	title := p.st.Pane.Title.Render("Trace")
	meta := ""
	if p.source != "" {
		meta += "  " + p.source
	}
	meta += p.wlog.meta()
	if p.follow {
		meta += " · following"
	}
	if p.kind != kindAll || p.status != statusAll {
		meta += fmt.Sprintf(" · showing %s, %s", kindFilterTitles[p.kind], statusFilterTitles[p.status])
	}
	title += p.st.Pane.TitleMuted.Render(meta)
	totals := fmt.Sprintf("%s · %s · %s", pluralize(s.Events, "event"), pluralize(s.LLMCalls, "LLM call"), pluralize(s.ToolCalls, "tool call"))
	switch {
	case s.ToolFailures > 0 && len(p.cancelled) > 0:
		totals += p.st.Text.Danger.Render(fmt.Sprintf(" (%d failed, %d cancelled)", s.ToolFailures, len(p.cancelled)))
	case s.ToolFailures > 0:
		totals += p.st.Text.Danger.Render(fmt.Sprintf(" (%d failed)", s.ToolFailures))
	case len(p.cancelled) > 0:
		totals += fmt.Sprintf(" (%d cancelled)", len(p.cancelled))
	}
	if s.Attempts > 0 {
		totals += fmt.Sprintf(" · %s", pluralize(s.Attempts, "attempt"))
		if s.Retries > 0 {
			totals += fmt.Sprintf(", %s", pluralize(s.Retries, "retry"))
		}
	}
	if !s.Usage.IsZero() {
		totals += fmt.Sprintf(" · tokens %d in / %d out", s.Usage.Input, s.Usage.Output)
	}
	if s.Duration > 0 {
		totals += " · " + fmtDur(s.Duration)
	}
	if s.Unfinished > 0 {
		totals += " · " + pluralize(s.Unfinished, "unfinished scope")
	}
	if s.CacheHits+s.Guards+s.UsageLimits > 0 {
		totals += fmt.Sprintf(" · cache %d · guards %d · limits %d", s.CacheHits, s.Guards, s.UsageLimits)
	}
	lines := []string{title, p.st.Text.Muted.Render(totals)}
	if b := p.banner(); b != "" {
		style := p.st.Banner.Failure
		switch {
		case strings.HasPrefix(b, "✓"):
			style = p.st.Banner.OK
		case strings.HasPrefix(b, "⚠"):
			style = p.st.Banner.Warning
		}
		for _, l := range p.bannerLines(iw) {
			lines = append(lines, style.Render(l))
		}
	}
	if len(p.rows) == 0 {
		msg := "nothing yet: kick off a crew in 5 Kickoff, or open a recorded session in 7 Sessions"
		if p.run != nil && !p.run.done {
			msg = "starting…"
		} else if p.kind != kindAll || p.status != statusAll {
			msg = "no node matches the filter (t / S change it)"
		}
		lines = append(lines, p.st.Text.Muted.Render(msg))
	}
	rows := p.treeRows()
	for i := p.offset; i < min(len(p.rows), p.offset+rows); i++ {
		lines = append(lines, p.rowView(i, iw))
	}
	return box(f, w, h, strings.Join(lines, "\n"))
}

func (p tracePane) rowView(i, iw int) string {
	r := p.rows[i]
	n := r.n
	sel := i == p.cursor
	fold := "  "
	if len(n.Children) > 0 {
		if p.collapsed[n] {
			fold = "▸ "
		} else {
			fold = "▾ "
		}
	}
	glyph, gst := p.statusGlyph(n)
	cursor := "  "
	if sel {
		cursor = p.st.Row.Cursor.Render("›") + " "
	}
	indent := strings.Repeat("  ", min(r.depth, 12))
	title := p.kindStyle(n.Kind).Render(rowLabel(n.Title))
	// Badges: each kind of event in its own style, and always in words.
	var badges []string
	badge := func(style lipgloss.Style, text string) { badges = append(badges, style.Render("["+text+"]")) }
	if n.CacheHit {
		badge(p.st.Text.Info, "cache hit")
	}
	if n.GuardTripped {
		badge(p.st.Text.Warning, "guard")
	}
	if n.UsageLimit {
		badge(p.st.Text.Warning, "usage limit")
	}
	if n.Retries > 0 {
		badge(p.st.Trace.Badge, pluralize(n.Retries, "retry"))
	}
	if n.Orphan() {
		badge(p.st.Text.Subtle, "orphan")
	}
	if n.Status == session.StatusUnfinished {
		badge(p.st.Text.Warning, unfinishedBadge(n))
	}
	if (n.Status == session.StatusFailed || n.Status == session.StatusCancelled) && n.Outcome != "" && n.Outcome != "failed" {
		badge(p.st.Text.Danger, n.Outcome)
	}
	skipped, isSkipped := skippedResult(n)
	if isSkipped {
		glyph, gst = "↷", p.st.Trace.Cancelled
		badge(p.st.Text.Warning, "skipped at a breakpoint")
	}
	badgeText := ""
	if len(badges) > 0 {
		badgeText = " " + strings.Join(badges, " ")
	}
	if isSkipped {
		// The result the user supplied is what the model saw.
		badgeText += p.st.Text.Muted.Render(" → " + fit(rowLabel(p.red.RedactString(skipped)), 40))
	}
	if n.Status == session.StatusFailed && n.Error != "" && (n.Kind == session.NodeTool || n.Kind == session.NodeMCPCall || n.Kind == session.NodeAttempt) {
		badgeText += " " + p.st.Text.Danger.Render(foldSpaces(p.red.RedactString(n.Error)))
	}
	right := ""
	if n.Kind == session.NodeLLM || n.Kind == session.NodeCrew {
		if !n.Usage.IsZero() {
			right = fmt.Sprintf("%d tok ", n.Usage.Total)
		}
	}
	switch {
	case isSkipped: // the tool did not run: no time of its own
	case n.Duration > 0:
		right += durationCell(n)
	case n.Status == session.StatusRunning && n.Started && !n.Start.IsZero() && p.run != nil && !p.run.done:
		right += "…"
	}
	right = p.st.Trace.Duration.Render(right)
	left := cursor + indent + fold + gst.Render(glyph) + " " + title + badgeText
	rw := ansi.StringWidth(right)
	line := pad(left, max(0, iw-rw-1)) + " " + right
	if sel && p.focused && p.pause == nil {
		return p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
	}
	return pad(line, iw)
}

// statusGlyph shows a node's status without colour.
func (p tracePane) statusGlyph(n *session.Node) (string, lipgloss.Style) {
	t := p.st.Trace
	switch n.Status {
	case session.StatusRunning:
		if n.Kind == session.NodeUnknown {
			return "?", t.Cancelled
		}
		return "◌", t.Running
	case session.StatusFailed:
		return "✕", t.Failed
	case session.StatusCancelled:
		return "⊘", t.Cancelled
	case session.StatusUnfinished:
		if n.Kind == session.NodeUnknown {
			return "?", t.Cancelled
		}
		return "◇", t.Cancelled
	}
	return "✓", t.OK
}

// unfinishedBadge says what closed a scope that never ended itself.
func unfinishedBadge(n *session.Node) string {
	if n.ClosedBy != nil {
		return "unfinished: closed by parent"
	}
	return "unfinished: run ended"
}

func (p tracePane) kindStyle(k session.NodeKind) lipgloss.Style {
	t := p.st.Trace
	switch k {
	case session.NodeCrew:
		return t.Crew
	case session.NodeTask:
		return t.Task
	case session.NodeAgent:
		return t.Agent
	case session.NodeStep:
		return t.Step
	case session.NodeLLM:
		return t.LLM
	case session.NodeTool:
		return t.Tool
	case session.NodeMCPCall:
		return t.MCP
	case session.NodeAttempt:
		return t.Attempt
	}
	return t.Conn
}

// renderPayload shows every event of the cursor node, redacted.
func (p *tracePane) renderPayload() {
	n := p.payloadNode
	if n == nil {
		return
	}
	st := p.st.Text
	var b []string
	kv := func(k, v string) { b = append(b, st.Muted.Render(pad(k, 12))+" "+v) }
	glyph, _ := p.statusGlyph(n)
	kv("node", fmt.Sprintf("%s %s (%s)", glyph, rowLabel(n.Title), n.Kind))
	kv("status", n.Status.String())
	if n.Status == session.StatusUnfinished {
		by := "the end of the run (no end event of its own came)"
		if n.ClosedBy != nil {
			by = "the end of " + rowLabel(n.ClosedBy.Title) + " (no end event of its own came)"
		}
		kv("closed by", by)
	}
	if result, ok := skippedResult(n); ok {
		kv("skipped", "at a breakpoint: the tool did not run; the model got the result supplied")
		kv("result", printable(p.red.RedactString(result)))
	} else if n.Duration > 0 {
		paused := pausedIn(n)
		if paused <= 0 || paused > n.Duration {
			paused = 0
		}
		kv("duration", fmtDur(n.Duration-paused))
		if paused > 0 {
			kv("paused", fmtDur(paused)+" at breakpoints (not in the duration above)")
		}
	}
	if n.Span != "" {
		kv("span", n.Span)
	}
	if n.Error != "" {
		kv("error", st.Danger.Render(p.red.RedactString(n.Error)))
	}
	if !n.Usage.IsZero() {
		kv("tokens", fmt.Sprintf("%d in · %d out · %d total", n.Usage.Input, n.Usage.Output, n.Usage.Total))
	}
	for _, ev := range n.Events {
		ev = p.red.RedactEvent(ev)
		b = append(b, "", st.Heading.Render(fmt.Sprintf("%s %s", ev.Time.Format("15:04:05.000"), ev.Kind)))
		if ev.Outcome != "" {
			kv("outcome", ev.Outcome)
		}
		if ev.Error != "" {
			kv("error", st.Danger.Render(ev.Error))
		}
		if ev.Duration > 0 {
			kv("duration", fmtDur(ev.Duration))
		}
		if len(ev.Data) > 0 {
			b = append(b, printable(indentJSON(ev.Data)))
		}
	}
	p.payload.SetContent(wrapText(strings.Join(b, "\n"), p.payload.Width))
}
