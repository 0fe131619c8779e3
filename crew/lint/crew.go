package lint

import (
	"crewbench/crew/filelimit"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
	"crewbench/names"
	"crewbench/session"
)

// refs checks the string refs in agents' mcps.
func (c *checker) refs() {
	for _, a := range c.p.Agents {
		for _, r := range a.MCPs {
			if r.Kind != mcpconn.RefHTTPS {
				continue
			}
			url, tool, _ := strings.Cut(r.Raw, "#")
			url = session.RedactURL(url)
			if strings.Contains(tool, ",") {
				c.add(Finding{Code: CodeRefToolList, Severity: Warning, Pos: r.Pos, Server: r.Server,
					Message: fmt.Sprintf("%q lists several tools after #: CrewAI accepts it but selects only a tool named %q, usually none", url+"#"+tool, names.Sanitize(tool)),
					Fix:     "write one ref per tool: " + refsPerTool(url, tool)})
			}
			fix := c.configFix(r.Pos, url, tool)
			code, sev := CodeHTTPSStringRef, Warning
			msg := fmt.Sprintf("%q is an https:// string ref: it gives zero tools, silently, under await crew.akickoff() and on CrewAI AMP deployments", url+fragment(tool))
			if c.akickoff.IsValid() {
				code, sev = CodeHTTPSAkickoffRef, Error
				msg = fmt.Sprintf("%q is an https:// string ref and the project awaits crew.akickoff() (%s): the agent gets zero tools from it, without an error", url+fragment(tool), c.akickoff)
			}
			f := Finding{Code: code, Severity: sev, Pos: r.Pos, Server: r.Server, Message: msg, Fix: fix}
			if c.akickoff.IsValid() {
				f.Related = []project.Pos{c.akickoff}
			}
			c.add(f)
		}
	}
}

func fragment(tool string) string {
	if tool == "" {
		return ""
	}
	return "#" + tool
}

// configFix is the native config that replaces a string ref.
func (c *checker) configFix(pos project.Pos, url, tool string) string {
	if pythonFile(pos) {
		if tool != "" {
			return fmt.Sprintf("use MCPServerHTTP(url=%q, tool_filter=create_static_tool_filter(allowed_tool_names=[%q]))", url, names.Sanitize(tool))
		}
		return fmt.Sprintf("use MCPServerHTTP(url=%q)", url)
	}
	if tool != "" {
		return fmt.Sprintf(`use a config: {"url": %q, "tool_filter": {"type": "static", "allowed_tool_names": [%q]}}`, url, names.Sanitize(tool))
	}
	return fmt.Sprintf(`use a config: {"url": %q}`, url)
}

// overlayFilter returns the crewbench.yaml servers entry that replaced the
// server's filter, if any.
func (c *checker) overlayFilter(name string) *project.ServerOverlay {
	if c.p.Overlay == nil {
		return nil
	}
	for _, so := range c.p.Overlay.Servers {
		if so.Name == name && so.Filter != nil {
			return so
		}
	}
	return nil
}

// filters checks static filter entries: each must be in sanitized form.
func (c *checker) filters() {
	for _, s := range c.p.Servers {
		f := s.Spec.Filter
		so := c.overlayFilter(s.Name)
		if (s.Spec.Ref == mcpconn.RefHTTPS || s.Spec.Ref == mcpconn.RefAMP) && !f.IsZero() {
			pos := s.Pos
			if so != nil {
				pos = so.Pos
			}
			c.add(Finding{Code: CodeFilterIgnored, Pos: pos, Server: s.Name,
				Message: "this server is a string ref: CrewAI ignores tool_filter for it",
				Fix:     c.configFix(s.Pos, session.RedactURL(s.Spec.URL), s.Spec.SelectTool)})
		}
		for _, list := range []struct {
			key     string
			entries []string
			sev     Severity
			effect  string
		}{
			{"allowed_tool_names", f.Allowed, Error, "never matches, so that tool is filtered out"},
			{"blocked_tool_names", f.Blocked, Warning, "never matches, so that tool is not blocked"},
		} {
			for i, e := range list.entries {
				want := filter.CanonicalEntry(e)
				if want == e {
					continue
				}
				pos := at(s, fmt.Sprintf("tool_filter.%s[%d]", list.key, i))
				if so != nil {
					pos = so.Pos
				}
				c.unsanitized[s.Name+"|"+e] = true
				msg := fmt.Sprintf("%s entry %q %s: CrewAI compares entries with sanitized tool names, and %q sanitizes to %q", list.key, e, list.effect, e, want)
				fix := fmt.Sprintf("write %q", want)
				if want == "" {
					msg = fmt.Sprintf("%s entry %q can never match: it sanitizes to an empty name", list.key, e)
					fix = "remove the entry"
				}
				if list.key == "allowed_tool_names" && allUnsanitized(list.entries) {
					msg += " (no entry matches: the filter keeps nothing)"
				}
				c.add(Finding{Code: CodeFilterNotSanitized, Severity: list.sev, Pos: pos, Server: s.Name, Message: msg, Fix: fix})
			}
		}
	}
}

