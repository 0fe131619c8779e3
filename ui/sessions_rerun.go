package ui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/session"
)

// The sessions view's re-run form: which filter (and injected faults) each
// server gets in an offline re-run of a recorded session, and starting it.

// rerunSetup is the re-run form: one row per server with the filter the
// re-run gives it, and the keep-going switch.
type rerunSetup struct {
	path, name string
	rows       []setupRow
	cursor     int // a row, or len(rows): the keep-going switch
	keepGoing  bool
	editing    bool
	field      int
	inputs     [4]textinput.Model // allowed, blocked, CEL, faults
}

// setupFieldLabels are the re-run form's fields: a server's filter, then
// the faults injected into its calls for this re-run.
var setupFieldLabels = [4]string{fieldLabels[0], fieldLabels[1], fieldLabels[2], "faults"}

// faultsField is the index of the faults input.
const faultsField = 3

// setupRow is one server in the re-run form.
type setupRow struct {
	server         string
	declared, spec mcpconn.FilterSpec
	from           string
	// faults are injected into the server's calls in this re-run
	// (mcpconn.ParseFaultList of faultText); faultErr says why the text
	// does not parse (the re-run refuses to start).
	faults    []mcpconn.Fault
	faultText string
	faultErr  error
}

// Where a setup row's filter comes from.
const (
	fromDeclared = "declared"
	fromTried    = "tried in 3 Filter"
	fromEdited   = "edited here"
)

// OpenSetup opens the re-run form for the session at path: one row per
// workspace server, starting from the filter the playground is trying on
// it, else the declared one.
func (p *sessionsPane) OpenSetup(path string, servers []ServerEntry, tried map[string]mcpconn.FilterSpec) tea.Cmd {
	name := path
	for _, s := range p.list {
		if s.Path == path {
			name = s.Name
		}
	}
	su := &rerunSetup{path: path, name: name}
	for _, e := range servers {
		row := setupRow{server: mcpconn.Handle(e.Spec), declared: e.Spec.Filter, spec: e.Spec.Filter, from: fromDeclared}
		if t, ok := tried[row.server]; ok {
			row.spec, row.from = t, fromTried
		}
		su.rows = append(su.rows, row)
	}
	placeholders := [4]string{"comma-separated; empty allows all", "comma-separated", "CEL over tool and context; empty: none",
		"e.g. is_error,tool=getForecast,times=1; hang — " + strings.Join(faultKindNames(), ", ")}
	for i := range su.inputs {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholders[i]
		ti.PlaceholderStyle = p.st.Text.Subtle
		ti.TextStyle = p.st.Text.Normal
		su.inputs[i] = ti
	}
	p.setup = su
	p.zone = zoneSetup
	p.SetSize(p.width, p.height)
	changed := 0
	for _, r := range su.rows {
		if r.from == fromTried {
			changed++
		}
	}
	if changed > 0 {
		return notice(noticeInfo, "re-run with the %s tried in 3 Filter — enter edits a server's filter, r runs", pluralize(changed, "filter"))
	}
	return notice(noticeInfo, "no filter tried in 3 Filter: enter edits a server's filter here, r runs")
}

