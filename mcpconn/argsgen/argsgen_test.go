package argsgen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuild(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		want   string   // JSON of the expected arguments
		notes  []string // substrings, each expected in some note
	}{
		{"empty schema", ``, `{}`, []string{"no input schema"}},
		{"null schema", `null`, `{}`, []string{"no input schema"}},
		{"untyped root is an object", `{}`, `{}`, nil},
		{"true root", `true`, `{}`, nil},
		{"no required fields", `{"type":"object","properties":{"q":{"type":"string"}}}`, `{}`, nil},
		{"required only", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}`, `{"a":"test"}`, nil},
		{"optional with default is included",
			`{"type":"object","properties":{"a":{"type":"string"},"limit":{"type":"integer","default":10},"mode":{"$ref":"#/$defs/m"}},"$defs":{"m":{"type":"string","default":"fast"}}}`,
			`{"limit":10,"mode":"fast"}`, nil},
		{"every scalar type",
			`{"type":"object","required":["s","n","i","b","z"],"properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"z":{"type":"null"}}}`,
			`{"s":"test","n":1,"i":1,"b":false,"z":null}`, nil},
		{"type arrays skip null",
			`{"type":"object","required":["a","b","c"],"properties":{"a":{"type":["null","string"]},"b":{"type":["integer","null"]},"c":{"type":["null"]}}}`,
			`{"a":"test","b":1,"c":null}`, nil},
		{"enum takes the first value", `{"type":"object","required":["unit"],"properties":{"unit":{"type":"string","enum":["celsius","fahrenheit"]}}}`, `{"unit":"celsius"}`, nil},
		{"const beats everything", `{"type":"object","required":["v"],"properties":{"v":{"const":"x","default":"y","enum":["z"]}}}`, `{"v":"x"}`, nil},
		{"default beats enum", `{"type":"object","required":["v"],"properties":{"v":{"default":"b","enum":["a","b"]}}}`, `{"v":"b"}`, nil},
		{"examples and example",
			`{"type":"object","required":["a","b"],"properties":{"a":{"type":"string","examples":["London","Paris"]},"b":{"type":"integer","example":42}}}`,
			`{"a":"London","b":42}`, nil},
		{"integer bounds",
			`{"type":"object","required":["a","b","c","d","e","f"],"properties":{
				"a":{"type":"integer","minimum":5},
				"b":{"type":"integer","maximum":-3},
				"c":{"type":"integer","minimum":0,"exclusiveMinimum":true},
				"d":{"type":"integer","exclusiveMinimum":1},
				"e":{"type":"integer","minimum":-10,"maximum":10},
				"f":{"type":"integer","minimum":1.5}}}`,
			`{"a":5,"b":-3,"c":1,"d":2,"e":1,"f":2}`, nil},
		{"multipleOf", `{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":7,"multipleOf":5}}}`, `{"a":10}`, nil},
		{"number bounds",
			`{"type":"object","required":["lat","p","q","r"],"properties":{
				"lat":{"type":"number","minimum":-90,"maximum":90},
				"p":{"type":"number","minimum":0,"maximum":0.5},
				"q":{"type":"number","exclusiveMinimum":2,"exclusiveMaximum":3},
				"r":{"type":"number","minimum":100}}}`,
			`{"lat":1,"p":0.5,"q":2.5,"r":100}`, nil},
		{"string lengths",
			`{"type":"object","required":["a","b","c"],"properties":{"a":{"type":"string","minLength":8},"b":{"type":"string","maxLength":2},"c":{"type":"string","minLength":100000}}}`,
			`{"a":"testxxxx","b":"te","c":"` + "test" + strings.Repeat("x", maxStringBytes-4) + `"}`, []string{"`c`: minLength 100000 capped at 4096"}},
		{"formats",
			`{"type":"object","required":["dt","d","e","u","id","h"],"properties":{
				"dt":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},
				"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},
				"id":{"type":"string","format":"uuid"},"h":{"type":"string","format":"hostname"}}}`,
			`{"dt":"2024-01-01T00:00:00Z","d":"2024-01-01","e":"user@example.com","u":"https://example.com/","id":"00000000-0000-4000-8000-000000000000","h":"example.com"}`, nil},
		{"unknown format and pattern are noted",
			`{"type":"object","required":["a","b"],"properties":{"a":{"type":"string","format":"sku"},"b":{"type":"string","pattern":"^[A-Z]{3}$"}}}`,
			`{"a":"test","b":"test"}`, []string{"`a`: format \"sku\" not known", "`b`: pattern \"^[A-Z]{3}$\" not checked"}},
		{"nested objects: required only at every level",
			`{"type":"object","required":["loc"],"properties":{"loc":{"type":"object","required":["lat"],"properties":{"lat":{"type":"number"},"lon":{"type":"number"}}}}}`,
			`{"loc":{"lat":1}}`, nil},
		{"arrays with minItems",
			`{"type":"object","required":["a","b","c"],"properties":{"a":{"type":"array","items":{"type":"string"}},"b":{"type":"array","minItems":2,"items":{"type":"integer","minimum":3}},"c":{"type":"array","minItems":1,"items":{"type":"object","required":["k"],"properties":{"k":{"type":"boolean"}}}}}}`,
			`{"a":["test"],"b":[3,3],"c":[{"k":false}]}`, nil},
		// CrewAI drops empty arrays before a call, so a required array
		// gets one item unless the schema allows none.
		{"arrays that allow no item stay empty",
			`{"type":"object","required":["a","b"],"properties":{"a":{"type":"array","maxItems":0},"b":{"type":"array","items":false}}}`,
			`{"a":[],"b":[]}`, nil},
		{"tuples",
			`{"type":"object","required":["p","q"],"properties":{"p":{"type":"array","minItems":1,"prefixItems":[{"type":"string"},{"type":"integer"}]},"q":{"type":"array","minItems":2,"items":[{"type":"boolean"},{"type":"string","format":"date"}]}}}`,
			`{"p":["test",1],"q":[false,"2024-01-01"]}`, nil},
		{"uniqueItems with enum picks distinct values",
			`{"type":"object","required":["tags"],"properties":{"tags":{"type":"array","minItems":2,"uniqueItems":true,"items":{"enum":["a","b","c"]}}}}`,
			`{"tags":["a","b"]}`, nil},
		{"uniqueItems without enum is noted",
			`{"type":"object","required":["ids"],"properties":{"ids":{"type":"array","minItems":2,"uniqueItems":true,"items":{"type":"string"}}}}`,
			`{"ids":["test","test"]}`, []string{"`ids`: uniqueItems"}},
		{"minItems capped", `{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":1000000,"items":{"type":"boolean"}}}}`,
			`{"a":[` + strings.TrimSuffix(strings.Repeat("false,", maxItems), ",") + `]}`, []string{"minItems 1000000 capped at 100"}},
		{"$ref to $defs", `{"type":"object","required":["u"],"properties":{"u":{"$ref":"#/$defs/unit"}},"$defs":{"unit":{"type":"string","enum":["metric","imperial"]}}}`, `{"u":"metric"}`, nil},
		{"$ref to definitions with an escaped pointer",
			`{"type":"object","required":["u"],"properties":{"u":{"$ref":"#/definitions/a~1b"}},"definitions":{"a/b":{"type":"integer","minimum":4}}}`, `{"u":4}`, nil},
		{"$ref siblings override the target",
			`{"type":"object","required":["u"],"properties":{"u":{"$ref":"#/$defs/s","default":"mine"}},"$defs":{"s":{"type":"string","default":"theirs"}}}`, `{"u":"mine"}`, nil},
		{"recursive $ref is cut off",
			`{"type":"object","required":["root"],"properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","required":["name","child"],"properties":{"name":{"type":"string"},"child":{"$ref":"#/$defs/node"}}}}}`,
			`{"root":{"name":"test","child":{"name":"test"}}}`, []string{"recursive $ref \"#/$defs/node\" cut off"}},
		{"root self-reference", `{"type":"object","required":["again"],"properties":{"again":{"$ref":"#"}}}`, `{"again":{"again":{}}}`, []string{"cut off"}},
		{"unresolvable $ref is noted", `{"type":"object","required":["a"],"properties":{"a":{"$ref":"#/$defs/missing","type":"string"}}}`, `{"a":"test"}`, []string{"$ref \"#/$defs/missing\""}},
		{"remote $ref is not fetched", `{"type":"object","required":["a"],"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, `{"a":"test"}`, []string{"only local references"}},
		{"anyOf takes the first non-null branch",
			`{"type":"object","required":["a"],"properties":{"a":{"anyOf":[{"type":"null"},{"type":"integer","minimum":3},{"type":"string"}]}}}`, `{"a":3}`, nil},
		{"oneOf with $ref branches",
			`{"type":"object","required":["a"],"properties":{"a":{"oneOf":[{"$ref":"#/$defs/n"},{"$ref":"#/$defs/s"}]}},"$defs":{"n":{"type":"null"},"s":{"type":"string","format":"email"}}}`,
			`{"a":"user@example.com"}`, nil},
		{"anyOf skips a false branch", `{"type":"object","required":["a"],"properties":{"a":{"anyOf":[false,{"type":"boolean"}]}}}`, `{"a":false}`, nil},
		{"anyOf falls through a branch with no value", `{"type":"object","required":["a"],"properties":{"a":{"anyOf":[{"enum":[]},{"type":"string"}]}}}`, `{"a":"test"}`, []string{"`a`: anyOf: used branch 2"}},
		{"anyOf of only null", `{"type":"object","required":["a"],"properties":{"a":{"anyOf":[{"type":"null"}]}}}`, `{"a":null}`, nil},
		{"allOf merges", `{"type":"object","required":["a"],"properties":{"a":{"allOf":[{"type":"object","required":["x"],"properties":{"x":{"type":"string"}}},{"required":["y"],"properties":{"y":{"type":"integer"}}}]}}}`,
			`{"a":{"x":"test","y":1}}`, nil},
		{"anyOf at the root (pydantic Optional model)", `{"anyOf":[{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}},{"type":"null"}]}`, `{"q":"test"}`, nil},
		{"required but undescribed", `{"type":"object","required":["ghost"],"properties":{}}`, `{"ghost":"test"}`, []string{"`ghost`: required but not described"}},
		{"required via additionalProperties", `{"type":"object","required":["k"],"additionalProperties":{"type":"integer"}}`, `{"k":1}`, nil},
		{"false property schema", `{"type":"object","required":["no"],"properties":{"no":false}}`, `{}`, []string{"`no`: the schema is `false`", "required, but no value"}},
		{"no type is noted", `{"type":"object","required":["a"],"properties":{"a":{"description":"anything"}}}`, `{"a":"test"}`, []string{"`a`: no type given"}},
		{"types inferred from keywords",
			`{"type":"object","required":["a","b","c","d"],"properties":{"a":{"minLength":2},"b":{"minimum":3},"c":{"items":{"type":"string"},"minItems":1},"d":{"properties":{"x":{"type":"string"}},"required":["x"]}}}`,
			`{"a":"test","b":3,"c":["test"],"d":{"x":"test"}}`, nil},
		{"nested default objects are copied and normalised",
			`{"type":"object","required":["o"],"properties":{"o":{"type":"object","default":{"n":9007199254740993,"f":1.5,"l":[1,{"x":null}]}}}}`,
			`{"o":{"n":9007199254740993,"f":1.5,"l":[1,{"x":null}]}}`, nil},
		{"root that is not an object", `{"type":"string"}`, `{}`, []string{"not an object"}},
		{"duplicate required names", `{"type":"object","required":["a","a"],"properties":{"a":{"type":"boolean"}}}`, `{"a":false}`, nil},
		{"non-string required entries", `{"type":"object","required":["a",3],"properties":{"a":{"type":"boolean"}}}`, `{"a":false}`, []string{"required entry a number"}},
		{"bad keyword types are ignored",
			`{"type":"object","required":["a","b"],"properties":{"a":{"type":"integer","minimum":"5"},"b":{"type":"array","minItems":"2"}}}`,
			`{"a":1,"b":["test"]}`, []string{"minimum a string is not a usable number"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, notes, err := Build(json.RawMessage(tc.schema))
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			gotJSON, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("arguments do not marshal: %v", err)
			}
			var gotV, wantV any
			_ = json.Unmarshal(gotJSON, &gotV)
			if err := json.Unmarshal([]byte(tc.want), &wantV); err != nil {
				t.Fatalf("bad want: %v", err)
			}
			if diff := cmp.Diff(wantV, gotV); diff != "" {
				t.Errorf("arguments (-want +got):\n%s\ngot %s", diff, gotJSON)
			}
			for _, n := range tc.notes {
				if !containsAny(notes, n) {
					t.Errorf("no note contains %q; notes: %q", n, notes)
				}
			}
			if len(tc.notes) == 0 && len(notes) > 0 && tc.schema != "" && tc.schema != "null" {
				t.Errorf("unexpected notes: %q", notes)
			}
		})
	}
}

func TestBuildDropsNotesOfRejectedBranches(t *testing.T) {
	_, notes, err := Build(json.RawMessage(`{"type":"object","required":["a"],"properties":{"a":{"oneOf":[{"enum":[]},{"type":"integer"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if containsAny(notes, "empty enum") || !containsAny(notes, "used branch 2") {
		t.Errorf("notes %q", notes)
	}
}

func TestBuildLargeIntegerStaysExact(t *testing.T) {
	got, _, err := Build(json.RawMessage(`{"type":"object","required":["id"],"properties":{"id":{"const":9007199254740993}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got["id"].(int64); !ok || v != 9007199254740993 {
		t.Errorf("id = %#v, want int64 9007199254740993", got["id"])
	}
}

func TestBuildResultsAreIndependent(t *testing.T) {
	// The same $ref used twice must not share a map: CrewAI-style argument
	// cleaning mutates maps in place.
	schema := json.RawMessage(`{"type":"object","required":["a","b"],"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"}},"$defs":{"d":{"type":"object","default":{"k":1}}}}`)
	got, _, err := Build(schema)
	if err != nil {
		t.Fatal(err)
	}
	got["a"].(map[string]any)["k"] = 2
	if got["b"].(map[string]any)["k"] != int64(1) {
		t.Error("arguments share a map")
	}
}

func TestBuildInvalidJSON(t *testing.T) {
	for _, s := range []string{`{`, `{"type":}`, `{} {}`, `nul`} {
		if _, _, err := Build(json.RawMessage(s)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
			t.Errorf("Build(%q) err = %v", s, err)
		}
	}
}

func TestBuildExponentialSchemaIsBounded(t *testing.T) {
	// Each level requires ten copies of the next: 10^8 values unbounded.
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/l0","$defs":{`)
	for i := range 8 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"l` + string(rune('0'+i)) + `":{"type":"object","required":["a","b","c","d","e","f","g","h","i","j"],"properties":{`)
		for j, k := range "abcdefghij" {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + string(k) + `":{"$ref":"#/$defs/l` + string(rune('0'+i+1)) + `"}`)
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`,"l8":{"type":"string"}}}`)
	_, notes, err := Build(json.RawMessage(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !containsAny(notes, "more than 10000 values") {
		t.Errorf("budget not reported; notes: %q", notes[:min(len(notes), 5)])
	}
}

func TestBuildDeepNestingIsBounded(t *testing.T) {
	schema := strings.Repeat(`{"type":"object","required":["x"],"properties":{"x":`, 200) + `{"type":"string"}` + strings.Repeat(`}}`, 200)
	_, notes, err := Build(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	if !containsAny(notes, "nested deeper than") {
		t.Errorf("depth limit not reported: %q", notes)
	}
}

func containsAny(notes []string, sub string) bool {
	for _, n := range notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func FuzzBuild(f *testing.F) {
	seeds := []string{
		``, `null`, `true`, `false`, `{}`, `[]`, `1`, `"x"`,
		`{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`,
		`{"type":"object","required":["r"],"properties":{"r":{"$ref":"#"}}}`,
		`{"type":"object","required":["r"],"properties":{"r":{"$ref":"#/$defs/x"}},"$defs":{"x":{"anyOf":[{"$ref":"#/$defs/x"},{"type":"null"}]}}}`,
		`{"type":["integer","null"],"minimum":1e400,"maximum":-1e400,"multipleOf":0}`,
		`{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":5,"prefixItems":[false],"items":{"allOf":[true,{"enum":[]}]}}}}`,
		`{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":10,"maximum":2,"multipleOf":3.7}}}`,
		`{"type":"object","required":["a"],"properties":{"a":{"oneOf":[{"$ref":"#/x/0"}]}},"x":[{"type":"string","maxLength":-1}]}`,
		`{"type":"object","required":["a"],"properties":{"a":{"type":"string","minLength":1e300,"maxLength":"x"}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		args, notes, err := Build(schema)
		if err != nil {
			if args != nil || notes != nil {
				t.Fatalf("error with results: %v", err)
			}
			return
		}
		if args == nil {
			t.Fatal("nil arguments without an error")
		}
		if _, err := json.Marshal(args); err != nil {
			t.Fatalf("arguments do not marshal: %v (%#v)", err, args)
		}
		for _, n := range notes {
			if n == "" {
				t.Fatal("empty note")
			}
		}
	})
}
