package ui

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"crewbench/crew"
	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
	"crewbench/names"
	"crewbench/session"
	"crewbench/themes"
)

// --- servers ---------------------------------------------------------------

func TestServersPane_StatesIntentsAndRedaction(t *testing.T) {
	m := settled(t, testDeps(), 100, 30)
	v := ansi.Strip(m.View())
	for _, want := range []string{"● weather", "● catalog", "✕ broken", "failed (spawn_failed)", "servers 2/3 ready", "✕ 1 failed"} {
		if !strings.Contains(v, want) {
			t.Errorf("servers view lacks %q:\n%s", want, v)
		}
	}
	// enter asks the root for the server's tools; the root scopes the list.
	_, cmd := m.servers.Update(keyType(tea.KeyEnter))
	if msg, ok := cmd().(showToolsMsg); !ok || msg.server != "weather" {
		t.Fatalf("enter = %#v, want showToolsMsg{weather}", cmd())
	}
	m = stepRun(t, m, keyType(tea.KeyEnter), 2)
	if m.view != viewTools || m.tools.sc.name != "weather" || len(m.tools.visible) != 2 {
		t.Fatalf("view %v scope %+v visible %d", m.view, m.tools.sc, len(m.tools.visible))
	}

	// The environment a stdio server gets: CrewAI's inherited variables
	// plus the spec's env, secrets redacted, nothing else from the parent.
	m = settled(t, testDeps(), 100, 30)
	m = step(t, m, keyRunes("v"))
	env := ansi.Strip(m.View())
	for _, want := range []string{"HOME=/home/user", "PATH=/usr/bin", "USER=user", "LOG_LEVEL=warn", "API_KEY="} {
		if !strings.Contains(env, want) {
			t.Errorf("env view lacks %q:\n%s", want, env)
		}
	}
	for _, leak := range []string{"sk-live-secret-value-123", "SECRET_TOKEN", "zzz"} {
		if strings.Contains(env, leak) {
			t.Errorf("env view leaks %q", leak)
		}
	}
	// The HTTP server's URL token and Authorization header are redacted.
	m = step(t, m, keyRunes("j"))
	for _, sec := range []sectionCase{{0, "info"}, {1, "environment"}} {
		m.servers.section = serverSection(sec.i)
		v := ansi.Strip(m.View())
		if strings.Contains(v, "abc123secret") || strings.Contains(v, "sk-very-secret") {
			t.Errorf("%s section leaks a secret:\n%s", sec.name, v)
		}
	}
}

// The Servers detail says whose wire the server's policy speaks: CrewAI's
// SDK exactly under CrewAI's policies, crewbench's conveniences under its
// own session policy.
func TestServersPane_WireNote(t *testing.T) {
	cases := []struct {
		policy mcpconn.Policy
		want   string
	}{
		{"", "CrewAI's MCP SDK wire"},
		{mcpconn.PolicyAdapter, "CrewAI's MCP SDK wire"},
		{mcpconn.PolicySession, "crewbench's wire (session policy)"},
	}
	for _, c := range cases {
		deps := testDeps()
		deps.Workspace.Servers[0].Spec.Policy = c.policy
		v := ansi.Strip(settled(t, deps, 160, 48).View())
		if !strings.Contains(v, "wire         "+c.want) {
			t.Errorf("policy %q: the detail lacks %q:\n%s", c.policy, c.want, v)
		}
	}
}

type sectionCase struct {
	i    int
	name string
}

func TestServerData_AbsorbKeepsStderrAndLogsPerServer(t *testing.T) {
	d := newServerData(fakeWorkspace().Servers)
	changed := d.absorb([]session.Event{
		{Kind: session.MCPStderr, Server: "weather", Data: map[string]any{session.KeyLine: "warming up"}},
		{Kind: session.MCPNotification, Server: "weather", Data: map[string]any{"kind": "progress", "progress": 1, "total": 4, "message": "step 1"}},
		{Kind: session.MCPNotification, Server: "weather", Data: map[string]any{"kind": "logging", "level": "info", "data": "ready"}},
	})
	if changed {
		t.Error("stderr and notifications must not reload the pool snapshot")
	}
	if got := d.stderr["weather"].last(5); len(got) != 1 || got[0] != "warming up" {
		t.Errorf("stderr = %q", got)
	}
	logs := strings.Join(d.logs["weather"].last(5), "\n")
	if !strings.Contains(logs, "progress 1/4 step 1") || !strings.Contains(logs, "log [info] ready") {
		t.Errorf("logs = %q", logs)
	}
	if !d.absorb([]session.Event{{Kind: session.MCPServerState, Server: "weather", Data: map[string]any{"state": "ready"}}}) {
		t.Error("a state change must reload the snapshot")
	}
	// Servers the pool knows but the workspace did not declare are listed too.
	d.setStatus([]mcpconn.ServerStatus{{Name: "adhoc", State: mcpconn.StateConnecting}})
	if d.order[len(d.order)-1] != "adhoc" {
		t.Errorf("order = %v", d.order)
	}
}

func TestRing(t *testing.T) {
	r := newRing(3)
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		r.add(s)
	}
	if got := strings.Join(r.last(10), ""); got != "cde" {
		t.Errorf("last = %q, want cde", got)
	}
	if got := strings.Join(r.last(2), ""); got != "de" {
		t.Errorf("last(2) = %q", got)
	}
	if r.total != 5 {
		t.Errorf("total = %d", r.total)
	}
	var nilRing *ring
	if nilRing.last(3) != nil {
		t.Error("nil ring")
	}
}

// --- tools -----------------------------------------------------------------

func toolsModel(t *testing.T) Model {
	m := settled(t, testDeps(), 120, 30)
	return step(t, m, keyRunes("2"))
}

func visibleNames(p toolsPane) []string {
	var out []string
	for _, v := range p.visible {
		out = append(out, p.rows[v.row].tool.Name)
	}
	return out
}

