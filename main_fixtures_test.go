package main

import (
	"os"
	"testing"

	"crewbench/fixtures/fixturetest"
)

// fixtureDispatch is set by TestMain; fixtureCommandLine refuses to
// re-execute the test binary without it (it would run the tests again and
// spawn itself recursively).
var fixtureDispatch bool

// TestMain lets this test binary re-execute itself as a fixture MCP server,
// so the MCP commands (tools, call, smoke) are tested against real stdio
// processes without building the crewbench binary.
func TestMain(m *testing.M) {
	fixturetest.RunIfFixture()
	fixtureDispatch = true
	// `crewbench run` records every session by default: keep the tests'
	// recordings out of the developer's real state directory.
	state, err := os.MkdirTemp("", "crewbench-test-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
