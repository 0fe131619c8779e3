package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap is every key binding of the workbench, in groups: Global (always
// live unless a text field captures input), List (shared by every list),
// and one group per view. Bindings are matched with key.Matches only, so a
// remap or a Bubble Tea v2 upgrade changes this file alone.
type KeyMap struct {
	Global GlobalKeys
	List   ListKeys
	Input  InputKeys

	Servers  ServerKeys
	Tools    ToolKeys
	Filter   FilterKeys
	Try      TryKeys
	Kickoff  KickoffKeys
	Trace    TraceKeys
	Pause    PauseKeys
	Watch    WatchKeys
	Sessions SessionKeys
}

// GlobalKeys work everywhere (q and the digits not while typing).
type GlobalKeys struct {
	Quit, ForceQuit, Help key.Binding
	NextView, PrevView    key.Binding
	Back                  key.Binding
	// Message shows the last warning or error in full.
	Message key.Binding
	Views   [viewCount]key.Binding
}

// ListKeys move a cursor or scroll.
type ListKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Open key.Binding
}

// InputKeys apply while a text field has focus.
type InputKeys struct {
	NextField, PrevField, Done, Cancel key.Binding
	// CursorUp and CursorDown move a list's cursor while its search field
	// takes the letters (so only the arrows, not k and j).
	CursorUp, CursorDown key.Binding
}

// ServerKeys act on the selected server.
type ServerKeys struct {
	Reconnect, Probe, Section, Tools, Filter, Login key.Binding
}

// ToolKeys act on the tool list and the tool detail.
type ToolKeys struct {
	Search, Sort, Scope, Try, Filter, Scheme key.Binding
}

// FilterKeys drive the filter playground.
type FilterKeys struct {
	Edit, Server, Agent, Fix, Export, Write, Confirm, Reset key.Binding
}

// TryKeys drive try-a-tool.
type TryKeys struct {
	Run, Edit, Toggle, Raw, Editor, Policy, Copy, Cancel key.Binding
	// ToggleBack is the Toggle key that steps a choice backwards (←).
	ToggleBack key.Binding
	// Accept, Decline and Dismiss answer a server's question during the
	// call (elicitation: accept, decline, cancel; sampling: approve,
	// refuse).
	Accept, Decline, Dismiss key.Binding
}

// KickoffKeys drive the kickoff screen.
type KickoffKeys struct {
	Run, Step, Edit, Toggle, Crew key.Binding
}

// TraceKeys drive the trace tree.
type TraceKeys struct {
	Collapse, Expand, Toggle, Follow, Kind, Status, Stop key.Binding
}

// PauseKeys answer a pause.
type PauseKeys struct {
	Continue, Step, Skip, Edit, Abort, Editor, Submit key.Binding
	// View switches an LLM-call pause between its messages and its tools.
	View key.Binding
	// Feedback answers a human-input pause with what is typed.
	Feedback key.Binding
}

// SessionKeys drive the sessions list, the re-run form and the result.
type SessionKeys struct {
	Refresh, Rerun, Compare, Result, OpenTrace, Cancel key.Binding
	// AllProjects shows every project's sessions, or this project's.
	AllProjects key.Binding
	// The re-run form.
	Run, Edit, Toggle, Declared key.Binding
}

