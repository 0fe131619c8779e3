// Package pyread is crewbench's one reader of Python source: a tokenizer
// and an expression parser, enough to find decorators, classes, defs,
// assignments and calls, and to read literal values (strings incl. implicit
// concatenation, numbers, True/False/None, lists, tuples, dicts, keyword
// arguments). Nothing is executed; anything that is not a literal becomes
// an opaque expression that keeps its source text.
//
// crew/project reads crew.py with it, crew/lint scans a project's Python
// files with it (CodeLines), and LiteralEval is ast.literal_eval for an
// LLM's tool arguments.
package pyread

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TokKind is the kind of a token.
type TokKind uint8

const (
	TokName TokKind = iota
	TokNumber
	TokString
	TokOp
	TokNewline
	TokEOF
)

// Token is one token of Python source.
type Token struct {
	Kind TokKind
	Text string // raw source text
	// Strings: Val is the decoded value; FString is true for f-strings
	// (and t-strings), HasFields when one has {…} replacement fields.
	Val       string
	FString   bool
	HasFields bool
	Raw       bool   // r-prefixed
	Body      string // the text between the quotes, undecoded
	Bad       bool   // unterminated string etc.
	BadEscape bool   // a malformed \x, \u or \U escape
	Pos       Pos
	Off       int // byte offsets into the source
	End       int
	Indent    int // for the first token of a logical line: its column (0-based)
	First     bool
}

type lexer struct {
	src   string
	file  string
	i     int
	line  int
	col   int // 0-based, in characters
	depth int // bracket depth: newlines inside brackets are not NEWLINE
	toks  []Token
	bol   bool  // at the beginning of a logical line
	hash  []int // byte offsets of the comments' "#"
	// onLine, when set, gets each logical line's tokens (NEWLINE
	// included) as soon as it ends, and toks is reused for the next
	// line; false stops the lexer.
	onLine func([]Token) bool
	stop   bool
}

// Tokenize splits src into tokens; file goes into their positions. A
// NEWLINE ends every logical line (none inside brackets) and EOF ends the
// slice.
func Tokenize(src, file string) []Token {
	lx := &lexer{src: src, file: file, line: 1, bol: true}
	lx.run()
	return lx.toks
}

// Lines tokenizes src one logical line at a time: fn gets each line's
// tokens ending with its NEWLINE, in a buffer reused for the next line (so
// a reader holds one line's tokens, not the whole file's, in memory), and
// returns false to stop.
func Lines(src, file string, fn func(line []Token) bool) {
	lx := &lexer{src: src, file: file, line: 1, bol: true, onLine: fn}
	lx.run()
}

// CodeLines is src split into lines ("\n"), each without its comment. The
// tokenizer finds the comments, so a "#" inside a string — a triple-quoted
// one spanning lines included — is code, not a comment.
func CodeLines(src string) []string {
	lx := &lexer{src: src, line: 1, bol: true}
	lx.run()
	lines := strings.Split(src, "\n")
	start, k := 0, 0 // byte offset of lines[i]; next comment
	for i, l := range lines {
		end := start + len(l)
		if k < len(lx.hash) && lx.hash[k] < end {
			lines[i] = l[:lx.hash[k]-start]
			k++
		}
		start = end + 1
	}
	return lines
}

func (lx *lexer) pos() Pos { return Pos{File: lx.file, Line: lx.line, Col: lx.col + 1} }

func (lx *lexer) advance(n int) {
	for k := 0; k < n && lx.i < len(lx.src); k++ {
		r, size := utf8.DecodeRuneInString(lx.src[lx.i:])
		lx.i += size
		if r == '\n' {
			lx.line++
			lx.col = 0
		} else {
			lx.col++
		}
	}
}

// advanceBytes moves past n bytes (which must end on a rune boundary).
func (lx *lexer) advanceBytes(n int) {
	end := lx.i + n
	for lx.i < end && lx.i < len(lx.src) {
		lx.advance(1)
	}
}

