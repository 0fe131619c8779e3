package mcpconn

import (
	"strconv"
	"strings"
	"time"

	"crewbench/names"
	"crewbench/session"
)

// CrewAI's numbers (crewai-semantics.md §4.1). Three different sets; they
// are deliberately not merged.
const (
	// MCPClient defaults: native configs and AMP.
	NativeConnectTimeout   = 30 * time.Second
	NativeDiscoveryTimeout = 30 * time.Second
	NativeCallTimeout      = 30 * time.Second
	// tool_resolver.py module constants: https-string discovery only.
	HTTPSDiscoveryConnectTimeout = 10 * time.Second
	HTTPSDiscoveryTimeout        = 15 * time.Second
	// mcp_tool_wrapper.py: https-string tool calls (the whole attempt).
	HTTPSCallTimeout = 60 * time.Second

	MaxRetries     = 3
	InitialBackoff = time.Second
	// ToolsListCacheTTL is the 300 s TTL of both schema caches.
	ToolsListCacheTTL = 300 * time.Second
	// ShutdownGrace is the MCP SDK's PROCESS_TERMINATION_TIMEOUT.
	ShutdownGrace = 2 * time.Second
	// DefaultProbeTimeout is mcp-go's server/discover probe default.
	DefaultProbeTimeout = 5 * time.Second
)

// Limits are the effective numbers for one server under one policy:
// spec.Timeouts where set, else CrewAI's value for that policy. A zero Call
// means no per-call deadline (the adapter policy), bounded only by the
// caller's context.
type Limits struct {
	Connect   time.Duration `json:"connect"`
	Discovery time.Duration `json:"discovery"`
	Call      time.Duration `json:"call"`
	Attempts  int           `json:"attempts"`
	Backoff   time.Duration `json:"backoff"`
	Probe     time.Duration `json:"probe"`
	Shutdown  time.Duration `json:"shutdown"`
	// MaxMessage and MaxTools bound what a server can make crewbench hold.
	MaxMessage int64 `json:"max_message_bytes"`
	MaxTools   int   `json:"max_tools"`
}

// Size limits on what one server sends; ServerSpec.Timeouts overrides them.
const (
	// DefaultMaxMessage bounds one incoming message (and so one tool
	// result): far above any useful LLM context, far below a machine's memory.
	DefaultMaxMessage = 16 << 20
	// DefaultMaxTools bounds the tools one server may list.
	DefaultMaxTools = 10_000
)

// EffectivePolicy is the spec's policy, or CrewAI's for the ref kind.
func EffectivePolicy(spec ServerSpec) Policy {
	if spec.Policy != "" {
		return spec.Policy
	}
	if spec.Ref == RefHTTPS {
		return PolicyHTTPSString
	}
	return PolicyNative
}

// CallLimits returns the numbers a tool call uses under policy p.
func CallLimits(spec ServerSpec, p Policy) Limits {
	l := Limits{Connect: NativeConnectTimeout, Discovery: NativeDiscoveryTimeout, Call: NativeCallTimeout,
		Attempts: MaxRetries, Backoff: InitialBackoff}
	switch p {
	case PolicyHTTPSString:
		// The 60 s cap covers connect + initialize + call of one attempt.
		l.Connect, l.Call = HTTPSCallTimeout, HTTPSCallTimeout
	case PolicyAdapter:
		l.Call, l.Attempts = 0, 1
	case PolicySession:
		l.Attempts = 1
	}
	return override(spec, l)
}

// DiscoveryLimits returns the numbers tool discovery uses for the spec's ref
// kind: https-string discovery has its own 10 s + 5 s inside 15 s set; the
// other paths list through the MCPClient (30 s connect, 30 s per list attempt).
func DiscoveryLimits(spec ServerSpec) Limits {
	l := Limits{Connect: NativeConnectTimeout, Discovery: NativeDiscoveryTimeout, Call: NativeCallTimeout,
		Attempts: MaxRetries, Backoff: InitialBackoff}
	if spec.Ref == RefHTTPS {
		l.Connect, l.Discovery = HTTPSDiscoveryConnectTimeout, HTTPSDiscoveryTimeout
	}
	return override(spec, l)
}

func override(spec ServerSpec, l Limits) Limits {
	t := spec.Timeouts
	if t.Connect > 0 {
		l.Connect = t.Connect
	}
	if t.Discovery > 0 {
		l.Discovery = t.Discovery
	}
	if t.Call > 0 {
		l.Call = t.Call
	}
	if t.Attempts > 0 {
		l.Attempts = t.Attempts
	}
	if t.Backoff > 0 {
		l.Backoff = t.Backoff
	}
	l.Probe = DefaultProbeTimeout
	if t.Probe > 0 {
		l.Probe = t.Probe
	}
	l.Shutdown = ShutdownGrace
	if t.Shutdown > 0 {
		l.Shutdown = t.Shutdown
	}
	l.MaxMessage = DefaultMaxMessage
	if t.MaxMessage > 0 {
		l.MaxMessage = t.MaxMessage
	}
	l.MaxTools = DefaultMaxTools
	if t.MaxTools > 0 {
		l.MaxTools = t.MaxTools
	}
	return l
}

// backoff returns the sleep after attempt n (1-based): Backoff * 2^(n-1),
// CrewAI's 2**attempt seconds.
func (l Limits) backoff(n int) time.Duration {
	return l.Backoff << (n - 1)
}

// seconds formats a duration the way CrewAI's f-strings print its int
// constants: "30", and "1.5" for a fractional override.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// CrewAIServerName is CrewAI's server_name for the spec, used as the tool
// name prefix (§2.2): "command_arg1_arg2" for stdio, netloc+path for URLs.
func CrewAIServerName(spec ServerSpec) (string, error) {
	if spec.Transport == TransportStdio {
		return names.StdioServerName(spec.Command, spec.Args), nil
	}
	return names.URLServerName(spec.URL)
}

// EventServerName is the server_name CrewAI puts on its MCP events (§4.2):
// "{command} {' '.join(args)}" for stdio, the URL hostname for HTTP/SSE.
func EventServerName(spec ServerSpec) string {
	if spec.Transport == TransportStdio {
		return spec.Command + " " + strings.Join(spec.Args, " ")
	}
	// CrewAI falls back to the URL when it has no hostname
	// (mcp/client.py:55-56); crewbench redacts its secrets.
	if u, err := names.PyURLParse(spec.URL); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return session.RedactURL(spec.URL)
}

// Handle is crewbench's name for the server: spec.Name, or a readable
// default for ad-hoc servers (the stdio command line, or the redacted URL).
func Handle(spec ServerSpec) string {
	if spec.Name != "" {
		return spec.Name
	}
	if spec.Transport == TransportStdio {
		return strings.TrimSpace(spec.Command + " " + strings.Join(spec.Args, " "))
	}
	return session.RedactURL(spec.URL)
}

// stripFragment returns the URL without "#…" (https string refs carry the
// selected tool there; the cache and the connection use the bare URL).
func stripFragment(raw string) string {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		return raw[:i]
	}
	return raw
}
