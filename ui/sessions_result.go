package ui

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew/rerun"
	"crewbench/mcpconn"
	"crewbench/session"
)

// The sessions view's result panel — the re-run or comparison it shows,
// its keys and its lines: a re-run against its recording (the first
// divergence, then what changed) and a recording against this
// workbench's last run (what changed). Both are rendered from the
// structured session.SessionDiff, section by section, in the workbench's
// styles; lines are cut to the panel's width when drawn, never wrapped.

// rerunJob is one re-run: running (with progress) or finished.
type rerunJob struct {
	gen        int
	path, name string
	filters    map[string]mcpconn.FilterSpec
	faults     map[string][]mcpconn.Fault
	keepGoing  bool
	cancel     context.CancelFunc
	finished   chan struct{}
	started    time.Time
	running    bool
	ch         <-chan session.Event

	events, llmCalls, toolCalls, toolFailures int

	res  *rerun.Result
	diff *session.SessionDiff
	red  *session.Redactor
	err  error
}

// progress counts a batch of the re-run's events.
func (j *rerunJob) progress(evs []session.Event) {
	for _, ev := range evs {
		j.events++
		switch session.ScopeKind(ev.Kind) {
		case session.LLMCallCompleted, session.LLMCallFailed:
			j.llmCalls++
		case session.ToolUsageStarted:
			j.toolCalls++
		case session.ToolUsageError:
			j.toolFailures++
		}
	}
}

// comparison is a recorded session compared with the last run.
type comparison struct {
	gen     int
	name    string
	against string
	partial bool // the run was still going when compared
	running bool
	diff    *session.SessionDiff
	err     error
}

// StartCompare compares the session at path with the last run's events.
func (p *sessionsPane) StartCompare(path, against string, events []session.Event, done bool) tea.Cmd {
	if p.store == nil {
		return notice(noticeError, "no session store configured")
	}
	name := path
	for _, s := range p.list {
		if s.Path == path {
			name = s.Name
		}
	}
	p.gen++
	p.cmp = &comparison{gen: p.gen, name: name, against: against, partial: !done, running: true}
	p.shown = panelCompare
	p.setup = nil
	p.zone = zoneResult
	p.scroll = 0
	p.SetSize(p.width, p.height)
	return compareWithRun(p.ctx, p.store, p.gen, path, events, !done)
}

// panelRows is the number of scrolled lines the result panel shows.
func (p sessionsPane) panelRows() int {
	_, ih := inner(p.st.Pane.Focused, p.width, p.height-p.listHeight())
	return max(1, ih-1) // the title line stays
}

func (p *sessionsPane) clampScroll() {
	p.scroll = clamp(p.scroll, 0, max(0, len(p.lines)-p.panelRows()))
}

// refreshLines renders the result panel's lines at the current width.
func (p *sessionsPane) refreshLines() {
	iw, _ := inner(p.st.Pane.Focused, p.width, p.height)
	switch p.shown {
	case panelRerun:
		p.lines = rerunLines(p.st, p.job, p.now, iw)
	case panelCompare:
		p.lines = compareLines(p.st, p.cmp, iw)
	default:
		p.lines = nil
	}
	p.clampScroll()
}

func (p sessionsPane) updateResult(k tea.KeyMsg) (sessionsPane, tea.Cmd) {
	l, s := p.km.List, p.km.Sessions
	switch {
	case key.Matches(k, s.Rerun), key.Matches(k, s.Compare):
		// Again, on the session the list has selected.
		return p.updateList(k)
	case key.Matches(k, p.km.Global.Back), key.Matches(k, p.km.Trace.Collapse):
		p.zone = zoneList
		p.clampCursor()
	case l.move(k, &p.scroll, p.panelRows(), len(p.lines)+1):
	case key.Matches(k, s.Cancel):
		if p.job != nil && p.job.running {
			p.Stop()
			return p, notice(noticeWarn, "cancelling the re-run…")
		}
	case key.Matches(k, s.OpenTrace):
		if p.shown == panelRerun && p.job != nil && p.job.res != nil {
			return p, emit(showEventsMsg{source: "re-run of " + p.job.name, events: p.job.res.Events})
		}
		return p, notice(noticeInfo, "only a finished re-run opens in 6 Trace")
	}
	p.clampScroll()
	return p, nil
}

