package names

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the form a tool reaches CrewAI in.
type Kind string

// Input kinds.
const (
	KindTool  Kind = "tool"  // a plain tool (@tool, BaseTool): Name
	KindStdio Kind = "stdio" // MCPServerStdio: Command, Args, Tool
	KindHTTP  Kind = "http"  // MCPServerHTTP (streamable HTTP): URL, Tool
	KindSSE   Kind = "sse"   // MCPServerSSE: URL, Tool
	KindRef   Kind = "ref"   // a string in Agent.mcps: Ref, Tool (+ AMPConfigURL for slugs)
)

// Input is one tool to name.
type Input struct {
	Kind Kind `json:"kind"`

	// Name is a plain tool's name (KindTool).
	Name string `json:"name,omitempty"`

	// Command and Args are an MCPServerStdio's (KindStdio).
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`

	// URL is an MCPServerHTTP's or MCPServerSSE's (KindHTTP, KindSSE).
	URL string `json:"url,omitempty"`

	// Ref is the string in Agent.mcps (KindRef); AMPConfigURL is the URL the
	// CrewAI+ API returns for its slug (AMP refs only; names come from it).
	Ref          string `json:"ref,omitempty"`
	AMPConfigURL string `json:"amp_config_url,omitempty"`

	// Tool is the remote MCP tool's name as the server lists it (every kind
	// but KindTool).
	Tool string `json:"tool,omitempty"`

	// Server is the server's config key, which other hosts name tools by
	// (SchemeClaudeCode, SchemeCrush, SchemeMCPHost). Empty: CrewAI's
	// server name stands in, with a CodeServerKeyAssumed note.
	Server string `json:"server,omitempty"`

	// Dedupe n ≥ 2 asks for the name native function calling gives the
	// n-th tool with this LLM name: sanitize(name + "_" + n). 0 or 1: none.
	Dedupe int `json:"dedupe_counter,omitempty"`

	// Scheme picks the host whose naming applies; "" is SchemeCrewAI.
	Scheme Scheme `json:"scheme,omitempty"`
}

// Status says whether the tool reaches the LLM.
type Status string

// Statuses.
const (
	StatusOK          Status = "ok"           // the LLM sees LLMName
	StatusSkipped     Status = "skipped"      // the resolver drops the tool (name sanitizes to empty)
	StatusNotSelected Status = "not_selected" // a "#tool" ref excluded it
)

// Result is how one tool is named.
type Result struct {
	Input  Input  `json:"input"`
	Scheme Scheme `json:"scheme"`

	// LLMName is the name the LLM sees; DisplayName is the tool object's
	// name (tool.name) that CrewAI keeps verbatim. Both are empty unless
	// Status is StatusOK.
	LLMName     string `json:"llm_name"`
	DisplayName string `json:"display_name"`
	// ServerName is CrewAI's raw server_name (or, for another host's
	// scheme, the server key used); empty for plain tools.
	ServerName string `json:"server_name,omitempty"`
	// CallName is the name sent in tools/call: the remote name, except on
	// the https-string path, which sends the sanitized key (§2.3).
	CallName string `json:"call_name,omitempty"`
	// RefKind is set for string refs.
	RefKind RefKind `json:"ref_kind,omitempty"`

	Status      Status       `json:"status"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	Explanation Explanation  `json:"explanation"`
}

func errMissingAMPURL(ref Ref) error {
	return fmt.Errorf("AMP ref %q needs the config URL the CrewAI+ API returns for %q: its tool names come from that URL, not from the slug", ref.Raw, ref.Slug)
}

