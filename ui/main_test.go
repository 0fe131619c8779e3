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
	os.Exit(m.Run())
}