func (lx *lexer) emit(t Token) {
	if lx.bol && t.Kind != TokNewline {
		t.First = true
		t.Indent = t.Pos.Col - 1
		lx.bol = false
	}
	lx.toks = append(lx.toks, t)
	if t.Kind == TokNewline && lx.onLine != nil {
		lx.stop = !lx.onLine(lx.toks)
		lx.toks = lx.toks[:0]
	}
}

func (lx *lexer) run() {
	for lx.i < len(lx.src) && !lx.stop {
		c := lx.src[lx.i]
		switch {
		case c == '\n':
			if lx.depth == 0 && !lx.bol {
				lx.emit(Token{Kind: TokNewline, Pos: lx.pos(), Off: lx.i, End: lx.i + 1})
				lx.bol = true
			}
			lx.advance(1)
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			lx.advance(1)
		case c == '#':
			lx.hash = append(lx.hash, lx.i)
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.advance(1)
			}
		case c == '\\' && lx.i+1 < len(lx.src) && (lx.src[lx.i+1] == '\n' || lx.src[lx.i+1] == '\r'):
			lx.advance(2) // line continuation
		case isPyIdentStart(lx.src[lx.i:]):
			lx.nameOrString()
		case c >= '0' && c <= '9' || (c == '.' && lx.i+1 < len(lx.src) && lx.src[lx.i+1] >= '0' && lx.src[lx.i+1] <= '9'):
			lx.number()
		case c == '"' || c == '\'':
			lx.str("")
		default:
			lx.op()
		}
	}
	if lx.stop {
		return
	}
	if !lx.bol {
		lx.emit(Token{Kind: TokNewline, Pos: lx.pos(), Off: lx.i, End: lx.i})
	}
	lx.toks = append(lx.toks, Token{Kind: TokEOF, Pos: lx.pos(), Off: lx.i, End: lx.i})
}

func isPyIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func isPyIdentChar(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (lx *lexer) nameOrString() {
	start, pos := lx.i, lx.pos()
	j := lx.i
	for j < len(lx.src) {
		r, size := utf8.DecodeRuneInString(lx.src[j:])
		if !isPyIdentChar(r) {
			break
		}
		j += size
	}
	word := lx.src[start:j]
	if j < len(lx.src) && (lx.src[j] == '"' || lx.src[j] == '\'') && len(word) <= 3 && isStringPrefix(word) {
		lx.advanceBytes(j - start)
		lx.str(word)
		lx.toks[len(lx.toks)-1].Pos = pos
		lx.toks[len(lx.toks)-1].Off = start
		lx.toks[len(lx.toks)-1].Text = lx.src[start:lx.toks[len(lx.toks)-1].End]
		return
	}
	lx.advanceBytes(j - start)
	lx.emit(Token{Kind: TokName, Text: word, Pos: pos, Off: start, End: j})
}

func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf", "t", "tr", "rt":
		return true
	}
	return false
}

func (lx *lexer) number() {
	start, pos := lx.i, lx.pos()
	j := lx.i
	for j < len(lx.src) {
		c := lx.src[j]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' {
			j++
			continue
		}
		if (c == '+' || c == '-') && j > start && (lx.src[j-1] == 'e' || lx.src[j-1] == 'E') &&
			!strings.HasPrefix(strings.ToLower(lx.src[start:j]), "0x") {
			j++
			continue
		}
		break
	}
	lx.advanceBytes(j - start)
	lx.emit(Token{Kind: TokNumber, Text: lx.src[start:j], Pos: pos, Off: start, End: j})
}

var pyOps3 = []string{"**=", "//=", ">>=", "<<=", "...", "!="}
var pyOps2 = []string{"==", "<=", ">=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=", "**", "//", "<<", ">>"}

