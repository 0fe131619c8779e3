package lint

// Rule describes one finding code.
type Rule struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"` // the default; some rules raise or lower it per finding
	// Connected is true for rules that need a live connection (--connect).
	Connected bool `json:"connected,omitempty"`
	// Title is a short name for the rule.
	Title string `json:"title"`
	// Explanation is why the rule exists: what CrewAI does.
	Explanation string `json:"explanation"`
}

// Finding codes. They are stable: add new ones, never rename.
const (
	CodeLoaderError = "loader-error"

	CodeHTTPStringRef   = "mcp-http-string-ref"
	CodeRefToolList     = "mcp-ref-tool-list"
	CodeInvalidRef      = "mcp-invalid-ref"
	CodeHTTPSStringRef  = "mcp-https-string-ref"
	CodeIPHost          = "mcp-ip-host"
	CodeAbsolutePath    = "mcp-absolute-path"
	CodeNameHashed      = "mcp-name-hashed"
	CodeNotDeployable   = "mcp-not-deployable"
	CodeSSEInJSON       = "mcp-sse-in-json"
	CodeStreamableFalse = "mcp-streamable-false"
	CodeStdioMissingEnv = "mcp-stdio-missing-env"
	CodeStdioFile       = "mcp-stdio-file-missing"
	CodeSecretLiteral   = "secret-literal"

	CodeFilterNotSanitized = "filter-name-not-sanitized"
	CodeFilterKeepsNothing = "filter-keeps-nothing"
	CodeFilterUnmatched    = "filter-entry-unmatched"
	CodeFilterIgnored      = "filter-ignored"

	CodeBareToolName   = "prompt-bare-tool-name"
	CodeCollision      = "tool-name-collision"
	CodeLeadingDigit   = "tool-name-leading-digit"
	CodeToolDropped    = "tool-dropped"
	CodeConnectFailed  = "mcp-connect-failed"
	CodeHTTPSCallName  = "mcp-https-call-name"
	CodeNotConnectable = "mcp-not-connectable"
	CodeOAuth          = "mcp-oauth-not-done-by-crewai"

	CodeMissingInput     = "placeholder-missing-input"
	CodeUnusedInput      = "input-unused"
	CodeHierarchical     = "hierarchical-no-manager"
	CodeContextFuture    = "context-future-task"
	CodeMaxUsageCount    = "max-usage-count"
	CodeCacheStateChange = "cache-state-changing"

	CodeNeedsPython      = "tool-needs-python"
	CodeUnknownToolClass = "tool-unknown-class"
	CodeMissingExtra     = "tool-missing-extra"
	CodeUnresolved       = "unresolved-value"

	CodeImportPath       = "python-import-path"
	CodeMissingRun       = "python-tool-missing-run"
	CodeNoDocstring      = "python-tool-no-docstring"
	CodeAdapterReused    = "adapter-instance-reused"
	CodeHTTPSAkickoffRef = "mcp-https-ref-akickoff"
)

