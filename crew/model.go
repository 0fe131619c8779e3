// Package crew is crewbench's crew engine: it runs a crew the way CrewAI
// 1.15 runs it — the same prompts, tool pipeline, failure behaviour and
// process rules (crewai-semantics.md §5, §7; crewai-formats.md §4–§6) —
// emits a session.Event for every step, and consults a Stepper before every
// LLM call and tool call so a UI can pause, edit or skip.
//
// The model here holds runtime values (providers, tools); crew/project's
// loaded files are converted into it by FromProject. Subpackages hold the
// pure parts: prompt (exact texts), react (parser, tool selection), difflib
// and pyjson (Python behaviours those texts depend on).
package crew

import (
	"fmt"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pycond"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
)

// Process is how a crew runs its tasks.
type Process string

// Processes.
const (
	Sequential   Process = "sequential"
	Hierarchical Process = "hierarchical"
)

// FailurePolicy is tool_failure_policy: what a tool failure does.
type FailurePolicy string

// Policies (crewai-semantics.md §5.6). The zero value means "inherit".
const (
	PolicyInherit FailurePolicy = ""
	PolicyIgnore  FailurePolicy = "ignore"
	PolicyWarn    FailurePolicy = "warn"
	PolicyRaise   FailurePolicy = "raise"
)

// Valid reports whether p is a known policy (or inherit).
func (p FailurePolicy) Valid() bool {
	switch p {
	case PolicyInherit, PolicyIgnore, PolicyWarn, PolicyRaise:
		return true
	}
	return false
}

// CrewAI's agent defaults (crewai-formats.md §1.5, §5).
const (
	DefaultMaxIter       = 25
	DefaultMaxRetryLimit = 2
	DefaultDateFormat    = "%Y-%m-%d"
)

// Agent is one agent as the engine runs it. Role, Goal and Backstory are the
// authored texts; kickoff interpolates a copy with the inputs.
type Agent struct {
	// Key is the agent's reference name (the JSON file stem).
	Key                   string
	Role, Goal, Backstory string
	// LLM answers this agent's calls; Model is its model string for display
	// and for the provider name check.
	LLM   llm.Provider
	Model string
	// FunctionCallingLLM is function_calling_llm (the agent's, else the
	// crew's: setup_agents, crews/utils.py:87-88) with its model string;
	// nil without one. The output converter asks it before the agent's llm
	// (utilities/converter.py:363), and a ReAct agent's ToolUsage for the
	// tool calls it cannot parse (toolcalling.go).
	FunctionCallingLLM   llm.Provider
	FunctionCallingModel string
	// Tools are the agent's own tools; MCPs are resolved per task.
	Tools []Tool
	MCPs  []MCPRef

	MaxIter          int
	MaxRetryLimit    int
	MaxExecutionTime time.Duration
	MaxRPM           int
	AllowDelegation  bool
	// Cache is participation in the crew cache (CrewAI default true).
	Cache                bool
	ToolFailurePolicy    FailurePolicy
	UseSystemPrompt      bool
	RespectContextWindow bool
	// Templates are system_template, prompt_template and response_template.
	Templates prompt.Templates
	// InjectDate appends "Current Date: …" (the run's clock formatted with
	// DateFormat, a Python strftime format) to the prompt.
	InjectDate bool
	DateFormat string
	// Planning is the agent's PlanningConfig; nil when planning is off.
	Planning *PlanningConfig

	// timesExecuted is CrewAI's _times_executed: the max_retry_limit budget,
	// shared by every task the agent runs and never reset.
	timesExecuted int
	// toolsAnswer is the last result_as_answer result in CrewAI's
	// agent.tools_results, which only ReAct calls fill and nothing resets
	// (base_agent.py:351): it replaces the result of every later task the
	// agent runs (agent/utils.py:231-244), a CrewAI bug crewbench keeps.
	toolsAnswer    string
	hasToolsAnswer bool
	// lastUsedTool is the agent's ToolsHandler.last_used_tool, which the
	// repeated-call guard compares with (tool_usage.py:779-789). The
	// handler belongs to the agent (base_agent.py:347-350, replaced only by
	// set_cache_handler before the kickoff), so the guard also trips on a
	// later task's, or a retried execution's, first call when it repeats
	// the agent's last successful ReAct call.
	lastUsedTool *lastCall
}

