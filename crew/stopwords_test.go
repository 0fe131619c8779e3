package crew

import (
	"strings"
	"testing"

	"crewbench/session"
)

// A native agent's text answer is cut at the executor's stop words by
// CrewAI's OpenAI provider and stripped (llms/base_llm.py:455-495,
// llms/providers/openai/completion.py:1997): the request carries no
// "stop", the llm_call_started event has the stop words and
// llm_call_completed the cut answer, which is the task's output.
func TestNativeTextAnswerIsCutAtTheStopWords(t *testing.T) {
	cs, prov := newChatServer(t, "  Mild and dry.  \nObservation: I made this up\nFinal Answer: no")
	a := NewAgent("w", "Forecaster", "Forecast", "You forecast.", prov)
	a.Model = "gpt-4o"
	a.Tools = []Tool{pingTool()}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Mild and dry." {
		t.Errorf("raw %q, want the answer cut at the stop word and stripped", r.out.Raw)
	}
	body := cs.body(t, 0)
	if strings.Contains(body, `"stop"`) || !strings.Contains(body, `"tools":[`) {
		t.Errorf("request %s: want native tools and no stop", body)
	}
	for _, ev := range r.events {
		switch ev.Kind {
		case session.LLMCallStarted:
			if stops, _ := ev.Data["stop_sequences"].([]string); len(stops) != 1 || stops[0] != "\nObservation:" {
				t.Errorf("stop_sequences %q", stops)
			}
		case session.LLMCallCompleted:
			if ev.Data["response"] != "Mild and dry." {
				t.Errorf("completed response %q", ev.Data["response"])
			}
		}
	}
}
