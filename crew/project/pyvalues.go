package project

import (
	"crewbench/crew/pyread"
	"fmt"
	"strconv"
	"strings"

	"crewbench/mcpconn"
	"crewbench/names"
	"crewbench/names/suggest"
)

// pyEval evaluates crew.py expressions to literals, following names
// through scopes (function, class attributes and self.x, module) without
// running anything.
type pyEval struct {
	l   *loader
	m   *pyModule
	cls *pyClass

	// steps bounds the work per file: names can share sub-expressions
	// (a = b + b; b = c + c; …), which would otherwise take exponential time.
	steps int
	// active marks expressions being evaluated, to stop at cycles (x = x + x).
	active map[*pyread.Expr]bool
}

const maxEvalSteps = 200_000

// enter resolves e and starts evaluating what it names; ok is false on a
// cycle or when the budget is spent. leave must be called when ok.
func (ev *pyEval) enter(e *pyread.Expr, scope *pyScope) (r *pyread.Expr, ok bool) {
	ev.steps++
	if ev.steps > maxEvalSteps {
		return e, false
	}
	r = ev.resolve(e, scope)
	if ev.active == nil {
		ev.active = map[*pyread.Expr]bool{}
	}
	if ev.active[r] {
		return r, false
	}
	ev.active[r] = true
	return r, true
}

func (ev *pyEval) leave(r *pyread.Expr) { delete(ev.active, r) }

const maxResolveDepth = 16

// resolve follows a Name or self.attr to the expression assigned to it.
func (ev *pyEval) resolve(e *pyread.Expr, scope *pyScope) *pyread.Expr {
	for depth := 0; e != nil && depth < maxResolveDepth; depth++ {
		var next *pyread.Expr
		switch {
		case e.Kind == pyread.Name && scope != nil:
			next = scope.lookup(e.Str)
		case e.Kind == pyread.Attr && e.X.Kind == pyread.Name && e.X.Str == "self" && ev.cls != nil:
			next = ev.cls.attrs.vars[e.Str]
		}
		if next == nil || next == e {
			return e
		}
		e = next
	}
	return e
}

// envRead recognises os.environ["X"], os.environ.get("X", d),
// os.getenv("X", d) and their imported forms.
func (ev *pyEval) envRead(e *pyread.Expr) (name string, def *pyread.Expr, ok bool) {
	if e == nil {
		return "", nil, false
	}
	switch e.Kind {
	case pyread.Subscript:
		if ev.m.qualified(e.X.Dotted()) == "os.environ" && e.Index != nil && e.Index.Kind == pyread.String {
			return e.Index.Str, nil, true
		}
	case pyread.Call:
		fn := ev.m.qualified(e.X.Dotted())
		if fn == "os.getenv" || fn == "os.environ.get" {
			if len(e.Items) >= 1 && e.Items[0].Kind == pyread.String {
				if len(e.Items) >= 2 {
					def = e.Items[1]
				}
				if d := e.Kwarg("default"); d != nil {
					def = d
				}
				return e.Items[0].Str, def, true
			}
		}
	}
	return "", nil, false
}

// literalStr is the value of e when it is a literal string; a plain
// string literal (most dict keys) needs no Node.
func (ev *pyEval) literalStr(e *pyread.Expr, scope *pyScope) (string, bool) {
	if e != nil && e.Kind == pyread.String {
		ev.steps++ // the step literal's enter would count
		return e.Str, ev.steps <= maxEvalSteps
	}
	n, bad := ev.literal(e, scope, 0)
	if bad != nil || n == nil || n.Kind != KindString {
		return "", false
	}
	return n.Str, true
}

