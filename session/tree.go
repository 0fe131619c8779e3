package session

import (
	"strconv"
	"strings"
	"time"
)

// NodeKind is what a tree node stands for.
type NodeKind uint8

const (
	NodeRoot NodeKind = iota
	// NodeUnknown is a scope referenced (as a parent, or by a point event)
	// before any of its own start/end events arrived. It becomes a real
	// kind when one does; if none ever does it stays an orphan under the
	// root.
	NodeUnknown
	NodeCrew
	NodeTask
	NodeAgent
	NodeStep
	NodeLLM
	NodeTool    // tool_usage_*: one tool call as the agent sees it
	NodeMCPCall // mcp_tool_execution_*: the call sent to an MCP server
	NodeAttempt // crewbench_mcp_attempt_*: one attempt of an MCP call
	NodeConnection
	// NodeGuardrail is one check of a task's string guardrail
	// (llm_guardrail_*); the guardrail agent's kickoff is a NodeAgent in it.
	NodeGuardrail
	// NodeReasoning is one planning attempt of an agent
	// (agent_reasoning_*); its LLM call is a NodeLLM in it.
	NodeReasoning
)

var nodeKindNames = [...]string{"root", "unknown", "crew", "task", "agent", "step", "llm", "tool", "mcp_call", "attempt", "connection", "guardrail", "reasoning"}

