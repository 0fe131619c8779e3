package crew

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"crewbench/crew/project"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// The exact messages CrewAI 1.15.17 sends for an agent with inject_date
// and with custom templates, assembled by hand from its code:
// Prompts.task_execution / _build_prompt / _build_date_block
// (utilities/prompts.py:93-163, 211-257), _setup_messages and
// _format_prompt (experimental/agent_executor.py:310-335, 3200-3211),
// format_message_for_llm's rstrip (utilities/agent_utils.py:436-450), and
// the stop words (agent/core.py:1103-1109).

// promptTaskText is Task.prompt() for the tasks below: description, "\n",
// the expected_output slice (task.py, translations/en.json:21).
const promptTaskText = "Say hi.\n\nThis is the expected criteria for your final answer: A greeting.\nyou MUST return the actual complete content as the final answer, not a summary."

const reactTaskSlice = "\nCurrent Task: " + promptTaskText + "\n\nBegin! This is VERY important to you, use the tools available and give your best Final Answer, your job depends on it!\n\nThought:"

// messageTexts renders the messages of each LLM call as "role: content".
func messageTexts(r result) [][]string {
	var out [][]string
	for _, msgs := range r.requests() {
		var call []string
		for _, m := range msgs {
			content, _ := m["content"].(string)
			call = append(call, fmt.Sprint(m["role"])+": "+content)
		}
		out = append(out, call)
	}
	return out
}

func greetingCrew(a *Agent) *Crew {
	return &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "greet", Description: "Say hi.", ExpectedOutput: "A greeting.", Agent: a}}}
}

func pingTool() Tool {
	return NewFuncTool("ping", "Pings.", nil, func(context.Context, *pyjson.Object) ToolResult { return ToolResult{Text: "pong"} })
}

func TestInjectDateRequests(t *testing.T) {
	at := time.Date(2026, 3, 7, 9, 5, 3, 0, time.Local)
	const role = "You are Analyst. Careful.\nYour personal goal is: Find facts"
	const noTools = "\nCurrent Task: " + promptTaskText + "\n\nProvide your complete response:"
	cases := []struct {
		name      string
		format    string
		sysPrompt bool
		want      []string
		warning   string
	}{
		// prompts.py:105-109, 125-127: the block ends the system message only.
		{"default format, system prompt", "%Y-%m-%d", true,
			[]string{"system: " + role + "\n\nCurrent Date: 2026-03-07", "user: " + noTools}, ""},
		{"strftime format", "%A, %d %B %Y %H:%M", true,
			[]string{"system: " + role + "\n\nCurrent Date: Saturday, 07 March 2026 09:05", "user: " + noTools}, ""},
		// prompts.py:132-141: one message, the block after the task slice.
		{"single message", "%d.%m.%Y", false,
			[]string{"user: " + role + noTools + "\n\nCurrent Date: 07.03.2026"}, ""},
		// prompts.py:154-161: no valid code, a warning and no block.
		{"invalid format", "today", true,
			[]string{"system: " + role, "user: " + noTools}, "Failed to inject date: Invalid date format: today"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, "replies:\n  - \"Final Answer: hi\"\n"))
			a.InjectDate, a.DateFormat, a.UseSystemPrompt = true, c.format, c.sysPrompt
			r := kickoff(t, greetingCrew(a), nil, Options{Now: func() time.Time { return at }})
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := messageTexts(r)
			if len(got) != 1 || strings.Join(got[0], "\x00") != strings.Join(c.want, "\x00") {
				t.Errorf("messages:\n got %q\nwant %q", got, c.want)
			}
			var warnings []string
			for _, ev := range r.events {
				if ev.Kind == session.Warning {
					warnings = append(warnings, ev.Str(session.KeyMessage))
				}
			}
			if c.warning != "" && (len(warnings) != 1 || warnings[0] != c.warning) || c.warning == "" && len(warnings) != 0 {
				t.Errorf("warnings %q, want %q", warnings, c.warning)
			}
		})
	}
}