func TestToolsPane_FuzzySearchMatchesBothNamesAndHighlights(t *testing.T) {
	for _, tc := range []struct {
		query   string
		want    string // must be first
		inOrig  bool
		inLLM   bool
		minRows int
	}{
		{"getForecast", "getForecast", true, true, 1},       // the original camelCase name (and, fuzzily, get_forecast)
		{"weather_get_fore", "getForecast", false, true, 1}, // only the LLM name has it
		{"purchase", "list_all_open_purchase_orders_for_every_supplier_in_the_northern_sales_region_v2", true, true, 1},
	} {
		t.Run(tc.query, func(t *testing.T) {
			m := toolsModel(t)
			m = step(t, m, keyRunes("/"))
			if !m.capturing() {
				t.Fatal("/ must open the search field")
			}
			m = typeText(t, m, tc.query)
			p := m.tools
			if len(p.visible) < tc.minRows {
				t.Fatalf("no match for %q", tc.query)
			}
			top := p.visible[0]
			if got := p.rows[top.row].tool.Name; got != tc.want {
				t.Fatalf("first match %q, want %q (all: %v)", got, tc.want, visibleNames(p))
			}
			if (len(top.origIdx) > 0) != tc.inOrig || (len(top.llmIdx) > 0) != tc.inLLM {
				t.Errorf("matched orig=%v llm=%v, want %v %v", top.origIdx, top.llmIdx, tc.inOrig, tc.inLLM)
			}
			// enter keeps the query and gives keys back to the list
			m = step(t, m, keyType(tea.KeyEnter))
			if m.capturing() || m.tools.query != tc.query {
				t.Errorf("after enter: capturing %v query %q", m.capturing(), m.tools.query)
			}
		})
	}
	// esc clears the search
	m := toolsModel(t)
	m = step(t, m, keyRunes("/"))
	m = typeText(t, m, "zzzz")
	if len(m.tools.visible) != 0 {
		t.Fatalf("zzzz matched %v", visibleNames(m.tools))
	}
	if !strings.Contains(m.View(), "no match") {
		t.Error("an empty result must say so")
	}
	m = step(t, m, keyType(tea.KeyEsc))
	if len(m.tools.visible) != 6 || m.capturing() {
		t.Fatalf("esc must clear the search (visible %d)", len(m.tools.visible))
	}
}

func TestHighlightMarksMatchedBytes(t *testing.T) {
	st := NewStyles(testDeps().Palette)
	base := st.Row.Normal
	hi := st.Row.Match.SetString("")
	out := highlight("getForecast", []int{0, 3}, base, hi.Bold(true).Underline(true))
	if ansi.Strip(out) != "getForecast" {
		t.Fatalf("highlight changed the text: %q", ansi.Strip(out))
	}
	// Multibyte names keep their runes whole.
	if got := ansi.Strip(highlight("天气x", []int{3}, base, hi)); got != "天气x" {
		t.Errorf("got %q", got)
	}
}

func TestToolsPane_SortScopeAndDetail(t *testing.T) {
	m := toolsModel(t)
	if got := visibleNames(m.tools)[0]; got != "getAlerts" {
		t.Fatalf("default order starts with %q", got)
	}
	m = step(t, m, keyRunes("o")) // original name
	if got := visibleNames(m.tools)[0]; got != "get-forecast" {
		t.Errorf("sorted by original: first %q (%v)", got, visibleNames(m.tools))
	}
	m = step(t, m, keyRunes("o")) // LLM name
	m = step(t, m, keyRunes("o")) // status: filtered last
	vn := visibleNames(m.tools)
	if vn[len(vn)-1] != "getAlerts" {
		t.Errorf("sorted by status: last %q", vn[len(vn)-1])
	}
	m = step(t, m, keyRunes("a")) // scope: server weather
	if m.tools.sc.kind != 1 || len(m.tools.visible) != 2 {
		t.Fatalf("scope %+v visible %d", m.tools.sc, len(m.tools.visible))
	}
	m = step(t, m, keyRunes("a")) // server catalog
	m = step(t, m, keyRunes("a")) // agent forecaster: weather + catalog
	if m.tools.sc.kind != 2 || m.tools.sc.name != "forecaster" || len(m.tools.visible) != 6 {
		t.Fatalf("agent scope %+v visible %d", m.tools.sc, len(m.tools.visible))
	}

	// Detail: derivation, lossless schema, scheme switch.
	m = toolsModel(t)
	m = step(t, m, keyRunes("j"))
	m = step(t, m, keyType(tea.KeyEnter))
	if !m.tools.detailOpen {
		t.Fatal("enter must open the detail")
	}
	content := ansi.Strip(toolDetail(m.st, m.tools.rows[1].spec, "weather", m.tools.rows[1].tool, names.SchemeCrewAI, 200))
	for _, want := range []string{"crewbench_fixture_weather_get_forecast", "split camelCase", `"enum": [`, `"default": 2`, "Forecast for a city."} {
		if !strings.Contains(content, want) {
			t.Errorf("detail lacks %q:\n%s", want, content)
		}
	}
	// The schema is shown in the server's own key order.
	if strings.Index(content, `"city"`) > strings.Index(content, `"days"`) || strings.Index(content, `"days"`) > strings.Index(content, `"units"`) {
		t.Error("schema keys reordered")
	}
	m = step(t, m, keyRunes("n")) // adapter
	m = step(t, m, keyRunes("n")) // claude-code
	cc := ansi.Strip(toolDetail(m.st, m.tools.rows[1].spec, "weather", m.tools.rows[1].tool, names.Schemes()[m.tools.scheme], 200))
	if !strings.Contains(cc, "mcp__weather__getForecast") {
		t.Errorf("claude-code scheme detail lacks mcp__weather__getForecast:\n%s", cc)
	}
	m = step(t, m, keyType(tea.KeyEsc))
	if m.tools.detailOpen {
		t.Error("esc must close the detail")
	}
	// t asks to try the tool
	_, cmd := m.tools.Update(keyRunes("t"))
	if msg, ok := cmd().(showTryMsg); !ok || msg.tool != "getForecast" {
		t.Errorf("t = %#v", cmd())
	}
}

// --- filter playground -----------------------------------------------------

func filterModel(t *testing.T) Model {
	m := settled(t, testDeps(), 100, 30)
	return stepRun(t, m, showFilterMsg{server: "weather"}, 2)
}

func verdictsOf(p filterPane) map[string]bool {
	out := map[string]bool{}
	for i, tl := range p.tools {
		if v, ok := p.verdictFor(i); ok {
			out[tl.Name] = v.Kept
		}
	}
	return out
}

