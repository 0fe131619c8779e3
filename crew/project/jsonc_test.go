package project

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSONCValues(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      any
	}{
		{"line comment keeps newline", "{\"a\": 1 // one\n}", map[string]any{"a": int64(1)}},
		{"comment markers in strings untouched", `{"url": "https://x", "k": "keep /* this */ and // that"}`,
			map[string]any{"url": "https://x", "k": "keep /* this */ and // that"}},
		{"escaped quote does not end the string", `{"a": "say \"//hi\" /*x*/"}`, map[string]any{"a": `say "//hi" /*x*/`}},
		{"trailing commas", `{"a": [1, 2, ], "b": {"c": true, }, }`,
			map[string]any{"a": []any{int64(1), int64(2)}, "b": map[string]any{"c": true}}},
		{"trailing comma before a comment then bracket", "[1, /* gone */ ]", []any{int64(1)}},
		{"comma inside a string stays", `{"a": ", ]"}`, map[string]any{"a": ", ]"}},
		{"NaN and infinities", `[NaN, Infinity, -Infinity]`, []any{math.NaN(), math.Inf(1), math.Inf(-1)}},
		{"duplicate keys keep the last value", `{"a": 1, "b": 2, "a": 3}`, map[string]any{"a": int64(3), "b": int64(2)}},
		{"numbers", `[0, -0, 1.5, 1e3, -2E-2, 12345678901234567890]`, []any{int64(0), int64(0), 1.5, 1000.0, -0.02, 12345678901234567890.0}},
		{"unicode escapes and surrogate pairs", `"\u00e9\ud83d\ude00\n"`, "é😀\n"},
		{"block comment with CRLF keeps only LF", "{\"a\": /* x\r\ny */ 1}", map[string]any{"a": int64(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := ParseJSONC([]byte(tc.src), "f.jsonc")
			if err != nil {
				t.Fatalf("ParseJSONC: %v", err)
			}
			if got := n.Plain(); !equalPlain(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// equalPlain compares plain values, treating NaN as equal to NaN.
func equalPlain(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok && math.IsNaN(fa) && math.IsNaN(fb) {
			return true
		}
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalPlain(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !equalPlain(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestParseJSONCPositions(t *testing.T) {
	src := "{\n  /* a block\n     comment */ \"role\": \"x\",\n\t\"n\": [1, {\"é\": 2}]\n}"
	n, err := ParseJSONC([]byte(src), "agents/a.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	ps := Positions{}
	n.walk("", ps)
	for path, want := range map[string]string{
		"":       "agents/a.jsonc:1:1",
		"role":   "agents/a.jsonc:3:25",
		"n":      "agents/a.jsonc:4:7",
		"n[1]":   "agents/a.jsonc:4:11",
		"n[1].é": "agents/a.jsonc:4:17",
	} {
		if got := ps[path].String(); got != want {
			t.Errorf("%s at %s, want %s", path, got, want)
		}
	}
	if got := n.Field("role").KeyPos.String(); got != "agents/a.jsonc:3:17" {
		t.Errorf("key position %s", got)
	}
}

// Errors carry CrewAI's text (line/column on the stripped text) and the
// file position; they differ when a block comment precedes the error on
// the same line.
func TestParseJSONCErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want, crewai string
	}{
		{"empty", "", "f.jsonc:1:1: invalid JSON at line 1, column 1: Expecting value",
			"f.jsonc: invalid JSON at line 1, column 1: Expecting value"},
		{"missing value", `{"a": }`, "f.jsonc:1:7: invalid JSON at line 1, column 7: Expecting value", ""},
		{"missing comma", "{\"a\": 1\n \"b\": 2}", "f.jsonc:2:2: invalid JSON at line 2, column 2: Expecting ',' delimiter", ""},
		{"missing colon", `{"a" 1}`, "f.jsonc:1:6: invalid JSON at line 1, column 6: Expecting ':' delimiter", ""},
		{"single-quoted key", `{'a': 1}`, "f.jsonc:1:2: invalid JSON at line 1, column 2: Expecting property name enclosed in double quotes", ""},
		{"unterminated string", "{\"a\": \"abc", "f.jsonc:1:7: invalid JSON at line 1, column 7: Unterminated string starting at", ""},
		{"control character", "[\"a\tb\"]", "f.jsonc:1:4: invalid JSON at line 1, column 4: Invalid control character at", ""},
		{"bad escape", `["a\qb"]`, `f.jsonc:1:4: invalid JSON at line 1, column 4: Invalid \escape`, ""},
		{"bad unicode escape", `["\u12G4"]`, `f.jsonc:1:4: invalid JSON at line 1, column 4: Invalid \uXXXX escape`, ""},
		{"extra data", `{} {}`, "f.jsonc:1:4: invalid JSON at line 1, column 4: Extra data", ""},
		{"leading zero", `[01]`, "f.jsonc:1:3: invalid JSON at line 1, column 3: Expecting ',' delimiter", ""},
		{"BOM", "\ufeff{}", "f.jsonc:1:1: invalid JSON at line 1, column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)", ""},
		{"error after a block comment on the same line: file and stripped columns differ",
			`{"a": /* long comment */ }`, "f.jsonc:1:26: invalid JSON at line 1, column 8: Expecting value",
			"f.jsonc: invalid JSON at line 1, column 8: Expecting value"},
		{"error after a multi-line block comment: lines survive", "{\n/*\n\n*/ \"a\" 1}",
			"f.jsonc:4:8: invalid JSON at line 4, column 6: Expecting ':' delimiter", ""},
		{"a comma dropped before a non-breaking space: str.isspace is wider than JSON whitespace",
			"[1,\u00a0]", "f.jsonc:1:4: invalid JSON at line 1, column 3: Expecting ',' delimiter", ""},
		{"unterminated block comment", "{\n  \"a\": 1 /* never closed\n}",
			"f.jsonc:2:10: unterminated block comment in JSONC input", "unterminated block comment in JSONC input"},
		{"a lone star at the end never closes", "[1] /*", "f.jsonc:1:5: unterminated block comment in JSONC input", ""},
		{"invalid UTF-8", "[\"\xff\"]", "f.jsonc:1:3: 'utf-8' codec can't decode byte 0xff in position 2: invalid start byte", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseJSONC([]byte(tc.src), "f.jsonc")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want *Error, got %v", err)
			}
			if e.Error() != tc.want {
				t.Errorf("got  %q\nwant %q", e.Error(), tc.want)
			}
			if tc.crewai != "" && e.CrewAI != tc.crewai {
				t.Errorf("CrewAI text %q, want %q", e.CrewAI, tc.crewai)
			}
		})
	}
}

func TestStripJSONCKeepsLineNumbers(t *testing.T) {
	src := []byte("a/* x\ny\nz */b // c\nd")
	out, orig, _, err := stripJSONC(src)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "a\n\nb \nd" {
		t.Errorf("stripped %q", string(out))
	}
	if orig.end != len(src) {
		t.Errorf("end of input maps to %d, want %d", orig.end, len(src))
	}
	for k, want := range []int{0, 5, 7, 12, 13, 18, 19} { // a \n \n b ' ' \n d
		if got := orig.orig(k); got != want {
			t.Errorf("stripped %d maps to %d, want %d", k, got, want)
		}
	}
}

func FuzzParseJSONC(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": [1, 2, ], /* c */ "b": NaN}`, "// x\n[1,\n2]", `"\ud83d\ude00"`,
		`{"a": "/* not a comment */"}`, "{\"a\":1,\"a\":2}", "[1e999, -Infinity]", "/*", `["\"]`} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile("testdata/json/market_brief/agents/researcher.jsonc"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseJSONC(data, "fuzz.jsonc")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error without position: %v", err)
			}
			if e.Pos.File != "fuzz.jsonc" || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("error position %+v for %q", e.Pos, data)
			}
			if !strings.HasPrefix(e.Error(), e.Pos.String()+": ") {
				t.Fatalf("error text %q does not start with its position", e.Error())
			}
		} else {
			ps := Positions{}
			n.walk("", ps)
			for p, pos := range ps {
				if pos.Line < 1 || pos.Col < 1 {
					t.Fatalf("%s has position %+v", p, pos)
				}
			}
		}
		// Differential: strict JSON must decode exactly as encoding/json does.
		if !utf8.Valid(data) || !json.Valid(data) || strings.HasPrefix(string(data), "\ufeff") {
			return
		}
		var want any
		if json.Unmarshal(data, &want) != nil {
			return // e.g. 1e999: Python gives inf, Go refuses
		}
		if err != nil {
			t.Fatalf("valid JSON %q rejected: %v", data, err)
		}
		if got := toFloats(n.Plain()); !equalPlain(got, want) {
			t.Fatalf("valid JSON %q decoded as %#v, encoding/json gives %#v", data, got, want)
		}
	})
}

// toFloats turns int64 into float64, as encoding/json decodes numbers.
func toFloats(v any) any {
	switch t := v.(type) {
	case int64:
		return float64(t)
	case []any:
		for i := range t {
			t[i] = toFloats(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = toFloats(t[k])
		}
	}
	return v
}
