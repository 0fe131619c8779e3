package project

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDotEnvPythonDotenvRules(t *testing.T) {
	src, err := os.ReadFile("testdata/dotenv/.env")
	if err != nil {
		t.Fatal(err)
	}
	e := ParseDotEnv(src, ".env", []string{"HOME=/home/u", "PORT=8080", "DUP=from-env"}, true)
	for key, want := range map[string]string{
		"OPENAI_API_KEY": "sk-plain",
		"MODEL":          "openai/gpt-4o-mini",
		// python-dotenv expands ${VAR} in every value, single-quoted too
		"SINGLE":      "it's /home/u literal? no: expanded",
		"DOUBLE":      "line1\nline2\t\"q\"",
		"HASH":        "value#not-a-comment",
		"SPACED_HASH": "",
		"EMPTY":       "",
		"BASE_URL":    "http://localhost:8080/v1",
		// ${MISSING} without a default is empty
		"REF":        "sk-plain-",
		"MULTI":      "first\nsecond",
		"QUOTED KEY": "q",
		// the last duplicate wins; with override=True earlier file values
		// beat the environment in expansion
		"DUP":       "two",
		"AFTER_DUP": "two",
		"CRLF":      "crlf",
		"WIN":       "1",
		"WIN2":      "two",
	} {
		got, ok := e.Lookup(key)
		if !ok || got != want {
			t.Errorf("%s = %q (%v), want %q", key, got, ok, want)
		}
	}
	if _, ok := e.Lookup("NOVALUE"); ok {
		t.Error("a key without = is not set")
	}
	if len(e.Invalid) != 1 || e.Invalid[0].Line != 14 {
		t.Errorf("invalid lines: %v", e.Invalid)
	}
	eq(t, "key position", e.Vars[1].Pos.String(), ".env:3:1")
	eq(t, "export key position", e.Vars[0].Pos.String(), ".env:2:8")

	// override=False (import crewai): the environment wins in expansion
	e2 := ParseDotEnv(src, ".env", []string{"DUP=from-env"}, false)
	v, _ := e2.Lookup("AFTER_DUP")
	eq(t, "override=False expansion", v, "from-env")

	// PYTHON_DOTENV_DISABLED turns loading off
	e3 := ParseDotEnv(src, ".env", []string{"PYTHON_DOTENV_DISABLED=1"}, true)
	if _, ok := e3.Lookup("MODEL"); ok || !e3.Disabled {
		t.Error("PYTHON_DOTENV_DISABLED must disable .env")
	}
}

// .env precedence: JSON crews (crewai run, override=True) prefer .env;
// classic projects (import crewai, override=False) prefer the environment.
func TestDotEnvPrecedence(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/json/scaffold", dir)
	writeFile(t, dir+"/.env", "MODEL=from-dotenv\n")
	p := open(t, dir, "MODEL=from-env")
	eq(t, "json crew", p.Agent("researcher").ResolvedLLM.Model, "openai/gpt-4o") // declared llm wins anyway
	v, _ := p.Getenv("MODEL")
	eq(t, "json crew MODEL", v, "from-dotenv")

	cdir := t.TempDir()
	copyTree(t, "testdata/classic/scaffold", cdir)
	pc := open(t, cdir, "MODEL=from-env")
	v, _ = pc.Getenv("MODEL")
	eq(t, "classic MODEL", v, "from-env")
	pc2 := open(t, cdir)
	v, _ = pc2.Getenv("MODEL")
	eq(t, "classic MODEL from .env", v, "openai/gpt-4o-mini")
}

func FuzzDotEnv(f *testing.F) {
	if b, err := os.ReadFile("testdata/dotenv/.env"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("A='x\nB=\"y\\\"\nexport\n'K'=v # c\n${"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := ParseDotEnv(data, ".env", []string{"HOME=/h"}, true)
		for _, v := range e.Vars {
			if v.Key == "" || v.Pos.Line < 1 {
				t.Fatalf("bad binding %+v", v)
			}
		}
	})
}

// A chain of doubling lines (A1=${A0}${A0} …) would build 2^40 bytes; each
// value is capped, the oversized bindings are named, and the loader says
// so instead of running out of memory.
func TestDotEnvExpansionBombIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("A0=xxxxxxxxxxxxxxxx\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "A%d=${A%d}${A%d}\n", i, i-1, i-1)
	}
	e := ParseDotEnv([]byte(b.String()), ".env", nil, true)
	if len(e.Oversized) == 0 {
		t.Fatal("no binding reported oversized")
	}
	for _, v := range e.Vars {
		if len(v.Value) > maxDotEnvValue {
			t.Fatalf("%s expanded to %d bytes", v.Key, len(v.Value))
		}
	}
	if v, _ := e.Lookup("A3"); v != strings.Repeat("x", 128) {
		t.Errorf("A3 = %q, want 128 x (small expansions still work)", v)
	}
	if e.Oversized[0].Line != 18 {
		t.Errorf("first oversized binding at line %d, want 18 (A17, 2 MiB)", e.Oversized[0].Line)
	}
}

// Expansion sees the environment and the earlier bindings in the order
// load_dotenv's override flag says.
func TestDotEnvExpansionPrecedence(t *testing.T) {
	src := []byte("HOME=/from/file\nX=${HOME}\nY=${UNSET:-dflt}\nW=${EMPTY:-d}\nEMPTY\nV=${EMPTY:-d}\n")
	env := []string{"HOME=/from/env"}
	for _, tc := range []struct {
		override bool
		x        string
	}{{true, "/from/file"}, {false, "/from/env"}} {
		e := ParseDotEnv(src, ".env", env, tc.override)
		if x, _ := e.Lookup("X"); x != tc.x {
			t.Errorf("override=%v: X = %q, want %q", tc.override, x, tc.x)
		}
		if y, _ := e.Lookup("Y"); y != "dflt" {
			t.Errorf("Y = %q", y)
		}
		if w, _ := e.Lookup("W"); w != "d" {
			t.Errorf("W = %q, want the default (EMPTY is bound after W)", w)
		}
		if v, _ := e.Lookup("V"); v != "" {
			t.Errorf("V = %q, want empty (a key without a value expands to nothing)", v)
		}
	}
}

// Parsing is linear in the number of lines (python-dotenv's per-line copy
// of every binding made 40k lines take 32 s): compare ns/op at 2k and 20k.
func BenchmarkParseDotEnv(b *testing.B) {
	environ := os.Environ()
	for _, n := range []int{2_000, 20_000} {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "K%d=${K%d}v\n", i, max(i-1, 0))
		}
		src := []byte(sb.String())
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				ParseDotEnv(src, ".env", environ, true)
			}
		})
	}
}
