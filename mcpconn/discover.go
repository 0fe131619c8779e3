package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"crewbench/mcpconn/filter"
	"crewbench/names"
	"crewbench/session"
)

// ToolStatus says whether CrewAI would give a listed tool to the agent.
type ToolStatus string

// Tool statuses.
const (
	ToolKept        ToolStatus = "kept"
	ToolFiltered    ToolStatus = "filtered"     // the tool_filter rejected it
	ToolSkipped     ToolStatus = "skipped"      // native: the name sanitizes to empty
	ToolNotSelected ToolStatus = "not_selected" // a "#tool" selection excluded it
	ToolDropped     ToolStatus = "dropped"      // null description: CrewAI fails to build the tool
	ToolOverwritten ToolStatus = "overwritten"  // https-string: a later tool took the same sanitized key
)

// Tool is one listed tool with everything crewbench shows about it.
type Tool struct {
	// Name is the remote (original) name, as the server lists it.
	Name  string `json:"name"`
	Title string `json:"title,omitempty"`
	// Description is "" when DescriptionNull says it was null or missing.
	Description     string `json:"description"`
	DescriptionNull bool   `json:"description_null,omitempty"`
	// InputSchema, OutputSchema, Annotations and Raw are lossless JSON from the wire.
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Raw          json.RawMessage `json:"raw"`

	// Sanitized is sanitize(Name): what static filters compare, and the
	// adapter's bare name.
	Sanitized string `json:"sanitized"`
	// DisplayName is CrewAI's tool name (server prefix + key; bare for the
	// adapter policy); LLMName is what the LLM sees.
	DisplayName string `json:"display_name"`
	LLMName     string `json:"llm_name"`
	// CallName is what CrewAI sends in tools/call: the remote name, except
	// on the https-string path, which sends the sanitized key (§2.3).
	CallName string `json:"call_name"`

	Status ToolStatus `json:"status"`
	// Reason explains Status (the filter verdict's reason when filtered or kept).
	Reason      string             `json:"reason"`
	FilterStage filter.Stage       `json:"filter_stage,omitempty"`
	Diagnostics []names.Diagnostic `json:"diagnostics,omitempty"`
}

// Kept reports whether the agent gets the tool.
func (t Tool) Kept() bool { return t.Status == ToolKept }

