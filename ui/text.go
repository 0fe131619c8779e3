package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// prettyJSON indents raw JSON without decoding it, so key order, number
// spelling and unknown fields survive byte for byte (lossless schemas).
// Invalid JSON is returned as it is.
func prettyJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// jsonLine marshals v on one line without HTML escaping.
func jsonLine(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// indentJSON marshals v indented without HTML escaping.
func indentJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// wrapText hard-wraps every line of s to w cells (ANSI-aware), keeping
// words together where possible.
func wrapText(s string, w int) string {
	if w <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Wrap(l, w, " ,/_-")
		}
	}
	return strings.Join(lines, "\n")
}

// foldSpaces collapses whitespace runs (newlines included) to single spaces.
func foldSpaces(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fmtDur renders a duration for people: 850ms, 1.2s, 2m03s.
// rowLabel keeps a label from a project (an agent's role, a task's name)
// on the one line of its row: a folded YAML scalar (`role: >`) ends in a
// newline, which is trimmed; a newline inside shows as ⏎, as the CLI's
// printer shows it.
func rowLabel(s string) string {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\r", " ", "\t", " ").Replace(s)
	}
	return printable(s)
}

// causeFirst puts the innermost cause of a wrapped error message ("a: b:
// cause") in front, for a one-line cell whose end would be cut off:
// "cause — a: b".
func causeFirst(msg string) string {
	i := strings.LastIndex(msg, ": ")
	if i < 0 || i+2 >= len(msg) {
		return msg
	}
	return msg[i+2:] + " — " + msg[:i]
}

// specRef is a reference to crewbench's own design notes ("(§2.5)",
// "(anchors.md §5.2)"), which mean nothing to a user.
var specRef = regexp.MustCompile(`\s*\((?:[\w.-]+\.md\s+)?§[\d.]+\)`)

// withoutSpecRefs drops the design-note references from text shown.
func withoutSpecRefs(s string) string {
	if !strings.Contains(s, "§") {
		return s
	}
	return specRef.ReplaceAllString(s, "")
}

func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute && d%time.Second == 0:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// fmtBytes renders a size: 512 B, 12.3 KB, 8.0 MB.
func fmtBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// pluralize renders "1 tool", "3 tools", "2 dependencies" (English -y → -ies).
func pluralize(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	if strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ey") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// highlight renders s with the bytes at idx (sorted byte offsets, as
// sahilm/fuzzy reports them) in hi and the rest in base.
func highlight(s string, idx []int, base, hi lipgloss.Style) string {
	if len(idx) == 0 {
		return base.Render(s)
	}
	var b strings.Builder
	set := make(map[int]bool, len(idx))
	for _, i := range idx {
		set[i] = true
	}
	run, runHi := strings.Builder{}, false
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if runHi {
			b.WriteString(hi.Render(run.String()))
		} else {
			b.WriteString(base.Render(run.String()))
		}
		run.Reset()
	}
	for i, r := range s {
		h := set[i]
		if h != runHi {
			flush()
			runHi = h
		}
		run.WriteRune(r)
	}
	flush()
	return b.String()
}

// printable replaces control characters so a server's text cannot move
// the cursor or change colours on the user's screen.
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t':
			b.WriteString("    ") // a tab has no fixed width; four cells keep columns true
		case r < 0x20 || r == 0x7f:
			b.WriteString(fmt.Sprintf("\\x%02x", r))
		case r == utf8.RuneError:
			b.WriteRune('�')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ring keeps the last n lines of an unbounded stream (stderr, logs).
type ring struct {
	lines []string
	next  int
	full  bool
	total int
}

func newRing(n int) *ring { return &ring{lines: make([]string, n)} }

func (r *ring) add(s string) {
	if len(r.lines) == 0 {
		return
	}
	r.lines[r.next] = s
	r.next = (r.next + 1) % len(r.lines)
	if r.next == 0 {
		r.full = true
	}
	r.total++
}

// last returns up to n of the newest lines, oldest first.
func (r *ring) last(n int) []string {
	if r == nil {
		return nil
	}
	size := r.next
	if r.full {
		size = len(r.lines)
	}
	n = min(n, size)
	out := make([]string, 0, n)
	for i := size - n; i < size; i++ {
		j := i
		if r.full {
			j = (r.next + i) % len(r.lines)
		}
		out = append(out, r.lines[j])
	}
	return out
}
