package pycond

import (
	"math"
	"math/big"
	"strings"

	"crewbench/crew/pyjson"
	"crewbench/crew/pyread"
)

// compare evaluates a chained comparison: a < b < c is (a < b) and
// (b < c), b evaluated once, stopping at the first false link.
func (ev *evaluator) compare(e *pyread.Expr, d int) (any, error) {
	left, err := ev.eval(e.Items[0], d)
	if err != nil {
		return nil, err
	}
	for i, op := range e.Ops {
		right, err := ev.eval(e.Items[i+1], d)
		if err != nil {
			return nil, err
		}
		ok, err := compareOp(e, op, norm(left), norm(right))
		if err != nil {
			return nil, err
		}
		if !ok {
			return false, nil
		}
		left = right
	}
	return true, nil
}

func compareOp(e *pyread.Expr, op string, a, b any) (bool, error) {
	switch op {
	case "==":
		return equal(a, b, 0), nil
	case "!=":
		return !equal(a, b, 0), nil
	case "is":
		return identical(a, b), nil
	case "is not":
		return !identical(a, b), nil
	case "in", "not in":
		in, err := contains(e, b, a)
		return in == (op == "in"), err
	}
	return less(op, a, b, 0)
}

// identical is `is` against None, True or False (the singletons).
func identical(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

// numeric returns a number's exact value (bool counts as int).
func numeric(v any) (*big.Float, float64, bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return big.NewFloat(1), 1, true
		}
		return big.NewFloat(0), 0, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(t).Float64()
		return new(big.Float).SetInt(t), f, true
	case float64:
		if math.IsNaN(t) {
			return nil, t, true
		}
		return big.NewFloat(t), t, true
	}
	return nil, 0, false
}

// cmpNumbers compares two numbers exactly; ok is false when either is NaN.
func cmpNumbers(a, b any) (c int, isNum, ok bool) {
	x, _, na := numeric(a)
	y, _, nb := numeric(b)
	if !na || !nb {
		return 0, false, false
	}
	if x == nil || y == nil {
		return 0, true, false
	}
	return x.Cmp(y), true, true
}

// equal is Python's == on condition values.
func equal(a, b any, depth int) bool {
	a, b = norm(a), norm(b)
	if depth > maxDepth {
		return false
	}
	if c, isNum, ok := cmpNumbers(a, b); isNum {
		return ok && c == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && seqEqual(x, y, depth)
	case tuple:
		y, ok := b.(tuple)
		return ok && seqEqual(x, y, depth)
	case *pyjson.Object:
		y, ok := b.(*pyjson.Object)
		return ok && dictEqual(x, y, depth)
	case *model:
		y, ok := b.(*model)
		return ok && x.class == y.class && dictEqual(x.fields, y.fields, depth)
	case *Output:
		return a == b
	}
	return false
}

func seqEqual(x, y []any, depth int) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !equal(x[i], y[i], depth+1) {
			return false
		}
	}
	return true
}

func dictEqual(x, y *pyjson.Object, depth int) bool {
	if x.Len() != y.Len() {
		return false
	}
	for _, k := range x.Keys() {
		xv, _ := x.Get(k)
		yv, ok := y.Get(k)
		if !ok || !equal(xv, yv, depth+1) {
			return false
		}
	}
	return true
}

// less is <, <=, > and >=: numbers with numbers, str with str, and lists
// (or tuples) lexicographically; anything else is Python's TypeError.
func less(op string, a, b any, depth int) (bool, error) {
	a, b = norm(a), norm(b)
	if c, isNum, ok := cmpNumbers(a, b); isNum {
		return ok && holds(op, c), nil
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return holds(op, strings.Compare(x, y)), nil
		}
	case []any:
		if y, ok := b.([]any); ok {
			return seqLess(op, x, y, depth)
		}
	case tuple:
		if y, ok := b.(tuple); ok {
			return seqLess(op, x, y, depth)
		}
	}
	return false, typeErr("'%s' not supported between instances of '%s' and '%s'", op, typeName(a), typeName(b))
}

func holds(op string, c int) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// seqLess compares at the first pair that is not equal, as Python does.
func seqLess(op string, x, y []any, depth int) (bool, error) {
	if depth > maxDepth {
		return false, typeErr("maximum recursion depth exceeded in comparison")
	}
	for i := 0; i < len(x) && i < len(y); i++ {
		if !equal(x[i], y[i], depth+1) {
			return less(op, x[i], y[i], depth+1)
		}
	}
	return holds(op, len(x)-len(y)), nil
}

// contains is `needle in hay`.
func contains(e *pyread.Expr, hay, needle any) (bool, error) {
	switch t := hay.(type) {
	case string:
		s, ok := needle.(string)
		if !ok {
			return false, typeErr("'in <string>' requires string as left operand, not %s", typeName(needle))
		}
		return strings.Contains(t, s), nil
	case []any:
		return countEqual(t, needle).Sign() > 0, nil
	case tuple:
		return countEqual(t, needle).Sign() > 0, nil
	case *pyjson.Object:
		if err := hashable(needle); err != nil {
			return false, err
		}
		k, ok := needle.(string)
		return ok && t.Has(k), nil
	case *Output, *model:
		return false, runtimeRefusal(e, "`in` over a TaskOutput or a model (which iterate their fields) is outside the subset")
	}
	return false, typeErr("argument of type '%s' is not iterable", typeName(hay))
}
