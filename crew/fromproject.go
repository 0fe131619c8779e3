package crew

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/crew/prompt"
	"crewbench/crew/pycond"
	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
)

// ProjectOptions tune FromProject.
type ProjectOptions struct {
	// LLM, when set, replaces every agent's llm and the manager_llm
	// (crewbench run --llm MODEL).
	LLM string
	// Script is the scripted LLM's YAML for an embedded demo (the model
	// string then only names it).
	Script []byte
}

// Note is something the engine cannot reproduce from the project, said
// before the run so a user is not surprised.
type Note string

// FromProject builds the engine's crew from a loaded project: runtime LLM
// providers (one per distinct configuration, so agents sharing a scripted
// model share its conversations), stand-ins for Python-only tools, MCP refs
// for mcps, and the crew settings. Notes list what will behave differently
// from CrewAI.
func FromProject(p *project.Project, opts ProjectOptions) (*Crew, []Note, error) {
	if p == nil || p.Crew == nil {
		return nil, nil, fmt.Errorf("the project has no crew to run")
	}
	b := &builder{p: p, opts: opts, providers: map[string]llm.Provider{}, agents: map[string]*Agent{}}
	c := &Crew{
		Name:              p.Crew.Name,
		Process:           Process(p.Crew.Process),
		Cache:             p.Crew.Cache,
		ToolFailurePolicy: FailurePolicy(p.Crew.ToolFailurePolicy),
		Inputs:            p.InputSets["default"],
	}
	if c.Inputs == nil {
		c.Inputs = p.Crew.Inputs
	}
	if p.Crew.MaxRPM != nil {
		c.MaxRPM = *p.Crew.MaxRPM
	}
	seen := map[string]bool{}
	for _, name := range p.Crew.Agents {
		if seen[name] {
			continue
		}
		seen[name] = true
		a, err := b.agent(name)
		if err != nil {
			return nil, b.notes, err
		}
		c.Agents = append(c.Agents, a)
	}
	if p.Crew.ManagerAgent != "" {
		m, err := b.agent(p.Crew.ManagerAgent)
		if err != nil {
			return nil, b.notes, err
		}
		c.ManagerAgent = m
	}
	if p.Crew.ManagerAgentPython != "" {
		b.note("manager_agent %s is a Python reference; crewbench cannot run it", p.Crew.ManagerAgentPython)
	}
	if ml := p.Crew.ManagerLLM; ml != nil || (c.Process == Hierarchical && p.Crew.LLMOverride != nil) || (c.Process == Hierarchical && opts.LLM != "") {
		l := project.LLM{}
		if ml != nil {
			l = *ml
		}
		prov, model, err := b.provider(l, true)
		if err != nil {
			return nil, b.notes, fmt.Errorf("manager_llm: %w", err)
		}
		c.ManagerLLM, c.ManagerModel = prov, model
	}
	if p.Crew.Planning {
		if err := b.planning(c); err != nil {
			return nil, b.notes, err
		}
	}
	if p.Crew.Memory != nil && p.Crew.Memory != false {
		b.note("crew memory is not reproduced: no memory tools and no recalled memories in prompts")
	}
	tasks := map[*project.Task]*Task{}
	for _, pt := range p.Tasks {
		t, err := b.task(pt, tasks)
		if err != nil {
			return nil, b.notes, err
		}
		tasks[pt] = t
		c.Tasks = append(c.Tasks, t)
	}
	return c, b.notes, nil
}

type builder struct {
	p         *project.Project
	opts      ProjectOptions
	providers map[string]llm.Provider
	agents    map[string]*Agent
	notes     []Note
}

func (b *builder) note(format string, args ...any) {
	b.notes = append(b.notes, Note(fmt.Sprintf(format, args...)))
}

func (b *builder) env(key string) string {
	v, _ := b.p.Getenv(key)
	return v
}

