package crew

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/react"
	"crewbench/names"
)

// CrewAI 1.15.17's StepExecutor (agents/step_executor.py), which runs one
// todo of a ready plan in a conversation of its own: the isolated system
// and user messages, then up to max_step_iterations LLM calls, each tool
// call run and its result fed back, until a text answer. With native
// function calling the agent's tools are offered as the agent loop offers
// them and each call goes through execute_single_native_tool_call
// (agent_utils.py:1602-1880, nativeCall with the step); in text mode the
// system message lists the tool names with the ReAct format, and an
// Action runs through execute_tool_and_check_finality (reactTool) inside
// the StepExecutor's own tool_usage_started/finished pair.

// defaultStepIterations is PlanningConfig.max_step_iterations' default
// (agent/planning_config.py:127-134).
const defaultStepIterations = 15

// stepRun is one StepExecutor.execute: the step's messages and the tools
// it called (tool_calls_made).
type stepRun struct {
	ar     *agentRun
	t      *todo
	msgs   []llm.Message
	called []string
	start  time.Time
}

// stepNative is StepExecutor._use_native_tools: check_native_tool_support
// when the executor is made, off for the rest of the plan once a provider
// refused native tools (step_executor.py:179-189).
func (ar *agentRun) stepNative() bool {
	return ar.mode == prompt.ModeNative && !ar.stepFellBack.Load()
}

// executeStep is StepExecutor.execute (step_executor.py:127-242): the RPM
// limit, the isolated messages, the native or text loop (text after a
// provider refuses native tools, keeping the conversation so far), then
// the check that a suggested tool was called. It sets the todo's result
// and reports success; an exception inside the step (an LLM error, an
// empty reply, a tool call CrewAI's event refuses, the suggested tool not
// called) is a failed step with an empty result. err is what stops the
// run: a cancellation, an abort at a breakpoint, or a tool failure under
// the raise policy (ToolExecutionFailedError, which execute re-raises).
func (ar *agentRun) executeStep(ctx context.Context, t *todo, todos []*todo) (bool, error) {
	if err := ar.rs.rpmWait(ctx, ar.agent, ar.base, t.span); err != nil {
		return false, err
	}
	var deps []prompt.StepDependency
	for _, n := range t.dependsOn {
		if d := todoByStep(todos, n); d != nil && d.result != "" {
			deps = append(deps, prompt.StepDependency{Step: n, Result: d.result})
		}
	}
	slices.SortStableFunc(deps, func(a, b prompt.StepDependency) int { return a.Step - b.Step })
	deps = slices.CompactFunc(deps, func(a, b prompt.StepDependency) bool { return a.Step == b.Step })
	native := ar.stepNative()
	s := &stepRun{ar: ar, t: t, start: ar.rs.now(), msgs: []llm.Message{
		{Role: llm.RoleSystem, Content: prompt.RStrip(prompt.StepExecutorSystem(ar.p.role, ar.p.backstory, ar.p.goal, strings.Join(ar.reactNames, ", "), !native))},
		{Role: llm.RoleUser, Content: prompt.RStrip(prompt.StepExecutorUser(ar.tr.text.description, t.description, t.tool, deps))},
	}}
	var out string
	var err error
	if native {
		out, err = s.native(ctx)
		if err != nil && !stepFatal(ctx, err) && llm.IsToolsUnsupported(err) {
			ar.stepFellBack.Store(true)
			ar.rs.warn(t.span, ar.base, "plan step "+fmt.Sprint(t.number)+": the provider does not support native tool calling; the StepExecutor goes on with CrewAI's text tool calling")
			s.msgs = append(s.msgs, llm.Message{Role: llm.RoleUser, Content: prompt.RStrip(prompt.NativeFallback + prompt.ToolsReminder(ar.toolText))})
			out, err = s.text(ctx)
		}
	} else {
		out, err = s.text(ctx)
	}
	if err == nil {
		err = s.expectedToolCalled()
	}
	if err != nil {
		if stepFatal(ctx, err) {
			return false, err
		}
		t.result = ""
		return false, nil
	}
	t.result = out
	return true, nil
}

