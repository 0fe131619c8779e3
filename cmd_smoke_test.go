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
