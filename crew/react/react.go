// Package react is CrewAI's ReAct text protocol: parsing an LLM reply into a
// tool action or a final answer (agents/parser.py), parsing the action's
// input into arguments (ToolUsage._validate_tool_input) and choosing the
// tool the model meant (ToolUsage._select_tool, difflib ratio > 0.85).
package react

import (
	"regexp"
	"sort"
	"strings"

	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/pyread"
	"crewbench/names"
	"crewbench/names/difflib"
)

// FinalAnswerMarker introduces the final answer.
const FinalAnswerMarker = "Final Answer:"

// Python's \s for str patterns (Unicode whitespace) and \d (Unicode digits).
const (
	pyS = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`
	pyD = `\p{Nd}`
)

var (
	actionInputRE = regexp.MustCompile(`(?s)Action` + pyS + `*` + pyD + `*` + pyS + `*:` + pyS + `*(.*?)` + pyS + `*Action` + pyS + `*` + pyD + `*` + pyS + `*Input` + pyS + `*` + pyD + `*` + pyS + `*:` + pyS + `*(.*)`)
	actionRE      = regexp.MustCompile(`(?s)Action` + pyS + `*` + pyD + `*` + pyS + `*:` + pyS + `*(.*?)`)
	inputOnlyRE   = regexp.MustCompile(`(?s)` + pyS + `*Action` + pyS + `*` + pyD + `*` + pyS + `*Input` + pyS + `*` + pyD + `*` + pyS + `*:` + pyS + `*(.*)`)
)

// Action is AgentAction: the model asked for a tool.
type Action struct {
	Thought string
	// Tool is the requested name, stripped of whitespace and '*'.
	Tool string
	// Input is the action input after CrewAI's stripping and JSON repair.
	Input string
	// Text is the whole reply.
	Text string
}

// Finish is AgentFinish: the model gave its final answer.
type Finish struct {
	Thought string
	Output  string
	Text    string
}

// ParseError is OutputParserError with CrewAI's message.
type ParseError struct{ Text string }

func (e *ParseError) Error() string { return e.Text }

// Parse is agents/parser.py parse(): "Final Answer:" anywhere wins (the text
// after the last one, stripped, an unmatched trailing ``` removed);
// otherwise Action/Action Input; otherwise a *ParseError.
func Parse(text string) (*Action, *Finish, error) {
	thought := extractThought(text)
	if strings.Contains(text, FinalAnswerMarker) {
		parts := strings.Split(text, FinalAnswerMarker)
		out := pyStrip(parts[len(parts)-1])
		if strings.HasSuffix(out, "```") && strings.Count(out, "```")%2 != 0 {
			out = strings.TrimRightFunc(out[:len(out)-3], isPySpace)
		}
		return nil, &Finish{Thought: thought, Output: out, Text: text}, nil
	}
	if m := actionInputRE.FindStringSubmatch(text); m != nil {
		tool := pyStrip(strings.Trim(pyStrip(m[1]), "*"))
		input := strings.Trim(strings.Trim(pyStrip(m[2]), " "), `"`)
		return &Action{Thought: thought, Tool: tool, Input: SafeRepairJSON(input), Text: text}, nil, nil
	}
	if !actionRE.MatchString(text) {
		return nil, nil, &ParseError{Text: prompt.MissingActionAfterThought}
	}
	if !inputOnlyRE.MatchString(text) {
		return nil, nil, &ParseError{Text: prompt.MissingActionInputAfterAction}
	}
	// CrewAI sends its format_without_tools slice here; crewbench names
	// the problem instead (the text never reaches the model in 1.15).
	return nil, nil, &ParseError{Text: "the reply has neither an Action with an Action Input nor a Final Answer"}
}

// FailedParseThought is the thought CrewAI gives a reply it could not parse.
const FailedParseThought = "Failed to parse LLM response"

