package prompt

import (
	"fmt"
	"regexp"
	"strings"

	"crewbench/crew/pyjson"
)

// placeholder is interpolate_only's pattern. Hyphens are allowed; JSON-like
// braces ({"a": 1}) do not match; there is no {{ escape ({{x}} → {value}).
var placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_\-]*)}`)

// HasPlaceholder reports whether text has a {name} placeholder (an
// output_file that has one keeps its leading "/").
func HasPlaceholder(text string) bool { return placeholder.MatchString(text) }

// MissingVariableError is the KeyError interpolate_only raises.
type MissingVariableError struct{ Name string }

func (e *MissingVariableError) Error() string {
	return fmt.Sprintf("Template variable '%s' not found in inputs dictionary", e.Name)
}

// Interpolate replaces {name} placeholders with str(inputs[name]). Empty
// inputs mean no interpolation at all (placeholders stay literal); a missing
// name with non-empty inputs is a *MissingVariableError. Values are
// rendered with Python's str() (True, None, {'a': 1}).
//
// Like interpolate_only (utilities/string_utils.py:136-156) it finds the
// placeholders of the original text, then replaces them one name after the
// other over the whole text, so a value that itself holds "{other}" is
// filled in when "other" comes later in the text (and left alone when it
// came earlier).
func Interpolate(text string, inputs map[string]any) (string, error) {
	if len(inputs) == 0 || text == "" {
		return text, nil
	}
	found := placeholder.FindAllStringSubmatch(text, -1)
	for _, m := range found {
		if _, ok := inputs[m[1]]; !ok {
			return "", &MissingVariableError{Name: m[1]}
		}
	}
	out := text
	for _, m := range found {
		out = strings.ReplaceAll(out, m[0], pyjson.Str(inputs[m[1]]))
	}
	return out, nil
}

// Field names the interpolated attribute, which decides CrewAI's error text.
type Field string

// Interpolated fields.
const (
	FieldDescription    Field = "description"
	FieldExpectedOutput Field = "expected_output"
	FieldOutputFile     Field = "output_file"
	FieldRole           Field = "role"
	FieldGoal           Field = "goal"
	FieldBackstory      Field = "backstory"
)

// InterpolateField is Interpolate with CrewAI's per-field error wrapping
// (crewai-formats.md §1.8):
//   - description: Missing required template variable '<KeyError text>' in description
//   - expected_output / output_file path: Error interpolating …: "<KeyError text>"
//   - agent fields: the bare KeyError, which Python prints quoted.
func InterpolateField(f Field, text string, inputs map[string]any) (string, error) {
	out, err := Interpolate(text, inputs)
	if err == nil {
		return out, nil
	}
	switch f {
	case FieldDescription:
		return "", TextError(fmt.Sprintf("Missing required template variable '%s' in description", err.Error()))
	case FieldExpectedOutput:
		return "", TextError(fmt.Sprintf("Error interpolating expected_output: \"%s\"", err.Error()))
	case FieldOutputFile:
		return "", TextError(fmt.Sprintf("Error interpolating output_file path: \"%s\"", err.Error()))
	}
	return "", TextError(fmt.Sprintf("\"%s\"", err.Error()))
}

// TextError is an error whose message is one of CrewAI's exact texts (which
// start with capitals and end with punctuation, unlike Go error strings).
type TextError string

func (e TextError) Error() string { return string(e) }
