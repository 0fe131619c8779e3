package crew

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// Options configure one kickoff.
type Options struct {
	// Emitter receives every event; nil drops them.
	Emitter *session.Emitter
	// Stepper is consulted before every LLM and tool call; nil never pauses.
	Stepper Stepper
	// RunID names the run in events; empty means a fresh id.
	RunID string
	// OutputDir is where task output_file paths are written (CrewAI uses the
	// process cwd). Empty means output files are not written.
	OutputDir string
	// MCP resolves agents' mcps entries to tools, per task. Nil fails any
	// agent that has mcps.
	MCP MCPResolver
	// Stream asks providers for streamed replies (llm_stream_chunk events).
	Stream bool
	// Now is the clock for RPM limiting and for inject_date's "Current
	// Date" (read as local time, like datetime.now()); nil means time.Now.
	Now func() time.Time
}

// MCPResolver turns one mcps entry into tools for one task, emitting its own
// connection and discovery events under rc.Span. A native config that cannot
// be discovered returns an error (the task fails); an https ref that fails
// returns no tools and no error, after a warning event.
type MCPResolver interface {
	Resolve(ctx context.Context, agent *Agent, ref MCPRef, rc RunContext) ([]Tool, error)
}

// ToolExecutionFailedError is raised by the "raise" policy. The executor
// does not turn it into an observation and the agent does not retry.
type ToolExecutionFailedError struct {
	ToolName string
	Task     string
	Message  string
}

// failedOutcome is the outcome of a task or crew that ended with an error:
// "cancelled" when the caller's context ended (Ctrl+C, SIGTERM, a serve
// client going away), whatever error the interrupted step then reported,
// else "failed".
func failedOutcome(ctx context.Context) string {
	if ctx.Err() != nil {
		return session.OutcomeCancelled
	}
	return "failed"
}

func (e *ToolExecutionFailedError) Error() string {
	if e.Task == "" {
		return fmt.Sprintf("Tool '%s' failed: %s", e.ToolName, e.Message)
	}
	return fmt.Sprintf("Tool '%s' failed during '%s': %s", e.ToolName, e.Task, e.Message)
}

// taskTimeoutError is CrewAI's TimeoutError for max_execution_time.
type taskTimeoutError struct{ msg string }

func (e *taskTimeoutError) Error() string { return e.msg }

// runState is one kickoff.
type runState struct {
	opts    Options
	em      *session.Emitter
	crew    *Crew
	runID   string
	span    string
	stepper Stepper
	names   *SeenNames // the tool and server names seen, when breakpoints name some
	now     func() time.Time

	personas map[*Agent]persona
	texts    map[*Task]taskText

	cache *toolCache

	mu      sync.Mutex
	usage   UsageMetrics
	crewRPM *rpmLimiter
	rpm     map[*Agent]*rpmLimiter
}

type persona struct{ role, goal, backstory string }

type taskText struct {
	description, expectedOutput, outputFile string
	// trigger is what Task.prompt appends to the description: the kickoff
	// input crewai_trigger_payload, or "".
	trigger string
}

