package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"crewbench/mcpconn"
	"crewbench/session"
)

// Exit codes of `crewbench replay` (and `crewbench diff`).
const (
	replayExitOK       = 0
	replayExitDiverged = 1 // --rerun: the run left the recording
	replayExitError    = 2 // the session or the project could not be read or run
)

// replayViewer is how `crewbench replay FILE` shows a session on a
// terminal: open opens it in the workbench, when stdout is a terminal
// (isTerminal) and neither --json nor --print is given. A nil open always
// prints.
type replayViewer struct {
	open       func(cmd *cobra.Command, path string) error
	isTerminal func(io.Writer) bool
}

type replayOpts struct {
	json      bool
	verbose   bool
	print     bool
	color     string
	lenient   bool
	rerun     bool
	overlay   string
	allow     []string
	block     []string
	faults    []string
	keepGoing bool
	session   sessionFlags
}

func newReplayCmd(viewer replayViewer) *cobra.Command {
	// A re-run is a run: it is recorded by default like one.
	o := &replayOpts{session: sessionFlags{recordByDefault: true}}
	cmd := &cobra.Command{
		Use:   "replay FILE [--json] | replay FILE --rerun [PATH] [--allow|--block SERVER=a,b] [--fault SERVER=KIND,…]",
		Short: "Show a recorded session, or re-run it offline with the recorded LLM replies",
		Long: `replay shows a recorded session (crewbench run --record FILE) the way
crewbench run showed it live: the trace, the summary and the final output.
--json writes the events as JSON lines instead, for scripts. On a terminal
the workbench opens the session when it is available; --print prints anyway.

--rerun runs the recorded kickoff again through the engine, against the
project as it is now, with every LLM call answered from the recording (the
replay: provider): no API key, no cost. PATH is the project to run; the
default is the project the session recorded (the embedded demo for a demo
session). Change what you want to test with -c OVERLAY, or with:

  --allow SERVER=a,b   keep only these tools of SERVER (allowed_tool_names)
  --block SERVER=a,b   hide these tools of SERVER (blocked_tool_names)
                       (--allow/--block replace the server's tool filter;
                       names are the sanitized, unprefixed tool names)
  --fault SERVER=KIND[,tool=NAME][,times=N][,delay=DUR][,code=N][,message=TEXT]
                       inject a fault: KIND is delay, hang, jsonrpc_error,
                       is_error, drop or garbage; message= takes the rest

The new run's trace goes to stderr. Then the report: where the run first
stopped matching the recording (which LLM call, agent, task and message),
and what changed against the recording (tools, calls, failures, outputs,
tokens; see crewbench diff). By default the run stops at the first
divergence; --keep-going serves the remaining recorded replies anyway and
lists every divergence. Responses are served in recorded order, so a change
that makes the crew call the LLM in another order diverges at once.
The re-run is recorded like any run (a new file in the sessions directory;
--record FILE picks the file, --no-record skips it); --json prints the
report as JSON.

Exit codes:
  0  shown; with --rerun: the run followed the recording to its end
  1  --rerun: the run diverged from the recording
  2  error (unreadable session, project or flags)`,
		Example: `  crewbench replay run.jsonl
  crewbench replay run.jsonl --json | jq -r 'select(.type=="tool_usage_error") | .error'
  crewbench replay run.jsonl --rerun --block weather=get_forecast
  crewbench replay run.jsonl --rerun ./my_crew --fault github=is_error,tool=search_issues,times=1 --record rerun.jsonl`,
		Args: argsWithExitCode(replayExitError, cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, o, viewer, args)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitCode(replayExitError, err) })
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "write events (with --rerun: the report) as JSON to stdout")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print every event, with arguments and outputs in full")
	f.BoolVar(&o.print, "print", false, "print the session even on a terminal (do not open the workbench)")
	f.StringVar(&o.color, "color", "auto", "colour: auto, always or never")
	f.BoolVar(&o.lenient, "lenient", false, "skip corrupt lines in the middle of the file instead of failing")
	f.BoolVar(&o.rerun, "rerun", false, "re-run the recorded kickoff with the recorded LLM replies (PATH: the project)")
	f.StringVarP(&o.overlay, "config", "c", "", "with --rerun: crewbench.yaml overlay `FILE`")
	f.StringArrayVar(&o.allow, "allow", nil, "with --rerun: `SERVER=a,b` keeps only these tools (repeatable)")
	f.StringArrayVar(&o.block, "block", nil, "with --rerun: `SERVER=a,b` hides these tools (repeatable)")
	f.StringArrayVar(&o.faults, "fault", nil, "with --rerun: inject a fault, `SERVER=KIND,...` as above (repeatable)")
	f.BoolVar(&o.keepGoing, "keep-going", false, "with --rerun: serve recorded replies past a divergence and list every one")
	addSessionFlags(cmd, &o.session)
	return cmd
}