func (p sessionsPane) resultView(h int) string {
	f := p.st.Pane.Blurred
	if p.focused && p.zone == zoneResult {
		f = p.st.Pane.Focused
	}
	iw, _ := inner(f, p.width, h)
	var title string
	switch p.shown {
	case panelRerun:
		title = p.st.Pane.Title.Render("Re-run ") + p.st.Text.Bold.Render(p.job.name) + p.st.Pane.TitleMuted.Render("  "+filtersLabel(p.job.filters, p.job.faults, p.job.keepGoing))
	case panelCompare:
		title = p.st.Pane.Title.Render("Compare ") + p.st.Text.Bold.Render(p.cmp.name) + p.st.Pane.TitleMuted.Render(" → "+p.cmp.against)
	}
	rows := p.panelRows()
	if len(p.lines) > rows {
		pos := fmt.Sprintf("  %d–%d of %d", p.scroll+1, min(len(p.lines), p.scroll+rows), len(p.lines))
		title = fit(title, max(0, iw-ansi.StringWidth(pos)))
		title = pad(title, iw-ansi.StringWidth(pos)) + p.st.Text.Subtle.Render(pos)
	}
	lines := []string{fit(title, iw)}
	for i := p.scroll; i < min(len(p.lines), p.scroll+rows); i++ {
		lines = append(lines, fit(p.lines[i], iw))
	}
	return box(f, p.width, h, strings.Join(lines, "\n"))
}

// filtersLabel says what a re-run changed, for its title.
func filtersLabel(filters map[string]mcpconn.FilterSpec, faults map[string][]mcpconn.Fault, keepGoing bool) string {
	var parts []string
	servers := make([]string, 0, len(filters))
	for s := range filters {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	for _, s := range servers {
		fs := filters[s]
		var what []string
		if len(fs.Allowed) > 0 {
			what = append(what, "allowed "+strings.Join(fs.Allowed, ","))
		}
		if len(fs.Blocked) > 0 {
			what = append(what, "blocked "+strings.Join(fs.Blocked, ","))
		}
		if fs.Expr != "" {
			what = append(what, "CEL "+fs.Expr)
		}
		if len(what) == 0 {
			what = append(what, "no filter")
		}
		parts = append(parts, s+": "+strings.Join(what, " "))
	}
	faulty := make([]string, 0, len(faults))
	for s := range faults {
		faulty = append(faulty, s)
	}
	sort.Strings(faulty)
	for _, s := range faulty {
		var fs []string
		for _, f := range faults[s] {
			fs = append(fs, f.String())
		}
		parts = append(parts, s+": fault "+strings.Join(fs, "; "))
	}
	label := "unchanged filters"
	if len(parts) > 0 {
		label = "with " + strings.Join(parts, " · ")
	}
	if keepGoing {
		label += " · keep going"
	}
	return printable(label)
}

// rerunLines renders a re-run: progress while it runs, else its verdict,
// its first divergence and the changes against the recording. w is the
// panel's inner width (for the banner).
func rerunLines(st *Styles, j *rerunJob, now func() time.Time, w int) []string {
	if j == nil {
		return nil
	}
	t := st.Text
	if j.running {
		took := now().Sub(j.started)
		progress := fmt.Sprintf("◌ re-running… %s · %s · %s", pluralize(j.events, "event"), pluralize(j.llmCalls, "LLM call"), pluralize(j.toolCalls, "tool call"))
		if j.toolFailures > 0 {
			progress += t.Danger.Render(fmt.Sprintf(" (%d failed)", j.toolFailures))
		}
		if took > 0 {
			progress += " · " + fmtDur(took)
		}
		return []string{st.Trace.Running.Render(progress),
			t.Muted.Render("the LLM replies come from the recording; the tools are called for real"),
			t.Subtle.Render("X cancels")}
	}
	red := j.red
	if red == nil {
		red = session.DefaultRedactor
	}
	if j.err != nil {
		return append([]string{st.Banner.Failure.Render(fit("✕ THE RE-RUN COULD NOT RUN", max(1, w-2)))},
			wrappedLines(t.Danger, printable(foldSpaces(red.RedactString(j.err.Error()))), w)...)
	}
	res := j.res
	kv := func(k string, v string) string { return "  " + t.Muted.Render(pad(k, 10)) + v }
	var out []string
	switch d := res.First; {
	case d == nil:
		out = append(out, st.Banner.OK.Render(fit(fmt.Sprintf("✓ FOLLOWED THE RECORDING: all %d recorded LLM calls were served, no divergence", res.Recorded), max(1, w-2))))
	case d.Kind == rerun.KindRequest:
		out = append(out, st.Banner.Failure.Render(fit(fmt.Sprintf("✕ DIVERGED AT LLM CALL %d OF %d", d.LLMCall, d.Recorded), max(1, w-2))))
		out = append(out, kv("call", fmt.Sprintf("LLM call %d · agent %s · task %s", d.LLMCall, printable(d.Agent), printable(d.Task))))
		out = append(out, kv("where", t.Bold.Render(d.Detail())))
		out = append(out, kv("recorded", printable(red.RedactString(d.WasText))))
		out = append(out, kv("now", t.Danger.Render(printable(red.RedactString(d.NowText)))))
		switch {
		case j.keepGoing && len(res.All) > 1:
			out = append(out, kv("all", fmt.Sprintf("%d divergences (keep going):", len(res.All))))
			for _, x := range res.All {
				out = append(out, "            "+t.Muted.Render(fmt.Sprintf("LLM call %d (agent %s, task %s): %s", x.LLMCall, x.Agent, x.Task, x.Detail())))
			}
		case !j.keepGoing:
			out = append(out, kv("then", t.Muted.Render("the run stopped there (keep going, in the re-run form, serves the rest)")))
		}
	default:
		out = append(out, st.Banner.Failure.Render(fit("✕ "+capitalize(d.Statement), max(1, w-2))))
	}
	out = append(out, kv("served", fmt.Sprintf("%d of %d recorded LLM calls", res.Served, res.Recorded)))
	verdict := printable(foldSpaces(red.RedactString(res.Verdict())))
	switch {
	case res.RunErr != nil:
		verdict = t.Danger.Render(verdict)
	case res.Output != nil && res.Output.HasToolFailures():
		verdict = t.Warning.Render(verdict)
	}
	out = append(out, kv("the run", verdict))
	if res.Recording != "" {
		out = append(out, kv("recorded", t.Muted.Render(printable(filepath.Base(res.Recording))+" (in the list)")))
	}
	for _, n := range res.Notes {
		out = append(out, kv("note", t.Warning.Render(printable(foldSpaces(red.RedactString(n))))))
	}
	out = append(out, "")
	out = append(out, diffLines(st, j.diff, "Changes against the recording")...)
	out = append(out, "", t.Key.Render("o")+t.Muted.Render(" opens the re-run in 6 Trace · esc back to the list"))
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[:1])) + string(r[1:])
}

