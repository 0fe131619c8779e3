package names

import (
	"fmt"
	"regexp"
	"unicode"
	"unicode/utf8"
)

// Provider is a native CrewAI LLM provider that validates function names
// (safe_tool_conversion in llms/providers/utils/common.py, §2.6). The value
// is the exact string CrewAI puts in its messages.
type Provider string

// The providers whose native function calling validates names. LiteLLM and
// the ReAct text path only sanitize.
const (
	OpenAI    Provider = "OpenAI"
	Anthropic Provider = "Anthropic"
	Azure     Provider = "Azure"
	Bedrock   Provider = "Bedrock"
	Gemini    Provider = "Gemini"
)

// providerNamePattern is CrewAI's final check, re.match(r"^[a-z_][a-z0-9_]*$")
// — where Python's $ also accepts one trailing "\n".
var providerNamePattern = regexp.MustCompile(`^[a-z_][a-z0-9_]*\n?$`)

// CheckProviderName is what a native provider does with a tool's name
// before sending it: sanitize it again, then validate (ValidateFunctionName).
// The error, if any, carries CrewAI's exact ValueError message.
func CheckProviderName(p Provider, name string) error {
	return ValidateFunctionName(p, Sanitize(name))
}

// ValidateFunctionName is CrewAI's validate_function_name on an
// already-sanitized name, with its four messages in its order: empty, first
// character, length (in code points), character set. After Sanitize only
// the first two can fail; the others guard names that skipped sanitizing.
func ValidateFunctionName(p Provider, name string) error {
	if name == "" {
		return fmt.Errorf("%s function name cannot be empty", p)
	}
	// Python's str.isalpha() is Unicode-aware; "_" is allowed too.
	first, _ := utf8.DecodeRuneInString(name)
	if !unicode.IsLetter(first) && first != '_' {
		return fmt.Errorf("%s function name '%s' must start with a letter or underscore", p, name)
	}
	if utf8.RuneCountInString(name) > MaxLength {
		return fmt.Errorf("%s function name '%s' exceeds 64 character limit", p, name)
	}
	if !providerNamePattern.MatchString(name) {
		return fmt.Errorf("%s function name '%s' contains invalid characters. "+
			"Only lowercase letters, numbers, and underscores allowed", p, name)
	}
	return nil
}
