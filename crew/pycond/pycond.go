// Package pycond evaluates the ConditionalTask conditions crewbench can
// evaluate without running Python: a one-argument lambda, or the
// expression a one-line function returns, written in a small, safe subset
// of Python over CrewAI's TaskOutput of the previous task
// (tasks/conditional_task.py should_execute: bool(condition(output))).
//
// The subset: the argument's raw, summary, agent, description, name,
// expected_output, json_dict and pydantic (a model's fields by attribute);
// subscripts; the str methods lower, upper, strip, lstrip, rstrip,
// startswith, endswith, count and split, and dict.get; len, bool, str
// and int; comparisons
// (chained), in / not in, is / is not against None, True or False; and, or,
// not; a conditional expression; str, int, float, bool and None literals
// and lists, tuples and dicts of them. Python's semantics hold exactly:
// truthiness, and/or returning an operand, and the exceptions Python
// raises (TypeError, KeyError, …) with Python's texts, which fail the
// kickoff as they fail CrewAI's. Anything else is refused when the
// condition is compiled, naming the part, so the caller can say why it
// runs the task instead.
package pycond

import (
	"fmt"
	"strings"

	"crewbench/crew/pyjson"
	"crewbench/crew/pyread"
)

// Output is what a condition sees of the previous task's TaskOutput.
type Output struct {
	Description, Name, ExpectedOutput, Summary, Raw, Agent string
	// JSONDict is json_dict (nil: None).
	JSONDict *pyjson.Object
	// Pydantic is the output_pydantic model's fields (nil: None); its
	// class name is PydanticClass and str() of it PydanticStr.
	Pydantic      *pyjson.Object
	PydanticClass string
	PydanticStr   string
}

// Condition is a compiled condition. A nil *Condition is none.
type Condition struct {
	// Source is the condition as written (a lambda, the returned
	// expression, or crewbench.yaml's text).
	Source string
	Pos    pyread.Pos
	param  string
	body   *pyread.Expr
	// constant is crewbench.yaml's condition: true / false.
	constant *bool
	missing  bool
}

// Refusal says which part of a condition is outside the subset.
type Refusal struct {
	Pos  pyread.Pos
	Part string // the source text of the part ("" when unknown)
	Why  string
}

func (r *Refusal) Error() string {
	where := ""
	if s := r.Pos.String(); s != "" {
		where = " at " + s
	}
	if r.Part != "" {
		return fmt.Sprintf("`%s`%s: %s", r.Part, where, r.Why)
	}
	return strings.TrimPrefix(where, " at ") + ": " + r.Why
}

// PyError is the exception Python raises evaluating a condition. Error is
// str() of it, what CrewAI's CrewKickoffFailedEvent carries.
type PyError struct {
	Type string // "TypeError", "KeyError", …
	Msg  string
}

func (e *PyError) Error() string { return e.Msg }

// Constant is crewbench.yaml's condition: true or false.
func Constant(v bool, pos pyread.Pos) *Condition {
	src := "False"
	if v {
		src = "True"
	}
	return &Condition{Source: src, Pos: pos, constant: &v}
}

// Missing is a ConditionalTask without a condition: should_execute raises
// ValueError (tasks/conditional_task.py).
func Missing(pos pyread.Pos) *Condition {
	return &Condition{Source: "None", Pos: pos, missing: true}
}

// Lambda compiles a parsed "lambda output: EXPR".
func Lambda(e *pyread.Expr) (*Condition, error) {
	if e == nil || e.Kind != pyread.Lambda {
		return nil, &Refusal{Pos: posOf(e), Part: textOf(e), Why: "not a lambda"}
	}
	if len(e.Params) != 1 || !isIdent(e.Params[0]) {
		return nil, &Refusal{Pos: e.Pos, Part: e.Text, Why: "the lambda must take exactly one plain argument (the previous TaskOutput)"}
	}
	return Body(e.X, e.Params[0], e.Text, e.Pos)
}

// Body compiles expr, the body of a condition whose argument is param.
// source and pos describe the whole condition.
func Body(expr *pyread.Expr, param, source string, pos pyread.Pos) (*Condition, error) {
	if err := check(expr, param, 0); err != nil {
		return nil, err
	}
	return &Condition{Source: source, Pos: pos, param: param, body: expr}, nil
}

// Parse compiles src, crewbench.yaml's condition: a lambda, or an
// expression over `output`. pos is where src starts; the parts' positions
// are reported relative to it.
func Parse(src string, pos pyread.Pos) (*Condition, error) {
	e, ok := pyread.ParseFull(src, pos.File)
	shift(e, pos, 0)
	if !ok {
		return nil, &Refusal{Pos: pos, Part: src, Why: "not one Python expression"}
	}
	if e.Kind == pyread.Lambda {
		return Lambda(e)
	}
	c, err := Body(e, "output", src, pos)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// shift moves the positions of a tree parsed from text that starts at
// base (line 1 of the text is base's line; its columns follow base's).
func shift(e *pyread.Expr, base pyread.Pos, depth int) {
	if e == nil || depth > 400 {
		return
	}
	if e.Pos.Line == 1 && base.Col > 0 {
		e.Pos.Col += base.Col - 1
	}
	if base.Line > 0 && e.Pos.Line > 0 {
		e.Pos.Line += base.Line - 1
	}
	for _, x := range append(append([]*pyread.Expr{e.X, e.Index}, e.Items...), e.Keys...) {
		shift(x, base, depth+1)
	}
	for _, k := range e.Kwargs {
		shift(k.Value, base, depth+1)
	}
}

// Eval runs the condition on the previous task's output: Python's
// bool(condition(output)).
func (c *Condition) Eval(o Output) (bool, error) {
	if c.constant != nil {
		return *c.constant, nil
	}
	if c.missing {
		return false, &PyError{Type: "ValueError", Msg: "No condition function set for conditional task"}
	}
	ev := &evaluator{param: c.param, out: &o}
	v, err := ev.eval(c.body, 0)
	if err != nil {
		return false, err
	}
	return ev.truthy(v), nil
}

func posOf(e *pyread.Expr) pyread.Pos {
	if e == nil {
		return pyread.Pos{}
	}
	return e.Pos
}

func textOf(e *pyread.Expr) string {
	if e == nil {
		return ""
	}
	if e.Text != "" {
		return e.Text
	}
	return e.Dotted()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127) && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}
