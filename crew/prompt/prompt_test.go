package prompt

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/crew/pyjson"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The fully rendered example of crewai-formats.md §4.2: the second task of a
// no-tool agent, with context from two tasks.
func TestSpecRenderedExample(t *testing.T) {
	tp := TaskPrompt(TaskSpec{
		Description:    "Write a two-page market brief for EMEA executives.",
		ExpectedOutput: "A markdown brief …",
	}, JoinContext([]string{"<raw output of research_task>", "<raw output of pricing_task>"}))
	m := Build(ModeNoTools, Persona{
		Role: "Executive Brief Writer", Goal: "Turn research notes into a crisp brief for EMEA leadership",
		Backstory: "Former strategy consultant; writes short sentences.", UseSystemPrompt: true,
	}, tp, ToolText{})
	wantSystem := "You are Executive Brief Writer. Former strategy consultant; writes short sentences.\nYour personal goal is: Turn research notes into a crisp brief for EMEA leadership"
	wantUser := "\nCurrent Task: Write a two-page market brief for EMEA executives.\n\nThis is the expected criteria for your final answer: A markdown brief …\nyou MUST return the actual complete content as the final answer, not a summary.\n\nThis is the context you're working with:\n<raw output of research_task>\n\n----------\n\n<raw output of pricing_task>\n\nProvide your complete response:"
	if m.System != wantSystem {
		t.Errorf("system:\n got %q\nwant %q", m.System, wantSystem)
	}
	if m.User != wantUser {
		t.Errorf("user:\n got %q\nwant %q", m.User, wantUser)
	}
}

// YAML folded scalars leave a trailing "\n" that reaches the prompt; the
// final rstrip removes only the one at the very end (formats §2.2).
func TestFoldedScalarNewlinesAndRstrip(t *testing.T) {
	m := Build(ModeNoTools, Persona{Role: "R\n", Goal: "G\n", Backstory: "B\n", UseSystemPrompt: true}, "T", ToolText{})
	if m.System != "You are R\n. B\n\nYour personal goal is: G" {
		t.Errorf("system = %q", m.System)
	}
}

func TestSubstitutionOrder(t *testing.T) {
	tools := ToolText{Description: "Tool Name: x", Names: "x"}
	// A literal {tools} in the task is replaced; a literal {role} is not.
	m := Build(ModeReAct, Persona{Role: "R", Goal: "G", Backstory: "B", UseSystemPrompt: true}, "use {tools} as {role}", tools)
	if !strings.Contains(m.User, "use Tool Name: x as {role}") {
		t.Errorf("user = %q", m.User)
	}
	// One message when use_system_prompt is false: the whole concatenation
	// as a user message.
	one := Build(ModeNative, Persona{Role: "R", Goal: "G", Backstory: "B"}, "do it", tools)
	if one.System != "" || one.User != "You are R. B\nYour personal goal is: G\nCurrent Task: do it" {
		t.Errorf("single = %+v", one)
	}
	// str.format semantics inside task_with_context: a {context} in the task
	// text is not expanded.
	if got := TaskPrompt(TaskSpec{Description: "keep {context}", ExpectedOutput: "e"}, "C"); !strings.HasPrefix(got, "keep {context}\n") {
		t.Errorf("task prompt = %q", got)
	}
}

