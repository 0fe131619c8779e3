// Package argsgen builds arguments for a smoke-test tool call from the tool's
// JSON input schema: the required fields (plus any optional field that
// declares a default), each with a value the schema allows where that can be
// worked out cheaply. It is used by `crewbench smoke`, which calls every tool
// of a server once.
//
// Value choice, strongest first: const, default, enum (first), examples
// (first) / example, then a value synthesized from type, format and bounds.
// Whatever the generator cannot honour (a pattern, uniqueItems it cannot
// satisfy, a cut recursion) is reported as a note rather than hidden.
//
// Build never panics and always terminates: $ref recursion, nesting depth,
// array sizes, string lengths and the total number of generated values are
// all bounded.
package argsgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Limits that keep generation bounded on hostile or accidental schemas.
const (
	maxDepth       = 32     // nested schemas followed
	maxRefRepeat   = 2      // times one $ref may be open on the current path
	maxNodes       = 10_000 // values generated in one Build
	maxItems       = 100    // array items generated, whatever minItems says
	maxStringBytes = 4096   // string length generated, whatever minLength says
)

// Canned values for string formats (JSON Schema 2020-12 format names).
var formatValues = map[string]string{
	"date-time":     "2024-01-01T00:00:00Z",
	"date":          "2024-01-01",
	"time":          "00:00:00Z",
	"duration":      "PT1M",
	"email":         "user@example.com",
	"idn-email":     "user@example.com",
	"hostname":      "example.com",
	"idn-hostname":  "example.com",
	"ipv4":          "127.0.0.1",
	"ipv6":          "::1",
	"uri":           "https://example.com/",
	"url":           "https://example.com/",
	"iri":           "https://example.com/",
	"uri-reference": "https://example.com/",
	"iri-reference": "https://example.com/",
	"uri-template":  "https://example.com/{id}",
	"uuid":          "00000000-0000-4000-8000-000000000000",
	"json-pointer":  "/example",
	"regex":         ".*",
}

// Build returns arguments for one call of a tool whose inputSchema is schema.
// An empty or null schema gives an empty object (CrewAI then passes no typed
// arguments). The error is only for input that is not JSON; everything else
// produces arguments and, where something could not be honoured, notes.
func Build(schema json.RawMessage) (map[string]any, []string, error) {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, []string{"no input schema: calling with no arguments"}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber() // keep integers exact; normalize() converts them back
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, nil, fmt.Errorf("input schema is not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, nil, errors.New("input schema is not valid JSON: trailing data after the schema")
	}
	g := &generator{root: root, openRefs: map[string]int{}, budget: maxNodes}
	v, ok := g.value(rootAsObject(root), "", 0)
	switch m, isObj := v.(map[string]any); {
	case !ok:
		g.note("", "no value satisfies the schema; calling with no arguments")
		return map[string]any{}, g.notes, nil
	case isObj:
		return m, g.notes, nil
	default:
		g.note("", fmt.Sprintf("the schema describes %s, not an object; calling with no arguments", describe(v)))
		return map[string]any{}, g.notes, nil
	}
}

// rootAsObject reads an input schema with no type information (`{}`,
// `true`, `{"properties": …}` without "type") as an object schema: a tool's
// arguments are always an object, and lenient servers omit the type.
func rootAsObject(root any) any {
	if root == true {
		return map[string]any{"type": "object"}
	}
	m, ok := root.(map[string]any)
	if !ok || has(m, "type", "$ref", "allOf", "anyOf", "oneOf", "const", "enum", "default", "examples", "example") {
		return root
	}
	return overlay(m, map[string]any{"type": "object"})
}

type generator struct {
	root     any
	openRefs map[string]int // $ref → times open on the current path
	budget   int
	notes    []string
	noted    map[string]bool
}

func (g *generator) note(path, msg string) {
	if path == "" {
		path = "(root)"
	}
	line := "`" + path + "`: " + msg
	if g.noted == nil {
		g.noted = map[string]bool{}
	}
	if !g.noted[line] {
		g.noted[line] = true
		g.notes = append(g.notes, line)
	}
}

