package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"crewbench/mcpconn/pyrepr"
	"crewbench/names"
	"crewbench/session"
)

// Attempt is one try of an operation under a policy.
type Attempt struct {
	N        int           `json:"n"`
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns"`
	Outcome  string        `json:"outcome"`
	Code     int           `json:"code,omitempty"` // JSON-RPC error code
	Error    string        `json:"error,omitempty"`
	// Backoff is the sleep scheduled after this attempt (0 = none).
	Backoff time.Duration `json:"backoff_ns,omitempty"`
	// Spawned is the pid of a stdio server started for this attempt.
	Spawned int `json:"spawned_pid,omitempty"`
}

// Phase is the connect step of a call.
type Phase struct {
	Duration time.Duration `json:"duration_ns"`
	Outcome  string        `json:"outcome"`
	Error    string        `json:"error,omitempty"`
	Pid      int           `json:"pid,omitempty"`
}

// ContentItem is one content item of a tool result, for display.
type ContentItem struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	MIMEType string          `json:"mime_type,omitempty"`
	URI      string          `json:"uri,omitempty"`
	Bytes    int             `json:"bytes,omitempty"` // decoded size hint for data items
	Raw      json.RawMessage `json:"raw,omitempty"`
}

// Failure reasons (CrewAI's ToolFailure reasons, §5.6).
const (
	FailureMCPError  = "mcp_error" // isError result on the native path
	FailureException = "exception" // the tool raised
)

