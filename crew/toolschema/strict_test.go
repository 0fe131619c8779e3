package toolschema

import (
	"strings"
	"testing"

	"crewbench/crew/pyjson"
)

func TestStrictSchema(t *testing.T) {
	in, _ := pyjson.LoadsObject(`{"title": "Args", "description": "d", "type": "object", "$defs": {"Loc": {"type": "object", "properties": {"lat": {"type": "number"}}}},
	 "properties": {"when": {"type": "string", "format": "date-time"}, "mail": {"type": "string", "format": "email"},
	  "loc": {"$ref": "#/$defs/Loc", "description": "where"}, "opt": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
	  "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]}, "tags": {"type": ["array", "null"], "items": {"type": "string"}}},
	 "required": ["when"]}`)
	native := pyjson.Dumps(OpenAIParameters(in))
	wantNative := `{"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}, "mail": {"type": "string"}, "loc": {"type": "object", "properties": {"lat": {"type": "number"}}, "description": "where", "required": ["lat"], "additionalProperties": false}, "opt": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "kind": {"anyOf": [{"const": "a"}, {"const": "b"}]}, "tags": {"type": ["array", "null"], "items": {"type": "string"}}}, "required": ["when", "mail", "loc", "opt", "kind", "tags"], "additionalProperties": false}`
	if native != wantNative {
		t.Errorf("native:\n got %s\nwant %s", native, wantNative)
	}
	react := pyjson.Dumps(StrictSchema(in, true))
	for _, want := range []string{`"opt": {"default": null, "type": "string"}`, `"tags": {"type": "array", "items": {"type": "string"}}`, `"title": "Args"`} {
		if !strings.Contains(react, want) {
			t.Errorf("react schema lacks %s:\n%s", want, react)
		}
	}
	if in.Has("additionalProperties") {
		t.Error("StrictSchema modified its input")
	}
	if ReActArguments(nil) != "{}" {
		t.Error("no schema must render {}")
	}
}
