package project

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"crewbench/names/suggest"
)

// decoder reads typed values out of an object's fields the way Pydantic's
// lax mode coerces them, and records a validation error per bad field.
type decoder struct {
	l *loader
	// vsrc is CrewAI's prefix for validation errors, e.g. "agents/a.jsonc"
	// or "crew.jsonc: tasks[1]"; file is the file the nodes come from.
	vsrc string
	file string
	// fields maps an effective key to its field (settings merged over the
	// top level for agents); paths maps the key to its position path.
	fields map[string]*Field
	paths  map[string]string
	// base is prefixed to position paths reported in errors
	// ("tasks[1]" inside crew.jsonc).
	base string
}

func newDecoder(l *loader, vsrc, file, base string, obj *Node) *decoder {
	d := &decoder{l: l, vsrc: vsrc, file: file, base: base, fields: map[string]*Field{}, paths: map[string]string{}}
	if obj != nil {
		for _, f := range obj.Fields {
			d.fields[f.Key] = f
			d.paths[f.Key] = f.Key
		}
	}
	return d
}

// overlay merges fields of a nested object (agent "settings") over the
// top level.
func (d *decoder) overlay(obj *Node, prefix string) {
	for _, f := range obj.Fields {
		d.fields[f.Key] = f
		d.paths[f.Key] = prefix + "." + f.Key
	}
}

func (d *decoder) node(key string) *Node {
	if f := d.fields[key]; f != nil {
		return f.Value
	}
	return nil
}

func (d *decoder) has(key string) bool { return d.fields[key] != nil }

// present is has(key) with a non-null value.
func (d *decoder) present(key string) bool { return !d.node(key).IsNull() }

func (d *decoder) path(key string) string { return joinPathBase(d.base, d.paths[key]) }

func joinPathBase(base, p string) string {
	if base == "" {
		return p
	}
	if p == "" {
		return base
	}
	return base + "." + p
}

// invalid records "{vsrc}: validation failed: {key}: {msg}".
func (d *decoder) invalid(n *Node, key, msg string) {
	pos := Pos{File: d.file}
	if n != nil {
		pos = n.Pos
	}
	d.l.err(pos, joinPathBase(d.base, key), d.vsrc, "validation failed: "+key+": "+msg)
}

func (d *decoder) str(key string, dst *string) {
	n := d.node(key)
	if n.IsNull() {
		return
	}
	if n.Kind != KindString {
		d.invalid(n, d.paths[key], "Input should be a valid string")
		return
	}
	*dst = n.Str
}

// optStr reads a str | None field: nil when absent or null.
func (d *decoder) optStr(key string, dst **string) {
	var s string
	d.str(key, &s)
	if n := d.node(key); !n.IsNull() && n.Kind == KindString {
		*dst = &s
	}
}

// laxValue reads key with parse (pydantic's lax coercion); ok is false
// when the key is absent or null, or its value is invalid (then reported
// with msg).
func laxValue[T any](d *decoder, key string, parse func(*Node) (T, bool), msg string) (v T, ok bool) {
	n := d.node(key)
	if n.IsNull() {
		return v, false
	}
	if v, ok = parse(n); !ok {
		d.invalid(n, d.paths[key], msg)
	}
	return v, ok
}

const (
	msgBool = "Input should be a valid boolean"
	msgInt  = "Input should be a valid integer"
)

func (d *decoder) boolean(key string, dst *bool) {
	if b, ok := laxValue(d, key, laxBool, msgBool); ok {
		*dst = b
	}
}

func (d *decoder) optBool(key string, dst **bool) {
	if b, ok := laxValue(d, key, laxBool, msgBool); ok {
		*dst = &b
	}
}

func (d *decoder) integer(key string, dst *int) {
	if i, ok := laxValue(d, key, laxInt, msgInt); ok {
		*dst = i
	}
}

func (d *decoder) optInt(key string, dst **int) {
	if i, ok := laxValue(d, key, laxInt, msgInt); ok {
		*dst = &i
	}
}