// stepFatal reports whether an error inside a step ends the run instead
// of failing the step.
func stepFatal(ctx context.Context, err error) bool {
	var tf *ToolExecutionFailedError
	return ctx.Err() != nil || errors.Is(err, ErrAborted) || errors.As(err, &tf)
}

func (ar *agentRun) stepIterations() int {
	if n := ar.agent.Planning.MaxStepIterations; n > 0 {
		return n
	}
	return defaultStepIterations
}

// timedOut is the step_timeout check before each iteration, on the run's
// wall clock (Options.Now): past it, the step ends with partial when there
// is one (has), else "Step timed out after Ns".
func (s *stepRun) timedOut(partial string, has bool) (string, bool) {
	limit := s.ar.agent.Planning.StepTimeout
	if limit <= 0 {
		return "", false
	}
	elapsed := s.ar.rs.now().Sub(s.start)
	if elapsed < limit {
		return "", false
	}
	if has {
		return partial, true
	}
	return fmt.Sprintf("Step timed out after %.0fs", elapsed.Seconds()), true
}

// native is _execute_native (step_executor.py:524-577): the agent's tools
// offered on every call; a reply with tool calls runs them and loops, a
// text reply is the result. Out of iterations, the batches' results
// joined are.
func (s *stepRun) native(ctx context.Context) (string, error) {
	var results []string
	for range s.ar.stepIterations() {
		if out, over := s.timedOut(strings.Join(results, "\n\n"), len(results) > 0); over {
			return out, nil
		}
		resp, err := s.ar.callLLMOn(ctx, s.t.span, s.ar.agentTarget(), s.msgs[:len(s.msgs):len(s.msgs)], s.ar.native, false)
		if err != nil {
			return "", err
		}
		if len(resp.ToolCalls) == 0 {
			if resp.Content == "" {
				return "", prompt.TextError(prompt.EmptyResponse)
			}
			return resp.Content, nil
		}
		out, err := s.nativeCalls(ctx, resp)
		if err != nil {
			return "", err
		}
		results = append(results, out)
	}
	return strings.Join(slices.DeleteFunc(results, func(r string) bool { return r == "" }), "\n"), nil
}

// nativeCalls is _execute_native_tool_calls (step_executor.py:579-651):
// the assistant message with the calls under their sanitized names, then
// each call in turn with its tool message. A result_as_answer result ends
// the batch as its result, without its tool message (the step goes on);
// otherwise the non-empty results joined are the batch's result.
func (s *stepRun) nativeCalls(ctx context.Context, resp llm.Response) (string, error) {
	calls := make([]llm.ToolCall, len(resp.ToolCalls))
	echo := make([]llm.ToolCall, len(resp.ToolCalls))
	for i, c := range resp.ToolCalls {
		if c.ID == "" {
			c.ID = "call_" + s.ar.rs.em.NewSpan()
		}
		calls[i] = c
		c.Name = names.Sanitize(c.Name)
		echo[i] = c
	}
	s.msgs = append(s.msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content, ToolCalls: echo})
	var results []string
	for _, c := range calls {
		r := s.ar.nativeCall(ctx, s.t.span, c, s.t)
		if r.err != nil {
			return "", r.err
		}
		name := names.Sanitize(c.Name)
		s.called = append(s.called, name)
		if r.asAnswer {
			return r.content, nil
		}
		s.warnVision(r.content)
		s.msgs = append(s.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: name, Content: r.content})
		if r.content != "" {
			results = append(results, r.content)
		}
	}
	return strings.Join(results, "\n"), nil
}

