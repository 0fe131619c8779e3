package main

import (
	"crewbench/fixtures/fixturetest"
	"os"
	"path/filepath"
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

// `crewbench` as a stdio command is this binary when it is not on PATH,
// in every command, and the command says so.
func TestSelfCommandResolvesToTheRunningBinary(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	if exe, _ := os.Executable(); selfExecutable() != exe {
		t.Errorf("without crewbench on PATH: %q, want %q", selfExecutable(), exe)
	}
	if err := os.WriteFile(filepath.Join(bin, "crewbench"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := selfExecutable(); got != "" {
		t.Errorf("with crewbench on PATH: %q, want PATH's", got)
	}
	if err := os.Remove(filepath.Join(bin, "crewbench")); err != nil {
		t.Fatal(err)
	}
	// TestMain set mcpconn.SelfExecutable to this test binary.
	for _, args := range [][]string{
		{"tools", "--stdio", "crewbench fixture weather"},
		{"call", "--no-record", "--stdio", "crewbench fixture weather", "getForecast", "--args", `{"city":"Lisbon"}`},
		{"smoke", "--no-record", "--", "crewbench", "fixture", "weather"},
	} {
		code, out, errs := run(t, args...)
		if code != exitOK || !strings.Contains(errs, `"crewbench" is not on PATH, so servers declared as `+"`crewbench …`"+` ran this binary`) {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if _, _, errs := run(t, "tools", "--stdio", fixtureCommandLine(t, "weather")); strings.Contains(errs, "is not on PATH") {
		t.Errorf("a server started by its path needs no note: %s", errs)
	}
	// Another missing command: the error says how to fix it.
	if code, out, _ := run(t, "tools", "--stdio", "no-such-mcp-server-xyz"); code != exitConnection ||
		!strings.Contains(out, "executable file not found in $PATH (install it or put its directory on PATH") {
		t.Errorf("missing command: exit %d\n%s", code, out)
	}
}

// The workbench says so too, among its start-up notes.
func TestWorkbenchNotesTheSelfCommand(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		".mcp.json": `{"mcpServers": {"inventory": {"command": "crewbench", "args": ["fixture", "inventory"]}}}`,
	})
	w, err := loadWorkspace(workbenchOptions{path: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.cleanup()
	if !strings.Contains(strings.Join(w.ws.Notes, "\n"), `"crewbench" is not on PATH`) {
		t.Errorf("notes %q", w.ws.Notes)
	}
}
