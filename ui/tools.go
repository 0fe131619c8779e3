package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/sahilm/fuzzy"

	"crewbench/mcpconn"
	"crewbench/names"
)

// toolRow is one tool of one server.
type toolRow struct {
	server string
	spec   mcpconn.ServerSpec
	tool   *mcpconn.Tool
	order  int // position in server order, for the default sort
}

// match is one visible row with the fuzzy-matched byte offsets of each name.
type match struct {
	row     int
	score   int
	origIdx []int
	llmIdx  []int
}

type sortMode int

const (
	sortServer sortMode = iota
	sortOriginal
	sortLLM
	sortStatus
	sortCount
)

var sortTitles = [sortCount]string{"server order", "original name", "LLM name", "status"}

// scope limits the list to one server or one agent's servers.
type scope struct {
	kind  int // 0 all, 1 server, 2 agent
	name  string
	allow map[string]bool
}

// toolsPane is the tool catalog: both names, verdicts, warnings, fuzzy
// search and a detail view.
type toolsPane struct {
	st      *Styles
	km      *KeyMap
	ws      Workspace
	rows    []toolRow
	scoped  []int    // indexes into rows inside the scope
	orig    []string // names of scoped rows, for fuzzy
	llm     []string
	visible []match

	sc     scope
	sort   sortMode
	search textinput.Model
	typing bool
	query  string

	cursor, offset int
	width, height  int
	focused        bool

	keptShown int  // kept tools among the visible rows
	searchGen int  // the search whose result is current
	searching bool // a background search is running

	// content holds the widest cell of each column over the tools shown
	// (original name with its glyph, LLM name, server, warnings), measured
	// when the set of tools shown changes (a listing, the scope, a search),
	// never per frame or per cursor move: View never walks every tool.
	content colWidths

	detailOpen bool
	detail     viewport.Model
	detailKey  string // server+tool the detail shows
	scheme     int    // index into names.Schemes()
}

func newToolsPane(st *Styles, km *KeyMap, ws Workspace) toolsPane {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "search original or LLM names"
	ti.PromptStyle = st.Text.Accent
	ti.TextStyle = st.Text.Normal
	ti.PlaceholderStyle = st.Text.Subtle
	return toolsPane{st: st, km: km, ws: ws, search: ti, detail: viewport.New(0, 0)}
}

func (p *toolsPane) SetSize(w, h int) {
	p.width, p.height = w, h
	iw, ih := inner(p.st.Pane.Focused, w, h)
	p.search.Width = max(1, iw-3)
	p.detail.Width, p.detail.Height = iw, max(1, ih-1)
	if p.detailOpen {
		p.renderDetail()
	}
	p.clampCursor()
}

func (p *toolsPane) Focus() { p.focused = true }
func (p *toolsPane) Blur() {
	p.focused = false
	p.typing = false
	p.search.Blur()
}
func (p toolsPane) CapturesInput() bool { return p.typing }

// SetTools rebuilds the catalog from the servers' latest listings.
func (p *toolsPane) SetTools(d *serverData) tea.Cmd {
	var sel string
	if r, ok := p.selectedRow(); ok {
		sel = r.server + "\x00" + r.tool.Name
	}
	p.rows = p.rows[:0]
	for _, name := range d.order {
		disc := d.discovery(name)
		if disc == nil {
			continue
		}
		spec, _ := d.spec(name)
		for i := range disc.Tools {
			p.rows = append(p.rows, toolRow{server: name, spec: spec, tool: &disc.Tools[i], order: len(p.rows)})
		}
	}
	cmd := p.rescope()
	if sel != "" {
		for i, m := range p.visible {
			r := p.rows[m.row]
			if r.server+"\x00"+r.tool.Name == sel {
				p.cursor = i
				break
			}
		}
	}
	p.clampCursor()
	if p.detailOpen {
		p.renderDetail()
	}
	return cmd
}

// scopeServer shows one server's tools (from the servers view).
func (p *toolsPane) scopeServer(name string) tea.Cmd {
	p.sc = scope{kind: 1, name: name, allow: map[string]bool{name: true}}
	p.detailOpen = false
	p.cursor = 0
	return p.rescope()
}

