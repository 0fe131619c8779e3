package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"crewbench/crew"
	"crewbench/crew/project"
	"crewbench/mcpconn/serve"
	"crewbench/names"
	"crewbench/session"
)

type serveOpts struct {
	demo      bool
	crewName  string
	overlay   string
	llm       string
	httpAddr  string
	noRecord  bool
	outputDir string
	// HTTP access: the bearer token (generated when empty), no token at
	// all, and binding beyond loopback.
	token       string
	noToken     bool
	allowRemote bool
}

func newServeCmd() *cobra.Command {
	o := &serveOpts{}
	cmd := &cobra.Command{
		Use:   "serve [PATH | --demo] [--http ADDR] [--llm MODEL]",
		Short: "Publish the project's crew as an MCP tool (stdio or streamable HTTP)",
		// stdout is the MCP stream, not text for people.
		Annotations: rawOutput,
		Long: `serve publishes the project's crew as one MCP tool, so any MCP client — a
CrewAI agent's mcps, Claude Desktop, an IDE, crewbench itself — can kick it
off. The tool's name is the crew's name sanitized the way CrewAI sanitizes
tool names; its arguments are the {placeholders} the crew's texts use
(required unless the crew gives a default input). A call runs the crew in
crewbench's engine, exactly as crewbench run does, and returns the final
output as text (the first content item, which is all CrewAI's MCP tools
read), then a warning about tool failures when there were any, plus
structured content: the per-task outputs, token usage, tool failures and
the recorded session. A failed run is an isError result with the reason.
Clients that send a progressToken get a progress notification per task.

Over stdio (the default) stdout carries only MCP; one line per call goes to
stderr. --http ADDR serves streamable HTTP at http://ADDR/mcp instead (the
URL is printed on stderr; ADDR 127.0.0.1:0 picks a free port). Over HTTP
every request must carry "Authorization: Bearer TOKEN": the token is
--token, else $CREWBENCH_SERVE_TOKEN, else one generated at start and
printed once on stderr (--no-token serves without one, for a trusted
machine). Only loopback addresses are served unless --allow-remote; a
request from a web page (an Origin other than localhost) is refused, and
bodies, sessions and idle connections are bounded. Every call
is recorded to a new session file (--no-record skips it). Ctrl+C stops the
server; calls still running are cancelled and their MCP servers reaped.`,
		Example: `  crewbench serve --demo
  crewbench tools --stdio "crewbench serve --demo"
  crewbench call --stdio "crewbench serve --demo" weekend_weather_brief --args '{"city":"Porto"}' --policy session --timeout 2m
  crewbench serve ./my_crew --http 127.0.0.1:8765 --llm openai/gpt-4o-mini`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runServe(cmd, o, args) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.demo, "demo", false, "publish the embedded demo crew (offline)")
	f.StringVar(&o.crewName, "crew", "", "crew definition to publish when PATH holds several (NAME.jsonc, NAME.json or the directory NAME)")
	f.StringVarP(&o.overlay, "config", "c", "", "crewbench.yaml overlay `FILE` (default: the one beside the project)")
	f.StringVar(&o.llm, "llm", "", "replace every agent's LLM with this `MODEL`")
	f.StringVar(&o.httpAddr, "http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	f.BoolVar(&o.noRecord, "no-record", false, "do not record each call's session")
	f.StringVar(&o.outputDir, "output-dir", "", "write tasks' output_file paths under `DIR` (default: not written, calls leave no files)")
	f.StringVar(&o.token, "token", "", "HTTP: the bearer `TOKEN` clients must send (default: $"+serveTokenEnv+", else generated and printed)")
	f.BoolVar(&o.noToken, "no-token", false, "HTTP: accept requests without a token (any local process can then run the crew)")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "HTTP: allow ADDR to be other than loopback (other machines can reach the crew)")
	return cmd
}