// Resolve names one tool the way the chosen scheme does, with diagnostics
// and an explanation. It fails only on input CrewAI itself would reject
// (an invalid string ref, a URL Python's urlparse refuses) or that is
// incomplete (no tool, no AMP config URL, a scheme that does not apply).
func Resolve(in Input) (Result, error) {
	scheme, err := ParseScheme(string(in.Scheme))
	if err != nil {
		return Result{}, err
	}
	if in.Dedupe < 0 {
		return Result{}, fmt.Errorf("dedupe counter %d: want 0, or n ≥ 2 for the n-th tool of one name", in.Dedupe)
	}
	r := &resolver{in: in, res: Result{Input: in, Scheme: scheme, Status: StatusOK}}
	switch {
	case in.Kind == KindTool:
		if scheme != SchemeCrewAI {
			return Result{}, fmt.Errorf("scheme %s names MCP tools; a plain tool is named by CrewAI's sanitizer alone (use the crewai scheme)", scheme)
		}
		r.plainTool()
	case in.Kind == KindStdio || in.Kind == KindHTTP || in.Kind == KindSSE:
		if in.Kind == KindStdio && in.Command == "" {
			return Result{}, errors.New("stdio input needs a command")
		}
		if in.Kind != KindStdio && in.URL == "" {
			return Result{}, fmt.Errorf("%s input needs a url", in.Kind)
		}
		if err := r.mcpTool(scheme); err != nil {
			return Result{}, err
		}
	case in.Kind == KindRef:
		if scheme != SchemeCrewAI {
			return Result{}, fmt.Errorf("string refs exist only in CrewAI's Agent.mcps; scheme %s takes a server (stdio or url)", scheme)
		}
		if err := r.stringRef(); err != nil {
			return Result{}, err
		}
	default:
		return Result{}, fmt.Errorf("unknown input kind %q (want tool, stdio, http, sse or ref)", in.Kind)
	}
	if r.res.Status != StatusOK {
		r.res.LLMName, r.res.DisplayName = "", ""
	}
	if r.res.Diagnostics == nil {
		r.res.Diagnostics = []Diagnostic{}
	}
	sortDiagnostics(r.res.Diagnostics)
	r.res.Explanation = r.ex.explanation()
	return r.res, nil
}

// resolver accumulates one Result.
type resolver struct {
	in  Input
	res Result
	ex  explainer
	// hostIP and hostURL are set when the server URL's host is an IP
	// address, for the leading-digit fix.
	hostIP, hostURL string
}

func (r *resolver) diag(code Code, message, fix string) {
	r.res.Diagnostics = append(r.res.Diagnostics, newDiag(code, message, fix))
}

func (r *resolver) plainTool() {
	r.ex.add("inputs", "", fmt.Sprintf("plain tool %q", r.in.Name))
	r.ex.add("display name", "the tool's name, kept verbatim", r.in.Name)
	r.res.DisplayName = r.in.Name
	r.res.LLMName = r.ex.sanitizeStep("LLM name", "sanitize(display name)", r.in.Name)
	r.dedupe()
	r.hashedDiag("", "")
	r.providerDiags("")
}

// mcpTool names a tool of a stdio/HTTP/SSE server under any scheme but
// string refs.
func (r *resolver) mcpTool(scheme Scheme) error {
	if r.in.Tool == "" {
		return fmt.Errorf("%s input needs the remote tool's name", r.in.Kind)
	}
	server, err := r.serverStep()
	if err != nil {
		return err
	}
	r.res.CallName = r.in.Tool
	switch {
	case scheme == SchemeAdapter:
		r.ex.add("scheme", "CrewAI MCPServerAdapter names tools sanitize(tool), no server prefix (§2.5)", "adapter")
		r.res.LLMName = r.ex.sanitizeStep("LLM name", "sanitize(tool)", r.in.Tool)
		r.res.DisplayName = r.res.LLMName
		r.dedupe()
		r.hashedDiag("", r.in.Tool)
		r.providerDiags("")
	case scheme.isOtherHost():
		r.otherHost(scheme, server)
	default:
		r.native(server, nil)
	}
	return nil
}

// serverStep derives and records CrewAI's server name.
func (r *resolver) serverStep() (string, error) {
	switch r.in.Kind {
	case KindStdio:
		r.ex.add("inputs", "", fmt.Sprintf("MCPServerStdio command %q, args %s, remote tool %q", r.in.Command, quoteList(r.in.Args), r.in.Tool))
		s := StdioServerName(r.in.Command, r.in.Args)
		r.ex.add("server name", `command + "_" + "_".join(args), raw (never sanitized)`, s)
		r.res.ServerName = s
		if r.res.Scheme == SchemeCrewAI {
			r.pathDiag()
		}
		return s, nil
	default:
		label := "MCPServerHTTP (streamable HTTP)"
		if r.in.Kind == KindSSE {
			label = "MCPServerSSE"
		}
		r.ex.add("inputs", "", fmt.Sprintf("%s url %q, remote tool %q", label, redactURL(r.in.URL), r.in.Tool))
		return r.urlServer(r.in.URL)
	}
}

