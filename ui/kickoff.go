package ui

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew"
)

// Breakpoint rows of the kickoff form, after the inputs.
const (
	bpEvery = iota
	bpLLM
	bpFailure
	bpTools
	bpServers
	bpCount
)

var bpLabels = [bpCount]string{"every step", "every LLM call", "after a tool failure", "tools", "servers"}

// kickoffPane picks a crew, fills its inputs (the placeholders its texts
// use are found for you) and breakpoints, and starts a run or a step.
type kickoffPane struct {
	st     *Styles
	km     *KeyMap
	runner Runner

	crews   []CrewInfo
	crewIdx int

	inputNames []string
	inputs     []textinput.Model
	defaults   map[string]any

	toggles [3]bool // every, LLM, failure
	bpTools textinput.Model
	bpSrvs  textinput.Model

	watch kickoffWatch // the project's own command (kickoff_watch.go)

	cursor  int
	editing bool

	width, height int
	focused       bool
}

func newKickoffPane(st *Styles, km *KeyMap, r Runner) kickoffPane {
	mk := func(ph string) textinput.Model {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = ph
		ti.PlaceholderStyle = st.Text.Subtle
		ti.TextStyle = st.Text.Normal
		return ti
	}
	p := kickoffPane{st: st, km: km, runner: r, bpTools: mk("tool names, comma-separated (LLM or original)"), bpSrvs: mk("server names, comma-separated")}
	if r != nil {
		p.crews = r.Crews()
	}
	p.toggles[2] = true // pausing after a failure is what people usually want
	p.loadCrew()
	return p
}

