package writeback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/names"
	"crewbench/session"
)

// jsonStr is s as a JSON string literal, without HTML escaping.
func jsonStr(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func jsonList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = jsonStr(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// pyStr is s as a double-quoted Python string literal.
func pyStr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			switch {
			case r < 0x20 || r == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r == utf8.RuneError:
				b.WriteString(`\ufffd`)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func pyList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = pyStr(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// member is one "key": value line of an object being rendered.
type member struct{ key, value string }

// object renders members as a JSON object: on one line when it fits,
// otherwise one member per line at indent.
func object(members []member, indent string) string {
	parts := make([]string, len(members))
	for i, m := range members {
		parts[i] = jsonStr(m.key) + ": " + m.value
	}
	one := "{" + strings.Join(parts, ", ") + "}"
	if len(one)+len(indent) <= 100 && !strings.Contains(one, "\n") {
		return one
	}
	return "{\n" + indent + "  " + strings.Join(parts, ",\n"+indent+"  ") + "\n" + indent + "}"
}

// staticFilterJSON is a JSON tool_filter in the form CrewAI's JSON loader
// accepts: {"type": "static", "allowed_tool_names": […], "blocked_tool_names": […]},
// on one line.
func staticFilterJSON(f mcpconn.FilterSpec) string { return singleLineFilterJSON(f) }

// staticFilterPython is create_static_tool_filter(…).
func staticFilterPython(f mcpconn.FilterSpec) string {
	var args []string
	if len(f.Allowed) > 0 {
		args = append(args, "allowed_tool_names="+pyList(f.Allowed))
	}
	if len(f.Blocked) > 0 {
		args = append(args, "blocked_tool_names="+pyList(f.Blocked))
	}
	return "create_static_tool_filter(" + strings.Join(args, ", ") + ")"
}

func hasStatic(f mcpconn.FilterSpec) bool { return len(f.Allowed) > 0 || len(f.Blocked) > 0 }

// fieldValues are an env or headers map as written, sorted by key, with
// secrets as references; the headers of a server that wants OAuth get the
// Authorization header CrewAI needs (see Options.OAuth).
func (x *exporter) fieldValues(s *project.Server, field string, m map[string]string) ([]string, []value) {
	keys := slices.Sorted(maps.Keys(m))
	vals := make([]value, len(keys))
	for i, k := range keys {
		vals[i] = x.fieldValue(s, field, k, m[k])
	}
	if field == "headers" && x.wantsBearer(s) {
		env := TokenEnvVar(s.Name)
		i, _ := slices.BinarySearch(keys, "Authorization")
		keys = slices.Insert(keys, i, "Authorization")
		vals = slices.Insert(vals, i, value{env: env, prefix: "Bearer "})
		url := session.RedactURL(s.Spec.URL)
		if x.oauth[s.Name] == OAuthRefused {
			x.note("%s answered 401 Unauthorized when its tools were listed with the configured headers, as CrewAI connects: it wants an OAuth access token, and CrewAI does not run the OAuth flow itself. The export sends it as \"Authorization: Bearer $%s\". Get a token (crewbench auth login %s, or your provider's console for a long-lived one) and set %s to it before the crew runs",
				s.Name, env, url, env)
		} else {
			x.note("%s wants an OAuth access token, and CrewAI does not run the OAuth flow itself: the export sends it as \"Authorization: Bearer $%s\". Set %s to the access token before the crew runs (crewbench auth status %s shows the token crewbench holds for it; your provider's console issues long-lived ones)",
				s.Name, env, env, url)
		}
	} else if field == "headers" && x.oauth[s.Name] == OAuthRefused && mcpconn.HasHeader(m, "Authorization") {
		x.note("%s answered 401 Unauthorized to the Authorization header its config sends: the token is wrong or expired (a new one: crewbench auth login %s)",
			s.Name, session.RedactURL(s.Spec.URL))
	}
	return keys, vals
}

// headers reports whether the server's entry has headers to write.
func (x *exporter) headers(s *project.Server) bool {
	return len(s.Spec.Headers) > 0 || x.wantsBearer(s)
}

// wantsBearer reports whether the export must add an Authorization header
// for the server's OAuth token: it wants one (Options.OAuth), speaks HTTP
// or SSE as a config, and its headers do not carry one already.
func (x *exporter) wantsBearer(s *project.Server) bool {
	// an mcpServers file writes an https:// string ref as a url config
	config := s.Spec.Ref == mcpconn.RefNative || (s.Spec.Ref == mcpconn.RefHTTPS && x.format == FormatMCPServers)
	if x.oauth[s.Name] == OAuthNone || s.Spec.Transport == mcpconn.TransportStdio || !config {
		return false
	}
	return !mcpconn.HasHeader(s.Spec.Headers, "Authorization")
}

// noteRefOAuth tells that a string ref cannot carry the OAuth token the
// server wants.
func (x *exporter) noteRefOAuth(s *project.Server) {
	if x.oauth[s.Name] != OAuthNone && s.Spec.Ref == mcpconn.RefHTTPS {
		x.note("%s wants an OAuth access token, but CrewAI sends no headers for an https:// string ref: declare it as a config with headers={\"Authorization\": f\"Bearer {os.environ['%s']}\"}",
			s.Name, TokenEnvVar(s.Name))
	}
}

// mapJSON renders an env or headers map with secrets as references.
func (x *exporter) mapJSON(s *project.Server, field string, m map[string]string, indent string) string {
	keys, vals := x.fieldValues(s, field, m)
	ms := make([]member, len(keys))
	for i, k := range keys {
		ms[i] = member{k, jsonStr(vals[i].json())}
	}
	return object(ms, indent)
}

func (x *exporter) argsJSON(s *project.Server) string {
	q := make([]string, len(s.Spec.Args))
	for i, a := range s.Spec.Args {
		q[i] = jsonStr(x.freeValue(s, fmt.Sprintf("args[%d]", i), a, redactArg).json())
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func (x *exporter) urlValue(s *project.Server) value {
	return x.freeValue(s, "url", s.Spec.URL, redactURL)
}

// unresolvedFilter is the server's tool_filter when the project gives it as
// Python (a {"python": …} ref or a create_dynamic_tool_filter(…) call) and
// nothing replaced it; its Expr is the source text.
func (x *exporter) unresolvedFilter(s *project.Server) *project.Unresolved {
	if _, ok := x.filters[s.Name]; ok {
		return nil
	}
	u := x.p.UnresolvedByID("servers." + s.Name + ".tool_filter")
	if u == nil || u.Resolved {
		return nil
	}
	return u
}

// pythonRefRe reads a JSON {"python": "pkg.mod.fn"} filter ref.
var pythonRefRe = regexp.MustCompile(`^\{\s*"python"\s*:\s*"([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)"\s*\}$`)

// mcps renders the servers as an agent's "mcps" list (JSONC).
func (x *exporter) mcps(servers []*project.Server) string {
	var b strings.Builder
	b.WriteString("\"mcps\": [\n")
	var entries []string
	anyRef := false
	for _, s := range servers {
		var e strings.Builder
		fmt.Fprintf(&e, "  // %s", s.Name)
		if len(s.Agents) > 0 {
			fmt.Fprintf(&e, " (agents: %s)", strings.Join(s.Agents, ", "))
		}
		e.WriteString("\n")
		for _, c := range x.jsonCaveats(s) {
			fmt.Fprintf(&e, "  // %s\n", c)
		}
		e.WriteString("  " + x.mcpsEntry(s, &anyRef))
		entries = append(entries, e.String())
	}
	b.WriteString(strings.Join(entries, ",\n"))
	b.WriteString("\n]\n")
	if anyRef {
		x.note(`CrewAI does not expand "${VAR}" in crew.jsonc: replace each reference with its value locally (and keep the file out of version control), or declare those servers in crew.py with os.environ[…]`)
	}
	return b.String()
}

// jsonCaveats are what crew.jsonc cannot express about the server.
func (x *exporter) jsonCaveats(s *project.Server) []string {
	var out []string
	f := x.filter(s)
	if s.Spec.Transport == mcpconn.TransportSSE && s.Spec.Ref == mcpconn.RefNative {
		out = append(out, "SSE cannot be declared in crew.jsonc: CrewAI speaks streamable HTTP to this url (use MCPServerSSE in crew.py)")
		x.note("%s is an SSE server: crew.jsonc cannot express SSE (the entry becomes streamable HTTP)", s.Name)
	}
	if f.Expr != "" {
		// said once, in the output: a note would repeat it
		out = append(out, "the CEL filter "+strings.Join(strings.Fields(f.Expr), " ")+" has no JSON form: use {\"python\": \"module.function\"}")
	}
	if adapter(s) {
		out = append(out, "used through MCPServerAdapter in the project: as an mcps entry its tool names get a server prefix")
		x.note("%s is an MCPServerAdapter server: as an mcps entry its tools are named <server>_<tool>, not bare", s.Name)
	}
	if (s.Spec.Ref == mcpconn.RefHTTPS || s.Spec.Ref == mcpconn.RefAMP) && hasStatic(f) {
		out = append(out, "string refs take no tool_filter (select one tool with #tool)")
		x.note("%s is a string ref: its tool_filter is not exported", s.Name)
	}
	return out
}

// mcpsEntry is one entry of mcps: a string ref or a config dict.
func (x *exporter) mcpsEntry(s *project.Server, anyRef *bool) string {
	spec := s.Spec
	f := x.filter(s)
	switch spec.Ref {
	case mcpconn.RefHTTPS, mcpconn.RefAMP:
		x.noteRefOAuth(s)
		return jsonStr(spec.RefString)
	}
	var ms []member
	if spec.Transport == mcpconn.TransportStdio {
		ms = append(ms, member{"command", jsonStr(x.freeValue(s, "command", spec.Command, redactArg).json())})
		if len(spec.Args) > 0 {
			ms = append(ms, member{"args", x.argsJSON(s)})
		}
		if len(spec.Env) > 0 {
			ms = append(ms, member{"env", x.mapJSON(s, "env", spec.Env, "  ")})
		}
	} else {
		u := x.urlValue(s)
		*anyRef = *anyRef || u.isRef()
		ms = append(ms, member{"url", jsonStr(u.json())})
		if x.headers(s) {
			ms = append(ms, member{"headers", x.mapJSON(s, "headers", spec.Headers, "  ")})
		}
		if spec.Streamable != nil && !*spec.Streamable {
			ms = append(ms, member{"streamable", "false"})
		}
	}
	if hasStatic(f) {
		ms = append(ms, member{"tool_filter", staticFilterJSON(f)})
	} else if u := x.unresolvedFilter(s); u != nil {
		if pythonRefRe.MatchString(u.Expr) {
			ms = append(ms, member{"tool_filter", u.Expr})
		} else {
			x.note("%s: its tool_filter is Python code (%s), which crew.jsonc can only reference as {\"python\": \"module.function\"}: not exported", s.Name, u.Expr)
		}
	}
	if spec.CacheToolsList {
		ms = append(ms, member{"cache_tools_list", "true"})
	}
	out := object(ms, "  ")
	if strings.Contains(out, "${") {
		*anyRef = true
	}
	return out
}

// mcpServers renders the servers as an mcpServers JSON file.
func (x *exporter) mcpServers(servers []*project.Server) string {
	var entries []string
	for _, s := range servers {
		spec := s.Spec
		var ms []member
		switch {
		case spec.Ref == mcpconn.RefAMP && spec.URL == "":
			x.note("%s is an AMP integration whose URL is unknown: left out (give it under amp: in crewbench.yaml)", s.Name)
			continue
		case spec.Transport == mcpconn.TransportStdio:
			ms = append(ms, member{"command", jsonStr(x.freeValue(s, "command", spec.Command, redactArg).json())})
			if len(spec.Args) > 0 {
				ms = append(ms, member{"args", x.argsJSON(s)})
			}
			if len(spec.Env) > 0 {
				ms = append(ms, member{"env", x.mapJSON(s, "env", spec.Env, "      ")})
			}
		default:
			typ := "http"
			if spec.Transport == mcpconn.TransportSSE {
				typ = "sse"
			}
			ms = append(ms, member{"type", jsonStr(typ)})
			u := x.urlValue(s)
			if spec.Ref == mcpconn.RefHTTPS {
				u.literal = stripFragment(u.literal)
				if spec.SelectTool != "" {
					x.note("%s selects one tool (#%s): mcpServers has no tool selection, so every tool of the server is exported", s.Name, spec.SelectTool)
				}
			}
			ms = append(ms, member{"url", jsonStr(u.json())})
			if x.headers(s) {
				ms = append(ms, member{"headers", x.mapJSON(s, "headers", spec.Headers, "      ")})
			}
		}
		if f := x.filter(s); !f.IsZero() || x.unresolvedFilter(s) != nil {
			x.note("%s has a tool filter: mcpServers files cannot hold one (use --format mcps or python)", s.Name)
		}
		entries = append(entries, "    "+jsonStr(s.Name)+": "+object(ms, "    "))
	}
	return "{\n  \"mcpServers\": {\n" + strings.Join(entries, ",\n") + "\n  }\n}\n"
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

// python renders the servers as a crew.py snippet.
func (x *exporter) python(servers []*project.Server) string {
	imports := map[string]bool{}
	var needOS, needStdioParams bool
	var fromImports []string
	var defs []string
	var refs, params []string
	used := map[string]bool{"os": true, "mcps": true, "mcp_server_params": true}
	for _, s := range servers {
		spec := s.Spec
		f := x.filter(s)
		var comments []string
		switch spec.Ref {
		case mcpconn.RefHTTPS, mcpconn.RefAMP:
			if hasStatic(f) {
				x.note("%s is a string ref: its tool_filter is not exported", s.Name)
			}
			x.noteRefOAuth(s)
			refs = append(refs, pyStr(spec.RefString))
			continue
		}
		if f.Expr != "" {
			// said once, in the output: a note would repeat it
			comments = append(comments, "# the CEL filter "+strings.Join(strings.Fields(f.Expr), " ")+" has no Python form here: write create_dynamic_tool_filter(fn)")
		}
		var kw []string
		val := func(v value) string {
			if (v.isRef() && v.pyExpr == "") || strings.Contains(v.pyExpr, "os.") {
				needOS = true
			}
			return v.python()
		}
		if spec.Transport == mcpconn.TransportStdio {
			kw = append(kw, "command="+val(x.freeValue(s, "command", spec.Command, redactArg)))
			args := make([]string, len(spec.Args))
			for i, a := range spec.Args {
				args[i] = val(x.freeValue(s, fmt.Sprintf("args[%d]", i), a, redactArg))
			}
			if len(args) > 0 {
				kw = append(kw, "args=["+strings.Join(args, ", ")+"]")
			}
			if len(spec.Env) > 0 {
				kw = append(kw, "env="+x.pyDict(s, "env", spec.Env, val))
			}
		} else {
			kw = append(kw, "url="+val(x.urlValue(s)))
			if x.headers(s) {
				kw = append(kw, "headers="+x.pyDict(s, "headers", spec.Headers, val))
			}
			if spec.Streamable != nil && !*spec.Streamable && spec.Transport == mcpconn.TransportHTTP && !adapter(s) {
				kw = append(kw, "streamable=False")
			}
		}
		if adapter(s) {
			needStdioParams = needStdioParams || spec.Transport == mcpconn.TransportStdio
			params = append(params, x.adapterParam(s, kw))
			if hasStatic(f) {
				x.note("%s is an MCPServerAdapter server: its filter is not exported (pass tool names to self.get_mcp_tools(…))", s.Name)
			}
			continue
		}
		if hasStatic(f) {
			kw = append(kw, "tool_filter="+staticFilterPython(f))
			imports["create_static_tool_filter"] = true
		} else if u := x.unresolvedFilter(s); u != nil {
			if m := pythonRefRe.FindStringSubmatch(u.Expr); m != nil {
				// a JSON crew's {"python": "pkg.mod.fn"}: import fn from pkg.mod
				fromImports = append(fromImports, "from "+m[1]+" import "+m[2])
				kw = append(kw, "tool_filter="+m[2])
			} else {
				// crew.py's own expression, as written
				kw = append(kw, "tool_filter="+u.Expr)
				if strings.Contains(u.Expr, "create_dynamic_tool_filter(") {
					imports["create_dynamic_tool_filter"] = true
				}
				x.note("%s: its tool_filter is %s as written in crew.py; the functions it names must be defined or imported where you paste this", s.Name, u.Expr)
			}
		}
		if spec.CacheToolsList {
			kw = append(kw, "cache_tools_list=True")
		}
		cls := "MCPServerHTTP"
		switch spec.Transport {
		case mcpconn.TransportStdio:
			cls = "MCPServerStdio"
		case mcpconn.TransportSSE:
			cls = "MCPServerSSE"
		}
		imports[cls] = true
		name := pyIdent(s.Name, used)
		refs = append(refs, name)
		def := strings.Join(comments, "\n")
		if def != "" {
			def += "\n"
		}
		def += name + " = " + cls + "(\n    " + strings.Join(kw, ",\n    ") + ",\n)"
		defs = append(defs, def)
	}
	var b strings.Builder
	b.WriteString("# MCP servers for Agent(mcps=mcps), written by crewbench export-config\n")
	if needOS {
		b.WriteString("import os\n\n")
	}
	if needStdioParams {
		b.WriteString("from mcp import StdioServerParameters\n")
	}
	for _, imp := range fromImports {
		b.WriteString(imp + "\n")
	}
	if len(imports) > 0 {
		names := make([]string, 0, len(imports))
		for n := range imports {
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString("from crewai.mcp import " + strings.Join(names, ", ") + "\n")
	}
	b.WriteString("\n")
	for _, d := range defs {
		b.WriteString(d + "\n\n")
	}
	if len(refs) > 0 {
		b.WriteString("mcps = [" + strings.Join(refs, ", ") + "]\n")
	}
	if len(params) > 0 {
		if len(refs) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("# on the @CrewBase class (MCPServerAdapter, needs crewai-tools[mcp]); agents use tools=self.get_mcp_tools()\n")
		b.WriteString("mcp_server_params = [\n    " + strings.Join(params, ",\n    ") + ",\n]\n")
	}
	return b.String()
}

func (x *exporter) pyDict(s *project.Server, field string, m map[string]string, val func(value) string) string {
	keys, vals := x.fieldValues(s, field, m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = pyStr(k) + ": " + val(vals[i])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// adapterParam renders one mcp_server_params entry.
func (x *exporter) adapterParam(s *project.Server, kw []string) string {
	if s.Spec.Transport == mcpconn.TransportStdio {
		return "StdioServerParameters(" + strings.Join(kw, ", ") + ")"
	}
	// {"url": …, "transport": …, "headers": …}
	var parts []string
	for _, k := range kw {
		name, v, _ := strings.Cut(k, "=")
		if name == "streamable" {
			continue
		}
		parts = append(parts, pyStr(name)+": "+v)
	}
	transport := "streamable-http"
	if s.Spec.Transport == mcpconn.TransportSSE {
		transport = "sse"
	}
	parts = append(parts, `"transport": `+pyStr(transport))
	return "{" + strings.Join(parts, ", ") + "}"
}

var pyKeywords = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true,
	"in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true}

// pyIdent makes a unique Python variable name for a server.
func pyIdent(name string, used map[string]bool) string {
	id := names.Sanitize(name)
	if id == "" || (id[0] >= '0' && id[0] <= '9') || pyKeywords[id] {
		id = "server_" + id
	}
	id = strings.TrimSuffix(id, "_")
	base := id
	for i := 2; used[id]; i++ {
		id = fmt.Sprintf("%s_%d", base, i)
	}
	used[id] = true
	return id
}
