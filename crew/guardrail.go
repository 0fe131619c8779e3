package crew

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/session"
)

// String task guardrails, as CrewAI 1.15.17 runs them: after the task has
// an answer, each guardrail (guardrails: in order, else guardrail:) is
// checked by LLMGuardrail (tasks/llm_guardrail.py), a throwaway "Guardrail
// Agent" kicked off with the check as its message and LLMGuardrailResult
// as its response_format, on the task agent's own LLM. A failed check
// re-runs the task with the validation_error text as its only context,
// up to guardrail_max_retries times (task.py:1321-1431).

// guardrailResultSchema is LLMGuardrailResult.model_json_schema() as
// Pydantic 2 writes it (tasks/llm_guardrail.py:39-46): keys sorted, field
// keys in declaration order, feedback's default None kept.
const guardrailResultSchema = `{"properties": {"valid": {"description": "Whether the task output complies with the guardrail", "title": "Valid", "type": "boolean"}, "feedback": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "A feedback about the task output if it is not valid", "title": "Feedback"}}, "required": ["valid"], "title": "LLMGuardrailResult", "type": "object"}`

// guardrailModel is LLMGuardrailResult: the schema checks the reply, and
// the OpenAI SDK's strict form of it is the response_format
// beta.chat.completions.parse sends (llms/providers/openai/completion.py:
// 1892-1899).
var guardrailModel = newBuiltinModel("LLMGuardrailResult", guardrailResultSchema)

// builtinModel is a Pydantic class CrewAI defines itself and passes as a
// response model: the prompt's schema (generate_model_description), the
// wire response_format (the SDK's strict schema) and a model that
// validates replies.
type builtinModel struct {
	promptSchema *pyjson.Object
	format       *llm.ResponseFormat
	model        *toolschema.Model
}

func newBuiltinModel(name, schema string) *builtinModel {
	o, err := pyjson.LoadsObject(schema)
	if err != nil {
		panic("builtin model " + name + ": " + err.Error()) // a constant of this file: a test covers it
	}
	m := toolschema.FromJSONSchema(name, o, false)
	m.ExtraIgnored = true // a Pydantic class with the default config
	return &builtinModel{
		promptSchema: toolschema.StrictSchema(o, true),
		format: &llm.ResponseFormat{Name: name, Schema: json.RawMessage(pyjson.DumpsStyle(toolschema.SDKStrictSchema(o), pyjson.Wire)), Strict: true,
			ModelSchema: json.RawMessage(pyjson.DumpsStyle(o, pyjson.Wire))},
		model: m,
	}
}

// runGuardrails checks to against every guardrail of the task, re-running
// the task on a failed check. It returns the accepted output, or the
// output of the last attempt with CrewAI's error once the retries are
// spent.
func (rs *runState) runGuardrails(ctx context.Context, tr *taskRun, agent *Agent, to *TaskOutput, tools []Tool, base session.Event) (*TaskOutput, error) {
	t := tr.task
	for i, g := range t.Guardrails {
		name := "guardrail"
		if t.GuardrailsListed {
			name = "guardrail " + strconv.Itoa(i)
		}
		retry := 0
		for attempt := 0; ; attempt++ {
			ok, feedback, err := rs.checkGuardrail(ctx, tr, agent, g, to.Raw, retry, base)
			if err != nil {
				return to, err
			}
			if ok {
				// A passed check re-exports the raw answer it returns
				// (task.py:1359-1365).
				if err := rs.exportOutput(ctx, tr, agent, to, base); err != nil {
					return to, err
				}
				break
			}
			if attempt >= t.GuardrailMaxRetries {
				return to, prompt.TextError(prompt.GuardrailGaveUp(name, t.GuardrailMaxRetries, feedback))
			}
			retry++
			retryContext := prompt.Fill(prompt.GuardrailValidationError, "{guardrail_result_error}", feedback, "{task_output}", to.Raw)
			answer, ar, err := rs.executeTask(ctx, agent, tr, retryContext, tools, tr.span)
			if err != nil {
				return to, err
			}
			failures := append(append([]ToolFailureRecord(nil), to.ToolFailures...), ar.failureRecords()...)
			to = &TaskOutput{
				Description: tr.text.description, Name: tr.name, ExpectedOutput: tr.text.expectedOutput,
				Summary: summary(tr.text.description), Raw: answer, Agent: to.Agent, OutputFormat: outputFormat(t),
				Messages: ar.messages, ToolFailures: failures,
			}
			// The re-run's answer is converted at once (task.py:1411-1423),
			// and again once a check passes.
			if err := rs.taskModelOutput(ctx, tr, agent, to, ar, true, base); err != nil {
				return to, err
			}
		}
	}
	return to, nil
}