// CallResult is everything about one tool call under a policy.
type CallResult struct {
	Server string `json:"server"`
	// Tool is the remote name asked for; CallName is what was sent (the
	// https-string path sends the sanitized name, §2.3); LLMName is the
	// name the LLM would have called.
	Tool     string `json:"tool"`
	CallName string `json:"call_name"`
	LLMName  string `json:"llm_name"`
	Policy   Policy `json:"policy"`
	Limits   Limits `json:"limits"`
	// Arguments is the JSON object sent, after the policy's argument
	// preparation, in the order sent.
	Arguments json.RawMessage `json:"arguments"`

	// Text is what CrewAI's tool returns to the agent, or the text of the
	// exception it raises (Raised).
	Text string `json:"text"`
	// Failed says the agent's failure machinery sees a failure (a
	// ToolFailure or an exception). On the https-string path errors come
	// back as ordinary strings: Failed is false though Outcome is not ok.
	Failed        bool   `json:"failed"`
	FailureReason string `json:"failure_reason,omitempty"`
	Raised        bool   `json:"raised,omitempty"`

	Content    []ContentItem   `json:"content,omitempty"`
	Structured json.RawMessage `json:"structured_content,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Raw        json.RawMessage `json:"raw,omitempty"`

	Connects []Phase   `json:"connects,omitempty"`
	Attempts []Attempt `json:"attempts"`
	// Outcome is the final class; Code the JSON-RPC code when relevant;
	// Error crewbench's own (redacted) explanation.
	Outcome string `json:"outcome"`
	Code    int    `json:"code,omitempty"`
	Error   string `json:"error,omitempty"`
	// Fix says what to do about an auth failure (AuthHint).
	Fix      string        `json:"fix,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Call calls one tool the way CrewAI would under the spec's policy (or
// CrewAI's default for its ref kind). tool is the remote name. Every number
// comes from spec.Timeouts where set, else CrewAI's defaults. Call never
// returns an error: every failure is described in the result.
func Call(ctx context.Context, spec ServerSpec, tool string, args map[string]any, opts Options) *CallResult {
	return CallJSON(ctx, spec, tool, mapArguments(args), opts)
}

// CallJSON is Call with the arguments as a JSON object (empty or null for
// none), sent in its key order: CrewAI sends its arguments in the order of
// the tool's argument model, which a Go map cannot keep. Arguments that are
// not a JSON object are refused before anything is sent.
func CallJSON(ctx context.Context, spec ServerSpec, tool string, args json.RawMessage, opts Options) *CallResult {
	p := EffectivePolicy(spec)
	r := &CallResult{Server: Handle(spec), Tool: tool, CallName: tool, Policy: p, Limits: CallLimits(spec, p)}
	r.LLMName = llmName(spec, p, tool)
	if p == PolicyHTTPSString {
		r.CallName = names.Sanitize(tool)
	}
	prepared, err := policyArguments(p, args)
	if err != nil {
		r.Arguments = json.RawMessage("{}")
		r.Text, r.Failed, r.FailureReason, r.Raised = err.Error(), true, FailureException, true
		r.Outcome, r.Error = session.OutcomeProtocol, err.Error()
		return r
	}
	r.Arguments = prepared
	if opts.Faults == nil {
		opts.Faults = &FaultState{}
	}
	c := &caller{spec: spec, opts: opts, r: r, span: opts.Emitter.NewSpan(), start: time.Now()}
	if p != PolicyNative {
		c.emitStart()
	}
	switch p {
	case PolicyHTTPSString:
		c.httpsString(ctx)
	case PolicyAdapter, PolicySession:
		c.persistent(ctx)
	default:
		c.native(ctx)
	}
	r.Duration = time.Since(c.start)
	r.Fix = AuthHint(spec, r.Outcome, r.Error+" "+r.Text, p)
	c.emitEnd()
	return r
}

func llmName(spec ServerSpec, p Policy, tool string) string {
	if p == PolicyAdapter {
		return names.AdapterToolName(tool)
	}
	server, err := CrewAIServerName(spec)
	if err != nil {
		return names.Sanitize(tool)
	}
	if spec.Ref == RefHTTPS {
		_, llm, _ := names.HTTPSRefTool(server, tool)
		return llm
	}
	_, llm, _ := names.NativeTool(server, tool)
	return llm
}

type caller struct {
	spec  ServerSpec
	opts  Options
	r     *CallResult
	span  string
	start time.Time
	// dialFailure is the last failed connect, classified, before CrewAI's
	// connect wording was applied to it.
	dialFailure failureInfo
	// connParent, when set, is the scope of connection events emitted
	// before the call's own start (the native policy's connect).
	connParent string
}

// ---- native ------------------------------------------------------------------

// native: a fresh transport and session for this call (a stdio server is
// spawned for it), connect capped and not retried, then up to Attempts
// tries of Call each on that session, retrying timeouts and unclassified
// errors after 1 s, 2 s, …; auth and not-found fail at once (§4.2).
//
// CrewAI's MCPClient connects inside the tool call and emits
// mcp_tool_execution_started only once connected, so the native call's
// start follows its connection events, which belong to the tool scope.
func (c *caller) native(ctx context.Context) {
	l := c.r.Limits
	c.connParent = c.opts.Parent
	s, ok := c.connect(ctx, c.spec, l.Connect, false)
	c.connParent = ""
	c.emitStart()
	if !ok {
		return
	}
	defer c.closeSession(s)
	var last failureInfo
	for n := 1; n <= l.Attempts; n++ {
		res, f, err := c.attempt(ctx, s, n, l.Call, c.r.CallName)
		if err == nil {
			c.finishNative(res)
			return
		}
		last = f
		if f.Class == session.OutcomeCancelled {
			c.raise(f, "Error executing MCP tool "+c.r.Tool+": "+f.Text)
			return
		}
		text, retry := nativeRetryDecision(f, l)
		if !retry {
			c.raise(f, "Error executing MCP tool "+c.r.Tool+": "+text)
			return
		}
		if n < l.Attempts && !c.backoff(ctx, n, l) {
			c.raise(failureInfo{Class: session.OutcomeCancelled, Detail: "cancelled during backoff"},
				"Error executing MCP tool "+c.r.Tool+": "+f.Text)
			return
		}
	}
	text := "Operation failed after " + fmt.Sprint(l.Attempts) + " attempts: " + last.Text
	if last.Timeout {
		text = "Operation timed out after " + seconds(l.Call) + " seconds"
	}
	c.raise(last, "Error executing MCP tool "+c.r.Tool+": "+text)
}

// nativeRetryDecision is MCPClient._retry_operation's classification by the
// lowercased message: auth → "Authentication failed: {e}", not found →
// "Resource not found: {e}" (both final), anything else is retried.
func nativeRetryDecision(f failureInfo, l Limits) (text string, retry bool) {
	if f.Timeout {
		return "Operation timed out after " + seconds(l.Call) + " seconds", true
	}
	low := strings.ToLower(f.Text)
	switch {
	case strings.Contains(low, "authentication") || strings.Contains(low, "unauthorized"):
		return "Authentication failed: " + f.Text, false
	case strings.Contains(low, "not found"):
		return "Resource not found: " + f.Text, false
	}
	return f.Text, true
}

// finishNative turns a result into CrewAI's return value: the first content
// item only; isError makes it a ToolFailure with reason mcp_error.
func (c *caller) finishNative(res *toolResult) {
	c.fillResult(res)
	c.r.Text = firstContentText(res)
	if res.res.IsError {
		c.r.Failed, c.r.FailureReason = true, FailureMCPError
		c.r.Outcome = session.OutcomeIsError
		return
	}
	c.r.Outcome = session.OutcomeOK
}

// ---- https-string ----------------------------------------------------------------

// httpsString: each attempt opens a fresh streamable-HTTP session with no
// headers, initializes and calls the tool by its sanitized name, all within
// the 60 s cap; errors and isError come back as ordinary strings (§4.3).
func (c *caller) httpsString(ctx context.Context) {
	l := c.r.Limits
	spec := c.spec
	spec.Headers = nil
	spec.Transport = TransportHTTP
	var lastText string
	var last failureInfo
	for n := 1; n <= l.Attempts; n++ {
		actx, acancel := withLimit(ctx, l.Call)
		s, ok := c.connect(actx, spec, l.Connect, true)
		var f failureInfo
		var err error
		var res *toolResult
		if ok {
			res, f, err = c.attempt(actx, s, n, 0, c.r.CallName)
			c.closeSession(s)
		} else {
			// The wrapper talks to the SDK directly, not through MCPClient,
			// so its messages carry the SDK's error text without
			// MCPClient.connect's "Failed to connect to MCP server: " prefix
			// (crewai-semantics.md §4.3).
			last := c.r.Connects[len(c.r.Connects)-1]
			f = c.dialFailure
			f.Detail = last.Error
			if f.Class == "" {
				f = failureInfo{Class: last.Outcome, Text: last.Error, Detail: last.Error}
			}
			f.Timeout = f.Timeout || last.Outcome == session.OutcomeTimeout
			if actx.Err() != nil && ctx.Err() == nil {
				f.Class, f.Timeout = session.OutcomeTimeout, true
			}
			c.r.Attempts = append(c.r.Attempts, Attempt{N: n, Start: time.Now(), Outcome: f.Class, Error: f.Detail})
			err = errors.New(f.Detail)
		}
		acancel()
		if err == nil {
			c.fillResult(res)
			// isError is ignored: the first item's text is a success.
			c.r.Text = firstContentText(res)
			c.r.Outcome = session.OutcomeOK
			if res.res.IsError {
				c.r.Outcome = session.OutcomeIsError
			}
			return
		}
		last = f
		if f.Class == session.OutcomeCancelled {
			c.asString(f, "Error executing MCP tool "+c.r.CallName+": "+f.Text)
			return
		}
		text, retry := httpsCallDecision(f, c.r.CallName, l)
		lastText = text
		if !retry {
			c.asString(f, text)
			return
		}
		if n < l.Attempts && !c.backoff(ctx, n, l) {
			c.asString(failureInfo{Class: session.OutcomeCancelled}, text)
			return
		}
	}
	c.asString(last, "MCP tool execution failed after "+fmt.Sprint(l.Attempts)+" attempts: "+lastText)
}

// httpsCallDecision maps an https-string call error to MCPToolWrapper's
// string and whether it retries. Transport-level failures surface in
// Python as exception groups or chained errors, which the wrapper turns
// into timeouts.
func httpsCallDecision(f failureInfo, callName string, l Limits) (string, bool) {
	low := strings.ToLower(f.Text)
	// MCPToolWrapper turns any exception whose message mentions "TaskGroup"
	// or "unhandled errors" (anyio exception groups) into a timeout before
	// classifying by message (crewai-semantics.md §4.3), so a server error
	// text containing them reads as a timeout and is retried.
	if f.Timeout || f.Class == session.OutcomeTransportClosed ||
		strings.Contains(f.Text, "TaskGroup") || strings.Contains(low, "unhandled errors") {
		return "Connection timed out after " + seconds(l.Call) + " seconds", true
	}
	switch {
	case strings.Contains(low, "authentication") || strings.Contains(low, "unauthorized"):
		return "Authentication failed for MCP server: " + f.Text, false
	case strings.Contains(low, "not found"):
		// By message only, as MCPToolWrapper does: a JSON-RPC "Unknown
		// tool: x" (no "not found") is an "MCP execution error" (§4.3).
		return "Tool '" + callName + "' not found on MCP server", false
	case strings.Contains(low, "connection") || strings.Contains(low, "network"):
		return "Network connection failed: " + f.Text, true
	case strings.Contains(low, "json") || strings.Contains(low, "parsing"):
		return "Server response parsing error: " + f.Text, true
	}
	return "MCP execution error: " + f.Text, false
}

// asString records an https-string failure: CrewAI returns the text as the
// tool's ordinary output.
func (c *caller) asString(f failureInfo, text string) {
	c.r.Text = text
	c.r.Outcome, c.r.Code, c.r.Error = f.Class, f.Code, f.Detail
}

// ---- adapter and session ------------------------------------------------------------

// persistent: one session kept open (the pool's, or one for this call).
// adapter: no call timeout unless overridden, no retries, bare names.
// session: crewbench's fast mode, a configurable timeout and retry count
// on a kept session, reconnecting once if the server went away.
func (c *caller) persistent(ctx context.Context) {
	l := c.r.Limits
	var s mcpSession
	release := func() {}
	// A call with features of its own (the workbench's Try view asking its
	// user) declares them on a connection of its own: the pool's sessions
	// declared the pool's.
	// A pooled session may also carry a stored token that a CrewAI-policy
	// call must not send.
	pooled := c.opts.Pool != nil && (c.opts.Client == nil || c.r.Policy != PolicySession) &&
		!c.opts.Pool.addsToken(c.spec, c.r.Policy)
	if pooled {
		var err error
		s, err = c.opts.Pool.sessionFor(ctx, c.spec)
		if err != nil {
			f := failureInfo{Class: session.OutcomeTransportClosed, Detail: err.Error(), Text: err.Error()}
			var de *dialError
			if errors.As(err, &de) {
				f = de.f
			}
			c.r.Connects = append(c.r.Connects, Phase{Outcome: f.Class, Error: f.Detail})
			c.raise(f, c.errorText(f.Text))
			return
		}
	} else {
		var ok bool
		s, ok = c.connect(ctx, c.spec, l.Connect, false)
		if !ok {
			return
		}
		release = func() { c.closeSession(s) }
	}
	defer func() { release() }()
	var last failureInfo
	reconnected := false
	for n := 1; n <= l.Attempts; n++ {
		res, f, err := c.attempt(ctx, s, n, l.Call, c.r.CallName)
		if err == nil && c.r.Policy == PolicyAdapter {
			c.finishAdapter(res)
			return
		}
		if err == nil {
			c.fillResult(res)
			c.r.Text = firstContentText(res)
			c.r.Outcome = session.OutcomeOK
			if res.res.IsError {
				c.r.Outcome = session.OutcomeIsError
				if c.r.Policy == PolicySession {
					c.r.Failed, c.r.FailureReason = true, FailureMCPError
				}
			}
			return
		}
		last = f
		if f.Class == session.OutcomeCancelled {
			break
		}
		if f.Class == session.OutcomeTransportClosed && c.r.Policy == PolicySession && !reconnected {
			reconnected = true
			if ns, ok := c.reconnect(ctx, s, pooled); ok {
				s = ns
				if !pooled {
					release = func() { c.closeSession(ns) }
				}
				n-- // the reconnect does not use up an attempt
				continue
			}
		}
		if n < l.Attempts && !c.backoff(ctx, n, l) {
			break
		}
	}
	text := last.Text
	if last.Timeout {
		text = "Operation timed out after " + seconds(l.Call) + " seconds"
	}
	c.raise(last, c.errorText(text))
}

// finishAdapter is crewai_tools' MCPServerAdapter tool (≥ 1.10,
// crewai_tools/adapters/mcp_adapter.py:61-74): one content item gives its
// text (str(item) when it has none), several give str() of the list of
// their texts ("['a', 'b']"), none gives "[]". isError is not looked at.
func (c *caller) finishAdapter(res *toolResult) {
	c.fillResult(res)
	c.r.Outcome = session.OutcomeOK
	if res.res.IsError {
		c.r.Outcome = session.OutcomeIsError
	}
	switch items := res.res.Content; len(items) {
	case 0:
		c.r.Text = "[]"
	case 1:
		c.r.Text = contentStr(items[0])
	default:
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = pyStr(contentStr(it))
		}
		c.r.Text = "[" + strings.Join(parts, ", ") + "]"
	}
}

