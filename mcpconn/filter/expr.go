package filter

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// toolVar is what CEL sees as `tool`. It is declared as an object type with
// fixed fields (see varsProvider) rather than a map, so the checker rejects
// typos such as `tool.nmae` and non-bool results such as `tool.name` before any
// tool is evaluated, and field reads are plain Go field loads.
type toolVar struct {
	Name         string
	OriginalName string
	Description  string
	InputSchema  map[string]any
	Annotations  map[string]any
}

// contextVar is what CEL sees as `context` (CrewAI's ToolFilterContext).
type contextVar struct {
	AgentRole  string
	ServerName string
}

// CEL type names of the two variables, as users see them in errors.
const (
	toolTypeName    = "Tool"
	contextTypeName = "ToolFilterContext"
)

var typeNameForUsers = strings.NewReplacer(" (in container '')", "")

// Limits on the source itself, so a pasted blob cannot stall the parser.
const (
	maxExprCodePoints = 10_000
	maxParseRecursion = 100
)

var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		ext.Strings(),
		cel.OptionalTypes(),
		// JSON numbers arrive as doubles; let `x.maximum > 10` work.
		cel.CrossTypeNumericComparisons(true),
		// A bad regex literal is a compile error, not 10,000 evaluation errors.
		cel.ASTValidators(cel.ValidateRegexLiterals()),
		cel.ParserExpressionSizeLimit(maxExprCodePoints),
		cel.ParserRecursionLimit(maxParseRecursion),
		// Last: wraps whatever provider/adapter the options above configured.
		withVarTypes,
		cel.Variable("tool", cel.ObjectType(toolTypeName)),
		cel.Variable("context", cel.ObjectType(contextTypeName)),
	)
})

// CompileError is a CEL expression that does not compile, or that cannot
// return a bool. Line and Column are 1-based (0 when CEL gave no position).
type CompileError struct {
	Expr    string
	Line    int
	Column  int
	Message string  // the first problem
	Issues  []Issue // every problem, first included
}

// Issue is one compile problem.
type Issue struct {
	Line, Column int // 1-based; 0 when unknown
	Message      string
}

// Error is one line: "filter expression: line 1, column 6: undeclared reference to 'nmae'".
func (e *CompileError) Error() string {
	var b strings.Builder
	b.WriteString("filter expression: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	b.WriteString(e.Message)
	if n := len(e.Issues) - 1; n > 0 {
		fmt.Fprintf(&b, " (and %d more)", n)
	}
	return b.String()
}

// Detail renders every issue with the offending line and a caret, for a
// multi-line display (the CLI's --filter-expr error, the playground).
func (e *CompileError) Detail() string {
	lines := strings.Split(e.Expr, "\n")
	var b strings.Builder
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteByte('\n')
		}
		if is.Line <= 0 || is.Line > len(lines) {
			b.WriteString(is.Message)
			continue
		}
		src := lines[is.Line-1]
		fmt.Fprintf(&b, "line %d, column %d: %s\n | %s\n | ", is.Line, is.Column, is.Message, src)
		// Pad with the same runes (tabs stay tabs) so the caret lines up.
		col := 0
		for _, r := range src {
			if col >= is.Column-1 {
				break
			}
			if r == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
			col++
		}
		b.WriteByte('^')
	}
	return b.String()
}

func newCompileError(expr string, issues *cel.Issues) *CompileError {
	ce := &CompileError{Expr: expr}
	for _, e := range issues.Errors() {
		is := Issue{Message: typeNameForUsers.Replace(e.Message)}
		if e.Location != nil && e.Location.Line() > 0 {
			is.Line, is.Column = e.Location.Line(), e.Location.Column()+1
		}
		ce.Issues = append(ce.Issues, is)
	}
	if len(ce.Issues) == 0 { // Err() said there were errors; keep the text anyway
		ce.Issues = []Issue{{Message: typeNameForUsers.Replace(issues.String())}}
	}
	ce.Line, ce.Column, ce.Message = ce.Issues[0].Line, ce.Issues[0].Column, ce.Issues[0].Message
	return ce
}

// compiled is a checked expression and its programs, built once per New.
type compiled struct {
	env *cel.Env
	ast *cel.Ast
	// tracked enforces the cost limit during evaluation. untracked does not,
	// and is used for a batch only when the checker's worst-case estimate for
	// that batch's input sizes is within the limit (see costs.go): runtime
	// cost tracking is most of the evaluation time.
	tracked, untracked cel.Program
	needSchema         bool // reads tool.input_schema: parse schemas only then
	needAnnotations    bool // reads tool.annotations
	loops              bool // has a comprehension: the only construct that iterates
}