// Discovery is the result of connecting to a server and listing its tools.
type Discovery struct {
	Server string `json:"server"` // crewbench handle
	// ServerName is CrewAI's server_name (the tool prefix); EventServerName
	// is the one CrewAI puts on its events.
	ServerName      string     `json:"server_name"`
	EventServerName string     `json:"event_server_name"`
	Transport       Transport  `json:"transport"`
	URL             string     `json:"url,omitempty"` // redacted
	Ref             RefKind    `json:"ref"`
	Policy          Policy     `json:"policy"`
	Info            ServerInfo `json:"info"`
	Tools           []Tool     `json:"tools"`
	// RawPages are the tools/list results exactly as received.
	RawPages  []json.RawMessage `json:"raw_pages,omitempty"`
	FromCache bool              `json:"from_cache,omitempty"`

	Hints        []filter.Hint `json:"hints,omitempty"`
	KeepsNothing bool          `json:"keeps_nothing,omitempty"`
	// Warnings are the lines CrewAI would log (e.g. "No tools discovered
	// from MCP server: …").
	Warnings []string `json:"warnings,omitempty"`

	// Outcome is an Outcome* class; Error is crewbench's explanation and
	// CrewAIError the text CrewAI raises or logs for the failure.
	Outcome     string `json:"outcome"`
	Error       string `json:"error,omitempty"`
	CrewAIError string `json:"crewai_error,omitempty"`
	// Fix says what to do about an auth failure (AuthHint).
	Fix      string        `json:"fix,omitempty"`
	Attempts []Attempt     `json:"attempts,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// OAuth says the listing was made with crewbench's stored OAuth token
	// (crewbench auth login), which CrewAI would not send.
	OAuth bool `json:"oauth,omitempty"`
}

// KeptTools returns the tools the agent gets.
func (d *Discovery) KeptTools() []Tool {
	var out []Tool
	for _, t := range d.Tools {
		if t.Kept() {
			out = append(out, t)
		}
	}
	return out
}

// Tool returns the listed tool with remote name, LLM name or display name n.
func (d *Discovery) Tool(n string) (Tool, bool) {
	for _, t := range d.Tools {
		if t.Name == n {
			return t, true
		}
	}
	for _, t := range d.Tools {
		if t.LLMName == n || t.DisplayName == n || t.Sanitized == n {
			return t, true
		}
	}
	return Tool{}, false
}

// Options configure Discover and Call.
type Options struct {
	Emitter *session.Emitter
	// Parent is the span the operation's events hang under.
	Parent string
	// AgentRole feeds the CEL filter's context.agent_role.
	AgentRole string
	// Cache holds the tools/list caches; nil means the process-wide one.
	Cache *ToolsCache
	// Faults counts injected faults; nil means a fresh count per operation.
	Faults *FaultState
	// Pool provides the persistent sessions of the adapter and session
	// policies; nil opens one for the call and closes it after.
	Pool *Pool
	// Auth is crewbench's OAuth client (stored tokens). Discover always
	// uses it: listing tools is crewbench's own look at the server, and the
	// Discovery says when the listing needed the token (OAuth). Call uses
	// it under PolicySession only: CrewAI's policies send exactly the
	// configured headers.
	Auth Authorizer
	// Client are the client capabilities to declare under PolicySession
	// (elicitation, sampling, roots); CrewAI's policies ignore them.
	Client *ClientFeatures
	// Reaper, when set, closes Discover's connection in the background
	// (the result is returned before a stdio server has exited); nil
	// closes it before Discover returns.
	Reaper *Reaper
	// dial replaces the connector (for tests); nil means dial.
	dial dialFunc
}

func (o Options) dialer() dialFunc {
	if o.dial != nil {
		return o.dial
	}
	return dial
}

// ---- caches ----------------------------------------------------------------

// ToolsCache reproduces CrewAI's two 300 s schema caches: MCPClient's
// cache_tools_list cache (keys "mcp:stdio:{command}:{args}:tools" etc.) and
// the https-string path's module-wide cache keyed by URL.
type ToolsCache struct {
	mu  sync.Mutex
	Now func() time.Time // nil = time.Now
	m   map[string]cacheEntry
}

type cacheEntry struct {
	at    time.Time
	pages []json.RawMessage
	info  ServerInfo
}

var defaultCache = &ToolsCache{}

func (c *ToolsCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *ToolsCache) get(key string) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || c.now().Sub(e.at) >= ToolsListCacheTTL {
		return cacheEntry{}, false
	}
	return e, true
}

func (c *ToolsCache) put(key string, e cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cacheEntry{}
	}
	e.at = c.now()
	c.m[key] = e
}

// CacheKey is CrewAI's cache key for the spec: the MCPClient key for native
// configs with cache_tools_list, the URL for https string refs, "" when
// CrewAI caches nothing.
func CacheKey(spec ServerSpec) string {
	if spec.Ref == RefHTTPS {
		return "https:" + stripFragment(spec.URL)
	}
	if !spec.CacheToolsList {
		return ""
	}
	switch spec.Transport {
	case TransportStdio:
		return "mcp:stdio:" + spec.Command + ":" + strings.Join(spec.Args, ":") + ":tools"
	case TransportSSE:
		return "mcp:sse:" + spec.URL + ":tools"
	default:
		return "mcp:http:" + spec.URL + ":tools"
	}
}

// ---- Discover ---------------------------------------------------------------

// Discover connects to the server the way CrewAI's resolver does for the
// spec's ref kind (a fresh connection, closed afterwards), lists every page
// of tools, names each tool, applies selection and the filter, and reports
// it all. A failure is reported in the Discovery (Outcome, Error,
// CrewAIError) and as the returned error.
func Discover(ctx context.Context, spec ServerSpec, opts Options) (*Discovery, error) {
	start := time.Now()
	d := newDiscovery(spec)
	span := opts.Emitter.NewSpan()
	// https-string discovery (tool_resolver's own SDK session) and
	// MCPServerAdapter emit no CrewAI MCP events; crewbench records the
	// connection under its own kinds there.
	crewAI := spec.Ref != RefHTTPS && crewAIMCPEvents(EffectivePolicy(spec))
	ev := func(k session.Kind, e session.Event) {
		if !crewAI {
			k = session.OwnMCPKind(k)
		}
		e.Kind, e.Span, e.Parent = k, span, opts.Parent
		e.Server = d.EventServerName
		if e.Data == nil {
			e.Data = map[string]any{}
		}
		e.Data[session.KeyServer] = d.Server
		if spec.Transport != TransportStdio {
			e.Data["server_url"] = session.RedactURL(spec.URL)
		}
		e.Data["transport_type"] = string(spec.Transport)
		opts.Emitter.Emit(e)
	}
	ev(session.MCPConnectionStarted, session.Event{Data: map[string]any{"is_reconnect": false}})

	cache := opts.Cache
	if cache == nil {
		cache = defaultCache
	}
	key := CacheKey(spec)
	var pages []json.RawMessage
	if e, ok := cache.get(key); key != "" && ok {
		pages, d.Info, d.FromCache = e.pages, e.info, true
	} else {
		var err error
		pages, err = d.list(ctx, spec, opts, span)
		if err != nil {
			d.Duration = time.Since(start)
			d.Fix = AuthHint(spec, d.Outcome, d.Error+" "+d.CrewAIError, PolicyNative)
			ev(session.MCPConnectionFailed, session.Event{Outcome: d.Outcome, Error: d.CrewAIError,
				ErrorType: crewAIErrorType(d.Outcome), Duration: d.Duration,
				Data: map[string]any{"detail": d.Error}})
			return d, fmt.Errorf("discover %s: %s", d.Server, d.Error)
		}
		if key != "" {
			cache.put(key, cacheEntry{pages: pages, info: d.Info})
		}
	}
	d.RawPages = pages
	d.OAuth = d.Info.OAuthToken
	if err := d.build(spec, pages, opts.AgentRole); err != nil {
		d.Outcome, d.Error = session.OutcomeProtocol, err.Error()
		d.CrewAIError = d.wrapCrewAI(err.Error())
		d.Duration = time.Since(start)
		ev(session.MCPConnectionFailed, session.Event{Outcome: d.Outcome, Error: d.CrewAIError, Duration: d.Duration})
		return d, fmt.Errorf("discover %s: %w", d.Server, err)
	}
	d.Outcome = session.OutcomeOK
	d.Duration = time.Since(start)
	ev(session.MCPConnectionCompleted, session.Event{Outcome: d.Outcome, Duration: d.Duration,
		Data: map[string]any{"connection_duration_ms": d.Duration.Milliseconds(), "from_cache": d.FromCache}})
	opts.Emitter.Emit(session.Event{Kind: session.MCPToolsListed, Server: d.Server, Parent: span,
		Data: d.listedData()})
	for _, w := range d.Warnings {
		opts.Emitter.Emit(session.Event{Kind: session.Warning, Server: d.Server, Parent: span,
			Data: map[string]any{"message": w}})
	}
	return d, nil
}

func newDiscovery(spec ServerSpec) *Discovery {
	d := &Discovery{Server: Handle(spec), EventServerName: EventServerName(spec), Transport: spec.Transport,
		Ref: spec.Ref, Policy: EffectivePolicy(spec)}
	if d.Ref == "" {
		d.Ref = RefNative
	}
	if spec.URL != "" {
		d.URL = session.RedactURL(stripFragment(spec.URL))
	}
	if name, err := CrewAIServerName(spec); err == nil {
		d.ServerName = name
	}
	return d
}

func (d *Discovery) listedData() map[string]any {
	kept := 0
	for _, t := range d.Tools {
		if t.Kept() {
			kept++
		}
	}
	var dropped []string
	for _, t := range d.Tools {
		if !t.Kept() {
			dropped = append(dropped, t.Name)
		}
	}
	msg := fmt.Sprintf("%d tool%s listed, %d kept", len(d.Tools), pluralSuffix(len(d.Tools)), kept)
	if len(dropped) > 0 {
		msg += " (dropped: " + strings.Join(dropped, ", ") + ")"
	}
	if d.KeepsNothing {
		msg += " — the filter keeps nothing"
	}
	return map[string]any{session.KeyListed: len(d.Tools), session.KeyKept: kept, "pages": len(d.RawPages),
		"dropped": dropped, session.KeyMessage: msg,
		"keeps_nothing": d.KeepsNothing, session.KeyFromCache: d.FromCache, session.KeyProtocolVersion: d.Info.ProtocolVersion}
}

// list opens fresh sessions and pages through tools/list with the ref
// kind's timeouts and retries.
func (d *Discovery) list(ctx context.Context, spec ServerSpec, opts Options, span string) ([]json.RawMessage, error) {
	l := DiscoveryLimits(spec)
	if spec.Ref == RefHTTPS {
		return d.listHTTPS(ctx, spec, opts, span, l)
	}
	// Native / AMP / adapter: connect (30 s, not retried), then list_tools
	// through the retry wrapper (30 s per attempt, 3 attempts), disconnect.
	cctx, cancel := withLimit(ctx, l.Connect)
	s, err := opts.dialer()(cctx, spec, dialOptions{em: opts.Emitter, limits: l, faults: opts.Faults, auth: opts.Auth, features: opts.Client})
	if err != nil {
		f := classifyDial(cctx, spec, err)
		cancel()
		d.fail(f, connectText(spec, l, f))
		return nil, err
	}
	cancel()
	defer opts.Reaper.close(s)
	s.SetSpan(span)
	d.Info = s.Info()
	var pages []json.RawMessage
	var lastErr failureInfo
	for attempt := 1; attempt <= l.Attempts; attempt++ {
		a := Attempt{N: attempt, Start: time.Now()}
		actx, acancel := withLimit(ctx, l.Discovery)
		pages, err = listAll(actx, s, l.MaxTools)
		a.Duration = time.Since(a.Start)
		if err == nil {
			acancel()
			a.Outcome = session.OutcomeOK
			d.Attempts = append(d.Attempts, a)
			d.Info = s.Info() // now also says whether a stored token was sent
			return pages, nil
		}
		f := s.failure(actx, err, traceFrom(actx))
		acancel()
		a.Outcome, a.Error = f.Class, f.Detail
		d.Attempts = append(d.Attempts, a)
		lastErr = f
		if f.Class == session.OutcomeCancelled {
			break
		}
		if text, retry := nativeRetryDecision(f, l); !retry {
			d.fail(f, text)
			return nil, err
		}
		if attempt < l.Attempts {
			if sleepCtx(ctx, l.backoff(attempt)) != nil {
				break
			}
		}
	}
	text := "Operation failed after " + fmt.Sprint(l.Attempts) + " attempts: " + lastErr.Text
	if lastErr.Timeout {
		text = "Operation timed out after " + seconds(l.Discovery) + " seconds"
	}
	d.fail(lastErr, text)
	return nil, fmt.Errorf("%s", lastErr.Detail)
}

// listHTTPS is https-string discovery: per attempt a fresh connection,
// initialize within 10 s and list within the rest of a 15 s cap; 3 attempts
// (1 s, 2 s) retried only on timeouts and connection/network/json/parsing
// messages.
func (d *Discovery) listHTTPS(ctx context.Context, spec ServerSpec, opts Options, span string, l Limits) ([]json.RawMessage, error) {
	noHeaders := spec
	noHeaders.Headers = nil // CrewAI's streamablehttp_client(url) sends no headers
	noHeaders.Transport = TransportHTTP
	var last failureInfo
	var lastErr error
	for attempt := 1; attempt <= l.Attempts; attempt++ {
		a := Attempt{N: attempt, Start: time.Now()}
		actx, acancel := withLimit(ctx, l.Discovery)
		pages, info, f, err := func() ([]json.RawMessage, ServerInfo, failureInfo, error) {
			cctx, ccancel := withLimit(actx, l.Connect)
			defer ccancel()
			s, err := opts.dialer()(cctx, noHeaders, dialOptions{em: opts.Emitter, limits: l, faults: opts.Faults, auth: opts.Auth, features: opts.Client})
			if err != nil {
				return nil, ServerInfo{}, classifyDial(cctx, noHeaders, err), err
			}
			defer s.Close()
			s.SetSpan(span)
			// list_tools gets the difference of the two constants (15 − 10 =
			// 5 s), whatever initialize took, all inside the attempt's cap.
			lctx, lcancel := withLimit(actx, l.Discovery-l.Connect)
			defer lcancel()
			pages, err := listAll(lctx, s, l.MaxTools)
			if err != nil {
				return nil, ServerInfo{}, s.failure(lctx, err, traceFrom(lctx)), err
			}
			return pages, s.Info(), failureInfo{}, nil
		}()
		acancel()
		a.Duration = time.Since(a.Start)
		if err == nil {
			a.Outcome = session.OutcomeOK
			d.Attempts = append(d.Attempts, a)
			d.Info = info
			return pages, nil
		}
		a.Outcome, a.Error = f.Class, f.Detail
		d.Attempts = append(d.Attempts, a)
		last, lastErr = f, err
		low := strings.ToLower(f.Text)
		switch {
		case f.Class == session.OutcomeCancelled:
			d.fail(f, "MCP discovery error: "+f.Text)
			return nil, err
		case f.Timeout:
			f.Text = "MCP discovery timed out after " + seconds(l.Discovery) + " seconds"
			last = f
		case strings.Contains(low, "authentication") || strings.Contains(low, "unauthorized"):
			d.fail(f, "Authentication failed for MCP server: "+f.Text)
			return nil, err
		case strings.Contains(low, "connection") || strings.Contains(low, "network"):
			last.Text = "Network connection failed: " + f.Text
		case strings.Contains(low, "json") || strings.Contains(low, "parsing"):
			last.Text = "Server response parsing error: " + f.Text
		default:
			d.fail(f, "MCP discovery error: "+f.Text)
			return nil, err
		}
		if attempt < l.Attempts && sleepCtx(ctx, l.backoff(attempt)) != nil {
			break
		}
	}
	d.fail(last, "Failed to discover MCP tools after "+fmt.Sprint(l.Attempts)+" attempts: "+last.Text)
	return nil, lastErr
}

// listAll pages through tools/list, stopping once more than maxTools tools
// have arrived (a server that lists without end must not take the memory).
func listAll(ctx context.Context, s mcpSession, maxTools int) ([]json.RawMessage, error) {
	var pages []json.RawMessage
	seen := map[string]bool{}
	cursor := ""
	tools := 0
	for {
		page, next, err := s.ListToolsPage(ctx, cursor)
		if err != nil {
			return nil, err
		}
		var count struct {
			Tools []struct{} `json:"tools"`
		}
		_ = json.Unmarshal(page, &count) // build reports a malformed page
		if tools += len(count.Tools); maxTools > 0 && tools > maxTools {
			return nil, &tooManyToolsError{Seen: tools, Limit: maxTools}
		}
		pages = append(pages, page)
		if next == "" {
			return pages, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("server repeated tools/list cursor %q", next)
		}
		seen[next] = true
		cursor = next
	}
}

// fail records a failed discovery with the text CrewAI raises or logs.
func (d *Discovery) fail(f failureInfo, crewaiText string) {
	d.Outcome, d.Error = f.Class, f.Detail
	d.CrewAIError = d.wrapCrewAI(crewaiText)
}

// wrapCrewAI wraps an error text the way each path reports it (§4.2–§4.4).
func (d *Discovery) wrapCrewAI(text string) string {
	if d.Ref == RefHTTPS {
		return "Failed to get MCP tool schemas from " + d.URL + ": " + text
	}
	return "Failed to get native MCP tools: Error during setup client and list tools: " + text
}

// build names, selects and filters the listed tools.
func (d *Discovery) build(spec ServerSpec, pages []json.RawMessage, agentRole string) error {
	var raws []json.RawMessage
	for _, p := range pages {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(p, &page); err != nil {
			return fmt.Errorf("tools/list result is not an object with tools: %w", err)
		}
		raws = append(raws, page.Tools...)
	}
	policy := d.Policy
	var lastByKey map[string]int
	if spec.Ref == RefHTTPS {
		lastByKey = map[string]int{}
	}
	for i, raw := range raws {
		t, err := parseTool(raw)
		if err != nil {
			return fmt.Errorf("tool %d: %w", i, err)
		}
		t.Sanitized = names.Sanitize(t.Name)
		t.CallName = t.Name
		t.Status, t.Reason = ToolKept, "kept"
		switch {
		case policy == PolicyAdapter:
			// MCPServerAdapter: bare sanitized names, no server prefix (§2.5).
			t.DisplayName = names.AdapterToolName(t.Name)
			t.LLMName = t.DisplayName
		case spec.Ref == RefHTTPS:
			t.DisplayName, t.LLMName, t.CallName = names.HTTPSRefTool(d.ServerName, t.Name)
			if prev, ok := lastByKey[t.Sanitized]; ok {
				d.Tools[prev].Status = ToolOverwritten
				d.Tools[prev].Reason = fmt.Sprintf("overwritten: %q sanitizes to the same key %q (the last one wins)", t.Name, t.Sanitized)
			}
			lastByKey[t.Sanitized] = len(d.Tools)
			if !names.HTTPSRefSelects(spec.SelectTool, t.Name) {
				t.Status, t.Reason = ToolNotSelected, fmt.Sprintf("not selected: the ref selects #%s", spec.SelectTool)
			}
		default:
			display, llm, skipped := names.NativeTool(d.ServerName, t.Name)
			t.DisplayName, t.LLMName = display, llm
			if skipped {
				t.Status, t.Reason = ToolSkipped, "skipped: the name sanitizes to empty"
			} else if spec.Ref == RefAMP && !names.AMPRefSelects(spec.SelectTool, display) {
				t.Status, t.Reason = ToolNotSelected, fmt.Sprintf("not selected: %q does not end in _%s", display, names.Sanitize(spec.SelectTool))
			}
		}
		if t.Status == ToolKept && t.DescriptionNull {
			t.Status = ToolDropped
			if spec.Ref == RefHTTPS {
				t.Reason = "dropped: null description (CrewAI logs `Failed to create MCP tool wrapper for " + t.Sanitized + ": …`)"
			} else {
				t.Reason = "dropped: null description (CrewAI logs `Failed to create native MCP tool: …`)"
			}
		}
		d.Tools = append(d.Tools, t)
	}
	if err := d.applyFilter(spec, agentRole); err != nil {
		return err
	}
	d.nameDiagnostics(spec)
	kept := 0
	for _, t := range d.Tools {
		if t.Kept() {
			kept++
		}
	}
	if kept == 0 {
		if spec.Ref == RefHTTPS {
			if len(raws) == 0 {
				d.Warnings = append(d.Warnings, "No tools discovered from MCP server: "+session.RedactURL(stripFragment(spec.URL)))
			} else if spec.SelectTool != "" {
				d.Warnings = append(d.Warnings, fmt.Sprintf("Specific tool '%s' not found on MCP server: %s", spec.SelectTool, session.RedactURL(stripFragment(spec.URL))))
			}
		} else {
			d.Warnings = append(d.Warnings, filter.NoToolsMessage(d.ServerName))
		}
	}
	return nil
}

// applyFilter runs the tool_filter (native configs only; §3 scope) over the
// tools that survived naming and selection.
func (d *Discovery) applyFilter(spec ServerSpec, agentRole string) error {
	if spec.Filter.IsZero() {
		return nil
	}
	if spec.Ref == RefHTTPS || spec.Ref == RefAMP {
		d.Warnings = append(d.Warnings, "tool_filter is ignored: CrewAI applies filters only to MCPServerStdio/HTTP/SSE configs")
		return nil
	}
	f, err := filter.New(spec.Filter.Allowed, spec.Filter.Blocked, spec.Filter.Expr)
	if err != nil {
		return fmt.Errorf("tool_filter: %w", err)
	}
	var idx []int
	var ft []filter.Tool
	for i, t := range d.Tools {
		if t.Status != ToolKept && t.Status != ToolDropped {
			continue // CrewAI never shows a skipped tool to the filter
		}
		var ann map[string]any
		_ = json.Unmarshal(t.Annotations, &ann)
		idx = append(idx, i)
		ft = append(ft, filter.Tool{Name: t.Sanitized, OriginalName: t.Name, Description: t.Description,
			InputSchema: t.InputSchema, Annotations: ann})
	}
	verdicts, hints := f.Apply(filter.Context{AgentRole: agentRole, ServerName: d.ServerName}, ft)
	for j, v := range verdicts {
		t := &d.Tools[idx[j]]
		t.FilterStage = v.By
		if t.Status == ToolDropped {
			continue
		}
		t.Reason = v.Reason
		if !v.Kept {
			t.Status = ToolFiltered
		}
	}
	d.Hints = hints
	d.KeepsNothing = filter.KeepsNothing(hints)
	return nil
}

func parseTool(raw json.RawMessage) (Tool, error) {
	var w struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		Description  *string         `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return Tool{}, err
	}
	t := Tool{Name: w.Name, Title: w.Title, InputSchema: w.InputSchema, OutputSchema: w.OutputSchema,
		Annotations: w.Annotations, Raw: append(json.RawMessage(nil), raw...)}
	if w.Description == nil {
		t.DescriptionNull = true
	} else {
		t.Description = *w.Description
	}
	if string(t.Annotations) == "null" {
		t.Annotations = nil
	}
	return t, nil
}