// Kickoff runs the crew with inputs layered over the crew's default inputs,
// the way Crew.kickoff does (crewai-formats.md §4.1). The returned output
// may carry tool failures even when err is nil: check HasToolFailures.
func Kickoff(ctx context.Context, c *Crew, inputs map[string]any, opts Options) (*CrewOutput, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rs := &runState{
		opts: opts, em: opts.Emitter, crew: c, runID: opts.RunID, stepper: opts.Stepper, now: opts.Now,
		personas: map[*Agent]persona{}, texts: map[*Task]taskText{}, rpm: map[*Agent]*rpmLimiter{},
	}
	if rs.runID == "" {
		rs.runID = rs.em.NewSpan()
	}
	if rs.stepper == nil {
		rs.stepper = Headless{}
	}
	if rs.now == nil {
		rs.now = time.Now
	}
	if c.Cache {
		rs.cache = &toolCache{m: map[string]string{}}
	}
	if c.MaxRPM > 0 {
		rs.crewRPM = newRPMLimiter(c.MaxRPM, rs.now)
	}
	rs.span = rs.em.NewSpan()
	if bp, ok := rs.breakpoints(); ok {
		rs.names = SeenNamesFor(bp)
	}

	merged := map[string]any{}
	for k, v := range c.Inputs {
		merged[k] = v
	}
	for k, v := range inputs {
		merged[k] = v
	}
	// CrewAI opens every context with default_env, before the kickoff
	// (crewai-events-and-hooks.md §2.2).
	rs.emit(session.Event{Kind: session.DefaultEnv, Parent: rs.span})
	rs.emit(session.Event{Kind: session.CrewKickoffStarted, Span: rs.span, Data: map[string]any{
		"crew_name": c.Name, "inputs": merged, "process": string(processOf(c)),
	}})
	start := rs.em.Now()
	out, err := rs.kickoff(ctx, merged)
	rs.warnUnmatchedBreakpoints(err)
	if err != nil {
		rs.emit(session.Event{Kind: session.CrewKickoffFailed, Span: rs.span, Outcome: failedOutcome(ctx), Error: err.Error(),
			Duration: rs.em.Now().Sub(start), Data: map[string]any{"crew_name": c.Name, "error": err.Error()}})
		return out, err
	}
	var final *TaskOutput
	for _, t := range out.TasksOutput {
		if t.Raw != "" {
			final = t
		}
	}
	rs.emit(session.Event{Kind: session.CrewKickoffCompleted, Span: rs.span, Outcome: "ok", Duration: rs.em.Now().Sub(start), Data: map[string]any{
		"crew_name": c.Name, "output": taskOutputData(final), "total_tokens": out.TokenUsage.TotalTokens,
		"token_usage": out.TokenUsage, "tool_failures": len(out.ToolFailures()),
	}})
	return out, nil
}

func processOf(c *Crew) Process {
	if c.Process == "" {
		return Sequential
	}
	return c.Process
}

func (rs *runState) emit(ev session.Event) session.Event {
	if ev.RunID == "" {
		ev.RunID = rs.runID
	}
	rs.names.Event(ev)
	return rs.em.Emit(ev)
}

// breakpoints are the stepper's, when it has any (a ChanStepper's may
// change during the run).
func (rs *runState) breakpoints() (Breakpoints, bool) {
	s, ok := rs.stepper.(interface{ Breakpoints() Breakpoints })
	if !ok {
		return Breakpoints{}, false
	}
	return s.Breakpoints(), true
}

// warnUnmatchedBreakpoints says, as the run ends, which tool= and server=
// breakpoints named nothing the run had: they never paused, and a typo
// (get_forecast for getForecast) would otherwise go unnoticed. Not after an
// abort, which cut the run short.
func (rs *runState) warnUnmatchedBreakpoints(err error) {
	if errors.Is(err, ErrAborted) {
		return
	}
	bp, _ := rs.breakpoints()
	for _, u := range rs.names.Unmatched(bp) {
		ev := u.Event()
		ev.Parent = rs.span
		rs.emit(ev)
	}
}

func (rs *runState) warn(parent string, base session.Event, msg string) {
	ev := base
	ev.Kind = session.Warning
	ev.Span = ""
	ev.Parent = parent
	ev.Data = map[string]any{"message": msg}
	rs.emit(ev)
}