func runReplay(cmd *cobra.Command, o *replayOpts, viewer replayViewer, args []string) error {
	path := args[0]
	if len(args) == 2 && !o.rerun {
		return exitCode(replayExitError, fmt.Errorf("unexpected argument %q: a project PATH is only taken with --rerun", args[1]))
	}
	if !o.rerun {
		for flag, set := range map[string]bool{
			"--allow": len(o.allow) > 0, "--block": len(o.block) > 0, "--fault": len(o.faults) > 0,
			"-c": o.overlay != "", "--keep-going": o.keepGoing, "--record": o.session.record != "", "--no-record": o.session.noRecord,
			"--otlp-endpoint": o.session.otlpEndpoint != "",
		} {
			if set {
				return exitCode(replayExitError, fmt.Errorf("%s needs --rerun", flag))
			}
		}
	}
	f, err := session.ReadFile(path, session.ReadOptions{Lenient: o.lenient})
	if err != nil {
		var le *session.LineError
		if errors.As(err, &le) {
			err = fmt.Errorf("%w (--lenient skips corrupt lines)", err)
		}
		return exitCode(replayExitError, err)
	}
	stderr := cmd.ErrOrStderr()
	for _, w := range f.Warnings {
		fmt.Fprintf(stderr, "crewbench: warning: %s: %s\n", path, w)
	}
	if o.rerun {
		project := ""
		if len(args) == 2 {
			project = args[1]
		}
		return runRerun(cmd, o, path, project, f)
	}
	stdout := cmd.OutOrStdout()
	red := session.RedactorFor(f.Events)
	if o.json {
		return exitCode(replayExitError, writeEventLines(stdout, f.Events, red))
	}
	if viewer.open != nil && !o.print && viewer.isTerminal(stdout) {
		return viewer.open(cmd, path)
	}
	color, err := sessionUseColor(o.color, stdout)
	if err != nil {
		return exitCode(replayExitError, err)
	}
	return exitCode(replayExitError, printSession(stdout, path, f, red, color, o.verbose))
}

// writeEventLines writes events as JSON lines (the form `run --json`
// writes), redacted.
func writeEventLines(w io.Writer, events []session.Event, red *session.Redactor) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, ev := range events {
		if err := enc.Encode(red.RedactEvent(ev)); err != nil {
			return fmt.Errorf("writing events: %w", err)
		}
	}
	return nil
}

// printSession prints a header line, the trace and summary through the
// same printer `crewbench run` uses, and the crew's final output.
func printSession(w io.Writer, path string, f *session.File, red *session.Redactor, color, verbose bool) error {
	h := f.Header
	var about []string
	if h.Command != "" {
		about = append(about, "crewbench "+h.Command)
	}
	if h.Version != "" {
		about = append(about, "version "+h.Version)
	}
	if !h.Started.IsZero() {
		about = append(about, h.Started.Local().Format(time.DateTime))
	}
	if h.Project != "" {
		about = append(about, red.RedactString(h.Project))
	}
	head := "session " + path
	if len(about) > 0 {
		head += " · " + strings.Join(about, " · ")
	}
	if color {
		head = "\x1b[2m" + head + "\x1b[0m"
	}
	if _, err := fmt.Fprintln(w, head); err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	p := session.NewPrinter(w, session.PrinterOptions{Color: color, Verbose: verbose, Redactor: red})
	for _, ev := range f.Events {
		p.Emit(ev)
	}
	if err := p.Close(); err != nil {
		return fmt.Errorf("writing the trace: %w", err)
	}
	if out, ok := finalOutput(f.Events); ok {
		rule := "── final output " + strings.Repeat("─", 24)
		if color {
			rule = "\x1b[2m" + rule + "\x1b[0m"
		}
		if _, err := fmt.Fprintf(w, "%s\n%s\n", rule, red.RedactString(out)); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
	}
	return nil
}

// finalOutput is the raw output of the session's last completed crew.
func finalOutput(events []session.Event) (string, bool) {
	out, found := "", false
	for _, ev := range events {
		if ev.Kind != session.CrewKickoffCompleted {
			continue
		}
		switch v := ev.Data[session.KeyOutput].(type) {
		case string:
			out, found = v, true
		case map[string]any:
			if s, ok := v["raw"].(string); ok {
				out, found = s, true
			}
		}
	}
	return out, found
}

