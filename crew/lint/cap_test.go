package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeManyServers lays out a classic project whose crew.py declares n
// stdio servers, each with a literal secret in its env: every server gives
// the same few findings.
func writeManyServers(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	var py strings.Builder
	py.WriteString("from crewai import Agent, Crew, Process, Task\nfrom crewai.project import CrewBase, agent, crew, task\nfrom crewai.mcp import MCPServerStdio\n\n")
	var refs []string
	for i := 0; i < n; i++ {
		fmt.Fprintf(&py, "server_%d = MCPServerStdio(command=\"npx\", args=[\"-y\", \"@modelcontextprotocol/server-filesystem\", \"./data/%d\"], env={\"API_KEY\": \"sk-literalliteralliteral%04d\"})\n", i, i, i)
		refs = append(refs, fmt.Sprintf("server_%d", i))
	}
	fmt.Fprintf(&py, `
@CrewBase
class Research():
    @agent
    def researcher(self) -> Agent:
        return Agent(config=self.agents_config['researcher'], mcps=[%s])

    @task
    def research_task(self) -> Task:
        return Task(config=self.tasks_config['research_task'])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
`, strings.Join(refs, ", "))
	files := map[string]string{
		"pyproject.toml":                  "[project]\nname = \"research\"\n\n[tool.crewai]\ntype = \"crew\"\n",
		"src/research/config/agents.yaml": "researcher:\n  role: R\n  goal: G\n  backstory: B\n",
		"src/research/config/tasks.yaml":  "research_task:\n  description: D\n  expected_output: E\n  agent: researcher\n",
		"src/research/crew.py":            py.String(),
	}
	for rel, s := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// perGroup counts findings (summaries as one) by code and severity.
func perGroup(fs []Finding) map[string]int {
	m := map[string]int{}
	for _, f := range fs {
		m[f.Pos.File+"|"+f.Code+"|"+string(f.Severity)]++
	}
	return m
}

func TestFindingsPerRuleAreCapped(t *testing.T) {
	dir := writeManyServers(t, 130)
	_, all, err := LintPath(context.Background(), dir, "", Options{MaxPerRule: -1})
	if err != nil {
		t.Fatal(err)
	}
	full := perGroup(all)
	big := 0
	for _, n := range full {
		if n > 100 {
			big++
		}
	}
	if big == 0 {
		t.Fatalf("the project should give some rule over 100 findings: %v", full)
	}
	for _, tc := range []struct {
		name string
		max  int
		want int // listed per group, summary excluded
	}{{"default", 0, DefaultMaxPerRule}, {"ten", 10, 10}, {"none", -1, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			_, fs, err := LintPath(context.Background(), dir, "", Options{MaxPerRule: tc.max})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := Count(fs), Count(all); got.Errors != want.Errors || got.Warnings != want.Warnings || got.Infos != want.Infos {
				t.Errorf("counts %+v, want the uncapped %+v", got, want)
			}
			if ExitCode(fs, true) != ExitCode(all, true) {
				t.Errorf("exit code changed by the cap")
			}
			summaries := map[string]Finding{}
			for _, f := range fs {
				if f.Omitted > 0 {
					summaries[f.Pos.File+"|"+f.Code+"|"+string(f.Severity)] = f
				}
			}
			got := perGroup(fs)
			for g, n := range full {
				limit := tc.want
				if tc.max < 0 || n <= limit {
					if got[g] != n || summaries[g].Omitted != 0 {
						t.Errorf("%s: %d listed (summary %d), want all %d", g, got[g], summaries[g].Omitted, n)
					}
					continue
				}
				s := summaries[g]
				if got[g] != limit+1 || s.Omitted != n-limit {
					t.Errorf("%s: %d listed with a summary of %d, want %d and %d", g, got[g], s.Omitted, limit+1, n-limit)
				}
				if !strings.Contains(s.Message, fmt.Sprintf("… and %d more %s findings", n-limit, s.Code)) {
					t.Errorf("summary message %q", s.Message)
				}
			}
			var text, js bytes.Buffer
			if err := WriteText(&text, fs); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, fs); err != nil {
				t.Fatal(err)
			}
			c := Count(all)
			total := fmt.Sprintf("%d findings (", c.Errors+c.Warnings+c.Infos)
			if !strings.Contains(text.String(), total) {
				t.Errorf("text summary line lacks %q:\n%s", total, lastLine(text.String()))
			}
			var decoded []Finding
			if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
				t.Fatal(err)
			}
			omitted := 0
			for _, f := range decoded {
				omitted += f.Omitted
			}
			if omitted != Count(fs).Omitted || (tc.max >= 0) != (omitted > 0) {
				t.Errorf("JSON carries %d omitted, want %d", omitted, Count(fs).Omitted)
			}
			if tc.max >= 0 && !strings.Contains(lastLine(text.String()), fmt.Sprintf("%d of them not listed", omitted)) {
				t.Errorf("text summary line does not say how many are not listed: %s", lastLine(text.String()))
			}
			var uncapped bytes.Buffer
			_ = WriteText(&uncapped, all)
			if tc.max >= 0 && text.Len()*2 > uncapped.Len() {
				t.Errorf("capped text is %d bytes, the full one %d", text.Len(), uncapped.Len())
			}
		})
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
