package project

import (
	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
)

// ProjectKind says what kind of project was opened.
type ProjectKind string

// Project kinds.
const (
	// KindJSONCrew is a JSON-first crew: crew.jsonc + agents/<name>.jsonc.
	KindJSONCrew ProjectKind = "json-crew"
	// KindClassic is a classic project: config/agents.yaml, config/tasks.yaml, crew.py.
	KindClassic ProjectKind = "classic"
	// KindMCPServers is an mcpServers JSON file (no crew, servers only).
	KindMCPServers ProjectKind = "mcp-servers"
	// KindOverlayCrew is a crew written entirely in crewbench.yaml.
	KindOverlayCrew ProjectKind = "overlay-crew"
	// KindOverlay is a crewbench.yaml with servers (and what-ifs) but no crew.
	KindOverlay ProjectKind = "overlay"
)

// Project is everything crewbench learned from the files of one project, in
// one plain model whatever the source format. Values keep the position they
// were written at; values that could not be read (non-literal Python, AMP
// slugs without a URL, host variables) are kept in Unresolved, never dropped.
type Project struct {
	Kind ProjectKind
	// Dir is the project directory (absolute). File positions are relative
	// to it when the file lies inside it.
	Dir string
	// Opened says which file was opened and why ("found crew.jsonc named by
	// pyproject.toml [tool.crewai] definition").
	Opened string
	Files  []File

	Crew *Crew // nil for KindMCPServers
	// Agents are all loaded agent definitions, in load order (the crew's
	// agents, then a manager_agent loaded from its own file).
	Agents []*Agent
	// Tasks are the crew's tasks in execution order (same as Crew.Tasks).
	Tasks []*Task
	// Servers are the distinct MCP servers of the project, each with a
	// stable Name for `crewbench tools NAME`.
	Servers []*Server

	// InputSets are named kickoff inputs: "default" is crew.jsonc `inputs`
	// (or main.py's literal inputs) with the overlay's default merged over
	// it; the overlay adds other names.
	InputSets map[string]map[string]any

	Env     *DotEnv  // the project's .env, if any
	Overlay *Overlay // crewbench.yaml, if any

	Notes      []Note
	Unresolved []*Unresolved

	// environ is the process environment seen at load time (KEY=VALUE).
	environ []string
}

// File is one file read while loading.
type File struct {
	Path string `json:"path"` // relative to Project.Dir when inside it
	Role string `json:"role"` // "crew", "agent", "agents.yaml", "tasks.yaml", "crew.py", "main.py", "pyproject", "mcpServers", "overlay", ".env"
}

// Crew holds crew-level settings (formats §1.4; classic: the Crew(...) call).
type Crew struct {
	Name    string
	Process string // "sequential" | "hierarchical"
	Verbose bool
	Memory  any  // bool, or a Python ref / object as written
	Cache   bool // Crew.cache, default false (opt-in in 1.15)
	MaxRPM  *int
	// Planning runs CrewPlanner before the tasks.
	Planning           bool
	PlanningLLM        *LLM
	ManagerLLM         *LLM
	FunctionCallingLLM *LLM
	ChatLLM            *LLM
	// ManagerAgent is an agent name (a file in agents/ not listed in
	// Agents); ManagerAgentPython a {"python": …} ref.
	ManagerAgent       string
	ManagerAgentPython string
	ToolFailurePolicy  string // "" (→ warn), "ignore", "warn", "raise"
	Stream             bool
	Tracing            *bool
	PromptFile         string
	OutputLogFile      any
	ShareCrew          bool

	// Agents are the names listed in the crew, in order, duplicates kept as
	// written. For classic projects: each task's agent in task order, then
	// the remaining @agent methods (CrewAI's order).
	Agents []string
	Tasks  []*Task
	// Inputs are the crew's own default inputs (crew.jsonc `inputs`, or the
	// literal dict in main.py for classic projects).
	Inputs map[string]any
	// LLMOverride is crewbench.yaml's llm:, which also replaces
	// manager_llm, planning_llm and function_calling_llm in a run.
	LLMOverride *LLM

	// Extra holds accepted fields this model does not interpret, as plain
	// values, so they survive an export.
	Extra map[string]any

	File      string
	Pos       Pos
	Positions Positions
}

