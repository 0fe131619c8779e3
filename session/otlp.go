package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// OpenTelemetry export. Spans follow the GenAI and MCP semantic conventions
// (anchors.md §5.3):
//
//	crew                    invoke_workflow {crew}      INTERNAL
//	task (+ its agent)      invoke_agent {role}         INTERNAL
//	LLM call                chat {model}                CLIENT
//	tool call               execute_tool {LLM name}     INTERNAL
//	MCP attempt             tools/call {MCP tool}       CLIENT
//	MCP connection          initialize                  CLIENT
//
// Attributes follow "Semantic conventions for generative client AI spans"
// (opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans: chat spans carry
// gen_ai.provider.name (Required), gen_ai.request.model,
// gen_ai.response.model, server.address/server.port, and content as the
// structured {role, parts} messages) and "Semantic conventions for Model
// Context Protocol (MCP)" (opentelemetry.io/docs/specs/semconv/gen-ai/mcp:
// mcp.method.name, mcp.protocol.version and mcp.session.id of the session,
// jsonrpc.request.id, and for a JSON-RPC error response error.type and
// rpc.response.status_code set to the error code as a string).
//
// Agent steps are folded into their parent, and an MCP call made for a tool
// call is folded into its execute_tool span, as the MCP conventions ask when
// an outer GenAI span exists. Retries, guards, usage limits, cache hits and
// warnings become span events. Trace and span ids are hashes of the run id
// and crewbench's span ids, so exporting a session twice (or live and then
// from the file) gives the same ids.
//
// The payload is built as TracesData, which has the same wire format and
// JSON mapping as ExportTraceServiceRequest (both are `repeated
// ResourceSpans resource_spans = 1`), so the binary does not link the gRPC
// service package that ExportTraceServiceRequest lives in.

// ExportOptions configure an OTLP export.
type ExportOptions struct {
	// IncludeContent adds prompts, replies, tool arguments and results
	// (gen_ai.input.messages, gen_ai.tool.call.arguments, …). Off by
	// default: they are sensitive and large. Redaction applies either way.
	IncludeContent bool
	// ServiceName is the resource's service.name (default "crewbench").
	ServiceName    string
	ServiceVersion string
	// Project is recorded as the crewbench.project resource attribute.
	Project string
	// Redactor hides secrets before anything is exported; nil means
	// DefaultRedactor.
	Redactor *Redactor
}

const scopeName = "crewbench/session"

// BuildTraces converts a session's events into OTLP trace data. Scopes that
// never ended are exported with crewbench.incomplete = true, ending where
// the tree closed them: at the end of the ancestor that ended first
// (crewbench.closed_by its span), else at the session's last timestamp
// (crewbench.closed_by "session_end"). Their status stays unset: neither
// ok nor an error.
func BuildTraces(events []Event, opts ExportOptions) *tracepb.TracesData {
	st := NewSpanStream(opts)
	var spans []*tracepb.Span
	for _, ev := range events {
		spans = append(spans, st.Add(ev)...)
	}
	return wrapSpans(append(spans, st.Close()...), opts)
}

func wrapSpans(spans []*tracepb.Span, opts ExportOptions) *tracepb.TracesData {
	name := opts.ServiceName
	if name == "" {
		name = "crewbench"
	}
	res := []*commonpb.KeyValue{strAttr("service.name", name)}
	if opts.ServiceVersion != "" {
		res = append(res, strAttr("service.version", opts.ServiceVersion))
	}
	if opts.Project != "" {
		res = append(res, strAttr("crewbench.project", opts.Redactor.self().RedactString(opts.Project)))
	}
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: res},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: scopeName, Version: opts.ServiceVersion},
			Spans: spans,
		}},
	}}}
}

// exported reports whether a node becomes a span of its own.
func exported(n *Node) bool {
	switch n.Kind {
	case NodeCrew, NodeTask, NodeLLM, NodeTool, NodeAttempt, NodeConnection:
		return true
	case NodeAgent:
		// An agent working on a task is the task's invoke_agent span.
		return n.Parent == nil || n.Parent.Kind != NodeTask
	case NodeMCPCall:
		return n.Parent == nil || n.Parent.Kind != NodeTool
	}
	return false
}

// exportParent is the nearest ancestor that is a span (nil at the top).
func exportParent(n *Node) *Node {
	for p := n.Parent; p != nil && p.Kind != NodeRoot; p = p.Parent {
		if exported(p) {
			return p
		}
	}
	return nil
}

