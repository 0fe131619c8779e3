package pycond

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"crewbench/crew/pyjson"
	"crewbench/crew/pyread"
)

// Values while evaluating: string, *big.Int (int), float64, bool, nil
// (None), []any (list), tuple, *pyjson.Object (dict), *Output (the
// TaskOutput) and model (the output_pydantic model). Values read out of a
// json_dict or a model stay pyjson's until they are used (norm).
type tuple []any

type model struct {
	class  string
	fields *pyjson.Object
	str    string
}

type evaluator struct {
	param string
	out   *Output
}

func typeErr(format string, a ...any) error {
	return &PyError{Type: "TypeError", Msg: fmt.Sprintf(format, a...)}
}

func attrErr(v any, name string) error {
	return &PyError{Type: "AttributeError", Msg: fmt.Sprintf("'%s' object has no attribute '%s'", typeName(v), name)}
}

// runtimeRefusal is a corner Python would evaluate but this subset does
// not reproduce; the caller runs the task as it does for a refusal.
func runtimeRefusal(e *pyread.Expr, why string) error {
	return &Refusal{Pos: posOf(e), Part: textOf(e), Why: why}
}

// number converts a number literal (sign included) to *big.Int or float64.
func number(lit string) (any, error) {
	v, err := pyread.LiteralEval(lit)
	if err != nil {
		return nil, err
	}
	n, ok := v.(pyjson.Number)
	if !ok {
		return nil, fmt.Errorf("not a number: %s", lit)
	}
	return norm(n), nil
}

// norm turns a pyjson value into an evaluation value.
func norm(v any) any {
	n, ok := v.(pyjson.Number)
	if !ok {
		return v
	}
	if n.IsInt() {
		if i, ok := new(big.Int).SetString(string(n), 10); ok {
			return i
		}
	}
	f, err := n.Float64()
	if err != nil && !math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}

func typeName(v any) string {
	switch t := norm(v).(type) {
	case nil:
		return "NoneType"
	case string:
		return "str"
	case bool:
		return "bool"
	case *big.Int:
		return "int"
	case float64:
		return "float"
	case []any:
		return "list"
	case tuple:
		return "tuple"
	case *pyjson.Object:
		return "dict"
	case *Output:
		return "TaskOutput"
	case *model:
		return t.class
	}
	return "object"
}

func (ev *evaluator) truthy(v any) bool {
	switch t := norm(v).(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case *big.Int:
		return t.Sign() != 0
	case float64:
		return t != 0
	case []any:
		return len(t) > 0
	case tuple:
		return len(t) > 0
	case *pyjson.Object:
		return t.Len() > 0
	}
	return true // TaskOutput and models define neither __bool__ nor __len__
}

