package project

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"crewbench/crew/filelimit"
	"crewbench/crew/pyread"
	"crewbench/mcpconn"
	"crewbench/names/suggest"
)

// Classic projects (formats §2): config/agents.yaml and config/tasks.yaml
// hold the texts; crew.py holds the order (@task methods), explicit
// constructor arguments (which beat YAML), MCP servers, filters and the
// Crew(...) settings. crew.py is read, never run.

// agentScalarKwargs are Agent(...) keyword arguments read as values; a
// non-literal one becomes Unresolved ("agents.NAME.KW").
var agentScalarKwargs = set("role", "goal", "backstory", "allow_delegation", "max_iter", "max_retry_limit",
	"max_execution_time", "max_rpm", "max_tokens", "verbose", "cache", "respect_context_window",
	"use_system_prompt", "inject_date", "date_format", "tool_failure_policy", "system_template",
	"prompt_template", "response_template", "guardrail_max_retries", "planning", "reasoning", "max_reasoning_attempts", "multimodal",
	"allow_code_execution", "apps", "memory", "guardrail")

var taskScalarKwargs = set("name", "description", "expected_output", "output_file", "create_directory",
	"async_execution", "human_input", "markdown", "allow_crewai_trigger_context", "guardrail_max_retries", "max_retries", "tool_failure_policy",
	"guardrail")

var crewScalarKwargs = set("name", "verbose", "memory", "cache", "max_rpm", "planning", "tool_failure_policy",
	"stream", "tracing", "prompt_file", "output_log_file", "share_crew")

// classicLayout is where a classic project's files are.
type classicLayout struct {
	crewPy   string // absolute; may not exist
	mainPy   string
	pkgDir   string
	agentsYA string
	tasksYA  string
}

// findClassic locates src/<pkg>/ under dir (or dir itself when it holds
// crew.py or config/).
func findClassic(dir string) (classicLayout, bool) {
	try := func(pkg string) (classicLayout, bool) {
		lay := classicLayout{pkgDir: pkg, crewPy: filepath.Join(pkg, "crew.py"), mainPy: filepath.Join(pkg, "main.py"),
			agentsYA: filepath.Join(pkg, "config", "agents.yaml"), tasksYA: filepath.Join(pkg, "config", "tasks.yaml")}
		if isFile(lay.crewPy) || isFile(lay.agentsYA) || isFile(lay.tasksYA) {
			return lay, true
		}
		return lay, false
	}
	if name := pyprojectName(dir); name != "" {
		if lay, ok := try(filepath.Join(dir, "src", normalizePackageName(name))); ok {
			return lay, true
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "src", "*", "config", "agents.yaml")); len(matches) > 0 {
		return try(filepath.Dir(filepath.Dir(matches[0])))
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "src", "*", "crew.py")); len(matches) > 0 {
		return try(filepath.Dir(matches[0]))
	}
	return try(dir)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// normalizePackageName is crewai's folder-name rule: spaces and "-" → "_",
