package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"crewbench/crew"
	"crewbench/crew/bridge"
	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// Exit codes of `crewbench watch`.
const (
	watchExitFailed      = 1   // the command failed, the bridge never connected, or the run was aborted
	watchExitUsage       = 2   // bad flags
	watchExitInterrupted = 130 // Ctrl+C
)

type watchOpts struct {
	json           bool
	breaks         []string
	dir            string
	connectTimeout time.Duration
	color          string
	verbose        bool
	noTUI          bool
	theme          string
	session        sessionFlags
}

func newWatchCmd() *cobra.Command {
	o := &watchOpts{session: sessionFlags{recordByDefault: true}}
	cmd := &cobra.Command{
		Use:   "watch [flags] -- COMMAND [ARGS…]",
		Short: "Watch and step a real CrewAI run (crewai run, uv run run_crew, python -m pkg.main)",
		Long: `watch runs your own CrewAI command, unchanged, with a small Python bridge
injected (a sitecustomize.py on PYTHONPATH that loads the bridge when crewai
is imported), and shows the real run's events live, the way crewbench run
shows an engine run: crew, tasks, agents, LLM calls, tool calls, MCP calls.

In a terminal (and without --json or --no-tui) it opens the workbench on
the live run: 6 Trace shows the tree and the command's output, the --break
breakpoints pause there (c continue, n step, e edit the arguments or the
messages, s skip a tool with a result, a abort), and 5 Kickoff watches the
command again (w). Otherwise it prints the trace and reads decisions from
stdin, as below.

--break pauses the real run (repeatable):
  tool=NAME      before a call to this tool (LLM name, display name or the
                 MCP server's own name, case-insensitive)
  server=NAME    before a call to any tool of this MCP server
  llm            before every LLM call
  tool-failure   at the first call after a tool failure
  all            before every LLM and tool call
At a pause, type a decision on stdin (the command gets no stdin then):
  c | continue           run the call
  n | step               run it and pause at the very next call
  e | edit JSON          tool: run it with these arguments instead
  s | skip TEXT          tool: do not run it, the model sees TEXT as its result
  m | messages JSON      LLM: send these messages instead (a JSON array)
  a | abort              end the command's whole process group
An LLM call cannot be skipped or its reply replaced in a real CrewAI run
(CrewAI's hooks can only block a call, which fails the agent's attempt).

The trace goes to stderr and the command's own output passes through;
--json writes every event as a JSON line to stdout instead (the command's
stdout is then only in the events). Every run is recorded like crewbench
run's (--record FILE, --no-record), so replay, diff and export work on it.

Exit codes:
  0    the command finished
  1    the command failed, the bridge never connected, or the run was aborted
  2    bad flags
  130  interrupted (the command's process group is ended)`,
		Example: `  crewbench watch -- crewai run
  crewbench watch --break tool=get_forecast -- uv run run_crew
  crewbench watch --json --record run.jsonl -- python -m my_crew.main`,
		Args: argsWithExitCode(watchExitUsage, cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, o, args)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitCode(watchExitUsage, err) })
	f := cmd.Flags()
	// Flags after COMMAND belong to the command.
	f.SetInterspersed(false)
	f.BoolVar(&o.json, "json", false, "write events as JSON lines to stdout")
	f.StringArrayVar(&o.breaks, "break", nil, "pause at `SPEC`: tool=NAME, server=NAME, llm, tool-failure or all (repeatable)")
	f.StringVarP(&o.dir, "dir", "C", "", "run the command in `DIR` (default: the current directory)")
	f.DurationVar(&o.connectTimeout, "connect-timeout", bridge.DefaultConnectTimeout, "warn when the bridge has not connected after this long")
	f.StringVar(&o.color, "color", "auto", "colour in the trace: auto, always or never")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print every event, with arguments and outputs in full")
	f.BoolVar(&o.noTUI, "no-tui", false, "print the trace and read decisions from stdin even in a terminal")
	f.StringVar(&o.theme, "theme", "", "the workbench's colour theme (see crewbench --help)")
	addSessionFlags(cmd, &o.session)
	return cmd
}