// --- rerun ---------------------------------------------------------------------

func runRerun(cmd *cobra.Command, o *replayOpts, path, projectPath string, f *session.File) error {
	allow, err := parseToolListFlags("--allow", o.allow)
	if err != nil {
		return exitCode(replayExitError, err)
	}
	block, err := parseToolListFlags("--block", o.block)
	if err != nil {
		return exitCode(replayExitError, err)
	}
	faults := map[string][]mcpconn.Fault{}
	for _, s := range o.faults {
		server, fault, err := parseFaultFlag(s)
		if err != nil {
			return exitCode(replayExitError, err)
		}
		faults[server] = append(faults[server], fault)
	}
	stderr, stdout := cmd.ErrOrStderr(), cmd.OutOrStdout()
	color, err := sessionUseColor(o.color, stderr)
	if err != nil {
		return exitCode(replayExitError, err)
	}
	runID := session.NewID()
	meta := map[string]any{"rerun_of": path, "recorded_run_id": f.Header.RunID, "demo": f.Header.Meta["demo"]}
	// What the re-run changed, so the recording says what it tested.
	for k, v := range map[string]any{"allow": allow, "block": block, "faults": faults} {
		if m, ok := v.(map[string][]string); ok && len(m) > 0 {
			meta[k] = m
		}
		if m, ok := v.(map[string][]mcpconn.Fault); ok && len(m) > 0 {
			meta[k] = m
		}
	}
	extra, closeSinks, err := openSessionSinks(&o.session, session.Header{
		Project: f.Header.Project, RunID: runID, Command: "replay --rerun", Meta: meta,
	})
	if err != nil {
		return exitCode(replayExitError, err)
	}
	red := session.RedactorFor(f.Events)
	printer := session.NewPrinter(stderr, session.PrinterOptions{Color: color, Verbose: o.verbose, Redactor: red})
	sinks := session.Fanout{printer}
	if extra != nil {
		sinks = append(sinks, extra)
	}
	res, err := rerunSession(cmd.Context(), rerunOptions{
		SessionPath: path, File: f, ProjectPath: projectPath, Overlay: o.overlay,
		Allow: allow, Block: block, Faults: faults, KeepGoing: o.keepGoing, Sink: sinks, RunID: runID,
	})
	_ = printer.Close()
	if cerr := closeSinks(stderr); cerr != nil {
		fmt.Fprintf(stderr, "crewbench: %v\n", cerr)
	}
	if err != nil {
		return exitCode(replayExitError, err)
	}
	if errors.Is(res.RunErr, context.Canceled) && cmd.Context().Err() != nil {
		fmt.Fprintln(stderr, "Run cancelled.")
		return silentExit{code: 130}
	}
	red = session.RedactorFor(f.Events, res.Events)
	d := session.Diff(f.Events, res.Events, session.DiffOptions{Redactor: red})
	d.A.Label, d.B.Label = path, "rerun"
	if o.json {
		if err := writeRerunJSON(stdout, res, d, red); err != nil {
			return exitCode(replayExitError, err)
		}
	} else {
		outColor, _ := sessionUseColor(o.color, stdout)
		if err := writeRerunReport(stdout, res, d, red, outColor, o.keepGoing); err != nil {
			return exitCode(replayExitError, err)
		}
	}
	if res.Diverged() {
		return silentExit{code: replayExitDiverged}
	}
	return nil
}

// rerunReport is the --json form of a re-run's report.
type rerunReport struct {
	Diverged      bool                 `json:"diverged"`
	Divergence    *rerunDivergence     `json:"divergence"`
	Divergences   []rerunDivergence    `json:"divergences"`
	RecordedCalls int                  `json:"recorded_llm_calls"`
	ServedCalls   int                  `json:"served_llm_calls"`
	RunStatus     string               `json:"run_status"`
	RunError      string               `json:"run_error"`
	Notes         []string             `json:"notes"`
	Changes       *session.SessionDiff `json:"changes"`
}