// PlanningConfig is the part of CrewAI's PlanningConfig
// (agent/planning_config.py) the planning calls read.
type PlanningConfig struct {
	// MaxAttempts bounds the plan refinements; 0 is Python's None (refine
	// until the plan is ready).
	MaxAttempts int
	// MaxSteps is the plan prompt's hard limit (default 20).
	MaxSteps int
	// SystemPrompt replaces planning.system_prompt, verbatim; PlanPrompt
	// and RefinePrompt replace create_plan_prompt and refine_plan_prompt,
	// formatted with Python's str.format (nil: CrewAI's texts).
	SystemPrompt, PlanPrompt, RefinePrompt *string
	// LLM answers the planning calls instead of the agent's LLM (nil: the
	// agent's); Model is its model string.
	LLM   llm.Provider
	Model string
	// Effort is reasoning_effort ("low", "medium", "high"); ObserveSteps is
	// observe_steps (nil: None); MaxReplans is max_replans (default 3).
	Effort       string
	ObserveSteps *bool
	MaxReplans   int
	// MaxStepIterations is max_step_iterations, the StepExecutor's LLM
	// calls per step (0: the default, 15); StepTimeout is step_timeout
	// (0: None, no limit).
	MaxStepIterations int
	StepTimeout       time.Duration
}

// NewAgent returns an agent with CrewAI's defaults.
func NewAgent(key, role, goal, backstory string, provider llm.Provider) *Agent {
	return &Agent{
		Key: key, Role: role, Goal: goal, Backstory: backstory, LLM: provider,
		MaxIter: DefaultMaxIter, MaxRetryLimit: DefaultMaxRetryLimit,
		Cache: true, UseSystemPrompt: true, RespectContextWindow: true, DateFormat: DefaultDateFormat,
	}
}

// MCPRef is one entry of Agent.mcps, resolved to tools for every task.
type MCPRef struct {
	Spec mcpconn.ServerSpec
}

// ContextMode says how a task's context was written.
type ContextMode int

// Context modes (crewai-formats.md §4.1).
const (
	// ContextAll: the key is absent — every earlier output is context.
	ContextAll ContextMode = iota
	// ContextNone: "context": [].
	ContextNone
	// ContextList: the outputs of Task.Context.
	ContextList
)

// Task is one task as the engine runs it.
type Task struct {
	Name           string
	Description    string
	ExpectedOutput string
	Agent          *Agent
	// Tools, when non-empty, replace the agent's tools for this task.
	Tools       []Tool
	ContextMode ContextMode
	Context     []*Task
	// OutputFile is written after the task (relative to Options.OutputDir).
	OutputFile string
	// AsyncExecution is async_execution: without an explicit Context the
	// task gets no context at all (CrewAI 1.15.17, see runState.kickoff).
	AsyncExecution bool
	// NoCreateDirectory is create_directory: false (CrewAI's default, true,
	// creates output_file's parent directories).
	NoCreateDirectory bool
	ToolFailurePolicy FailurePolicy
	Markdown          bool
	// AllowTriggerContext is allow_crewai_trigger_context: true appends the
	// kickoff input crewai_trigger_payload to the task's prompt, false never
	// does, nil (None) does it for the first task of a sequential crew.
	AllowTriggerContext *bool
	// OutputJSON is the output_json (or inline output_pydantic) schema; nil
	// when unset.
	OutputJSON *pyjson.Object
	// OutputPydantic says the schema came from output_pydantic: the output
	// is a model (str() in Pydantic's form, output_format "pydantic").
	OutputPydantic bool
	// ConverterClass is converter_cls, a Python class reference: CrewAI
	// converts the output with it, which crewbench cannot run.
	ConverterClass string
	// HumanInput is human_input: after the agent's final answer a human is
	// asked for feedback, and the agent re-runs with it until the answer is
	// accepted (an empty reply).
	HumanInput bool
	// Condition makes the task a ConditionalTask whose condition crewbench
	// evaluates (crew/pycond) on the previous task's output; false skips
	// the task as CrewAI does (condtask.go). nil: an ordinary task, or a
	// ConditionalTask whose condition only Python can evaluate (it runs).
	Condition *pycond.Condition

	// Guardrails are string guardrails (CrewAI's LLMGuardrail), checked in
	// order once the task has an answer (guardrail.go). GuardrailsListed
	// says they came from guardrails: rather than guardrail:, which names
	// them "guardrail {i}" in the final error and counts retries per entry.
	Guardrails          []string
	GuardrailsListed    bool
	GuardrailMaxRetries int

	// builtin is the output model of a task CrewAI creates itself (the
	// crew planner's), a Pydantic class rather than a user's JSON schema.
	builtin *builtinModel
}

