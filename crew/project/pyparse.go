package project

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A tokenizer-level reader of Python source: enough to find decorators,
// classes, defs, assignments and calls, and to read literal values
// (strings incl. implicit concatenation, numbers, True/False/None, lists,
// tuples, dicts, keyword arguments). Nothing is executed; anything that is
// not a literal becomes an opaque expression that keeps its source text.

type pyTokKind uint8

const (
	pyTokName pyTokKind = iota
	pyTokNumber
	pyTokString
	pyTokOp
	pyTokNewline
	pyTokEOF
)

type pyTok struct {
	kind pyTokKind
	text string // raw source text
	// strings: the decoded value; fstring is true for f-strings, and
	// fields true when one has {…} replacement fields.
	val     string
	fstring bool
	fields  bool
	rawStr  bool   // r-prefixed
	body    string // the text between the quotes, undecoded
	bad     bool   // unterminated string etc.
	pos     Pos
	off     int // byte offsets into the source
	end     int
	indent  int // for the first token of a logical line: its column (0-based)
	first   bool
}

type pyLexer struct {
	src   string
	file  string
	i     int
	line  int
	col   int // 0-based, in characters
	depth int // bracket depth: newlines inside brackets are not NEWLINE
	toks  []pyTok
	bol   bool // at the beginning of a logical line
}

func pyTokenize(src, file string) []pyTok {
	lx := &pyLexer{src: src, file: file, line: 1, bol: true}
	lx.run()
	return lx.toks
}

func (lx *pyLexer) pos() Pos { return Pos{File: lx.file, Line: lx.line, Col: lx.col + 1} }

func (lx *pyLexer) advance(n int) {
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
func (lx *pyLexer) advanceBytes(n int) {
	end := lx.i + n
	for lx.i < end && lx.i < len(lx.src) {
		lx.advance(1)
	}
}

func (lx *pyLexer) emit(t pyTok) {
	if lx.bol && t.kind != pyTokNewline {
		t.first = true
		t.indent = t.pos.Col - 1
		lx.bol = false
	}
	lx.toks = append(lx.toks, t)
}

func (lx *pyLexer) run() {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == '\n':
			if lx.depth == 0 && !lx.bol {
				lx.emit(pyTok{kind: pyTokNewline, pos: lx.pos(), off: lx.i, end: lx.i + 1})
				lx.bol = true
			}
			lx.advance(1)
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			lx.advance(1)
		case c == '#':
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
	if !lx.bol {
		lx.emit(pyTok{kind: pyTokNewline, pos: lx.pos(), off: lx.i, end: lx.i})
	}
	lx.toks = append(lx.toks, pyTok{kind: pyTokEOF, pos: lx.pos(), off: lx.i, end: lx.i})
}

func isPyIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func isPyIdentChar(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (lx *pyLexer) nameOrString() {
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
		lx.toks[len(lx.toks)-1].pos = pos
		lx.toks[len(lx.toks)-1].off = start
		lx.toks[len(lx.toks)-1].text = lx.src[start:lx.toks[len(lx.toks)-1].end]
		return
	}
	lx.advanceBytes(j - start)
	lx.emit(pyTok{kind: pyTokName, text: word, pos: pos, off: start, end: j})
}

func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf", "t", "tr", "rt":
		return true
	}
	return false
}

func (lx *pyLexer) number() {
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
	lx.emit(pyTok{kind: pyTokNumber, text: lx.src[start:j], pos: pos, off: start, end: j})
}

var pyOps3 = []string{"**=", "//=", ">>=", "<<=", "...", "!="}
var pyOps2 = []string{"==", "<=", ">=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=", "**", "//", "<<", ">>"}

func (lx *pyLexer) op() {
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
	lx.emit(pyTok{kind: pyTokOp, text: text, pos: pos, off: start, end: lx.i})
}

// str reads a string literal whose prefix has been consumed.
func (lx *pyLexer) str(prefix string) {
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
	t := pyTok{kind: pyTokString, pos: pos, off: start, end: lx.i, text: lx.src[start:lx.i], fstring: fstr, bad: bad, rawStr: raw, body: body}
	if fstr {
		t.val, t.fields = fstringLiteral(body)
		if !raw {
			t.val = pyUnescape(t.val)
		}
	} else if raw {
		t.val = body
	} else {
		t.val = pyUnescape(body)
	}
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

// pyUnescape decodes Python string escapes.
func pyUnescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
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
	return b.String()
}