// literal converts a literal expression (after resolving names) to a Node;
// bad is the first non-literal sub-expression.
func (ev *pyEval) literal(e *pyread.Expr, scope *pyScope, depth int) (n *Node, bad *pyread.Expr) {
	if e == nil {
		return nil, nil
	}
	if depth > 64 {
		return nil, e
	}
	r, ok := ev.enter(e, scope)
	if !ok {
		return nil, e
	}
	defer ev.leave(r)
	switch r.Kind {
	case pyread.String:
		return &Node{Kind: KindString, Str: r.Str, Pos: r.Pos}, nil
	case pyread.Number:
		if n := pyNumberNode(r.Str, r.Pos); n != nil {
			return n, nil
		}
		return nil, e
	case pyread.Concat, pyread.FString:
		if v, ok := ev.evalResolvedStr(r, scope, nil, depth+1); ok {
			return &Node{Kind: KindString, Str: v, Pos: r.Pos}, nil
		}
		return nil, e
	case pyread.Bool:
		return &Node{Kind: KindBool, Bool: r.Bool, Pos: r.Pos}, nil
	case pyread.None:
		return &Node{Kind: KindNull, Pos: r.Pos}, nil
	case pyread.List, pyread.Tuple:
		out := &Node{Kind: KindArray, Pos: r.Pos}
		for _, it := range r.Items {
			v, b := ev.literal(it, scope, depth+1)
			if b != nil {
				return nil, b
			}
			out.Items = append(out.Items, v)
		}
		return out, nil
	case pyread.Dict:
		out := &Node{Kind: KindObject, Pos: r.Pos}
		for i, k := range r.Keys {
			kn, b := ev.literal(k, scope, depth+1)
			if b != nil {
				return nil, b
			}
			if kn.Kind != KindString {
				return nil, k
			}
			v, b := ev.literal(r.Items[i], scope, depth+1)
			if b != nil {
				return nil, b
			}
			out.Fields = append(out.Fields, &Field{Key: kn.Str, KeyPos: kn.Pos, Value: v})
		}
		return out, nil
	}
	return nil, e
}

// pyNumberNode parses a Python numeric literal (underscores, 0x/0o/0b).
func pyNumberNode(lit string, pos Pos) *Node {
	s := strings.ReplaceAll(lit, "_", "")
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	lower := strings.ToLower(body)
	base := 10
	switch {
	case strings.HasPrefix(lower, "0x"):
		base, body = 16, body[2:]
	case strings.HasPrefix(lower, "0o"):
		base, body = 8, body[2:]
	case strings.HasPrefix(lower, "0b"):
		base, body = 2, body[2:]
	}
	if i, err := strconv.ParseInt(body, base, 64); err == nil {
		if neg {
			i = -i
		}
		return &Node{Kind: KindNumber, Pos: pos, Str: strconv.FormatInt(i, 10), Int: i, IsInt: true, Float: float64(i)}
	}
	if base == 10 && !strings.ContainsAny(lower, "jx") {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return &Node{Kind: KindNumber, Pos: pos, Str: s, Float: f}
		}
	}
	return nil
}

// strValue reads a string-valued expression: a literal (including
// concatenations and f-strings of literals), or an expression that reads
// the environment (os.environ[…], os.getenv(…), f"Bearer {os.environ['T']}"),
// which becomes a pending Unresolved that resolves from .env / the
// environment, or anything else (pending, with the source text).
func (ev *pyEval) strValue(e *pyread.Expr, scope *pyScope, what string) (string, *Unresolved) {
	if v, ok := ev.evalStr(e, scope, nil, 0); ok {
		return v, nil
	}
	u := &Unresolved{Pos: e.Pos, Field: what, Expr: exprText(e)}
	if vars := ev.envVars(e, scope, 0); len(vars) > 0 {
		u.EnvVar = vars[0]
		u.resolve = func(p *Project) (any, string, bool) {
			var froms []string
			v, ok := ev.evalStr(e, scope, func(name string) (string, bool) {
				v, found, from := p.lookupEnv(name)
				if found {
					froms = append(froms, from)
				}
				return v, found
			}, 0)
			if !ok {
				return nil, "", false
			}
			from := strings.Join(dedupeStrings(froms), ", ")
			if from == "" {
				from = "the default in " + exprText(e)
			}
			return v, from, true
		}
		return "", u
	}
	switch r := ev.resolve(e, scope); r.Kind {
	case pyread.FString:
		u.Suggestion = "an f-string whose fields are not literals; give the value in crewbench.yaml under values: {ID: …}"
	case pyread.Name:
		u.Suggestion = fmt.Sprintf("%s is not assigned a literal in crew.py; give the value in crewbench.yaml under values: {ID: …}", r.Str)
	}
	return "", u
}

