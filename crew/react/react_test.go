package react

import (
	"strings"
	"testing"

	"crewbench/crew/pyjson"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name              string
		text              string
		tool, input, want string // want = final output
		errPrefix         string
	}{
		{name: "action", text: "Thought: look it up\nAction: get_forecast\nAction Input: {\"city\": \"Paris\"}", tool: "get_forecast", input: `{"city": "Paris"}`},
		{name: "numbered and starred", text: "Action 1: **get_forecast**\nAction 1 Input: {\"city\": \"Paris\", \"days\": 2}\n", tool: "get_forecast", input: `{"city": "Paris", "days": 2}`},
		{name: "python dict input repaired", text: "Action: get_forecast\nAction Input: {'city': 'Paris'}", tool: "get_forecast", input: `{"city": "Paris"}`},
		{name: "final answer wins over action", text: "Action: x\nAction Input: {}\nFinal Answer: 42", want: "42"},
		{name: "last final answer", text: "Final Answer: a\nFinal Answer:  b  ", want: "b"},
		{name: "odd backticks removed", text: "Final Answer: ```json\n{}\n```\n```", want: "```json\n{}\n```"},
		{name: "even backticks kept", text: "Final Answer: ```x```", want: "```x```"},
		{name: "missing action", text: "I think I know", errPrefix: "I did it wrong. Invalid Format: I missed the 'Action:'"},
		{name: "missing input", text: "Action: get_forecast", errPrefix: "I did it wrong. Invalid Format: I missed the 'Action Input:'"},
	}
	for _, c := range cases {
		a, f, err := Parse(c.text)
		switch {
		case c.errPrefix != "":
			if err == nil || !strings.HasPrefix(err.Error(), c.errPrefix) {
				t.Errorf("%s: err = %v, want prefix %q", c.name, err, c.errPrefix)
			}
		case c.tool != "":
			if err != nil || a == nil || a.Tool != c.tool || a.Input != c.input {
				t.Errorf("%s: got %+v %v", c.name, a, err)
			}
		default:
			if err != nil || f == nil || f.Output != c.want {
				t.Errorf("%s: got %+v %v, want %q", c.name, f, err, c.want)
			}
		}
	}
}

func TestFormatAnswerTurnsParseErrorsIntoFinalAnswers(t *testing.T) {
	_, f, err := FormatAnswer("just prose")
	if err == nil || f == nil || f.Output != "just prose" || f.Thought != FailedParseThought {
		t.Fatalf("got %+v %v", f, err)
	}
}

func TestParseToolInputOrder(t *testing.T) {
	cases := map[string]string{
		`{"a": 1, "b": [true]}`:     `{"a": 1, "b": [true]}`,
		`{'a': 1, 'b': [True]}`:     `{"a": 1, "b": [true]}`,
		`{a: 1, b: [true],}`:        `{"a": 1, "b": [true]}`,
		`{"a": 1, "b": "unfinished`: `{"a": 1, "b": "unfinished"}`,
	}
	for in, want := range cases {
		o, err := ParseToolInput(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := pyjson.Dumps(o); got != want {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "  ", "[1, 2]", "hello", `"text"`} {
		if _, err := ParseToolInput(bad); err == nil || err.Error() != "Tool input must be a valid dictionary in JSON or Python literal format" {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

func TestSelectTool(t *testing.T) {
	tools := []string{"weather_get_forecast", "weather_get_alerts", "get_forecast"}
	desc := "Tool Name: weather_get_forecast\n..."
	cases := []struct {
		req  string
		want int
	}{
		{"get_forecast", 2},         // exact beats fuzzy
		{"getForecast", 2},          // sanitized before comparing
		{"weather_get_forcast", 0},  // ratio 0.974 > 0.85
		{"Weather Get Alerts", 1},   // sanitizes to an exact name
		{"weather_alerts", 1},       // Python: ratio 0.875 > 0.85
		{"get_forcast_weather", -1}, // best ratio below 0.85
	}
	for _, c := range cases {
		got, err := SelectTool(c.req, tools, desc)
		if c.want >= 0 && (err != nil || got != c.want) {
			t.Errorf("SelectTool(%q) = %d, %v; want %d", c.req, got, err, c.want)
		}
		if c.want < 0 && err == nil {
			t.Errorf("SelectTool(%q) = %d, want no match", c.req, got)
		}
	}
	_, err := SelectTool("nope", tools, desc)
	want := "Action 'nope' don't exist, these are the only available Actions:\n" + desc
	if err == nil || err.Error() != want {
		t.Errorf("unknown tool error = %q, want %q", err, want)
	}
	_, err = SelectTool("", tools, desc)
	if err == nil || err.Error() != "I forgot the Action name, these are the only available Actions: "+desc {
		t.Errorf("empty name error = %q", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"Action: a\nAction Input: {\"x\": 1}", "Final Answer: x", "Action:", "Action 2 : y Action 2 Input : 'q'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, fin, err := FormatAnswer(s)
		if (a == nil) == (fin == nil) {
			t.Fatalf("exactly one of action/finish expected: %v %v %v", a, fin, err)
		}
		if a != nil {
			_, _ = ParseToolInput(a.Input)
		}
	})
}
