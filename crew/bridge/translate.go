package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"crewbench/session"
)

// crewbench's own kinds for a watched run (CrewAI has none for these).
const (
	// KindBridgeConnected: a Python process of the run loaded the bridge.
	// Data: python, executable, crewai_version, hooks, pid, argv,
	// real_crewai (always true: the session is a real CrewAI run), and
	// event_classes when the bridge had to register a handler per class.
	KindBridgeConnected session.Kind = "crewbench_bridge_connected"
	// KindProcessOutput: one line the command wrote. Data: stream
	// ("stdout" or "stderr"), line.
	KindProcessOutput session.Kind = "crewbench_process_output"
	// KindProcessExited: the command ended. Data: exit_code, signal.
	KindProcessExited session.Kind = "crewbench_process_exited"
)

// Data keys a watched run adds to CrewAI's own fields.
const (
	KeyCrewAIClass  = "crewai_class"  // the event's Python class
	KeyCrewAISource = "crewai_source" // the emitter's class (Crew, Task, Agent, AgentExecutor, ToolUsage, MCPClient, …)
	KeyBridgeSeq    = "crewbench_seq" // the bridge's emit-time order within one process
	KeyStream       = "stream"
	KeyRealCrewAI   = "real_crewai"
	// KeySynthesized marks an event crewbench made up for the tree: a tool
	// call skipped at a breakpoint on CrewAI's ReAct path emits no tool
	// event at all (spec §3.4).
	KeySynthesized = "crewbench_synthesized"
)

// translator turns one connection's CrewAI events into session.Events.
//
// CrewAI links events by event_id / parent_event_id / started_event_id;
// the session tree links them by Span / Parent. Scopes the session tree
// has no node for (flow_*, a flow's method_execution_*, memory, knowledge) are made transparent: their children hang on the nearest scope the tree
// knows, so the tree reads crew ▸ task ▸ agent ▸ LLM call ▸ tool call ▸
// MCP call like an engine run.
type translator struct {
	runID string
	// alias maps a transparent scope's event_id to its own parent.
	alias map[string]string
	// lastLLM is the latest LLM call span per enclosing scope: CrewAI's tool
	// calls are siblings of the LLM call that asked for them, the engine's
	// are its children.
	lastLLM map[string]string
	// lastLLMOf is the latest LLM call span per agent role: where a tool
	// call that CrewAI emitted no event for hangs.
	lastLLMOf map[string]string
	// openTools are the tool_usage_started not yet ended, oldest first: a
	// native tool call's pause comes after its start (spec §3.5).
	openTools []openTool
	// idPrefix makes synthesized span ids unique across connections.
	idPrefix string

	mu sync.Mutex
	// skipped are the tool spans a skip decision was sent for; their
	// tool_usage_finished is marked (the pause goroutine writes, the
	// connection's reader reads).
	skipped map[string]bool
}

type openTool struct {
	span, parent, tool, agent, args string
	claimed                         bool // a pause already took it
}

func newTranslator(runID, idPrefix string) *translator {
	return &translator{runID: runID, idPrefix: idPrefix, alias: map[string]string{}, lastLLM: map[string]string{},
		lastLLMOf: map[string]string{}, skipped: map[string]bool{}}
}

// toolTarget is the trace node a tool-call pause is about.
type toolTarget struct {
	span, parent string
	// emitted: CrewAI emitted the call's tool_usage_started already (native
	// path); otherwise (ReAct) it emits tool events only if the tool runs.
	emitted bool
}