// evalStr evaluates a string expression; env answers environment reads
// (nil: an expression that reads the environment is not a literal).
func (ev *pyEval) evalStr(e *pyread.Expr, scope *pyScope, env func(string) (string, bool), depth int) (string, bool) {
	if e == nil || depth > 32 {
		return "", false
	}
	r, ok := ev.enter(e, scope)
	if !ok {
		return "", false
	}
	defer ev.leave(r)
	return ev.evalResolvedStr(r, scope, env, depth)
}

// evalResolvedStr is evalStr for an expression already resolved and entered.
func (ev *pyEval) evalResolvedStr(r *pyread.Expr, scope *pyScope, env func(string) (string, bool), depth int) (string, bool) {
	switch r.Kind {
	case pyread.String:
		return r.Str, true
	case pyread.Number:
		if n := pyNumberNode(r.Str, r.Pos); n != nil {
			return n.Str, true
		}
	case pyread.Concat:
		var b strings.Builder
		for _, it := range r.Items {
			v, ok := ev.evalStr(it, scope, env, depth+1)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		}
		return b.String(), true
	case pyread.FString:
		var b strings.Builder
		for _, part := range r.Parts {
			if !part.FString {
				b.WriteString(part.Text)
				continue
			}
			v, ok := ev.evalFString(part, r.Pos, scope, env, depth+1)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		}
		return b.String(), true
	case pyread.Call:
		if r.X.Dotted() == "str" && len(r.Items) == 1 {
			return ev.evalStr(r.Items[0], scope, env, depth+1)
		}
	}
	if name, def, ok := ev.envRead(r); ok && env != nil {
		if v, found := env(name); found {
			return v, true
		}
		if def != nil {
			if v, ok := ev.evalStr(def, scope, nil, depth+1); ok {
				return v, true
			}
		}
	}
	return "", false
}

// evalFString evaluates one f-string body: {{ and }} are braces, {expr}
// fields are parsed and evaluated; format specs and !conversions other than
// !s make it non-literal.
func (ev *pyEval) evalFString(part pyread.StrPart, pos Pos, scope *pyScope, env func(string) (string, bool), depth int) (string, bool) {
	body := part.Text
	var out, lit strings.Builder
	flush := func() {
		s := lit.String()
		if !part.Raw {
			s = pyread.Unescape(s)
		}
		out.WriteString(s)
		lit.Reset()
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '}' {
			if i+1 < len(body) && body[i+1] == '}' {
				i++
			}
			lit.WriteByte('}')
			continue
		}
		if c != '{' {
			lit.WriteByte(c)
			continue
		}
		if i+1 < len(body) && body[i+1] == '{' {
			lit.WriteByte('{')
			i++
			continue
		}
		end, field, ok := fstringField(body, i+1)
		if !ok {
			return "", false
		}
		flush()
		toks := pyread.Tokenize(field, pos.File)
		p := &pyread.Parser{Src: field, Toks: toks, DepthLeft: 100}
		fe := p.Expr()
		if !p.AtEnd() {
			return "", false
		}
		v, ok := ev.evalStr(fe, scope, env, depth+1)
		if !ok {
			return "", false
		}
		out.WriteString(v)
		i = end
	}
	flush()
	return out.String(), true
}

// fstringField returns the index of the "}" closing the field that starts
// at i, and the field's expression (without a trailing "!s"); ok is false
// for format specs, "=" and other conversions.
func fstringField(body string, i int) (int, string, bool) {
	depth := 0
	var quote byte
	for j := i; j < len(body); j++ {
		c := body[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == '}' && depth > 0:
			depth--
		case c == '}':
			f := strings.TrimSpace(body[i:j])
			f = strings.TrimSuffix(f, "!s")
			if f == "" || strings.HasSuffix(f, "=") || strings.Contains(f, "!") && !strings.Contains(f, "!=") {
				return 0, "", false
			}
			return j, f, true
		case c == ':' && depth == 0:
			return 0, "", false // a format spec
		}
	}
	return 0, "", false
}