// RefusedCall is the result of a call CrewAI does not make: its validation
// refused the arguments, so BaseTool.run raises refusal (the text the
// agent gets) before the server is reached. `crewbench call` and the
// workbench's Try view answer such a call with it.
func RefusedCall(spec ServerSpec, tool, llmName, refusal string) *CallResult {
	pol := EffectivePolicy(spec)
	return &CallResult{Server: Handle(spec), Tool: tool, CallName: tool, LLMName: llmName, Policy: pol,
		Limits: CallLimits(spec, pol), Text: refusal, Failed: true, Raised: true,
		FailureReason: FailureException, Outcome: session.OutcomeInvalidArguments, Attempts: []Attempt{}}
}

func (c *caller) errorText(e string) string {
	if c.r.Policy == PolicyAdapter {
		return e // mcpadapt raises the client's exception unchanged
	}
	return "Error executing MCP tool " + c.r.Tool + ": " + e
}

func (c *caller) reconnect(ctx context.Context, old mcpSession, pooled bool) (mcpSession, bool) {
	if pooled {
		s, err := c.opts.Pool.Reconnect(ctx, Handle(c.spec))
		return s, err == nil
	}
	c.closeSession(old)
	return c.connect(ctx, c.spec, c.r.Limits.Connect, false)
}

