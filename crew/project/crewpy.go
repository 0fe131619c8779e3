package project

import (
	"fmt"
	"strings"

	"crewbench/crew/pyread"
)

// pyModule is what the reader learns from a Python file without running
// it: imports, assignments per scope, classes with their decorated methods,
// and every call expression.
type pyModule struct {
	file    string
	src     string
	imports map[string]string // local name → "module.Name" (or "module")
	scope   *pyScope          // module level
	classes []*pyClass
	funcs   []*pyFunc // module-level functions
	calls   []pyCallSite
	// syntaxErrors are the statements Python itself would refuse to read
	// (and crewbench skipped); the loader reports them (loader.parsePy).
	syntaxErrors []pySyntaxError
	// truncatedAt is the first token not read when the file has more than
	// maxPyTokens (zero Pos: all read).
	truncatedAt Pos
}

type pySyntaxError struct {
	pos Pos
	msg string
}

type pyCallSite struct {
	call  *pyread.Expr
	scope *pyScope
}

// pyScope holds assignments; lookups go to the parent when missing.
type pyScope struct {
	vars   map[string]*pyread.Expr
	parent *pyScope
	class  *pyClass // for self.x lookups
}

func newScope(parent *pyScope, class *pyClass) *pyScope {
	return &pyScope{vars: map[string]*pyread.Expr{}, parent: parent, class: class}
}

func (s *pyScope) lookup(name string) *pyread.Expr {
	for sc := s; sc != nil; sc = sc.parent {
		if e, ok := sc.vars[name]; ok {
			return e
		}
	}
	return nil
}

type pyClass struct {
	name       string
	decorators []string
	pos        Pos
	indent     int
	attrs      *pyScope // class-level assignments (and self.x = … in methods)
	methods    []*pyFunc
	// fields are the class-level annotated names in source order
	// (Pydantic fields: `name: type` or `name: type = value`).
	fields []pyField
	// bases are the base classes as written, each its last dotted part
	// ("crewai.tools.BaseTool" → "BaseTool").
	bases []string
	// doc is the class docstring, "" when there is none.
	doc string
	// bodySeen is set once the body has a statement (a docstring must be
	// the first).
	bodySeen bool
}

// pyField is one annotated class attribute.
type pyField struct {
	name  string
	annot string       // the annotation's source text, e.g. "Optional[int]"
	value *pyread.Expr // nil without "= value"
	pos   Pos
}

func (c *pyClass) method(name string) *pyFunc {
	for _, m := range c.methods {
		if m.name == name {
			return m
		}
	}
	return nil
}

func (c *pyClass) hasDecorator(d string) bool {
	for _, x := range c.decorators {
		if x == d || strings.HasSuffix(x, "."+d) {
			return true
		}
	}
	return false
}

type pyFunc struct {
	name       string
	decorators []string
	pos        Pos
	indent     int
	class      *pyClass
	scope      *pyScope
	returns    []*pyread.Expr
	calls      []*pyread.Expr
	// header is the def line's tokens; body the tokens of each statement
	// in the function's body, nested blocks included (a ConditionalTask's
	// condition is read from a function whose body is one return).
	header []pyread.Token
	body   [][]pyread.Token
}

func (f *pyFunc) hasDecorator(d string) bool {
	for _, x := range f.decorators {
		if x == d || strings.HasSuffix(x, "."+d) {
			return true
		}
	}
	return false
}

// maxPyTokens bounds work on hostile input.
const maxPyTokens = 2_000_000

// parsePy reads a Python file of the project and reports, as load errors,
// the statements Python would refuse.
func (l *loader) parsePy(src []byte, shown string) *pyModule {
	m := parsePyModule(string(src), shown)
	for _, e := range m.syntaxErrors {
		l.err(e.pos, "", shown, e.msg)
	}
	if m.truncatedAt.Line > 0 {
		l.note(m.truncatedAt, Warn, "python-too-large", fmt.Sprintf(
			"%s has more than %d tokens: crewbench read it up to here, and nothing after (servers, agents, tasks, Crew(...)) is seen", shown, maxPyTokens))
	}
	return m
}

