package ui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/mcpconn/cmdline"
)

// serverSection is what the lower half of the servers view shows.
type serverSection int

const (
	sectionInfo serverSection = iota
	sectionEnv
	sectionStderr
	sectionLog
	sectionCount
)

var sectionTitles = [sectionCount]string{"info", "environment", "stderr", "log"}

// serversPane lists servers with their state and shows one in detail.
type serversPane struct {
	st      *Styles
	km      *KeyMap
	d       *serverData
	deps    Deps
	cursor  int
	offset  int
	section serverSection
	width   int
	height  int
	focused bool
	auth    *serverAuthState
}

func newServersPane(st *Styles, km *KeyMap, d *serverData, deps Deps) serversPane {
	return serversPane{st: st, km: km, d: d, deps: deps, auth: newServerAuthState()}
}

func (p *serversPane) SetSize(w, h int) { p.width, p.height = w, h; p.clampCursor() }
func (p *serversPane) Focus()           { p.focused = true }
func (p *serversPane) Blur()            { p.focused = false }
func (p serversPane) CapturesInput() bool {
	return false
}

// refresh re-reads the shared server data (new servers, new lines).
func (p *serversPane) refresh() { p.clampCursor() }

func (p *serversPane) clampCursor() {
	p.cursor = clamp(p.cursor, 0, len(p.d.order)-1)
	p.offset = window(p.cursor, p.offset, p.listRows(), len(p.d.order))
}

func (p serversPane) selected() string {
	if p.cursor < 0 || p.cursor >= len(p.d.order) {
		return ""
	}
	return p.d.order[p.cursor]
}

func (p serversPane) Update(msg tea.Msg) (serversPane, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, p.updateAuth(msg)
	}
	l, s := p.km.List, p.km.Servers
	name := p.selected()
	switch {
	case l.move(k, &p.cursor, p.listRows(), len(p.d.order)):
	case key.Matches(k, s.Section):
		p.section = (p.section + 1) % sectionCount
	case name == "":
		return p, nil
	case key.Matches(k, s.Tools):
		return p, emit(showToolsMsg{server: name})
	case key.Matches(k, s.Filter):
		return p, emit(showFilterMsg{server: name})
	case key.Matches(k, s.Reconnect):
		if p.deps.Pool == nil {
			return p, notice(noticeWarn, "no pool: nothing to reconnect")
		}
		return p, tea.Batch(notice(noticeInfo, "reconnecting %s…", name), reconnect(p.deps.Ctx, p.deps.Pool, name))
	case key.Matches(k, s.Probe):
		return p, p.probe(name)
	case key.Matches(k, s.Login):
		return p, p.startLogin(name)
	}
	p.clampCursor()
	return p, nil
}

// probe pings a ready server, and also sends the HTTP health check (a bare
// GET, like curl) to HTTP servers.
func (p serversPane) probe(name string) tea.Cmd {
	spec, _ := p.d.spec(name)
	var cmds []tea.Cmd
	if p.deps.Pool != nil && p.d.status[name].State == mcpconn.StateReady {
		cmds = append(cmds, ping(p.deps.Ctx, p.deps.Pool, name))
	}
	if spec.Transport != mcpconn.TransportStdio && spec.URL != "" && p.deps.Prober != nil {
		cmds = append(cmds, probe(p.deps.Ctx, p.deps.Prober, name, spec.URL, spec.Headers))
	}
	if len(cmds) == 0 {
		return notice(noticeWarn, "%s is not ready: nothing to ping", name)
	}
	return tea.Batch(append(cmds, notice(noticeInfo, "probing %s…", name))...)
}

// ShortHelp offers L first after the cursor keys, and only on a server it
// applies to, so it shows in an 80-column footer.
func (p serversPane) ShortHelp() []key.Binding {
	s := p.km.Servers
	return append([]key.Binding{p.km.List.Up, p.km.List.Down}, append(p.loginKey(), s.Tools, s.Filter, s.Reconnect, s.Probe, s.Section)...)
}