// checkGuardrail is process_guardrail with an LLMGuardrail
// (utilities/guardrail.py): llm_guardrail_started, the guardrail agent's
// kickoff, llm_guardrail_completed. It reports whether the output passed
// and, when not, the error text (the feedback, "None" without one, or
// "Error while validating the task output: …" when the check failed).
func (rs *runState) checkGuardrail(ctx context.Context, tr *taskRun, agent *Agent, guardrail, raw string, retry int, base session.Event) (bool, string, error) {
	desc := strings.TrimSpace(guardrail)
	span := rs.em.NewSpan()
	ev := base
	ev.Kind, ev.Span, ev.Parent = session.LLMGuardrailStarted, span, tr.span
	ev.Data = map[string]any{"guardrail": desc, "guardrail_type": "llm", "guardrail_name": desc, "retry_count": retry}
	rs.emit(ev)
	start := rs.em.Now()

	// LLMGuardrail took the LLM of the task's own agent when the task was
	// built (task.py:391-407); in a hierarchical crew the manager runs the
	// task but the check still uses that agent's LLM.
	owner := agent
	if tr.task.Agent != nil {
		owner = tr.task.Agent
	}
	ga := NewAgent("guardrail", prompt.GuardrailAgentRole, prompt.GuardrailAgentGoal, prompt.GuardrailAgentBackstory, owner.LLM)
	ga.Model = owner.Model
	query := prompt.Fill(prompt.GuardrailQuery, "{task_output}", raw, "{guardrail}", guardrail)
	out, err := rs.kickoffAgent(ctx, ga, query, guardrailModel, span)
	if err != nil && (ctx.Err() != nil || errors.Is(err, ErrAborted)) {
		return false, "", err
	}
	ok, feedback := false, ""
	var errValue any
	switch {
	case err != nil:
		feedback = prompt.GuardrailCheckFailed + err.Error()
		errValue = feedback
	default:
		ok, feedback, errValue = guardrailVerdict(out)
	}
	var result any
	if ok {
		result = raw
	}
	ev = base
	ev.Kind, ev.Span, ev.Parent, ev.Duration = session.LLMGuardrailCompleted, span, tr.span, rs.em.Now().Sub(start)
	ev.Outcome = "ok"
	if !ok {
		ev.Outcome = "failed"
	}
	ev.Data = map[string]any{"success": ok, "result": result, "error": errValue, "retry_count": retry, "guardrail_type": "llm", "guardrail_name": desc}
	rs.emit(ev)
	return ok, feedback, nil
}

// guardrailVerdict reads the guardrail agent's reply as LLMGuardrailResult:
// valid, or the feedback (Python's None when absent). With the native
// OpenAI provider a reply that is not the model has failed the kickoff
// with Pydantic's error already (parseStructuredReply); from other
// providers it fails the check with LLMGuardrail's not-a-model text.
func guardrailVerdict(out string) (bool, string, any) {
	d, err := pyjson.LoadsObject(strings.TrimSpace(out))
	if err != nil {
		msg := prompt.GuardrailCheckFailed + prompt.GuardrailNotModel
		return false, msg, msg
	}
	v, verr := guardrailModel.model.Validate(d)
	if verr != nil {
		msg := prompt.GuardrailCheckFailed + verr.Error()
		return false, msg, msg
	}
	if valid, _ := v.Get("valid"); valid == true {
		return true, "", nil
	}
	if fb, _ := v.Get("feedback"); fb != nil {
		s, _ := fb.(string)
		return false, s, s
	}
	return false, "None", nil
}

// kickoffAgent is Agent.kickoff(query, response_format=rf) for an agent
// without tools, as CrewAI's crew-internal helpers call it
// (agent/core.py:1592-1670): the no-tools prompt with the query as its
// input, the executor loop, and the lite-agent events around it. It
// returns the final answer.
func (rs *runState) kickoffAgent(ctx context.Context, a *Agent, query string, rf *builtinModel, parent string) (string, error) {
	p := persona{a.Role, a.Goal, a.Backstory}
	ar := &agentRun{
		rs: rs, agent: a, p: p, tr: &taskRun{}, span: rs.em.NewSpan(),
		base:  session.Event{RunID: rs.runID, AgentRole: p.role, AgentID: agentID(a)},
		usage: map[Tool]int{},
	}
	ar.prepareTools()
	ar.responseFormat, ar.responseModel = rf.format, rf.model
	ar.stops = stopWords(a)
	msgs := prompt.Build(ar.mode, prompt.Persona{Role: p.role, Goal: p.goal, Backstory: p.backstory, UseSystemPrompt: a.UseSystemPrompt}, query, ar.toolText)
	ar.appendPrompt(msgs)
	info := map[string]any{"id": agentID(a), "role": p.role, "goal": p.goal, "backstory": p.backstory, "tools": []any{}, "verbose": false}

	ev := ar.base
	ev.Kind, ev.Span, ev.Parent = session.LiteAgentExecutionStarted, ar.span, parent
	ev.Data = map[string]any{"agent_info": info, "tools": []any{}, "messages": query, "model": modelName(a)}
	rs.emit(ev)
	ar.flowEvent(session.FlowStarted, nil)
	start := rs.em.Now()
	out, err := ar.loop(ctx)
	ev = ar.base
	ev.Span, ev.Parent, ev.Duration = ar.span, parent, rs.em.Now().Sub(start)
	if err != nil {
		ar.flowEvent(session.FlowFailed, map[string]any{"error": err.Error()})
		ev.Kind, ev.Outcome, ev.Error = session.LiteAgentExecutionError, "failed", err.Error()
		ev.Data = map[string]any{"agent_info": info, "error": err.Error()}
		rs.emit(ev)
		return "", err
	}
	ar.agentLogs(KindAgentLogsExecution, map[string]any{"agent_role": p.role, "formatted_answer": out, "verbose": false})
	ar.flowEvent(session.FlowFinished, map[string]any{"result": out})
	ev.Kind, ev.Outcome = session.LiteAgentExecutionCompleted, "ok"
	ev.Data = map[string]any{"agent_info": info, "output": out}
	rs.emit(ev)
	return out, nil
}