func (p sessionsPane) updateSetup(k tea.KeyMsg) (sessionsPane, tea.Cmd) {
	su := p.setup
	l, s, in := p.km.List, p.km.Sessions, p.km.Input
	if su.editing {
		if key.Matches(k, in.Cancel) || key.Matches(k, in.Done) {
			su.editing = false
			for i := range su.inputs {
				su.inputs[i].Blur()
			}
			return p, nil
		}
		if to, ok := (focusRing{keys: in, n: len(su.inputs), wrap: true}).move(k, su.field); ok {
			su.inputs[su.field].Blur()
			su.field = to
			return p, su.inputs[su.field].Focus()
		}
		var cmd tea.Cmd
		before := su.inputs[su.field].Value()
		su.inputs[su.field], cmd = su.inputs[su.field].Update(k)
		if su.inputs[su.field].Value() != before && su.cursor < len(su.rows) && su.field == faultsField {
			r := &su.rows[su.cursor]
			r.faultText = su.inputs[faultsField].Value()
			r.faults, r.faultErr = mcpconn.ParseFaultList(r.faultText)
			return p, cmd
		}
		if su.inputs[su.field].Value() != before && su.cursor < len(su.rows) {
			r := &su.rows[su.cursor]
			r.spec = mcpconn.FilterSpec{Allowed: splitList(su.inputs[0].Value()), Blocked: splitList(su.inputs[1].Value()),
				Expr: strings.TrimSpace(su.inputs[2].Value())}
			r.from = fromEdited
			if sameFilter(r.spec, r.declared) {
				r.from = fromDeclared
			}
		}
		return p, cmd
	}
	switch {
	case key.Matches(k, p.km.Global.Back):
		p.setup = nil
		p.zone = zoneList
		p.clampCursor()
		p.clampScroll()
		return p, nil
	case key.Matches(k, l.Up):
		su.cursor = clamp(su.cursor-1, 0, len(su.rows))
	case key.Matches(k, l.Down):
		su.cursor = clamp(su.cursor+1, 0, len(su.rows))
	case key.Matches(k, s.Toggle):
		su.keepGoing = !su.keepGoing
	case key.Matches(k, s.Edit):
		if su.cursor == len(su.rows) {
			su.keepGoing = !su.keepGoing
			return p, nil
		}
		r := su.rows[su.cursor]
		su.inputs[0].SetValue(strings.Join(r.spec.Allowed, ", "))
		su.inputs[1].SetValue(strings.Join(r.spec.Blocked, ", "))
		su.inputs[2].SetValue(r.spec.Expr)
		su.inputs[faultsField].SetValue(r.faultText)
		su.editing, su.field = true, 0
		return p, su.inputs[0].Focus()
	case key.Matches(k, s.Declared):
		if su.cursor < len(su.rows) {
			r := &su.rows[su.cursor]
			r.spec, r.from = r.declared, fromDeclared
			r.faults, r.faultText, r.faultErr = nil, "", nil
		}
	case key.Matches(k, s.Run):
		return p.startRerun()
	}
	return p, nil
}

// filters are the setup's changes: the rows whose filter differs from the
// declared one.
func (su *rerunSetup) filters() map[string]mcpconn.FilterSpec {
	out := map[string]mcpconn.FilterSpec{}
	for _, r := range su.rows {
		if !sameFilter(r.spec, r.declared) {
			out[r.server] = r.spec
		}
	}
	return out
}

// fromText is the row's FROM cell: where its filter comes from, and its
// faults.
func (r setupRow) fromText(st *Styles) string {
	from := r.from
	if r.spec.Expr != "" {
		from += " · CEL"
	}
	fromStyle := st.Text.Muted
	if r.from != fromDeclared {
		fromStyle = st.Text.Accent
	}
	out := fromStyle.Render(from)
	switch {
	case r.faultErr != nil:
		out += st.Text.Muted.Render(" · ") + st.Text.Danger.Render("bad faults")
	case len(r.faults) > 0:
		out += st.Text.Muted.Render(" · ") + st.Text.Warning.Render(pluralize(len(r.faults), "fault"))
	}
	return out
}

// faults are the setup's injected faults, per server.
func (su *rerunSetup) faults() map[string][]mcpconn.Fault {
	out := map[string][]mcpconn.Fault{}
	for _, r := range su.rows {
		if len(r.faults) > 0 && r.faultErr == nil {
			out[r.server] = r.faults
		}
	}
	return out
}

func faultKindNames() []string {
	out := make([]string, len(mcpconn.FaultKinds))
	for i, k := range mcpconn.FaultKinds {
		out[i] = string(k)
	}
	return out
}

// startRerun starts the re-run the form describes.
func (p sessionsPane) startRerun() (sessionsPane, tea.Cmd) {
	su := p.setup
	if p.replayer == nil || p.store == nil {
		return p, notice(noticeError, "re-runs are not available in this workspace")
	}
	for _, r := range su.rows {
		if r.faultErr != nil {
			return p, notice(noticeError, "%s: %v", r.server, r.faultErr)
		}
	}
	if p.job != nil && p.job.running {
		return p, notice(noticeWarn, "a re-run is in progress: X cancels it")
	}
	p.gen++
	ctx, cancel := context.WithCancel(p.ctx)
	events := make(chan session.Event, RunEventBuffer)
	sink := &closingSink{ctx: ctx, ch: events}
	j := &rerunJob{gen: p.gen, path: su.path, name: su.name, filters: su.filters(), faults: su.faults(), keepGoing: su.keepGoing,
		cancel: cancel, finished: make(chan struct{}), started: p.now(), running: true, ch: events}
	p.job = j
	p.setup = nil
	p.shown = panelRerun
	p.zone = zoneResult
	p.scroll = 0
	p.SetSize(p.width, p.height)
	req := RerunRequest{Path: j.path, Filters: j.filters, Faults: j.faults, KeepGoing: j.keepGoing}
	// The panel shows the progress: no notice, so the verdict's notice is
	// the one left in the status bar.
	return p, tea.Batch(rerunSession(ctx, p.store, p.replayer, j.gen, req, sink, j.finished), waitForRerunEvents(j.gen, events))
}