// nameInput is the names.Input that names one of the spec's tools.
func nameInput(spec ServerSpec, remote string) names.Input {
	in := names.Input{Tool: remote, Server: spec.Name}
	switch {
	case spec.Ref == RefHTTPS || spec.Ref == RefAMP:
		in.Kind, in.Ref = names.KindRef, spec.RefString
		if in.Ref == "" && spec.Ref == RefHTTPS {
			in.Ref = stripFragment(spec.URL)
			if spec.SelectTool != "" {
				in.Ref += "#" + spec.SelectTool
			}
		}
		if spec.Ref == RefAMP {
			in.AMPConfigURL = spec.URL
		}
	case spec.Transport == TransportStdio:
		in.Kind, in.Command, in.Args = names.KindStdio, spec.Command, spec.Args
	case spec.Transport == TransportSSE:
		in.Kind, in.URL = names.KindSSE, spec.URL
	default:
		in.Kind, in.URL = names.KindHTTP, spec.URL
	}
	if EffectivePolicy(spec) == PolicyAdapter && in.Kind != names.KindRef {
		in.Scheme = names.SchemeAdapter
	}
	return in
}

// nameDiagnostics attaches names' findings (hashing, leading digits,
// dropped names, collisions, …) to every tool that reaches the LLM's view.
func (d *Discovery) nameDiagnostics(spec ServerSpec) {
	results := make([]names.Result, len(d.Tools))
	for i, t := range d.Tools {
		r, err := names.Resolve(nameInput(spec, t.Name))
		if err != nil {
			r = names.Result{Status: names.StatusSkipped}
		}
		if t.Status != ToolKept && r.Status == names.StatusOK {
			// Only kept tools can collide at the LLM.
			r.Status = names.StatusSkipped
			results[i] = r
			d.Tools[i].Diagnostics = r.Diagnostics
			continue
		}
		results[i] = r
	}
	for i, r := range names.WithCollisions(results) {
		if len(r.Diagnostics) > 0 {
			d.Tools[i].Diagnostics = r.Diagnostics
		}
	}
}

// pluralSuffix is "s" unless n is 1.
func pluralSuffix(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