func runServe(cmd *cobra.Command, o *serveOpts, args []string) error {
	p, mcpConf, cleanup, err := openCrewProject(args, o.demo, o.crewName, o.overlay)
	if err != nil {
		return exitCode(1, err)
	}
	defer cleanup()
	pub, err := newCrewPublisher(p, mcpConf, o, cmd.ErrOrStderr())
	if err != nil {
		return exitCode(1, err)
	}
	srv, err := serve.New(serve.Info{Name: "crewbench-serve", Version: buildVersion(), Instructions: pub.instructions()}, pub.tool)
	if err != nil {
		return exitCode(1, fmt.Errorf("serve: %w", err))
	}

	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "crewbench serve: crew %q as tool %s\n", pub.crewName, pub.tool.Name)
	if o.httpAddr == "" {
		// stdin closed (the client went away) or Ctrl+C: both are the end.
		if err := srv.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout(), log.New(stderr, "crewbench serve: ", 0)); err != nil {
			return exitCode(1, fmt.Errorf("serve: %w", err))
		}
		pub.wait()
		return nil
	}
	token, err := serveToken(o)
	if err != nil {
		return exitCode(1, err)
	}
	switch {
	case o.noToken:
		fmt.Fprintln(stderr, "crewbench serve: warning: --no-token: any process that can reach the port can run the crew (and spend your LLM key)")
	case o.token == "" && os.Getenv(serveTokenEnv) == "":
		fmt.Fprintf(stderr, "crewbench serve: token (send \"Authorization: Bearer TOKEN\"): %s\n", token)
	}
	if o.allowRemote && !serve.IsLoopback(o.httpAddr) {
		fmt.Fprintf(stderr, "crewbench serve: warning: --allow-remote: %s is reachable from other machines\n", o.httpAddr)
	}
	// Calls run under ctx: Ctrl+C cancels them (and reaps their servers).
	err = srv.ServeHTTP(ctx, o.httpAddr, serve.HTTPOptions{
		Token:       token,
		AllowRemote: o.allowRemote,
		ErrorLog:    log.New(stderr, "crewbench serve: http: ", 0),
		Logger:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Listening:   func(url string) { fmt.Fprintf(stderr, "crewbench serve: listening on %s\n", url) },
	})
	if err != nil {
		if !o.allowRemote && !serve.IsLoopback(o.httpAddr) {
			err = fmt.Errorf("%w (pass --allow-remote to serve other machines)", err)
		}
		return exitCode(1, fmt.Errorf("serve: %w", err))
	}
	pub.wait()
	return nil
}

// serveTokenEnv names the variable that sets serve's HTTP token.
const serveTokenEnv = "CREWBENCH_SERVE_TOKEN"

