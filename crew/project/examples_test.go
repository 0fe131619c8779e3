package project

import (
	"reflect"
	"testing"

	"crewbench/mcpconn"
)

func open(t *testing.T, path string, environ ...string) *Project {
	t.Helper()
	p, err := OpenWith(path, Options{Environ: environ})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return p
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// The complete JSON-first example of formats §1.9.
func TestSpecExampleJSONCrew(t *testing.T) {
	p := open(t, "testdata/json/market_brief")
	eq(t, "kind", p.Kind, KindJSONCrew)
	eq(t, "opened", p.Opened, "opened crew.jsonc, named by pyproject.toml [tool.crewai] definition")
	c := p.Crew
	eq(t, "crew name", c.Name, "Market Brief")
	eq(t, "process", c.Process, "sequential")
	eq(t, "cache", c.Cache, true)
	eq(t, "verbose", c.Verbose, true)
	eq(t, "max_rpm", *c.MaxRPM, 30)
	eq(t, "agents", c.Agents, []string{"researcher", "writer"})
	eq(t, "inputs", c.Inputs, map[string]any{"industry": "industrial heat pumps", "region": "EMEA", "year": int64(2026)})

	// tasks: context absent = all earlier; [] = none; names = those
	eq(t, "tasks", len(c.Tasks), 3)
	r, pr, b := c.Tasks[0], c.Tasks[1], c.Tasks[2]
	eq(t, "research context set", r.ContextSet, false)
	eq(t, "pricing context set", pr.ContextSet, true)
	eq(t, "pricing context", len(pr.Context), 0)
	eq(t, "brief context", b.Context, []string{"research_task", "pricing_task"})
	eq(t, "research tools", []string{r.Tools[0].Class, r.Tools[1].Class}, []string{"SerperDevTool", "ScrapeWebsiteTool"})
	eq(t, "research tool_failure_policy", r.ToolFailurePolicy, "warn")
	eq(t, "brief markdown", b.Markdown, true)
	eq(t, "brief output_file", b.OutputFile, "output/{region}-brief.md")
	eq(t, "brief guardrail", b.Guardrails[0].Text, "Every vendor named must appear in the context.")
	eq(t, "brief guardrail_max_retries", b.GuardrailMaxRetries, 2)
	eq(t, "brief context position", b.Positions.At("context").String(), "crew.jsonc:26:18")
	eq(t, "pricing context position", pr.Positions.At("context").String(), "crew.jsonc:19:18")

	// researcher: settings merged over the top level, llm object
	a := p.Agent("researcher")
	eq(t, "max_iter", a.MaxIter, 15)
	eq(t, "max_retry_limit", a.MaxRetryLimit, 1)
	eq(t, "max_execution_time", *a.MaxExecutionTime, 600)
	eq(t, "inject_date", a.InjectDate, true)
	eq(t, "allow_delegation", a.AllowDelegation, false)
	eq(t, "max_iter position (inside settings)", a.Positions.At("max_iter").String(), "agents/researcher.jsonc:25:17")
	eq(t, "llm model", a.LLM.Model, "gpt-5.4-mini")
	eq(t, "llm provider", a.LLM.Provider, "openai")
	eq(t, "llm temperature", *a.LLM.Temperature, 0.2)
	eq(t, "llm max_tokens", *a.LLM.MaxTokens, 4096)
	eq(t, "resolved llm", a.ResolvedLLM.Model, "gpt-5.4-mini")
	eq(t, "tool kinds", []ToolKind{a.Tools[0].Kind, a.Tools[1].Kind}, []ToolKind{ToolCrewAITools, ToolCustom})
	eq(t, "custom tool file", a.Tools[1].Module, "tools/currency_converter.py")
	eq(t, "custom tool position", a.Tools[1].Pos.String(), "agents/researcher.jsonc:6:29")

	// mcps: a stdio dict with a static filter, an HTTP dict with a Python
	// filter (unresolved), an https string ref
	eq(t, "mcps", len(a.MCPs), 3)
	fs := p.Server(a.MCPs[0].Server)
	eq(t, "fs transport", fs.Spec.Transport, mcpconn.TransportStdio)
	eq(t, "fs command", fs.Spec.Command, "npx")
	eq(t, "fs args", fs.Spec.Args, []string{"-y", "@modelcontextprotocol/server-filesystem", "./data"})
	eq(t, "fs env", fs.Spec.Env, map[string]string{"LOG_LEVEL": "warn"})
	eq(t, "fs filter", fs.Spec.Filter, mcpconn.FilterSpec{Allowed: []string{"read_file", "list_directory"}, Blocked: []string{"write_file"}})
	eq(t, "fs name", fs.Name, "filesystem")
	eq(t, "fs origin", fs.Spec.Origin, "agents/researcher.jsonc:8:5")
	eq(t, "fs allowed[1] position", fs.Positions.At("tool_filter.allowed_tool_names[1]").String(), "agents/researcher.jsonc:12:78")
	h := p.Server(a.MCPs[1].Server)
	eq(t, "http url", h.Spec.URL, "https://mcp.example.com/mcp")
	eq(t, "http cache_tools_list", h.Spec.CacheToolsList, true)
	eq(t, "http headers", h.Spec.Headers, map[string]string{"Authorization": "Bearer REPLACE_ME"})
	eq(t, "http unresolved", h.Unresolved, []string{"servers." + h.Name + ".tool_filter"})
	if ok, why := h.Ready(p); ok || why == "" {
		t.Errorf("a server with a Python filter is not ready: %v %q", ok, why)
	}
	w := p.Server(a.MCPs[2].Server)
	eq(t, "https ref", w.Spec.Ref, mcpconn.RefHTTPS)
	eq(t, "https url", w.Spec.URL, "https://weather.example.com/mcp")
	eq(t, "https select", w.Spec.SelectTool, "get_forecast")
	eq(t, "https ref string", a.MCPs[2].Raw, "https://weather.example.com/mcp#get_forecast")
	eq(t, "servers", p.ServerNames(), []string{"filesystem", "example", "weather#get_forecast"})

	wr := p.Agent("writer")
	eq(t, "writer llm", wr.LLM.Model, "anthropic/claude-sonnet-4-6")
	eq(t, "writer delegation (settings)", wr.AllowDelegation, true)
	eq(t, "writer defaults", []int{wr.MaxIter, wr.MaxRetryLimit}, []int{25, 2})
}

// The non-interactive scaffold of `crewai create crew` (formats §1.1): a
// heavily commented crew.jsonc, settings block, commented-out keys.
func TestJSONScaffold(t *testing.T) {
	p := open(t, "testdata/json/scaffold")
	eq(t, "agents", p.Crew.Agents, []string{"researcher"})
	eq(t, "memory", p.Crew.Memory, any(true))
	eq(t, "inputs", p.Crew.Inputs, map[string]any{})
	a := p.Agent("researcher")
	eq(t, "llm", a.LLM.Model, "openai/gpt-4o")
	eq(t, "tools", len(a.Tools), 0)
	eq(t, "defaults", []int{a.MaxIter, a.MaxRetryLimit}, []int{25, 2})
	eq(t, "placeholders", p.PlaceholderNames(), []string{"topic"})
	eq(t, "task context absent", p.Tasks[0].ContextSet, false)
}

// The classic example of formats §2.5.
func TestSpecExampleClassic(t *testing.T) {
	p := open(t, "testdata/classic/market_brief")
	eq(t, "kind", p.Kind, KindClassic)
	c := p.Crew
	eq(t, "crew name (class name)", c.Name, "MarketBrief")
	eq(t, "tasks", []string{c.Tasks[0].Name, c.Tasks[1].Name}, []string{"research_task", "brief_task"})
	eq(t, "agents", c.Agents, []string{"researcher", "writer"})
	r := p.Agent("researcher")
	// folded scalars keep their trailing newline (formats §7.6)
	eq(t, "role", r.Role, "Senior {industry} Analyst\n")
	eq(t, "llm", r.LLM.Model, "openai/gpt-5.4-mini")
	eq(t, "max_iter", r.MaxIter, 15)
	eq(t, "tools from crew.py", r.Tools[0].Class, "SerperDevTool")
	eq(t, "tool module", r.Tools[0].Module, "crewai_tools")
	eq(t, "tool position", r.Tools[0].Pos.String(), "src/market_brief/crew.py:9:97")
	w := p.Agent("writer")
	eq(t, "writer role (plain scalar)", w.Role, "Executive Brief Writer")
	b := c.Tasks[1]
	eq(t, "brief context", b.Context, []string{"research_task"})
	eq(t, "brief output_file", b.OutputFile, "output/brief.md")
	eq(t, "brief agent", b.Agent, "writer")
	eq(t, "description position", b.Positions.At("description").String(), "src/market_brief/config/tasks.yaml:9:16")
	eq(t, "research context absent", c.Tasks[0].ContextSet, false)
}

// The classic scaffold (formats §2.1): agents without llm use MODEL from
// .env; output_file is set in crew.py; inputs come from main.py.
func TestClassicScaffold(t *testing.T) {
	p := open(t, "testdata/classic/scaffold", "HOME=/home/u")
	eq(t, "crew", p.Crew.Name, "LatestAiDevelopment")
	eq(t, "verbose", p.Crew.Verbose, true)
	r := p.Agent("researcher")
	eq(t, "llm declared", r.LLM == nil, true)
	eq(t, "llm resolved", r.ResolvedLLM.Model, "openai/gpt-4o-mini")
	eq(t, "llm source", r.ResolvedLLM.Source, "MODEL from .env")
	eq(t, "verbose from crew.py", r.Verbose, true)
	eq(t, "verbose position", r.Positions.At("verbose").String(), "src/latest_ai_development/crew.py:26:21")
	eq(t, "output_file from crew.py", p.Task("reporting_task").OutputFile, "report.md")
	eq(t, "inputs", p.Crew.Inputs, map[string]any{"topic": "AI LLMs"})
	u := p.UnresolvedByID("inputs.current_year")
	if u == nil || u.Resolved || u.Expr != "str(datetime.now().year)" || u.Pos.String() != "src/latest_ai_development/main.py:22:25" {
		t.Errorf("current_year unresolved: %+v", u)
	}
	eq(t, "placeholders", p.PlaceholderNames(), []string{"current_year", "topic"})
	// the process environment beats .env for classic projects
	p2 := open(t, "testdata/classic/scaffold", "MODEL=ollama/llama3.1")
	eq(t, "env wins", p2.Agent("researcher").ResolvedLLM.Model, "ollama/llama3.1")
	eq(t, "env source", p2.Agent("researcher").ResolvedLLM.Source, "MODEL from environment")
}
