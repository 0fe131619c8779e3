package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/session"
)

// sessionsAt opens the sessions view with the fake listing.
func sessionsAt(t *testing.T, deps Deps, w, h int) Model {
	t.Helper()
	m := settled(t, deps, w, h)
	m = step(t, m, sessionsListedMsg{list: mustList(t)})
	return step(t, m, keyRunes("7"))
}

// tryFilter types allowed names for server in the filter playground.
func tryFilter(t *testing.T, m Model, server, allowed string) Model {
	t.Helper()
	m = stepRun(t, m, showFilterMsg{server: server}, 3)
	m = step(t, m, keyRunes("e"))
	m = step(t, m, tea.KeyMsg{Type: tea.KeyCtrlU})
	for _, r := range allowed {
		m = stepRun(t, m, keyRunes(string(r)), 3)
	}
	return step(t, m, keyType(tea.KeyEsc))
}

func plainView(m Model) string { return ansi.Strip(m.View()) }

// The re-run form starts from the filters tried in the playground; a row
// edited here replaces them, d goes back to the declared filter, and the
// re-run gets exactly the filters that differ from the declared ones.
func TestSessionsRerun_UsesTheTriedFiltersAndTheEditsMadeHere(t *testing.T) {
	deps, rep := rerunDeps()
	m := settled(t, deps, 120, 36)
	m = tryFilter(t, m, "weather", "get_alerts")
	m = step(t, m, sessionsListedMsg{list: mustList(t)})
	m = step(t, m, keyRunes("7"))
	m = stepRun(t, m, keyRunes("R"), 2)
	su := m.sessions.setup
	if su == nil || m.sessions.zone != zoneSetup {
		t.Fatalf("R did not open the re-run form (zone %v)", m.sessions.zone)
	}
	if len(su.rows) != 3 || su.rows[0].from != fromTried || strings.Join(su.rows[0].spec.Allowed, ",") != "get_alerts" || su.rows[1].from != fromDeclared {
		t.Fatalf("rows %+v", su.rows)
	}
	if v := plainView(m); !strings.Contains(v, "tried in 3 Filter") || !strings.Contains(v, "changes the filter of 1 server") {
		t.Errorf("form:\n%s", v)
	}
	// Block a catalog tool here, then put broken back to its declared filter.
	m = step(t, m, keyRunes("j"))
	m = step(t, m, keyType(tea.KeyEnter))
	if !m.capturing() {
		t.Fatal("editing a row must capture the keys")
	}
	m = step(t, m, keyType(tea.KeyTab))
	m = typeText(t, m, "search_catalog")
	m = step(t, m, keyType(tea.KeyEnter))
	m = step(t, m, keyRunes("j"))
	m = step(t, m, keyType(tea.KeyEnter))
	m = typeText(t, m, "x")
	m = step(t, m, keyType(tea.KeyEsc))
	if m.sessions.setup.rows[2].from != fromEdited {
		t.Fatalf("broken row %+v", m.sessions.setup.rows[2])
	}
	m = step(t, m, keyRunes("d"))
	m = step(t, m, keyRunes(" "))
	f := m.sessions.setup.filters()
	if len(f) != 2 || strings.Join(f["catalog"].Blocked, ",") != "search_catalog" || strings.Join(f["weather"].Allowed, ",") != "get_alerts" {
		t.Fatalf("filters %+v", f)
	}

	m = stepRun(t, m, keyRunes("r"), 3)
	reqs := rep.requests()
	if len(reqs) != 1 || !reqs[0].KeepGoing || len(reqs[0].Filters) != 2 || reqs[0].Path != mustList(t)[0].Path || reqs[0].File == nil {
		t.Fatalf("requests %+v", reqs)
	}
	j := m.sessions.job
	if j == nil || j.running || j.res == nil || j.diff == nil || m.sessions.zone != zoneResult {
		t.Fatalf("job %+v zone %v", j, m.sessions.zone)
	}
	if j.events != len(rerunEvents()) || j.toolFailures != 1 {
		t.Errorf("progress counted %d events, %d failures", j.events, j.toolFailures)
	}
	text := ansi.Strip(strings.Join(m.sessions.lines, "\n"))
	for _, want := range []string{
		"✕ DIVERGED AT LLM CALL 2 OF 2",
		"call      LLM call 2 · agent Weekend Forecaster · task forecast_task",
		"where     message 3 (tool) differs in content",
		`now       at byte 0: "Tool not found`,
		"served    1 of 2 recorded LLM calls",
		"the run   failed: replay demo-llm",
		"− crewbench_fixture_weather_get_forecast ← getForecast @ weather",
		"+ crewbench_fixture_weather_get_alerts ← getAlerts @ weather",
		"task forecast_task · ok → failed",
		"+ crewbench_fixture_weather_get_forecast failed 0 → 1 · new failure",
		"Tokens  2394 in / 57 out → 1133 in / 39 out",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	// o opens the re-run's events in the trace.
	m = stepRun(t, m, keyRunes("o"), 2)
	if m.view != viewTrace || !strings.HasPrefix(m.trace.source, "re-run of ") || m.trace.summary.Events != len(rerunEvents()) {
		t.Fatalf("view %v source %q events %d", m.view, m.trace.source, m.trace.summary.Events)
	}
	if b := m.trace.banner(); !strings.HasPrefix(b, "✕ SESSION FAILED, WITH 1 TOOL FAILURE") {
		t.Errorf("banner %q", b)
	}
}

// A re-run that cannot start says why, and the form's esc changes nothing.
func TestSessionsRerun_ErrorsAndCancel(t *testing.T) {
	deps, rep := rerunDeps()
	rep.fail = &mcpconnError{"rerun: the project has no server \"weather\""}
	m := sessionsAt(t, deps, 100, 30)
	m = stepRun(t, m, keyRunes("R"), 2)
	m = step(t, m, keyType(tea.KeyEsc))
	if m.sessions.setup != nil || m.sessions.zone != zoneList || len(rep.requests()) != 0 {
		t.Fatalf("esc must close the form without running (zone %v)", m.sessions.zone)
	}
	m = stepRun(t, m, keyRunes("R"), 2)
	m = stepRun(t, m, keyRunes("r"), 3)
	if j := m.sessions.job; j == nil || j.err == nil || !strings.Contains(plainView(m), "THE RE-RUN COULD NOT RUN") {
		t.Fatalf("job %+v\n%s", j, plainView(m))
	}

	// Without a replayer, R says why.
	deps.Replayer = nil
	m = sessionsAt(t, deps, 100, 30)
	m = stepRun(t, m, keyRunes("R"), 2)
	if m.sessions.setup != nil || !strings.Contains(m.notice.text, "re-runs need a project with a crew") {
		t.Errorf("notice %q", m.notice.text)
	}
}

type mcpconnError struct{ s string }

func (e *mcpconnError) Error() string { return e.s }

// c compares the selected recording with the last run of this workbench:
// before any run it says how to make one.
func TestSessionsCompareWithThisRun(t *testing.T) {
	deps, _ := rerunDeps()
	m := sessionsAt(t, deps, 120, 36)
	m = stepRun(t, m, keyRunes("c"), 2)
	if m.sessions.cmp != nil || !strings.Contains(m.notice.text, "no run yet in this workbench") {
		t.Fatalf("before a run: cmp %+v notice %q", m.sessions.cmp, m.notice.text)
	}
	m = runToEnd(t, m, rerunEvents(), "/state/sessions/20261129T120000Z-a1b2c3.jsonl")
	m = step(t, m, keyRunes("7"))
	if v := plainView(m); !strings.Contains(v, "20261129T120000Z-a1b2c3.jsonl  ● this run") {
		t.Errorf("the run's recording is not marked:\n%s", v)
	}
	m = stepRun(t, m, keyRunes("c"), 2)
	c := m.sessions.cmp
	if c == nil || c.diff == nil || c.partial || m.sessions.shown != panelCompare {
		t.Fatalf("cmp %+v", c)
	}
	text := ansi.Strip(strings.Join(m.sessions.lines, "\n"))
	for _, want := range []string{"Changes from the recording to this run", "recorded → this run: status ok → failed",
		"+ crewbench_fixture_weather_get_alerts ← getAlerts @ weather"} {
		if !strings.Contains(text, want) {
			t.Errorf("comparison lacks %q:\n%s", want, text)
		}
	}
	// The result keeps its place while the list has the focus.
	m = step(t, m, keyType(tea.KeyEsc))
	if m.sessions.zone != zoneList || m.sessions.shown != panelCompare {
		t.Errorf("esc: zone %v shown %v", m.sessions.zone, m.sessions.shown)
	}
	m = step(t, m, keyRunes("l"))
	if m.sessions.zone != zoneResult {
		t.Errorf("l must focus the result")
	}
}

// runToEnd drives a kickoff through the trace's messages without an engine.
func runToEnd(t *testing.T, m Model, evs []session.Event, recorded string) Model {
	t.Helper()
	m = step(t, m, startRunMsg{req: KickoffRequest{Crew: "Weekend Weather Brief", Inputs: map[string]any{"city": "Lisbon"}}})
	gen := m.trace.run.gen
	m = step(t, m, runStartedMsg{gen: gen, handle: &RunHandle{ID: "run-2"}})
	m = step(t, m, runEventsMsg{gen: gen, events: evs})
	m = step(t, m, runEventsClosedMsg{gen: gen})
	return step(t, m, runDoneMsg{gen: gen, outcome: RunOutcome{Output: "brief", Recorded: recorded}})
}

// The result panel scrolls by line and page, and says where it is.
func TestSessionsResultScrolls(t *testing.T) {
	deps, _ := rerunDeps()
	m := sessionsAt(t, deps, 80, 24)
	m = stepRun(t, m, keyRunes("R"), 2)
	m = stepRun(t, m, keyRunes("r"), 3)
	rows := m.sessions.panelRows()
	if len(m.sessions.lines) <= rows {
		t.Fatalf("%d lines fit in %d rows: nothing to scroll", len(m.sessions.lines), rows)
	}
	if !strings.Contains(plainView(m), "1–"+itoa(rows)+" of "+itoa(len(m.sessions.lines))) {
		t.Errorf("no position shown:\n%s", plainView(m))
	}
	m = step(t, m, keyRunes("j"))
	m = step(t, m, keyType(tea.KeyPgDown))
	if m.sessions.scroll != 1+rows && m.sessions.scroll != len(m.sessions.lines)-rows {
		t.Errorf("scroll %d after j and pgdn (rows %d)", m.sessions.scroll, rows)
	}
	m = step(t, m, keyRunes("G"))
	if m.sessions.scroll != len(m.sessions.lines)-rows {
		t.Errorf("G: scroll %d", m.sessions.scroll)
	}
	for _, sz := range goldenSizes {
		m = step(t, m, tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		requireBox(t, m.View(), sz.w, sz.h)
	}
}

// The playground remembers the filter tried on each server: switching
// servers keeps it, R in the playground forgets it, and Tried lists only
// what differs from the declared filters.
func TestFilterPlaygroundRemembersTriedFilters(t *testing.T) {
	m := settled(t, goldenDeps(), 120, 36)
	m = tryFilter(t, m, "weather", "get_alerts")
	m = stepRun(t, m, keyRunes("s"), 3) // catalog
	if m.filter.server != "catalog" || m.filter.fields[fieldAllowed].Value() != "" {
		t.Fatalf("server %q allowed %q", m.filter.server, m.filter.fields[fieldAllowed].Value())
	}
	m = stepRun(t, m, keyRunes("s"), 3) // weather again
	if m.filter.server != "weather" || m.filter.fields[fieldAllowed].Value() != "get_alerts" {
		t.Fatalf("switching back lost the edit: %q %q", m.filter.server, m.filter.fields[fieldAllowed].Value())
	}
	if tried := m.filter.Tried(); len(tried) != 1 || strings.Join(tried["weather"].Allowed, ",") != "get_alerts" {
		t.Fatalf("tried %+v", tried)
	}
	m = stepRun(t, m, keyRunes("R"), 3)
	if m.filter.fields[fieldAllowed].Value() != "get_forecast" || len(m.filter.Tried()) != 0 {
		t.Errorf("reset: allowed %q tried %+v", m.filter.fields[fieldAllowed].Value(), m.filter.Tried())
	}
	if !sameFilter(mcpconn.FilterSpec{Allowed: []string{"a"}}, mcpconn.FilterSpec{Allowed: []string{"a"}, Expr: " "}) {
		t.Error("a blank expression is no expression")
	}
}

// The re-run form's fourth field injects faults into a server's calls for
// the re-run: a bad text is shown and refuses to run; a good one goes into
// the request and the result's title.
func TestSessionsRerun_InjectsFaults(t *testing.T) {
	deps, rep := rerunDeps()
	m := sessionsAt(t, deps, 120, 36)
	m = stepRun(t, m, keyRunes("R"), 2)
	m = step(t, m, keyType(tea.KeyEnter)) // edit weather
	for range faultsField {
		m = step(t, m, keyType(tea.KeyTab))
	}
	m = typeText(t, m, "is_error,times=0;boom")
	if r := m.sessions.setup.rows[0]; r.faultErr == nil || !strings.Contains(plainView(m), `fault 2 (boom): unknown fault kind "boom"`) {
		t.Fatalf("bad fault text: %+v\n%s", r, plainView(m))
	}
	m = step(t, m, keyType(tea.KeyEsc))
	if v := plainView(m); !strings.Contains(v, "bad faults") {
		t.Errorf("the row must say its faults are bad:\n%s", v)
	}
	m = stepRun(t, m, keyRunes("r"), 3)
	if len(rep.requests()) != 0 || !strings.Contains(m.notice.text, "unknown fault kind") {
		t.Fatalf("a re-run with bad faults must not start (notice %q)", m.notice.text)
	}
	// Fix it: hang the second call of getForecast, then a JSON-RPC error.
	m = step(t, m, keyType(tea.KeyEnter))
	for range faultsField {
		m = step(t, m, keyType(tea.KeyTab))
	}
	m = step(t, m, tea.KeyMsg{Type: tea.KeyCtrlU})
	m = typeText(t, m, "hang,tool=getForecast,times=1; jsonrpc_error,code=-32000,message=down; for now")
	if v := plainView(m); !strings.Contains(v, "injects hang,tool=getForecast,times=1 then jsonrpc_error,code=-32000,message=down; for now") {
		t.Errorf("the form must echo the parsed faults:\n%s", v)
	}
	m = step(t, m, keyType(tea.KeyEsc))
	if v := plainView(m); !strings.Contains(v, "2 faults") || !strings.Contains(v, "injects faults into 1 server") {
		t.Errorf("form:\n%s", v)
	}
	m = stepRun(t, m, keyRunes("r"), 3)
	reqs := rep.requests()
	if len(reqs) != 1 || len(reqs[0].Faults["weather"]) != 2 || len(reqs[0].Filters) != 0 {
		t.Fatalf("requests %+v", reqs)
	}
	want := []mcpconn.Fault{{Kind: mcpconn.FaultHang, Tool: "getForecast", Times: 1}, {Kind: mcpconn.FaultJSONRPCError, Code: -32000, Message: "down; for now"}}
	for i, f := range reqs[0].Faults["weather"] {
		if f != want[i] {
			t.Errorf("fault %d: %+v, want %+v", i, f, want[i])
		}
	}
	if v := plainView(m); !strings.Contains(v, "weather: fault hang,tool=getForecast,times=1") {
		t.Errorf("the result's title must name the faults:\n%s", v)
	}
}
