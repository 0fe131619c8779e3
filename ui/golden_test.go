package ui

import (
	"context"
	"encoding/json"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
	"crewbench/session"
)

// goldenSizes are the two sizes every screen is checked at.
var goldenSizes = []struct {
	name string
	w, h int
}{{"80x24", 80, 24}, {"160x48", 160, 48}}

// screens builds each screen of the workbench from the fake workspace, in
// a state worth looking at.
var screens = []struct {
	name  string
	build func(t *testing.T, w, h int) Model
}{
	{"servers", func(t *testing.T, w, h int) Model { return settled(t, goldenDeps(), w, h) }},
	{"servers_env", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		return step(t, m, keyRunes("v"))
	}},
	{"servers_oauth_required", func(t *testing.T, w, h int) Model {
		m, _ := onHosted(t, &fakeAuth{challenge: "Bearer"}, w, h)
		return m
	}},
	{"servers_login_waiting", func(t *testing.T, w, h int) Model {
		a := &fakeAuth{challenge: "Bearer", release: make(chan struct{})}
		t.Cleanup(func() { close(a.release) })
		m, _ := onHosted(t, a, w, h)
		return stepRun(t, m, keyRunes("L"), 1)
	}},
	{"tools", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		return step(t, m, keyRunes("2"))
	}},
	{"tools_search", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		m = step(t, m, keyRunes("2"))
		m = step(t, m, keyRunes("/"))
		return typeText(t, m, "getfore")
	}},
	{"tool_detail", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		m = step(t, m, keyRunes("2"))
		m = step(t, m, keyRunes("j"))
		return step(t, m, keyType(tea.KeyEnter))
	}},
	{"filter_keeps_nothing", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		m = stepRun(t, m, showFilterMsg{server: "weather"}, 3)
		m = step(t, m, keyRunes("e"))
		m = step(t, m, tea.KeyMsg{Type: tea.KeyCtrlU})
		for _, r := range "getForecast" {
			m = stepRun(t, m, keyRunes(string(r)), 3)
		}
		return step(t, m, keyType(tea.KeyEsc))
	}},
	{"try_result", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
		m = step(t, m, keyType(tea.KeyEnter))
		m = typeText(t, m, "Lisbon")
		m = step(t, m, keyType(tea.KeyEnter))
		return runTryCall(t, m)
	}},
	{"try_auth_fix", func(t *testing.T, w, h int) Model {
		deps := goldenDeps()
		deps.Caller = authFailCaller{}
		m := settled(t, deps, w, h)
		m = step(t, m, showTryMsg{server: "catalog", tool: "search_catalog"})
		m.try.fields[0].input.SetValue("boots")
		return runTryCall(t, m)
	}},
	{"try_elicitation", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
		fields, err := mcpconn.ElicitFields(json.RawMessage(askSchema))
		if err != nil {
			t.Fatal(err)
		}
		m.try.callID, m.try.asker = 1, newCallAsker()
		q := &pendingAsk{elicit: &mcpconn.ElicitRequest{Server: "weather", Message: "Who gets the report?",
			Schema: json.RawMessage(askSchema), Fields: fields}, reply: make(chan askReply, 1)}
		return step(t, m, askMsg{id: 1, q: q})
	}},
	{"kickoff", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		return step(t, m, keyRunes("5"))
	}},
	{"trace_failure", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		f := &session.File{Events: traceEvents("run-1")}
		return step(t, m, sessionOpenedMsg{path: "run-1.jsonl", file: f})
	}},
	{"trace_unfinished", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		f := &session.File{Events: tornTraceEvents()}
		return step(t, m, sessionOpenedMsg{path: "torn.jsonl", file: f})
	}},
	{"trace_pause_tool", func(t *testing.T, w, h int) Model {
		m := pausedAt(t, goldenDeps(), w, h, &crew.Pause{Kind: crew.PauseToolCall, TaskName: "forecast_task", AgentRole: "Weekend Forecaster",
			RequestedName: "crewbench_fixture_weather_get_forecast", ToolName: "crewbench_fixture_weather_get_forecast",
			OriginalName: "getForecast", Server: "weather", Args: pyjson.ObjectOf("city", "Lisbon", "days", pyjson.Int(2)),
			Schema: pauseModel.Schema(), RawSchema: pauseRawSchema})
		return m
	}},
	{"trace_pause_llm", func(t *testing.T, w, h int) Model {
		return pausedAt(t, goldenDeps(), w, h, &crew.Pause{Kind: crew.PauseLLMCall, TaskName: "forecast_task", AgentRole: "Weekend Forecaster",
			Model: "demo-llm", Mode: "native", Tools: []llm.Tool{{Name: "crewbench_fixture_weather_get_forecast"}, {Name: "crewbench_fixture_slow_slow_report"}},
			Messages: []llm.Message{{Role: "system", Content: "You are Weekend Forecaster. Give travellers to Lisbon an accurate weekend outlook"},
				{Role: "user", Content: "Current Task: Collect the weekend forecast for Lisbon."}}})
	}},
	{"trace_pause_human", func(t *testing.T, w, h int) Model {
		return pausedAt(t, goldenDeps(), w, h, &crew.Pause{Kind: crew.PauseHumanInput, TaskName: "forecast_task", AgentRole: "Weekend Forecaster",
			FinalAnswer: "Lisbon's weekend looks travel-friendly: sunny on Saturday, 24°C; a light breeze on Sunday."})
	}},
	{"sessions", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		m = step(t, m, sessionsListedMsg{list: mustList(t)})
		return step(t, m, keyRunes("7"))
	}},
	{"sessions_rerun_setup", func(t *testing.T, w, h int) Model {
		deps, _ := rerunDeps()
		m := settled(t, deps, w, h)
		m = tryFilter(t, m, "weather", "get_alerts")
		m = step(t, m, sessionsListedMsg{list: mustList(t)})
		m = step(t, m, keyRunes("7"))
		return stepRun(t, m, keyRunes("R"), 2)
	}},
	{"sessions_rerun_faults", func(t *testing.T, w, h int) Model {
		deps, _ := rerunDeps()
		m := sessionsAt(t, deps, w, h)
		m = stepRun(t, m, keyRunes("R"), 2)
		m = step(t, m, keyType(tea.KeyEnter))
		for range faultsField {
			m = step(t, m, keyType(tea.KeyTab))
		}
		return typeText(t, m, "hang,tool=getForecast,times=1; is_error")
	}},
	{"sessions_rerun_running", func(t *testing.T, w, h int) Model {
		deps, _ := rerunDeps()
		m := sessionsAt(t, deps, w, h)
		m = stepRun(t, m, keyRunes("R"), 2)
		m = step(t, m, keyRunes("r")) // the re-run's commands are not run
		m = step(t, m, rerunEventsMsg{gen: m.sessions.job.gen, events: rerunEvents()[:12]})
		m.sessions.Stop()
		return m
	}},
	{"sessions_rerun", func(t *testing.T, w, h int) Model {
		deps, _ := rerunDeps()
		m := settled(t, deps, w, h)
		m = tryFilter(t, m, "weather", "get_alerts")
		m = step(t, m, sessionsListedMsg{list: mustList(t)})
		m = step(t, m, keyRunes("7"))
		m = stepRun(t, m, keyRunes("R"), 2)
		return stepRun(t, m, keyRunes("r"), 3)
	}},
	{"sessions_compare", func(t *testing.T, w, h int) Model {
		deps, _ := rerunDeps()
		m := settled(t, deps, w, h)
		m = runToEnd(t, m, rerunEvents(), "/state/sessions/20261129T120000Z-a1b2c3.jsonl")
		m = step(t, m, sessionsListedMsg{list: mustList(t)})
		m = step(t, m, keyRunes("7")) // the recording of this run, compared with the run
		return stepRun(t, m, keyRunes("c"), 2)
	}},
	{"trace_pause_llm_tools", func(t *testing.T, w, h int) Model {
		m := pausedAt(t, goldenDeps(), w, h, &crew.Pause{Kind: crew.PauseLLMCall, TaskName: "forecast_task", AgentRole: "Weekend Forecaster",
			Model: "demo-llm", Mode: "native", Tools: []llm.Tool{{Name: "crewbench_fixture_weather_get_forecast", Description: "Forecast for a city."},
				{Name: "crewbench_fixture_slow_slow_report", Description: "A slow report."}},
			Messages: []llm.Message{{Role: "system", Content: "You are Weekend Forecaster."}, {Role: "user", Content: "Current Task: Collect the weekend forecast for Lisbon."}}})
		return step(t, m, keyRunes("v"))
	}},
	{"help", func(t *testing.T, w, h int) Model {
		m := settled(t, goldenDeps(), w, h)
		return step(t, m, keyRunes("?"))
	}},
}

