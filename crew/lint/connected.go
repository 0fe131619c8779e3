package lint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"crewbench/crew/project"
	"crewbench/crew/writeback"
	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
	"crewbench/names"
	"crewbench/session"
)

// discovered is one server's discovery result.
type discovered struct {
	s   *project.Server
	d   *mcpconn.Discovery
	err error
}

// connected discovers every connectable server concurrently (each under its
// own deadline) and runs the rules that need the real tool list.
func (c *checker) connected(ctx context.Context, opts Options) {
	timeout := opts.ServerTimeout
	if timeout <= 0 {
		timeout = DefaultServerTimeout
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 4
	}
	var todo []*project.Server
	for _, s := range c.p.Servers {
		if ok, why := s.Ready(c.p); !ok {
			c.add(Finding{Code: CodeNotConnectable, Pos: s.Pos, Server: s.Name, Connected: true,
				Message: fmt.Sprintf("server %s was not connected: %s", s.Name, why),
				Fix:     "supply the missing value (see the unresolved-value finding), then lint with --connect again"})
			continue
		}
		todo = append(todo, s)
	}
	results := make([]discovered, len(todo))
	cache := &mcpconn.ToolsCache{} // a fresh cache: lint must see the server as it is now
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	for i, s := range todo {
		wg.Add(1)
		go func(i int, s *project.Server) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = discovered{s: s, err: ctx.Err()}
				return
			}
			defer func() { <-sem }()
			sctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			spec := s.Spec
			spec.Faults = nil // lint looks at the server itself, not at injected what-ifs
			role := ""
			if len(s.Agents) > 0 {
				if a := c.p.Agent(s.Agents[0]); a != nil {
					role = a.Role
				}
			}
			d, err := mcpconn.Discover(sctx, spec, mcpconn.Options{Emitter: opts.Emitter, AgentRole: role, Cache: cache})
			if err != nil && sctx.Err() != nil && ctx.Err() == nil {
				err = fmt.Errorf("no answer within %s: %w", timeout, err)
			}
			results[i] = discovered{s: s, d: d, err: err}
		}(i, s)
	}
	wg.Wait()

	byServer := map[string]*mcpconn.Discovery{}
	for _, r := range results {
		if r.err != nil || r.d == nil {
			c.connectFailed(r)
			continue
		}
		byServer[r.s.Name] = r.d
		c.filterHints(r.s, r.d)
		c.toolDiagnostics(r.s, r.d)
	}
	c.collisions(byServer)
	c.promptsConnected(byServer)
	c.cacheConnected(byServer)
}

func (c *checker) connectFailed(r discovered) {
	s := r.s
	spec := s.Spec
	detail := "unknown error"
	if r.err != nil {
		detail = r.err.Error()
	}
	crewai := ""
	if r.d != nil {
		if r.d.Error != "" && !strings.Contains(detail, r.d.Error) {
			detail += ": " + r.d.Error
		}
		crewai = r.d.CrewAIError
	}
	if errors.Is(r.err, context.Canceled) {
		detail = "lint was cancelled"
	}
	detail = session.RedactString(mcpconn.RedactText(spec, detail))
	sev, effect := Error, "the task using it fails with MCPConnectionError"
	if spec.Ref == mcpconn.RefHTTPS || spec.Ref == mcpconn.RefAMP {
		sev, effect = Warning, "CrewAI continues silently without its tools"
	}
	msg := fmt.Sprintf("server %s could not be discovered (%s): %s", s.Name, detail, effect)
	if crewai != "" {
		msg += "; CrewAI: " + session.RedactString(mcpconn.RedactText(spec, crewai))
	}
	fix := "check the command and its arguments (run it by hand), and the environment it gets"
	if spec.Transport != mcpconn.TransportStdio {
		fix = "check the URL (a bare GET on a healthy streamable-HTTP endpoint answers 406; 404 is a wrong path), the headers and that the server is up"
	}
	c.add(Finding{Code: CodeConnectFailed, Severity: sev, Pos: s.Pos, Server: s.Name, Connected: true, Message: msg, Fix: fix})
	if r.d != nil && r.d.Outcome == session.OutcomeAuth && spec.Transport != mcpconn.TransportStdio && !c.oauthWarned[s.Name] {
		c.add(Finding{Code: CodeOAuth, Severity: Warning, Pos: s.Pos, Server: s.Name, Connected: true,
			Message: fmt.Sprintf("server %s answers 401 Unauthorized: it wants an (OAuth) access token, and CrewAI itself will not do the OAuth dance", s.Name),
			Fix:     oauthFix(s)})
	}
}

