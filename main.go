// Command crewbench is a terminal workbench for people who build CrewAI crews.
//
// main.go is the composition root: the cobra command tree and its wiring.
// Each subcommand lives in its own cmd_<name>.go file; newRootCmd lists
// them all. What several commands share is in cli_shared.go (exit codes,
// output helpers) and cli_flags.go (the flag groups and what they open).
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

// newRootCmd builds the command tree: bare `crewbench` opens the
// workbench, and every subcommand is listed here. A fresh tree each time
// lets tests run it many times in one process. replay is how `crewbench
// replay FILE` shows a session on a terminal (the workbench).
func newRootCmd(replay replayViewer) *cobra.Command {
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
		RunE:          runWorkbenchRoot,
	}
	root.SetVersionTemplate("crewbench {{.Version}}\n")
	addWorkbenchRootFlags(root)
	root.AddCommand(
		newDemoCmd(),
		newNamesCmd(),
		newToolsCmd(),
		newCallCmd(),
		newSmokeCmd(),
		newLintCmd(),
		newRunCmd(),
		newWatchCmd(),
		newReplayCmd(replay),
		newDiffCmd(),
		newExportCmd(),
		newExportConfigCmd(),
		newServeCmd(),
		newFixtureCmd(),
		newAuthCmd(),
	)
	return root
}

// execute runs crewbench with the given arguments and streams and returns
// the process exit code.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeRoot(ctx, newRootCmd(replayViewer{open: openReplayWorkbench, isTerminal: sessionIsTerminal}),
		args, stdin, stdout, stderr)
}

// executeRoot runs a command tree and returns the process exit code.
// Errors are printed as one line on stderr.
func executeRoot(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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

// main owns the process's signals, alone: INT, TERM and HUP (a closed
// terminal) cancel the command's context with the signal as its cause, so
// every command stops its work, reaps its servers and removes its
// temporary files on the way out; the process then exits 128+signal
// (130, 143, 129). Later signals are swallowed while that cleanup runs.
// The workbench leaves signals to main too (ui.Run turns Bubble Tea's
// handler off): two owners deadlocked on shutdown.
func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		if s, ok := <-sigs; ok {
			cancel(interrupted{s})
		}
	}()
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if sig, ok := context.Cause(ctx).(interrupted); ok {
		code = sig.exitCode()
	}
	os.Exit(code)
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// exitCode is the shell's convention for a process ended by a signal.
func (i interrupted) exitCode() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}
