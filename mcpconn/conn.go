package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"crewbench/session"
)

// ClientVersion is sent as clientInfo.version under the session policy;
// main may set it at start-up.
var ClientVersion = "dev"

// crewAIClientInfo is the clientInfo CrewAI's MCP client sends: the MCP
// Python SDK's ClientSession default, which CrewAI never overrides.
var crewAIClientInfo = mcp.Implementation{Name: "mcp", Version: "0.1.0"}

// crewAIWire reports whether a session speaks as CrewAI's SDK does: every
// policy but crewbench's own session policy. The session policy keeps
// crewbench's conveniences (its own clientInfo, progress tokens so progress
// notifications become events).
func crewAIWire(spec ServerSpec) bool { return EffectivePolicy(spec) != PolicySession }

// WireNote says, for the Servers view, whose wire conventions the spec's
// policy follows.
func WireNote(spec ServerSpec) string {
	if crewAIWire(spec) {
		return "CrewAI's MCP SDK wire: clientInfo mcp 0.1.0, no progress tokens, tools/list after each successful call"
	}
	return "crewbench's wire (session policy): clientInfo crewbench " + ClientVersion + ", progress tokens so progress notifications become events"
}

// mcpSession is the small surface crewbench needs from an MCP client
// library. Everything above it (policies, discovery, the pool) is written
// against this interface, so mcp-go (which churns fast; guide 2.9 #10) can
// be swapped or upgraded behind one file.
type mcpSession interface {
	Info() ServerInfo
	// ListToolsPage returns one raw tools/list result, exactly as the
	// server sent it, and the next cursor ("" when done).
	ListToolsPage(ctx context.Context, cursor string) (json.RawMessage, string, error)
	CallTool(ctx context.Context, name string, args any) (*toolResult, error)
	Ping(ctx context.Context) error
	Close() error
	// Pid is the stdio child's process id (0 for HTTP/SSE).
	Pid() int
	// SetSpan sets the span that point events (frames, stderr,
	// notifications) are attached to.
	SetSpan(span string)
	// failure explains err from an operation of this session: outcome
	// class, JSON-RPC code and the text CrewAI would have seen.
	failure(ctx context.Context, err error, tr *reqTrace) failureInfo
}