// oauthFix tells how to give CrewAI a token it cannot obtain itself.
func oauthFix(s *project.Server) string {
	return fmt.Sprintf(`obtain a token (crewbench auth login %s, or your provider's console) and pass it in the config: headers={"Authorization": f"Bearer {os.environ['%s']}"}`,
		session.RedactURL(s.Spec.URL), writeback.TokenEnvVar(s.Name))
}

// entryPos finds where a filter entry is written.
func (c *checker) entryPos(s *project.Server, list, entry string) project.Pos {
	if so := c.overlayFilter(s.Name); so != nil {
		return so.Pos
	}
	entries := s.Spec.Filter.Allowed
	if list == filter.ListBlocked {
		entries = s.Spec.Filter.Blocked
	}
	for i, e := range entries {
		if e == entry {
			return at(s, fmt.Sprintf("tool_filter.%s[%d]", list, i))
		}
	}
	return at(s, "tool_filter")
}

// filterHints reports a filter that keeps nothing and entries that match
// no tool, with mcpconn/filter's did-you-mean hints.
func (c *checker) filterHints(s *project.Server, d *mcpconn.Discovery) {
	var suggestions []string
	for _, h := range d.Hints {
		if h.Kind == filter.HintDidYouMean && h.Suggestion != "" {
			suggestions = append(suggestions, fmt.Sprintf("%q instead of %q", h.Suggestion, h.Entry))
		}
	}
	if d.KeepsNothing {
		fix := "list tools the server offers, by their sanitized names: " + strings.Join(listed(d, 8), ", ")
		if len(suggestions) > 0 {
			fix = "write " + strings.Join(suggestions, ", ")
		}
		var hintText []string
		for _, h := range d.Hints {
			if h.Kind != filter.HintKeepsNothing {
				hintText = append(hintText, h.Message)
			}
		}
		msg := fmt.Sprintf("the tool_filter of %s keeps none of its %d tools: CrewAI logs %q and the agent gets nothing from it", s.Name, len(d.Tools), filter.NoToolsMessage(d.ServerName))
		if len(hintText) > 0 {
			msg += " (" + strings.Join(hintText, "; ") + ")"
		}
		c.add(Finding{Code: CodeFilterKeepsNothing, Pos: at(s, "tool_filter"), Server: s.Name, Connected: true, Message: msg, Fix: fix})
		return
	}
	for _, h := range d.Hints {
		if h.Kind != filter.HintDidYouMean && h.Kind != filter.HintNoMatch {
			continue
		}
		if c.unsanitized[s.Name+"|"+h.Entry] && h.Suggestion == names.Sanitize(h.Entry) {
			continue // already reported without connecting
		}
		fix := "remove the entry; the server's tools are " + strings.Join(listed(d, 8), ", ")
		if h.Suggestion != "" {
			fix = fmt.Sprintf("write %q", h.Suggestion)
		}
		c.add(Finding{Code: CodeFilterUnmatched, Pos: c.entryPos(s, h.List, h.Entry), Server: s.Name, Connected: true,
			Message: h.Message, Fix: fix})
	}
}

// listed is the first n sanitized tool names of a discovery.
func listed(d *mcpconn.Discovery, n int) []string {
	var out []string
	for _, t := range d.Tools {
		if len(out) == n {
			out = append(out, "…")
			break
		}
		out = append(out, t.Sanitized)
	}
	if len(out) == 0 {
		return []string{"(none)"}
	}
	return out
}