// urlServer derives the server name from a URL, recording the urlparse
// split and the URL diagnostics.
func (r *resolver) urlServer(raw string) (string, error) {
	u, err := PyURLParse(raw)
	if err != nil {
		return "", fmt.Errorf("server name: %w", err)
	}
	s, _ := URLServerName(raw)
	var dropped []string
	for _, p := range []struct{ name, v string }{{"scheme", u.Scheme}, {";params", u.Params}, {"?query", u.Query}, {"#fragment", u.Fragment}} {
		if p.v != "" {
			dropped = append(dropped, p.name)
		}
	}
	rule := fmt.Sprintf(`urlparse: netloc %q with "." → "_", + "_" + path %q with "/" → "_" stripped of "_"`, u.Netloc, u.Path)
	if len(dropped) > 0 {
		rule += "; dropped: " + strings.Join(dropped, ", ")
	}
	r.ex.add("server name", rule, s)
	r.res.ServerName = s
	if r.res.Scheme == SchemeCrewAI { // other schemes do not name tools by the URL
		r.urlDiags(raw, u)
	}
	return s, nil
}

// native names a tool the way MCPNativeTool does (§2.2): display = server +
// "_" + sanitize(remote), LLM = sanitize(display); an empty key skips the
// tool. ampTool is the AMP fragment, selected by suffix (§2.4).
func (r *resolver) native(server string, ampTool *string) {
	key := r.ex.sanitizeStep("tool key", "sanitize(remote tool), as MCPClient.list_tools does", r.in.Tool)
	if key == "" {
		r.res.Status = StatusSkipped
		r.ex.add("skipped", `the key is empty: the native resolver skips the tool ("if not tool_name: continue")`, "")
		r.diag(CodeToolDropped,
			fmt.Sprintf("%q sanitizes to an empty name, so CrewAI's native resolver skips it: the agent never gets this tool", r.in.Tool),
			"give the tool a name with ASCII letters or digits on the server (characters with no ASCII decomposition, such as CJK or emoji, are deleted)")
		return
	}
	display := server + "_" + key
	r.ex.add("display name", `server name + "_" + tool key (tool.name, kept verbatim)`, display)
	llm := r.ex.sanitizeStep("LLM name", "sanitize(display name)", display)
	if ampTool != nil && !r.ampSelect(*ampTool, display, key, llm) {
		return
	}
	r.res.DisplayName, r.res.LLMName = display, llm
	r.dedupe()
	r.hashedDiag(server, r.in.Tool)
	r.providerDiags(server)
	r.prefixDiag(server)
}

// stringRef names a tool reached through an https or AMP string ref.
func (r *resolver) stringRef() error {
	if r.in.Tool == "" {
		return errors.New("ref input needs the remote tool's name (remote_tool)")
	}
	ref, err := ParseRef(r.in.Ref)
	if err != nil {
		return err
	}
	r.res.RefKind = ref.Kind
	if ref.Kind == RefAMP {
		if r.in.AMPConfigURL == "" {
			return errMissingAMPURL(ref)
		}
		r.ex.add("inputs", "", fmt.Sprintf("AMP ref %q (slug %q, #tool %q), config URL %q, remote tool %q",
			ref.Raw, ref.Slug, ref.Tool, redactURL(r.in.AMPConfigURL), r.in.Tool))
		server, err := r.urlServer(r.in.AMPConfigURL)
		if err != nil {
			return err
		}
		r.res.CallName = r.in.Tool
		r.native(server, &ref.Tool)
		return nil
	}
	r.ex.add("inputs", "", fmt.Sprintf("https string ref %q (URL %q, #tool %q), remote tool %q",
		redactURL(r.in.Ref), redactURL(ref.URL), ref.Tool, r.in.Tool))
	server, err := r.urlServer(ref.URL)
	if err != nil {
		return err
	}
	r.https(server, ref)
	return nil
}