// kickoff interpolates, runs the tasks and builds the CrewOutput.
func (rs *runState) kickoff(ctx context.Context, inputs map[string]any) (*CrewOutput, error) {
	c := rs.crew
	if err := rs.interpolate(inputs); err != nil {
		return nil, err
	}
	if c.Planning {
		if err := rs.plan(ctx); err != nil {
			return &CrewOutput{TokenUsage: rs.usageSnapshot()}, err
		}
	}
	var manager *Agent
	if processOf(c) == Hierarchical {
		var err error
		if manager, err = rs.manager(); err != nil {
			return nil, err
		}
	}
	out := &CrewOutput{}
	outputs := map[*Task]*TaskOutput{}
	var all []*TaskOutput
	for _, t := range c.Tasks {
		skipped, err := rs.conditionalSkip(t, all, outputs)
		if err != nil {
			out.TokenUsage = rs.usageSnapshot()
			return out, err
		}
		if skipped != nil {
			// The skipped output is one of the outputs (the next task's
			// default context, the crew's tasks_output), but not the
			// task's own output: an explicit context naming it finds none
			// (Crew._execute_tasks, formatter.py).
			all = append(all, skipped)
			out.TasksOutput = append(out.TasksOutput, skipped)
			continue
		}
		prior := all
		if t.AsyncExecution {
			// An async task's default context is built from
			// [last_sync_output], and Crew._execute_tasks never sets
			// last_sync_output after a task runs: prepare_task_execution
			// (crews/utils.py:144-148) sets it only for tasks a replay
			// skips. So in CrewAI 1.15.17 an async task without an explicit
			// context gets none ("" from _get_context), whatever ran
			// before it. crewbench runs async tasks in list order; CrewAI
			// joins them before the next sync task, so the next sync task
			// sees the same outputs in the same order.
			prior = nil
		}
		to, err := rs.runTask(ctx, t, manager, prior, outputs)
		if to != nil {
			all = append(all, to)
			outputs[t] = to
			out.TasksOutput = append(out.TasksOutput, to)
		}
		if err != nil {
			out.TokenUsage = rs.usageSnapshot()
			return out, err
		}
	}
	out.TokenUsage = rs.usageSnapshot()
	var final *TaskOutput
	for _, t := range out.TasksOutput {
		if t.Raw != "" {
			final = t
		}
	}
	if final == nil {
		return out, prompt.TextError("No valid task outputs available to create crew output.")
	}
	out.Raw = final.Raw
	out.JSONDict = final.JSONDict
	out.Pydantic = final.Pydantic
	return out, nil
}

// triggerPayload is what Task.prompt appends for the kickoff input
// crewai_trigger_payload (task.py:977-984): when the task allows it, and
// Crew._set_allow_crewai_trigger_context_for_first_task lets the first task
// of a sequential crew allow it when it says nothing and the payload is
// truthy (crew.py:2438-2451). A null payload appends nothing.
func (rs *runState) triggerPayload(i int, t *Task, inputs map[string]any) string {
	payload, ok := inputs["crewai_trigger_payload"]
	if !ok || payload == nil {
		return ""
	}
	allow := t.AllowTriggerContext != nil && *t.AllowTriggerContext
	if t.AllowTriggerContext == nil && i == 0 && processOf(rs.crew) == Sequential {
		allow = pyjson.Truthy(payload)
	}
	if !allow {
		return ""
	}
	return "\n\nTrigger Payload: " + pyjson.Str(payload)
}

func (rs *runState) usageSnapshot() UsageMetrics {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.usage
}

// interpolate fills the per-kickoff texts of every agent and task. Empty
// inputs leave placeholders literal.
func (rs *runState) interpolate(inputs map[string]any) error {
	agents := append([]*Agent(nil), rs.crew.Agents...)
	for _, t := range rs.crew.Tasks {
		if t.Agent != nil {
			agents = append(agents, t.Agent)
		}
	}
	if rs.crew.ManagerAgent != nil {
		agents = append(agents, rs.crew.ManagerAgent)
	}
	for _, a := range agents {
		if _, done := rs.personas[a]; done {
			continue
		}
		var p persona
		var err error
		if p.role, err = prompt.InterpolateField(prompt.FieldRole, a.Role, inputs); err != nil {
			return err
		}
		if p.goal, err = prompt.InterpolateField(prompt.FieldGoal, a.Goal, inputs); err != nil {
			return err
		}
		if p.backstory, err = prompt.InterpolateField(prompt.FieldBackstory, a.Backstory, inputs); err != nil {
			return err
		}
		rs.personas[a] = p
	}
	for i, t := range rs.crew.Tasks {
		var tt taskText
		var err error
		tt.trigger = rs.triggerPayload(i, t, inputs)
		if tt.description, err = prompt.InterpolateField(prompt.FieldDescription, t.Description, inputs); err != nil {
			return err
		}
		if tt.expectedOutput, err = prompt.InterpolateField(prompt.FieldExpectedOutput, t.ExpectedOutput, inputs); err != nil {
			return err
		}
		if tt.outputFile, err = prompt.InterpolateField(prompt.FieldOutputFile, t.OutputFile, inputs); err != nil {
			return err
		}
		rs.texts[t] = tt
	}
	return nil
}