// toolDiagnostics reports what names' diagnostics say about the real tools:
// dropped tools, leading digits, hashed names, https call names.
func (c *checker) toolDiagnostics(s *project.Server, d *mcpconn.Discovery) {
	var digits, hashed []string
	var hashMsg, digitFix string
	for _, t := range d.Tools {
		switch t.Status {
		case mcpconn.ToolDropped:
			c.add(Finding{Code: CodeToolDropped, Pos: s.Pos, Server: s.Name, Connected: true,
				Message: fmt.Sprintf("%s lists %q with a null description: CrewAI fails to build the tool and drops it", s.Name, t.Name),
				Fix:     fmt.Sprintf("give %s a description on the server (what it does and when to use it)", t.Name)})
		case mcpconn.ToolSkipped:
			c.add(Finding{Code: CodeToolDropped, Pos: s.Pos, Server: s.Name, Connected: true,
				Message: fmt.Sprintf("%s lists %q, whose name sanitizes to nothing: CrewAI skips it", s.Name, t.Name),
				Fix:     "give the tool a name with ASCII letters or digits on the server"})
		}
		if !t.Kept() {
			continue
		}
		if t.TaskSupport() == mcpconn.TaskRequired {
			c.add(Finding{Code: CodeTaskRequired, Pos: s.Pos, Server: s.Name, Connected: true,
				Message: fmt.Sprintf("%s's tool %q runs only as an MCP task (execution.taskSupport: required): every call CrewAI makes fails", s.Name, t.Name),
				Fix:     fmt.Sprintf("filter %s out (tool_filter) or ask the server for a plain variant", t.Sanitized)})
		}
		for _, dg := range t.Diagnostics {
			switch dg.Code {
			case names.CodeLeadingDigit:
				digits = append(digits, t.LLMName)
				digitFix = dg.Fix
			case names.CodeNameHashed:
				hashed = append(hashed, fmt.Sprintf("%s → %s", t.Name, t.LLMName))
				if hashMsg == "" {
					hashMsg = dg.Message
				}
			case names.CodeHTTPSCallName:
				c.add(Finding{Code: CodeHTTPSCallName, Pos: s.Pos, Server: s.Name, Connected: true, Message: dg.Message, Fix: dg.Fix})
			}
		}
	}
	if len(digits) > 0 && !c.ipServers[s.Name] {
		sev := Warning
		msg := fmt.Sprintf("%s: %s start with a digit; LiteLLM and the ReAct path accept that, native OpenAI/Anthropic/Azure/Bedrock/Gemini function calling does not", s.Name, listN(digits, 5))
		if native := c.nativeAgents(s); len(native) > 0 {
			sev = Error
			msg = fmt.Sprintf("%s: %s start with a digit, which %s rejects (`function name … must start with a letter or underscore`): the run fails", s.Name, listN(digits, 5), strings.Join(native, ", "))
		}
		c.add(Finding{Code: CodeLeadingDigit, Severity: sev, Pos: s.Pos, Server: s.Name, Connected: true, Message: msg, Fix: digitFix})
	}
	if len(hashed) > 0 && !c.hashedServers[s.Name] {
		c.add(Finding{Code: CodeNameHashed, Pos: s.Pos, Server: s.Name, Connected: true,
			Message:     fmt.Sprintf("%d tool name(s) of %s are cut and hashed: %s", len(hashed), s.Name, listN(hashed, 3)),
			Fix:         "shorten the server prefix (a short command and relative paths, a short URL path) or the tool names; or use MCPServerAdapter, whose names have no prefix",
			Explanation: ruleExplanation(CodeNameHashed) + " " + hashMsg})
	}
}

