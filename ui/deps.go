package ui

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"crewbench/crew"
	"crewbench/crew/rerun"
	"crewbench/mcpconn"
	"crewbench/session"
	"crewbench/themes"
)

// This file declares what the workbench needs from the engine, as small
// interfaces and plain values. The composition root (cmd_tui.go) adapts the
// real engine to them; tests pass fakes. Keeping the seams here means an
// engine API change is fixed in one adapter, not in every pane.

// Deps is everything the workbench needs. Only Workspace and Palette are
// required; a nil interface switches the matching feature off with a
// message saying why.
type Deps struct {
	// Ctx bounds every background operation; quitting cancels it.
	Ctx context.Context

	Workspace Workspace
	// Pool connects the workspace's servers in the background and reports
	// their state. Its Close reaps every server process on quit.
	Pool ServerPool
	// Events is the pool's event stream (server state, stderr, logging,
	// progress). The composition root owns and closes it.
	Events <-chan session.Event
	// Caller runs one tool call under a call policy (try-a-tool).
	Caller ToolCaller
	// Calls records every call made in 4 Try (the composition root's call
	// log: one session file per workbench, created on the first call); nil
	// records none. Run
	// closes it on quit.
	Calls CallRecorder
	// Prober checks an HTTP server's endpoint.
	Prober HealthProber
	// Auth is crewbench's OAuth client for the servers view: each HTTP/SSE
	// server's auth state and the browser login (L); nil switches both off.
	Auth ServerAuth
	// Runner kicks off crews; nil when the workspace has no crew.
	Runner Runner
	// Watcher runs the project's own command as a watched real CrewAI run
	// (5 Kickoff's w); nil switches that off. Watch, when set, is started
	// as soon as the workbench opens (crewbench watch -- COMMAND).
	Watcher Watcher
	Watch   *WatchStart
	// Sessions lists and opens recorded sessions.
	Sessions SessionStore
	// Replayer re-runs a recorded session offline with the filters being
	// tried (the sessions view); nil switches re-runs off.
	Replayer Replayer
	// Exporter writes filters back to the project (crew/project's
	// export-config); nil until it exists: the playground then shows the
	// filter fragment only.
	Exporter FilterExporter
	// Clipboard copies text (try-a-tool's "copy as command"); nil: the text
	// is only shown.
	Clipboard func(string) error
	// TerminalCopy asks the terminal to copy text (OSC 52), when Clipboard
	// is nil or fails (over ssh, without xclip); nil: no fallback.
	TerminalCopy func(string)
	// HiddenEnv is environment the workbench adds to the servers it runs
	// itself (the demo's private TMPDIR): the commands it shows leave an
	// entry out when its value is the one added here.
	HiddenEnv map[string]string

	Palette themes.Palette
	// Redactor hides secrets in everything displayed that can hold them
	// (env, headers, URLs, payloads). Nil means session.DefaultRedactor.
	Redactor *session.Redactor
	// Environ is the parent environment stdio servers inherit from (the
	// servers pane shows exactly what each one gets); nil: none.
	Environ []string
	// Editor is the command for "$EDITOR" actions; "" disables them.
	Editor string
	// Now is the clock for durations shown live; nil means time.Now.
	Now func() time.Time
	// OpenSession is a recorded session to open at start (crewbench replay).
	OpenSession string
	// SelfCommand is how to invoke crewbench in "copy as command" output.
	SelfCommand string
}

// Workspace is what was opened: a project, the demo, or ad-hoc servers.
type Workspace struct {
	// Name is the project's name ("demo", a directory name).
	Name string
	// Opened says which file was opened and why.
	Opened string
	// Dir is the project's directory, as recordings name it in their
	// header ("" for a workspace without one: every session is shown).
	Dir string
	// LLM is the model string the crew uses ("scripted:demo.yaml").
	LLM string
	// Servers are the project's MCP servers, in project order.
	Servers []ServerEntry
	// Agents are the project's agents with the servers each uses.
	Agents []AgentEntry
	// Notes are start-up notes worth showing (loader warnings).
	Notes []string
}

// ServerEntry is one server of the workspace.
type ServerEntry struct {
	Spec mcpconn.ServerSpec
	// Source is where it was declared ("agents/researcher.jsonc mcps[0]").
	Source string
	// Agents use it, in order.
	Agents []string
}

// AgentEntry is one agent of the workspace.
type AgentEntry struct {
	Name, Role string
	// Servers are the names of the servers in its mcps.
	Servers []string
}

