package crew

import (
	"context"
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
// response_format as the native OpenAI provider does; other providers and
// a reply with tool calls are left as they are. An empty reply parses to
// nothing, and the provider then asks again with the same messages and no
// response_format (completion.py:1923-1927), whose reply is taken as
// text: that second request, on the same LLM, has its reply returned; the
// first one's tokens are counted when the target's are.
func (ar *agentRun) parseStructuredReply(ctx context.Context, target llmTarget, req llm.Request, resp llm.Response, model *toolschema.Model) (llm.Response, error) {
	if req.ResponseFormat == nil || model == nil || len(resp.ToolCalls) > 0 || !llm.ParsesStructuredReplies(target.prov) {
		return resp, nil
	}
	if resp.Content == "" {
		if !target.separate {
			ar.rs.mu.Lock()
			ar.rs.usage.add(resp.Usage)
			ar.rs.mu.Unlock()
		}
		again := req
		again.ResponseFormat, again.Stream = nil, false
		return target.prov.Call(ctx, again, nil)
	}
	if _, verr := model.ValidateJSON(resp.Content); verr != nil {
		return llm.Response{}, &structuredReplyError{err: verr}
	}
	return resp, nil
}

// isStructuredReplyError reports whether err is a structuredReplyError.
func isStructuredReplyError(err error) bool {
	var se *structuredReplyError
	return errors.As(err, &se)
}