// envVars lists the environment variables an expression reads.
func (ev *pyEval) envVars(e *pyread.Expr, scope *pyScope, depth int) []string {
	if e == nil || depth > 32 {
		return nil
	}
	r, ok := ev.enter(e, scope)
	if !ok {
		return nil
	}
	defer ev.leave(r)
	if name, _, ok := ev.envRead(r); ok {
		return []string{name}
	}
	var out []string
	switch r.Kind {
	case pyread.Concat:
		for _, it := range r.Items {
			out = append(out, ev.envVars(it, scope, depth+1)...)
		}
	case pyread.FString:
		for _, part := range r.Parts {
			if !part.FString {
				continue
			}
			for _, f := range fstringFields(part.Text) {
				toks := pyread.Tokenize(f, r.Pos.File)
				p := &pyread.Parser{Src: f, Toks: toks, DepthLeft: 100}
				out = append(out, ev.envVars(p.Expr(), scope, depth+1)...)
			}
		}
	case pyread.Call:
		if r.X.Dotted() == "str" && len(r.Items) == 1 {
			out = ev.envVars(r.Items[0], scope, depth+1)
		}
	}
	return out
}

// fstringFields lists the field expressions of an f-string body.
func fstringFields(body string) []string {
	var out []string
	for i := 0; i < len(body); i++ {
		if body[i] != '{' {
			continue
		}
		if i+1 < len(body) && body[i+1] == '{' {
			i++
			continue
		}
		end, f, ok := fstringField(body, i+1)
		if !ok {
			// still report the expression before a format spec
			j := strings.IndexAny(body[i+1:], ":}!")
			if j > 0 {
				out = append(out, strings.TrimSpace(body[i+1:i+1+j]))
			}
			continue
		}
		out = append(out, f)
		i = end
	}
	return out
}

func exprText(e *pyread.Expr) string {
	if e == nil {
		return ""
	}
	if e.Text != "" {
		return e.Text
	}
	return e.Dotted()
}

// serverKinds are the calls that declare an MCP server.
var serverCalls = []string{"MCPServerStdio", "MCPServerHTTP", "MCPServerSSE", "StdioServerParameters", "SSEServerParameters", "StreamableHttpParameters"}

// isServerExpr reports whether e (resolved) declares a server.
func (ev *pyEval) isServerExpr(e *pyread.Expr) bool {
	return ev.m.calledAs(e, serverCalls...)
}

// serverFromExpr builds a server from MCPServerStdio/HTTP/SSE(…),
// StdioServerParameters(…) or an adapter dict {"url", "transport"}.
// adapter marks MCPServerAdapter params (policy adapter, bare tool names).
// pyServerParams are the keyword arguments of CrewAI's MCP config models.
var pyServerParams = map[string]map[string]bool{
	"MCPServerStdio": set("command", "args", "env", "tool_filter", "cache_tools_list"),
	"MCPServerHTTP":  set("url", "headers", "streamable", "tool_filter", "cache_tools_list"),
	"MCPServerSSE":   set("url", "headers", "tool_filter", "cache_tools_list"),
}