// Agent is one agent (formats §1.5, §2.2, §5 for defaults).
type Agent struct {
	// Name is the file stem (JSON), the YAML key / @agent method (classic) or
	// the key in crewbench.yaml.
	Name string
	// Manager is true for a crew's manager_agent.
	Manager bool

	Role, Goal, Backstory string

	// LLM is the llm as declared (nil: none declared). ResolvedLLM is what
	// the run uses: the overlay's override, else LLM, else MODEL /
	// MODEL_NAME / OPENAI_MODEL_NAME from the environment, else
	// "gpt-4.1-mini"; its Source says which.
	LLM                *LLM
	ResolvedLLM        LLM
	FunctionCallingLLM *LLM

	Tools []ToolRef
	MCPs  []MCPRef
	Apps  []string

	AllowDelegation      bool // default false
	MaxIter              int  // default 25
	MaxRetryLimit        int  // default 2
	MaxExecutionTime     *int // seconds; nil = none
	MaxRPM               *int
	MaxTokens            *int
	Verbose              bool
	Cache                bool // default true (participation only)
	RespectContextWindow bool // default true
	UseSystemPrompt      bool // default true
	SystemTemplate       string
	PromptTemplate       string
	ResponseTemplate     string
	InjectDate           bool
	DateFormat           string // default "%Y-%m-%d"
	ToolFailurePolicy    string // "" inherits
	Memory               any
	Guardrail            *Guardrail
	GuardrailMaxRetries  int // default 3
	Planning             bool
	Reasoning            bool
	// MaxReasoningAttempts is max_reasoning_attempts (nil: None).
	MaxReasoningAttempts *int
	// PlanningConfig is planning_config; nil when absent or null.
	PlanningConfig     *PlanningConfig
	Multimodal         bool
	AllowCodeExecution bool
	// Type is "" / "Agent", or "python:<ref>" for {"python": …}.
	Type string

	Extra map[string]any

	File      string
	Pos       Pos
	Positions Positions
}

// Task is one task (formats §1.6, §2.3).
type Task struct {
	// Name may be empty in JSON crews (then context cannot name it);
	// classic tasks are named after their @task method.
	Name  string
	Index int

	Description    string
	ExpectedOutput string
	Agent          string // agent name; "" when not set

	// Context: when ContextSet is false the task sees every earlier task's
	// output; when true it sees only Context (possibly none).
	Context    []string
	ContextSet bool

	Tools           []ToolRef
	OutputFile      string
	CreateDirectory bool // default true
	AsyncExecution  bool
	HumanInput      bool
	Markdown        bool
	// AllowTriggerContext is allow_crewai_trigger_context (nil: None).
	AllowTriggerContext *bool
	OutputJSON          *Schema
	OutputPydantic      *Schema
	ResponseModel       *Schema
	Guardrails          []Guardrail
	// GuardrailsListed: Guardrails came from guardrails: (which replaces
	// guardrail: when not empty), so CrewAI names them "guardrail {i}".
	GuardrailsListed    bool
	GuardrailMaxRetries int // default 3
	ToolFailurePolicy   string
	// Type is "" / "Task", "conditional", or "python:<ref>".
	Type      string
	Condition string // python ref of a ConditionalTask's condition
	// ConditionDecl is the condition as crewbench can read it without
	// Python (nil when the task is not conditional).
	ConditionDecl *TaskCondition
	Callback      string // python ref
	// ConverterCls is converter_cls, a python ref.
	ConverterCls string
	InputFiles   map[string]any

	Extra map[string]any

	File      string
	Pos       Pos
	Positions Positions
	base      string // position path of the task in File ("tasks[1]", "research_task")
}

