package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEngineDoesNotImportUI enforces the one architectural rule: engine
// packages never depend on the UI stack (ARCHITECTURE.md).
func TestEngineDoesNotImportUI(t *testing.T) {
	engine := []string{"./names/...", "./session/...", "./mcpconn/...", "./crew/...", "./fixtures/..."}
	banned := []string{
		"crewbench/ui",
		"crewbench/themes",
		"github.com/charmbracelet/bubbletea",
		"github.com/charmbracelet/bubbles",
		"github.com/charmbracelet/lipgloss",
	}
	for _, pkg := range engine {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "matched no packages") {
				continue
			}
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// TestNamesAndSessionImportNothingFromTheProject: names and session are leaves.
func TestNamesAndSessionImportNothingFromTheProject(t *testing.T) {
	for _, pkg := range []string{"./names", "./session"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		self := "crewbench/" + strings.TrimPrefix(pkg, "./")
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "crewbench/") && dep != self && !strings.HasPrefix(dep, self+"/") {
				t.Errorf("%s imports %s; it must import nothing from the project", pkg, dep)
			}
		}
	}
}