func writeRerunJSON(w io.Writer, res *rerunResult, d *session.SessionDiff, red *session.Redactor) error {
	rep := rerunReport{
		Diverged: res.Diverged(), Divergence: res.First, Divergences: res.All,
		RecordedCalls: res.Recorded, ServedCalls: res.Served, RunStatus: "ok",
		Notes: append([]string{}, res.Notes...), Changes: d,
	}
	if rep.Divergences == nil {
		rep.Divergences = []rerunDivergence{}
	}
	if res.RunErr != nil {
		rep.RunStatus, rep.RunError = "failed", red.RedactString(res.RunErr.Error())
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

func writeRerunReport(w io.Writer, res *rerunResult, d *session.SessionDiff, red *session.Redactor, color, keepGoing bool) error {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + "\x1b[0m"
	}
	var b strings.Builder
	b.WriteString(paint("\x1b[1m", "── rerun "+strings.Repeat("─", 31)) + "\n")
	for _, n := range res.Notes {
		b.WriteString(paint("\x1b[33m", "note: "+n) + "\n")
	}
	switch dv := res.First; {
	case dv == nil:
		b.WriteString(paint("\x1b[32m", fmt.Sprintf("✓ followed the recording: all %d recorded LLM calls were served, no divergence", res.Recorded)) + "\n")
	case dv.Kind == "request":
		b.WriteString(paint("\x1b[1;31m", fmt.Sprintf("✗ diverged at LLM call %d of %d (agent %q, task %q)", dv.LLMCall, dv.Recorded, dv.Agent, dv.Task)) + "\n")
		switch {
		case dv.Field == "agent" || dv.Field == "task":
			fmt.Fprintf(&b, "  the recorded call was made by a different %s\n", dv.Field)
		case dv.Field == "count":
			fmt.Fprintf(&b, "  message %d (%s) is present on one side only\n", dv.Message, dv.Role)
		default:
			fmt.Fprintf(&b, "  message %d (%s) differs in %s\n", dv.Message, dv.Role, dv.Field)
		}
		fmt.Fprintf(&b, "  recorded: %s\n  now:      %s\n", red.RedactString(dv.WasText), red.RedactString(dv.NowText))
		if keepGoing {
			if len(res.All) > 1 {
				fmt.Fprintf(&b, "  %d divergences in all (--keep-going):\n", len(res.All))
				for _, x := range res.All {
					fmt.Fprintf(&b, "    LLM call %d (agent %q, task %q): message %d (%s) %s\n", x.LLMCall, x.Agent, x.Task, x.Message, x.Role, x.Field)
				}
			}
		} else {
			b.WriteString("  the run stopped there (--keep-going serves the remaining recorded replies anyway)\n")
		}
	default:
		b.WriteString(paint("\x1b[1;31m", "✗ "+red.RedactString(dv.Statement)) + "\n")
	}
	fmt.Fprintf(&b, "  %d of %d recorded LLM calls served · the run %s\n", res.Served, res.Recorded, red.RedactString(runVerdict(res)))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if _, err := io.WriteString(w, paint("\x1b[1m", "── changes against the recording "+strings.Repeat("─", 7))+"\n"); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return d.WriteText(w, session.DiffTextOptions{Color: color})
}

func runVerdict(res *rerunResult) string {
	switch {
	case res.RunErr != nil:
		return "failed: " + firstLineMarked(res.RunErr.Error())
	case res.Output != nil && res.Output.HasToolFailures():
		return "finished with tool failures"
	}
	return "finished"
}

// --- flag parsing ----------------------------------------------------------------

// parseToolListFlags reads repeated SERVER=a,b flags; the lists of one
// server accumulate.
func parseToolListFlags(flag string, vals []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, v := range vals {
		server, list, ok := strings.Cut(v, "=")
		server = strings.TrimSpace(server)
		if !ok || server == "" {
			return nil, fmt.Errorf("%s %q: want SERVER=tool1,tool2", flag, v)
		}
		var names []string
		for _, n := range strings.Split(list, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s %s=: give at least one tool name", flag, server)
		}
		out[server] = append(out[server], names...)
	}
	return out, nil
}

// parseFaultFlag reads SERVER=KIND[,tool=NAME][,times=N][,delay=DUR]
// [,code=N][,message=TEXT] (mcpconn.ParseFault after the server).
func parseFaultFlag(s string) (string, mcpconn.Fault, error) {
	server, rest, ok := strings.Cut(s, "=")
	server = strings.TrimSpace(server)
	if !ok || server == "" {
		return "", mcpconn.Fault{}, fmt.Errorf("--fault %q: want SERVER=%s", s, mcpconn.FaultSyntax)
	}
	f, err := mcpconn.ParseFault(rest)
	if err != nil {
		return "", mcpconn.Fault{}, fmt.Errorf("--fault %q: %w", s, err)
	}
	return server, f, nil
}
