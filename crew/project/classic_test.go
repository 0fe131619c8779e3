package project

import (
	"path/filepath"
	"testing"
	"time"

	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
)

// crew.py with native MCP configs, filters, string refs and values that
// are not literals.
func TestClassicCrewPyMCP(t *testing.T) {
	p := open(t, "testdata/classic/mcp", "HOME=/home/u", "PATH=/bin")
	c := p.Crew
	eq(t, "process", c.Process, "hierarchical")
	eq(t, "manager_llm", c.ManagerLLM.Model, "openai/gpt-4o")
	eq(t, "cache", c.Cache, true)
	// task order is the order of @task methods, not tasks.yaml
	eq(t, "task order", []string{c.Tasks[0].Name, c.Tasks[1].Name}, []string{"analysis_task", "research_task"})
	// agents: each task's agent in task order, then the rest
	eq(t, "agent order", c.Agents, []string{"analyst", "researcher"})
	eq(t, "analysis agent (agent=self.analyst())", c.Tasks[0].Agent, "analyst")
	eq(t, "research context (context=[self.analysis_task()])", c.Tasks[1].Context, []string{"analysis_task"})

	r := p.Agent("researcher")
	eq(t, "PyYAML yes is true", r.AllowDelegation, true)
	eq(t, "verbose kwarg", r.Verbose, true)
	eq(t, "llm from LLM(...)", r.LLM.Model, "openai/gpt-4o-mini")
	eq(t, "llm temperature", *r.LLM.Temperature, 0.1)
	eq(t, "tools", []string{r.Tools[0].Class, r.Tools[1].Class}, []string{"SerperDevTool", "FileReadTool"})
	eq(t, "tool args", r.Tools[1].Args, map[string]any{"file_path": "data/notes.txt"})
	eq(t, "tool module", r.Tools[1].Module, "crewai_tools")
	eq(t, "mcps", len(r.MCPs), 3)

	fs := p.Server(r.MCPs[0].Server)
	eq(t, "fs name", fs.Name, "filesystem")
	eq(t, "fs filter", fs.Spec.Filter, mcpconn.FilterSpec{Allowed: []string{"read_text_file", "list_directory"}, Blocked: []string{"write_file"}})
	eq(t, "fs cache_tools_list", fs.Spec.CacheToolsList, true)
	// os.environ["FS_TOKEN"] resolves from .env (quoted, with export)
	eq(t, "fs env", fs.Spec.Env, map[string]string{"LOG_LEVEL": "warn", "FS_TOKEN": "fs-secret-token"})
	u := p.UnresolvedByID("servers.filesystem.env.FS_TOKEN")
	eq(t, "FS_TOKEN resolution", [3]any{u.Resolved, u.From, u.EnvVar}, [3]any{true, ".env", "FS_TOKEN"})
	eq(t, "FS_TOKEN position", u.Pos.String(), "src/research/crew.py:18:43")
	eq(t, "fs filter position", fs.Positions.At("tool_filter.allowed_tool_names[1]").String(), "src/research/crew.py:20:47")

	// WEATHER_URL + "#get_forecast" is a concatenation of literals
	eq(t, "https ref", r.MCPs[1].Raw, "https://weather.example.com/mcp#get_forecast")
	// an AMP slug without a URL stays, unresolved
	eq(t, "amp unresolved", r.MCPs[2].Unresolved, "amp.notion")

	a := p.Agent("analyst")
	eq(t, "analyst llm from YAML", a.LLM.Model, "anthropic/claude-haiku-4-5")
	eq(t, "analyst tools are @tool methods", a.Tools[0].Kind, ToolMethod)
	inv := p.Server(a.MCPs[0].Server)
	eq(t, "inventory args", inv.Spec.Args, []string{"servers/inventory.py", "--db", ""})
	eq(t, "inventory unresolved", inv.Unresolved, []string{"servers.inventory.args[2]", "servers.inventory.tool_filter"})
	gh := p.Server(a.MCPs[1].Server)
	eq(t, "github header pending", gh.Unresolved, []string{"servers.githubcopilot.headers.Authorization"})
	hu := p.UnresolvedByID("servers.githubcopilot.headers.Authorization")
	eq(t, "f-string env var", hu.EnvVar, "GITHUB_TOKEN")
	eq(t, "f-string unresolved without the variable", hu.Resolved, false)
	lg := p.Server(a.MCPs[2].Server)
	eq(t, "SSE transport", lg.Spec.Transport, mcpconn.TransportSSE)
	eq(t, "getenv default", lg.Spec.Headers["X-Key"], "dev-key")
	mi := p.UnresolvedByID("agents.analyst.max_iter")
	eq(t, "max_iter unresolved", [2]any{mi.Resolved, mi.Expr}, [2]any{false, "self.max_iter_value"})

	// with GITHUB_TOKEN in the environment the f-string resolves
	p2 := open(t, "testdata/classic/mcp", "GITHUB_TOKEN=ghp_x", "LEGACY_KEY=k2")
	eq(t, "f-string resolved", p2.Server("githubcopilot").Spec.Headers["Authorization"], "Bearer ghp_x")
	eq(t, "getenv from env", p2.Server("legacy").Spec.Headers["X-Key"], "k2")

	// the unknown YAML key is a note, not an error
	found := false
	for _, n := range p.Notes {
		if n.Code == "yaml-unknown-key" && n.Pos.String() == "src/research/config/agents.yaml:7:3" {
			found = true
		}
	}
	if !found {
		t.Errorf("no note for tools_list: %v", p.Notes)
	}
}

