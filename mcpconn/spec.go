// Package mcpconn talks to MCP servers the way CrewAI 1.15 does: the same
// server specs, environment, timeouts, retries, fresh session per call and
// error texts (crewai-semantics.md §2–§4, §6). It wraps mcp-go behind its own
// small interface, keeps tool schemas lossless, applies static and CEL tool
// filters, and reports every step as a session.Event.
package mcpconn

import "time"

// Transport is how crewbench reaches a server.
type Transport string

// Transports.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http" // streamable HTTP
	TransportSSE   Transport = "sse"
)

// RefKind says how a crew referred to the server, which decides CrewAI's
// naming, selection and call policy.
type RefKind string

// Reference kinds.
const (
	// RefNative is an MCPServerStdio / MCPServerHTTP / MCPServerSSE config.
	RefNative RefKind = "native"
	// RefHTTPS is an `"https://host/path#tool"` string in Agent.mcps.
	RefHTTPS RefKind = "https"
	// RefAMP is a `slug`, `slug#tool` or `crewai-amp:slug` string; the user
	// supplies the URL the CrewAI+ API would return.
	RefAMP RefKind = "amp"
)

// Policy is a call policy: how a tool call is executed.
type Policy string

// Call policies. The first three reproduce CrewAI; PolicySession is crewbench's own.
const (
	// PolicyNative: fresh transport+session per call, connect 30 s (not
	// retried), call 30 s per attempt, 3 attempts on timeout, 1 s then 2 s.
	PolicyNative Policy = "native"
	// PolicyHTTPSString: https string refs; 60 s × 3 per call, errors as strings.
	PolicyHTTPSString Policy = "https-string"
	// PolicyAdapter: MCPServerAdapter; one session, no call timeout, no retries.
	PolicyAdapter Policy = "adapter"
	// PolicySession: one persistent session with a configurable timeout;
	// crewbench's fast mode for interactive use. Not CrewAI behaviour.
	PolicySession Policy = "session"
)

// DefaultProtocolVersion is pinned per server unless the spec says "auto"
// (mcp-go's server/discover probe costs 5 s against legacy servers).
const DefaultProtocolVersion = "2025-11-25"