// lowercase, drop everything outside [a-z0-9_].
func normalizePackageName(s string) string {
	s = strings.ToLower(strings.NewReplacer(" ", "_", "-", "_").Replace(strings.TrimRight(s, "/")))
	var b strings.Builder
	for _, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (l *loader) loadClassic(lay classicLayout) {
	src, err := filelimit.Read(lay.crewPy, filelimit.Source)
	switch {
	case err == nil:
		l.addFile(lay.crewPy, "crew.py")
	case errors.Is(err, fs.ErrNotExist):
		src = nil
	default:
		l.err(Pos{File: l.rel(lay.crewPy)}, "", "", "cannot read "+l.rel(lay.crewPy)+": "+errText(err))
		src = nil
	}
	l.loadClassicSource(lay, src)
}

// loadClassicSource loads a classic project whose crew.py text is src
// (nil: no crew.py).
func (l *loader) loadClassicSource(lay classicLayout, src []byte) {
	p := l.p
	var m *pyModule
	var cls *pyClass
	crewPyShown := l.rel(lay.crewPy)
	if src != nil {
		m = l.parsePy(src, crewPyShown)
		cls = m.crewClass()
		if cls == nil {
			l.note(Pos{File: crewPyShown}, Warn, "crewpy-no-class", "crew.py has no @CrewBase class with @agent/@task methods: agents and tasks are taken from the YAML files in file order")
		}
	} else {
		l.note(Pos{File: l.rel(lay.pkgDir)}, Warn, "crewpy-missing", "no crew.py: task order, explicit arguments, MCP servers and Crew(...) settings live there; tasks run in tasks.yaml order here")
	}
	ev := &pyEval{l: l, m: m, cls: cls}
	if m == nil {
		ev.m = &pyModule{imports: map[string]string{}, scope: newScope(nil, nil)}
	}
	// config paths (class attributes agents_config / tasks_config)
	agentsPath, tasksPath := lay.agentsYA, lay.tasksYA
	if cls != nil {
		if e := cls.attrs.vars["agents_config"]; e != nil && e.Kind == pyread.String {
			agentsPath = filepath.Join(filepath.Dir(lay.crewPy), e.Str)
		}
		if e := cls.attrs.vars["tasks_config"]; e != nil && e.Kind == pyread.String {
			tasksPath = filepath.Join(filepath.Dir(lay.crewPy), e.Str)
		}
	}
	agentsYAML := l.readYAMLConfig(agentsPath, "agents.yaml")
	tasksYAML := l.readYAMLConfig(tasksPath, "tasks.yaml")

	crewName := "crew"
	if cls != nil {
		crewName = cls.name
	}
	c := &Crew{Name: crewName, Process: "sequential", File: crewPyShown, Positions: Positions{}}
	switch {
	case cls != nil:
		c.Pos = cls.pos
	case tasksYAML != nil:
		c.Pos = tasksYAML.Pos
	case agentsYAML != nil:
		c.Pos = agentsYAML.Pos
	default:
		c.Pos = Pos{File: l.rel(lay.pkgDir)}
	}
	p.Crew = c

	// adapter servers (MCPServerAdapter via mcp_server_params)
	var adapterServers []*Server
	if cls != nil {
		if params := cls.attrs.vars["mcp_server_params"]; params != nil {
			timeout := cls.attrs.vars["mcp_connect_timeout"]
			r := ev.resolve(params, cls.attrs)
			items := []*pyread.Expr{r}
			if r.Kind == pyread.List || r.Kind == pyread.Tuple {
				items = r.Items
			}
			for i, it := range items {
				s := ev.serverFromExpr(it, cls.attrs, "", fmt.Sprintf("%s mcp_server_params[%d]", crewPyShown, i), true, timeout)
				if s == nil {
					l.unresolved(&Unresolved{ID: fmt.Sprintf("crew.mcp_server_params[%d]", i), Pos: it.Pos, Field: "mcp_server_params", Expr: exprText(it),
						Suggestion: "declare the server in crewbench.yaml under servers: with policy: adapter"})
					continue
				}
				adapterServers = append(adapterServers, s)
			}
		}
	}

	// agents
	var agentMethods []*pyFunc
	toolMethods := map[string]bool{}
	llmMethods := map[string]*pyFunc{}
	if cls != nil {
		for _, f := range cls.methods {
			switch {
			case f.hasDecorator("agent"):
				agentMethods = append(agentMethods, f)
			case f.hasDecorator("tool"):
				toolMethods[f.name] = true
			case f.hasDecorator("llm"):
				llmMethods[f.name] = f
			}
		}
	}
	cx := &classicCtx{l: l, ev: ev, cls: cls, agentsYAML: agentsYAML, tasksYAML: tasksYAML, toolMethods: toolMethods,
		llmMethods: llmMethods, adapterServers: adapterServers, crewPy: crewPyShown, pkgDir: lay.pkgDir}
	if len(agentMethods) > 0 {
		for _, f := range agentMethods {
			cx.agentFromMethod(f, false)
		}
	} else if agentsYAML != nil {
		for _, fl := range agentsYAML.Fields {
			cx.buildAgent(fl.Key, fl.Value, nil, nil, false, fl.KeyPos)
		}
	}

	// tasks
	var taskMethods []*pyFunc
	if cls != nil {
		for _, f := range cls.methods {
			if f.hasDecorator("task") {
				taskMethods = append(taskMethods, f)
			}
		}
	}
	if len(taskMethods) > 0 {
		for _, f := range taskMethods {
			cx.taskFromMethod(f)
		}
	} else if tasksYAML != nil {
		if cls != nil || m == nil {
			l.note(tasksYAML.Pos, Info, "tasks-yaml-order", "no @task methods found: tasks run in tasks.yaml order here (CrewAI uses the order of the @task methods in crew.py)")
		}
		for _, fl := range tasksYAML.Fields {
			cx.buildTask(fl.Key, fl.Value, nil, nil, fl.KeyPos)
		}
	}
	p.Tasks = c.Tasks

	// crew settings
	var crewCall *pyread.Expr
	var crewScope *pyScope
	if cls != nil {
		for _, f := range cls.methods {
			if f.hasDecorator("crew") {
				crewCall, crewScope = cx.findCall(f, "Crew")
				break
			}
		}
	}
	cx.crewSettings(crewCall, crewScope)

	// servers declared anywhere in crew.py but not attached to an agent
	if m != nil {
		for _, site := range m.calls {
			switch {
			case ev.m.calledAs(site.call, "MCPServerStdio", "MCPServerHTTP", "MCPServerSSE"):
				ev.serverFromExpr(site.call, site.scope, "", crewPyShown+" "+site.call.X.Dotted()+"(…)", false, nil)
			case ev.m.calledAs(site.call, "MCPServerAdapter") && len(site.call.Items) > 0:
				params := ev.resolve(site.call.Items[0], site.scope)
				list := []*pyread.Expr{params}
				if params.Kind == pyread.List || params.Kind == pyread.Tuple {
					list = params.Items
				}
				for i, it := range list {
					ev.serverFromExpr(it, site.scope, "", fmt.Sprintf("%s MCPServerAdapter params[%d]", crewPyShown, i), true, site.call.Kwarg("connect_timeout"))
				}
			}
		}
	}

	// inputs from main.py
	l.mainInputs(lay.mainPy)
	l.crewValidators(c, crewPyShown, c.Pos, true)
}

// readYAMLConfig reads agents.yaml / tasks.yaml: a mapping of names to
// mappings. A missing file is a warning (CrewAI logs one and uses {}).
func (l *loader) readYAMLConfig(path, role string) *Node {
	shown := l.rel(path)
	src, err := filelimit.Read(path, filelimit.Config)
	if errors.Is(err, fs.ErrNotExist) {
		l.note(Pos{File: shown}, Warn, "yaml-missing", fmt.Sprintf("%s not found: CrewAI logs a warning and uses {}", shown))
		return nil
	}
	if err != nil {
		l.err(Pos{File: shown}, "", "", "cannot read "+shown+": "+errText(err))
		return nil
	}
	l.addFile(path, role)
	doc, perr := parseYAMLDoc(src, shown)
	if perr != nil {
		l.errs = append(l.errs, asError(perr, shown))
		return nil
	}
	for _, d := range doc.Duplicates {
		l.note(d.Pos, Warn, "yaml-duplicate-key", d.Msg+" (PyYAML keeps the last value)")
	}
	if doc.Root.Kind == KindNull {
		return &Node{Kind: KindObject, Pos: doc.Root.Pos}
	}
	if doc.Root.Kind != KindObject {
		l.err(doc.Root.Pos, "", "", shown+" must be a mapping of names to settings")
		return nil
	}
	return doc.Root
}

type classicCtx struct {
	l              *loader
	ev             *pyEval
	cls            *pyClass
	agentsYAML     *Node
	tasksYAML      *Node
	toolMethods    map[string]bool
	llmMethods     map[string]*pyFunc
	adapterServers []*Server
	crewPy         string
	pkgDir         string
	building       map[string]bool
}

// findCall finds the Agent/Task/Crew(...) call a method returns.
func (cx *classicCtx) findCall(f *pyFunc, name string) (*pyread.Expr, *pyScope) {
	for _, r := range f.returns {
		rr := cx.ev.resolve(r, f.scope)
		if cx.ev.m.calledAs(rr, name) {
			return rr, f.scope
		}
	}
	for _, c := range f.calls {
		if cx.ev.m.calledAs(c, name) {
			return c, f.scope
		}
	}
	return nil, f.scope
}

// configKey reads config=self.agents_config['x'] (or tasks_config).
func (cx *classicCtx) configKey(call *pyread.Expr, attr, fallback string) (string, *pyread.Expr) {
	cfg := call.Kwarg("config")
	if cfg == nil {
		return "", nil
	}
	if cfg.Kind == pyread.Subscript && strings.HasSuffix(cfg.X.Dotted(), attr) && cfg.Index != nil && cfg.Index.Kind == pyread.String {
		return cfg.Index.Str, cfg
	}
	return fallback, cfg
}

func (cx *classicCtx) agentFromMethod(f *pyFunc, manager bool) *Agent {
	if cx.building == nil {
		cx.building = map[string]bool{}
	}
	if a := cx.l.p.Agent(f.name); a != nil || cx.building[f.name] {
		return a
	}
	cx.building[f.name] = true
	call, scope := cx.findCall(f, "Agent")
	var yamlNode *Node
	if call != nil {
		key, cfg := cx.configKey(call, "agents_config", f.name)
		if cfg != nil {
			if key == "" || cfg.Kind != pyread.Subscript {
				cx.l.note(cfg.Pos, Warn, "crewpy-config-nonliteral", fmt.Sprintf("config=%s is not self.agents_config['…']: assumed %q", exprText(cfg), f.name))
				key = f.name
			}
			yamlNode = cx.yamlEntry(cx.agentsYAML, key, cfg.Pos, "agents_config")
		}
	} else {
		yamlNode = cx.agentsYAML.Get(f.name)
		cx.l.note(f.pos, Warn, "crewpy-no-agent-call", fmt.Sprintf("@agent %s: no Agent(...) call found; using agents.yaml %q", f.name, f.name))
	}
	return cx.buildAgent(f.name, yamlNode, call, scope, manager, f.pos)
}

// yamlEntry returns config[key], reporting CrewAI's KeyError when missing.
func (cx *classicCtx) yamlEntry(cfg *Node, key string, pos Pos, attr string) *Node {
	if cfg == nil {
		return nil
	}
	n := cfg.Get(key)
	if n == nil {
		e := cx.l.err(pos, attr+"["+pyStrRepr(key)+"]", "", fmt.Sprintf("self.%s[%s]: no such entry (CrewAI raises KeyError: %s)", attr, pyStrRepr(key), pyStrRepr(key)))
		var keys []string
		for _, f := range cfg.Fields {
			keys = append(keys, f.Key)
		}
		if s := suggest.DidYouMean(key, keys); s != "" {
			e.Hint = fmt.Sprintf("did you mean %q?", s)
		}
		return nil
	}
	if n.Kind != KindObject {
		if n.Kind != KindNull {
			cx.l.err(n.Pos, key, "", fmt.Sprintf("%s: expected a mapping of settings", key))
		}
		return nil
	}
	return n
}

// mergeKwargs builds one object node: YAML fields, overridden by explicit
// keyword arguments that are literal and not None (process_config).
// Non-literal scalar kwargs become Unresolved with the given id prefix;
// an overlay value replaces them.
func (cx *classicCtx) mergeKwargs(yamlNode *Node, call *pyread.Expr, scope *pyScope, scalars map[string]bool, idPrefix, what string) *Node {
	merged := &Node{Kind: KindObject}
	if yamlNode != nil {
		merged.Pos = yamlNode.Pos
		merged.Fields = append(merged.Fields, yamlNode.Fields...)
	}
	if call == nil {
		return merged
	}
	if !merged.Pos.IsValid() {
		merged.Pos = call.Pos
	}
	for _, kw := range call.Kwargs {
		if !scalars[kw.Name] {
			continue
		}
		n, bad := cx.ev.literal(kw.Value, scope, 0)
		if bad == nil {
			if n.Kind != KindNull {
				merged.set(kw.Name, kw.Pos, n)
			}
			continue
		}
		u := cx.l.unresolved(&Unresolved{ID: idPrefix + "." + kw.Name, Pos: kw.Value.Pos, Field: what + " " + kw.Name, Expr: exprText(kw.Value)})
		if name, _, ok := cx.ev.envRead(cx.ev.resolve(kw.Value, scope)); ok && !u.Resolved {
			u.EnvVar = name
			if v, found, from := cx.l.p.lookupEnv(name); found {
				u.Resolved, u.Value, u.From = true, v, from
			}
		}
		if u.Resolved {
			merged.set(kw.Name, kw.Pos, plainToNode(u.Value, kw.Value.Pos))
		}
	}
	return merged
}

// plainToNode converts a plain value (from the overlay) to a Node at pos.
func plainToNode(v any, pos Pos) *Node {
	switch t := v.(type) {
	case nil:
		return &Node{Kind: KindNull, Pos: pos}
	case bool:
		return &Node{Kind: KindBool, Bool: t, Pos: pos}
	case int64:
		return &Node{Kind: KindNumber, IsInt: true, Int: t, Float: float64(t), Str: fmt.Sprint(t), Pos: pos}
	case int:
		return plainToNode(int64(t), pos)
	case float64:
		return &Node{Kind: KindNumber, Float: t, Str: fmt.Sprint(t), Pos: pos}
	case string:
		return &Node{Kind: KindString, Str: t, Pos: pos}
	case []any:
		n := &Node{Kind: KindArray, Pos: pos}
		for _, x := range t {
			n.Items = append(n.Items, plainToNode(x, pos))
		}
		return n
	case map[string]any:
		n := &Node{Kind: KindObject, Pos: pos}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			n.Fields = append(n.Fields, &Field{Key: k, KeyPos: pos, Value: plainToNode(t[k], pos)})
		}
		return n
	}
	return &Node{Kind: KindString, Str: fmt.Sprint(v), Pos: pos}
}