func (lx *lexer) op() {
	start, pos := lx.i, lx.pos()
	rest := lx.src[lx.i:]
	n := 0
	for _, o := range pyOps3 {
		if strings.HasPrefix(rest, o) {
			n = len(o)
			break
		}
	}
	if n == 0 {
		for _, o := range pyOps2 {
			if strings.HasPrefix(rest, o) {
				n = len(o)
				break
			}
		}
	}
	if n == 0 {
		_, n = utf8.DecodeRuneInString(rest)
	}
	text := rest[:n]
	switch text {
	case "(", "[", "{":
		lx.depth++
	case ")", "]", "}":
		if lx.depth > 0 {
			lx.depth--
		}
	}
	lx.advanceBytes(n)
	lx.emit(Token{Kind: TokOp, Text: text, Pos: pos, Off: start, End: lx.i})
}

// str reads a string literal whose prefix has been consumed.
func (lx *lexer) str(prefix string) {
	start, pos := lx.i, lx.pos()
	lp := strings.ToLower(prefix)
	raw := strings.Contains(lp, "r")
	fstr := strings.Contains(lp, "f") || strings.Contains(lp, "t")
	q := lx.src[lx.i]
	triple := strings.HasPrefix(lx.src[lx.i:], strings.Repeat(string(q), 3))
	delim := string(q)
	if triple {
		delim = strings.Repeat(string(q), 3)
	}
	lx.advanceBytes(len(delim))
	bodyStart := lx.i
	bad := false
	for {
		if lx.i >= len(lx.src) {
			bad = true
			break
		}
		c := lx.src[lx.i]
		if c == '\\' {
			lx.advance(2)
			continue
		}
		if !triple && c == '\n' {
			bad = true
			break
		}
		if strings.HasPrefix(lx.src[lx.i:], delim) {
			break
		}
		lx.advance(1)
	}
	body := lx.src[bodyStart:min(lx.i, len(lx.src))]
	if !bad {
		lx.advanceBytes(len(delim))
	}
	t := Token{Kind: TokString, Pos: pos, Off: start, End: lx.i, Text: lx.src[start:lx.i], FString: fstr, Bad: bad, Raw: raw, Body: body}
	escapesOK := true
	if fstr {
		t.Val, t.HasFields = fstringLiteral(body)
		if !raw {
			t.Val, escapesOK = unescape(t.Val)
		}
	} else if raw {
		t.Val = body
	} else {
		t.Val, escapesOK = unescape(body)
	}
	t.BadEscape = !escapesOK
	lx.emit(t)
}

// fstringLiteral returns the text of an f-string with "{{" and "}}"
// collapsed, and whether it has replacement fields.
func fstringLiteral(body string) (string, bool) {
	var b strings.Builder
	fields := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if (c == '{' || c == '}') && i+1 < len(body) && body[i+1] == c {
			b.WriteByte(c)
			i++
			continue
		}
		if c == '{' {
			fields = true
		}
		b.WriteByte(c)
	}
	return b.String(), fields
}

// Unescape decodes Python string escapes. A malformed \x, \u or \U
// escape (a SyntaxError in Python) is kept as written.
func Unescape(s string) string {
	out, _ := unescape(s)
	return out
}

// unescape is Unescape that also reports whether every \x, \u and \U
// escape was well formed.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, "\\") {
		return s, true
	}
	ok := true
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			n := 2
			if e == 'u' {
				n = 4
			} else if e == 'U' {
				n = 8
			}
			if i+1+n <= len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil && v <= unicode.MaxRune {
					b.WriteRune(rune(v))
					i += n
					continue
				}
			}
			ok = false
			b.WriteByte('\\')
			b.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 32)
			b.WriteRune(rune(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String(), ok
}

// MaxNesting is CPython's MAXLEVEL: its tokenizer refuses a bracket opened
// inside 200 open ones with "too many nested parentheses".
const MaxNesting = 200

// TooDeep returns the first bracket of line that CPython's tokenizer
// refuses for nesting deeper than MaxNesting.
func TooDeep(line []Token) (Token, bool) {
	level := 0
	for _, t := range line {
		if t.Kind != TokOp {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			if level >= MaxNesting {
				return t, true
			}
			level++
		case ")", "]", "}":
			if level > 0 {
				level--
			}
		}
	}
	return Token{}, false
}