// FormatAnswer is CrewAI's format_answer: Parse, but a parse failure becomes
// a final answer holding the whole reply. (That is why an unparseable
// ReAct reply ends the task with that reply as its output.) The parse error,
// if any, is returned for the trace.
func FormatAnswer(text string) (*Action, *Finish, error) {
	a, f, err := Parse(text)
	if err != nil {
		return nil, &Finish{Thought: FailedParseThought, Output: text, Text: text}, err
	}
	return a, f, nil
}

func extractThought(text string) string {
	i := strings.Index(text, "\nAction")
	if i < 0 {
		i = strings.Index(text, "\nFinal Answer")
	}
	if i < 0 {
		return ""
	}
	return pyStrip(strings.ReplaceAll(pyStrip(text[:i]), "```", ""))
}

// SafeRepairJSON is the parser's _safe_repair_json: input wrapped in [ ] is
// kept; otherwise """ becomes " and the text is json-repaired, keeping the
// original when repair yields nothing useful.
func SafeRepairJSON(input string) string {
	if strings.HasPrefix(input, "[") && strings.HasSuffix(input, "]") {
		return input
	}
	input = strings.ReplaceAll(input, `"""`, `"`)
	out, ok := pyjson.Repair(input)
	if !ok {
		return input
	}
	return out
}

// ErrInvalidInput is the failure text of ParseToolInput.
var ErrInvalidInput error = prompt.TextError(prompt.ToolArgumentsInvalid)

// ParseToolInput is ToolUsage._validate_tool_input: a dict from JSON, then
// a Python literal, then JSON5, then repaired JSON. Anything that is not a
// dict fails with ErrInvalidInput.
func ParseToolInput(input string) (*pyjson.Object, error) {
	if strings.TrimFunc(input, isPySpace) == "" {
		return nil, ErrInvalidInput
	}
	if v, err := pyjson.Loads(input); err == nil {
		if o, ok := v.(*pyjson.Object); ok {
			return o, nil
		}
	}
	if v, err := pyread.LiteralEval(input); err == nil {
		if o, ok := v.(*pyjson.Object); ok {
			return o, nil
		}
	}
	if v, err := pyjson.JSON5(input); err == nil {
		if o, ok := v.(*pyjson.Object); ok {
			return o, nil
		}
	}
	if repaired, ok := pyjson.Repair(input); ok {
		if v, err := pyjson.Loads(repaired); err == nil {
			if o, ok := v.(*pyjson.Object); ok {
				return o, nil
			}
		}
	}
	return nil, ErrInvalidInput
}

// SelectionThreshold: a tool is chosen when its ratio is strictly above it.
const SelectionThreshold = 0.85

// SelectTool is ToolUsage._select_tool over the tools' LLM names, in list
// order. It returns the index of the chosen tool. Tools are ranked by
// difflib ratio against the sanitized request (a stable sort, best first),
// and the first whose name equals the request or whose ratio is > 0.85 wins.
// toolsDescription fills CrewAI's error texts.
func SelectTool(requested string, toolNames []string, toolsDescription string) (int, error) {
	if requested == "" {
		return -1, prompt.TextError(prompt.Fill(prompt.ToolNameMissing, "{tools_description}", toolsDescription))
	}
	want := names.Sanitize(requested)
	type ranked struct {
		idx   int
		ratio float64
	}
	order := make([]ranked, len(toolNames))
	for i, n := range toolNames {
		order[i] = ranked{i, difflib.Ratio(names.Sanitize(n), want)}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].ratio > order[j].ratio })
	for _, r := range order {
		if names.Sanitize(toolNames[r.idx]) == want || r.ratio > SelectionThreshold {
			return r.idx, nil
		}
	}
	return -1, prompt.TextError(prompt.Fill(prompt.ToolNotExist, "{tool_name}", requested, "{tools_description}", toolsDescription))
}

// pyStrip is Python's str.strip().
func pyStrip(s string) string { return pyjson.Strip(s) }

func isPySpace(r rune) bool { return pyjson.IsSpace(r) }
