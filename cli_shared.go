package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// What several commands share: exit codes and the errors that carry them,
// and small output helpers.

// Exit codes shared by the MCP commands (crewbench call documents them).
const (
	exitOK         = 0
	exitUsage      = 1
	exitConnection = 2
	exitToolError  = 3
	exitTimeout    = 4
)

// exitError carries a process exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCode wraps err so main exits with code. A nil err stays nil.
func exitCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// silentExit ends the process with code without printing anything more
// (the command already reported what happened).
type silentExit struct{ code int }

func (e silentExit) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// argsWithExitCode makes cobra's argument checks exit with code, so a
// usage mistake is "error" (2), not "different" (1).
func argsWithExitCode(code int, check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		return exitCode(code, check(cmd, args))
	}
}

// oneLine folds whitespace (newlines included) to single spaces and cuts
// the text to max runes, marking the cut with "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

// countNoun is "1 one" or "N many" (as session and rerun word it).
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// firstLineMarked is the first line of s, with " …" when more lines follow.
func firstLineMarked(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
