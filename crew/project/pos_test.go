package project

import "testing"

// A server read from JSON finds its positions in its entry's Node when
// asked: every path the map of every value had (Node.positions) gives the
// same position, and a path with no value falls back to the same parent.
func TestTreePositionsMatchTheMapOfEveryValue(t *testing.T) {
	src := `{"command": "npx", "args": ["-y", "pkg", ["nested", {"k": 1}]],
 "env": {"A.B": "dotted", "A": {"B": "nested"}, "LOG": "warn"},
 "headers": {"Authorization": "Bearer x", "X[1]": "bracket"},
 "tool_filter": {"allowed_tool_names": ["a", "b"]}}`
	n, err := ParseJSONC([]byte(src), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	want := n.positions()
	got := treePositions(n)
	for path, p := range want {
		if !got.Has(path) || got.At(path) != p {
			t.Errorf("path %q: At %v (has %v), want %v", path, got.At(path), got.Has(path), p)
		}
	}
	// An empty key is no exception: "" stays the entry itself (the map
	// let the key's value overwrite it).
	withEmpty, err := ParseJSONC([]byte(`{"": "empty key", "url": "u"}`), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if p := treePositions(withEmpty).At("nope"); p != withEmpty.Pos {
		t.Errorf("fallback %v, want the entry at %v", p, withEmpty.Pos)
	}
	for _, path := range []string{"env.MISSING", "args[7]", "args[01]", "args[2][1].k.deeper", "headers.Cookie", "nope", "tool_filter.allowed_tool_names[1].x", "env.A.C"} {
		if got.Has(path) != want.Has(path) || got.At(path) != want.At(path) {
			t.Errorf("path %q: At %v (has %v), want %v (has %v)", path, got.At(path), got.Has(path), want.At(path), want.Has(path))
		}
	}
}

// A server read from Python records its paths; a later one wins, as in a map.
func TestRecordedPositionsLastWins(t *testing.T) {
	var sp ServerPositions
	sp.set("", Pos{File: "crew.py", Line: 1})
	sp.set("env", Pos{File: "crew.py", Line: 2})
	sp.set("env", Pos{File: "crew.py", Line: 3})
	for _, c := range []struct {
		path string
		line int
		has  bool
	}{{"env", 3, true}, {"env.X", 3, false}, {"args", 1, false}, {"", 1, true}} {
		if p := sp.At(c.path); p.Line != c.line || sp.Has(c.path) != c.has {
			t.Errorf("%q: line %d has %v, want %d %v", c.path, p.Line, sp.Has(c.path), c.line, c.has)
		}
	}
}