// personaOf returns the interpolated persona, or the authored one for
// agents kickoff never saw (a manager created later).
func (rs *runState) personaOf(a *Agent) persona {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if p, ok := rs.personas[a]; ok {
		return p
	}
	return persona{a.Role, a.Goal, a.Backstory}
}

// Manager persona (crewai-formats.md §4.5).
const (
	ManagerRole      = "Crew Manager"
	ManagerGoal      = "Manage the team to complete the task in the best way possible."
	ManagerBackstory = "You are a seasoned manager with a knack for getting the best out of your team.\nYou are also known for your ability to delegate work to the right people, and to ask the right questions to get the best out of your team.\nEven though you don't perform tasks by yourself, you have a lot of experience in the field, which allows you to properly evaluate the work of your team members."
)

func (rs *runState) manager() (*Agent, error) {
	c := rs.crew
	if c.ManagerAgent != nil {
		if len(c.ManagerAgent.Tools) > 0 {
			return nil, prompt.TextError("Manager agent should not have tools")
		}
		c.ManagerAgent.AllowDelegation = true
		return c.ManagerAgent, nil
	}
	m := NewAgent("manager", ManagerRole, ManagerGoal, ManagerBackstory, c.ManagerLLM)
	m.Model = c.ManagerModel
	m.AllowDelegation = true
	return m, nil
}

type taskRun struct {
	task *Task
	id   string
	name string // TaskOutput.name / event task_name
	text taskText
	span string
	// usedTools is CrewAI's task.used_tools (the every-third-use tools
	// reminder): per task, shared by every execution attempt of it.
	usedTools atomic.Int64
}

