package lint

import (
	"fmt"
	"regexp"
	"strings"

	"crewbench/crew/project"
	"crewbench/names"
	"crewbench/session"
)

var (
	invalidRefRe    = regexp.MustCompile(`Invalid MCP reference: ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")`)
	contextLaterRe  = regexp.MustCompile(`has context reference '([^']*)' but that task has not been defined yet|has a context dependency on a future task`)
	didYouMeanRe    = regexp.MustCompile(`\(did you mean ("(?:[^"\\]|\\.)*")\?\)`)
	hierarchicalMsg = "Attribute `manager_llm` or `manager_agent` is required when using hierarchical process."
)

// loaderErrors turns the errors CrewAI's loader would raise into findings,
// with a specific code where a rule knows the mistake.
func (c *checker) loaderErrors(errs project.Errors) {
	for _, e := range errs {
		if e == nil {
			continue
		}
		if m := invalidRefRe.FindStringSubmatch(e.Msg); m != nil {
			c.invalidRef(e, unquotePy(m[1]))
			continue
		}
		switch {
		case strings.Contains(e.Msg, hierarchicalMsg):
			c.add(Finding{Code: CodeHierarchical, Pos: e.Pos, Message: e.Msg,
				Fix: hierarchicalFix(c.p)})
			continue
		case contextLaterRe.MatchString(e.Msg):
			c.add(Finding{Code: CodeContextFuture, Pos: e.Pos, Message: e.Msg,
				Fix: "move the referenced task before this one, or remove it from context (context may only name earlier tasks)"})
			continue
		case strings.Contains(e.Msg, "max_usage_count"):
			c.add(Finding{Code: CodeMaxUsageCount, Pos: e.Pos, Message: e.Msg,
				Fix: "set max_usage_count to a positive number, or remove it for unlimited use"})
			continue
		}
		f := loaderErrorFinding(e)
		c.add(f)
	}
}

func loaderErrorFinding(e *project.Error) Finding {
	// The hint ("did you mean …?") is the fix; saying it in the message
	// too would print it twice.
	fix := "correct the value so CrewAI accepts it"
	if e.Hint != "" {
		fix = e.Hint
	}
	return Finding{Code: CodeLoaderError, Severity: Error, Pos: e.Pos, Message: e.Msg, Fix: fix,
		Explanation: ruleExplanation(CodeLoaderError)}
}

// invalidRef classifies a string ref CrewAI's validation rejected.
func (c *checker) invalidRef(e *project.Error, ref string) {
	python := strings.HasSuffix(e.Pos.File, ".py")
	switch {
	case strings.HasPrefix(strings.ToLower(ref), "http://"):
		url, tool, _ := strings.Cut(ref, "#")
		url = session.RedactURL(url)
		fix := fmt.Sprintf(`declare it as a config: {"url": %q}`, url)
		if python {
			fix = fmt.Sprintf(`use MCPServerHTTP(url=%q) instead of the string`, url)
		}
		if tool != "" {
			if python {
				fix = fmt.Sprintf(`use MCPServerHTTP(url=%q, tool_filter=create_static_tool_filter(allowed_tool_names=[%q])) instead of the string`, url, names.Sanitize(tool))
			} else {
				fix = fmt.Sprintf(`declare it as a config: {"url": %q, "tool_filter": {"type": "static", "allowed_tool_names": [%q]}}`, url, names.Sanitize(tool))
			}
		}
		c.add(Finding{Code: CodeHTTPStringRef, Pos: e.Pos,
			Message: fmt.Sprintf("%q is an http:// string ref: CrewAI rejects it (Invalid MCP reference)", session.RedactURL(ref)),
			Fix:     fix})
	case strings.Contains(ref, "#") && strings.Contains(ref[strings.Index(ref, "#"):], ","):
		base, list, _ := strings.Cut(ref, "#")
		c.add(Finding{Code: CodeRefToolList, Pos: e.Pos,
			Message: fmt.Sprintf("%q lists several tools after #: CrewAI rejects it (Invalid MCP reference)", ref),
			Fix:     "write one ref per tool: " + refsPerTool(base, list)})
	default:
		c.add(Finding{Code: CodeInvalidRef, Pos: e.Pos,
			Message: fmt.Sprintf("%q is neither an https:// URL nor an AMP slug: CrewAI rejects it (Invalid MCP reference)", session.RedactURL(ref)),
			Fix:     `use "https://host/path" for a remote server (better: a config with "url"), a slug such as "notion" or "notion#search" for an AMP integration, or a command/args config for a local server`})
	}
}