// buildAgent decodes one classic agent from its YAML entry and Agent(...)
// call.
func (cx *classicCtx) buildAgent(name string, yamlNode *Node, call *pyread.Expr, scope *pyScope, manager bool, where Pos) *Agent {
	l := cx.l
	merged := cx.mergeKwargs(yamlNode, call, scope, agentScalarKwargs, "agents."+name, "Agent "+name)
	if !merged.Pos.IsValid() {
		merged.Pos = where
	}
	planningLLM, hasPlanningLLM := cx.planningConfig(merged, call, scope, name)
	file := cx.crewPy
	if yamlNode != nil {
		file = yamlNode.Pos.File
	}
	a := &Agent{Name: name, Manager: manager, MaxIter: 25, MaxRetryLimit: 2, Cache: true, RespectContextWindow: true,
		UseSystemPrompt: true, DateFormat: "%Y-%m-%d", GuardrailMaxRetries: 3, File: file, Pos: merged.Pos, Positions: Positions{}}
	merged.walk("", a.Positions)
	label := file + ": " + name
	// YAML keys that are not Agent fields are ignored silently by CrewAI.
	if yamlNode != nil {
		for _, f := range yamlNode.Fields {
			if !agentFields[f.Key] {
				text := fmt.Sprintf("%s.%s is not an Agent field: CrewAI ignores it silently (JSON crews would reject it)", name, f.Key)
				if s := suggest.DidYouMean(f.Key, keysOf(agentFields)); s != "" {
					text += fmt.Sprintf("; did you mean %q?", s)
				}
				l.note(f.KeyPos, Warn, "yaml-unknown-key", text)
			}
		}
	}
	for _, req := range []string{"role", "goal", "backstory"} {
		if merged.Get(req).IsNull() {
			l.err(merged.Pos, name+"."+req, label, fmt.Sprintf("validation failed: %s: Field required", req))
		}
	}
	d := newDecoder(l, label, file, "", merged)
	// YAML llm: may name an @llm method; tools: name @tool methods.
	delete(d.fields, "tools")
	delete(d.fields, "llm")
	delete(d.fields, "function_calling_llm")
	l.decodeAgentFields(a, d, name, false)
	a.LLM = cx.llmValue(yamlNode.Get("llm"), call.Kwarg("llm"), scope, "agents."+name+".llm", label)
	a.FunctionCallingLLM = cx.llmValue(yamlNode.Get("function_calling_llm"), call.Kwarg("function_calling_llm"), scope, "agents."+name+".function_calling_llm", label)
	if hasPlanningLLM && a.PlanningConfig != nil {
		a.PlanningConfig.LLM = cx.llmValue(nil, planningLLM, scope, "agents."+name+".planning_config.llm", label)
	}
	// tools: explicit kwarg wins over YAML
	if t := call.Kwarg("tools"); t != nil {
		a.Tools, a.MCPs = cx.toolsFromExpr(t, scope, name)
		a.Positions["tools"] = t.Pos
	} else if t := yamlNode.Get("tools"); !t.IsNull() {
		a.Tools = cx.methodTools(t, name)
	}
	if mc := call.Kwarg("mcps"); mc != nil {
		a.MCPs = append(a.MCPs, cx.ev.mcpsFromExpr(mc, scope, name, cx.crewPy+" Agent "+name+" mcps")...)
		a.Positions["mcps"] = mc.Pos
	}
	for _, m := range a.MCPs {
		if s := l.p.Server(m.Server); s != nil {
			s.addAgent(name)
		}
	}
	l.p.Agents = append(l.p.Agents, a)
	return a
}

