// Package pyjson reproduces the parts of Python's json module (and a few
// neighbours) that show up in CrewAI's LLM-visible text: json.loads with its
// exact error messages, json.dumps in the default, indent=2 and
// ensure_ascii=False forms, dicts that keep insertion order, str() of input
// values, ast.literal_eval for dict literals, and the lenient parsers CrewAI
// falls back to for ReAct "Action Input" text.
//
// Values are plain Go values: *Object (an insertion-ordered dict), []any,
// string, Number, bool and nil. Go's encoding/json cannot be used for these
// texts: it sorts map keys, escapes <>&, and formats floats differently.
package pyjson

import (
	"sort"
	"strconv"
	"strings"
)

// Object is a JSON object that keeps insertion order, like a Python dict.
// Setting an existing key keeps its position (Python semantics). The zero
// value is an empty object ready to use.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

// ObjectOf builds an object from alternating key, value arguments.
func ObjectOf(kv ...any) *Object {
	o := &Object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Set assigns v to k, appending k when it is new.
func (o *Object) Set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Get returns the value for k.
func (o *Object) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// Has reports whether k is present.
func (o *Object) Has(k string) bool { _, ok := o.Get(k); return ok }

// Delete removes k, keeping the order of the rest.
func (o *Object) Delete(k string) {
	if o == nil {
		return
	}
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in insertion order (a copy).
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return append([]string(nil), o.keys...)
}

// Len is the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Clone returns a deep copy.
func (o *Object) Clone() *Object {
	if o == nil {
		return nil
	}
	c := &Object{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = Clone(v)
	}
	return c
}

// Clone deep-copies a value tree.
func Clone(v any) any {
	switch t := v.(type) {
	case *Object:
		return t.Clone()
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}

// FromGo converts ordinary Go values (maps, slices, numbers) into pyjson
// values. Map keys are sorted, since a Go map has no order to keep.
func FromGo(v any) any {
	switch t := v.(type) {
	case *Object, string, bool, nil, Number:
		return t
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Set(k, FromGo(t[k]))
		}
		return o
	case map[string]string:
		m := make(map[string]any, len(t))
		for k, v := range t {
			m[k] = v
		}
		return FromGo(m)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = FromGo(e)
		}
		return out
	case []string:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = e
		}
		return out
	case int:
		return Number(strconv.Itoa(t))
	case int64:
		return Number(strconv.FormatInt(t, 10))
	case float64:
		return Float(t)
	}
	return v
}

// ToGo converts pyjson values to plain Go values (map[string]any, []any,
// float64/int64 numbers), for handing arguments to code that expects them.
func ToGo(v any) any {
	switch t := v.(type) {
	case *Object:
		m := make(map[string]any, t.Len())
		for _, k := range t.keys {
			m[k] = ToGo(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = ToGo(e)
		}
		return out
	case Number:
		if t.IsInt() {
			if n, err := strconv.ParseInt(string(t), 10, 64); err == nil {
				return n
			}
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// Number is a JSON number as written. Python's json.loads makes an int of a
// literal with no fraction or exponent and a float of anything else; the
// literal is kept so ints of any size survive and floats print as Python
// prints them.
type Number string

// IsInt reports whether Python would parse the literal as an int.
func (n Number) IsInt() bool {
	s := string(n)
	if s == "NaN" || s == "Infinity" || s == "-Infinity" {
		return false
	}
	return !strings.ContainsAny(s, ".eE")
}

// Float64 returns the value as a float.
func (n Number) Float64() (float64, error) {
	s := string(n)
	switch s {
	case "NaN":
		return strconv.ParseFloat("NaN", 64)
	case "Infinity":
		return strconv.ParseFloat("+Inf", 64)
	case "-Infinity":
		return strconv.ParseFloat("-Inf", 64)
	}
	return strconv.ParseFloat(s, 64)
}

// Float returns a Number that Python would treat as a float: its repr,
// which always has a "." or an exponent, or NaN/Infinity.
func Float(f float64) Number {
	switch r := FloatRepr(f); r {
	case "nan":
		return "NaN"
	case "inf":
		return "Infinity"
	case "-inf":
		return "-Infinity"
	default:
		return Number(r)
	}
}

// Int returns a Number for an integer.
func Int(i int64) Number { return Number(strconv.FormatInt(i, 10)) }

// Repr is how Python prints the number (int(...) or float repr).
func (n Number) Repr() string {
	if n.IsInt() {
		s := string(n)
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
		if s == "" {
			return "0"
		}
		if neg {
			return "-" + s
		}
		return s
	}
	f, err := n.Float64()
	if err != nil {
		// Out of range literals: Python's float() gives inf.
		if strings.HasPrefix(string(n), "-") {
			return "-inf"
		}
		return "inf"
	}
	return FloatRepr(f)
}

// FloatRepr is Python's repr(float): the shortest round-tripping digits, in
// fixed notation when the decimal exponent is in [-4, 16), with ".0" added to
// integral values; otherwise "d.ddde+XX".
func FloatRepr(f float64) string {
	switch {
	case f != f:
		return "nan"
	case f > 1.7976931348623157e308:
		return "inf"
	case f < -1.7976931348623157e308:
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // e.g. "-1.2345e+06"
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	sign := ""
	if neg {
		sign = "-"
	}
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es = "-"
			exp = -exp
		}
		x := strconv.Itoa(exp)
		if len(x) < 2 {
			x = "0" + x
		}
		return sign + m + "e" + es + x
	}
	var s string
	switch {
	case exp < 0:
		s = "0." + strings.Repeat("0", -exp-1) + digits
	case exp+1 >= len(digits):
		s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	default:
		s = digits[:exp+1] + "." + digits[exp+1:]
	}
	return sign + s
}

// Truthy is Python's bool(v) for a decoded JSON value: None, False, zero,
// and empty strings, lists and objects are false.
func Truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case Number:
		f, err := t.Float64()
		return err != nil || f != 0 // NaN is true; an overflow is ±inf
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case *Object:
		return len(t.Keys()) > 0
	}
	return true
}
