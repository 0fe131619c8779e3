package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crewbench/crew/pyread"
)

// literalOf parses `x = <src>` and evaluates x to a plain value.
func literalOf(t *testing.T, src string) (any, string) {
	t.Helper()
	m := parsePyModule("x = "+src+"\n", "t.py")
	e := m.scope.vars["x"]
	if e == nil {
		t.Fatalf("no assignment parsed from %q", src)
	}
	ev := &pyEval{m: m}
	n, bad := ev.literal(e, m.scope, 0)
	if bad != nil {
		return nil, exprText(bad)
	}
	return n.Plain(), ""
}

func TestPyLiterals(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want any
	}{
		{`"a" 'b' """c"""`, "abc"},
		{`("https://x.example.com"` + "\n" + `    "/mcp")`, "https://x.example.com/mcp"},
		{`r"C:\new\path"`, `C:\new\path`},
		{`"tab\tnew\nline \x41\u00e9 \N{BULLET}"`, "tab\tnew\nline Aé \\N{BULLET}"},
		{`b"bytes"`, "bytes"},
		{`f"plain {{braces}}"`, "plain {braces}"},
		{`"a" + 'b' + "c"`, "abc"},
		{`[1, -2, 3.5, 0x10, 1_000, True, False, None]`, []any{int64(1), int64(-2), 3.5, int64(16), int64(1000), true, false, nil}},
		{`("a", "b",)`, []any{"a", "b"}},
		{`("solo")`, "solo"},
		{`{"k": [1, {"n": "v"}], 'q': ()}`, map[string]any{"k": []any{int64(1), map[string]any{"n": "v"}}, "q": []any{}}},
		{"[\n  'a',  # comment with a 'quote'\n  'b',\n]", []any{"a", "b"}},
		{"'line' \\\n 'continued'", "linecontinued"},
	} {
		got, bad := literalOf(t, tc.src)
		if bad != "" {
			t.Errorf("%s: not literal at %q", tc.src, bad)
			continue
		}
		if !equalPlain(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.src, got, tc.want)
		}
	}
	for _, src := range []string{`os.environ["X"]`, `f"Bearer {token}"`, `VAR`, `[1, some_call()]`, `{"a": b}`,
		`[x for x in y]`, `lambda: 1`, `1 if a else 2`, `{1, 2}`, `"a" * 3`, `not True`} {
		if got, bad := literalOf(t, src); bad == "" {
			t.Errorf("%s should not be literal, got %#v", src, got)
		}
	}
}

func TestPyStructure(t *testing.T) {
	src := `import os
from crewai import Agent as A, Crew
from crewai.mcp import (MCPServerStdio,
    MCPServerHTTP)
import crewai_tools as ct

URL = "https://h.example.com/mcp"

@CrewBase
class MyCrew:
    agents_config = "conf/agents.yaml"
    timeout: int = 60

    def __init__(self):
        self.token = os.environ["T"]

    @agent
    def one(self) -> A: return A(config=self.agents_config["one"])

    @agent
    @other.decorator(arg=1)
    async def two(self):
        local = MCPServerHTTP(url=URL, headers={"Authorization": self.token})
        with MCPServerAdapter(params, "t1") as tools:
            pass
        return A(mcps=[local], tools=tools)

    @task
    def t(self):
        if True:
            x = 1
        return Task(description="d")

def helper():
    return Crew()
`
	m := parsePyModule(src, "crew.py")
	eq(t, "imports", [4]string{m.imports["A"], m.imports["MCPServerHTTP"], m.imports["ct"], m.imports["os"]},
		[4]string{"crewai.Agent", "crewai.mcp.MCPServerHTTP", "crewai_tools", "os"})
	c := m.crewClass()
	if c == nil || c.name != "MyCrew" {
		t.Fatalf("crew class: %+v", c)
	}
	var names []string
	for _, f := range c.methods {
		names = append(names, f.name+":"+strings.Join(f.decorators, ","))
	}
	eq(t, "methods", names, []string{"__init__:", "one:agent", "two:agent,other.decorator", "t:task"})
	eq(t, "class attr", c.attrs.vars["agents_config"].Str, "conf/agents.yaml")
	eq(t, "annotated attr", c.attrs.vars["timeout"].Str, "60")
	eq(t, "self attr", exprText(c.attrs.vars["token"]), `os.environ["T"]`)
	eq(t, "single-line def return", m.calledAs(c.methods[1].returns[0], "Agent"), true)
	two := c.methods[2]
	eq(t, "with binding", m.calledAs(two.scope.vars["tools"], "MCPServerAdapter"), true)
	eq(t, "local", m.calledAs(two.scope.vars["local"], "MCPServerHTTP"), true)
	eq(t, "nested block does not end the method", m.calledAs(c.methods[3].returns[0], "Task"), true)
	eq(t, "module function", len(m.funcs), 1)
	ev := &pyEval{m: m, cls: c}
	url, _ := ev.strValue(two.scope.vars["local"].Kwarg("url"), two.scope, "url")
	eq(t, "module constant through a local call", url, "https://h.example.com/mcp")
	_, u := ev.strValue(two.scope.vars["local"].Kwarg("headers").Items[0], two.scope, "h")
	eq(t, "self.token → os.environ", u.EnvVar, "T")
}

