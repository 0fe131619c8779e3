package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"crewbench/crew"
	"crewbench/crew/lint"
	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/mcpconn/cmdline"
	"crewbench/mcpconn/oauth"
	"crewbench/names/suggest"
	"crewbench/session"
)

// The flag groups several commands share, and what they open:
//
//   - targetFlags: an ad-hoc server on the command line (tools, call);
//   - projectFlags: the project whose servers tools, call and smoke
//     address by name;
//   - openCrewProject: the project a crew command (run, serve) runs;
//   - sessionFlags: where a run's events go besides the live trace (the
//     recording and a live OpenTelemetry export).

// targetFlags describe an ad-hoc server on the command line.
type targetFlags struct {
	stdio    string
	url      string
	sse      bool
	headers  []string
	env      []string
	inherit  bool
	protocol string
	project  projectFlags
}

func (f *targetFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	f.project.register(fs)
	// The server's flags are the ones the workbench's "copy as command"
	// writes (cmdline.CallLine).
	cf := cmdline.CallFlags
	fs.StringVar(&f.stdio, cf.Stdio.Name, "", cf.Stdio.Usage)
	fs.StringVar(&f.url, cf.URL.Name, "", cf.URL.Usage)
	fs.BoolVar(&f.sse, cf.SSE.Name, false, cf.SSE.Usage)
	fs.StringArrayVar(&f.headers, cf.Header.Name, nil, cf.Header.Usage)
	fs.StringArrayVar(&f.env, cf.Env.Name, nil, cf.Env.Usage)
	fs.BoolVar(&f.inherit, "inherit-env", false, "NOT CrewAI behaviour: give a --stdio server this process's whole environment (debugging)")
	fs.StringVar(&f.protocol, "protocol", "", `MCP protocol version (default `+mcpconn.DefaultProtocolVersion+`; "auto" probes)`)
}

func (f *targetFlags) adHoc() bool { return f.stdio != "" || f.url != "" }

// spec builds the ad-hoc server spec from the flags.
func (f *targetFlags) spec() (mcpconn.ServerSpec, error) {
	if f.stdio != "" && f.url != "" {
		return mcpconn.ServerSpec{}, errors.New("give either --stdio or --url, not both")
	}
	var s mcpconn.ServerSpec
	switch {
	case f.stdio != "":
		words, err := cmdline.Split(f.stdio)
		if err != nil {
			return s, fmt.Errorf("--stdio: %w", err)
		}
		if len(words) == 0 {
			return s, errors.New("--stdio: empty command")
		}
		s = mcpconn.ServerSpec{Transport: mcpconn.TransportStdio, Command: words[0], Args: words[1:]}
		if len(f.headers) > 0 {
			return s, errors.New("--header applies to --url servers")
		}
		env, err := keyValues("--env", f.env)
		if err != nil {
			return s, err
		}
		s.Env = env
		s.InheritEnv = f.inherit
	case f.url != "":
		u, err := url.Parse(f.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, fmt.Errorf("--url %q: want an http(s) URL", session.RedactURL(f.url))
		}
		s = mcpconn.ServerSpec{Transport: mcpconn.TransportHTTP, URL: f.url}
		if f.sse {
			s.Transport = mcpconn.TransportSSE
		}
		h, err := keyValues("--header", f.headers)
		if err != nil {
			return s, err
		}
		s.Headers = h
		if len(f.env) > 0 || f.inherit {
			return s, errors.New("--env and --inherit-env apply to --stdio servers")
		}
	default:
		return s, errors.New("no server: give a server name, --stdio \"cmd args\" or --url URL")
	}
	s.ProtocolVersion = f.protocol
	s.Name = mcpconn.Handle(s)
	return s, nil
}

func keyValues(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s %q: want K=V", flag, kv)
		}
		m[strings.TrimSpace(k)] = v
	}
	return m, nil
}

// ---- projects ------------------------------------------------------------------

// projectFlags select the project whose servers `tools`, `call` and `smoke`
// can address by name: --project DIR (default: the current directory, when
// it holds one), -c/--config for a crewbench.yaml overlay, or --demo for the
// embedded demo crew.
type projectFlags struct {
	path    string
	overlay string
	demo    bool
}

func (f *projectFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "project", "", "project to take named servers from (default: the current directory)")
	fs.StringVarP(&f.overlay, "config", "c", "", "crewbench.yaml overlay for the project")
	fs.BoolVar(&f.demo, "demo", false, "take named servers from the embedded demo crew")
}