// topOf is the node's ancestor right under the root: its trace.
func topOf(n *Node) *Node {
	for n.Parent != nil && n.Parent.Kind != NodeRoot {
		n = n.Parent
	}
	return n
}

func nodeKey(n *Node) string {
	if n.Span != "" {
		return n.Span
	}
	if len(n.Events) > 0 {
		return "event:" + n.Events[0].ID + ":" + strconv.FormatInt(n.Events[0].Seq, 10)
	}
	return fmt.Sprintf("node:%p", n)
}

// TraceIDFor and SpanIDFor derive OTLP ids from a run id and crewbench span
// ids: stable across re-exports of the same session.
func TraceIDFor(runID, topSpan string) []byte {
	h := sha256.Sum256([]byte("crewbench/trace\x00" + runID + "\x00" + topSpan))
	return nonZero(h[:16])
}

// SpanIDFor: see TraceIDFor.
func SpanIDFor(runID, span string) []byte {
	h := sha256.Sum256([]byte("crewbench/span\x00" + runID + "\x00" + span))
	return nonZero(h[:8])
}

func nonZero(id []byte) []byte {
	for _, b := range id {
		if b != 0 {
			return id
		}
	}
	id[len(id)-1] = 1 // all-zero ids are invalid in OTLP
	return id
}

func runIDOf(n *Node) string {
	top := topOf(n)
	if top.RunID != "" {
		return top.RunID
	}
	return n.RunID
}

func idsOf(n *Node) (trace, span []byte) {
	top := topOf(n)
	run := runIDOf(n)
	return TraceIDFor(run, nodeKey(top)), SpanIDFor(run, nodeKey(n))
}

type spanBuilder struct {
	opts       ExportOptions
	tree       *Tree
	sessionEnd time.Time
}

