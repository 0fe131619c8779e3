package prompt

import (
	"errors"
	"strings"

	"crewbench/crew/pyjson"
)

// Mode is how an agent executes a task, which decides the slices used.
type Mode string

// Modes (crewai-formats.md §4.2 table).
const (
	// ModeNoTools: no tools at all; task_no_tools.
	ModeNoTools Mode = "no_tools"
	// ModeNative: tools sent as function schemas; native_task.
	ModeNative Mode = "native"
	// ModeReAct: the tools block in the system prompt; task; stop word.
	ModeReAct Mode = "react"
)

// StopWord is the ReAct stop sequence.
const StopWord = "\nObservation:"

// Persona is the (already interpolated) agent text the prompt uses.
type Persona struct {
	Role, Goal, Backstory string
	// UseSystemPrompt sends a separate system message (the default). False
	// puts everything in one user message.
	UseSystemPrompt bool
	// Templates are the agent's system_template, prompt_template and
	// response_template; any of them turns the prompt into one user message.
	Templates Templates
	// DateBlock is the inject_date block (DateBlock), empty without
	// inject_date. It ends the system message, or the single message.
	DateBlock string
}

// Templates are an agent's custom prompt templates, with the placeholders
// "{{ .System }}", "{{ .Prompt }}" and "{{ .Response }}".
type Templates struct {
	System, Prompt, Response string
}

// The templates' placeholders (utilities/prompts.py:241-248).
const (
	systemPlaceholder   = "{{ .System }}"
	promptPlaceholder   = "{{ .Prompt }}"
	responsePlaceholder = "{{ .Response }}"
)

// ToolText is what {tools} and {tool_names} expand to.
type ToolText struct {
	// Description is the composite blocks joined with "\n".
	Description string
	// Names is the sanitized names joined with ", ".
	Names string
}

// Messages are the opening messages of an agent execution. When System is
// empty, only the User message is sent (use_system_prompt false).
type Messages struct {
	System string
	User   string
}

// Build returns the opening messages for a task prompt, as
// Prompts.task_execution and AgentExecutor._setup_messages build them
// (utilities/prompts.py:93-141, 211-257; experimental/agent_executor.py:
// 310-335): {goal}, {role}, {backstory} replaced first, in that order, into
// the slice templates; then the date block appended; then {input},
// {tool_names}, {tools} replaced into each message (so a literal "{tools}"
// in a task description is replaced too, but a "{role}" is not); every
// message right-stripped (format_message_for_llm).
//
// With both system_template and prompt_template set, the one user message
// is the system template with "{{ .System }}" replaced by every slice but
// "task" (so in native and no-tools mode the task slice is in it too), a
// newline, the prompt template with "{{ .Prompt }}" replaced by the ReAct
// task slice whatever the mode, and, with a response_template, a newline
// and its text before "{{ .Response }}". With only one of the two
// templates, or use_system_prompt false, the slices are joined into one
// user message; otherwise the system message holds all but the task slice.
func Build(mode Mode, p Persona, taskPrompt string, tools ToolText) Messages {
	system := RolePlaying
	var user string
	switch mode {
	case ModeNative:
		user = NativeTask
	case ModeReAct:
		system += Tools
		user = Task
	default:
		user = TaskNoTools
	}
	persona := func(s string) string {
		s = strings.ReplaceAll(s, "{goal}", p.Goal)
		s = strings.ReplaceAll(s, "{role}", p.Role)
		return strings.ReplaceAll(s, "{backstory}", p.Backstory)
	}
	inputs := func(s string) string {
		s = strings.ReplaceAll(s, "{input}", taskPrompt)
		s = strings.ReplaceAll(s, "{tool_names}", tools.Names)
		return strings.ReplaceAll(s, "{tools}", tools.Description)
	}
	t := p.Templates
	switch {
	case t.System != "" && t.Prompt != "":
		parts := system
		if mode != ModeReAct {
			parts += user
		}
		whole := strings.ReplaceAll(t.System, systemPlaceholder, parts) + "\n" + strings.ReplaceAll(t.Prompt, promptPlaceholder, Task)
		if t.Response != "" {
			before, _, _ := strings.Cut(t.Response, responsePlaceholder)
			whole += "\n" + before
		}
		return Messages{User: rstrip(inputs(persona(whole) + p.DateBlock))}
	case t.System != "" || t.Prompt != "" || !p.UseSystemPrompt:
		return Messages{User: rstrip(inputs(persona(system+user) + p.DateBlock))}
	}
	return Messages{System: rstrip(inputs(persona(system) + p.DateBlock)), User: rstrip(inputs(persona(user)))}
}