// planningConfig puts an Agent(...) call's planning_config into merged as
// the object the JSON form writes: a dict literal, or PlanningConfig(...)
// with its literal keyword values (a non-literal one is left out, with a
// note naming it: CrewAI's default then applies). The llm keyword of
// PlanningConfig(...) is returned, to be read as any llm is.
func (cx *classicCtx) planningConfig(merged *Node, call *pyread.Expr, scope *pyScope, agent string) (*pyread.Expr, bool) {
	kw := call.Kwarg("planning_config")
	if kw == nil {
		return nil, false
	}
	r := cx.ev.resolve(kw, scope)
	if !cx.ev.m.calledAs(r, "PlanningConfig") {
		n, bad := cx.ev.literal(kw, scope, 0)
		if bad != nil || (n.Kind != KindObject && n.Kind != KindNull) {
			cx.l.note(kw.Pos, Warn, "crewpy-planning-nonliteral", fmt.Sprintf("Agent %s planning_config=%s: neither PlanningConfig(...) nor a dict literal; crewbench does not read it", agent, exprText(kw)))
			return nil, false
		}
		merged.set("planning_config", kw.Pos, n)
		return nil, false
	}
	obj := &Node{Kind: KindObject, Pos: r.Pos}
	var llmKw *pyread.Expr
	for _, k := range r.Kwargs {
		if k.Name == "llm" {
			llmKw = k.Value
			continue
		}
		n, bad := cx.ev.literal(k.Value, scope, 0)
		if bad != nil {
			cx.l.note(k.Value.Pos, Warn, "crewpy-planning-nonliteral", fmt.Sprintf("Agent %s planning_config %s=%s: not a literal; crewbench leaves it out, so CrewAI's default applies", agent, k.Name, exprText(k.Value)))
			continue
		}
		obj.Fields = append(obj.Fields, &Field{Key: k.Name, KeyPos: k.Pos, Value: n})
	}
	merged.set("planning_config", kw.Pos, obj)
	return llmKw, llmKw != nil
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// llmValue reads an llm from YAML (a model string or an @llm method name)
// or from an explicit kwarg (a string, LLM(...), self.method(), a variable).
func (cx *classicCtx) llmValue(yaml *Node, kw *pyread.Expr, scope *pyScope, id, label string) *LLM {
	if kw != nil {
		r := cx.ev.resolve(kw, scope)
		// self.my_llm() → the @llm method's return
		if r.Kind == pyread.Call && r.X.Kind == pyread.Attr && r.X.X.Kind == pyread.Name && r.X.X.Str == "self" {
			if f := cx.llmMethods[r.X.Str]; f != nil {
				return cx.llmFromMethod(f)
			}
		}
		if llm := cx.llmFromExpr(r, scope); llm != nil {
			return llm
		}
		if r.Kind == pyread.None {
			return nil
		}
		u := cx.l.unresolved(&Unresolved{ID: id, Pos: kw.Pos, Field: "llm", Expr: exprText(kw),
			Suggestion: "give a model string in crewbench.yaml: values: {" + id + ": openai/gpt-4o-mini} (or override every agent with llm:)"})
		if u.Resolved {
			return &LLM{Model: fmt.Sprint(u.Value), Source: u.From, Pos: kw.Pos}
		}
		return nil
	}
	if yaml.IsNull() {
		return nil
	}
	if yaml.Kind == KindString {
		if f := cx.llmMethods[yaml.Str]; f != nil {
			return cx.llmFromMethod(f)
		}
		return &LLM{Model: yaml.Str, Pos: yaml.Pos, Source: yaml.Pos.String()}
	}
	d := newDecoder(cx.l, label, yaml.Pos.File, "", nil)
	return cx.l.llmFromNode(yaml, d, "llm")
}

func (cx *classicCtx) llmFromMethod(f *pyFunc) *LLM {
	call, scope := cx.findCall(f, "LLM")
	llm := &LLM{Method: f.name, Pos: f.pos, Source: f.pos.String() + " (@llm " + f.name + ")"}
	if call == nil {
		for _, r := range f.returns {
			if rr := cx.ev.resolve(r, f.scope); rr.Kind == pyread.String {
				llm.Model = rr.Str
			}
		}
		return llm
	}
	if got := cx.llmFromExpr(call, scope); got != nil {
		got.Method, got.Source = f.name, llm.Source
		return got
	}
	return llm
}

// llmFromExpr reads "model" or LLM(model=…, temperature=…, …).
func (cx *classicCtx) llmFromExpr(r *pyread.Expr, scope *pyScope) *LLM {
	switch {
	case r.Kind == pyread.String:
		return &LLM{Model: r.Str, Pos: r.Pos, Source: r.Pos.String()}
	case cx.ev.m.calledAs(r, "LLM"):
		obj := &Node{Kind: KindObject, Pos: r.Pos}
		if len(r.Items) > 0 {
			if n, bad := cx.ev.literal(r.Items[0], scope, 0); bad == nil && n.Kind == KindString {
				obj.Fields = append(obj.Fields, &Field{Key: "model", KeyPos: n.Pos, Value: n})
			}
		}
		for _, kw := range r.Kwargs {
			n, bad := cx.ev.literal(kw.Value, scope, 0)
			if bad != nil {
				if name, _, ok := cx.ev.envRead(cx.ev.resolve(kw.Value, scope)); ok {
					if v, found, _ := cx.l.p.lookupEnv(name); found {
						n = &Node{Kind: KindString, Str: v, Pos: kw.Value.Pos}
					}
				}
				if n == nil {
					cx.l.note(kw.Value.Pos, Info, "crewpy-llm-nonliteral", fmt.Sprintf("LLM(%s=%s): not a literal; left out", kw.Name, exprText(kw.Value)))
					continue
				}
			}
			obj.Fields = append(obj.Fields, &Field{Key: kw.Name, KeyPos: kw.Pos, Value: n})
		}
		d := newDecoder(cx.l, cx.crewPy, cx.crewPy, "", nil)
		return cx.l.llmFromNode(obj, d, "llm")
	}
	return nil
}

// methodTools reads YAML tools: @tool method names.
func (cx *classicCtx) methodTools(n *Node, agent string) []ToolRef {
	if n.Kind != KindArray {
		cx.l.err(n.Pos, agent+".tools", "", agent+".tools must be a list of @tool method names")
		return nil
	}
	var out []ToolRef
	for _, it := range n.Items {
		if it.Kind != KindString {
			continue
		}
		if cx.cls != nil && !cx.toolMethods[it.Str] {
			e := cx.l.err(it.Pos, agent+".tools", "", fmt.Sprintf("tools: %s is not a @tool method of %s (CrewAI raises KeyError: %s)", pyStrRepr(it.Str), cx.cls.name, pyStrRepr(it.Str)))
			if s := suggest.DidYouMean(it.Str, keysOf(cx.toolMethods)); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", s)
			}
		}
		out = append(out, ToolRef{Kind: ToolMethod, Ref: it.Str, Class: it.Str, Pos: it.Pos})
	}
	return out
}

