// Package filter reproduces CrewAI 1.15's MCP tool filters (crewai-semantics.md
// §3) and adds a dynamic filter written in CEL in place of CrewAI's Python
// callable.
//
// What a filter sees is CrewAI's listing dict (§2.2): the sanitized remote
// name WITHOUT the server prefix, the raw remote name, the description and the
// input schema. The static part compares the sanitized name exactly and
// case-sensitively; blocked beats allowed; an empty allowed list allows all.
// The expression part is compiled once and evaluated per tool, with a cost
// limit and a deadline so that no expression can hang its caller.
//
// A tool is kept iff the static lists keep it AND the expression (if any)
// returns true. Every Verdict says which part decided and why; Apply also
// returns Hints for list entries that match nothing (the classic
// "getForecast" vs "get_forecast" mistake) and for a filter that keeps no tool
// at all, which CrewAI reports only as `No tools discovered from MCP server`.
//
// The expression sees `tool` (name, original_name, description, input_schema,
// annotations) and `context` (agent_role, server_name), with the standard
// library, cel-go's ext.Strings and optional syntax (`tool.annotations.?x`).
// Fields are type-checked: a typo or a non-bool result is a *CompileError
// with its line and column.
//
// Deliberate difference from CrewAI: when the expression fails for one tool
// (a missing map key, a non-bool result, the cost limit, the deadline), that
// tool is filtered out and the error is its reason. In CrewAI a Python filter
// that raises fails the whole server resolution (§3, §4.4); isolating the
// tool keeps the rest of the server visible, and every such reason says what
// CrewAI would have done.
//
// Cost: the program is compiled once per New and reused; static lists are
// map lookups with precomputed reasons; an expression that never reads
// tool.input_schema never parses it, and Prepared tools parse it at most
// once across filters (for a UI re-evaluating on every keystroke).
//
// This package must not import crewbench/mcpconn: mcpconn imports it.
package filter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
)

// Tool is CrewAI's listing dict for one remote tool, plus the MCP annotations
// (which CrewAI drops but a CEL filter may want).
type Tool struct {
	Name         string          // sanitized, unprefixed: what CrewAI's static filter compares
	OriginalName string          // raw remote name
	Description  string          // may be empty
	InputSchema  json.RawMessage // lossless raw JSON schema (may be empty)
	Annotations  map[string]any  // MCP tool annotations (readOnlyHint, destructiveHint, …); may be nil
}

// Context is what CrewAI's ToolFilterContext gives a dynamic filter.
// run_context is always None in CrewAI and is not modelled.
type Context struct {
	AgentRole  string
	ServerName string // CrewAI's raw server_name, e.g. "python_servers/inventory.py" or "localhost:8765_mcp"
}

// Stage says which part of the filter decided a verdict.
type Stage string

// Stages.
const (
	StageNone       Stage = ""           // no filter configured: kept
	StageStatic     Stage = "static"     // allowed_tool_names / blocked_tool_names
	StageExpression Stage = "expression" // the CEL expression
)

// Verdict is the decision for one tool.
type Verdict struct {
	Kept bool `json:"kept"`
	// By is the part that decided: for a filtered tool the part that rejected
	// it; for a kept tool the last part consulted.
	By Stage `json:"by,omitempty"`
	// Reason is a human sentence such as "blocked: in blocked_tool_names" or
	// "filtered: expression returned false".
	Reason string `json:"reason"`
	// Err is set when the expression failed for this tool; errors.Is works
	// with ErrCostLimit, ErrTimeout and ErrNotBool.
	Err error `json:"-"`
}

// Errors an expression can fail with at evaluation time.
var (
	ErrCostLimit = errors.New("expression exceeded its cost limit")
	ErrTimeout   = errors.New("expression evaluation interrupted")
	ErrNotBool   = errors.New("expression did not return a bool")
)

// Defaults for Options. The cost limit is in CEL cost units (roughly one per
// operation, more for string and regex work on long inputs); typical filters
// cost under 100 per tool, so the limit only stops runaway comprehensions.
const (
	DefaultCostLimit uint64 = 100_000
	DefaultTimeout          = time.Second
	// interruptEvery is how many comprehension iterations CEL runs between
	// checks of the evaluation context. Only comprehensions can loop, so this
	// bounds how late a deadline is noticed.
	interruptEvery = 100
)

// Option configures New.
type Option func(*options)

type options struct {
	costLimit uint64
	timeout   time.Duration
}

// WithCostLimit sets the CEL cost limit per tool (0 keeps the default).
func WithCostLimit(limit uint64) Option {
	return func(o *options) {
		if limit > 0 {
			o.costLimit = limit
		}
	}
}

