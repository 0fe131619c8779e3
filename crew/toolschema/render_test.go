package toolschema

import (
	"strings"
	"testing"

	"crewbench/crew/pyjson"
)

func render(t *testing.T, schema string, fn func(*pyjson.Object) *pyjson.Object) string {
	t.Helper()
	in, err := pyjson.LoadsObject(schema)
	if err != nil {
		t.Fatal(err)
	}
	return pyjson.DumpsStyle(fn(FromJSONSchema("tSchema", in, true).Schema()), pyjson.Wire)
}

// TestRenderings covers what the fixture and reference servers do not:
// $ref/$defs, type lists, unions, const, formats, keyword-like property
// names, dicts; and the Anthropic variant.
func TestRenderings(t *testing.T) {
	cases := []struct{ name, in, openai, anthropic string }{
		{"$ref to $defs becomes an inlined nested model, its title dropped",
			`{"type":"object","$defs":{"Loc":{"type":"object","properties":{"lat":{"type":"number","minimum":-90}},"required":["lat"]}},"properties":{"loc":{"$ref":"#/$defs/Loc"}},"required":["loc"]}`,
			`{"additionalProperties":false,"properties":{"loc":{"additionalProperties":false,"properties":{"lat":{"description":"Minimum: -90","minimum":-90,"type":"number"}},"required":["lat"],"type":"object"}},"required":["loc"],"type":"object"}`,
			`{"additionalProperties":false,"properties":{"loc":{"additionalProperties":false,"properties":{"lat":{"description":"Minimum: -90","type":"number"}},"required":["lat"],"type":"object"}},"required":["loc"],"type":"object"}`},
		{"a required type list with null is Optional without a default",
			`{"type":"object","properties":{"q":{"type":["string","null"],"maxLength":5}},"required":["q"]}`,
			`{"additionalProperties":false,"properties":{"q":{"anyOf":[{"maxLength":5,"type":"string"},{"type":"null"}],"description":"Max length: 5"}},"required":["q"],"type":"object"}`,
			`{"additionalProperties":false,"properties":{"q":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Max length: 5"}},"required":["q"],"type":"object"}`},
		// build_rich_field_description names the format first
		// (pydantic_schema_utils.py:741-743), also where the strict pass
		// then drops it.
		{"unions, const and formats",
			`{"type":"object","properties":{"id":{"anyOf":[{"type":"string"},{"type":"integer"}]},"kind":{"const":"fixed"},"at":{"type":"string","format":"date-time"},"mail":{"type":"string","format":"email"}},"required":["id","kind","at","mail"]}`,
			`{"additionalProperties":false,"properties":{"id":{"anyOf":[{"type":"string"},{"type":"integer"}]},"kind":{"const":"fixed","type":"string"},"at":{"description":"Format: date-time","format":"date-time","type":"string"},"mail":{"description":"Format: email","type":"string"}},"required":["id","kind","at","mail"],"type":"object"}`,
			``},
		{"a property called title or default is kept",
			`{"type":"object","properties":{"title":{"type":"string","title":"T"},"default":{"type":"boolean","default":true}},"required":["title"]}`,
			`{"additionalProperties":false,"properties":{"title":{"type":"string"},"default":{"anyOf":[{"type":"boolean"},{"type":"null"}]}},"required":["title","default"],"type":"object"}`,
			``},
		{"arrays of objects without properties are dicts",
			`{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object"}}},"required":["rows"]}`,
			`{"additionalProperties":false,"properties":{"rows":{"items":{"additionalProperties":false,"type":"object","properties":{},"required":[]},"type":"array"}},"required":["rows"],"type":"object"}`,
			``},
	}
	for _, c := range cases {
		if got := render(t, c.in, OpenAIParameters); got != c.openai {
			t.Errorf("%s (openai):\n got %s\nwant %s", c.name, got, c.openai)
		}
		if c.anthropic == "" {
			continue
		}
		if got := render(t, c.in, AnthropicParameters); got != c.anthropic {
			t.Errorf("%s (anthropic):\n got %s\nwant %s", c.name, got, c.anthropic)
		}
	}
}