// pyExprKind is the kind of a parsed expression.
type pyExprKind uint8

const (
	pyStr pyExprKind = iota
	pyNum
	pyBool
	pyNone
	pyList
	pyTuple
	pyDict
	pyName
	pyAttr
	pyCall
	pySubscript
	pyFString // an f-string with fields; parts holds the pieces
	pyConcat  // a + b + …; items are the operands
	pyStarred // *x or **x inside a call or list
	pyOpaque  // anything else
)

type pyExpr struct {
	kind pyExprKind
	pos  Pos
	text string // source text

	str   string // pyStr: value; pyNum: literal; pyName/pyAttr: the name
	b     bool
	items []*pyExpr // list/tuple items, dict values, call positional args
	keys  []*pyExpr // dict keys
	x     *pyExpr   // attr base, call func, subscript base, starred value
	index *pyExpr
	kw    []pyKwarg
	parts []pyStrPart // pyFString
}

// pyStrPart is one literal of an implicitly concatenated string: plain text,
// or an f-string body whose {fields} are evaluated later.
type pyStrPart struct {
	text    string // plain: decoded text; f-string: the undecoded body
	fstring bool
	raw     bool
}

type pyKwarg struct {
	name  string
	value *pyExpr
	pos   Pos
}

// dotted renders Name/Attr chains as "a.b.c" ("" otherwise).
func (e *pyExpr) dotted() string {
	if e == nil {
		return ""
	}
	switch e.kind {
	case pyName:
		return e.str
	case pyAttr:
		if base := e.x.dotted(); base != "" {
			return base + "." + e.str
		}
	}
	return ""
}

// kwarg returns the value of a keyword argument of a call.
func (e *pyExpr) kwarg(name string) *pyExpr {
	if e == nil || e.kind != pyCall {
		return nil
	}
	for _, k := range e.kw {
		if k.name == name {
			return k.value
		}
	}
	return nil
}

// pyParser parses expressions from a token slice.
type pyParser struct {
	src  string
	toks []pyTok
	i    int
	// depthLeft bounds recursion on hostile input.
	depthLeft int
}

// peek returns the current token; past the end of the slice it is EOF, so
// every loop that stops at EOF also stops at the end of a line's tokens.
func (p *pyParser) peek() pyTok {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	end := 0
	if len(p.toks) > 0 {
		end = p.toks[len(p.toks)-1].end
	}
	return pyTok{kind: pyTokEOF, off: end, end: end}
}

func (p *pyParser) next() pyTok {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *pyParser) isOp(s string) bool {
	t := p.peek()
	return t.kind == pyTokOp && t.text == s
}

func (p *pyParser) isName(s string) bool {
	t := p.peek()
	return t.kind == pyTokName && t.text == s
}

func (p *pyParser) atEnd() bool {
	k := p.peek().kind
	return k == pyTokEOF || k == pyTokNewline
}

// expr parses one expression. Whatever follows a primary that is not a
// terminator (",", ")", "]", "}", ":", "=", NEWLINE, "for", "as"…) turns
// the whole expression into pyOpaque spanning up to the terminator.
func (p *pyParser) expr() *pyExpr {
	start, startIdx := p.peek(), p.i
	if p.depthLeft <= 0 {
		return p.opaqueFrom(start, startIdx)
	}
	p.depthLeft--
	defer func() { p.depthLeft++ }()
	e := p.unary()
	// a + b + …: kept as operands, evaluated when they resolve to strings
	if p.isOp("+") {
		c := &pyExpr{kind: pyConcat, pos: e.pos, items: []*pyExpr{e}}
		for p.isOp("+") {
			p.next()
			c.items = append(c.items, p.unary())
		}
		e = c
	}
	if !p.atTerminator() {
		return p.opaqueFrom(start, startIdx)
	}
	e.text = p.textFrom(start)
	return e
}

func (p *pyParser) atTerminator() bool {
	t := p.peek()
	switch t.kind {
	case pyTokEOF, pyTokNewline:
		return true
	case pyTokOp:
		switch t.text {
		case ",", ")", "]", "}", ":", "=", ";":
			return true
		}
	case pyTokName:
		switch t.text {
		case "for", "as", "async":
			return true
		}
	}
	return false
}