// text is _execute_text_parsed (step_executor.py:328-378): no tools
// offered; a Final Answer (or unparseable text, which format_answer makes
// one) is the result; an Action runs the tool, and the reply and
// "Observation: …" are appended as they are. Out of iterations, the last
// tool result is the result.
func (s *stepRun) text(ctx context.Context) (string, error) {
	last := ""
	for range s.ar.stepIterations() {
		if out, over := s.timedOut(last, last != ""); over {
			return out, nil
		}
		resp, err := s.ar.callLLMOn(ctx, s.t.span, s.ar.agentTarget(), s.msgs[:len(s.msgs):len(s.msgs)], nil, false)
		if err != nil {
			return "", err
		}
		if resp.Content == "" {
			return "", prompt.TextError(prompt.EmptyResponse)
		}
		action, finish, _ := react.FormatAnswer(resp.Content)
		if action == nil {
			if finish != nil {
				return finish.Output, nil
			}
			return resp.Content, nil
		}
		s.called = append(s.called, action.Tool)
		obs, err := s.textTool(ctx, action)
		if err != nil {
			return "", err
		}
		last = obs
		s.msgs = append(s.msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content},
			llm.Message{Role: llm.RoleUser, Content: prompt.StepObservationMessage(obs)})
	}
	return last, nil
}

// textTool is _execute_text_tool_with_events (step_executor.py:380-470):
// the StepExecutor's tool_usage_started (the name as written, the input
// as _parse_tool_args reads it, the plan step), ToolUsage's own events
// inside it, then tool_usage_finished with the result, or
// tool_usage_error and the exception.
func (s *stepRun) textTool(ctx context.Context, act *react.Action) (string, error) {
	ar := s.ar
	outer := ar.newCall(s.t.span, nil, act.Tool, act.Tool, stepToolArgs(act.Input), 0)
	outer.plan = s.t
	ar.started(outer)
	obs, _, err := ar.reactTool(ctx, outer.span, act)
	if err != nil {
		ar.errored(outer, err.Error())
		return "", err
	}
	ar.finished(outer, obs, false, nil, nil)
	s.warnVision(obs)
	return obs, nil
}

// warnVision names a tool result the StepExecutor would send as an image
// ("VISION_IMAGE:<media type>:<base64>", _parse_vision_sentinel,
// step_executor.py:472-489): CrewAI turns it into an image_url content
// block (and "[image]" among a batch's results), crewbench sends the text.
func (s *stepRun) warnVision(result string) {
	if rest, ok := strings.CutPrefix(result, "VISION_IMAGE:"); ok && strings.Index(rest, ":") > 0 {
		s.ar.rs.warn(s.t.span, s.ar.base, "plan step "+fmt.Sprint(s.t.number)+": the tool result is a VISION_IMAGE, which CrewAI's StepExecutor sends as an image content block; crewbench does not reproduce that and sends the text")
	}
}

// stepToolArgs is StepExecutor._parse_tool_args for a text Action Input:
// blank is {}, a JSON object is itself, other JSON or text is
// {"input": …}.
func stepToolArgs(input string) *pyjson.Object {
	stripped := pyjson.Strip(input)
	if stripped == "" {
		return pyjson.NewObject()
	}
	wrap := func(v any) *pyjson.Object {
		o := pyjson.NewObject()
		o.Set("input", v)
		return o
	}
	v, err := pyjson.Loads(stripped)
	if err != nil {
		return wrap(stripped)
	}
	if o, ok := v.(*pyjson.Object); ok {
		return o
	}
	return wrap(v)
}

// expectedToolCalled is _validate_expected_tool_usage
// (step_executor.py:491-522): a suggested tool the step has (by sanitized
// name) must have been called.
func (s *stepRun) expectedToolCalled() error {
	if s.t.tool == "" {
		return nil
	}
	want := names.Sanitize(s.t.tool)
	has := slices.ContainsFunc(s.ar.reactNames, func(n string) bool { return names.Sanitize(n) == want })
	if s.ar.stepNative() {
		has = has || slices.ContainsFunc(s.ar.native, func(t llm.Tool) bool { return t.Name == want })
	}
	if !has || slices.ContainsFunc(s.called, func(n string) bool { return names.Sanitize(n) == want }) {
		return nil
	}
	return prompt.TextError(prompt.StepNotCalled(want, s.t.number))
}