// ServerPool is the part of mcpconn.Pool the workbench uses.
type ServerPool interface {
	// Connect connects every spec and returns when all have settled.
	Connect(ctx context.Context, specs ...mcpconn.ServerSpec) error
	Status() []mcpconn.ServerStatus
	Reconnect(ctx context.Context, name string) error
	Ping(ctx context.Context, name string, timeout time.Duration) (time.Duration, error)
	Close() error
}

// ToolCaller calls one tool the way mcpconn.CallJSON does (args a JSON
// object, sent in its key order: under CrewAI's policies the validated
// arguments in the tool model's order), emitting the call's
// events (attempts, retries, spawns) through em. Under the session policy
// the call declares elicitation, sampling and roots (beyond CrewAI, which
// declares none) and puts the server's questions to the user through
// asker; under CrewAI's policies it declares nothing.
type ToolCaller interface {
	Call(ctx context.Context, spec mcpconn.ServerSpec, tool string, args json.RawMessage, em *session.Emitter, asker Asker) *mcpconn.CallResult
}

// Asker puts a server's questions during a Try call to the user: an
// elicitation form, or a sampling request to approve before the configured
// LLM answers it. Both block until the user answers or ctx ends.
type Asker interface {
	Elicit(ctx context.Context, req mcpconn.ElicitRequest) (mcpconn.ElicitResponse, error)
	// ApproveSampling returns nil when the user approves, and
	// mcpconn.ErrUserRejected when they do not.
	ApproveSampling(ctx context.Context, req mcpconn.SampleRequest) error
}

// CallRecorder records try-a-tool calls. The workbench uses it from
// commands only (the call's goroutine), never from Update or View.
type CallRecorder interface {
	// Begin prepares the recording of one call to spec (its credentials
	// are hidden from then on) and returns the sink for the call's events
	// and the recording's path. After a nil error, End must follow once
	// the call has returned.
	Begin(spec mcpconn.ServerSpec) (sink session.Sink, path string, err error)
	End()
	// Close ends the recording, giving calls still running a moment to
	// finish first. Begin fails after Close.
	Close() error
}

// HealthProber probes an HTTP MCP endpoint (mcpconn.ProbeHTTP).
type HealthProber interface {
	Probe(ctx context.Context, url string, headers map[string]string, timeout time.Duration) mcpconn.HealthResult
}

// ServerAuth is crewbench's OAuth client (mcpconn/oauth, as `crewbench
// auth login|status` use it). The workbench calls it from commands only.
type ServerAuth interface {
	// State reads what the token store holds for the server URL; with
	// probe, and no token stored, it also asks the server once without a
	// token (its 401 and WWW-Authenticate challenge).
	State(ctx context.Context, url string, sse, probe bool) AuthState
	// Login runs the browser flow of `crewbench auth login URL` (loopback
	// callback on 127.0.0.1) and stores the token. show receives the
	// authorization URL as soon as it is known (the system browser is
	// asked to open it too); Login returns once the token is stored or the
	// flow failed (bounded by the flow's own timeout and ctx).
	Login(ctx context.Context, url string, sse bool, show func(authURL string)) error
}

// AuthState is one server's OAuth state: the stored token (never its
// value) and, when probed, the server's answer without a token.
type AuthState struct {
	Token       bool
	Expiry      time.Time // zero: no expiry given
	Refreshable bool
	Scope       string
	// Probed says the server was asked without a token: Status is its
	// HTTP status and Challenge its WWW-Authenticate header ("" none).
	Probed    bool
	Status    int
	Challenge string
	// Err says the store could not be read or the probe failed.
	Err string
}

// CrewInfo describes one crew the Runner can kick off.
type CrewInfo struct {
	Name string
	// Placeholders are the {inputs} the crew's texts use, sorted.
	Placeholders []string
	// Inputs are the default kickoff inputs (crew.jsonc "inputs").
	Inputs map[string]any
	// Tasks and Agents, in order, for the kickoff screen.
	Tasks  []string
	Agents []string
	// Tools are tool names the crew's agents can call (for breakpoints).
	Tools []string
	// Servers are the MCP servers the crew uses.
	Servers []string
	LLM     string
}

// KickoffRequest starts one run.
type KickoffRequest struct {
	Crew   string
	Inputs map[string]any
	// Stepper decides the pauses; the workbench passes a crew.ChanStepper.
	Stepper crew.Stepper
}

// RunOutcome is how a run ended.
type RunOutcome struct {
	Output string
	// ToolFailures summarises failures the run finished with (empty: none).
	ToolFailures string
	Err          error
	// Recorded is the session file the run was recorded to ("" if none).
	Recorded string
}