// opaqueFrom skips to the end of the expression that starts at start.
func (p *pyParser) opaqueFrom(start pyTok, startIdx int) *pyExpr {
	depth := 0
	for {
		t := p.peek()
		if t.kind == pyTokEOF || (t.kind == pyTokNewline && depth == 0) {
			break
		}
		if t.kind == pyTokNewline { // a line's end inside unbalanced brackets
			break
		}
		if t.kind == pyTokOp {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return &pyExpr{kind: pyOpaque, pos: start.pos, text: p.textFrom(start)}
				}
				depth--
			case ",", ":", "=":
				if depth == 0 && p.i > startIdx {
					return &pyExpr{kind: pyOpaque, pos: start.pos, text: p.textFrom(start)}
				}
			}
		}
		if t.kind == pyTokName && depth == 0 && t.text == "for" {
			break
		}
		p.next()
		if t.kind == pyTokEOF {
			break
		}
	}
	return &pyExpr{kind: pyOpaque, pos: start.pos, text: p.textFrom(start)}
}

func (p *pyParser) textFrom(start pyTok) string {
	end := start.off
	if p.i > 0 {
		prev := p.toks[p.i-1]
		if prev.end > end {
			end = prev.end
		}
	}
	if end > len(p.src) {
		end = len(p.src)
	}
	if start.off > end {
		return ""
	}
	return strings.TrimSpace(p.src[start.off:end])
}

func (p *pyParser) unary() *pyExpr {
	t := p.peek()
	if t.kind == pyTokOp && (t.text == "-" || t.text == "+") {
		p.next()
		n := p.peek()
		if n.kind == pyTokNumber {
			p.next()
			lit := n.text
			if t.text == "-" {
				lit = "-" + lit
			}
			return &pyExpr{kind: pyNum, pos: t.pos, str: lit}
		}
		p.primary()
		return &pyExpr{kind: pyOpaque, pos: t.pos}
	}
	if t.kind == pyTokOp && (t.text == "*" || t.text == "**") {
		p.next()
		inner := p.unary()
		return &pyExpr{kind: pyStarred, pos: t.pos, x: inner, str: t.text}
	}
	if t.kind == pyTokName && (t.text == "not" || t.text == "lambda" || t.text == "await") {
		return p.opaqueFrom(t, p.i)
	}
	return p.postfix(p.primary())
}

func (p *pyParser) primary() *pyExpr {
	t := p.peek()
	switch t.kind {
	case pyTokString:
		p.next()
		e := &pyExpr{kind: pyStr, pos: t.pos, str: t.val}
		part := func(t pyTok) pyStrPart {
			if t.fstring {
				return pyStrPart{text: t.body, fstring: true, raw: t.rawStr}
			}
			return pyStrPart{text: t.val}
		}
		e.parts = append(e.parts, part(t))
		fields := t.fields
		bad := t.bad
		for p.peek().kind == pyTokString { // implicit concatenation
			n := p.next()
			e.str += n.val
			e.parts = append(e.parts, part(n))
			fields = fields || n.fields
			bad = bad || n.bad
		}
		switch {
		case bad:
			e.kind = pyOpaque
		case fields:
			e.kind = pyFString
		}
		return e
	case pyTokNumber:
		p.next()
		return &pyExpr{kind: pyNum, pos: t.pos, str: t.text}
	case pyTokName:
		p.next()
		switch t.text {
		case "True", "False":
			return &pyExpr{kind: pyBool, pos: t.pos, b: t.text == "True"}
		case "None":
			return &pyExpr{kind: pyNone, pos: t.pos}
		}
		return &pyExpr{kind: pyName, pos: t.pos, str: t.text}
	case pyTokOp:
		switch t.text {
		case "(":
			p.next()
			if p.isOp(")") {
				p.next()
				return &pyExpr{kind: pyTuple, pos: t.pos}
			}
			items, trailing, comp := p.sequence(")")
			if comp || len(items) == 0 {
				return &pyExpr{kind: pyOpaque, pos: t.pos}
			}
			if len(items) == 1 && !trailing {
				return items[0]
			}
			return &pyExpr{kind: pyTuple, pos: t.pos, items: items}
		case "[":
			p.next()
			items, _, comp := p.sequence("]")
			if comp {
				return &pyExpr{kind: pyOpaque, pos: t.pos}
			}
			return &pyExpr{kind: pyList, pos: t.pos, items: items}
		case "{":
			p.next()
			return p.dict(t)
		}
	}
	// Unknown start: consume one token so the caller makes progress.
	p.next()
	return &pyExpr{kind: pyOpaque, pos: t.pos}
}

