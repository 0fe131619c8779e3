package main

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
)

// fixtureDispatch is set by TestMain; fixtureCommandLine refuses to
// re-execute the test binary without it (it would run the tests again and
// spawn itself recursively).
var fixtureDispatch bool

// TestMain lets this test binary re-execute itself as a fixture MCP server,
// so the MCP commands (tools, call, smoke) are tested against real stdio
// processes without building the crewbench binary.
func TestMain(m *testing.M) {
	// The demo's servers are `crewbench fixture NAME`; with os.Executable
	// being this test binary, they arrive as "fixture NAME" and must reach
	// the fixture dispatch.
	if len(os.Args) > 1 && os.Args[1] == "fixture" {
		os.Args[1] = fixturetest.Arg0
	}
	fixturetest.RunIfFixture()
	// `<test binary> crewbench-cli ARGS…` runs the CLI as a real process
	// (crewbench serve over stdio).
	if len(os.Args) > 1 && os.Args[1] == cliArg0 {
		if exe, err := os.Executable(); err == nil {
			mcpconn.SelfExecutable = exe
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := execute(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	fixtureDispatch = true
	// Servers declared as `crewbench fixture NAME` run this test binary,
	// whatever crewbench is on PATH (main does so only when none is).
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	mcpconn.SelfExecutable = exe
	// `crewbench run` records every session by default and `watch` keeps
	// its bridge files in the user's cache: keep both out of the
	// developer's real directories.
	state, err := os.MkdirTemp("", "crewbench-test-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", state)
	os.Setenv("XDG_CACHE_HOME", filepath.Join(state, "cache"))
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}

// cliArg0 turns this test binary into the crewbench CLI.
const cliArg0 = "crewbench-cli"