// RunHandle is one started run. Events is closed after the run ends; Done
// then delivers exactly one outcome. Finished, when set, is closed once the
// run has released everything (its recording is closed).
type RunHandle struct {
	ID       string
	Events   <-chan session.Event
	Done     <-chan RunOutcome
	Finished <-chan struct{}
}

// Runner kicks off crews.
type Runner interface {
	Crews() []CrewInfo
	Start(ctx context.Context, req KickoffRequest) (*RunHandle, error)
}

// SessionInfo is one recorded session on disk.
type SessionInfo struct {
	Path     string
	Name     string
	Size     int64
	Modified time.Time
	// Command and About come from the file's header (SessionAbout): what
	// recorded it ("run", "call", "tui-call", …) and what it is about (the
	// crew, the tool and server). Empty when the header is unreadable.
	Command string
	About   string
	// Project is the directory of the project that recorded it ("" none).
	Project string
}

// SessionStore lists and opens recorded sessions.
type SessionStore interface {
	List(ctx context.Context) ([]SessionInfo, error)
	Open(ctx context.Context, path string) (*session.File, error)
}

// RerunRequest asks for one offline re-run of a recorded session.
type RerunRequest struct {
	// Path is the session's file; File is it loaded.
	Path string
	File *session.File
	// Filters replace servers' tool filters for this re-run only (keys:
	// server names as the servers view shows them).
	Filters map[string]mcpconn.FilterSpec
	// Faults are injected into servers' calls for this re-run only (keys
	// as for Filters).
	Faults map[string][]mcpconn.Fault
	// KeepGoing serves the recorded replies past a divergence instead of
	// stopping the run at the first one.
	KeepGoing bool
	// Sink receives the re-run's events as they happen (progress).
	Sink session.Sink
}

// Replayer re-runs a recorded kickoff with every LLM call answered from
// the recording (crew/rerun): no API key, no LLM cost. The tools are
// called for real, so a changed filter or a fixed server shows its effect.
type Replayer interface {
	Rerun(ctx context.Context, req RerunRequest) (*rerun.Result, error)
}

// ExportFormat is a config shape a filter can be exported as.
type ExportFormat string

// Export formats.
const (
	ExportMCPSJSON   ExportFormat = "mcps-json"  // the agent's mcps entry for crew.jsonc
	ExportPython     ExportFormat = "python"     // the crew.py snippet
	ExportMCPServers ExportFormat = "mcpservers" // an mcpServers JSON file
)

// ExportRequest names the server (and agent) whose filter is exported.
type ExportRequest struct {
	Server string
	// Agent is "" for every agent using the server.
	Agent  string
	Filter mcpconn.FilterSpec
}

// WritePlan is what writing a filter to the project would change.
type WritePlan struct {
	File string
	Diff string
	// Opaque carries the exporter's own state to Apply.
	Opaque any
}

// FilterExporter is export-config as the playground uses it (crew/writeback
// behind the composition root's exporter). Without one the playground renders only the
// tool_filter fragment and says so.
type FilterExporter interface {
	Render(ctx context.Context, f ExportFormat, req ExportRequest) (string, error)
	Plan(ctx context.Context, req ExportRequest) (WritePlan, error)
	// Apply writes the plan, keeping a backup, and returns the backup path.
	Apply(ctx context.Context, plan WritePlan) (backup string, err error)
}

// CallLogCommand is the session header command of try-a-tool recordings.
const CallLogCommand = "tui-call"

// SessionAbout describes a recording from its header: the command that
// recorded it and a few words about what it holds (the crew, the tool and
// server, the smoked server).
func SessionAbout(h session.Header) (command, about string) {
	str := func(k string) string {
		s, _ := h.Meta[k].(string)
		return s
	}
	switch h.Command {
	case "run", "tui":
		var parts []string
		if c := str("crew"); c != "" {
			parts = append(parts, "crew "+c)
		}
		if demo, _ := h.Meta["demo"].(bool); demo {
			parts = append(parts, "demo")
		}
		if h.Command == "tui" {
			parts = append(parts, "in the workbench")
		}
		about = strings.Join(parts, " · ")
	case "replay --rerun":
		if p := str("rerun_of"); p != "" {
			about = "re-run of " + filepath.Base(p)
		}
	case "call":
		about = str("tool")
		if s := str("server"); s != "" {
			about += " @ " + s
		}
	case "smoke":
		about = str("server")
	case CallLogCommand:
		about = "try-a-tool calls"
		if w := str("workspace"); w != "" {
			about += " · " + w
		}
	}
	return h.Command, about
}