func (p serversPane) FullHelp() [][]key.Binding {
	l, s := p.km.List, p.km.Servers
	return [][]key.Binding{{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom}, append(p.loginKey(), s.Tools, s.Filter, s.Reconnect, s.Probe, s.Section)}
}

func (p serversPane) loginKey() []key.Binding {
	if p.canLogin(p.selected()) {
		return []key.Binding{p.km.Servers.Login}
	}
	return nil
}

// listHeight is the outer height of the server list box.
func (p serversPane) listHeight() int {
	want := len(p.d.order) + 4 // border 2 + title + column header
	top, _ := splitV(p.height, 0.45, min(want, 6), 7)
	return min(want, top)
}

func (p serversPane) listRows() int { return max(1, p.listHeight()-4) }

func (p serversPane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	lh := p.listHeight()
	list := p.listView(p.width, lh)
	detail := p.detailView(p.width, p.height-lh)
	return lipgloss.JoinVertical(lipgloss.Left, list, detail)
}

func (p serversPane) frame() lipgloss.Style {
	if p.focused {
		return p.st.Pane.Focused
	}
	return p.st.Pane.Blurred
}

// server glyph and state text, by state.
func (p serversPane) stateOf(name string) (glyph, text string, style lipgloss.Style) {
	s, ok := p.d.status[name]
	st := p.st.State
	switch {
	case !ok || s.State == mcpconn.StateConnecting:
		return "◌", "connecting", st.Connecting
	case s.State == mcpconn.StateReady:
		return "●", "ready", st.Ready
	case s.State == mcpconn.StateFailed:
		t := "failed"
		if s.Class != "" {
			t += " (" + s.Class + ")"
		}
		return "✕", t, st.Failed
	}
	return "○", string(s.State), st.Closed
}

func (p serversPane) listView(w, h int) string {
	f := p.frame()
	iw, _ := inner(f, w, h)
	ready, conn, failed := p.d.counts()
	title := p.st.Pane.Title.Render("Servers") + p.st.Pane.TitleMuted.Render(fmt.Sprintf("  %d ready · %d connecting · %d failed", ready, conn, failed))
	// Columns: the name and the state fit their longest text (within
	// reason), the numbers are fixed, and the detail column (a failed
	// server's error, a ready server's name and version) takes the rest.
	const transW, toolsW, keptW, latW, gap = 9, 5, 9, 7, 2
	nameW, stateW := len("SERVER")+2, len("STATE")
	for _, n := range p.d.order {
		nameW = max(nameW, ansi.StringWidth(n)+2)
		_, state, _ := p.stateOf(n)
		stateW = max(stateW, ansi.StringWidth(state))
	}
	nameW = min(nameW, max(12, iw/4))
	stateW = min(stateW, max(12, iw/4))
	fixed := 2 + nameW + gap + stateW + gap + transW + 1 + toolsW + 1 + keptW + 1 + latW
	detailW := iw - fixed - gap
	if detailW < 10 {
		// No room for details: the state gets the slack.
		stateW += max(0, iw-fixed)
		detailW = 0
	}
	sp := strings.Repeat(" ", gap)
	head := "  " + pad("SERVER", nameW) + sp + pad("STATE", stateW) + sp + pad("TRANSPORT", transW) + " " +
		padLeft("TOOLS", toolsW) + " " + padLeft("KEPT/FILT", keptW) + " " + padLeft("LATENCY", latW)
	if detailW > 0 {
		head += sp + "DETAIL"
	}
	lines := []string{title, p.st.Row.Header.Render(pad(head, iw))}
	if len(p.d.order) == 0 {
		lines = append(lines, p.st.Text.Muted.Render("no MCP servers in this workspace"))
	}
	rows := p.listRows()
	for i := p.offset; i < min(len(p.d.order), p.offset+rows); i++ {
		name := p.d.order[i]
		glyph, state, sst := p.stateOf(name)
		e := p.d.entries[name]
		tools, kept := "", ""
		if d := p.d.discovery(name); d != nil {
			k, f, _ := toolCounts(d)
			tools = fmt.Sprint(len(d.Tools))
			kept = fmt.Sprintf("%d/%d", k, f)
		}
		lat := ""
		if pi, ok := p.d.pings[name]; ok && pi.err == "" {
			lat = fmtDur(pi.rtt)
		} else if d := p.d.discovery(name); d != nil && d.Duration > 0 {
			lat = fmtDur(d.Duration)
		}
		cursor := "  "
		if i == p.cursor {
			cursor = p.st.Row.Cursor.Render("› ")
		}
		row := cursor + sst.Render(glyph) + " " + pad(name, nameW-2) + sp + sst.Render(pad(state, stateW)) + sp +
			pad(transportLabel(e.Spec), transW) + " " + padLeft(tools, toolsW) + " " + padLeft(kept, keptW) + " " + padLeft(lat, latW)
		if detailW > 0 {
			row += sp + p.detailCell(name, detailW)
		}
		if i == p.cursor && p.focused {
			row = p.st.Row.Selected.Render(pad(ansi.Strip(row), iw))
		}
		lines = append(lines, pad(row, iw))
	}
	return box(f, w, h, strings.Join(lines, "\n"))
}