// https names a tool of an https string ref (§2.3).
func (r *resolver) https(server string, ref Ref) {
	key := r.ex.sanitizeStep("tool key", "sanitize(remote tool); kept even when empty on this path", r.in.Tool)
	r.res.CallName = key // MCPToolWrapper calls the sanitized key (§2.3)
	if ref.Tool != "" {
		want := Sanitize(ref.Tool)
		selected := want == key
		verdict := "selected"
		if !selected {
			verdict = "not selected"
		}
		r.ex.add("selection", fmt.Sprintf("sanitize(%q) == sanitize(remote tool): %q vs %q", ref.Tool, want, key), verdict)
		if strings.Contains(ref.Tool, ",") {
			r.diag(CodeFragmentList,
				fmt.Sprintf("%q names one tool, not a list: it sanitizes to %q, which selects only a tool of that name", "#"+ref.Tool, want),
				`write one ref per tool: "…#a", "…#b"`)
		}
		if !selected {
			r.res.Status = StatusNotSelected
			display := server + "_" + key
			r.diag(CodeNotSelected,
				fmt.Sprintf("#%s keeps only tools whose sanitized name is %q; %q sanitizes to %q, so the agent does not get it (it would be %s)", ref.Tool, want, r.in.Tool, key, Sanitize(display)),
				`add a ref for this tool (one "#tool" per ref) or drop the fragment to keep every tool`)
			return
		}
	}
	display := server + "_" + key
	r.ex.add("display name", `server name + "_" + tool key`, display)
	llm := r.ex.sanitizeStep("LLM name", "sanitize(display name)", display)
	r.res.DisplayName, r.res.LLMName = display, llm
	r.ex.add("call name", "MCPToolWrapper sends the sanitized key to tools/call, not the remote name", key)
	if key == "" {
		r.diag(CodeToolNameEmpty,
			fmt.Sprintf("%q sanitizes to an empty name; the https-string path keeps the tool anyway, so the LLM sees only the server name %s and calls are sent with an empty tool name", r.in.Tool, llm),
			"give the tool a name with ASCII letters or digits on the server, or use MCPServerHTTP (which skips it visibly)")
	}
	if key != r.in.Tool && key != "" { // an empty key is CodeToolNameEmpty's
		r.diag(CodeHTTPSCallName,
			fmt.Sprintf("this https string ref calls the tool as %q (its sanitized name), but the server knows it as %q: calls will fail", key, r.in.Tool),
			fmt.Sprintf(`use MCPServerHTTP(url=%q) instead of the string (it calls tools by their original names), or name the tool %q on the server`, redactURL(ref.URL), key))
	}
	r.dedupe()
	r.hashedDiag(server, r.in.Tool)
	r.providerDiags(server)
	r.prefixDiag(server)
}

// ampSelect applies an AMP ref's suffix match and reports whether the tool
// stays.
func (r *resolver) ampSelect(tool, display, key, llm string) bool {
	if tool == "" {
		r.ex.add("selection", "no #tool: every tool of the slug is kept", "selected")
		return true
	}
	suffix := "_" + Sanitize(tool)
	selected := strings.HasSuffix(display, suffix)
	verdict := "selected"
	if !selected {
		verdict = "not selected"
	}
	r.ex.add("selection", fmt.Sprintf("display name ends with %q (\"_\" + sanitize(%q))", suffix, tool), verdict)
	if !selected {
		r.res.Status = StatusNotSelected
		r.diag(CodeNotSelected,
			fmt.Sprintf("#%s keeps tools whose display name ends in %q; %s does not, so the agent does not get it (it would be %s)", tool, suffix, display, llm),
			`add a ref for this tool (one "slug#tool" per tool) or drop the fragment to keep every tool of the slug`)
		return false
	}
	if key != Sanitize(tool) {
		r.diag(CodeSuffixMatch,
			fmt.Sprintf("#%s also kept %q: AMP refs select every tool whose display name merely ends in %q", tool, r.in.Tool, suffix),
			"check which other tools this ref keeps; an AMP ref cannot select one tool exactly, so filter on the agent side if that matters")
	}
	return true
}

// otherHost names a tool the way Claude Code, Crush or mcphost would.
func (r *resolver) otherHost(scheme Scheme, crewServer string) {
	key := r.in.Server
	if key == "" {
		key = crewServer
		r.diag(CodeServerKeyAssumed,
			fmt.Sprintf("%s names the server by its config key (e.g. the key under mcpServers); none was given, so CrewAI's server name %q stands in", scheme.label(), crewServer),
			`pass --server NAME (in --batch input: "server") to use the key you configure`)
	}
	r.res.ServerName = key
	name := HostToolName(scheme, key, r.in.Tool)
	r.ex.add("scheme", fmt.Sprintf("%s: %s with the config key and the raw tool name, no rewriting (anchors.md §5.2)", scheme.label(), scheme.template()), name)
	r.res.LLMName, r.res.DisplayName = name, name
	if why := providerSafe(name); why != "" {
		r.diag(CodeHostNameRejected,
			fmt.Sprintf("%s would send %q, which providers refuse: %s", scheme.label(), name, why),
			"choose a server key of ASCII letters, digits, _ and - that starts with a letter, and keep the whole name within 64 characters")
	}
}