func kb(keys []string, help, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// DefaultKeyMap returns the default bindings: arrows and vim keys.
func DefaultKeyMap() *KeyMap {
	km := &KeyMap{}
	km.Global = GlobalKeys{
		Quit:      kb([]string{"q"}, "q", "quit"),
		ForceQuit: kb([]string{"ctrl+c"}, "ctrl+c", "quit"),
		Help:      kb([]string{"?"}, "?", "help"),
		NextView:  kb([]string{"tab"}, "tab", "next view"),
		PrevView:  kb([]string{"shift+tab"}, "shift+tab", "prev view"),
		Back:      kb([]string{"esc"}, "esc", "back"),
		Message:   kb([]string{"!"}, "!", "message"),
	}
	for v := view(0); v < viewCount; v++ {
		d := string(rune('1' + v))
		km.Global.Views[v] = kb([]string{d}, d, viewTitles[v])
	}
	km.List = ListKeys{
		Up:       kb([]string{"up", "k"}, "↑/k", "up"),
		Down:     kb([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   kb([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown: kb([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
		Top:      kb([]string{"home", "g"}, "g", "top"),
		Bottom:   kb([]string{"end", "G"}, "G", "bottom"),
		Open:     kb([]string{"enter"}, "enter", "open"),
	}
	km.Input = InputKeys{
		NextField:  kb([]string{"tab", "down"}, "tab/↓", "next field"),
		PrevField:  kb([]string{"shift+tab", "up"}, "shift+tab/↑", "prev field"),
		Done:       kb([]string{"enter"}, "enter", "done"),
		Cancel:     kb([]string{"esc"}, "esc", "stop editing"),
		CursorUp:   kb([]string{"up"}, "↑", "up"),
		CursorDown: kb([]string{"down"}, "↓", "down"),
	}
	km.Servers = ServerKeys{
		Reconnect: kb([]string{"r"}, "r", "reconnect"),
		Probe:     kb([]string{"p"}, "p", "ping/health"),
		Section:   kb([]string{"v"}, "v", "info/env/stderr/log"),
		Tools:     kb([]string{"enter"}, "enter", "its tools"),
		Filter:    kb([]string{"f"}, "f", "filter playground"),
		Login:     kb([]string{"L"}, "L", "login"),
	}
	km.Tools = ToolKeys{
		Search: kb([]string{"/"}, "/", "search"),
		Sort:   kb([]string{"o"}, "o", "sort"),
		Scope:  kb([]string{"a"}, "a", "all/server/agent"),
		Try:    kb([]string{"t"}, "t", "try it"),
		Filter: kb([]string{"f"}, "f", "filter"),
		Scheme: kb([]string{"n"}, "n", "naming scheme"),
	}
	km.Filter = FilterKeys{
		Edit:    kb([]string{"e", "enter"}, "e", "edit"),
		Server:  kb([]string{"s"}, "s", "next server"),
		Agent:   kb([]string{"a"}, "a", "agent"),
		Fix:     kb([]string{"F"}, "F", "apply suggestions"),
		Export:  kb([]string{"x"}, "x", "export"),
		Write:   kb([]string{"w"}, "w", "write to project"),
		Confirm: kb([]string{"y"}, "y", "confirm write"),
		Reset:   kb([]string{"R"}, "R", "reset"),
	}
	km.Try = TryKeys{
		Run:        kb([]string{"ctrl+r", "r"}, "r", "run"),
		Edit:       kb([]string{"enter", "e"}, "enter", "edit"),
		Toggle:     kb([]string{" ", "left", "right"}, "space/←→", "toggle/choose"),
		Raw:        kb([]string{"J"}, "J", "raw JSON"),
		Editor:     kb([]string{"ctrl+e"}, "ctrl+e", "$EDITOR"),
		Policy:     kb([]string{"p"}, "p", "policy"),
		Copy:       kb([]string{"y"}, "y", "copy command"),
		Cancel:     kb([]string{"X"}, "X", "cancel call"),
		ToggleBack: kb([]string{"left"}, "←", "choose the previous"),
		Accept:     kb([]string{"A"}, "A", "accept/approve"),
		Decline:    kb([]string{"D"}, "D", "decline"),
		Dismiss:    kb([]string{"C"}, "C", "dismiss"),
	}
	km.Kickoff = KickoffKeys{
		Run:    kb([]string{"r"}, "r", "run"),
		Step:   kb([]string{"s"}, "s", "step"),
		Edit:   kb([]string{"enter", "e"}, "enter", "edit"),
		Toggle: kb([]string{" "}, "space", "toggle"),
		Crew:   kb([]string{"c"}, "c", "crew"),
	}
	km.Trace = TraceKeys{
		Collapse: kb([]string{"left", "h"}, "←/h", "collapse"),
		Expand:   kb([]string{"right", "l"}, "→/l", "expand"),
		Toggle:   kb([]string{" "}, "space", "fold"),
		Follow:   kb([]string{"f"}, "f", "follow"),
		Kind:     kb([]string{"t"}, "t", "kind filter"),
		Status:   kb([]string{"S"}, "S", "status filter"),
		Stop:     kb([]string{"X"}, "X", "stop run"),
	}
	km.Pause = PauseKeys{
		Continue: kb([]string{"c"}, "c", "continue"),
		// s steps as it does in 5 Kickoff; skipping a tool replaces its
		// result, so it is a key no other view uses. X stops the run as it
		// does in 6 Trace when nothing is paused.
		Step:   kb([]string{"s"}, "s", "step"),
		Skip:   kb([]string{"u"}, "u", "skip: use a result"),
		Edit:   kb([]string{"e"}, "e", "edit"),
		Abort:  kb([]string{"X"}, "X", "stop run"),
		Editor: kb([]string{"ctrl+e"}, "ctrl+e", "$EDITOR"),
		Submit: kb([]string{"ctrl+s"}, "ctrl+s", "submit"),
		View:   kb([]string{"v"}, "v", "messages/tools"),
		// Enter, as in any text field; an empty answer accepts (CrewAI's
		// "simply hit Enter without typing anything").
		Feedback: kb([]string{"enter"}, "enter", "send (empty: accept)"),
	}
	km.Watch = defaultWatchKeys()
	km.Sessions = SessionKeys{
		Refresh:     kb([]string{"r"}, "r", "refresh"),
		Rerun:       kb([]string{"R"}, "R", "re-run offline"),
		Compare:     kb([]string{"c"}, "c", "compare with run"),
		AllProjects: kb([]string{"a"}, "a", "all projects"),
		Result:      kb([]string{"right", "l"}, "→/l", "to the result"),
		OpenTrace:   kb([]string{"o"}, "o", "re-run in 6 Trace"),
		Cancel:      kb([]string{"X"}, "X", "cancel re-run"),
		Run:         kb([]string{"r", "ctrl+r"}, "r", "run it"),
		Edit:        kb([]string{"enter", "e"}, "enter", "edit"),
		Toggle:      kb([]string{" "}, "space", "toggle"),
		Declared:    kb([]string{"d"}, "d", "declared filter"),
	}
	return km
}

// helpKeys merges the focused view's bindings with the global ones for
// the footer and the full help.
type helpKeys struct {
	pane interface {
		ShortHelp() []key.Binding
		FullHelp() [][]key.Binding
	}
	km        *KeyMap
	capturing bool
	// cut is set while the status line does not show its notice whole.
	cut bool
}

// shortParts splits the footer into the view's bindings (cut first when
// room runs out) and the tail that always shows: how to stop typing, or
// help and quit. A key is shown once.
func (h helpKeys) shortParts() (head, tail []key.Binding) {
	g := h.km.Global
	head = append([]key.Binding{}, h.pane.ShortHelp()...) // never append into a pane's slice
	if h.capturing {
		tail = []key.Binding{h.km.Input.Cancel}
	} else {
		head = append(head, g.NextView)
		tail = []key.Binding{g.Help, g.Quit}
		if h.cut {
			tail = append([]key.Binding{g.Message}, tail...)
		}
	}
	return uniqueKeys(head, tail), tail
}

func (h helpKeys) FullHelp() [][]key.Binding {
	out := append([][]key.Binding{}, h.pane.FullHelp()...)
	g := h.km.Global
	views := append([]key.Binding{}, g.Views[:]...)
	return append(out, []key.Binding{g.NextView, g.PrevView, g.Back, g.Help, g.Message, g.Quit, g.ForceQuit}, views)
}

// uniqueKeys drops a binding whose key is already shown — earlier in bs
// or in also (a view's own esc and the footer's) — keeping the first.
func uniqueKeys(bs, also []key.Binding) []key.Binding {
	seen := map[string]bool{}
	for _, b := range also {
		seen[b.Help().Key] = true
	}
	out := bs[:0:0]
	for _, b := range bs {
		k := b.Help().Key
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, b)
	}
	return out
}

// keyHint spells a binding for a line of text ("s step"), with desc in
// place of its help text when desc is given, so text that names keys
// follows the key map.
func keyHint(b key.Binding, desc ...string) string {
	d := b.Help().Desc
	if len(desc) > 0 {
		d = desc[0]
	}
	return b.Help().Key + " " + d
}

// pauseHints are the decisions a pause offers, as a line of text.
//
// At an LLM call of a real CrewAI run (crewbench watch) the messages about
// to be sent can be edited, but the call cannot be skipped nor its reply
// written: CrewAI's hooks allow neither, so neither is offered.
func (pk PauseKeys) hints(toolCall, realRun bool) string {
	keys := []string{keyHint(pk.Continue), keyHint(pk.Step)}
	switch {
	case toolCall:
		keys = append(keys, keyHint(pk.Skip), keyHint(pk.Edit, "edit arguments"))
	case realRun:
		keys = append(keys, keyHint(pk.Edit, "edit messages"))
	default:
		keys = append(keys, keyHint(pk.Edit, "edit the reply"))
	}
	hint := strings.Join(append(keys, keyHint(pk.Abort)), " · ")
	if realRun && !toolCall {
		hint += " (a real CrewAI LLM call cannot be skipped)"
	}
	return hint
}

// scroll moves a detail viewport with the list keys (line, page, top,
// bottom) and reports whether k was one of them.
func (l ListKeys) scroll(vp *viewport.Model, k tea.KeyMsg) bool {
	switch {
	case key.Matches(k, l.Up):
		vp.ScrollUp(1)
	case key.Matches(k, l.Down):
		vp.ScrollDown(1)
	case key.Matches(k, l.PageUp):
		vp.PageUp()
	case key.Matches(k, l.PageDown):
		vp.PageDown()
	case key.Matches(k, l.Top):
		vp.GotoTop()
	case key.Matches(k, l.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}

// move moves a list cursor (or scroll offset) for k — a line, a page of
// page rows, the top, the bottom of n rows — leaving clamping to the pane,
// and reports whether k was a movement key.
func (l ListKeys) move(k tea.KeyMsg, cursor *int, page, n int) bool {
	switch {
	case key.Matches(k, l.Up):
		*cursor--
	case key.Matches(k, l.Down):
		*cursor++
	case key.Matches(k, l.PageUp):
		*cursor -= max(1, page)
	case key.Matches(k, l.PageDown):
		*cursor += max(1, page)
	case key.Matches(k, l.Top):
		*cursor = 0
	case key.Matches(k, l.Bottom):
		*cursor = n - 1
	default:
		return false
	}
	return true
}

// Besides the bindings, these are the only places ui spells out Bubble
// Tea's key representation, so an upgrade changes this file alone.
var (
	// The mouse wheel scrolls as ↑ and ↓ do.
	wheelUpKey   = tea.KeyMsg{Type: tea.KeyUp}
	wheelDownKey = tea.KeyMsg{Type: tea.KeyDown}
)

// isRuneBurst reports whether k is several runes typed faster than the
// terminal is read, which arrive as one message (a paste does too, but is
// marked as one).
func isRuneBurst(k tea.KeyMsg) bool {
	return k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste
}

// runesKey is the message typing runes makes (with alt held, if alt).
func runesKey(runes []rune, alt bool) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: runes, Alt: alt}
}
