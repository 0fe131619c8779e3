package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
)

// An LLM-call pause shows every message about to be sent, whole, with its
// role; pgdn reaches the end of a long one; v switches to the tools
// offered and back.
func TestPause_LLMCallShowsTheFullMessagesAndTheTools(t *testing.T) {
	long := strings.Repeat("Lisbon weekend outlook, hour by hour. ", 40) + "THE END"
	pz := &crew.Pause{Kind: crew.PauseLLMCall, TaskName: "forecast_task", AgentRole: "Weekend Forecaster", Model: "demo-llm", Mode: "native",
		Tools: []llm.Tool{{Name: "crewbench_fixture_weather_get_forecast", Description: "Forecast for a city."}},
		Messages: []llm.Message{
			{Role: "system", Content: "You are Weekend Forecaster."},
			{Role: "user", Content: long},
			{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "crewbench_fixture_weather_get_forecast", Arguments: `{"city":"Lisbon"}`}}},
			{Role: "tool", ToolCallID: "call_1", Content: "Sunny, 24°C"},
		}}
	m := pausedAt(t, goldenDeps(), 100, 30, pz)
	v := ansi.Strip(m.View())
	for _, want := range []string{"Messages (4) │ Tools (1)", "#0 system", "#1 user", "pgdn"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	content := ansi.Strip(m.trace.pauseView.View())
	if strings.Contains(content, "THE END") {
		t.Fatal("the long message should not fit on one page")
	}
	for i := 0; i < 20; i++ {
		m = step(t, m, keyType(tea.KeyPgDown))
	}
	v = ansi.Strip(m.View())
	for _, want := range []string{"THE END", "#2 assistant", "→ crewbench_fixture_weather_get_forecast {\"city\":\"Lisbon\"}", "#3 tool ↩ call_1", "Sunny, 24°C"} {
		if !strings.Contains(v, want) {
			t.Errorf("after pgdn the view lacks %q:\n%s", want, v)
		}
	}
	m = step(t, m, keyRunes("v"))
	v = ansi.Strip(m.View())
	if !strings.Contains(v, "Tools offered (1, LLM-visible names)") || !strings.Contains(v, "crewbench_fixture_weather_get_forecast  Forecast for a city.") {
		t.Errorf("v must show the tools:\n%s", v)
	}
	m = step(t, m, keyRunes("v"))
	if m.trace.pauseTab != pauseMessages || m.trace.pause == nil {
		t.Errorf("v again: tab %d", m.trace.pauseTab)
	}
}

// A tool-call pause shows the requested name, the resolved tool, its
// original name and server, and the arguments pretty-printed; an unknown
// tool says what the model will get.
func TestPause_ToolCallShowsWhatIsAboutToBeCalled(t *testing.T) {
	pz := &crew.Pause{Kind: crew.PauseToolCall, TaskName: "forecast_task", AgentRole: "Weekend Forecaster",
		RequestedName: "crewbench_fixture_weather_get_forecast", ToolName: "crewbench_fixture_weather_get_forecast",
		OriginalName: "getForecast", Server: "weather", Args: pyjson.ObjectOf("city", "Lisbon", "days", pyjson.Int(2))}
	m := pausedAt(t, goldenDeps(), 120, 40, pz)
	v := ansi.Strip(m.View())
	for _, want := range []string{"requested name   crewbench_fixture_weather_get_forecast", "resolved tool    crewbench_fixture_weather_get_forecast",
		"original name    getForecast", "server           weather", "Arguments", `  "city": "Lisbon",`, `  "days": 2`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Messages (") {
		t.Error("a tool-call pause has no messages/tools switch")
	}
	pz = &crew.Pause{Kind: crew.PauseToolCall, RequestedName: "get_weather"}
	m = pausedAt(t, goldenDeps(), 120, 40, pz)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "no such tool: the model gets CrewAI's not-found text") {
		t.Errorf("unknown tool:\n%s", v)
	}
}

