package prompt

import (
	"strings"
	"testing"
)

// Python 3.11's str.format(**kw): the texts are str(e) of what it raises
// (checked with python3 -c '"…".format(x="a")').
func TestPyFormat(t *testing.T) {
	kw := map[string]string{"x": "a", "q": "it's"}
	for _, tc := range []struct{ in, out, err string }{
		{"{x} and {x}", "a and a", ""},
		{"{{x}} {{", "{x} {", ""},
		{"}}", "}", ""},
		{"{x!s}{x!r}", "a'a'", ""},
		{"{q!r}", `"it's"`, ""},
		{"{y}", "", "'y'"},
		{"{}", "", "Replacement index 0 out of range for positional args tuple"},
		{"{1}", "", "Replacement index 1 out of range for positional args tuple"},
		{"{", "", "Single '{' encountered in format string"},
		{"}", "", "Single '}' encountered in format string"},
		{"{x", "", "expected '}' before end of string"},
		{"{x!z}", "", "Unknown conversion specifier z"},
		{"{x!}", "", "unmatched '{' in format spec"},
		{"{x!rr}", "", "expected ':' after conversion specifier"},
		// A missing name is found before the conversion is read.
		{"{y!z}", "", "'y'"},
		// Not reproduced: named in the error.
		{"{x:>3}", "", "crewbench does not reproduce the attribute, index or format spec of {x:>3}"},
		{"{x.upper}", "", "crewbench does not reproduce the attribute, index or format spec of {x.upper}"},
	} {
		out, err := PyFormat(tc.in, kw)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if out != tc.out || got != tc.err {
			t.Errorf("%q: got %q, %q; want %q, %q", tc.in, out, got, tc.out, tc.err)
		}
	}
}

// extract_task_section (utilities/agent_utils.py): the "## Task" body up to
// "\n---\n" or the next "\n## ", else the text cut at 2000 characters.
func TestTaskSection(t *testing.T) {
	long := strings.Repeat("é", 2001)
	for _, tc := range []struct{ in, out string }{
		{"Write.", "Write."},
		{"Intro\n## Task\n  Do it.  \n## Instructions\nx", "Do it."},
		{"## Task\nDo it.\n---\nrest", "Do it."},
		{"Intro\n## Task: Do it.", "Do it."},
		// The end marker right at the body's start gives an empty section.
		{"Intro\n## Task\n\n## Next", ""},
		{long, strings.Repeat("é", 2000) + "\n... [truncated]"},
	} {
		if got := taskSection(tc.in); got != tc.out {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.out)
		}
	}
}
