package crew

import (
	"os"
	"strings"
	"testing"

	"crewbench/crew/project"
	"crewbench/fixtures/demo"
	"crewbench/session"
)

// The embedded demo runs end to end offline: scripted LLM, four fixture
// servers over stdio, and the trace shows a filtered tool, a hashed name, a
// timeout with retries and a recovered failure.
func TestDemoEndToEnd(t *testing.T) {
	dir, err := demo.Materialize(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatalf("open demo: %v", err)
	}
	c, notes, err := FromProject(p, ProjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) > 0 {
		t.Logf("notes: %v", notes)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := &MCP{SelfCommand: exe, SelfEnv: map[string]string{"TMPDIR": t.TempDir()}}
	r := kickoff(t, c, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.Contains(r.out.Raw, "Lisbon") || len(r.out.TasksOutput) != 2 {
		t.Errorf("output = %q", r.out.Raw)
	}
	var filtered, hashed, timeouts, recovered bool
	attempts := map[string]int{}
	for _, ev := range r.events {
		switch ev.Kind {
		case session.MCPToolsListed:
			if ev.Int("kept") < ev.Int("listed") {
				filtered = true
			}
		case session.ToolUsageFinished:
			if ev.ToolName == "crewbench_fixture_names_list_all_open_purchase_orders_f_c9afc2a6" && ev.Outcome == "ok" {
				hashed = true
			}
			if strings.HasSuffix(ev.ToolName, "flaky_echo") && ev.Outcome == "ok" {
				recovered = true
			}
		case session.MCPAttemptFinished:
			attempts[ev.OriginalToolName]++
			if ev.Outcome == session.OutcomeTimeout {
				timeouts = true
			}
		}
	}
	if !filtered || !hashed || !timeouts || !recovered {
		t.Errorf("filtered %v hashed %v timeout %v recovered %v (attempts %v)", filtered, hashed, timeouts, recovered, attempts)
	}
	fs := r.out.ToolFailures()
	if len(fs) != 1 || fs[0].ToolName != "crewbench_fixture_slow_slow_report" {
		t.Errorf("failures = %+v", fs)
	}
}