// detailCell is a server's one-line detail in the list: a failed server's
// error (redacted), else the name and version the server reported.
func (p serversPane) detailCell(name string, w int) string {
	st, ok := p.d.status[name]
	switch {
	case !ok:
		return ""
	case p.authSummary(name) != "":
		return p.st.Text.Warning.Render(fit(p.authSummary(name), w))
	case st.Error != "":
		return p.st.Text.Danger.Render(fit(printable(p.deps.Redactor.RedactString(foldSpaces(st.Error))), w))
	case st.Discovery != nil && st.Discovery.Info.Name != "":
		info := st.Discovery.Info.Name
		if v := st.Discovery.Info.Version; v != "" {
			info += " " + v
		}
		return p.st.Text.Muted.Render(fit(printable(info), w))
	}
	return ""
}

func transportLabel(s mcpconn.ServerSpec) string {
	switch s.Transport {
	case mcpconn.TransportStdio:
		return "stdio"
	case mcpconn.TransportSSE:
		return "sse"
	case mcpconn.TransportHTTP:
		if s.Ref == mcpconn.RefHTTPS {
			return "https-ref"
		}
		if s.Ref == mcpconn.RefAMP {
			return "amp"
		}
		return "http"
	}
	return string(s.Transport)
}

// toolCounts counts kept, filtered (by the tool_filter) and other (skipped,
// dropped, not selected, overwritten) tools.
func toolCounts(d *mcpconn.Discovery) (kept, filtered, other int) {
	for _, t := range d.Tools {
		switch t.Status {
		case mcpconn.ToolKept:
			kept++
		case mcpconn.ToolFiltered:
			filtered++
		default:
			other++
		}
	}
	return
}

