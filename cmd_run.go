package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"crewbench/crew"
	"crewbench/session"
)

// Exit codes of `crewbench run`.
const (
	runExitOK          = 0
	runExitFailed      = 1   // the run (or its setup) failed
	runExitToolFailure = 3   // the crew finished, but tool calls failed
	runExitInterrupted = 130 // Ctrl+C
)

type runOpts struct {
	demo      bool
	crewName  string
	inputs    []string
	llm       string
	json      bool
	session   sessionFlags
	overlay   string
	color     string
	verbose   bool
	stream    bool
	outputDir string
}

func newRunCmd() *cobra.Command {
	o := &runOpts{}
	cmd := &cobra.Command{
		Use:   "run [PATH | --demo] [--crew NAME] [--input k=v]... [--llm MODEL] [--json] [--record FILE]",
		Short: "Run a crew headless with a live trace",
		Long: `Run a CrewAI crew in crewbench's engine, the way CrewAI 1.15 runs it: the same
prompts, tool pipeline, MCP call policies, retries and failure texts.

PATH is a CrewAI project (a JSON-first crew, a classic project, or a
crewbench.yaml overlay); the default is the current directory. --demo runs the
embedded demo crew offline (scripted LLM, fixture MCP servers).

A live trace of every task, LLM call, tool call and MCP attempt goes to stderr;
the crew's final output goes to stdout. --json writes every event as a JSON
line to stdout instead of the final output. Every run is recorded to a new
session file under $XDG_STATE_HOME/crewbench/sessions (--record FILE picks
the file, --no-record turns it off); --otlp-endpoint sends spans live to an
OpenTelemetry collector.

A task with human_input: true asks for feedback on its final answer: type it
on stdin and press Enter, and the agent runs again with it; an empty line (or
the end of stdin) accepts the answer.

--llm MODEL replaces every agent's LLM (and the manager's): a CrewAI/LiteLLM
model string such as openai/gpt-4o-mini, anthropic/claude-haiku-4-5,
ollama/llama3.1, or scripted:FILE.

Exit codes:
  0    the crew finished and no tool call failed
  1    the run failed (setup error, LLM error, a "raise" tool failure, …)
  3    the crew finished, but tool calls failed (listed at the end)
  130  interrupted (143 on SIGTERM)`,
		Example: `  crewbench run --demo
  crewbench run ./my_crew --input topic=AI --input year=2026
  crewbench run --demo --llm openai/gpt-4o-mini   # with OPENAI_API_KEY / OPENAI_BASE_URL
  crewbench run --json --record run.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd, o, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.demo, "demo", false, "run the embedded demo crew (offline)")
	f.StringVar(&o.crewName, "crew", "", "crew definition to run when PATH holds several (NAME.jsonc, NAME.json or the directory NAME)")
	f.StringArrayVar(&o.inputs, "input", nil, "kickoff input `key=value` (repeatable; values are strings)")
	f.StringVar(&o.llm, "llm", "", "replace every agent's LLM with this `MODEL`")
	f.BoolVar(&o.json, "json", false, "write events as JSON lines to stdout")
	f.StringVarP(&o.overlay, "config", "c", "", "crewbench.yaml overlay `FILE` (default: the one beside the project)")
	f.StringVar(&o.color, "color", "auto", "colour in the trace: auto, always or never")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print every event, with arguments and outputs in full")
	f.BoolVar(&o.stream, "stream", false, "ask the LLM for streamed replies")
	f.StringVar(&o.outputDir, "output-dir", ".", "where tasks' output_file paths are written (CrewAI: the current directory)")
	o.session = sessionFlags{recordByDefault: true}
	addSessionFlags(cmd, &o.session)
	return cmd
}

func runRun(cmd *cobra.Command, o *runOpts, args []string) error {
	inputs, err := runParseInputs(o.inputs)
	if err != nil {
		return exitCode(runExitFailed, err)
	}
	stderr := cmd.ErrOrStderr()
	p, mcp, cleanup, err := openCrewProject(args, o.demo, o.crewName, o.overlay)
	if err != nil {
		return exitCode(runExitFailed, err)
	}
	defer cleanup()
	c, notes, err := crew.FromProject(p, crew.ProjectOptions{LLM: o.llm})
	if err != nil {
		return exitCode(runExitFailed, err)
	}
	color := runUseColor(o.color, stderr)
	for _, n := range notes {
		fmt.Fprintln(stderr, runPaint(color, "\x1b[33m", "note: "+string(n)))
	}

	sinks := session.Fanout{}
	// Everything this run writes (trace, --json, recording, live export)
	// hides the project's own secrets as well as the standard shapes.
	red := session.NewRedactor(p.SecretValues()...)
	o.session.redactor = red
	printer := session.NewPrinter(stderr, session.PrinterOptions{Color: color, Verbose: o.verbose, Redactor: red})
	sinks = append(sinks, printer)
	var jsonSink *eventJSONLines
	if o.json {
		jsonSink = &eventJSONLines{w: cmd.OutOrStdout(), red: red}
		sinks = append(sinks, jsonSink)
	}
	runID := session.NewID()
	extra, closeSinks, err := openSessionSinks(&o.session, session.Header{
		Version: buildVersion(), Project: p.Dir, RunID: runID, Command: "run",
		Meta: map[string]any{"crew": c.Name, "llm": o.llm, "demo": o.demo, "inputs": inputs},
	})
	if err != nil {
		return exitCode(runExitFailed, err)
	}
	if extra != nil {
		sinks = append(sinks, extra)
	}
	em := session.NewEmitter(sinks)
	// A human_input task's feedback is one line of stdin; end of input
	// accepts the answer.
	out, runErr := crew.Kickoff(cmd.Context(), c, inputs, crew.Options{
		Emitter: em, RunID: runID, MCP: mcp, Stream: o.stream, OutputDir: o.outputDir,
		Stepper: crew.NewLineFeedback(cmd.InOrStdin(), stderr),
	})
	_ = printer.Close()
	finishEventSinks(stderr, closeSinks, jsonSink)
	// The printer's summary block already lists tool failures loudly.
	if runErr != nil {
		// Whatever the interrupted step reported (often a tool's transport
		// error), an ended context means the user stopped the run.
		if cmd.Context().Err() != nil {
			fmt.Fprintln(stderr, "Run cancelled.")
			return silentExit{code: interruptedExitCode(cmd.Context())}
		}
		return exitCode(runExitFailed, fmt.Errorf("the crew failed: %w", runErr))
	}
	if !o.json {
		fmt.Fprintln(cmd.OutOrStdout(), out.String())
	}
	if out.HasToolFailures() {
		return silentExit{code: runExitToolFailure}
	}
	return nil
}

// interruptedExitCode is the shell's 128+signal for the signal that ended
// ctx (os/signal's cause names it): 143 for SIGTERM, 129 for SIGHUP, else
// 130, as for Ctrl+C.
func interruptedExitCode(ctx context.Context) int {
	if cause := context.Cause(ctx); cause != nil {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
			if strings.HasPrefix(cause.Error(), sig.String()+" ") {
				return 128 + int(sig)
			}
		}
	}
	return runExitInterrupted
}

// runParseInputs reads --input key=value flags.
func runParseInputs(kvs []string) (map[string]any, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--input %q: want key=value", kv)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

// runUseColor decides colour: "always", "never", or "auto" (a terminal, and
// NO_COLOR unset; the printer also honours NO_COLOR).
func runUseColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func runPaint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + strings.TrimRight(s, "\n") + "\x1b[0m" + strings.Repeat("\n", len(s)-len(strings.TrimRight(s, "\n")))
}