func (p *kickoffPane) loadCrew() {
	p.inputNames, p.inputs, p.defaults = nil, nil, map[string]any{}
	if len(p.crews) == 0 {
		return
	}
	c := p.crews[p.crewIdx]
	seen := map[string]bool{}
	for _, n := range c.Placeholders {
		if !seen[n] {
			seen[n] = true
			p.inputNames = append(p.inputNames, n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Inputs)) {
		if !seen[n] {
			seen[n] = true
			p.inputNames = append(p.inputNames, n)
		}
	}
	for _, n := range p.inputNames {
		ti := textinput.New()
		ti.Prompt = ""
		ti.TextStyle = p.st.Text.Normal
		ti.PlaceholderStyle = p.st.Text.Subtle
		ti.Placeholder = "required: the crew's texts use {" + n + "}"
		if v, ok := c.Inputs[n]; ok {
			p.defaults[n] = v
			ti.SetValue(inputText(v))
			ti.Placeholder = fmt.Sprintf("empty: the crew's default %q", inputText(v))
		}
		p.inputs = append(p.inputs, ti)
	}
	p.cursor = 0
	p.SetSize(p.width, p.height)
}

// inputText is how the form shows a default input: scalars as they are,
// lists and dicts as JSON (a dict default keeps its key order).
func inputText(v any) string {
	switch v.(type) {
	case []any, map[string]any, json.Marshaler:
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}

func (p *kickoffPane) SetSize(w, h int) {
	p.width, p.height = w, h
	iw, _ := inner(p.st.Pane.Focused, w, h)
	for i := range p.inputs {
		p.inputs[i].Width = max(1, iw-26)
	}
	p.bpTools.Width = max(1, iw-26)
	p.bpSrvs.Width = max(1, iw-26)
	p.watch.cmd.Width = max(1, iw-26)
}

func (p *kickoffPane) Focus() { p.focused = true }
func (p *kickoffPane) Blur() {
	p.focused = false
	p.stopEditing()
}
func (p kickoffPane) CapturesInput() bool { return p.editing }

func (p *kickoffPane) stopEditing() {
	p.editing = false
	for i := range p.inputs {
		p.inputs[i].Blur()
	}
	p.bpTools.Blur()
	p.bpSrvs.Blur()
	p.watch.cmd.Blur()
}

func (p kickoffPane) rows() int { return len(p.inputs) + bpCount + p.watchRows() }

// input returns the text input at row i, or nil for a toggle.
func (p *kickoffPane) input(i int) *textinput.Model {
	switch {
	case i < len(p.inputs):
		return &p.inputs[i]
	case i-len(p.inputs) == bpTools:
		return &p.bpTools
	case i-len(p.inputs) == bpServers:
		return &p.bpSrvs
	case i == p.watchRow() && p.watchRows() > 0:
		return &p.watch.cmd
	}
	return nil
}

func (p kickoffPane) Update(msg tea.Msg) (kickoffPane, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		if p.editing {
			if in := p.input(p.cursor); in != nil {
				var cmd tea.Cmd
				*in, cmd = in.Update(msg)
				return p, cmd
			}
		}
		return p, nil
	}
	if p.editing {
		in := p.km.Input
		if key.Matches(k, in.Cancel) || key.Matches(k, in.Done) {
			p.stopEditing()
			return p, nil
		}
		if to, ok := (focusRing{keys: in, n: p.rows()}).move(k, p.cursor); ok {
			p.stopEditing()
			p.cursor = to
			return p, p.edit()
		}
		var cmd tea.Cmd
		if ti := p.input(p.cursor); ti != nil {
			*ti, cmd = ti.Update(k)
		}
		return p, cmd
	}
	if np, cmd, ok := p.updateWatchKey(k); ok {
		return np, cmd
	}
	if len(p.crews) == 0 && p.watchRows() == 0 {
		return p, nil
	}
	ko, l := p.km.Kickoff, p.km.List
	switch {
	case key.Matches(k, l.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(k, l.Down):
		p.cursor = min(p.rows()-1, p.cursor+1)
	case key.Matches(k, ko.Run):
		return p.start(false)
	case key.Matches(k, ko.Step):
		return p.start(true)
	case key.Matches(k, ko.Crew) && len(p.crews) > 0:
		p.crewIdx = (p.crewIdx + 1) % len(p.crews)
		p.loadCrew()
	case key.Matches(k, ko.Toggle), key.Matches(k, ko.Edit):
		if i := p.cursor - len(p.inputs); i >= 0 && i < 3 {
			p.toggles[i] = !p.toggles[i]
			return p, nil
		}
		return p, p.edit()
	}
	return p, nil
}

func (p *kickoffPane) edit() tea.Cmd {
	if ti := p.input(p.cursor); ti != nil {
		p.editing = true
		return ti.Focus()
	}
	return nil
}

// values returns the kickoff inputs: a default left unchanged keeps its
// type (a number stays a number); everything typed is a string.
func (p kickoffPane) values() map[string]any {
	out := map[string]any{}
	for i, n := range p.inputNames {
		v := p.inputs[i].Value()
		if d, ok := p.defaults[n]; ok && inputText(d) == v {
			out[n] = d
			continue
		}
		if v != "" {
			out[n] = v
		}
	}
	return out
}

func (p kickoffPane) missing() []string {
	var out []string
	for i, n := range p.inputNames {
		if p.inputs[i].Value() == "" {
			if _, ok := p.defaults[n]; !ok {
				out = append(out, n)
			}
		}
	}
	return out
}

func (p kickoffPane) breakpoints() crew.Breakpoints {
	return crew.Breakpoints{
		Every: p.toggles[0], LLMCalls: p.toggles[1], OnFailure: p.toggles[2],
		Tools: splitList(p.bpTools.Value()), Servers: splitList(p.bpSrvs.Value()),
	}
}

func (p kickoffPane) start(step bool) (kickoffPane, tea.Cmd) {
	if len(p.crews) == 0 {
		return p, notice(noticeWarn, "no crew crewbench can run here: w watches your own command")
	}
	if miss := p.missing(); len(miss) > 0 {
		return p, notice(noticeError, "missing input %s: the crew's texts use {%s}", strings.Join(miss, ", "), miss[0])
	}
	c := p.crews[p.crewIdx]
	return p, emit(startRunMsg{req: KickoffRequest{Crew: c.Name, Inputs: p.values()}, bp: p.breakpoints(), step: step})
}

func (p kickoffPane) ShortHelp() []key.Binding {
	ko, l := p.km.Kickoff, p.km.List
	switch {
	case len(p.crews) == 0 && !p.editing:
		return p.watchHelp()
	case p.editing:
		return []key.Binding{p.km.Input.NextField, p.km.Input.Done}
	}
	out := []key.Binding{ko.Run, ko.Step, l.Up, l.Down, ko.Edit, ko.Toggle}
	if len(p.crews) > 1 {
		out = append(out, ko.Crew)
	}
	return append(out, p.watchHelp()...)
}

func (p kickoffPane) FullHelp() [][]key.Binding {
	ko, l := p.km.Kickoff, p.km.List
	return [][]key.Binding{{ko.Run, ko.Step, ko.Crew}, {l.Up, l.Down, ko.Edit, ko.Toggle, p.km.Input.NextField, p.km.Input.Done}, p.watchHelp()}
}

func (p kickoffPane) View() string {
	if p.width == 0 || p.height == 0 {
		return ""
	}
	f := p.st.Pane.Blurred
	if p.focused {
		f = p.st.Pane.Focused
	}
	iw, ih := inner(f, p.width, p.height)
	if len(p.crews) == 0 && p.watchRows() > 0 {
		return p.watchOnlyView(f, iw, ih)
	}
	if len(p.crews) == 0 {
		msg := "This workspace has no crew to kick off (only MCP servers)."
		return box(f, p.width, p.height, p.st.Pane.Title.Render("Kickoff")+"\n"+p.st.Text.Muted.Render(msg))
	}
	c := p.crews[p.crewIdx]
	title := p.st.Pane.Title.Render("Kickoff ") + p.st.Text.Bold.Render(c.Name)
	if c.LLM != "" {
		title += p.st.Pane.TitleMuted.Render("  llm " + c.LLM)
	}
	if len(p.crews) > 1 {
		title += p.st.Pane.TitleMuted.Render(fmt.Sprintf("  (%d/%d, c: next crew)", p.crewIdx+1, len(p.crews)))
	}
	lines := []string{title}
	if len(c.Tasks) > 0 {
		lines = append(lines, p.st.Text.Muted.Render("tasks: ")+strings.Join(c.Tasks, " → "))
	}
	if len(c.Servers) > 0 {
		lines = append(lines, p.st.Text.Muted.Render("servers: ")+strings.Join(c.Servers, ", "))
	}
	lines = append(lines, "", p.st.Text.Heading.Render("Inputs")+p.st.Text.Subtle.Render("  (the {placeholders} the crew's texts use)"))
	if len(p.inputs) == 0 {
		lines = append(lines, p.st.Text.Muted.Render("  the crew uses no {placeholders}"))
	}
	for i, n := range p.inputNames {
		lines = append(lines, p.row(i, n, p.inputs[i].View(), p.inputs[i].Value() == "" && p.defaults[n] == nil, iw))
	}
	lines = append(lines, p.breakpointLines(iw)...)
	lines = append(lines, "", p.st.Text.Key.Render("r")+p.st.Text.Muted.Render(" run to the breakpoints · ")+
		p.st.Text.Key.Render("s")+p.st.Text.Muted.Render(" step: pause before the very first call"))
	lines = append(lines, p.watchLines(iw)...)
	if len(lines) > ih {
		// Keep the cursor row on screen on small terminals.
		cur := 5 + p.cursor
		off := window(cur, 0, ih, len(lines))
		lines = lines[off : off+ih]
	}
	return box(f, p.width, p.height, strings.Join(lines, "\n"))
}

// breakpointLines are the Breakpoints section's heading and rows.
func (p kickoffPane) breakpointLines(iw int) []string {
	lines := []string{"", p.st.Text.Heading.Render("Breakpoints") + p.st.Text.Subtle.Render("  (pause before matching LLM / tool calls)")}
	for i := 0; i < bpCount; i++ {
		var v string
		if i < 3 {
			v = "[ ]"
			if p.toggles[i] {
				v = "[x]"
			}
			v = p.st.Text.Accent.Render(v)
		} else if i == bpTools {
			v = p.bpTools.View()
		} else {
			v = p.bpSrvs.View()
		}
		lines = append(lines, p.row(len(p.inputs)+i, bpLabels[i], v, false, iw))
	}
	return lines
}

func (p kickoffPane) row(i int, label, value string, required bool, iw int) string {
	marker := "  "
	style := p.st.Form.Label
	if i == p.cursor {
		marker = p.st.Row.Cursor.Render("› ")
		style = p.st.Form.LabelFocused
	}
	req := " "
	if required {
		req = p.st.Form.Required.Render("*")
	}
	return fit(marker+style.Render(pad(label, 21))+req+" "+value, iw)
}