// WithTimeout sets the deadline for one Evaluate call and for one whole Apply
// call (0 keeps the default). Callers that need finer control, such as a UI
// that abandons an evaluation on the next keystroke, use the *Context methods.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// Filter is a compiled filter. It is immutable and safe for concurrent use.
type Filter struct {
	allowed     map[string]int // entry → index in allowedList
	blocked     map[string]int
	allowedList []string // de-duplicated, in the order given
	blockedList []string

	expr      string
	cel       *compiled // nil without an expression
	costLimit uint64
	timeout   time.Duration

	// Reasons are built once: evaluating a static filter allocates nothing.
	reasonNotAllowed string
	reasonStaticKept string // "" when the static lists are empty
	reasonExprKept   string
}

// Reason texts shared by every filter.
const (
	reasonNoFilter    = "kept: no filter"
	reasonBlocked     = "blocked: in blocked_tool_names"
	reasonAllowed     = "kept: in allowed_tool_names"
	reasonNotBlocked  = "kept: not in blocked_tool_names"
	reasonExprTrue    = "expression returned true"
	reasonExprFalse   = "filtered: expression returned false"
	crewaiOnExprError = "CrewAI would fail the whole server resolution if a Python filter raised; crewbench filters out only this tool"
)

// New compiles a filter. Empty or nil allowed means allow all; empty or nil
// blocked means block nothing; an empty (or all-blank) expr means no dynamic
// filter. A CEL error is returned as a *CompileError.
func New(allowed, blocked []string, expr string, opts ...Option) (*Filter, error) {
	o := options{costLimit: DefaultCostLimit, timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	f := &Filter{costLimit: o.costLimit, timeout: o.timeout}
	f.allowedList, f.allowed = dedupe(allowed)
	f.blockedList, f.blocked = dedupe(blocked)
	f.reasonNotAllowed = "filtered: not in allowed_tool_names " + bracketList(f.allowedList)
	switch {
	case len(f.allowedList) > 0:
		f.reasonStaticKept = reasonAllowed
	case len(f.blockedList) > 0:
		f.reasonStaticKept = reasonNotBlocked
	}
	if f.reasonStaticKept != "" {
		f.reasonExprKept = f.reasonStaticKept + " and " + reasonExprTrue
	} else {
		f.reasonExprKept = "kept: " + reasonExprTrue
	}
	if strings.TrimSpace(expr) != "" {
		c, err := compile(expr, f.costLimit)
		if err != nil {
			return nil, err
		}
		f.expr, f.cel = expr, c
	}
	return f, nil
}

// AllowedToolNames returns the de-duplicated allowed list.
func (f *Filter) AllowedToolNames() []string { return append([]string(nil), f.allowedList...) }

// BlockedToolNames returns the de-duplicated blocked list.
func (f *Filter) BlockedToolNames() []string { return append([]string(nil), f.blockedList...) }

// Expression returns the CEL source ("" without one).
func (f *Filter) Expression() string { return f.expr }

// IsEmpty reports whether the filter keeps every tool without looking at it.
func (f *Filter) IsEmpty() bool {
	return f == nil || (len(f.allowedList) == 0 && len(f.blockedList) == 0 && f.cel == nil)
}

// Evaluate decides one tool, with the filter's timeout.
func (f *Filter) Evaluate(c Context, t Tool) Verdict {
	cctx, cancel := context.WithTimeout(context.Background(), f.timeoutOrDefault())
	defer cancel()
	return f.EvaluateContext(cctx, c, t)
}

// EvaluateContext decides one tool; cctx bounds the expression's evaluation.
func (f *Filter) EvaluateContext(cctx context.Context, c Context, t Tool) Verdict {
	b := f.newBatch(cctx, c, 0)
	return b.decide(&t, nil)
}

// Apply decides every tool, with one deadline (the filter's timeout) for the
// whole batch, and returns the verdicts in the order of tools plus hints.
func (f *Filter) Apply(c Context, tools []Tool) ([]Verdict, []Hint) {
	cctx, cancel := context.WithTimeout(context.Background(), f.timeoutOrDefault())
	defer cancel()
	return f.ApplyContext(cctx, c, tools)
}

// ApplyContext is Apply under the caller's context: once cctx is done, every
// remaining tool the expression would decide is filtered with ErrTimeout (a UI
// cancels the context when the expression changes again).
func (f *Filter) ApplyContext(cctx context.Context, c Context, tools []Tool) ([]Verdict, []Hint) {
	b := f.newBatch(cctx, c, len(tools))
	if f.cel != nil && len(tools) >= minBatchForEstimate {
		sz := b.sizes
		for i := range tools {
			sz.addTool(&tools[i], f.cel)
		}
		b.program = f.programFor(sz)
	}
	for i := range tools {
		b.verdicts[i] = b.decide(&tools[i], nil)
	}
	return b.verdicts, f.hints(c, b, plainTools(tools))
}

// ApplyPrepared is ApplyContext over prepared tools, whose parsed schemas are
// reused across filters: the right call for re-evaluating a changing
// expression over the same tool list.
func (f *Filter) ApplyPrepared(cctx context.Context, c Context, tools []*Prepared) ([]Verdict, []Hint) {
	b := f.newBatch(cctx, c, len(tools))
	if f.cel != nil && len(tools) >= minBatchForEstimate {
		sz := b.sizes
		for _, p := range tools {
			sz.addTool(&p.Tool, f.cel)
		}
		b.program = f.programFor(sz)
	}
	for i, p := range tools {
		b.verdicts[i] = b.decide(&p.Tool, p)
	}
	return b.verdicts, f.hints(c, b, preparedTools(tools))
}

// batch is the state of one Apply/Evaluate call: the verdicts, which list
// entries matched some tool (for hints), and the CEL variables, which are
// overwritten for each tool instead of allocated (CEL does not retain them
// after an evaluation, and a batch runs on one goroutine).
type batch struct {
	f          *Filter
	cctx       context.Context
	verdicts   []Verdict
	allowedHit []bool
	blockedHit []bool
	vars       activation
	tool       toolVar
	ctx        contextVar
	// program is the tracked program unless the batch's input sizes prove
	// the cost limit unreachable (costs.go).
	program cel.Program
	sizes   inputSizes // the context's sizes; tools are added per batch
}

func (f *Filter) newBatch(cctx context.Context, c Context, n int) *batch {
	b := &batch{
		f:          f,
		cctx:       cctx,
		verdicts:   make([]Verdict, n),
		allowedHit: make([]bool, len(f.allowedList)),
		blockedHit: make([]bool, len(f.blockedList)),
		ctx:        contextVar(c),
	}
	b.vars = activation{tool: &b.tool, ctx: &b.ctx}
	b.sizes = inputSizes{agentRole: uint64(len(c.AgentRole)), serverName: uint64(len(c.ServerName))}
	if f.cel != nil {
		b.program = f.cel.tracked
	}
	return b
}

// decide returns the verdict for one tool; p, when not nil, supplies a
// cached parsed schema.
func (b *batch) decide(t *Tool, p *Prepared) Verdict {
	f := b.f
	ai, inAllowed := f.allowed[t.Name]
	bi, inBlocked := f.blocked[t.Name]
	if inAllowed {
		b.allowedHit[ai] = true
	}
	if inBlocked {
		b.blockedHit[bi] = true
	}
	switch {
	case inBlocked: // blocked beats allowed
		return Verdict{By: StageStatic, Reason: reasonBlocked}
	case len(f.allowedList) > 0 && !inAllowed:
		return Verdict{By: StageStatic, Reason: f.reasonNotAllowed}
	case f.cel != nil:
		return b.evalExpr(t, p)
	case f.reasonStaticKept == "":
		return Verdict{Kept: true, By: StageNone, Reason: reasonNoFilter}
	default:
		return Verdict{Kept: true, By: StageStatic, Reason: f.reasonStaticKept}
	}
}

func (f *Filter) timeoutOrDefault() time.Duration {
	if f.timeout <= 0 {
		return DefaultTimeout
	}
	return f.timeout
}

// Prepared is a Tool ready for repeated evaluation: its input schema is
// parsed at most once, on first use by an expression that reads it, and the
// result is shared by every Filter. Safe for concurrent use.
type Prepared struct {
	Tool Tool

	once   sync.Once
	schema map[string]any
}

// Prepare wraps tools for ApplyPrepared.
func Prepare(tools []Tool) []*Prepared {
	out := make([]*Prepared, len(tools))
	for i := range tools {
		out[i] = &Prepared{Tool: tools[i]}
	}
	return out
}

// Schema returns the input schema as a map. A missing, invalid or non-object
// schema is an empty map: MCP requires an object schema, and CrewAI treats a
// missing one as "no typed arguments".
func (p *Prepared) Schema() map[string]any {
	p.once.Do(func() { p.schema = parseSchema(p.Tool.InputSchema) })
	return p.schema
}

func parseSchema(raw json.RawMessage) map[string]any {
	var m map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil {
		return m
	}
	return emptyMap
}

// toolList lets hints read tools from either slice shape without copying.
type toolList interface {
	Len() int
	At(i int) *Tool
}

type plainTools []Tool

func (v plainTools) Len() int       { return len(v) }
func (v plainTools) At(i int) *Tool { return &v[i] }

type preparedTools []*Prepared

func (v preparedTools) Len() int       { return len(v) }
func (v preparedTools) At(i int) *Tool { return &v[i].Tool }

func dedupe(list []string) ([]string, map[string]int) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(list))
	idx := make(map[string]int, len(list))
	for _, s := range list {
		if _, dup := idx[s]; dup {
			continue
		}
		idx[s] = len(out)
		out = append(out, s)
	}
	return out, idx
}

// bracketList renders a list for a reason, e.g. "[getForecast, getAlerts]",
// shortened after a few entries so reasons stay one line.
func bracketList(list []string) string {
	const show = 5
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range list {
		if i == show {
			fmt.Fprintf(&b, ", … %d more", len(list)-show)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	b.WriteByte(']')
	return b.String()
}