func (p serversPane) detailView(w, h int) string {
	f := p.st.Pane.Blurred
	iw, ih := inner(f, w, h)
	name := p.selected()
	var tabs []string
	for s := serverSection(0); s < sectionCount; s++ {
		if s == p.section {
			tabs = append(tabs, p.st.Header.TabActive.Render(sectionTitles[s]))
		} else {
			tabs = append(tabs, p.st.Header.Tab.Render(sectionTitles[s]))
		}
	}
	title := p.st.Pane.Title.Render(name) + "  " + strings.Join(tabs, p.st.Text.Subtle.Render(" · ")) + p.st.Text.Subtle.Render("  (v)")
	if name == "" {
		return box(f, w, h, p.st.Pane.Title.Render("Server"))
	}
	var body []string
	switch p.section {
	case sectionInfo:
		body = p.infoLines(name, iw)
	case sectionEnv:
		body = p.envLines(name)
	case sectionStderr:
		body = p.d.stderr[name].last(ih - 1)
		for i, l := range body {
			body[i] = printable(l)
		}
		if len(body) == 0 {
			body = []string{p.st.Text.Muted.Render("no stderr output")}
		} else if r := p.d.stderr[name]; r.total > len(body) {
			body[0] = p.st.Text.Subtle.Render(fmt.Sprintf("… %d earlier lines", r.total-len(body)+1))
		}
	case sectionLog:
		body = p.d.logs[name].last(ih - 1)
		for i, l := range body {
			body[i] = printable(l)
		}
		if len(body) == 0 {
			body = []string{p.st.Text.Muted.Render("no logging, progress or process events yet")}
		}
	}
	if len(body) > ih-1 && p.section != sectionStderr && p.section != sectionLog {
		body = append(body[:ih-2], p.st.Text.Subtle.Render("…"))
	}
	return box(f, w, h, title+"\n"+strings.Join(body, "\n"))
}

func (p serversPane) kv(k, v string) string {
	return p.st.Text.Muted.Render(pad(k, 12)) + " " + v
}

// kvWrapped is a kv line whose value is wrapped under itself.
func (p serversPane) kvWrapped(k, v string, style lipgloss.Style, w int) []string {
	// One cell short of the room: ansi.Wrap keeps a breaking ',' past it.
	lines := strings.Split(wrapText(v, max(1, w-14)), "\n")
	out := []string{p.kv(k, style.Render(lines[0]))}
	for _, l := range lines[1:] {
		out = append(out, strings.Repeat(" ", 13)+style.Render(l))
	}
	return out
}

func (p serversPane) infoLines(name string, w int) []string {
	e := p.d.entries[name]
	spec := e.Spec
	red := p.deps.Redactor
	var out []string
	_, state, sst := p.stateOf(name)
	st := p.d.status[name]
	line := sst.Render(state)
	if st.Pid != 0 {
		line += p.st.Text.Muted.Render(fmt.Sprintf("  pid %d", st.Pid))
	}
	out = append(out, p.kv("state", line))
	if st.State == mcpconn.StateFailed && st.Error != "" {
		// The whole error, wrapped under itself: its cause is at the end.
		out = append(out, p.kvWrapped("error", printable(red.RedactString(foldSpaces(st.Error))), p.st.Text.Danger, w)...)
	}
	switch spec.Transport {
	case mcpconn.TransportStdio:
		words := append([]string{spec.Command}, spec.Args...)
		out = append(out, p.kv("command", printable(red.RedactString(cmdline.Join(words)))))
	default:
		out = append(out, p.kv("url", printable(red.RedactURL(spec.URL))))
		if len(spec.Headers) > 0 {
			h := red.RedactHeaders(spec.Headers)
			var hs []string
			for _, k := range slices.Sorted(maps.Keys(h)) {
				hs = append(hs, k+": "+h[k])
			}
			out = append(out, p.kv("headers", strings.Join(hs, "; ")))
		}
	}
	out = append(out, p.authLines(name, w)...)
	if sn, err := mcpconn.CrewAIServerName(spec); err == nil && sn != "" {
		out = append(out, p.kv("server_name", sn+p.st.Text.Subtle.Render("  (CrewAI's tool prefix)")))
	}
	pol := mcpconn.EffectivePolicy(spec)
	lim := mcpconn.CallLimits(spec, pol)
	out = append(out, p.kv("call policy", fmt.Sprintf("%s · call %s × %d attempts, backoff %s · connect %s",
		pol, durOrNone(lim.Call), lim.Attempts, fmtDur(lim.Backoff), fmtDur(lim.Connect))))
	// Whose wire conventions the policy follows: CrewAI's SDK exactly, or
	// crewbench's own conveniences under the session policy.
	out = append(out, p.kvWrapped("wire", mcpconn.WireNote(spec), p.st.Text.Muted, w)...)
	if e.Source != "" || len(e.Agents) > 0 {
		src := e.Source
		if len(e.Agents) > 0 {
			src += p.st.Text.Muted.Render("  used by " + strings.Join(e.Agents, ", "))
		}
		out = append(out, p.kv("declared", src))
	}
	if d := st.Discovery; d != nil {
		k, f, o := toolCounts(d)
		out = append(out, p.kv("tools", fmt.Sprintf("%d listed · %s · %s · %d other · listed in %s",
			len(d.Tools), p.st.Verdict.Kept.Render(fmt.Sprintf("%d kept", k)), p.st.Verdict.Filtered.Render(fmt.Sprintf("%d filtered", f)), o, fmtDur(d.Duration))))
		info := d.Info
		if info.Name != "" {
			caps := []string{}
			if info.ToolsListChange {
				caps = append(caps, "tools.listChanged")
			}
			if info.Logging {
				caps = append(caps, "logging")
			}
			out = append(out, p.kv("server", fmt.Sprintf("%s %s · protocol %s %s", info.Name, info.Version, info.ProtocolVersion, strings.Join(caps, " "))))
		}
		for _, wn := range d.Warnings {
			out = append(out, p.kv("warning", p.st.Text.Warning.Render(wn)))
		}
		for _, h := range d.Hints {
			out = append(out, p.kv("hint", p.st.Text.Warning.Render(h.Message)))
		}
	}
	if pi, ok := p.d.pings[name]; ok {
		if pi.err != "" {
			out = append(out, p.kv("ping", p.st.Text.Danger.Render(red.RedactString(pi.err))))
		} else {
			out = append(out, p.kv("ping", fmtDur(pi.rtt)))
		}
	}
	if h := p.d.health[name]; h != nil {
		out = append(out, p.kv("health", fmt.Sprintf("%s (HTTP %d) %s · %s", h.Health, h.Status, h.Detail, fmtDur(h.Duration))))
	} else if spec.Transport != mcpconn.TransportStdio {
		out = append(out, p.kv("health", p.st.Text.Subtle.Render("press p to probe the endpoint")))
	}
	return out
}

