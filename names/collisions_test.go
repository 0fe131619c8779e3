package names

import (
	"strings"
	"testing"
)

func TestDedupeNative(t *testing.T) {
	long := strings.Repeat("x", 64)
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"search", "search", "search"}, []string{"search", "search_2", "search_3"}},
		{[]string{"Search", "search"}, []string{"search", "search_2"}},
		{[]string{"getForecast", "get_forecast", "Get Forecast"}, []string{"get_forecast", "get_forecast_2", "get_forecast_3"}},
		// A tool already called search_2 takes that name; the duplicate moves on.
		{[]string{"search", "search_2", "search"}, []string{"search", "search_2", "search_3"}},
		// Every candidate is re-sanitized: a 64-character name plus _2 is hashed.
		{[]string{long, long}, []string{long, Sanitize(long + "_2")}},
		{[]string{"天气", "预报"}, []string{"", "2"}},
		{nil, []string{}},
	} {
		got := DedupeNative(tc.in)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || len(got) != len(tc.want) {
			t.Errorf("DedupeNative(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if h := Sanitize(long + "_2"); len(h) != 64 || !strings.HasPrefix(h, strings.Repeat("x", 55)+"_") {
		t.Errorf("hashed collision name %q", h)
	}
}

func TestCollisionName(t *testing.T) {
	if got := CollisionName("search", 2); got != "search_2" {
		t.Errorf("got %q", got)
	}
	if got := CollisionName("search", 3); got != "search_3" {
		t.Errorf("got %q", got)
	}
}

func mustResolve(t *testing.T, in Input) Result {
	t.Helper()
	r, err := Resolve(in)
	if err != nil {
		t.Fatalf("Resolve(%+v): %v", in, err)
	}
	return r
}

func TestCollisions(t *testing.T) {
	rs := []Result{
		mustResolve(t, Input{Kind: KindTool, Name: "getForecast"}),
		mustResolve(t, Input{Kind: KindTool, Name: "lookup"}),
		mustResolve(t, Input{Kind: KindTool, Name: "get_forecast"}),
		mustResolve(t, Input{Kind: KindRef, Ref: "https://h/mcp#x", Tool: "y"}), // not selected: ignored
		mustResolve(t, Input{Kind: KindTool, Name: "Get Forecast"}),
	}
	cols := Collisions(rs)
	if len(cols) != 1 || cols[0].LLMName != "get_forecast" || len(cols[0].Members) != 3 ||
		cols[0].Members[0] != 0 || cols[0].Members[1] != 2 || cols[0].Members[2] != 4 {
		t.Fatalf("Collisions = %+v", cols)
	}
	out := WithCollisions(rs)
	for i, want := range []bool{true, false, true, false, true} {
		if Has(out[i].Diagnostics, CodeCollision) != want {
			t.Errorf("result %d collision diagnostic = %v, want %v", i, !want, want)
		}
		if Has(rs[i].Diagnostics, CodeCollision) {
			t.Errorf("WithCollisions modified its input (result %d)", i)
		}
	}
	if msg := diagOf(out[2], CodeCollision).Message; !strings.Contains(msg, "get_forecast_2") || !strings.Contains(msg, `"getForecast" (#1)`) {
		t.Errorf("second member's message: %s", msg)
	}
	if msg := diagOf(out[4], CodeCollision).Message; !strings.Contains(msg, "get_forecast_3") {
		t.Errorf("third member's message: %s", msg)
	}
	if len(Collisions(rs[:2])) != 0 || len(WithCollisions(nil)) != 0 {
		t.Error("no collision expected")
	}
}

func TestCollisionsHTTPSRefLastWins(t *testing.T) {
	rs := WithCollisions([]Result{
		mustResolve(t, Input{Kind: KindRef, Ref: "https://h.example/mcp", Tool: "getForecast"}),
		mustResolve(t, Input{Kind: KindRef, Ref: "https://h.example/mcp", Tool: "get_forecast"}),
	})
	if msg := diagOf(rs[1], CodeCollision).Message; !strings.Contains(msg, "keeps only the last") {
		t.Errorf("https collision message lacks the last-wins note: %s", msg)
	}
}

// diagOf returns the diagnostic with code, or a zero one.
func diagOf(r Result, code Code) Diagnostic {
	for _, d := range r.Diagnostics {
		if d.Code == code {
			return d
		}
	}
	return Diagnostic{}
}
