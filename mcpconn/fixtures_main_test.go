package mcpconn

import (
	"os"
	"testing"

	"crewbench/fixtures/fixturetest"
)

// fixtureDispatch is set by TestMain. fixtureSpec refuses to spawn the test
// binary as a fixture without it: a binary that cannot dispatch to the
// fixture would run the tests again and spawn itself, recursively.
var fixtureDispatch bool

// TestMain lets the test binary re-execute itself as a fixture MCP server.
func TestMain(m *testing.M) {
	fixturetest.RunIfFixture()
	fixtureDispatch = true
	os.Exit(m.Run())
}