func (ev *pyEval) serverFromExpr(e *pyread.Expr, scope *pyScope, agent, src string, adapter bool, connectTimeout *pyread.Expr) *Server {
	l := ev.l
	r := ev.resolve(e, scope)
	spec := mcpconn.ServerSpec{Ref: mcpconn.RefNative}
	if adapter {
		spec.Policy = mcpconn.PolicyAdapter
	}
	ps := ServerPositions{paths: make([]pathPos, 1, 12)}
	ps.paths[0] = pathPos{"", e.Pos}
	var pending []pendingValue
	kw := func(name string) *pyread.Expr { return r.Kwarg(name) }
	if r.Kind == pyread.Dict {
		// MCPServerAdapter remote params: {"url": …, "transport": "sse"|"streamable-http", "headers": …}
		kw = func(name string) *pyread.Expr {
			for i, k := range r.Keys {
				if k.Kind == pyread.String && k.Str == name {
					return r.Items[i]
				}
			}
			return nil
		}
	}
	addPending := func(field string, u *Unresolved, set func(*mcpconn.ServerSpec, any)) {
		if u == nil {
			return
		}
		pending = append(pending, pendingValue{field: field, u: u, set: set})
	}
	strField := func(field, what string, set func(*mcpconn.ServerSpec, string)) {
		x := kw(field)
		if x == nil {
			return
		}
		ps.set(field, x.Pos)
		v, u := ev.strValue(x, scope, what)
		set(&spec, v)
		addPending(field, u, func(s *mcpconn.ServerSpec, v any) { set(s, fmt.Sprint(v)) })
	}
	strMap := func(field string, dst *map[string]string, label string) {
		x := kw(field)
		if x == nil {
			return
		}
		ps.set(field, x.Pos)
		rx := ev.resolve(x, scope)
		if rx.Kind == pyread.None {
			return
		}
		if rx.Kind != pyread.Dict {
			// env=dict(os.environ), env=os.environ.copy(), env=os.environ
			if field == "env" && ev.copiesEnviron(rx) {
				spec.InheritEnv = true
				l.note(x.Pos, Info, "env-copies-environ", "env= copies the whole environment (os.environ): the server sees every variable, not CrewAI's minimal set")
				return
			}
			addPending(field, &Unresolved{Pos: x.Pos, Field: label, Expr: exprText(x)}, nil)
			return
		}
		*dst = map[string]string{}
		m := *dst
		for i, k := range rx.Keys {
			if k.Kind == pyread.Starred {
				if field == "env" && ev.copiesEnviron(ev.resolve(k.X, scope)) {
					spec.InheritEnv = true
					l.note(k.Pos, Info, "env-copies-environ", "env={**os.environ, …} passes the whole environment to the server, not CrewAI's minimal set")
					continue
				}
				addPending(field, &Unresolved{Pos: k.Pos, Field: label, Expr: "**" + exprText(k.X)}, nil)
				continue
			}
			key, ok := ev.literalStr(k, scope)
			if !ok {
				addPending(field, &Unresolved{Pos: k.Pos, Field: label + " key", Expr: exprText(k)}, nil)
				continue
			}
			ps.set(field+"."+key, rx.Items[i].Pos)
			v, u := ev.strValue(rx.Items[i], scope, fmt.Sprintf("%s[%q]", label, key))
			m[key] = v
			addPending(field+"."+key, u, func(s *mcpconn.ServerSpec, v any) {
				if field == "env" {
					s.Env[key] = fmt.Sprint(v)
				} else {
					s.Headers[key] = fmt.Sprint(v)
				}
			})
		}
	}
	name := ""
	if r.Kind == pyread.Call {
		name = ev.m.qualified(r.X.Dotted())
		name = name[strings.LastIndexByte(name, '.')+1:]
	}
	switch {
	case name == "MCPServerStdio" || name == "StdioServerParameters":
		spec.Transport = mcpconn.TransportStdio
		strField("command", name+" command", func(s *mcpconn.ServerSpec, v string) { s.Command = v })
		if x := kw("args"); x != nil {
			ps.set("args", x.Pos)
			rx := ev.resolve(x, scope)
			if rx.Kind == pyread.List || rx.Kind == pyread.Tuple {
				for i, it := range rx.Items {
					if it.Kind == pyread.Starred {
						addPending("args", &Unresolved{Pos: it.Pos, Field: name + " args", Expr: exprText(x)}, nil)
						break
					}
					idx := i
					ps.set(indexPath("args", i), it.Pos)
					v, u := ev.strValue(it, scope, fmt.Sprintf("%s args[%d]", name, i))
					spec.Args = append(spec.Args, v)
					addPending(indexPath("args", i), u, func(s *mcpconn.ServerSpec, v any) { s.Args[idx] = fmt.Sprint(v) })
				}
			} else {
				addPending("args", &Unresolved{Pos: x.Pos, Field: name + " args", Expr: exprText(x)}, nil)
			}
		}
		strMap("env", &spec.Env, name+" env")
		if x := kw("cwd"); x != nil {
			l.note(x.Pos, Warn, "mcp-cwd", "cwd= is not supported by crewbench: the server starts in crewbench's working directory (MCPServerStdio has no cwd at all)")
		}
	case name == "MCPServerHTTP" || name == "MCPServerSSE" || name == "SSEServerParameters" || name == "StreamableHttpParameters" || r.Kind == pyread.Dict:
		spec.Transport = mcpconn.TransportHTTP
		if name == "MCPServerSSE" || name == "SSEServerParameters" {
			spec.Transport = mcpconn.TransportSSE
		}
		if r.Kind == pyread.Dict {
			// MCPServerAdapter: without "transport" the adapter speaks SSE.
			spec.Transport = mcpconn.TransportSSE
			if t := kw("transport"); t != nil {
				tv, _ := ev.strValue(t, scope, "transport")
				if nt := normTransport(tv); nt == mcpconn.TransportHTTP || nt == mcpconn.TransportSSE {
					spec.Transport = nt
				}
			} else {
				l.note(r.Pos, Warn, "adapter-dict-sse", `MCPServerAdapter params without "transport" speak SSE; add "transport": "streamable-http" for a streamable-HTTP /mcp endpoint`)
			}
		}
		strField("url", modelName(spec.Transport)+" url", func(s *mcpconn.ServerSpec, v string) { s.URL = v })
		strMap("headers", &spec.Headers, modelName(spec.Transport)+" headers")
		if x := kw("streamable"); x != nil && name == "MCPServerHTTP" {
			ps.set("streamable", x.Pos)
			if n, bad := ev.literal(x, scope, 0); bad == nil && n.Kind == KindBool {
				b := n.Bool
				spec.Streamable = &b
				if !b {
					l.note(x.Pos, Warn, "mcp-streamable-false", "streamable=False does not give SSE: CrewAI's HTTP transport always speaks streamable HTTP; use MCPServerSSE for an SSE server")
				}
			}
		}
	default:
		return nil
	}
	if params, ok := pyServerParams[name]; ok && r.Kind == pyread.Call {
		// CrewAI's config models keep pydantic's extra="ignore": a
		// mistyped keyword is dropped without a word.
		for _, k := range r.Kwargs {
			if k.Name == "" || params[k.Name] || k.Name == "cwd" {
				continue // cwd has its own note above
			}
			text := fmt.Sprintf("%s is not a parameter of %s: CrewAI ignores it", k.Name, name)
			if sg := suggest.DidYouMean(k.Name, keysOf(params)); sg != "" {
				text += fmt.Sprintf(" (did you mean %q?)", sg) // tool_filtr → "tool_filter"
			}
			l.note(k.Pos, Warn, "mcp-ignored-field", text)
		}
	}
	if x := kw("cache_tools_list"); x != nil {
		if n, bad := ev.literal(x, scope, 0); bad == nil && n.Kind == KindBool {
			spec.CacheToolsList = n.Bool
		}
	}
	if x := kw("tool_filter"); x != nil {
		ps.set("tool_filter", x.Pos)
		f, u := ev.toolFilter(x, scope, &ps)
		spec.Filter = f
		addPending("tool_filter", u, setFilter)
	}
	if connectTimeout != nil {
		if n, bad := ev.literal(connectTimeout, scope, 0); bad == nil && n.Kind == KindNumber {
			spec.Timeouts.Connect = secondsDuration(n.Float)
		}
	}
	return l.addServer(&Server{Spec: spec, Pos: e.Pos, Source: src, Positions: ps}, agent, false, pending)
}

