package pyjson

import "testing"

func TestEqualIsPythonEquality(t *testing.T) {
	load := func(s string) any {
		v, err := Loads(s)
		if err != nil {
			t.Fatalf("Loads(%q): %v", s, err)
		}
		return v
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"a": 1, "b": "x"}`, `{"b": "x", "a": 1}`, true},
		{`{"n": 1}`, `{"n": 1.0}`, true},
		{`{"n": 1}`, `{"n": true}`, true},
		{`{"n": 0}`, `{"n": false}`, true},
		{`{"n": 1.5e1}`, `{"n": 15}`, true},
		{`{"n": 2}`, `{"n": true}`, false},
		{`{"n": "1"}`, `{"n": 1}`, false},
		{`{"n": null}`, `{"n": 0}`, false},
		{`{"n": [1, {"x": 2.0}]}`, `{"n": [1.0, {"x": 2}]}`, true},
		{`{"n": [1, 2]}`, `{"n": [2, 1]}`, false},
		{`{"a": 1}`, `{"a": 1, "b": 2}`, false},
		{`{"n": NaN}`, `{"n": NaN}`, false},
		{`{"n": Infinity}`, `{"n": Infinity}`, true},
		{`{"n": Infinity}`, `{"n": -Infinity}`, false},
	} {
		if got := Equal(load(c.a), load(c.b)); got != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
