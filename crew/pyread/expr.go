package pyread

import "strings"

// ExprKind is the kind of a parsed expression.
type ExprKind uint8

const (
	String ExprKind = iota
	Number
	Bool
	None
	List
	Tuple
	Dict
	Name
	Attr
	Call
	Subscript
	FString // an f-string with fields; parts holds the pieces
	Concat  // a + b + …; items are the operands
	Starred // *x or **x inside a call or list
	Opaque  // anything else

	// The kinds below come only from Python's whole expression grammar
	// (Parser.Full, and a lambda's body).
	BoolOp  // a and b and …, a or b or …: Str is the operator, Items the operands
	Not     // not X
	Compare // Items[0] Ops[0] Items[1] Ops[1] …: a chained comparison
	BinOp   // Items[0] Str Items[1]: an arithmetic operator
	Unary   // Str X, for a sign or ~ on anything but a number literal
	IfExp   // Items[0] if Items[1] else Items[2]
	Lambda  // lambda Params: X
)

// Expr is a parsed expression. Literals keep their value; anything else
// keeps its source text.
type Expr struct {
	Kind ExprKind
	Pos  Pos
	Text string // source text

	Str    string // String: value; Number: literal; Name/Attr: the name; Starred: "*" or "**"
	Bool   bool
	Items  []*Expr // list/tuple items, dict values, call positional args
	Keys   []*Expr // dict keys
	X      *Expr   // attr base, call func, subscript base, starred value
	Index  *Expr
	Kwargs []Kwarg
	Parts  []StrPart // FString
	Ops    []string  // Compare: "<", "==", "in", "not in", "is", "is not", …
	Params []string  // Lambda: the parameter names
}

// StrPart is one literal of an implicitly concatenated string: plain text,
// or an f-string body whose {fields} are evaluated later.
type StrPart struct {
	Text    string // plain: decoded text; f-string: the undecoded body
	FString bool
	Raw     bool
	// BadEscape marks a malformed \x, \u or \U escape, which Python
	// refuses to compile (the text keeps it as written).
	BadEscape bool
}

// Kwarg is one keyword argument of a call.
type Kwarg struct {
	Name  string
	Value *Expr
	Pos   Pos
}

// Dotted renders Name/Attr chains as "a.Bool.c" ("" otherwise).
func (e *Expr) Dotted() string {
	if e == nil {
		return ""
	}
	switch e.Kind {
	case Name:
		return e.Str
	case Attr:
		if base := e.X.Dotted(); base != "" {
			return base + "." + e.Str
		}
	}
	return ""
}

// Kwarg returns the value of a keyword argument of a call.
func (e *Expr) Kwarg(name string) *Expr {
	if e == nil || e.Kind != Call {
		return nil
	}
	for _, k := range e.Kwargs {
		if k.Name == name {
			return k.Value
		}
	}
	return nil
}

// Parser parses expressions from a token slice.
type Parser struct {
	Src  string
	Toks []Token
	At   int // index of the next token
	// DepthLeft bounds recursion on hostile input.
	DepthLeft int
	// Malformed is set when the parser skipped tokens it could not place
	// or a bracket was never closed: what it returned is a best guess, not
	// what Python would read.
	Malformed bool
	// Full parses Python's whole expression grammar (boolean operators,
	// comparisons, arithmetic, conditional expressions, lambda) instead of
	// reading what follows a primary as Opaque: what evaluates a
	// ConditionalTask's condition needs the operators, while reading
	// values out of crew.py only needs to see that they are not literals.
	Full bool
}

// Peek returns the current token; past the end of the slice it is EOF, so
// every loop that stops at EOF also stops at the end of a line's tokens.
func (p *Parser) Peek() Token {
	if p.At < len(p.Toks) {
		return p.Toks[p.At]
	}
	end := 0
	if len(p.Toks) > 0 {
		end = p.Toks[len(p.Toks)-1].End
	}
	return Token{Kind: TokEOF, Off: end, End: end}
}

func (p *Parser) Next() Token {
	t := p.Peek()
	if p.At < len(p.Toks) {
		p.At++
	}
	return t
}

func (p *Parser) IsOp(s string) bool {
	t := p.Peek()
	return t.Kind == TokOp && t.Text == s
}

func (p *Parser) IsName(s string) bool {
	t := p.Peek()
	return t.Kind == TokName && t.Text == s
}

func (p *Parser) AtEnd() bool {
	k := p.Peek().Kind
	return k == TokEOF || k == TokNewline
}

