package toolschema

import (
	"testing"

	"crewbench/crew/pyjson"
)

// Each case follows _ensure_strict_json_schema (openai/lib/_pydantic.py)
// step by step on Python dicts: appended keys go last, reassigned keys
// keep their place.
func TestSDKStrictSchema(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"object gets additionalProperties and all required",
			`{"properties": {"a": {"type": "string"}, "b": {"default": null, "anyOf": [{"type": "integer"}, {"type": "null"}]}}, "required": ["a"], "type": "object"}`,
			`{"properties":{"a":{"type":"string"},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["a","b"],"type":"object","additionalProperties":false}`},
		{"existing additionalProperties kept in place",
			`{"additionalProperties": false, "properties": {"a": {"type": "string"}}, "type": "object"}`,
			`{"additionalProperties":false,"properties":{"a":{"type":"string"}},"type":"object","required":["a"]}`},
		{"defs processed, lone ref kept",
			`{"$defs": {"D": {"properties": {"x": {"type": "integer", "minimum": 1, "format": "int32"}}, "type": "object"}}, "properties": {"d": {"$ref": "#/$defs/D"}}, "type": "object"}`,
			`{"$defs":{"D":{"properties":{"x":{"type":"integer","minimum":1,"format":"int32"}},"type":"object","additionalProperties":false,"required":["x"]}},"properties":{"d":{"$ref":"#/$defs/D"}},"type":"object","additionalProperties":false,"required":["d"]}`},
		{"ref with siblings inlined, siblings win",
			`{"$defs": {"D": {"description": "def", "type": "string", "title": "D"}}, "properties": {"d": {"$ref": "#/$defs/D", "description": "mine"}}, "type": "object"}`,
			`{"$defs":{"D":{"description":"def","type":"string","title":"D"}},"properties":{"d":{"description":"mine","type":"string","title":"D"}},"type":"object","additionalProperties":false,"required":["d"]}`},
		{"single allOf merged",
			`{"properties": {"a": {"allOf": [{"type": "object", "properties": {"z": {"type": "boolean"}}}], "title": "A"}}, "type": "object"}`,
			`{"properties":{"a":{"title":"A","type":"object","properties":{"z":{"type":"boolean"}},"additionalProperties":false,"required":["z"]}},"type":"object","additionalProperties":false,"required":["a"]}`},
		{"array items",
			`{"type": "array", "items": {"type": "object", "properties": {"q": {"type": "string"}}}}`,
			`{"type":"array","items":{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false,"required":["q"]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := pyjson.LoadsObject(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			before := pyjson.DumpsStyle(in, pyjson.Wire)
			if got := pyjson.DumpsStyle(SDKStrictSchema(in), pyjson.Wire); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if after := pyjson.DumpsStyle(in, pyjson.Wire); after != before {
				t.Errorf("the input was modified: %s", after)
			}
		})
	}
}
