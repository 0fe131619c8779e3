package crew

import (
	"context"
	"fmt"
	"sync"

	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/names"
	"crewbench/session"
)

// Tool is anything an agent can call: an in-process function, a stand-in
// with canned results, a delegation tool, or an MCP tool reached through
// mcpconn. The engine sees them all the same way.
type Tool interface {
	// Spec describes the tool. It must return the same value every time.
	Spec() *ToolSpec
	// Run executes one call. args are the (already parsed) arguments in the
	// model's order. Run must honour ctx.
	Run(ctx context.Context, args *pyjson.Object, rc RunContext) ToolResult
}

// ToolKind says where a tool comes from, for display.
type ToolKind string

// Tool kinds.
const (
	KindLocal      ToolKind = "local"
	KindStandIn    ToolKind = "stand-in"
	KindDelegation ToolKind = "delegation"
	KindMCP        ToolKind = "mcp"
)

// ToolSpec is what CrewAI knows about a tool, plus provenance.
type ToolSpec struct {
	// Name is the display name (CrewAI's tool.name, kept verbatim).
	Name string
	// LLMName is sanitize_tool_name(Name): the name in prompts, schemas,
	// cache keys and events. NewToolSpec fills it.
	LLMName     string
	Description string
	// Schema is the argument model's JSON schema (model_json_schema(), as
	// CrewAI renders it for the LLM): authored for Python-tool stand-ins,
	// built from the server's inputSchema for MCP tools; nil when the tool
	// takes no typed arguments.
	Schema *pyjson.Object
	// RawSchema is the MCP server's inputSchema as listed (nil for other
	// tools), shown beside Schema.
	RawSchema *pyjson.Object
	// Model validates arguments before a call (MCP tools), as CrewAI's
	// BaseTool does; nil means arguments go to the tool unvalidated.
	Model          *toolschema.Model
	ResultAsAnswer bool
	// MaxUsageCount limits uses per task; 0 means unlimited.
	MaxUsageCount int
	// NeverCache is crewbench's stand-in for a cache_function that always
	// returns False: results are never written to the cache.
	NeverCache    bool
	FailurePolicy FailurePolicy

	Kind ToolKind
	// Server is crewbench's handle for the MCP server; ServerName is
	// CrewAI's server_name; OriginalName is the name the server knows.
	Server       string
	ServerName   string
	OriginalName string
}

// NewToolSpec returns a spec with LLMName computed from name.
func NewToolSpec(name, description string, schema *pyjson.Object) *ToolSpec {
	return &ToolSpec{Name: name, LLMName: names.Sanitize(name), Description: description, Schema: schema, Kind: KindLocal}
}

// llmName returns the sanitized name, computing it if the spec left it empty.
func (s *ToolSpec) llmName() string {
	if s.LLMName == "" {
		s.LLMName = names.Sanitize(s.Name)
	}
	return s.LLMName
}

// RunContext is what a tool needs to report its own steps: the emitter, the
// tool-call span its events nest under, and a template event carrying the
// run/task/agent ids.
type RunContext struct {
	Emitter *session.Emitter
	// Span is the tool call's span; events the tool emits use it as Parent.
	Span string
	// Base carries RunID, TaskID, TaskName, AgentID, AgentRole.
	Base session.Event
	// adopt receives failure records of work done on the tool's behalf
	// (a delegated coworker's failures).
	adopt func([]ToolFailureRecord)
}

// ToolResult is one call's outcome: text, a reported failure (CrewAI's
// ToolFailure return value), or an error (a raised exception).
type ToolResult struct {
	Text    string
	Failure *ToolFailure
	Err     error
	// ErrType is the exception class CrewAI would see ("RuntimeError" for an
	// MCP tool); "" means "Exception".
	ErrType string
}

// Failure reasons (crewai-semantics.md §5.6).
const (
	ReasonToolReported = "tool_reported"
	ReasonException    = "exception"
	ReasonMCPError     = "mcp_error"
	ReasonUsageLimit   = "usage_limit"
	ReasonUnknownTool  = "unknown_tool"
	ReasonInvalidInput = "invalid_input"
)

// ToolFailure is CrewAI's ToolFailure value.
type ToolFailure struct {
	Message   string         `json:"message"`
	Reason    string         `json:"reason"`
	Code      string         `json:"code,omitempty"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details,omitempty"`
}

// Render is how the agent sees a failure: the message, or
// "{message} (code: {code})".
func (f *ToolFailure) Render() string {
	if f.Code != "" {
		return fmt.Sprintf("%s (code: %s)", f.Message, f.Code)
	}
	return f.Message
}

// failureFromError is failure_from_exception: message str(e) (or the class
// name when empty), code the class name, reason exception.
func failureFromError(err error, errType string) *ToolFailure {
	if errType == "" {
		errType = "Exception"
	}
	msg := err.Error()
	if msg == "" {
		msg = errType
	}
	return &ToolFailure{Message: msg, Reason: ReasonException, Code: errType}
}

// ToolFunc is an in-process tool implementation.
type ToolFunc func(ctx context.Context, args *pyjson.Object) ToolResult

// FuncTool adapts a function to a Tool.
type FuncTool struct {
	S  *ToolSpec
	Fn ToolFunc
}

// Spec implements Tool.
func (t *FuncTool) Spec() *ToolSpec { return t.S }

// Run implements Tool.
func (t *FuncTool) Run(ctx context.Context, args *pyjson.Object, _ RunContext) ToolResult {
	if err := ctx.Err(); err != nil {
		return ToolResult{Err: err}
	}
	return t.Fn(ctx, args)
}

// NewFuncTool builds an in-process tool.
func NewFuncTool(name, description string, schema *pyjson.Object, fn ToolFunc) *FuncTool {
	return &FuncTool{S: NewToolSpec(name, description, schema), Fn: fn}
}

// StandIn is a tool with canned results: the overlay's replacement for a
// Python-only tool. Results are served in order and the last one repeats.
type StandIn struct {
	S       *ToolSpec
	Results []ToolResult
	mu      sync.Mutex
	n       int
}

// NewStandIn returns a stand-in tool.
func NewStandIn(spec *ToolSpec, results ...ToolResult) *StandIn {
	spec.Kind = KindStandIn
	spec.llmName()
	return &StandIn{S: spec, Results: results}
}

// Spec implements Tool.
func (t *StandIn) Spec() *ToolSpec { return t.S }

// Run implements Tool. It is safe for the parallel native path.
func (t *StandIn) Run(ctx context.Context, _ *pyjson.Object, _ RunContext) ToolResult {
	if err := ctx.Err(); err != nil {
		return ToolResult{Err: err}
	}
	if len(t.Results) == 0 {
		return ToolResult{Text: ""}
	}
	t.mu.Lock()
	r := t.Results[min(t.n, len(t.Results)-1)]
	t.n++
	t.mu.Unlock()
	return r
}

// describe is the composite ReAct block for a tool.
func describe(t Tool) string {
	s := t.Spec()
	return prompt.DescribeTool(s.llmName(), s.Schema, s.Description)
}