// compile checks expr and builds its programs.
func compile(expr string, costLimit uint64) (*compiled, error) {
	env, err := celEnv()
	if err != nil {
		return nil, fmt.Errorf("filter expression: building the CEL environment: %w", err)
	}
	ast, issues := env.Compile(expr)
	if issues.Err() != nil {
		return nil, newCompileError(expr, issues)
	}
	native := ast.NativeRep()
	switch out := ast.OutputType(); out.Kind() {
	case types.BoolKind:
	case types.DynKind, types.AnyKind, types.TypeParamKind:
		// Only known per tool (e.g. tool.annotations.readOnlyHint): checked
		// at evaluation, where a non-bool filters the tool with ErrNotBool.
	default:
		loc := native.SourceInfo().GetStartLocation(native.Expr().ID())
		is := Issue{Message: "the expression must return a bool, but it returns " + typeNameForUsers.Replace(out.String())}
		if loc != nil && loc.Line() > 0 {
			is.Line, is.Column = loc.Line(), loc.Column()+1
		}
		return nil, &CompileError{Expr: expr, Line: is.Line, Column: is.Column, Message: is.Message, Issues: []Issue{is}}
	}
	c := &compiled{env: env, ast: ast}
	celast.PreOrderVisit(native.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		switch e.Kind() {
		case celast.SelectKind:
			switch e.AsSelect().FieldName() {
			case "input_schema":
				c.needSchema = true
			case "annotations":
				c.needAnnotations = true
			}
		case celast.ComprehensionKind:
			c.loops = true
		}
	}))
	common := []cel.ProgramOption{
		cel.InterruptCheckFrequency(interruptEvery),
		cel.EvalOptions(cel.OptOptimize), // precompile regex literals once
	}
	if c.tracked, err = env.Program(ast, append(common, cel.CostLimit(costLimit))...); err != nil {
		return nil, fmt.Errorf("filter expression: building the program: %w", err)
	}
	if c.untracked, err = env.Program(ast, common...); err != nil {
		return nil, fmt.Errorf("filter expression: building the program: %w", err)
	}
	return c, nil
}

// activation resolves the two variables without building a map per tool.
type activation struct {
	tool *toolVar
	ctx  *contextVar
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "tool":
		return a.tool, true
	case "context":
		return a.ctx, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// emptyMap stands in for nil maps so `has(tool.annotations.x)` is false
// rather than an error. It is never written to.
var emptyMap = map[string]any{}

func (b *batch) evalExpr(t *Tool, p *Prepared) Verdict {
	f := b.f
	if err := b.cctx.Err(); err != nil {
		return f.exprFailure(fmt.Errorf("%w: %w", ErrTimeout, err))
	}
	b.tool = toolVar{
		Name:         t.Name,
		OriginalName: t.OriginalName,
		Description:  t.Description,
		InputSchema:  emptyMap,
		Annotations:  t.Annotations,
	}
	if f.cel.needSchema {
		if p != nil {
			b.tool.InputSchema = p.Schema()
		} else {
			b.tool.InputSchema = parseSchema(t.InputSchema)
		}
	}
	var out ref.Val
	var err error
	if f.cel.loops {
		out, _, err = b.program.ContextEval(b.cctx, &b.vars)
	} else {
		// Without a comprehension nothing can loop: the work is bounded by
		// the expression's size and the cost limit, so skip the per-call
		// context plumbing that only comprehensions consult.
		out, _, err = b.program.Eval(&b.vars)
	}
	if err != nil {
		return f.exprFailure(classifyEvalError(err))
	}
	bv, ok := out.(types.Bool)
	if !ok {
		return f.exprFailure(fmt.Errorf("%w: it returned %s", ErrNotBool, describeVal(out)))
	}
	if bv {
		return Verdict{Kept: true, By: StageExpression, Reason: f.reasonExprKept}
	}
	return Verdict{By: StageExpression, Reason: reasonExprFalse}
}

func (f *Filter) exprFailure(err error) Verdict {
	detail := err.Error()
	switch {
	case errors.Is(err, ErrCostLimit):
		detail = fmt.Sprintf("cost limit %d exceeded (simplify the expression or raise the limit)", f.costLimit)
	case errors.Is(err, ErrTimeout) && errors.Is(err, context.Canceled):
		detail = "evaluation cancelled before it finished"
	case errors.Is(err, ErrTimeout):
		detail = "evaluation deadline exceeded (the expression is too slow for this many tools)"
	}
	return Verdict{
		By:     StageExpression,
		Reason: "filtered: expression error: " + detail + " — " + crewaiOnExprError,
		Err:    err,
	}
}

// classifyEvalError maps cel-go's evaluation failures onto this package's
// sentinel errors, keeping CEL's text.
func classifyEvalError(err error) error {
	var cancelled interpreter.EvalCancelledError
	if errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded {
		return fmt.Errorf("%w: %w", ErrCostLimit, err)
	}
	if errors.Is(err, interpreter.InterruptError{}) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return errors.New(typeNameForUsers.Replace(err.Error()))
}

func describeVal(v ref.Val) string {
	if v == nil {
		return "nothing"
	}
	var s string
	if str, ok := v.(types.String); ok {
		s = strconv.Quote(string(str))
	} else {
		s = fmt.Sprint(v.Value())
	}
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + "..."
	}
	return typeNameForUsers.Replace(v.Type().TypeName()) + " " + s
}