// provider builds (or reuses) the provider for an LLM setting. The
// crewbench.yaml llm: override and --llm replace it.
func (b *builder) provider(l project.LLM, manager bool) (llm.Provider, string, error) {
	if b.opts.LLM != "" {
		l = project.LLM{Model: b.opts.LLM}
	} else if b.p.Crew != nil && b.p.Crew.LLMOverride != nil && manager {
		ov := b.p.Crew.LLMOverride
		l = *ov
	}
	if l.Model == "" {
		l = llmFromEnvDefault(b.env)
	}
	cfg := llm.Config{
		Model: l.Model, Provider: l.Provider, BaseURL: l.BaseURL, APIKey: l.APIKey,
		Temperature: l.Temperature, TopP: l.TopP, Stop: l.Stop, Env: b.env, Dir: b.p.Dir,
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = l.APIBase
	}
	if l.MaxTokens != nil {
		cfg.MaxTokens = *l.MaxTokens
	}
	if l.MaxCompletionTokens != nil {
		cfg.MaxCompletionTokens = *l.MaxCompletionTokens
	}
	if l.Timeout != nil && *l.Timeout > 0 {
		cfg.Timeout = time.Duration(*l.Timeout * float64(time.Second))
	}
	if strings.HasPrefix(l.Model, "scripted:") && b.opts.Script != nil {
		cfg.Script = b.opts.Script
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d", cfg.Model, cfg.Provider, cfg.BaseURL, cfg.APIKey, floatKey(cfg.Temperature), floatKey(cfg.TopP), cfg.MaxTokens) + "\x00" + strings.Join(cfg.Stop, "\x01")
	if p, ok := b.providers[key]; ok {
		return p, l.Model, nil
	}
	p, err := llm.New(cfg)
	if err != nil {
		return nil, "", err
	}
	b.providers[key] = p
	return p, l.Model, nil
}

// noteLLMSettings notes the llm settings of an agent that change CrewAI's
// requests but that crewbench does not send: Anthropic's thinking and
// tool_search (completion.py _prepare_completion_params), and a per-LLM
// stream (crewbench streams every call under --stream, or none).
func (b *builder) noteLLMSettings(agent string, l project.LLM) {
	if b.opts.LLM != "" {
		return
	}
	for _, k := range []string{"thinking", "tool_search"} {
		if v, ok := l.Params[k]; ok && v != nil && v != false {
			b.note("agent %s: llm %s is not reproduced: crewbench sends no %s to the provider", agent, k, k)
		}
	}
	if l.Stream != nil && *l.Stream {
		b.note("agent %s: llm stream=True: CrewAI streams this LLM's calls; crewbench streams all calls with --stream, none without", agent)
	}
}

// floatKey is an optional float in a provider cache key ("" when unset).
func floatKey(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

// llmFromEnvDefault is create_llm(None): MODEL, MODEL_NAME,
// OPENAI_MODEL_NAME, else gpt-4.1-mini.
func llmFromEnvDefault(env func(string) string) project.LLM {
	c := llm.FromEnv(env)
	return project.LLM{Model: c.Model, BaseURL: c.BaseURL}
}

func (b *builder) agent(name string) (*Agent, error) {
	if a, ok := b.agents[name]; ok {
		return a, nil
	}
	pa := b.p.Agent(name)
	if pa == nil {
		return nil, fmt.Errorf("agent %q is not defined in the project", name)
	}
	a := NewAgent(pa.Name, pa.Role, pa.Goal, pa.Backstory, nil)
	l := pa.ResolvedLLM
	prov, model, err := b.provider(l, false)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", name, err) // llm errors start with their provider, or "llm"
	}
	a.LLM, a.Model = prov, model
	b.noteLLMSettings(name, l)
	fc := pa.FunctionCallingLLM
	if fc == nil && b.p.Crew != nil {
		fc = b.p.Crew.FunctionCallingLLM
	}
	if fc != nil {
		if a.FunctionCallingLLM, a.FunctionCallingModel, err = b.provider(*fc, false); err != nil {
			return nil, fmt.Errorf("agent %s: function_calling_llm: %w", name, err)
		}
		b.note("agent %s: function_calling_llm %s answers the output converter and the ReAct tool calls the agent's replies do not give, as in CrewAI (deprecated there)", name, a.FunctionCallingModel)
	}
	if pa.MaxIter > 0 {
		a.MaxIter = pa.MaxIter
	}
	a.MaxRetryLimit = pa.MaxRetryLimit
	if pa.MaxExecutionTime != nil {
		a.MaxExecutionTime = time.Duration(*pa.MaxExecutionTime) * time.Second
	}
	if pa.MaxRPM != nil {
		a.MaxRPM = *pa.MaxRPM
	}
	a.AllowDelegation = pa.AllowDelegation
	a.Cache = pa.Cache
	a.ToolFailurePolicy = FailurePolicy(pa.ToolFailurePolicy)
	a.UseSystemPrompt = pa.UseSystemPrompt
	a.RespectContextWindow = pa.RespectContextWindow
	a.Templates = prompt.Templates{System: pa.SystemTemplate, Prompt: pa.PromptTemplate, Response: pa.ResponseTemplate}
	a.InjectDate, a.DateFormat = pa.InjectDate, pa.DateFormat
	b.agentExtras(name, pa)
	if err := b.agentPlanning(name, a, pa); err != nil {
		return nil, fmt.Errorf("agent %s: planning_config.llm: %w", name, err)
	}
	for _, ref := range pa.Tools {
		a.Tools = append(a.Tools, b.tool(ref, name))
	}
	for _, ref := range pa.MCPs {
		if ref.Server == "" {
			b.note("agent %s: mcps entry %s could not be resolved (%s) and contributes no tools", name, ref.Raw, ref.Unresolved)
			continue
		}
		srv := b.p.Server(ref.Server)
		if srv == nil {
			b.note("agent %s: mcps entry names unknown server %s", name, ref.Server)
			continue
		}
		a.MCPs = append(a.MCPs, MCPRef{Spec: srv.Spec})
	}
	b.agents[name] = a
	return a, nil
}

// tool turns a Python tool reference into something that runs: the
// overlay's stand-in (a canned result, or a routed MCP tool), or a tool that
// fails with an explanation.
func (b *builder) tool(ref project.ToolRef, owner string) Tool {
	name := ref.Class
	if name == "" {
		name = ref.Ref
	}
	st := ref.StandIn
	desc := "Python tool " + ref.Ref + " (stand-in)"
	// What the tool's class says literally is what CrewAI shows the LLM;
	// the overlay's stand-in overrides it.
	attrs := project.StandIn{}
	if pc := ref.PyClass; pc != nil {
		if pc.Name != "" {
			name = pc.Name
		}
		if pc.Description != "" {
			desc = pc.Description
		}
		attrs = project.StandIn{ArgsSchema: pc.ArgsSchema, ResultAsAnswer: pc.ResultAsAnswer, MaxUsageCount: pc.MaxUsageCount}
	}
	if st != nil {
		if st.Description != "" {
			desc = st.Description
		}
		if st.ArgsSchema != nil {
			attrs.ArgsSchema = st.ArgsSchema
		}
		if st.MaxUsageCount > 0 {
			attrs.MaxUsageCount = st.MaxUsageCount
		}
		attrs.ResultAsAnswer = attrs.ResultAsAnswer || st.ResultAsAnswer
		attrs.NeverCache = st.NeverCache
	}
	switch {
	case st != nil && st.Result != nil:
		return NewStandIn(standInSpec(name, desc, &attrs), ToolResult{Text: *st.Result})
	case st != nil && st.Server != "":
		srv := b.p.Server(st.Server)
		if srv == nil {
			b.note("%s: tool %s routes to unknown server %s", owner, ref.Ref, st.Server)
			break
		}
		spec := standInSpec(name, desc, &attrs)
		spec.Kind, spec.Server, spec.OriginalName = KindMCP, srv.Name, st.Tool
		if sn, err := mcpconn.CrewAIServerName(srv.Spec); err == nil {
			spec.ServerName = sn
		}
		return &mcpTool{spec: spec, server: srv.Spec, callName: st.Tool, m: &MCP{}, faults: &mcpconn.FaultState{}}
	}
	b.note("%s: tool %s is Python code crewbench cannot run; add a stand-in under tools: in crewbench.yaml (calls fail until then)", owner, ref.Ref)
	return &FuncTool{S: standInSpec(name, desc, &attrs), Fn: func(context.Context, *pyjson.Object) ToolResult {
		return ToolResult{Err: fmt.Errorf("crewbench cannot run the Python tool %s: give it a stand-in in crewbench.yaml", ref.Ref)}
	}}
}

// standInSpec is the spec of a stand-in with the Python tool's attributes
// (from its class, or declared in the overlay).
func standInSpec(name, desc string, st *project.StandIn) *ToolSpec {
	spec := NewToolSpec(name, desc, st.ArgsSchema)
	spec.ResultAsAnswer, spec.MaxUsageCount, spec.NeverCache = st.ResultAsAnswer, st.MaxUsageCount, st.NeverCache
	return spec
}

func (b *builder) task(pt *project.Task, done map[*project.Task]*Task) (*Task, error) {
	t := &Task{
		Name: pt.Name, Description: pt.Description, ExpectedOutput: pt.ExpectedOutput,
		OutputFile: pt.OutputFile, NoCreateDirectory: !pt.CreateDirectory, ToolFailurePolicy: FailurePolicy(pt.ToolFailurePolicy), Markdown: pt.Markdown, AllowTriggerContext: pt.AllowTriggerContext,
	}
	if pt.Agent != "" {
		a, err := b.agent(pt.Agent)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", pt.Name, err)
		}
		t.Agent = a
	}
	for _, ref := range pt.Tools {
		t.Tools = append(t.Tools, b.tool(ref, "task "+pt.Name))
	}
	if pt.ContextSet {
		t.ContextMode = ContextList
		if len(pt.Context) == 0 {
			t.ContextMode = ContextNone
		}
		for _, name := range pt.Context {
			var found *Task
			for ptask, et := range done {
				if ptask.Name == name {
					found = et
				}
			}
			if found == nil {
				return nil, fmt.Errorf("task %s: context names %q, which is not an earlier task", pt.Name, name)
			}
			t.Context = append(t.Context, found)
		}
	}
	schema := pt.OutputJSON
	if schema == nil {
		schema = pt.OutputPydantic
	}
	if schema != nil {
		if schema.JSON != nil {
			o, ok := schema.Ordered, schema.Ordered != nil
			if !ok {
				o, ok = pyjson.FromGo(schema.JSON).(*pyjson.Object)
			}
			if ok {
				t.OutputJSON = o
				t.OutputPydantic = pt.OutputJSON == nil
			}
		} else {
			b.note("task %s: output model %s is a Python class; no schema instructions are added", pt.Name, schema.Python)
		}
	}
	if pt.AsyncExecution {
		t.AsyncExecution = true
		b.note("task %s: async_execution: crewbench runs the task in list order with CrewAI's context (none unless the task names one: CrewAI 1.15.17 never sets the last synchronous output it means to pass); CrewAI runs it concurrently with the async tasks next to it", pt.Name)
	}
	t.HumanInput = pt.HumanInput
	if pt.ConverterCls != "" {
		t.ConverterClass = pt.ConverterCls
		b.note("task %s: converter_cls %s is a Python class; crewbench cannot run it, so the output is not converted (raw only)", pt.Name, pt.ConverterCls)
	}
	if err := b.guardrails(t, pt); err != nil {
		return nil, err
	}
	switch {
	case pt.Type == "conditional":
		cond, err := taskCondition(pt.ConditionDecl)
		if err != nil {
			b.note("task %s: ConditionalTask: its condition %s cannot be evaluated without Python (%v), so crewbench always runs the task (CrewAI skips it with raw \"\" when the condition is false)", pt.Name, pt.Condition, err)
		}
		t.Condition = cond
	case pt.Type != "" && pt.Type != "Task" && pt.Type != "task":
		b.note("task %s: %s tasks run as plain tasks", pt.Name, pt.Type)
	}
	return t, nil
}

