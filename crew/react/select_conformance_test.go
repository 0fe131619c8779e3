package react

// Conformance of ToolUsage._select_tool (crewai-semantics.md §5.1 step 2):
// sanitize the request, rank by difflib ratio (stable, best first), accept
// an exact match or a ratio strictly above 0.85, else CrewAI's texts with
// the raw requested name. Ratios in the comments come from CPython's
// difflib.

import "testing"

func TestConformanceSelectTool(t *testing.T) {
	const desc = "Tool Name: x\nTool Arguments: {}\nTool Description: d"
	cases := []struct {
		requested string
		tools     []string
		want      int
		err       string
	}{
		{"get_forecast", []string{"lookup", "get_forecast"}, 1, ""},
		{"Get Forecast", []string{"lookup", "get_forecast"}, 1, ""}, // sanitized first
		{"getForecast", []string{"get_forecast"}, 0, ""},
		{"get_forcast", []string{"lookup", "get_forecast"}, 1, ""}, // 0.9565
		{"searches", []string{"search"}, 0, ""},                    // 0.8571 > 0.85
		{"abcdefghijklmnopqxyz", []string{"abcdefghijklmnopqrst"}, -1, // exactly 0.85: rejected
			"Action 'abcdefghijklmnopqxyz' don't exist, these are the only available Actions:\n" + desc},
		{"get_weathers_now", []string{"get_weather"}, -1, // 0.8148
			"Action 'get_weathers_now' don't exist, these are the only available Actions:\n" + desc},
		{"Lookup Stock!", []string{"search"}, -1, // the raw name in the text
			"Action 'Lookup Stock!' don't exist, these are the only available Actions:\n" + desc},
		{"", []string{"search"}, -1, "I forgot the Action name, these are the only available Actions: " + desc},
		// Equal names: the first in list order wins (stable sort).
		{"dup", []string{"other", "dup", "dup"}, 1, ""},
		// Best ratio first: both pass 0.85, the closer one is chosen.
		{"lookup_stocks", []string{"lookup_stock", "lookup_stocks_"}, 1, ""},
	}
	for _, c := range cases {
		got, err := SelectTool(c.requested, c.tools, desc)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != c.want || gotErr != c.err {
			t.Errorf("SelectTool(%q, %v) = %d, %q; want %d, %q", c.requested, c.tools, got, gotErr, c.want, c.err)
		}
	}
}