// parsePyModule reads Python source into a pyModule. It never fails: what
// it cannot read is skipped (and listed in syntaxErrors when Python would
// not read it either).
func parsePyModule(src, file string) *pyModule {
	m := &pyModule{file: file, src: src, imports: map[string]string{}}
	m.scope = newScope(nil, nil)
	var stack []pyBlock
	var pending []string // decorators waiting for their def/class
	current := func() (*pyClass, *pyFunc, *pyScope) {
		if len(stack) == 0 {
			return nil, nil, m.scope
		}
		b := stack[len(stack)-1]
		return b.class, b.fn, b.scope
	}
	seen := 0
	pyread.Lines(src, file, func(lineToks []pyread.Token) bool {
		more := true
		if seen+len(lineToks) > maxPyTokens {
			// the line that crosses the bound is read up to it
			m.truncatedAt = lineToks[maxPyTokens-seen].Pos
			lineToks = append(lineToks[:maxPyTokens-seen:maxPyTokens-seen], pyread.Token{Kind: pyread.TokEOF})
			more = false
		}
		seen += len(lineToks)
		if len(lineToks) < 2 { // a terminator alone
			return more
		}
		if t, deep := pyread.TooDeep(lineToks); deep {
			// The parser would give up at its depth bound and read the
			// statement as opaque text; Python refuses the whole file.
			m.syntaxErrors = append(m.syntaxErrors, pySyntaxError{t.Pos, fmt.Sprintf(
				"too many nested parentheses: a bracket opened inside %d open ones (Python's limit); Python refuses to import this file (SyntaxError), and crewbench skipped the statement", pyread.MaxNesting)})
			return more
		}
		indent := lineToks[0].Indent
		for len(stack) > 0 && indent <= stack[len(stack)-1].indent {
			stack = stack[:len(stack)-1]
		}
		m.statement(lineToks, indent, &stack, &pending, current)
		return more
	})
	return m
}

// pyBlock is an open class or def, closed by a line indented no deeper.
type pyBlock struct {
	indent int
	class  *pyClass
	fn     *pyFunc
	scope  *pyScope
}

func (m *pyModule) statement(line []pyread.Token, indent int, stack *[]pyBlock, pendingp *[]string, current func() (*pyClass, *pyFunc, *pyScope)) {
	cls, fn, scope := current()
	if fn != nil { // the lexer reuses line's array for the next line
		fn.body = append(fn.body, append([]pyread.Token(nil), line...))
	}
	p := &pyread.Parser{Src: m.src, Toks: line, DepthLeft: 200}
	first := line[0]
	isName := func(i int, s string) bool {
		return i < len(line) && line[i].Kind == pyread.TokName && line[i].Text == s
	}
	// decorators
	if first.Kind == pyread.TokOp && first.Text == "@" {
		p.At = 1
		e := p.Expr()
		name := e.Dotted()
		if e.Kind == pyread.Call {
			name = e.X.Dotted()
		}
		*pendingp = append(*pendingp, name)
		m.collectCalls(e, scope, fn)
		return
	}
	k := 0
	if isName(0, "async") {
		k = 1
	}
	if isName(k, "def") && k+1 < len(line) && line[k+1].Kind == pyread.TokName {
		f := &pyFunc{name: line[k+1].Text, decorators: *pendingp, pos: line[k+1].Pos, indent: indent, class: cls, header: append([]pyread.Token(nil), line...)}
		*pendingp = nil
		f.scope = newScope(scope, cls)
		if cls != nil && fn == nil {
			cls.methods = append(cls.methods, f)
		} else if cls == nil && fn == nil {
			m.funcs = append(m.funcs, f)
		}
		*stack = append(*stack, pyBlock{indent: indent, class: cls, fn: f, scope: f.scope})
		// a body on the same line: "def f(self): return X"
		if body := afterHeaderColon(line, k+2); body > 0 && body < len(line) && line[body].Kind != pyread.TokNewline && line[body].Kind != pyread.TokEOF {
			f.body = append(f.body, append([]pyread.Token(nil), line[body:]...))
			m.simpleStatement(line[body:], f.scope, cls, f)
		}
		return
	}
	if isName(0, "class") && len(line) > 1 && line[1].Kind == pyread.TokName {
		c := &pyClass{name: line[1].Text, decorators: *pendingp, pos: line[1].Pos, indent: indent, bases: classBases(line[2:])}
		*pendingp = nil
		c.attrs = newScope(scope, c)
		m.classes = append(m.classes, c)
		*stack = append(*stack, pyBlock{indent: indent, class: c, scope: c.attrs})
		if body := afterHeaderColon(line, 2); body > 0 && body < len(line) && line[body].Kind != pyread.TokNewline && line[body].Kind != pyread.TokEOF {
			m.simpleStatement(line[body:], c.attrs, c, nil)
		}
		return
	}
	*pendingp = nil
	m.simpleStatement(line, scope, cls, fn)
}

