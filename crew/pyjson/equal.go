package pyjson

import "math/big"

// Equal is Python's == on the values Loads returns (tool_usage.py:776-785
// compares argument dicts this way): key order does not matter, numbers
// compare by value across int and float (1 == 1.0), and a bool is the int
// it stands for (True == 1 == 1.0). NaN equals nothing, as a freshly
// parsed float in Python.
func Equal(a, b any) bool {
	if na, ok := numeric(a); ok {
		nb, ok := numeric(b)
		switch {
		case !ok:
			return false
		case na == nil || nb == nil:
			return sameInfinity(a, b)
		}
		return na.Cmp(nb) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			xv, _ := x.Get(k)
			yv, found := y.Get(k)
			if !found || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// numeric returns a number or bool as an exact rational; ok is false for
// other values, and the rational is nil for NaN and the infinities.
func numeric(v any) (r *big.Rat, ok bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return big.NewRat(1, 1), true
		}
		return new(big.Rat), true
	case Number:
		r, parsed := new(big.Rat).SetString(string(t))
		if !parsed {
			return nil, true
		}
		return r, true
	}
	return nil, false
}

// sameInfinity reports whether both values are the same infinity.
func sameInfinity(a, b any) bool {
	x, _ := a.(Number)
	y, _ := b.(Number)
	return (x == "Infinity" || x == "-Infinity") && x == y
}