func listN(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// agentTool is a kept tool an agent gets from a server.
type agentTool struct {
	t mcpconn.Tool
	s *project.Server
}

// agentTools lists the kept MCP tools of each agent, in mcps order.
func (c *checker) agentTools(a *project.Agent, byServer map[string]*mcpconn.Discovery) []agentTool {
	var out []agentTool
	seen := map[string]bool{}
	for _, r := range a.MCPs {
		d := byServer[r.Server]
		s := c.p.Server(r.Server)
		if d == nil || s == nil || seen[r.Server] {
			continue
		}
		seen[r.Server] = true
		for _, t := range d.Tools {
			if t.Kept() {
				out = append(out, agentTool{t, s})
			}
		}
	}
	return out
}

// collisions reports tools that reach one agent under the same LLM name.
func (c *checker) collisions(byServer map[string]*mcpconn.Discovery) {
	for _, a := range c.p.Agents {
		groups := map[string][]agentTool{}
		var order []string
		for _, at := range c.agentTools(a, byServer) {
			if _, ok := groups[at.t.LLMName]; !ok {
				order = append(order, at.t.LLMName)
			}
			groups[at.t.LLMName] = append(groups[at.t.LLMName], at)
		}
		for _, name := range order {
			g := groups[name]
			if len(g) < 2 {
				continue
			}
			var parts []string
			var related []project.Pos
			for _, at := range g {
				parts = append(parts, fmt.Sprintf("%q from %s", at.t.Name, at.s.Name))
				related = append(related, at.s.Pos)
			}
			pos := a.Positions.At("mcps")
			if !pos.IsValid() {
				pos = a.Pos
			}
			c.add(Finding{Code: CodeCollision, Pos: pos, Server: g[0].s.Name, Connected: true, Related: related,
				Message: fmt.Sprintf("agent %s gets %d tools named %s (%s): native function calling renames the later ones to %s, the ReAct path cannot tell them apart",
					a.Name, len(g), name, strings.Join(parts, ", "), names.CollisionName(name, 2)),
				Fix: "filter out the duplicates with tool_filter, rename the tools on the server, or give them to different agents"})
		}
	}
}

// promptsConnected reports prompts naming a real tool by a name the LLM
// does not see.
func (c *checker) promptsConnected(byServer map[string]*mcpconn.Discovery) {
	for _, a := range c.p.Agents {
		texts := c.agentTexts(a)
		for _, at := range c.agentTools(a, byServer) {
			t := at.t
			seen := map[string]bool{}
			for _, bare := range []string{t.Name, t.Sanitized} {
				if bare == "" || bare == t.LLMName || seen[bare] {
					continue
				}
				seen[bare] = true
				c.reportBare(a, texts, bareTool{bare: bare, llm: t.LLMName, description: t.Description, server: at.s.Name, pos: at.s.Pos}, true)
			}
		}
	}
}

// annotations are the MCP tool hints that say whether a call changes state.
type annotations struct {
	ReadOnly    *bool `json:"readOnlyHint"`
	Destructive *bool `json:"destructiveHint"`
}

// changesState decides from the tool's annotations when it has them, else
// from its name.
func changesState(t mcpconn.Tool) bool {
	var a annotations
	if len(t.Annotations) > 0 && json.Unmarshal(t.Annotations, &a) == nil {
		if a.ReadOnly != nil && *a.ReadOnly {
			return false
		}
		if a.Destructive != nil && *a.Destructive {
			return true
		}
		if a.ReadOnly != nil && !*a.ReadOnly {
			return true
		}
	}
	return stateChanging(t.Name)
}

// cacheConnected reports Crew(cache=True) with state-changing tools when
// the static rule could not see them.
func (c *checker) cacheConnected(byServer map[string]*mcpconn.Discovery) {
	cr := c.p.Crew
	if cr == nil || !cr.Cache {
		return
	}
	for _, f := range c.out {
		if f.Code == CodeCacheStateChange {
			return
		}
	}
	var hits []string
	var related []project.Pos
	seen := map[string]bool{}
	for _, a := range c.p.Agents {
		if !a.Cache {
			continue
		}
		for _, at := range c.agentTools(a, byServer) {
			if changesState(at.t) && !seen[at.t.LLMName] {
				seen[at.t.LLMName] = true
				hits = append(hits, fmt.Sprintf("%s (%s)", at.t.Name, at.s.Name))
				related = append(related, at.s.Pos)
			}
		}
	}
	if len(hits) == 0 {
		return
	}
	sort.Strings(hits)
	c.add(Finding{Code: CodeCacheStateChange, Pos: cr.Positions.At("cache"), Related: related, Connected: true,
		Message: fmt.Sprintf("the crew caches tool results (cache=True) and its agents get state-changing tools: %s; a repeated call is answered from the cache and does not run", listN(hits, 6)),
		Fix:     c.cacheFix()})
}