// runTask resolves the task's agent and tools, builds its context, runs it
// and turns the answer into a TaskOutput.
func (rs *runState) runTask(ctx context.Context, t *Task, manager *Agent, prior []*TaskOutput, outputs map[*Task]*TaskOutput) (*TaskOutput, error) {
	c := rs.crew
	tr := &taskRun{task: t, id: rs.em.NewSpan(), text: rs.texts[t], span: rs.em.NewSpan()}
	tr.name = t.Name
	if tr.name == "" {
		tr.name = tr.text.description
	}
	agent := t.Agent
	var tools []Tool
	var delegation []Tool
	if manager != nil {
		agent = manager
		// Task.check_tools copied the assigned agent's tools into task.tools,
		// so the manager is offered them too (crewai-formats.md §7.15).
		switch {
		case len(t.Tools) > 0:
			tools = t.Tools
		case t.Agent != nil && len(t.Agent.Tools) > 0:
			tools = t.Agent.Tools
		default:
			tools = manager.Tools
		}
		coworkers := c.Agents
		if t.Agent != nil {
			coworkers = []*Agent{t.Agent}
		}
		delegation = rs.delegationTools(coworkers)
	} else {
		tools = t.Tools
		if len(tools) == 0 {
			tools = agent.Tools
		}
		if agent.AllowDelegation && len(c.Agents) > 1 {
			var coworkers []*Agent
			for _, a := range c.Agents {
				if a != agent {
					coworkers = append(coworkers, a)
				}
			}
			delegation = rs.delegationTools(coworkers)
		}
	}
	p := rs.personaOf(agent)
	base := session.Event{RunID: rs.runID, TaskID: tr.id, TaskName: tr.name, AgentRole: p.role, AgentID: agentID(agent)}
	tools = mergeTools(tools, delegation)
	mcpTools, err := rs.resolveMCP(ctx, agent, base, rs.span)
	if err != nil {
		return nil, err
	}
	tools = mergeTools(tools, mcpTools)

	contextText := rs.contextFor(t, prior, outputs)
	ev := base
	ev.Kind, ev.Span, ev.Parent = session.TaskStarted, tr.span, rs.span
	ev.Data = map[string]any{"context": contextText, "task": taskData(tr), "agent": p.role}
	rs.emit(ev)
	start := rs.em.Now()

	answer, ar, err := rs.executeTask(ctx, agent, tr, contextText, tools, tr.span)
	var failures []ToolFailureRecord
	var messages []llm.Message
	if ar != nil {
		failures = ar.failureRecords()
		messages = ar.messages
	}
	if err != nil {
		ev := base
		ev.Kind, ev.Span, ev.Parent = session.TaskFailed, tr.span, rs.span
		ev.Outcome, ev.Error, ev.Duration = failedOutcome(ctx), err.Error(), rs.em.Now().Sub(start)
		ev.Data = map[string]any{"error": err.Error(), "task": taskData(tr), "tool_failures": failures}
		rs.emit(ev)
		// A failed task still reports the failures it recorded.
		return &TaskOutput{Description: tr.text.description, Name: tr.name, ExpectedOutput: tr.text.expectedOutput,
			Summary: summary(tr.text.description), Agent: p.role, OutputFormat: outputFormat(t), ToolFailures: failures}, err
	}
	to := &TaskOutput{
		Description: tr.text.description, Name: tr.name, ExpectedOutput: tr.text.expectedOutput,
		Summary: summary(tr.text.description), Raw: answer, Agent: p.role, OutputFormat: outputFormat(t),
		Messages: messages, ToolFailures: failures,
	}
	if err := rs.taskModelOutput(ctx, tr, agent, to, ar, len(t.Guardrails) == 0, base); err != nil {
		return rs.failTask(ctx, tr, to, err, base, start)
	}
	if len(t.Guardrails) > 0 {
		if to, err = rs.runGuardrails(ctx, tr, agent, to, tools, base); err != nil {
			return rs.failTask(ctx, tr, to, err, base, start)
		}
	}
	if err := rs.writeOutputFile(tr, to); err != nil {
		// CrewAI raises, so the task fails (task.py:502-545).
		ev := base
		ev.Kind, ev.Span, ev.Parent = session.TaskFailed, tr.span, rs.span
		ev.Outcome, ev.Error, ev.Duration = "failed", err.Error(), rs.em.Now().Sub(start)
		ev.Data = map[string]any{"error": err.Error(), "task": taskData(tr), "tool_failures": failures}
		rs.emit(ev)
		return to, err
	}
	ev = base
	ev.Kind, ev.Span, ev.Parent = session.TaskCompleted, tr.span, rs.span
	ev.Outcome, ev.Duration = "ok", rs.em.Now().Sub(start)
	ev.Data = map[string]any{"output": taskOutputData(to), "task": taskData(tr)}
	rs.emit(ev)
	return to, nil
}

// taskModelOutput gives a fresh task output its structured part
// (task.py:858-874): from the model an agent without tools got back for
// its response_model, else, when export is set (no guardrails: CrewAI
// converts after they pass), from the output converter.
func (rs *runState) taskModelOutput(ctx context.Context, tr *taskRun, agent *Agent, to *TaskOutput, ar *agentRun, export bool, base session.Event) error {
	m := tr.task.outputModel()
	if m == nil {
		return nil
	}
	if v, ok := directModel(ar, to.Raw, m); ok {
		// raw = result.model_dump_json().
		to.Raw = pyjson.DumpsStyle(v, pyjson.Wire)
		setModelOutput(to, tr.task, m, v)
		return nil
	}
	if !export {
		return nil
	}
	return rs.exportOutput(ctx, tr, agent, to, base)
}

// failTask ends a task that has an output with err (TaskFailedEvent, then
// the exception, task.py:953-956).
func (rs *runState) failTask(ctx context.Context, tr *taskRun, to *TaskOutput, err error, base session.Event, start time.Time) (*TaskOutput, error) {
	ev := base
	ev.Kind, ev.Span, ev.Parent = session.TaskFailed, tr.span, rs.span
	ev.Outcome, ev.Error, ev.Duration = failedOutcome(ctx), err.Error(), rs.em.Now().Sub(start)
	ev.Data = map[string]any{"error": err.Error(), "task": taskData(tr), "tool_failures": to.ToolFailures}
	rs.emit(ev)
	return to, err
}

