package difflib

import (
	"reflect"
	"strings"
	"testing"
)

// Every expected value below is CPython 3.11.7's
// difflib.SequenceMatcher(None, a, b).ratio() / get_matching_blocks().
func TestRatioMatchesPython(t *testing.T) {
	cases := []struct {
		a, b   string
		ratio  float64
		blocks []Match
	}{
		{"abcd", "bcde", 0.75, []Match{{1, 0, 3}, {4, 4, 0}}},
		{"get_forecast", "get_forcast", 0.9565217391304348, []Match{{0, 0, 7}, {8, 7, 4}, {12, 11, 0}}},
		{"weather_get_forecast", "get_forecast", 0.75, []Match{{8, 0, 12}, {20, 12, 0}}},
		{"search", "searhc", 0.8333333333333334, []Match{{0, 0, 4}, {4, 5, 1}, {6, 6, 0}}},
		// Greedy longest-first: "ab" is found first and blocks "cd".
		{"abxcd", "cdxab", 0.4, []Match{{0, 3, 2}, {5, 5, 0}}},
		{"", "", 1.0, []Match{{0, 0, 0}}},
		{"a", "", 0.0, []Match{{1, 0, 0}}},
		{"tide", "diet", 0.25, []Match{{0, 3, 1}, {4, 4, 0}}},
		{"python_servers_inventory_py_lookup_stock", "lookup_stock", 0.46153846153846156, []Match{{28, 0, 12}, {40, 12, 0}}},
		{"localhost_8765_mcp_lookup_stock", "localhost_8765_mcp_lookup_stok", 0.9836065573770492, []Match{{0, 0, 29}, {30, 29, 1}, {31, 30, 0}}},
		{"delegate_work_to_coworker", "delegate_work_to_co_worker", 0.9803921568627451, []Match{{0, 0, 19}, {19, 20, 6}, {25, 26, 0}}},
		{"ask_question_to_coworker", "delegate_work_to_coworker", 0.5714285714285714, []Match{{0, 5, 1}, {2, 12, 1}, {12, 13, 12}, {24, 25, 0}}},
		{"näive", "naive", 0.8, []Match{{0, 0, 1}, {2, 2, 3}, {5, 5, 0}}},
		{"😀x", "x😀", 0.5, []Match{{0, 1, 1}, {2, 2, 0}}},
	}
	for _, c := range cases {
		m := New(c.a, c.b)
		if got := m.Ratio(); got != c.ratio {
			t.Errorf("Ratio(%q, %q) = %v, want %v", c.a, c.b, got, c.ratio)
		}
		if got := m.MatchingBlocks(); !reflect.DeepEqual(got, c.blocks) {
			t.Errorf("MatchingBlocks(%q, %q) = %v, want %v", c.a, c.b, got, c.blocks)
		}
	}
}

// Autojunk: with len(b) >= 200, characters occurring more than len(b)/100+1
// times are dropped from the index, which changes ratio() drastically.
func TestAutojunkMatchesPython(t *testing.T) {
	c := "babcaacabcacaaabbaaacbacaacccaccbaaacabbacacbccaacccabaccacacabccbbbcbbbaacaacbcbbcbbcaacbababbacaccbbcbcbcbaabbccaaccbcccbbcbcbabbacabaabacabbbaabbcbabcbcbbcbaaaaaacaabcabbaabcbccbaccccccabccbbbbabcbaaaabaabcaaacacabcaaacbacbbcbbaabbbbbaaacbcbbcacaa"
	d := "cbacaccbcbcbbbdbbdcaacdcbcdccababdbcbdadcaadbdbdcadddabbbabdbdcbbaaabdbbacbcbccdbacddbbadbabbbdaacdaabbcaadaadcbcddbcbdbdaddcabdabcabcbcbdbaddbbbddcdbccacacddadccaabaaccabcbdcdbdcacabdacaacabacadacdcbababcabbccbcdbccacaaabdbdadddcbbcbbdcaba"
	cases := []struct {
		a, b   string
		ratio  float64
		blocks int
	}{
		{strings.Repeat("ab", 150) + "xyz", strings.Repeat("ab", 120) + "q" + strings.Repeat("ba", 30) + "xyz", 0.800658978583196, 3},
		{c, d, 0.0, 1},
		{strings.Repeat("x", 100) + "abc" + strings.Repeat("y", 150), strings.Repeat("y", 150) + "abc" + strings.Repeat("x", 100), 0.011857707509881422, 2},
	}
	for i, c := range cases {
		m := New(c.a, c.b)
		if got := m.Ratio(); got != c.ratio {
			t.Errorf("case %d: Ratio = %v, want %v", i, got, c.ratio)
		}
		if got := len(m.MatchingBlocks()); got != c.blocks {
			t.Errorf("case %d: %d blocks, want %d", i, got, c.blocks)
		}
	}
}

func FuzzRatio(f *testing.F) {
	f.Add("get_forecast", "get_forcast")
	f.Add(strings.Repeat("a", 300), strings.Repeat("ab", 150))
	f.Fuzz(func(t *testing.T, a, b string) {
		r := Ratio(a, b)
		if r < 0 || r > 1 {
			t.Fatalf("ratio %v out of range", r)
		}
		if a == b && r != 1 {
			t.Fatalf("identical strings ratio %v", r)
		}
		// Blocks never overlap and lie inside both strings.
		m := New(a, b)
		ra, rb := []rune(a), []rune(b)
		prevA, prevB := 0, 0
		for _, x := range m.MatchingBlocks() {
			if x.A < prevA || x.B < prevB || x.A+x.Size > len(ra) || x.B+x.Size > len(rb) {
				t.Fatalf("bad block %v", x)
			}
			if string(ra[x.A:x.A+x.Size]) != string(rb[x.B:x.B+x.Size]) {
				t.Fatalf("block %v does not match", x)
			}
			prevA, prevB = x.A+x.Size, x.B+x.Size
		}
	})
}