// toolPause finds the node for a tool-call pause: the open native call
// with the same tool, agent and (preferably) arguments, or else a new span
// under the agent's latest LLM call. Called in delivery order, so every
// event emitted before the pause has been seen.
func (t *translator) toolPause(m wireMsg) toolTarget {
	args := canonicalJSON(m.ToolInput)
	pick := -1
	for i := len(t.openTools) - 1; i >= 0; i-- {
		o := t.openTools[i]
		if o.claimed || o.tool != m.ToolName || o.agent != m.AgentRole {
			continue
		}
		if pick < 0 || o.args == args {
			pick = i
		}
		if o.args == args {
			break
		}
	}
	if pick >= 0 {
		t.openTools[pick].claimed = true
		o := t.openTools[pick]
		return toolTarget{span: o.span, parent: o.parent, emitted: true}
	}
	return toolTarget{span: fmt.Sprintf("crewbench-skip-%s-%d", t.idPrefix, m.ID), parent: t.lastLLMOf[m.AgentRole]}
}

// markSkipped records that the call at span was skipped.
func (t *translator) markSkipped(span string) {
	t.mu.Lock()
	t.skipped[span] = true
	t.mu.Unlock()
}

func (t *translator) takeSkipped(span string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ok := t.skipped[span]
	delete(t.skipped, span)
	return ok
}

// skippedCall is the tool node for a call skipped on the ReAct path, where
// CrewAI emits no tool event: a start and a finish marked skipped, as the
// engine records a skipped call.
func (t *translator) skippedCall(m wireMsg, at toolTarget, result string) []session.Event {
	base := session.Event{RunID: t.runID, Span: at.span, Parent: at.parent, ToolName: m.ToolName,
		OriginalToolName: m.OriginalToolName, Server: m.ServerName, AgentRole: m.AgentRole, TaskName: m.TaskName}
	started, finished := base, base
	started.Kind, started.ID = session.ToolUsageStarted, at.span
	started.Data = map[string]any{KeySynthesized: true}
	var args any
	if json.Unmarshal(m.ToolInput, &args) == nil {
		started.Data[session.KeyToolArgs] = args
	}
	finished.Kind, finished.Outcome = session.ToolUsageFinished, "ok"
	finished.Data = map[string]any{session.KeyOutput: result, session.KeySkipped: true, KeySynthesized: true}
	return []session.Event{started, finished}
}

