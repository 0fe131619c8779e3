package project

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"crewbench/mcpconn"
	"crewbench/names"
	"crewbench/names/suggest"
)

// mcpServerEntryFields are the keys of an mcpServers entry crewbench reads.
var mcpServerEntryFields = set("type", "transport", "command", "args", "env", "environment", "url", "httpUrl", "headers")

// transportSeparators is built once: a Replacer builds a lookup table
// worth kilobytes on first use, once per call if made per call.
var transportSeparators = strings.NewReplacer("-", "", "_", "", " ", "")

// normTransport maps the transport spellings seen in the wild (anchors
// §5.1) onto crewbench's three: stdio, http (streamable HTTP), sse.
func normTransport(s string) mcpconn.Transport {
	k := strings.ToLower(transportSeparators.Replace(s))
	switch k {
	case "stdio", "local", "command", "process":
		return mcpconn.TransportStdio
	case "http", "streamablehttp", "streamable", "httpurl", "remote", "shttp", "https":
		return mcpconn.TransportHTTP
	case "sse", "httpsse":
		return mcpconn.TransportSSE
	}
	return ""
}

// mcpDialect is the host an mcpServers file was written for.
type mcpDialect string

const (
	dialectClaudeDesktop mcpDialect = "Claude Desktop"
	dialectClaudeCode    mcpDialect = "Claude Code (.mcp.json)"
	dialectCursor        mcpDialect = "Cursor"
	dialectVSCode        mcpDialect = "VS Code"
	dialectGemini        mcpDialect = "Gemini CLI"
	dialectCrush         mcpDialect = "Crush"
	dialectGeneric       mcpDialect = "mcpServers"
)

// droppedFieldNotes explains fields CrewAI has no place for.
var droppedFieldNotes = map[string]string{
	"cwd":               "CrewAI's MCPServerStdio has no cwd: the server starts in the crew's working directory, and relative paths in args resolve against it",
	"timeout":           "CrewAI has no per-server timeout: native MCP calls time out after 30 s per attempt, 3 attempts",
	"connectionTimeout": "CrewAI has no per-server connect timeout (native: 30 s)",
	"requestTimeout":    "CrewAI has no per-server request timeout (native: 30 s per attempt)",
	"envFile":           "CrewAI does not read envFile: put each variable the server needs in env",
	"oauth":             "CrewAI has no MCP OAuth flow: pass a token in headers",
	"disabled":          "CrewAI has no disabled flag: leave the server out of the agent's mcps instead",
	"alwaysAllow":       "tool approval lists are a host feature: CrewAI calls tools without asking",
	"autoApprove":       "tool approval lists are a host feature: CrewAI calls tools without asking",
	"trust":             "trust is a Gemini CLI feature: CrewAI calls tools without asking",
	"headersHelper":     "CrewAI does not run header helpers: put the headers in headers",
	"includeTools":      "CrewAI has no includeTools: use tool_filter allowed_tool_names with sanitized names",
	"excludeTools":      "CrewAI has no excludeTools: use tool_filter blocked_tool_names with sanitized names",
	"disabledTools":     "CrewAI has no disabledTools: use tool_filter blocked_tool_names with sanitized names",
	"disabled_tools":    "CrewAI has no disabled_tools: use tool_filter blocked_tool_names with sanitized names",
	"enabled_tools":     "CrewAI has no enabled_tools: use tool_filter allowed_tool_names with sanitized names",
	"description":       "descriptions are not part of CrewAI's MCP config",
	"name":              "the server name is not part of CrewAI's MCP config (tool names come from the command or URL)",
	"roots":             "CrewAI does not send MCP roots",
}