// taskCondition compiles what the project read of a ConditionalTask's
// condition; the error says which part only Python can evaluate.
func taskCondition(d *project.TaskCondition) (*pycond.Condition, error) {
	switch {
	case d == nil:
		return nil, errors.New("crewbench did not read it")
	case d.Const != nil:
		return pycond.Constant(*d.Const, d.Pos), nil
	case d.Missing:
		return pycond.Missing(d.Pos), nil
	case d.Text != "":
		return pycond.Parse(d.Text, d.Pos)
	case d.Lambda != nil:
		return pycond.Lambda(d.Lambda)
	case d.Return != nil:
		return pycond.Body(d.Return, d.Param, d.Return.Text, d.Pos)
	case d.Why != "":
		return nil, errors.New(d.Why)
	}
	return nil, errors.New("crewbench did not read it")
}

// ProjectLLM builds the provider crewbench's own MCP calls answer a
// server's sampling requests with: model when set (--sampling-llm), else
// the crew's LLM as run picks it (crewbench.yaml's llm:, else the first
// agent's), else CrewAI's default from the environment (MODEL, …,
// gpt-4.1-mini). p may be nil (an ad-hoc server outside a project); the
// environment is then the process's. It returns the model string used.
func ProjectLLM(p *project.Project, model string, script []byte) (llm.Provider, string, error) {
	if p == nil {
		cfg := llm.FromEnv(nil)
		if model != "" {
			cfg.Model = model
		}
		prov, err := llm.New(cfg)
		return prov, cfg.Model, err
	}
	b := &builder{p: p, opts: ProjectOptions{LLM: model, Script: script}, providers: map[string]llm.Provider{}}
	var l project.LLM
	switch {
	case p.Crew != nil && p.Crew.LLMOverride != nil:
		l = *p.Crew.LLMOverride
	case len(p.Agents) > 0:
		l = p.Agents[0].ResolvedLLM
	}
	return b.provider(l, false)
}