// explicit reports whether the user named a project.
func (f *projectFlags) explicit() bool { return f.path != "" || f.demo || f.overlay != "" }

// open loads the selected project. The demo is written to a temporary
// directory; cleanup removes it. With no explicit project and nothing
// detectable in the current directory, open returns errNoProject.
//
// A project with load errors still has usable servers, so open returns it
// with loadErrs for the caller to report; but a broken overlay is an error,
// because the settings it holds (timeouts, env, servers) would silently not
// apply.
func (f *projectFlags) open() (p *project.Project, loadErrs project.Errors, cleanup func(), err error) {
	cleanup = func() {}
	if f.demo && f.path != "" {
		return nil, nil, cleanup, errors.New("give either --project or --demo, not both")
	}
	path := f.path
	if f.demo {
		var err error
		if path, cleanup, err = materializeDemo(); err != nil {
			return nil, nil, cleanup, err
		}
	}
	if path == "" {
		path = "."
	}
	p, err = project.Open(path, f.overlay)
	markProjectSecrets(p)
	if p == nil {
		cleanup()
		if !f.explicit() {
			return nil, nil, func() {}, errNoProject
		}
		return nil, nil, func() {}, err
	}
	errors.As(err, &loadErrs)
	if bad := f.overlayErrors(p, loadErrs); len(bad) > 0 {
		cleanup()
		return nil, nil, func() {}, fmt.Errorf("%s has errors, so none of its settings apply:\n%w", bad[0].Pos.File, bad)
	}
	return p, loadErrs, cleanup, nil
}

// overlayErrors picks the load errors that are in the project's overlay.
func (f *projectFlags) overlayErrors(p *project.Project, errs project.Errors) project.Errors {
	shown := map[string]bool{project.OverlayFile: true}
	if f.overlay != "" {
		shown = map[string]bool{f.overlay: true, filepath.ToSlash(f.overlay): true}
		if abs, err := filepath.Abs(f.overlay); err == nil {
			shown[abs] = true
			if rel, err := filepath.Rel(p.Dir, abs); err == nil {
				shown[filepath.ToSlash(rel)] = true
			}
		}
	}
	var out project.Errors
	for _, e := range errs {
		if shown[e.Pos.File] {
			out = append(out, e)
		}
	}
	return out
}

