package project

import (
	"fmt"
	"path/filepath"
	"strings"

	"crewbench/crew/filelimit"
	"crewbench/crew/pyread"
)

// TaskCondition is a ConditionalTask's condition in a form crewbench can
// evaluate without running Python (crew/pycond): a lambda written in
// crew.py, the expression a one-statement function returns, or
// crewbench.yaml's tasks.NAME.condition. When the condition is Python
// crewbench cannot read that way, Why says what it is and where.
type TaskCondition struct {
	// Lambda is condition=lambda output: … as written in crew.py.
	Lambda *pyread.Expr
	// Return is what def NAME(PARAM): return EXPR returns.
	Return *pyread.Expr
	Param  string
	// Text is crewbench.yaml's condition: an expression over `output`, or
	// a lambda; Const its condition: true / false.
	Text  string
	Const *bool
	// Missing: the ConditionalTask has no condition, so CrewAI's
	// should_execute raises ValueError when it is reached.
	Missing bool
	Pos     Pos
	Why     string
}

// conditionFunc reads a module-level function of m as a condition: one
// plain parameter and a body that is a single return (after an optional
// docstring). The return is read with Python's whole expression grammar.
func conditionFunc(m *pyModule, name string) *TaskCondition {
	var f *pyFunc
	for _, fn := range m.funcs {
		if fn.name == name {
			f = fn // the last def wins, as in Python
		}
	}
	if f == nil {
		return &TaskCondition{Why: fmt.Sprintf("%s defines no function %s", m.file, name)}
	}
	tc := &TaskCondition{Pos: f.pos}
	params := defParams(f.header)
	if len(params) != 1 || len(f.decorators) > 0 {
		tc.Why = fmt.Sprintf("%s at %s is not a plain one-argument function", name, f.pos)
		return tc
	}
	body := f.body
	if len(body) > 0 && isDocstring(body[0]) {
		body = body[1:]
	}
	if len(body) != 1 || body[0][0].Kind != pyread.TokName || body[0][0].Text != "return" {
		tc.Why = fmt.Sprintf("the body of %s at %s is not a single return statement", name, f.pos)
		return tc
	}
	line := body[0]
	p := &pyread.Parser{Src: m.src, Toks: line, At: 1, DepthLeft: 200, Full: true}
	e := p.Expr()
	if p.Malformed || !p.AtEnd() {
		tc.Why = fmt.Sprintf("the return of %s at %s does not read as one expression", name, line[0].Pos)
		return tc
	}
	tc.Return, tc.Param, tc.Pos = e, params[0], line[0].Pos
	return tc
}

// defParams are the parameter names of a def line ("output" from
// "def f(output: TaskOutput) -> bool:"), annotations and defaults cut;
// "*", "/" and starred ones are kept as written so they do not pass for
// plain ones.
func defParams(header []pyread.Token) []string {
	var out []string
	depth, open := 0, false
	var group []pyread.Token
	flush := func() {
		if len(group) == 0 {
			return
		}
		if group[0].Kind == pyread.TokName {
			out = append(out, group[0].Text)
		} else {
			out = append(out, group[0].Text+"…") // *, **, /: not a plain parameter
		}
		group = nil
	}
	for _, t := range header {
		if t.Kind == pyread.TokOp {
			switch t.Text {
			case "(", "[", "{":
				depth++
				if depth == 1 && !open {
					open = true
					continue
				}
			case ")", "]", "}":
				depth--
				if depth == 0 && open {
					flush()
					return out
				}
			case ",":
				if depth == 1 {
					flush()
					continue
				}
			}
		}
		if open {
			group = append(group, t)
		}
	}
	return out
}

func isDocstring(line []pyread.Token) bool {
	n := 0
	for _, t := range line {
		switch t.Kind {
		case pyread.TokString:
			n++
		case pyread.TokNewline, pyread.TokEOF:
		default:
			return false
		}
	}
	return n > 0
}

// conditionModule parses the project module a JSON-first {"python":
// "pkg.mod.func"} condition names (checkPythonModule has checked it is
// under the root) and reads func from it.
func (l *loader) conditionModule(ref string, pos Pos) *TaskCondition {
	dot := strings.LastIndexByte(ref, '.')
	if dot < 0 {
		return &TaskCondition{Pos: pos, Why: ref + " is not module.function"}
	}
	rel := strings.ReplaceAll(ref[:dot], ".", "/")
	for _, cand := range []string{rel + ".py", rel + "/__init__.py"} {
		src, err := filelimit.Read(filepath.Join(l.root, filepath.FromSlash(cand)), filelimit.Source)
		if err != nil {
			continue
		}
		tc := conditionFunc(l.parsePy(src, cand), ref[dot+1:])
		if !tc.Pos.IsValid() {
			tc.Pos = pos
		}
		return tc
	}
	return &TaskCondition{Pos: pos, Why: "its module " + ref[:dot] + " could not be read"}
}
