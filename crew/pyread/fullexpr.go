package pyread

// Python's expression grammar above the primaries, for Parser.Full and a
// lambda's body (the Python reference, "Expressions": conditional
// expressions, lambda, boolean operations, comparisons, arithmetic). The
// nodes keep their source text, so what cannot be evaluated can be named.

// test is Python's expression: a lambda, or a disjunction with an
// optional "if … else …".
func (p *Parser) test() *Expr {
	start := p.Peek()
	if !p.enter() {
		return p.opaqueFrom(start, p.At)
	}
	defer p.leave()
	if p.IsName("lambda") {
		return p.lambda()
	}
	e := p.orTest()
	if !p.IsName("if") {
		return e
	}
	p.Next()
	cond := p.orTest()
	if !p.IsName("else") {
		p.Malformed = true
		return &Expr{Kind: Opaque, Pos: start.Pos, Text: p.textFrom(start)}
	}
	p.Next()
	alt := p.test()
	return &Expr{Kind: IfExp, Pos: start.Pos, Items: []*Expr{e, cond, alt}, Text: p.textFrom(start)}
}

// enter and leave bound the recursion of hostile input (not not not …,
// - - - …, lambda: lambda: …) with the parser's depth budget.
func (p *Parser) enter() bool {
	if p.DepthLeft <= 0 {
		return false
	}
	p.DepthLeft--
	return true
}

func (p *Parser) leave() { p.DepthLeft++ }

// lambda reads "lambda PARAMS: BODY" at the lambda keyword. Params keep
// their text as written ("x", "x=1", "*args"); the body is read with the
// whole grammar whatever mode the parser is in.
func (p *Parser) lambda() *Expr {
	start := p.Next()
	e := &Expr{Kind: Lambda, Pos: start.Pos}
	for !p.IsOp(":") && !p.AtEnd() {
		from, depth := p.Peek(), 0
	param:
		for !p.AtEnd() {
			t := p.Peek()
			if t.Kind == TokOp {
				switch t.Text {
				case "(", "[", "{":
					depth++
				case ")", "]", "}":
					depth--
				}
				if depth <= 0 && (t.Text == "," || t.Text == ":") || depth < 0 {
					break param
				}
			}
			p.Next()
		}
		e.Params = append(e.Params, p.textFrom(from))
		if p.IsOp(",") {
			p.Next()
			continue
		}
		if !p.IsOp(":") {
			break
		}
	}
	if !p.IsOp(":") {
		p.Malformed = true
		e.Kind, e.Text = Opaque, p.textFrom(start)
		return e
	}
	p.Next()
	full := p.Full
	p.Full = true
	e.X = p.test()
	p.Full = full
	e.Text = p.textFrom(start)
	return e
}

func (p *Parser) orTest() *Expr  { return p.boolOp("or", p.andTest) }
func (p *Parser) andTest() *Expr { return p.boolOp("and", p.notTest) }

func (p *Parser) boolOp(op string, operand func() *Expr) *Expr {
	start := p.Peek()
	e := operand()
	if !p.IsName(op) {
		return e
	}
	b := &Expr{Kind: BoolOp, Pos: start.Pos, Str: op, Items: []*Expr{e}}
	for p.IsName(op) {
		p.Next()
		b.Items = append(b.Items, operand())
	}
	b.Text = p.textFrom(start)
	return b
}

func (p *Parser) notTest() *Expr {
	start := p.Peek()
	if !p.IsName("not") {
		return p.comparison()
	}
	if !p.enter() {
		return p.opaqueFrom(start, p.At)
	}
	defer p.leave()
	p.Next()
	x := p.notTest()
	return &Expr{Kind: Not, Pos: start.Pos, X: x, Text: p.textFrom(start)}
}