// ---- shared steps ------------------------------------------------------------------

// connect opens a fresh session with the connect timeout, emitting CrewAI's
// mcp_connection_* events. quiet skips the failure bookkeeping that ends a
// native call (the https-string loop handles it per attempt).
func (c *caller) connect(ctx context.Context, spec ServerSpec, limit time.Duration, quiet bool) (mcpSession, bool) {
	span := c.opts.Emitter.NewSpan()
	c.emitConn(session.MCPConnectionStarted, span, session.Event{})
	start := time.Now()
	cctx, cancel := withLimit(ctx, limit)
	defer cancel()
	s, err := c.opts.dialer()(cctx, spec, dialOptions{em: c.opts.Emitter, limits: c.r.Limits, faults: c.opts.Faults, auth: c.authFor(), features: c.opts.Client})
	ph := Phase{Duration: time.Since(start)}
	if err != nil {
		f := classifyDial(cctx, spec, err)
		c.dialFailure = f
		ph.Outcome, ph.Error = f.Class, f.Detail
		c.r.Connects = append(c.r.Connects, ph)
		text := connectText(spec, c.r.Limits, f)
		c.emitConn(session.MCPConnectionFailed, span, session.Event{Outcome: f.Class, Error: text,
			ErrorType: crewAIErrorType(f.Class), Duration: ph.Duration, Data: map[string]any{"detail": f.Detail}})
		if !quiet {
			c.raise(f, c.errorText(text))
		} else {
			c.r.Connects[len(c.r.Connects)-1].Error = text
		}
		return nil, false
	}
	s.SetSpan(c.span)
	ph.Outcome, ph.Pid = session.OutcomeOK, s.Pid()
	c.r.Connects = append(c.r.Connects, ph)
	c.emitConn(session.MCPConnectionCompleted, span, session.Event{Outcome: session.OutcomeOK, Duration: ph.Duration,
		Data: connectedData(ph.Duration, s.Info())})
	return s, true
}

