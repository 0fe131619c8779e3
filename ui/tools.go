package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/sahilm/fuzzy"

	"crewbench/mcpconn"
)

// toolRow is one tool of one server.
type toolRow struct {
	server string
	spec   mcpconn.ServerSpec
	tool   *mcpconn.Tool
	order  int // position in server order, for the default sort
	// declared are the client capabilities the listing connection
	// declared (none under CrewAI's policies).
	declared []string
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
			p.rows = append(p.rows, toolRow{server: name, spec: spec, tool: &disc.Tools[i], order: len(p.rows), declared: disc.Info.Declared})
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
		// A new search starts from nothing (esc then / used to append to
		// the last query).
		p.typing = true
		p.search.SetValue("")
		if p.query != "" {
			p.query = ""
			return p, tea.Batch(p.refilter(), p.search.Focus())
		}
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
