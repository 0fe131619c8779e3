package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	a := recordSession(t, filepath.Join(dir, "a.jsonl"), sessionSpec{})
	same := recordSession(t, filepath.Join(dir, "same.jsonl"), sessionSpec{})
	// B: a filter hides get_alerts, and slow_report times out.
	b := recordSession(t, filepath.Join(dir, "b.jsonl"), sessionSpec{hideAlerts: true, failReport: true, output: "Lisbon looks sunny.\nCheck the report."})

	code, out, errs := runSessionCLI(t, "diff", a, same, "--color", "never")
	if code != diffExitSame || !strings.Contains(out, "no differences") {
		t.Errorf("same: exit %d\n%s%s", code, out, errs)
	}

	code, out, errs = runSessionCLI(t, "diff", a, b, "--color", "never")
	if code != diffExitDifferent {
		t.Fatalf("different: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		a + " → " + b,
		"tools offered\n  agent Weekend Forecaster\n    - weather_get_alerts ← getAlerts @ weather\n",
		"tool calls\n  task forecast_task\n",
		"    - weather_get_alerts ← getAlerts @ weather ok 1 → 0\n",
		"    + slow_slow_report ← slow_report @ slow timeout 0 → 1 · new failure\n",
		"    - slow_slow_report ← slow_report @ slow ok 1 → 0\n",
		"failures\n",
		"  + tool slow_slow_report ← slow_report @ slow timeout (task forecast_task) ×0 → ×1: Error executing MCP tool slow_report: Operation timed out after 1 seconds\n",
		"  + mcp attempt slow_report @ slow timeout (task forecast_task) ×0 → ×3",
		"outputs\n  task brief_task\n    --- a\n    +++ b\n",
		"    -Lisbon looks sunny this weekend.\n",
		"    +Lisbon looks sunny.\n    +Check the report.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runSessionCLI(t, "diff", a, b, "--json")
	if code != diffExitDifferent {
		t.Fatalf("--json: exit %d", code)
	}
	var d struct {
		Identical bool `json:"identical"`
		Agents    []struct {
			Agent   string `json:"agent"`
			Removed []struct {
				Name     string `json:"llm_name"`
				Original string `json:"original_name"`
				Server   string `json:"server"`
			} `json:"removed"`
			Added   []any `json:"added"`
			Renamed []any `json:"renamed"`
		} `json:"agents"`
		Tasks []struct {
			Task        string `json:"task"`
			NewFailures []struct {
				Name    string `json:"llm_name"`
				Outcome string `json:"outcome"`
				A, B    int
			} `json:"new_failures"`
		} `json:"tasks"`
		Failures []map[string]any `json:"failures"`
		Outputs  []map[string]any `json:"outputs"`
		Tokens   map[string]any   `json:"tokens"`
		Timing   map[string]any   `json:"timing"`
		A, B     map[string]any
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d.Identical || len(d.Agents) != 1 || len(d.Agents[0].Removed) != 1 || d.Agents[0].Removed[0].Original != "getAlerts" ||
		d.Agents[0].Added == nil || d.Agents[0].Renamed == nil {
		t.Errorf("agents: %+v", d.Agents)
	}
	if len(d.Tasks) != 1 || len(d.Tasks[0].NewFailures) != 1 || d.Tasks[0].NewFailures[0].Outcome != "timeout" || d.Tasks[0].NewFailures[0].B != 1 {
		t.Errorf("tasks: %+v", d.Tasks)
	}
	if d.A["label"] != a || d.B["label"] != b || d.Timing["changes"] == nil || len(d.Outputs) != 1 {
		t.Errorf("sides/timing/outputs: %v %v %v %v", d.A, d.B, d.Timing, d.Outputs)
	}

	for _, args := range [][]string{
		{"diff", a, filepath.Join(dir, "missing.jsonl")},
		{"diff", a},
		{"diff", a, b, "--color", "sometimes"},
		{"diff", a, b, "--timing-min", "-1s"},
		{"diff", a, b, "--no-such-flag"},
	} {
		if code, _, errs := runSessionCLI(t, args...); code != diffExitError || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func TestDiffTimingFlags(t *testing.T) {
	dir := t.TempDir()
	a := recordSession(t, filepath.Join(dir, "a.jsonl"), sessionSpec{})
	b := recordSession(t, filepath.Join(dir, "b.jsonl"), sessionSpec{failReport: true})
	// slow_report: 300ms → 900ms per call. Reported by default…
	_, out, _ := runSessionCLI(t, "diff", a, b, "--color", "never")
	if !strings.Contains(out, "tool slow_slow_report ← slow_report @ slow 300ms → 900ms per call (1 → 1 calls)") {
		t.Errorf("default thresholds:\n%s", out)
	}
	// …not with a higher threshold.
	_, out, _ = runSessionCLI(t, "diff", a, b, "--color", "never", "--timing-min", "1s")
	if strings.Contains(out, "timing (") {
		t.Errorf("--timing-min 1s still reports timing:\n%s", out)
	}
}

func TestDiffNeverPrintsSecrets(t *testing.T) {
	dir := t.TempDir()
	a := rawSession(t, filepath.Join(dir, "a.jsonl"), sessionSpec{})
	b := rawSession(t, filepath.Join(dir, "b.jsonl"), sessionSpec{failReport: true, output: "token " + plantedEnv})
	for _, args := range [][]string{{"diff", a, b}, {"diff", a, b, "--json"}} {
		code, out, errs := runSessionCLI(t, args...)
		if code != diffExitDifferent {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		if strings.Contains(out+errs, "PLANTED") {
			t.Errorf("%v printed a planted secret:\n%s", args, out)
		}
	}
}