func (k NodeKind) String() string {
	if int(k) < len(nodeKindNames) {
		return nodeKindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// NodeKindOf maps a scope event kind to the node it opens or closes
// (NodeUnknown for point events).
func NodeKindOf(k Kind) NodeKind {
	switch ScopeKind(k) {
	case CrewKickoffStarted, CrewKickoffCompleted, CrewKickoffFailed:
		return NodeCrew
	case TaskStarted, TaskCompleted, TaskFailed:
		return NodeTask
	case AgentExecutionStarted, AgentExecutionCompleted, AgentExecutionError,
		LiteAgentExecutionStarted, LiteAgentExecutionCompleted, LiteAgentExecutionError:
		return NodeAgent
	case LLMGuardrailStarted, LLMGuardrailCompleted:
		return NodeGuardrail
	case AgentReasoningStarted, AgentReasoningCompleted, AgentReasoningFailed:
		return NodeReasoning
	case AgentStepStarted, AgentStepFinished:
		return NodeStep
	case LLMCallStarted, LLMCallCompleted, LLMCallFailed:
		return NodeLLM
	case ToolUsageStarted, ToolUsageFinished, ToolUsageError:
		return NodeTool
	case MCPToolExecutionStarted, MCPToolExecutionCompleted, MCPToolExecutionFailed:
		return NodeMCPCall
	case MCPAttemptStarted, MCPAttemptFinished:
		return NodeAttempt
	case MCPConnectionStarted, MCPConnectionCompleted, MCPConnectionFailed:
		return NodeConnection
	}
	return NodeUnknown
}

// Status is where a scope is.
type Status uint8

const (
	StatusRunning Status = iota
	StatusOK
	StatusFailed
	StatusCancelled
	// StatusUnfinished is a scope whose own end never came and no longer
	// can: an ancestor ended while it was open (Node.ClosedBy), or the run
	// did (Tree.Finish). CrewAI leaves such scopes behind when an exception
	// skips an end event (a refinement that fails in planning, a crashed
	// tool or LLM call). It is neither a success nor a failure.
	StatusUnfinished
)

func (s Status) String() string {
	switch s {
	case StatusRunning:
		return "running"
	case StatusOK:
		return "ok"
	case StatusFailed:
		return "failed"
	case StatusCancelled:
		return "cancelled"
	case StatusUnfinished:
		return "unfinished"
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Usage is LLM token usage.
type Usage struct {
	Input  int64 `json:"input_tokens"`
	Output int64 `json:"output_tokens"`
	Total  int64 `json:"total_tokens"`
}

func (u Usage) plus(o Usage) Usage {
	return Usage{u.Input + o.Input, u.Output + o.Output, u.Total + o.Total}
}

func (u Usage) minus(o Usage) Usage {
	return Usage{u.Input - o.Input, u.Output - o.Output, u.Total - o.Total}
}

// IsZero reports whether no tokens were counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// UsageOf reads token usage from an event: Data["usage"] as CrewAI's TUI
// reads it (prompt_tokens | input_tokens | prompt_token_count, and
// completion_tokens | output_tokens | candidates_token_count), or the same
// keys at the top level of Data.
func UsageOf(ev Event) (Usage, bool) {
	m, _ := ev.Data[KeyUsage].(map[string]any)
	if m == nil {
		m = ev.Data
	}
	if m == nil {
		return Usage{}, false
	}
	num := func(keys ...string) (int64, bool) {
		for _, k := range keys {
			if v, ok := m[k]; ok {
				if n, ok := toInt64(v); ok {
					return n, true
				}
			}
		}
		return 0, false
	}
	in, okIn := num("prompt_tokens", "input_tokens", "prompt_token_count")
	out, okOut := num("completion_tokens", "output_tokens", "candidates_token_count")
	total, okTotal := num("total_tokens", "total_token_count")
	if !okIn && !okOut && !okTotal {
		return Usage{}, false
	}
	if !okTotal {
		total = in + out
	}
	return Usage{Input: in, Output: out, Total: total}, true
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), true
	case interface{ Int64() (int64, error) }:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// Node is one scope in the trace tree, or the root.
type Node struct {
	Kind  NodeKind
	Span  string
	Title string

	// ParentSpan is the parent declared by the node's events; Parent is
	// where the node hangs (the root when that parent never appeared).
	ParentSpan string
	Parent     *Node
	Children   []*Node
	// Events are the node's own start/end events and the point events that
	// happened in it, in arrival order.
	Events []Event

	Start    time.Time
	End      time.Time
	Duration time.Duration
	Status   Status
	Started  bool // a start event was seen
	Ended    bool // an end event was seen
	// ClosedBy is the ancestor whose end closed this scope while it was
	// still open (Status StatusUnfinished, End the ancestor's end); nil
	// when the scope ended itself or the run's end closed it.
	ClosedBy *Node

	Outcome   string
	Error     string
	ErrorType string

	RunID, TaskID, TaskName, AgentID, AgentRole string
	Server, ToolName, OriginalToolName          string
	Model                                       string
	// ProtocolVersion and MCPSessionID are the MCP session's, for an MCP
	// call also taken from its attempts and connection: a streaming export
	// lets go of those before the call's own span is built.
	ProtocolVersion, MCPSessionID string

	Step int // agent steps: 1-based iteration, or the plan step's number
	// PlanStep marks an agent step that is one step of a ready plan.
	PlanStep    bool
	Attempt     int // attempts: 1-based
	MaxAttempts int // attempts and MCP calls, when the emitter says
	Retries     int // retry_scheduled events seen in this scope

	CacheHit     bool // the result came from the cache
	GuardTripped bool // the repeated-call guard refused this call
	UsageLimit   bool // max_usage_count was reached
	// FailureEvents counts failure point events in this scope
	// (tool_failure_detected, tool_validate_input_error, …).
	FailureEvents int

	// Usage is the token usage of this node and everything under it.
	Usage    Usage
	ownUsage Usage
	seq      int64 // ordering key among siblings
	// spanBuilt says a SpanStream has exported the node.
	spanBuilt bool
}

// Orphan reports whether the node hangs on the root only because its
// parent is unknown: a scope whose own start/end was never seen, or whose
// declared parent could not be linked.
func (n *Node) Orphan() bool {
	return n.Parent != nil && n.Parent.Kind == NodeRoot && (n.Kind == NodeUnknown || n.ParentSpan != "")
}

// Depth is 0 for the root, 1 for its children, and so on.
func (n *Node) Depth() int {
	d := 0
	for p := n.Parent; p != nil; p = p.Parent {
		d++
	}
	return d
}

// ToolLabel renders both names of a tool the way crewbench shows them
// everywhere: "get_forecast ← getForecast @ weather". The arrow is left out
// when the names agree, the server when unknown.
func ToolLabel(llmName, original, server string) string {
	var b strings.Builder
	switch {
	case llmName == "" && original == "":
		b.WriteString("tool")
	case llmName == "":
		b.WriteString(original)
	case original == "" || original == llmName:
		b.WriteString(llmName)
	default:
		b.WriteString(llmName + " ← " + original)
	}
	if server != "" {
		b.WriteString(" @ " + server)
	}
	return b.String()
}

// Tree is the trace tree crew ▸ task ▸ agent ▸ step ▸ LLM call ▸ tool call
// ▸ MCP call ▸ attempt, built from the Span/Parent ids of events as they
// arrive. Add is cheap (a map lookup and an append in the usual in-order
// case) and tolerates events out of order, missing parents and missing
// start or end events: anything it cannot place hangs on the root. A Tree
// is not safe for concurrent use.
type Tree struct {
	Root   *Node
	bySpan map[string]*Node
	nodes  []*Node // creation order
	// noIndex leaves nodes empty: a SpanStream lets finished scopes go.
	noIndex bool

	events      int
	first, last time.Time
	// closed are the scopes the last Add or Finish closed, innermost first.
	closed []*Node
	// finished: Finish was called; a session without a scope is then over
	// before anything started, not running.
	finished bool
	// Failure point events that happened outside any tool scope.
	looseToolFailures int
	looseFailures     int
}

// NewTree returns an empty tree.
func NewTree() *Tree {
	return &Tree{Root: &Node{Kind: NodeRoot, Title: "session"}, bySpan: map[string]*Node{}}
}

// BuildTree builds a tree from a list of events.
func BuildTree(events []Event) *Tree {
	t := NewTree()
	for _, ev := range events {
		t.Add(ev)
	}
	return t
}

// Node returns the node with the given span id, or nil.
func (t *Tree) Node(span string) *Node { return t.bySpan[span] }

// Nodes returns every node except the root, in creation order.
func (t *Tree) Nodes() []*Node { return t.nodes }

// Len is the number of events added.
func (t *Tree) Len() int { return t.events }

// Walk visits the nodes under the root depth-first, children in order.
// Returning false from fn skips the node's children.
func (t *Tree) Walk(fn func(n *Node, depth int) bool) {
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		for _, c := range n.Children {
			if fn(c, depth) {
				walk(c, depth+1)
			}
		}
	}
	walk(t.Root, 1)
}

// Closed lists the scopes the last Add or Finish closed without an end
// of their own (StatusUnfinished), innermost first, siblings in order.
// The slice is reused by the next call.
func (t *Tree) Closed() []*Node { return t.closed }

// Add places one event in the tree and returns the node it now belongs to.
//
// The closing rule: when a scope ends, every scope under it still open is
// closed too, at the ancestor's end time, as StatusUnfinished with
// ClosedBy set; its own end, if it comes later, still wins. A scope that
// starts under one already ended stays open: the watch bridge hangs a
// CrewAI tool call under the LLM call that asked for it, which has ended
// by then.
func (t *Tree) Add(ev Event) *Node {
	t.closed = t.closed[:0]
	t.events++
	if !ev.Time.IsZero() {
		if t.first.IsZero() || ev.Time.Before(t.first) {
			t.first = ev.Time
		}
		if ev.Time.After(t.last) {
			t.last = ev.Time
		}
	}
	var n *Node
	if ev.Kind.IsStart() || ev.Kind.IsEnd() {
		if ev.Span == "" {
			// A scope event without an id cannot be matched with its other
			// half; it still gets a node of its own.
			n = t.newNode("")
		} else {
			n = t.getOrCreate(ev.Span)
		}
		n.Events = append(n.Events, ev)
		t.applyScope(n, ev)
		t.link(n, ev.Parent)
		if n.Ended {
			t.closeBelow(n, n, n.End)
		}
		if p := n.Parent; p != nil && p.Kind == NodeMCPCall {
			if p.ProtocolVersion == "" {
				p.ProtocolVersion = n.ProtocolVersion
			}
			if p.MCPSessionID == "" {
				p.MCPSessionID = n.MCPSessionID
			}
		}
	} else {
		n = t.pointTarget(ev)
		n.Events = append(n.Events, ev)
		t.applyPoint(n, ev)
	}
	return n
}

// Finish closes every scope still open as StatusUnfinished at the
// session's last timestamp: the run is over (the process died, the
// recording was torn, the crew failed without ending them) and their end
// can no longer come. Call it when a session is known to be finished — a
// recording read back, a run that returned — never while a run is live.
// A late end event still wins over it.
func (t *Tree) Finish() {
	t.closed = t.closed[:0]
	t.finished = true
	t.closeBelow(t.Root, nil, t.last)
}

// closeBelow closes the open scopes under n, on behalf of by (nil: the
// run's end), innermost first: the order their own ends would have come.
func (t *Tree) closeBelow(n, by *Node, at time.Time) {
	for _, c := range n.Children {
		t.closeBelow(c, by, at)
		t.closeOpen(c, by, at)
	}
}

// closeOpen closes n if it is still open.
func (t *Tree) closeOpen(n, by *Node, at time.Time) {
	if n.Ended || n.Status != StatusRunning {
		return
	}
	n.Status, n.ClosedBy, n.End, n.Duration = StatusUnfinished, by, at, 0
	if n.Started && !n.Start.IsZero() && at.After(n.Start) {
		n.Duration = at.Sub(n.Start)
	}
	t.closed = append(t.closed, n)
}

func (t *Tree) newNode(span string) *Node {
	n := &Node{Kind: NodeUnknown, Span: span, Status: StatusRunning}
	if !t.noIndex {
		t.nodes = append(t.nodes, n)
	}
	if span != "" {
		t.bySpan[span] = n
	}
	t.insertChild(t.Root, n)
	n.Title = title(n)
	return n
}

func (t *Tree) getOrCreate(span string) *Node {
	if n, ok := t.bySpan[span]; ok {
		return n
	}
	return t.newNode(span)
}

// pointTarget finds the scope a point event happened in: its Span, else its
// Parent, else the root.
func (t *Tree) pointTarget(ev Event) *Node {
	if ev.Span != "" {
		if n, ok := t.bySpan[ev.Span]; ok {
			return n
		}
	}
	if ev.Parent != "" {
		return t.getOrCreate(ev.Parent)
	}
	if ev.Span != "" {
		return t.getOrCreate(ev.Span)
	}
	return t.Root
}

// ServerOf is the one identity of the event's MCP server: crewbench's name
// (KeyServer) where a CrewAI event carries CrewAI's server_name next to it,
// so a call, its attempts and its connection name the server alike.
func ServerOf(ev Event) string {
	if s := ev.Str(KeyServer); s != "" {
		return s
	}
	return ev.Server
}

func (t *Tree) applyScope(n *Node, ev Event) {
	if n.Kind == NodeUnknown {
		n.Kind = NodeKindOf(ev.Kind)
	}
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&n.RunID, ev.RunID)
	fill(&n.TaskID, ev.TaskID)
	fill(&n.TaskName, ev.TaskName)
	fill(&n.AgentID, ev.AgentID)
	fill(&n.AgentRole, ev.AgentRole)
	fill(&n.Server, ServerOf(ev))
	fill(&n.ToolName, ev.ToolName)
	fill(&n.OriginalToolName, ev.OriginalToolName)
	fill(&n.Model, ev.Str(KeyModel))
	fill(&n.ProtocolVersion, ev.Str(KeyProtocolVersion))
	fill(&n.MCPSessionID, ev.Str(KeyMCPSessionID))
	if n.Attempt == 0 {
		n.Attempt = ev.Attempt
	}
	if m := int(ev.Int(KeyMaxAttempts)); m > 0 {
		n.MaxAttempts = m
	}
	if s := int(ev.Int(KeyStep)); s > 0 {
		n.Step = s // the emitter's number beats the one guessed from siblings
	}
	if ev.Bool(KeyPlanStep) {
		n.PlanStep = true
	}
	if ev.Bool(KeyFromCache) {
		n.CacheHit = true
	}
	firstSeen := !n.Started && !n.Ended
	if ev.Kind.IsStart() {
		n.Started = true
		n.Start = ev.Time
		switch {
		case n.Ended:
			if n.Duration == 0 && !n.End.IsZero() {
				n.Duration = n.End.Sub(n.Start)
			}
		case n.Status == StatusUnfinished:
			// A start arriving after the scope was closed (input out of
			// order) does not reopen it.
			if n.End.After(n.Start) {
				n.Duration = n.End.Sub(n.Start)
			}
		default:
			n.Status = StatusRunning
		}
	} else {
		n.Ended, n.ClosedBy = true, nil
		n.End = ev.Time
		switch {
		case ev.Duration > 0:
			n.Duration = ev.Duration
		case n.Started:
			n.Duration = n.End.Sub(n.Start)
		}
		if !n.Started {
			n.Start = n.End.Add(-n.Duration)
		}
		n.Outcome, n.Error, n.ErrorType = ev.Outcome, ev.Error, ev.ErrorType
		n.Status = endStatus(ev, n)
		if n.Kind == NodeLLM {
			if u, ok := UsageOf(ev); ok {
				delta := u.minus(n.ownUsage)
				n.ownUsage = u
				for p := n; p != nil; p = p.Parent {
					p.Usage = p.Usage.plus(delta)
				}
			}
		}
	}
	if firstSeen && ev.Seq > 0 {
		n.seq = ev.Seq
		// Its position among siblings was a guess until now.
		if p := n.Parent; p != nil && len(p.Children) > 1 {
			t.removeChild(p, n)
			t.insertChild(p, n)
		}
	}
	n.Title = title(n)
}

func endStatus(ev Event, n *Node) Status {
	if ev.Outcome == OutcomeCancelled || strings.Contains(strings.ToLower(ev.ErrorType), "cancel") {
		return StatusCancelled
	}
	if ev.IsFailure() || ev.Error != "" || (ev.Outcome != "" && ev.Outcome != OutcomeOK && ev.Outcome != "success") {
		return StatusFailed
	}
	// A tool whose failure was reported inside it (tool_failure_detected)
	// failed even if its scope then "finished": CrewAI hands the error
	// text to the LLM as the result.
	if n.FailureEvents > 0 && (n.Kind == NodeTool || n.Kind == NodeMCPCall) {
		return StatusFailed
	}
	switch f := ev.Data[KeyFailure].(type) {
	case bool:
		if f {
			return StatusFailed
		}
	case string:
		if f != "" {
			return StatusFailed
		}
	case map[string]any:
		if len(f) > 0 {
			return StatusFailed
		}
	}
	return StatusOK
}

func isToolFailureKind(k Kind) bool {
	switch k {
	case ToolFailureDetected, ToolValidateInputError, ToolSelectionError, ToolExecutionError:
		return true
	}
	return false
}

func (t *Tree) applyPoint(n *Node, ev Event) {
	switch ev.Kind {
	case CacheHit:
		n.CacheHit = true
	case GuardTripped:
		n.GuardTripped = true
	case UsageLimitReached:
		n.UsageLimit = true
	case MCPRetryScheduled:
		n.Retries++
	}
	if !ev.IsFailure() {
		return
	}
	n.FailureEvents++
	switch {
	case isToolFailureKind(ev.Kind) && (n.Kind == NodeTool || n.Kind == NodeMCPCall):
		if n.Ended && n.Status == StatusOK {
			n.Status = StatusFailed
		}
	case isToolFailureKind(ev.Kind):
		t.looseToolFailures++
	default:
		t.looseFailures++
	}
}

// link hangs n under the scope parentSpan names. The first declared parent
// wins; a parent that would make a cycle is ignored (n stays on the root).
func (t *Tree) link(n *Node, parentSpan string) {
	if parentSpan == "" || parentSpan == n.Span {
		return
	}
	if n.ParentSpan == "" {
		n.ParentSpan = parentSpan
	}
	if n.Parent != t.Root || n.ParentSpan != parentSpan {
		return
	}
	p := t.getOrCreate(parentSpan)
	for a := p; a != nil; a = a.Parent {
		if a == n {
			return
		}
	}
	t.removeChild(t.Root, n)
	if !n.Usage.IsZero() {
		t.Root.Usage = t.Root.Usage.minus(n.Usage)
		for a := p; a != nil; a = a.Parent {
			a.Usage = a.Usage.plus(n.Usage)
		}
	}
	t.insertChild(p, n)
	if n.Kind == NodeStep && n.Step == 0 {
		for _, c := range p.Children {
			if c.Kind == NodeStep && c != n {
				n.Step++
			}
		}
		n.Step++
		n.Title = title(n)
	}
}

// insertChild appends c to p's children, moving it back past siblings that
// started later (only happens for out-of-order input).
func (t *Tree) insertChild(p, c *Node) {
	c.Parent = p
	p.Children = append(p.Children, c)
	i := len(p.Children) - 1
	for i > 0 && before(c, p.Children[i-1]) {
		p.Children[i] = p.Children[i-1]
		i--
	}
	p.Children[i] = c
}

func before(a, b *Node) bool {
	if a.seq > 0 && b.seq > 0 {
		return a.seq < b.seq
	}
	if !a.Start.IsZero() && !b.Start.IsZero() && (a.Started || a.Ended) && (b.Started || b.Ended) {
		return a.Start.Before(b.Start)
	}
	return false
}

// release lets go of what n holds: its events, and its subtree, which is
// unhooked from the span index. n itself stays among its parent's
// children, slim, so what counts children (attempts of an MCP call) still
// sees it; a late event naming a released span starts a new node.
func (t *Tree) release(n *Node) {
	var drop func(m *Node)
	drop = func(m *Node) {
		if m.Span != "" && t.bySpan[m.Span] == m {
			delete(t.bySpan, m.Span)
		}
		for _, c := range m.Children {
			drop(c)
		}
		m.Children, m.Events = nil, nil
	}
	drop(n)
}

func (t *Tree) removeChild(p, c *Node) {
	for i := len(p.Children) - 1; i >= 0; i-- {
		if p.Children[i] == c {
			p.Children = append(p.Children[:i], p.Children[i+1:]...)
			break
		}
	}
	c.Parent = nil
}

// title is the one-line name of a node.
func title(n *Node) string {
	switch n.Kind {
	case NodeRoot:
		return "session"
	case NodeCrew:
		if name := crewName(n); name != "" {
			return "crew " + name
		}
		return "crew"
	case NodeTask:
		name := n.TaskName
		if name == "" {
			name = n.TaskID
		}
		if name == "" {
			return "task"
		}
		return "task " + name
	case NodeAgent:
		if n.AgentRole == "" {
			return "agent"
		}
		return "agent " + n.AgentRole
	case NodeStep:
		if n.PlanStep {
			return "plan step " + strconv.Itoa(n.Step)
		}
		if n.Step > 0 {
			return "step " + strconv.Itoa(n.Step)
		}
		return "step"
	case NodeLLM:
		if n.Model == "" {
			return "llm call"
		}
		return "chat " + n.Model
	case NodeTool:
		return ToolLabel(n.ToolName, n.OriginalToolName, n.Server)
	case NodeMCPCall:
		name := n.OriginalToolName
		if name == "" {
			name = n.ToolName
		}
		s := "tools/call " + name
		if n.Server != "" {
			s += " @ " + n.Server
		}
		return s
	case NodeAttempt:
		return attemptLabel(n)
	case NodeConnection:
		if n.Server == "" {
			return "connect"
		}
		return "connect " + n.Server
	case NodeGuardrail:
		for _, ev := range n.Events {
			if g := ev.Str("guardrail_name"); g != "" {
				return "guardrail " + g
			}
		}
		return "guardrail"
	case NodeReasoning:
		return "plan (attempt " + strconv.Itoa(max(n.Attempt, 1)) + ")"
	}
	if n.Span == "" {
		return "(unknown scope)"
	}
	return "(unknown scope " + n.Span + ")"
}

func attemptLabel(n *Node) string {
	a := n.Attempt
	if a == 0 {
		a = 1
	}
	max := n.MaxAttempts
	if max == 0 && n.Parent != nil {
		max = n.Parent.MaxAttempts
	}
	if max > 0 {
		return "attempt " + strconv.Itoa(a) + "/" + strconv.Itoa(max)
	}
	return "attempt " + strconv.Itoa(a)
}

func crewName(n *Node) string {
	for _, ev := range n.Events {
		if s := ev.Str(KeyCrewName); s != "" {
			return s
		}
	}
	return ""
}

// Summary aggregates a whole tree.
type Summary struct {
	Events   int
	Start    time.Time
	End      time.Time
	Duration time.Duration
	// Status is the outcome of the crews (or, with no crew in the session,
	// of the top-level scopes): running while any is open, failed or
	// cancelled if any ended so, unfinished if any was closed without an
	// end of its own, ok otherwise.
	Status Status
	// Succeeded is Status == StatusOK with at least one scope ended. A run
	// can succeed with ToolFailures > 0: CrewAI hands tool errors back to
	// the LLM, which may still produce an answer.
	Succeeded bool

	Crews, Tasks, Agents, Steps int
	LLMCalls, LLMFailures       int
	// ToolCalls counts calls as the agent sees them: tool_usage scopes, plus
	// MCP calls made outside any tool scope (e.g. `crewbench call`).
	ToolCalls    int
	ToolFailures int
	MCPCalls     int
	Attempts     int
	// FailedAttempts counts attempts that did not end ok, including ones a
	// retry recovered from.
	FailedAttempts int
	Retries        int
	CacheHits      int
	Guards         int
	UsageLimits    int
	// Failures counts failed or cancelled scopes (attempts excluded; a
	// failure that propagates to its task and crew counts at each level)
	// plus failure events outside any scope.
	Failures int
	Running  int
	// Unfinished counts scopes closed without an end of their own (by an
	// ancestor's end or the run's).
	Unfinished int
	Orphans    int
	Usage      Usage
	// FailedTools are the tool calls counted in ToolFailures, in order.
	FailedTools []*Node
}

// Summary computes the aggregates of the whole session (a walk over all
// nodes).
func (t *Tree) Summary() Summary {
	s := Summary{Events: t.events, Start: t.first, End: t.last, Usage: t.Root.Usage}
	if !t.first.IsZero() {
		s.Duration = t.last.Sub(t.first)
	}
	s.ToolFailures = t.looseToolFailures
	s.Failures = t.looseFailures + t.looseToolFailures
	t.summarize(&s, t.Root.Children)
	// The verdict comes from the crews, or from the top-level scopes when
	// the session has no crew.
	var top []*Node
	for _, c := range t.Root.Children {
		if c.Kind == NodeCrew {
			top = append(top, c)
		}
	}
	if len(top) == 0 {
		for _, c := range t.Root.Children {
			if c.Kind != NodeUnknown {
				top = append(top, c)
			}
		}
	}
	verdict(&s, top)
	if len(top) == 0 {
		s.Status = StatusRunning
		if t.finished {
			s.Status = StatusUnfinished
		}
	}
	return s
}

// SummaryOf computes the aggregates of one scope and everything under it
// (e.g. one crew run of a session with several).
func (t *Tree) SummaryOf(n *Node) Summary {
	if n == nil || n == t.Root {
		return t.Summary()
	}
	s := Summary{Start: n.Start, End: n.End, Duration: n.Duration, Usage: n.Usage}
	var walk func(n *Node)
	walk = func(n *Node) {
		s.Events += len(n.Events)
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	t.summarize(&s, []*Node{n})
	verdict(&s, []*Node{n})
	return s
}

func (t *Tree) summarize(s *Summary, roots []*Node) {
	var walk func(n *Node)
	walk = func(n *Node) {
		t.count(s, n)
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
}

func (t *Tree) count(s *Summary, n *Node) {
	failed := n.Status == StatusFailed || n.Status == StatusCancelled
	switch n.Kind {
	case NodeCrew:
		s.Crews++
	case NodeTask:
		s.Tasks++
	case NodeAgent:
		s.Agents++
	case NodeStep:
		s.Steps++
	case NodeLLM:
		s.LLMCalls++
		if failed {
			s.LLMFailures++
		}
	case NodeTool:
		s.ToolCalls++
		if failed {
			s.ToolFailures++
			s.FailedTools = append(s.FailedTools, n)
		}
	case NodeMCPCall:
		s.MCPCalls++
		if !insideTool(n) {
			s.ToolCalls++
			if failed {
				s.ToolFailures++
				s.FailedTools = append(s.FailedTools, n)
			}
		}
	case NodeAttempt:
		s.Attempts++
		if failed {
			s.FailedAttempts++
		}
	}
	if failed && n.Kind != NodeAttempt {
		s.Failures++
	}
	if n.Status == StatusRunning && n.Kind != NodeUnknown {
		s.Running++
	}
	if n.Status == StatusUnfinished && n.Kind != NodeUnknown {
		s.Unfinished++
	}
	if n.Orphan() {
		s.Orphans++
	}
	s.Retries += n.Retries
	if n.CacheHit {
		s.CacheHits++
	}
	if n.GuardTripped {
		s.Guards++
	}
	if n.UsageLimit {
		s.UsageLimits++
	}
}

func verdict(s *Summary, top []*Node) {
	s.Status = StatusOK
	ended := false
	for _, c := range top {
		switch c.Status {
		case StatusRunning:
			if s.Status == StatusOK || s.Status == StatusUnfinished {
				s.Status = StatusRunning
			}
		case StatusUnfinished:
			if s.Status == StatusOK {
				s.Status = StatusUnfinished
			}
		case StatusFailed:
			s.Status = StatusFailed
		case StatusCancelled:
			if s.Status != StatusFailed {
				s.Status = StatusCancelled
			}
		case StatusOK:
			ended = true
		}
	}
	s.Succeeded = s.Status == StatusOK && ended
}

func insideTool(n *Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Kind == NodeTool {
			return true
		}
	}
	return false
}