// Expr parses one expression. Whatever follows a primary that is not a
// terminator (",", ")", "]", "}", ":", "=", NEWLINE, "for", "as"…) turns
// the whole expression into Opaque spanning up to the terminator.
func (p *Parser) Expr() *Expr {
	start, startIdx := p.Peek(), p.At
	if p.DepthLeft <= 0 {
		return p.opaqueFrom(start, startIdx)
	}
	p.DepthLeft--
	defer func() { p.DepthLeft++ }()
	if p.Full {
		e := p.test()
		if !p.atTerminator() {
			return p.opaqueFrom(start, startIdx)
		}
		e.Text = p.textFrom(start)
		return e
	}
	e := p.unary()
	// a + b + …: kept as operands, evaluated when they resolve to strings
	if p.IsOp("+") {
		c := &Expr{Kind: Concat, Pos: e.Pos, Items: []*Expr{e}}
		for p.IsOp("+") {
			p.Next()
			c.Items = append(c.Items, p.unary())
		}
		e = c
	}
	if !p.atTerminator() {
		return p.opaqueFrom(start, startIdx)
	}
	e.Text = p.textFrom(start)
	return e
}

func (p *Parser) atTerminator() bool {
	t := p.Peek()
	switch t.Kind {
	case TokEOF, TokNewline:
		return true
	case TokOp:
		switch t.Text {
		case ",", ")", "]", "}", ":", "=", ";":
			return true
		}
	case TokName:
		switch t.Text {
		case "for", "as", "async":
			return true
		}
	}
	return false
}

// opaqueFrom skips to the end of the expression that starts at start.
func (p *Parser) opaqueFrom(start Token, startIdx int) *Expr {
	depth := 0
	for {
		t := p.Peek()
		if t.Kind == TokEOF || (t.Kind == TokNewline && depth == 0) {
			break
		}
		if t.Kind == TokNewline { // a line's end inside unbalanced brackets
			break
		}
		if t.Kind == TokOp {
			switch t.Text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return &Expr{Kind: Opaque, Pos: start.Pos, Text: p.textFrom(start)}
				}
				depth--
			case ",", ":", "=":
				if depth == 0 && p.At > startIdx {
					return &Expr{Kind: Opaque, Pos: start.Pos, Text: p.textFrom(start)}
				}
			}
		}
		if t.Kind == TokName && depth == 0 && t.Text == "for" {
			break
		}
		p.Next()
		if t.Kind == TokEOF {
			break
		}
	}
	return &Expr{Kind: Opaque, Pos: start.Pos, Text: p.textFrom(start)}
}

func (p *Parser) textFrom(start Token) string {
	end := start.Off
	if p.At > 0 {
		prev := p.Toks[p.At-1]
		if prev.End > end {
			end = prev.End
		}
	}
	if end > len(p.Src) {
		end = len(p.Src)
	}
	if start.Off > end {
		return ""
	}
	return strings.TrimSpace(p.Src[start.Off:end])
}

func (p *Parser) unary() *Expr {
	t := p.Peek()
	if t.Kind == TokOp && (t.Text == "-" || t.Text == "+") {
		p.Next()
		n := p.Peek()
		if n.Kind == TokNumber {
			p.Next()
			lit := n.Text
			if t.Text == "-" {
				lit = "-" + lit
			}
			return &Expr{Kind: Number, Pos: t.Pos, Str: lit}
		}
		p.Primary()
		return &Expr{Kind: Opaque, Pos: t.Pos}
	}
	if t.Kind == TokOp && (t.Text == "*" || t.Text == "**") {
		p.Next()
		inner := p.unary()
		return &Expr{Kind: Starred, Pos: t.Pos, X: inner, Str: t.Text}
	}
	if t.Kind == TokName && t.Text == "lambda" {
		return p.lambda()
	}
	if t.Kind == TokName && (t.Text == "not" || t.Text == "await") {
		return p.opaqueFrom(t, p.At)
	}
	return p.Postfix(p.Primary())
}

func (p *Parser) Primary() *Expr {
	t := p.Peek()
	switch t.Kind {
	case TokString:
		p.Next()
		e := &Expr{Kind: String, Pos: t.Pos, Str: t.Val}
		part := func(t Token) StrPart {
			if t.FString {
				return StrPart{Text: t.Body, FString: true, Raw: t.Raw, BadEscape: t.BadEscape}
			}
			return StrPart{Text: t.Val, BadEscape: t.BadEscape}
		}
		e.Parts = append(e.Parts, part(t))
		fields := t.HasFields
		bad := t.Bad
		for p.Peek().Kind == TokString { // implicit concatenation
			n := p.Next()
			e.Str += n.Val
			e.Parts = append(e.Parts, part(n))
			fields = fields || n.HasFields
			bad = bad || n.Bad
		}
		switch {
		case bad:
			e.Kind = Opaque
		case fields:
			e.Kind = FString
		}
		return e
	case TokNumber:
		p.Next()
		return &Expr{Kind: Number, Pos: t.Pos, Str: t.Text}
	case TokName:
		p.Next()
		switch t.Text {
		case "True", "False":
			return &Expr{Kind: Bool, Pos: t.Pos, Bool: t.Text == "True"}
		case "None":
			return &Expr{Kind: None, Pos: t.Pos}
		}
		return &Expr{Kind: Name, Pos: t.Pos, Str: t.Text}
	case TokOp:
		switch t.Text {
		case "(":
			p.Next()
			if p.IsOp(")") {
				p.Next()
				return &Expr{Kind: Tuple, Pos: t.Pos}
			}
			items, trailing, comp := p.sequence(")")
			if comp || len(items) == 0 {
				return &Expr{Kind: Opaque, Pos: t.Pos}
			}
			if len(items) == 1 && !trailing {
				return items[0]
			}
			return &Expr{Kind: Tuple, Pos: t.Pos, Items: items}
		case "[":
			p.Next()
			items, _, comp := p.sequence("]")
			if comp {
				return &Expr{Kind: Opaque, Pos: t.Pos}
			}
			return &Expr{Kind: List, Pos: t.Pos, Items: items}
		case "{":
			p.Next()
			return p.dict(t)
		}
	}
	// Unknown start: consume one token so the caller makes progress.
	p.Next()
	return &Expr{Kind: Opaque, Pos: t.Pos}
}