func (b *spanBuilder) span(n *Node) *tracepb.Span {
	traceID, spanID := idsOf(n)
	s := &tracepb.Span{TraceId: traceID, SpanId: spanID, Kind: tracepb.Span_SPAN_KIND_INTERNAL}
	if p := exportParent(n); p != nil {
		_, s.ParentSpanId = idsOf(p)
	}
	start, end := n.Start, n.End
	if !n.Ended && n.Status != StatusUnfinished {
		end = b.sessionEnd
	}
	if start.IsZero() {
		start = end
	}
	if end.IsZero() || end.Before(start) {
		end = start
	}
	s.StartTimeUnixNano, s.EndTimeUnixNano = unixNano(start), unixNano(end)

	a := attrs{}
	errType := errorType(n)
	// Events of the folded scopes under this span (steps, the agent of a
	// task, the MCP call of a tool call) belong to it.
	folded := foldedInto(n)
	switch n.Kind {
	case NodeCrew:
		name := crewName(n)
		s.Name = joinName("invoke_workflow", name)
		a.str("gen_ai.operation.name", "invoke_workflow")
		a.str("gen_ai.workflow.name", name)
		if b.opts.IncludeContent {
			a.json("crewbench.crew.inputs", dataOf(n, KeyInputs))
			a.json("crewbench.crew.output", endDataOf(n, KeyOutput))
		}
	case NodeTask, NodeAgent:
		role, agentID := n.AgentRole, n.AgentID
		for _, f := range folded {
			if f.Kind == NodeAgent {
				role, agentID = firstNonEmpty(role, f.AgentRole), firstNonEmpty(agentID, f.AgentID)
			}
		}
		s.Name = joinName("invoke_agent", role)
		a.str("gen_ai.operation.name", "invoke_agent")
		a.str("gen_ai.agent.name", role)
		a.str("gen_ai.agent.id", agentID)
		a.str("crewbench.task.name", n.TaskName)
		a.str("crewbench.task.id", n.TaskID)
		if b.opts.IncludeContent {
			a.json("crewbench.task.output", endDataOf(n, KeyOutput))
		}
	case NodeLLM:
		provider, model := splitModel(n.Model, dataOf(n, KeyProvider))
		s.Name = joinName("chat", model)
		s.Kind = tracepb.Span_SPAN_KIND_CLIENT
		a.str("gen_ai.operation.name", "chat")
		a.str("gen_ai.provider.name", provider)
		a.str("gen_ai.request.model", model)
		// The completed event carries the model the API answered with.
		if m, ok := endDataOf(n, KeyModel).(string); ok && m != "" {
			_, rm := splitModel(m, provider)
			a.str("gen_ai.response.model", rm)
		}
		b.network(&a, "", str(dataOf(n, KeyServerURL)))
		for _, k := range []string{"temperature", "top_p"} {
			if f, ok := dataOf(n, k).(float64); ok {
				a.float("gen_ai.request."+k, f)
			}
		}
		if mt, ok := toInt64(dataOf(n, "max_tokens")); ok && mt > 0 {
			a.int("gen_ai.request.max_tokens", mt)
		}
		if !n.ownUsage.IsZero() {
			a.int("gen_ai.usage.input_tokens", n.ownUsage.Input)
			a.int("gen_ai.usage.output_tokens", n.ownUsage.Output)
		}
		if id, ok := endDataOf(n, KeyResponseID).(string); ok {
			a.str("gen_ai.response.id", id)
		}
		if fr, ok := endDataOf(n, KeyFinishReason).(string); ok && fr != "" {
			a.strs("gen_ai.response.finish_reasons", []string{fr})
		}
		if b.opts.IncludeContent {
			a.json("gen_ai.input.messages", inputMessages(dataOf(n, KeyMessages)))
			a.json("gen_ai.output.messages", outputMessages(n))
			a.json("gen_ai.tool.definitions", dataOf(n, KeyTools))
		}
	case NodeTool, NodeMCPCall:
		llmName := firstNonEmpty(n.ToolName, n.OriginalToolName)
		s.Name = joinName("execute_tool", llmName)
		a.str("gen_ai.operation.name", "execute_tool")
		a.str("gen_ai.tool.name", llmName)
		if id, ok := dataOf(n, KeyToolCallID).(string); ok {
			a.str("gen_ai.tool.call.id", id)
		}
		server, original := n.Server, n.OriginalToolName
		var mcp *Node
		if n.Kind == NodeMCPCall {
			mcp = n
		}
		for _, f := range folded {
			if f.Kind == NodeMCPCall && mcp == nil {
				mcp = f
			}
		}
		if mcp != nil {
			server, original = firstNonEmpty(server, mcp.Server), firstNonEmpty(original, mcp.OriginalToolName, mcp.ToolName)
			a.str("crewbench.mcp.transport", str(dataOf(mcp, KeyTransport)))
			a.str("mcp.session.id", mcp.MCPSessionID)
			a.str("mcp.protocol.version", mcp.ProtocolVersion)
			attempts := 0
			for _, c := range mcp.Children {
				if c.Kind == NodeAttempt {
					attempts++
				}
			}
			if attempts > 0 {
				a.int("crewbench.mcp.attempts", int64(attempts))
			}
			a.str("crewbench.mcp.outcome", mcp.Outcome)
			// The tool scope often ends with a plain error text; the MCP
			// call knows the class (timeout, tool_error, a JSON-RPC code).
			if errType == "_OTHER" && (mcp.Status == StatusFailed || mcp.Status == StatusCancelled) {
				errType = errorType(mcp)
			}
		}
		if server != "" {
			a.str("gen_ai.tool.type", "extension")
		} else {
			a.str("gen_ai.tool.type", "function")
		}
		a.str("crewbench.mcp.server", server)
		a.str("crewbench.mcp.tool", original)
		if n.CacheHit {
			a.bool("crewbench.tool.from_cache", true)
		}
		if b.opts.IncludeContent {
			a.json("gen_ai.tool.call.arguments", dataOf(n, KeyToolArgs))
			res := endDataOf(n, KeyOutput)
			if res == nil {
				res = endDataOf(n, KeyResult)
			}
			a.json("gen_ai.tool.call.result", res)
		}
	case NodeAttempt:
		tool := firstNonEmpty(n.OriginalToolName, n.ToolName)
		mcp := n.Parent
		if tool == "" && mcp != nil {
			tool = firstNonEmpty(mcp.OriginalToolName, mcp.ToolName)
		}
		s.Name = joinName("tools/call", tool)
		s.Kind = tracepb.Span_SPAN_KIND_CLIENT
		a.str("mcp.method.name", "tools/call")
		a.str("gen_ai.operation.name", "execute_tool")
		a.str("gen_ai.tool.name", tool)
		lookup := func(k string) any {
			if v := dataOf(n, k); v != nil {
				return v
			}
			if mcp != nil {
				return dataOf(mcp, k)
			}
			return nil
		}
		if id := lookup(KeyJSONRPCID); id != nil {
			a.str("jsonrpc.request.id", scalarString(id))
		}
		a.str("mcp.session.id", firstNonEmpty(n.MCPSessionID, mcpField(mcp, func(m *Node) string { return m.MCPSessionID })))
		a.str("mcp.protocol.version", firstNonEmpty(n.ProtocolVersion, mcpField(mcp, func(m *Node) string { return m.ProtocolVersion })))
		b.network(&a, str(lookup(KeyTransport)), str(lookup(KeyServerURL)))
		a.str("crewbench.mcp.server", firstNonEmpty(n.Server, parentServer(mcp)))
		a.int("crewbench.mcp.attempt", int64(max(n.Attempt, 1)))
		if m := n.MaxAttempts; m > 0 {
			a.int("crewbench.mcp.max_attempts", int64(m))
		} else if mcp != nil && mcp.MaxAttempts > 0 {
			a.int("crewbench.mcp.max_attempts", int64(mcp.MaxAttempts))
		}
		a.str("crewbench.mcp.outcome", n.Outcome)
		// A JSON-RPC error response: the code is the status code (MCP
		// conventions, rpc.response.status_code); error.type below is it too.
		if n.Outcome == OutcomeJSONRPCError {
			if code := dataOf(n, KeyJSONRPCCode); code != nil {
				a.str("rpc.response.status_code", scalarString(code))
			}
		}
		if b.opts.IncludeContent {
			a.json("gen_ai.tool.call.arguments", lookup(KeyToolArgs))
			a.json("gen_ai.tool.call.result", endDataOf(n, KeyResult))
		}
	case NodeConnection:
		s.Name = "initialize"
		s.Kind = tracepb.Span_SPAN_KIND_CLIENT
		a.str("mcp.method.name", "initialize")
		a.str("crewbench.mcp.server", n.Server)
		a.str("mcp.protocol.version", n.ProtocolVersion)
		a.str("mcp.session.id", n.MCPSessionID)
		b.network(&a, str(dataOf(n, KeyTransport)), str(dataOf(n, KeyServerURL)))
	}
	a.str("crewbench.run.id", runIDOf(n))
	a.str("crewbench.span", n.Span)
	if !n.Ended {
		a.bool("crewbench.incomplete", true)
	}
	if n.Status == StatusUnfinished {
		// What closed it: the span id of the ancestor that ended first, or
		// the session's end.
		by := "session_end"
		if n.ClosedBy != nil {
			by = n.ClosedBy.Span
		}
		a.str("crewbench.closed_by", by)
	}
	switch n.Status {
	case StatusFailed, StatusCancelled:
		a.str("error.type", errType)
		msg := n.Error
		if msg == "" && n.Status == StatusCancelled {
			msg = "cancelled"
		}
		s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: msg}
	}
	s.Attributes = a.kvs
	s.Events = b.spanEvents(n, folded)
	return s
}