// ServerSpec describes one MCP server as a crew declares it, plus crewbench's
// what-ifs (policy, timeouts, faults). Zero values mean CrewAI's defaults.
type ServerSpec struct {
	// Name is crewbench's handle for the server (a project key, or derived
	// from the command/URL for ad-hoc servers). It is not CrewAI's
	// server_name, which names.ServerName computes from the fields below.
	Name string `json:"name"`

	Transport Transport `json:"transport"`

	// stdio (MCPServerStdio)
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`

	// streamable HTTP / SSE (MCPServerHTTP / MCPServerSSE)
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Streamable mirrors MCPServerHTTP.streamable (default true). CrewAI's
	// client ignores false and still speaks streamable HTTP; lint says so.
	Streamable *bool `json:"streamable,omitempty"`

	// Ref is how the crew referred to the server. RefString keeps the string
	// as written for https and AMP refs; AMPSlug and SelectTool are parsed from it.
	Ref        RefKind `json:"ref,omitempty"`
	RefString  string  `json:"ref_string,omitempty"`
	AMPSlug    string  `json:"amp_slug,omitempty"`
	SelectTool string  `json:"select_tool,omitempty"`

	Filter         FilterSpec `json:"tool_filter,omitzero"`
	CacheToolsList bool       `json:"cache_tools_list,omitempty"`
	// ProtocolVersion: "" means DefaultProtocolVersion; "auto" probes.
	ProtocolVersion string `json:"protocol_version,omitempty"`

	// Policy: "" means CrewAI's policy for Ref (native → PolicyNative,
	// https → PolicyHTTPSString, amp → PolicyNative).
	Policy   Policy   `json:"policy,omitempty"`
	Timeouts Timeouts `json:"timeouts,omitzero"`

	// InheritEnv is NOT CrewAI behaviour: pass the whole parent environment
	// to a stdio server, for debugging. Labelled as such wherever shown.
	InheritEnv bool `json:"inherit_env,omitempty"`

	// Faults are injected in the client-side transport.
	Faults []Fault `json:"faults,omitempty"`

	// Origin is where the spec was declared ("crew.jsonc:12:7"), for messages.
	Origin string `json:"origin,omitempty"`

	// Executable, when set, is the program a stdio server is started with
	// instead of Command; names are still derived from Command. The embedded
	// demo declares `crewbench fixture NAME` and runs os.Executable(), so it
	// works without crewbench on PATH (added for crew's demo runner).
	Executable string `json:"executable,omitempty"`
}

// FilterSpec is a static allow/block list and an optional CEL expression.
// Static names compare exactly against the sanitized, unprefixed remote name
// (CrewAI's create_static_tool_filter).
type FilterSpec struct {
	Allowed []string `json:"allowed_tool_names,omitempty"`
	Blocked []string `json:"blocked_tool_names,omitempty"`
	// Expr is a CEL expression over `tool` and `context` (crewbench's
	// stand-in for create_dynamic_tool_filter).
	Expr string `json:"expr,omitempty"`
}

// IsZero reports whether the filter keeps everything.
func (f FilterSpec) IsZero() bool {
	return len(f.Allowed) == 0 && len(f.Blocked) == 0 && f.Expr == ""
}

// Timeouts overrides a policy's numbers. Zero fields keep CrewAI's values.
type Timeouts struct {
	Connect   time.Duration `json:"connect,omitempty"`
	Discovery time.Duration `json:"discovery,omitempty"`
	Call      time.Duration `json:"call,omitempty"`
	// Attempts is the number of tries per call (CrewAI: 3).
	Attempts int `json:"attempts,omitempty"`
	// Backoff is the first sleep between attempts; it doubles each time
	// (CrewAI: 2**attempt seconds, i.e. 1 s then 2 s).
	Backoff time.Duration `json:"backoff,omitempty"`
	// Probe bounds mcp-go's server/discover probe when ProtocolVersion is
	// "auto" (mcp-go's default: 5 s). Not a CrewAI number.
	Probe time.Duration `json:"probe,omitempty"`
	// Shutdown is the stdio grace period: after stdin is closed the server
	// gets this long to exit, then SIGTERM, then as long again before
	// SIGKILL (CrewAI / MCP SDK: 2 s).
	Shutdown time.Duration `json:"shutdown,omitempty"`
	// MaxMessage caps one message from the server (a stdio line, an HTTP
	// body, an SSE event), and so one tool result, in bytes
	// (DefaultMaxMessage). Not a CrewAI number: CrewAI reads whatever
	// arrives and passes a tool result whole to the LLM.
	MaxMessage int64 `json:"max_message_bytes,omitempty"`
	// MaxTools caps how many tools one server may list (DefaultMaxTools).
	// Not a CrewAI number either.
	MaxTools int `json:"max_tools,omitempty"`
}

// FaultKind is a kind of injected failure.
type FaultKind string

// Fault kinds.
const (
	FaultDelay        FaultKind = "delay"         // wait Delay, then proceed
	FaultHang         FaultKind = "hang"          // never answer (until the deadline)
	FaultJSONRPCError FaultKind = "jsonrpc_error" // answer with a JSON-RPC error
	FaultIsError      FaultKind = "is_error"      // answer with an isError result
	FaultDrop         FaultKind = "drop"          // drop the connection
	FaultGarbage      FaultKind = "garbage"       // answer with bytes that are not JSON-RPC
)

// Fault is one injected failure for a server, optionally limited to a tool
// and to the first N matching calls.
type Fault struct {
	Tool    string        `json:"tool,omitempty"` // remote tool name; "" = every tool
	Kind    FaultKind     `json:"kind"`
	Delay   time.Duration `json:"delay,omitempty"`
	Times   int           `json:"times,omitempty"` // 0 = every matching call
	Message string        `json:"message,omitempty"`
	Code    int           `json:"code,omitempty"`
}