// toolsFromExpr reads tools=[...] in crew.py: tool constructors,
// @tool methods, and MCP adapter tools (self.get_mcp_tools(...),
// MCPServerAdapter(...) as tools).
func (cx *classicCtx) toolsFromExpr(x *pyread.Expr, scope *pyScope, agent string) ([]ToolRef, []MCPRef) {
	var tools []ToolRef
	var mcps []MCPRef
	var one func(e *pyread.Expr, depth int)
	items := func(e *pyread.Expr, depth int) bool {
		r := cx.ev.resolve(e, scope)
		if r.Kind == pyread.List || r.Kind == pyread.Tuple {
			for _, it := range r.Items {
				one(it, depth+1)
			}
			return true
		}
		return false
	}
	one = func(e *pyread.Expr, depth int) {
		if depth > 8 {
			return
		}
		if e.Kind == pyread.Starred {
			if !items(e.X, depth) {
				one(e.X, depth+1)
			}
			return
		}
		r := cx.ev.resolve(e, scope)
		if r.Kind == pyread.List || r.Kind == pyread.Tuple {
			items(r, depth)
			return
		}
		// adapter tools
		if refs, ok := cx.adapterRefs(r, scope, agent); ok {
			mcps = append(mcps, refs...)
			return
		}
		if r.Kind == pyread.Call {
			fn := r.X.Dotted()
			if strings.HasPrefix(fn, "self.") {
				m := strings.TrimPrefix(fn, "self.")
				tools = append(tools, ToolRef{Kind: ToolMethod, Ref: m, Class: m, Pos: e.Pos})
				return
			}
			q := cx.ev.m.qualified(fn)
			ref := ToolRef{Kind: ToolPython, Ref: exprText(r), Class: q[strings.LastIndexByte(q, '.')+1:], Pos: e.Pos}
			if i := strings.LastIndexByte(q, '.'); i > 0 {
				ref.Module = q[:i]
			}
			for _, kw := range r.Kwargs {
				if n, bad := cx.ev.literal(kw.Value, scope, 0); bad == nil {
					if ref.Args == nil {
						ref.Args = map[string]any{}
					}
					ref.Args[kw.Name] = n.Plain()
				}
			}
			ref.PyClass = cx.toolClass(ref)
			tools = append(tools, ref)
			return
		}
		tools = append(tools, ToolRef{Kind: ToolPython, Ref: exprText(e), Class: exprText(e), Pos: e.Pos})
		cx.l.note(e.Pos, Info, "crewpy-tool-nonliteral", fmt.Sprintf("tool %s is not a constructor call; give it a stand-in in crewbench.yaml tools:", exprText(e)))
	}
	if !items(x, 0) {
		one(x, 0)
	}
	return tools, mcps
}

