package prompt

import (
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
}

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

// Build returns the opening messages for a task prompt, with CrewAI's
// substitution order: {role}, {goal}, {backstory} first into the slice
// templates, then {input}, {tool_names}, {tools} into each message (so a
// literal "{tools}" in a task description is replaced too, but a "{role}"
// is not), and every message right-stripped.
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
		s = strings.ReplaceAll(s, "{role}", p.Role)
		s = strings.ReplaceAll(s, "{goal}", p.Goal)
		return strings.ReplaceAll(s, "{backstory}", p.Backstory)
	}
	inputs := func(s string) string {
		s = strings.ReplaceAll(s, "{input}", taskPrompt)
		s = strings.ReplaceAll(s, "{tool_names}", tools.Names)
		return strings.ReplaceAll(s, "{tools}", tools.Description)
	}
	if !p.UseSystemPrompt {
		return Messages{User: rstrip(inputs(persona(system + user)))}
	}
	return Messages{System: rstrip(inputs(persona(system))), User: rstrip(inputs(persona(user)))}
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

// rstrip is Python's str.rstrip(): trailing whitespace of any kind.
func rstrip(s string) string {
	return strings.TrimRightFunc(s, isPySpace)
}

// isPySpace is Python's str.isspace for one character.
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

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
