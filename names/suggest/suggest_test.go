package suggest

import (
	"testing"
	"unicode/utf8"
)

// osaReference is the textbook full-table optimal string alignment
// distance, the oracle the banded, row-saving Within is checked against.
func osaReference(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func TestWithinDistances(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"tpye", "type", 1}, // a swap is one edit (plain Levenshtein says 2)
		{"contnet", "content", 1},
		{"replys", "replies", 2},
		{"proces", "process", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // OSA, not Damerau: no edit of a swapped pair
		{"größe", "grösse", 2},
		{"get_forcast", "get_forecast", 1},
	} {
		if got, ok := Within(tc.a, tc.b, 100); !ok || got != tc.want {
			t.Errorf("Within(%q, %q, 100) = %d, %v; want %d", tc.a, tc.b, got, ok, tc.want)
		}
		if got := osaReference(tc.a, tc.b); got != tc.want {
			t.Errorf("reference(%q, %q) = %d, want %d (bad table)", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestWithinStopsEarly(t *testing.T) {
	for _, tc := range []struct {
		a, b    string
		max     int
		want    int
		wantHit bool
	}{
		{"get_forecast", "get_forecast", 0, 0, true},
		{"get_forcast", "get_forecast", 1, 1, true},
		{"get_forcast", "get_forecast", 0, 0, false},
		{"delete_everything", "get_forecast", 2, 0, false},
		{"ab", "ba", 1, 1, true},     // the swap needs the row two back
		{"abcd", "badc", 2, 2, true}, // two swaps
		{"a", "abcd", 2, 0, false},   // lengths alone rule it out
		{"x", "y", -1, 0, false},
	} {
		got, hit := Within(tc.a, tc.b, tc.max)
		if got != tc.want || hit != tc.wantHit {
			t.Errorf("Within(%q, %q, %d) = %d, %v; want %d, %v", tc.a, tc.b, tc.max, got, hit, tc.want, tc.wantHit)
		}
	}
}

func TestClosest(t *testing.T) {
	fields := []string{"role", "goal", "backstory", "max_iter", "process", "expected_output", "tools"}
	for _, tc := range []struct {
		word string
		max  int // -1: DidYouMean's Limit
		want string
	}{
		{"max_iters", -1, "max_iter"},
		{"proces", -1, "process"},
		{"expected_ouput", -1, "expected_output"},
		{"Role", -1, "role"}, // case is ignored
		{"rol", -1, "role"},
		{"backstroy", -1, "backstory"}, // a swap
		{"zzz", -1, ""},
		{"role", -1, ""},     // known words get no suggestion
		{"tols", 2, "tools"}, // explicit limit
		{"gaol", 1, "goal"},  // swap within 1
		{"xyzzy", 2, ""},     // nothing close
		{"toal", 1, "goal"},  // one substitution; "tools" is two edits away
	} {
		var got string
		if tc.max < 0 {
			got = DidYouMean(tc.word, fields)
		} else {
			got = Closest(tc.word, fields, tc.max)
		}
		if got != tc.want {
			t.Errorf("suggest %q (max %d) = %q, want %q", tc.word, tc.max, got, tc.want)
		}
	}
	// Ties do not depend on the candidates' order.
	if a, b := Closest("cat", []string{"rat", "bat"}, 1), Closest("cat", []string{"bat", "rat"}, 1); a != "bat" || b != "bat" {
		t.Errorf("tie: %q, %q; want bat both ways", a, b)
	}
}

func TestLimit(t *testing.T) {
	for word, want := range map[string]int{"": 1, "ab": 1, "get": 1, "proces": 2, "expected_ouput": 4, "größe": 1} {
		if got := Limit(word); got != want {
			t.Errorf("Limit(%q) = %d, want %d", word, got, want)
		}
	}
}

// FuzzWithin: the bounded distance agrees with the full table for every
// bound, and reports a miss exactly when the distance exceeds the bound.
func FuzzWithin(f *testing.F) {
	f.Add("tpye", "type", 1)
	f.Add("kitten", "sitting", 2)
	f.Add("abcd", "badc", 2)
	f.Add("", "xyz", 0)
	f.Fuzz(func(t *testing.T, a, b string, max int) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a) > 64 || len(b) > 64 {
			return
		}
		max %= 70
		want := osaReference(a, b)
		got, hit := Within(a, b, max)
		if hit != (max >= 0 && want <= max) || (hit && got != want) {
			t.Fatalf("Within(%q, %q, %d) = %d, %v; distance is %d", a, b, max, got, hit, want)
		}
		if d, ok := Within(a, b, 200); !ok || d != want {
			t.Fatalf("Within(%q, %q, 200) = %d, %v; want %d", a, b, d, ok, want)
		}
	})
}

func BenchmarkWithinMiss(b *testing.B) {
	for b.Loop() {
		Within("delete_everything", "get_forecast_for_the_week", 2)
	}
}
