package project

import (
	"fmt"
	"regexp"
	"strings"

	"crewbench/crew/pyjson"
)

// agentSource finds an agent definition by name: its node, the file it is
// in (for positions), CrewAI's label for it (for error texts) and the
// position path of the definition inside that file ("" for a whole file,
// "crew.agents.researcher" inline in crewbench.yaml).
type agentSource func(name string) (node *Node, file, label, base string, ok bool)

// crewDef is how one crew definition is found and reported.
type crewDef struct {
	node *Node
	file string // file of the crew object
	src  string // CrewAI's {source} for the crew (the crew file's path)
	base string // position path of the crew object inside file ("" or "crew")
	// agents finds agent definitions; missing formats CrewAI's text for an
	// agent that is not found.
	agents  agentSource
	missing func(name string) string
}

// loadCrew validates and loads one crew definition in CrewAI's order
// (formats §1.7): crew keys and Python refs, each listed agent once, the
// manager_agent file, then each task with context checked against the
// names defined so far; then the crew-level validators.
func (l *loader) loadCrew(cd crewDef) *Crew {
	defn := cd.node
	c := &Crew{Name: "crew", Process: "sequential", File: cd.file, Pos: defn.Pos, Positions: Positions{}}
	// Positions are relative to the crew object (walked from "", not from
	// cd.base and then rebased, which made every path twice). Inside
	// "tasks" only each task's own place is kept: the fields of a task are
	// in its Task.Positions, and recording them twice doubled the cost of a
	// large crew file.
	c.Positions[""] = defn.Pos
	for _, f := range defn.Fields {
		if f.Key == "tasks" && f.Value.Kind == KindArray {
			c.Positions["tasks"] = f.Value.Pos
			for i, it := range f.Value.Items {
				c.Positions[indexPath("tasks", i)] = it.Pos
			}
			continue
		}
		f.Value.walk(f.Key, c.Positions)
	}

	l.fieldErrors(defn, crewFields, crewRuntimeFields, crewExtraAllowed, cd.src, cd.file, cd.base)
	l.pythonRefErrors(defn, cd.src, cd.file, cd.base)

	// agents
	agentsNode := defn.Get("agents")
	var agentNames []*Node
	if agentsNode == nil || agentsNode.Kind != KindArray || len(agentsNode.Items) == 0 {
		pos := defn.Pos
		if agentsNode != nil {
			pos = agentsNode.Pos
		}
		l.err(pos, joinPathBase(cd.base, "agents"), cd.src, "'agents' must be a non-empty list")
	} else {
		agentNames = agentsNode.Items
	}
	loaded := map[string]*Agent{}
	loadAgent := func(n *Node, field string, manager bool) *Agent {
		if n.Kind != KindString || n.Str == "" {
			l.err(n.Pos, field, cd.src, "each agent reference must be a non-empty string")
			return nil
		}
		if a, ok := loaded[n.Str]; ok {
			return a
		}
		an, file, label, base, ok := cd.agents(n.Str)
		if !ok {
			l.err(n.Pos, field, "", cd.missing(n.Str))
		}
		if an == nil {
			loaded[n.Str] = nil
			return nil
		}
		a := l.loadAgentDef(n.Str, an, file, label, base)
		if a != nil {
			a.Manager = manager
			l.p.Agents = append(l.p.Agents, a)
		}
		loaded[n.Str] = a
		return a
	}
	for i, n := range agentNames {
		loadAgent(n, indexPath(joinPathBase(cd.base, "agents"), i), false)
		if n.Kind == KindString && n.Str != "" {
			c.Agents = append(c.Agents, n.Str)
		}
	}

	// manager_agent
	if m := defn.Get("manager_agent"); !m.IsNull() {
		switch ref, isRef, _ := pythonRef(m); {
		case m.Kind == KindString && m.Str != "":
			c.ManagerAgent = m.Str
			if a := loadAgent(m, joinPathBase(cd.base, "manager_agent"), true); a != nil {
				a.Manager = true
			}
		case isRef:
			c.ManagerAgentPython = ref
		default:
			l.err(m.Pos, joinPathBase(cd.base, "manager_agent"), cd.src,
				`'manager_agent' must be an agent definition name or a {"python": "module.agent"} reference`)
		}
	}

	// tasks
	tasksNode := defn.Get("tasks")
	var taskNodes []*Node
	if tasksNode == nil || tasksNode.Kind != KindArray || len(tasksNode.Items) == 0 {
		pos := defn.Pos
		if tasksNode != nil {
			pos = tasksNode.Pos
		}
		l.err(pos, joinPathBase(cd.base, "tasks"), cd.src, "'tasks' must be a non-empty list")
	} else {
		taskNodes = tasksNode.Items
	}
	known := map[string]bool{}
	for i, tn := range taskNodes {
		t := l.loadTaskDef(i, tn, cd, loaded, known)
		if t != nil {
			c.Tasks = append(c.Tasks, t)
			if t.Name != "" {
				known[t.Name] = true
			}
		}
	}

	l.decodeCrewSettings(c, defn, cd)
	// context names were checked against earlier tasks above
	l.crewValidators(c, cd.src, defn.Pos, false)
	l.p.Tasks = c.Tasks
	return c
}

