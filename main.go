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
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"crewbench/gcfloor"
	"crewbench/mcpconn"
	"crewbench/session"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// it comes from the module build info.
var version = ""

// buildVersion is crewbench's version as clientInfo, serverInfo, session
// headers and OTLP's service.version carry it.
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi)
}

// versionFrom is the module version (go install …@v1.2.3), else the VCS
// revision the binary was built from (go build in a checkout:
// "dev+1a2b3c4d5e6f", "-dirty" with uncommitted changes), else "dev".
func versionFrom(bi *debug.BuildInfo) string {
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	v := "dev+" + rev[:min(12, len(rev))]
	if dirty {
		v += "-dirty"
	}
	return v
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
		// Bare crewbench takes no arguments: a word is a mistyped command.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		RunE: runWorkbenchRoot,
	}
	root.SetVersionTemplate("crewbench {{.Version}}\n")
	// cobra applies its default distance only to its own messages.
	root.SuggestionsMinimumDistance = 2
	// `crewbench runn --demo`: the flag is unknown only because the command
	// is; say which command.
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if args := cmd.Flags().Args(); cmd == root && len(args) > 0 {
			return unknownCommand(root, args[0])
		}
		if cmd == root && strings.Contains(err.Error(), "'v' in -v") {
			return exitCode(exitUsage, fmt.Errorf("%w: -v is --verbose on run, replay and watch; --version prints the version", err))
		}
		return err
	})
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
	for _, c := range root.Commands() {
		addUsageToArgErrors(c)
	}
	return root
}

// addUsageToArgErrors makes a wrong argument count ("requires at least 1
// arg(s), only received 0") name the command's usage, since cobra says only
// the count and SilenceUsage hides the rest.
func addUsageToArgErrors(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return fmt.Errorf("%w; usage: %s (%s --help explains it)", err, cmd.UseLine(), cmd.CommandPath())
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		addUsageToArgErrors(sub)
	}
}

// unknownCommand says name is no command of root, with the closest ones.
func unknownCommand(root *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if near := root.SuggestionsFor(name); len(near) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, ", "))
	}
	return exitCode(exitUsage, fmt.Errorf("%s; crewbench --help lists the commands", msg))
}

// execute runs crewbench with the given arguments and streams and returns
// the process exit code.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeRoot(ctx, newRootCmd(replayViewer{open: openReplayWorkbench, isTerminal: sessionIsTerminal}),
		args, stdin, stdout, stderr)
}

// executeRoot runs a command tree and returns the process exit code.
// Errors are printed as one line on stderr. Everything printed is
// redacted (cli_redact.go) unless --show-secrets.
func executeRoot(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := newRedactingWriter(stdout, session.DefaultRedactor)
	errw := newRedactingWriter(stderr, session.DefaultRedactor)
	defer func() {
		_ = out.Flush()
		_ = errw.Flush()
	}()
	addShowSecretsFlag(root, out, errw)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(errw)
	selfBefore := mcpconn.SelfUses()
	err := root.ExecuteContext(ctx)
	if mcpconn.SelfUses() > selfBefore {
		errw.WriteOwn(selfNote())
	}
	if err == nil {
		return 0
	}
	var silent silentExit
	if errors.As(err, &silent) {
		return silent.code
	}
	errw.WriteOwn(fmt.Sprintf("crewbench: %v\n", err))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// selfExecutable is the running binary when "crewbench" is not on PATH
// (mcpconn.SelfExecutable): `crewbench …` stdio servers then start it.
func selfExecutable() string {
	if _, err := exec.LookPath(mcpconn.SelfCommand); err == nil {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// selfNote says which crewbench the `crewbench …` servers ran.
func selfNote() string {
	return fmt.Sprintf("crewbench: note: %q is not on PATH, so servers declared as `crewbench …` ran this binary (%s)\n",
		mcpconn.SelfCommand, mcpconn.SelfExecutable)
}

// main owns the process's signals, alone: INT, TERM and HUP (a closed
// terminal) cancel the command's context with the signal as its cause, so
// every command stops its work, reaps its servers and removes its
// temporary files on the way out; the process then exits 128+signal
// (130, 143, 129). Later signals are swallowed while that cleanup runs.
// The workbench leaves signals to main too (ui.Run turns Bubble Tea's
// handler off): two owners deadlocked on shutdown.
func main() {
	gcfloor.Keep(gcfloor.Default) // for the whole process: never stopped
	mcpconn.ClientVersion = buildVersion()
	mcpconn.SelfExecutable = selfExecutable()
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
