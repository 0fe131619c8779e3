package writeback

import (
	"strings"
	"unicode/utf8"

	"crewbench/crew/pyread"
)

// DefaultWidth is the line width Python is written at: ruff's and black's
// default, which CrewAI's own project template uses.
const DefaultWidth = 88

// WrapPython breaks the lines of Python source that are longer than width
// where Python allows a line break without changing the program: inside a
// pair of brackets that opens and closes on the line, after the opening
// bracket, after each top-level comma and before the closing bracket (the
// way black splits the right-hand side), and between the words of a
// comment. A name, a string or a number is never split, so a line holding
// one token longer than width stays long; subscripts (os.environ["X"]) and
// the lines of a multi-line string are left as they are. The tokens of the
// result are those of src, in order.
func WrapPython(src string, width int) string {
	if width <= 0 {
		return src
	}
	lines := strings.Split(src, "\n")
	protected := multiLineStringLines(src)
	var out []string
	for i, l := range lines {
		if protected[i+1] || runeLen(l) <= width {
			out = append(out, l)
			continue
		}
		out = append(out, wrapLine(l, width)...)
	}
	return strings.Join(out, "\n")
}

// multiLineStringLines are the (1-based) lines a string token spans when it
// spans more than one: splitting any of them would cut the string.
func multiLineStringLines(src string) map[int]bool {
	out := map[int]bool{}
	for _, t := range pyread.Tokenize(src, "") {
		if t.Kind != pyread.TokString || !strings.Contains(t.Text, "\n") {
			continue
		}
		for l := t.Pos.Line; l <= t.Pos.Line+strings.Count(t.Text, "\n"); l++ {
			out[l] = true
		}
	}
	return out
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// wrapLine splits one physical line (see WrapPython).
func wrapLine(line string, width int) []string {
	if runeLen(line) <= width {
		return []string{line}
	}
	indent := leadingSpace(line)
	if strings.HasPrefix(line[len(indent):], "#") {
		return wrapComment(line, indent, width)
	}
	var toks []pyread.Token
	for _, t := range pyread.Tokenize(line, "") {
		if t.Bad {
			return []string{line} // not a whole line of code on its own
		}
		if t.Kind != pyread.TokNewline && t.Kind != pyread.TokEOF {
			toks = append(toks, t)
		}
	}
	open, closeAt, ok := splitPair(toks)
	if !ok {
		return []string{line}
	}
	inner := indent + "    "
	out := wrapLine(strings.TrimRight(line[:toks[open].End], " \t"), width)
	depth, start := 0, open+1
	for k := open + 1; k < closeAt; k++ {
		switch t := toks[k]; {
		case t.Kind == pyread.TokOp && isOpen(t.Text):
			depth++
		case t.Kind == pyread.TokOp && isClose(t.Text):
			depth--
		case t.Kind == pyread.TokOp && t.Text == "," && depth == 0:
			out = append(out, wrapLine(inner+line[toks[start].Off:t.End], width)...)
			start = k + 1
		}
	}
	if start < closeAt {
		out = append(out, wrapLine(inner+line[toks[start].Off:toks[closeAt-1].End], width)...)
	}
	return append(out, wrapLine(indent+line[toks[closeAt].Off:], width)...)
}

// splitPair picks the bracket pair to split a line at: of the pairs that
// open and close on the line with something between them, not inside
// another such pair and not a subscript, the one that closes last.
func splitPair(toks []pyread.Token) (open, closeAt int, ok bool) {
	var stack []int
	for k, t := range toks {
		if t.Kind != pyread.TokOp {
			continue
		}
		switch {
		case isOpen(t.Text):
			stack = append(stack, k)
		case isClose(t.Text):
			if len(stack) == 0 {
				continue // closes a bracket opened on an earlier line
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && k > o+1 && !isSubscript(toks, o) {
				open, closeAt, ok = o, k, true
			}
		}
	}
	return open, closeAt, ok
}

func isOpen(s string) bool  { return s == "(" || s == "[" || s == "{" }
func isClose(s string) bool { return s == ")" || s == "]" || s == "}" }

// isSubscript reports whether the '[' at toks[o] indexes what precedes it.
func isSubscript(toks []pyread.Token, o int) bool {
	if toks[o].Text != "[" || o == 0 {
		return false
	}
	p := toks[o-1]
	switch p.Kind {
	case pyread.TokName:
		return !pyKeywords[p.Text]
	case pyread.TokString:
		return true
	case pyread.TokOp:
		return p.Text == ")" || p.Text == "]" || p.Text == "}"
	}
	return false
}

// wrapComment refills a comment line's words at width, each line with the
// comment's own prefix ("    # ").
func wrapComment(line, indent string, width int) []string {
	body := line[len(indent)+1:]
	prefix := indent + "#" + leadingSpace(body)
	if prefix == indent+"#" {
		prefix += " "
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(body) {
		switch {
		case cur == "":
			cur = prefix + w
		case runeLen(cur)+1+runeLen(w) <= width:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = prefix + w
		}
	}
	if cur == "" {
		return []string{line}
	}
	return append(out, cur)
}
