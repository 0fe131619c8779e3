package project

import (
	"sort"
	"strings"
)

// suggest returns the candidate closest to word for a "did you mean"
// hint, or "" when nothing is close: an optimal-string-alignment distance of
// at most max(1, len(word)/3) (2 for words of six or more characters),
// ties broken alphabetically.
func suggest(word string, candidates []string) string {
	limit := len(word) / 3
	if limit < 1 {
		limit = 1
	}
	if len(word) >= 6 && limit < 2 {
		limit = 2
	}
	best, bestD := "", limit+1
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	lw := strings.ToLower(word)
	for _, c := range sorted {
		if c == word {
			continue
		}
		d := osaDistance(lw, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// osaDistance is the Levenshtein distance with adjacent transpositions.
func osaDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 256 || len(rb) > 256 {
		return len(ra) + len(rb)
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
