package export

import (
	"fmt"
	"strings"
)

// maxLCSCells bounds the LCS table (4M cells, 16 MB).
const maxLCSCells = 4 << 20

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// UnifiedDiff is a unified diff (as `diff -u` prints it) between old and
// new content of the file shown as name; "" when they are equal.
func UnifiedDiff(name string, oldText, newText []byte) string {
	a, b := splitLines(string(oldText)), splitLines(string(newText))
	ops := diffLines(a, b)
	changed := false
	for _, o := range ops {
		if o.kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	// group ops into hunks with diffContext lines of context
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i >= len(ops) {
			break
		}
		start := i - diffContext
		if start < 0 {
			start = 0
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// a run of unchanged lines: does another change follow closely?
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run < len(ops) && run-end <= 2*diffContext {
				end = run
				continue
			}
			end += diffContext
			if end > len(ops) {
				end = len(ops)
			}
			break
		}
		h := ops[start:end]
		aStart, bStart, aLen, bLen := h[0].a, h[0].b, 0, 0
		for _, o := range h {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, o := range h {
			line := o.text
			out.WriteByte(o.kind)
			out.WriteString(strings.TrimSuffix(line, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange is "start,len" with diff's conventions (1-based; an empty range
// names the line before it).
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// op is one line of a diff: ' ' kept, '-' removed, '+' added; a and b are
// the 0-based line numbers in the old and new text where it applies.
type op struct {
	kind byte
	text string
	a, b int
}

// diffLines computes a shortest edit script: common prefix and suffix are
// matched first (edits are local), the middle by longest common
// subsequence.
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', a[i], i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	if n*m > maxLCSCells {
		// too big to align line by line: replace the middle as a whole
		for i := 0; i < n; i++ {
			ops = append(ops, op{'-', ma[i], pre + i, pre})
		}
		for j := 0; j < m; j++ {
			ops = append(ops, op{'+', mb[j], pre + n, pre + j})
		}
		for k := 0; k < suf; k++ {
			ops = append(ops, op{' ', a[len(a)-suf+k], len(a) - suf + k, len(b) - suf + k})
		}
		return ops
	}
	// LCS table over the middle
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else if lcs[i+1][j] >= lcs[i][j+1] {
				lcs[i][j] = lcs[i+1][j]
			} else {
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && ma[i] == mb[j]:
			ops = append(ops, op{' ', ma[i], pre + i, pre + j})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', ma[i], pre + i, pre + j})
			i++
		default:
			ops = append(ops, op{'+', mb[j], pre + i, pre + j})
			j++
		}
	}
	for k := 0; k < suf; k++ {
		ops = append(ops, op{' ', a[len(a)-suf+k], len(a) - suf + k, len(b) - suf + k})
	}
	return ops
}
