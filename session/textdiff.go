package session

import (
	"fmt"
	"strings"
)

// UnifiedDiff returns a unified diff (as `diff -u` prints it) turning a into
// b, line by line, with context lines around each change; "" when the texts
// are equal. The headers name the two sides nameA and nameB.
//
// The edit script is a longest common subsequence of the lines after the
// common prefix and suffix are set aside, so typical outputs (a sentence or
// a bullet changed) cost little. Texts whose differing middles would need
// more than maxLCSCells comparisons are shown as one replaced block rather
// than spending seconds on an optimal script.
func UnifiedDiff(a, b, nameA, nameB string, context int) string {
	if a == b {
		return ""
	}
	if context < 0 {
		context = 0
	}
	al, bl := splitLines(a), splitLines(b)
	ops := lineOps(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	for _, h := range hunks(ops, context) {
		out.WriteString(h)
	}
	return out.String()
}

// maxLCSCells bounds the LCS table (rows × columns) of one diff.
const maxLCSCells = 4 << 20

// diffOp is one line of an edit script: ' ' kept, '-' only in a, '+' only in b.
type diffOp struct {
	kind   byte
	text   string
	ai, bi int // 0-based line numbers in a and b (the next line for inserts/deletes)
}

// splitLines splits on "\n", marking a missing final newline the way diff does.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = strings.TrimSuffix(l, "\n")
		} else {
			lines[i] = l + "\n\\ No newline at end of file"
		}
	}
	return lines
}

func lineOps(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, middleOps(am, bm, pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', a[ai], ai, bi})
	}
	return ops
}

// middleOps diffs the differing middle; off is its offset in both texts.
func middleOps(a, b []string, off int) []diffOp {
	n, m := len(a), len(b)
	var ops []diffOp
	if n == 0 || m == 0 || (n+1)*(m+1) > maxLCSCells {
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, off + i, off})
		}
		for j, l := range b {
			ops = append(ops, diffOp{'+', l, off + n, off + j})
		}
		return ops
	}
	lcs := LCSTable(a, b)
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], off + i, off + j})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, diffOp{'+', b[j], off + i, off + j})
			j++
		default:
			ops = append(ops, diffOp{'-', a[i], off + i, off + j})
			i++
		}
	}
	return ops
}

// LCSTable is the longest-common-subsequence table of a and b: t[i][j]
// is the LCS length of a[i:] and b[j:], for i up to len(a) and j up to
// len(b). Callers walk it from t[0][0], each choosing its own way through
// ties (a diff drops a's line first, crew/writeback keeps a's entry), and
// bound their inputs: it holds (len(a)+1)×(len(b)+1) cells.
func LCSTable(a, b []string) [][]int32 {
	n, m := len(a), len(b)
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t
}

// hunks groups changes with their context into "@@ -a,n +b,m @@" blocks.
func hunks(ops []diffOp, context int) []string {
	var out []string
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-context)
		end := i
		// Extend while the next change is within 2×context kept lines.
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(len(ops), end+context)
				break
			}
			end = run
		}
		out = append(out, renderHunk(ops[start:end]))
		i = end
	}
	return out
}

func renderHunk(ops []diffOp) string {
	aStart, bStart := ops[0].ai, ops[0].bi
	aLen, bLen := 0, 0
	var body strings.Builder
	for _, op := range ops {
		switch op.kind {
		case ' ':
			aLen++
			bLen++
		case '-':
			aLen++
		case '+':
			bLen++
		}
		body.WriteByte(op.kind)
		body.WriteString(op.text)
		body.WriteByte('\n')
	}
	return fmt.Sprintf("@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen)) + body.String()
}

// hunkRange prints a 1-based range; an empty range names the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