func (p sessionsPane) setupView(h int) string {
	su := p.setup
	f := p.st.Pane.Blurred
	if p.focused {
		f = p.st.Pane.Focused
	}
	iw, _ := inner(f, p.width, h)
	title := p.st.Pane.Title.Render("Re-run ") + p.st.Text.Bold.Render(su.name) +
		p.st.Pane.TitleMuted.Render("  every LLM call answered from the recording: no LLM cost")
	lines := []string{fit(title, iw)}
	sw := len("SERVER")
	for _, r := range su.rows {
		sw = max(sw, ansi.StringWidth(r.server))
	}
	sw = min(sw, max(8, iw/5))
	// FROM says where a row's filter comes from, and its faults.
	fromW := len(fromTried)
	for _, r := range su.rows {
		fromW = max(fromW, ansi.StringWidth(r.fromText(p.st)))
	}
	fromW = min(fromW, max(len(fromTried), iw/3))
	listW := max(6, (iw-2-sw-1-fromW-1)/2-1)
	lines = append(lines, p.st.Row.Header.Render(pad("  "+pad("SERVER", sw)+" "+pad("ALLOWED", listW)+" "+pad("BLOCKED", listW)+" FROM", iw)))
	for i, r := range su.rows {
		cursor := "  "
		if i == su.cursor {
			cursor = p.st.Row.Cursor.Render("›") + " "
		}
		allowed, blocked := strings.Join(r.spec.Allowed, ", "), strings.Join(r.spec.Blocked, ", ")
		if allowed == "" {
			allowed = "(all)"
		}
		if blocked == "" {
			blocked = "—"
		}
		line := cursor + pad(printable(r.server), sw) + " " + pad(printable(allowed), listW) + " " + pad(printable(blocked), listW) + " " + r.fromText(p.st)
		if i == su.cursor && !su.editing && p.focused {
			line = p.st.Row.Selected.Render(pad(ansi.Strip(line), iw))
		}
		lines = append(lines, fit(line, iw))
	}
	if len(su.rows) == 0 {
		lines = append(lines, p.st.Text.Muted.Render("  the workspace has no MCP servers: the re-run changes nothing"))
	}
	check := "[ ]"
	if su.keepGoing {
		check = "[x]"
	}
	kg := "  " + check + " keep going past the first divergence (serve every recorded reply)"
	if su.cursor == len(su.rows) {
		kg = p.st.Row.Cursor.Render("›") + " " + check + " keep going past the first divergence (serve every recorded reply)"
		if p.focused && !su.editing {
			kg = p.st.Row.Selected.Render(pad(ansi.Strip(kg), iw))
		}
	}
	lines = append(lines, fit(kg, iw))
	if su.editing && su.cursor < len(su.rows) {
		lines = append(lines, "", p.st.Text.Muted.Render("filter for ")+p.st.Text.Bold.Render(su.rows[su.cursor].server)+
			p.st.Text.Muted.Render(" (replaces its tool_filter in this re-run only)"))
		for i, label := range setupFieldLabels {
			marker, ls := "  ", p.st.Form.Label
			if su.field == i {
				marker, ls = p.st.Row.Cursor.Render("› "), p.st.Form.LabelFocused
			}
			lines = append(lines, marker+ls.Render(pad(label, 19))+" "+su.inputs[i].View())
		}
		r := su.rows[su.cursor]
		switch {
		case r.faultErr != nil:
			for _, l := range wrappedLines(p.st.Text.Danger, printable(r.faultErr.Error()), max(1, iw-2)) {
				lines = append(lines, "  "+l)
			}
		case len(r.faults) > 0:
			var kinds []string
			for _, f := range r.faults {
				kinds = append(kinds, f.String())
			}
			lines = append(lines, "  "+p.st.Text.Muted.Render(fit("injects "+printable(strings.Join(kinds, " then ")), max(1, iw-2))))
		}
	} else {
		n, nf := len(su.filters()), len(su.faults())
		what := "changes nothing (does the run still follow its recording?)"
		switch {
		case n > 0 && nf > 0:
			what = "changes the filter of " + pluralize(n, "server") + " and injects faults into " + pluralize(nf, "server")
		case n > 0:
			what = "changes the filter of " + pluralize(n, "server")
		case nf > 0:
			what = "injects faults into " + pluralize(nf, "server")
		}
		lines = append(lines, "", p.st.Text.Muted.Render("this re-run "+what))
		lines = append(lines, p.st.Text.Key.Render("enter edit · d declared filter · space keep going · r run · esc cancel"))
	}
	return box(f, p.width, h, strings.Join(lines, "\n"))
}
