package ui

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
)

// filterPane is the filter playground: edit a server's allowed/blocked
// names and CEL expression and watch every tool's verdict change on each
// keystroke, then export the result.
type filterPane struct {
	st   *Styles
	km   *KeyMap
	deps Deps

	servers []string
	server  string
	chosen  bool // the user picked the server (f, s); tab keeps it
	d       *serverData

	fields [3]textinput.Model // allowed, blocked, expression
	// tried remembers the filter tried on each server, so switching
	// servers keeps the edits, and a re-run (7 Sessions) can use them.
	tried   map[string]mcpconn.FilterSpec
	field   int
	editing bool
	agent   int // index into agentsFor(server); -1: no agent role

	// The server's tools as CrewAI lists them before any tool_filter, and
	// the prepared subset the filter sees.
	tools    []mcpconn.Tool
	eligible []int // indexes into tools the filter decides
	pos      []int // per tool: its index in eligible, or -1
	prepared []*filter.Prepared
	toolsKey *mcpconn.Discovery

	gen     int
	cancel  context.CancelFunc
	pending bool
	// fixGen is the evaluation F waits for: F pressed while the entries
	// just typed are still being evaluated applies their suggestions when
	// that result arrives, not the previous text's (0: none waiting).
	fixGen   int
	verdicts []filter.Verdict // aligned with eligible
	hints    []filter.Hint
	err      error

	exportMode int // 0 list, 1 mcps JSON, 2 Python, 3 mcpServers, exportPlan
	exportText string
	// exportCode says exportText is the exporter's output (not a message),
	// so a crew.py snippet can be wrapped as Python.
	exportCode bool
	plan       *WritePlan

	cursor, offset int
	width, height  int
	focused        bool
}

const (
	fieldAllowed = iota
	fieldBlocked
	fieldExpr
)

var fieldLabels = [3]string{"allowed_tool_names", "blocked_tool_names", "CEL expression"}

func newFilterPane(st *Styles, km *KeyMap, deps Deps) filterPane {
	p := filterPane{st: st, km: km, deps: deps, agent: -1, tried: map[string]mcpconn.FilterSpec{}}
	placeholders := [3]string{"comma-separated; empty allows all", "comma-separated", `e.g. !tool.name.startsWith("write_")`}
	for i := range p.fields {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholders[i]
		ti.PlaceholderStyle = st.Text.Subtle
		ti.TextStyle = st.Text.Normal
		p.fields[i] = ti
	}
	return p
}

func (p *filterPane) SetSize(w, h int) {
	p.width, p.height = w, h
	iw, _ := inner(p.st.Pane.Focused, w, h)
	for i := range p.fields {
		p.fields[i].Width = max(1, iw-24)
	}
	p.clampCursor()
}

func (p *filterPane) Focus() { p.focused = true }
func (p *filterPane) Blur() {
	p.focused = false
	p.stopEditing()
}
func (p filterPane) CapturesInput() bool { return p.editing }

func (p *filterPane) stopEditing() {
	p.editing = false
	for i := range p.fields {
		p.fields[i].Blur()
	}
}

// SetServers refreshes the list of servers and, when the open server's
// listing changed, its tools.
// skippedNotice says which servers s passes over and why: the playground
// needs a server's tool list.
func (p filterPane) skippedNotice() tea.Cmd {
	var skipped []string
	for _, n := range p.d.order {
		if p.d.discovery(n) == nil {
			why := "not listed yet"
			if st, ok := p.d.status[n]; ok && st.State == mcpconn.StateFailed {
				why = "failed"
				if st.Class != "" {
					why += " (" + st.Class + ")"
				}
			}
			skipped = append(skipped, n+": "+why)
		}
	}
	if len(skipped) == 0 {
		return nil
	}
	return notice(noticeInfo, "filtering %s; skipped, having no tool list: %s", p.server, strings.Join(skipped, ", "))
}

func (p *filterPane) SetServers(d *serverData) {
	p.d = d
	p.servers = p.servers[:0]
	for _, n := range d.order {
		if d.discovery(n) != nil {
			p.servers = append(p.servers, n)
		}
	}
	if p.server == "" && len(p.servers) > 0 {
		p.load(p.servers[0], true)
		return
	}
	if p.server != "" && d.discovery(p.server) != p.toolsKey {
		p.load(p.server, false)
	}
}

// Open shows server's filter, starting from the filter its spec declares.
func (p *filterPane) Open(server string, d *serverData) tea.Cmd {
	p.d = d
	p.SetServers(d)
	p.chosen = true
	p.load(server, true)
	return p.recompute()
}

