package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goldenTotal is compare.py's total line: "goldens: a/b requests
// byte-identical, c/d canonical-identical, e/f tool calls identical, g/h
// crews fully identical".
var goldenTotal = regexp.MustCompile(`(?m)^goldens: .*$`)

var fraction = regexp.MustCompile(`(\d+)/(\d+)`)

// TestGoldensByteIdentical runs testdata/goldens/compare.py (a copy of the
// recordings of real CrewAI 1.15.17, see its README) on a freshly built
// binary: every public golden crew must send CrewAI's request bytes, make
// CrewAI's tool calls and end with CrewAI's output. It needs python3; in CI
// (CREWBENCH_CI=1) a missing python3 fails the test instead of skipping it.
func TestGoldensByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the golden crews")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CREWBENCH_CI") == "1" {
			t.Fatal("python3 is required in CI for the golden comparison")
		}
		t.Skip("python3 not found")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "crewbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(py, "-B", filepath.Join("testdata", "goldens", "compare.py"), bin, "--causes")
	cmd.Env = append(os.Environ(), "GOLDENS_WORK="+filepath.Join(dir, "work"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("compare.py: %v\n%s", err, out)
	}
	total := goldenTotal.FindString(string(out))
	if total == "" {
		t.Fatalf("compare.py printed no total line:\n%s", out)
	}
	pairs := fraction.FindAllStringSubmatch(total, -1)
	if len(pairs) != 4 {
		t.Fatalf("unexpected total line %q", total)
	}
	for _, p := range pairs {
		if p[1] != p[2] || p[2] == "0" {
			t.Fatalf("crewbench differs from real CrewAI (report: %s):\n%s", filepath.Join(dir, "work", "compare_out", "report.json"), strings.TrimSpace(string(out)))
		}
	}
}