func outputFormat(t *Task) string {
	switch {
	case t.OutputJSON != nil && t.OutputPydantic:
		return FormatPydantic
	case t.OutputJSON != nil:
		return FormatJSON
	}
	return FormatRaw
}

// writeOutputFile writes output_file like CrewAI (task.py:502-545,
// 1295-1297): json_dict as indented JSON with non-ASCII kept, else raw;
// parent directories created unless create_directory is false; a leading
// "/" stripped unless the authored path has a {var} (then the path is
// absolute). A failure is CrewAI's "Failed to save output file: …".
func (rs *runState) writeOutputFile(tr *taskRun, to *TaskOutput) error {
	name := tr.text.outputFile
	if name == "" || rs.opts.OutputDir == "" {
		return nil
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("output_file %q: Path traversal attempts are not allowed in output_file paths", name)
	}
	path := filepath.Join(rs.opts.OutputDir, filepath.FromSlash(strings.TrimPrefix(name, "/")))
	if strings.HasPrefix(name, "/") && tr.task != nil && prompt.HasPlaceholder(tr.task.OutputFile) {
		path = filepath.FromSlash(name)
	}
	// json_dict when it is a non-empty dict, else the model's
	// model_dump_json(), else raw (task.py:938-946).
	content := to.Raw
	switch {
	case to.JSONDict != nil && to.JSONDict.Len() > 0:
		content = pyjson.DumpsStyle(to.JSONDict, pyjson.Style{Indent: 2, KeepNonASCII: true})
	case to.model != nil:
		content = pyjson.DumpsStyle(to.model, pyjson.Wire)
	}
	if tr.task == nil || !tr.task.NoCreateDirectory {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return &prefixError{prefix: "Failed to save output file: ", err: err}
		}
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return &prefixError{prefix: "Failed to save output file: ", err: err}
	}
	return nil
}

// contextFor is Crew._get_context: absent = all outputs so far, [] = none,
// a list = those tasks' outputs; joined with the divider.
func (rs *runState) contextFor(t *Task, prior []*TaskOutput, outputs map[*Task]*TaskOutput) string {
	var raws []string
	switch t.ContextMode {
	case ContextNone:
		return ""
	case ContextList:
		for _, ct := range t.Context {
			if o, ok := outputs[ct]; ok {
				raws = append(raws, o.Raw)
			}
		}
	default:
		for _, o := range prior {
			raws = append(raws, o.Raw)
		}
	}
	return prompt.JoinContext(raws)
}

// resolveMCP resolves the agent's mcps for this task.
func (rs *runState) resolveMCP(ctx context.Context, a *Agent, base session.Event, parent string) ([]Tool, error) {
	if len(a.MCPs) == 0 {
		return nil, nil
	}
	if rs.opts.MCP == nil {
		return nil, fmt.Errorf("agent %q has mcps but the run has no MCP resolver", a.Role)
	}
	var out []Tool
	for _, ref := range a.MCPs {
		tools, err := rs.opts.MCP.Resolve(ctx, a, ref, RunContext{Emitter: rs.em, Span: parent, Base: base})
		if err != nil {
			return nil, err
		}
		out = mergeTools(out, tools)
	}
	return out, nil
}

// mergeTools is crew._merge_tools: each injected tool replaces an existing
// tool with the same sanitized name, and the injected tools go at the end.
func mergeTools(existing, injected []Tool) []Tool {
	if len(injected) == 0 {
		return existing
	}
	drop := map[string]bool{}
	for _, t := range injected {
		drop[t.Spec().llmName()] = true
	}
	out := make([]Tool, 0, len(existing)+len(injected))
	for _, t := range existing {
		if !drop[t.Spec().llmName()] {
			out = append(out, t)
		}
	}
	return append(out, injected...)
}

func taskData(tr *taskRun) map[string]any {
	return map[string]any{
		"id": tr.id, "name": tr.name, "description": tr.text.description,
		"expected_output": tr.text.expectedOutput,
	}
}