func TestTemplateRequests(t *testing.T) {
	llama := prompt.Templates{
		System:   "<|start_header_id|>system<|end_header_id|>\n\n{{ .System }}<|eot_id|>",
		Prompt:   "<|start_header_id|>user<|end_header_id|>\n\n{{ .Prompt }}<|eot_id|>",
		Response: "<|start_header_id|>assistant<|end_header_id|>\n\n{{ .Response }}<|eot_id|>",
	}
	const role = "You are Analyst. Careful.\nYour personal goal is: Find facts"
	const sysHead, userHead = "<|start_header_id|>system<|end_header_id|>\n\n", "<|start_header_id|>user<|end_header_id|>\n\n"
	const respHead = "<|start_header_id|>assistant<|end_header_id|>" // rstripped: its "\n\n" is the message's end
	cases := []struct {
		name      string
		native    bool
		tools     bool
		tmpl      prompt.Templates
		want      []string
		stops     []string // stop_sequences of the call (the same in native mode: agent/core.py:1105-1109)
		reply     string
		wantFinal string
	}{
		// prompts.py:236-249: {{ .System }} holds every slice but "task",
		// so with no tools the task_no_tools slice is in it; {{ .Prompt }}
		// is the ReAct task slice; the response template's head ends it.
		{"no tools, all three templates", true, false, llama,
			[]string{"user: " + sysHead + role + "\nCurrent Task: " + promptTaskText + "\n\nProvide your complete response:<|eot_id|>\n" + userHead + reactTaskSlice + "<|eot_id|>\n" + respHead},
			[]string{"\nObservation:", "<|eot_id|>"}, "Final Answer: hi<|eot_id|>ignored", "hi"},
		// In native mode the native_task slice goes into {{ .System }}.
		{"native, all three templates", true, true, llama,
			[]string{"user: " + sysHead + role + "\nCurrent Task: " + promptTaskText + "<|eot_id|>\n" + userHead + reactTaskSlice + "<|eot_id|>\n" + respHead},
			[]string{"\nObservation:", "<|eot_id|>"}, "hi<|eot_id|>ignored", "hi"},
		// prompts.py:230-234: one template alone joins the plain slices into
		// one user message, use_system_prompt notwithstanding.
		{"prompt_template alone", true, false, prompt.Templates{Prompt: llama.Prompt},
			[]string{"user: " + role + "\nCurrent Task: " + promptTaskText + "\n\nProvide your complete response:"},
			[]string{"\nObservation:"}, "Final Answer: hi", "hi"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := fmt.Sprintf("function_calling: %v\nreplies:\n  - %q\n", c.native, c.reply)
			a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, script))
			a.Templates = c.tmpl
			if c.tools {
				a.Tools = []Tool{pingTool()}
			}
			r := kickoff(t, greetingCrew(a), nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := messageTexts(r)
			if len(got) != 1 || strings.Join(got[0], "\x00") != strings.Join(c.want, "\x00") {
				t.Errorf("messages:\n got %q\nwant %q", got, c.want)
			}
			for _, ev := range r.events {
				if ev.Kind == session.LLMCallStarted {
					stops, _ := ev.Data["stop_sequences"].([]string)
					if strings.Join(stops, "|") != strings.Join(c.stops, "|") {
						t.Errorf("stop_sequences %q, want %q", stops, c.stops)
					}
				}
			}
			if r.out.Raw != c.wantFinal {
				t.Errorf("final answer %q, want %q", r.out.Raw, c.wantFinal)
			}
		})
	}
}

// A response_template without "{{ .Response }}" makes CrewAI's
// split(...)[1] raise when the crew builds its agents' executors, before
// any task (agent/core.py:1106-1109, crews/utils.py:94).
func TestTemplateResponseWithoutPlaceholderFailsTheKickoff(t *testing.T) {
	a := NewAgent("writer", "Analyst", "Find facts", "Careful.", scripted(t, "replies:\n  - \"Final Answer: hi\"\n"))
	a.Templates = prompt.Templates{System: "S {{ .System }}", Prompt: "P {{ .Prompt }}", Response: "R"}
	r := kickoff(t, greetingCrew(a), nil, Options{})
	if r.err == nil || !strings.Contains(r.err.Error(), `agent "writer": response_template has no "{{ .Response }}"`) {
		t.Fatalf("err = %v", r.err)
	}
	if len(r.requests()) != 0 {
		t.Error("no LLM call may be made")
	}
}

// ReAct: the response template's stop word cuts the reply client-side as
// "\nObservation:" does (llms/base_llm.py:455-495), whichever comes first.
func TestTemplateStopWordCutsReActReplies(t *testing.T) {
	a := NewAgent("a", "Analyst", "Find facts", "Careful.", scripted(t, "function_calling: false\nreplies:\n  - \"Thought: t\\nAction: ping\\nAction Input: {}</s>\\nObservation: made up\"\n  - \"Final Answer: done\"\n"))
	a.Templates = prompt.Templates{System: "{{ .System }}", Prompt: "{{ .Prompt }}", Response: "{{ .Response }}</s>"}
	a.Tools = []Tool{pingTool()}
	r := kickoff(t, greetingCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := messageTexts(r)
	if len(got) != 2 || got[1][1] != "assistant: Thought: t\nAction: ping\nAction Input: {}\nObservation: pong" {
		t.Errorf("second call %q", got)
	}
}

// The project's fields reach the engine, and none of them is a "not
// reproduced" note any more.
func TestFromProjectCarriesDateTemplatesAndHumanInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) { fixturetest.WriteFiles(t, dir, map[string]string{name: content}) }
	write("crew.jsonc", `{"agents": ["a"], "tasks": [{"name": "t", "description": "d", "expected_output": "e", "agent": "a", "human_input": true}]}`)
	write("agents/a.jsonc", `{"role": "R", "goal": "G", "backstory": "B", "settings": {
		"inject_date": true, "date_format": "%d %B %Y", "use_system_prompt": false,
		"system_template": "S {{ .System }}", "prompt_template": "P {{ .Prompt }}", "response_template": "A {{ .Response }} E"}}`)
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	c, notes, err := FromProject(p, ProjectOptions{LLM: "scripted:inline.yaml", Script: []byte("replies: [done]\n")})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agents[0]
	want := prompt.Templates{System: "S {{ .System }}", Prompt: "P {{ .Prompt }}", Response: "A {{ .Response }} E"}
	if !a.InjectDate || a.DateFormat != "%d %B %Y" || a.UseSystemPrompt || a.Templates != want || !c.Tasks[0].HumanInput {
		t.Errorf("agent %+v, task human_input %v", a, c.Tasks[0].HumanInput)
	}
	for _, n := range notes {
		if s := string(n); strings.Contains(s, "inject_date") || strings.Contains(s, "template") || strings.Contains(s, "human_input") {
			t.Errorf("note %q", s)
		}
	}
}
