package toolschema

import (
	"slices"
	"strings"

	"crewbench/crew/pyjson"
)

// modelSchema is model_json_schema() of m: extra keys forbidden, the
// properties in field order, the required list when there is one, the
// model's title; every schema object with its keys sorted (Pydantic's
// GenerateJsonSchema sort). Nested models are inlined where Pydantic writes
// a $ref: the strict pass inlines them anyway, and the text forms CrewAI
// sends (ReAct block, output prompt) are post-strict.
func (b *builder) modelSchema(m *Model, rawProps *pyjson.Object, depth int) *pyjson.Object {
	props := pyjson.NewObject()
	for _, f := range m.Fields {
		pv, _ := rawProps.Get(f.Name)
		raw, _ := pv.(*pyjson.Object)
		props.Set(f.Name, b.fieldSchema(f, b.deref(raw, depth)))
	}
	out := pyjson.ObjectOf("additionalProperties", false, "properties", props)
	if len(m.required) > 0 {
		req := make([]any, len(m.required))
		for i, r := range m.required {
			req[i] = r
		}
		out.Set("required", req)
	}
	out.Set("title", m.Name)
	out.Set("type", "object")
	return out
}

// fieldSchema is one property: the annotation's schema (wrapped in anyOf
// with null when optional), then default, description, examples and title.
func (b *builder) fieldSchema(f Field, raw *pyjson.Object) *pyjson.Object {
	out := f.Type.schema()
	if !f.Required {
		out.Set("default", pyjson.Clone(f.Default))
	}
	if f.Type.Kind == KindModel && !f.Type.Nullable {
		// Pydantic writes a required nested model as {"$ref": …} beside
		// the field's description and examples, and CrewAI's resolve_refs
		// replaces that whole node by the definition
		// (pydantic_schema_utils.py:99-140): the siblings are lost.
		return sorted(out)
	}
	if d := description(raw, b.enrich); d != "" {
		out.Set("description", d)
	}
	if ex, ok := raw.Get("examples"); ok {
		out.Set("examples", pyjson.Clone(ex))
	}
	if f.Type.Kind != KindModel || f.Type.Nullable {
		out.Set("title", Title(f.Name))
	}
	return sorted(out)
}

// schema is the JSON schema of the annotation.
func (t *Type) schema() *pyjson.Object {
	if t.Nullable {
		inner := *t
		inner.Nullable = false
		var members []any
		if inner.Kind == KindUnion {
			for _, m := range inner.Members {
				members = append(members, m.schema())
			}
		} else {
			members = append(members, inner.schema())
		}
		if inner.Kind == KindAny {
			// Optional[Any] is just Any.
			return pyjson.NewObject()
		}
		return pyjson.ObjectOf("anyOf", append(members, pyjson.ObjectOf("type", "null")))
	}
	o := pyjson.NewObject()
	set := func(k string, n pyjson.Number) {
		if n != "" {
			o.Set(k, n)
		}
	}
	if t.mapped != nil {
		return t.mapped.Clone()
	}
	switch t.Kind {
	case KindString:
		o.Set("type", "string")
		if t.Format != "" {
			o.Set("format", t.Format)
		}
		if t.MinLength != nil {
			o.Set("minLength", pyjson.Int(int64(*t.MinLength)))
		}
		if t.MaxLength != nil {
			o.Set("maxLength", pyjson.Int(int64(*t.MaxLength)))
		}
		if t.Pattern != "" {
			o.Set("pattern", t.Pattern)
		}
	case KindInt, KindFloat:
		if t.Kind == KindInt {
			o.Set("type", "integer")
		} else {
			o.Set("type", "number")
		}
		set("minimum", t.Minimum)
		set("maximum", t.Maximum)
		set("exclusiveMinimum", t.ExclMin)
		set("exclusiveMaximum", t.ExclMax)
		set("multipleOf", t.MultipleOf)
	case KindBool:
		o.Set("type", "boolean")
	case KindNull:
		o.Set("type", "null")
	case KindList:
		o.Set("items", t.Items.schema())
		o.Set("type", "array")
	case KindDict:
		o.Set("additionalProperties", true)
		o.Set("type", "object")
	case KindModel:
		return t.Model.schema.Clone()
	case KindLiteral:
		if len(t.Literals) == 1 {
			o.Set("const", pyjson.Clone(t.Literals[0]))
		} else {
			o.Set("enum", pyjson.Clone(t.Literals))
		}
		if jt := literalType(t.Literals); jt != "" {
			o.Set("type", jt)
		}
	case KindUnion:
		var members []any
		for _, m := range t.Members {
			members = append(members, m.schema())
		}
		o.Set("anyOf", members)
	}
	return sorted(o)
}