// connectedData is the Data of a connection's completed event.
func connectedData(d time.Duration, info ServerInfo) map[string]any {
	data := map[string]any{"connection_duration_ms": d.Milliseconds(), session.KeyProtocolVersion: info.ProtocolVersion}
	if info.SessionID != "" {
		data[session.KeyMCPSessionID] = info.SessionID
	}
	return data
}

// closeSession disconnects (reaping a stdio server) outside any deadline
// of the call: CrewAI disconnects in a finally.
func (c *caller) closeSession(s mcpSession) { _ = s.Close() }

// attempt runs one tools/call with its own timeout (none when limit is 0).
func (c *caller) attempt(ctx context.Context, s mcpSession, n int, limit time.Duration, name string) (*toolResult, failureInfo, error) {
	aspan := c.opts.Emitter.NewSpan()
	a := Attempt{N: n, Start: time.Now()}
	start := map[string]any{"policy": string(c.r.Policy), "timeout_ms": limit.Milliseconds(), "call_name": name}
	// The session's negotiated version and HTTP session id go on every
	// attempt, so each tools/call span carries mcp.protocol.version and
	// mcp.session.id (OpenTelemetry MCP semantic conventions).
	if v := s.Info().ProtocolVersion; v != "" {
		start[session.KeyProtocolVersion] = v
	}
	if id := s.Info().SessionID; id != "" {
		start[session.KeyMCPSessionID] = id
	}
	c.opts.Emitter.Emit(session.Event{Kind: session.MCPAttemptStarted, Span: aspan, Parent: c.span, Server: c.r.Server,
		ToolName: c.r.LLMName, OriginalToolName: c.r.Tool, Attempt: n, Data: start})
	s.SetSpan(aspan)
	actx, cancel := withLimit(ctx, limit)
	actx, tr := withTrace(actx)
	res, err := s.CallTool(actx, name, c.r.Arguments)
	a.Duration = time.Since(a.Start)
	var f failureInfo
	if err != nil {
		f = s.failure(actx, err, tr)
		if f.Class == session.OutcomeTimeout && limit > 0 {
			f.Detail = "no response within " + limit.String()
		}
		a.Outcome, a.Code, a.Error = f.Class, f.Code, f.Detail
	} else {
		a.Outcome = session.OutcomeOK
		if res.res.IsError {
			a.Outcome = session.OutcomeIsError
		}
	}
	cancel()
	s.SetSpan(c.span)
	c.r.Attempts = append(c.r.Attempts, a)
	ev := session.Event{Kind: session.MCPAttemptFinished, Span: aspan, Parent: c.span, Server: c.r.Server,
		ToolName: c.r.LLMName, OriginalToolName: c.r.Tool, Attempt: n, Outcome: a.Outcome, Error: a.Error,
		Duration: a.Duration, Data: map[string]any{"policy": string(c.r.Policy)}}
	if a.Code != 0 {
		ev.Data["code"] = a.Code
		ev.Data[session.KeyJSONRPCCode] = a.Code
	}
	if id := tr.requestID(); id != "" {
		ev.Data[session.KeyJSONRPCID] = id
	}
	if _, _, _, fault := tr.snapshot(); fault != "" {
		ev.Data["fault"] = string(fault)
	}
	c.opts.Emitter.Emit(ev)
	return res, f, err
}

