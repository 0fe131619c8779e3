package main

import (
	"crewbench/fixtures/fixturetest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A value from the project's .env under a secret-looking name must never
// reach anything `crewbench run` writes — the --json events, the trace on
// stderr, the recording — even when it matches no generic secret shape
// (here an LLM echoes it back).
func TestRunHidesProjectSecretsEverywhere(t *testing.T) {
	const secret = "plainvalue9876zz"
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		".env":           "WEATHER_API_KEY=" + secret + "\n",
		"crew.jsonc":     `{"agents": ["a"], "tasks": [{"name": "t", "description": "Say hello", "expected_output": "A greeting", "agent": "a"}]}`,
		"agents/a.jsonc": `{"role": "Greeter", "goal": "Greet", "backstory": "Friendly", "llm": "scripted:script.yaml"}`,
		"script.yaml":    "replies:\n  - \"Final Answer: hello, the key is " + secret + "\"\n",
	})
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, stderr := runCrewCLI(t, "run", dir, "--json", "--record", rec, "--color", "never", "-v")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	recorded, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"--json stdout": stdout, "trace": stderr, "recording": string(recorded)} {
		if strings.Contains(out, secret) {
			t.Errorf("%s contains the .env secret", name)
		}
	}
	if !strings.Contains(stdout, "«redacted»") {
		t.Errorf("--json stdout shows no redaction marker; did the reply reach it?\n%s", stdout)
	}
}
