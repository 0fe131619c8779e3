package toolschema

import (
	"fmt"

	"crewbench/crew/pyjson"
)

// openAIDropped are the keys the OpenAI provider's strict conversion removes
// from every schema object.
var openAIDropped = []string{"title", "default", "examples", "$comment", "readOnly", "writeOnly", "deprecated"}

// anthropicDropped are the keys Anthropic's strict tool conversion removes
// on top of OpenAI's (anthropic/completion.py:577-594).
var anthropicDropped = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"pattern", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems"}

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

// AnthropicParameters is the input_schema of an Anthropic tool: the OpenAI
// form without the numeric, pattern and length constraints Anthropic's
// strict mode rejects.
func AnthropicParameters(schema *pyjson.Object) *pyjson.Object {
	out := OpenAIParameters(schema)
	dropKeys(out, anthropicDropped)
	return out
}

// dropKeys removes keys from a schema object and every schema nested in
// it, never from the names under "properties" (a property may well be
// called "title" or "default").
func dropKeys(o *pyjson.Object, keys []string) {
	for _, k := range keys {
		o.Delete(k)
	}
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch k {
		case "properties", "$defs", "definitions", "patternProperties":
			if po, ok := v.(*pyjson.Object); ok {
				for _, pk := range po.Keys() {
					if ps, ok := mustObject(po, pk); ok {
						dropKeys(ps, keys)
					}
				}
			}
		case "items", "additionalProperties", "not", "contains":
			if so, ok := v.(*pyjson.Object); ok {
				dropKeys(so, keys)
			}
			if list, ok := v.([]any); ok {
				dropList(list, keys)
			}
		case "anyOf", "allOf", "oneOf", "prefixItems":
			if list, ok := v.([]any); ok {
				dropList(list, keys)
			}
		}
	}
}

func dropList(list []any, keys []string) {
	for _, e := range list {
		if eo, ok := e.(*pyjson.Object); ok {
			dropKeys(eo, keys)
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
