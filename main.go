// Command crewbench is a terminal workbench for people who build CrewAI crews.
//
// main.go is the composition root: the cobra command tree, flags and wiring.
// Each subcommand lives in its own cmd_<name>.go file and registers itself
// with addCommand, so commands can be added without touching this file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// it comes from the module build info.
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// commandFactories are registered by the cmd_*.go files' init functions.
var commandFactories []func() *cobra.Command

// addCommand registers a subcommand factory. A factory builds a fresh
// command each time, so tests can run the tree many times in one process.
func addCommand(f func() *cobra.Command) { commandFactories = append(commandFactories, f) }

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

// rootRun is what bare `crewbench` does; the TUI replaces it when it exists.
var rootRun func(cmd *cobra.Command, args []string) error

// rootFlags lets cmd_*.go files add flags to the root command (the
// workbench's --theme), since bare `crewbench` runs the workbench.
var rootFlags []func(root *cobra.Command)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "crewbench",
		Short: "A terminal workbench for CrewAI crews and their MCP tools",
		Long: `crewbench shows every MCP tool a CrewAI crew uses under its original name and
the exact name the LLM sees, lets you try tool filters live, calls tools the way
CrewAI 1.15 does (timeouts, retries, fresh sessions), and runs crews with live
traces you can step through.`,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rootRun != nil {
				return rootRun(cmd, args)
			}
			return cmd.Help()
		},
	}
	root.SetVersionTemplate("crewbench {{.Version}}\n")
	for _, f := range rootFlags {
		f(root)
	}
	for _, f := range commandFactories {
		root.AddCommand(f())
	}
	return root
}

// execute runs the command tree with the given arguments and streams and
// returns the process exit code. Errors are printed as one line on stderr.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var silent silentExit
	if errors.As(err, &silent) {
		return silent.code
	}
	fmt.Fprintf(stderr, "crewbench: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
