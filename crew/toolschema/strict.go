package toolschema

import (
	"strings"

	"crewbench/crew/pyjson"
)

// keptFormats are the string formats the strict-schema pipeline keeps.
var keptFormats = map[string]bool{"date-time": true, "date": true, "time": true, "duration": true}

// maxRefDepth bounds $ref inlining, so a recursive schema cannot loop.
const maxRefDepth = 32

// StrictSchema is CrewAI's generate_model_description pipeline on a tool's
// argument schema (crewai-semantics.md §5.2, §7): $refs inlined (and
// $defs/definitions dropped), oneOf renamed anyOf, string formats other than
// date-time/date/time/duration dropped, and every object given properties,
// required = all of its properties, and additionalProperties: false. With
// stripNull (the ReAct text form), null alternatives are removed. The input
// is not modified. A nil schema is treated as an object with no properties.
//
// Where the pipeline adds keys, they are appended in the order properties,
// required, additionalProperties; existing keys keep their position
// (Python dict semantics).
func StrictSchema(schema *pyjson.Object, stripNull bool) *pyjson.Object {
	if schema == nil {
		schema = pyjson.ObjectOf("type", "object")
	}
	defs := pyjson.NewObject()
	for _, k := range []string{"definitions", "$defs"} {
		if d, ok := schema.Get(k); ok {
			if do, ok := d.(*pyjson.Object); ok {
				for _, name := range do.Keys() {
					v, _ := do.Get(name)
					defs.Set(name, v)
				}
			}
		}
	}
	out := schema.Clone()
	out.Delete("$defs")
	out.Delete("definitions")
	s := &strictifier{defs: defs, stripNull: stripNull}
	return s.node(out, 0).(*pyjson.Object)
}

// ReActArguments is the {json} of a "Tool Arguments:" line: StrictSchema
// with null types stripped, or {} when the tool has no schema.
func ReActArguments(schema *pyjson.Object) string {
	if schema == nil {
		return "{}"
	}
	return pyjson.DumpsIndent(StrictSchema(schema, true))
}

type strictifier struct {
	defs      *pyjson.Object
	stripNull bool
}

func (s *strictifier) node(v any, depth int) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			out = append(out, s.node(e, depth))
		}
		return out
	case *pyjson.Object:
		return s.object(t, depth)
	}
	return v
}

func (s *strictifier) object(o *pyjson.Object, depth int) any {
	if ref, ok := o.Get("$ref"); ok && depth < maxRefDepth {
		if target, ok := s.resolve(ref); ok {
			merged := target.Clone()
			for _, k := range o.Keys() {
				if k != "$ref" {
					v, _ := o.Get(k)
					merged.Set(k, v)
				}
			}
			return s.object(merged, depth+1)
		}
	}
	// oneOf → anyOf, in place.
	if _, ok := o.Get("oneOf"); ok {
		o = renameKey(o, "oneOf", "anyOf")
	}
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch k {
		case "properties":
			if props, ok := v.(*pyjson.Object); ok {
				np := pyjson.NewObject()
				for _, pk := range props.Keys() {
					pv, _ := props.Get(pk)
					np.Set(pk, s.node(pv, depth))
				}
				o.Set(k, np)
			}
		case "items", "anyOf", "allOf", "prefixItems", "not":
			o.Set(k, s.node(v, depth))
		case "additionalProperties":
			if _, ok := v.(*pyjson.Object); ok {
				o.Set(k, s.node(v, depth))
			}
		}
	}
	if f, ok := o.Get("format"); ok {
		if fs, _ := f.(string); !keptFormats[fs] {
			o.Delete("format")
		}
	}
	if s.stripNull {
		if r, replaced := stripNullTypes(o); replaced {
			return r
		}
	}
	if isObjectSchema(o) {
		props, _ := o.Get("properties")
		po, ok := props.(*pyjson.Object)
		if !ok {
			po = pyjson.NewObject()
			o.Set("properties", po)
		}
		req := make([]any, 0, po.Len())
		for _, k := range po.Keys() {
			req = append(req, k)
		}
		o.Set("required", req)
		o.Set("additionalProperties", false)
	}
	return o
}

func (s *strictifier) resolve(ref any) (*pyjson.Object, bool) {
	r, _ := ref.(string)
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(r, prefix); ok {
			if d, ok := s.defs.Get(name); ok {
				if o, ok := d.(*pyjson.Object); ok {
					return o, true
				}
			}
		}
	}
	return nil, false
}

// isObjectSchema: type "object" (alone or in a type list) or properties present.
func isObjectSchema(o *pyjson.Object) bool {
	if o.Has("properties") {
		return true
	}
	switch t, _ := o.Get("type"); tt := t.(type) {
	case string:
		return tt == "object"
	case []any:
		for _, e := range tt {
			if e == "object" {
				return true
			}
		}
	}
	return false
}

// stripNullTypes removes null alternatives: "type": [X, "null"] becomes X,
// and an anyOf with a {"type": "null"} member loses it; an anyOf left with
// one member is merged into the outer object: the outer keys (default,
// description, title) first, then the member's, as the goldens' ReAct
// blocks show.
func stripNullTypes(o *pyjson.Object) (any, bool) {
	if t, ok := o.Get("type"); ok {
		if list, ok := t.([]any); ok {
			var kept []any
			for _, e := range list {
				if e != "null" {
					kept = append(kept, e)
				}
			}
			if len(kept) == 1 {
				o.Set("type", kept[0])
			} else if len(kept) != len(list) {
				o.Set("type", kept)
			}
		}
	}
	anyOf, ok := o.Get("anyOf")
	if !ok {
		return nil, false
	}
	list, ok := anyOf.([]any)
	if !ok {
		return nil, false
	}
	var kept []any
	for _, m := range list {
		if mo, ok := m.(*pyjson.Object); ok {
			if t, _ := mo.Get("type"); t == "null" && mo.Len() == 1 {
				continue
			}
		}
		kept = append(kept, m)
	}
	if len(kept) == len(list) {
		return nil, false
	}
	if len(kept) == 1 {
		if mo, ok := kept[0].(*pyjson.Object); ok {
			merged := o.Clone()
			merged.Delete("anyOf")
			for _, k := range mo.Keys() {
				v, _ := mo.Get(k)
				merged.Set(k, v)
			}
			return merged, true
		}
	}
	o.Set("anyOf", kept)
	return nil, false
}

func renameKey(o *pyjson.Object, from, to string) *pyjson.Object {
	out := pyjson.NewObject()
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		if k == from {
			out.Set(to, v)
		} else {
			out.Set(k, v)
		}
	}
	return out
}