func (ev *evaluator) eval(e *pyread.Expr, depth int) (any, error) {
	if depth > maxDepth {
		return nil, runtimeRefusal(e, "nested too deeply")
	}
	d := depth + 1
	switch e.Kind {
	case pyread.String:
		return e.Str, nil
	case pyread.Number:
		return number(e.Str)
	case pyread.Bool:
		return e.Bool, nil
	case pyread.None:
		return nil, nil
	case pyread.List, pyread.Tuple:
		items := make([]any, 0, len(e.Items))
		for _, it := range e.Items {
			v, err := ev.eval(it, d)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		if e.Kind == pyread.Tuple {
			return tuple(items), nil
		}
		return items, nil
	case pyread.Dict:
		o := pyjson.NewObject()
		for i, k := range e.Keys {
			v, err := ev.eval(e.Items[i], d)
			if err != nil {
				return nil, err
			}
			o.Set(k.Str, v)
		}
		return o, nil
	case pyread.Name:
		return ev.out, nil
	case pyread.Attr:
		x, err := ev.eval(e.X, d)
		if err != nil {
			return nil, err
		}
		return ev.attr(x, e.Str)
	case pyread.Subscript:
		x, err := ev.eval(e.X, d)
		if err != nil {
			return nil, err
		}
		i, err := ev.eval(e.Index, d)
		if err != nil {
			return nil, err
		}
		return subscript(x, i)
	case pyread.Call:
		return ev.call(e, d)
	case pyread.Compare:
		return ev.compare(e, d)
	case pyread.BoolOp:
		var v any
		for _, it := range e.Items {
			var err error
			if v, err = ev.eval(it, d); err != nil {
				return nil, err
			}
			if ev.truthy(v) == (e.Str == "or") {
				return v, nil
			}
		}
		return v, nil
	case pyread.Not:
		v, err := ev.eval(e.X, d)
		if err != nil {
			return nil, err
		}
		return !ev.truthy(v), nil
	case pyread.IfExp:
		c, err := ev.eval(e.Items[1], d)
		if err != nil {
			return nil, err
		}
		if ev.truthy(c) {
			return ev.eval(e.Items[0], d)
		}
		return ev.eval(e.Items[2], d)
	}
	return nil, runtimeRefusal(e, "outside the subset")
}

func (ev *evaluator) attr(x any, name string) (any, error) {
	switch t := norm(x).(type) {
	case *Output:
		switch name {
		case "raw":
			return t.Raw, nil
		case "summary":
			return t.Summary, nil
		case "agent":
			return t.Agent, nil
		case "description":
			return t.Description, nil
		case "name":
			if t.Name == "" {
				return nil, nil
			}
			return t.Name, nil
		case "expected_output":
			if t.ExpectedOutput == "" {
				return nil, nil
			}
			return t.ExpectedOutput, nil
		case "json_dict":
			if t.JSONDict == nil {
				return nil, nil
			}
			return t.JSONDict, nil
		case "pydantic":
			if t.Pydantic == nil {
				return nil, nil
			}
			return &model{class: t.PydanticClass, fields: t.Pydantic, str: t.PydanticStr}, nil
		}
	case *model:
		if v, ok := t.fields.Get(name); ok {
			return norm(v), nil
		}
	}
	return nil, attrErr(x, name)
}

func subscript(x, i any) (any, error) {
	i = norm(i)
	switch t := norm(x).(type) {
	case *pyjson.Object:
		if err := hashable(i); err != nil {
			return nil, err
		}
		if k, ok := i.(string); ok {
			if v, ok := t.Get(k); ok {
				return norm(v), nil
			}
		}
		return nil, &PyError{Type: "KeyError", Msg: repr(i)}
	case string:
		n, err := index(i, utf8.RuneCountInString(t), "string", func() error {
			return typeErr("string indices must be integers, not '%s'", typeName(i))
		})
		if err != nil {
			return nil, err
		}
		return string([]rune(t)[n]), nil
	case []any:
		n, err := index(i, len(t), "list", func() error {
			return typeErr("list indices must be integers or slices, not %s", typeName(i))
		})
		if err != nil {
			return nil, err
		}
		return norm(t[n]), nil
	case tuple:
		n, err := index(i, len(t), "tuple", func() error {
			return typeErr("tuple indices must be integers or slices, not %s", typeName(i))
		})
		if err != nil {
			return nil, err
		}
		return norm(t[n]), nil
	}
	return nil, typeErr("'%s' object is not subscriptable", typeName(x))
}

// index is a sequence index as Python takes it: an int or a bool,
// negative from the end.
func index(i any, n int, what string, notInt func() error) (int, error) {
	var k *big.Int
	switch t := i.(type) {
	case *big.Int:
		k = t
	case bool:
		k = big.NewInt(0)
		if t {
			k = big.NewInt(1)
		}
	default:
		return 0, notInt()
	}
	if !k.IsInt64() {
		return 0, &PyError{Type: "IndexError", Msg: "cannot fit 'int' into an index-sized integer"}
	}
	j := k.Int64()
	if j < 0 {
		j += int64(n)
	}
	if j < 0 || j >= int64(n) {
		return 0, &PyError{Type: "IndexError", Msg: what + " index out of range"}
	}
	return int(j), nil
}

func hashable(v any) error {
	switch norm(v).(type) {
	case []any, *pyjson.Object:
		return typeErr("unhashable type: '%s'", typeName(v))
	case tuple:
		for _, it := range v.(tuple) {
			if err := hashable(it); err != nil {
				return err
			}
		}
	}
	return nil
}

func (ev *evaluator) call(e *pyread.Expr, d int) (any, error) {
	args := make([]any, 0, len(e.Items))
	var recv any
	if e.X.Kind == pyread.Attr {
		var err error
		if recv, err = ev.eval(e.X.X, d); err != nil {
			return nil, err
		}
	}
	for _, a := range e.Items {
		v, err := ev.eval(a, d)
		if err != nil {
			return nil, err
		}
		args = append(args, norm(v))
	}
	if e.X.Kind == pyread.Attr {
		return method(e, norm(recv), e.X.Str, args)
	}
	switch e.X.Str {
	case "len":
		switch t := args[0].(type) {
		case string:
			return big.NewInt(int64(utf8.RuneCountInString(t))), nil
		case []any:
			return big.NewInt(int64(len(t))), nil
		case tuple:
			return big.NewInt(int64(len(t))), nil
		case *pyjson.Object:
			return big.NewInt(int64(t.Len())), nil
		}
		return nil, typeErr("object of type '%s' has no len()", typeName(args[0]))
	case "bool":
		return len(args) == 1 && ev.truthy(args[0]), nil
	case "str":
		if len(args) == 0 {
			return "", nil
		}
		return str(e, args[0])
	case "int":
		if len(args) == 0 {
			return new(big.Int), nil
		}
		return toInt(args[0])
	}
	return nil, runtimeRefusal(e, "outside the subset")
}

var (
	lower = cases.Lower(language.Und)
	upper = cases.Upper(language.Und)
)

func method(e *pyread.Expr, recv any, name string, args []any) (any, error) {
	if d, isDict := recv.(*pyjson.Object); isDict && name == "get" {
		if err := hashable(args[0]); err != nil {
			return nil, err
		}
		if k, ok := args[0].(string); ok {
			if v, ok := d.Get(k); ok {
				return norm(v), nil
			}
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, nil
	}
	s, ok := recv.(string)
	if !ok || name == "get" {
		if seq, isSeq := recv.([]any); isSeq && name == "count" {
			return countEqual(seq, args[0]), nil
		}
		if seq, isSeq := recv.(tuple); isSeq && name == "count" {
			return countEqual(seq, args[0]), nil
		}
		return nil, attrErr(recv, name)
	}
	switch name {
	case "lower":
		if !isASCII(s) {
			return lower.String(s), nil
		}
		return strings.ToLower(s), nil
	case "upper":
		if !isASCII(s) {
			return upper.String(s), nil
		}
		return strings.ToUpper(s), nil
	case "strip", "lstrip", "rstrip":
		cut := pyjson.IsSpace
		if len(args) == 1 && args[0] != nil {
			chars, ok := args[0].(string)
			if !ok {
				return nil, typeErr("%s arg must be None or str", name)
			}
			cut = func(r rune) bool { return strings.ContainsRune(chars, r) }
		}
		switch name {
		case "lstrip":
			return strings.TrimLeftFunc(s, cut), nil
		case "rstrip":
			return strings.TrimRightFunc(s, cut), nil
		}
		return strings.TrimFunc(s, cut), nil
	case "startswith", "endswith":
		var affixes []string
		switch t := args[0].(type) {
		case string:
			affixes = []string{t}
		case tuple:
			for _, it := range t {
				a, ok := norm(it).(string)
				if !ok {
					return nil, typeErr("tuple for %s must only contain str, not %s", name, typeName(it))
				}
				affixes = append(affixes, a)
			}
		default:
			return nil, typeErr("%s first arg must be str or a tuple of str, not %s", name, typeName(args[0]))
		}
		for _, a := range affixes {
			if (name == "startswith" && strings.HasPrefix(s, a)) || (name == "endswith" && strings.HasSuffix(s, a)) {
				return true, nil
			}
		}
		return false, nil
	case "split":
		if len(args) == 0 || args[0] == nil {
			return toList(strings.FieldsFunc(s, pyjson.IsSpace)), nil
		}
		sep, ok := args[0].(string)
		switch {
		case !ok:
			return nil, typeErr("must be str or None, not %s", typeName(args[0]))
		case sep == "":
			return nil, &PyError{Type: "ValueError", Msg: "empty separator"}
		}
		return toList(strings.Split(s, sep)), nil
	case "count":
		sub, ok := args[0].(string)
		if !ok {
			return nil, typeErr("must be str, not %s", typeName(args[0]))
		}
		return big.NewInt(int64(strings.Count(s, sub))), nil
	}
	return nil, runtimeRefusal(e, "outside the subset")
}

func toList(parts []string) []any {
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func countEqual(seq []any, x any) *big.Int {
	n := int64(0)
	for _, it := range seq {
		if equal(it, x, 0) {
			n++
		}
	}
	return big.NewInt(n)
}

// str is Python's str() of a value.
func str(e *pyread.Expr, v any) (any, error) {
	switch t := norm(v).(type) {
	case string:
		return t, nil
	case *model:
		return t.str, nil
	case *Output:
		// TaskOutput.__str__: the model, else a truthy json_dict, else raw.
		if t.Pydantic != nil {
			return t.PydanticStr, nil
		}
		if t.JSONDict != nil && t.JSONDict.Len() > 0 {
			return repr(t.JSONDict), nil
		}
		return t.Raw, nil
	}
	if containsOpaque(v, 0) {
		return nil, runtimeRefusal(e, "str() of a TaskOutput or model inside a container is outside the subset")
	}
	return repr(v), nil
}

func containsOpaque(v any, depth int) bool {
	if depth > maxDepth {
		return true
	}
	switch t := norm(v).(type) {
	case *Output, *model:
		return true
	case []any:
		for _, it := range t {
			if containsOpaque(it, depth+1) {
				return true
			}
		}
	case tuple:
		for _, it := range t {
			if containsOpaque(it, depth+1) {
				return true
			}
		}
	case *pyjson.Object:
		for _, k := range t.Keys() {
			x, _ := t.Get(k)
			if containsOpaque(x, depth+1) {
				return true
			}
		}
	}
	return false
}

// repr is Python's repr() of a value without TaskOutputs or models in it.
func repr(v any) string {
	return reprDepth(v, 0)
}

func reprDepth(v any, depth int) string {
	if depth > maxDepth {
		return "..."
	}
	join := func(items []any) string {
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = reprDepth(it, depth+1)
		}
		return strings.Join(parts, ", ")
	}
	switch t := norm(v).(type) {
	case *big.Int:
		return t.String()
	case float64:
		return pyjson.FloatRepr(t)
	case []any:
		return "[" + join(t) + "]"
	case tuple:
		if len(t) == 1 {
			return "(" + join(t) + ",)"
		}
		return "(" + join(t) + ")"
	case *pyjson.Object:
		parts := make([]string, 0, t.Len())
		for _, k := range t.Keys() {
			x, _ := t.Get(k)
			parts = append(parts, pyjson.Repr(k)+": "+reprDepth(x, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case string, bool, nil:
		return pyjson.Repr(t)
	}
	return "<" + typeName(v) + ">"
}

// toInt is Python's int() of one argument.
func toInt(v any) (any, error) {
	switch t := v.(type) {
	case *big.Int:
		return t, nil
	case bool:
		if t {
			return big.NewInt(1), nil
		}
		return new(big.Int), nil
	case float64:
		switch {
		case math.IsNaN(t):
			return nil, &PyError{Type: "ValueError", Msg: "cannot convert float NaN to integer"}
		case math.IsInf(t, 0):
			return nil, &PyError{Type: "OverflowError", Msg: "cannot convert float infinity to integer"}
		}
		i, _ := big.NewFloat(math.Trunc(t)).Int(nil)
		return i, nil
	case string:
		if i, ok := parseInt(t); ok {
			return i, nil
		}
		for _, r := range t {
			if r >= utf8.RuneSelf && !pyjson.IsSpace(r) {
				return nil, &Refusal{Part: repr(t), Why: "int() of a string with non-ASCII characters is outside the subset"}
			}
		}
		return nil, &PyError{Type: "ValueError", Msg: "invalid literal for int() with base 10: " + repr(t)}
	}
	return nil, typeErr("int() argument must be a string, a bytes-like object or a real number, not '%s'", typeName(v))
}

// parseInt reads an int literal as int(str) does in base 10: surrounding
// whitespace, a sign, digits with single underscores between them.
func parseInt(s string) (*big.Int, bool) {
	s = strings.TrimFunc(s, pyjson.IsSpace)
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return nil, false
	}
	digits := strings.ReplaceAll(s, "_", "")
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, false
		}
	}
	return new(big.Int).SetString(sign+digits, 10)
}