func TestFilterPane_UpdatesOnEveryKeystrokeWithCamelCaseHint(t *testing.T) {
	m := filterModel(t)
	if m.view != viewFilter || m.filter.server != "weather" {
		t.Fatalf("view %v server %q", m.view, m.filter.server)
	}
	// The declared filter (allowed: get_forecast) is the starting point.
	if v := verdictsOf(m.filter); !v["getForecast"] || v["getAlerts"] {
		t.Fatalf("initial verdicts %v", v)
	}
	m = step(t, m, keyRunes("e"))
	if !m.capturing() {
		t.Fatal("e must start editing")
	}
	m = step(t, m, tea.KeyMsg{Type: tea.KeyCtrlU})
	gens := m.filter.gen
	for _, r := range "getForecast" {
		m = stepRun(t, m, keyRunes(string(r)), 2)
	}
	if m.filter.gen-gens != len("getForecast") {
		t.Errorf("evaluations = %d, want one per keystroke (%d)", m.filter.gen-gens, len("getForecast"))
	}
	if v := verdictsOf(m.filter); v["getForecast"] || v["getAlerts"] {
		t.Fatalf("camelCase entry must keep nothing: %v", v)
	}
	if !filter.KeepsNothing(m.filter.hints) || !m.filter.hasSuggestions() {
		t.Fatalf("hints = %+v", m.filter.hints)
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "keeps 0 of 2") || !strings.Contains(view, "did you mean") {
		t.Errorf("view:\n%s", view)
	}
	// esc, then F applies the suggestion: back to get_forecast.
	m = step(t, m, keyType(tea.KeyEsc))
	m = stepRun(t, m, keyRunes("F"), 2)
	if got := m.filter.fields[fieldAllowed].Value(); got != "get_forecast" {
		t.Errorf("after F allowed = %q", got)
	}
	if v := verdictsOf(m.filter); !v["getForecast"] {
		t.Errorf("after F verdicts %v", v)
	}

	// A CEL expression that does not compile says where.
	m = step(t, m, keyRunes("e"))
	m = step(t, m, keyType(tea.KeyTab))
	m = step(t, m, keyType(tea.KeyTab))
	for _, r := range "tool.nmae == 'x'" {
		m = stepRun(t, m, keyRunes(string(r)), 2)
	}
	if m.filter.err == nil || !strings.Contains(ansi.Strip(m.View()), "does not compile") {
		t.Errorf("err = %v", m.filter.err)
	}
}

func TestFilterPane_StaleResultsAreIgnored(t *testing.T) {
	m := filterModel(t)
	gen := m.filter.gen
	m.filter.gen++ // the user typed again
	m = step(t, m, filterResultMsg{gen: gen, server: "weather", verdicts: []filter.Verdict{{Kept: false}, {Kept: false}}})
	if v := verdictsOf(m.filter); !v["getForecast"] {
		t.Errorf("a stale result overwrote the verdicts: %v", v)
	}
}

func TestFilterFragment(t *testing.T) {
	fs := mcpconn.FilterSpec{Allowed: []string{"get_forecast"}, Blocked: []string{"write_file"}, Expr: `tool.name != "x"`}
	j := filterFragment(ExportMCPSJSON, fs)
	if !strings.Contains(j, `"tool_filter": {"type": "static", "allowed_tool_names": ["get_forecast"], "blocked_tool_names": ["write_file"]}`) {
		t.Errorf("json:\n%s", j)
	}
	py := filterFragment(ExportPython, fs)
	if !strings.Contains(py, `create_static_tool_filter(`) || !strings.Contains(py, `allowed_tool_names=["get_forecast"]`) {
		t.Errorf("python:\n%s", py)
	}
	if !strings.Contains(j, "Python callable") {
		t.Error("a CEL expression must be explained, not silently dropped")
	}
	if got := filterFragment(ExportPython, mcpconn.FilterSpec{}); !strings.Contains(got, "every tool is kept") {
		t.Errorf("empty: %s", got)
	}
}

// fakeExporter records what the playground asks.
type fakeExporter struct{ applied *WritePlan }

func (e *fakeExporter) Render(_ context.Context, f ExportFormat, req ExportRequest) (string, error) {
	return string(f) + " for " + req.Server + " " + strings.Join(req.Filter.Allowed, ","), nil
}
func (e *fakeExporter) Plan(_ context.Context, req ExportRequest) (WritePlan, error) {
	return WritePlan{File: "agents/forecaster.jsonc", Diff: "--- a\n+++ b\n-  \"x\"\n+  \"get_forecast\""}, nil
}
func (e *fakeExporter) Apply(_ context.Context, p WritePlan) (string, error) {
	e.applied = &p
	return "agents/forecaster.jsonc.bak", nil
}

func TestFilterPane_ExportThroughTheHook(t *testing.T) {
	deps := testDeps()
	ex := &fakeExporter{}
	deps.Exporter = ex
	m := settled(t, deps, 100, 30)
	m = stepRun(t, m, showFilterMsg{server: "weather"}, 2)
	m = stepRun(t, m, keyRunes("x"), 2)
	if !strings.Contains(m.filter.exportText, "mcps-json for weather get_forecast") {
		t.Errorf("export = %q", m.filter.exportText)
	}
	m = stepRun(t, m, keyRunes("w"), 2)
	if m.filter.plan == nil || !strings.Contains(ansi.Strip(m.View()), "+  \"get_forecast\"") {
		t.Fatalf("the diff must be shown before writing:\n%s", ansi.Strip(m.View()))
	}
	if ex.applied != nil {
		t.Fatal("written before confirmation")
	}
	m = stepRun(t, m, keyRunes("y"), 2)
	if ex.applied == nil || !strings.Contains(m.notice.text, ".bak") {
		t.Errorf("applied %v notice %q", ex.applied, m.notice.text)
	}
}

// --- try a tool --------------------------------------------------------------