func taskOutputData(o *TaskOutput) map[string]any {
	if o == nil {
		return nil
	}
	d := map[string]any{
		"description": o.Description, "name": o.Name, "expected_output": o.ExpectedOutput,
		"summary": o.Summary, "raw": o.Raw, "agent": o.Agent, "output_format": o.OutputFormat,
		"tool_failures": o.ToolFailures,
	}
	if o.JSONDict != nil {
		d["json_dict"] = o.JSONDict
	}
	return d
}

// agentIDs gives each agent a stable id for one process lifetime.
var agentIDs sync.Map

func agentID(a *Agent) string {
	if v, ok := agentIDs.Load(a); ok {
		return v.(string)
	}
	v, _ := agentIDs.LoadOrStore(a, session.NewID())
	return v.(string)
}

// executeTask is Agent.execute_task with CrewAI's retry rule: any error
// other than a raised tool failure, a timeout or a cancellation re-runs the
// whole execution while the agent's lifetime counter stays within
// max_retry_limit.
func (rs *runState) executeTask(ctx context.Context, a *Agent, tr *taskRun, contextText string, tools []Tool, parent string) (string, *agentRun, error) {
	for {
		out, ar, err := rs.executeOnce(ctx, a, tr, contextText, tools, parent)
		if err == nil {
			rs.mu.Lock()
			if a.hasToolsAnswer {
				out = a.toolsAnswer
			}
			rs.mu.Unlock()
			return out, ar, nil
		}
		var tf *ToolExecutionFailedError
		var to *taskTimeoutError
		var ce *ContextExceededError
		if errors.As(err, &tf) || errors.As(err, &to) || errors.As(err, &ce) || errors.Is(err, ErrAborted) || ctx.Err() != nil {
			return "", ar, err
		}
		rs.mu.Lock()
		a.timesExecuted++
		n := a.timesExecuted
		rs.mu.Unlock()
		if n > a.MaxRetryLimit {
			return "", ar, err
		}
		rs.warn(parent, session.Event{TaskID: tr.id, TaskName: tr.name, AgentRole: rs.personaOf(a).role},
			fmt.Sprintf("agent execution failed (%v); retrying the whole task (max_retry_limit %d, used %d)", err, a.MaxRetryLimit, n))
	}
}

// executeOnce runs one attempt, inside max_execution_time when set.
func (rs *runState) executeOnce(ctx context.Context, a *Agent, tr *taskRun, contextText string, tools []Tool, parent string) (string, *agentRun, error) {
	if a.MaxExecutionTime <= 0 {
		return rs.runAgent(ctx, a, tr, contextText, tools, parent)
	}
	// The TimeoutError is the deadline's cause, so runAgent's
	// agent_execution_error event already carries its text (formats §5).
	timeout := &taskTimeoutError{msg: fmt.Sprintf("Task '%s' execution timed out after %s seconds. Consider increasing max_execution_time or optimizing the task.", tr.text.description, trimSeconds(a.MaxExecutionTime))}
	tctx, cancel := context.WithTimeoutCause(ctx, a.MaxExecutionTime, timeout)
	defer cancel()
	out, ar, err := rs.runAgent(tctx, a, tr, contextText, tools, parent)
	if err == nil {
		return out, ar, nil
	}
	if ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return "", ar, timeout
	}
	var tf *ToolExecutionFailedError
	if errors.As(err, &tf) || errors.Is(err, ErrAborted) {
		return "", ar, err
	}
	return "", ar, &prefixError{prefix: "Task execution failed: ", err: err}
}

// prefixError wraps an error under one of CrewAI's capitalised prefixes.
type prefixError struct {
	prefix string
	err    error
}

func (e *prefixError) Error() string { return e.prefix + e.err.Error() }
func (e *prefixError) Unwrap() error { return e.err }

func trimSeconds(d time.Duration) string {
	s := d.Seconds()
	if s == float64(int64(s)) {
		return fmt.Sprint(int64(s))
	}
	return fmt.Sprint(s)
}