// TestValidationErrors: Pydantic's texts for nested locations, unions
// (one error per member, tagged), lax parsing failures, patterns, limits,
// and an input_value repr cut to 25 + "..." + 24 characters.
func TestValidationErrors(t *testing.T) {
	schema, _ := pyjson.LoadsObject(`{"type":"object","properties":{
	  "edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"n":{"type":"integer"}},"required":["oldText"]}},
	  "id":{"anyOf":[{"type":"string"},{"type":"integer"}]},
	  "flag":{"type":"boolean"},
	  "sku":{"type":"string","pattern":"^SKU-[0-9]{4}$"},
	  "score":{"type":"number","exclusiveMaximum":1}},
	  "required":["edits"]}`)
	m := FromJSONSchema("editSchema", schema, true)
	cases := []struct{ args, want string }{
		{`{"edits":[{"n":"1.5"}]}`, "2 validation errors for editSchema\nedits.0.oldText\n  Field required [type=missing, input_value={'n': '1.5'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing\nedits.0.n\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='1.5', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing"},
		{`{"edits":"x","flag":"maybe"}`, "2 validation errors for editSchema\nedits\n  Input should be a valid list [type=list_type, input_value='x', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/list_type\nflag\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='maybe', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/bool_parsing"},
		{`{"edits":[],"id":[1]}`, "2 validation errors for editSchema\nid.str\n  Input should be a valid string [type=string_type, input_value=[1], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type\nid.int\n  Input should be a valid integer [type=int_type, input_value=[1], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.13/v/int_type"},
		{`{"edits":[],"sku":"SKU-12","score":1}`, "2 validation errors for editSchema\nsku\n  String should match pattern '^SKU-[0-9]{4}$' [type=string_pattern_mismatch, input_value='SKU-12', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_pattern_mismatch\nscore\n  Input should be less than 1 [type=less_than, input_value=1, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.13/v/less_than"},
		{`{"edits":[],"extra":"` + strings.Repeat("x", 60) + `"}`, "1 validation error for editSchema\nextra\n  Extra inputs are not permitted [type=extra_forbidden, input_value='" + strings.Repeat("x", 24) + "..." + strings.Repeat("x", 23) + "', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/extra_forbidden"},
	}
	for _, c := range cases {
		args, _ := pyjson.LoadsObject(c.args)
		_, err := m.Validate(args)
		if err == nil {
			t.Errorf("%s validated", c.args)
			continue
		}
		if got := err.Error(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
	args, _ := pyjson.LoadsObject(`{"edits":[{"oldText":"a","n":2.0}],"id":7,"flag":"yes","score":"0.5"}`)
	out, err := m.Validate(args)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pyjson.Dumps(out), `{"edits": [{"oldText": "a", "n": 2}], "id": 7, "flag": true, "sku": null, "score": 0.5}`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{"dryRun": "Dryrun", "max_items": "Max Items", "city": "City", "v2name": "V2Name", "_x": "X"} {
		if got := Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMCPArguments: what reaches the server is the model's dump without
// None values (also inside nested objects, never inside lists); a refusal
// carries CrewAI's text.
func TestMCPArguments(t *testing.T) {
	schema, _ := pyjson.LoadsObject(`{"type":"object","properties":{
	  "q":{"type":"string"},"opt":{"type":"string"},
	  "where":{"type":"object","properties":{"lat":{"type":"number"},"name":{"type":"string"}},"required":["lat"]},
	  "rows":{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"]}}},
	  "required":["q"]}`)
	m := MCPToolModel("searchThings", schema)
	if m.Name != "search_thingsSchema" {
		t.Errorf("model name %q", m.Name)
	}
	args, _ := pyjson.LoadsObject(`{"q":"x","opt":null,"where":{"lat":1},"rows":[{"a":"2"}]}`)
	sent, err := m.MCPArguments("srv_search_things", args)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pyjson.Dumps(sent), `{"q": "x", "where": {"lat": 1.0}, "rows": [{"a": 2, "b": null}]}`; got != want {
		t.Errorf("sent %s, want %s", got, want)
	}
	bad, _ := pyjson.LoadsObject(`{}`)
	_, err = m.MCPArguments("srv_search_things", bad)
	if err == nil || !strings.HasPrefix(err.Error(), "Tool 'srv_search_things' arguments validation failed: 1 validation error for search_thingsSchema\nq\n  Field required") {
		t.Errorf("refusal: %v", err)
	}
}

func TestProviderView(t *testing.T) {
	got, err := ProviderView("getX", []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`), false)
	want := "{\n  \"additionalProperties\": false,\n  \"properties\": {\n    \"n\": {\n      \"anyOf\": [\n        {\n          \"minimum\": 1,\n          \"type\": \"integer\"\n        },\n        {\n          \"type\": \"null\"\n        }\n      ],\n      \"description\": \"Minimum: 1\"\n    }\n  },\n  \"type\": \"object\",\n  \"required\": [\n    \"n\"\n  ]\n}"
	if err != nil || got != want {
		t.Errorf("got %q (%v)\nwant %q", got, err, want)
	}
	if got, _ := ProviderView("getX", []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`), true); strings.Contains(got, "minimum\"") {
		t.Errorf("anthropic view keeps minimum:\n%s", got)
	}
	if _, err := ProviderView("getX", []byte(`{`), false); err == nil {
		t.Error("a broken inputSchema must be an error")
	}
}