// foldedInto lists the non-exported descendants whose nearest exported
// ancestor is n.
func foldedInto(n *Node) []*Node {
	var out []*Node
	var walk func(p *Node)
	walk = func(p *Node) {
		for _, c := range p.Children {
			if !exported(c) {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(n)
	return out
}

// errorType is the low-cardinality error.type: the JSON-RPC code for
// protocol errors, "tool_error" for isError results (both per the MCP
// conventions), else the outcome class or the emitter's error type.
func errorType(n *Node) string {
	switch n.Outcome {
	case OutcomeJSONRPCError:
		if code := dataOf(n, KeyJSONRPCCode); code != nil {
			return scalarString(code)
		}
		return OutcomeJSONRPCError
	case OutcomeIsError:
		return "tool_error"
	case "", OutcomeOK, "failed":
	default:
		return n.Outcome
	}
	if n.ErrorType != "" {
		return n.ErrorType
	}
	if n.Status == StatusCancelled {
		return OutcomeCancelled
	}
	return "_OTHER"
}

func (b *spanBuilder) network(a *attrs, transport, rawURL string) {
	switch strings.ToLower(transport) {
	case "stdio":
		a.str("network.transport", "pipe")
	case "":
	default:
		a.str("network.transport", "tcp")
	}
	if rawURL == "" {
		return
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return
	}
	a.str("server.address", u.Hostname())
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	if p, err := strconv.Atoi(port); err == nil {
		a.int("server.port", int64(p))
	}
}

// spanEvents turns the point events of a scope (and of the scopes folded
// into it) into span events.
func (b *spanBuilder) spanEvents(n *Node, folded []*Node) []*tracepb.Span_Event {
	var out []*tracepb.Span_Event
	add := func(ev Event) {
		e := &tracepb.Span_Event{TimeUnixNano: unixNano(ev.Time)}
		a := attrs{}
		switch ev.Kind {
		case MCPRetryScheduled:
			e.Name = "crewbench.mcp.retry"
			a.int("crewbench.mcp.attempt", int64(ev.Attempt))
			if d := backoffOf(ev); d > 0 {
				a.float("crewbench.mcp.backoff_seconds", d.Seconds())
			}
			a.str("crewbench.mcp.outcome", ev.Outcome)
		case GuardTripped:
			e.Name = "crewbench.guard_tripped"
			a.str("gen_ai.tool.name", ev.ToolName)
			a.str("crewbench.message", firstNonEmpty(ev.Str(KeyMessage), ev.Error))
		case UsageLimitReached:
			e.Name = "crewbench.usage_limit_reached"
			a.str("gen_ai.tool.name", ev.ToolName)
			if v := ev.Int(KeyUsageCount); v > 0 {
				a.int("crewbench.tool.usage_count", v)
			}
			if v := ev.Int(KeyMaxUsageCount); v > 0 {
				a.int("crewbench.tool.max_usage_count", v)
			}
			a.str("crewbench.message", ev.Str(KeyMessage))
		case CacheHit:
			e.Name = "crewbench.cache_hit"
			a.str("gen_ai.tool.name", ev.ToolName)
		case Warning:
			e.Name = "crewbench.warning"
			a.str("crewbench.message", firstNonEmpty(ev.Str(KeyMessage), ev.Error))
		case ToolFailureDetected, ToolValidateInputError, ToolSelectionError, ToolExecutionError, MCPConfigFetchFailed:
			e.Name = "crewbench." + string(ev.Kind)
			a.str("error.type", firstNonEmpty(ev.ErrorType, string(ev.Kind)))
			a.str("crewbench.message", ev.Error)
		case StepPaused, StepResumed:
			e.Name = "crewbench." + strings.TrimPrefix(string(ev.Kind), "crewbench_")
			a.str("crewbench.message", ev.Str(KeyMessage))
		case MCPStderr, MCPNotification:
			if !b.opts.IncludeContent {
				return
			}
			e.Name = "crewbench." + strings.TrimPrefix(string(ev.Kind), "crewbench_")
			a.str("crewbench.message", firstNonEmpty(ev.Str(KeyLine), ev.Str(KeyMessage)))
		default:
			return
		}
		e.Attributes = a.kvs
		out = append(out, e)
	}
	for _, ev := range n.Events {
		if !ev.Kind.IsStart() && !ev.Kind.IsEnd() {
			add(ev)
		}
	}
	for _, f := range folded {
		for _, ev := range f.Events {
			if !ev.Kind.IsStart() && !ev.Kind.IsEnd() {
				add(ev)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TimeUnixNano < out[j].TimeUnixNano })
	return out
}

// --- attribute helpers -----------------------------------------------------

type attrs struct{ kvs []*commonpb.KeyValue }

func strAttr(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func (a *attrs) str(k, v string) {
	if v != "" {
		a.kvs = append(a.kvs, strAttr(k, v))
	}
}

func (a *attrs) strs(k string, vs []string) {
	arr := &commonpb.ArrayValue{}
	for _, v := range vs {
		arr.Values = append(arr.Values, &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}})
	}
	a.kvs = append(a.kvs, &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: arr}}})
}