// reportLoadErrors tells the user about the load errors of a project a
// command goes on using, each with its file:line:col as run shows them.
func reportLoadErrors(w io.Writer, errs project.Errors) {
	if len(errs) == 0 {
		return
	}
	fmt.Fprintf(w, "crewbench: warning: the project has %d load error(s); `crewbench run` would refuse it (`crewbench lint` gives fixes):\n", len(errs))
	for _, e := range errs {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

var errNoProject = errors.New("no project here")

// resolveNamed looks servers up by name in the selected project.
// Load errors are reported on stderr.
func resolveNamed(ctx context.Context, pf *projectFlags, names []string, stderr io.Writer) ([]mcpconn.ServerSpec, error) {
	if len(names) == 0 {
		return nil, nil
	}
	p, loadErrs, cleanup, err := pf.open()
	if errors.Is(err, errNoProject) {
		return nil, fmt.Errorf("unknown server %q: no project found in the current directory; give --project DIR, --demo, or the server itself with --stdio \"cmd args\" / --url URL", names[0])
	}
	if err != nil {
		return nil, err
	}
	// The demo's files are only read while loading; its servers are
	// started later from the specs, so the directory can go now.
	defer cleanup()
	reportLoadErrors(stderr, loadErrs)
	var out []mcpconn.ServerSpec
	for _, n := range names {
		s := p.Server(n)
		if s == nil {
			return nil, unknownServerError(n, p)
		}
		if ok, why := s.Ready(p); !ok {
			return nil, fmt.Errorf("server %q (%s) cannot be started: %s", n, s.Pos, why)
		}
		out = append(out, s.Spec)
	}
	return out, nil
}

// projectServers is every server of the selected project, or nothing
// when there is no project and none was asked for.
type projectServerSet struct {
	specs []mcpconn.ServerSpec
	// invalid are the refs CrewAI rejects before connecting (an http://
	// string, a "#a,b" tool list), as lint reports them.
	invalid []lint.Finding
	// loadErrs are the other load errors.
	loadErrs project.Errors
}

// projectServers returns the servers of the selected project. A project
// none of whose servers can be started is an error that lists its load
// errors, which are usually why.
func projectServers(ctx context.Context, pf *projectFlags) (projectServerSet, error) {
	var set projectServerSet
	p, loadErrs, cleanup, err := pf.open()
	if errors.Is(err, errNoProject) {
		return set, nil
	}
	if err != nil {
		return set, err
	}
	defer cleanup()
	for _, s := range p.Servers {
		if ok, _ := s.Ready(p); ok {
			set.specs = append(set.specs, s.Spec)
		}
	}
	set.invalid, set.loadErrs = invalidRefs(ctx, p, loadErrs)
	if len(set.specs) == 0 && len(set.invalid) == 0 {
		msg := fmt.Sprintf("project %s declares no MCP server that can be started", p.Dir)
		if len(loadErrs) > 0 {
			return set, fmt.Errorf("%s; it has load errors (`crewbench lint` gives fixes):\n%w", msg, loadErrs)
		}
		return set, errors.New(msg)
	}
	return set, nil
}

// invalidRefs splits the load errors into the string refs CrewAI rejects,
// as lint's findings (their text and fix), and the rest.
func invalidRefs(ctx context.Context, p *project.Project, loadErrs project.Errors) ([]lint.Finding, project.Errors) {
	if len(loadErrs) == 0 {
		return nil, nil
	}
	refCodes := map[string]bool{lint.CodeHTTPStringRef: true, lint.CodeRefToolList: true, lint.CodeInvalidRef: true}
	var invalid []lint.Finding
	at := map[project.Pos]bool{}
	for _, f := range lint.Lint(ctx, p, lint.Options{LoadErrors: loadErrs}) {
		if refCodes[f.Code] && f.Severity == lint.Error {
			invalid = append(invalid, f)
			at[f.Pos] = true
		}
	}
	var rest project.Errors
	for _, e := range loadErrs {
		if !at[e.Pos] || !strings.Contains(e.Msg, "Invalid MCP reference") {
			rest = append(rest, e)
		}
	}
	return invalid, rest
}

func unknownServerError(name string, p *project.Project) error {
	known := p.ServerNames()
	sort.Strings(known)
	msg := fmt.Sprintf("no server %q in project %s", name, p.Dir)
	if len(known) == 0 {
		return errors.New(msg + " (it declares no MCP servers)")
	}
	guess := suggest.DidYouMean(name, known) // a typo: "wether" → "weather"
	for _, k := range known {
		if guess == "" && (strings.EqualFold(k, name) || strings.Contains(k, name)) {
			guess = k // a part of the name: "inv" → "inventory"
		}
	}
	if guess != "" {
		return fmt.Errorf("%s; did you mean %q? (servers: %s)", msg, guess, strings.Join(known, ", "))
	}
	return fmt.Errorf("%s (servers: %s)", msg, strings.Join(known, ", "))
}

// openCrewProject opens the project a crew command runs: args[0] (default
// "."), the NAME crew inside it, or the embedded demo materialized in a
// temporary directory (its fixture servers started as this executable).
// cleanup removes what it created.
func openCrewProject(args []string, useDemo bool, crewName, overlay string) (*project.Project, *crew.MCP, func(), error) {
	if useDemo && len(args) > 0 {
		return nil, nil, nil, errors.New("give either PATH or --demo, not both")
	}
	mcp := &crew.MCP{}
	cleanup := func() {}
	path := "."
	if len(args) == 1 {
		path = args[0]
	}
	var err error
	if useDemo {
		if path, cleanup, err = materializeDemo(); err != nil {
			return nil, nil, nil, err
		}
		exe, err := os.Executable()
		if err != nil {
			cleanup()
			return nil, nil, nil, fmt.Errorf("demo: cannot find the crewbench executable: %w", err)
		}
		mcp.SelfCommand = exe
		// A private TMPDIR gives the flaky fixture a fresh call counter.
		mcp.SelfEnv = map[string]string{"TMPDIR": filepath.Dir(path)} // the demo's own temporary directory
	} else if crewName != "" {
		if path, err = runCrewPath(path, crewName); err != nil {
			return nil, nil, nil, err
		}
	}
	p, err := project.Open(path, overlay)
	markProjectSecrets(p)
	if err != nil {
		cleanup()
		if errors.Is(err, project.ErrNoProject) && len(args) == 0 && !useDemo {
			// The first thing a new user types, in an empty directory.
			return nil, nil, nil, fmt.Errorf("open project: %w\n(give the project's PATH, or --demo to run the embedded demo crew)", err)
		}
		return nil, nil, nil, fmt.Errorf("open project: %w", err)
	}
	return p, mcp, cleanup, nil
}

// runCrewPath picks a crew definition inside dir: NAME.jsonc, NAME.json or the
// directory NAME.
func runCrewPath(dir, name string) (string, error) {
	for _, cand := range []string{name + ".jsonc", name + ".json", name} {
		p := filepath.Join(dir, cand)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	var have []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasSuffix(n, ".jsonc") || strings.HasSuffix(n, ".json") {
			have = append(have, strings.TrimSuffix(strings.TrimSuffix(n, ".jsonc"), ".json"))
		}
	}
	sort.Strings(have)
	return "", fmt.Errorf("--crew %s: no %s.jsonc, %s.json or directory %s in %s (found: %s)", name, name, name, name, dir, strings.Join(have, ", "))
}

// ---- sessions ------------------------------------------------------------------

// sessionFlags are the recording and live-export flags of a command that
// runs a crew.
type sessionFlags struct {
	// recordByDefault: without --record, record to a new file in the
	// sessions directory unless --no-record is given.
	recordByDefault bool

	record       string
	noRecord     bool
	otlpEndpoint string
	otlpHeaders  []string
	otlpContent  bool

	// redactor, when the caller sets it (not a flag), hides the run's
	// project secrets (.env values, server credentials) in the recording
	// and the live export on top of the standard rules.
	redactor *session.Redactor
}

// addSessionFlags registers --record (and, when recordByDefault,
// --no-record), --otlp-endpoint, --otlp-header and --otlp-include-content.
//
// For `crewbench run` (the issue asks that every run be recorded, by
// default under $XDG_STATE_HOME/crewbench/sessions):
//
//	o.session = sessionFlags{recordByDefault: true}
//	addSessionFlags(cmd, &o.session)   // replaces run's own --record flag
func addSessionFlags(cmd *cobra.Command, o *sessionFlags) {
	f := cmd.Flags()
	if o.recordByDefault {
		f.StringVar(&o.record, "record", "", "record the session to `FILE` (default: a new file in "+sessionsDirHelp()+")")
		f.BoolVar(&o.noRecord, "no-record", false, "do not record the session")
	} else {
		f.StringVar(&o.record, "record", "", "record the session to `FILE` (JSONL)")
	}
	f.StringVar(&o.otlpEndpoint, "otlp-endpoint", "", "send spans live to an OTLP/HTTP collector at `URL` (http://localhost:4318 or its /v1/traces URL)")
	f.StringArrayVar(&o.otlpHeaders, "otlp-header", nil, "HTTP header `K=V` for the OTLP endpoint (repeatable; values are never printed)")
	f.BoolVar(&o.otlpContent, "otlp-include-content", false, "export prompts, replies, tool arguments and results (redacted) with the spans")
}

func sessionsDirHelp() string {
	if d, err := session.SessionsDir(); err == nil {
		return d
	}
	return "$XDG_STATE_HOME/crewbench/sessions"
}

// sessionSinks are the sinks openSessionSinks opened.
type sessionSinks struct {
	recorder *session.Recorder
	live     *session.LiveExporter
	endpoint string // redacted, for messages
}

// openSessionSinks opens the recorder and the live exporter the flags ask
// for and returns them as one sink (nil when there is none) with the
// function that closes them. Header.Version is filled in when empty. A bad
// endpoint or header is reported before anything is created, so a typo
// never costs a run.
//
// In `crewbench run`, after the emitter's sinks are assembled:
//
//	extra, closeSinks, err := openSessionSinks(&o.session, session.Header{Project: p.Dir, RunID: runID, Command: "run", Meta: …})
//	if err != nil { return exitCode(runExitFailed, err) }
//	sinks = append(sinks, extra)          // a nil Sink is skipped by Fanout
//	… crew.Kickoff …
//	if err := closeSinks(stderr); err != nil { fmt.Fprintf(stderr, "crewbench: %v\n", err) }
//
// closeSinks prints "session recorded to FILE" and "exported N spans to
// URL" on the writer it is given, and returns the recorder's and the
// exporter's errors joined.
func openSessionSinks(o *sessionFlags, h session.Header) (session.Sink, func(report io.Writer) error, error) {
	s := &sessionSinks{}
	var client *session.OTLPClient
	if o.otlpEndpoint != "" {
		target, err := session.TracesURL(o.otlpEndpoint)
		if err != nil {
			return nil, nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		headers, err := parseHeaderFlags("--otlp-header", o.otlpHeaders)
		if err != nil {
			return nil, nil, err
		}
		client = &session.OTLPClient{Endpoint: target, Headers: headers, Timeout: 10 * time.Second}
		s.endpoint = session.RedactURL(target)
	} else if len(o.otlpHeaders) > 0 || o.otlpContent {
		return nil, nil, errors.New("--otlp-header and --otlp-include-content need --otlp-endpoint")
	}
	if o.record != "" && o.noRecord {
		return nil, nil, errors.New("give --record FILE or --no-record, not both")
	}
	if h.Version == "" {
		h.Version = buildVersion()
	}
	var err error
	switch {
	case o.record != "":
		s.recorder, err = session.Create(o.record, session.RecorderOptions{Header: h, Redactor: o.redactor})
	case o.recordByDefault && !o.noRecord:
		s.recorder, err = session.CreateInDir("", session.RecorderOptions{Header: h, Redactor: o.redactor})
	}
	if err != nil {
		return nil, nil, err
	}
	if client != nil {
		s.live = session.NewLiveExporter(client, session.ExportOptions{
			IncludeContent: o.otlpContent, ServiceVersion: h.Version, Project: h.Project, Redactor: o.redactor,
		}, session.LiveOptions{})
	}
	var sinks session.Fanout
	if s.recorder != nil {
		sinks = append(sinks, s.recorder)
	}
	if s.live != nil {
		sinks = append(sinks, s.live)
	}
	var sink session.Sink
	if len(sinks) > 0 {
		sink = sinks
	}
	return sink, s.close, nil
}

func (s *sessionSinks) close(report io.Writer) error {
	var errs []error
	if s.recorder != nil {
		if err := s.recorder.Close(); err != nil {
			errs = append(errs, fmt.Errorf("recording %s: %w", s.recorder.Path(), err))
		} else if report != nil {
			fmt.Fprintf(report, "session recorded to %s\n", s.recorder.Path())
		}
	}
	if s.live != nil {
		err := s.live.Close()
		if err != nil {
			errs = append(errs, err)
		}
		if report != nil {
			fmt.Fprintf(report, "exported %d spans to %s\n", s.live.Sent(), s.endpoint)
		}
	}
	return errors.Join(errs...)
}

// parseHeaderFlags reads repeated K=V flags into a header map. Values of
// credential headers are marked secret process-wide, so an endpoint that
// echoes one back in an error message cannot make crewbench print it.
func parseHeaderFlags(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			// Never echo the value: it is usually a credential.
			return nil, fmt.Errorf("%s: want NAME=VALUE, got an argument without \"=\" (not shown: it may be a credential)", flag)
		}
		if strings.ContainsAny(k, " \t\r\n:") {
			return nil, fmt.Errorf("%s: %q is not a valid header name", flag, k)
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("%s %s: the value must be one line", flag, k)
		}
		out[k] = v
	}
	session.AddSecretValues(session.NamedSecrets(nil, out)...)
	return out, nil
}

// sessionUseColor decides colour for a writer: "always", "never", or
// "auto" (a terminal, and NO_COLOR unset).
func sessionUseColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return os.Getenv("NO_COLOR") == "", nil
	case "never":
		return false, nil
	case "auto", "":
		return os.Getenv("NO_COLOR") == "" && sessionIsTerminal(w), nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", mode)
}