func allUnsanitized(entries []string) bool {
	for _, e := range entries {
		if filter.CanonicalEntry(e) == e {
			return false
		}
	}
	return true
}

// crewRules are CrewAI's crew-level validators and tool options.
func (c *checker) crewRules() {
	cr := c.p.Crew
	if cr != nil && cr.Process == "hierarchical" && cr.ManagerLLM == nil && cr.ManagerAgent == "" && cr.ManagerAgentPython == "" &&
		!c.has(CodeHierarchical, cr.Positions.At("process")) {
		c.add(Finding{Code: CodeHierarchical, Pos: cr.Positions.At("process"),
			Message: "Attribute `manager_llm` or `manager_agent` is required when using hierarchical process.",
			Fix:     hierarchicalFix(c.p)})
	}
	index := map[string]int{}
	for i, t := range c.p.Tasks {
		if t.Name != "" {
			if _, ok := index[t.Name]; !ok {
				index[t.Name] = i
			}
		}
	}
	for i, t := range c.p.Tasks {
		for k, name := range t.Context {
			j, ok := index[name]
			if !ok || j < i {
				continue
			}
			pos := t.Positions.At(fmt.Sprintf("context[%d]", k))
			if c.has(CodeContextFuture, pos) {
				continue
			}
			what := "a later task"
			if j == i {
				what = "the task itself"
			}
			c.add(Finding{Code: CodeContextFuture, Pos: pos,
				Message: fmt.Sprintf("task %s's context names %s (%s), which has not run yet", taskLabel(t), name, what),
				Fix:     fmt.Sprintf("move %s before %s, or remove it from context", name, taskLabel(t)),
				Related: []project.Pos{c.p.Tasks[j].Pos}})
		}
	}
	for _, ref := range c.allToolRefs() {
		if pythonFile(ref.Pos) {
			continue // python() reads every max_usage_count= in the source
		}
		if n, ok := usageCount(ref.Args["max_usage_count"]); ok && n <= 0 {
			c.add(Finding{Code: CodeMaxUsageCount, Pos: ref.Pos,
				Message: fmt.Sprintf("%s has max_usage_count=%d: CrewAI raises `max_usage_count must be a positive integer`", ref.Ref, n),
				Fix:     "set max_usage_count to a positive number, or remove it for unlimited use"})
		}
	}
	c.cacheStatic()
}

func taskLabel(t *project.Task) string {
	if t.Name != "" {
		return t.Name
	}
	return fmt.Sprintf("#%d", t.Index+1)
}

func usageCount(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	}
	return 0, false
}

// toolRef is a tool reference with its owner.
type toolRef struct {
	*project.ToolRef
	owner string // "agent researcher", "task research_task"
	agent string
}

func (c *checker) allToolRefs() []toolRef {
	var out []toolRef
	for _, a := range c.p.Agents {
		for i := range a.Tools {
			out = append(out, toolRef{&a.Tools[i], "agent " + a.Name, a.Name})
		}
	}
	for _, t := range c.p.Tasks {
		for i := range t.Tools {
			out = append(out, toolRef{&t.Tools[i], "task " + taskLabel(t), t.Agent})
		}
	}
	return out
}

