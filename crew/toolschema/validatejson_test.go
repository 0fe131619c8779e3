package toolschema

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"crewbench/crew/pyjson"
)

// guardrailResult is CrewAI's LLMGuardrailResult (tasks/llm_guardrail.py).
func guardrailResult(t testing.TB) *Model {
	t.Helper()
	o, err := pyjson.LoadsObject(`{"properties": {"valid": {"description": "x", "title": "Valid", "type": "boolean"}, "feedback": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "y", "title": "Feedback"}}, "required": ["valid"], "title": "LLMGuardrailResult", "type": "object"}`)
	if err != nil {
		t.Fatal(err)
	}
	m := FromJSONSchema("LLMGuardrailResult", o, false)
	m.ExtraIgnored = true
	return m
}

// ValidateJSON against LLMGuardrailResult.model_validate_json in Pydantic
// 2.13.4 (pydantic-core 2.46.4): every want is str(ValidationError) as
// Python printed it, "" where the text validates.
func TestValidateJSONMatchesPydantic(t *testing.T) {
	m := guardrailResult(t)
	cases := []struct{ in, want string }{
		{"not json", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected ident at line 1 column 2 [type=json_invalid, input_value='not json', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 0 [type=json_invalid, input_value='', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{" ", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 1 [type=json_invalid, input_value=' ', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"```json\n{\"valid\": true}\n```", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 1 column 1 [type=json_invalid, input_value='```json\\n{\"valid\": true}\\n```', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\": true} extra", "1 validation error for LLMGuardrailResult\n  Invalid JSON: trailing characters at line 1 column 17 [type=json_invalid, input_value='{\"valid\": true} extra', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\": tru}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected ident at line 1 column 14 [type=json_invalid, input_value='{\"valid\": tru}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\": true", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing an object at line 1 column 14 [type=json_invalid, input_value='{\"valid\": true', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"[1]", "1 validation error for LLMGuardrailResult\n  Input should be an object [type=model_type, input_value=[1], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.13/v/model_type"},
		{"\"str\"", "1 validation error for LLMGuardrailResult\n  Input should be an object [type=model_type, input_value='str', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/model_type"},
		{"{\"ok\": 1}", "1 validation error for LLMGuardrailResult\nvalid\n  Field required [type=missing, input_value={'ok': 1}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing"},
		{"{valid: true}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: key must be a string at line 1 column 2 [type=json_invalid, input_value='{valid: true}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\" true}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected `:` at line 1 column 10 [type=json_invalid, input_value='{\"valid\" true}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\": true,}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: trailing comma at line 1 column 16 [type=json_invalid, input_value='{\"valid\": true,}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"Thought: done\nFinal Answer: {\"valid\": true}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 1 column 1 [type=json_invalid, input_value='Thought: done\\nFinal Answer: {\"valid\": true}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\": 01}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid number at line 1 column 12 [type=json_invalid, input_value='{\"valid\": 01}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\": 1.}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid number at line 1 column 13 [type=json_invalid, input_value='{\"valid\": 1.}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\": \"\\x\"}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid escape at line 1 column 9 [type=json_invalid, input_value='{\"a\": \"\\\\x\"}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\": \"b\nc\"}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: control character (\\u0000-\\u001F) found while parsing a string at line 2 column 0 [type=json_invalid, input_value='{\"a\": \"b\\nc\"}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"nul", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 3 [type=json_invalid, input_value='nul', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"null", "1 validation error for LLMGuardrailResult\n  Input should be an object [type=model_type, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.13/v/model_type"},
		{"tx", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected ident at line 1 column 2 [type=json_invalid, input_value='tx', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\n\nabc", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 3 column 1 [type=json_invalid, input_value='\\n\\nabc', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\": true}\n\nmore", "1 validation error for LLMGuardrailResult\n  Invalid JSON: trailing characters at line 3 column 1 [type=json_invalid, input_value='{\"valid\": true}\\n\\nmore', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"valid\":[1,2 3]}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected `,` or `]` at line 1 column 15 [type=json_invalid, input_value='{\"valid\":[1,2 3]}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":-}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid number at line 1 column 7 [type=json_invalid, input_value='{\"a\":-}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\": 1e}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid number at line 1 column 9 [type=json_invalid, input_value='{\"a\": 1e}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\": \"\\u12\"}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid escape at line 1 column 12 [type=json_invalid, input_value='{\"a\": \"\\\\u12\"}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"[", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a list at line 1 column 1 [type=json_invalid, input_value='[', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing an object at line 1 column 1 [type=json_invalid, input_value='{', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\"", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing an object at line 1 column 4 [type=json_invalid, input_value='{\"a\"', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 5 [type=json_invalid, input_value='{\"a\":', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":1", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing an object at line 1 column 6 [type=json_invalid, input_value='{\"a\":1', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"[1", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a list at line 1 column 2 [type=json_invalid, input_value='[1', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"[1,", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 3 [type=json_invalid, input_value='[1,', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\"abc", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a string at line 1 column 4 [type=json_invalid, input_value='\"abc', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":1}}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: trailing characters at line 1 column 8 [type=json_invalid, input_value='{\"a\":1}}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{,}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: key must be a string at line 1 column 2 [type=json_invalid, input_value='{,}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"[,1]", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 1 column 2 [type=json_invalid, input_value='[,1]', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":1,\"b\"}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected `:` at line 1 column 11 [type=json_invalid, input_value='{\"a\":1,\"b\"}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\"\t\"", "1 validation error for LLMGuardrailResult\n  Invalid JSON: control character (\\u0000-\\u001F) found while parsing a string at line 1 column 2 [type=json_invalid, input_value='\"\\t\"', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\"\\ud800\"", "1 validation error for LLMGuardrailResult\n  Invalid JSON: unexpected end of hex escape at line 1 column 8 [type=json_invalid, input_value='\"\\\\ud800\"', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\"\\ud800x\"", "1 validation error for LLMGuardrailResult\n  Invalid JSON: unexpected end of hex escape at line 1 column 8 [type=json_invalid, input_value='\"\\\\ud800x\"', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\"\\ud800\\u0041\"", "1 validation error for LLMGuardrailResult\n  Invalid JSON: lone leading surrogate in hex escape at line 1 column 13 [type=json_invalid, input_value='\"\\\\ud800\\\\u0041\"', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"[1,]", "1 validation error for LLMGuardrailResult\n  Invalid JSON: trailing comma at line 1 column 4 [type=json_invalid, input_value='[1,]', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\" ", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing an object at line 1 column 5 [type=json_invalid, input_value='{\"a\" ', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{ ", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing an object at line 1 column 2 [type=json_invalid, input_value='{ ', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"-", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 1 [type=json_invalid, input_value='-', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"0x", "1 validation error for LLMGuardrailResult\n  Invalid JSON: trailing characters at line 1 column 2 [type=json_invalid, input_value='0x', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"1.5e+", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 5 [type=json_invalid, input_value='1.5e+', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":[}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 1 column 7 [type=json_invalid, input_value='{\"a\":[}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":{\"b\":}}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 1 column 11 [type=json_invalid, input_value='{\"a\":{\"b\":}}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"a\":1 \"b\":2}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected `,` or `}` at line 1 column 8 [type=json_invalid, input_value='{\"a\":1 \"b\":2}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\"a\\", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a string at line 1 column 3 [type=json_invalid, input_value='\"a\\\\', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\u00e9", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 1 column 1 [type=json_invalid, input_value='\u00e9', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"{\"\u00e9\": x}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 1 column 8 [type=json_invalid, input_value='{\"\u00e9\": x}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"\r\nabc", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected value at line 2 column 1 [type=json_invalid, input_value='\\r\\nabc', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"fals", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 4 [type=json_invalid, input_value='fals', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"falsy", "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected ident at line 1 column 5 [type=json_invalid, input_value='falsy', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"true1", "1 validation error for LLMGuardrailResult\n  Invalid JSON: trailing characters at line 1 column 5 [type=json_invalid, input_value='true1', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"-a", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid number at line 1 column 2 [type=json_invalid, input_value='-a', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"--1", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid number at line 1 column 2 [type=json_invalid, input_value='--1', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"1.e5", "1 validation error for LLMGuardrailResult\n  Invalid JSON: invalid number at line 1 column 3 [type=json_invalid, input_value='1.e5', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"1e+", "1 validation error for LLMGuardrailResult\n  Invalid JSON: EOF while parsing a value at line 1 column 3 [type=json_invalid, input_value='1e+', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
		{"-Infinity", "1 validation error for LLMGuardrailResult\n  Input should be an object [type=model_type, input_value=-inf, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.13/v/model_type"},
		{"NaN", "1 validation error for LLMGuardrailResult\n  Input should be an object [type=model_type, input_value=nan, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.13/v/model_type"},
		{"{\"valid\": false, \"feedback\": \"too short\", \"extra\": 1}", ""},
		{"{\"valid\": \"maybe\"}", "1 validation error for LLMGuardrailResult\nvalid\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='maybe', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/bool_parsing"},
		{"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "1 validation error for LLMGuardrailResult\n  Input should be an object [type=model_type, input_value=[[[[[[[[[[[[[[[[[[[[[[[[[...]]]]]]]]]]]]]]]]]]]]]]]], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.13/v/model_type"},
		{"{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}", "1 validation error for LLMGuardrailResult\n  Invalid JSON: recursion limit exceeded at line 1 column 1006 [type=json_invalid, input_value='{\"a\":{\"a\":{\"a\":{\"a\":{\"a\"...}}}}}}}}}}}}}}}}}}}}}}}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"},
	}
	for _, c := range cases {
		_, err := m.ValidateJSON(c.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("ValidateJSON(%.60q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// FuzzValidateJSON: on any reply text ValidateJSON never panics and names
// a position inside the text, and jiter accepts whatever standard JSON
// (encoding/json is the independent judge) nests well inside its limit
// and has no \u escape of a surrogate, which jiter checks and Go does not.
func FuzzValidateJSON(f *testing.F) {
	m := guardrailResult(f)
	for _, seed := range []string{`{"valid": true}`, `{"valid": false, "feedback": "x"}`, "not json", `{"valid": tru}`,
		`[1,]`, `"\ud800\u0041"`, `{"a":{"b":[1,2,{"c":null}]}}`, "\r\n{\"valid\": 1e5}", `NaN`, `-Infinity`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, verr := m.ValidateJSON(text)
		msg, at, ok := jiterCheck([]byte(text))
		if ok {
			if verr != nil && verr.Error() == "" {
				t.Fatalf("%q: empty validation error", text)
			}
			return
		}
		if at < 0 || at > len(text) || msg == "" {
			t.Fatalf("jiterCheck(%q) = %q at %d: outside the text", text, msg, at)
		}
		if verr == nil {
			t.Fatalf("%q: jiter refuses it (%s) but ValidateJSON accepts it", text, msg)
		}
		if json.Valid([]byte(text)) && utf8.ValidString(text) && !strings.Contains(strings.ToLower(text), `\ud`) && maxNesting(text) < jiterRecursionLimit/2 {
			t.Fatalf("jiter refuses standard JSON %q: %s at %d", text, msg, at)
		}
	})
}

// maxNesting is how deep arrays and objects nest in JSON text, counted
// outside strings.
func maxNesting(text string) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range []byte(text) {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == '[' || c == '{'):
			depth++
			deepest = max(deepest, depth)
		case !inString && (c == ']' || c == '}'):
			depth--
		}
	}
	return deepest
}

// Strict mode on JSON input (pydantic-core strict validators, as
// instructor's parse_tools asks with strict=True): strings, booleans and
// floats are not coerced into integers or booleans; a JSON integer is a
// valid float. Lax mode coerces the same inputs.
func TestValidateJSONStrict(t *testing.T) {
	o, err := pyjson.LoadsObject(`{"title": "M", "type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": "number"}, "ok": {"type": "boolean"}}, "required": ["n", "x", "ok"]}`)
	if err != nil {
		t.Fatal(err)
	}
	m := FromJSONSchema("M", o, false)
	for _, tc := range []struct{ name, in, strict string }{
		{"exact types", `{"n": 2, "x": 3, "ok": true}`, ""},
		{"string integer", `{"n": "2", "x": 3, "ok": true}`, "int_type"},
		{"float integer", `{"n": 2.0, "x": 3, "ok": true}`, "int_type"},
		{"bool integer", `{"n": true, "x": 3, "ok": true}`, "int_type"},
		{"string number", `{"n": 2, "x": "3.5", "ok": true}`, "float_type"},
		{"string bool", `{"n": 2, "x": 3, "ok": "yes"}`, "bool_type"},
		{"number bool", `{"n": 2, "x": 3, "ok": 1}`, "bool_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, serr := m.ValidateJSONStrict(tc.in)
			switch {
			case tc.strict == "" && serr != nil:
				t.Errorf("strict: %v", serr)
			case tc.strict != "" && (serr == nil || len(serr.Errors) != 1 || serr.Errors[0].Type != tc.strict):
				t.Errorf("strict: got %v, want one %s error", serr, tc.strict)
			}
			if _, lerr := m.ValidateJSON(tc.in); lerr != nil {
				t.Errorf("lax: %v", lerr)
			}
		})
	}
}