func TestTryPane_FormRunTimelineAndCommand(t *testing.T) {
	deps := testDeps()
	deps.Caller = fakeCaller{}
	m := settled(t, deps, 120, 40)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	if m.view != viewTry || len(m.try.fields) != 3 {
		t.Fatalf("view %v fields %d", m.view, len(m.try.fields))
	}
	// city is required: under CrewAI's policy running without it is
	// CrewAI's refusal, and nothing is called.
	m = stepRun(t, m, keyRunes("r"), 1)
	if m.try.running || !strings.Contains(m.notice.text, "CrewAI would refuse") ||
		m.try.result == nil || !strings.Contains(m.try.result.Text, "city\n  Field required") {
		t.Fatalf("running=%v notice %q result %+v", m.try.running, m.notice.text, m.try.result)
	}
	m = step(t, m, keyType(tea.KeyEnter))
	m = typeText(t, m, "Lisbon")
	m = step(t, m, keyType(tea.KeyEnter))
	m = step(t, m, keyRunes("j")) // days (default 2)
	m = step(t, m, keyRunes("j")) // units
	m = step(t, m, keyRunes(" ")) // metric
	args, err := m.try.args()
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonLine(args); got != `{"city":"Lisbon","days":2,"units":"metric"}` {
		t.Fatalf("args = %s", got)
	}
	m = runTryCall(t, m)
	if m.try.running || m.try.result == nil {
		t.Fatal("the call did not finish")
	}
	out := ansi.Strip(strings.Join(m.try.timeline, "\n"))
	for _, want := range []string{"spawned pid 4242", "✕ attempt 1/3 timeout", "↻ retrying in 1s", "↻ retrying in 2s", "✓ attempt 3/3 ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q:\n%s", want, out)
		}
	}
	res := ansi.Strip(strings.Join(append(m.try.verdictLines(m.try.result), m.try.contentLines(m.try.result)...), "\n"))
	if !strings.Contains(res, "\"temp\": 24") || !strings.Contains(res, "[image image/png, 2.0 KB — not shown]") {
		t.Errorf("result:\n%s", res)
	}
	want := `crewbench call --stdio 'crewbench fixture weather' --env "API_KEY=$API_KEY" --env LOG_LEVEL=warn getForecast --args '{"city":"Lisbon","days":2,"units":"metric"}'`
	if got := m.try.callCommand(); got != want {
		t.Errorf("command\n got %s\nwant %s", got, want)
	}
}

func TestTryPane_PolicyTimeoutsAndRawJSON(t *testing.T) {
	deps := testDeps()
	deps.Caller = fakeCaller{}
	m := settled(t, deps, 120, 40)
	m = step(t, m, showTryMsg{server: "catalog", tool: "search_catalog"})
	m = step(t, m, keyRunes("p")) // native
	m = step(t, m, keyRunes("p")) // https-string
	for i := 0; i < 2; i++ {
		m = step(t, m, keyRunes("j"))
	}
	m = step(t, m, keyType(tea.KeyEnter)) // call timeout
	m = typeText(t, m, "2s")
	m = step(t, m, keyType(tea.KeyTab)) // attempts
	m = typeText(t, m, "5")
	m = step(t, m, keyType(tea.KeyEsc))
	spec, err := m.try.callSpec()
	if err != nil {
		t.Fatal(err)
	}
	if spec.Policy != mcpconn.PolicyHTTPSString || spec.Timeouts.Call != 2*time.Second || spec.Timeouts.Attempts != 5 {
		t.Errorf("spec policy %s timeouts %+v", spec.Policy, spec.Timeouts)
	}
	cmd := m.try.callCommand()
	for _, want := range []string{"--url 'https://mcp.example.com/mcp?token=", "--policy https-string", "--timeout 2s", "--attempts 5", "--header 'Authorization=Bearer"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command lacks %q: %s", want, cmd)
		}
	}
	for _, leak := range []string{"abc123secret", "sk-very-secret"} {
		if strings.Contains(cmd, leak) {
			t.Errorf("command leaks %q: %s", leak, cmd)
		}
	}
	// Raw JSON mode: edits flow back into the form.
	m = step(t, m, keyRunes("J"))
	if !m.try.raw {
		t.Fatal("J must switch to raw JSON")
	}
	m.try.rawText.SetValue(`{"query": "boots"}`)
	m = step(t, m, keyRunes("J"))
	if m.try.raw || m.try.fields[0].input.Value() != "boots" {
		t.Errorf("raw → form: raw=%v query=%q", m.try.raw, m.try.fields[0].input.Value())
	}
	// An invalid duration is refused with the field's name.
	m.try.settings[setCall].SetValue("soon")
	if _, err := m.try.callSpec(); err == nil || !strings.Contains(err.Error(), "call timeout") {
		t.Errorf("err = %v", err)
	}
}

// --- schema forms ------------------------------------------------------------

func TestBuildForm(t *testing.T) {
	st := NewStyles(testDeps().Palette)
	for _, tc := range []struct {
		name   string
		schema string
		labels []string
		kinds  []fieldKind
		req    []bool
	}{
		{"scalars in schema order", `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"},"m":{"type":"integer"},"b":{"type":"boolean"}},"required":["a"]}`,
			[]string{"z", "a", "m", "b"}, []fieldKind{kindString, kindNumber, kindInteger, kindBool}, []bool{false, true, false, false}},
		{"enum and arrays", `{"type":"object","properties":{"u":{"enum":["c","f"]},"tags":{"type":"array","items":{"type":"string"}},"pts":{"type":"array","items":{"type":"object"}}}}`,
			[]string{"u", "tags", "pts"}, []fieldKind{kindEnum, kindArray, kindJSON}, []bool{false, false, false}},
		{"nested objects flatten", `{"type":"object","properties":{"loc":{"type":"object","properties":{"city":{"type":"string"},"geo":{"type":"object","properties":{"lat":{"type":"number"}},"required":["lat"]}},"required":["city"]}}}`,
			[]string{"loc.city", "loc.geo.lat"}, []fieldKind{kindString, kindNumber}, []bool{true, true}},
		{"nullable anyOf collapses", `{"type":"object","properties":{"n":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null}}}`,
			[]string{"n"}, []fieldKind{kindInteger}, []bool{false}},
		{"type list with null", `{"type":"object","properties":{"s":{"type":["string","null"]}}}`,
			[]string{"s"}, []fieldKind{kindString}, []bool{false}},
		{"no properties", `{"type":"object"}`, nil, nil, nil},
		{"free-form object property", `{"type":"object","properties":{"meta":{"type":"object"}}}`, []string{"meta"}, []fieldKind{kindJSON}, []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := buildForm(json.RawMessage(tc.schema), st)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != len(tc.labels) {
				t.Fatalf("got %d fields, want %d", len(fs), len(tc.labels))
			}
			for i, f := range fs {
				if f.label != tc.labels[i] || f.kind != tc.kinds[i] || f.required != tc.req[i] {
					t.Errorf("field %d = %s/%s/%v, want %s/%s/%v", i, f.label, kindNames[f.kind], f.required, tc.labels[i], kindNames[tc.kinds[i]], tc.req[i])
				}
			}
		})
	}
}

