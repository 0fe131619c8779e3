package writeback

import (
	"slices"
	"testing"
)

// keptEntries keeps a longest run of the old entries in order; where two
// runs are as long, the earlier old entry is the one kept (its line and
// comments stay), and the entry it passes over is written anew.
func TestKeptEntries(t *testing.T) {
	for _, tc := range []struct {
		name         string
		old, entries []string
		want         []int
	}{
		{"unchanged", []string{"a", "b"}, []string{"a", "b"}, []int{0, 1}},
		{"one removed", []string{"a", "b", "c"}, []string{"a", "c"}, []int{0, -1, 1}},
		{"one added in the middle", []string{"a", "c"}, []string{"a", "b", "c"}, []int{0, 2}},
		{"swapped: the first old entry stays", []string{"a", "b"}, []string{"b", "a"}, []int{1, -1}},
		{"all new", []string{"a"}, []string{"x", "y"}, []int{-1}},
		{"none left", []string{"a", "b"}, nil, []int{-1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := keptEntries(tc.old, tc.entries); !slices.Equal(got, tc.want) {
				t.Errorf("keptEntries(%q, %q) = %v, want %v", tc.old, tc.entries, got, tc.want)
			}
		})
	}
}