// canonicalJSON re-encodes a JSON value with sorted keys, to compare
// arguments ("" when it is not JSON).
func canonicalJSON(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func canonicalValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func (t *translator) resolve(id string) string {
	for range 64 { // aliases form chains, never cycles; the bound is a guard
		p, ok := t.alias[id]
		if !ok {
			return id
		}
		id = p
	}
	return id
}

// transparentScope reports whether a CrewAI type opens or closes a scope
// the session tree has no node for.
func transparentScope(typ string) (start bool, ok bool) {
	stem, suffix, found := cutLast(typ, "_")
	if !found {
		return false, false
	}
	switch {
	case stem == "flow", stem == "method_execution", strings.HasPrefix(stem, "memory_"), strings.HasPrefix(stem, "knowledge_"):
		// (method_execution: a user's flow method, the parent of a crew
		// kicked off inside it)
		// (guardrail and reasoning events are scopes of the session's own
		// vocabulary: nodes, never transparent)
	default:
		return false, false
	}
	switch suffix {
	case "started":
		return true, true
	case "completed", "failed", "error", "finished":
		return false, true
	}
	return false, false
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// envelopeKeys are the CrewAI fields an Event has fields of its own for
// (the error too, when it is a string).
var envelopeKeys = [...]string{"timestamp", "type", "event_id", "task_id", "task_name", "agent_id", "agent_role", "server_name"}

// event translates one bridge event line; it takes m.Event over as the
// event's Data.
func (t *translator) event(m wireMsg) session.Event {
	d := m.Event
	if d == nil {
		d = map[string]any{}
	}
	ev := session.Event{
		Kind:      session.Kind(str(d["type"])),
		ID:        str(d["event_id"]),
		RunID:     t.runID,
		TaskID:    str(d["task_id"]),
		TaskName:  str(d["task_name"]),
		AgentID:   str(d["agent_id"]),
		AgentRole: str(d["agent_role"]),
		Server:    str(d["server_name"]),
		Error:     str(d["error"]),
	}
	if ev.Kind == "" {
		ev.Kind = session.Kind(strings.ToLower(m.Class))
	}
	if ts, err := time.Parse(time.RFC3339Nano, str(d["timestamp"])); err == nil {
		ev.Time = ts
	}
	// AgentExecution* events leave the envelope's agent and task fields
	// null; their summaries carry them.
	if a, ok := d["agent"].(map[string]any); ok {
		if ev.AgentRole == "" {
			ev.AgentRole = str(a["role"])
		}
		if ev.AgentID == "" {
			ev.AgentID = str(a["id"])
		}
	}
	if tk, ok := d["task"].(map[string]any); ok {
		if ev.TaskID == "" {
			ev.TaskID = str(tk["id"])
		}
		if ev.TaskName == "" {
			ev.TaskName = firstNonEmpty(str(tk["name"]), str(tk["description"]))
		}
	}
	if strings.HasPrefix(string(ev.Kind), "agent_reasoning_") {
		// The planning attempt names its node ("plan (attempt 2)"), as the
		// engine's events carry it.
		if a, ok := d["attempt"].(float64); ok && a > 0 && a == float64(int(a)) {
			ev.Attempt = int(a)
		}
	}
	name := str(d["tool_name"])
	if strings.HasPrefix(string(ev.Kind), "mcp_tool_execution_") {
		ev.OriginalToolName = name // the server's own name
	} else {
		ev.ToolName = name
	}
	for _, k := range []string{"execution_duration_ms", "connection_duration_ms", "duration_ms"} {
		if ms, ok := d[k].(float64); ok && ms > 0 {
			ev.Duration = time.Duration(ms * float64(time.Millisecond))
			break
		}
	}

	parent := t.resolve(str(d["parent_event_id"]))
	typ := string(ev.Kind)
	switch {
	case ev.Kind.IsStart():
		ev.Span, ev.Parent = ev.ID, parent
		if strings.HasPrefix(typ, "llm_call_") {
			ev.Span = "llm:" + str(d["call_id"])
		}
		if ev.Kind == session.ToolUsageStarted {
			if llm := t.lastLLM[parent]; llm != "" {
				ev.Parent = llm
			}
		}
	case ev.Kind.IsEnd():
		ev.Span, ev.Parent = firstNonEmpty(str(d["started_event_id"]), ev.ID), parent
		if strings.HasPrefix(typ, "llm_call_") {
			ev.Span = "llm:" + str(d["call_id"])
			if ev.Kind == session.LLMCallCompleted {
				t.lastLLM[parent] = ev.Span
				t.lastLLMOf[ev.AgentRole] = ev.Span
			}
		}
	default:
		if start, ok := transparentScope(typ); ok && start {
			t.alias[ev.ID] = parent
		}
		ev.Parent = parent
	}

	// The decoder made d for this event alone: the fields the envelope
	// took move out of it, and it becomes the event's Data.
	data := d
	for _, k := range envelopeKeys {
		delete(data, k)
	}
	if e, ok := d["error"]; ok {
		if _, isStr := e.(string); isStr || e == nil {
			delete(data, "error") // a structured error stays as it came
		}
	}
	data[KeyCrewAIClass] = m.Class
	data[KeyCrewAISource] = m.Source
	data[KeyBridgeSeq] = m.Seq
	switch ev.Kind {
	case session.ToolUsageStarted:
		t.openTools = append(t.openTools, openTool{span: ev.Span, parent: ev.Parent, tool: ev.ToolName,
			agent: ev.AgentRole, args: canonicalValue(d["tool_args"])})
	case session.ToolUsageFinished, session.ToolUsageError:
		for i, o := range t.openTools {
			if o.span == ev.Span {
				t.openTools = append(t.openTools[:i], t.openTools[i+1:]...)
				break
			}
		}
		if t.takeSkipped(ev.Span) {
			data[session.KeySkipped] = true
		}
	}
	ev.Data = data
	return ev
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