// value generates a value for schema at path. ok is false when no value can
// be produced (a `false` schema, a cut recursion, an exhausted budget).
func (g *generator) value(schema any, path string, depth int) (any, bool) {
	if g.budget <= 0 {
		g.note(path, fmt.Sprintf("stopped: the schema needs more than %d values", maxNodes))
		return nil, false
	}
	g.budget--
	if depth > maxDepth {
		g.note(path, fmt.Sprintf("stopped: nested deeper than %d", maxDepth))
		return nil, false
	}
	switch s := schema.(type) {
	case bool:
		if !s {
			g.note(path, "the schema is `false`: no value is valid")
			return nil, false
		}
		return "test", true // `true` accepts anything
	case map[string]any:
		return g.object(s, path, depth)
	default:
		g.note(path, fmt.Sprintf("not a schema (%s); sending a string", describe(s)))
		return "test", true
	}
}

func (g *generator) object(s map[string]any, path string, depth int) (any, bool) {
	if ref, ok := s["$ref"].(string); ok {
		target, err := g.resolve(ref)
		if err != nil {
			g.note(path, fmt.Sprintf("$ref %q: %v; ignoring it", ref, err))
		} else {
			if g.openRefs[ref] >= maxRefRepeat {
				g.note(path, fmt.Sprintf("recursive $ref %q cut off", ref))
				return nil, false
			}
			g.openRefs[ref]++
			defer func() { g.openRefs[ref]-- }()
			// Keywords next to $ref apply too (2019-09+); local ones win.
			s = overlay(target, without(s, "$ref"))
			return g.value(s, path, depth+1)
		}
	}
	if v, ok := s["const"]; ok {
		return g.copyValue(v), true
	}
	if v, ok := s["default"]; ok {
		return g.copyValue(v), true
	}
	if e, ok := s["enum"].([]any); ok {
		if len(e) > 0 {
			return g.copyValue(e[0]), true
		}
		g.note(path, "empty enum: no value is valid")
		return nil, false
	}
	if e, ok := s["examples"].([]any); ok && len(e) > 0 {
		return g.copyValue(e[0]), true
	}
	if v, ok := s["example"]; ok {
		return g.copyValue(v), true
	}
	if all, ok := s["allOf"].([]any); ok {
		merged := without(s, "allOf")
		for _, b := range all {
			if bm := g.schemaMap(b, path); bm != nil {
				merged = overlay(merged, bm)
			}
		}
		return g.value(merged, path, depth+1)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if branches, ok := s[kw].([]any); ok {
			return g.firstViable(kw, without(s, kw), branches, path, depth)
		}
	}
	switch typ := g.pickType(s, path); typ {
	case "null":
		return nil, true
	case "boolean":
		return false, true
	case "integer":
		return g.integer(s, path), true
	case "number":
		return g.number(s, path), true
	case "string":
		return g.str(s, path), true
	case "array":
		return g.array(s, path, depth)
	case "object":
		return g.obj(s, path, depth)
	default:
		g.note(path, fmt.Sprintf("unknown type %q; sending a string", typ))
		return "test", true
	}
}

// firstViable tries anyOf/oneOf branches in order and takes the first that
// produces a non-null value; a null branch is the fallback.
func (g *generator) firstViable(kw string, base map[string]any, branches []any, path string, depth int) (any, bool) {
	nullOK, failed := false, false
	for i, b := range branches {
		bm := g.schemaMap(b, path)
		if bm == nil {
			if b == true {
				return "test", true
			}
			continue
		}
		if resolved := g.peekRef(bm); isOnlyNull(resolved) {
			nullOK = true
			continue
		}
		mark := len(g.notes)
		v, ok := g.value(overlay(base, bm), path, depth+1)
		if ok && v != nil {
			if failed {
				g.note(path, fmt.Sprintf("%s: used branch %d (earlier branches gave no value)", kw, i+1))
			}
			return v, true
		}
		for _, n := range g.notes[mark:] { // a rejected branch's notes would mislead
			delete(g.noted, n)
		}
		g.notes = g.notes[:mark]
		failed = true
	}
	if nullOK {
		return nil, true
	}
	g.note(path, fmt.Sprintf("%s: no branch gives a value", kw))
	return nil, false
}