// literalType is the "type" Pydantic gives a Literal whose values share one
// JSON type, "" otherwise.
func literalType(vals []any) string {
	jt := ""
	for _, v := range vals {
		var t string
		switch n := v.(type) {
		case string:
			t = "string"
		case bool:
			t = "boolean"
		case pyjson.Number:
			t = "number"
			if n.IsInt() {
				t = "integer"
			}
		case nil:
			t = "null"
		default:
			return ""
		}
		if jt != "" && jt != t {
			return ""
		}
		jt = t
	}
	return jt
}

// description is the field description create_model_from_schema writes:
// the authored one and, with enrich_descriptions=True, the constraints a
// provider may not enforce, in build_rich_field_description's order
// (utilities/pydantic_schema_utils.py:722-773): format, enum, pattern,
// minimum, maximum, min/max length, the first three examples, joined with
// ". " (an authored text that ends in "." so gets two periods, as CrewAI's
// does). Exclusive bounds are not described.
func description(raw *pyjson.Object, enrich bool) string {
	var parts []string
	if d, ok := raw.Get("description"); ok {
		if ds, ok := d.(string); ok && ds != "" {
			parts = append(parts, ds)
		}
	}
	if !enrich {
		return strings.Join(parts, "")
	}
	// Python's truthiness decides for format, enum, pattern and examples;
	// the bounds count unless they are None.
	if f, ok := raw.Get("format"); ok && pyjson.Truthy(f) {
		parts = append(parts, "Format: "+pyjson.Str(f))
	}
	if e, ok := raw.Get("enum"); ok && pyjson.Truthy(e) {
		if list, ok := e.([]any); ok {
			parts = append(parts, "Allowed values: "+pyjson.Repr(list))
		}
	}
	if p, ok := raw.Get("pattern"); ok && pyjson.Truthy(p) {
		parts = append(parts, "Pattern: "+pyjson.Str(p))
	}
	for _, c := range []struct{ key, label string }{
		{"minimum", "Minimum"}, {"maximum", "Maximum"},
		{"minLength", "Min length"}, {"maxLength", "Max length"},
	} {
		if v, ok := raw.Get(c.key); ok && v != nil {
			parts = append(parts, c.label+": "+pyjson.Str(v))
		}
	}
	if ex, ok := raw.Get("examples"); ok && pyjson.Truthy(ex) {
		if list, ok := ex.([]any); ok {
			list = list[:min(3, len(list))]
			reprs := make([]string, len(list))
			for i, e := range list {
				reprs[i] = pyjson.Repr(e)
			}
			parts = append(parts, "Examples: "+strings.Join(reprs, ", "))
		}
	}
	return strings.Join(parts, ". ")
}

// sorted returns o with its keys in sorted order.
func sorted(o *pyjson.Object) *pyjson.Object {
	keys := o.Keys()
	if slices.IsSorted(keys) {
		return o
	}
	slices.Sort(keys)
	out := pyjson.NewObject()
	for _, k := range keys {
		v, _ := o.Get(k)
		out.Set(k, v)
	}
	return out
}