// At a tool-call breakpoint the panel shows the tool's schema as CrewAI
// renders it for the provider beside the server's raw inputSchema: side by
// side when wide, one at a time when narrow (v switches, and says so in
// the heading and the help).
func TestPause_ToolCallShowsRenderedAndRawSchema(t *testing.T) {
	pz := func() *crew.Pause {
		return &crew.Pause{Kind: crew.PauseToolCall, RequestedName: "w_get_forecast", ToolName: "w_get_forecast",
			OriginalName: "getForecast", Server: "weather", Args: pyjson.ObjectOf("city", "Lisbon"),
			Schema: pauseModel.Schema(), RawSchema: pauseRawSchema}
	}
	const renderedHead, rawHead = "Schema the LLM sees (CrewAI, OpenAI)", "Server's inputSchema (raw)"
	hasView := func(m Model) bool {
		for _, b := range m.trace.ShortHelp() {
			if b.Help().Key == m.trace.km.Pause.View.Help().Key {
				return true
			}
		}
		return false
	}
	// Wide: both, on the same lines.
	m := pausedAt(t, goldenDeps(), 160, 80, pz())
	v := ansi.Strip(m.View())
	if !strings.Contains(v, renderedHead) || !regexp.MustCompile(regexp.QuoteMeta(renderedHead)+`.*│ `+regexp.QuoteMeta(rawHead)).MatchString(v) {
		t.Errorf("wide: the two schemas are not side by side:\n%s", v)
	}
	// The rendered one is CrewAI's (optional as anyOf null, every property
	// required, additionalProperties false); the raw one is the server's.
	if !strings.Contains(v, `"anyOf": [`) || !strings.Contains(v, `"additionalProperties": false,`) || !strings.Contains(v, `"default": 3`) {
		t.Errorf("wide: schemas lack CrewAI's rendering or the raw default:\n%s", v)
	}
	if hasView(m) {
		t.Error("wide: v has nothing to switch, yet the help offers it")
	}

	// Narrow: the rendered one first; v shows the raw one, and back.
	m = pausedAt(t, goldenDeps(), 80, 60, pz())
	v = ansi.Strip(m.View())
	if !strings.Contains(v, renderedHead+"  v raw") || strings.Contains(v, rawHead) {
		t.Errorf("narrow: want the rendered schema alone:\n%s", v)
	}
	if !hasView(m) {
		t.Error("narrow: the help lacks the schema switch")
	}
	m = step(t, m, keyRunes("v"))
	if v = ansi.Strip(m.View()); !strings.Contains(v, rawHead+"  v rendered") || strings.Contains(v, renderedHead) || !strings.Contains(v, `"minimum": 1,`) {
		t.Errorf("narrow, after v: want the raw schema alone:\n%s", v)
	}
	m = step(t, m, keyRunes("v"))
	if v = ansi.Strip(m.View()); !strings.Contains(v, renderedHead) {
		t.Errorf("narrow, v twice: want the rendered schema again:\n%s", v)
	}

	// Anthropic's rendering drops the limits.
	deps := goldenDeps()
	deps.Workspace.LLM = "anthropic/claude-sonnet-4"
	m = pausedAt(t, deps, 80, 60, pz())
	if v = ansi.Strip(m.View()); !strings.Contains(v, "Schema the LLM sees (CrewAI, Anthropic)") || strings.Contains(v, `"minimum"`) {
		t.Errorf("anthropic: want the Anthropic rendering without minimum:\n%s", v)
	}

	// A watched real run: the bridge sends CrewAI's argument model, and
	// CrewAI keeps no raw inputSchema, which the panel says of an MCP tool.
	real := pz()
	real.RawSchema = nil
	m = pausedAt(t, goldenDeps(), 160, 80, real)
	if v = ansi.Strip(m.View()); strings.Contains(v, "CrewAI keeps only") {
		t.Errorf("an engine run's pause speaks of a watched run's limit:\n%s", v)
	}
	m.trace.run.real = true
	m.trace.renderPause()
	if v = ansi.Strip(m.View()); !strings.Contains(v, "(not known: CrewAI keeps only its argument model)") || strings.Contains(v, "(not an MCP tool)") {
		t.Errorf("watched MCP tool without a raw schema:\n%s", v)
	}
}
