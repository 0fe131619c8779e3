package prompt

import (
	"strings"
	"testing"
)

// Prompts.task_execution and _build_prompt (utilities/prompts.py:93-141,
// 211-257) with custom templates and the date block, in every mode. The
// expected texts are assembled here by hand from those lines: in template
// mode "{{ .System }}" gets every slice but "task" (so the native and
// no-tools task slices land in it), "{{ .Prompt }}" always gets the ReAct
// "task" slice, and the response template contributes its text before
// "{{ .Response }}"; with one template alone, CrewAI joins the plain
// slices into one user message and ignores use_system_prompt.
func TestBuildTemplatesAndDate(t *testing.T) {
	tools := ToolText{Description: "Tool Name: ping\nTool Arguments: {}\nTool Description: Pings.", Names: "ping"}
	tmpl := Templates{System: "<|system|>{{ .System }}<|end|>", Prompt: "<|user|>{{ .Prompt }}<|end|>", Response: "<|assistant|>{{ .Response }}<|end|>"}
	const role = "You are Analyst. Careful.\nYour personal goal is: Find {topic}"
	const tp = "Do it."
	reactTask := "\nCurrent Task: Do it.\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer, your job depends on it!\n\nThought:"
	toolsBlock := strings.NewReplacer("{tools}", tools.Description, "{tool_names}", tools.Names).Replace(Tools)
	date := "\n\nCurrent Date: 2026-03-07"
	cases := []struct {
		name         string
		mode         Mode
		tmpl         Templates
		sysPrompt    bool
		date         string
		system, user string
	}{
		{"react, all three templates", ModeReAct, tmpl, true, "", "",
			"<|system|>" + role + toolsBlock + "<|end|>\n<|user|>" + reactTask + "<|end|>\n<|assistant|>"},
		{"native: the native task slice goes into {{ .System }}", ModeNative, tmpl, true, "", "",
			"<|system|>" + role + "\nCurrent Task: Do it.<|end|>\n<|user|>" + reactTask + "<|end|>\n<|assistant|>"},
		{"no tools: the no-tools task slice goes into {{ .System }}", ModeNoTools, tmpl, true, date, "",
			"<|system|>" + role + "\nCurrent Task: Do it.\n\nProvide your complete response:<|end|>\n<|user|>" + reactTask + "<|end|>\n<|assistant|>" + date},
		{"no response template", ModeNative, Templates{System: tmpl.System, Prompt: tmpl.Prompt}, true, "", "",
			"<|system|>" + role + "\nCurrent Task: Do it.<|end|>\n<|user|>" + reactTask + "<|end|>"},
		{"a response template without the placeholder is used whole", ModeNative, Templates{System: "S:{{ .System }}", Prompt: "P:{{ .Prompt }}", Response: "  R  "}, true, "", "",
			"S:" + role + "\nCurrent Task: Do it.\nP:" + reactTask + "\n  R"},
		{"prompt_template alone: plain slices, one message", ModeNative, Templates{Prompt: tmpl.Prompt}, true, date, "",
			role + "\nCurrent Task: Do it." + date},
		{"system_template alone: plain slices, one message", ModeNoTools, Templates{System: tmpl.System, Response: tmpl.Response}, true, "", "",
			role + "\nCurrent Task: Do it.\n\nProvide your complete response:"},
		{"system prompt: the date ends the system message", ModeNative, Templates{}, true, date, role + date, "\nCurrent Task: Do it."},
		{"single message: the date ends it", ModeReAct, Templates{}, false, date, "", role + toolsBlock + reactTask + date},
	}
	for _, c := range cases {
		p := Persona{Role: "Analyst", Goal: "Find {topic}", Backstory: "Careful.", UseSystemPrompt: c.sysPrompt, Templates: c.tmpl, DateBlock: c.date}
		m := Build(c.mode, p, tp, tools)
		if m.System != c.system || m.User != c.user {
			t.Errorf("%s:\n system %q\n   want %q\n user %q\n want %q", c.name, m.System, c.system, m.User, c.user)
		}
	}
}

// _build_prompt replaces {goal}, then {role}, then {backstory}
// (utilities/prompts.py:253-257): a role that mentions "{backstory}" is
// expanded, one that mentions "{goal}" is not.
func TestBuildPersonaOrder(t *testing.T) {
	p := Persona{Role: "R {goal} {backstory}", Goal: "G", Backstory: "B", UseSystemPrompt: true}
	if got := Build(ModeNative, p, "x", ToolText{}).System; got != "You are R {goal} B. B\nYour personal goal is: G" {
		t.Errorf("system %q", got)
	}
}

// The stop words (agent/core.py:1103-1109): the observation slice, plus the
// response template's text after "{{ .Response }}", stripped.
func TestStopWords(t *testing.T) {
	cases := []struct {
		tmpl string
		want []string
		err  bool
	}{
		{"", []string{"\nObservation:"}, false},
		{"<|assistant|>{{ .Response }}<|end|>\n", []string{"\nObservation:", "<|end|>"}, false},
		{"{{ .Response }} </s> {{ .Response }} tail", []string{"\nObservation:", "</s>"}, false},
		{"{{ .Response }}", []string{"\nObservation:", ""}, false},
		{"no placeholder", nil, true},
	}
	for _, c := range cases {
		got, err := StopWords(c.tmpl)
		if (err != nil) != c.err || strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("StopWords(%q) = %q, %v; want %q (error %v)", c.tmpl, got, err, c.want, c.err)
		}
	}
}
