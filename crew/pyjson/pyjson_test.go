package pyjson

import (
	"strings"
	"testing"
)

// Expected values below were produced by CPython 3.11.7's json module.
func TestLoadsErrorsMatchPython(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "Expecting value: line 1 column 1 (char 0)"},
		{" ", "Expecting value: line 1 column 2 (char 1)"},
		{"{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{`{"a"`, "Expecting ':' delimiter: line 1 column 5 (char 4)"},
		{`{"a":`, "Expecting value: line 1 column 6 (char 5)"},
		{`{"a":1`, "Expecting ',' delimiter: line 1 column 7 (char 6)"},
		{`{"a":1,}`, "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"},
		{`{"a" 1}`, "Expecting ':' delimiter: line 1 column 6 (char 5)"},
		{"[1,]", "Expecting value: line 1 column 4 (char 3)"},
		{"[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"},
		{`"abc`, "Unterminated string starting at: line 1 column 1 (char 0)"},
		{"\"a\nb\"", "Invalid control character at: line 1 column 3 (char 2)"},
		{`"\x"`, `Invalid \escape: line 1 column 2 (char 1)`},
		{`"\u12"`, `Invalid \uXXXX escape: line 1 column 3 (char 2)`},
		{"01", "Extra data: line 1 column 2 (char 1)"},
		{`{"a":1} x`, "Extra data: line 1 column 9 (char 8)"},
		{"nul", "Expecting value: line 1 column 1 (char 0)"},
		{"-", "Expecting value: line 1 column 1 (char 0)"},
		{"{\n  \"a\": tru\n}", "Expecting value: line 2 column 8 (char 9)"},
		{"{'a': 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{"1.5e", "Extra data: line 1 column 4 (char 3)"},
		{"[1,2", "Expecting ',' delimiter: line 1 column 5 (char 4)"},
		{`{"é": x}`, "Expecting value: line 1 column 7 (char 6)"}, // positions count code points
		// The C scanner's \u checks: four digits must leave room for more.
		{`"\u1234`, `Invalid \uXXXX escape: line 1 column 3 (char 2)`},
		{`"\ud800\udc00`, `Invalid \uXXXX escape: line 1 column 9 (char 8)`},
		{`"\ud800\uzzzz"`, `Invalid \uXXXX escape: line 1 column 9 (char 8)`},
	}
	for _, c := range cases {
		_, err := Loads(c.in)
		if err == nil {
			t.Errorf("Loads(%q): no error, want %q", c.in, c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("Loads(%q):\n got %q\nwant %q", c.in, err.Error(), c.want)
		}
	}
}

func TestDumpsMatchesPython(t *testing.T) {
	in := `{"b": 1, "a": [1, 2.0, {"c": null}], "d": "é<>&\u2028😀\u0007\u007f", "e": {}, "f": [], "g": 1e16, "h": 1.5e-05, "i": 0.0001, "j": 123456789012345678901234567890, "k": -0, "l": -0.0, "m": 1E2, "n": true}`
	v, err := Loads(in)
	if err != nil {
		t.Fatal(err)
	}
	wantCompact := `{"b": 1, "a": [1, 2.0, {"c": null}], "d": "\u00e9<>&\u2028\ud83d\ude00\u0007\u007f", "e": {}, "f": [], "g": 1e+16, "h": 1.5e-05, "i": 0.0001, "j": 123456789012345678901234567890, "k": 0, "l": -0.0, "m": 100.0, "n": true}`
	if got := Dumps(v); got != wantCompact {
		t.Errorf("Dumps:\n got %s\nwant %s", got, wantCompact)
	}
	wantIndent := "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2.0,\n    {\n      \"c\": null\n    }\n  ],\n  \"d\": \"\\u00e9<>&\\u2028\\ud83d\\ude00\\u0007\\u007f\",\n  \"e\": {},\n  \"f\": [],\n  \"g\": 1e+16,\n  \"h\": 1.5e-05,\n  \"i\": 0.0001,\n  \"j\": 123456789012345678901234567890,\n  \"k\": 0,\n  \"l\": -0.0,\n  \"m\": 100.0,\n  \"n\": true\n}"
	if got := DumpsIndent(v); got != wantIndent {
		t.Errorf("DumpsIndent:\n got %q\nwant %q", got, wantIndent)
	}
	wantRaw := "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2.0,\n    {\n      \"c\": null\n    }\n  ],\n  \"d\": \"é<>&\u2028😀\\u0007\x7f\",\n  \"e\": {},\n  \"f\": [],\n  \"g\": 1e+16,\n  \"h\": 1.5e-05,\n  \"i\": 0.0001,\n  \"j\": 123456789012345678901234567890,\n  \"k\": 0,\n  \"l\": -0.0,\n  \"m\": 100.0,\n  \"n\": true\n}"
	if got := DumpsStyle(v, Style{Indent: 2, KeepNonASCII: true}); got != wantRaw {
		t.Errorf("ensure_ascii=False:\n got %q\nwant %q", got, wantRaw)
	}
	wantStr := `{'b': 1, 'a': [1, 2.0, {'c': None}], 'd': 'é<>&\u2028😀\x07\x7f', 'e': {}, 'f': [], 'g': 1e+16, 'h': 1.5e-05, 'i': 0.0001, 'j': 123456789012345678901234567890, 'k': 0, 'l': -0.0, 'm': 100.0, 'n': True}`
	if got := Str(v); got != wantStr {
		t.Errorf("Str:\n got %s\nwant %s", got, wantStr)
	}
}

func TestRepeatedKeyKeepsFirstPositionLastValue(t *testing.T) {
	v, err := Loads(`{"a":1,"b":2,"a":3}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := Dumps(v); got != `{"a": 3, "b": 2}` {
		t.Errorf("got %s", got)
	}
}

func TestFloatRepr(t *testing.T) {
	in := []float64{1.0, 0.1, 1e16, 1e15, 123456789.125, 1e-4, 1e-5, 2.5e-7, -3.0, 1e300, 5e-324, 0.30000000000000004, 1234567890123456.0, 12345678901234567.0}
	want := []string{"1.0", "0.1", "1e+16", "1000000000000000.0", "123456789.125", "0.0001", "1e-05", "2.5e-07", "-3.0", "1e+300", "5e-324", "0.30000000000000004", "1234567890123456.0", "1.2345678901234568e+16"}
	for i, f := range in {
		if got := FloatRepr(f); got != want[i] {
			t.Errorf("FloatRepr(%v) = %s, want %s", f, got, want[i])
		}
	}
}

func TestLenientParsers(t *testing.T) {
	cases := []struct {
		name string
		fn   func(string) (any, error)
		in   string
		want string // json.dumps of the result, "" for an error
	}{
		{"json5 unquoted keys", JSON5, "{city: 'Paris', // comment\n days: +3, ratio: .5, hex: 0x10,}", `{"city": "Paris", "days": 3, "ratio": 0.5, "hex": 16}`},
		{"json5 rejects python", JSON5, `{'a': True}`, ""},
	}
	for _, c := range cases {
		v, err := c.fn(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: want error, got %s", c.name, Dumps(v))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := Dumps(v); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestRepair(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"city": "Paris"`, `{"city": "Paris"}`},
		{`Sure! {"city": "Paris", "days": 3,} hope that helps`, `{"city": "Paris", "days": 3}`},
		{`{city: Paris, days: 3}`, `{"city": "Paris", "days": 3}`},
		{`{'flag': True, 'n': None}`, `{"flag": true, "n": null}`},
		{`{"a": "unterminated`, `{"a": "unterminated"}`},
		{`no json here`, ``},
	}
	for _, c := range cases {
		got, ok := Repair(c.in)
		if c.want == "" {
			if ok {
				t.Errorf("Repair(%q) = %s, want failure", c.in, got)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("Repair(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

func FuzzLoads(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x"]}`, `"\ud83d\ude00"`, `[`, `{"a":1,}`, "\"\\u12\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Loads(s)
		if err != nil {
			return
		}
		// A decoded value re-encodes to JSON that decodes to the same text.
		out := Dumps(v)
		v2, err := Loads(out)
		if err != nil {
			t.Fatalf("re-decoding %q: %v", out, err)
		}
		if Dumps(v2) != out {
			t.Fatalf("not stable: %q vs %q", Dumps(v2), out)
		}
	})
}

// FuzzLenient runs JSON5 and Repair; LiteralEval's share of these seeds is
// crew/pyread's FuzzLiteralEval.
func FuzzLenient(f *testing.F) {
	for _, s := range []string{`{'a': (1,)}`, `{a: 1,}`, `{"a": "b`, `{{{`, `'''`, `{'a': 1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = JSON5(s)
		if out, ok := Repair(s); ok {
			if _, err := Loads(out); err != nil {
				t.Fatalf("Repair(%q) produced invalid JSON %q: %v", s, out, err)
			}
		}
	})
}

// rawBuilder is Loads's builder with RawStrings: it marks the strings it
// was handed raw, to see which went which way.
type rawBuilder struct {
	valueBuilder
	raw []string
}

func (b *rawBuilder) RawString(raw []byte, at int) any {
	b.raw = append(b.raw, string(raw))
	return string(raw)
}

// A builder with RawStrings gets the strings that need no decoding as
// their bytes, and the same values and errors as without it otherwise.
func TestDecodeRawStrings(t *testing.T) {
	for _, tc := range []struct {
		in, raw string // raw: the strings handed over raw, joined by |
	}{
		{`["a","",{"k":"v"}]`, "a||v"},
		{`["a\nb","\u00e9","c"]`, "c"},
		{`"plain"`, "plain"},
		{"[\"tab\there\"]", ""},
		{`["unterminated`, ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			b := &rawBuilder{}
			got, gotErr := Decode([]byte(tc.in), b, 0)
			want, wantErr := Decode[any]([]byte(tc.in), valueBuilder{}, 0)
			if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && *gotErr != *wantErr) {
				t.Fatalf("error %v, without RawStrings %v", gotErr, wantErr)
			}
			if Dumps(got) != Dumps(want) {
				t.Fatalf("got %s, without RawStrings %s", Dumps(got), Dumps(want))
			}
			if raw := strings.Join(b.raw, "|"); gotErr == nil && raw != tc.raw {
				t.Fatalf("handed raw %q, want %q", raw, tc.raw)
			}
		})
	}
}