func (a *attrs) int(k string, v int64) {
	a.kvs = append(a.kvs, &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}})
}

func (a *attrs) float(k string, v float64) {
	a.kvs = append(a.kvs, &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}})
}

func (a *attrs) bool(k string, v bool) {
	a.kvs = append(a.kvs, &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v}}})
}

// json stores structured content as a JSON string (the GenAI conventions'
// recommended form for messages and tool arguments on spans).
func (a *attrs) json(k string, v any) {
	switch x := v.(type) {
	case nil:
		return
	case string:
		a.str(k, x)
		return
	}
	buf, err := json.Marshal(v)
	if err != nil {
		return
	}
	a.str(k, string(buf))
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return uint64(t.UnixNano())
}

func joinName(op, target string) string {
	if target == "" {
		return op
	}
	return op + " " + target
}

// dataOf returns the first value of key in the node's own start/end events.
func dataOf(n *Node, key string) any {
	for _, ev := range n.Events {
		if ev.Kind.IsStart() || ev.Kind.IsEnd() {
			if v, ok := ev.Data[key]; ok && v != nil {
				return v
			}
		}
	}
	return nil
}

// endDataOf returns key from the node's end event.
func endDataOf(n *Node, key string) any {
	for i := len(n.Events) - 1; i >= 0; i-- {
		if ev := n.Events[i]; ev.Kind.IsEnd() {
			return ev.Data[key]
		}
	}
	return nil
}

