package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"crewbench/mcpconn"
	"crewbench/mcpconn/argsgen"
	"crewbench/session"
)

type smokeOpts struct {
	sse      bool
	headers  []string
	env      []string
	timeout  time.Duration
	protocol string
	skip     []string
	// includeDestructive calls the tools whose annotations say they may
	// modify something (skipped by default).
	includeDestructive bool
	json               bool
	project            projectFlags
	session            sessionFlags
	oauth              oauthUseFlag
	features           clientFeatureFlags
}

func newSmokeCmd() *cobra.Command {
	o := &smokeOpts{session: sessionFlags{recordByDefault: true}}
	cmd := &cobra.Command{
		Use:   "smoke TARGET | smoke [flags] URL | smoke [flags] -- COMMAND [ARGS…]",
		Short: "Call every tool of a server once with arguments built from its input schema",
		Long: `smoke connects to a server, lists its tools and calls each one once, with
arguments built from its input schema (required fields, types, enums,
defaults, examples), on one kept session (crewbench's session policy), and
reports each call.

TARGET is a configured server name, an http(s) URL given as the last
argument (so a harness can append a server URL), or "-- command args" for a
stdio server:

  crewbench smoke -- npx -y @modelcontextprotocol/server-everything
  crewbench smoke --timeout 5s http://127.0.0.1:3001/mcp

A tool passes when it answers: a result, or an isError result (the server
handled the call). It fails on timeouts, protocol errors, JSON-RPC errors
and dropped connections, and when the server refuses the arguments built
from its own schema (JSON-RPC -32602, or an isError saying input validation
failed: class invalid_arguments).
Tools whose annotations say they may modify something (destructiveHint
true, or annotated without readOnlyHint true) are not called: they are
listed as skipped with the reason; --include-destructive calls them too.
Tools that run only as MCP tasks (execution.taskSupport "required") are
skipped as well: CrewAI cannot call them. --skip names more tools not to
call. --env K=V adds to a -- COMMAND server's environment.
The whole smoke run (connect, discovery, every call with its attempts,
frames and stderr) is recorded to one session file in
$XDG_STATE_HOME/crewbench/sessions, or to --record FILE; --no-record skips
it.

Exit status: 0 all passed, 2 connection failure, 3 some tool failed,
1 usage errors.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runSmoke(cmd, o, args) },
	}
	fs := cmd.Flags()
	o.project.register(fs)
	fs.BoolVar(&o.sse, "sse", false, "the URL is a legacy HTTP+SSE endpoint")
	fs.StringArrayVar(&o.headers, "header", nil, "HTTP header `K=V` (repeatable)")
	fs.StringArrayVar(&o.env, "env", nil, "environment variable `K=V` for the -- COMMAND server, on top of CrewAI's six (repeatable)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "per-call timeout")
	fs.StringVar(&o.protocol, "protocol", "", `MCP protocol version (default `+mcpconn.DefaultProtocolVersion+`; "auto" probes)`)
	fs.StringSliceVar(&o.skip, "skip", nil, "tools not to call (comma-separated, repeatable), e.g. ones that reach the internet")
	fs.BoolVar(&o.includeDestructive, "include-destructive", false,
		"also call the tools whose annotations say they may modify something (destructive, or not read-only)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	o.oauth.register(fs)
	o.features.register(fs)
	addSessionFlags(cmd, &o.session)
	return cmd
}

// smokeTool is one tool's report.
type smokeTool struct {
	Tool      string          `json:"tool"`
	LLMName   string          `json:"llm_name"`
	Arguments json.RawMessage `json:"arguments"`
	Notes     []string        `json:"notes,omitempty"`
	Outcome   string          `json:"outcome"`
	// Class says why a call that answered still fails (invalid_arguments).
	Class    string        `json:"class,omitempty"`
	Passed   bool          `json:"passed"`
	Duration time.Duration `json:"duration_ns"`
	Text     string        `json:"text"`
	Error    string        `json:"error,omitempty"`
}

// smokeSkip is a tool smoke did not call, and why.
type smokeSkip struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

// smokeReport is the whole run.
type smokeReport struct {
	Server string             `json:"server"`
	Info   mcpconn.ServerInfo `json:"info"`
	State  string             `json:"state"`
	Error  string             `json:"error,omitempty"`
	// Listed is how many tools the server listed (called and skipped).
	Listed   int           `json:"listed"`
	Tools    []smokeTool   `json:"tools"`
	Skipped  []smokeSkip   `json:"skipped,omitempty"`
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Duration time.Duration `json:"duration_ns"`
}

// smokeTarget turns the positional arguments into a server spec.
func smokeTarget(cmd *cobra.Command, o *smokeOpts, args []string) (mcpconn.ServerSpec, error) {
	var s mcpconn.ServerSpec
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		if dash != 0 {
			return s, errors.New("give nothing before -- COMMAND ARGS")
		}
		if len(args) == 0 {
			return s, errors.New("-- needs a command")
		}
		s = mcpconn.ServerSpec{Transport: mcpconn.TransportStdio, Command: args[0], Args: args[1:]}
		env, err := keyValues("--env", o.env)
		if err != nil {
			return s, err
		}
		s.Env = env
	} else {
		if len(o.env) > 0 {
			return s, errors.New("--env applies to a stdio server: smoke [flags] -- COMMAND ARGS")
		}
		if len(args) == 0 {
			return s, errors.New("no target: give a server name, a URL, or -- COMMAND ARGS")
		}
		last := args[len(args)-1]
		switch {
		case strings.HasPrefix(last, "http://") || strings.HasPrefix(last, "https://"):
			// The URL is the last argument, so a harness can append it.
			s = mcpconn.ServerSpec{Transport: mcpconn.TransportHTTP, URL: last}
			if o.sse {
				s.Transport = mcpconn.TransportSSE
			}
			h, err := keyValues("--header", o.headers)
			if err != nil {
				return s, err
			}
			s.Headers = h
		case len(args) == 1:
			specs, err := resolveNamed(cmd.Context(), &o.project, args, cmd.ErrOrStderr())
			if err != nil {
				return s, err
			}
			s = specs[0]
		default:
			return s, fmt.Errorf("unexpected arguments %q: give one server name, a URL last, or -- COMMAND ARGS", args)
		}
	}
	s.ProtocolVersion = o.protocol
	if s.Name == "" {
		s.Name = mcpconn.Handle(s)
	}
	return s, nil
}

func runSmoke(cmd *cobra.Command, o *smokeOpts, args []string) error {
	ctx := cmd.Context()
	spec, err := smokeTarget(cmd, o, args)
	if err != nil {
		return exitCode(exitUsage, err)
	}
	if o.timeout <= 0 {
		return exitCode(exitUsage, errors.New("--timeout must be positive"))
	}
	spec.Policy = mcpconn.PolicySession
	spec.Timeouts.Call = o.timeout
	auth, err := o.oauth.authorizer(cmd.ErrOrStderr())
	if err != nil {
		return exitCode(exitUsage, err)
	}
	ctx = withAuthorizer(ctx, auth)
	features, err := o.features.features(&o.project, cmd.ErrOrStderr())
	if err != nil {
		return exitCode(exitUsage, err)
	}

	// One recording for the whole run, hiding the server's credentials.
	o.session.redactor = session.NewRedactor(mcpconn.SecretValues(spec)...)
	record, closeSinks, err := openSessionSinks(&o.session, session.Header{
		RunID: session.NewID(), Command: "smoke",
		Meta: map[string]any{
			"server": session.RedactString(mcpconn.Handle(spec)), "transport": string(spec.Transport),
			"timeout": o.timeout.String(), "skip": o.skip, "include_destructive": o.includeDestructive,
		},
	})
	if err != nil {
		return exitCode(exitUsage, err)
	}
	var em *session.Emitter
	if record != nil {
		em = session.NewEmitter(record)
	}
	rep := smokeAll(ctx, spec, o, features, em)
	writeErr := writeSmoke(cmd.OutOrStdout(), rep, o.json)
	// The pool is closed by now, so its last events (processes exiting)
	// are in the recording.
	stderr := cmd.ErrOrStderr()
	if err := closeSinks(stderr); err != nil {
		fmt.Fprintf(stderr, "crewbench: %v\n", err)
	}
	if writeErr != nil {
		return writeErr
	}
	switch {
	case rep.State != string(mcpconn.StateReady):
		return silentExit{code: exitConnection}
	case rep.Failed > 0:
		return silentExit{code: exitToolError}
	}
	return nil
}

// smokeAll connects, lists the tools and calls each one on one kept
// session (but those o skips), emitting everything through em. The pool is
// closed when it returns.
func smokeAll(ctx context.Context, spec mcpconn.ServerSpec, o *smokeOpts, features *mcpconn.ClientFeatures, em *session.Emitter) smokeReport {
	start := time.Now()
	pool := mcpconn.NewPool(em)
	pool.SetAuthorizer(authorizerFrom(ctx))
	pool.SetClientFeatures(features)
	defer pool.Close()
	_ = pool.Connect(ctx, spec)
	st, _ := pool.ServerStatus(mcpconn.Handle(spec))
	rep := smokeReport{Server: mcpconn.Handle(spec), State: string(st.State)}
	if st.State != mcpconn.StateReady || st.Discovery == nil {
		rep.Error = fmt.Sprintf("%s: %s", st.Class, st.Error)
		rep.Duration = time.Since(start)
		return rep
	}
	rep.Info = st.Discovery.Info
	rep.Listed = len(st.Discovery.Tools)
	for _, t := range st.Discovery.Tools {
		if reason := smokeSkipReason(t, o); reason != "" {
			rep.Skipped = append(rep.Skipped, smokeSkip{Tool: t.Name, Reason: reason})
			continue
		}
		args, notes, err := argsgen.Build(t.InputSchema)
		if err != nil {
			notes = append(notes, "input schema: "+err.Error())
			args = map[string]any{}
		}
		r := mcpconn.Call(ctx, spec, t.Name, args, mcpconn.Options{Pool: pool, Emitter: em})
		st := smokeTool{Tool: t.Name, LLMName: t.LLMName, Arguments: r.Arguments, Notes: notes, Outcome: r.Outcome,
			Duration: r.Duration, Text: r.Text, Error: r.Error}
		st.Passed = r.Outcome == session.OutcomeOK || r.Outcome == session.OutcomeIsError
		if refusedArguments(r) {
			// Arguments built from the tool's own schema must be accepted.
			st.Passed, st.Class = false, classInvalidArguments
		}
		if st.Passed {
			rep.Passed++
		} else {
			rep.Failed++
		}
		rep.Tools = append(rep.Tools, st)
		if ctx.Err() != nil {
			break
		}
	}
	rep.Duration = time.Since(start)
	return rep
}

// smokeSkipReason says why smoke does not call t ("": it does).
func smokeSkipReason(t mcpconn.Tool, o *smokeOpts) string {
	if slices.Contains(o.skip, t.Name) {
		return "--skip"
	}
	if t.TaskSupport() == mcpconn.TaskRequired {
		// A plain call (all CrewAI sends) can only fail.
		return "runs only as an MCP task (execution.taskSupport: required): CrewAI cannot call it"
	}
	if why := t.MayModify(); why != "" && !o.includeDestructive {
		return why + "; --include-destructive calls it"
	}
	return ""
}

// classInvalidArguments is the class of a call the server refused for its
// arguments.
const classInvalidArguments = "invalid_arguments"

// refusedArguments says the server refused the call's arguments: a JSON-RPC
// -32602 (invalid params), or an isError result whose text says input
// validation failed (the TypeScript SDK answers "MCP error -32602: Input
// validation error: …" that way; Python servers say "validation error").
func refusedArguments(r *mcpconn.CallResult) bool {
	if r.Code == jsonrpcInvalidParams {
		return true
	}
	if r.Outcome != session.OutcomeIsError {
		return false
	}
	text := strings.ToLower(r.Text)
	return strings.Contains(text, "-32602") || strings.Contains(text, "input validation error") ||
		strings.Contains(text, "validation error for") || strings.Contains(text, "invalid arguments for tool")
}

// jsonrpcInvalidParams is JSON-RPC's "Invalid params" error code.
const jsonrpcInvalidParams = -32602

func writeSmoke(w io.Writer, rep smokeReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "smoke %s\n", rep.Server)
	if rep.State != string(mcpconn.StateReady) {
		fmt.Fprintf(w, "  connect failed: %s\n", rep.Error)
		return nil
	}
	counts := countNoun(rep.Listed, "tool", "tools")
	if len(rep.Skipped) > 0 {
		counts += fmt.Sprintf(" (%d called, %d skipped)", len(rep.Tools), len(rep.Skipped))
	}
	fmt.Fprintf(w, "  server %s %s, protocol %s, %s\n", rep.Info.Name, rep.Info.Version, rep.Info.ProtocolVersion, counts)
	if len(rep.Info.Declared) > 0 {
		fmt.Fprintf(w, "  client capabilities declared (not CrewAI's, which declares none): %s\n", strings.Join(rep.Info.Declared, ", "))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  TOOL\tRESULT\tOUTCOME\tTIME\tARGUMENTS\tANSWER")
	for _, t := range rep.Tools {
		verdict := "pass"
		if !t.Passed {
			verdict = "FAIL"
		}
		a := t.Arguments
		answer := t.Text
		if !t.Passed && t.Error != "" {
			answer = t.Error
		}
		outcome := t.Outcome
		if t.Class != "" {
			outcome += " " + t.Class
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", t.Tool, verdict, outcome, t.Duration.Round(time.Millisecond),
			oneLine(string(a), 40), oneLine(answer, 60))
	}
	_ = tw.Flush()
	for _, t := range rep.Tools {
		for _, n := range t.Notes {
			fmt.Fprintf(w, "  note %s: %s\n", t.Tool, n)
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Tool, s.Reason)
	}
	fmt.Fprintf(w, "\n%d passed, %d failed in %s\n", rep.Passed, rep.Failed, rep.Duration.Round(time.Millisecond))
	return nil
}