// sessionIsTerminal reports whether w is a terminal. A character device is
// not enough: /dev/null is one, and `crewbench watch … >/dev/null` must
// stay headless.
func sessionIsTerminal(w io.Writer) bool {
	f, ok := unwrapWriter(w).(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd())
}

// oauthUseFlag is the --oauth flag of the commands that connect under
// crewbench's session policy: "" uses stored tokens only, "browser" or
// "headless" also runs the flow when the server answers 401.
type oauthUseFlag struct{ mode string }

func (o *oauthUseFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.mode, "oauth", "", "on a 401, run the OAuth flow (`MODE` browser, or headless to follow the redirect without a browser); "+
		"stored tokens (crewbench auth login) are used either way. Session policy only: CrewAI sends only the configured headers")
	fs.Lookup("oauth").NoOptDefVal = "browser"
}

// authorizer returns the OAuth client for the session policy. A broken
// token store is reported and leaves the command without OAuth.
func (o *oauthUseFlag) authorizer(stderr io.Writer) (mcpconn.Authorizer, error) {
	switch o.mode {
	case "", "browser", "headless":
	default:
		return nil, fmt.Errorf("--oauth: unknown mode %q (browser or headless)", o.mode)
	}
	f := oauthClientFlags{headless: o.mode == "headless"}
	cfg, err := f.config(stderr)
	if err != nil {
		return nil, err
	}
	cfg.Interactive = o.mode != ""
	return oauth.New(cfg), nil
}