func (l *loader) decodeCrewSettings(c *Crew, defn *Node, cd crewDef) {
	d := newDecoder(l, cd.src, cd.file, cd.base, defn)
	d.str("name", &c.Name)
	d.literal("process", &c.Process, "sequential", "hierarchical")
	d.boolean("verbose", &c.Verbose)
	if n := d.node("memory"); !n.IsNull() {
		if b, ok := laxBool(n); ok && n.Kind != KindObject {
			c.Memory = b
		} else {
			c.Memory = n.Plain()
		}
	}
	d.boolean("cache", &c.Cache)
	d.optInt("max_rpm", &c.MaxRPM)
	d.boolean("planning", &c.Planning)
	c.PlanningLLM = l.decodeLLM(d, "planning_llm")
	c.ManagerLLM = l.decodeLLM(d, "manager_llm")
	c.FunctionCallingLLM = l.decodeLLM(d, "function_calling_llm")
	c.ChatLLM = l.decodeLLM(d, "chat_llm")
	d.literal("tool_failure_policy", &c.ToolFailurePolicy, "ignore", "warn", "raise")
	d.boolean("stream", &c.Stream)
	d.optBool("tracing", &c.Tracing)
	d.str("prompt_file", &c.PromptFile)
	if n := d.node("output_log_file"); !n.IsNull() {
		c.OutputLogFile = n.Plain()
	}
	d.boolean("share_crew", &c.ShareCrew)
	if n := defn.Get("inputs"); !n.IsNull() {
		if n.Kind != KindObject {
			l.err(n.Pos, joinPathBase(cd.base, "inputs"), cd.src, "'inputs' must be an object")
		} else {
			c.Inputs = n.inputValues()
		}
	}
	handled := crewHandledFields
	c.Extra = extraFields(defn, handled, crewRuntimeFields)
}