// StopWords are an executor's stop words: the observation slice, and with
// a response_template its text after "{{ .Response }}", stripped
// (agent/core.py:1103-1109). CrewAI takes split("{{ .Response }}")[1], so a
// response_template without the placeholder fails the kickoff with
// Python's IndexError.
func StopWords(responseTemplate string) ([]string, error) {
	if responseTemplate == "" {
		return []string{StopWord}, nil
	}
	parts := strings.Split(responseTemplate, responsePlaceholder)
	if len(parts) < 2 {
		return nil, errors.New("response_template has no \"" + responsePlaceholder + "\" (CrewAI fails the kickoff: IndexError: list index out of range)")
	}
	return []string{StopWord, strings.TrimFunc(parts[1], isPySpace)}, nil
}

// ToolsReminder is the tools slice filled in, appended to every third
// observation.
func ToolsReminder(tools ToolText) string {
	return fill(Tools, "{tools}", tools.Description, "{tool_names}", tools.Names)
}

// FormatReminder is the format slice filled in ("Moving on then. …").
func FormatReminder(toolNames string) string {
	return fill(Format, "{tool_names}", toolNames)
}

// RStrip is Python's str.rstrip(): trailing whitespace of any kind.
func RStrip(s string) string { return rstrip(s) }

// Blank is Python's s.strip() == "": nothing but whitespace.
func Blank(s string) bool { return strings.TrimFunc(s, isPySpace) == "" }

// rstrip is Python's str.rstrip(): trailing whitespace of any kind.
func rstrip(s string) string {
	return strings.TrimRightFunc(s, isPySpace)
}

// isPySpace is Python's str.isspace for one character.
func isPySpace(r rune) bool { return pyjson.IsSpace(r) }

// fill is Python's str.format with named fields: all placeholders are
// replaced at once, so a value containing "{context}" is never expanded
// again. (Build, by contrast, uses CrewAI's sequential str.replace.)
func fill(s string, pairs ...string) string {
	return strings.NewReplacer(pairs...).Replace(s)
}

// Fill is fill for other packages: Fill(ToolUsageLimit, "{tool}", n, "{max}", "3").
func Fill(s string, pairs ...string) string { return fill(s, pairs...) }

// TaskSpec is the task text that goes into {input}.
type TaskSpec struct {
	Description    string
	ExpectedOutput string
	Markdown       bool
	// OutputSchema is the output_json / output_pydantic schema, nil if none.
	OutputSchema *pyjson.Object
}

// TaskPrompt is Task.prompt() plus the output-schema instructions and the
// context (task_with_context), in CrewAI's order. An empty context adds
// nothing.
func TaskPrompt(t TaskSpec, context string) string {
	parts := []string{t.Description, fill(ExpectedOutput, "{expected_output}", t.ExpectedOutput)}
	if t.Markdown {
		parts = append(parts, Markdown)
	}
	s := strings.Join(parts, "\n")
	if t.OutputSchema != nil {
		s += "\n" + fill(FormattedTaskInstructions, "{output_format}", pyjson.DumpsIndent(t.OutputSchema))
	}
	if context != "" {
		s = fill(TaskWithContext, "{task}", s, "{context}", context)
	}
	return s
}

// JoinContext joins raw task outputs with CrewAI's divider.
func JoinContext(raws []string) string { return strings.Join(raws, ContextDivider) }