// nextScope cycles all → each server → each agent → all.
func (p *toolsPane) nextScope(servers []string) tea.Cmd {
	type sc struct {
		kind int
		name string
	}
	var all []sc
	all = append(all, sc{0, ""})
	for _, s := range servers {
		all = append(all, sc{1, s})
	}
	for _, a := range p.ws.Agents {
		all = append(all, sc{2, a.Name})
	}
	i := 0
	for j, s := range all {
		if s.kind == p.sc.kind && s.name == p.sc.name {
			i = j
		}
	}
	n := all[(i+1)%len(all)]
	p.sc = scope{kind: n.kind, name: n.name}
	switch n.kind {
	case 1:
		p.sc.allow = map[string]bool{n.name: true}
	case 2:
		p.sc.allow = map[string]bool{}
		for _, a := range p.ws.Agents {
			if a.Name == n.name {
				for _, s := range a.Servers {
					p.sc.allow[s] = true
				}
			}
		}
	}
	p.cursor = 0
	return p.rescope()
}

func (p *toolsPane) rescope() tea.Cmd {
	// Fresh slices: a background search may still be reading the old ones.
	p.scoped, p.orig, p.llm = make([]int, 0, len(p.rows)), make([]string, 0, len(p.rows)), make([]string, 0, len(p.rows))
	for i, r := range p.rows {
		if p.sc.allow != nil && !p.sc.allow[r.server] {
			continue
		}
		p.scoped = append(p.scoped, i)
		p.orig = append(p.orig, r.tool.Name)
		p.llm = append(p.llm, r.tool.LLMName)
	}
	return p.refilter()
}

// syncSearchLimit is the list size up to which a search runs inside
// Update (well under a millisecond); longer lists are searched in a command
// so typing never waits for the result.
const syncSearchLimit = 2000

// refilter recomputes the visible rows for the query and sort: a fuzzy
// match on either name keeps a row; its score is the better of the two.
// It returns a command when the search runs in the background.
func (p *toolsPane) refilter() tea.Cmd {
	if p.query == "" {
		p.searchGen++ // a background search still running is now stale
		p.visible = p.visible[:0]
		for _, i := range p.scoped {
			p.visible = append(p.visible, match{row: i})
		}
		p.sortVisible()
		p.content = p.measure()
		p.clampCursor()
		return nil
	}
	if len(p.scoped) <= syncSearchLimit {
		p.searchGen++
		p.visible = fuzzyMatch(p.query, p.scoped, p.orig, p.llm)
		p.content = p.measure()
		p.clampCursor()
		return nil
	}
	p.searchGen++
	p.searching = true
	gen, q, scoped, orig, llm := p.searchGen, p.query, p.scoped, p.orig, p.llm
	return func() tea.Msg { return toolSearchMsg{gen: gen, visible: fuzzyMatch(q, scoped, orig, llm)} }
}

// toolSearchMsg is a background search's result.
type toolSearchMsg struct {
	gen     int
	visible []match
}

// fuzzyMatch searches both names. It only reads its arguments: rescope
// allocates fresh slices, so a background search never sees them change.
func fuzzyMatch(query string, scoped []int, orig, llm []string) []match {
	best := map[int]*match{}
	var order []int
	add := func(ms fuzzy.Matches, isLLM bool) {
		for _, fm := range ms {
			row := scoped[fm.Index]
			m := best[row]
			if m == nil {
				m = &match{row: row, score: fm.Score}
				best[row] = m
				order = append(order, row)
			}
			idx := append([]int(nil), fm.MatchedIndexes...)
			if isLLM {
				m.llmIdx = idx
			} else {
				m.origIdx = idx
			}
			m.score = max(m.score, fm.Score)
		}
	}
	add(fuzzy.Find(query, orig), false)
	add(fuzzy.Find(query, llm), true)
	visible := make([]match, 0, len(order))
	for _, row := range order {
		visible = append(visible, *best[row])
	}
	sort.SliceStable(visible, func(i, j int) bool {
		if visible[i].score != visible[j].score {
			return visible[i].score > visible[j].score
		}
		return visible[i].row < visible[j].row
	})
	return visible
}