// afterHeaderColon finds the ":" ending a def/class header at bracket depth
// 0, starting at i, and returns the index after it (-1 if none).
func afterHeaderColon(line []pyread.Token, i int) int {
	depth := 0
	for ; i < len(line); i++ {
		t := line[i]
		if t.Kind != pyread.TokOp {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ":":
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// simpleStatement handles imports, assignments, returns and with-items,
// and collects every call on the line.
func (m *pyModule) simpleStatement(line []pyread.Token, scope *pyScope, cls *pyClass, fn *pyFunc) {
	if len(line) == 0 {
		return
	}
	p := &pyread.Parser{Src: m.src, Toks: line, DepthLeft: 200}
	first := line[0]
	if cls != nil && fn == nil {
		m.classBodyStatement(line, cls)
	}
	switch {
	case first.Kind == pyread.TokName && first.Text == "from":
		m.importFrom(line)
		return
	case first.Kind == pyread.TokName && first.Text == "import":
		m.importPlain(line)
		return
	case first.Kind == pyread.TokName && first.Text == "return":
		p.At = 1
		if !p.AtEnd() {
			e := p.Expr()
			if fn != nil {
				fn.returns = append(fn.returns, e)
			}
			m.collectCalls(e, scope, fn)
		}
		m.scanCalls(line[p.At:], scope, fn)
		return
	case first.Kind == pyread.TokName && (first.Text == "with" || (first.Text == "async" && len(line) > 1 && line[1].Text == "with")):
		p.At = 1
		if first.Text == "async" {
			p.At = 2
		}
		for !p.AtEnd() {
			e := p.Expr()
			m.collectCalls(e, scope, fn)
			if p.IsName("as") {
				p.Next()
				if t := p.Peek(); t.Kind == pyread.TokName {
					scope.vars[t.Text] = e
					p.Next()
				}
			}
			if p.IsOp(",") {
				p.Next()
				continue
			}
			break
		}
		return
	}
	// assignment: the value follows the last "=" at depth 0 (a = b = v)
	if eqs := depth0Equals(line); len(eqs) > 0 && eqs[len(eqs)-1] > 0 {
		eq := eqs[len(eqs)-1]
		p.At = eq + 1
		value := p.Expr()
		m.collectCalls(value, scope, fn)
		targets := splitTargets(line[:eq])
		for _, tg := range targets {
			switch {
			case len(tg) >= 1 && tg[0].Kind == pyread.TokName && (len(tg) == 1 || (tg[1].Kind == pyread.TokOp && tg[1].Text == ":")):
				scope.vars[tg[0].Text] = value
			case len(tg) >= 3 && tg[0].Kind == pyread.TokName && tg[0].Text == "self" && tg[1].Text == "." && tg[2].Kind == pyread.TokName:
				if cls != nil {
					cls.attrs.vars[tg[2].Text] = value
				}
			}
		}
		return
	}
	m.scanCalls(line, scope, fn)
}

// classBodyStatement records a class body's docstring and its annotated
// fields, in source order.
func (m *pyModule) classBodyStatement(line []pyread.Token, cls *pyClass) {
	first := !cls.bodySeen
	cls.bodySeen = true
	end := len(line)
	for end > 0 && (line[end-1].Kind == pyread.TokNewline || line[end-1].Kind == pyread.TokEOF) {
		end--
	}
	if first && end == 1 && line[0].Kind == pyread.TokString && !line[0].FString {
		cls.doc = line[0].Val
		return
	}
	if end < 3 || line[0].Kind != pyread.TokName || line[1].Kind != pyread.TokOp || line[1].Text != ":" {
		return
	}
	f := pyField{name: line[0].Text, pos: line[0].Pos}
	annotEnd := end
	if eqs := depth0Equals(line[:end]); len(eqs) > 0 {
		annotEnd = eqs[0]
		p := &pyread.Parser{Src: m.src, Toks: line, DepthLeft: 200, At: eqs[0] + 1}
		f.value = p.Expr()
	}
	if annotEnd <= 2 {
		return
	}
	f.annot = strings.TrimSpace(m.src[line[2].Off:line[annotEnd-1].End])
	cls.fields = append(cls.fields, f)
}

// splitTargets splits "a = b =" target token runs at depth-0 "=".
func splitTargets(toks []pyread.Token) [][]pyread.Token {
	var out [][]pyread.Token
	start := 0
	for _, i := range depth0Equals(toks) {
		out = append(out, toks[start:i])
		start = i + 1
	}
	return append(out, toks[start:])
}

// depth0Equals are the indices of the "=" tokens outside any bracket.
func depth0Equals(toks []pyread.Token) []int {
	var out []int
	depth := 0
	for i, t := range toks {
		if t.Kind != pyread.TokOp {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case "=":
			if depth == 0 {
				out = append(out, i)
			}
		}
	}
	return out
}

// scanCalls finds call expressions anywhere in a token run (if/for
// headers, expression statements, …).
func (m *pyModule) scanCalls(line []pyread.Token, scope *pyScope, fn *pyFunc) {
	p := &pyread.Parser{Src: m.src, Toks: line, DepthLeft: 200}
	for p.At < len(p.Toks) {
		t := p.Toks[p.At]
		prevDot := p.At > 0 && p.Toks[p.At-1].Kind == pyread.TokOp && p.Toks[p.At-1].Text == "."
		if t.Kind == pyread.TokName && !prevDot && !isPyKeyword(t.Text) {
			start := p.At
			e := p.Postfix(p.Primary())
			m.collectCalls(e, scope, fn)
			if p.At == start {
				p.At++
			}
			continue
		}
		p.At++
	}
}

func isPyKeyword(s string) bool {
	switch s {
	case "if", "elif", "else", "for", "while", "in", "not", "and", "or", "is", "return", "def", "class",
		"try", "except", "finally", "with", "as", "lambda", "yield", "await", "async", "pass", "raise",
		"del", "global", "nonlocal", "assert", "break", "continue", "import", "from":
		return true
	}
	return false
}

// collectCalls records every call inside e (depth-first, outer first).
func (m *pyModule) collectCalls(e *pyread.Expr, scope *pyScope, fn *pyFunc) {
	var walk func(e *pyread.Expr, depth int)
	walk = func(e *pyread.Expr, depth int) {
		if e == nil || depth > 200 {
			return
		}
		if e.Kind == pyread.Call {
			m.calls = append(m.calls, pyCallSite{call: e, scope: scope})
			if fn != nil {
				fn.calls = append(fn.calls, e)
			}
		}
		walk(e.X, depth+1)
		walk(e.Index, depth+1)
		for _, it := range e.Items {
			walk(it, depth+1)
		}
		for _, k := range e.Keys {
			walk(k, depth+1)
		}
		for _, k := range e.Kwargs {
			walk(k.Value, depth+1)
		}
	}
	walk(e, 0)
}

func (m *pyModule) importFrom(line []pyread.Token) {
	// from MOD import a, b as c  /  from MOD import (a, b)
	i := 1
	var mod strings.Builder
	for i < len(line) && !(line[i].Kind == pyread.TokName && line[i].Text == "import") {
		mod.WriteString(line[i].Text)
		i++
	}
	i++
	for i < len(line) {
		t := line[i]
		if t.Kind == pyread.TokName {
			name, local := t.Text, t.Text
			if i+2 < len(line) && line[i+1].Text == "as" && line[i+2].Kind == pyread.TokName {
				local = line[i+2].Text
				i += 2
			}
			m.imports[local] = mod.String() + "." + name
		}
		i++
	}
}

func (m *pyModule) importPlain(line []pyread.Token) {
	// import a.b as c, d
	i := 1
	for i < len(line) {
		var name strings.Builder
		for i < len(line) && (line[i].Kind == pyread.TokName && line[i].Text != "as" || line[i].Text == ".") {
			name.WriteString(line[i].Text)
			i++
		}
		local := name.String()
		if i+1 < len(line) && line[i].Text == "as" {
			local = line[i+1].Text
			i += 2
		} else if j := strings.IndexByte(local, '.'); j > 0 {
			local = local[:j]
		}
		if local != "" {
			m.imports[local] = name.String()
		}
		for i < len(line) && line[i].Text != "," {
			i++
		}
		i++
	}
}

// qualified resolves a call's function name through the imports:
// "MCPServerStdio" → "crewai.mcp.MCPServerStdio", "os.getenv" → "os.getenv".
func (m *pyModule) qualified(name string) string {
	head, rest, _ := strings.Cut(name, ".")
	if q, ok := m.imports[head]; ok {
		if rest != "" {
			return q + "." + rest
		}
		return q
	}
	return name
}

// calledAs reports whether a call's function is name (matched on the last
// component, so both MCPServerStdio(...) and mcp.MCPServerStdio(...) count).
func (m *pyModule) calledAs(call *pyread.Expr, names ...string) bool {
	if call == nil || call.Kind != pyread.Call {
		return false
	}
	d := call.X.Dotted()
	if d == "" {
		return false
	}
	q := m.qualified(d)
	last := q[strings.LastIndexByte(q, '.')+1:]
	for _, n := range names {
		if last == n {
			return true
		}
	}
	return false
}

// crewClass returns the @CrewBase class, or the first class with @agent or
// @task methods.
func (m *pyModule) crewClass() *pyClass {
	for _, c := range m.classes {
		if c.hasDecorator("CrewBase") {
			return c
		}
	}
	for _, c := range m.classes {
		for _, f := range c.methods {
			if f.hasDecorator("agent") || f.hasDecorator("task") || f.hasDecorator("crew") {
				return c
			}
		}
	}
	return nil
}

// classBases reads the names in a class header's parentheses ("(Base,
// mod.Other, metaclass=M)" → Base, Other); keyword arguments are skipped.
func classBases(toks []pyread.Token) []string {
	if len(toks) == 0 || toks[0].Text != "(" {
		return nil
	}
	var out []string
	depth, last, keyword := 0, "", false
	for _, t := range toks {
		switch {
		case t.Text == "(" || t.Text == "[":
			depth++
		case t.Text == ")" || t.Text == "]":
			depth--
			if depth == 0 {
				if last != "" && !keyword {
					out = append(out, last)
				}
				return out
			}
		case depth == 1 && t.Text == ",":
			if last != "" && !keyword {
				out = append(out, last)
			}
			last, keyword = "", false
		case depth == 1 && t.Text == "=":
			keyword = true
		case depth == 1 && t.Kind == pyread.TokName:
			last = t.Text
		}
	}
	return out
}