func (ev *pyEval) copiesEnviron(e *pyread.Expr) bool {
	d := ev.m.qualified(e.Dotted())
	if d == "os.environ" {
		return true
	}
	if e.Kind == pyread.Call {
		fn := ev.m.qualified(e.X.Dotted())
		if fn == "os.environ.copy" {
			return true
		}
		if fn == "dict" && len(e.Items) == 1 && ev.m.qualified(e.Items[0].Dotted()) == "os.environ" {
			return true
		}
	}
	return false
}

// toolFilter reads tool_filter=create_static_tool_filter(…) /
// StaticToolFilter(…); a dynamic filter (a Python function) is pending.
func (ev *pyEval) toolFilter(x *pyread.Expr, scope *pyScope, ps *ServerPositions) (mcpconn.FilterSpec, *Unresolved) {
	var f mcpconn.FilterSpec
	r := ev.resolve(x, scope)
	if r.Kind == pyread.None {
		return f, nil
	}
	if ev.m.calledAs(r, "create_static_tool_filter", "StaticToolFilter") {
		var bad *pyread.Expr
		for _, k := range []string{"allowed_tool_names", "blocked_tool_names"} {
			v := r.Kwarg(k)
			if v == nil {
				idx := 0
				if k == "blocked_tool_names" {
					idx = 1
				}
				if idx < len(r.Items) {
					v = r.Items[idx]
				}
			}
			if v == nil {
				continue
			}
			n, b := ev.literal(v, scope, 0)
			if b != nil {
				bad = b
				continue
			}
			if n.Kind == KindNull {
				continue
			}
			var list []string
			for i, it := range n.Items {
				if it.Kind == KindString {
					list = append(list, it.Str)
					ps.set("tool_filter."+indexPath(k, i), it.Pos)
				}
			}
			if k == "allowed_tool_names" {
				f.Allowed = list
			} else {
				f.Blocked = list
			}
		}
		if bad != nil {
			return f, &Unresolved{Pos: bad.Pos, Field: "tool_filter names", Expr: exprText(x)}
		}
		return f, nil
	}
	what := "tool_filter (a Python function)"
	if ev.m.calledAs(r, "create_dynamic_tool_filter") {
		what = "tool_filter (create_dynamic_tool_filter)"
	}
	return f, &Unresolved{Pos: x.Pos, Field: what, Expr: exprText(x),
		Suggestion: "a Python filter cannot run in crewbench; give an equivalent in crewbench.yaml: servers: {NAME: {tool_filter: {allowed_tool_names: […]} or {expr: CEL}}}"}
}

