// Package session holds the event vocabulary every engine package emits, the
// sinks that fan events out (recorder, UI, exporters), and the tools that read
// recorded sessions back.
//
// The vocabulary reuses CrewAI's event-bus type names and field names wherever
// CrewAI has one (crewai-formats.md §6), so a crewbench trace reads like a
// CrewAI trace. crewbench adds its own kinds only for what CrewAI does not
// emit: each MCP attempt, JSON-RPC frames, server stderr and notifications,
// server state, and stepping.
//
// session imports nothing from the project.
package session

import (
	"encoding/json"
	"strings"
	"time"
)

// Kind is the event type. Values equal CrewAI's `type` strings where CrewAI
// has the event.
type Kind string

// CrewAI event types (crewai-formats.md §6.2).
const (
	CrewKickoffStarted   Kind = "crew_kickoff_started"
	CrewKickoffCompleted Kind = "crew_kickoff_completed"
	CrewKickoffFailed    Kind = "crew_kickoff_failed"

	TaskStarted   Kind = "task_started"
	TaskCompleted Kind = "task_completed"
	TaskFailed    Kind = "task_failed"

	AgentExecutionStarted   Kind = "agent_execution_started"
	AgentExecutionCompleted Kind = "agent_execution_completed"
	AgentExecutionError     Kind = "agent_execution_error"

	AgentLogsStarted   Kind = "agent_logs_started"
	AgentLogsExecution Kind = "agent_logs_execution"

	LLMCallStarted   Kind = "llm_call_started"
	LLMCallCompleted Kind = "llm_call_completed"
	LLMCallFailed    Kind = "llm_call_failed"
	LLMStreamChunk   Kind = "llm_stream_chunk"

	ToolUsageStarted       Kind = "tool_usage_started"
	ToolUsageFinished      Kind = "tool_usage_finished"
	ToolUsageError         Kind = "tool_usage_error"
	ToolFailureDetected    Kind = "tool_failure_detected"
	ToolValidateInputError Kind = "tool_validate_input_error"
	ToolSelectionError     Kind = "tool_selection_error"
	ToolExecutionError     Kind = "tool_execution_error"

	MCPConnectionStarted   Kind = "mcp_connection_started"
	MCPConnectionCompleted Kind = "mcp_connection_completed"
	MCPConnectionFailed    Kind = "mcp_connection_failed"

	MCPToolExecutionStarted   Kind = "mcp_tool_execution_started"
	MCPToolExecutionCompleted Kind = "mcp_tool_execution_completed"
	MCPToolExecutionFailed    Kind = "mcp_tool_execution_failed"

	MCPConfigFetchFailed Kind = "mcp_config_fetch_failed"

	// LLMGuardrail* wrap one check of a task guardrail
	// (events/types/llm_guardrail_events.py); CrewAI has no failed class.
	LLMGuardrailStarted   Kind = "llm_guardrail_started"
	LLMGuardrailCompleted Kind = "llm_guardrail_completed"
	// LiteAgentExecution* wrap an Agent.kickoff() outside a crew task, as
	// LLMGuardrail runs its guardrail agent (events/types/agent_events.py).
	LiteAgentExecutionStarted   Kind = "lite_agent_execution_started"
	LiteAgentExecutionCompleted Kind = "lite_agent_execution_completed"
	LiteAgentExecutionError     Kind = "lite_agent_execution_error"
	// AgentReasoning* wrap one planning attempt of an agent with planning
	// or reasoning (events/types/reasoning_events.py): the plan call, and
	// each refinement while the plan is not ready.
	AgentReasoningStarted   Kind = "agent_reasoning_started"
	AgentReasoningCompleted Kind = "agent_reasoning_completed"
	AgentReasoningFailed    Kind = "agent_reasoning_failed"
	// PlanStep* mark one step of a ready plan as CrewAI's AgentExecutor
	// runs it (events/types/observation_events.py); they are not scope
	// events in CrewAI, so crewbench wraps each step in an agent step scope.
	PlanStepStarted   Kind = "plan_step_started"
	PlanStepCompleted Kind = "plan_step_completed"
	// StepObservation* wrap the PlannerObserver's call after a plan step;
	// PlanRefinement and GoalAchievedEarly are what it decided (point
	// events in CrewAI too).
	StepObservationStarted   Kind = "step_observation_started"
	StepObservationCompleted Kind = "step_observation_completed"
	StepObservationFailed    Kind = "step_observation_failed"
	PlanRefinement           Kind = "plan_refinement"
	GoalAchievedEarly        Kind = "goal_achieved_early"
	// PlanReplanTriggered precedes a replan decided after a step's
	// observation (handle_replan_now); a replan after a dependency
	// deadlock or parallel steps has no event of its own.
	PlanReplanTriggered Kind = "plan_replan_triggered"

	// DefaultEnv opens every CrewAI context, before crew_kickoff_started.
	DefaultEnv Kind = "default_env"
	// Flow* wrap each agent execution: CrewAI's executor is a Flow named
	// "AgentExecutor" (crewai-events-and-hooks.md §2.2). crewbench records
	// them as point events under the agent scope.
	FlowStarted  Kind = "flow_started"
	FlowFinished Kind = "flow_finished"
	FlowFailed   Kind = "flow_failed"
)