// Schema is an output model: an inline JSON Schema or a Python class ref
// (JSON), or a class name decorated @output_json / @output_pydantic (classic).
type Schema struct {
	JSON map[string]any
	// Ordered is JSON with its key order as written.
	Ordered *pyjson.Object
	Python  string
	Pos     Pos
}

// Guardrail is an LLM-checked text or a Python callable ref.
type Guardrail struct {
	Text   string
	Python string
	Pos    Pos
}

// LLM is an LLM setting as data (formats §1.5 "llm forms"). The engine's
// crew/llm package interprets Model ("openai/gpt-4o-mini",
// "scripted:FILE", "replay:FILE").
type LLM struct {
	Model string
	// ModelKey is the key the model came from in object form: "model",
	// "model_name" or "deployment_name"; "" for the string form.
	ModelKey string
	// Python is a {"python": …} ref; Method a classic @llm method name.
	Python string
	Method string

	Provider            string
	BaseURL             string
	APIBase             string
	APIKey              string // a secret: never print it unredacted
	APIVersion          string
	Temperature         *float64
	TopP                *float64
	MaxTokens           *int
	MaxCompletionTokens *int
	Timeout             *float64
	Seed                *int
	Stop                []string
	ReasoningEffort     string
	Stream              *bool
	// Params holds every other key of the object form (response_format,
	// llm_type, …) as plain values.
	Params map[string]any

	// Source says where the value came from: "agents/researcher.jsonc:5:10",
	// "crewbench.yaml:2:6 (overlay llm)", "MODEL from .env", "CrewAI default".
	Source string
	Pos    Pos
}

// ToolKind is how a tool reference names its code.
type ToolKind string

// Tool reference kinds (formats §1.5 "tools entries", §2.2).
const (
	// ToolCrewAITools is a crewai_tools class name ("SerperDevTool",
	// "serper_dev"); Class holds the class name CrewAI would try first.
	ToolCrewAITools ToolKind = "crewai_tools"
	// ToolModule is "module:ClassName".
	ToolModule ToolKind = "module"
	// ToolCustom is "custom:<name>", i.e. tools/<name>.py.
	ToolCustom ToolKind = "custom"
	// ToolSerialized is an object {"tool_type": …, …}.
	ToolSerialized ToolKind = "serialized"
	// ToolMethod is a classic YAML tools entry: an @tool method of the crew class.
	ToolMethod ToolKind = "method"
	// ToolPython is a tool constructed in crew.py: `SerperDevTool()`,
	// `MyTool(x=1)`; Class is the called name, Module where it was imported from.
	ToolPython ToolKind = "python"
)

// ToolRef is one entry of an agent's or task's tools. None of these run in
// Go: each needs a stand-in from the overlay to be callable in crewbench.
type ToolRef struct {
	Kind ToolKind
	// Ref is the entry as written ("SerperDevTool", "custom:word_counter",
	// "crewai_tools:SerperDevTool", "SerperDevTool()").
	Ref    string
	Class  string
	Module string
	// Args are literal constructor arguments read from crew.py, or the
	// serialized object's fields.
	Args    map[string]any
	Pos     Pos
	StandIn *StandIn
	// PyClass is what the tool's class (a BaseTool subclass the project
	// defines) says literally; nil when crewbench could not read it.
	PyClass *ToolClass
}

// ToolClass holds the literal attributes of a project's BaseTool subclass.
type ToolClass struct {
	Name, Description string
	ResultAsAnswer    bool
	MaxUsageCount     int
	// ArgsSchema is the args_schema model as Pydantic's model_json_schema()
	// renders it; nil when the class has none or it uses a type crewbench
	// does not render.
	ArgsSchema *pyjson.Object
	Pos        Pos
}

// StandIn replaces a Python-only tool in crewbench: a canned result, or a
// call routed to a tool of one of the project's MCP servers.
//
// The rest are the attributes a CrewAI Python tool can carry, so a crew that
// relies on them runs as CrewAI runs it: ArgsSchema (the args_schema model's
// JSON schema, as model_json_schema() gives it), ResultAsAnswer,
// MaxUsageCount (0: unlimited) and NeverCache (a cache_function that
// always returns False).
type StandIn struct {
	Result         *string
	Server         string // project server name
	Tool           string // remote tool name on that server
	Description    string
	ArgsSchema     *pyjson.Object
	ResultAsAnswer bool
	MaxUsageCount  int
	NeverCache     bool
	Pos            Pos
}