func extraFields(obj *Node, handled, runtime map[string]bool) map[string]any {
	var out map[string]any
	for _, f := range obj.Fields {
		if handled[f.Key] || runtime[f.Key] {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[f.Key] = f.Value.Plain()
	}
	return out
}

// crewValidators are Crew's model validators (formats §1.7).
func (l *loader) crewValidators(c *Crew, src string, pos Pos, futureContext bool) {
	fail := func(p Pos, field, msg string) {
		if !p.IsValid() {
			p = pos
		}
		l.err(p, field, src, "validation failed: "+msg)
	}
	if c.Process == "sequential" {
		for _, t := range c.Tasks {
			if t.Agent == "" {
				fail(t.Pos, t.fieldPath("agent"), "Sequential process error: Agent is missing in the task with the following description: "+t.Description)
				break
			}
		}
	}
	if c.Process == "hierarchical" {
		if c.ManagerLLM == nil && c.ManagerAgent == "" && c.ManagerAgentPython == "" {
			fail(c.Positions.At("process"), "process", "Attribute `manager_llm` or `manager_agent` is required when using hierarchical process.")
		}
		if c.ManagerAgent != "" {
			for _, a := range c.Agents {
				if a == c.ManagerAgent {
					fail(c.Positions.At("manager_agent"), "manager_agent", "Manager agent should not be included in agents list.")
					break
				}
			}
		}
	}
	trailingAsync := 0
	for i := len(c.Tasks) - 1; i >= 0 && c.Tasks[i].AsyncExecution; i-- {
		trailingAsync++
	}
	if trailingAsync > 1 {
		fail(c.Tasks[len(c.Tasks)-1].Pos, "tasks", "The crew must end with at most one asynchronous task.")
	}
	if len(c.Tasks) > 0 && c.Tasks[0].Type == "conditional" {
		fail(c.Tasks[0].Pos, "tasks[0].type", "The first task cannot be a ConditionalTask.")
	}
	allCond := len(c.Tasks) > 0
	for _, t := range c.Tasks {
		if t.Type != "conditional" {
			allCond = false
		}
	}
	if allCond {
		fail(pos, "tasks", "Crew must include at least one non-conditional task")
	}
	for _, t := range c.Tasks {
		if t.AsyncExecution && t.Type == "conditional" {
			fail(t.Positions.At("async_execution"), t.fieldPath("async_execution"), "Conditional Task: "+t.Description+", cannot be executed asynchronously.")
			break
		}
	}
	if !futureContext {
		return
	}
	index := map[string]int{}
	for i, t := range c.Tasks {
		if t.Name != "" {
			if _, ok := index[t.Name]; !ok {
				index[t.Name] = i
			}
		}
	}
	for i, t := range c.Tasks {
		for j, name := range t.Context {
			if k, ok := index[name]; ok && k > i {
				fail(t.Positions.At(indexPath("context", j)), t.fieldPath(indexPath("context", j)),
					fmt.Sprintf("Task '%s' has a context dependency on a future task '%s', which is not allowed.", t.Description, c.Tasks[k].Description))
			}
		}
	}
}

// fieldPath is p inside the task, as a path in the task's file.
func (t *Task) fieldPath(p string) string { return joinPathBase(t.base, p) }

// loadAgentDef validates one agent object (formats §1.5) and decodes it.
func (l *loader) loadAgentDef(name string, defn *Node, file, label, base string) *Agent {
	if defn.Kind != KindObject {
		l.err(defn.Pos, base, label, "expected a JSON object")
		return nil
	}
	a := &Agent{Name: name, MaxIter: 25, MaxRetryLimit: 2, Cache: true, RespectContextWindow: true,
		UseSystemPrompt: true, DateFormat: "%Y-%m-%d", GuardrailMaxRetries: 3,
		File: file, Pos: defn.Pos, Positions: defn.positions()} // relative to the agent object

	pythonType := false
	if t := defn.Get("type"); !t.IsNull() {
		switch ref, isRef, problem := pythonRef(t); {
		case t.Kind == KindString && agentTypeAliases[t.Str]:
			a.Type = t.Str
		case isRef && problem == "":
			a.Type = "python:" + ref
			pythonType = true
		case isRef:
			// reported by pythonRefErrors below
		case t.Kind == KindString:
			l.err(t.Pos, joinPathBase(base, "type"), label+": type",
				fmt.Sprintf(`unsupported agent type '%s'. Use 'Agent' or {"python": "module.CustomAgent"}.`, t.Str))
		default:
			l.err(t.Pos, joinPathBase(base, "type"), label+": type", `Python reference must be an object like {"python": "module.attribute"}`)
		}
	}
	if pythonType {
		l.note(defn.Pos, Info, "custom-agent-class", fmt.Sprintf("agent %q uses a custom Python class (%s); its extra fields are not checked", name, a.Type[7:]))
	} else {
		l.fieldErrors(defn, agentFields, agentRuntimeFields, agentExtraAllowed, label, file, base)
	}
	if fr := defn.Get("from_repository"); fr.IsNull() || (fr.Kind == KindString && fr.Str == "") || (fr.Kind == KindBool && !fr.Bool) {
		for _, req := range []string{"role", "goal", "backstory"} {
			if defn.Get(req).IsNull() {
				l.err(defn.Pos, joinPathBase(base, req), label, fmt.Sprintf("missing required field '%s'", req))
			}
		}
	}
	d := newDecoder(l, label, file, base, defn)
	if s := defn.Get("settings"); !s.IsNull() {
		if s.Kind != KindObject {
			l.err(s.Pos, joinPathBase(base, "settings"), label, "'settings' must be an object when provided")
		} else {
			if !pythonType {
				l.fieldErrors(s, agentFields, agentRuntimeFields, nil, label+": settings", file, joinPathBase(base, "settings"))
			}
			l.pythonRefErrors(s, label+": settings", file, joinPathBase(base, "settings"))
			for _, f := range s.Fields {
				if top := defn.Field(f.Key); top != nil && f.Key != "settings" {
					l.note(f.KeyPos, Info, "settings-override", fmt.Sprintf("settings.%s overrides %s at %s (settings wins)", f.Key, f.Key, top.KeyPos))
				}
				a.Positions[f.Key] = f.Value.Pos
			}
			d.overlay(s, "settings")
		}
	}
	l.pythonRefErrors(defn, label, file, base)
	// The top-level "settings"/"type" keys are not Agent fields.
	delete(d.fields, "settings")

	l.decodeAgentFields(a, d, name, true)
	return a
}

// decodeAgentFields reads an agent's values (settings already merged into
// d). withTools is false for classic YAML, whose tools name @tool methods.
func (l *loader) decodeAgentFields(a *Agent, d *decoder, name string, withTools bool) {
	d.str("role", &a.Role)
	d.str("goal", &a.Goal)
	d.str("backstory", &a.Backstory)
	a.LLM = l.decodeLLM(d, "llm")
	a.FunctionCallingLLM = l.decodeLLM(d, "function_calling_llm")
	if withTools && d.has("tools") {
		a.Tools = l.decodeTools(d.node("tools"), d.vsrc, d.file, d.path("tools"))
	}
	if d.has("mcps") {
		a.MCPs = l.decodeMCPs(d, name)
	}
	if apps, ok := d.stringList("apps"); ok {
		for i, app := range apps {
			if strings.Count(app, "/") > 1 {
				d.invalid(d.node("apps").Items[i], indexPath(d.paths["apps"], i),
					fmt.Sprintf("Value error, Invalid app format '%s'. Apps can only have one '/' for app/action format (e.g., 'gmail/send_email')", app))
			}
		}
		a.Apps = dedupeStrings(apps)
	}
	d.boolean("allow_delegation", &a.AllowDelegation)
	d.integer("max_iter", &a.MaxIter)
	d.integer("max_retry_limit", &a.MaxRetryLimit)
	d.optInt("max_execution_time", &a.MaxExecutionTime)
	if a.MaxExecutionTime != nil && *a.MaxExecutionTime <= 0 {
		d.invalid(d.node("max_execution_time"), d.paths["max_execution_time"], "Max Execution time must be a positive integer greater than zero")
	}
	d.optInt("max_rpm", &a.MaxRPM)
	d.optInt("max_tokens", &a.MaxTokens)
	d.boolean("verbose", &a.Verbose)
	d.boolean("cache", &a.Cache)
	d.boolean("respect_context_window", &a.RespectContextWindow)
	d.boolean("use_system_prompt", &a.UseSystemPrompt)
	d.str("system_template", &a.SystemTemplate)
	d.str("prompt_template", &a.PromptTemplate)
	d.str("response_template", &a.ResponseTemplate)
	d.boolean("inject_date", &a.InjectDate)
	d.str("date_format", &a.DateFormat)
	d.literal("tool_failure_policy", &a.ToolFailurePolicy, "ignore", "warn", "raise")
	if n := d.node("memory"); !n.IsNull() {
		a.Memory = n.Plain()
	}
	if n := d.node("guardrail"); !n.IsNull() {
		a.Guardrail = decodeGuardrail(n)
	}
	d.integer("guardrail_max_retries", &a.GuardrailMaxRetries)
	d.boolean("planning", &a.Planning)
	d.boolean("reasoning", &a.Reasoning)
	d.optInt("max_reasoning_attempts", &a.MaxReasoningAttempts)
	if n := d.node("planning_config"); !n.IsNull() && n.Kind == KindObject {
		pd := newDecoder(d.l, d.vsrc, d.file, d.path("planning_config"), n)
		pc := &PlanningConfig{}
		pd.optInt("max_attempts", &pc.MaxAttempts)
		pd.optInt("max_steps", &pc.MaxSteps)
		pd.optStr("system_prompt", &pc.SystemPrompt)
		pd.optStr("plan_prompt", &pc.PlanPrompt)
		pd.optStr("refine_prompt", &pc.RefinePrompt)
		pc.LLM = l.decodeLLM(pd, "llm")
		pd.literal("reasoning_effort", &pc.ReasoningEffort, "low", "medium", "high")
		pd.optBool("observe_steps", &pc.ObserveSteps)
		pd.optInt("max_replans", &pc.MaxReplans)
		pd.optInt("max_step_iterations", &pc.MaxStepIterations)
		pd.optInt("step_timeout", &pc.StepTimeout)
		for _, f := range n.Fields {
			if !planningConfigRead[f.Key] {
				pc.Others = append(pc.Others, f.Key)
			}
		}
		a.PlanningConfig = pc
	}
	d.boolean("multimodal", &a.Multimodal)
	d.boolean("allow_code_execution", &a.AllowCodeExecution)

	handled := agentHandledFields
	for k, f := range d.fields {
		if handled[k] || agentRuntimeFields[k] || f == nil {
			continue
		}
		if a.Extra == nil {
			a.Extra = map[string]any{}
		}
		a.Extra[k] = f.Value.Plain()
	}
}

func decodeGuardrail(n *Node) *Guardrail {
	if ref, isRef, _ := pythonRef(n); isRef {
		return &Guardrail{Python: ref, Pos: n.Pos}
	}
	if n.Kind == KindString {
		return &Guardrail{Text: n.Str, Pos: n.Pos}
	}
	return &Guardrail{Text: fmt.Sprint(n.Plain()), Pos: n.Pos}
}

func dedupeStrings(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// loadTaskDef validates and decodes tasks[i] (formats §1.6).
func (l *loader) loadTaskDef(i int, tn *Node, cd crewDef, agents map[string]*Agent, known map[string]bool) *Task {
	tasksBase := joinPathBase(cd.base, "tasks")
	base := indexPath(tasksBase, i)
	tsrc := fmt.Sprintf("tasks[%d]", i)
	if tn.Kind != KindObject {
		l.err(tn.Pos, base, cd.src, tsrc+" must be an object")
		return nil
	}
	label := cd.src + ": " + tsrc
	t := &Task{Index: i, CreateDirectory: true, GuardrailMaxRetries: 3, File: cd.file, Pos: tn.Pos, Positions: tn.positions(), base: base} // relative to the task object

	// type
	allowed := taskFields
	pythonType := false
	if ty := tn.Get("type"); !ty.IsNull() {
		switch ref, isRef, problem := pythonRef(ty); {
		case ty.Kind == KindString && taskTypeAliases[ty.Str]:
			t.Type = ty.Str
		case ty.Kind == KindString && conditionalTypeAliases[ty.Str]:
			t.Type = "conditional"
			allowed = union(taskFields, conditionalTaskFields)
		case isRef && problem == "":
			t.Type = "python:" + ref
			pythonType = true
		case isRef:
		case ty.Kind == KindString:
			l.err(ty.Pos, joinPath(base, "type"), label+": type",
				fmt.Sprintf(`unsupported task type '%s'. Use 'Task', 'ConditionalTask', or {"python": "module.CustomTask"}.`, ty.Str))
		default:
			l.err(ty.Pos, joinPath(base, "type"), label+": type", `Python reference must be an object like {"python": "module.attribute"}`)
		}
	}
	if !pythonType {
		l.fieldErrors(tn, allowed, taskRuntimeFields, taskExtraAllowed, label, cd.file, base)
	}
	l.pythonRefErrors(tn, label, cd.file, base)
	if inf := tn.Get("input_files"); !inf.IsNull() {
		l.checkInputFiles(inf, label+": input_files", joinPath(base, "input_files"))
	}
	for _, req := range []string{"description", "expected_output"} {
		if !tn.Has(req) {
			l.err(tn.Pos, joinPath(base, req), cd.src, fmt.Sprintf("%s missing required field '%s'", tsrc, req))
		}
	}
	if ag := tn.Get("agent"); !ag.IsNull() {
		name := ag.Str
		if ag.Kind != KindString {
			name = fmt.Sprint(ag.Plain())
		}
		if _, ok := agents[name]; !ok || ag.Kind != KindString {
			l.err(ag.Pos, joinPath(base, "agent"), cd.src,
				fmt.Sprintf("%s references agent '%s' which does not match a loaded agent definition", tsrc, name))
		}
		t.Agent = name
	}
	if tools := tn.Get("tools"); tools != nil {
		t.Tools = l.decodeTools(tools, label, cd.file, joinPath(base, "tools"))
	}
	if ctx := tn.Get("context"); !ctx.IsNull() {
		t.ContextSet, t.Context = true, []string{}
		if ctx.Kind != KindArray {
			l.err(ctx.Pos, joinPath(base, "context"), cd.src, tsrc+" field 'context' must be a list of task names")
		} else {
			for j, it := range ctx.Items {
				name := it.Str
				if it.Kind != KindString {
					name = fmt.Sprint(it.Plain())
				}
				if !known[name] {
					l.err(it.Pos, indexPath(joinPath(base, "context"), j), cd.src,
						fmt.Sprintf("%s has context reference '%s' but that task has not been defined yet", tsrc, name))
				}
				t.Context = append(t.Context, name)
			}
		}
	}

	d := newDecoder(l, label, cd.file, base, tn)
	l.decodeTaskFields(t, d, joinPathBase(cd.base, fmt.Sprintf("tasks[%d]", i)), label)
	return t
}

// decodeTaskFields reads a task's values other than agent, context and
// tools (which differ between JSON and classic YAML).
func (l *loader) decodeTaskFields(t *Task, d *decoder, base, label string) {
	d.str("name", &t.Name)
	d.str("description", &t.Description)
	d.str("expected_output", &t.ExpectedOutput)
	d.str("output_file", &t.OutputFile)
	if t.OutputFile != "" {
		if msg := outputFileProblem(t.OutputFile); msg != "" {
			d.invalid(d.node("output_file"), "output_file", msg)
		}
	}
	d.boolean("create_directory", &t.CreateDirectory)
	d.boolean("async_execution", &t.AsyncExecution)
	d.boolean("human_input", &t.HumanInput)
	d.boolean("markdown", &t.Markdown)
	d.optBool("allow_crewai_trigger_context", &t.AllowTriggerContext)
	t.OutputJSON = decodeSchema(d.node("output_json"))
	t.OutputPydantic = decodeSchema(d.node("output_pydantic"))
	t.ResponseModel = decodeSchema(d.node("response_model"))
	if t.OutputJSON != nil && t.OutputPydantic != nil {
		d.invalid(d.node("output_pydantic"), "output_pydantic", "Only one output type can be set, either output_pydantic or output_json.")
	}
	var listed []Guardrail
	if n := d.node("guardrails"); !n.IsNull() {
		if n.Kind == KindArray {
			for _, it := range n.Items {
				listed = append(listed, *decodeGuardrail(it))
			}
		} else {
			listed = append(listed, *decodeGuardrail(n))
		}
	}
	if n := d.node("guardrail"); !n.IsNull() {
		t.Guardrails = append(t.Guardrails, *decodeGuardrail(n))
	}
	// A non-empty guardrails: replaces guardrail: (task.py:412-469).
	if len(listed) > 0 {
		t.Guardrails, t.GuardrailsListed = listed, true
	}
	if d.present("max_retries") && !d.present("guardrail_max_retries") {
		d.integer("max_retries", &t.GuardrailMaxRetries)
	}
	d.integer("guardrail_max_retries", &t.GuardrailMaxRetries)
	d.literal("tool_failure_policy", &t.ToolFailurePolicy, "ignore", "warn", "raise")
	if n := d.node("condition"); !n.IsNull() {
		if ref, isRef, _ := pythonRef(n); isRef {
			t.Condition = ref
			t.ConditionDecl = l.conditionModule(ref, n.Pos)
		}
	} else if t.Type == "conditional" {
		t.ConditionDecl = &TaskCondition{Missing: true, Pos: t.Pos}
	}
	if n := d.node("callback"); !n.IsNull() {
		if ref, isRef, _ := pythonRef(n); isRef {
			t.Callback = ref
		}
	}
	if n := d.node("converter_cls"); n != nil && n.Kind == KindString {
		l.err(n.Pos, joinPath(base, "converter_cls"), label+": converter_cls", `converter_cls must use {"python": "module.ConverterSubclass"}`)
	} else if ref, isRef, _ := pythonRef(n); isRef {
		t.ConverterCls = ref
	}
	if n := d.node("input_files"); n != nil && n.Kind == KindObject {
		t.InputFiles = n.Plain().(map[string]any)
	}
	handled := taskHandledFields
	for k, f := range d.fields {
		if handled[k] || taskRuntimeFields[k] || f == nil {
			continue
		}
		if t.Extra == nil {
			t.Extra = map[string]any{}
		}
		t.Extra[k] = f.Value.Plain()
	}
}

func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func decodeSchema(n *Node) *Schema {
	if n.IsNull() {
		return nil
	}
	if ref, isRef, _ := pythonRef(n); isRef {
		return &Schema{Python: ref, Pos: n.Pos}
	}
	if n.Kind == KindObject {
		ordered, _ := n.Ordered().(*pyjson.Object)
		return &Schema{JSON: n.Plain().(map[string]any), Ordered: ordered, Pos: n.Pos}
	}
	if n.Kind == KindString {
		// classic YAML: a class name decorated @output_json/@output_pydantic
		return &Schema{Python: n.Str, Pos: n.Pos}
	}
	return nil
}

var outputFileVar = regexp.MustCompile(`\{([^{}]*)\}`)

// outputFileProblem is Task's output_file validation (formats §1.6).
func outputFileProblem(p string) string {
	if strings.Contains(p, "..") {
		return "Path traversal attempts are not allowed in output_file paths"
	}
	if strings.HasPrefix(p, "~") {
		return "Shell expansion characters are not allowed in output_file paths"
	}
	if strings.ContainsAny(p, "|><&;") {
		return "Shell special characters are not allowed in output_file paths"
	}
	if strings.HasPrefix(p, "$") {
		return "Shell expansion characters are not allowed in output_file paths"
	}
	for _, m := range outputFileVar.FindAllStringSubmatch(p, -1) {
		if !isPyIdentifier(m[1]) {
			return fmt.Sprintf("Invalid template variable name: %s", m[1])
		}
	}
	return ""
}

// checkInputFiles: paths must stay inside the project root.
func (l *loader) checkInputFiles(n *Node, label, path string) {
	if n.Kind != KindObject {
		l.err(n.Pos, path, "", label+" must be an object mapping names to file specs")
		return
	}
	check := func(v *Node, lab, p string) {
		if v == nil || v.Kind != KindString || v.Str == "" {
			return
		}
		if outside := l.outsideRoot(v.Str); outside {
			l.err(v.Pos, p, lab, fmt.Sprintf("path '%s' resolves outside the project root %s", v.Str, l.root))
		}
	}
	for _, f := range n.Fields {
		switch f.Value.Kind {
		case KindString:
			check(f.Value, label+"."+f.Key, joinPath(path, f.Key))
		case KindObject:
			for _, k := range []string{"source", "path"} {
				check(f.Value.Get(k), label+"."+f.Key+"."+k, joinPath(joinPath(path, f.Key), k))
			}
		}
	}
}

// The fields each decoder reads itself; the rest go to Extra. Package
// level, built once rather than per crew, agent and task.
// planningConfigRead are the planning_config fields the planning calls read.
var planningConfigRead = set("max_attempts", "max_steps", "system_prompt", "plan_prompt", "refine_prompt", "llm",
	"reasoning_effort", "observe_steps", "max_replans", "max_step_iterations", "step_timeout")

var crewHandledFields = set("name", "process", "verbose", "memory", "cache", "max_rpm", "planning", "planning_llm",
	"manager_llm", "function_calling_llm", "chat_llm", "tool_failure_policy", "stream", "tracing",
	"prompt_file", "output_log_file", "share_crew", "inputs", "agents", "tasks", "manager_agent")

var agentHandledFields = set("role", "goal", "backstory", "llm", "function_calling_llm", "tools", "mcps", "apps",
	"allow_delegation", "max_iter", "max_retry_limit", "max_execution_time", "max_rpm", "max_tokens",
	"verbose", "cache", "respect_context_window", "use_system_prompt", "system_template",
	"prompt_template", "response_template", "inject_date", "date_format", "tool_failure_policy",
	"memory", "guardrail", "guardrail_max_retries", "planning", "reasoning", "max_reasoning_attempts", "multimodal",
	"allow_code_execution", "settings", "type")

var taskHandledFields = set("name", "description", "expected_output", "agent", "context", "tools", "output_file",
	"create_directory", "async_execution", "human_input", "markdown", "allow_crewai_trigger_context", "output_json", "output_pydantic",
	"response_model", "guardrail", "guardrails", "max_retries", "guardrail_max_retries",
	"tool_failure_policy", "condition", "callback", "input_files", "type")