// adapterRefs recognises MCPServerAdapter tools: self.get_mcp_tools(*names),
// a name bound by `with MCPServerAdapter(...) as tools`, adapter.tools.
func (cx *classicCtx) adapterRefs(r *pyread.Expr, scope *pyScope, agent string) ([]MCPRef, bool) {
	if r.Kind == pyread.Call && r.X.Dotted() == "self.get_mcp_tools" {
		names := cx.literalStrings(r.Items, scope)
		var out []MCPRef
		for _, s := range cx.adapterServers {
			s.addAgent(agent)
			out = append(out, MCPRef{Kind: mcpconn.RefNative, Server: s.Name, Adapter: true, AdapterToolNames: names, Pos: r.Pos})
		}
		if len(cx.adapterServers) == 0 {
			cx.l.note(r.Pos, Warn, "adapter-no-params", "self.get_mcp_tools() but the class has no literal mcp_server_params")
		}
		return out, true
	}
	if r.Kind == pyread.Attr && r.Str == "tools" {
		r = cx.ev.resolve(r.X, scope)
	}
	if cx.ev.m.calledAs(r, "MCPServerAdapter") && len(r.Items) > 0 {
		params := cx.ev.resolve(r.Items[0], scope)
		list := []*pyread.Expr{params}
		if params.Kind == pyread.List || params.Kind == pyread.Tuple {
			list = params.Items
		}
		names := cx.literalStrings(r.Items[1:], scope)
		var out []MCPRef
		for i, p := range list {
			s := cx.ev.serverFromExpr(p, scope, agent, fmt.Sprintf("%s MCPServerAdapter params[%d]", cx.crewPy, i), true, r.Kwarg("connect_timeout"))
			if s == nil {
				u := cx.l.unresolved(&Unresolved{ID: fmt.Sprintf("agents.%s.adapter[%d]", agent, i), Pos: p.Pos, Field: "MCPServerAdapter params", Expr: exprText(p)})
				out = append(out, MCPRef{Adapter: true, Pos: r.Pos, Unresolved: u.ID})
				continue
			}
			out = append(out, MCPRef{Kind: mcpconn.RefNative, Server: s.Name, Adapter: true, AdapterToolNames: names, Pos: r.Pos})
		}
		return out, true
	}
	return nil, false
}

func (cx *classicCtx) literalStrings(items []*pyread.Expr, scope *pyScope) []string {
	var out []string
	for _, it := range items {
		if n, bad := cx.ev.literal(it, scope, 0); bad == nil && n.Kind == KindString {
			out = append(out, n.Str)
		}
	}
	return out
}

func (cx *classicCtx) taskFromMethod(f *pyFunc) {
	call, scope := cx.findCall(f, "Task")
	if call == nil {
		call, scope = cx.findCall(f, "ConditionalTask")
	}
	var yamlNode *Node
	if call != nil {
		key, cfg := cx.configKey(call, "tasks_config", f.name)
		if cfg != nil {
			if key == "" || cfg.Kind != pyread.Subscript {
				key = f.name
			}
			yamlNode = cx.yamlEntry(cx.tasksYAML, key, cfg.Pos, "tasks_config")
		}
	} else {
		yamlNode = cx.tasksYAML.Get(f.name)
	}
	cx.buildTask(f.name, yamlNode, call, scope, f.pos)
}

// agentRef reads agent=self.researcher() / a variable / a YAML name.
func (cx *classicCtx) agentRef(e *pyread.Expr, scope *pyScope) string {
	r := cx.ev.resolve(e, scope)
	if r.Kind == pyread.Call && strings.HasPrefix(r.X.Dotted(), "self.") {
		name := strings.TrimPrefix(r.X.Dotted(), "self.")
		if cx.cls != nil {
			if f := cx.cls.method(name); f != nil && !f.hasDecorator("agent") {
				cx.agentFromMethod(f, false)
			}
		}
		return name
	}
	return ""
}