// IsCrewAI reports whether the kind is one of CrewAI's event types rather
// than one of crewbench's own (which carry the "crewbench_" prefix).
func (k Kind) IsCrewAI() bool {
	return k != "" && !strings.HasPrefix(string(k), "crewbench_")
}

// SourceType is the source_type CrewAI gives events of this kind: "crew"
// for crew events, "task" for task events, "agent" for agent-execution and
// tool-usage events, "" (null) for the rest.
func (k Kind) SourceType() string {
	switch k {
	case CrewKickoffStarted, CrewKickoffCompleted, CrewKickoffFailed:
		return "crew"
	case TaskStarted, TaskCompleted, TaskFailed:
		return "task"
	case AgentExecutionStarted, AgentExecutionCompleted, AgentExecutionError,
		ToolUsageStarted, ToolUsageFinished, ToolUsageError, ToolValidateInputError, ToolSelectionError:
		return "agent"
	}
	return ""
}

// crewbench's own kinds, for what CrewAI does not emit. They carry the
// "crewbench_" prefix so they can never collide with a future CrewAI type.
const (
	// MCPAttemptStarted / MCPAttemptFinished wrap one attempt of a tool call
	// under a call policy (CrewAI retries silently; crewbench shows each one).
	MCPAttemptStarted  Kind = "crewbench_mcp_attempt_started"
	MCPAttemptFinished Kind = "crewbench_mcp_attempt_finished"
	// MCPRetryScheduled is emitted before a backoff sleep between attempts.
	// Its Duration is the sleep (or Data[KeyBackoff]); Attempt and Outcome
	// describe the attempt that failed.
	MCPRetryScheduled Kind = "crewbench_mcp_retry_scheduled"
	// MCPFrame is one JSON-RPC message on the wire (request, response or notification).
	MCPFrame Kind = "crewbench_mcp_frame"
	// MCPStderr is one line a stdio server wrote to stderr.
	MCPStderr Kind = "crewbench_mcp_stderr"
	// MCPNotification is a server notification: logging, progress, list_changed.
	MCPNotification Kind = "crewbench_mcp_notification"
	// MCPServerRequest is a request a server sent the client
	// (elicitation/create, sampling/createMessage, roots/list) and how
	// crewbench answered it (Data: method, request id, message, refused).
	MCPServerRequest Kind = "crewbench_mcp_server_request"
	// MCPServerState is a pool state change: connecting, ready, failed, closed.
	MCPServerState Kind = "crewbench_mcp_server_state"
	// MCPToolsListed reports a completed discovery with tool counts.
	MCPToolsListed Kind = "crewbench_mcp_tools_listed"
	// MCPProcessSpawned / MCPProcessExited track stdio child processes, so a
	// user sees "fresh session per call" as N spawns.
	MCPProcessSpawned Kind = "crewbench_mcp_process_spawned"
	MCPProcessExited  Kind = "crewbench_mcp_process_exited"

	// GuardTripped: the ReAct repeated-call guard refused a call.
	GuardTripped Kind = "crewbench_guard_tripped"
	// UsageLimitReached: a tool hit max_usage_count.
	UsageLimitReached Kind = "crewbench_usage_limit_reached"
	// CacheHit: a tool result came from the crew/agent cache.
	CacheHit Kind = "crewbench_cache_hit"
	// AgentStepStarted / AgentStepFinished wrap one iteration of an agent
	// loop (one LLM call plus the tool calls it asked for).
	AgentStepStarted  Kind = "crewbench_agent_step_started"
	AgentStepFinished Kind = "crewbench_agent_step_finished"
	// StepPaused / StepResumed: the stepper paused before an LLM or tool call
	// and what the user decided.
	StepPaused  Kind = "crewbench_step_paused"
	StepResumed Kind = "crewbench_step_resumed"
	// HumanInputRequested / HumanInputReceived: a human_input task asks
	// for feedback on its final answer, and what the human said (CrewAI
	// emits no event for task human input).
	HumanInputRequested Kind = "crewbench_human_input_requested"
	HumanInputReceived  Kind = "crewbench_human_input_received"
	// Warning is a non-fatal message CrewAI would log (e.g. "No tools
	// discovered from MCP server: …").
	Warning Kind = "crewbench_warning"

	// The MCP connection and tool-execution scopes where CrewAI emits no
	// MCP events (https-string refs and MCPServerAdapter talk to the MCP
	// SDK directly, not through CrewAI's MCPClient): the same scopes, with
	// the same fields, under crewbench's own names (OwnMCPKind).
	OwnMCPConnectionStarted      Kind = "crewbench_mcp_connection_started"
	OwnMCPConnectionCompleted    Kind = "crewbench_mcp_connection_completed"
	OwnMCPConnectionFailed       Kind = "crewbench_mcp_connection_failed"
	OwnMCPToolExecutionStarted   Kind = "crewbench_mcp_tool_execution_started"
	OwnMCPToolExecutionCompleted Kind = "crewbench_mcp_tool_execution_completed"
	OwnMCPToolExecutionFailed    Kind = "crewbench_mcp_tool_execution_failed"

	// The LLM call scope where CrewAI emits no LLM events: the output
	// converter's instructor call goes through a fresh OpenAI SDK client,
	// not CrewAI's LLM class. Same fields as CrewAI's llm_call_* events.
	OwnLLMCallStarted   Kind = "crewbench_llm_call_started"
	OwnLLMCallCompleted Kind = "crewbench_llm_call_completed"
	OwnLLMCallFailed    Kind = "crewbench_llm_call_failed"
)