func (p *toolsPane) sortVisible() {
	less := func(a, b toolRow) bool { return a.order < b.order }
	switch p.sort {
	case sortOriginal:
		less = func(a, b toolRow) bool { return strings.ToLower(a.tool.Name) < strings.ToLower(b.tool.Name) }
	case sortLLM:
		less = func(a, b toolRow) bool { return a.tool.LLMName < b.tool.LLMName }
	case sortStatus:
		less = func(a, b toolRow) bool { return statusRank(a.tool.Status) < statusRank(b.tool.Status) }
	}
	sort.SliceStable(p.visible, func(i, j int) bool { return less(p.rows[p.visible[i].row], p.rows[p.visible[j].row]) })
}

func statusRank(s mcpconn.ToolStatus) int {
	switch s {
	case mcpconn.ToolKept:
		return 0
	case mcpconn.ToolFiltered:
		return 1
	}
	return 2
}

func (p *toolsPane) clampCursor() {
	// Every change of the visible rows passes here: count the kept ones
	// once, not on every frame.
	p.keptShown = 0
	for _, m := range p.visible {
		if p.rows[m.row].tool.Kept() {
			p.keptShown++
		}
	}
	p.cursor = clamp(p.cursor, 0, len(p.visible)-1)
	p.offset = window(p.cursor, p.offset, p.listRows(), len(p.visible))
}

func (p toolsPane) selectedRow() (toolRow, bool) {
	if p.cursor < 0 || p.cursor >= len(p.visible) {
		return toolRow{}, false
	}
	return p.rows[p.visible[p.cursor].row], true
}

func (p toolsPane) Update(msg tea.Msg) (toolsPane, tea.Cmd) {
	if r, ok := msg.(toolSearchMsg); ok {
		if r.gen == p.searchGen {
			p.searching = false
			p.visible = r.visible
			p.content = p.measure()
			p.clampCursor()
		}
		return p, nil
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		if p.typing {
			var cmd tea.Cmd
			p.search, cmd = p.search.Update(msg)
			return p, cmd
		}
		return p, nil
	}
	if p.detailOpen {
		return p.updateDetail(k)
	}
	l, t := p.km.List, p.km.Tools
	if p.typing {
		switch {
		case key.Matches(k, p.km.Input.Cancel):
			p.typing = false
			p.search.Blur()
			p.search.SetValue("")
			p.query = ""
			return p, p.refilter()
		case key.Matches(k, p.km.Input.Done):
			p.typing = false
			p.search.Blur()
			return p, nil
		case key.Matches(k, p.km.Input.CursorUp):
			p.cursor--
			p.clampCursor()
			return p, nil
		case key.Matches(k, p.km.Input.CursorDown):
			p.cursor++
			p.clampCursor()
			return p, nil
		}
		var cmd tea.Cmd
		p.search, cmd = p.search.Update(k)
		if q := p.search.Value(); q != p.query {
			p.query = q
			p.cursor = 0
			return p, tea.Batch(cmd, p.refilter())
		}
		return p, cmd
	}
	switch {
	case key.Matches(k, t.Search):
		p.typing = true
		return p, p.search.Focus()
	case key.Matches(k, p.km.Global.Back) && p.query != "":
		p.search.SetValue("")
		p.query = ""
		return p, p.refilter()
	case l.move(k, &p.cursor, p.listRows(), len(p.visible)):
	case key.Matches(k, t.Sort):
		p.sort = (p.sort + 1) % sortCount
		return p, tea.Batch(p.refilter(), notice(noticeInfo, "sorted by %s", sortTitles[p.sort]))
	case key.Matches(k, t.Scope):
		var servers []string
		seen := map[string]bool{}
		for _, r := range p.rows {
			if !seen[r.server] {
				seen[r.server] = true
				servers = append(servers, r.server)
			}
		}
		return p, p.nextScope(servers)
	case key.Matches(k, l.Open):
		if _, ok := p.selectedRow(); ok {
			p.detailOpen = true
			p.scheme = 0
			p.renderDetail()
			p.detail.GotoTop()
		}
	case key.Matches(k, t.Try):
		if r, ok := p.selectedRow(); ok {
			return p, emit(showTryMsg{server: r.server, tool: r.tool.Name})
		}
	case key.Matches(k, t.Filter):
		if r, ok := p.selectedRow(); ok {
			return p, emit(showFilterMsg{server: r.server})
		}
	}
	p.clampCursor()
	return p, nil
}

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

