package pyread

import (
	"reflect"
	"testing"
)

func TestCodeLines(t *testing.T) {
	src := "import os  # the os\n" +
		"url = 'https://x/#frag'  # a '#' in a string is code\n" +
		"doc = \"\"\"Use # of items\n" +
		"and # more\"\"\"  # done\n" +
		"# a whole-line comment\n" +
		"x = 1"
	want := []string{
		"import os  ",
		"url = 'https://x/#frag'  ",
		"doc = \"\"\"Use # of items",
		"and # more\"\"\"  ",
		"",
		"x = 1",
	}
	if got := CodeLines(src); !reflect.DeepEqual(got, want) {
		t.Errorf("CodeLines:\n got %q\nwant %q", got, want)
	}
}

func TestLinesMatchesTokenize(t *testing.T) {
	src := "import os\nx = f(\n  1,  # c\n  'a' 'b')\n\n@dec\ndef g(): return [1,\n2]\ny = 3"
	var got []Token
	Lines(src, "m.py", func(line []Token) bool {
		if line[len(line)-1].Kind != TokNewline {
			t.Errorf("line %v does not end with NEWLINE", line)
		}
		got = append(got, line...)
		return true
	})
	want := Tokenize(src, "m.py")
	want = want[:len(want)-1] // Lines does not hand out the EOF
	if len(got) != len(want) {
		t.Fatalf("Lines gave %d tokens, Tokenize %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("token %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	n := 0
	Lines(src, "m.py", func([]Token) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("returning false after line 2 still read %d lines", n)
	}
}