// backoff sleeps before attempt n+1, announcing it. False if ctx ended.
func (c *caller) backoff(ctx context.Context, n int, l Limits) bool {
	d := l.backoff(n)
	c.r.Attempts[len(c.r.Attempts)-1].Backoff = d
	c.opts.Emitter.Emit(session.Event{Kind: session.MCPRetryScheduled, Parent: c.span, Server: c.r.Server,
		ToolName: c.r.LLMName, OriginalToolName: c.r.Tool, Attempt: n + 1, Duration: d,
		Data: map[string]any{session.KeyBackoff: int64(d), "next_attempt": n + 1}})
	return sleepCtx(ctx, d) == nil
}

// raise records a failure CrewAI raises as an exception.
func (c *caller) raise(f failureInfo, text string) {
	c.r.Text, c.r.Failed, c.r.FailureReason, c.r.Raised = text, true, FailureException, true
	c.r.Outcome, c.r.Code, c.r.Error = f.Class, f.Code, f.Detail
}

// authFor is the authorizer of a connection this call opens itself: the
// stored token goes only to crewbench's own session policy; CrewAI's
// policies send exactly the configured headers.
func (c *caller) authFor() Authorizer {
	if c.r.Policy == PolicySession {
		return c.opts.Auth
	}
	return nil
}

func (c *caller) fillResult(res *toolResult) {
	c.r.Raw = res.raw
	c.r.IsError = res.res.IsError
	c.r.Content = contentItems(res)
	if len(res.res.RawStructuredContent) > 0 {
		c.r.Structured = res.res.RawStructuredContent
	} else if res.res.StructuredContent != nil {
		c.r.Structured, _ = json.Marshal(res.res.StructuredContent)
	}
}

// ---- events ------------------------------------------------------------------------------

func (c *caller) baseData() map[string]any {
	d := map[string]any{session.KeyServer: c.r.Server, "policy": string(c.r.Policy), "transport_type": string(c.spec.Transport)}
	if c.spec.Transport != TransportStdio {
		d["server_url"] = session.RedactURL(c.spec.URL)
	}
	return d
}

// scopeKind is k where CrewAI emits its MCP events on this call's path, and
// crewbench's own twin where it emits none (crewAIMCPEvents).
func (c *caller) scopeKind(k session.Kind) session.Kind {
	if crewAIMCPEvents(c.r.Policy) {
		return k
	}
	return session.OwnMCPKind(k)
}

// crewAIMCPEvents reports whether CrewAI emits mcp_connection_* and
// mcp_tool_execution_* on a call path: only its MCPClient does (native
// configs and AMP; crewbench's session policy follows it). The https-string
// wrapper and MCPServerAdapter (mcpadapt) use the MCP SDK directly and emit
// none (crewai-fidelity-gaps.md B15).
func crewAIMCPEvents(p Policy) bool { return p == PolicyNative || p == PolicySession }

