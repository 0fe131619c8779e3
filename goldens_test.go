package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"crewbench/session"
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
	checkGoldenEvents(t, filepath.Join("testdata", "goldens", "golden"), filepath.Join(dir, "work", "compare_out"))
}

// checkGoldenEvents compares, for every golden crew, the CrewAI event types
// crewbench emitted (its --json stdout, saved by compare.py, without the
// crewbench_* kinds) with the types real CrewAI emitted (events.json).
func checkGoldenEvents(t *testing.T, goldens, outDir string) {
	t.Helper()
	dirs, err := os.ReadDir(goldens)
	if err != nil {
		t.Fatalf("read goldens: %v", err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		name := d.Name()
		raw, err := os.ReadFile(filepath.Join(goldens, name, "events.json"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var classes []string
		if err := json.Unmarshal(raw, &classes); err != nil {
			t.Fatalf("%s: events.json: %v", name, err)
		}
		want := make([]string, len(classes))
		for i, c := range classes {
			want[i] = eventClassType(c)
		}
		got, err := crewAIKinds(filepath.Join(outDir, name, "stdout.jsonl"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if msg := compareEventOrder(want, got); msg != "" {
			t.Errorf("%s: CrewAI event types differ from the golden: %s\n golden:    %v\n crewbench: %v", name, msg, want, got)
		}
	}
}

// crewAIKinds reads a --json event stream and returns the CrewAI-typed kinds
// in order (crewbench's own kinds may be interleaved anywhere).
func crewAIKinds(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read crewbench events: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		var ev struct {
			Type session.Kind `json:"type"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || !ev.Type.IsCrewAI() {
			continue
		}
		out = append(out, string(ev.Type))
	}
	return out, nil
}

// eventClassType turns a CrewAI event class name into its type string:
// "MCPToolExecutionStartedEvent" → "mcp_tool_execution_started".
func eventClassType(class string) string {
	r := []rune(strings.TrimSuffix(class, "Event"))
	var b strings.Builder
	for i, c := range r {
		upper := unicode.IsUpper(c)
		if upper && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// compareEventOrder says how two CrewAI event type sequences differ ("" if
// they agree) after two normalisations that account for how CrewAI
// delivers events, not for what it emits:
//
//   - CrewAI runs handlers on a thread pool with no ordering across events
//     (crewai-events-and-hooks.md §1.4.6), so a recording can receive a
//     slow handler's events after crew_kickoff_completed, which is emitted
//     last. Those late events must be present in crewbench's sequence (a
//     late start is matched with the first one of its type, a late end with
//     the last) and are then compared by presence, not position.
//   - Parallel tool calls (a batch where two tool_usage scopes overlap)
//     interleave in any order in both programs: such a batch is compared as
//     a multiset.
func compareEventOrder(want, got []string) string {
	want, late := splitLate(want)
	got = append([]string(nil), got...)
	for _, k := range late {
		i := slices.Index(got, k)
		if strings.HasSuffix(k, "_completed") || strings.HasSuffix(k, "_failed") || strings.HasSuffix(k, "_error") || strings.HasSuffix(k, "_finished") {
			i = lastIndex(got, k)
		}
		if i < 0 {
			return fmt.Sprintf("no %s for the golden's late-delivered one", k)
		}
		got = slices.Delete(got, i, i+1)
	}
	w, g := foldParallelBatches(want), foldParallelBatches(got)
	for i := range max(len(w), len(g)) {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			at := func(s []string) string {
				if i < len(s) {
					return s[i]
				}
				return "(end)"
			}
			return fmt.Sprintf("at %d (after folding parallel batches): golden %s, crewbench %s", i, at(w), at(g))
		}
	}
	return ""
}

// splitLate cuts a golden sequence after its crew_kickoff_completed or
// crew_kickoff_failed: what follows was delivered late.
func splitLate(seq []string) (ordered, late []string) {
	for i, k := range seq {
		if k == "crew_kickoff_completed" || k == "crew_kickoff_failed" {
			return seq[:i+1], seq[i+1:]
		}
	}
	return seq, nil
}

func lastIndex(s []string, v string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == v {
			return i
		}
	}
	return -1
}

// foldParallelBatches replaces each tool batch in which two tool_usage
// scopes overlap by one token listing its events sorted.
func foldParallelBatches(seq []string) []string {
	var out, batch []string
	depth, most := 0, 0
	for _, k := range seq {
		switch k {
		case "tool_usage_started":
			depth++
			most = max(most, depth)
		case "tool_usage_finished", "tool_usage_error":
			depth--
		}
		if depth == 0 && len(batch) == 0 && k != "tool_usage_finished" && k != "tool_usage_error" {
			out = append(out, k)
			continue
		}
		batch = append(batch, k)
		if depth > 0 {
			continue
		}
		if most > 1 {
			sorted := slices.Sorted(slices.Values(batch))
			out = append(out, "parallel{"+strings.Join(sorted, ",")+"}")
		} else {
			out = append(out, batch...)
		}
		batch, most = nil, 0
	}
	return append(out, batch...)
}

func TestEventClassType(t *testing.T) {
	for class, want := range map[string]string{
		"MCPToolExecutionStartedEvent": "mcp_tool_execution_started",
		"LLMCallFailedEvent":           "llm_call_failed",
		"DefaultEnvEvent":              "default_env",
		"CrewKickoffCompletedEvent":    "crew_kickoff_completed",
		"AgentLogsExecutionEvent":      "agent_logs_execution",
	} {
		if got := eventClassType(class); got != want {
			t.Errorf("eventClassType(%q) = %q, want %q", class, got, want)
		}
	}
}

func TestCompareEventOrder(t *testing.T) {
	par := func(first, second string) []string {
		return []string{"llm_call_completed", "tool_usage_started", first, "tool_usage_started", second,
			"mcp_tool_execution_completed", "tool_usage_finished", "tool_usage_finished", "llm_call_started"}
	}
	if msg := compareEventOrder(par("mcp_connection_started", "mcp_tool_execution_started"), par("mcp_tool_execution_started", "mcp_connection_started")); msg != "" {
		t.Errorf("parallel batches in another interleaving: %s", msg)
	}
	if msg := compareEventOrder(par("mcp_connection_started", "mcp_tool_execution_started"), par("mcp_connection_started", "mcp_connection_started")); msg == "" {
		t.Error("parallel batches with other events compared equal")
	}
	seq := []string{"tool_usage_started", "mcp_connection_started", "mcp_tool_execution_started", "tool_usage_finished"}
	swapped := []string{"tool_usage_started", "mcp_tool_execution_started", "mcp_connection_started", "tool_usage_finished"}
	if msg := compareEventOrder(seq, swapped); msg == "" {
		t.Error("a sequential tool call in another order compared equal")
	}
	late := []string{"crew_kickoff_started", "agent_logs_started", "crew_kickoff_completed", "task_started", "task_completed"}
	emitted := []string{"crew_kickoff_started", "task_started", "agent_logs_started", "task_completed", "crew_kickoff_completed"}
	if msg := compareEventOrder(late, emitted); msg != "" {
		t.Errorf("late-delivered golden events: %s", msg)
	}
	if msg := compareEventOrder(late, []string{"crew_kickoff_started", "agent_logs_started", "crew_kickoff_completed"}); msg == "" {
		t.Error("missing late-delivered events compared equal")
	}
}