// load reads the server's tools; resetFields also reloads the declared filter.
func (p *filterPane) load(server string, resetFields bool) {
	p.server = server
	p.exportMode, p.exportText, p.plan = 0, "", nil
	if p.d == nil {
		return
	}
	spec, _ := p.d.spec(server)
	if resetFields {
		fs := spec.Filter
		if t, ok := p.tried[server]; ok {
			fs = t
		}
		p.fields[fieldAllowed].SetValue(strings.Join(fs.Allowed, ", "))
		p.fields[fieldBlocked].SetValue(strings.Join(fs.Blocked, ", "))
		p.fields[fieldExpr].SetValue(fs.Expr)
		p.agent = -1
		if a := p.agentsFor(server); len(a) > 0 {
			p.agent = 0
		}
		p.cursor, p.offset = 0, 0
	}
	disc := p.d.discovery(server)
	p.toolsKey = disc
	p.tools, p.eligible, p.prepared, p.verdicts, p.hints, p.err = nil, nil, nil, nil, nil, nil
	if disc == nil {
		return
	}
	p.tools = make([]mcpconn.Tool, len(disc.Tools))
	copy(p.tools, disc.Tools)
	p.pos = make([]int, len(p.tools))
	var ft []filter.Tool
	for i := range p.tools {
		t := &p.tools[i]
		// Undo the declared filter: the playground starts from the listing.
		if t.Status == mcpconn.ToolFiltered {
			t.Status = mcpconn.ToolKept
		}
		p.pos[i] = -1
		if t.Status != mcpconn.ToolKept && t.Status != mcpconn.ToolDropped {
			continue // CrewAI never shows a skipped tool to the filter
		}
		p.pos[i] = len(p.eligible)
		var ann map[string]any
		_ = json.Unmarshal(t.Annotations, &ann)
		p.eligible = append(p.eligible, i)
		ft = append(ft, filter.Tool{Name: t.Sanitized, OriginalName: t.Name, Description: t.Description,
			InputSchema: t.InputSchema, Annotations: ann})
	}
	p.prepared = filter.Prepare(ft)
}

