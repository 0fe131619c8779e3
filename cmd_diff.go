package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/spf13/cobra"

	"crewbench/session"
)

// Exit codes of `crewbench diff`, as diff(1) has them.
const (
	diffExitSame      = 0
	diffExitDifferent = 1
	diffExitError     = 2
)

type diffOpts struct {
	json        bool
	color       string
	lenient     bool
	timingMin   time.Duration
	timingRatio float64
}

func newDiffCmd() *cobra.Command {
	o := &diffOpts{}
	cmd := &cobra.Command{
		Use:   "diff A B [--json]",
		Short: "Compare two recorded sessions",
		Long: `diff compares two recorded sessions (crewbench run --record) and says what
changed from A to B:

  tools offered   per agent, by LLM-visible name: added, removed, renamed
                  (renamed: the same MCP tool on the same server, another name)
  tool calls      per task: calls per tool and outcome (ok, cache_hit,
                  timeout, is_error, jsonrpc_error, failed, …), new failures
  failures        crew, task, agent, LLM, tool, MCP attempt and connection
                  failures that appeared, went away or changed in number
  outputs         a unified diff of each task's raw output (and the crew's)
  tokens          total, input and output tokens
  timing          crew, task and per-call tool durations that moved by at
                  least --timing-min and --timing-ratio of A's

Runs are matched by meaning, not by ids: agents by role, tasks by name,
tools by MCP tool and server. Timing is shown but never makes the sessions
different (two runs are never equally fast).

--json prints one JSON object with the same sections (a, b, identical,
agents, tasks, failures, timing, outputs, tokens); lists are always present.

Exit codes (as diff(1)):
  0  no differences (timing aside)
  1  the sessions differ
  2  error (a file could not be read)`,
		Example: `  crewbench diff before.jsonl after.jsonl
  crewbench diff before.jsonl after.jsonl --json | jq '.tasks[].new_failures'`,
		Args: argsWithExitCode(diffExitError, cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd, o, args[0], args[1])
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitCode(diffExitError, err) })
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print the differences as one JSON object")
	f.StringVar(&o.color, "color", "auto", "colour: auto, always or never")
	f.BoolVar(&o.lenient, "lenient", false, "skip corrupt lines in the middle of a file instead of failing")
	f.DurationVar(&o.timingMin, "timing-min", session.DefaultTimingMin, "report a duration only when it moved by at least this much")
	f.Float64Var(&o.timingRatio, "timing-ratio", session.DefaultTimingRatio, "… and by at least this fraction of A's duration")
	return cmd
}

func runDiff(cmd *cobra.Command, o *diffOpts, pathA, pathB string) error {
	if o.timingMin < 0 || o.timingRatio < 0 {
		return exitCode(diffExitError, errors.New("--timing-min and --timing-ratio must not be negative"))
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	color, err := sessionUseColor(o.color, stdout)
	if err != nil {
		return exitCode(diffExitError, err)
	}
	var files [2]*session.File
	for i, p := range []string{pathA, pathB} {
		f, err := session.ReadFile(p, session.ReadOptions{Lenient: o.lenient})
		if err != nil {
			var le *session.LineError
			if errors.As(err, &le) {
				err = fmt.Errorf("%w (--lenient skips corrupt lines)", err)
			}
			return exitCode(diffExitError, err)
		}
		for _, w := range f.Warnings {
			fmt.Fprintf(stderr, "crewbench: warning: %s: %s\n", p, w)
		}
		files[i] = f
	}
	// Zero means "the default" to session.Diff; on the command line it
	// means "no threshold".
	tmin, tratio := o.timingMin, o.timingRatio
	if tmin == 0 {
		tmin = time.Nanosecond
	}
	if tratio == 0 {
		tratio = math.SmallestNonzeroFloat64
	}
	d := session.Diff(files[0].Events, files[1].Events, session.DiffOptions{TimingMin: tmin, TimingRatio: tratio})
	d.A.Label, d.B.Label = pathA, pathB
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return exitCode(diffExitError, fmt.Errorf("writing the diff: %w", err))
		}
	} else if err := d.WriteText(stdout, session.DiffTextOptions{Color: color}); err != nil {
		return exitCode(diffExitError, fmt.Errorf("writing the diff: %w", err))
	}
	if !d.Identical {
		return silentExit{code: diffExitDifferent}
	}
	return nil
}
