package main

import (
	"strings"
	"testing"
)

// A mistyped command is named as such, with the closest commands, even
// when a flag follows it.
func TestMistypedCommandSuggests(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"runn", "--demo"}, `unknown command "runn" (did you mean run?)`},
		{[]string{"tool"}, `unknown command "tool" (did you mean tools?)`},
		{[]string{"lnt"}, `unknown command "lnt" (did you mean lint?)`},
		{[]string{"xyzzy"}, `unknown command "xyzzy"; crewbench --help lists the commands`},
	}
	for _, c := range cases {
		code, out, errs := run(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || strings.Contains(errs, "unknown flag") {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, out, errs)
		}
	}
	// A known command's unknown flag is still the flag's error.
	if code, _, errs := run(t, "call", "--bogus"); code != exitUsage || !strings.Contains(errs, "unknown flag: --bogus") {
		t.Errorf("call --bogus: exit %d: %s", code, errs)
	}
}
