// Package suggest finds the word a user probably meant ("did you mean")
// among the known ones, by edit distance. It is a leaf: it imports nothing
// from the project, so any package (mcpconn/filter included) can use it.
//
// It is not CrewAI's similarity: where CrewAI matches names with Python's
// difflib (the tool an LLM meant, `crewai run`'s unused-input hint), use
// names/difflib, which reproduces its choices exactly.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Limit is the typo tolerance for word: len(word)/3 edits, at least 1, and
// 2 for words of six or more characters ("proces" → "process",
// "expected_ouput" → "expected_output", but "get" → "set" only at 1).
func Limit(word string) int {
	n := utf8.RuneCountInString(word)
	limit := max(1, n/3)
	if n >= 6 {
		limit = max(limit, 2)
	}
	return limit
}

// DidYouMean is Closest(word, candidates, Limit(word)).
func DidYouMean(word string, candidates []string) string {
	return Closest(word, candidates, Limit(word))
}

// Closest returns the candidate nearest to word, ignoring case, within
// maxDist edits (see Within), or "" when none is that close. Ties go to the
// alphabetically first candidate, so the hint does not depend on the
// order candidates come in. A candidate equal to word is skipped: a known
// word needs no suggestion.
func Closest(word string, candidates []string, maxDist int) string {
	lw := strings.ToLower(word)
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		d, ok := Within(lw, strings.ToLower(c), bestD)
		if !ok {
			continue
		}
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// maxRunes bounds the words Within compares in full; longer ones are
// never "close" (a hint for a paragraph is noise, and the table would be
// large).
const maxRunes = 256

// Within returns the edit distance between a and b and true when it is at
// most maxDist, and false as soon as the distance is sure to exceed it
// (the lengths differ by more, or the table's rows do). The distance is
// the optimal string alignment distance in code points: the Levenshtein
// distance (insert, delete or substitute one character) where swapping two
// adjacent characters also counts as one edit, the commonest typo
// ("tpye" → "type"). Only the band of the table within maxDist of the
// diagonal is computed, so a scan over thousands of names (filter hints)
// stays cheap.
func Within(a, b string, maxDist int) (int, bool) {
	if maxDist < 0 {
		return 0, false
	}
	// Names are mostly ASCII: compare bytes then, code points otherwise.
	// Either way the sequences live on the stack for up to 64 characters.
	if isASCII(a) && isASCII(b) {
		if outOfReach(len(a), len(b), maxDist) {
			return 0, false
		}
		var bufA, bufB [64]byte
		return within(append(bufA[:0], a...), append(bufB[:0], b...), maxDist)
	}
	na, nb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	if outOfReach(na, nb, maxDist) {
		return 0, false
	}
	var bufA, bufB [64]rune
	return within(appendRunes(bufA[:0], a), appendRunes(bufB[:0], b), maxDist)
}

// outOfReach: the lengths alone put the distance past maxDist, or the words
// are too long to be worth comparing.
func outOfReach(na, nb, maxDist int) bool {
	d := na - nb
	return d > maxDist || -d > maxDist || na > maxRunes || nb > maxRunes
}

// within fills the table only in the band |i-j| <= maxDist (a path
// outside it already costs more), so a comparison is O(len × maxDist).
// Cells outside the band, and any value past maxDist, count as "too far"
// (maxDist+1): that never turns a distance within maxDist into another.
func within[E byte | rune](ra, rb []E, maxDist int) (int, bool) {
	far := maxDist + 1
	// Three rows of the table (the one two back is for transpositions).
	var stack [3 * 65]int
	n := len(rb) + 1
	var rows []int
	if 3*n <= len(stack) {
		rows = stack[:3*n]
	} else {
		rows = make([]int, 3*n)
	}
	prev2, prev, cur := rows[:n], rows[n:2*n], rows[2*n:]
	for j := range prev {
		prev[j] = min(j, far)
	}
	prevMin := 0
	for i := 1; i <= len(ra); i++ {
		lo, hi := max(1, i-maxDist), min(len(rb), i+maxDist)
		cur[0] = min(i, far)
		if lo > 1 {
			cur[lo-1] = far
		}
		rowMin := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				c = min(c, prev2[j-2]+1)
			}
			cur[j] = c
			rowMin = min(rowMin, c)
		}
		if hi < len(rb) {
			cur[hi+1] = far // the next row's band reaches one further
		}
		// A cell is at least the smallest of the row above and, through a
		// transposition, the row two above plus one: once both are past
		// maxDist, so is everything below.
		if rowMin > maxDist && prevMin >= maxDist {
			return 0, false
		}
		prev2, prev, cur = prev, cur, prev2
		prevMin = rowMin
	}
	if d := prev[len(rb)]; d <= maxDist {
		return d, true
	}
	return 0, false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}