// OwnLLMKind is crewbench's own kind for a CrewAI LLM call kind (k itself
// for any other kind).
func OwnLLMKind(k Kind) Kind {
	switch k {
	case LLMCallStarted:
		return OwnLLMCallStarted
	case LLMCallCompleted:
		return OwnLLMCallCompleted
	case LLMCallFailed:
		return OwnLLMCallFailed
	}
	return k
}

// OwnMCPKind is crewbench's own kind for a CrewAI MCP connection or tool
// execution kind (k itself for any other kind).
func OwnMCPKind(k Kind) Kind {
	switch k {
	case MCPConnectionStarted:
		return OwnMCPConnectionStarted
	case MCPConnectionCompleted:
		return OwnMCPConnectionCompleted
	case MCPConnectionFailed:
		return OwnMCPConnectionFailed
	case MCPToolExecutionStarted:
		return OwnMCPToolExecutionStarted
	case MCPToolExecutionCompleted:
		return OwnMCPToolExecutionCompleted
	case MCPToolExecutionFailed:
		return OwnMCPToolExecutionFailed
	}
	return k
}

// ScopeKind is the CrewAI kind a scope kind stands for: k for CrewAI's,
// the twin for crewbench's own (OwnMCPKind, OwnLLMKind). Readers that look
// at MCP connections and calls, or at LLM calls, compare this.
func ScopeKind(k Kind) Kind {
	switch k {
	case OwnLLMCallStarted:
		return LLMCallStarted
	case OwnLLMCallCompleted:
		return LLMCallCompleted
	case OwnLLMCallFailed:
		return LLMCallFailed
	case OwnMCPConnectionStarted:
		return MCPConnectionStarted
	case OwnMCPConnectionCompleted:
		return MCPConnectionCompleted
	case OwnMCPConnectionFailed:
		return MCPConnectionFailed
	case OwnMCPToolExecutionStarted:
		return MCPToolExecutionStarted
	case OwnMCPToolExecutionCompleted:
		return MCPToolExecutionCompleted
	case OwnMCPToolExecutionFailed:
		return MCPToolExecutionFailed
	}
	return k
}