type authorizerKey struct{}

// withAuthorizer hands the session policy's authorizer to code that builds
// its own pool (smokeAll), without widening its signature.
func withAuthorizer(ctx context.Context, a mcpconn.Authorizer) context.Context {
	return context.WithValue(ctx, authorizerKey{}, a)
}

// authorizerFrom is the authorizer withAuthorizer attached, or nil.
func authorizerFrom(ctx context.Context) mcpconn.Authorizer {
	a, _ := ctx.Value(authorizerKey{}).(mcpconn.Authorizer)
	return a
}

// authStore is crewbench's OAuth token store (crewbench auth login).
func authStore() (*oauth.Store, error) {
	path, err := oauth.DefaultStorePath()
	if err != nil {
		return nil, err
	}
	return &oauth.Store{Path: path}, nil
}

// oauthTokenHeld reports whether the token store holds a token for a
// server URL: such a server wants OAuth, which CrewAI does not do (lint and
// export-config say so). Without a store (no home directory) none is held.
func oauthTokenHeld() func(serverURL string) bool {
	st, err := authStore()
	if err != nil {
		return func(string) bool { return false }
	}
	return st.Has
}

// oauthClientFlags are the client identity flags of `auth login`.
type oauthClientFlags struct {
	clientID, clientSecret, metadataURL, privateKeyFile, scope string
	clientCredentials, headless                                bool
}