func (g *generator) schemaMap(b any, path string) map[string]any {
	switch m := b.(type) {
	case map[string]any:
		return m
	case bool:
		return nil
	default:
		g.note(path, fmt.Sprintf("ignoring a subschema that is %s", describe(b)))
		return nil
	}
}

// peekRef follows a $ref chain (without generating) to classify a branch.
func (g *generator) peekRef(m map[string]any) map[string]any {
	for range maxDepth {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		t, err := g.resolve(ref)
		if err != nil {
			return m
		}
		m = t
	}
	return m
}

func isOnlyNull(m map[string]any) bool {
	switch t := m["type"].(type) {
	case string:
		return t == "null"
	case []any:
		for _, x := range t {
			if x != "null" {
				return false
			}
		}
		return len(t) > 0
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	return false
}

// pickType returns the schema's type, the first non-null one of a type
// array, or one inferred from the keywords present.
func (g *generator) pickType(s map[string]any, path string) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		first := ""
		for _, x := range t {
			if name, ok := x.(string); ok {
				if name != "null" {
					return name
				}
				first = name
			}
		}
		if first != "" {
			return first
		}
	}
	switch {
	case has(s, "properties", "required", "additionalProperties", "patternProperties"):
		return "object"
	case has(s, "items", "prefixItems", "minItems", "maxItems", "uniqueItems"):
		return "array"
	case has(s, "minLength", "maxLength", "pattern", "format"):
		return "string"
	case has(s, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	g.note(path, "no type given; sending a string")
	return "string"
}

func (g *generator) str(s map[string]any, path string) string {
	if f, ok := s["format"].(string); ok {
		if v, known := formatValues[f]; known {
			return v
		}
		g.note(path, fmt.Sprintf("format %q not known; sending a plain string", f))
	}
	v := "test"
	if n, ok := intKeyword(s, "minLength"); ok && n > int64(len(v)) {
		if n > maxStringBytes {
			g.note(path, fmt.Sprintf("minLength %d capped at %d", n, maxStringBytes))
			n = maxStringBytes
		}
		v += strings.Repeat("x", int(n)-len(v))
	}
	if n, ok := intKeyword(s, "maxLength"); ok && n >= 0 && n < int64(len(v)) {
		v = v[:n]
	}
	if p, ok := s["pattern"].(string); ok {
		g.note(path, fmt.Sprintf("pattern %q not checked; sent %q", p, v))
	}
	g.budget -= len(v) / 64 // long strings count towards the size bound
	return v
}

// bounds reads minimum/maximum and their exclusive forms (a number in
// draft 6+, a boolean modifier in draft 4).
type bounds struct {
	lo, hi         float64
	hasLo, hasHi   bool
	exclLo, exclHi bool
}

func (g *generator) bounds(s map[string]any, path string) bounds {
	var b bounds
	read := func(kw string) (float64, bool) {
		v, present := s[kw]
		if !present {
			return 0, false
		}
		f, ok := toFloat(v)
		if !ok {
			g.note(path, fmt.Sprintf("%s %s is not a usable number; ignored", kw, describe(v)))
		}
		return f, ok
	}
	b.lo, b.hasLo = read("minimum")
	b.hi, b.hasHi = read("maximum")
	if ex, ok := s["exclusiveMinimum"].(bool); ok {
		b.exclLo = ex && b.hasLo
	} else if f, ok := read("exclusiveMinimum"); ok && (!b.hasLo || f >= b.lo) {
		b.lo, b.hasLo, b.exclLo = f, true, true
	}
	if ex, ok := s["exclusiveMaximum"].(bool); ok {
		b.exclHi = ex && b.hasHi
	} else if f, ok := read("exclusiveMaximum"); ok && (!b.hasHi || f <= b.hi) {
		b.hi, b.hasHi, b.exclHi = f, true, true
	}
	return b
}

// integer picks 1 when allowed (a count, a page, a number of seconds: 0 is
// often rejected and large values are slow), else the bound nearest to it.
func (g *generator) integer(s map[string]any, path string) any {
	b := g.bounds(s, path)
	v := 1.0
	if b.hasLo {
		lo := math.Ceil(b.lo)
		if b.exclLo && lo == b.lo {
			lo++
		}
		v = math.Max(v, lo)
	}
	if b.hasHi {
		hi := math.Floor(b.hi)
		if b.exclHi && hi == b.hi {
			hi--
		}
		v = math.Min(v, hi)
	}
	if m, ok := toFloat(s["multipleOf"]); ok && m > 0 {
		v = math.Ceil(v/m) * m
	}
	if b.hasLo && b.hasHi && (v < b.lo || v > b.hi) {
		g.note(path, "no integer satisfies minimum/maximum/multipleOf; sent the nearest")
	}
	return intOrFloat(v)
}

func (g *generator) number(s map[string]any, path string) any {
	b := g.bounds(s, path)
	v := 1.0
	switch {
	case b.hasLo && b.hasHi:
		switch {
		case !b.exclLo && b.lo >= v:
			v = b.lo
		case !b.exclHi && b.hi <= v:
			v = b.hi
		case v <= b.lo || v >= b.hi:
			v = b.lo + (b.hi-b.lo)/2 // strictly inside either way
		}
	case b.hasLo:
		if v < b.lo || (b.exclLo && v == b.lo) {
			v = b.lo
			if b.exclLo {
				v++
			}
		}
	case b.hasHi:
		if v > b.hi || (b.exclHi && v == b.hi) {
			v = b.hi
			if b.exclHi {
				v--
			}
		}
	}
	if m, ok := toFloat(s["multipleOf"]); ok && m > 0 {
		v = math.Ceil(v/m) * m
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		g.note(path, "bounds overflow; sent 0")
		v = 0
	}
	return intOrFloat(v)
}

func (g *generator) array(s map[string]any, path string, depth int) (any, bool) {
	n, _ := intKeyword(s, "minItems")
	if n > maxItems {
		g.note(path, fmt.Sprintf("minItems %d capped at %d", n, maxItems))
		n = maxItems
	}
	prefix, _ := s["prefixItems"].([]any)
	items := s["items"]
	if tuple, ok := items.([]any); ok { // draft 4–2019-09 tuple form
		prefix, items = tuple, s["additionalItems"]
	}
	if n < 1 {
		// CrewAI's argument cleaning drops empty arrays before the call, so
		// an empty array for a required argument reaches the server as a
		// missing one. One item, unless the schema allows none.
		n = 1
		if most, ok := intKeyword(s, "maxItems"); ok && most < 1 {
			n = 0
		}
		if allowed, isBool := items.(bool); isBool && !allowed && len(prefix) == 0 {
			n = 0
		}
	}
	if n < int64(len(prefix)) && n > 0 {
		n = int64(len(prefix)) // a partial tuple is rarely what a server expects
	}
	unique, _ := s["uniqueItems"].(bool)
	out := make([]any, 0, n)
	for i := range n {
		p := fmt.Sprintf("%s[%d]", path, i)
		var sub any = true
		switch {
		case i < int64(len(prefix)):
			sub = prefix[i]
		case items != nil:
			sub = items
		}
		// Distinct enum values satisfy uniqueItems where the schema lists them.
		if m, ok := g.itemSchema(sub).(map[string]any); ok && unique {
			if e, ok := m["enum"].([]any); ok && int(i) < len(e) {
				out = append(out, g.copyValue(e[i]))
				continue
			}
		}
		v, ok := g.value(sub, p, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	if unique && hasDuplicates(out) {
		g.note(path, "uniqueItems: the generated items repeat")
	}
	return out, true
}

func hasDuplicates(items []any) bool {
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if reflect.DeepEqual(items[i], items[j]) {
				return true
			}
		}
	}
	return false
}

func (g *generator) itemSchema(sub any) any {
	if m, ok := sub.(map[string]any); ok {
		return g.peekRef(m)
	}
	return sub
}

// obj generates the required properties, plus optional ones that declare a
// default (the server would use the same value, and the call shows it).
func (g *generator) obj(s map[string]any, path string, depth int) (any, bool) {
	props, _ := s["properties"].(map[string]any)
	if p, present := s["properties"]; present && props == nil {
		g.note(path, fmt.Sprintf("properties is %s, not an object; ignored", describe(p)))
	}
	out := map[string]any{}
	req, _ := s["required"].([]any)
	for _, r := range req {
		name, ok := r.(string)
		if !ok {
			g.note(path, fmt.Sprintf("required entry %s is not a string; ignored", describe(r)))
			continue
		}
		if _, done := out[name]; done {
			continue
		}
		p := joinPath(path, name)
		sub, ok := props[name]
		if !ok {
			if ap, isSchema := s["additionalProperties"].(map[string]any); isSchema {
				sub = ap
			} else {
				g.note(p, "required but not described in properties; sending a string")
				sub = true
			}
		}
		v, ok := g.value(sub, p, depth+1)
		if !ok {
			g.note(p, "required, but no value could be generated; the call will likely be rejected")
			continue
		}
		out[name] = v
	}
	optional := make([]string, 0, len(props))
	for name := range props {
		if _, done := out[name]; !done {
			optional = append(optional, name)
		}
	}
	sort.Strings(optional)
	for _, name := range optional {
		if m, ok := props[name].(map[string]any); ok {
			if d, ok := m["default"]; ok {
				out[name] = g.copyValue(d)
			} else if d, ok := g.peekRef(m)["default"]; ok {
				out[name] = g.copyValue(d)
			}
		}
	}
	return out, true
}

// resolve follows a local JSON pointer ("#", "#/$defs/X",
// "#/definitions/X", any "#/a/b~1c"). Remote references are not fetched.
func (g *generator) resolve(ref string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, errors.New("only local references (#/…) are followed")
	}
	var cur any = g.root
	ptr := ref[1:]
	if ptr != "" {
		if !strings.HasPrefix(ptr, "/") {
			return nil, errors.New("anchors are not supported")
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch c := cur.(type) {
			case map[string]any:
				next, ok := c[tok]
				if !ok {
					return nil, fmt.Errorf("%q not found", tok)
				}
				cur = next
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(c) {
					return nil, fmt.Errorf("index %q out of range", tok)
				}
				cur = c[i]
			default:
				return nil, fmt.Errorf("cannot descend into %s", describe(c))
			}
		}
	}
	switch c := cur.(type) {
	case map[string]any:
		return c, nil
	case bool:
		if c {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}, "enum": []any{}}, nil
	default:
		return nil, fmt.Errorf("target is %s, not a schema", describe(c))
	}
}