func (d *decoder) literal(key string, dst *string, allowed ...string) {
	n := d.node(key)
	if n.IsNull() {
		return
	}
	if n.Kind == KindString {
		for _, a := range allowed {
			if n.Str == a {
				*dst = n.Str
				return
			}
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "'" + a + "'"
	}
	var want string
	if len(quoted) == 2 {
		want = quoted[0] + " or " + quoted[1]
	} else {
		want = strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	}
	d.invalid(n, d.paths[key], "Input should be "+want)
}

func (d *decoder) stringList(key string) ([]string, bool) {
	n := d.node(key)
	if n.IsNull() {
		return nil, false
	}
	if n.Kind != KindArray {
		d.invalid(n, d.paths[key], "Input should be a valid list")
		return nil, false
	}
	out := make([]string, 0, len(n.Items))
	for i, it := range n.Items {
		if it.Kind != KindString {
			d.invalid(it, indexPath(d.paths[key], i), "Input should be a valid string")
			continue
		}
		out = append(out, it.Str)
	}
	return out, true
}

// laxBool is Pydantic's lax bool: true/false, 0/1, and the strings
// 0/off/f/false/n/no/1/on/t/true/y/yes in any case.
func laxBool(n *Node) (bool, bool) {
	switch n.Kind {
	case KindBool:
		return n.Bool, true
	case KindNumber:
		if n.Float == 0 {
			return false, true
		}
		if n.Float == 1 {
			return true, true
		}
	case KindString:
		switch strings.ToLower(strings.TrimSpace(n.Str)) {
		case "0", "off", "f", "false", "n", "no":
			return false, true
		case "1", "on", "t", "true", "y", "yes":
			return true, true
		}
	}
	return false, false
}

// laxInt is Pydantic's lax int: ints, floats without a fraction, numeric
// strings and booleans.
func laxInt(n *Node) (int, bool) {
	switch n.Kind {
	case KindBool:
		if n.Bool {
			return 1, true
		}
		return 0, true
	case KindNumber:
		if n.IsInt {
			return int(n.Int), true
		}
		if !math.IsInf(n.Float, 0) && !math.IsNaN(n.Float) && n.Float == math.Trunc(n.Float) && math.Abs(n.Float) < 1<<53 {
			return int(n.Float), true
		}
	case KindString:
		if i, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(n.Str), "_", "")); err == nil {
			return i, true
		}
	}
	return 0, false
}