func TestFormArgsConvertsAndValidates(t *testing.T) {
	st := NewStyles(testDeps().Palette)
	fs, err := buildForm(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number","default":1.5},"ok":{"type":"boolean"},"tags":{"type":"array","items":{"type":"integer"}},"loc":{"type":"object","properties":{"city":{"type":"string"}}},"raw":{}},"required":["n"]}`), st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := formArgs(fs); err == nil || !strings.Contains(err.Error(), "n is required") {
		t.Fatalf("err = %v", err)
	}
	fs[0].input.SetValue("12345678901234567890x")
	if _, err := formArgs(fs); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Fatalf("err = %v", err)
	}
	fs[0].input.SetValue("12345678901234567")
	fs[2].boolVal = 2
	fs[3].input.SetValue("1, 2,3")
	fs[4].input.SetValue("Porto")
	fs[5].input.SetValue(`{"k": [1, null]}`)
	args, err := formArgs(fs)
	if err != nil {
		t.Fatal(err)
	}
	// Large integers stay exact (json.Number), defaults are filled.
	if got := jsonLine(args); got != `{"loc":{"city":"Porto"},"n":12345678901234567,"ok":false,"raw":{"k":[1,null]},"tags":[1,2,3],"x":1.5}` {
		t.Errorf("args = %s", got)
	}
	// And back: raw JSON fills the form.
	fillForm(fs, map[string]any{"n": json.Number("7"), "loc": map[string]any{"city": "Faro"}, "tags": []any{json.Number("4")}})
	if fs[0].input.Value() != "7" || fs[4].input.Value() != "Faro" || fs[3].input.Value() != "4" || fs[2].boolVal != 0 {
		t.Errorf("fill: %q %q %q %d", fs[0].input.Value(), fs[4].input.Value(), fs[3].input.Value(), fs[2].boolVal)
	}
}

func FuzzBuildForm(f *testing.F) {
	for _, s := range []string{forecastSchema, `{"type":"object","properties":{"a":{"anyOf":[{"type":"null"},{"type":"string"}]}}}`, `[]`, `{"properties":1}`, `{"type":["object"],"properties":{"x":{"type":"array","items":true}}}`} {
		f.Add(s)
	}
	st := NewStyles(testDeps().Palette)
	f.Fuzz(func(t *testing.T, schema string) {
		fs, err := buildForm(json.RawMessage(schema), st)
		if err != nil {
			return
		}
		_, _ = formArgs(fs) // must not panic
		fillForm(fs, map[string]any{"a": "b"})
	})
}

// --- trace -------------------------------------------------------------------

func tracePaneWith(t testing.TB, w, h int, evs []session.Event) tracePane {
	st := NewStyles(testDeps().Palette)
	p := newTracePane(st, DefaultKeyMap(), clock, session.DefaultRedactor)
	p.SetSize(w, h)
	p.Focus()
	p.Append(evs...)
	return p
}

func TestTracePane_FollowsTailUntilUserScrolls(t *testing.T) {
	evs := traceEvents("r")
	p := tracePaneWith(t, 80, 12, evs[:10])
	if !p.follow || p.cursor != len(p.rows)-1 {
		t.Fatalf("cursor=%d/%d follow=%v", p.cursor, len(p.rows), p.follow)
	}
	p, _ = p.Update(keyRunes("k"))
	at := p.cursorNode()
	p.Append(evs[10:]...)
	if p.follow || p.cursorNode() != at {
		t.Fatalf("scrolling up must stop following and keep the node (follow=%v)", p.follow)
	}
	p, _ = p.Update(keyRunes("G"))
	if !p.follow {
		t.Fatal("G must follow again")
	}
}

func TestTracePane_CollapseExpandFilterAndBanner(t *testing.T) {
	p := tracePaneWith(t, 100, 30, traceEvents("r"))
	all := len(p.rows)
	if all != 15 {
		t.Fatalf("rows = %d", all)
	}
	p, _ = p.Update(keyRunes("g")) // crew
	p, _ = p.Update(keyRunes("h")) // collapse
	if len(p.rows) != 1 {
		t.Fatalf("collapsed crew shows %d rows", len(p.rows))
	}
	p, _ = p.Update(keyRunes("l"))
	if len(p.rows) != all {
		t.Fatalf("expanded shows %d rows", len(p.rows))
	}
	p, _ = p.Update(keyRunes("S")) // failed only (with ancestors)
	for _, r := range p.rows {
		if r.n.Status != session.StatusFailed && !hasFailedDescendant(r.n) {
			t.Errorf("status filter shows %s (%s)", r.n.Title, r.n.Status)
		}
	}
	p, _ = p.Update(keyRunes("S"))
	p, _ = p.Update(keyRunes("S"))
	p, _ = p.Update(keyRunes("S")) // back to any
	p, _ = p.Update(keyRunes("t")) // LLM calls
	llm := 0
	for _, r := range p.rows {
		if r.n.Kind == session.NodeLLM {
			llm++
		}
	}
	if llm != 2 {
		t.Errorf("LLM filter rows %d", llm)
	}
	b := p.banner()
	if !strings.Contains(b, "FINISHED WITH 1 TOOL FAILURE") || !strings.Contains(b, "slow_report") {
		t.Errorf("banner = %q", b)
	}
	// enter shows the node's payload, redacted.
	p, _ = p.Update(keyRunes("t"))
	p, _ = p.Update(keyRunes("t"))
	p, _ = p.Update(keyRunes("t"))
	p, _ = p.Update(keyRunes("t")) // all
	p, _ = p.Update(keyRunes("G"))
	p, _ = p.Update(keyType(tea.KeyEnter))
	if !p.payloadOpen || !strings.Contains(ansi.Strip(p.View()), "crewbench_mcp_attempt_finished") {
		t.Errorf("payload:\n%s", ansi.Strip(p.View()))
	}
}

func hasFailedDescendant(n *session.Node) bool {
	for _, c := range n.Children {
		if c.Status == session.StatusFailed || hasFailedDescendant(c) {
			return true
		}
	}
	return false
}

func TestTracePane_ViewRendersOnlyVisibleRows(t *testing.T) {
	p := tracePaneWith(t, 80, 20, bigTrace(5000))
	v := p.View()
	requireBox(t, v, 80, 20)
	if p.offset == 0 {
		t.Error("following the tail must scroll")
	}
}

