package ui

import (
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