// stateWords mark a tool name as state-changing (its calls must not be
// answered from a cache).
var stateWords = map[string]bool{"write": true, "delete": true, "remove": true, "create": true, "update": true, "send": true,
	"post": true, "insert": true, "upsert": true, "drop": true, "upload": true, "move": true, "rename": true, "publish": true,
	"execute": true, "exec": true, "cancel": true, "charge": true, "transfer": true, "pay": true, "purchase": true, "book": true,
	"submit": true, "archive": true, "modify": true, "edit": true, "append": true, "put": true, "patch": true, "merge": true,
	"push": true, "commit": true, "set": true, "add": true, "email": true, "notify": true, "order": true, "kill": true,
	"restart": true, "deploy": true, "approve": true, "reply": true, "comment": true, "assign": true, "close": true}

// stateChanging reports whether a tool name says it changes state.
func stateChanging(name string) bool {
	for _, w := range strings.Split(names.Sanitize(name), "_") {
		if stateWords[w] {
			return true
		}
	}
	return false
}

// cacheStatic reports Crew(cache=True) with tools whose names say they
// change state, as far as names are known without connecting.
func (c *checker) cacheStatic() {
	cr := c.p.Crew
	if cr == nil || !cr.Cache {
		return
	}
	seen := map[string]bool{}
	var hits []string
	var related []project.Pos
	for _, a := range c.p.Agents {
		if !a.Cache {
			continue
		}
		for _, r := range a.MCPs {
			s := c.p.Server(r.Server)
			if s == nil {
				continue
			}
			cands := append([]string{}, s.Spec.Filter.Allowed...)
			if s.Spec.SelectTool != "" {
				cands = append(cands, s.Spec.SelectTool)
			}
			for _, n := range cands {
				if stateChanging(n) && !seen[n] {
					seen[n] = true
					hits = append(hits, n)
					related = append(related, s.Pos)
				}
			}
		}
		for _, t := range a.Tools {
			n := t.Class
			if n == "" {
				n = t.Ref
			}
			if stateChanging(n) && !seen[n] {
				seen[n] = true
				hits = append(hits, n)
				related = append(related, t.Pos)
			}
		}
	}
	if len(hits) == 0 {
		return
	}
	c.add(Finding{Code: CodeCacheStateChange, Pos: cr.Positions.At("cache"), Related: related,
		Message: fmt.Sprintf("the crew caches tool results (cache=True) and its agents use state-changing tools: %s; a repeated call is answered from the cache and does not run", strings.Join(hits, ", ")),
		Fix:     c.cacheFix()})
}

func (c *checker) cacheFix() string {
	if c.p.Kind == project.KindClassic {
		return "set cache=False on the Crew, or Agent(cache=False) on the agents with these tools, or give the tools cache_function=lambda args, result: False"
	}
	return `set "cache": false in crew.jsonc, or "cache": false in the settings of the agents with these tools`
}

// inputs checks {placeholders} against the crew's default inputs.
func (c *checker) inputs() {
	if c.p.Crew == nil {
		return
	}
	inputs := map[string]any{}
	for k, v := range c.p.InputSets["default"] {
		inputs[k] = v
	}
	// inputs crewbench could not read (a non-literal main.py dict) count as given
	for _, u := range c.p.Unresolved {
		if k, ok := strings.CutPrefix(u.ID, "inputs."); ok {
			inputs[k] = ""
		}
	}
	missing, warnings := c.p.CheckInputs(inputs)
	// {{x}} is no escape: the runtime interpolates the inner {x} too.
	seen := map[string]bool{}
	for _, m := range missing {
		seen[m.Name] = true
	}
	if len(inputs) > 0 {
		for _, ph := range c.p.Placeholders() {
			if _, ok := inputs[ph.Name]; !ok && !ph.CLI && !seen[ph.Name] {
				seen[ph.Name] = true
				missing = append(missing, ph)
			}
		}
	}
	for _, ph := range missing {
		sev := Warning
		effect := "with no inputs at all CrewAI leaves the braces in the prompt, and `crewai run` asks for it or exits 1"
		if len(inputs) > 0 {
			sev = Error
			effect = "kickoff raises `Template variable '" + ph.Name + "' not found in inputs dictionary`"
		}
		if !ph.CLI {
			effect += " ({{…}} is not an escape)"
		}
		c.add(Finding{Code: CodeMissingInput, Severity: sev, Pos: ph.Pos,
			Message: fmt.Sprintf("{%s} in %s %s has no input: %s", ph.Name, ph.Owner, ph.Field, effect),
			Fix:     c.inputFix(ph.Name)})
	}
	for _, w := range warnings {
		key := ""
		if m := inputNameRe.FindStringSubmatch(w); m != nil {
			key = m[1]
		}
		pos := c.p.Crew.Positions.At("inputs." + key)
		c.add(Finding{Code: CodeUnusedInput, Pos: pos, Message: strings.TrimSpace(w),
			Fix: fmt.Sprintf("remove %q from the inputs, or use {%s} in a description, expected output, role, goal or backstory", key, key)})
	}
}