// MCPServerAdapter through @CrewBase mcp_server_params; a manager agent
// that is a plain method.
func TestClassicAdapterParams(t *testing.T) {
	p := open(t, "testdata/classic/adapter")
	eq(t, "servers", p.ServerNames(), []string{"mcp_server", "example", "legacy"})
	st := p.Server("mcp_server")
	eq(t, "policy", st.Spec.Policy, mcpconn.PolicyAdapter)
	eq(t, "connect timeout", st.Spec.Timeouts.Connect, 60*time.Second)
	eq(t, "env", st.Spec.Env, map[string]string{"LOG_LEVEL": "warning"})
	eq(t, "streamable-http dict", p.Server("example").Spec.Transport, mcpconn.TransportHTTP)
	eq(t, "dict without transport is SSE", p.Server("legacy").Spec.Transport, mcpconn.TransportSSE)
	a := p.Agent("analyst")
	eq(t, "adapter refs", len(a.MCPs), 3)
	eq(t, "adapter names", a.MCPs[0].AdapterToolNames, []string{"lookup_stock"})
	eq(t, "adapter flag", a.MCPs[0].Adapter, true)
	eq(t, "server agents", st.Agents, []string{"analyst"})
	c := p.Crew
	eq(t, "manager", c.ManagerAgent, "lead")
	eq(t, "manager loaded", p.Agent("lead").Manager, true)
	eq(t, "crew agents exclude the manager", c.Agents, []string{"analyst"})
	eq(t, "task from kwargs only", p.Tasks[0].Description, "Check stock for {sku}")
	eq(t, "agents from kwargs only", a.Role, "Inventory analyst")
}

// allow_crewai_trigger_context is read from a JSON task and from a crew.py
// Task(...) literal, and stays nil (None) when neither says it.
func TestAllowTriggerContext(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crew.jsonc"), `{"name": "c", "agents": ["a"],
  "tasks": [{"name": "one", "description": "d", "expected_output": "e", "agent": "a", "allow_crewai_trigger_context": false},
            {"name": "two", "description": "d", "expected_output": "e", "agent": "a"}]}`)
	writeFile(t, filepath.Join(dir, "agents", "a.jsonc"), `{"role": "r", "goal": "g", "backstory": "b"}`)
	p := open(t, dir)
	eq(t, "JSON false", p.Tasks[0].AllowTriggerContext != nil && !*p.Tasks[0].AllowTriggerContext, true)
	eq(t, "JSON unset", p.Tasks[1].AllowTriggerContext == nil, true)

	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "trig", "crew.py"), `from crewai import Agent, Crew, Task
from crewai.project import CrewBase, agent, crew, task


