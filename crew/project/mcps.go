package project

import (
	"fmt"
	"strings"

	"crewbench/mcpconn"
	"crewbench/names"
	"crewbench/names/suggest"
)

var (
	stdioConfigKeys = set("command", "args", "env", "tool_filter", "cache_tools_list")
	httpConfigKeys  = set("url", "headers", "streamable", "tool_filter", "cache_tools_list")
)

// decodeMCPs reads an agent's mcps (formats §1.5 "mcps entries";
// semantics §2). Dict entries become native ServerSpecs; "https://…#tool"
// strings https refs; slugs AMP refs whose URL comes from the overlay.
func (l *loader) decodeMCPs(d *decoder, agent string) []MCPRef {
	n := d.node("mcps")
	key := d.paths["mcps"]
	if n.IsNull() {
		return nil
	}
	if n.Kind != KindArray {
		d.invalid(n, key, "Input should be a valid list")
		return nil
	}
	label := d.vsrc + ": " + key
	if strings.HasPrefix(key, "settings.") {
		label = d.vsrc + ": settings: mcps"
	}
	var out []MCPRef
	for i, it := range n.Items {
		ip := indexPath(key, i)
		src := fmt.Sprintf("%s %s", d.file, joinPathBase(d.base, ip))
		switch it.Kind {
		case KindString:
			ref, err := names.ParseRef(it.Str)
			if err != nil {
				d.invalid(it, ip, "Value error, "+err.Error())
				continue
			}
			out = append(out, l.stringRef(ref, it.Pos, src, agent))
		case KindObject:
			if r, ok := l.dictMCP(it, d, ip, fmt.Sprintf("%s[%d]", label, i), src, agent); ok {
				out = append(out, r)
			}
		default:
			d.invalid(it, ip, fmt.Sprintf("Value error, Invalid MCP configuration: <class '%s'>. Must be a string reference or MCPServerConfig instance.", pyTypeName(it)))
		}
	}
	return out
}

