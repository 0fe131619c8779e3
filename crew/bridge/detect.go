package bridge

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Command is one way to run a project's own crew, found by DetectCommands.
type Command struct {
	Argv []string
	// Why says what it was detected from ("pyproject.toml [project.scripts] run_crew").
	Why string
}

// DetectCommands finds the commands that run the CrewAI project in dir,
// best first: the [project.scripts] entries CrewAI's templates write
// (run_crew for a crew, kickoff for a flow; `crewai run` runs the same
// entry point), then a package's main.py (python -m PKG.main), then a
// main.py at the top (python main.py). It reads files only; nothing runs.
func DetectCommands(dir string) []Command {
	var out []Command
	scripts := pyprojectScripts(filepath.Join(dir, "pyproject.toml"))
	for _, entry := range []string{"run_crew", "kickoff"} {
		if _, ok := scripts[entry]; !ok {
			continue
		}
		why := "pyproject.toml [project.scripts] " + entry
		out = append(out, Command{Argv: []string{"uv", "run", entry}, Why: why},
			Command{Argv: []string{"crewai", "run"}, Why: why + " (what crewai run starts)"})
		break
	}
	py := pythonName()
	for _, root := range []string{dir, filepath.Join(dir, "src")} {
		mains, _ := filepath.Glob(filepath.Join(root, "*", "main.py"))
		sort.Strings(mains)
		for _, m := range mains {
			pkg := filepath.Base(filepath.Dir(m))
			if !isPythonIdent(pkg) {
				continue
			}
			rel, _ := filepath.Rel(dir, m)
			argv := []string{py, "-m", pkg + ".main"}
			if root != dir && len(scripts) > 0 {
				// A src/ layout is importable once the project is installed
				// in its environment, which uv run makes sure of.
				argv = append([]string{"uv", "run"}, argv...)
			}
			out = append(out, Command{Argv: argv, Why: rel})
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "main.py")); err == nil && !fi.IsDir() {
		out = append(out, Command{Argv: []string{py, "main.py"}, Why: "main.py"})
	}
	return out
}

// pythonName is "python" where it exists (a venv, most systems), else
// "python3" (Debian and macOS ship only that).
func pythonName() string {
	if _, err := exec.LookPath("python"); err == nil {
		return "python"
	}
	return "python3"
}

func isPythonIdent(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// pyprojectScripts reads the [project.scripts] table of a pyproject.toml:
// `name = "module:function"` lines up to the next table. A missing or
// unreadable file has none. Only this one flat table is needed, so a
// line scanner stands in for a TOML parser.
func pyprojectScripts(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = strings.ReplaceAll(line, " ", "") == "[project.scripts]"
			continue
		}
		if !in || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		out[k] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return out
}