var inputNameRe = regexp.MustCompile(`Input '([^']*)'`)

func (c *checker) inputFix(name string) string {
	over := fmt.Sprintf("; for crewbench only: inputs: {default: {%s: …}} in crewbench.yaml", name)
	switch c.p.Kind {
	case project.KindClassic:
		return fmt.Sprintf("add %q: … to the inputs dict passed to kickoff in main.py%s", name, over)
	case project.KindOverlayCrew:
		return fmt.Sprintf("add %s: … under crew.inputs (or inputs.default) in crewbench.yaml", name)
	}
	return fmt.Sprintf(`add %q: … to "inputs" in crew.jsonc (or pass it with crewai run --inputs)%s`, name, over)
}

// hallucinated are crewai_tools names models invent, with the real ones
// (seed §5).
var hallucinated = map[string]string{
	"CodeInterpreterTool":  "removed in 1.15: use E2BPythonTool or DaytonaPythonTool",
	"BedrockKBRetriever":   "BedrockKBRetrieverTool",
	"GitHubSearchTool":     "GithubSearchTool",
	"GithubTool":           "GithubSearchTool",
	"ArxivTool":            "ArxivPaperTool",
	"ComposioToolSet":      "ComposioTool",
	"GoogleSearchTool":     "SerperDevTool, BraveSearchTool, TavilySearchTool or EXASearchTool",
	"WebSearchTool":        "SerperDevTool, BraveSearchTool, TavilySearchTool or EXASearchTool",
	"DuckDuckGoSearchTool": "SerperDevTool, BraveSearchTool, TavilySearchTool or EXASearchTool",
	"PDFTextWritingTool":   "none: write a custom tool",
	"PGSearchTool":         "none: write a custom tool",
	"WikipediaTool":        "none: write a custom tool",
	"PythonREPLTool":       "none: write a custom tool",
	"ShellTool":            "none: write a custom tool",
	"CalculatorTool":       "none: write a custom tool",
	"HumanTool":            "none: write a custom tool",
	"LangChainTool":        "none: write a custom tool",
	"SeleniumTool":         "SeleniumScrapingTool",
	"BaseTool":             "crewai.tools.BaseTool (a base class, not a tool)",
}

// extras are crewai_tools classes that need an optional package, with the
// names it may appear under in pyproject.toml and the extra to install.
var extras = map[string]struct{ pkgs []string }{
	"EXASearchTool":              {[]string{"exa-py", "exa_py"}},
	"TavilySearchTool":           {[]string{"tavily-python", "tavily_python"}},
	"TavilyExtractorTool":        {[]string{"tavily-python", "tavily_python"}},
	"FirecrawlSearchTool":        {[]string{"firecrawl-py", "firecrawl_py"}},
	"FirecrawlScrapeWebsiteTool": {[]string{"firecrawl-py", "firecrawl_py"}},
	"FirecrawlCrawlWebsiteTool":  {[]string{"firecrawl-py", "firecrawl_py"}},
	"SeleniumScrapingTool":       {[]string{"selenium"}},
}

