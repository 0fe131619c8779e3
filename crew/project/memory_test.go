package project

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"crewbench/crew/filelimit"
)

// Memory per input byte (issue 15 item 8): a project file of N bytes must
// cost a small constant × N to load. The generators below make realistic
// files of about n bytes; the test checks 1 MB inputs against the bounds,
// the benchmark reports the ratio for 1 MB and 10 MB.
//
// What is measured is every byte OpenWith allocates (TotalAlloc), not the
// live heap at its peak: the peak can never exceed what was allocated, and
// the total is the same on every run, while a peak sampled from
// runtime/metrics or HeapAlloc depends on when the collector happened to
// run (on a busy machine it may not run at all). The bound is therefore an
// upper bound on peak memory that a slow or loaded machine cannot flake.

// jsoncCrewBound and jsonMCPBound are for crew.jsonc and .mcp.json,
// pyCrewBound for a classic crew.py: bytes allocated per input byte, with
// some headroom over the measured 19.0×, 29.2× and 38.5× (from 19×, 44×
// and 45×: servers keep their positions as a lookup into the entry's Node
// instead of a map of every value, named mcpServers entries compute no
// dedup key, plain values cost no closure or Node copy). What remains for
// a ~190-byte .mcp.json entry is mostly its Node tree (~9×), its Server
// and spec (~4×) and the Unresolved of its host variable; for crew.py the
// expression tree (~14×, a 192-byte Expr per literal).
const (
	jsoncCrewBound = 20
	jsonMCPBound   = 32
	pyCrewBound    = 42
)

func genCrewJSONC(n int) string {
	var b strings.Builder
	b.WriteString("{\n  // generated\n  \"name\": \"Big\",\n  \"agents\": [\"researcher\"],\n  \"tasks\": [\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `    {
      "name": "task_%d", /* block comment */
      "description": "Research the {industry} market in {region}, part %d. Focus on drivers.",
      "expected_output": "Bullet-point notes with one source URL per bullet.",
      "agent": "researcher", // who
      "tools": ["SerperDevTool", "ScrapeWebsiteTool",],
      "guardrail_max_retries": 2,
    },
`, i, i)
	}
	b.WriteString("  ],\n  \"process\": \"sequential\"\n}\n")
	return b.String()
}

func genMCPJSON(n int) string {
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, `    "db%d": {"command": "npx", "args": ["-y", "@bytebase/dbhub", "--dsn", "${DB_DSN:-sqlite:///tmp/x%d.db}"], "env": {"LOG_LEVEL": "warn"}}`, i, i)
		} else {
			fmt.Fprintf(&b, `    "web%d": {"type": "http", "url": "https://h%d.example.com/mcp", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}`, i, i)
		}
	}
	b.WriteString("\n  }\n}\n")
	return b.String()
}

func genCrewPy(n int) string {
	var b strings.Builder
	b.WriteString(`import os
from crewai import Agent, Crew, Process, Task, LLM
from crewai.project import CrewBase, agent, crew, task
from crewai.mcp import MCPServerStdio

`)
	head := b.Len()
	var servers strings.Builder
	for i := 0; head+servers.Len()+200 < n; i++ {
		fmt.Fprintf(&servers, `server_%d = MCPServerStdio(
    command="npx",
    args=["-y", "@modelcontextprotocol/server-filesystem", "./data/%d"],  # a comment
    env={"LOG_LEVEL": "warn", "FS_TOKEN": os.environ["FS_TOKEN"]},
    cache_tools_list=True,
)
`, i, i)
	}
	b.WriteString(servers.String())
	b.WriteString(`

@CrewBase
class Research():
    """Research crew"""

    @agent
    def researcher(self) -> Agent:
        return Agent(config=self.agents_config['researcher'], mcps=[server_0], verbose=True)

    @task
    def research_task(self) -> Task:
        return Task(config=self.tasks_config['research_task'])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
`)
	return b.String()
}

// writeProject lays out a project of the given kind with a main file of
// about n bytes and returns its directory and the main file's size.
func writeProject(t testing.TB, kind string, n int) (string, int) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var main string
	switch kind {
	case "crew.jsonc":
		main = genCrewJSONC(n)
		write("crew.jsonc", main)
		write("agents/researcher.jsonc", `{"role": "Researcher", "goal": "Find facts", "backstory": "Careful."}`)
	case ".mcp.json":
		main = genMCPJSON(n)
		write(".mcp.json", main)
	case "crew.py":
		main = genCrewPy(n)
		write("pyproject.toml", "[project]\nname = \"research\"\n\n[tool.crewai]\ntype = \"crew\"\n")
		write("src/research/config/agents.yaml", "researcher:\n  role: Researcher\n  goal: Find facts\n  backstory: Careful.\n")
		write("src/research/config/tasks.yaml", "research_task:\n  description: Research.\n  expected_output: Notes.\n  agent: researcher\n")
		write("src/research/crew.py", main)
	default:
		t.Fatalf("unknown kind %s", kind)
	}
	return dir, len(main)
}

// allocatedBy is the bytes f allocates (TotalAlloc difference).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

var memoryKinds = []struct {
	kind  string
	bound float64
}{
	{"crew.jsonc", jsoncCrewBound},
	{".mcp.json", jsonMCPBound},
	{"crew.py", pyCrewBound},
}

func TestOpenMemoryPerInputByte(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of MB")
	}
	if raceDetector {
		// scripts/test.sh runs this test once more without -race.
		t.Skip("the race detector changes what allocates")
	}
	for _, k := range memoryKinds {
		t.Run(k.kind, func(t *testing.T) {
			dir, size := writeProject(t, k.kind, 1<<20)
			var p *Project
			alloc := allocatedBy(func() { p, _ = OpenWith(dir, Options{Environ: []string{}}) })
			if p == nil {
				t.Fatalf("%s did not open", k.kind)
			}
			ratio := float64(alloc) / float64(size)
			t.Logf("%s: %d bytes → %d allocated (%.1f× input)", k.kind, size, alloc, ratio)
			if ratio > k.bound {
				t.Errorf("loading a %d-byte %s allocated %.1f× its size, want ≤ %.0f×", size, k.kind, ratio, k.bound)
			}
		})
	}
}

// BenchmarkOpenLarge reports allocated bytes per input byte ("B/inB") for
// 1 MB and 10 MB files of each kind.
func BenchmarkOpenLarge(b *testing.B) {
	b.Setenv(filelimit.OverrideEnv, fmt.Sprint(64<<20))
	for _, k := range memoryKinds {
		for _, mb := range []int{1, 10} {
			b.Run(fmt.Sprintf("%s/%dMB", k.kind, mb), func(b *testing.B) {
				dir, size := writeProject(b, k.kind, mb*1_000_000)
				b.ReportAllocs()
				b.ResetTimer()
				var total uint64
				for i := 0; i < b.N; i++ {
					total += allocatedBy(func() { _, _ = OpenWith(dir, Options{Environ: []string{}}) })
				}
				b.ReportMetric(float64(total)/float64(b.N)/float64(size), "B/inB")
			})
		}
	}
}