func TestFStrings(t *testing.T) {
	m := parsePyModule(`T = "tok"
a = f"Bearer {T}"
b = f"Bearer {os.environ['KEY']}"
c = f"{T!r}"
d = f"{T:>10}"
e = rf"\d{T}"
g = f"x" f"{T}" "y"
`, "t.py")
	ev := &pyEval{m: m}
	env := func(n string) (string, bool) { return map[string]string{"KEY": "k"}[n], n == "KEY" }
	for name, want := range map[string]string{"a": "Bearer tok", "b": "Bearer k", "e": `\dtok`, "g": "xtoky"} {
		got, ok := ev.evalStr(m.scope.vars[name], m.scope, env, 0)
		if !ok || got != want {
			t.Errorf("%s = %q (%v), want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"c", "d"} {
		if got, ok := ev.evalStr(m.scope.vars[name], m.scope, env, 0); ok {
			t.Errorf("%s: a conversion or format spec is not literal, got %q", name, got)
		}
	}
	if _, ok := ev.evalStr(m.scope.vars["b"], m.scope, nil, 0); ok {
		t.Error("an environment read is not a literal")
	}
	eq(t, "env vars", ev.envVars(m.scope.vars["b"], m.scope, 0), []string{"KEY"})
}

func FuzzCrewPy(f *testing.F) {
	for _, p := range []string{"testdata/classic/mcp/src/research/crew.py", "testdata/classic/adapter/src/inventory/crew.py",
		"testdata/classic/scaffold/src/latest_ai_development/crew.py"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("x = f'{'\n@agent\ndef a(self): return Agent(mcps=[MCPServerStdio(command=x, args=[*y], env={**os.environ})])"))
	f.Add([]byte("class C:\n  @task\n  def t(self): return Task(context=[self.t()], agent=self.t())\n  @crew\n  def c(self): return Crew(tasks=[self.t(), self.t()])"))
	f.Add([]byte("'''unterminated"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		p := &Project{Dir: "/nonexistent", Kind: KindClassic}
		l := newLoader(p, nil)
		lay := classicLayout{pkgDir: "/nonexistent/src/pkg", crewPy: "/nonexistent/src/pkg/crew.py",
			agentsYA: "/nonexistent/src/pkg/config/agents.yaml", tasksYA: "/nonexistent/src/pkg/config/tasks.yaml"}
		l.loadClassicSource(lay, src)
		l.finish()
		for _, e := range l.errs {
			if !e.Pos.IsValid() {
				t.Fatalf("error without a position: %q", e.Error())
			}
		}
		for _, u := range p.Unresolved {
			if !u.Pos.IsValid() || u.ID == "" {
				t.Fatalf("unresolved without position or id: %+v", u)
			}
		}
	})
}

// Self-reference and shared sub-expressions must not blow up.
func TestPyEvalBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("x = x + x\ny = [y, y]\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "v%d = v%d + v%d\nl%d = [l%d, l%d]\n", i, i+1, i+1, i, i+1, i+1)
	}
	b.WriteString("v40 = 'a'\nl40 = 1\n")
	m := parsePyModule(b.String(), "t.py")
	ev := &pyEval{m: m}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"x", "y", "v0", "l0"} {
			ev.evalStr(m.scope.vars[name], m.scope, nil, 0)
			ev.literal(m.scope.vars[name], m.scope, 0)
			ev.envVars(m.scope.vars[name], m.scope, 0)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("evaluation did not stop")
	}
	if _, ok := ev.evalStr(m.scope.vars["x"], m.scope, nil, 0); ok {
		t.Error("x = x + x is not a literal")
	}
}