func (p toolsPane) ShortHelp() []key.Binding {
	t, l := p.km.Tools, p.km.List
	switch {
	case p.detailOpen:
		return []key.Binding{l.Up, l.Down, t.Scheme, t.Try, t.Filter, p.km.Global.Back}
	case p.typing:
		return []key.Binding{p.km.Input.Done}
	}
	return []key.Binding{l.Up, l.Down, t.Search, l.Open, t.Try, t.Filter, t.Sort, t.Scope}
}

func (p toolsPane) FullHelp() [][]key.Binding {
	t, l := p.km.Tools, p.km.List
	return [][]key.Binding{{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom}, {t.Search, l.Open, t.Sort, t.Scope}, {t.Try, t.Filter, t.Scheme, p.km.Global.Back}}
}

func (p toolsPane) listRows() int {
	_, ih := inner(p.st.Pane.Focused, p.width, p.height)
	return max(1, ih-3) // title, search line, column header
}

func (p toolsPane) scopeTitle() string {
	switch p.sc.kind {
	case 1:
		return "server " + p.sc.name
	case 2:
		return "agent " + p.sc.name
	}
	return "all servers"
}

func (p toolsPane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	f := p.st.Pane.Blurred
	if p.focused {
		f = p.st.Pane.Focused
	}
	if p.detailOpen {
		r, _ := p.selectedRow()
		title := p.st.Pane.Title.Render("Tool ") + p.st.Text.Bold.Render(r.tool.LLMName) + p.st.Text.Muted.Render(" ← "+r.tool.Name+" @ "+r.server)
		return box(f, p.width, p.height, title+"\n"+p.detail.View())
	}
	iw, _ := inner(f, p.width, p.height)
	kept := p.keptShown
	title := p.st.Pane.Title.Render("Tools") + p.st.Pane.TitleMuted.Render(fmt.Sprintf("  %s · %d shown · %d kept · sort: %s",
		p.scopeTitle(), len(p.visible), kept, sortTitles[p.sort]))
	if p.searching {
		title += p.st.Text.Muted.Render(" · searching…")
	}
	searchLine := p.st.Text.Subtle.Render("/ search both names")
	if p.typing || p.query != "" {
		searchLine = p.search.View()
		if len(p.visible) == 0 && !p.searching {
			title += p.st.Text.Warning.Render("  no match for " + strconvQuote(p.query))
		}
	}
	// LLM names start with the server's prefix, so on narrow screens the
	// server column goes first.
	showServer := p.sc.kind != 1 && iw >= 100
	origW, llmW, srvW, warnW := p.columns(iw, showServer)
	head := "  " + pad(headOrig, origW) + colGap + pad(headLLM, llmW) + colGap
	if showServer {
		head += pad(headSrv, srvW) + colGap
	}
	head += pad(headWarn, warnW)
	lines := []string{title, searchLine, p.st.Row.Header.Render(pad(head, iw))}
	if len(p.rows) == 0 {
		lines = append(lines, p.st.Text.Muted.Render("no tools yet: servers are still connecting, or none is ready (see 1 Servers)"))
	}
	rows := p.listRows()
	for i := p.offset; i < min(len(p.visible), p.offset+rows); i++ {
		lines = append(lines, p.rowView(i, iw, origW, llmW, srvW, warnW, showServer))
	}
	return box(f, p.width, p.height, strings.Join(lines, "\n"))
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

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

// renderDetail builds the detail text for the selected tool at the current
// width. It runs on open, on resize and on a scheme switch only.
func (p *toolsPane) renderDetail() {
	r, ok := p.selectedRow()
	if !ok {
		p.detailOpen = false
		return
	}
	p.detailKey = r.server + "\x00" + r.tool.Name
	p.detail.SetContent(wrapText(toolDetail(p.st, r.spec, r.server, r.tool, names.Schemes()[p.scheme], p.detail.Width), p.detail.Width))
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
				b.WriteString(wrapText(st.Text.Muted.Render("   "+s.Rule), w) + "\n")
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
