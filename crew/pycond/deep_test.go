package pycond

import (
	"strings"
	"testing"

	"crewbench/crew/pyread"
)

// Hostile nesting is refused or evaluated without running away.
func TestDeepNesting(t *testing.T) {
	for _, src := range []string{strings.Repeat("(", 100000), strings.Repeat("not ", 100000) + "1",
		strings.Repeat("-", 100000) + "1", strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
		strings.Repeat("lambda: ", 10000) + "1", strings.Repeat("1 if 1 else ", 10000) + "1",
		strings.Repeat("output.raw and ", 20000) + "1", strings.Repeat("len(", 10000) + "output.raw" + strings.Repeat(")", 10000)} {
		c, err := Parse(src, pyread.Pos{})
		if err == nil {
			_, _ = c.Eval(Output{})
		}
	}
}