// tools checks tool references: invented class names, missing extras, and
// the stand-ins crewbench needs to run Python tools.
func (c *checker) tools() {
	pyproject, havePyproject := filelimit.Read(filepath.Join(c.p.Dir, "pyproject.toml"), filelimit.Config)
	deps := strings.ToLower(string(pyproject))
	for _, r := range c.allToolRefs() {
		class := r.Class
		if r.Kind == project.ToolCrewAITools || (r.Kind == project.ToolPython && r.Module == "crewai_tools") || r.Module == "crewai_tools" {
			if real, ok := hallucinated[class]; ok {
				c.add(Finding{Code: CodeUnknownToolClass, Pos: r.Pos,
					Message: fmt.Sprintf("crewai_tools has no %s (ImportError when the crew is built)", class),
					Fix:     "use " + real})
			}
			if ex, ok := extras[class]; ok && havePyproject == nil && !containsAny(deps, ex.pkgs) {
				c.add(Finding{Code: CodeMissingExtra, Pos: r.Pos,
					Message: fmt.Sprintf("%s needs the package %s, which pyproject.toml does not declare: building the tool asks `Would you like to install it? [y/N]` and hangs or aborts", class, ex.pkgs[0]),
					Fix:     fmt.Sprintf(`uv add "crewai-tools[%s]"`, ex.pkgs[0])})
			}
		}
		if r.StandIn == nil {
			key := r.Ref
			if r.Kind == project.ToolPython || r.Kind == project.ToolMethod {
				key = class
			}
			c.add(Finding{Code: CodeNeedsPython, Pos: r.Pos,
				Message: fmt.Sprintf("%s (%s of %s) is Python code: crewbench cannot run it without a stand-in", r.Ref, r.Kind, r.owner),
				Fix:     fmt.Sprintf("in crewbench.yaml: tools: {%s: {result: \"…\"}} for a canned answer, or {mcp: {server: NAME, tool: TOOL}} to route it to an MCP tool (see OVERLAY.md)", yamlKey(key))})
		}
	}
	// MCPServerAdapter needs crewai-tools[mcp].
	if havePyproject == nil && !strings.Contains(deps, "[mcp]") && !strings.Contains(deps, "mcpadapt") {
		for _, s := range c.p.Servers {
			if s.Spec.Policy == mcpconn.PolicyAdapter && !c.inOverlay(s.Pos) {
				c.add(Finding{Code: CodeMissingExtra, Pos: s.Pos, Server: s.Name,
					Message: "MCPServerAdapter needs crewai-tools[mcp], which pyproject.toml does not declare: constructing it asks `Would you like to install it? [y/N]` and hangs or aborts",
					Fix:     `uv add "crewai-tools[mcp]"`})
				break
			}
		}
	}
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func yamlKey(k string) string {
	if strings.ContainsAny(k, ": #[]{},&*!|>'\"%@`()") {
		return `"` + strings.ReplaceAll(k, `"`, `\"`) + `"`
	}
	return k
}

// unresolved reports values crewbench could not read.
func (c *checker) unresolved() {
	for _, u := range c.p.Unresolved {
		if u.Resolved || strings.HasPrefix(u.ID, "inputs.") {
			continue
		}
		msg := fmt.Sprintf("%s is %s: crewbench cannot read it without running Python", u.Field, session.RedactString(u.Expr))
		if strings.HasPrefix(u.ID, "amp.") {
			msg = fmt.Sprintf("%s is not known: CrewAI fetches it from your CrewAI AMP account", u.Field)
		} else if u.EnvVar != "" {
			msg = fmt.Sprintf("%s reads %s, which is not set in .env, crewbench.yaml or the environment", u.Field, u.EnvVar)
		}
		c.add(Finding{Code: CodeUnresolved, Pos: u.Pos, Message: msg, Fix: u.Suggestion})
	}
}

// promptText is one prompt field an agent sees.
type promptText struct {
	owner, field, text string
	pos                project.Pos
}

// agentTexts are the prompt texts an agent sees: its role, goal and
// backstory and the descriptions and expected outputs of its tasks (in a
// hierarchical crew, tasks without an agent too).
func (c *checker) agentTexts(a *project.Agent) []promptText {
	out := []promptText{
		{"agent " + a.Name, "role", a.Role, a.Positions.At("role")},
		{"agent " + a.Name, "goal", a.Goal, a.Positions.At("goal")},
		{"agent " + a.Name, "backstory", a.Backstory, a.Positions.At("backstory")},
	}
	for _, t := range c.p.Tasks {
		if t.Agent == a.Name || t.Agent == "" {
			out = append(out,
				promptText{"task " + taskLabel(t), "description", t.Description, t.Positions.At("description")},
				promptText{"task " + taskLabel(t), "expected_output", t.ExpectedOutput, t.Positions.At("expected_output")})
		}
	}
	return out
}

// bareTool is a tool an agent gets, under its bare name and its LLM name.
type bareTool struct {
	bare, llm, description string
	server                 string
	pos                    project.Pos // where the tool's name comes from
}

// mentions finds prompt texts that name a tool by its bare name.
func mentions(texts []promptText, t bareTool) []promptText {
	re := bareNameRe(t.bare)
	if re == nil {
		return nil
	}
	var out []promptText
	for _, tx := range texts {
		if tx.text != "" && re.MatchString(tx.text) {
			out = append(out, tx)
		}
	}
	return out
}

// bareNameRe matches a tool name as a word. A name that is one plain word
// ("search") matches only where it is plainly meant as a tool name: in
// quotes or backticks, or followed by "tool".
func bareNameRe(name string) *regexp.Regexp {
	if len(name) < 3 {
		return nil
	}
	q := regexp.QuoteMeta(name)
	multi := strings.ContainsAny(name, "_-") || regexp.MustCompile(`[a-z][A-Z]|[A-Za-z][0-9]`).MatchString(name)
	if multi {
		return regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])` + q + `(?:$|[^A-Za-z0-9_])`)
	}
	return regexp.MustCompile("(?i)(?:[`'\"]" + q + "[`'\"]|(?:^|[^A-Za-z0-9_])" + q + `\s+tool\b)`)
}