// sequence parses items up to the closing bracket; comp is true for a
// comprehension (then the items are meaningless).
func (p *pyParser) sequence(closing string) (items []*pyExpr, trailing, comp bool) {
	for !p.isOp(closing) && p.peek().kind != pyTokEOF {
		e := p.expr()
		items = append(items, e)
		trailing = false
		if p.isName("for") || p.isName("async") {
			comp = true
			p.skipTo(closing)
			break
		}
		if p.isOp(",") {
			p.next()
			trailing = true
			continue
		}
		if !p.isOp(closing) {
			p.skipTo(closing)
			break
		}
	}
	if p.isOp(closing) {
		p.next()
	}
	return items, trailing, comp
}

// skipTo advances to the matching closing bracket (not consuming it).
func (p *pyParser) skipTo(closing string) {
	depth := 0
	for p.peek().kind != pyTokEOF && p.peek().kind != pyTokNewline {
		t := p.peek()
		if t.kind == pyTokOp {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					if t.text == closing {
						return
					}
					return
				}
				depth--
			}
		}
		p.next()
	}
}

func (p *pyParser) dict(open pyTok) *pyExpr {
	d := &pyExpr{kind: pyDict, pos: open.pos}
	for !p.isOp("}") && p.peek().kind != pyTokEOF {
		if p.isOp("**") {
			p.next()
			v := p.expr()
			d.keys = append(d.keys, &pyExpr{kind: pyStarred, pos: v.pos, str: "**", x: v})
			d.items = append(d.items, v)
		} else {
			k := p.expr()
			if !p.isOp(":") {
				// a set, or a comprehension
				p.skipTo("}")
				if p.isOp("}") {
					p.next()
				}
				return &pyExpr{kind: pyOpaque, pos: open.pos}
			}
			p.next()
			v := p.expr()
			if p.isName("for") {
				p.skipTo("}")
				if p.isOp("}") {
					p.next()
				}
				return &pyExpr{kind: pyOpaque, pos: open.pos}
			}
			d.keys = append(d.keys, k)
			d.items = append(d.items, v)
		}
		if p.isOp(",") {
			p.next()
			continue
		}
		if !p.isOp("}") {
			p.skipTo("}")
			break
		}
	}
	if p.isOp("}") {
		p.next()
	}
	return d
}

func (p *pyParser) postfix(e *pyExpr) *pyExpr {
	for {
		switch {
		case p.isOp("."):
			p.next()
			t := p.peek()
			if t.kind != pyTokName {
				return &pyExpr{kind: pyOpaque, pos: e.pos}
			}
			p.next()
			e = &pyExpr{kind: pyAttr, pos: e.pos, x: e, str: t.text}
		case p.isOp("("):
			p.next()
			e = p.call(e)
		case p.isOp("["):
			p.next()
			idx := p.expr()
			if !p.isOp("]") {
				p.skipTo("]")
				idx = &pyExpr{kind: pyOpaque, pos: idx.pos}
			}
			if p.isOp("]") {
				p.next()
			}
			e = &pyExpr{kind: pySubscript, pos: e.pos, x: e, index: idx}
		default:
			return e
		}
	}
}

func (p *pyParser) call(fn *pyExpr) *pyExpr {
	c := &pyExpr{kind: pyCall, pos: fn.pos, x: fn}
	for !p.isOp(")") && p.peek().kind != pyTokEOF {
		t := p.peek()
		if t.kind == pyTokName && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == pyTokOp && p.toks[p.i+1].text == "=" {
			p.next()
			p.next()
			v := p.expr()
			c.kw = append(c.kw, pyKwarg{name: t.text, value: v, pos: t.pos})
		} else {
			v := p.expr()
			if p.isName("for") { // generator argument
				p.skipTo(")")
				break
			}
			c.items = append(c.items, v)
		}
		if p.isOp(",") {
			p.next()
			continue
		}
		if !p.isOp(")") {
			p.skipTo(")")
			break
		}
	}
	if p.isOp(")") {
		p.next()
	}
	return c
}
