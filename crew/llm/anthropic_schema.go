package llm

import (
	"errors"
	"fmt"
	"strings"

	"crewbench/crew/pyjson"
)

// anthropicStringFormats are the string formats the structured-output
// schema keeps; any other format is folded into the description.
var anthropicStringFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "uri": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// transformSchema mirrors the anthropic Python SDK's transform_schema
// (anthropic/lib/_parse/_transform.py), which CrewAI applies to a response
// model's model_json_schema() before sending it as output_format or as the
// structured_output tool's input_schema. The output is built key by key in
// the SDK's order: $defs, then $ref alone, or enum / anyOf (oneOf becomes
// anyOf) / allOf / type, description, title, then per type properties,
// additionalProperties false and required (objects), a supported format
// (strings), items and a minItems of 0 or 1 (arrays). Every key left over
// is appended to the description as "{key: value, …}" with Python's str()
// of each value. Like the SDK, it fails on a schema with none of type,
// enum, anyOf, oneOf or allOf, and on a type it does not know.
func transformSchema(in *pyjson.Object) (*pyjson.Object, error) {
	js := in.Clone()
	out := pyjson.NewObject()
	pop := func(k string) (any, bool) {
		v, ok := js.Get(k)
		js.Delete(k)
		return v, ok && v != nil
	}
	if defs, ok := pop("$defs"); ok {
		d, isObj := defs.(*pyjson.Object)
		if !isObj {
			return nil, errors.New("$defs is not an object")
		}
		strictDefs := pyjson.NewObject()
		for _, name := range d.Keys() {
			v, _ := d.Get(name)
			t, err := transformSub(v)
			if err != nil {
				return nil, fmt.Errorf("$defs.%s: %w", name, err)
			}
			strictDefs.Set(name, t)
		}
		out.Set("$defs", strictDefs)
	}
	if ref, ok := pop("$ref"); ok {
		out.Set("$ref", ref)
		return out, nil
	}
	typ, _ := pop("type")
	enum, _ := pop("enum")
	anyOf, _ := pop("anyOf")
	oneOf, _ := pop("oneOf")
	allOf, _ := pop("allOf")
	if list, ok := enum.([]any); ok {
		variants := make([]any, len(list))
		for i, v := range list {
			switch v.(type) {
			case string, pyjson.Number, bool:
				variants[i] = v
			default:
				t, err := transformSub(v)
				if err != nil {
					return nil, fmt.Errorf("enum[%d]: %w", i, err)
				}
				variants[i] = t
			}
		}
		out.Set("enum", variants)
	} else if key, list, ok := firstList([]string{"anyOf", "anyOf", "allOf"}, anyOf, oneOf, allOf); ok {
		variants := make([]any, len(list))
		for i, v := range list {
			t, err := transformSub(v)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
			}
			variants[i] = t
		}
		out.Set(key, variants)
	} else {
		if typ == nil {
			return nil, errors.New("schema must have a 'type', 'enum', 'anyOf', 'oneOf', or 'allOf' field")
		}
		out.Set("type", typ)
	}
	if d, ok := pop("description"); ok {
		out.Set("description", d)
	}
	if t, ok := pop("title"); ok {
		out.Set("title", t)
	}
	switch typ {
	case "object":
		props := pyjson.NewObject()
		if p, ok := pop("properties"); ok {
			po, isObj := p.(*pyjson.Object)
			if !isObj {
				return nil, errors.New("properties is not an object")
			}
			for _, name := range po.Keys() {
				v, _ := po.Get(name)
				t, err := transformSub(v)
				if err != nil {
					return nil, fmt.Errorf("properties.%s: %w", name, err)
				}
				props.Set(name, t)
			}
		}
		out.Set("properties", props)
		pop("additionalProperties")
		out.Set("additionalProperties", false)
		if r, ok := pop("required"); ok {
			out.Set("required", r)
		}
	case "string":
		if f, ok := pop("format"); ok {
			if s, isStr := f.(string); isStr && anthropicStringFormats[s] {
				out.Set("format", f)
			} else if pyjson.Truthy(f) {
				js.Set("format", f) // folded into the description below
			}
		}
	case "array":
		if items, ok := pop("items"); ok {
			t, err := transformSub(items)
			if err != nil {
				return nil, fmt.Errorf("items: %w", err)
			}
			out.Set("items", t)
		}
		if m, ok := pop("minItems"); ok {
			if n, isNum := m.(pyjson.Number); isNum && (n == "0" || n == "1") {
				out.Set("minItems", m)
			} else {
				js.Set("minItems", m)
			}
		}
	case "boolean", "integer", "number", "null", nil:
	default:
		return nil, fmt.Errorf("unsupported type %s", pyjson.Repr(typ))
	}
	if js.Len() > 0 {
		var b strings.Builder
		if d, ok := out.Get("description"); ok && d != nil {
			b.WriteString(pyjson.Str(d))
			b.WriteString("\n\n")
		}
		b.WriteByte('{')
		for i, k := range js.Keys() {
			if i > 0 {
				b.WriteString(", ")
			}
			v, _ := js.Get(k)
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(pyjson.Str(v))
		}
		b.WriteByte('}')
		out.Set("description", b.String())
	}
	return out, nil
}

func transformSub(v any) (*pyjson.Object, error) {
	o, ok := v.(*pyjson.Object)
	if !ok {
		return nil, fmt.Errorf("subschema %s is not an object", pyjson.Repr(v))
	}
	return transformSchema(o)
}

// firstList is the first of values that is a list, with its output key.
func firstList(keys []string, values ...any) (string, []any, bool) {
	for i, v := range values {
		if l, ok := v.([]any); ok {
			return keys[i], l, true
		}
	}
	return "", nil, false
}
