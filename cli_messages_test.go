package main

import (
	"strings"
	"testing"
)

// Tests of the CLI's messages: no doubled prefixes, a way forward in each.

func TestRunMissingPathSaysOpenProjectOnce(t *testing.T) {
	code, _, errs := run(t, "run", t.TempDir()+"/missing")
	if code == 0 || !strings.Contains(errs, "open project: stat ") || strings.Contains(errs, "open project: open project") {
		t.Errorf("exit %d:\n%s", code, errs)
	}
}

func TestRunInAnEmptyDirectoryMentionsDemo(t *testing.T) {
	t.Chdir(t.TempDir())
	code, _, errs := run(t, "run")
	if code == 0 || !strings.Contains(errs, "no CrewAI project in") || !strings.Contains(errs, "--demo") {
		t.Errorf("exit %d:\n%s", code, errs)
	}
}
