// Package difflib is Python's difflib.SequenceMatcher over strings (code
// points), with isjunk=None and autojunk=True: the exact algorithm behind
// ratio(), which CrewAI uses to pick the tool an LLM meant (ratio > 0.85).
// A different similarity (Levenshtein, LCS) picks different tools on real
// names, so this is a port of the algorithm, not an approximation.
package difflib

// Match is a matching block: a[A:A+Size] == b[B:B+Size].
type Match struct{ A, B, Size int }

// Matcher compares two sequences of code points.
type Matcher struct {
	a, b []rune
	b2j  map[rune][]int
	// bjunk is empty (isjunk=None) but kept so the extension loops read as
	// in Python; bpopular holds the autojunk-removed elements.
	bpopular map[rune]bool
	blocks   []Match
}

// New is SequenceMatcher(None, a, b).
func New(a, b string) *Matcher {
	m := &Matcher{a: []rune(a), b: []rune(b)}
	m.chainB()
	return m
}

// Ratio is SequenceMatcher(None, a, b).ratio().
func Ratio(a, b string) float64 { return New(a, b).Ratio() }

// chainB builds b2j: every element of b to the ascending list of its
// indices. With autojunk, when len(b) >= 200, elements occurring more than
// len(b)/100 + 1 times are "popular" and dropped from b2j.
func (m *Matcher) chainB() {
	m.b2j = make(map[rune][]int)
	for i, r := range m.b {
		m.b2j[r] = append(m.b2j[r], i)
	}
	m.bpopular = map[rune]bool{}
	n := len(m.b)
	if n >= 200 {
		ntest := n/100 + 1
		for r, idx := range m.b2j {
			if len(idx) > ntest {
				m.bpopular[r] = true
			}
		}
		for r := range m.bpopular {
			delete(m.b2j, r)
		}
	}
}

// isBJunk is always false: isjunk=None gives an empty bjunk set. (Popular
// elements are not junk for the extension loops, exactly as in Python.)
func (m *Matcher) isBJunk(rune) bool { return false }

// FindLongestMatch is find_longest_match(alo, ahi, blo, bhi): the longest
// matching block in a[alo:ahi] and b[blo:bhi], earliest in a, then earliest
// in b among ties; extended over junk-free equal neighbours (which is how
// popular elements still join a match).
func (m *Matcher) FindLongestMatch(alo, ahi, blo, bhi int) Match {
	a, b := m.a, m.b
	besti, bestj, bestsize := alo, blo, 0
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		newj2len := map[int]int{}
		for _, j := range m.b2j[a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			newj2len[j] = k
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		j2len = newj2len
	}
	// Extend with non-junk equal elements on both sides (catches popular
	// elements, which b2j does not index).
	for besti > alo && bestj > blo && !m.isBJunk(b[bestj-1]) && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && !m.isBJunk(b[bestj+bestsize]) && a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	// The junk passes: with an empty bjunk they never move anything.
	for besti > alo && bestj > blo && m.isBJunk(b[bestj-1]) && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.isBJunk(b[bestj+bestsize]) && a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	return Match{besti, bestj, bestsize}
}

// MatchingBlocks is get_matching_blocks(): the non-overlapping blocks found
// by recursing on either side of the longest match, sorted, adjacent blocks
// merged, and terminated by the sentinel {len(a), len(b), 0}.
func (m *Matcher) MatchingBlocks() []Match {
	if m.blocks != nil {
		return m.blocks
	}
	la, lb := len(m.a), len(m.b)
	type span struct{ alo, ahi, blo, bhi int }
	queue := []span{{0, la, 0, lb}}
	var found []Match
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		x := m.FindLongestMatch(q.alo, q.ahi, q.blo, q.bhi)
		if x.Size == 0 {
			continue
		}
		found = append(found, x)
		if q.alo < x.A && q.blo < x.B {
			queue = append(queue, span{q.alo, x.A, q.blo, x.B})
		}
		if x.A+x.Size < q.ahi && x.B+x.Size < q.bhi {
			queue = append(queue, span{x.A + x.Size, q.ahi, x.B + x.Size, q.bhi})
		}
	}
	sortMatches(found)
	var out []Match
	i1, j1, k1 := 0, 0, 0
	for _, x := range found {
		if i1+k1 == x.A && j1+k1 == x.B {
			k1 += x.Size
			continue
		}
		if k1 > 0 {
			out = append(out, Match{i1, j1, k1})
		}
		i1, j1, k1 = x.A, x.B, x.Size
	}
	if k1 > 0 {
		out = append(out, Match{i1, j1, k1})
	}
	out = append(out, Match{la, lb, 0})
	m.blocks = out
	return out
}

// sortMatches sorts by (A, B, Size) like Python's tuple sort. The list is
// short; insertion sort keeps the package dependency-free.
func sortMatches(s []Match) {
	less := func(x, y Match) bool {
		if x.A != y.A {
			return x.A < y.A
		}
		if x.B != y.B {
			return x.B < y.B
		}
		return x.Size < y.Size
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Ratio is 2*M/T, M the matched elements and T the total length; 1.0 when
// both are empty.
func (m *Matcher) Ratio() float64 {
	matches := 0
	for _, x := range m.MatchingBlocks() {
		matches += x.Size
	}
	t := len(m.a) + len(m.b)
	if t == 0 {
		return 1.0
	}
	return 2.0 * float64(matches) / float64(t)
}
