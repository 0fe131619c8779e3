package ui

import (
	"os"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"crewbench/fixtures/fixturetest"
)

func TestMain(m *testing.M) {
	// The demo starts `crewbench fixture NAME`; with SelfCommand set to this
	// test binary that arrives here as "fixture NAME".
	if len(os.Args) > 1 && os.Args[1] == "fixture" {
		os.Args[1] = fixturetest.Arg0
	}
	fixturetest.RunIfFixture()
	lipgloss.SetColorProfile(termenv.Ascii) // no colour escapes in goldens
	lipgloss.SetHasDarkBackground(true)     // no terminal query
	// A watched run keeps the bridge's files in the user's cache: the
	// tests' go in one of their own.
	cache, err := os.MkdirTemp("", "crewbench-ui-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}