// serveToken is the bearer token HTTP clients must send: --token, else
// $CREWBENCH_SERVE_TOKEN, else 32 random hex characters; "" with --no-token.
func serveToken(o *serveOpts) (string, error) {
	switch {
	case o.noToken:
		if o.token != "" {
			return "", exitCode(exitUsage, errors.New("--token and --no-token contradict each other"))
		}
		return "", nil
	case o.token != "":
		return o.token, nil
	case os.Getenv(serveTokenEnv) != "":
		return os.Getenv(serveTokenEnv), nil
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("serve: generating a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// crewPublisher turns the project's crew into one MCP tool.
type crewPublisher struct {
	p         *project.Project
	mcp       *crew.MCP
	llm       string
	outputDir string
	record    bool
	demo      bool
	crewName  string
	tasks     []string
	tool      serve.Tool
	// defaults are the crew's own inputs (crew.jsonc "inputs").
	defaults map[string]any
	// log writes the per-call lines (log.Logger serializes concurrent calls).
	log     *log.Logger
	running sync.WaitGroup
}

func newCrewPublisher(p *project.Project, m *crew.MCP, o *serveOpts, stderr io.Writer) (*crewPublisher, error) {
	// Build the crew once now, so a project that cannot run fails at start,
	// not on the first call.
	c, notes, err := crew.FromProject(p, crew.ProjectOptions{LLM: o.llm})
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "crewbench serve: note: %s\n", n)
	}
	pub := &crewPublisher{p: p, mcp: m, llm: o.llm, outputDir: o.outputDir, record: !o.noRecord, demo: o.demo, crewName: c.Name,
		defaults: c.Inputs, log: log.New(stderr, "crewbench serve: ", 0)}
	for _, t := range c.Tasks {
		pub.tasks = append(pub.tasks, t.Name)
	}
	name := names.Sanitize(c.Name)
	if name == "" {
		name = "kickoff_crew"
	}
	schema, err := json.Marshal(pub.inputSchema())
	if err != nil {
		return nil, err
	}
	pub.tool = serve.Tool{Name: name, Description: pub.description(c), InputSchema: schema,
		Title: "Run the crew " + c.Name, ReadOnly: false, OpenWorld: true, Handler: pub.handle}
	return pub, nil
}

// inputSchema has one string property per placeholder; those without a
// default input are required.
func (pub *crewPublisher) inputSchema() map[string]any {
	props := map[string]any{}
	required := []string{}
	where := map[string][]string{}
	for _, ph := range pub.p.Placeholders() {
		if ph.CLI {
			where[ph.Name] = appendUnique(where[ph.Name], ph.Owner+" "+ph.Field)
		}
	}
	for _, n := range pub.p.PlaceholderNames() {
		prop := map[string]any{"type": "string",
			"description": "Fills {" + n + "} in " + strings.Join(where[n], ", ") + "."}
		if d, ok := pub.defaults[n]; ok {
			prop["default"] = fmt.Sprint(d)
		} else {
			required = append(required, n)
		}
		props[n] = prop
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func (pub *crewPublisher) description(c *crew.Crew) string {
	var roles []string
	for _, a := range c.Agents {
		roles = append(roles, a.Role)
	}
	return fmt.Sprintf("Runs the CrewAI crew %q (%s process; agents: %s; tasks: %s) and returns its final output.",
		c.Name, processName(c), strings.Join(roles, ", "), strings.Join(pub.tasks, ", "))
}

func processName(c *crew.Crew) string {
	if c.Process == "" {
		return string(crew.Sequential)
	}
	return string(c.Process)
}

func (pub *crewPublisher) instructions() string {
	return "crewbench publishes the crew " + pub.crewName + " as the tool " + pub.tool.Name +
		". A call runs the whole crew (several LLM and tool calls): allow minutes, not seconds."
}

// wait waits for calls still finishing (their context is cancelled).
func (pub *crewPublisher) wait() { pub.running.Wait() }

// handle runs the crew for one tools/call.
func (pub *crewPublisher) handle(ctx context.Context, args map[string]any, progress serve.Progress) serve.Result {
	pub.running.Add(1)
	defer pub.running.Done()
	start := time.Now()
	inputs := map[string]any{}
	for k, v := range pub.defaults {
		inputs[k] = v
	}
	for k, v := range args {
		if s, ok := v.(string); ok {
			inputs[k] = s
		} else {
			inputs[k] = fmt.Sprint(v)
		}
	}
	missing, _ := pub.p.CheckInputs(inputs)
	if len(missing) > 0 {
		var ms []string
		for _, m := range missing {
			ms = appendUnique(ms, m.Name)
		}
		sort.Strings(ms)
		return serveError("missing required input(s): " + strings.Join(ms, ", "))
	}
	// A fresh crew per call: kickoff interpolates inputs into it.
	c, _, err := crew.FromProject(pub.p, crew.ProjectOptions{LLM: pub.llm})
	if err != nil {
		return serveError("build the crew: " + err.Error())
	}
	red := session.NewRedactor(pub.p.SecretValues()...)
	runID := session.NewID()
	sinks := session.Fanout{}
	var rec *session.Recorder
	if pub.record {
		rec, err = session.CreateInDir("", session.RecorderOptions{Header: session.Header{
			Version: buildVersion(), Project: pub.p.Dir, RunID: runID, Command: "serve",
			Meta: map[string]any{"crew": c.Name, "inputs": inputs, "demo": pub.demo, "tool": pub.tool.Name},
		}, Redactor: red})
		if err != nil {
			pub.log.Printf("the call is not recorded: %v", err)
		} else {
			sinks = append(sinks, rec)
		}
	}
	if progress != nil {
		sinks = append(sinks, &taskProgress{report: progress, total: len(pub.tasks)})
	}
	m, done, err := pub.callMCP()
	if err != nil {
		return serveError("prepare the call: " + err.Error())
	}
	defer done()
	out, runErr := crew.Kickoff(ctx, c, inputs, crew.Options{Emitter: session.NewEmitter(sinks), RunID: runID, MCP: m, OutputDir: pub.outputDir})
	recorded := ""
	if rec != nil {
		if err := rec.Close(); err == nil {
			recorded = rec.Path()
		}
	}
	verdict := "ok"
	var res serve.Result
	switch {
	case runErr != nil && ctx.Err() != nil:
		// Stopped (the server shutting down, the client gone), not failed.
		verdict = "cancelled"
		res = serveError(red.RedactString("cancelled: " + context.Cause(ctx).Error() + " (the crew stopped at: " + runErr.Error() + ")"))
	case runErr != nil:
		verdict = "failed: " + firstLineMarked(runErr.Error())
		res = serveError(red.RedactString("the crew failed: " + runErr.Error()))
	default:
		res = serve.Result{Text: []string{red.RedactString(out.String())}}
		if s := out.FailureSummary(); s != "" {
			verdict = fmt.Sprintf("ok with %d tool failure(s)", len(out.ToolFailures()))
			res.Text = append(res.Text, red.RedactString(s))
		}
	}
	st := pub.structured(out, runErr, recorded, red)
	if verdict == "cancelled" {
		st["status"] = session.OutcomeCancelled
	}
	res.Structured = st
	line := fmt.Sprintf("%s %s → %s in %s", pub.tool.Name, red.RedactString(marshalText(inputs)), verdict,
		time.Since(start).Round(time.Millisecond))
	if recorded != "" {
		line += " · session " + recorded
	}
	pub.log.Print(line)
	return res
}

// serveError is an isError result saying why.
func serveError(text string) serve.Result {
	return serve.Result{Text: []string{text}, IsError: true}
}

// callMCP is the MCP configuration of one call: every call is a run of its
// own, so injected faults count from zero, and the demo's self-started
// fixtures get a private TMPDIR (the flaky fixture's call counter starts
// afresh, as in crewbench run --demo).
func (pub *crewPublisher) callMCP() (*crew.MCP, func(), error) {
	m := &crew.MCP{Cache: pub.mcp.Cache, Pool: pub.mcp.Pool, SelfCommand: pub.mcp.SelfCommand}
	if pub.mcp.SelfEnv == nil {
		return m, func() {}, nil
	}
	dir, err := os.MkdirTemp(pub.mcp.SelfEnv["TMPDIR"], "call-")
	if err != nil {
		return nil, nil, err
	}
	m.SelfEnv = map[string]string{}
	for k, v := range pub.mcp.SelfEnv {
		m.SelfEnv[k] = v
	}
	m.SelfEnv["TMPDIR"] = dir
	return m, func() { _ = os.RemoveAll(dir) }, nil
}

// structured is the call's structuredContent: what a program reading the
// result wants besides the text.
func (pub *crewPublisher) structured(out *crew.CrewOutput, runErr error, recorded string, red *session.Redactor) map[string]any {
	m := map[string]any{"crew": pub.crewName, "status": "ok"}
	if runErr != nil {
		m["status"] = "failed"
		m["error"] = red.RedactString(runErr.Error())
	}
	if recorded != "" {
		// The file's name only: where the server keeps its state is not
		// the client's business.
		m["session"] = filepath.Base(recorded)
	}
	if out == nil {
		return m
	}
	m["raw"] = red.RedactString(out.Raw)
	var tasks []map[string]any
	for _, t := range out.TasksOutput {
		tasks = append(tasks, map[string]any{"name": t.Name, "agent": t.Agent, "raw": red.RedactString(t.Raw)})
	}
	m["tasks"] = tasks
	m["token_usage"] = out.TokenUsage
	var failures []map[string]any
	for _, f := range out.ToolFailures() {
		failures = append(failures, map[string]any{"tool": f.ToolName, "task": f.TaskName, "agent": f.AgentRole,
			"reason": string(f.Failure.Reason), "message": red.RedactString(f.Failure.Render())})
	}
	m["tool_failures"] = failures
	if runErr == nil && len(failures) > 0 {
		m["status"] = "ok_with_tool_failures"
	}
	return m
}

// taskProgress reports each finished task to a client that asked for
// progress.
type taskProgress struct {
	report serve.Progress
	total  int
	mu     sync.Mutex
	done   int
}

func (p *taskProgress) Emit(ev session.Event) {
	if ev.Kind != session.TaskCompleted && ev.Kind != session.TaskFailed {
		return
	}
	p.mu.Lock()
	p.done++
	n := p.done
	p.mu.Unlock()
	verb := "done"
	if ev.Kind == session.TaskFailed {
		verb = "failed"
	}
	p.report(float64(n), float64(p.total), fmt.Sprintf("task %s %s (%d of %d)", ev.TaskName, verb, n, p.total))
}

// marshalText is v as JSON (encoding/json's escaping), or fmt's text of it.
func marshalText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