// refsPerTool renders "base#a", "base#b" for a "#a,b" list.
func refsPerTool(base, list string) string {
	var parts []string
	for _, t := range strings.Split(list, ",") {
		if t = strings.TrimSpace(t); t != "" {
			parts = append(parts, fmt.Sprintf("%q", base+"#"+t))
		}
	}
	return strings.Join(parts, ", ")
}

// unquotePy undoes a Python repr of a simple string (quotes and the
// backslash escapes repr produces for printable text).
func unquotePy(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	r := strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`, `\n`, "\n", `\t`, "\t")
	return r.Replace(s)
}

func hierarchicalFix(p *project.Project) string {
	if p.Kind == project.KindClassic {
		return `add manager_llm="openai/gpt-4o" (or manager_agent=self.some_manager()) to Crew(...), or use process=Process.sequential`
	}
	return `add "manager_llm": "openai/gpt-4o" (or "manager_agent": "<agent file stem>") to the crew, or use "process": "sequential"`
}

// noteFixes are fixes for the loader's warning notes that become findings.
var noteFixes = map[string]string{
	"mcp-command-and-url":      `keep either "command" (a stdio server) or "url" (an HTTP server); split them into two entries if you meant both`,
	"mcp-literal-variable":     "CrewAI passes the text as written: put the real value there (and keep the file out of version control), or declare the server in crew.py with os.environ[\"…\"]",
	"mcp-ignored-field":        "remove the field: CrewAI ignores it",
	"mcp-cwd":                  "remove cwd= and start the server with paths relative to where the crew runs",
	"adapter-no-params":        "define mcp_server_params on the @CrewBase class as a literal list",
	"adapter-dict-sse":         `add "transport": "streamable-http" for a streamable-HTTP /mcp endpoint`,
	"yaml-unknown-key":         "remove or rename the key",
	"yaml-duplicate-key":       "remove the duplicate key (the last value wins)",
	"yaml-missing":             "create the file, or point agents_config / tasks_config at it",
	"dotenv-invalid":           "write the line as KEY=value",
	"dotenv-disabled":          "unset PYTHON_DOTENV_DISABLED, or export the variables yourself",
	"pyproject-definition":     `set [tool.crewai] definition = "crew.jsonc" (a relative path to an existing file)`,
	"inherit-env":              "remove inherit_env and name the variables the server needs in its env",
	"overlay-unused":           "remove the amp entry, or add the slug to an agent's mcps",
	"mcp-dropped-field":        "move the setting somewhere CrewAI reads it, or remove it",
	"mcp-env-not-string":       "write the value as a string",
	"crewpy-no-agent-call":     "return Agent(config=self.agents_config[…], …) from the @agent method",
	"crewpy-config-nonliteral": "pass config=self.agents_config['<name>']",
	"crewpy-no-class":          "define a @CrewBase class with @agent and @task methods in crew.py",
	"crewpy-missing":           "add crew.py with the @CrewBase class",
}

// loaderNotes turns the loader's warning notes into findings; info notes
// are explanations of what was opened and stay out of lint.
func (c *checker) loaderNotes() {
	for _, n := range c.p.Notes {
		if n.Level != project.Warn {
			continue
		}
		switch {
		case n.Code == "mcp-ignored-field" && strings.Contains(n.Text, `"type": "sse"`):
			c.add(Finding{Code: CodeSSEInJSON, Pos: n.Pos, Message: n.Text,
				Fix: `declare the server in crew.py as MCPServerSSE(url=…), or point "url" at the server's streamable-HTTP endpoint (usually /mcp)`})
		case n.Code == "mcp-streamable-false":
			c.add(Finding{Code: CodeStreamableFalse, Pos: n.Pos, Message: n.Text,
				Fix: `remove "streamable": false; for an SSE server use MCPServerSSE(url=…) in crew.py`})
		default:
			fix, ok := noteFixes[n.Code]
			if !ok {
				fix = "see the message"
			}
			if m := didYouMeanRe.FindStringSubmatch(n.Text); m != nil && (n.Code == "mcp-ignored-field" || n.Code == "mcp-dropped-field") {
				fix = fmt.Sprintf("rename it to %s (CrewAI ignores it as written)", m[1])
			}
			c.add(Finding{Code: n.Code, Severity: Warning, Pos: n.Pos, Message: n.Text, Fix: fix,
				Explanation: "Found while reading the project: CrewAI would read this differently from what the file suggests."})
		}
	}
}