@CrewBase
class TrigCrew:
    @agent
    def a(self) -> Agent:
        return Agent(role="r", goal="g", backstory="b")

    @task
    def one(self) -> Task:
        return Task(description="d", expected_output="e", agent=self.a())

    @task
    def two(self) -> Task:
        return Task(description="d", expected_output="e", agent=self.a(), allow_crewai_trigger_context=True)

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks)
`)
	p = open(t, dir)
	eq(t, "crew.py unset", p.Tasks[0].AllowTriggerContext == nil, true)
	eq(t, "crew.py True", p.Tasks[1].AllowTriggerContext != nil && *p.Tasks[1].AllowTriggerContext, true)
}

// A dict input keeps its key order from every place inputs come from, so
// an interpolated {placeholder} shows it as Python's str() of the dict
// CrewAI was given does.
func TestDictInputsKeepTheirKeyOrder(t *testing.T) {
	const want = "{'b': 1, 'a': [1.5, {'z': True, 'y': None}]}"
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crew.jsonc"), `{"name": "c", "agents": ["a"],
  "tasks": [{"name": "one", "description": "Use {cfg}", "expected_output": "e", "agent": "a"}],
  "inputs": {"cfg": {"b": 1, "a": [1.5, {"z": true, "y": null}]}, "n": 3}}`)
	writeFile(t, filepath.Join(dir, "agents", "a.jsonc"), `{"role": "r", "goal": "g", "backstory": "b"}`)
	p := open(t, dir)
	eq(t, "crew.jsonc", pyjson.Str(p.Crew.Inputs["cfg"]), want)
	eq(t, "a scalar stays a Go value", p.Crew.Inputs["n"], any(int64(3)))

	writeFile(t, filepath.Join(dir, "crewbench.yaml"), "inputs:\n  default:\n    cfg: {b: 1, a: [1.5, {z: true, y: null}]}\n")
	p = open(t, dir)
	eq(t, "crewbench.yaml", pyjson.Str(p.Crew.Inputs["cfg"]), want)

	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "k", "crew.py"), `from crewai import Agent, Crew, Task
from crewai.project import CrewBase, agent, crew, task


@CrewBase
class KCrew:
    @agent
    def a(self) -> Agent:
        return Agent(role="r", goal="g", backstory="b")

    @task
    def one(self) -> Task:
        return Task(description="Use {cfg}", expected_output="e", agent=self.a())

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks)
`)
	writeFile(t, filepath.Join(dir, "src", "k", "main.py"), `def run():
    inputs = {"cfg": {"b": 1, "a": [1.5, {"z": True, "y": None}]}}
    KCrew().crew().kickoff(inputs=inputs)
`)
	p = open(t, dir)
	eq(t, "main.py", pyjson.Str(p.Crew.Inputs["cfg"]), want)
}

// planning_config and converter_cls written in Python in crew.py:
// PlanningConfig(...) with literal keyword values (and its llm read as any
// llm), a dict literal, reasoning kwargs, a value crewbench cannot read
// (a note at its position), and converter classes by qualified name.
func TestClassicPlanningConfigAndConverterCls(t *testing.T) {
	p := open(t, "testdata/classic/planning")
	pl := p.Agent("planner")
	pc := pl.PlanningConfig
	if pc == nil {
		t.Fatal("planner: no planning_config")
	}
	eq(t, "max_attempts", *pc.MaxAttempts, 2)
	eq(t, "reasoning_effort", pc.ReasoningEffort, "high")
	eq(t, "system_prompt (a concatenation of literals)", *pc.SystemPrompt, "You plan carefully.")
	eq(t, "max_steps (not a literal) is left out", pc.MaxSteps, (*int)(nil))
	eq(t, "llm from LLM(...)", pc.LLM.Model, "openai/gpt-4o-mini")
	eq(t, "llm temperature", *pc.LLM.Temperature, 0.2)
	eq(t, "no other fields", pc.Others, []string(nil))

	th := p.Agent("thinker")
	eq(t, "reasoning", th.Reasoning, true)
	eq(t, "max_reasoning_attempts", *th.MaxReasoningAttempts, 2)
	eq(t, "dict planning_config max_steps", *th.PlanningConfig.MaxSteps, 4)
	eq(t, "dict planning_config llm", th.PlanningConfig.LLM.Model, "openai/gpt-4o")

	eq(t, "a planning_config crewbench cannot read", p.Agent("loose").PlanningConfig, (*PlanningConfig)(nil))

	eq(t, "imported converter_cls", p.Crew.Tasks[0].ConverterCls, "planner.converters.StrictConverter")
	eq(t, "converter_cls defined in crew.py", p.Crew.Tasks[1].ConverterCls, "LocalConverter")
	eq(t, "converter_cls position", p.Crew.Tasks[0].Positions.At("converter_cls").String(), "src/planner/crew.py:39:74")

	notes := map[string]string{}
	for _, n := range p.Notes {
		if n.Code == "crewpy-planning-nonliteral" {
			notes[n.Pos.String()] = n.Text
		}
	}
	eq(t, "notes", notes, map[string]string{
		"src/planner/crew.py:23:27": "Agent planner planning_config max_steps=STEPS: not a literal; crewbench leaves it out, so CrewAI's default applies",
		"src/planner/crew.py:35:74": "Agent loose planning_config=self.make_config(): neither PlanningConfig(...) nor a dict literal; crewbench does not read it",
	})
}