// setFilter applies a filter given for an unresolved tool_filter (a map
// with allowed_tool_names / blocked_tool_names / expr).
func setFilter(s *mcpconn.ServerSpec, v any) {
	switch f := v.(type) {
	case mcpconn.FilterSpec:
		s.Filter = f
	case map[string]any:
		s.Filter = filterFromPlain(f)
	}
}

func filterFromPlain(m map[string]any) mcpconn.FilterSpec {
	var f mcpconn.FilterSpec
	list := func(v any) []string {
		var out []string
		if xs, ok := v.([]any); ok {
			for _, x := range xs {
				out = append(out, fmt.Sprint(x))
			}
		}
		return out
	}
	f.Allowed, f.Blocked = list(m["allowed_tool_names"]), list(m["blocked_tool_names"])
	if e, ok := m["expr"].(string); ok {
		f.Expr = e
	}
	return f
}

// mcpsFromExpr reads an Agent(mcps=[…]) list.
func (ev *pyEval) mcpsFromExpr(x *pyread.Expr, scope *pyScope, agent, src string) []MCPRef {
	l := ev.l
	r := ev.resolve(x, scope)
	if r.Kind == pyread.None {
		return nil
	}
	if r.Kind != pyread.List && r.Kind != pyread.Tuple {
		id := "agents." + agent + ".mcps"
		l.unresolved(&Unresolved{ID: id, Pos: x.Pos, Field: "Agent " + agent + " mcps", Expr: exprText(x)})
		return nil
	}
	var out []MCPRef
	for i, it := range r.Items {
		ri := ev.resolve(it, scope)
		str, isStr := ev.evalStr(it, scope, nil, 0)
		switch {
		case isStr:
			ref, err := names.ParseRef(str)
			if err != nil {
				l.err(it.Pos, fmt.Sprintf("agents.%s.mcps[%d]", agent, i), "", "validation failed: mcps: Value error, "+err.Error())
				continue
			}
			out = append(out, l.stringRef(ref, it.Pos, src, agent))
		case ev.isServerExpr(ri):
			if s := ev.serverFromExpr(ri, scope, agent, src, false, nil); s != nil {
				out = append(out, MCPRef{Kind: mcpconn.RefNative, Server: s.Name, Pos: it.Pos})
			}
		default:
			id := fmt.Sprintf("agents.%s.mcps[%d]", agent, i)
			u := l.unresolved(&Unresolved{ID: id, Pos: it.Pos, Field: fmt.Sprintf("Agent %s mcps[%d]", agent, i), Expr: exprText(it),
				Suggestion: "declare the server in crewbench.yaml under servers: and refer to it there, or write it as a literal MCPServerStdio/HTTP(…) call"})
			out = append(out, MCPRef{Pos: it.Pos, Unresolved: u.ID})
		}
	}
	return out
}