// compOp reads a comparison operator, "" when none is next.
func (p *Parser) compOp() string {
	t := p.Peek()
	switch {
	case t.Kind == TokOp:
		switch t.Text {
		case "<", ">", "==", ">=", "<=", "!=":
			p.Next()
			return t.Text
		}
	case t.Kind == TokName && t.Text == "in":
		p.Next()
		return "in"
	case t.Kind == TokName && t.Text == "is":
		p.Next()
		if p.IsName("not") {
			p.Next()
			return "is not"
		}
		return "is"
	case t.Kind == TokName && t.Text == "not" && p.At+1 < len(p.Toks) && p.Toks[p.At+1].Kind == TokName && p.Toks[p.At+1].Text == "in":
		p.Next()
		p.Next()
		return "not in"
	}
	return ""
}

func (p *Parser) comparison() *Expr {
	start := p.Peek()
	e := p.arith()
	op := p.compOp()
	if op == "" {
		return e
	}
	c := &Expr{Kind: Compare, Pos: start.Pos, Items: []*Expr{e}}
	for ; op != ""; op = p.compOp() {
		c.Ops = append(c.Ops, op)
		c.Items = append(c.Items, p.arith())
	}
	c.Text = p.textFrom(start)
	return c
}

func (p *Parser) arith() *Expr { return p.binOps(p.term, "+", "-") }
func (p *Parser) term() *Expr  { return p.binOps(p.factor, "*", "/", "//", "%", "@") }

func (p *Parser) binOps(operand func() *Expr, ops ...string) *Expr {
	start := p.Peek()
	e := operand()
	for {
		t := p.Peek()
		found := false
		for _, o := range ops {
			found = found || (t.Kind == TokOp && t.Text == o)
		}
		if !found {
			return e
		}
		p.Next()
		r := operand()
		e = &Expr{Kind: BinOp, Pos: start.Pos, Str: t.Text, Items: []*Expr{e, r}, Text: p.textFrom(start)}
	}
}

// factor is a sign or ~ on a factor; a sign on a number literal stays a
// Number, as the lenient reader keeps it.
func (p *Parser) factor() *Expr {
	t := p.Peek()
	if t.Kind != TokOp || (t.Text != "-" && t.Text != "+" && t.Text != "~") {
		return p.power()
	}
	if !p.enter() {
		return p.opaqueFrom(t, p.At)
	}
	defer p.leave()
	p.Next()
	if n := p.Peek(); n.Kind == TokNumber && t.Text != "~" && !p.powerFollows() {
		p.Next()
		lit := n.Text
		if t.Text == "-" {
			lit = "-" + lit
		}
		return &Expr{Kind: Number, Pos: t.Pos, Str: lit, Text: p.textFrom(t)}
	}
	x := p.factor()
	return &Expr{Kind: Unary, Pos: t.Pos, Str: t.Text, X: x, Text: p.textFrom(t)}
}

// powerFollows reports whether the number literal at the parser is the
// base of "**" (-2 ** 2 is -(2 ** 2)).
func (p *Parser) powerFollows() bool {
	return p.At+1 < len(p.Toks) && p.Toks[p.At+1].Kind == TokOp && p.Toks[p.At+1].Text == "**"
}

func (p *Parser) power() *Expr {
	start := p.Peek()
	e := p.Postfix(p.Primary())
	if e.Text == "" {
		e.Text = p.textFrom(start)
	}
	if !p.IsOp("**") {
		return e
	}
	p.Next()
	r := p.factor()
	return &Expr{Kind: BinOp, Pos: start.Pos, Str: "**", Items: []*Expr{e, r}, Text: p.textFrom(start)}
}

// ParseFull reads src as one Python expression with the whole grammar.
// ok is false when something follows the expression, a bracket is left
// open, or the whole is Opaque: not one expression this reader knows.
func ParseFull(src, file string) (e *Expr, ok bool) {
	toks := Tokenize(src, file)
	p := &Parser{Src: src, Toks: toks, DepthLeft: maxLiteralDepth, Full: true}
	e = p.Expr()
	for ; p.At < len(toks); p.At++ {
		if k := toks[p.At].Kind; k != TokNewline && k != TokEOF {
			return e, false
		}
	}
	return e, !p.Malformed && e.Kind != Opaque
}