// outputModel is the model create_model_from_schema builds from
// output_json (no description enrichment), named after the schema's title;
// nil without output_json.
func (t *Task) outputModel() *toolschema.Model {
	if t != nil && t.builtin != nil {
		return t.builtin.model
	}
	if t == nil || t.OutputJSON == nil {
		return nil
	}
	name := "DynamicModel"
	if title, ok := t.OutputJSON.Get("title"); ok {
		if ts, ok := title.(string); ok && ts != "" {
			name = ts
		}
	}
	return toolschema.FromJSONSchema(name, t.OutputJSON, false)
}

// displayName is TaskOutput.name: the task name, else the description.
func (t *Task) displayName() string {
	if t.Name != "" {
		return t.Name
	}
	return t.Description
}

// Crew is a crew as the engine runs it.
type Crew struct {
	Name              string
	Agents            []*Agent
	Tasks             []*Task
	Process           Process
	Cache             bool
	ToolFailurePolicy FailurePolicy
	MaxRPM            int
	// ManagerLLM creates the "Crew Manager" agent for hierarchical crews;
	// ManagerAgent is a custom manager (which must have no tools).
	ManagerLLM   llm.Provider
	ManagerModel string
	ManagerAgent *Agent
	// Planning runs CrewAI's CrewPlanner before the tasks (planning.go)
	// with PlanningLLM (planning_llm, else gpt-5.4-mini).
	Planning      bool
	PlanningLLM   llm.Provider
	PlanningModel string
	// Inputs are the default kickoff inputs (crew.jsonc "inputs").
	Inputs map[string]any
}

// Validate applies CrewAI's crew-level checks that do not need a run.
func (c *Crew) Validate() error {
	if len(c.Tasks) == 0 {
		return fmt.Errorf("crew %q has no tasks", c.Name)
	}
	switch c.Process {
	case Sequential, "":
		for _, t := range c.Tasks {
			if t.Agent == nil {
				return prompt.TextError("Sequential process error: Agent is missing in the task with the following description: " + t.Description)
			}
		}
	case Hierarchical:
		if c.ManagerLLM == nil && c.ManagerAgent == nil {
			return prompt.TextError("Attribute `manager_llm` or `manager_agent` is required when using hierarchical process.")
		}
		for _, a := range c.Agents {
			if a == c.ManagerAgent {
				return prompt.TextError("Manager agent should not be included in agents list.")
			}
		}
	default:
		return fmt.Errorf("unknown process %q (sequential or hierarchical)", c.Process)
	}
	// CrewAI builds every agent's executor before the first task
	// (crews/utils.py:94), which is where a bad response_template raises.
	agents := append([]*Agent{c.ManagerAgent}, c.Agents...)
	for _, t := range c.Tasks {
		agents = append(agents, t.Agent)
	}
	for _, a := range agents {
		if a == nil {
			continue
		}
		if _, err := prompt.StopWords(a.Templates.Response); err != nil {
			return fmt.Errorf("agent %q: %w", a.Key, err)
		}
	}
	for i, t := range c.Tasks {
		for _, ctxTask := range t.Context {
			found := false
			for _, earlier := range c.Tasks[:i] {
				if earlier == ctxTask {
					found = true
				}
			}
			if !found {
				return prompt.TextError(fmt.Sprintf("Task '%s' has a context dependency on a future task '%s', which is not allowed.", t.Description, ctxTask.Description))
			}
		}
		if !t.ToolFailurePolicy.Valid() {
			return fmt.Errorf("task %q: invalid tool_failure_policy %q (ignore, warn or raise)", t.displayName(), t.ToolFailurePolicy)
		}
	}
	return nil
}
