package bridge

import (
	"crewbench/fixtures/fixturetest"
	"strings"
	"testing"
)

func argvs(cs []Command) []string {
	var out []string
	for _, c := range cs {
		out = append(out, strings.Join(c.Argv, " "))
	}
	return out
}

func TestDetectCommands(t *testing.T) {
	py := pythonName()
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"crew template", map[string]string{
			"pyproject.toml": "[project]\nname = \"x\"\n\n[project.scripts]\nx = \"x.main:run\"\nrun_crew = \"x.main:run\"\n\n[tool.crewai]\ntype = \"crew\"\n",
			"src/x/main.py":  "",
		}, []string{"uv run run_crew", "crewai run", "uv run " + py + " -m x.main"}},
		{"flow template", map[string]string{
			"pyproject.toml": "[project.scripts]\nkickoff = \"f.main:kickoff\"\n",
		}, []string{"uv run kickoff", "crewai run"}},
		{"classic package", map[string]string{"my_crew/main.py": "", "my-notes/main.py": ""},
			[]string{py + " -m my_crew.main"}},
		{"script", map[string]string{"main.py": "", "pyproject.toml": "[tool.other]\nrun_crew = 1\n"},
			[]string{py + " main.py"}},
		{"nothing", map[string]string{"README.md": ""}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			fixturetest.WriteFiles(t, dir, c.files)
			got := argvs(DetectCommands(dir))
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}