// mcpField reads a field of an attempt's MCP call (nil for a lone attempt).
func mcpField(mcp *Node, f func(*Node) string) string {
	if mcp == nil {
		return ""
	}
	return f(mcp)
}

func parentServer(n *Node) string {
	if n == nil {
		return ""
	}
	return n.Server
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if n, ok := toInt64(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprint(v)
}

// splitModel turns a CrewAI/LiteLLM model string into the GenAI provider
// name and the model as the provider knows it: "openai/gpt-4o-mini" →
// ("openai", "gpt-4o-mini"). An explicit provider wins.
func splitModel(model string, provider any) (string, string) {
	p, _ := provider.(string)
	prefix, rest, ok := strings.Cut(model, "/")
	if !ok {
		if p == "" {
			p = providerOfBareModel(model)
		}
		return p, model
	}
	known := map[string]string{
		"openai": "openai", "anthropic": "anthropic", "ollama": "ollama", "gemini": "gcp.gemini",
		"vertex_ai": "gcp.vertex_ai", "bedrock": "aws.bedrock", "azure": "azure.ai.openai",
		"groq": "groq", "mistral": "mistral_ai", "deepseek": "deepseek", "xai": "x_ai",
		"cohere": "cohere", "perplexity": "perplexity", "watsonx": "ibm.watsonx.ai",
	}
	if v, ok := known[strings.ToLower(prefix)]; ok {
		if p == "" {
			p = v
		}
		return p, rest
	}
	if p == "" {
		p = prefix
	}
	return p, rest
}

// providerOfBareModel names the provider of a model given without a
// provider prefix, from the model family (as LiteLLM routes them):
// gen_ai.provider.name is Required on chat spans.
func providerOfBareModel(model string) string {
	m := strings.ToLower(model)
	for _, f := range []struct{ prefix, provider string }{
		{"gpt-", "openai"}, {"chatgpt", "openai"}, {"o1", "openai"}, {"o3", "openai"}, {"o4", "openai"},
		{"claude", "anthropic"}, {"gemini", "gcp.gemini"}, {"mistral", "mistral_ai"}, {"command", "cohere"},
		{"deepseek", "deepseek"}, {"grok", "x_ai"},
	} {
		if strings.HasPrefix(m, f.prefix) {
			return f.provider
		}
	}
	return ""
}

// --- encodings ---------------------------------------------------------------

// MarshalOTLPProto encodes trace data as an OTLP/protobuf
// ExportTraceServiceRequest body.
func MarshalOTLPProto(td *tracepb.TracesData) ([]byte, error) {
	b, err := proto.Marshal(td)
	if err != nil {
		return nil, fmt.Errorf("encode OTLP protobuf: %w", err)
	}
	return b, nil
}

// MarshalOTLPJSON encodes trace data in the OTLP/JSON encoding: the proto3
// JSON mapping with lowerCamelCase keys, 64-bit integers as decimal strings,
// enums as integers and — unlike plain protojson — trace and span ids as
// hex. The output is one line, keys sorted, so it is stable and can be
// appended to a JSON-lines file the collector's file receiver reads.
func MarshalOTLPJSON(td *tracepb.TracesData) ([]byte, error) {
	return marshalOTLPJSONLine(td)
}

func marshalOTLPJSONLine(m proto.Message) ([]byte, error) {
	raw, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode OTLP JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("encode OTLP JSON: %w", err)
	}
	if err := hexIDs(doc); err != nil {
		return nil, fmt.Errorf("encode OTLP JSON: %w", err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode OTLP JSON: %w", err)
	}
	return out.Bytes(), nil
}

// hexIDs rewrites the base64 ids protojson produces as hex, everywhere an
// OTLP message has one.
func hexIDs(v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch k {
			case "traceId", "spanId", "parentSpanId":
				if s, ok := val.(string); ok {
					b, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						return fmt.Errorf("%s %q: %w", k, s, err)
					}
					x[k] = hex.EncodeToString(b)
				}
			default:
				if err := hexIDs(val); err != nil {
					return err
				}
			}
		}
	case []any:
		for _, val := range x {
			if err := hexIDs(val); err != nil {
				return err
			}
		}
	}
	return nil
}

