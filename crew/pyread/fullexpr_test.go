package pyread

import "testing"

// The whole grammar reads operators with Python's precedence; the lenient
// reader reads a lambda keyword argument without losing the call.
func TestParseFull(t *testing.T) {
	for _, tc := range []struct {
		src  string
		kind ExprKind
		text string // of the first operand
		ok   bool
	}{
		{`a or b and not c`, BoolOp, "a", true},
		{`not a == b`, Not, "a == b", true},
		{`1 < x <= 3`, Compare, "1", true},
		{`x not in y`, Compare, "x", true},
		{`x is not None`, Compare, "x", true},
		{`a if b else c`, IfExp, "a", true},
		{`-2 ** 2`, Unary, "2 ** 2", true},
		{`-2`, Number, "", true},
		{`a + b * c`, BinOp, "a", true},
		{`lambda o: o.raw`, Lambda, "o.raw", true},
		{`f(x)[0].y`, Attr, "", true},
		{`a b`, Opaque, "", false},
		{`(a`, Opaque, "", false},
	} {
		e, ok := ParseFull(tc.src, "c.py")
		if ok != tc.ok || (ok && e.Kind != tc.kind) {
			t.Errorf("%s: kind %d ok %v, want %d %v", tc.src, e.Kind, ok, tc.kind, tc.ok)
			continue
		}
		var first *Expr
		switch {
		case len(e.Items) > 0:
			first = e.Items[0]
		default:
			first = e.X
		}
		if tc.text != "" && (first == nil || first.Text != tc.text) {
			t.Errorf("%s: first operand %+v, want %q", tc.src, first, tc.text)
		}
	}
	toks := Tokenize(`ConditionalTask(condition=lambda output: "x" in output.raw, agent=a)`, "crew.py")
	p := &Parser{Src: `ConditionalTask(condition=lambda output: "x" in output.raw, agent=a)`, Toks: toks, DepthLeft: 200}
	e := p.Expr()
	c := e.Kwarg("condition")
	if p.Malformed || c == nil || c.Kind != Lambda || c.Params[0] != "output" || c.X.Kind != Compare || e.Kwarg("agent") == nil {
		t.Fatalf("call %+v, condition %+v, malformed %v", e, c, p.Malformed)
	}
}