// dedupe applies Input.Dedupe.
func (r *resolver) dedupe() {
	if r.in.Dedupe < 2 {
		return
	}
	n := strconv.Itoa(r.in.Dedupe)
	r.res.LLMName = r.ex.sanitizeStep("collision suffix",
		fmt.Sprintf(`native function calling, tool #%s of this name: sanitize(LLM name + "_%s")`, n, n),
		r.res.LLMName+"_"+n)
}

// hashedDiag reports a truncation of the LLM name or of the remote name.
func (r *resolver) hashedDiag(server, remote string) {
	toolName := r.in.Name
	if r.in.Kind != KindTool {
		toolName = remote
	}
	keyHashed := remote != "" && len(sanitizeUntruncated(remote)) > MaxLength
	full := sanitizeUntruncated(r.res.DisplayName)
	if r.res.Scheme == SchemeAdapter {
		full = sanitizeUntruncated(remote)
	}
	if r.in.Dedupe >= 2 {
		full = sanitizeUntruncated(Sanitize(r.res.DisplayName) + "_" + strconv.Itoa(r.in.Dedupe))
	}
	nameHashed := len(full) > MaxLength
	if !keyHashed && !nameHashed {
		return
	}
	var msg string
	switch {
	case nameHashed:
		kept := r.res.LLMName[:len(r.res.LLMName)-hashLen-1]
		msg = fmt.Sprintf("%s is %q + a hash: the name sanitizes to %d characters, so CrewAI keeps the first 55 and appends sha256[:8]", r.res.LLMName, kept, len(full))
		msg += visibleTail(server, sanitizeUntruncated(toolName), toolName, kept)
	default:
		msg = fmt.Sprintf("the remote name %q sanitizes to %d characters, so it is cut to 55 + a hash before the server prefix is added: the LLM never sees its end", remote, len(sanitizeUntruncated(remote)))
	}
	fix := "shorten the tool's name to at most 64 characters after sanitizing (the description can carry the detail)"
	if nameHashed && !keyHashed && sanitizeUntruncated(server) != "" {
		fix = "shorten the server prefix (a short command and relative paths for stdio, a short URL path for HTTP) or the tool's name; or use MCPServerAdapter, whose names have no prefix"
	}
	r.diag(CodeNameHashed, msg, fix)
}

// visibleTail says how much of the tool's own name survived a truncation.
func visibleTail(server, key, toolName, kept string) string {
	if toolName == "" {
		return ""
	}
	p := sanitizeUntruncated(server)
	start := 0
	if p != "" {
		start = len(p) + 1
	}
	if start >= len(kept) || key == "" {
		return fmt.Sprintf("; the tool's own name %q is no longer visible to the LLM", toolName)
	}
	return fmt.Sprintf("; only %q of the tool's own name %q is left", strings.TrimRight(kept[start:], "_"), key)
}

// providerDiags reports names the native providers refuse (§2.6).
func (r *resolver) providerDiags(server string) {
	llm := r.res.LLMName
	switch {
	case llm == "":
		r.diag(CodeEmptyName,
			"the LLM-visible name is empty: native function calling fails with \""+ValidateFunctionName(OpenAI, "").Error()+"\" (likewise Anthropic, Azure, Bedrock, Gemini)",
			"give the tool a name with ASCII letters or digits (characters with no ASCII decomposition, such as CJK or emoji, are deleted)")
	case isDigit(llm[0]):
		r.diag(CodeLeadingDigit,
			fmt.Sprintf("%s starts with a digit: native function calling with OpenAI, Anthropic, Azure, Bedrock and Gemini fails with \"%v\"; LiteLLM and the ReAct text path accept it", llm, CheckProviderName(Anthropic, llm)),
			r.leadingDigitFix(server))
	}
}

func (r *resolver) leadingDigitFix(server string) string {
	p := sanitizeUntruncated(server)
	switch {
	case p == "" || r.res.Scheme == SchemeAdapter:
		return "rename the tool so that it starts with a letter"
	case r.hostIP != "":
		return "use a hostname instead of the IP address" + suggestHostname(r.hostURL, r.hostIP)
	case r.in.Kind == KindStdio:
		return "make the stdio command start with a letter (the server name begins with it)"
	default:
		return "use a server URL whose host starts with a letter"
	}
}

// Explain is the derivation of in's name, step by step (Resolve's
// Explanation on its own).
func Explain(in Input) (Explanation, error) {
	r, err := Resolve(in)
	if err != nil {
		return Explanation{}, err
	}
	return r.Explanation, nil
}