func (cx *classicCtx) buildTask(name string, yamlNode *Node, call *pyread.Expr, scope *pyScope, where Pos) {
	l := cx.l
	c := l.p.Crew
	merged := cx.mergeKwargs(yamlNode, call, scope, taskScalarKwargs, "tasks."+name, "Task "+name)
	if !merged.Pos.IsValid() {
		merged.Pos = where
	}
	file := cx.crewPy
	if yamlNode != nil {
		file = yamlNode.Pos.File
	}
	t := &Task{Name: name, Index: len(c.Tasks), CreateDirectory: true, GuardrailMaxRetries: 3, File: file, Pos: merged.Pos,
		Positions: Positions{}, base: name}
	merged.walk("", t.Positions)
	label := file + ": " + name
	if yamlNode != nil {
		for _, f := range yamlNode.Fields {
			if !taskFields[f.Key] && f.Key != "callbacks" {
				l.note(f.KeyPos, Warn, "yaml-unknown-key", fmt.Sprintf("%s.%s is not a Task field: CrewAI ignores it silently", name, f.Key))
			}
		}
	}
	for _, req := range []string{"description", "expected_output"} {
		if merged.Get(req).IsNull() {
			l.err(merged.Pos, name+"."+req, label, fmt.Sprintf("validation failed: %s: Field required", req))
		}
	}
	d := newDecoder(l, label, file, "", merged)
	for _, k := range []string{"agent", "context", "tools", "output_json", "output_pydantic", "callbacks"} {
		delete(d.fields, k)
	}
	l.decodeTaskFields(t, d, name, label)
	if t.Name == "" {
		t.Name = name
	}
	// agent
	if kw := call.Kwarg("agent"); kw != nil {
		t.Agent = cx.agentRef(kw, scope)
		if t.Agent == "" {
			u := l.unresolved(&Unresolved{ID: "tasks." + name + ".agent", Pos: kw.Pos, Field: "Task " + name + " agent", Expr: exprText(kw)})
			if u.Resolved {
				t.Agent = fmt.Sprint(u.Value)
			}
		}
		t.Positions["agent"] = kw.Pos
	} else if ag := yamlNode.Get("agent"); !ag.IsNull() {
		t.Agent = ag.Str
		if cx.cls != nil {
			if f := cx.cls.method(ag.Str); f == nil {
				e := l.err(ag.Pos, name+".agent", "", fmt.Sprintf("agent: %s is not a method of %s (CrewAI raises KeyError: %s)", pyStrRepr(ag.Str), cx.cls.name, pyStrRepr(ag.Str)))
				if s := suggest.DidYouMean(ag.Str, l.p.AgentNames()); s != "" {
					e.Hint = fmt.Sprintf("did you mean %q?", s)
				}
			} else {
				cx.agentFromMethod(f, false)
			}
		} else if l.p.Agent(ag.Str) == nil && cx.agentsYAML != nil {
			l.err(ag.Pos, name+".agent", "", fmt.Sprintf("agent: %s is not defined in agents.yaml", pyStrRepr(ag.Str)))
		}
	}
	// context: absent = all earlier; [] or null = none
	if kw := call.Kwarg("context"); kw != nil {
		t.ContextSet, t.Context = true, []string{}
		r := cx.ev.resolve(kw, scope)
		if r.Kind == pyread.List || r.Kind == pyread.Tuple {
			for _, it := range r.Items {
				ri := cx.ev.resolve(it, scope)
				if ri.Kind == pyread.Call && strings.HasPrefix(ri.X.Dotted(), "self.") {
					t.Context = append(t.Context, strings.TrimPrefix(ri.X.Dotted(), "self."))
				}
			}
		}
		t.Positions["context"] = kw.Pos
	} else if f := yamlNode.Field("context"); f != nil {
		t.ContextSet, t.Context = true, []string{}
		if f.Value.Kind == KindArray {
			for _, it := range f.Value.Items {
				if it.Kind == KindString {
					t.Context = append(t.Context, it.Str)
					if cx.cls != nil && cx.cls.method(it.Str) == nil {
						l.err(it.Pos, name+".context", "", fmt.Sprintf("context: %s is not a @task method (CrewAI raises KeyError: %s)", pyStrRepr(it.Str), pyStrRepr(it.Str)))
					}
				}
			}
		} else if f.Value.Kind == KindString {
			t.Context = []string{f.Value.Str}
		}
	}
	// tools
	if kw := call.Kwarg("tools"); kw != nil {
		var refs []MCPRef
		t.Tools, refs = cx.toolsFromExpr(kw, scope, t.Agent)
		if len(refs) > 0 {
			l.note(kw.Pos, Info, "task-adapter-tools", "MCP adapter tools given to a task replace the agent's tools for this task")
		}
	} else if tl := yamlNode.Get("tools"); !tl.IsNull() {
		t.Tools = cx.methodTools(tl, name)
	}
	// converter_cls=MyConverter: the class, by its qualified name, as the
	// JSON form's {"python": …} ref.
	if kw := call.Kwarg("converter_cls"); kw != nil {
		if r := cx.ev.resolve(kw, scope); r.Kind != pyread.None {
			if d := r.Dotted(); d != "" {
				t.ConverterCls = cx.ev.m.qualified(d)
				t.Positions["converter_cls"] = kw.Pos
			} else {
				l.note(kw.Pos, Warn, "crewpy-converter-nonliteral", fmt.Sprintf("Task %s converter_cls=%s: not a class name; crewbench does not read it", name, exprText(kw)))
			}
		}
	}
	if cx.ev.m.calledAs(call, "ConditionalTask") {
		t.Type = "conditional"
		t.ConditionDecl = cx.condition(call.Kwarg("condition"), scope)
		t.Condition = exprText(call.Kwarg("condition"))
	}
	// output models
	for _, k := range []string{"output_json", "output_pydantic"} {
		var s *Schema
		if kw := call.Kwarg(k); kw != nil {
			s = &Schema{Python: cx.ev.m.qualified(kw.Dotted()), Pos: kw.Pos}
		} else if v := yamlNode.Get(k); v != nil && v.Kind == KindString {
			s = &Schema{Python: v.Str, Pos: v.Pos}
		}
		if k == "output_json" {
			t.OutputJSON = s
		} else {
			t.OutputPydantic = s
		}
	}
	c.Tasks = append(c.Tasks, t)
}

// condition reads ConditionalTask(condition=…): a lambda, or the name of
// a function of crew.py or of a project module it imports.
func (cx *classicCtx) condition(kw *pyread.Expr, scope *pyScope) *TaskCondition {
	if kw == nil {
		return &TaskCondition{Missing: true}
	}
	if r := cx.ev.resolve(kw, scope); r != nil && r.Kind == pyread.Lambda {
		return &TaskCondition{Lambda: r, Pos: r.Pos}
	}
	if kw.Kind == pyread.Name && scope.lookup(kw.Str) == nil {
		m := cx.ev.m
		name := kw.Str
		if q := m.imports[name]; q != "" && strings.Contains(q, ".") {
			dot := strings.LastIndexByte(q, '.')
			if m = cx.toolModule(q[:dot]); m == nil {
				return &TaskCondition{Pos: kw.Pos, Why: "its module " + q[:dot] + " could not be read"}
			}
			name = q[dot+1:]
		}
		tc := conditionFunc(m, name)
		if !tc.Pos.IsValid() {
			tc.Pos = kw.Pos
		}
		return tc
	}
	return &TaskCondition{Pos: kw.Pos, Why: "`" + exprText(kw) + "` at " + kw.Pos.String() + " is neither a lambda nor a function's name"}
}

