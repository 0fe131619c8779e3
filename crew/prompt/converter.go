package prompt

import (
	"strconv"
	"strings"
)

// Texts of the output converter (CrewAI 1.15.17 utilities/converter.py)
// and of the instructor library it calls for output_json (instructor
// 1.15.1, the version CrewAI's uv.lock pins), verbatim.
const (
	// ConverterNoAgent is the TypeError convert_with_instructions raises
	// without an agent (converter.py:360-361). Converter's own partial-JSON
	// fallback calls it with agent=None (converter.py:63-68), so a reply
	// that is not the model ends its attempt with this text.
	ConverterNoAgent = "Agent must be provided if converter_cls is not specified."
	// ConverterPydanticValidation and ConverterPydanticError prefix the
	// ConverterError to_pydantic raises once its attempts are spent: after
	// a Pydantic ValidationError, or any other error (converter.py:105-116).
	ConverterPydanticValidation = "Failed to convert text into a Pydantic model due to validation error: "
	ConverterPydanticError      = "Failed to convert text into a Pydantic model due to error: "

	// instructorReask is the tool message TOOLS mode appends after a reply
	// that does not validate (instructor/providers/openai/utils.py
	// reask_tools).
	instructorReask = "Validation Error found:\n{exception}\nRecall the function correctly, fix the errors"
	// instructorNoToolReask is the user message ANTHROPIC_TOOLS mode
	// appends after a reply without a tool_use block
	// (instructor/providers/anthropic/utils.py reask_anthropic_tools).
	instructorNoToolReask = "Validation Error due to no tool invocation:\n{exception}\nRecall the function correctly, fix the errors"
)

// InstructorDescription is the function description generate_openai_schema
// gives a model without a docstring (instructor/processing/schema.py).
func InstructorDescription(model string) string {
	return "Correctly extracted `" + model + "` with all the required parameters with correct types"
}

// FailedAttempt is one of instructor's FailedAttempt records as its
// exception text shows it: the attempt number, str(exception) and
// str(completion) ("None" without one).
type FailedAttempt struct {
	Number     int
	Exception  string
	Completion string
}

// InstructorReask is the content of the reask tool message: the
// exception as InstructorError.from_exception renders it with the failed
// attempts so far (instructor/core/exceptions.py InstructorError.__str__,
// a Jinja template with the default trim settings: every tag line leaves
// its newline), last being str() of the exception that failed now.
func InstructorReask(attempts []FailedAttempt, last string) string {
	return fill(instructorReask, "{exception}", instructorException(attempts, last))
}

// InstructorNoToolReask is InstructorReask's text for an Anthropic reply
// that called no tool.
func InstructorNoToolReask(attempts []FailedAttempt, last string) string {
	return fill(instructorNoToolReask, "{exception}", instructorException(attempts, last))
}

func instructorException(attempts []FailedAttempt, last string) string {
	if len(attempts) == 0 {
		return last
	}
	var b strings.Builder
	b.WriteString("<failed_attempts>\n")
	for _, a := range attempts {
		b.WriteString("\n<generation number=\"" + strconv.Itoa(a.Number) + "\">\n<exception>\n    ")
		b.WriteString(a.Exception)
		b.WriteString("\n</exception>\n<completion>\n    ")
		b.WriteString(a.Completion)
		b.WriteString("\n</completion>\n</generation>\n")
	}
	b.WriteString("\n</failed_attempts>\n\n<last_exception>\n    ")
	b.WriteString(last)
	b.WriteString("\n</last_exception>")
	return b.String()
}