var rules = []Rule{
	{CodeLoaderError, Error, false, "CrewAI rejects the project",
		"CrewAI's loader or its Pydantic models raise this when the crew is built; `crewai run` stops before any task runs."},
	{CodeHTTPStringRef, Error, false, "http:// string in mcps",
		"Agent.mcps accepts only strings that start with https:// or are AMP slugs; an http:// string fails validation with `Invalid MCP reference` when the agent is built. Plain-HTTP servers (such as localhost) must be declared as a config: a dict with \"url\" in JSON, MCPServerHTTP(url=…) in Python."},
	{CodeRefToolList, Error, false, "#a,b names one tool, not a list",
		"The part after # selects exactly one tool. \"slug#a,b\" fails validation; \"https://…#a,b\" is accepted but selects a tool literally named a_b, which is usually none."},
	{CodeInvalidRef, Error, false, "invalid MCP string reference",
		"A string in mcps must start with https:// or be an AMP slug such as \"notion\" or \"notion#search\"; anything else fails validation when the agent is built."},
	{CodeHTTPSStringRef, Warning, false, "https:// string ref",
		"CrewAI discovers https:// string refs with asyncio.run(). Inside a running event loop — `await crew.akickoff()`, Flows that await, every CrewAI AMP deployment — that fails silently: the agent runs with zero tools from the ref and may invent tool calls. The same URL as a config (MCPServerHTTP, or a JSON dict with \"url\") works everywhere and fails loudly when the server is down. String refs also call tools by their sanitized names."},
	{CodeHTTPSAkickoffRef, Error, false, "https:// string ref with akickoff()",
		"The project awaits crew.akickoff(); https:// string refs resolve to zero tools inside a running event loop, without an error."},
	{CodeIPHost, Warning, false, "server URL uses an IP address",
		"CrewAI builds tool names from the URL's host and path, so an IP host makes every tool name start with digits (127_0_0_1_8765_mcp_…). Native function calling with OpenAI, Anthropic, Azure, Bedrock and Gemini rejects such names and the run fails; the names also change whenever the address does."},
	{CodeAbsolutePath, Warning, false, "absolute path in a stdio server",
		"CrewAI names stdio tools command + \"_\" + args + \"_\" + tool, so absolute paths put your filesystem layout into every tool name the LLM sees; past 64 characters the name is cut and hashed and the tool's own name disappears. A laptop path also does not exist on another machine or in a deployment, where the run fails with MCPConnectionError."},
	{CodeNameHashed, Warning, false, "tool names will be hashed",
		"Tool names longer than 64 characters after sanitizing are cut to 55 characters plus an 8-character hash. A long stdio command line or URL path uses up the budget before the tool's own name starts, so the LLM sees only the server prefix and a hash."},
	{CodeNotDeployable, Warning, false, "server not available after deployment",
		"A stdio server runs as a child process wherever the crew runs. A deployment (CrewAI AMP) has only what the Python project installs: no npx/Node, no docker, no files outside the package; localhost there is not your machine. The run fails with MCPConnectionError (and /status answers HTTP 500)."},
	{CodeSSEInJSON, Warning, false, "SSE cannot be declared in JSON",
		"An mcps dict with \"url\" always becomes MCPServerHTTP, which speaks streamable HTTP; a \"type\": \"sse\" key is ignored silently. Against an SSE-only server the connection fails."},
	{CodeStreamableFalse, Warning, false, "streamable: false does not give SSE",
		"MCPServerHTTP's transport always speaks streamable HTTP; streamable=False only changes the transport type reported in events."},
	{CodeStdioMissingEnv, Warning, false, "stdio server will not see a key from .env",
		"Since crewai 1.14.6 a stdio server gets only HOME, LOGNAME, PATH, SHELL, TERM, USER plus its own env=. A key in your .env or shell reaches it only when the server's env names it."},
	{CodeStdioFile, Warning, false, "stdio server file not found",
		"The server's script does not exist relative to the project; CrewAI starts the command from the working directory of the run and fails with MCPConnectionError when the file is missing."},
	{CodeSecretLiteral, Warning, false, "secret written into config",
		"A credential written literally into a crew file ends up in version control, in deployments and in CrewAI's log and event output (URLs are logged on errors)."},
	{CodeFilterNotSanitized, Error, false, "filter name not in sanitized form",
		"create_static_tool_filter compares its names exactly against the sanitized remote tool name (getForecast is get_forecast). An entry in another form never matches: in allowed_tool_names the tool is filtered out (all of them, if no entry matches), in blocked_tool_names the tool is not blocked."},
	{CodeFilterKeepsNothing, Error, true, "tool filter keeps nothing",
		"When the filter rejects every tool, CrewAI logs `No tools discovered from MCP server` and the server contributes nothing; the crew runs without those tools."},
	{CodeFilterUnmatched, Warning, true, "filter entry matches no tool",
		"The entry names no tool the server lists (compared against sanitized remote names), so it has no effect."},
	{CodeFilterIgnored, Warning, false, "tool_filter on a string ref",
		"CrewAI applies tool_filter only to MCPServerStdio/HTTP/SSE configs; https:// and AMP string refs select one tool with #tool instead."},
	{CodeBareToolName, Warning, false, "prompt names a tool the LLM will not see",
		"Native MCP tools reach the LLM as <server name>_<tool name>, sanitized. A prompt that says \"call the lookup_stock tool\" names a tool that does not exist: the ReAct path answers `Action 'lookup_stock' don't exist`, and a hashed name leaves only the description to go on."},
	{CodeCollision, Warning, true, "two tools share one LLM name",
		"Native function calling renames the later tool to <name>_2; the ReAct path keeps one of them (the first for execution, the last for hooks). Either way the LLM cannot tell them apart by name."},
	{CodeLeadingDigit, Error, true, "tool name starts with a digit",
		"The native providers (OpenAI, Anthropic, Azure, Bedrock, Gemini) require tool names to start with a letter or underscore; CrewAI raises `… function name '…' must start with a letter or underscore` and the run fails. LiteLLM and the ReAct text path accept it."},
	{CodeToolDropped, Warning, true, "tool dropped by CrewAI",
		"CrewAI skips a tool whose name sanitizes to empty, and fails to build (and drops) a tool whose description is null; the agent never gets it."},
	{CodeHTTPSCallName, Warning, true, "https:// string ref calls tools by a different name",
		"The https:// string path sends the sanitized name to tools/call (getForecast is called as get_forecast); a server that only knows the original name answers with an error, which CrewAI passes to the agent as ordinary output."},
	{CodeConnectFailed, Error, true, "server cannot be reached",
		"For an MCPServerStdio/HTTP/SSE config a failed discovery makes the task fail with MCPConnectionError; for https:// and AMP string refs the agent silently runs without the server's tools."},
	{CodeOAuth, Info, false, "CrewAI does not do the OAuth dance",
		"A remote server that answers 401 with WWW-Authenticate wants an OAuth access token. CrewAI sends only the headers the config declares and never runs an OAuth flow, so the token has to be in headers (crewbench auth login URL obtains one for crewbench's own calls). An https:// server with no headers at all gets this note too, in case it is one of them."},
	{CodeNotConnectable, Info, true, "server not connected",
		"crewbench could not connect this server because a value is unknown (see the unresolved value)."},
	{CodeMissingInput, Warning, false, "{placeholder} without an input",
		"CrewAI interpolates {name} in descriptions, expected outputs, output files, roles, goals and backstories at kickoff. With inputs given, a missing name raises; with no inputs at all the braces stay in the prompt; `crewai run` asks for it or exits 1."},
	{CodeUnusedInput, Info, false, "input not used by any placeholder",
		"`crewai run` warns about inputs that no {placeholder} uses and keeps them."},
	{CodeHierarchical, Error, false, "hierarchical process without a manager",
		"Crew(process=hierarchical) requires manager_llm or manager_agent; without one the crew fails validation."},
	{CodeContextFuture, Error, false, "context names a later task",
		"A task's context may only name earlier tasks; a later one fails validation (`has context reference … but that task has not been defined yet` / `context dependency on a future task`)."},
	{CodeMaxUsageCount, Error, false, "max_usage_count must be positive",
		"max_usage_count must be a positive integer (None is unlimited); 0 or a negative number raises `max_usage_count must be a positive integer`."},
	{CodeCacheStateChange, Warning, false, "crew cache with state-changing tools",
		"With Crew(cache=True) a repeated call with identical arguments returns the first result without running the tool: a second write, send or delete silently does nothing, and live data goes stale."},
	{CodeNeedsPython, Info, false, "tool needs Python (stand-in required in crewbench)",
		"crewai_tools classes, custom:/module: tools and @tool methods are Python code; crewbench cannot run them and needs a stand-in under tools: in crewbench.yaml (a canned result or an MCP tool to route to)."},
	{CodeUnknownToolClass, Error, false, "crewai_tools has no such class",
		"crewai-tools 1.15 does not export this name (a common invented one); importing it raises ImportError."},
	{CodeMissingExtra, Warning, false, "optional package not declared",
		"The tool needs an optional package. When it is missing, constructing the tool asks `Would you like to install it? [y/N]`: with a terminal attached the run hangs forever, in CI it aborts."},
	{CodeUnresolved, Warning, false, "value crewbench cannot read",
		"The value is not a literal (an environment read, a variable, a Python function); crewbench leaves the dependent server or setting out until you supply it."},
	{CodeImportPath, Error, false, "wrong import path",
		"BaseTool and tool live in crewai.tools (crewai_tools no longer exports them); MCPServerAdapter lives in crewai_tools, the native configs in crewai.mcp. The wrong path raises ImportError."},
	{CodeMissingRun, Error, false, "BaseTool without _run",
		"_run is abstract: a tool class that only defines _arun cannot be instantiated (`Can't instantiate abstract class … without an implementation for abstract method '_run'`). Agents call _run in kickoff() and akickoff() alike; put async code in async def _run."},
	{CodeNoDocstring, Error, false, "@tool function without a docstring",
		"@tool raises `ValueError: Function must have a docstring` at decoration time; the docstring is the description the LLM picks the tool by."},
	{CodeAdapterReused, Warning, false, "@CrewBase instance kicked off twice",
		"CrewAI stops the mcp_server_params adapter after every kickoff: a second kickoff on the same instance makes every MCP call return `Event loop is closed` while the crew still reports success."},
}

var ruleByCode = func() map[string]Rule {
	m := make(map[string]Rule, len(rules))
	for _, r := range rules {
		m[r.Code] = r
	}
	return m
}()

// Rules lists every rule crewbench lint knows, static ones first.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	copy(out, rules)
	return out
}

func ruleSeverity(code string) Severity {
	if r, ok := ruleByCode[code]; ok {
		return r.Severity
	}
	return Warning
}

func ruleExplanation(code string) string {
	return ruleByCode[code].Explanation
}
