package pyread

import (
	"testing"

	"crewbench/crew/pyjson"
)

func TestLiteralEval(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string // json.dumps of the result, "" for an error
	}{
		{"literal dict", `{'city': 'Paris', "days": 3, 'metric': True, 'x': None}`, `{"city": "Paris", "days": 3, "metric": true, "x": null}`},
		{"literal tuple and concat", `{'a': (1, 2), 'b': 'x' 'y', 'c': -1.5, 'd': 0x1f}`, `{"a": [1, 2], "b": "xy", "c": -1.5, "d": 31}`},
		{"literal triple quotes", `{'q': '''it's'''}`, `{"q": "it's"}`},
		{"literal rejects json true", `{'a': true}`, ""},
		{"literal rejects set", `{'a', 'b'}`, ""},
		{"scalar keys as json.dumps writes them", `{1: 'a', 2.5: 'b', False: 'c', None: 'd'}`, `{"1": "a", "2.5": "b", "false": "c", "null": "d"}`},
		{"prefixes, escapes and a comment", "{'p': r'C:\\new', 'e': '\\x41\\u00e9\\101', 'n': 1_000,  # note\n 'o': 0o17, 'b': b'x'}", `{"p": "C:\\new", "e": "A\u00e9A", "n": 1000, "o": 15, "b": "x"}`},
		{"leading spaces and tabs are stripped", " \t[1, -2]", `[1, -2]`},
		{"rejects a bad \\x escape", `'\x4'`, ""},
		{"rejects an f-string", `f'a'`, ""},
		{"rejects a call", `{'a': dict()}`, ""},
		{"rejects trailing text", `{'a': 1} and more`, ""},
		{"rejects a second line", "1\n2", ""},
		{"rejects an empty input", "", ""},
		// Where the pyjson approximation this replaced differed from Python.
		{"parentheses alone make no tuple", `{'a': (1)}`, `{"a": 1}`},
		{"octal escapes", `'\012'`, `"\n"`},
		{"one sign per number", `--1`, ""},
		{"an unclosed bracket", `(0`, ""},
		{"a line continuation into the end", "0\\\n", ""},
	}
	for _, c := range cases {
		v, err := LiteralEval(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: want error, got %s", c.name, pyjson.Dumps(v))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := pyjson.Dumps(v); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func FuzzLiteralEval(f *testing.F) {
	for _, s := range []string{`{'a': (1,)}`, `{a: 1,}`, `{"a": "b`, `{{{`, `'''`, `{'a': 1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := LiteralEval(s)
		if err != nil {
			return
		}
		// What literal_eval accepts, json.dumps can write and json.loads read.
		if _, err := pyjson.Loads(pyjson.Dumps(v)); err != nil {
			t.Fatalf("LiteralEval(%q) = %s, which does not decode: %v", s, pyjson.Dumps(v), err)
		}
	})
}