func laxFloat(n *Node) (float64, bool) {
	switch n.Kind {
	case KindNumber:
		return n.Float, true
	case KindBool:
		if n.Bool {
			return 1, true
		}
		return 0, true
	case KindString:
		if f, err := strconv.ParseFloat(strings.TrimSpace(n.Str), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// pyTypeName is Python's type(x).__name__ for a decoded JSON value.
func pyTypeName(n *Node) string {
	if n == nil {
		return "NoneType"
	}
	switch n.Kind {
	case KindNull:
		return "NoneType"
	case KindBool:
		return "bool"
	case KindNumber:
		if n.IsInt || (n.Str != "" && !strings.ContainsAny(n.Str, ".eEIN")) {
			return "int"
		}
		return "float"
	case KindString:
		return "str"
	case KindArray:
		return "list"
	}
	return "dict"
}

// pyListRepr is repr() of a list of strings: ['a', 'b'].
func pyListRepr(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = pyStrRepr(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// fieldErrors is CrewAI's _field_errors: runtime-only keys first, then
// unknown keys, each sorted. It returns the errors as (pos, text) pairs so
// the caller can point at the first offending key.
func (l *loader) fieldErrors(obj *Node, allowed, runtime, extra map[string]bool, src, file, base string) {
	var rt, unknown []string
	first := map[string]Pos{}
	for _, f := range obj.Fields {
		if _, seen := first[f.Key]; !seen {
			first[f.Key] = f.KeyPos
		}
		switch {
		case runtime[f.Key]:
			rt = append(rt, f.Key)
		case !allowed[f.Key] && !extra[f.Key]:
			unknown = append(unknown, f.Key)
		}
	}
	sort.Strings(rt)
	sort.Strings(unknown)
	if len(rt) > 0 {
		l.err(first[rt[0]], joinPathBase(base, rt[0]), src,
			"runtime-only field(s) are not supported in JSON config: "+strings.Join(rt, ", "))
	}
	if len(unknown) > 0 {
		e := l.err(first[unknown[0]], joinPathBase(base, unknown[0]), src, "unsupported field(s): "+strings.Join(unknown, ", "))
		var cands []string
		for k := range allowed {
			if !runtime[k] {
				cands = append(cands, k)
			}
		}
		for k := range extra {
			cands = append(cands, k)
		}
		var hints []string
		for _, u := range unknown {
			if s := suggest.DidYouMean(u, cands); s != "" {
				hints = append(hints, fmt.Sprintf("%q → did you mean %q?", u, s))
			}
		}
		e.Hint = strings.Join(hints, "; ")
	}
}

// pythonRef returns the dotted path of a {"python": …} object, and the
// CrewAI error for a malformed one ("" when fine).
func pythonRef(n *Node) (path string, isRef bool, problem string) {
	if n == nil || n.Kind != KindObject || !n.Has("python") {
		return "", false, ""
	}
	if len(n.Fields) != 1 {
		return "", true, "Python reference objects must only contain 'python'"
	}
	v := n.Get("python")
	if v.Kind != KindString || strings.TrimSpace(v.Str) == "" {
		return "", true, "Python reference 'python' must be a string"
	}
	p := strings.TrimSpace(v.Str)
	if !strings.Contains(p, ".") {
		return p, true, fmt.Sprintf("Python reference '%s' must be a dotted import path like 'module.attribute'", p)
	}
	for _, part := range strings.Split(p, ".") {
		if !isPyIdentifier(part) {
			return p, true, fmt.Sprintf("Python reference '%s' must contain only valid Python identifiers separated by dots", p)
		}
	}
	return p, true, ""
}

func isPyIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') || r > 0x7f
		if !ok {
			return false
		}
	}
	return true
}

// pythonRefErrors checks the {"python": …} refs of one definition the way
// CrewAI's validation does (structure, and that the module file exists
// under the project root). Nothing is imported.
func (l *loader) pythonRefErrors(obj *Node, src, file, base string) {
	check := func(n *Node, label, path string) {
		p, isRef, problem := pythonRef(n)
		if !isRef {
			return
		}
		if problem != "" {
			l.err(n.Pos, path, label, problem)
			return
		}
		l.checkPythonModule(n.Pos, path, label, p)
	}
	for _, f := range obj.Fields {
		fp := joinPathBase(base, f.Key)
		label := src + ": " + f.Key
		switch {
		case callableFields[f.Key] || modelClassFields[f.Key] || f.Key == "converter_cls" || f.Key == "executor_class" || f.Key == "type":
			check(f.Value, label, fp)
		case callableListFields[f.Key]:
			if f.Value.Kind == KindArray {
				for i, it := range f.Value.Items {
					check(it, fmt.Sprintf("%s[%d]", label, i), indexPath(fp, i))
				}
			} else {
				check(f.Value, label, fp)
			}
		case objectRefFields[f.Key]:
			l.pythonRefsRecursive(f.Value, label, fp, 0)
		}
	}
}

func (l *loader) pythonRefsRecursive(n *Node, label, path string, depth int) {
	if n == nil {
		return
	}
	if depth > 64 {
		l.err(n.Pos, path, label, "Python reference nesting exceeds maximum depth 64")
		return
	}
	if p, isRef, problem := pythonRef(n); isRef {
		if problem != "" {
			l.err(n.Pos, path, label, problem)
		} else {
			l.checkPythonModule(n.Pos, path, label, p)
		}
		return
	}
	switch n.Kind {
	case KindArray:
		for i, it := range n.Items {
			l.pythonRefsRecursive(it, fmt.Sprintf("%s[%d]", label, i), indexPath(path, i), depth+1)
		}
	case KindObject:
		for _, f := range n.Fields {
			l.pythonRefsRecursive(f.Value, label+"."+f.Key, joinPath(path, f.Key), depth+1)
		}
	}
}

// checkPythonModule: a ref must point at <root>/a/b.py or
// <root>/a/b/__init__.py (formats §1.7).
func (l *loader) checkPythonModule(pos Pos, path, label, ref string) {
	mod := ref[:strings.LastIndexByte(ref, '.')]
	rel := strings.ReplaceAll(mod, ".", "/")
	if l.fileExists(rel+".py") || l.fileExists(rel+"/__init__.py") {
		return
	}
	l.err(pos, path, label, fmt.Sprintf("Python references in JSON configs must point to modules inside the project root; '%s' was not found under %s", mod, l.root))
}
