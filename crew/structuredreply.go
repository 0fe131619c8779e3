package crew

import (
	"errors"

	"crewbench/crew/llm"
	"crewbench/crew/toolschema"
)

// structuredReplyError is the Pydantic ValidationError the OpenAI SDK
// raises from beta.chat.completions.parse when a reply to a response
// model does not validate: the LLM call fails with it (CrewAI's provider
// reports the failure twice), so the executor raises it and a task re-runs
// under max_retry_limit, a guardrail check fails with it.
type structuredReplyError struct{ err *toolschema.ValidationError }

func (e *structuredReplyError) Error() string { return e.err.Error() }

// parseStructuredReply validates a reply to a request with a
// response_format as the native OpenAI provider does; other providers, an
// empty reply (the SDK parses nothing then) and a reply with tool calls
// are left as they are.
func (ar *agentRun) parseStructuredReply(req llm.Request, resp llm.Response) error {
	if req.ResponseFormat == nil || ar.responseModel == nil || resp.Content == "" || len(resp.ToolCalls) > 0 || !llm.ParsesStructuredReplies(ar.agent.LLM) {
		return nil
	}
	if _, verr := ar.responseModel.ValidateJSON(resp.Content); verr != nil {
		return &structuredReplyError{err: verr}
	}
	return nil
}

// isStructuredReplyError reports whether err is a structuredReplyError.
func isStructuredReplyError(err error) bool {
	var se *structuredReplyError
	return errors.As(err, &se)
}