// compareLines renders a recording compared with the last run.
func compareLines(st *Styles, c *comparison, w int) []string {
	if c == nil {
		return nil
	}
	t := st.Text
	switch {
	case c.running:
		return []string{st.Trace.Running.Render("◌ comparing…")}
	case c.err != nil:
		return wrappedLines(t.Danger, printable(foldSpaces(session.RedactString(c.err.Error()))), w)
	}
	var out []string
	if c.partial {
		out = append(out, t.Warning.Render("⚠ the run is still going: compared with its events so far"))
	}
	return append(out, diffLines(st, c.diff, "Changes from the recording to this run")...)
}

// diffLines renders a SessionDiff: the two sides, then one section per
// kind of change (tools offered per agent, tool calls per task by outcome,
// failures, outputs), the token totals and the timing changes.
func diffLines(st *Styles, d *session.SessionDiff, heading string) []string {
	if d == nil {
		return nil
	}
	t := st.Text
	added, removed, changed := t.Success, t.Danger, t.Warning
	out := []string{t.Heading.Render(heading), "  " + t.Muted.Render(sidesLine(d.A, d.B))}
	if d.Identical {
		what := "✓ no differences"
		if len(d.Timing.Changes) > 0 {
			what += " except timing"
		}
		out = append(out, "  "+t.Success.Render(what))
	}
	section := func(title string) { out = append(out, t.Bold.Render(title)) }
	if len(d.Agents) > 0 {
		section("Tools offered (LLM-visible names)")
		for _, a := range d.Agents {
			head := "  agent " + a.Agent
			switch a.Only {
			case "a":
				head += t.Muted.Render(" (only in " + d.A.Label + ")")
			case "b":
				head += t.Muted.Render(" (only in " + d.B.Label + ")")
			}
			out = append(out, head)
			for _, tl := range a.Removed {
				out = append(out, "    "+removed.Render("− "+printable(tl.Label())))
			}
			for _, tl := range a.Added {
				out = append(out, "    "+added.Render("+ "+printable(tl.Label())))
			}
			for _, r := range a.Renamed {
				out = append(out, "    "+changed.Render("~ "+printable(r.From+" → "+r.To+" ("+session.ToolLabel("", r.Original, r.Server)+")")))
			}
		}
	}
	if len(d.Tasks) > 0 {
		section("Tool calls (per task, by outcome)")
		for _, tk := range d.Tasks {
			head := "  task " + tk.Task
			if tk.StatusA != tk.StatusB {
				status := tk.StatusA + " → " + tk.StatusB
				if tk.StatusB == session.StatusFailed.String() {
					head += " · " + removed.Render(status)
				} else {
					head += " · " + t.Muted.Render(status)
				}
			}
			out = append(out, head)
			for _, c := range tk.Calls {
				sign, style := "~", changed
				switch {
				case c.A == 0:
					sign, style = "+", added
				case c.B == 0:
					sign, style = "−", t.Muted
				}
				tail := ""
				if session.FailedOutcome(c.Outcome) && c.B > c.A {
					style, tail = removed, " · new failure"
				}
				out = append(out, "    "+style.Render(fmt.Sprintf("%s %s %s %d → %d%s", sign, printable(c.Label()), c.Outcome, c.A, c.B, tail)))
			}
		}
	}
	if len(d.Failures) > 0 {
		section("Failures")
		for _, f := range d.Failures {
			sign, style, what := "~", changed, "changed"
			switch {
			case f.A == 0:
				sign, style, what = "+", removed, "new"
			case f.B == 0:
				sign, style, what = "−", added, "gone"
			}
			s := sign + " " + what + " " + foldSpaces(f.Text())
			out = append(out, "  "+style.Render(printable(s)))
		}
	}
	if len(d.Outputs) > 0 {
		section("Outputs")
		for _, o := range d.Outputs {
			out = append(out, "  "+o.Scope+" "+o.Name)
			for _, l := range strings.Split(strings.TrimRight(o.Unified, "\n"), "\n") {
				out = append(out, "    "+diffLineStyle(st, l).Render(printable(l)))
			}
		}
	}
	a, b := d.Tokens.A, d.Tokens.B
	tokens := fmt.Sprintf("%d in / %d out", a.Input, a.Output)
	if d.Tokens.Changed {
		tokens += fmt.Sprintf(" → %d in / %d out · total %d → %d (%+d)", b.Input, b.Output, a.Total, b.Total, b.Total-a.Total)
	} else {
		tokens += fmt.Sprintf(" on both sides · total %d", a.Total)
	}
	out = append(out, t.Bold.Render("Tokens")+"  "+tokens)
	if len(d.Timing.Changes) > 0 {
		section(fmt.Sprintf("Timing (changes of ≥%s and ≥%d%%; not counted as a difference)",
			fmtDur(msDuration(d.Timing.MinMS)), int(math.Round(d.Timing.Ratio*100))))
		for _, c := range d.Timing.Changes {
			s := fmt.Sprintf("  %s %s %s → %s", c.Scope, c.Name, fmtDur(msDuration(c.AMS)), fmtDur(msDuration(c.BMS)))
			if c.Scope == "tool" {
				s += fmt.Sprintf(" per call (%d → %d calls)", c.CallsA, c.CallsB)
			}
			out = append(out, t.Muted.Render(printable(s)))
		}
	}
	return out
}

// sidesLine summarizes both sides of a diff on one line.
func sidesLine(a, b session.DiffSide) string {
	arrow := func(x, y int, what string) string {
		if x == y {
			return pluralize(x, what)
		}
		return fmt.Sprintf("%d → %s", x, pluralize(y, what))
	}
	status := a.Status
	if a.Status != b.Status {
		status += " → " + b.Status
	}
	return fmt.Sprintf("%s → %s: status %s · %s → %s · %s · %s · %s · %s", a.Label, b.Label, status,
		fmtDur(msDuration(a.DurationMS)), fmtDur(msDuration(b.DurationMS)), arrow(a.Tasks, b.Tasks, "task"),
		arrow(a.LLMCalls, b.LLMCalls, "LLM call"), arrow(a.ToolCalls, b.ToolCalls, "tool call"), arrow(a.ToolFailures, b.ToolFailures, "tool failure"))
}

func msDuration(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func diffLineStyle(st *Styles, l string) lipgloss.Style {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return st.Text.Bold
	case strings.HasPrefix(l, "@@"):
		return st.Text.Accent
	case strings.HasPrefix(l, "+"):
		return st.Text.Success
	case strings.HasPrefix(l, "-"):
		return st.Text.Danger
	}
	return st.Text.Normal
}