// The tool-execution events carry CrewAI's tool_name, the server's own
// name (MCPClient.call_tool_result is called with original_tool_name).
func (c *caller) emitStart() {
	d := c.baseData()
	d["tool_args"] = c.r.Arguments
	d["limits"] = c.r.Limits
	d["llm_tool_name"] = c.r.LLMName // the name the LLM calls it by, which CrewAI does not put here
	c.opts.Emitter.Emit(session.Event{Kind: c.scopeKind(session.MCPToolExecutionStarted), Span: c.span, Parent: c.opts.Parent,
		Server: EventServerName(c.spec), ToolName: c.r.Tool, OriginalToolName: c.r.Tool, Data: d})
}

func (c *caller) emitEnd() {
	d := c.baseData()
	d["attempts"] = len(c.r.Attempts)
	// What CrewAI's tool hands back, so a recording holds the call's whole
	// verdict: Failed/FailureReason (ToolFailure vs. an exception) and
	// whether it raised.
	d["failed"] = c.r.Failed
	if c.r.FailureReason != "" {
		d["failure_reason"] = c.r.FailureReason
	}
	if c.r.Raised {
		d["raised"] = true
	}
	if c.r.Code != 0 {
		d[session.KeyJSONRPCCode] = c.r.Code
	}
	ev := session.Event{Span: c.span, Parent: c.opts.Parent, Server: EventServerName(c.spec), ToolName: c.r.Tool,
		OriginalToolName: c.r.Tool, Outcome: c.r.Outcome, Duration: c.r.Duration, Data: d}
	if c.r.Outcome == session.OutcomeOK || (!c.r.Failed && c.r.Policy != PolicyNative) {
		ev.Kind = c.scopeKind(session.MCPToolExecutionCompleted)
		d["result"] = c.r.Text
	} else {
		ev.Kind = c.scopeKind(session.MCPToolExecutionFailed)
		ev.Error = c.r.Text
		switch c.r.Outcome {
		case session.OutcomeIsError:
			ev.ErrorType = "tool_error"
		case session.OutcomeTimeout:
			ev.ErrorType = "timeout"
		default:
			ev.ErrorType = "server_error"
		}
		if c.r.Error != "" {
			d["detail"] = c.r.Error
		}
	}
	c.opts.Emitter.Emit(ev)
}

func (c *caller) emitConn(k session.Kind, span string, e session.Event) {
	e.Kind, e.Span, e.Parent, e.Server = c.scopeKind(k), span, c.span, EventServerName(c.spec)
	if c.connParent != "" {
		e.Parent = c.connParent
	}
	if e.Data == nil {
		e.Data = map[string]any{}
	}
	for k, v := range c.baseData() {
		e.Data[k] = v
	}
	e.Data["is_reconnect"] = len(c.r.Connects) > 0 && k == session.MCPConnectionStarted
	c.opts.Emitter.Emit(e)
}

// crewAIErrorType maps an outcome class to MCPConnectionFailed's error_type.
func crewAIErrorType(class string) string {
	switch class {
	case session.OutcomeTimeout:
		return "timeout"
	case session.OutcomeAuth:
		return "authentication"
	case session.OutcomeCancelled:
		return "cancelled"
	}
	return "network"
}

// ---- connect failures ------------------------------------------------------------

// dialError is a failed connect, already classified with the session's
// knowledge (exit status, garbage on stdout).
type dialError struct {
	phase string // "start" or "initialize"
	f     failureInfo
	err   error
}

func (e *dialError) Error() string { return e.f.Detail }
func (e *dialError) Unwrap() error { return e.err }

func classifyDial(ctx context.Context, spec ServerSpec, err error) failureInfo {
	var de *dialError
	if errors.As(err, &de) {
		return de.f
	}
	f := classify(ctx, err, nil, nil)
	secrets := newServerSecrets(spec)
	f.Detail = secrets.redact(f.Detail)
	f.Text = secrets.redact(f.Text)
	return f
}

// connectText is MCPClient.connect's message for a failed connect (§4.2),
// including the doubled prefixes of the transport wraps.
func connectText(spec ServerSpec, l Limits, f failureInfo) string {
	if f.Timeout {
		return "MCP connection timed out after " + seconds(l.Connect) + " seconds. The server may be slow or unreachable."
	}
	if f.Class == session.OutcomeCancelled {
		return "MCP connection was cancelled. This may indicate an authentication error or server unavailability."
	}
	switch {
	case f.Class == session.OutcomeSpawnFailed:
		return "Failed to connect to MCP server: Failed to start MCP server process: Failed to enter stdio transport context: " + f.Text
	case spec.Transport == TransportSSE:
		return "Failed to connect to MCP server: Failed to connect to SSE MCP server: " + f.Text
	}
	return "Failed to connect to MCP server: " + f.Text
}