func durOrNone(d time.Duration) string {
	if d == 0 {
		return "no timeout"
	}
	return fmtDur(d)
}

// envLines shows exactly the environment a stdio server gets (CrewAI's
// six inherited variables plus the spec's env), secrets redacted.
func (p serversPane) envLines(name string) []string {
	spec, _ := p.d.spec(name)
	if spec.Transport != mcpconn.TransportStdio {
		if len(spec.Headers) == 0 {
			return []string{p.st.Text.Muted.Render("an HTTP server gets no environment; it is sent no headers")}
		}
		h := p.deps.Redactor.RedactHeaders(spec.Headers)
		out := []string{p.st.Text.Muted.Render("headers sent with every request:")}
		for _, k := range slices.Sorted(maps.Keys(h)) {
			out = append(out, k+": "+h[k])
		}
		return out
	}
	env := mcpconn.RedactEnv(mcpconn.StdioEnvironment(spec, p.deps.Environ))
	out := []string{p.st.Text.Muted.Render(fmt.Sprintf("%d variables — exactly what the server process receives:", len(env)))}
	marked := map[string]string{}
	for _, v := range env {
		marked[v.Name] = v.Value
	}
	red := p.deps.Redactor.RedactEnv(marked)
	for _, v := range env {
		src := p.st.Text.Subtle.Render("  (" + string(v.Source) + ")")
		if v.Source == mcpconn.EnvInheritAll {
			src = p.st.Text.Warning.Render("  (" + string(v.Source) + ")")
		}
		out = append(out, v.Name+"="+red[v.Name]+src)
	}
	if spec.InheritEnv {
		out = append(out, p.st.Text.Warning.Render("inherit_env is set: NOT what CrewAI does"))
	}
	return out
}