// overlay returns base with over's keys on top; properties and required
// are merged rather than replaced so allOf/anyOf branches combine.
func overlay(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		switch k {
		case "properties":
			bp, _ := out[k].(map[string]any)
			op, ok := v.(map[string]any)
			if ok && bp != nil {
				merged := make(map[string]any, len(bp)+len(op))
				for pk, pv := range bp {
					merged[pk] = pv
				}
				for pk, pv := range op {
					merged[pk] = pv
				}
				v = merged
			}
		case "required":
			br, _ := out[k].([]any)
			or, ok := v.([]any)
			if ok && br != nil {
				v = append(append([]any{}, br...), or...)
			}
		}
		out[k] = v
	}
	return out
}

func without(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func has(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func toFloat(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = n
	default:
		return 0, false
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func intKeyword(s map[string]any, kw string) (int64, bool) {
	f, ok := toFloat(s[kw])
	if !ok {
		return 0, false
	}
	switch {
	case f > math.MaxInt32:
		return math.MaxInt32, true
	case f < math.MinInt32:
		return math.MinInt32, true
	}
	return int64(f), true
}

// intOrFloat keeps whole numbers integral in the JSON sent.
func intOrFloat(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// copyValue is normalize charged to the budget, so a large default used
// through many $refs cannot multiply into an unbounded result.
func (g *generator) copyValue(v any) any {
	out := normalize(v)
	g.budget -= countValues(out)
	return out
}

func countValues(v any) int {
	n := 1
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			n += countValues(x)
		}
	case []any:
		for _, x := range t {
			n += countValues(x)
		}
	case string:
		n += len(t) / 64
	}
	return n
}

// normalize deep-copies a value taken from the schema, turning json.Number
// into int64 (when exact) or float64, so results are plain Go values and no
// two arguments share a map or slice.
func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil && !math.IsInf(f, 0) {
			return f
		}
		return t // keep the exact text; it still marshals as a number
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = normalize(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = normalize(x)
		}
		return out
	}
	return v
}

func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, int64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", t)
	}
}