// Python's tokenizer refuses a 201st nested bracket; crewbench used to read
// such a statement silently as opaque text. It is a load error at the
// bracket, and the rest of crew.py still loads.
func TestCrewPyNestingLimitIsALoadError(t *testing.T) {
	for _, tc := range []struct {
		depth   int
		wantErr bool
	}{{pyread.MaxNesting, false}, {pyread.MaxNesting + 1, true}, {20_000, true}} {
		t.Run(fmt.Sprint(tc.depth), func(t *testing.T) {
			dir, _ := writeProject(t, "crew.py", 0)
			nested := strings.Repeat("MCPServerStdio(command=", tc.depth-1) + "MCPServerStdio(command='x'" + strings.Repeat(")", tc.depth)
			src := genCrewPy(0)
			src = strings.Replace(src, "\n\n@CrewBase", "\n\ndeep = "+nested+"\n\n@CrewBase", 1)
			crewPy := filepath.Join(dir, "src/research/crew.py")
			if err := os.WriteFile(crewPy, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			line := strings.Count(src[:strings.Index(src, "deep = ")], "\n") + 1
			p, err := OpenWith(dir, Options{Environ: []string{}})
			if p == nil || len(p.Agents) != 1 {
				t.Fatalf("project did not load around the statement: %v", err)
			}
			var found *Error
			var errs Errors
			if errors.As(err, &errs) {
				for _, e := range errs {
					if strings.Contains(e.Msg, "too many nested parentheses") {
						found = e
					}
				}
			}
			if !tc.wantErr {
				if found != nil {
					t.Fatalf("depth %d is within Python's limit, got %v", tc.depth, found)
				}
				return
			}
			if found == nil {
				t.Fatalf("no nesting error among %v", err)
			}
			// the bracket that crosses the limit: "deep = " plus 200 calls
			wantCol := len("deep = ") + pyread.MaxNesting*len("MCPServerStdio(command=") + len("MCPServerStdio")
			if !strings.HasSuffix(found.Pos.File, "crew.py") || found.Pos.Line != line || found.Pos.Col != wantCol+1 {
				t.Errorf("error at %v, want crew.py:%d:%d", found.Pos, line, wantCol+1)
			}
			if !strings.HasPrefix(found.Error(), found.Pos.String()+": ") {
				t.Errorf("error text %q does not name its position", found.Error())
			}
		})
	}
}

// A crew.py past the token bound is read up to it, and says so.
func TestCrewPyTokenBoundIsANote(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 2 MB crew.py")
	}
	dir, _ := writeProject(t, "crew.py", 0)
	src := genCrewPy(0)
	big := "big = [" + strings.Repeat("1,", maxPyTokens/2+1) + "]\n"
	src = strings.Replace(src, "\n\n@CrewBase", "\n\n"+big+"\n@CrewBase", 1)
	if err := os.WriteFile(filepath.Join(dir, "src/research/crew.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(src[:strings.Index(src, "big = [")], "\n") + 1
	p, err := OpenWith(dir, Options{Environ: []string{}})
	if p == nil {
		t.Fatalf("project did not open: %v", err)
	}
	for _, n := range p.Notes {
		if n.Code == "python-too-large" {
			if n.Level != Warn || n.Pos.Line != line || !strings.Contains(n.Text, "nothing after") {
				t.Errorf("note %+v, want a warning on line %d", n, line)
			}
			return
		}
	}
	t.Errorf("no python-too-large note among %v", p.Notes)
}
