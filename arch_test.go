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

// TestNamesAndSessionImportNothingFromTheProject: names, session and
// gcfloor (with their subpackages) are leaves.
func TestNamesAndSessionImportNothingFromTheProject(t *testing.T) {
	for _, tree := range []string{"names", "session", "gcfloor"} {
		self := "crewbench/" + tree
		for _, dep := range goListDeps(t, "./"+tree+"/...") {
			if strings.HasPrefix(dep, "crewbench/") && !inTree(dep, self) {
				t.Errorf("%s/... imports %s; it must import nothing from the project", tree, dep)
			}
		}
	}
}

// TestMCPGoStaysBehindMCPConn: only mcpconn/** and fixtures/** (tests
// included) import mcp-go; everything else goes through mcpconn's types.
func TestMCPGoStaysBehindMCPConn(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := fields[0]
		if inTree(pkg, "crewbench/mcpconn") || inTree(pkg, "crewbench/fixtures") {
			continue
		}
		for _, imp := range fields[1:] {
			if inTree(imp, "github.com/mark3labs/mcp-go") {
				t.Errorf("%s imports %s; only mcpconn/** and fixtures/** may", pkg, imp)
			}
		}
	}
}

// TestMCPConnImportsNothingFromCrew: the arrow runs crew → mcpconn, never
// back.
func TestMCPConnImportsNothingFromCrew(t *testing.T) {
	for _, dep := range goListDeps(t, "./mcpconn/...") {
		if inTree(dep, "crewbench/crew") {
			t.Errorf("mcpconn/... imports %s; mcpconn must import nothing from crew", dep)
		}
	}
}

// goListDeps is `go list -deps PATTERN`: the packages PATTERN's packages
// (tests aside) depend on, themselves included.
func goListDeps(t *testing.T, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pattern).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pattern, err, out)
	}
	return strings.Fields(string(out))
}

// inTree reports whether pkg is root or one of its subpackages.
func inTree(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
