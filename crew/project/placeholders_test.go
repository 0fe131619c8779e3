package project

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestPlaceholders(t *testing.T) {
	p := open(t, "testdata/json/market_brief")
	eq(t, "names", p.PlaceholderNames(), []string{"industry", "region", "year"})
	phs := p.Placeholders()
	eq(t, "first", phs[0], Placeholder{Name: "industry", Owner: "task research_task", Field: "description", Pos: Pos{File: "crew.jsonc", Line: 8, Col: 22}, CLI: true})
	// output_file placeholders count too
	found := false
	for _, ph := range phs {
		if ph.Field == "output_file" && ph.Name == "region" {
			found = true
		}
	}
	if !found {
		t.Error("output_file placeholder missing")
	}
}

// {{x}} is not an escape: the runtime interpolates the inner {x}, but
// crewai run's missing-input scan does not see it (formats §7.5).
func TestPlaceholderDoubleBraces(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crew.jsonc"), `{"agents": ["a"], "tasks": [{"description": "Use {{topic}} and {lang} but not {\"a\": 1} or {1x}", "expected_output": "E {a-b}", "agent": "a"}]}`)
	writeFile(t, filepath.Join(dir, "agents/a.jsonc"), `{"role": "R", "goal": "G", "backstory": "B"}`)
	p := open(t, dir)
	var got []string
	for _, ph := range p.Placeholders() {
		s := ph.Name
		if !ph.CLI {
			s += " (runtime only)"
		}
		got = append(got, s)
	}
	eq(t, "placeholders", got, []string{"topic (runtime only)", "lang", "a-b"})
	missing, _ := p.CheckInputs(map[string]any{"lang": "Go"})
	eq(t, "missing (CLI scan)", len(missing), 1)
	eq(t, "missing name", missing[0].Name, "a-b")

	ip, err := p.Interpolate(map[string]any{"topic": "AI", "lang": "Go", "a-b": true})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "interpolated", ip.Tasks[0].Description, `Use {AI} and Go but not {"a": 1} or {1x}`)
	eq(t, "python str(True)", ip.Tasks[0].ExpectedOutput, "E True")
	eq(t, "original untouched", p.Tasks[0].Description, `Use {{topic}} and {lang} but not {"a": 1} or {1x}`)
}

func TestInterpolate(t *testing.T) {
	p := open(t, "testdata/json/market_brief")
	ip, err := p.Interpolate(p.InputSets["default"])
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "description", ip.Tasks[0].Description, "Research the industrial heat pumps market in EMEA for 2026. Focus on demand drivers and the top five vendors.")
	eq(t, "output_file", ip.Tasks[2].OutputFile, "output/EMEA-brief.md")
	eq(t, "role", ip.Agent("researcher").Role, "Senior industrial heat pumps Analyst")
	eq(t, "crew tasks follow", ip.Crew.Tasks[0].Description, ip.Tasks[0].Description)
	eq(t, "original untouched", p.Agent("researcher").Role, "Senior {industry} Analyst")

	// empty inputs: no interpolation at all
	same, _ := p.Interpolate(nil)
	eq(t, "empty inputs", same.Tasks[0].Description, p.Tasks[0].Description)

	// missing variables: CrewAI's texts per field, at the field's position
	for _, tc := range []struct {
		inputs map[string]any
		want   string
	}{
		{map[string]any{"industry": "x"}, `crew.jsonc:8:22: Missing required template variable 'Template variable 'region' not found in inputs dictionary' in description`},
		{map[string]any{"industry": "x", "region": "y", "year": 1, "zz": 1}, ``},
	} {
		_, err := p.Interpolate(tc.inputs)
		eq(t, "error", errString(err), tc.want)
	}
	// values: lists and dicts use Python repr
	ip2, _ := p.Interpolate(map[string]any{"industry": []any{"a", int64(1)}, "region": map[string]any{"k": nil}, "year": 2.5})
	eq(t, "repr", ip2.Tasks[0].Description[:53], "Research the ['a', 1] market in {'k': None} for 2.5. ")
	// unsupported types
	_, err = p.Interpolate(map[string]any{"industry": struct{}{}})
	eq(t, "type error", errString(err), "Invalid value for key 'industry': Unsupported type struct {} in inputs. Only str, int, float, bool, dict, and list are allowed.")
}

func TestInterpolateFieldErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crew.jsonc"), `{"agents": ["a"], "tasks": [{"description": "D {x}", "expected_output": "E {y}", "output_file": "out/{z}.md", "agent": "a"}]}`)
	writeFile(t, filepath.Join(dir, "agents/a.jsonc"), `{"role": "R {w}", "goal": "G", "backstory": "B"}`)
	p := open(t, dir)
	for _, tc := range []struct {
		inputs map[string]any
		want   string
	}{
		{map[string]any{"y": 1}, `Missing required template variable 'Template variable 'x' not found in inputs dictionary' in description`},
		{map[string]any{"x": 1}, `Error interpolating expected_output: "Template variable 'y' not found in inputs dictionary"`},
		{map[string]any{"x": 1, "y": 1}, `Error interpolating output_file path: "Template variable 'z' not found in inputs dictionary"`},
		{map[string]any{"x": 1, "y": 1, "z": 1}, `"Template variable 'w' not found in inputs dictionary"`},
	} {
		_, err := p.Interpolate(tc.inputs)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("want *Error, got %v", err)
		}
		eq(t, "text", e.Msg, tc.want)
	}
}

func TestCheckInputs(t *testing.T) {
	p := open(t, "testdata/json/market_brief")
	missing, warnings := p.CheckInputs(map[string]any{"industry": "x", "regoin": "y"})
	var names []string
	for _, m := range missing {
		names = append(names, m.Name)
	}
	eq(t, "missing", names, []string{"region", "year"})
	eq(t, "warnings", warnings, []string{"  Input 'regoin' isn't referenced by any {placeholder} in the crew. Did you mean 'region'?"})
}