func TestTracePane_PauseDecisions(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []tea.KeyMsg
		want crew.Action
		args string
	}{
		{"continue", []tea.KeyMsg{keyRunes("c")}, crew.Continue, ""},
		{"step", []tea.KeyMsg{keyRunes("s")}, crew.Step, ""},
		{"abort", []tea.KeyMsg{keyRunes("X")}, crew.Abort, ""},
		{"skip", append([]tea.KeyMsg{keyRunes("u")}, append(runeKeys("canned"), keyType(tea.KeyEnter))...), crew.Skip, ""},
		{"edit args", []tea.KeyMsg{keyRunes("e"), tea.KeyMsg{Type: tea.KeyCtrlS}}, crew.EditArgs, `{"city": "Lisbon"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := NewStyles(testDeps().Palette)
			p := newTracePane(st, DefaultKeyMap(), clock, session.DefaultRedactor)
			p.SetSize(100, 30)
			stepper := crew.NewChanStepper(crew.Breakpoints{Every: true})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p.run = &activeRun{gen: 1, stepper: stepper, ctx: ctx, cancel: cancel}
			got := make(chan crew.Decision, 1)
			go func() {
				d, _ := stepper.Before(ctx, &crew.Pause{Kind: crew.PauseToolCall, ToolName: "t", Args: pyjson.ObjectOf("city", "Lisbon")})
				got <- d
			}()
			p, _ = p.Update(pauseMsg{gen: 1, req: <-stepper.C})
			if !strings.Contains(ansi.Strip(p.View()), "PAUSED before tool call t") {
				t.Fatalf("view:\n%s", ansi.Strip(p.View()))
			}
			for _, k := range tc.keys {
				p, _ = p.Update(k)
			}
			select {
			case d := <-got:
				if d.Action != tc.want {
					t.Errorf("action %s, want %s", d.Action, tc.want)
				}
				if tc.want == crew.Skip && d.Result != "canned" {
					t.Errorf("canned result %q", d.Result)
				}
				if tc.args != "" && pyjson.Dumps(d.Args) != tc.args {
					t.Errorf("args %s", pyjson.Dumps(d.Args))
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no decision reached the engine")
			}
			if p.pause != nil {
				t.Error("the pause panel must close after a decision")
			}
		})
	}
}

func runeKeys(s string) []tea.KeyMsg {
	var out []tea.KeyMsg
	for _, r := range s {
		out = append(out, keyRunes(string(r)))
	}
	return out
}

// bigTrace is n tool calls of three attempts each under one crew and task.
func bigTrace(n int) []session.Event {
	evs := []session.Event{
		{Kind: session.CrewKickoffStarted, Span: "crew", Seq: 1, Time: fixedNow},
		{Kind: session.TaskStarted, Span: "task", Parent: "crew", Seq: 2, Time: fixedNow, TaskName: "t"},
	}
	seq := int64(2)
	for i := 0; i < n; i++ {
		tool := "tool-" + itoa(i)
		add := func(ev session.Event) {
			seq++
			ev.Seq, ev.Time = seq, fixedNow.Add(time.Duration(seq)*time.Millisecond)
			evs = append(evs, ev)
		}
		add(session.Event{Kind: session.ToolUsageStarted, Span: tool, Parent: "task", ToolName: "get_x", OriginalToolName: "getX", Server: "s"})
		for a := 1; a <= 3; a++ {
			sp := tool + "-a" + itoa(a)
			add(session.Event{Kind: session.MCPAttemptStarted, Span: sp, Parent: tool, Attempt: a})
			out := session.OutcomeTimeout
			if a == 3 {
				out = session.OutcomeOK
			}
			add(session.Event{Kind: session.MCPAttemptFinished, Span: sp, Parent: tool, Attempt: a, Outcome: out})
		}
		add(session.Event{Kind: session.ToolUsageFinished, Span: tool, Parent: "task", Outcome: "ok"})
	}
	return evs
}

func itoa(i int) string { return strconv.Itoa(i) }

// --- kickoff -----------------------------------------------------------------

func TestKickoffPane_InputsAndBreakpoints(t *testing.T) {
	st := NewStyles(testDeps().Palette)
	p := newKickoffPane(st, DefaultKeyMap(), &fakeRunner{})
	p.SetSize(100, 30)
	p.Focus()
	if len(p.inputNames) != 1 || p.inputNames[0] != "city" || p.inputs[0].Value() != "Lisbon" {
		t.Fatalf("inputs %v", p.inputNames)
	}
	// Cleared, a defaulted input falls back to the crew's default.
	p.inputs[0].SetValue("")
	if len(p.missing()) != 0 {
		t.Errorf("missing = %v", p.missing())
	}
	// An input without a default blocks the run and says which.
	p = newKickoffPane(st, DefaultKeyMap(), &fakeRunner{noDefaults: true})
	p.SetSize(100, 30)
	p.Focus()
	_, cmd := p.Update(keyRunes("r"))
	if msg, ok := cmd().(noticeMsg); !ok || !strings.Contains(msg.text, "missing input city") {
		t.Fatalf("run without city = %#v", cmd())
	}
	p.inputs[0].SetValue("Porto")
	p, _ = p.Update(keyRunes("j"))
	p, _ = p.Update(keyRunes(" ")) // every step
	p, _ = p.Update(keyRunes("j"))
	p, _ = p.Update(keyRunes("j"))
	p, _ = p.Update(keyRunes("j")) // tools
	p, _ = p.Update(keyType(tea.KeyEnter))
	for _, k := range runeKeys("getForecast, slow_report") {
		p, _ = p.Update(k)
	}
	p, _ = p.Update(keyType(tea.KeyEnter))
	_, cmd = p.Update(keyRunes("s"))
	msg, ok := cmd().(startRunMsg)
	if !ok {
		t.Fatalf("s = %#v", cmd())
	}
	if !msg.step || msg.req.Inputs["city"] != "Porto" || !msg.bp.Every || !msg.bp.OnFailure ||
		strings.Join(msg.bp.Tools, "|") != "getForecast|slow_report" {
		t.Errorf("start = %+v", msg)
	}
}

// --- keys, layout, text ------------------------------------------------------

// TestKeyMap_NoConflictsWithinAScope: no key belongs to two bindings that
// are live at the same moment.
func TestKeyMap_NoConflictsWithinAScope(t *testing.T) {
	km := DefaultKeyMap()
	g := km.Global
	global := []key.Binding{g.Quit, g.ForceQuit, g.Help, g.NextView, g.PrevView}
	global = append(global, g.Views[:]...)
	l := km.List
	list := []key.Binding{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom, l.Open}
	scopes := map[string][]key.Binding{
		"servers":  append(list, km.Servers.Reconnect, km.Servers.Probe, km.Servers.Section, km.Servers.Filter),
		"tools":    append(list, km.Tools.Search, km.Tools.Sort, km.Tools.Scope, km.Tools.Try, km.Tools.Filter),
		"detail":   {l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom, km.Tools.Scheme, km.Tools.Try, km.Tools.Filter, g.Back},
		"filter":   {km.Filter.Edit, km.Filter.Server, km.Filter.Agent, km.Filter.Fix, km.Filter.Export, km.Filter.Write, km.Filter.Confirm, km.Filter.Reset, l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom},
		"try":      {km.Try.Run, km.Try.Edit, km.Try.Toggle, km.Try.Raw, km.Try.Editor, km.Try.Policy, km.Try.Copy, km.Try.Cancel, l.Up, l.Down, l.PageUp, l.PageDown},
		"kickoff":  {km.Kickoff.Run, km.Kickoff.Step, km.Kickoff.Edit, km.Kickoff.Toggle, km.Kickoff.Crew, l.Up, l.Down},
		"trace":    append(list, km.Trace.Collapse, km.Trace.Expand, km.Trace.Toggle, km.Trace.Follow, km.Trace.Kind, km.Trace.Status, km.Trace.Stop),
		"pause":    append(list, km.Trace.Collapse, km.Trace.Expand, km.Trace.Toggle, km.Trace.Follow, km.Trace.Kind, km.Trace.Status, km.Trace.Stop, km.Pause.Continue, km.Pause.Step, km.Pause.Skip, km.Pause.Edit, km.Pause.Abort),
		"sessions": append(list, km.Sessions.Refresh),
	}
	for name, bs := range scopes {
		seen := map[string]string{}
		for _, b := range append(append([]key.Binding{}, global...), bs...) {
			for _, k := range b.Keys() {
				if prev, dup := seen[k]; dup && prev != b.Help().Desc {
					t.Errorf("scope %s: key %q is both %q and %q", name, k, prev, b.Help().Desc)
				}
				seen[k] = b.Help().Desc
			}
		}
	}
}

func TestLayoutBoxIsExact(t *testing.T) {
	st := NewStyles(testDeps().Palette)
	for _, sz := range [][2]int{{10, 3}, {40, 8}, {81, 25}} {
		long := strings.Repeat("x", 200) + "\n" + strings.Repeat("line\n", 40)
		requireBox(t, box(st.Pane.Focused, sz[0], sz[1], long), sz[0], sz[1])
	}
	if got := fitMiddle("crewbench_fixture_weather_get_forecast", 20); ansi.StringWidth(got) != 20 || !strings.HasSuffix(got, "forecast") || !strings.HasPrefix(got, "crewbench") {
		t.Errorf("fitMiddle = %q", got)
	}
}

func TestTextHelpers(t *testing.T) {
	for _, tc := range []struct {
		n    int
		w    string
		want string
	}{{1, "retry", "1 retry"}, {2, "retry", "2 retries"}, {3, "tool", "3 tools"}, {2, "key", "2 keys"}} {
		if got := pluralize(tc.n, tc.w); got != tc.want {
			t.Errorf("plural = %q, want %q", got, tc.want)
		}
	}
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{30 * time.Second, "30s"}, {1500 * time.Millisecond, "1.5s"}, {12 * time.Millisecond, "12ms"}, {125 * time.Second, "2m05s"}} {
		if got := fmtDur(tc.d); got != tc.want {
			t.Errorf("fmtDur(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := printable("a\x1b[31mb\x07"); got != `a\x1b[31mb\x07` {
		t.Errorf("printable = %q", got)
	}
	if got := prettyJSON([]byte(`{"b":1,"a":1.50}`)); got != "{\n  \"b\": 1,\n  \"a\": 1.50\n}" {
		t.Errorf("prettyJSON must keep order and number spelling: %q", got)
	}
}

// Every screen fits its box at every size from the minimum up, and
// resizing never breaks the frame.
func TestEveryViewFillsTheWindow(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {60, 16}, {200, 60}} {
		m := settled(t, goldenDeps(), sz[0], sz[1])
		for v := view(0); v < viewCount; v++ {
			m = step(t, m, keyRunes(string(rune('1'+v))))
			requireBox(t, m.View(), sz[0], sz[1])
		}
	}
	m := settled(t, goldenDeps(), 40, 10)
	if !strings.Contains(m.View(), "needs at least") {
		t.Error("a tiny terminal must get a notice")
	}
}

func TestQuitReapsServersFirst(t *testing.T) {
	deps := testDeps()
	pool := deps.Pool.(*fakePool)
	m := settled(t, deps, 80, 24)
	nm, cmd := m.Update(keyRunes("q"))
	m = nm.(Model)
	if !m.quitting || !strings.Contains(m.View(), "stopping servers") {
		t.Fatal("q must say it is stopping the servers")
	}
	msg := cmd()
	if pool.closed != 1 {
		t.Fatalf("Close called %d times", pool.closed)
	}
	_, cmd = m.Update(msg)
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("after the pool closed the program must quit")
	}
}

func TestMultiRuneKeysAreSplitOutsideTextFields(t *testing.T) {
	m := settled(t, testDeps(), 100, 30)
	m = step(t, m, keyRunes("2/getFo")) // fast typing: one message
	if m.view != viewTools || m.tools.query != "getFo" {
		t.Fatalf("view %v query %q", m.view, m.tools.query)
	}
}

func TestMouseWheelScrollsTheCurrentView(t *testing.T) {
	m := toolsModel(t)
	m = step(t, m, tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	m = step(t, m, tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	if m.tools.cursor != 2 {
		t.Fatalf("cursor after two wheel steps = %d", m.tools.cursor)
	}
	m = step(t, m, tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	if m.tools.cursor != 1 {
		t.Fatalf("cursor after wheel up = %d", m.tools.cursor)
	}
}

// Colour themes draw colour; the no-colour theme draws none (attributes
// only), and every theme keeps the state glyphs.
func TestThemesRenderWithAndWithoutColour(t *testing.T) {
	prev := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(prev) })
	for _, name := range themes.Names() {
		pal, _ := themes.ByName(name)
		deps := testDeps()
		deps.Palette = pal
		v := settled(t, deps, 100, 30).View()
		colour := strings.Contains(v, "\x1b[38;2;") || strings.Contains(v, "\x1b[38;5;") || regexp.MustCompile(`\x1b\[(3|9)[0-7]m`).MatchString(v)
		if pal.NoColor == colour {
			t.Errorf("theme %s: colour escapes present = %v", name, colour)
		}
		plain := ansi.Strip(v)
		if !strings.Contains(plain, "● weather") || !strings.Contains(plain, "✕ broken") {
			t.Errorf("theme %s lost the state glyphs", name)
		}
	}
}

// Long tool lists are searched in a command, so a keystroke never waits;
// a result for an older query is dropped.
func TestToolsPane_LongListsSearchInTheBackground(t *testing.T) {
	m := manyTools(t, syncSearchLimit+500)
	m = step(t, m, keyRunes("/"))
	nm, cmd := m.Update(keyRunes("i"))
	m = nm.(Model)
	if !m.tools.searching || cmd == nil {
		t.Fatal("a long list must be searched in a command")
	}
	var stale tea.Msg
	for _, msg := range runCmd(t, cmd, 1) {
		if _, ok := msg.(toolSearchMsg); ok {
			stale = msg
		}
	}
	nm, cmd = m.Update(keyRunes("t"))
	m = nm.(Model)
	m = step(t, m, stale) // the "i" result arrives after "it" was typed
	if !m.tools.searching {
		t.Fatal("a stale result must not end the search")
	}
	for _, msg := range runCmd(t, cmd, 1) {
		m = step(t, m, msg)
	}
	if m.tools.searching || len(m.tools.visible) == 0 || m.tools.query != "it" {
		t.Fatalf("searching %v visible %d query %q", m.tools.searching, len(m.tools.visible), m.tools.query)
	}
}

// The Tools detail shows the schema CrewAI sends the LLM below the raw one:
// strict, every property required, optional ones nullable, limits folded
// into descriptions, defaults gone; labelled by provider.
func TestToolDetailShowsTheRenderedSchema(t *testing.T) {
	m := toolsModel(t)
	m = step(t, m, keyRunes("j"))
	m = step(t, m, keyType(tea.KeyEnter))
	m.tools.detail.GotoBottom()
	shown := ansi.Strip(m.tools.detail.View())
	for _, want := range []string{`"required": [`, `"type": "null"`, `Allowed values: ['metric', 'imperial']`} {
		if !strings.Contains(shown, want) {
			t.Errorf("the end of the detail lacks %q:\n%s", want, shown)
		}
	}
	tool := m.tools.rows[1].tool
	openai := ansi.Strip(renderedSchema(m.st, tool, false))
	if !strings.Contains(openai, "Input schema as the LLM sees it  (CrewAI 1.15's rendering for OpenAI)") ||
		strings.Contains(openai, `"default"`) || !strings.Contains(openai, `"required": [`) {
		t.Errorf("OpenAI rendering:\n%s", openai)
	}
	if a := ansi.Strip(renderedSchema(m.st, tool, true)); !strings.Contains(a, "rendering for Anthropic") {
		t.Errorf("Anthropic rendering:\n%s", a)
	}
}

// liveTracePane is a 100×30 trace pane following run 1, whose events
// come on events.
func liveTracePane(t *testing.T, events chan session.Event) tracePane {
	t.Helper()
	p := newTracePane(NewStyles(testDeps().Palette), DefaultKeyMap(), clock, session.DefaultRedactor)
	p.SetSize(100, 30)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p.run = &activeRun{gen: 1, ctx: ctx, cancel: cancel, events: true, handle: &RunHandle{ID: "r", Events: events}}
	return p
}

// Open scopes show as running while a run is live, and as unfinished once
// it returned and its events are drained; a recorded session is finished
// from the start.
func TestTracePane_OpenScopesUnfinishedOnlyOnceTheRunIsOver(t *testing.T) {
	torn := tornTraceEvents()
	statuses := func(p tracePane) map[session.Status]int {
		m := map[session.Status]int{}
		for _, r := range p.rows {
			m[r.n.Status]++
		}
		return m
	}
	p := liveTracePane(t, make(chan session.Event))
	p, _ = p.Update(runEventsMsg{gen: 1, events: torn})
	// Live: only the first tool call, whose step ended, is closed.
	if s := statuses(p); s[session.StatusRunning] != 7 || s[session.StatusUnfinished] != 1 {
		t.Fatalf("live run: %v", s)
	}
	p, _ = p.Update(runDoneMsg{gen: 1, outcome: RunOutcome{Err: errors.New("killed")}})
	if s := statuses(p); s[session.StatusRunning] != 7 {
		t.Fatalf("run returned, events not drained yet: %v", s)
	}
	p, _ = p.Update(runEventsClosedMsg{gen: 1})
	if s := statuses(p); s[session.StatusRunning] != 0 || s[session.StatusUnfinished] != 8 {
		t.Fatalf("run over: %v", s)
	}
	if v := ansi.Strip(p.View()); !strings.Contains(v, "◇ attempt 3/3 [unfinished: run ended]") {
		t.Errorf("view:\n%s", v)
	}

	p.LoadEvents("torn.jsonl", torn)
	if s := statuses(p); s[session.StatusRunning] != 0 || s[session.StatusUnfinished] != 8 {
		t.Fatalf("recorded session: %v", s)
	}
}

// A tool= breakpoint that named nothing the run had ends the run with a
// warning notice saying so and naming the tool meant, whether the warning
// arrives before the run's end or after it.
func TestTracePane_SaysWhichBreakpointNeverPaused(t *testing.T) {
	warn := crew.Breakpoints{Tools: []string{"get_forecast"}, Servers: []string{"wether"}}.
		Unmatched([]string{"getForecast", "weather_get_forecast"}, []string{"weather"})
	evs := []session.Event{warn[0].Event(), warn[1].Event()}
	notices := func(t *testing.T, cmd tea.Cmd) []string {
		var out []string
		for _, m := range runCmd(t, cmd, 1) {
			if n, ok := m.(noticeMsg); ok {
				out = append(out, n.text)
			}
		}
		return out
	}
	want := "run finished, but breakpoint tool=get_forecast never paused: the run has no such name — did you mean tool=getForecast? (and 1 more)"
	for _, order := range []string{"events first", "end first"} {
		t.Run(order, func(t *testing.T) {
			events := make(chan session.Event)
			close(events) // the reader the pane starts returns at once
			p := liveTracePane(t, events)
			var got []string
			var cmd tea.Cmd
			if order == "events first" {
				p, cmd = p.Update(runEventsMsg{gen: 1, events: evs})
				got = append(got, notices(t, cmd)...)
				_, cmd = p.Update(runDoneMsg{gen: 1})
				got = append(got, notices(t, cmd)...)
			} else {
				p, cmd = p.Update(runDoneMsg{gen: 1})
				if n := notices(t, cmd); len(n) != 1 || n[0] != "run finished" {
					t.Fatalf("at the end: %q", n)
				}
				_, cmd = p.Update(runEventsMsg{gen: 1, events: evs})
				got = append(got, notices(t, cmd)...)
			}
			if len(got) != 1 || got[0] != want {
				t.Fatalf("notices %q\nwant %q", got, want)
			}
		})
	}
}