// watchBreakpoints parses --break flags.
func watchBreakpoints(specs []string) (crew.Breakpoints, error) {
	var bp crew.Breakpoints
	for _, s := range specs {
		k, v, _ := strings.Cut(s, "=")
		switch strings.TrimSpace(k) {
		case "tool":
			bp.Tools = append(bp.Tools, strings.TrimSpace(v))
		case "server":
			bp.Servers = append(bp.Servers, strings.TrimSpace(v))
		case "llm":
			bp.LLMCalls = true
		case "tool-failure":
			bp.OnFailure = true
		case "all":
			bp.Every = true
		default:
			return bp, fmt.Errorf("--break %q: want tool=NAME, server=NAME, llm, tool-failure or all", s)
		}
		if (k == "tool" || k == "server") && strings.TrimSpace(v) == "" {
			return bp, fmt.Errorf("--break %q: the name is missing", s)
		}
	}
	return bp, nil
}

func runWatch(cmd *cobra.Command, o *watchOpts, args []string) error {
	bp, err := watchBreakpoints(o.breaks)
	if err != nil {
		return exitCode(watchExitUsage, err)
	}
	if !o.json && !o.noTUI && watchInTerminal(cmd) {
		return openWatchWorkbench(cmd, o, bp, args, o.dir)
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	color, err := sessionUseColor(o.color, stderr)
	if err != nil {
		return exitCode(watchExitUsage, err)
	}
	dir := o.dir
	if dir == "" {
		dir = "."
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return exitCode(watchExitFailed, fmt.Errorf("--dir: %w", err))
	}
	red := session.DefaultRedactor
	o.session.redactor = red
	printer := session.NewPrinter(stderr, session.PrinterOptions{Color: color, Verbose: o.verbose, Redactor: red})
	sinks := session.Fanout{printer}
	var jsonSink *eventJSONLines
	if o.json {
		jsonSink = &eventJSONLines{w: stdout, red: red}
		sinks = append(sinks, jsonSink)
	}
	runID := session.NewID()
	extra, closeSinks, err := openSessionSinks(&o.session, session.Header{
		Version: buildVersion(), Project: absDir, RunID: runID, Command: "watch",
		Meta: map[string]any{"real_crewai": true, "argv": args, "breakpoints": o.breaks},
	})
	if err != nil {
		return exitCode(watchExitFailed, err)
	}
	if extra != nil {
		sinks = append(sinks, extra)
	}

	opts := bridge.Options{
		Command: args, Dir: absDir, Sink: sinks, RunID: runID, Breakpoints: bp,
		ConnectTimeout: o.connectTimeout, Stderr: stderr,
	}
	if !o.json {
		opts.Stdout = stdout
	}
	hasBreaks := len(o.breaks) > 0
	if hasBreaks {
		// stdin carries the decisions; the command gets none.
		opts.Stepper = newStdinStepper(cmd.Context(), cmd.InOrStdin(), stderr, bp)
	} else if f, ok := cmd.InOrStdin().(*os.File); ok && !sessionIsTerminal(f) {
		// The crew may read input (human_input). Not a terminal: the
		// command runs in its own process group, where reading the
		// terminal would stop it (SIGTTIN).
		opts.Stdin = f
	}
	res, runErr := bridge.Watch(cmd.Context(), opts)
	_ = printer.Close()
	if res != nil && o.verbose {
		for _, b := range res.Bridges {
			fmt.Fprintf(stderr, "bridge: pid %d, %s (Python %s), crewai %s\n", b.PID, b.Executable, b.Python, b.CrewAIVersion)
		}
	}
	finishEventSinks(stderr, closeSinks, jsonSink)
	if runErr != nil {
		if cmd.Context().Err() != nil {
			fmt.Fprintln(stderr, "Run cancelled: the command's process group was ended.")
			return silentExit{code: watchExitInterrupted}
		}
		return exitCode(watchExitFailed, runErr)
	}
	return nil
}

// stdinStepper reads breakpoint decisions from a reader, one line each.
type stdinStepper struct {
	bp    crew.Breakpoints
	out   io.Writer
	lines <-chan string
	// echo repeats each decision after the prompt: read from a pipe or a
	// file, it is not echoed, and the next trace line would follow the
	// prompt on the same line.
	echo bool
	mu   sync.Mutex
	eof  bool
}

func newStdinStepper(ctx context.Context, in io.Reader, out io.Writer, bp crew.Breakpoints) *stdinStepper {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	f, isFile := in.(*os.File)
	return &stdinStepper{bp: bp, out: out, lines: lines, echo: !isFile || !sessionIsTerminal(f)}
}

// Breakpoints tells the bridge where to ask.
func (s *stdinStepper) Breakpoints() crew.Breakpoints { return s.bp }

// Before implements crew.Stepper: one pause at a time.
func (s *stdinStepper) Before(ctx context.Context, p *crew.Pause) (crew.Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Kind == crew.PauseLLMCall {
		fmt.Fprintf(s.out, "⏸ paused before an LLM call (%s, %d messages, agent %s)\n", p.Model, len(p.Messages), p.AgentRole)
	} else {
		fmt.Fprintf(s.out, "⏸ paused before %s, arguments %s\n", session.ToolLabel(p.ToolName, p.OriginalName, p.Server), pyjson.Dumps(p.Args))
	}
	for {
		if s.eof {
			return crew.Decision{Action: crew.Continue}, nil
		}
		if p.Kind == crew.PauseLLMCall {
			fmt.Fprint(s.out, "decision: c(ontinue) | n (step) | m(essages) JSON | a(bort) > ")
		} else {
			fmt.Fprint(s.out, "decision: c(ontinue) | n (step) | e(dit) JSON | s(kip) TEXT | a(bort) > ")
		}
		var line string
		select {
		case l, ok := <-s.lines:
			if !ok {
				fmt.Fprintln(s.out, "\nstdin closed: continuing at every breakpoint")
				s.eof = true
				continue
			}
			line = l
			if s.echo {
				fmt.Fprintln(s.out, line)
			}
		case <-ctx.Done():
			return crew.Decision{}, ctx.Err()
		}
		d, err := watchDecision(line, p)
		if err != nil {
			fmt.Fprintf(s.out, "%v\n", err)
			continue
		}
		return d, nil
	}
}

// watchDecision parses one decision line for pause p.
func watchDecision(line string, p *crew.Pause) (crew.Decision, error) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	rest = strings.TrimSpace(rest)
	tool := p.Kind == crew.PauseToolCall
	switch verb {
	case "", "c", "continue":
		return crew.Decision{Action: crew.Continue}, nil
	case "n", "step":
		return crew.Decision{Action: crew.Step}, nil
	case "a", "abort":
		return crew.Decision{Action: crew.Abort}, nil
	case "e", "edit":
		if !tool {
			return crew.Decision{}, errors.New("edit changes tool arguments; at an LLM call use m JSON")
		}
		args, err := pyjson.LoadsObject(rest)
		if err != nil {
			return crew.Decision{}, fmt.Errorf("edit: the arguments must be a JSON object: %w", err)
		}
		return crew.Decision{Action: crew.EditArgs, Args: args}, nil
	case "s", "skip":
		if !tool {
			return crew.Decision{}, errors.New("a real CrewAI run cannot skip an LLM call: CrewAI's hooks can only block it, which fails the attempt")
		}
		return crew.Decision{Action: crew.Skip, Result: rest}, nil
	case "m", "messages":
		if tool {
			return crew.Decision{}, errors.New("messages edits an LLM call; at a tool call use e JSON")
		}
		var msgs []llm.Message
		if err := json.Unmarshal([]byte(rest), &msgs); err != nil {
			return crew.Decision{}, fmt.Errorf("messages: want a JSON array of {role, content}: %w", err)
		}
		p.Messages = msgs
		return crew.Decision{Action: bridge.EditMessages}, nil
	}
	return crew.Decision{}, fmt.Errorf("unknown decision %q", verb)
}
