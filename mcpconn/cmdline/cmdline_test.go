package cmdline

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"crewbench fixture weather", []string{"crewbench", "fixture", "weather"}},
		{`npx -y "@scope/pkg name" 'a b' c\ d`, []string{"npx", "-y", "@scope/pkg name", "a b", "c d"}},
		{`echo "a \"q\" $HOME" ''`, []string{"echo", `a "q" $HOME`, ""}},
		{"  spaced\t\targs  ", []string{"spaced", "args"}},
		{"", nil},
	}
	for _, c := range cases {
		got, err := Split(c.in)
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("split(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Split(`"open`); err == nil {
		t.Error("unterminated double quote accepted")
	}
}

// FuzzSplitCommandLine seeds every quoting form the splitter knows, so the
// engine starts from them instead of growing long strings to find them;
// inputs over 256 bytes are skipped (a command line's structure shows in a
// few words, and long inputs only make minimization slow).
func FuzzSplitCommandLine(f *testing.F) {
	for _, s := range []string{"a b", `"x y" 'z'`, `a\ b`, `"\\"`, "'",
		"", "  \t\n ", `''`, `""`, `a'b'"c"d`, `"a\"b" 'it'\''s'`, `x\`, `"\$HOME \` + "`" + `"`,
		"a\\\nb", `--env K=V --url="http://h/?a=1&b=2"`, "é 'ü ö' \"日本\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 256 {
			return
		}
		words, err := Split(s)
		if err != nil {
			return
		}
		// Re-quoting every word and splitting again gives the same words.
		var b strings.Builder
		for i, w := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "'")
		}
		again, err := Split(b.String())
		if err != nil || len(again) != len(words) {
			t.Fatalf("round trip of %q: %q → %q (%v)", s, words, again, err)
		}
		for i := range words {
			if again[i] != words[i] {
				t.Fatalf("round trip of %q: %q → %q", s, words, again)
			}
		}
	})
}

// Split reads an $EDITOR value as the workbench's old splitter did.
func TestSplitEditorCommand(t *testing.T) {
	words, err := Split(`code --wait "my file"`)
	if err != nil || strings.Join(words, "|") != "code|--wait|my file" {
		t.Errorf("Split = %q %v", words, err)
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"}, {"two words", "'two words'"}, {"it's", `'it'\''s'`}, {"", "''"}, {"a=b/c:d", "a=b/c:d"},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	words := []string{"crewbench", "fixture", "it's here", ""}
	if got, err := Split(Join(words)); err != nil || strings.Join(got, "|") != strings.Join(words, "|") {
		t.Errorf("Split(Join(%q)) = %q %v", words, got, err)
	}
}