// MCPRef is one entry of an agent's mcps (or an adapter's tools).
type MCPRef struct {
	Kind mcpconn.RefKind
	// Raw is a string ref as written ("https://x/mcp#t", "notion#search");
	// "" for dict/Python configs.
	Raw string
	// Server is the name of the entry in Project.Servers; "" when the ref
	// could not be resolved (an AMP slug without a URL in the overlay).
	Server string
	// Adapter is true for MCPServerAdapter tools (self.get_mcp_tools(...)),
	// which CrewAI names without a server prefix; AdapterToolNames are the
	// names passed to get_mcp_tools / MCPServerAdapter (sanitized and
	// matched case-insensitively by CrewAI).
	Adapter          bool
	AdapterToolNames []string
	Pos              Pos
	// Unresolved is the ID of the Unresolved entry that blocks this ref.
	Unresolved string
}

// Server is one distinct MCP server of the project.
type Server struct {
	// Name is stable for a given set of files: a name the source gives (an
	// mcpServers key, a crewbench.yaml servers key) or one derived from
	// the command or URL, with "_2", "_3" on clashes.
	Name   string
	Spec   mcpconn.ServerSpec
	Agents []string // agents that use it, in order
	Pos    Pos
	// Source describes the declaration ("agents/researcher.jsonc mcps[0]").
	Source string
	// Positions of the spec's fields: "command", "args[1]", "env.KEY",
	// "url", "headers.Authorization", "tool_filter.allowed_tool_names[0]".
	Positions ServerPositions
	// Unresolved lists IDs of Unresolved entries inside this server.
	Unresolved []string
}

// Unresolved is a value crewbench could not read without running Python or
// asking a service: a non-literal Python expression, an environment
// variable, an AMP slug's URL, a host variable in an mcpServers file. It
// can be supplied in crewbench.yaml under `values:` (by ID) or, for
// environment variables, in .env / the overlay's `env:`.
type Unresolved struct {
	// ID is the key to use under `values:` in crewbench.yaml, e.g.
	// "servers.github.env.GITHUB_TOKEN", "amp.notion", "agents.writer.llm".
	ID    string
	Pos   Pos
	Field string // what the value is for, e.g. "MCPServerStdio env['GITHUB_TOKEN']"
	Expr  string // the source text, e.g. `os.environ["GITHUB_TOKEN"]`
	// EnvVar is set when the expression reads an environment variable.
	EnvVar     string
	Suggestion string

	// Resolved is true when a value was found; From says where (".env",
	// "environment", "crewbench.yaml values", "default in the expression").
	Resolved bool
	Value    any
	From     string

	// resolve computes the value from the environment (crew.py
	// expressions that read it).
	resolve func(p *Project) (any, string, bool)
}

// PlanningConfig is an agent's planning_config object: the fields the
// planning calls read, and the names of the others it sets.
type PlanningConfig struct {
	MaxAttempts *int // nil: None
	MaxSteps    *int // nil: the default, 20
	// SystemPrompt, PlanPrompt and RefinePrompt replace the planning texts
	// (nil: None, CrewAI's own).
	SystemPrompt, PlanPrompt, RefinePrompt *string
	// LLM is the planning LLM (nil: the agent's).
	LLM *LLM
	// ReasoningEffort is "low", "medium" or "high" ("": the default,
	// medium); ObserveSteps nil is None; MaxReplans nil is the default, 3.
	ReasoningEffort string
	ObserveSteps    *bool
	MaxReplans      *int
	// MaxStepIterations and StepTimeout (seconds) are nil when unset (15
	// and None).
	MaxStepIterations *int
	StepTimeout       *int
	Others            []string
}