// --- OTLP/HTTP -----------------------------------------------------------------

// OTLPClient posts OTLP/HTTP protobuf requests.
type OTLPClient struct {
	// Endpoint is a collector base URL ("http://localhost:4318", to which
	// /v1/traces is added) or a full traces URL (any other path is kept).
	Endpoint string
	// Headers are sent with every request (e.g. Authorization for a hosted
	// backend). They never appear in errors.
	Headers map[string]string
	// Timeout bounds each request (default 10s).
	Timeout time.Duration
	// HTTPClient defaults to a client without its own timeout; the deadline
	// comes from the request context.
	HTTPClient *http.Client
	// Redactor cleans URLs and server messages in errors (nil: default).
	Redactor *Redactor
}

// HTTPError is a non-2xx answer from an OTLP endpoint.
type HTTPError struct {
	URL        string // redacted
	StatusCode int
	Message    string // the server's explanation, redacted
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("otlp export to %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Retryable reports whether the OTLP spec allows sending the same data again.
func (e *HTTPError) Retryable() bool {
	switch e.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// PartialSuccessError reports spans the collector accepted the request but
// rejected.
type PartialSuccessError struct {
	Rejected int64
	Message  string
}

func (e *PartialSuccessError) Error() string {
	return fmt.Sprintf("otlp export: collector rejected %d spans: %s", e.Rejected, e.Message)
}

// TracesURL resolves the endpoint to the URL requests go to.
func TracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("otlp endpoint %q: %w", RedactURL(endpoint), stripURL(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("otlp endpoint %q: want an http:// or https:// URL", RedactURL(endpoint))
	}
	if u.Host == "" {
		return "", fmt.Errorf("otlp endpoint %q: no host", RedactURL(endpoint))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Export posts trace data and waits for the answer.
func (c *OTLPClient) Export(ctx context.Context, td *tracepb.TracesData) error {
	red := c.Redactor.self()
	target, err := TracesURL(c.Endpoint)
	if err != nil {
		return err
	}
	shown := red.RedactURL(target)
	body, err := MarshalOTLPProto(td)
	if err != nil {
		return err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("otlp export to %s: %w", shown, stripURL(err))
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		err = stripURL(err)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return fmt.Errorf("otlp export to %s: no answer within %s: %w", shown, timeout, err)
		}
		return fmt.Errorf("otlp export to %s: %w", shown, err)
	}
	defer resp.Body.Close()
	respBody, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &HTTPError{URL: shown, StatusCode: resp.StatusCode, Message: red.RedactString(errorMessage(resp.Header.Get("Content-Type"), respBody))}
	}
	if strings.Contains(resp.Header.Get("Content-Type"), "protobuf") {
		if rejected, msg := partialSuccess(respBody); rejected > 0 {
			return &PartialSuccessError{Rejected: rejected, Message: red.RedactString(msg)}
		}
	}
	return nil
}

// errorMessage extracts the explanation from an OTLP error body: a
// google.rpc.Status (message is field 2) in protobuf or JSON, else text.
func errorMessage(contentType string, body []byte) string {
	if len(body) == 0 {
		return ""
	}
	switch {
	case strings.Contains(contentType, "protobuf"):
		if s, ok := protoStringField(body, 2); ok {
			return markLineBreaks(s)
		}
		return ""
	case strings.Contains(contentType, "json"):
		var st struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &st) == nil && st.Message != "" {
			return markLineBreaks(st.Message)
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return markLineBreaks(s)
}

// partialSuccess decodes ExportTraceServiceResponse.partial_success
// (field 1: {rejected_spans = 1, error_message = 2}).
func partialSuccess(body []byte) (int64, string) {
	ps, ok := protoBytesField(body, 1)
	if !ok {
		return 0, ""
	}
	var rejected int64
	var msg string
	for len(ps) > 0 {
		num, typ, n := protowire.ConsumeTag(ps)
		if n < 0 {
			break
		}
		ps = ps[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(ps)
			if m < 0 {
				return rejected, msg
			}
			rejected, ps = int64(v), ps[m:]
		case num == 2 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(ps)
			if m < 0 {
				return rejected, msg
			}
			msg, ps = string(v), ps[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, ps)
			if m < 0 {
				return rejected, msg
			}
			ps = ps[m:]
		}
	}
	return rejected, msg
}

func protoBytesField(b []byte, field protowire.Number) ([]byte, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		b = b[n:]
		if num == field && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, false
			}
			return v, true
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return nil, false
		}
		b = b[m:]
	}
	return nil, false
}

func protoStringField(b []byte, field protowire.Number) (string, bool) {
	v, ok := protoBytesField(b, field)
	return string(v), ok
}

// stripURL drops the *url.Error wrapper, whose message quotes the full,
// unredacted URL; callers name the redacted URL themselves.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// --- GenAI message format ------------------------------------------------------

// The structured message format of the GenAI semantic conventions
// (gen_ai.input.messages / gen_ai.output.messages, "gen-ai-input-messages"
// and "gen-ai-output-messages" JSON schemas): a message is {role, parts}
// and a part is text, tool_call or tool_call_response; output messages also
// carry finish_reason.
type genAIPart struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Response  any    `json:"response,omitempty"`
}

