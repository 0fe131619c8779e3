package toolschema

import (
	"strings"

	"crewbench/crew/pyjson"
)

// SDKStrictSchema is the OpenAI Python SDK's to_strict_json_schema
// (openai/lib/_pydantic.py, _ensure_strict_json_schema), which
// beta.chat.completions.parse applies to a response_format model: where
// CrewAI passes a Pydantic class as response_model (an Agent.kickoff
// response_format, a crew-internal model), this is the schema on the wire.
// Unlike StrictSchema it keeps $defs and lone $refs, keeps every format
// and limit, and only drops null defaults: objects get
// additionalProperties: false (appended when absent) and required = all
// their properties (in place when present). A $ref with siblings is
// inlined, siblings winning. The input is not modified.
func SDKStrictSchema(schema *pyjson.Object) *pyjson.Object {
	root := schema.Clone()
	sdkStrict(root, root, 0)
	return root
}

func sdkStrict(o, root *pyjson.Object, depth int) {
	if depth > maxRefDepth {
		return
	}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := o.Get(k); ok {
			if do, ok := d.(*pyjson.Object); ok {
				for _, name := range do.Keys() {
					if v, _ := do.Get(name); v != nil {
						if vo, ok := v.(*pyjson.Object); ok {
							sdkStrict(vo, root, depth+1)
						}
					}
				}
			}
		}
	}
	if t, _ := o.Get("type"); t == "object" {
		if _, ok := o.Get("additionalProperties"); !ok {
			o.Set("additionalProperties", false)
		}
	}
	if p, ok := o.Get("properties"); ok {
		if po, ok := p.(*pyjson.Object); ok {
			req := make([]any, 0, po.Len())
			for _, k := range po.Keys() {
				req = append(req, k)
				if v, _ := po.Get(k); v != nil {
					if vo, ok := v.(*pyjson.Object); ok {
						sdkStrict(vo, root, depth+1)
					}
				}
			}
			o.Set("required", req)
		}
	}
	if it, ok := o.Get("items"); ok {
		if io, ok := it.(*pyjson.Object); ok {
			sdkStrict(io, root, depth+1)
		}
	}
	for _, k := range []string{"anyOf", "allOf"} {
		if l, ok := o.Get(k); ok {
			if la, ok := l.([]any); ok {
				for _, v := range la {
					if vo, ok := v.(*pyjson.Object); ok {
						sdkStrict(vo, root, depth+1)
					}
				}
				if k == "allOf" && len(la) == 1 {
					if only, ok := la[0].(*pyjson.Object); ok {
						for _, ok := range only.Keys() {
							v, _ := only.Get(ok)
							o.Set(ok, v)
						}
						o.Delete("allOf")
					}
				}
			}
		}
	}
	if d, ok := o.Get("default"); ok && d == nil {
		o.Delete("default")
	}
	if ref, ok := o.Get("$ref"); ok && o.Len() > 1 {
		rs, _ := ref.(string)
		target, ok := resolvePointer(root, rs)
		if !ok {
			return
		}
		// json_schema.update({**resolved, **json_schema}): the keys already
		// here keep their place and value; the referenced ones are appended.
		resolved := target.Clone()
		for _, k := range resolved.Keys() {
			if _, has := o.Get(k); !has {
				v, _ := resolved.Get(k)
				o.Set(k, v)
			}
		}
		o.Delete("$ref")
		sdkStrict(o, root, depth+1)
	}
}

// resolvePointer follows a "#/a/b" JSON pointer from root.
func resolvePointer(root *pyjson.Object, ref string) (*pyjson.Object, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	cur := root
	for _, part := range strings.Split(ref[2:], "/") {
		v, ok := cur.Get(part)
		if !ok {
			return nil, false
		}
		if cur, ok = v.(*pyjson.Object); !ok {
			return nil, false
		}
	}
	return cur, true
}
