package session

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The expected hunks are what GNU diff -u prints for the same inputs.
func TestUnifiedDiffMatchesDiffU(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"two changes in one hunk", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\nk\n",
			"@@ -1,10 +1,11 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n h\n-i\n+I\n j\n+k\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
			"@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n"},
		{"missing final newline", "one\ntwo", "one\ntwo\n",
			"@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+two\n"},
		{"a replacement and a deletion in two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n", "1\ntwo\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n15\n",
			"@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -11,5 +11,4 @@\n 11\n 12\n 13\n-14\n 15\n"},
		{"no final newline on either side", "a", "b", "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
		{"from empty", "", "x\n", "@@ -0,0 +1 @@\n+x\n"},
		{"to empty", "x\n", "", "@@ -1 +0,0 @@\n-x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := UnifiedDiff(tt.a, tt.b, "a", "b", 3)
			want := ""
			if tt.want != "" {
				want = "--- a\n+++ b\n" + tt.want
			}
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// Large differing texts fall back to one replaced block instead of a
// quadratic table, and the diff still applies.
func TestUnifiedDiffLargeFallsBack(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	d := UnifiedDiff(a.String(), b.String(), "a", "b", 3)
	if got, err := applyUnified(a.String(), d); err != nil || got != b.String() {
		t.Fatalf("patch failed: %v", err)
	}
}

func FuzzUnifiedDiffApplies(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n", 3)
	f.Add("one\ntwo", "one\ntwo\n", 1)
	f.Add("", "x", 0)
	f.Add("x\ny\nx\ny\nx\n", "y\nx\ny\n", 2)
	f.Fuzz(func(t *testing.T, a, b string, context int) {
		context %= 8
		d := UnifiedDiff(a, b, "a", "b", context)
		if (d == "") != (a == b) {
			t.Fatalf("empty diff = %v for equal = %v", d == "", a == b)
		}
		got, err := applyUnified(a, d)
		if err != nil {
			t.Fatalf("%v\ndiff:\n%s", err, d)
		}
		if got != b {
			t.Fatalf("patched %q, want %q\ndiff:\n%s", got, b, d)
		}
	})
}

// applyUnified applies a diff produced by UnifiedDiff, checking every
// context and removed line against a.
func applyUnified(a, diff string) (string, error) {
	if diff == "" {
		return a, nil
	}
	src := splitLines(a)
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no header")
	}
	var out []string
	pos := 0
	for i := 2; i < len(lines); {
		h := lines[i]
		parts := strings.Fields(h)
		if len(parts) != 4 || parts[0] != "@@" || parts[3] != "@@" || !strings.HasPrefix(parts[1], "-") || !strings.HasPrefix(parts[2], "+") {
			return "", fmt.Errorf("bad hunk header %q", h)
		}
		aStart, aLen := parseRange(parts[1][1:])
		_, bLen := parseRange(parts[2][1:])
		from := aStart - 1
		if aLen == 0 {
			from = aStart
		}
		if from < pos {
			return "", fmt.Errorf("overlapping hunk %q", h)
		}
		out = append(out, src[pos:from]...)
		pos = from
		i++
		gotA, gotB := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			text := l[1:]
			if i < len(lines) && lines[i] == `\ No newline at end of file` {
				text += "\n" + lines[i]
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					return "", fmt.Errorf("line %d does not match %q", pos+1, text)
				}
				pos++
				gotA++
				if l[0] == ' ' {
					out = append(out, text)
					gotB++
				}
			case '+':
				out = append(out, text)
				gotB++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if gotA != aLen || gotB != bLen {
			return "", fmt.Errorf("hunk %q has %d/%d lines", h, gotA, gotB)
		}
	}
	out = append(out, src[pos:]...)
	var s strings.Builder
	for _, l := range out {
		if t, ok := strings.CutSuffix(l, "\n\\ No newline at end of file"); ok {
			s.WriteString(t)
			continue
		}
		s.WriteString(l + "\n")
	}
	return s.String(), nil
}

func parseRange(r string) (start, n int) {
	s, l, ok := strings.Cut(r, ",")
	start, _ = strconv.Atoi(s)
	n = 1
	if ok {
		n, _ = strconv.Atoi(l)
	}
	return start, n
}

// LCSTable[i][j] is the LCS length of a[i:] and b[j:].
func TestLCSTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []string
		want [][]int32
	}{
		{"empty", nil, nil, [][]int32{{0}}},
		{"one side empty", []string{"x"}, nil, [][]int32{{0}, {0}}},
		{"swapped", []string{"a", "b"}, []string{"b", "a"}, [][]int32{{1, 1, 0}, {1, 0, 0}, {0, 0, 0}}},
		{"common middle", []string{"a", "m", "b"}, []string{"m"}, [][]int32{{1, 0}, {1, 0}, {0, 0}, {0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LCSTable(tc.a, tc.b); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("LCSTable(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}
