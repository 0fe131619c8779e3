package main

import (
	"encoding/json"
	"strings"
	"testing"

	"crewbench/fixtures"
	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/session"
)

// smokeJSON smokes a fixture over stdio with --json --no-record and the
// extra flags, and decodes the report.
func smokeJSON(t *testing.T, fixture string, flags ...string) (int, smokeReport, string) {
	t.Helper()
	cmd, args := fixturetest.Command(fixture)
	argv := append(append([]string{"smoke", "--json", "--no-record"}, flags...), "--", cmd)
	code, out, errs := run(t, append(argv, args...)...)
	var rep smokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d, not a JSON report: %v\n%s\n%s", code, err, out, errs)
	}
	return code, rep, errs
}

func smokedTool(rep smokeReport, name string) *smokeTool {
	for i := range rep.Tools {
		if rep.Tools[i].Tool == name {
			return &rep.Tools[i]
		}
	}
	return nil
}

// A call the server refuses for its arguments is a failure with its class,
// not a pass: the arguments were built from the tool's own schema.
func TestSmoke_RefusedArgumentsFail(t *testing.T) {
	code, rep, errs := smokeJSON(t, "reference")
	if code != exitToolError {
		t.Errorf("exit %d, want %d: %s", code, exitToolError, errs)
	}
	st := smokedTool(rep, "set_level")
	if st == nil || st.Passed || st.Class != classInvalidArguments || st.Outcome != session.OutcomeIsError ||
		!strings.Contains(st.Text, fixtures.ReferenceValidationText) {
		t.Fatalf("set_level = %+v", st)
	}
	if st := smokedTool(rep, "issue_token"); st == nil || !st.Passed || st.Class != "" {
		t.Errorf("an accepted call passes: %+v", st)
	}
	// The errors fixture's isError is the server handling the call: a pass.
	if refusedArguments(&mcpconn.CallResult{Outcome: session.OutcomeIsError, Text: fixtures.ErrorsIsErrorText}) {
		t.Error("an ordinary isError is not refused arguments")
	}
	if !refusedArguments(&mcpconn.CallResult{Outcome: session.OutcomeJSONRPCError, Code: -32602, Text: "Invalid params"}) {
		t.Error("JSON-RPC -32602 is refused arguments")
	}
}

// Tools annotated as modifying something are skipped, with the reason,
// unless --include-destructive.
func TestSmoke_SkipsDestructiveTools(t *testing.T) {
	code, rep, errs := smokeJSON(t, "inventory")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if smokedTool(rep, "write_stock") != nil || len(rep.Tools) != 2 || rep.Passed != 2 {
		t.Errorf("write_stock must not be called: %+v", rep.Tools)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Tool != "write_stock" ||
		!strings.Contains(rep.Skipped[0].Reason, "destructiveHint: true") || !strings.Contains(rep.Skipped[0].Reason, "--include-destructive") {
		t.Errorf("skipped = %+v", rep.Skipped)
	}
	cmd, args := fixturetest.Command("inventory")
	_, out, _ := run(t, append([]string{"smoke", "--no-record", "--skip", "lookup_stock", "--", cmd}, args...)...)
	for _, want := range []string{"skipped write_stock: annotated destructive (destructiveHint: true); --include-destructive calls it",
		"skipped lookup_stock: --skip", "1 passed, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, rep, _ = smokeJSON(t, "inventory", "--include-destructive")
	if st := smokedTool(rep, "write_stock"); st == nil || !st.Passed || len(rep.Skipped) != 0 {
		t.Errorf("--include-destructive calls write_stock: %+v, skipped %+v", st, rep.Skipped)
	}
}

// The header counts the tools the server listed, and those called and
// skipped; one tool is "1 tool". --env reaches a stdio server.
func TestSmoke_HeaderCountsAndEnv(t *testing.T) {
	cmd, args := fixturetest.Command("inventory")
	_, out, errs := run(t, append([]string{"smoke", "--no-record", "--skip", "lookup_stock", "--", cmd}, args...)...)
	if !strings.Contains(out, ", 3 tools (1 called, 2 skipped)\n") {
		t.Errorf("header:\n%s%s", out, errs)
	}
	cmd, args = fixturetest.Command("slow-start")
	_, out, errs = run(t, append([]string{"smoke", "--no-record", "--", cmd}, args...)...)
	if !strings.Contains(out, ", 1 tool\n") {
		t.Errorf("one tool:\n%s%s", out, errs)
	}

	code, rep, errs := smokeJSON(t, "reference", "--env", "CREWBENCH_SMOKE_MARK=smoke-env-visible")
	if st := smokedTool(rep, "get_env"); st == nil || !strings.Contains(st.Text, "smoke-env-visible") || rep.Listed != 5 {
		t.Errorf("exit %d, get_env = %+v, listed %d: %s", code, st, rep.Listed, errs)
	}
	code, _, errs = run(t, "smoke", "--env", "A=b", "http://127.0.0.1:1/mcp")
	if code != exitUsage || !strings.Contains(errs, "--env applies to a stdio server") {
		t.Errorf("--env with a URL: exit %d: %s", code, errs)
	}
}

// A tool that runs only as an MCP task: tools warns that CrewAI cannot
// call it, and smoke skips it with that reason instead of calling it.
func TestTaskRequiredTool_ToolsWarnsSmokeSkips(t *testing.T) {
	server := fixtureCommandLine(t, "reference")
	_, out, errs := run(t, "tools", "--stdio", server)
	if !strings.Contains(out, "! research runs only as an MCP task (execution.taskSupport: required)") {
		t.Errorf("tools:\n%s%s", out, errs)
	}
	_, out, _ = run(t, "tools", "--json", "--stdio", server)
	var reps []toolsReport
	if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) != 1 || len(reps[0].Cautions) != 1 ||
		!strings.Contains(reps[0].Cautions[0], "research") {
		t.Errorf("tools --json cautions (%v):\n%s", err, out)
	}
	_, rep, _ := smokeJSON(t, "reference")
	if smokedTool(rep, "research") != nil {
		t.Error("smoke called the task-only tool")
	}
	found := false
	for _, s := range rep.Skipped {
		found = found || s.Tool == "research" && strings.Contains(s.Reason, "CrewAI cannot call it")
	}
	if !found {
		t.Errorf("skipped = %+v", rep.Skipped)
	}
}
