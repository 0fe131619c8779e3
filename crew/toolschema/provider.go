package toolschema

import (
	"fmt"

	"crewbench/crew/pyjson"
)

// openAIDropped are the keys the strict pipeline removes from every schema
// node (_STRICT_METADATA_KEYS, utilities/pydantic_schema_utils.py:506-515).
var openAIDropped = []string{"title", "default", "examples", "example", "$comment", "readOnly", "writeOnly", "deprecated"}

// anthropicDropped are the keys Anthropic's strict tool conversion removes
// on top of those (_CLAUDE_STRICT_UNSUPPORTED, pydantic_schema_utils.py:
// 517-537).
var anthropicDropped = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains",
	"minProperties", "maxProperties", "patternProperties", "propertyNames", "dependentRequired", "dependentSchemas"}

// OpenAIParameters is the "parameters" object of a native OpenAI tool
// (sent with "strict": true): the strict schema with null alternatives
// kept, minus the top-level description and every title, default, example,
// comment and read/write/deprecated marker. A nil schema is an object with
// no properties.
func OpenAIParameters(schema *pyjson.Object) *pyjson.Object {
	out := StrictSchema(schema, false)
	out.Delete("description")
	dropKeys(out, openAIDropped)
	return out
}

// AnthropicParameters is the input_schema of a strict Anthropic tool,
// sanitize_tool_params_for_anthropic_strict (pydantic_schema_utils.py:
// 636-643, called by anthropic/completion.py:580-584): the OpenAI form, a
// top-level union with exactly one object variant lifted to the root
// (lift_top_level_anyof, :580-600), then without the constraints Claude's
// strict grammar rejects. Optional fields stay required and nullable
// (anyOf with null), as on OpenAI.
func AnthropicParameters(schema *pyjson.Object) *pyjson.Object {
	out := liftTopLevelUnion(OpenAIParameters(schema))
	dropKeys(out, anthropicDropped)
	return out
}

// liftTopLevelUnion is lift_top_level_anyof: for the first of anyOf,
// oneOf, allOf that is a list with exactly one {"type": "object"} variant,
// the key is removed and a copy of that variant merged into the root (dict
// update: existing keys keep their place).
func liftTopLevelUnion(o *pyjson.Object) *pyjson.Object {
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		v, _ := o.Get(k)
		list, ok := v.([]any)
		if !ok {
			continue
		}
		var objects []*pyjson.Object
		for _, e := range list {
			if eo, ok := e.(*pyjson.Object); ok {
				if t, _ := eo.Get("type"); t == "object" {
					objects = append(objects, eo)
				}
			}
		}
		if len(objects) == 1 {
			lifted := objects[0].Clone()
			o.Delete(k)
			for _, lk := range lifted.Keys() {
				lv, _ := lifted.Get(lk)
				o.Set(lk, lv)
			}
			break
		}
	}
	return o
}

// dropKeys is _strip_keys_recursive (pydantic_schema_utils.py:540-573):
// keys are removed from a node and from every dict and list below it, but
// a "properties" map's own keys are property names, never removed (a
// property may well be called "title" or "default"); only the schemas
// under them are cleaned.
func dropKeys(v any, keys []string) {
	switch t := v.(type) {
	case *pyjson.Object:
		for _, k := range keys {
			t.Delete(k)
		}
		for _, k := range t.Keys() {
			sub, _ := t.Get(k)
			if po, ok := sub.(*pyjson.Object); ok && k == "properties" {
				for _, pk := range po.Keys() {
					ps, _ := po.Get(pk)
					dropKeys(ps, keys)
				}
				continue
			}
			dropKeys(sub, keys)
		}
	case []any:
		for _, e := range t {
			dropKeys(e, keys)
		}
	}
}

func mustObject(o *pyjson.Object, k string) (*pyjson.Object, bool) {
	v, _ := o.Get(k)
	so, ok := v.(*pyjson.Object)
	return so, ok
}

// ProviderView is an MCP tool's parameters as CrewAI sends them to the
// provider (Anthropic's form when anthropic is set, else OpenAI's),
// json.dumps(indent=2)-style, for showing beside the server's raw
// inputSchema (the TUI's Tools detail and breakpoints). An empty
// inputSchema is a tool without arguments.
func ProviderView(remoteName string, inputSchema []byte, anthropic bool) (string, error) {
	var raw *pyjson.Object
	if len(inputSchema) > 0 {
		o, err := pyjson.LoadsObject(string(inputSchema))
		if err != nil {
			return "", fmt.Errorf("inputSchema of %s: %w", remoteName, err)
		}
		raw = o
	}
	render := OpenAIParameters
	if anthropic {
		render = AnthropicParameters
	}
	return pyjson.DumpsStyle(render(MCPToolModel(remoteName, raw).Schema()), pyjson.Style{Indent: 2, KeepNonASCII: true}), nil
}
