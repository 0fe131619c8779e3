package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/names"
	"crewbench/session"
	"crewbench/themes"
)

// fixedNow is the clock of every deterministic test.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return fixedNow }

// fakeTool describes one tool of a fake server.
type fakeTool struct {
	name, desc string
	schema     string
	status     mcpconn.ToolStatus
	reason     string
}

// fakeDiscovery builds a listing the way discovery names tools (native
// path), without a server.
func fakeDiscovery(spec mcpconn.ServerSpec, tools ...fakeTool) *mcpconn.Discovery {
	sn, _ := mcpconn.CrewAIServerName(spec)
	d := &mcpconn.Discovery{Server: spec.Name, ServerName: sn, Transport: spec.Transport, Outcome: session.OutcomeOK,
		Duration: 12 * time.Millisecond, Info: mcpconn.ServerInfo{Name: spec.Name + "-server", Version: "1.0.0", ProtocolVersion: mcpconn.DefaultProtocolVersion}}
	var results []names.Result
	for _, ft := range tools {
		display, llm, skipped := names.NativeTool(sn, ft.name)
		t := mcpconn.Tool{Name: ft.name, Description: ft.desc, Sanitized: names.Sanitize(ft.name), DisplayName: display,
			LLMName: llm, CallName: ft.name, Status: ft.status, Reason: ft.reason}
		if t.Status == "" {
			t.Status, t.Reason = mcpconn.ToolKept, "kept"
		}
		if skipped {
			t.Status, t.Reason = mcpconn.ToolSkipped, "skipped: the name sanitizes to empty"
		}
		if ft.schema != "" {
			t.InputSchema = json.RawMessage(ft.schema)
		}
		t.Raw = json.RawMessage(fmt.Sprintf(`{"name":%q}`, ft.name))
		d.Tools = append(d.Tools, t)
		r, err := names.Resolve(mcpconn.NameInput(spec, ft.name))
		if err != nil || t.Status != mcpconn.ToolKept {
			r.Status = names.StatusSkipped
		}
		results = append(results, r)
	}
	for i, r := range names.WithCollisions(results) {
		if len(r.Diagnostics) > 0 {
			d.Tools[i].Diagnostics = r.Diagnostics
		}
	}
	return d
}

const forecastSchema = `{"type":"object","properties":{"city":{"type":"string","description":"City name"},"days":{"type":"integer","default":2},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}`

// demoSpecs are the fake workspace's servers.
func demoSpecs() (weather, catalog, broken mcpconn.ServerSpec) {
	weather = mcpconn.ServerSpec{Name: "weather", Transport: mcpconn.TransportStdio, Command: "crewbench", Args: []string{"fixture", "weather"},
		Env:    map[string]string{"API_KEY": "sk-live-secret-value-123", "LOG_LEVEL": "warn"},
		Filter: mcpconn.FilterSpec{Allowed: []string{"get_forecast"}}}
	catalog = mcpconn.ServerSpec{Name: "catalog", Transport: mcpconn.TransportHTTP, URL: "https://mcp.example.com/mcp?token=abc123secret",
		Headers: map[string]string{"Authorization": "Bearer sk-very-secret"}}
	broken = mcpconn.ServerSpec{Name: "broken", Transport: mcpconn.TransportStdio, Command: "python", Args: []string{"servers/broken.py"}}
	return
}

// fakeStatuses is a settled pool: two ready servers and a failed one.
func fakeStatuses() []mcpconn.ServerStatus {
	weather, catalog, _ := demoSpecs()
	wd := fakeDiscovery(weather,
		fakeTool{name: "getAlerts", desc: "Active weather alerts for a region.", status: mcpconn.ToolFiltered, reason: "filtered: not in allowed_tool_names [get_forecast]"},
		fakeTool{name: "getForecast", desc: "Forecast for a city.", schema: forecastSchema, reason: "kept: in allowed_tool_names"},
	)
	cd := fakeDiscovery(catalog,
		fakeTool{name: "search_catalog", desc: "Search the catalog.", schema: `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`},
		fakeTool{name: "list_all_open_purchase_orders_for_every_supplier_in_the_northern_sales_region_v2", desc: "Open orders."},
		fakeTool{name: "get-forecast", desc: "Also a forecast."},
		fakeTool{name: "get_forecast", desc: "Yet another forecast."},
	)
	return []mcpconn.ServerStatus{
		{Name: "weather", State: mcpconn.StateReady, Discovery: wd},
		{Name: "catalog", State: mcpconn.StateReady, Discovery: cd},
		{Name: "broken", State: mcpconn.StateFailed, Class: session.OutcomeSpawnFailed,
			Error: "spawn python: exec: \"python\": executable file not found in $PATH"},
	}
}