func goldenDeps() Deps {
	d := testDeps()
	d.Runner = &fakeRunner{events: traceEvents("run-1")}
	d.Caller = fakeCaller{}
	d.Sessions = fakeSessions{}
	return d
}

func mustList(t *testing.T) []SessionInfo {
	l, err := fakeSessions{}.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// pausedAt shows the trace with a pause pending (no engine involved).
func pausedAt(t *testing.T, deps Deps, w, h int, pz *crew.Pause) Model {
	m := settled(t, deps, w, h)
	m = step(t, m, startRunMsg{req: KickoffRequest{Crew: "Weekend Weather Brief", Inputs: map[string]any{"city": "Lisbon"}}})
	gen := m.trace.run.gen
	evs := traceEvents("run-1")[:6]
	m = step(t, m, runStartedMsg{gen: gen, handle: &RunHandle{ID: "run-1"}})
	m = step(t, m, runEventsMsg{gen: gen, events: evs})
	m = step(t, m, pauseMsg{gen: gen, req: testPauseRequest(pz)})
	m.trace.Stop()
	return m
}

// testPauseRequest builds a request the way ChanStepper does, through a
// real stepper, so Reply works.
func testPauseRequest(pz *crew.Pause) *crew.PauseRequest {
	s := crew.NewChanStepper(crew.Breakpoints{Every: true})
	go func() { _, _ = s.Before(canceledLater(), pz) }()
	return <-s.C
}

// runTryCall runs the try pane's call synchronously through the fake
// caller and feeds every message back.
func runTryCall(t *testing.T, m Model) Model {
	t.Helper()
	nm, cmd := m.Update(keyRunes("r"))
	m = nm.(Model)
	msgs := collectCall(cmd)
	for _, msg := range msgs {
		m = step(t, m, msg)
	}
	return m
}

// pauseRawSchema is the tool-call pause's MCP inputSchema; pauseModel the
// model CrewAI builds from it (as the engine hands both to the stepper).
var (
	pauseRawSchema, _ = pyjson.LoadsObject(`{"type":"object","properties":{"city":{"type":"string","description":"City name."},` +
		`"days":{"type":"integer","minimum":1,"maximum":7,"default":3}},"required":["city"]}`)
	pauseModel = toolschema.MCPToolModel("getForecast", pauseRawSchema)
)

func TestGoldenScreens(t *testing.T) {
	for _, sc := range screens {
		for _, sz := range goldenSizes {
			t.Run(sc.name+"/"+sz.name, func(t *testing.T) {
				m := sc.build(t, sz.w, sz.h)
				v := m.View()
				requireBox(t, v, sz.w, sz.h)
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
}