// ServerInfo is what the handshake told us.
type ServerInfo struct {
	Name            string          `json:"name"`
	Version         string          `json:"version"`
	Title           string          `json:"title,omitempty"`
	ProtocolVersion string          `json:"protocol_version"`
	Instructions    string          `json:"instructions,omitempty"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	ToolsListChange bool            `json:"tools_list_changed"`
	Logging         bool            `json:"logging"`
	// Declared lists the client capabilities crewbench declared in the
	// handshake (ClientFeatures.Declared); empty is CrewAI's client, which
	// declares none.
	Declared []string `json:"client_capabilities,omitempty"`
	// SessionID is the Mcp-Session-Id a streamable-HTTP server assigned
	// ("" otherwise). Kept out of JSON output: it is a per-run value.
	SessionID string `json:"-"`
	// OAuthToken says the session's requests carried crewbench's stored
	// OAuth token (not a configured header): CrewAI would not have sent it.
	OAuthToken bool `json:"-"`
}

// toolResult is a tools/call result: mcp-go's parsed content plus the raw JSON.
type toolResult struct {
	res *mcp.CallToolResult
	raw json.RawMessage
}

// dialOptions configure one connection.
type dialOptions struct {
	em     *session.Emitter
	limits Limits
	faults *FaultState
	// listen keeps a streamable-HTTP GET stream open for server
	// notifications (pool connections only; per-call ones don't need it).
	listen bool
	// onListChanged is called (non-blocking) on notifications/tools/list_changed.
	onListChanged func()
	// auth authorizes the connection's HTTP requests (nil: none). Callers
	// pass it only for crewbench's own connections (authFor).
	auth Authorizer
	// features are the client capabilities declared beyond CrewAI's
	// (session policy only; nil: none).
	features *ClientFeatures
}

// Authorizer adds credentials that the spec does not configure to the HTTP
// requests of a server: crewbench's OAuth client (mcpconn/oauth). It is
// used by crewbench's own connections only — the session policy's calls,
// discovery and the pool — never by a call under CrewAI's policies, which
// send exactly the configured headers, as CrewAI does.
type Authorizer interface {
	Transport(serverURL string, base http.RoundTripper) http.RoundTripper
}

// dialFunc opens an initialized session. A variable so benchmarks can
// compare against bare mcp-go without changing the production path.
type dialFunc func(ctx context.Context, spec ServerSpec, o dialOptions) (mcpSession, error)

// mcpgoSession implements mcpSession with mark3labs/mcp-go.
type mcpgoSession struct {
	spec    ServerSpec
	secrets serverSecrets // hides spec's secrets in stderr, frames and errors
	c       *client.Client
	tap     *tap
	stdio   *stdioTransport
	hc      *http.Client
	life    context.CancelFunc
	info    ServerInfo
	em      *session.Emitter
	span    atomic.Value // string
	conn    *reqTrace    // statuses seen outside a request (SSE stream)
	closed  atomic.Bool
	once    sync.Once
	// crewAI is crewAIWire(spec): no progress token, and the SDK's
	// output-schema cache below.
	crewAI bool
	// listed holds the tool names a tools/list on this session returned:
	// the SDK's ClientSession caches their output schemas, and after a
	// non-error tools/call of a tool it has not cached it lists the tools
	// again (to validate structured content) on the same session.
	listedMu sync.Mutex
	listed   map[string]bool
	// oauthToken is set once a request went out with the Authorizer's
	// token rather than a configured Authorization header.
	oauthToken atomic.Bool
}

var quietLogger = slog.New(slog.DiscardHandler)

// dial starts the transport and performs the handshake within ctx (the
// caller puts the connect timeout on it). The connection itself lives on a
// context of its own that only Close cancels (guide 2.9 #3).
//
// With ProtocolVersion "auto", a server that dies on the unexpected
// server/discover probe (guide 2.9 #2) is started once more, pinned to
// DefaultProtocolVersion.
func dial(ctx context.Context, spec ServerSpec, o dialOptions) (mcpSession, error) {
	s, err := dialOnce(ctx, spec, o)
	var de *dialError
	if err == nil || spec.ProtocolVersion != "auto" || ctx.Err() != nil ||
		!errors.As(err, &de) || de.f.Class != session.OutcomeTransportClosed {
		return s, err
	}
	o.em.Emit(session.Event{Kind: session.Warning, Server: Handle(spec), Data: map[string]any{
		"message": "the server closed the connection during the server/discover probe; retrying pinned to " + DefaultProtocolVersion}})
	pinned := spec
	pinned.ProtocolVersion = DefaultProtocolVersion
	return dialOnce(ctx, pinned, o)
}

func dialOnce(ctx context.Context, spec ServerSpec, o dialOptions) (mcpSession, error) {
	s := &mcpgoSession{spec: spec, secrets: newServerSecrets(spec), em: o.em, conn: &reqTrace{}, crewAI: crewAIWire(spec)}
	s.span.Store("")
	lifeCtx, cancel := context.WithCancel(context.WithValue(context.Background(), traceKey{}, s.conn))
	s.life = cancel

	var inner transport.Interface
	switch spec.Transport {
	case TransportStdio:
		env := EnvList(StdioEnvironment(spec, nil))
		s.stdio = newStdioTransport(stdioProgram(spec), spec.Args, env, o.limits.Shutdown, o.limits.MaxMessage, s.stdioHooks())
		inner = s.stdio
	case TransportHTTP, TransportSSE:
		var auth func(http.RoundTripper) http.RoundTripper
		if o.auth != nil {
			configured := HasHeader(spec.Headers, "Authorization")
			auth = func(base http.RoundTripper) http.RoundTripper {
				// What reaches base is the request as sent: an Authorization
				// there that the spec did not configure is the stored token.
				seen := roundTripFunc(func(r *http.Request) (*http.Response, error) {
					if !configured && r.Header.Get("Authorization") != "" {
						s.oauthToken.Store(true)
					}
					return base.RoundTrip(r)
				})
				return o.auth.Transport(stripFragment(spec.URL), seen)
			}
		}
		s.hc = newHTTPClient(o.limits.Connect, o.limits.MaxMessage, auth)
		var err error
		if spec.Transport == TransportHTTP {
			opts := []transport.StreamableHTTPCOption{
				transport.WithHTTPHeaders(spec.Headers),
				transport.WithHTTPBasicClient(s.hc),
				transport.WithHTTPLogger(quietLogger),
			}
			if (o.listen || len(o.features.Declared()) > 0 && !crewAIWire(spec)) && spec.ProtocolVersion != "auto" {
				// Legacy (pinned) sessions need the GET stream to hear
				// tools/list_changed while idle (guide 2.6), and to hear
				// the requests a server sends there rather than on the
				// call's own stream (mcp-go servers send sampling and
				// roots/list only there).
				//lint:ignore SA1019 crewbench pins the legacy protocol on purpose.
				opts = append(opts, transport.WithContinuousListening())
			}
			inner, err = transport.NewStreamableHTTP(stripFragment(spec.URL), opts...)
		} else {
			inner, err = transport.NewSSE(stripFragment(spec.URL),
				transport.WithHeaders(spec.Headers),
				transport.WithHTTPClient(s.hc),
				transport.WithSSELogger(quietLogger),
				// SSE hides a 60 s per-request cap; deadlines come from ctx.
				transport.WithResponseTimeout(24*time.Hour),
				transport.WithEndpointTimeout(o.limits.Connect))
		}
		if err != nil {
			cancel()
			return nil, fmt.Errorf("invalid URL %s: %w", session.RedactURL(spec.URL), err)
		}
	default:
		cancel()
		return nil, fmt.Errorf("unknown transport %q", spec.Transport)
	}

	var features *ClientFeatures
	if !s.crewAI {
		features = o.features
	}
	s.tap = &tap{Interface: inner, spec: spec, faults: o.faults, onFrame: s.emitFrame,
		crewAI: s.crewAI, features: features, onServerRequest: s.emitServerRequest}
	s.tap.onClose = func() { _ = inner.Close() }
	if sse, ok := inner.(*transport.SSE); ok {
		s.tap.watchStream(sse)
	}
	var tr transport.Interface = s.tap
	if spec.Transport != TransportStdio {
		tr = httpTap{s.tap}
	}

	var copts []client.ClientOption
	switch v := spec.ProtocolVersion; v {
	case "auto":
		copts = append(copts, client.WithDiscoverTimeout(o.limits.Probe))
	case "":
		copts = append(copts, client.WithProtocolVersion(DefaultProtocolVersion))
	default:
		copts = append(copts, client.WithProtocolVersion(v))
	}
	copts = append(copts, features.clientOptions(Handle(spec))...)
	s.c = client.NewClient(tr, copts...)
	s.c.OnNotification(func(n mcp.JSONRPCNotification) { s.notification(n, o.onListChanged) })

	// Start can block (SSE waits for its endpoint event), and it must get
	// the long-lived context, so it runs aside and is abandoned on timeout.
	startErr := make(chan error, 1)
	go func() { startErr <- s.c.Start(lifeCtx) }()
	select {
	case err := <-startErr:
		if err != nil {
			return nil, s.dialFailed(ctx, "start", err, nil)
		}
	case <-ctx.Done():
		s.expire()
		s.Close()
		<-startErr
		return nil, s.dialFailed(ctx, "start", ctx.Err(), nil)
	}

	ictx, itr := withTrace(ctx)
	info := mcp.Implementation{Name: "crewbench", Version: ClientVersion}
	if s.crewAI {
		info = crewAIClientInfo
	}
	res, err := s.c.Initialize(ictx, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: info}})
	if err != nil {
		return nil, s.dialFailed(ictx, "initialize", err, itr)
	}
	s.info = ServerInfo{
		Name: res.ServerInfo.Name, Version: res.ServerInfo.Version, Title: res.ServerInfo.Title,
		ProtocolVersion: s.c.ProtocolVersion(), Instructions: res.Instructions,
		ToolsListChange: res.Capabilities.Tools != nil && res.Capabilities.Tools.ListChanged,
		Logging:         res.Capabilities.Logging != nil,
		SessionID:       s.c.GetSessionId(),
		Declared:        features.Declared(),
	}
	if raw, _, _, _ := itr.snapshot(); len(raw) > 0 {
		var r struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(raw, &r) == nil {
			s.info.Capabilities = r.Capabilities
		}
	}
	if s.info.Capabilities == nil {
		s.info.Capabilities, _ = json.Marshal(res.Capabilities)
	}
	return s, nil
}

// newHTTPClient bounds dialing and TLS with the connect timeout but never
// the whole request (http.Client.Timeout would cut streamed responses;
// guide 2.5). Each session gets its own transport so Close can drop its
// idle connections and their goroutines. auth, when set, wraps the
// transport inside the status recorder, so a 401 it recovers from is not
// recorded.
func newHTTPClient(connect time.Duration, maxMessage int64, auth func(http.RoundTripper) http.RoundTripper) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	base.DialContext = d.DialContext
	base.TLSHandshakeTimeout = connect
	var rt http.RoundTripper = base
	if auth != nil {
		rt = idleCloser{RoundTripper: auth(base), base: base}
	}
	return &http.Client{Transport: statusRecorder{base: rt, maxMessage: maxMessage}}
}

// idleCloser keeps CloseIdleConnections reaching the base transport
// through a wrapping RoundTripper.
type idleCloser struct {
	http.RoundTripper
	base *http.Transport
}

func (i idleCloser) CloseIdleConnections() { i.base.CloseIdleConnections() }

// dialFailed classifies a failed connect while the session still knows
// what happened (exit status, stdout garbage, HTTP status), then closes it.
func (s *mcpgoSession) dialFailed(ctx context.Context, phase string, err error, tr *reqTrace) error {
	var f failureInfo
	var se *spawnError
	if errors.As(err, &se) {
		f = failureInfo{Class: session.OutcomeSpawnFailed, Text: se.Error(), Detail: spawnDetail(se)}
	} else {
		// Let a dying child finish exiting so its status can be reported.
		if s.stdio != nil && errors.Is(err, transport.ErrTransportClosed) {
			waitClosed(s.stdio.exited, 200*time.Millisecond)
		}
		f = s.failure(ctx, err, tr)
	}
	s.Close()
	if s.stdio != nil && f.Class != session.OutcomeSpawnFailed {
		if tail := s.stdio.lastStderr(); len(tail) > 0 {
			f.Detail += "; server stderr: " + s.secrets.redact(strings.Join(tail, " | "))
		}
	}
	return &dialError{phase: phase, f: f, err: err}
}

func (s *mcpgoSession) Info() ServerInfo {
	i := s.info
	i.OAuthToken = s.oauthToken.Load()
	return i
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// HasHeader reports whether headers set name (HTTP names ignore case).
func HasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

func (s *mcpgoSession) Pid() int {
	if s.stdio == nil {
		return 0
	}
	return s.stdio.Pid()
}

func (s *mcpgoSession) SetSpan(span string) { s.span.Store(span) }

func (s *mcpgoSession) curSpan() string { v, _ := s.span.Load().(string); return v }

func (s *mcpgoSession) ListToolsPage(ctx context.Context, cursor string) (json.RawMessage, string, error) {
	ctx, tr := withTrace(ctx)
	req := mcp.ListToolsRequest{}
	req.Params.Cursor = mcp.Cursor(cursor)
	if _, err := s.c.ListToolsByPage(ctx, req); err != nil {
		return nil, "", err
	}
	raw, _, _, _ := tr.snapshot()
	var page struct {
		NextCursor string `json:"nextCursor"`
		Tools      []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, "", fmt.Errorf("tools/list result: %w", err)
	}
	s.listedMu.Lock()
	if s.listed == nil {
		s.listed = map[string]bool{}
	}
	for _, t := range page.Tools {
		s.listed[t.Name] = true
	}
	s.listedMu.Unlock()
	return raw, page.NextCursor, nil
}

func (s *mcpgoSession) CallTool(ctx context.Context, name string, args any) (*toolResult, error) {
	tr := traceFrom(ctx)
	if tr == nil {
		ctx, tr = withTrace(ctx)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	if !s.crewAI {
		// Opt in to progress notifications (they become events).
		req.Params.Meta = &mcp.Meta{ProgressToken: "crewbench-" + session.NewID()}
	}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	raw, _, _, _ := tr.snapshot()
	if s.crewAI && !res.IsError && !s.hasListed(name) {
		// The SDK's output-schema lookup (ClientSession.call_tool →
		// _validate_tool_result): one tools/list page on this session,
		// within the call's deadline. A failed list leaves the result as it
		// is: what the call returned is what the user is stepping through.
		_, _, _ = s.ListToolsPage(ctx, "")
	}
	return &toolResult{res: res, raw: raw}, nil
}

func (s *mcpgoSession) hasListed(tool string) bool {
	s.listedMu.Lock()
	defer s.listedMu.Unlock()
	return s.listed[tool]
}

// Ping is deprecated in the 2026-07-28 era, but crewbench pins 2025-11-25
// by default, where it is the liveness check.
func (s *mcpgoSession) Ping(ctx context.Context) error {
	//lint:ignore SA1019 see above.
	return s.c.Ping(ctx)
}

// Close ends the session and, for stdio, reaps the process group. Safe to
// call more than once.
func (s *mcpgoSession) Close() error {
	s.once.Do(func() {
		s.closed.Store(true)
		if s.c != nil {
			_ = s.c.Close()
		}
		s.life()
		if s.hc != nil {
			s.hc.CloseIdleConnections()
		}
	})
	return nil
}

// ---- events from the wire -------------------------------------------------

const maxFramePayload = 2 << 10

func (s *mcpgoSession) emitFrame(f frame) {
	if s.em == nil {
		return
	}
	dir := "recv"
	if f.Out {
		dir = "send"
	}
	raw, truncated := f.Body, false
	if len(raw) > maxFramePayload {
		raw, truncated = raw[:maxFramePayload], true
	}
	body := s.secrets.redact(string(raw))
	s.em.Emit(session.Event{Kind: session.MCPFrame, Server: Handle(s.spec), Parent: s.curSpan(),
		Data: map[string]any{session.KeyDirection: dir, session.KeyMethod: f.Method, session.KeyRequestID: f.ID, "bytes": f.Size,
			session.KeyFrame: body, "truncated": truncated}})
}

// emitServerRequest reports a request the server sent and its answer.
func (s *mcpgoSession) emitServerRequest(method, id, summary string, refused bool) {
	if s.em == nil {
		return
	}
	s.em.Emit(session.Event{Kind: session.MCPServerRequest, Server: Handle(s.spec), Parent: s.curSpan(),
		Data: map[string]any{session.KeyMethod: method, session.KeyRequestID: id,
			session.KeyMessage: s.secrets.redact(summary), "refused": refused}})
}

func (s *mcpgoSession) stdioHooks() stdioHooks {
	return stdioHooks{
		spawned: func(pid int) {
			env := RedactEnv(StdioEnvironment(s.spec, nil))
			s.em.Emit(session.Event{Kind: session.MCPProcessSpawned, Server: Handle(s.spec), Parent: s.curSpan(),
				Data: map[string]any{"pid": pid, "command": s.spec.Command, "args": s.spec.Args,
					"env": envMap(env), "inherit_env": s.spec.InheritEnv}})
		},
		exited: func(pid int, st *os.ProcessState, err error) {
			d := map[string]any{"pid": pid}
			if st != nil {
				d["exit_code"] = st.ExitCode()
				d["state"] = st.String()
			}
			if s.closed.Load() {
				d["reason"] = "closed"
			} else {
				d["reason"] = "exited on its own"
			}
			s.em.Emit(session.Event{Kind: session.MCPProcessExited, Server: Handle(s.spec), Parent: s.curSpan(), Data: d})
		},
		stderr: func(line string) {
			s.em.Emit(session.Event{Kind: session.MCPStderr, Server: Handle(s.spec), Parent: s.curSpan(),
				Data: map[string]any{session.KeyLine: s.secrets.redact(line)}})
		},
		unreaped: func(pids []int) {
			s.em.Emit(session.Event{Kind: session.Warning, Server: Handle(s.spec), Parent: s.curSpan(),
				Data: map[string]any{session.KeyMessage: fmt.Sprintf("could not end %d process(es) the server started outside its process group (pids %v); end them by hand", len(pids), pids),
					"pids": pids}})
		},
		garbage: func(line string) {
			s.em.Emit(session.Event{Kind: session.MCPFrame, Server: Handle(s.spec), Parent: s.curSpan(),
				Data: map[string]any{session.KeyDirection: "recv", "garbage": true, session.KeyFrame: line, "bytes": len(line)}})
		},
	}
}

func envMap(vars []EnvVar) map[string]any {
	m := make(map[string]any, len(vars))
	for _, v := range vars {
		m[v.Name] = v.Value
	}
	return m
}

// notification runs on the transport's read loop: it only emits and
// signals, never waits (guide 2.6).
func (s *mcpgoSession) notification(n mcp.JSONRPCNotification, onListChanged func()) {
	kind := "other"
	data := map[string]any{"method": n.Method}
	for k, v := range n.Params.AdditionalFields {
		data[k] = v
	}
	switch n.Method {
	case "notifications/message":
		kind = "logging"
	case "notifications/progress":
		kind = "progress"
	case string(mcp.MethodNotificationToolsListChanged):
		kind = "tools_list_changed"
		if onListChanged != nil {
			onListChanged()
		}
	case "notifications/resources/list_changed", "notifications/prompts/list_changed":
		kind = "list_changed"
	}
	data["kind"] = kind
	s.em.Emit(session.Event{Kind: session.MCPNotification, Server: Handle(s.spec), Parent: s.curSpan(), Data: data})
}

// ---- classification -------------------------------------------------------

// failureInfo explains one failed operation.
type failureInfo struct {
	Class string // session.Outcome*
	Code  int    // JSON-RPC error code for OutcomeJSONRPCError
	// Text is the message CrewAI's Python stack would have put in `{e}`.
	Text string
	// Detail is crewbench's own explanation (Go error text, redacted).
	Detail string
	// Timeout says CrewAI would have seen a timeout (drives retries even
	// when Class is more specific, e.g. protocol for garbage output).
	Timeout bool
}

// expire shortens the shutdown of a server that missed a deadline.
func (s *mcpgoSession) expire() {
	if s.stdio != nil {
		s.stdio.expired.Store(true)
	}
}

func (s *mcpgoSession) failure(ctx context.Context, err error, tr *reqTrace) failureInfo {
	f := classify(ctx, err, tr, s.conn)
	if f.Class == session.OutcomeTimeout || f.Class == session.OutcomeCancelled {
		// Whoever closes the session next should not wait out the full
		// grace period on a server that has shown it does not answer.
		s.expire()
	}
	if s.stdio != nil {
		if n, last := s.stdio.garbageSeen(); n > 0 && (f.Class == session.OutcomeTimeout || f.Class == session.OutcomeTransportClosed) {
			f.Class = session.OutcomeProtocol
			f.Detail = fmt.Sprintf("%s (server wrote %d non-JSON-RPC line(s) on stdout, last: %q)", f.Detail, n, last)
		}
		if f.Class == session.OutcomeTransportClosed {
			select {
			case <-s.stdio.exited:
				if st := s.stdio.cmd.ProcessState; st != nil {
					f.Detail = fmt.Sprintf("%s (server process %s)", f.Detail, st.String())
				}
			default:
			}
		}
	}
	f.Detail = s.secrets.redact(f.Detail)
	f.Text = s.secrets.redact(f.Text)
	return f
}

// classify maps an error to an outcome class, checking our own context
// first (mcp-go's errors differ per transport; guide 2.5 / 2.9 #7).
func classify(ctx context.Context, err error, tr, conn *reqTrace) failureInfo {
	f := failureInfo{Detail: collapseRepeats(err.Error()), Text: err.Error()}
	_, rpcErr, status, _ := tr.snapshot()
	if status == 0 {
		_, connErr, connStatus, _ := conn.snapshot()
		status = connStatus
		if rpcErr == nil {
			rpcErr = connErr
		}
	}
	var se *spawnError
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), errOurTimeout):
		f.Class, f.Timeout = session.OutcomeTimeout, true
	case ctx.Err() != nil:
		// The caller's context ended (Ctrl+C, or its own deadline).
		f.Class = session.OutcomeCancelled
	case errors.As(err, &se):
		f.Class = session.OutcomeSpawnFailed
		f.Detail = spawnDetail(err)
	case tooLargeIn(err, tr) != nil:
		// Not what CrewAI would see (it has no limit), so both texts say
		// why. Not the connection's trace: an oversized notification on a
		// listening stream says nothing about this request (a lost legacy
		// SSE stream fails requests with the size error itself).
		f.Class = session.OutcomeProtocol
		f.Text = tooLargeIn(err, tr).Error()
		f.Detail = f.Text
	case errors.Is(err, transport.ErrAuthorizationRequired), errors.Is(err, transport.ErrOAuthAuthorizationRequired):
		// A 401 on a later request of a session: the status recorded for it
		// may be missing, and the connection's own (the GET stream's
		// 404/405) says nothing about this request.
		f.Class = session.OutcomeAuth
		f.Text = httpxStatusText(http.StatusUnauthorized)
	case rpcErr != nil:
		f.Code, f.Text = rpcErr.Code, rpcErr.Message
		f.Class = session.OutcomeJSONRPCError
		low := strings.ToLower(rpcErr.Message)
		if rpcErr.Code == mcp.METHOD_NOT_FOUND || (rpcErr.Code == mcp.INVALID_PARAMS && strings.Contains(low, "not found")) ||
			strings.Contains(low, "unknown tool") {
			f.Class = session.OutcomeNotFound
		}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		f.Class = session.OutcomeAuth
		f.Text = httpxStatusText(status)
	case status == http.StatusNotFound:
		f.Class = session.OutcomeNotFound
		f.Text = httpxStatusText(status)
		if errors.Is(err, transport.ErrLegacySSEServer) {
			// mcp-go guesses "legacy SSE" from any 4xx; a 404 says only
			// that nothing serves MCP at this path (the probe says so too).
			f.Detail = "the initialize POST got 404 Not Found: nothing serves MCP at this path"
		}
	case errors.Is(err, transport.ErrTransportClosed), errors.Is(err, transport.ErrSessionTerminated),
		strings.Contains(err.Error(), "connection has been closed"), strings.Contains(err.Error(), "connection refused"),
		strings.Contains(err.Error(), "EOF"), strings.Contains(err.Error(), "connection reset"):
		f.Class = session.OutcomeTransportClosed
		// The MCP SDK reports a dead peer as McpError "Connection closed".
		f.Text = "Connection closed"
	case isTimeoutErr(err):
		f.Class, f.Timeout = session.OutcomeTimeout, true
	case status >= 400:
		f.Class = session.OutcomeProtocol
		f.Text = httpxStatusText(status)
	default:
		// Unparseable results, unknown content types, missing content.
		f.Class = session.OutcomeProtocol
	}
	return f
}

// spawnDetail explains a failed spawn, with the fix when the command is
// not found.
func spawnDetail(err error) string {
	if errors.Is(err, exec.ErrNotFound) {
		return err.Error() + " (install it or put its directory on PATH, or declare the command by its absolute path)"
	}
	return collapseRepeats(err.Error())
}

// collapseRepeats drops a ": "-separated part that repeats the one before
// it: mcp-go wraps some errors twice with the same words ("failed to send
// request: failed to send request: Post …").
func collapseRepeats(s string) string {
	parts := strings.Split(s, ": ")
	out := parts[:1]
	for _, p := range parts[1:] {
		if p != out[len(out)-1] {
			out = append(out, p)
		}
	}
	return strings.Join(out, ": ")
}

func isTimeoutErr(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return strings.Contains(err.Error(), "timeout waiting for")
}

// httpxStatusText is how Python's httpx words an HTTP error; CrewAI
// classifies by these words ("unauthorized" → no retry), so the same text
// reproduces its decisions.
func httpxStatusText(status int) string {
	kind := "Client error"
	if status >= 500 {
		kind = "Server error"
	}
	return fmt.Sprintf("%s '%d %s'", kind, status, http.StatusText(status))
}

// errOurTimeout is the cause of every deadline crewbench sets (connect,
// list, call), so a timeout of ours is never confused with the caller
// cancelling.
var errOurTimeout = errors.New("crewbench timeout")

// withLimit bounds ctx by d (no bound when d <= 0) with errOurTimeout as cause.
func withLimit(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, errOurTimeout)
}
