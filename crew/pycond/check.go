package pycond

import (
	"fmt"

	"crewbench/crew/pyread"
)

// outputAttrs are the TaskOutput fields a condition may read.
var outputAttrs = map[string]bool{"raw": true, "summary": true, "agent": true, "description": true,
	"name": true, "expected_output": true, "json_dict": true, "pydantic": true}

// methods are the methods a condition may call (str's, and dict.get),
// with the most arguments each takes here (count and startswith take
// start/end in Python; this subset does not).
var methods = map[string]int{"lower": 0, "upper": 0, "strip": 1, "lstrip": 1, "rstrip": 1,
	"startswith": 1, "endswith": 1, "count": 1, "split": 1, "get": 2}

// optionalArgs are the methods that may be called without arguments.
var optionalArgs = map[string]bool{"lower": true, "upper": true, "strip": true, "lstrip": true, "rstrip": true, "split": true}

// builtins are the functions a condition may call, with the most
// arguments each takes here.
var builtins = map[string]int{"len": 1, "bool": 1, "str": 1, "int": 1}

// maxDepth bounds the evaluation of deeply nested conditions.
const maxDepth = 200

// check refuses what is outside the subset, naming the part.
func check(e *pyread.Expr, param string, depth int) error {
	refuse := func(x *pyread.Expr, why string) error {
		return &Refusal{Pos: posOf(x), Part: textOf(x), Why: why}
	}
	if e == nil {
		return &Refusal{Why: "an empty expression"}
	}
	if depth > maxDepth {
		return refuse(e, "nested too deeply")
	}
	all := func(xs []*pyread.Expr) error {
		for _, x := range xs {
			if err := check(x, param, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	switch e.Kind {
	case pyread.String:
		for _, p := range e.Parts {
			if p.BadEscape {
				return refuse(e, "a malformed escape (Python refuses to compile it)")
			}
		}
		return nil
	case pyread.Number:
		if _, err := number(e.Str); err != nil {
			return refuse(e, "a number literal outside the subset (int or float)")
		}
		return nil
	case pyread.Bool, pyread.None:
		return nil
	case pyread.List, pyread.Tuple:
		return all(e.Items)
	case pyread.Dict:
		for _, k := range e.Keys {
			if k.Kind != pyread.String {
				return refuse(k, "dict keys must be string literals here")
			}
		}
		return all(e.Items)
	case pyread.Name:
		if e.Str == param {
			return nil
		}
		return refuse(e, fmt.Sprintf("the name %s is not the condition's argument (%s)", e.Str, param))
	case pyread.Attr:
		switch {
		case e.X.Kind == pyread.Name && e.X.Str == param:
			if !outputAttrs[e.Str] {
				return refuse(e, "TaskOutput."+e.Str+" is outside the subset (raw, summary, agent, description, name, expected_output, json_dict, pydantic)")
			}
			return nil
		case e.X.Kind == pyread.Attr && e.X.Str == "pydantic" && e.X.X.Kind == pyread.Name && e.X.X.Str == param:
			return nil // a field of the output_pydantic model
		case hasKey(methods, e.Str):
			return refuse(e, "the method "+e.Str+" must be called")
		}
		return refuse(e, "the attribute "+e.Str+" is outside the subset")
	case pyread.Subscript:
		if e.Index == nil || e.Index.Kind == pyread.Opaque {
			return refuse(e, "only a plain subscript is in the subset (no slices)")
		}
		if err := check(e.X, param, depth+1); err != nil {
			return err
		}
		return check(e.Index, param, depth+1)
	case pyread.Call:
		if len(e.Kwargs) > 0 {
			return refuse(e, "keyword arguments are outside the subset")
		}
		for _, a := range e.Items {
			if a.Kind == pyread.Starred {
				return refuse(a, "starred arguments are outside the subset")
			}
		}
		switch {
		case e.X.Kind == pyread.Name && hasKey(builtins, e.X.Str) && e.X.Str != param:
			if len(e.Items) > builtins[e.X.Str] || (e.X.Str == "len" && len(e.Items) != 1) {
				return refuse(e, fmt.Sprintf("%s() with %d arguments is outside the subset", e.X.Str, len(e.Items)))
			}
		case e.X.Kind == pyread.Attr && hasKey(methods, e.X.Str):
			if len(e.Items) > methods[e.X.Str] || (!optionalArgs[e.X.Str] && len(e.Items) == 0) {
				return refuse(e, fmt.Sprintf("%s() with %d arguments is outside the subset", e.X.Str, len(e.Items)))
			}
			if err := check(e.X.X, param, depth+1); err != nil {
				return err
			}
		default:
			return refuse(e.X, "calling "+textOf(e.X)+" is outside the subset (len, bool, str, int, dict.get and the str methods lower, upper, strip, lstrip, rstrip, startswith, endswith, count, split)")
		}
		return all(e.Items)
	case pyread.Compare:
		for i, op := range e.Ops {
			if op == "is" || op == "is not" {
				if !singleton(e.Items[i]) && !singleton(e.Items[i+1]) {
					return refuse(e, "`"+op+"` is in the subset only against None, True or False")
				}
			}
		}
		return all(e.Items)
	case pyread.BoolOp, pyread.IfExp:
		return all(e.Items)
	case pyread.Not:
		return check(e.X, param, depth+1)
	case pyread.BinOp:
		return refuse(e, "the operator "+e.Str+" is outside the subset")
	case pyread.Unary:
		return refuse(e, "the unary "+e.Str+" is outside the subset (a sign only on a number literal)")
	case pyread.FString:
		return refuse(e, "f-strings are outside the subset")
	case pyread.Lambda:
		return refuse(e, "a lambda inside the condition is outside the subset")
	}
	return refuse(e, "this expression is outside the subset")
}

func hasKey(m map[string]int, k string) bool { _, ok := m[k]; return ok }

func singleton(e *pyread.Expr) bool { return e.Kind == pyread.None || e.Kind == pyread.Bool }