// ---- results ------------------------------------------------------------------------

// firstContentText is CrewAI's result text: the first content item's text,
// else Python's str() of the item; str(result) when there is no content.
func firstContentText(res *toolResult) string {
	if len(res.res.Content) == 0 {
		return fmt.Sprintf("meta=None content=[] structuredContent=%s isError=%s",
			pyValue(res.res.StructuredContent), pyBool(res.res.IsError))
	}
	return contentStr(res.res.Content[0])
}

// contentStr is an MCP content item's text, or str() of the SDK's item
// when it has none.
func contentStr(item mcp.Content) string {
	switch v := item.(type) {
	case mcp.TextContent:
		return v.Text
	case mcp.ImageContent:
		return fmt.Sprintf("type='image' data=%s mimeType=%s annotations=None meta=None", pyStr(v.Data), pyStr(v.MIMEType))
	case mcp.AudioContent:
		return fmt.Sprintf("type='audio' data=%s mimeType=%s annotations=None meta=None", pyStr(v.Data), pyStr(v.MIMEType))
	case mcp.ResourceLink:
		return fmt.Sprintf("name=%s title=None uri=%s description=%s mimeType=%s size=None icons=None annotations=None meta=None type='resource_link'",
			pyStr(v.Name), pyStr(v.URI), pyOptStr(v.Description), pyOptStr(v.MIMEType))
	case mcp.EmbeddedResource:
		return fmt.Sprintf("type='resource' resource=%s annotations=None meta=None", embeddedStr(v.Resource))
	}
	b, _ := json.Marshal(item)
	return string(b)
}

func embeddedStr(r mcp.ResourceContents) string {
	switch v := r.(type) {
	case mcp.TextResourceContents:
		return fmt.Sprintf("TextResourceContents(uri=AnyUrl(%s), mimeType=%s, meta=None, text=%s)", pyStr(v.URI), pyOptStr(v.MIMEType), pyStr(v.Text))
	case mcp.BlobResourceContents:
		return fmt.Sprintf("BlobResourceContents(uri=AnyUrl(%s), mimeType=%s, meta=None, blob=%s)", pyStr(v.URI), pyOptStr(v.MIMEType), pyStr(v.Blob))
	}
	return "None"
}

// pyStr is Python's repr of a str.
func pyStr(s string) string { return pyrepr.Str(s) }

func pyOptStr(s string) string {
	if s == "" {
		return "None"
	}
	return pyStr(s)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyValue renders a decoded JSON value roughly as Python's repr would.
func pyValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		return pyBool(x)
	case string:
		return pyStr(x)
	case float64:
		return fmt.Sprint(x)
	case json.Number:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyStr(k) + ": " + pyValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func contentItems(res *toolResult) []ContentItem {
	var rawItems []json.RawMessage
	var w struct {
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(res.raw, &w) == nil {
		rawItems = w.Content
	}
	out := make([]ContentItem, 0, len(res.res.Content))
	for i, ct := range res.res.Content {
		var it ContentItem
		switch v := ct.(type) {
		case mcp.TextContent:
			it = ContentItem{Type: "text", Text: v.Text}
		case mcp.ImageContent:
			it = ContentItem{Type: "image", MIMEType: v.MIMEType, Bytes: len(v.Data) * 3 / 4}
		case mcp.AudioContent:
			it = ContentItem{Type: "audio", MIMEType: v.MIMEType, Bytes: len(v.Data) * 3 / 4}
		case mcp.ResourceLink:
			it = ContentItem{Type: "resource_link", URI: v.URI, MIMEType: v.MIMEType, Text: v.Name}
		case mcp.EmbeddedResource:
			it = ContentItem{Type: "resource"}
			switch r := v.Resource.(type) {
			case mcp.TextResourceContents:
				it.URI, it.MIMEType, it.Text = r.URI, r.MIMEType, r.Text
			case mcp.BlobResourceContents:
				it.URI, it.MIMEType, it.Bytes = r.URI, r.MIMEType, len(r.Blob)*3/4
			}
		default:
			it = ContentItem{Type: fmt.Sprintf("%T", ct)}
		}
		if i < len(rawItems) {
			it.Raw = rawItems[i]
		}
		out = append(out, it)
	}
	return out
}