// stringRef turns a validated string ref into an MCPRef and its server.
func (l *loader) stringRef(ref names.Ref, pos Pos, src, agent string) MCPRef {
	mr := MCPRef{Raw: ref.Raw, Pos: pos}
	switch ref.Kind {
	case names.RefHTTPS:
		mr.Kind = mcpconn.RefHTTPS
		spec := mcpconn.ServerSpec{Transport: mcpconn.TransportHTTP, URL: ref.URL, Ref: mcpconn.RefHTTPS,
			RefString: ref.Raw, SelectTool: ref.Tool}
		s := l.addServer(&Server{Spec: spec, Pos: pos, Source: src, Positions: recordedPositions(Positions{"": pos, "url": pos})}, agent, false, nil)
		mr.Server = s.Name
	case names.RefAMP:
		mr.Kind = mcpconn.RefAMP
		spec := mcpconn.ServerSpec{Ref: mcpconn.RefAMP, RefString: ref.Raw, AMPSlug: ref.Slug, SelectTool: ref.Tool,
			Transport: mcpconn.TransportHTTP}
		if l.ov != nil && l.ov.AMP[ref.Slug] != nil {
			a := l.ov.AMP[ref.Slug]
			spec.URL, spec.Headers = a.URL, cloneMap(a.Headers)
			if a.Transport == "sse" {
				spec.Transport = mcpconn.TransportSSE
			}
			l.ov.usedAMP[ref.Slug] = true
		}
		s := &Server{Spec: spec, Pos: pos, Source: src, Positions: recordedPositions(Positions{"": pos})}
		s = l.addServer(s, agent, false, nil)
		mr.Server = s.Name
		if s.Spec.URL == "" {
			id := "amp." + ref.Slug
			if l.p.UnresolvedByID(id) == nil {
				l.unresolved(&Unresolved{ID: id, Pos: pos, Field: fmt.Sprintf("URL of the AMP integration %q", ref.Slug), Expr: ref.Raw,
					Suggestion: fmt.Sprintf("CrewAI fetches it from your CrewAI AMP account; give it in crewbench.yaml: amp: {%s: {url: https://…, transport: http}}", ref.Slug)})
			}
			s.Unresolved = appendUnique(s.Unresolved, id)
			mr.Unresolved = id
		}
	}
	return mr
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// dictMCP reads one MCPServerStdio / MCPServerHTTP dict. Pydantic picks
// the stdio model when "command" is present, else the HTTP model (SSE can
// never be chosen from JSON); keys the chosen model does not have are
// ignored silently by CrewAI, so each gets a Note.
func (l *loader) dictMCP(it *Node, d *decoder, ip, label, src, agent string) (MCPRef, bool) {
	var spec mcpconn.ServerSpec
	spec.Ref = mcpconn.RefNative
	var allowed map[string]bool
	switch {
	case it.Has("command"):
		spec.Transport, allowed = mcpconn.TransportStdio, stdioConfigKeys
		if it.Has("url") {
			l.note(it.Field("url").KeyPos, Warn, "mcp-command-and-url",
				`this entry has both "command" and "url": CrewAI validates it as MCPServerStdio and ignores "url"`)
		}
	case it.Has("url"):
		spec.Transport, allowed = mcpconn.TransportHTTP, httpConfigKeys
	default:
		d.invalid(it, ip, `Input should be an MCP server config: MCPServerStdio needs "command", MCPServerHTTP needs "url"`)
		return MCPRef{}, false
	}
	ok := true
	strField := func(k string, dst *string, required bool) {
		v := it.Get(k)
		if v.IsNull() {
			if required {
				d.invalid(it, ip+"."+k, "Field required")
				ok = false
			}
			return
		}
		if v.Kind != KindString {
			d.invalid(v, ip+"."+k, "Input should be a valid string")
			ok = false
			return
		}
		*dst = v.Str
	}
	strMap := func(k string) map[string]string {
		v := it.Get(k)
		if v.IsNull() {
			return nil
		}
		if v.Kind != KindObject {
			d.invalid(v, ip+"."+k, "Input should be a valid dictionary")
			ok = false
			return nil
		}
		m := map[string]string{}
		for _, f := range v.Fields {
			if f.Value.Kind != KindString {
				d.invalid(f.Value, ip+"."+k+"."+f.Key, "Input should be a valid string")
				ok = false
				continue
			}
			m[f.Key] = f.Value.Str
			if strings.Contains(f.Value.Str, "${") || strings.HasPrefix(f.Value.Str, "$") {
				l.note(f.Value.Pos, Warn, "mcp-literal-variable", fmt.Sprintf(
					"%s.%s is %q: CrewAI does not expand variables in MCP %s; the server receives the text as written", k, f.Key, f.Value.Str, k))
			}
		}
		return m
	}
	if spec.Transport == mcpconn.TransportStdio {
		strField("command", &spec.Command, true)
		if v := it.Get("args"); !v.IsNull() {
			if v.Kind != KindArray {
				d.invalid(v, ip+".args", "Input should be a valid list")
				ok = false
			} else {
				for j, a := range v.Items {
					if a.Kind != KindString {
						d.invalid(a, indexPath(ip+".args", j), "Input should be a valid string")
						ok = false
						continue
					}
					spec.Args = append(spec.Args, a.Str)
				}
			}
		}
		spec.Env = strMap("env")
	} else {
		strField("url", &spec.URL, true)
		spec.Headers = strMap("headers")
		if v := it.Get("streamable"); !v.IsNull() {
			b, good := laxBool(v)
			if !good {
				d.invalid(v, ip+".streamable", "Input should be a valid boolean")
				ok = false
			} else {
				spec.Streamable = &b
				if !b {
					l.note(v.Pos, Warn, "mcp-streamable-false",
						`"streamable": false does not give SSE: CrewAI's HTTP transport always speaks streamable HTTP (only the reported transport type changes)`)
				}
			}
		}
	}
	if v := it.Get("cache_tools_list"); !v.IsNull() {
		b, good := laxBool(v)
		if !good {
			d.invalid(v, ip+".cache_tools_list", "Input should be a valid boolean")
			ok = false
		}
		spec.CacheToolsList = b
	}
	var pending []pendingValue
	if tf := it.Get("tool_filter"); !tf.IsNull() {
		filter, pv, good := l.toolFilter(tf, d, ip, label)
		ok = ok && good
		spec.Filter = filter
		if pv != nil {
			pending = append(pending, *pv)
		}
	}
	for _, f := range it.Fields {
		if allowed[f.Key] || (spec.Transport == mcpconn.TransportStdio && f.Key == "url") {
			continue
		}
		text := fmt.Sprintf("%q is not a field of %s: CrewAI ignores it", f.Key, modelName(spec.Transport))
		if s := suggest.DidYouMean(f.Key, keysOf(allowed)); s != "" {
			text += fmt.Sprintf(" (did you mean %q?)", s) // "tool_filtr" → "tool_filter"
		}
		if f.Key == "type" && f.Value.Kind == KindString && strings.EqualFold(f.Value.Str, "sse") {
			text = `"type": "sse" is ignored: an MCP dict with "url" always becomes MCPServerHTTP (streamable HTTP); SSE can only be declared in Python (MCPServerSSE)`
		}
		l.note(f.KeyPos, Warn, "mcp-ignored-field", text)
	}
	if !ok {
		return MCPRef{}, false
	}
	s := l.addServer(&Server{Spec: spec, Pos: it.Pos, Source: src, Positions: treePositions(it)}, agent, false, pending)
	return MCPRef{Kind: mcpconn.RefNative, Server: s.Name, Pos: it.Pos}, true
}

func modelName(t mcpconn.Transport) string {
	switch t {
	case mcpconn.TransportStdio:
		return "MCPServerStdio"
	case mcpconn.TransportSSE:
		return "MCPServerSSE"
	}
	return "MCPServerHTTP"
}

// toolFilter reads a JSON tool_filter: {"type": "static", …} or a
// {"python": …} callable (which cannot run here and becomes Unresolved,
// resolvable in the overlay with a static list or a CEL expression).
func (l *loader) toolFilter(tf *Node, d *decoder, ip, label string) (mcpconn.FilterSpec, *pendingValue, bool) {
	var f mcpconn.FilterSpec
	if ref, isRef, problem := pythonRef(tf); isRef {
		if problem != "" {
			l.err(tf.Pos, joinPathBase(d.base, ip+".tool_filter"), label+".tool_filter", problem)
			return f, nil, false
		}
		l.checkPythonModule(tf.Pos, joinPathBase(d.base, ip+".tool_filter"), label+".tool_filter", ref)
		return f, &pendingValue{field: "tool_filter", u: &Unresolved{Pos: tf.Pos,
			Field: "tool_filter (a Python callable)", Expr: `{"python": "` + ref + `"}`,
			Suggestion: "a Python filter cannot run in crewbench; give an equivalent in crewbench.yaml: servers: {NAME: {tool_filter: {allowed_tool_names: […]} or {expr: CEL}}}"},
			set: setFilter}, true
	}
	if tf.Kind != KindObject {
		d.invalid(tf, ip+".tool_filter", "Input should be callable")
		return f, nil, false
	}
	ty := tf.Get("type")
	if ty == nil || ty.Kind != KindString || ty.Str != "static" {
		d.invalid(tf, ip+".tool_filter", `Input should be callable (a JSON tool_filter must be {"type": "static", "allowed_tool_names": […], "blocked_tool_names": […]} or {"python": "module.function"})`)
		return f, nil, false
	}
	ok := true
	for _, k := range []string{"allowed_tool_names", "blocked_tool_names"} {
		v := tf.Get(k)
		if v.IsNull() {
			continue
		}
		var list []string
		good := v.Kind == KindArray
		if good {
			for _, it := range v.Items {
				if it.Kind != KindString {
					good = false
					break
				}
				list = append(list, it.Str)
			}
		}
		if !good {
			l.err(v.Pos, joinPathBase(d.base, ip+".tool_filter."+k), "", fmt.Sprintf("%s.tool_filter.%s must be a list of strings", label, k))
			ok = false
			continue
		}
		if k == "allowed_tool_names" {
			f.Allowed = list
		} else {
			f.Blocked = list
		}
	}
	for _, fl := range tf.Fields {
		if fl.Key != "type" && fl.Key != "allowed_tool_names" && fl.Key != "blocked_tool_names" {
			l.note(fl.KeyPos, Warn, "mcp-ignored-field", fmt.Sprintf("tool_filter.%s is ignored by create_static_tool_filter", fl.Key))
		}
	}
	return f, nil, ok
}