func (cx *classicCtx) crewSettings(call *pyread.Expr, scope *pyScope) {
	l := cx.l
	c := l.p.Crew
	merged := cx.mergeKwargs(nil, call, scope, crewScalarKwargs, "crew", "Crew")
	if call != nil {
		merged.walk("", c.Positions)
		c.Pos = call.Pos
	}
	d := newDecoder(l, cx.crewPy, cx.crewPy, "", merged)
	name := c.Name
	d.str("name", &name)
	c.Name = name
	d.boolean("verbose", &c.Verbose)
	if n := d.node("memory"); !n.IsNull() {
		c.Memory = n.Plain()
	}
	d.boolean("cache", &c.Cache)
	d.optInt("max_rpm", &c.MaxRPM)
	d.boolean("planning", &c.Planning)
	d.literal("tool_failure_policy", &c.ToolFailurePolicy, "ignore", "warn", "raise")
	d.boolean("stream", &c.Stream)
	d.optBool("tracing", &c.Tracing)
	d.str("prompt_file", &c.PromptFile)
	d.boolean("share_crew", &c.ShareCrew)
	if n := d.node("output_log_file"); !n.IsNull() {
		c.OutputLogFile = n.Plain()
	}
	if call != nil {
		if p := call.Kwarg("process"); p != nil {
			r := cx.ev.resolve(p, scope)
			switch {
			case strings.HasSuffix(r.Dotted(), "Process.hierarchical") || (r.Kind == pyread.String && r.Str == "hierarchical"):
				c.Process = "hierarchical"
			case strings.HasSuffix(r.Dotted(), "Process.sequential") || (r.Kind == pyread.String && r.Str == "sequential"):
				c.Process = "sequential"
			default:
				u := l.unresolved(&Unresolved{ID: "crew.process", Pos: p.Pos, Field: "Crew process", Expr: exprText(p)})
				if u.Resolved {
					c.Process = fmt.Sprint(u.Value)
				}
			}
			c.Positions["process"] = p.Pos
		}
		c.ManagerLLM = cx.llmValue(nil, call.Kwarg("manager_llm"), scope, "crew.manager_llm", cx.crewPy)
		c.PlanningLLM = cx.llmValue(nil, call.Kwarg("planning_llm"), scope, "crew.planning_llm", cx.crewPy)
		c.FunctionCallingLLM = cx.llmValue(nil, call.Kwarg("function_calling_llm"), scope, "crew.function_calling_llm", cx.crewPy)
		c.ChatLLM = cx.llmValue(nil, call.Kwarg("chat_llm"), scope, "crew.chat_llm", cx.crewPy)
		if ma := call.Kwarg("manager_agent"); ma != nil {
			r := cx.ev.resolve(ma, scope)
			if r.Kind == pyread.Call && strings.HasPrefix(r.X.Dotted(), "self.") && cx.cls != nil {
				name := strings.TrimPrefix(r.X.Dotted(), "self.")
				c.ManagerAgent = name
				if f := cx.cls.method(name); f != nil {
					if a := cx.agentFromMethod(f, true); a != nil {
						a.Manager = true
					}
				}
			} else if r.Kind != pyread.None {
				c.ManagerAgentPython = exprText(ma)
			}
			c.Positions["manager_agent"] = ma.Pos
		}
	}
	// agents: self.agents = each task's agent in task order, then the other
	// @agent methods, deduplicated by role; an explicit list keeps its order.
	var order []string
	explicit := false
	if call != nil {
		if ag := call.Kwarg("agents"); ag != nil && ag.Dotted() != "self.agents" {
			r := cx.ev.resolve(ag, scope)
			if r.Kind == pyread.List || r.Kind == pyread.Tuple {
				explicit = true
				for _, it := range r.Items {
					if n := cx.agentRef(it, scope); n != "" {
						order = append(order, n)
					}
				}
			}
		}
		if ts := call.Kwarg("tasks"); ts != nil && ts.Dotted() != "self.tasks" {
			r := cx.ev.resolve(ts, scope)
			if r.Kind == pyread.List || r.Kind == pyread.Tuple {
				byName := map[string]*Task{}
				for _, t := range c.Tasks {
					byName[t.Name] = t
				}
				var tasks []*Task
				for _, it := range r.Items {
					ri := cx.ev.resolve(it, scope)
					if ri.Kind == pyread.Call {
						if t := byName[strings.TrimPrefix(ri.X.Dotted(), "self.")]; t != nil {
							tasks = append(tasks, t)
						}
					}
				}
				for i, t := range tasks {
					t.Index = i
				}
				c.Tasks = tasks
			}
		}
	}
	if !explicit {
		seenRole := map[string]bool{}
		add := func(name string) {
			a := l.p.Agent(name)
			if a == nil || a.Manager {
				return
			}
			if seenRole[a.Role] {
				return
			}
			seenRole[a.Role] = true
			order = append(order, name)
		}
		for _, t := range c.Tasks {
			if t.Agent != "" {
				add(t.Agent)
			}
		}
		for _, a := range l.p.Agents {
			if !a.Manager {
				add(a.Name)
			}
		}
	}
	c.Agents = order
}

// mainInputs reads the literal inputs = {...} of main.py's run().
func (l *loader) mainInputs(path string) {
	src, err := filelimit.Read(path, filelimit.Source)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		l.note(Pos{File: l.rel(path)}, Warn, "main-unreadable", "cannot read "+l.rel(path)+": "+errText(err)+"; its inputs are not used")
		return
	}
	l.addFile(path, "main.py")
	m := l.parsePy(src, l.rel(path))
	var expr *pyread.Expr
	var scope *pyScope
	for _, f := range m.funcs {
		if e := f.scope.vars["inputs"]; e != nil && (expr == nil || f.name == "run") {
			expr, scope = e, f.scope
		}
	}
	if expr == nil {
		for _, site := range m.calls {
			if site.call.X.Kind == pyread.Attr && site.call.X.Str == "kickoff" {
				if in := site.call.Kwarg("inputs"); in != nil {
					expr, scope = in, site.scope
					break
				}
			}
		}
	}
	if expr == nil {
		return
	}
	ev := &pyEval{l: l, m: m}
	r := ev.resolve(expr, scope)
	if r.Kind != pyread.Dict {
		l.unresolved(&Unresolved{ID: "inputs", Pos: expr.Pos, Field: "kickoff inputs (main.py)", Expr: exprText(expr),
			Suggestion: "give them in crewbench.yaml: inputs: {default: {…}}"})
		return
	}
	in := map[string]any{}
	for i, k := range r.Keys {
		kn, bad := ev.literal(k, scope, 0)
		if bad != nil || kn.Kind != KindString {
			continue
		}
		v, bad := ev.literal(r.Items[i], scope, 0)
		if bad == nil {
			in[kn.Str] = v.inputValue()
			continue
		}
		u := l.unresolved(&Unresolved{ID: "inputs." + kn.Str, Pos: r.Items[i].Pos, Field: fmt.Sprintf("kickoff input %q (main.py)", kn.Str), Expr: exprText(r.Items[i]),
			Suggestion: fmt.Sprintf("give it in crewbench.yaml: inputs: {default: {%s: …}}", kn.Str)})
		if u.Resolved {
			in[kn.Str] = u.Value
		}
	}
	l.p.Crew.Inputs = in
	l.p.Crew.Positions["inputs"] = expr.Pos
}