type genAIMessage struct {
	Role         string      `json:"role"`
	Parts        []genAIPart `json:"parts"`
	FinishReason string      `json:"finish_reason,omitempty"`
}

// chatMessage is the OpenAI chat form events record messages in.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments"`
	} `json:"function"`
}

// reshape decodes v (live Go values or decoded JSON) into out by a JSON
// round trip.
func reshape(v, out any) bool {
	buf, err := json.Marshal(v)
	return err == nil && json.Unmarshal(buf, out) == nil
}

// toolArguments is a tool call's arguments as an object when they are a
// JSON object in text (as OpenAI sends them), else as they are.
func toolArguments(v any) any {
	if s, ok := v.(string); ok {
		var obj map[string]any
		if json.Unmarshal([]byte(s), &obj) == nil {
			return obj
		}
	}
	return v
}

func (m chatMessage) parts() []genAIPart {
	var parts []genAIPart
	var text string
	switch c := m.Content.(type) {
	case string:
		text = c
	case nil:
	default:
		buf, _ := json.Marshal(c)
		text = string(buf)
	}
	if m.Role == "tool" {
		return []genAIPart{{Type: "tool_call_response", ID: m.ToolCallID, Response: text}}
	}
	if text != "" {
		parts = append(parts, genAIPart{Type: "text", Content: text})
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, genAIPart{Type: "tool_call", ID: tc.ID, Name: tc.Function.Name, Arguments: toolArguments(tc.Function.Arguments)})
	}
	if parts == nil {
		parts = []genAIPart{}
	}
	return parts
}

// inputMessages converts recorded request messages; data in another shape
// is exported as it was recorded.
func inputMessages(v any) any {
	var msgs []chatMessage
	if v == nil || !reshape(v, &msgs) {
		return v
	}
	out := make([]genAIMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, genAIMessage{Role: m.Role, Parts: m.parts()})
	}
	return out
}

// outputMessages is the reply of an LLM call as one assistant message: the
// response text (or a recorded {content, tool_calls} object) and the
// event's tool_calls.
func outputMessages(n *Node) any {
	resp, calls := endDataOf(n, KeyResponse), endDataOf(n, "tool_calls")
	if resp == nil && calls == nil {
		return nil
	}
	m := chatMessage{Role: "assistant"}
	switch r := resp.(type) {
	case string:
		m.Content = r
	case nil:
	default:
		if !reshape(r, &m) || m.Content == nil && m.ToolCalls == nil {
			m.Content = r
		}
		m.Role = "assistant"
	}
	if len(m.ToolCalls) == 0 && calls != nil {
		reshape(calls, &m.ToolCalls)
	}
	fr, _ := endDataOf(n, KeyFinishReason).(string)
	return []genAIMessage{{Role: "assistant", Parts: m.parts(), FinishReason: fr}}
}