// promptsStatic reports prompts that name tools by names known without
// connecting: filter entries and #tool selections.
func (c *checker) promptsStatic() {
	for _, a := range c.p.Agents {
		texts := c.agentTexts(a)
		seen := map[string]bool{}
		for _, r := range a.MCPs {
			s := c.p.Server(r.Server)
			if s == nil || r.Adapter || s.Spec.Policy == mcpconn.PolicyAdapter {
				continue // adapter tools keep their bare names
			}
			var cands []string
			cands = append(cands, s.Spec.Filter.Allowed...)
			if s.Spec.SelectTool != "" {
				cands = append(cands, s.Spec.SelectTool)
			}
			for _, n := range cands {
				if seen[n] {
					continue
				}
				seen[n] = true
				t := bareTool{bare: n, server: s.Name, pos: s.Pos}
				if res, ok := resolveSample(s, n); ok && res.LLMName != "" {
					t.llm = res.LLMName
				} else if s.Spec.Ref == mcpconn.RefAMP {
					t.llm = "…_" + names.Sanitize(n)
				}
				if t.llm == "" || t.llm == n {
					continue
				}
				c.reportBare(a, texts, t, false)
			}
		}
	}
}

// reportBare adds one finding per prompt text that names t.
func (c *checker) reportBare(a *project.Agent, texts []promptText, t bareTool, connected bool) {
	for _, tx := range mentions(texts, t) {
		capability := "describe the capability (e.g. \"look it up with the " + c.serverWord(t.server) + " tool\")"
		if d := firstSentence(t.description); d != "" {
			capability = fmt.Sprintf("describe the capability (the tool's description: %q)", d)
		}
		c.add(Finding{Code: CodeBareToolName, Pos: tx.pos, Server: t.server, Connected: connected,
			Related: []project.Pos{t.pos},
			Message: fmt.Sprintf("%s %s names the tool %q, but agent %s sees it as %s", tx.owner, tx.field, t.bare, a.Name, t.llm),
			Fix:     fmt.Sprintf("%s instead of naming it, or write the exact name %s", capability, t.llm)})
	}
}

func (c *checker) serverWord(name string) string {
	if i := strings.IndexByte(name, '#'); i >= 0 {
		name = name[:i]
	}
	return name
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ".\n"); i > 0 {
		s = s[:i]
	}
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}