func fakeWorkspace() Workspace {
	weather, catalog, broken := demoSpecs()
	return Workspace{
		Name: "demo", LLM: "scripted:script.yaml", Opened: "crewbench.yaml",
		Servers: []ServerEntry{
			{Spec: weather, Source: "agents/forecaster.jsonc mcps[0]", Agents: []string{"forecaster"}},
			{Spec: catalog, Source: "agents/forecaster.jsonc mcps[1]", Agents: []string{"forecaster"}},
			{Spec: broken, Source: "agents/writer.jsonc mcps[0]", Agents: []string{"writer"}},
		},
		Agents: []AgentEntry{
			{Name: "forecaster", Role: "Weekend Forecaster", Servers: []string{"weather", "catalog"}},
			{Name: "writer", Role: "Travel Brief Writer", Servers: []string{"broken"}},
		},
	}
}

// fakePool is a settled pool.
type fakePool struct {
	mu       sync.Mutex
	statuses []mcpconn.ServerStatus
	closed   int
}

func (p *fakePool) Connect(context.Context, ...mcpconn.ServerSpec) error { return nil }
func (p *fakePool) Status() []mcpconn.ServerStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.statuses
}
func (p *fakePool) Reconnect(context.Context, string) error { return nil }
func (p *fakePool) Ping(context.Context, string, time.Duration) (time.Duration, error) {
	return 3 * time.Millisecond, nil
}
func (p *fakePool) Close() error {
	p.mu.Lock()
	p.closed++
	p.mu.Unlock()
	return nil
}

func testDeps() Deps {
	return Deps{
		Ctx: context.Background(), Workspace: fakeWorkspace(), Pool: &fakePool{statuses: fakeStatuses()},
		Palette: themes.Dark(), Now: clock, Environ: []string{"HOME=/home/user", "PATH=/usr/bin", "SECRET_TOKEN=zzz", "USER=user"},
	}
}

// settled returns the app at w×h with the fake pool's snapshot applied
// (Init's commands are not run: pane tests drive the model directly).
func settled(t testing.TB, deps Deps, w, h int) Model {
	t.Helper()
	m := New(deps)
	m = step(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = step(t, m, connectDoneMsg{})
	m = step(t, m, statusMsg(deps.Pool.Status()))
	return m
}

// step sends one message and returns the new model; commands are dropped.
func step(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	nm, _ := m.Update(msg)
	return nm.(Model)
}

// stepRun sends one message and runs the returned command chain up to
// depth levels, feeding results back (for commands that finish at once).
func stepRun(t testing.TB, m Model, msg tea.Msg, depth int) Model {
	t.Helper()
	nm, cmd := m.Update(msg)
	m = nm.(Model)
	for _, r := range runCmd(t, cmd, depth) {
		m = stepRun(t, m, r, depth-1)
	}
	return m
}

// cmdDeadline is how long runCmd waits for one command. It is a deadline
// for a hang, not a timing assumption: on a busy machine a command that
// finishes at once may still take a while to be scheduled.
const cmdDeadline = time.Minute

// clockCmds are the commands that wait on a clock by design: the cursor's
// blink and tea.Tick (a notice's lifetime, the Try call's spinner). runCmd
// does not run them; a test that needs their message sends it itself.
var clockCmds = []string{
	"github.com/charmbracelet/bubbles/cursor.(*Model).BlinkCmd.",
	"github.com/charmbracelet/bubbletea.Tick.",
	"github.com/charmbracelet/bubbletea.Every.",
}

// cmdName is the name of the function behind cmd, as the runtime knows it
// (e.g. crewbench/ui.(*filterPane).recompute.applyFilter.func1).
func cmdName(cmd tea.Cmd) string {
	if f := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()); f != nil {
		return f.Name()
	}
	return fmt.Sprintf("%T", cmd)
}

// runCmd runs cmd, and the commands of the batches it returns, and returns
// their messages; depth limits nothing here (stepRun counts it down) but 0
// runs nothing. Clock commands (clockCmds) are left out; any other command
// must finish within cmdDeadline, or the test fails naming it.
func runCmd(t testing.TB, cmd tea.Cmd, depth int) []tea.Msg {
	t.Helper()
	if cmd == nil || depth <= 0 {
		return nil
	}
	name := cmdName(cmd)
	for _, c := range clockCmds {
		if strings.HasPrefix(name, c) {
			return nil
		}
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(cmdDeadline):
		t.Fatalf("command %s returned no message within %s (if it waits on a clock by design, add it to clockCmds)", name, cmdDeadline)
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(t, c, depth)...)
		}
		return out
	case nil:
		return nil
	}
	return []tea.Msg{msg}
}

func keyRunes(s string) tea.KeyMsg     { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
func keyType(k tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: k} }

// typeText sends each rune as its own key press.
func typeText(t testing.TB, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		m = step(t, m, keyRunes(string(r)))
	}
	return m
}

// requireBox fails unless every line of s is exactly w cells and there
// are exactly h lines.
func requireBox(t testing.TB, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), h, s)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Fatalf("line %d is %d cells, want %d: %q", i+1, n, w, l)
		}
	}
}
