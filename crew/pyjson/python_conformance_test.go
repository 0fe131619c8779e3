package pyjson

// Conformance of json.loads/json.dumps against CPython 3.11's json module:
// the vectors below were produced by running Python's json.dumps (default,
// indent=2, and indent=2 with ensure_ascii=False) and json.loads on these
// inputs, so they pin separators, float repr, \uXXXX escaping (surrogate
// pairs, DEL), no HTML escaping and the exact JSONDecodeError texts that
// reach the LLM (crewai-semantics.md §5.1 step 8, §5.2, §7).

import "testing"

func TestConformancePythonJSON(t *testing.T) {
	for _, v := range pythonDumpsVectors {
		x, err := Loads(v.in)
		if err != nil {
			t.Errorf("Loads(%q): %v", v.in, err)
			continue
		}
		if got := Dumps(x); got != v.dumps {
			t.Errorf("json.dumps(%s)\n got %q\nwant %q", v.in, got, v.dumps)
		}
		if got := DumpsIndent(x); got != v.indent {
			t.Errorf("json.dumps(%s, indent=2)\n got %q\nwant %q", v.in, got, v.indent)
		}
		if got := DumpsStyle(x, Style{Indent: 2, KeepNonASCII: true}); got != v.indentNoASCII {
			t.Errorf("json.dumps(%s, indent=2, ensure_ascii=False)\n got %q\nwant %q", v.in, got, v.indentNoASCII)
		}
	}
	for _, v := range pythonLoadsErrors {
		_, err := Loads(v.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != v.err {
			t.Errorf("json.loads(%q): got %q, want %q", v.in, got, v.err)
		}
	}
}

var pythonDumpsVectors = []struct{ in, dumps, indent, indentNoASCII string }{
	{"{\"a\": 1, \"b\": [1, 2.5, {\"c\": null}], \"d\": {}, \"e\": []}", "{\"a\": 1, \"b\": [1, 2.5, {\"c\": null}], \"d\": {}, \"e\": []}", "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2.5,\n    {\n      \"c\": null\n    }\n  ],\n  \"d\": {},\n  \"e\": []\n}", "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2.5,\n    {\n      \"c\": null\n    }\n  ],\n  \"d\": {},\n  \"e\": []\n}"},
	{"{\"html\": \"<b>&amp;</b>\", \"uni\": \"café 天气 😀\", \"ctl\": \"a\\u0001b\\u007f\\t\\n\\r\\b\\f\", \"q\": \"\\\"\\\\/\"}", "{\"html\": \"<b>&amp;</b>\", \"uni\": \"caf\\u00e9 \\u5929\\u6c14 \\ud83d\\ude00\", \"ctl\": \"a\\u0001b\\u007f\\t\\n\\r\\b\\f\", \"q\": \"\\\"\\\\/\"}", "{\n  \"html\": \"<b>&amp;</b>\",\n  \"uni\": \"caf\\u00e9 \\u5929\\u6c14 \\ud83d\\ude00\",\n  \"ctl\": \"a\\u0001b\\u007f\\t\\n\\r\\b\\f\",\n  \"q\": \"\\\"\\\\/\"\n}", "{\n  \"html\": \"<b>&amp;</b>\",\n  \"uni\": \"café 天气 😀\",\n  \"ctl\": \"a\\u0001b\u007f\\t\\n\\r\\b\\f\",\n  \"q\": \"\\\"\\\\/\"\n}"},
	{"{\"floats\": [1.0, 1e20, 1e-7, 0.1, 1e16, 123456789012345678901234567890, -0.0, 1.5e300, 3.14159, 100.0, 1E5]}", "{\"floats\": [1.0, 1e+20, 1e-07, 0.1, 1e+16, 123456789012345678901234567890, -0.0, 1.5e+300, 3.14159, 100.0, 100000.0]}", "{\n  \"floats\": [\n    1.0,\n    1e+20,\n    1e-07,\n    0.1,\n    1e+16,\n    123456789012345678901234567890,\n    -0.0,\n    1.5e+300,\n    3.14159,\n    100.0,\n    100000.0\n  ]\n}", "{\n  \"floats\": [\n    1.0,\n    1e+20,\n    1e-07,\n    0.1,\n    1e+16,\n    123456789012345678901234567890,\n    -0.0,\n    1.5e+300,\n    3.14159,\n    100.0,\n    100000.0\n  ]\n}"},
	{"{\"nested\": {\"x\": {\"y\": {\"z\": []}}, \"w\": [[], {}, [1]]}}", "{\"nested\": {\"x\": {\"y\": {\"z\": []}}, \"w\": [[], {}, [1]]}}", "{\n  \"nested\": {\n    \"x\": {\n      \"y\": {\n        \"z\": []\n      }\n    },\n    \"w\": [\n      [],\n      {},\n      [\n        1\n      ]\n    ]\n  }\n}", "{\n  \"nested\": {\n    \"x\": {\n      \"y\": {\n        \"z\": []\n      }\n    },\n    \"w\": [\n      [],\n      {},\n      [\n        1\n      ]\n    ]\n  }\n}"},
	{"[]", "[]", "[]", "[]"},
	{"{}", "{}", "{}", "{}"},
	{"\"\u2028\u2029\"", "\"\\u2028\\u2029\"", "\"\\u2028\\u2029\"", "\"\u2028\u2029\""},
	{"{\"kéy\": \"v\"}", "{\"k\\u00e9y\": \"v\"}", "{\n  \"k\\u00e9y\": \"v\"\n}", "{\n  \"kéy\": \"v\"\n}"},
	{"{\"big\": 12345678901234567890, \"neg\": -5, \"exp\": 2e-5, \"zero\": 0.0}", "{\"big\": 12345678901234567890, \"neg\": -5, \"exp\": 2e-05, \"zero\": 0.0}", "{\n  \"big\": 12345678901234567890,\n  \"neg\": -5,\n  \"exp\": 2e-05,\n  \"zero\": 0.0\n}", "{\n  \"big\": 12345678901234567890,\n  \"neg\": -5,\n  \"exp\": 2e-05,\n  \"zero\": 0.0\n}"},
}

var pythonLoadsErrors = []struct{ in, err string }{
	{"", "Expecting value: line 1 column 1 (char 0)"},
	{"{\"city\": ", "Expecting value: line 1 column 10 (char 9)"},
	{"{city: 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
	{"{\"a\": 1,}", "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"},
	{"[1, 2", "Expecting ',' delimiter: line 1 column 6 (char 5)"},
	{"{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)"},
	{"nul", "Expecting value: line 1 column 1 (char 0)"},
	{"{\"a\": 1} x", "Extra data: line 1 column 10 (char 9)"},
	{"\"abc", "Unterminated string starting at: line 1 column 1 (char 0)"},
	{"{\"a\": \"b\\x\"}", "Invalid \\escape: line 1 column 9 (char 8)"},
	{"  ", "Expecting value: line 1 column 3 (char 2)"},
	{"{\"a\":\n tru}", "Expecting value: line 2 column 2 (char 7)"},
	{"\ufeff{}", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"},
	{"{\"a\": 01}", "Expecting ',' delimiter: line 1 column 8 (char 7)"},
	{"{\"a\": -}", "Expecting value: line 1 column 7 (char 6)"},
	{"{'a': 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
	{"[1,]", "Expecting value: line 1 column 4 (char 3)"},
	{"{\"a\": NaN}", ""},
	{"\"\\ud800\"", ""},
	{"\"a\tb\"", "Invalid control character at: line 1 column 3 (char 2)"},
}
