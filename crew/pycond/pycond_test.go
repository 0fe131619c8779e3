package pycond

import (
	"errors"
	"strings"
	"testing"

	"crewbench/crew/pyjson"
	"crewbench/crew/pyread"
)

func testOutput() Output {
	jd, _ := pyjson.LoadsObject(`{"score": 7, "verdict": "Approved", "tags": ["a", "b"], "ratio": 0.5, "none": null}`)
	pm, _ := pyjson.LoadsObject(`{"approved": true, "count": 3}`)
	return Output{Description: "Review the draft", Summary: "Review the draft...", Raw: "  The report is APPROVED.  ",
		Agent: "Reviewer", JSONDict: jd, Pydantic: pm, PydanticClass: "Review", PydanticStr: "approved=True count=3"}
}

// TestEvalPythonSemantics checks results and raised errors against what
// Python 3.12 gives for the same expression (each case was run there).
func TestEvalPythonSemantics(t *testing.T) {
	for _, tc := range []struct {
		src     string
		want    bool
		errType string // "" for no error
		errMsg  string
	}{
		{src: `"approved" in output.raw.lower()`, want: true},
		{src: `"approved" in output.raw`, want: false},
		{src: `output.raw.strip().endswith(".")`, want: true},
		{src: `output.raw.startswith(("x", "  The"))`, want: true},
		{src: `output.raw.upper().count("E") == 3`, want: true},
		{src: `output.json_dict["score"] > 5`, want: true},
		{src: `output.json_dict["score"] >= 7.0 and output.json_dict["ratio"] < 1`, want: true},
		{src: `output.json_dict["verdict"] == "Approved"`, want: true},
		{src: `1 < output.json_dict["score"] < 5`, want: false},
		{src: `"b" in output.json_dict["tags"]`, want: true},
		{src: `"score" in output.json_dict`, want: true},
		{src: `"missing" not in output.json_dict`, want: true},
		{src: `output.json_dict["none"] is None`, want: true},
		{src: `output.json_dict["score"] is not None`, want: true},
		{src: `output.pydantic.approved`, want: true},
		{src: `output.pydantic.count == 3 == True + 0` /* refused below */},
		{src: `len(output.raw) > 10`, want: true},
		{src: `len(output.json_dict["tags"])`, want: true},
		{src: `bool(output.raw)`, want: true},
		{src: `str(output.json_dict["score"]) == "7"`, want: true},
		{src: `str(output.json_dict["ratio"]) == "0.5"`, want: true},
		{src: `int(" 42 ") == 42`, want: true},
		{src: `int("4_2") == 42`, want: true},
		{src: `int(output.json_dict["ratio"]) == 0`, want: true},
		{src: `output.raw and ""`, want: false},
		{src: `"" or output.agent`, want: true},
		{src: `not output.raw`, want: false},
		{src: `True == 1`, want: true},
		{src: `1 == 1.0`, want: true},
		{src: `[1, 2] == (1, 2)`, want: false},
		{src: `[1, 2] < [1, 3]`, want: true},
		{src: `"yes" if output.agent == "Reviewer" else ""`, want: true},
		{src: `output.summary.startswith("Review")`, want: true},
		{src: `output.description.count("") == 17`, want: true},
		{src: `"ß".upper() == "SS"`, want: true},
		{src: `len(output.raw.split()) == 4`, want: true},
		{src: `output.description.split(" ")[-1] == "draft"`, want: true},
		{src: `output.json_dict.get("missing", 3) == 3 and output.json_dict.get("score") == 7`, want: true},
		{src: `output.json_dict.get("missing") is None`, want: true},
		{src: `output.raw.split("")`, errType: "ValueError", errMsg: "empty separator"},
		{src: `output.raw.get("x")`, errType: "AttributeError", errMsg: "'str' object has no attribute 'get'"},
		{src: `output.json_dict["verdict"] > 3`, errType: "TypeError", errMsg: "'>' not supported between instances of 'str' and 'int'"},
		{src: `output.json_dict["missing"]`, errType: "KeyError", errMsg: "'missing'"},
		{src: `output.json_dict[1]`, errType: "KeyError", errMsg: "1"},
		{src: `output.json_dict[["a"]]`, errType: "TypeError", errMsg: "unhashable type: 'list'"},
		{src: `output.json_dict["tags"][5]`, errType: "IndexError", errMsg: "list index out of range"},
		{src: `output.json_dict["none"].lower()`, errType: "AttributeError", errMsg: "'NoneType' object has no attribute 'lower'"},
		{src: `output.pydantic.missing`, errType: "AttributeError", errMsg: "'Review' object has no attribute 'missing'"},
		{src: `1 in output.raw`, errType: "TypeError", errMsg: "'in <string>' requires string as left operand, not int"},
		{src: `"a" in output.json_dict["score"]`, errType: "TypeError", errMsg: "argument of type 'int' is not iterable"},
		{src: `len(output.json_dict["score"])`, errType: "TypeError", errMsg: "object of type 'int' has no len()"},
		{src: `int("abc")`, errType: "ValueError", errMsg: "invalid literal for int() with base 10: 'abc'"},
		{src: `int(output.json_dict["none"])`, errType: "TypeError", errMsg: "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"},
		{src: `output.raw.startswith(1)`, errType: "TypeError", errMsg: "startswith first arg must be str or a tuple of str, not int"},
		{src: `output.json_dict["none"]["x"]`, errType: "TypeError", errMsg: "'NoneType' object is not subscriptable"},
		{src: `output.raw or output.json_dict["missing"]`, want: true}, // or short-circuits
		{src: `lambda o: o.agent == "Reviewer"`, want: true},
	} {
		t.Run(tc.src, func(t *testing.T) {
			c, err := Parse(tc.src, pyread.Pos{File: "crewbench.yaml", Line: 3, Col: 16})
			if strings.Contains(tc.src, "True + 0") {
				var r *Refusal
				if !errors.As(err, &r) || !strings.Contains(r.Why, "operator +") {
					t.Fatalf("want a refusal of +, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := c.Eval(testOutput())
			var pe *PyError
			switch {
			case tc.errType == "" && err != nil:
				t.Fatalf("Eval: %v", err)
			case tc.errType != "" && (!errors.As(err, &pe) || pe.Type != tc.errType || pe.Msg != tc.errMsg):
				t.Fatalf("Eval error = %#v, want %s: %s", err, tc.errType, tc.errMsg)
			case tc.errType == "" && got != tc.want:
				t.Fatalf("Eval = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRefusals: what is outside the subset is refused at compile time,
// naming the part and where it is.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct{ src, part, why, pos string }{
		{`output.raw + "x" == "y"`, `output.raw + "x"`, "operator +", "crewbench.yaml:3:16"},
		{`len(output.raw) > threshold`, "threshold", "is not the condition's argument", "crewbench.yaml:3:34"},
		{`output.messages`, "output.messages", "outside the subset", ""},
		{`output.raw.splitlines()`, "output.raw.splitlines", "calling", ""},
		{`output.raw.lower`, "output.raw.lower", "must be called", ""},
		{`output.raw[1:]`, "output.raw[1:]", "not one Python expression", ""},
		{`f"{output.raw}" == ""`, `f"{output.raw}"`, "f-strings", ""},
		{`output.raw is "x"`, `output.raw is "x"`, "only against None", ""},
		{`sorted(output.raw)`, "sorted", "calling", ""},
		{`str(output.raw, "utf-8")`, `str(output.raw, "utf-8")`, "2 arguments", ""},
		{`lambda a, b: a`, "lambda a, b: a", "exactly one", ""},
		{`output.raw ==`, "", "outside the subset", "crewbench.yaml:3:29"},
		{`[x for x in output.raw]`, "", "", ""},
	} {
		t.Run(tc.src, func(t *testing.T) {
			_, err := Parse(tc.src, pyread.Pos{File: "crewbench.yaml", Line: 3, Col: 16})
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("want a refusal, got %v", err)
			}
			if !strings.Contains(r.Part, tc.part) || !strings.Contains(r.Why, tc.why) {
				t.Fatalf("refusal = %+v, want part %q and why %q", r, tc.part, tc.why)
			}
			if tc.pos != "" && r.Pos.String() != tc.pos {
				t.Fatalf("refusal at %s, want %s", r.Pos, tc.pos)
			}
		})
	}
}

func TestConstant(t *testing.T) {
	for _, v := range []bool{true, false} {
		if got, err := Constant(v, pyread.Pos{}).Eval(Output{}); err != nil || got != v {
			t.Fatalf("Constant(%v) = %v, %v", v, got, err)
		}
	}
}

// FuzzEval: no expression and no output makes the evaluator panic.
func FuzzEval(f *testing.F) {
	for _, s := range []string{`output.raw.lower().count("a") > 1 and not output.json_dict["x"]`,
		`1 < 2 < output.json_dict["score"]`, `int(output.raw) if output.raw else len(output.summary)`,
		`output.pydantic.count in [1, (2, 3), {"a": None}]`, `-1 >= -1.5e3`, `lambda o: o`, `((((`, `not not not 1`} {
		f.Add(s, `{"score": 3, "x": [1, "a"]}`, "raw text")
	}
	f.Fuzz(func(t *testing.T, src, dict, raw string) {
		c, err := Parse(src, pyread.Pos{File: "f"})
		if err != nil {
			return
		}
		o := Output{Raw: raw}
		if d, err := pyjson.LoadsObject(dict); err == nil {
			o.JSONDict, o.Pydantic, o.PydanticClass = d, d, "M"
		}
		_, _ = c.Eval(o)
	})
}