func (p filterPane) agentsFor(server string) []AgentEntry {
	var out []AgentEntry
	for _, a := range p.deps.Workspace.Agents {
		for _, s := range a.Servers {
			if s == server {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if v := strings.TrimSpace(part); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// remember keeps the filter now in the fields as the one tried on the
// server.
func (p *filterPane) remember() {
	if p.server != "" {
		p.tried[p.server] = p.spec()
	}
}

// Tried returns the filters tried in the playground that differ from what
// the servers declare, by server name.
func (p filterPane) Tried() map[string]mcpconn.FilterSpec {
	out := map[string]mcpconn.FilterSpec{}
	for server, fs := range p.tried {
		var declared mcpconn.FilterSpec
		if p.d != nil {
			spec, _ := p.d.spec(server)
			declared = spec.Filter
		}
		if !sameFilter(fs, declared) {
			out[server] = fs
		}
	}
	return out
}

// sameFilter reports whether two filters keep the same tools by
// construction (same lists in the same order, same expression).
func sameFilter(a, b mcpconn.FilterSpec) bool {
	return strings.Join(a.Allowed, "\x00") == strings.Join(b.Allowed, "\x00") &&
		strings.Join(a.Blocked, "\x00") == strings.Join(b.Blocked, "\x00") &&
		strings.TrimSpace(a.Expr) == strings.TrimSpace(b.Expr)
}

func (p filterPane) spec() mcpconn.FilterSpec {
	return mcpconn.FilterSpec{
		Allowed: splitList(p.fields[fieldAllowed].Value()),
		Blocked: splitList(p.fields[fieldBlocked].Value()),
		Expr:    strings.TrimSpace(p.fields[fieldExpr].Value()),
	}
}

// recompute cancels the evaluation in flight and starts a new one.
func (p *filterPane) recompute() tea.Cmd {
	if p.server == "" || p.d == nil {
		return nil
	}
	if p.cancel != nil {
		p.cancel()
	}
	ctx, cancel := context.WithCancel(p.deps.Ctx)
	p.cancel = cancel
	p.gen++
	p.pending = true
	fs := p.spec()
	fctx := filter.Context{ServerName: p.serverName()}
	if a := p.agentsFor(p.server); p.agent >= 0 && p.agent < len(a) {
		fctx.AgentRole = a[p.agent].Role
	}
	return applyFilter(ctx, p.gen, p.server, fs.Allowed, fs.Blocked, fs.Expr, fctx, p.prepared)
}

func (p filterPane) serverName() string {
	if d := p.d.discovery(p.server); d != nil {
		return d.ServerName
	}
	return p.server
}

func (p filterPane) Update(msg tea.Msg) (filterPane, tea.Cmd) {
	switch msg := msg.(type) {
	case filterResultMsg:
		if msg.gen != p.gen || msg.server != p.server {
			return p, nil // a stale result: the user typed again
		}
		p.pending = false
		p.hints, p.err = msg.hints, msg.err
		if msg.err == nil {
			// While the expression does not compile, the rows keep the
			// verdicts of the last filter that did.
			p.verdicts = msg.verdicts
		}
		if p.fixGen == msg.gen {
			p.fixGen = 0
			return p.applySuggestions()
		}
		return p, nil
	case exportMsg:
		if msg.err != nil {
			p.exportText, p.exportCode = p.st.Text.Danger.Render(msg.err.Error()), false
		} else {
			p.exportText, p.exportCode = msg.text, true
		}
		return p, nil
	case writePlanMsg:
		if msg.err != nil {
			return p, notice(noticeError, "write: %v", msg.err)
		}
		p.plan = &msg.plan
		p.exportMode = exportPlan
		return p, notice(noticeWarn, "review the diff for %s — y writes it (a backup is kept), esc cancels", msg.plan.File)
	case writeDoneMsg:
		p.plan = nil
		p.exportMode = 0
		if msg.err != nil {
			return p, notice(noticeError, "write: %v", msg.err)
		}
		return p, notice(noticeInfo, "written (backup: %s); the running servers keep the old filter until you restart crewbench", msg.backup)
	case tea.KeyMsg:
		if p.editing {
			return p.updateEditing(msg)
		}
		return p.updateKeys(msg)
	}
	if p.editing {
		var cmd tea.Cmd
		p.fields[p.field], cmd = p.fields[p.field].Update(msg)
		return p, cmd
	}
	return p, nil
}

func (p filterPane) updateEditing(k tea.KeyMsg) (filterPane, tea.Cmd) {
	in := p.km.Input
	if key.Matches(k, in.Cancel) || key.Matches(k, in.Done) {
		p.stopEditing()
		return p, nil
	}
	if to, ok := (focusRing{keys: in, n: len(p.fields), wrap: true}).move(k, p.field); ok {
		p.fields[p.field].Blur()
		p.field = to
		return p, p.fields[p.field].Focus()
	}
	before := p.fields[p.field].Value()
	var cmd tea.Cmd
	p.fields[p.field], cmd = p.fields[p.field].Update(k)
	if p.fields[p.field].Value() != before {
		p.chosen = true // the user's edits survive switching views
		p.remember()
		p.exportText, p.plan = "", nil
		if p.exportMode != 0 {
			p.exportMode = 0
		}
		return p, tea.Batch(cmd, p.recompute())
	}
	return p, cmd
}

func (p filterPane) updateKeys(k tea.KeyMsg) (filterPane, tea.Cmd) {
	f, l := p.km.Filter, p.km.List
	switch {
	case p.plan != nil && key.Matches(k, f.Confirm):
		if p.deps.Exporter == nil {
			return p, nil
		}
		return p, applyWrite(p.deps.Ctx, p.deps.Exporter, *p.plan)
	case key.Matches(k, p.km.Global.Back) && p.exportMode != 0:
		p.exportMode, p.plan = 0, nil
	case key.Matches(k, f.Edit):
		if p.server == "" {
			return p, notice(noticeWarn, "no server with tools yet")
		}
		p.editing = true
		return p, p.fields[p.field].Focus()
	case key.Matches(k, f.Server):
		if len(p.servers) > 0 {
			i := 0
			for j, s := range p.servers {
				if s == p.server {
					i = j + 1
				}
			}
			p.chosen = true
			p.load(p.servers[i%len(p.servers)], true)
			return p, tea.Batch(p.recompute(), p.skippedNotice())
		}
	case key.Matches(k, f.Agent):
		if a := p.agentsFor(p.server); len(a) > 0 {
			p.agent = (p.agent+2)%(len(a)+1) - 1 // -1, 0, 1, … , -1
			return p, p.recompute()
		}
		return p, notice(noticeInfo, "no agent uses %s: context.agent_role stays empty", p.server)
	case key.Matches(k, f.Fix):
		return p.applySuggestions()
	case key.Matches(k, f.Reset):
		delete(p.tried, p.server)
		p.load(p.server, true)
		return p, tea.Batch(p.recompute(), notice(noticeInfo, "reset %s to its declared filter", p.server))
	case key.Matches(k, f.Export):
		formats := 2
		if p.deps.Exporter != nil {
			formats = 3 // the exporter also writes mcpServers files
		}
		p.exportMode = p.exportMode%formats + 1
		return p, p.export()
	case key.Matches(k, f.Write):
		if p.deps.Exporter == nil {
			return p, notice(noticeWarn, "this workspace has no project files to write to; x shows the config to paste")
		}
		return p, planWrite(p.deps.Ctx, p.deps.Exporter, ExportRequest{Server: p.server, Agent: p.agentName(), Filter: p.spec()})
	case l.move(k, &p.cursor, p.listRows(), len(p.tools)):
	}
	p.clampCursor()
	return p, nil
}

func (p filterPane) agentName() string {
	if a := p.agentsFor(p.server); p.agent >= 0 && p.agent < len(a) {
		return a[p.agent].Name
	}
	return ""
}

// applySuggestions replaces every list entry a did-you-mean hint corrects.
func (p filterPane) applySuggestions() (filterPane, tea.Cmd) {
	if p.pending {
		// The hints held are the previous text's: wait for this one's.
		p.fixGen = p.gen
		return p, nil
	}
	fixed := 0
	for _, h := range p.hints {
		if h.Kind != filter.HintDidYouMean || h.Suggestion == "" {
			continue
		}
		i := fieldAllowed
		if h.List == filter.ListBlocked {
			i = fieldBlocked
		}
		entries := splitList(p.fields[i].Value())
		for j, e := range entries {
			if e == h.Entry {
				entries[j] = h.Suggestion
				fixed++
			}
		}
		p.fields[i].SetValue(strings.Join(entries, ", "))
	}
	if fixed == 0 {
		return p, notice(noticeInfo, "no suggestion to apply")
	}
	p.remember()
	return p, tea.Batch(p.recompute(), notice(noticeInfo, "applied %d suggestion(s)", fixed))
}

func (p filterPane) ShortHelp() []key.Binding {
	f := p.km.Filter
	if p.editing {
		return []key.Binding{p.km.Input.NextField, p.km.Input.Done}
	}
	if p.plan != nil {
		return []key.Binding{f.Confirm, p.km.Global.Back}
	}
	out := []key.Binding{f.Edit}
	if filter.KeepsNothing(p.hints) || p.hasSuggestions() {
		out = append(out, f.Fix)
	}
	return append(out, f.Server, f.Agent, f.Export, f.Write, f.Reset)
}

func (p filterPane) FullHelp() [][]key.Binding {
	f, l := p.km.Filter, p.km.List
	return [][]key.Binding{{f.Edit, p.km.Input.NextField, p.km.Input.Done}, {f.Fix, f.Server, f.Agent, f.Reset}, {f.Export, f.Write, f.Confirm}, {l.Up, l.Down, l.PageUp, l.PageDown}}
}

func (p filterPane) hasSuggestions() bool {
	for _, h := range p.hints {
		if h.Kind == filter.HintDidYouMean {
			return true
		}
	}
	return false
}

func (p filterPane) editorHeight() int {
	iw, _ := inner(p.st.Pane.Focused, p.width, p.height)
	return 2 + 1 + 3 + 1 + max(1, len(p.errLines(iw))+len(p.hintLines(iw)))
}

func (p filterPane) listRows() int {
	return max(1, p.height-p.editorHeight()-3)
}

func (p *filterPane) clampCursor() {
	p.cursor = clamp(p.cursor, 0, len(p.tools)-1)
	p.offset = window(p.cursor, p.offset, p.listRows(), len(p.tools))
}

// verdictFor returns the playground's verdict for tool i, or false when
// the filter does not decide it (skipped, not selected, …).
func (p filterPane) verdictFor(i int) (filter.Verdict, bool) {
	if i < 0 || i >= len(p.pos) {
		return filter.Verdict{}, false
	}
	if j := p.pos[i]; j >= 0 && j < len(p.verdicts) {
		return p.verdicts[j], true
	}
	return filter.Verdict{}, false
}

func (p filterPane) counts() (kept, total int) {
	for j, v := range p.verdicts {
		if v.Kept && p.tools[p.eligible[j]].Status != mcpconn.ToolDropped {
			kept++
		}
	}
	return kept, len(p.tools)
}