func (f *oauthClientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.clientID, "client-id", "", "pre-registered OAuth client id (default $"+envOAuthClientID+")")
	fs.StringVar(&f.clientSecret, "client-secret", "", "its secret (default $"+envOAuthClientSecret+"; prefer the variable)")
	fs.StringVar(&f.metadataURL, "client-metadata-url", "", "https URL of a client metadata document to use as client_id (default $"+envOAuthMetadataURL+")")
	fs.StringVar(&f.privateKeyFile, "private-key", "", "PEM `FILE` for private_key_jwt client authentication (default $"+envOAuthPrivateKey+" as PEM text)")
	fs.BoolVar(&f.clientCredentials, "client-credentials", false, "machine client: use the client_credentials grant (no browser)")
	fs.BoolVar(&f.headless, "headless", false, "do not open a browser: follow the authorization redirect directly (authorization servers that need no user interaction)")
	fs.StringVar(&f.scope, "scope", "", "scopes to request (default: what the server asks for)")
}

// config builds the OAuth client config from the flags and, where a flag
// is empty, the environment.
func (f *oauthClientFlags) config(stderr io.Writer) (oauth.Config, error) {
	path, err := oauth.DefaultStorePath()
	if err != nil {
		return oauth.Config{}, err
	}
	env := func(v, name string) string {
		if v != "" {
			return v
		}
		return os.Getenv(name)
	}
	cfg := oauth.Config{
		ClientID:          env(f.clientID, envOAuthClientID),
		ClientSecret:      env(f.clientSecret, envOAuthClientSecret),
		ClientMetadataURL: env(f.metadataURL, envOAuthMetadataURL),
		ClientCredentials: f.clientCredentials || os.Getenv(envOAuthGrant) == "client_credentials",
		PrivateKeyPEM:     os.Getenv(envOAuthPrivateKey),
		Headless:          f.headless,
		Interactive:       true,
		Scope:             f.scope,
		Store:             &oauth.Store{Path: path},
		Log:               func(line string) { fmt.Fprintln(stderr, line) },
	}
	if f.privateKeyFile != "" {
		b, err := os.ReadFile(f.privateKeyFile)
		if err != nil {
			return oauth.Config{}, fmt.Errorf("--private-key: %w", err)
		}
		cfg.PrivateKeyPEM = string(b)
	}
	return cfg, nil
}
