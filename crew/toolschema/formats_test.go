package toolschema

import (
	"strings"
	"testing"

	"crewbench/crew/pyjson"
)

// TestFormatTypes is one row per FORMAT_TYPE_MAP entry crewbench maps: the
// property carries minLength, maxLength, pattern (and for one row an enum)
// that CrewAI does not apply to the mapped types, so only the mapped type's
// schema and the enriched description remain. prop is the OpenAI property
// of the required field f; the optional field o is the same property
// wrapped in anyOf with null. react is f in the ReAct "Tool Arguments:"
// form.
func TestFormatTypes(t *testing.T) {
	const lim = `"minLength":2,"maxLength":9,"pattern":"^a"`
	const desc = `Format: %s. Pattern: ^a. Min length: 2. Max length: 9`
	cases := []struct{ format, extra, prop string }{
		{"binary", "", `{"type":"string"}`},
		{"date", "", `{"format":"date","type":"string"}`},
		{"time", "", `{"format":"time","type":"string"}`},
		{"date-time", "", `{"format":"date-time","type":"string"}`},
		{"duration", "", `{"format":"duration","type":"string"}`},
		{"directory-path", "", `{"type":"string"}`},
		{"file-path", "", `{"type":"string"}`},
		{"path", "", `{"type":"string"}`},
		{"ipv4", "", `{"type":"string"}`},
		{"ipv6", "", `{"type":"string"}`},
		{"ipvanyaddress", "", `{"type":"string"}`},
		{"ipvanyinterface", "", `{"type":"string"}`},
		{"ipvanynetwork", "", `{"type":"string"}`},
		{"password", "", `{"type":"string"}`},
		{"password", `,"writeOnly":true`, `{"type":"string"}`},
		{"uri", "", `{"minLength":1,"type":"string"}`},
		{"uri", `,"scheme":["http"]`, `{"maxLength":2083,"minLength":1,"type":"string"}`},
		{"uri", `,"scheme":["file"]`, `{"minLength":1,"type":"string"}`},
		{"uri", `,"scheme":["http","https"]`, `{"minLength":1,"type":"string"}`},
		{"uuid", "", `{"type":"string"}`},
		{"uuid1", "", `{"type":"string"}`},
		{"uuid3", "", `{"type":"string"}`},
		{"uuid4", "", `{"type":"string"}`},
		{"uuid5", "", `{"type":"string"}`},
		// Left as plain strings: the constraints stay.
		{"email", "", `{"maxLength":9,"minLength":2,"pattern":"^a","type":"string"}`},
	}
	for _, c := range cases {
		prop := `{"type":"string","format":"` + c.format + `",` + lim + c.extra + `}`
		in := `{"type":"object","properties":{"f":` + prop + `,"o":` + prop + `},"required":["f"]}`
		d := `"description":"` + strings.Replace(desc, "%s", c.format, 1) + `",`
		withDesc := func(p string) string { return "{" + d + p[1:] }
		want := `{"additionalProperties":false,"properties":{"f":` + withDesc(c.prop) +
			`,"o":{"anyOf":[` + c.prop + `,{"type":"null"}],` + d[:len(d)-1] + `}},"required":["f","o"],"type":"object"}`
		if got := render(t, in, OpenAIParameters); got != want {
			t.Errorf("%s%s (openai):\n got %s\nwant %s", c.format, c.extra, got, want)
		}
	}
}

// TestFormatTypesReAct checks the model_json_schema and ReAct forms of the
// types whose schema carries more than format and type.
func TestFormatTypesReAct(t *testing.T) {
	cases := []struct{ prop, model, react string }{
		{`{"type":"string","format":"password","minLength":3}`,
			`{"description":"Format: password. Min length: 3","format":"password","title":"F","type":"string","writeOnly":true}`,
			`{"description":"Format: password. Min length: 3","title":"F","type":"string","writeOnly":true}`},
		{`{"type":"string","format":"uri","scheme":["http"]}`,
			`{"description":"Format: uri","format":"uri","maxLength":2083,"minLength":1,"title":"F","type":"string"}`,
			`{"description":"Format: uri","maxLength":2083,"minLength":1,"title":"F","type":"string"}`},
		{`{"type":"string","format":"uuid","enum":["a","b"]}`,
			`{"description":"Format: uuid. Allowed values: ['a', 'b']","format":"uuid","title":"F","type":"string"}`,
			`{"description":"Format: uuid. Allowed values: ['a', 'b']","title":"F","type":"string"}`},
		{`{"format":"date-time"}`,
			`{"description":"Format: date-time","format":"date-time","title":"F","type":"string"}`,
			`{"description":"Format: date-time","format":"date-time","title":"F","type":"string"}`},
		// A format on a non-string type is left as it was.
		{`{"type":"integer","format":"uuid"}`,
			`{"description":"Format: uuid","title":"F","type":"integer"}`,
			`{"description":"Format: uuid","title":"F","type":"integer"}`},
	}
	for _, c := range cases {
		in, err := pyjson.LoadsObject(`{"type":"object","properties":{"f":` + c.prop + `},"required":["f"]}`)
		if err != nil {
			t.Fatal(err)
		}
		s := FromJSONSchema("tSchema", in, true).Schema()
		props, _ := s.Get("properties")
		f, _ := props.(*pyjson.Object).Get("f")
		if got := pyjson.DumpsStyle(f, pyjson.Wire); got != c.model {
			t.Errorf("%s (model_json_schema):\n got %s\nwant %s", c.prop, got, c.model)
		}
		rp, _ := StrictSchema(s, true).Get("properties")
		rf, _ := rp.(*pyjson.Object).Get("f")
		if got := pyjson.DumpsStyle(rf, pyjson.Wire); got != c.react {
			t.Errorf("%s (react):\n got %s\nwant %s", c.prop, got, c.react)
		}
	}
}