// Outcome classes for an MCP attempt or call (issue: mcpconn outcome classes).
const (
	OutcomeOK              = "ok"
	OutcomeIsError         = "is_error"
	OutcomeTimeout         = "timeout"
	OutcomeTransportClosed = "transport_closed"
	OutcomeSpawnFailed     = "spawn_failed"
	OutcomeJSONRPCError    = "jsonrpc_error"
	OutcomeAuth            = "auth"
	OutcomeNotFound        = "not_found"
	OutcomeProtocol        = "protocol"
	OutcomeCancelled       = "cancelled"
	// OutcomeInvalidArguments: CrewAI's validation refused the arguments,
	// so nothing was sent (`crewbench call`, the workbench's Try view).
	OutcomeInvalidArguments = "invalid_arguments"
)

// Event is one thing that happened. Common fields are typed; fields specific
// to one kind go in Data under CrewAI's field names (e.g. "tool_args",
// "messages", "usage", "from_cache"); keys.go lists the keys the tree,
// printer and exporters read. Sinks may read an event after Emit returns
// (the recorder encodes it on its own goroutine): do not modify Data once
// an event is emitted.
//
// Tree structure: every scope (crew run, task, agent execution, agent step,
// LLM call, tool call, MCP attempt) has a Span id. Its start and end events
// carry the same Span; Parent is the enclosing scope's Span. A UI builds the
// tree crew ▸ task ▸ agent step ▸ LLM call ▸ tool call ▸ attempt from these
// two fields alone. Point events (stderr, frames, notifications) carry the
// Span of the scope they happened in, or none.
type Event struct {
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	Kind Kind      `json:"type"`
	ID   string    `json:"event_id,omitempty"`

	// CrewAI's event envelope (crewai-events-and-hooks.md §2.1), stamped by
	// the Emitter from Span/Parent so a trace consumer written for CrewAI's
	// events can follow crewbench's. Timestamp is Time in UTC (CrewAI's
	// JSON ends in "Z"); ParentEventID is the event_id of the enclosing
	// scope's start (for CrewAI-typed events the nearest CrewAI-typed
	// scope, skipping crewbench's own steps and attempts); PreviousEventID
	// is the last CrewAI-typed event emitted before this one;
	// StartedEventID, on a scope-ending event, is the matching start;
	// EmissionSequence counts CrewAI-typed events from the kickoff (1 for
	// default_env and for crew_kickoff_started, as in CrewAI); SourceType is
	// "crew", "task" or "agent" where CrewAI sets one.
	Timestamp        time.Time `json:"timestamp,omitzero"`
	SourceType       string    `json:"source_type,omitempty"`
	ParentEventID    string    `json:"parent_event_id,omitempty"`
	PreviousEventID  string    `json:"previous_event_id,omitempty"`
	StartedEventID   string    `json:"started_event_id,omitempty"`
	EmissionSequence int64     `json:"emission_sequence,omitempty"`

	Span   string `json:"span,omitempty"`
	Parent string `json:"parent,omitempty"`

	RunID     string `json:"run_id,omitempty"`
	TaskID    string `json:"task_id,omitempty"`
	TaskName  string `json:"task_name,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	AgentRole string `json:"agent_role,omitempty"`

	// Server is crewbench's name for the MCP server (the project key, or the
	// CrewAI server_name when none).
	Server string `json:"server_name,omitempty"`
	// ToolName is the LLM-visible (sanitized) name; OriginalToolName is the
	// name the MCP server knows.
	ToolName         string `json:"tool_name,omitempty"`
	OriginalToolName string `json:"original_tool_name,omitempty"`

	// Attempt is 1-based for MCP attempts; 0 when not applicable.
	Attempt int `json:"attempt,omitempty"`
	// Outcome is one of the Outcome* classes for MCP attempts and calls, or
	// "ok"/"failed" for other scopes.
	Outcome   string        `json:"outcome,omitempty"`
	Error     string        `json:"error,omitempty"`
	ErrorType string        `json:"error_type,omitempty"`
	Duration  time.Duration `json:"duration_ns,omitempty"`

	Data map[string]any `json:"data,omitempty"`
}

// Str returns Data[key] as a string ("" if absent or not a string).
func (e Event) Str(key string) string {
	if s, ok := e.Data[key].(string); ok {
		return s
	}
	return ""
}

// Int returns Data[key] as an int64, accepting the numeric types JSON
// decoding and Go code produce.
func (e Event) Int(key string) int64 {
	switch v := e.Data[key].(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case float64:
		return int64(v)
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return 0
}

// Bool returns Data[key] as a bool.
func (e Event) Bool(key string) bool {
	b, _ := e.Data[key].(bool)
	return b
}

// IsStart reports whether the kind opens a scope.
func (k Kind) IsStart() bool {
	switch ScopeKind(k) {
	case CrewKickoffStarted, TaskStarted, AgentExecutionStarted, LLMCallStarted,
		ToolUsageStarted, MCPConnectionStarted, MCPToolExecutionStarted,
		MCPAttemptStarted, AgentStepStarted, LLMGuardrailStarted, LiteAgentExecutionStarted,
		AgentReasoningStarted:
		return true
	}
	return false
}

// IsEnd reports whether the kind closes a scope.
func (k Kind) IsEnd() bool {
	switch ScopeKind(k) {
	case CrewKickoffCompleted, CrewKickoffFailed, TaskCompleted, TaskFailed,
		AgentExecutionCompleted, AgentExecutionError, LLMCallCompleted, LLMCallFailed,
		ToolUsageFinished, ToolUsageError, MCPConnectionCompleted, MCPConnectionFailed,
		MCPToolExecutionCompleted, MCPToolExecutionFailed, MCPAttemptFinished, AgentStepFinished,
		LLMGuardrailCompleted, LiteAgentExecutionCompleted, LiteAgentExecutionError,
		AgentReasoningCompleted, AgentReasoningFailed:
		return true
	}
	return false
}

// IsFailure reports whether the event records a failure of any kind.
func (e Event) IsFailure() bool {
	switch ScopeKind(e.Kind) {
	case CrewKickoffFailed, TaskFailed, AgentExecutionError, LLMCallFailed, ToolUsageError,
		ToolFailureDetected, ToolValidateInputError, ToolSelectionError, ToolExecutionError,
		MCPConnectionFailed, MCPToolExecutionFailed, MCPConfigFetchFailed, LiteAgentExecutionError,
		AgentReasoningFailed:
		return true
	case LLMGuardrailCompleted:
		return !e.Bool("success")
	case MCPAttemptFinished:
		return e.Outcome != "" && e.Outcome != OutcomeOK
	}
	return false
}
