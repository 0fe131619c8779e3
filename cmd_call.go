package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"crewbench/crew/filelimit"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
	"crewbench/mcpconn/cmdline"
	"crewbench/names/suggest"
	"crewbench/session"
)

type callOpts struct {
	target   targetFlags
	args     string
	policy   string
	timeout  time.Duration
	connect  time.Duration
	attempts int
	backoff  time.Duration
	json     bool
	session  sessionFlags
	oauth    oauthUseFlag
	features clientFeatureFlags
}

func newCallCmd() *cobra.Command {
	o := &callOpts{session: sessionFlags{recordByDefault: true}}
	cmd := &cobra.Command{
		Use:   "call [SERVER] TOOL [--stdio \"cmd args\" | --url URL] [--args JSON] [--policy P]",
		Short: "Call one MCP tool exactly as CrewAI would (timeouts, retries, fresh sessions, error texts)",
		Long: `call calls one tool under a call policy and shows the result, every attempt
with its outcome class, and the exact text CrewAI's tool would return.

Policies (default: CrewAI's for the server):
  native        fresh transport+session per call (a stdio server is spawned
                per call), connect 30 s (not retried), 30 s per attempt,
                3 attempts on timeout with 1 s then 2 s backoff
  https-string  https string refs: 60 s × 3 attempts, a fresh session per
                attempt, errors returned as plain strings, isError ignored,
                the tool called by its sanitized name
  adapter       MCPServerAdapter: one session, no call timeout, no retries
  session       crewbench's fast mode (not CrewAI): one kept session,
                --timeout per call

--timeout, --connect-timeout, --attempts and --backoff change CrewAI's
numbers to answer "what if?" questions.

Every call is recorded (connect, spawns, each attempt and retry, frames,
server stderr and the final result) to a new session file in
$XDG_STATE_HOME/crewbench/sessions, or to --record FILE; --no-record skips
it. crewbench replay FILE shows the recording.

  crewbench call --stdio "crewbench fixture slow" slow_report --args '{"seconds":3}' --timeout 1s

Under CrewAI's policies the arguments first go through CrewAI's validation
(the Pydantic model CrewAI builds from the tool's inputSchema, lax mode): the
"valid" line (--json: "validation") shows values coerced, defaults filled and
nulls dropped, and the validated arguments are what is sent. Arguments CrewAI
would refuse are not sent: the line shows the error text the agent would get.
The session policy sends --args as given.

Exit status: 0 ok, 1 usage or config error (also a tool the server does not
list: outcome not_found, with the closest name; and arguments CrewAI would
refuse: outcome invalid_arguments, nothing sent), 2 connection or
authorization failure, 3 the tool returned an error, 4 timeout.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runCall(cmd, o, args) },
	}
	o.target.register(cmd)
	fs := cmd.Flags()
	// The call's flags are the ones the workbench's "copy as command"
	// writes (cmdline.CallLine).
	cf := cmdline.CallFlags
	fs.StringVar(&o.args, cf.Args.Name, "{}", cf.Args.Usage)
	fs.StringVar(&o.policy, cf.Policy.Name, "", cf.Policy.Usage)
	fs.DurationVar(&o.timeout, cf.Timeout.Name, 0, cf.Timeout.Usage)
	fs.DurationVar(&o.connect, cf.Connect.Name, 0, cf.Connect.Usage)
	fs.IntVar(&o.attempts, cf.Attempts.Name, 0, cf.Attempts.Usage)
	fs.DurationVar(&o.backoff, cf.Backoff.Name, 0, cf.Backoff.Usage)
	fs.BoolVar(&o.json, "json", false, "print JSON")
	o.oauth.register(fs)
	o.features.register(fs)
	addSessionFlags(cmd, &o.session)
	return cmd
}

func runCall(cmd *cobra.Command, o *callOpts, args []string) error {
	ctx := cmd.Context()
	var spec mcpconn.ServerSpec
	var tool string
	switch {
	case o.target.adHoc():
		if len(args) != 1 {
			return exitCode(exitUsage, errors.New("with --stdio/--url, give exactly one argument: the tool name"))
		}
		s, err := o.target.spec()
		if err != nil {
			return exitCode(exitUsage, err)
		}
		spec, tool = s, args[0]
	case len(args) == 2:
		specs, err := resolveNamed(ctx, &o.target.project, args[:1], cmd.ErrOrStderr())
		if err != nil {
			return exitCode(exitUsage, err)
		}
		spec, tool = specs[0], args[1]
	default:
		return exitCode(exitUsage, errors.New("usage: crewbench call SERVER TOOL, or crewbench call --stdio \"cmd args\" TOOL"))
	}

	toolArgs, err := parseToolArgs(o.args)
	if err != nil {
		return exitCode(exitUsage, err)
	}
	switch mcpconn.Policy(o.policy) {
	case "":
	case mcpconn.PolicyNative, mcpconn.PolicyHTTPSString, mcpconn.PolicyAdapter, mcpconn.PolicySession:
		spec.Policy = mcpconn.Policy(o.policy)
	default:
		return exitCode(exitUsage, fmt.Errorf("--policy %q: want native, https-string, adapter or session", o.policy))
	}
	if spec.Policy == mcpconn.PolicyHTTPSString {
		if spec.Transport == mcpconn.TransportStdio {
			return exitCode(exitUsage, errors.New("--policy https-string needs an HTTP server (--url)"))
		}
		if spec.Ref == "" || spec.Ref == mcpconn.RefNative {
			spec.Ref = mcpconn.RefHTTPS // name the tool as an https string ref would
		}
	}
	if o.attempts < 0 || o.timeout < 0 || o.connect < 0 || o.backoff < 0 {
		return exitCode(exitUsage, errors.New("--timeout, --connect-timeout, --attempts and --backoff must not be negative"))
	}
	if o.timeout > 0 {
		spec.Timeouts.Call = o.timeout
	}
	if o.connect > 0 {
		spec.Timeouts.Connect = o.connect
	}
	if o.attempts > 0 {
		spec.Timeouts.Attempts = o.attempts
	}
	if o.backoff > 0 {
		spec.Timeouts.Backoff = o.backoff
	}

	var features *mcpconn.ClientFeatures
	if mcpconn.EffectivePolicy(spec) == mcpconn.PolicySession {
		if features, err = o.features.features(&o.target.project, cmd.ErrOrStderr()); err != nil {
			return exitCode(exitUsage, err)
		}
	} else if o.features.any() {
		return exitCode(exitUsage, errors.New("--elicitation, --allow-sampling and --roots need --policy session: CrewAI's policies declare no client capabilities, as CrewAI does"))
	}

	// The recording (and a live export) hide the server's own credentials
	// (secret env values, Authorization and other credential headers) on
	// top of the standard rules.
	o.session.redactor = session.NewRedactor(mcpconn.SecretValues(spec)...)
	record, closeSinks, err := openSessionSinks(&o.session, session.Header{
		RunID: session.NewID(), Command: "call", Meta: callMeta(spec, tool),
	})
	if err != nil {
		return exitCode(exitUsage, err)
	}
	stderr := cmd.ErrOrStderr()
	// Live progress on stderr for people; nothing extra with --json.
	sinks := session.Fanout{record}
	if !o.json {
		sinks = append(sinks, progressSink(stderr))
	}
	auth, err := o.oauth.authorizer(stderr)
	if err != nil {
		return exitCode(exitUsage, err)
	}
	// Under CrewAI's policies the arguments go through CrewAI's validation
	// first: what is sent is the validated dump, and arguments CrewAI would
	// refuse are not sent at all.
	wire, _ := toolArgs.MarshalJSON()
	var preview *argsPreview
	if mcpconn.EffectivePolicy(spec) != mcpconn.PolicySession {
		preview = previewArguments(ctx, spec, tool, toolArgs)
		if preview.Sent != nil {
			wire = preview.Sent
		}
	}
	var r *mcpconn.CallResult
	missing := ""
	if preview != nil && preview.Refused {
		r = mcpconn.RefusedCall(spec, tool, preview.llmName, preview.Error)
		fmt.Fprintln(stderr, "crewbench: CrewAI would refuse these arguments, so they were not sent")
	} else {
		r = mcpconn.CallJSON(ctx, spec, tool, wire, mcpconn.Options{Emitter: session.NewEmitter(sinks), Auth: auth, Client: features})
		missing = missingToolHint(ctx, spec, r, mcpconn.Options{Auth: auth, Client: features})
	}

	out := cmd.OutOrStdout()
	var printErr error
	if o.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		printErr = enc.Encode(callOutput{CallResult: r, Validation: preview})
	} else {
		printCall(out, r, preview)
	}
	// "session recorded to FILE" goes to stderr, last, so --json's stdout
	// stays one JSON document.
	if err := closeSinks(stderr); err != nil {
		fmt.Fprintf(stderr, "crewbench: %v\n", err)
	}
	if printErr != nil {
		return printErr
	}
	if missing != "" {
		// A tool the server does not have is the caller's mistake.
		return exitCode(exitUsage, errors.New(missing))
	}
	if preview != nil && preview.Refused {
		return silentExit{code: exitUsage} // invalid input, said above
	}
	if code := callExitCode(r); code != exitOK {
		return silentExit{code: code}
	}
	return nil
}

// callMeta describes the call in the session header: the server as
// crewbench names it (a stdio command line or the redacted URL; the
// recorder redacts the header again with the call's secrets), the tool and
// the policy's numbers.
func callMeta(spec mcpconn.ServerSpec, tool string) map[string]any {
	p := mcpconn.EffectivePolicy(spec)
	return map[string]any{
		"server":    session.RedactString(mcpconn.Handle(spec)),
		"transport": string(spec.Transport),
		"tool":      tool,
		"policy":    string(p),
		"limits":    mcpconn.CallLimits(spec, p),
	}
}

// parseToolArgs reads --args as Python's json.loads would, keeping the key
// order (sent as given under the session policy).
func parseToolArgs(s string) (*pyjson.Object, error) {
	if strings.TrimSpace(s) == "" {
		return pyjson.NewObject(), nil
	}
	o, err := pyjson.LoadsObject(s)
	if err != nil {
		return nil, fmt.Errorf("--args: not a JSON object: %w", err)
	}
	return o, nil
}

// missingToolHint checks, after a failed call, whether the server lists the
// tool at all. Servers say "no such tool" in different ways (a JSON-RPC
// error, an isError result such as "Unknown tool: …"), so the tools/list
// is the judge. When the tool is missing, r's outcome becomes not_found and
// the hint names the closest tool; otherwise the hint is "".
// The listing declares what the call declared (opts.Client): a server may
// list a tool only to a client with a capability.
func missingToolHint(ctx context.Context, spec mcpconn.ServerSpec, r *mcpconn.CallResult, opts mcpconn.Options) string {
	switch r.Outcome {
	case session.OutcomeNotFound, session.OutcomeIsError, session.OutcomeJSONRPCError:
	default:
		return ""
	}
	if len(r.Attempts) == 0 || ctx.Err() != nil {
		return "" // never reached the tool
	}
	d, err := mcpconn.Discover(ctx, spec, opts)
	if err != nil {
		return ""
	}
	listed := make([]string, 0, len(d.Tools))
	for _, t := range d.Tools {
		if t.Name == r.Tool {
			return ""
		}
		listed = append(listed, t.Name)
	}
	r.Outcome = session.OutcomeNotFound
	msg := fmt.Sprintf("the server has no tool %q", r.Tool)
	if guess := suggest.DidYouMean(r.Tool, listed); guess != "" {
		msg += fmt.Sprintf("; did you mean %q?", guess)
	}
	sort.Strings(listed)
	return fmt.Sprintf("%s (its tools: %s)", msg, strings.Join(listed, ", "))
}

// callExitCode maps a result to the documented exit status.
func callExitCode(r *mcpconn.CallResult) int {
	switch {
	case r.Outcome == session.OutcomeOK:
		return exitOK
	case len(r.Attempts) == 0 && r.Outcome == session.OutcomeTimeout:
		return exitConnection // the connect timed out
	case r.Outcome == session.OutcomeTimeout:
		return exitTimeout
	case r.Outcome == session.OutcomeCancelled:
		return exitUsage
	case len(r.Attempts) == 0 || r.Outcome == session.OutcomeTransportClosed || r.Outcome == session.OutcomeSpawnFailed,
		r.Outcome == session.OutcomeAuth:
		// A 401/403 on the call itself is the connection's credentials,
		// not the tool.
		return exitConnection
	}
	return exitToolError
}

// progressSink prints one line per attempt and retry as they happen.
func progressSink(w io.Writer) session.Sink {
	return session.SinkFunc(func(e session.Event) {
		switch session.ScopeKind(e.Kind) {
		case session.MCPProcessSpawned:
			fmt.Fprintf(w, "· spawned %s (pid %d)\n", e.Server, e.Int("pid"))
		case session.MCPConnectionFailed:
			fmt.Fprintf(w, "· connect failed (%s): %s\n", e.Outcome, e.Error)
		case session.MCPAttemptStarted:
			fmt.Fprintf(w, "· attempt %d: calling %s …\n", e.Attempt, e.Str("call_name"))
		case session.MCPAttemptFinished:
			fmt.Fprintf(w, "· attempt %d: %s after %s\n", e.Attempt, e.Outcome, e.Duration.Round(time.Millisecond))
		case session.MCPRetryScheduled:
			fmt.Fprintf(w, "· retrying in %s\n", e.Duration)
		}
	})
}

func printCall(w io.Writer, r *mcpconn.CallResult, preview *argsPreview) {
	fmt.Fprintf(w, "server  %s\ntool    %s", r.Server, r.Tool)
	if r.CallName != r.Tool {
		fmt.Fprintf(w, "  (called as %q: CrewAI's https-string path sends the sanitized name)", r.CallName)
	}
	fmt.Fprintf(w, "\nLLM     %s\npolicy  %s  (connect %s, call %s, %d attempt(s), backoff %s)\n",
		r.LLMName, r.Policy, dur(r.Limits.Connect), dur(r.Limits.Call), r.Limits.Attempts, dur(r.Limits.Backoff))
	if preview != nil {
		printPreview(w, preview)
		if preview.Refused {
			return
		}
	}
	if len(r.Arguments) > 0 {
		fmt.Fprintf(w, "args    %s  (after CrewAI's argument cleaning)\n", r.Arguments)
	}
	start := time.Time{}
	for _, c := range r.Connects {
		line := fmt.Sprintf("connect %s in %s", c.Outcome, c.Duration.Round(time.Millisecond))
		if c.Pid != 0 {
			line += fmt.Sprintf(" (pid %d)", c.Pid)
		}
		if c.Error != "" {
			line += ": " + c.Error
		}
		fmt.Fprintln(w, line)
	}
	if len(r.Attempts) > 0 {
		start = r.Attempts[0].Start
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ATTEMPT\tAT\tDURATION\tOUTCOME\tTHEN\tERROR")
		for _, a := range r.Attempts {
			outcome := a.Outcome
			if a.Code != 0 {
				outcome = fmt.Sprintf("%s(%d)", outcome, a.Code)
			}
			then := ""
			if a.Backoff > 0 {
				then = "wait " + dur(a.Backoff)
			}
			fmt.Fprintf(tw, "%d\t+%s\t%s\t%s\t%s\t%s\n", a.N, a.Start.Sub(start).Round(10*time.Millisecond),
				a.Duration.Round(time.Millisecond), outcome, then, oneLine(a.Error, 80))
		}
		_ = tw.Flush()
	}
	fmt.Fprintln(w)
	switch {
	case r.Raised:
		fmt.Fprintf(w, "CrewAI's tool raises (%s):\n  %s\n", r.Outcome, r.Text)
	case r.Failed:
		fmt.Fprintf(w, "CrewAI's tool returns ToolFailure(reason=%s):\n  %s\n", r.FailureReason, indent(r.Text))
	case r.Outcome != session.OutcomeOK:
		fmt.Fprintf(w, "CrewAI's tool returns this error as ordinary output (%s):\n  %s\n", r.Outcome, indent(r.Text))
	default:
		fmt.Fprintf(w, "CrewAI's tool returns (first content item):\n  %s\n", indent(r.Text))
	}
	if len(r.Content) > 1 {
		fmt.Fprintf(w, "\nall %d content items (CrewAI passes only the first):\n", len(r.Content))
		for i, c := range r.Content {
			fmt.Fprintf(w, "  [%d] %s\n", i, contentSummary(c))
		}
	}
	if len(r.Structured) > 0 {
		var buf bytes.Buffer
		if json.Indent(&buf, r.Structured, "  ", "  ") == nil {
			fmt.Fprintf(w, "\nstructuredContent:\n  %s\n", buf.String())
		}
	}
	if r.Error != "" && r.Error != r.Text {
		fmt.Fprintf(w, "\ndetail: %s\n", r.Error)
	}
	if r.Fix != "" {
		fmt.Fprintf(w, "fix:    %s\n", r.Fix)
	}
	fmt.Fprintf(w, "total %s\n", r.Duration.Round(time.Millisecond))
}

// contentSummary is one line about a content item: a text's first line;
// for data (an image, audio, a blob) its MIME type and decoded size; a
// resource's URI.
func contentSummary(c mcpconn.ContentItem) string {
	parts := []string{c.Type}
	for _, p := range []string{c.URI, c.MIMEType} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if c.Bytes > 0 {
		parts = append(parts, filelimit.Size(int64(c.Bytes)))
	}
	if c.Text != "" {
		parts = append(parts, oneLine(c.Text, 100))
	}
	return strings.Join(parts, " ")
}

func dur(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

func indent(s string) string {
	const max = 4000
	if len(s) > max {
		s = s[:max] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return strings.ReplaceAll(s, "\n", "\n  ")
}

// argsPreview is what CrewAI's validation does to the arguments before an
// MCP call under its policies (the model CrewAI builds from the tool's
// inputSchema, Pydantic lax mode, None dropped): --json's "validation".
type argsPreview struct {
	// Model is the Pydantic model's name ("get_forecastSchema").
	Model string `json:"model,omitempty"`
	// Sent is the validated arguments in the model's order, what CrewAI
	// hands its MCP client (the policy's cleaning follows).
	Sent    json.RawMessage `json:"validated,omitempty"`
	Changes []string        `json:"changes,omitempty"`
	// Refused: CrewAI returns Error to the agent instead of calling.
	Refused bool   `json:"refused,omitempty"`
	Error   string `json:"error,omitempty"`
	// Note says why there is no preview (the tool list was unavailable).
	Note string `json:"note,omitempty"`
	// llmName is the tool's name under the policy (the refusal's result).
	llmName string
}

// callOutput is --json's document: the call's result and the preview.
type callOutput struct {
	*mcpconn.CallResult
	Validation *argsPreview `json:"validation,omitempty"`
}

// previewArguments lists the server's tools to find the tool's inputSchema
// and validates args against CrewAI's model of it. Without the schema (the
// list failed, or the server has no such tool) the arguments go out as
// given and the note says why.
func previewArguments(ctx context.Context, spec mcpconn.ServerSpec, tool string, args *pyjson.Object) *argsPreview {
	// The listing is CrewAI's (the preview is only for its policies), so it
	// sends only the configured headers, never a stored OAuth token.
	d, err := mcpconn.Discover(ctx, spec, mcpconn.Options{})
	if err != nil {
		return &argsPreview{Note: "no preview: the tool list failed: " + err.Error()}
	}
	t, ok := d.Tool(tool)
	if !ok {
		return &argsPreview{Note: "no preview: the server does not list " + strconv.Quote(tool)}
	}
	var schema *pyjson.Object
	if len(t.InputSchema) > 0 {
		if o, err := pyjson.LoadsObject(string(t.InputSchema)); err == nil && o.Len() > 0 {
			schema = o
		}
	}
	model := toolschema.MCPToolModel(t.Name, schema)
	p := &argsPreview{Model: model.Name, llmName: t.LLMName}
	sent, err := model.MCPArguments(t.LLMName, args)
	if err != nil {
		p.Refused, p.Error = true, err.Error()
		return p
	}
	p.Sent, _ = sent.MarshalJSON()
	p.Changes = toolschema.ArgumentChanges(args, sent)
	return p
}

// printPreview writes the validation lines before the call's result.
func printPreview(w io.Writer, p *argsPreview) {
	switch {
	case p.Note != "":
		fmt.Fprintf(w, "valid   %s\n", p.Note)
	case p.Refused:
		fmt.Fprintf(w, "valid   REFUSED by %s: CrewAI returns this to the agent and does not call the tool:\n  %s\n", p.Model, indent(p.Error))
	case len(p.Changes) == 0:
		fmt.Fprintf(w, "valid   ok (%s): sent as given\n", p.Model)
	default:
		fmt.Fprintf(w, "valid   ok (%s): %s\n", p.Model, strings.Join(p.Changes, "; "))
	}
}
