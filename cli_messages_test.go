package main

import (
	"crewbench/fixtures/fixturetest"
	"strings"
	"testing"

	"github.com/spf13/cobra"
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

func TestArgCountErrorsGiveTheUsageLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"names", "tool"}, "usage: crewbench names tool NAME..."},
		{[]string{"auth", "login"}, "usage: crewbench auth login URL"},
		{[]string{"export"}, "usage: crewbench export FILE"},
	} {
		code, _, errs := run(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, "arg(s)") || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d:\n%s", tc.args, code, errs)
		}
	}
	// The commands whose usage mistakes have their own exit code keep it.
	if code, _, errs := run(t, "diff", "a"); code != diffExitError || !strings.Contains(errs, "usage: crewbench diff A B") {
		t.Errorf("diff a: exit %d:\n%s", code, errs)
	}
}

// -v has one meaning: --verbose. At the root it is not --version.
func TestShortVIsVerboseOnly(t *testing.T) {
	code, out, errs := run(t, "-v")
	if code != exitUsage || strings.Contains(out, "crewbench ") || !strings.Contains(errs, "-v is --verbose on run, replay and watch; --version prints the version") {
		t.Errorf("crewbench -v: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := run(t, "--version"); code != 0 || !strings.HasPrefix(out, "crewbench ") {
		t.Errorf("--version: exit %d %q", code, out)
	}
	_, help, _ := run(t, "--help")
	if !strings.Contains(help, "--version") || !strings.Contains(help, "-v is --verbose") || strings.Contains(help, "-v, --version") {
		t.Errorf("root help:\n%s", help)
	}
}

func TestCallMistypedToolIsNotFoundWithDidYouMean(t *testing.T) {
	code, out, errs := run(t, "call", "--no-record", "--json", "--stdio", fixtureCommandLine(t, "files"), "read_text_fil")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(out, `"outcome": "not_found"`) {
		t.Errorf("--json outcome is not not_found:\n%s", out)
	}
	if !strings.Contains(errs, `the server has no tool "read_text_fil"; did you mean "read_text_file"?`) {
		t.Errorf("stderr lacks the did-you-mean:\n%s", errs)
	}
	// A tool that exists and fails keeps its own outcome and exit code.
	if code, out, errs := run(t, "call", "--no-record", "--stdio", fixtureCommandLine(t, "errors"), "returns_is_error"); code != exitToolError || strings.Contains(errs, "has no tool") {
		t.Errorf("returns_is_error: exit %d\n%s\n%s", code, out, errs)
	}
}

func TestLintSuggestsTheToolFilterKeyword(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"crew.py": {
			"src/p/config/agents.yaml": "a:\n  role: r\n  goal: g\n  backstory: b\n",
			"src/p/config/tasks.yaml":  "t:\n  description: d\n  expected_output: e\n  agent: a\n",
			"src/p/crew.py": `from crewai import Agent, Crew, Task
from crewai.project import CrewBase, agent, crew, task
from crewai.mcp import MCPServerStdio
from crewai.mcp.filters import create_static_tool_filter

@CrewBase
class P:
    @agent
    def a(self) -> Agent:
        return Agent(config=self.agents_config["a"], mcps=[MCPServerStdio(
            command="npx",
            args=["-y", "@modelcontextprotocol/server-filesystem", "./data"],
            tool_filtr=create_static_tool_filter(allowed_tool_names=["read_text_file"]),
        )])

    @task
    def t(self) -> Task:
        return Task(config=self.tasks_config["t"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks)
`,
		},
		"agent file": {
			"crew.jsonc":     `{"agents": ["a"], "tasks": [{"description": "d", "expected_output": "e", "agent": "a"}]}`,
			"agents/a.jsonc": `{"role": "r", "goal": "g", "backstory": "b", "mcps": [{"command": "npx", "tool_filtr": {"type": "static"}}]}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fixturetest.WriteFiles(t, dir, files)
			_, out, errs := run(t, "lint", dir)
			if !strings.Contains(out, `tool_filtr`) || !strings.Contains(out, `did you mean "tool_filter"?`) || !strings.Contains(out, `fix: rename it to "tool_filter"`) {
				t.Errorf("lint gives no did-you-mean for tool_filtr:\n%s\n%s", out, errs)
			}
		})
	}
}

// A loader error's "did you mean" is its fix, said once.
func TestLintSaysDidYouMeanOnce(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		".mcp.json":      `{"mcpServers": {"weather": {"command": "npx"}}}`,
		"crewbench.yaml": "servers:\n  weather:\n    timeots: {connect: 5s}\n",
	})
	_, out, _ := run(t, "lint", dir)
	if n := strings.Count(out, `did you mean "timeouts"?`); n != 1 {
		t.Errorf("did you mean said %d times:\n%s", n, out)
	}
}

// Every command's flag descriptions start in one column (pflag pads by
// bytes, so a non-ASCII flag value name such as "…" shifts its row).
func TestHelpFlagColumnsAlign(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		usages := c.LocalFlags().FlagUsages()
		col := -1
		for _, line := range strings.Split(strings.TrimRight(usages, "\n"), "\n") {
			if !strings.HasPrefix(strings.TrimLeft(line, " "), "-") {
				continue // a wrapped description
			}
			// the description starts after the flag and its padding
			i := runeIndexOfGap([]rune(line))
			if col == -1 {
				col = i
			} else if i != col {
				t.Errorf("%s --help: description at column %d, not %d:\n%s", c.CommandPath(), i, col, line)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(replayViewer{}))
}

// runeIndexOfGap is the rune column after the first run of two or more
// spaces that follows the flag's name.
func runeIndexOfGap(rs []rune) int {
	i := 0
	for i < len(rs) && rs[i] == ' ' {
		i++
	}
	for ; i+1 < len(rs); i++ {
		if rs[i] == ' ' && rs[i+1] == ' ' {
			for i < len(rs) && rs[i] == ' ' {
				i++
			}
			return i
		}
	}
	return -1
}