// sequence parses items up to the closing bracket; comp is true for a
// comprehension (then the items are meaningless).
func (p *Parser) sequence(closing string) (items []*Expr, trailing, comp bool) {
	for !p.IsOp(closing) && p.Peek().Kind != TokEOF {
		e := p.Expr()
		items = append(items, e)
		trailing = false
		if p.IsName("for") || p.IsName("async") {
			comp = true
			p.skipTo(closing)
			break
		}
		if p.IsOp(",") {
			p.Next()
			trailing = true
			continue
		}
		if !p.IsOp(closing) {
			p.skipTo(closing)
			break
		}
	}
	if p.IsOp(closing) {
		p.Next()
	} else {
		p.Malformed = true
	}
	return items, trailing, comp
}

// skipTo advances to the matching closing bracket (not consuming it).
func (p *Parser) skipTo(closing string) {
	p.Malformed = true
	depth := 0
	for p.Peek().Kind != TokEOF && p.Peek().Kind != TokNewline {
		t := p.Peek()
		if t.Kind == TokOp {
			switch t.Text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					if t.Text == closing {
						return
					}
					return
				}
				depth--
			}
		}
		p.Next()
	}
}

func (p *Parser) dict(open Token) *Expr {
	d := &Expr{Kind: Dict, Pos: open.Pos}
	for !p.IsOp("}") && p.Peek().Kind != TokEOF {
		if p.IsOp("**") {
			p.Next()
			v := p.Expr()
			d.Keys = append(d.Keys, &Expr{Kind: Starred, Pos: v.Pos, Str: "**", X: v})
			d.Items = append(d.Items, v)
		} else {
			k := p.Expr()
			if !p.IsOp(":") {
				// a set, or a comprehension
				p.skipTo("}")
				if p.IsOp("}") {
					p.Next()
				}
				return &Expr{Kind: Opaque, Pos: open.Pos}
			}
			p.Next()
			v := p.Expr()
			if p.IsName("for") {
				p.skipTo("}")
				if p.IsOp("}") {
					p.Next()
				}
				return &Expr{Kind: Opaque, Pos: open.Pos}
			}
			d.Keys = append(d.Keys, k)
			d.Items = append(d.Items, v)
		}
		if p.IsOp(",") {
			p.Next()
			continue
		}
		if !p.IsOp("}") {
			p.skipTo("}")
			break
		}
	}
	if p.IsOp("}") {
		p.Next()
	} else {
		p.Malformed = true
	}
	return d
}

func (p *Parser) Postfix(e *Expr) *Expr {
	for {
		switch {
		case p.IsOp("."):
			p.Next()
			t := p.Peek()
			if t.Kind != TokName {
				return &Expr{Kind: Opaque, Pos: e.Pos}
			}
			p.Next()
			e = &Expr{Kind: Attr, Pos: e.Pos, X: e, Str: t.Text}
		case p.IsOp("("):
			p.Next()
			e = p.call(e)
		case p.IsOp("["):
			p.Next()
			idx := p.Expr()
			if !p.IsOp("]") {
				p.skipTo("]")
				idx = &Expr{Kind: Opaque, Pos: idx.Pos}
			}
			if p.IsOp("]") {
				p.Next()
			}
			e = &Expr{Kind: Subscript, Pos: e.Pos, X: e, Index: idx}
		default:
			return e
		}
	}
}

func (p *Parser) call(fn *Expr) *Expr {
	c := &Expr{Kind: Call, Pos: fn.Pos, X: fn}
	for !p.IsOp(")") && p.Peek().Kind != TokEOF {
		t := p.Peek()
		if t.Kind == TokName && p.At+1 < len(p.Toks) && p.Toks[p.At+1].Kind == TokOp && p.Toks[p.At+1].Text == "=" {
			p.Next()
			p.Next()
			v := p.Expr()
			c.Kwargs = append(c.Kwargs, Kwarg{Name: t.Text, Value: v, Pos: t.Pos})
		} else {
			v := p.Expr()
			if p.IsName("for") { // generator argument
				p.skipTo(")")
				break
			}
			c.Items = append(c.Items, v)
		}
		if p.IsOp(",") {
			p.Next()
			continue
		}
		if !p.IsOp(")") {
			p.skipTo(")")
			break
		}
	}
	if p.IsOp(")") {
		p.Next()
	}
	return c
}