// hostVar matches host variable syntax: ${VAR}, ${VAR:-default},
// ${env:VAR}, ${input:id}, ${workspaceFolder}, and bare $VAR.
var hostVar = regexp.MustCompile(`\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// hasHostVar reports whether s uses a host variable; most values have no
// "$" and skip the regexp.
func hasHostVar(s string) bool { return strings.IndexByte(s, '$') >= 0 && hostVar.MatchString(s) }

// loadMCPServersFile reads an mcpServers JSON file (Claude Desktop, Claude
// Code .mcp.json, Cursor, VS Code `servers`, Gemini CLI, Crush `mcp`).
func (l *loader) loadMCPServersFile(path string) {
	shown := l.rel(path)
	root, ok := l.readJSONCObject(path, shown, "mcpServers")
	if !ok {
		return
	}
	dialect := detectDialect(path, root)
	var servers *Node
	key := ""
	for _, k := range []string{"mcpServers", "servers", "mcp"} {
		if v := root.Get(k); v != nil {
			servers, key = v, k
			break
		}
	}
	if servers == nil {
		l.err(root.Pos, "", "", fmt.Sprintf("%s has no mcpServers (or VS Code servers) object", shown))
		return
	}
	if key == "servers" {
		dialect = dialectVSCode
	}
	if key == "mcp" {
		dialect = dialectCrush
	}
	if servers.Kind != KindObject {
		l.err(servers.Pos, key, "", key+" must be an object of server name → server config")
		return
	}
	l.p.Opened += fmt.Sprintf(" (%s dialect)", dialect)
	if in := root.Get("inputs"); in != nil && dialect == dialectVSCode {
		l.note(in.Pos, Info, "mcp-vscode-inputs", "VS Code inputs (prompted values) are not read: supply ${input:…} values in crewbench.yaml under values:")
	}
	for _, f := range servers.Fields {
		l.mcpServerEntry(f, key, dialect, shown)
	}
}

func detectDialect(path string, root *Node) mcpDialect {
	slash := filepath.ToSlash(path)
	switch {
	case strings.HasSuffix(slash, ".vscode/mcp.json"):
		return dialectVSCode
	case strings.HasSuffix(slash, ".cursor/mcp.json"):
		return dialectCursor
	case strings.HasSuffix(slash, ".gemini/settings.json"):
		return dialectGemini
	case strings.HasSuffix(slash, "claude_desktop_config.json"):
		return dialectClaudeDesktop
	case strings.HasSuffix(slash, "crush.json"):
		return dialectCrush
	}
	if s := root.Get("mcpServers"); s != nil && s.Kind == KindObject {
		for _, f := range s.Fields {
			for _, k := range []string{"httpUrl", "trust", "includeTools", "excludeTools"} {
				if f.Value.Has(k) {
					return dialectGemini
				}
			}
		}
	}
	if filepath.Base(path) == ".mcp.json" {
		return dialectClaudeCode
	}
	return dialectGeneric
}

func (l *loader) mcpServerEntry(f *Field, key string, dialect mcpDialect, file string) {
	n := f.Value
	where := key + "." + f.Key
	if n.Kind != KindObject {
		l.err(n.Pos, where, "", where+" must be an object")
		return
	}
	spec := mcpconn.ServerSpec{Ref: mcpconn.RefNative}
	var pending []pendingValue
	declared := ""
	for _, k := range []string{"type", "transport"} {
		if t := n.Get(k); t != nil && t.Kind == KindString {
			declared = t.Str
		}
	}
	t := normTransport(declared)
	if declared != "" && t == "" {
		l.err(n.Get("type").orElse(n.Get("transport")).Pos, where+".type", "", fmt.Sprintf("%s: unknown transport %q (use stdio, http or sse)", where, declared))
		return
	}
	cmd, url, httpURL := n.Get("command"), n.Get("url"), n.Get("httpUrl")
	switch {
	case httpURL != nil:
		spec.Transport = mcpconn.TransportHTTP
	case cmd != nil && (t == "" || t == mcpconn.TransportStdio):
		spec.Transport = mcpconn.TransportStdio
	case url != nil && t != "":
		spec.Transport = t
	case url != nil && dialect == dialectGemini:
		spec.Transport = mcpconn.TransportSSE
		l.note(url.Pos, Info, "mcp-gemini-url", fmt.Sprintf("%s: in Gemini CLI \"url\" means SSE (\"httpUrl\" is streamable HTTP); read as SSE (CrewAI: MCPServerSSE)", where))
	case url != nil:
		spec.Transport = mcpconn.TransportHTTP
		l.note(url.Pos, Info, "mcp-no-type", fmt.Sprintf("%s: no \"type\": assumed streamable HTTP (MCPServerHTTP); add \"type\": \"sse\" if the server speaks SSE", where))
	default:
		l.err(n.Pos, where, "", where+" needs \"command\" (stdio) or \"url\" (HTTP/SSE)")
		return
	}
	if declared != "" && t != mcpconn.Transport(strings.ToLower(declared)) {
		l.note(n.Get("type").orElse(n.Get("transport")).Pos, Info, "mcp-transport-spelling", fmt.Sprintf("%s: transport %q read as %s", where, declared, t))
	}
	if spec.Transport == mcpconn.TransportSSE {
		l.note(n.Pos, Info, "mcp-sse", fmt.Sprintf("%s is an SSE server: in CrewAI that is MCPServerSSE in crew.py; it cannot be written in crew.jsonc (a JSON dict with url is always streamable HTTP)", where))
	}
	// host variables: expand them as the host would, keep them as
	// Unresolved. Callers test hasHostVar first, so a plain value costs no
	// setter closure and no field path.
	pendHost := func(field, s string, pos Pos, set func(*mcpconn.ServerSpec, any)) {
		u := Unresolved{Pos: pos, Field: where + " " + field, Expr: s}
		expanded, ok, from, envVar := l.expandHostVars(s)
		u.EnvVar = envVar
		if ok {
			u.Resolved, u.Value, u.From = true, expanded, from+" (expanded as "+string(dialect)+" would; CrewAI would pass the text literally)"
		} else {
			u.Suggestion = "give the value in crewbench.yaml under values:, or set the variable in .env"
		}
		pending = append(pending, pendingValue{field: field, u: &u, set: set})
	}
	if spec.Transport == mcpconn.TransportStdio {
		switch cmd.Kind {
		case KindString:
			spec.Command = cmd.Str
		case KindArray: // mcphost: command is one array
			for i, it := range cmd.Items {
				if it.Kind != KindString {
					continue
				}
				if i == 0 {
					spec.Command = it.Str
				} else {
					spec.Args = append(spec.Args, it.Str)
				}
			}
			l.note(cmd.Pos, Info, "mcp-command-array", where+": command given as an array (mcphost): split into command and args")
		default:
			l.err(cmd.Pos, where+".command", "", where+".command must be a string")
			return
		}
		if a := n.Get("args"); !a.IsNull() {
			if a.Kind != KindArray {
				l.err(a.Pos, where+".args", "", where+".args must be a list of strings")
				return
			}
			base := len(spec.Args)
			for i, it := range a.Items {
				if it.Kind != KindString {
					l.err(it.Pos, indexPath(where+".args", i), "", where+".args must be a list of strings")
					return
				}
				spec.Args = append(spec.Args, it.Str)
				if hasHostVar(it.Str) {
					idx := base + i
					pendHost(indexPath("args", i), it.Str, it.Pos, func(s *mcpconn.ServerSpec, v any) { s.Args[idx] = fmt.Sprint(v) })
				}
			}
		}
		for _, ek := range []string{"env", "environment"} {
			e := n.Get(ek)
			if e.IsNull() {
				continue
			}
			if e.Kind != KindObject {
				l.err(e.Pos, where+"."+ek, "", where+"."+ek+" must be an object")
				return
			}
			if ek == "environment" {
				l.note(e.Pos, Info, "mcp-environment", where+": \"environment\" (mcphost) read as env")
			}
			if spec.Env == nil {
				spec.Env = map[string]string{}
			}
			for _, ef := range e.Fields {
				val, ok := scalarString(ef.Value)
				if !ok {
					l.err(ef.Value.Pos, where+"."+ek+"."+ef.Key, "", where+"."+ek+" values must be strings")
					continue
				}
				if ef.Value.Kind != KindString {
					l.note(ef.Value.Pos, Warn, "mcp-env-not-string", fmt.Sprintf("%s.env.%s is a %s; CrewAI's env takes strings", where, ef.Key, ef.Value.Kind))
				}
				k := ef.Key
				spec.Env[k] = val
				if hasHostVar(val) {
					pendHost("env."+k, val, ef.Value.Pos, func(s *mcpconn.ServerSpec, v any) { s.Env[k] = fmt.Sprint(v) })
				}
			}
		}
	} else {
		src := url
		if httpURL != nil {
			src = httpURL
			l.note(httpURL.Pos, Info, "mcp-gemini-httpurl", where+": Gemini CLI httpUrl read as a streamable HTTP url")
		}
		if src.Kind != KindString {
			l.err(src.Pos, where+".url", "", where+".url must be a string")
			return
		}
		spec.URL = src.Str
		if hasHostVar(src.Str) {
			pendHost("url", src.Str, src.Pos, func(s *mcpconn.ServerSpec, v any) { s.URL = fmt.Sprint(v) })
		}
		if h := n.Get("headers"); !h.IsNull() {
			spec.Headers = map[string]string{}
			switch h.Kind {
			case KindObject:
				for _, hf := range h.Fields {
					val, ok := scalarString(hf.Value)
					if !ok {
						l.err(hf.Value.Pos, where+".headers."+hf.Key, "", where+".headers values must be strings")
						continue
					}
					k := hf.Key
					spec.Headers[k] = val
					if hasHostVar(val) {
						pendHost("headers."+k, val, hf.Value.Pos, func(s *mcpconn.ServerSpec, v any) { s.Headers[k] = fmt.Sprint(v) })
					}
				}
			case KindArray: // mcphost: ["Name: value", …]
				l.note(h.Pos, Info, "mcp-header-array", where+": headers given as \"Name: value\" strings (mcphost): read as a map")
				for _, it := range h.Items {
					if it.Kind != KindString {
						continue
					}
					k, v, found := strings.Cut(it.Str, ":")
					if !found {
						l.err(it.Pos, where+".headers", "", fmt.Sprintf("%s.headers: %q is not \"Name: value\"", where, it.Str))
						continue
					}
					k, v = strings.TrimSpace(k), strings.TrimSpace(v)
					spec.Headers[k] = v
					if hasHostVar(v) {
						pendHost("headers."+k, v, it.Pos, func(s *mcpconn.ServerSpec, v any) { s.Headers[k] = fmt.Sprint(v) })
					}
				}
			default:
				l.err(h.Pos, where+".headers", "", where+".headers must be an object")
			}
		}
	}
	known := mcpServerEntryFields
	for _, fk := range n.Fields {
		if known[fk.Key] {
			continue
		}
		text, ok := droppedFieldNotes[fk.Key]
		if !ok {
			text = "not part of CrewAI's MCP config"
			if s := suggest.DidYouMean(fk.Key, keysOf(known)); s != "" {
				text += fmt.Sprintf(" (did you mean %q?)", s) // "comand" → "command"
			}
		}
		if (fk.Key == "includeTools" || fk.Key == "excludeTools" || fk.Key == "disabledTools") && fk.Value.Kind == KindArray {
			var sanitized []string
			for _, it := range fk.Value.Items {
				if it.Kind == KindString {
					sanitized = append(sanitized, names.Sanitize(it.Str))
				}
			}
			text += fmt.Sprintf(": %s", pyListRepr(sanitized))
		}
		if fk.Key == "disabled" && fk.Value.Kind == KindBool && fk.Value.Bool {
			text = "this server is disabled in " + string(dialect) + "; crewbench still loads it. " + text
		}
		l.note(fk.KeyPos, Warn, "mcp-dropped-field", fmt.Sprintf("%s.%s: %s", where, fk.Key, text))
	}
	l.addServer(&Server{Name: f.Key, Spec: spec, Pos: n.Pos, Source: file + " " + where, Positions: treePositions(n)}, "", true, pending)
}

// expandHostVars expands host variables from the project's environment.
// ok is false when one cannot be expanded (an unset variable without a
// default, ${input:…}). envVar is the first environment variable named.
func (l *loader) expandHostVars(s string) (out string, ok bool, from, envVar string) {
	ok = true
	// One pass finds every variable with its groups; the expansion below
	// reuses it instead of matching each variable again.
	matches := hostVar.FindAllStringSubmatchIndex(s, -1)
	group := func(m []int, g int) string {
		if m[2*g] < 0 {
			return ""
		}
		return s[m[2*g]:m[2*g+1]]
	}
	for _, m := range matches {
		name := group(m, 2)
		if braced := group(m, 1); braced != "" {
			name = strings.TrimPrefix(braced, "env:")
			if i := strings.Index(name, ":-"); i >= 0 {
				name = name[:i]
			}
		}
		if isEnvName(name) && name != "workspaceFolder" && name != "workspaceRoot" {
			envVar = name
			break
		}
	}
	var froms []string
	expand := func(m []int) string {
		if bare := group(m, 2); bare != "" {
			if v, found, fr := l.p.lookupEnv(bare); found {
				froms = append(froms, fr)
				return v
			}
			ok = false
			return s[m[0]:m[1]]
		}
		inner := group(m, 1)
		switch {
		case inner == "workspaceFolder" || inner == "workspaceRoot":
			return l.p.Dir
		case strings.HasPrefix(inner, "input:"):
			ok = false
			return s[m[0]:m[1]]
		}
		inner = strings.TrimPrefix(inner, "env:")
		name, def, hasDef := strings.Cut(inner, ":-")
		if v, found, fr := l.p.lookupEnv(name); found && (v != "" || !hasDef) {
			froms = append(froms, fr)
			return v
		}
		if hasDef {
			froms = append(froms, "default")
			return def
		}
		ok = false
		return s[m[0]:m[1]]
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		b.WriteString(expand(m))
		last = m[1]
	}
	b.WriteString(s[last:])
	sort.Strings(froms)
	return b.String(), ok, strings.Join(dedupeStrings(froms), ", "), envVar
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// orElse returns n, or alt when n is nil.
func (n *Node) orElse(alt *Node) *Node {
	if n != nil {
		return n
	}
	return alt
}