func TestInterpolate(t *testing.T) {
	inputs := map[string]any{"topic": "AI", "n": pyjson.Int(3), "flag": true, "none": nil, "obj": pyjson.ObjectOf("a", pyjson.Int(1)), "x-y": "hy",
		"ref": "see {topic}", "loose": "{nowhere}"}
	cases := map[string]string{
		"About {topic}":               "About AI",
		"{{topic}}":                   "{AI}",
		`{"a": 1} stays`:              `{"a": 1} stays`,
		"{n} {flag} {none} {obj}":     "3 True None {'a': 1}",
		"hyphen {x-y}":                "hyphen hy",
		"{ topic } not a placeholder": "{ topic } not a placeholder",
		// interpolate_only replaces name after name over the whole text
		// (string_utils.py:150-154): a value's own placeholder is filled
		// when its name comes later in the text, never reported missing.
		"{ref} {topic}": "see AI AI",
		"{topic} {ref}": "AI see {topic}",
		"{loose}":       "{nowhere}",
	}
	for in, want := range cases {
		got, err := Interpolate(in, inputs)
		if err != nil || got != want {
			t.Errorf("Interpolate(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, _ := Interpolate("{missing}", nil); got != "{missing}" {
		t.Errorf("empty inputs must not interpolate: %q", got)
	}
	errs := map[Field]string{
		FieldDescription:    "Missing required template variable 'Template variable 'missing' not found in inputs dictionary' in description",
		FieldExpectedOutput: `Error interpolating expected_output: "Template variable 'missing' not found in inputs dictionary"`,
		FieldOutputFile:     `Error interpolating output_file path: "Template variable 'missing' not found in inputs dictionary"`,
		FieldRole:           `"Template variable 'missing' not found in inputs dictionary"`,
	}
	for f, want := range errs {
		if _, err := InterpolateField(f, "{missing}", inputs); err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", f, err, want)
		}
	}
}

func TestAuthoredDescription(t *testing.T) {
	if got := AuthoredDescription("Tool Name: x\nTool Arguments: {}\nTool Description: Real text"); got != "Real text" {
		t.Errorf("AuthoredDescription = %q", got)
	}
}

// Golden files hold the exact opening messages for representative tasks.
// Regenerate with: go test ./crew/prompt -run Golden -update
func TestGoldenPrompts(t *testing.T) {
	schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"city": {"type": "string", "description": "City name, e.g. Zürich"}, "units": {"type": "string", "enum": ["metric", "imperial"]}}, "required": ["city"]}`)
	outSchema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"summary": {"type": "string"}, "score": {"type": "number"}}, "required": ["summary"]}`)
	tools := ToolText{
		Description: DescribeTool("weather_get_forecast", schema, "Forecast <daily> & hourly.") + "\n" + DescribeTool("delegate_work_to_coworker", nil, "Delegate."),
		Names:       "weather_get_forecast, delegate_work_to_coworker",
	}
	p := Persona{Role: "Senior Weather Analyst", Goal: "Give accurate forecasts for {city}", Backstory: "You have read forecasts for 20 years.", UseSystemPrompt: true}
	task := TaskSpec{Description: "Forecast the weekend in Zürich.", ExpectedOutput: "Two sentences."}
	cases := []struct {
		name string
		mode Mode
		p    Persona
		task TaskSpec
		ctx  string
	}{
		{"native", ModeNative, p, task, ""},
		{"react", ModeReAct, p, task, ""},
		{"no_tools_with_context", ModeNoTools, p, task, JoinContext([]string{"Saturday: sun.", "Sunday: rain."})},
		{"output_json_markdown", ModeNative, p, TaskSpec{Description: task.Description, ExpectedOutput: task.ExpectedOutput, Markdown: true, OutputSchema: outSchema}, ""},
		{"single_message_react", ModeReAct, Persona{Role: p.Role, Goal: p.Goal, Backstory: p.Backstory}, task, "Earlier: it rained."},
	}
	for _, c := range cases {
		m := Build(c.mode, c.p, TaskPrompt(c.task, c.ctx), tools)
		var b strings.Builder
		if m.System != "" {
			b.WriteString("=== system ===\n" + m.System + "\n=== end ===\n")
		}
		b.WriteString("=== user ===\n" + m.User + "\n=== end ===\n")
		path := filepath.Join("testdata", c.name+".golden")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if b.String() != string(want) {
			t.Errorf("%s differs from %s:\n%s", c.name, path, b.String())
		}
	}
}
