package project

import (
	"crewbench/crew/filelimit"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
	"crewbench/names/suggest"
)

// OverlayFile is the overlay's default file name.
const OverlayFile = "crewbench.yaml"

// Overlay is crewbench.yaml: what CrewAI files cannot hold (OVERLAY.md).
type Overlay struct {
	Path string // as shown in positions
	// Project is the `project:` path as written; ProjectPath it resolved
	// against the overlay's directory ("" when absent).
	Project     string
	ProjectPath string
	projectPos  Pos

	// LLM overrides every agent's llm and the crew's manager_llm,
	// planning_llm and function_calling_llm.
	LLM *LLM
	// AgentLLMs are per-agent overrides (agents: {NAME: {llm: …}}).
	AgentLLMs map[string]*LLM
	agentPos  map[string]Pos

	// Tools are stand-ins for Python-only tools, keyed by the tool ref as
	// written in the crew or by a crewai_tools class name.
	Tools   map[string]*StandIn
	toolPos map[string]Pos

	AMP     map[string]*AMPConfig
	usedAMP map[string]bool

	Servers []*ServerOverlay

	Env    map[string]string
	Values map[string]OverlayValue

	// Inputs are named input sets; "default" merges over the crew's inputs.
	Inputs   map[string]map[string]any
	inputPos map[string]Pos

	// Conditions are tasks: {NAME: {condition: …}}: a ConditionalTask's
	// condition declared for crewbench (an expression over `output`, a
	// lambda, or true / false), which replaces what crew.py says.
	Conditions map[string]*TaskCondition

	// Crew is a whole crew in crew.jsonc's schema with agents inline.
	Crew *Node

	Pos Pos
}

// AMPConfig is what the CrewAI+ API would return for a slug.
type AMPConfig struct {
	URL       string
	Transport string // "http" (default) or "sse"
	Headers   map[string]string
	Pos       Pos
}

// OverlayValue is a value supplied for an Unresolved entry.
type OverlayValue struct {
	Value any
	Pos   Pos
}

// ServerOverlay is one servers: entry: what-ifs for a project server, or
// (with command or url) a server of its own.
type ServerOverlay struct {
	Name string
	Pos  Pos

	Policy          mcpconn.Policy
	Timeouts        mcpconn.Timeouts
	ProtocolVersion string
	InheritEnv      *bool
	Faults          []mcpconn.Fault
	Filter          *mcpconn.FilterSpec
	CacheToolsList  *bool

	// Define is set when the entry declares a server itself.
	Define    *mcpconn.ServerSpec
	positions Positions
}

var overlayTopKeys = []string{"version", "project", "llm", "agents", "tasks", "tools", "amp", "servers", "env", "values", "inputs", "crew"}

// ovParser validates crewbench.yaml; unknown keys are errors with a
// "did you mean" hint.
type ovParser struct {
	l    *loader
	file string
	ov   *Overlay
}

// loadOverlay parses and validates an overlay file. dir is the overlay's
// directory (for `project:`).
func (l *loader) loadOverlay(path, shown string) *Overlay {
	src, err := filelimit.Read(path, filelimit.Config)
	if err != nil {
		l.err(Pos{File: shown}, "", "", "cannot read "+shown+": "+errText(err))
		return nil
	}
	l.p.Files = append(l.p.Files, File{Path: shown, Role: "overlay"})
	return l.parseOverlay(src, shown, filepath.Dir(path))
}

func (l *loader) parseOverlay(src []byte, shown, dir string) *Overlay {
	doc, err := parseYAMLDoc(src, shown)
	if err != nil {
		l.errs = append(l.errs, asError(err, shown))
		return nil
	}
	l.errs = append(l.errs, doc.Duplicates...)
	ov := &Overlay{Path: shown, AgentLLMs: map[string]*LLM{}, agentPos: map[string]Pos{}, Tools: map[string]*StandIn{},
		toolPos: map[string]Pos{}, AMP: map[string]*AMPConfig{}, usedAMP: map[string]bool{}, Env: map[string]string{},
		Values: map[string]OverlayValue{}, Inputs: map[string]map[string]any{}, inputPos: map[string]Pos{}, Pos: doc.Root.Pos}
	root := doc.Root
	if root.Kind == KindNull {
		return ov
	}
	op := &ovParser{l: l, file: shown, ov: ov}
	if root.Kind != KindObject {
		op.fail(root, "", "crewbench.yaml must be a mapping of settings")
		return ov
	}
	op.keys(root, "", overlayTopKeys)
	if v := root.Get("version"); !v.IsNull() {
		if i, ok := laxInt(v); !ok || i != 1 {
			op.fail(v, "version", "version must be 1")
		}
	}
	if v := root.Get("project"); !v.IsNull() {
		if s, ok := op.str(v, "project"); ok {
			ov.Project, ov.projectPos = s, v.Pos
			ov.ProjectPath = s
			if !filepath.IsAbs(s) {
				ov.ProjectPath = filepath.Join(dir, s)
			}
		}
	}
	if v := root.Get("llm"); !v.IsNull() {
		ov.LLM = op.llm(v, "llm")
	}
	if v := root.Get("agents"); !v.IsNull() {
		op.agents(v)
	}
	if v := root.Get("tasks"); !v.IsNull() {
		op.tasks(v)
	}
	if v := root.Get("tools"); !v.IsNull() {
		op.tools(v)
	}
	if v := root.Get("amp"); !v.IsNull() {
		op.amp(v)
	}
	if v := root.Get("servers"); !v.IsNull() {
		op.servers(v)
	}
	if v := root.Get("env"); !v.IsNull() {
		if op.object(v, "env") {
			for _, f := range v.Fields {
				if s, ok := scalarString(f.Value); ok {
					ov.Env[f.Key] = s
				} else {
					op.fail(f.Value, "env."+f.Key, "env values must be strings")
				}
			}
		}
	}
	if v := root.Get("values"); !v.IsNull() {
		if op.object(v, "values") {
			for _, f := range v.Fields {
				ov.Values[f.Key] = OverlayValue{Value: f.Value.Plain(), Pos: f.KeyPos}
			}
		}
	}
	if v := root.Get("inputs"); !v.IsNull() {
		if op.object(v, "inputs") {
			for _, f := range v.Fields {
				if f.Value.Kind != KindObject {
					op.fail(f.Value, "inputs."+f.Key, "an input set must be a mapping of input names to values (inputs: {default: {topic: AI}})")
					continue
				}
				ov.Inputs[f.Key] = f.Value.inputValues()
				ov.inputPos[f.Key] = f.KeyPos
			}
		}
	}
	if v := root.Get("crew"); !v.IsNull() {
		if v.Kind != KindObject {
			op.fail(v, "crew", "crew must be a mapping in crew.jsonc's schema (agents inline)")
		} else {
			ov.Crew = v
			if ov.Project != "" {
				op.fail(v, "crew", "crewbench.yaml has both project: and crew:; use one (crew: is a whole crew of its own)")
			}
		}
	}
	return ov
}

func asError(err error, file string) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	return &Error{Pos: Pos{File: file}, Msg: err.Error()}
}

func (op *ovParser) fail(n *Node, field, msg string) *Error {
	pos := Pos{File: op.file}
	if n != nil {
		pos = n.Pos
	}
	return op.l.err(pos, field, "", msg)
}

// keys reports every key of obj not in allowed, with a suggestion.
func (op *ovParser) keys(obj *Node, where string, allowed []string) {
	ok := set(allowed...)
	for _, f := range obj.Fields {
		if ok[f.Key] {
			continue
		}
		field := joinPath(where, f.Key)
		e := op.l.err(f.KeyPos, field, "", fmt.Sprintf("unknown key %q%s", f.Key, inWhere(where)))
		if s := suggest.DidYouMean(f.Key, allowed); s != "" {
			e.Hint = fmt.Sprintf("did you mean %q?", s)
		} else {
			e.Hint = "expected one of: " + strings.Join(allowed, ", ")
		}
	}
}

func inWhere(where string) string {
	if where == "" {
		return ""
	}
	return " in " + where
}

func (op *ovParser) object(n *Node, field string) bool {
	if n.Kind != KindObject {
		op.fail(n, field, field+" must be a mapping")
		return false
	}
	return true
}

func (op *ovParser) str(n *Node, field string) (string, bool) {
	if s, ok := scalarString(n); ok {
		return s, true
	}
	op.fail(n, field, field+" must be a string")
	return "", false
}

// scalarString renders a YAML scalar as text (numbers and booleans as
// written), for env values and the like.
func scalarString(n *Node) (string, bool) {
	switch n.Kind {
	case KindString, KindNumber:
		return n.Str, true
	case KindBool:
		if n.Bool {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

func (op *ovParser) llm(n *Node, field string) *LLM {
	d := newDecoder(op.l, op.file, op.file, "", nil)
	llm := op.l.llmFromNode(n, d, field)
	if llm != nil {
		llm.Source = n.Pos.String() + " (crewbench.yaml " + field + ")"
	}
	return llm
}

func (op *ovParser) agents(v *Node) {
	if !op.object(v, "agents") {
		return
	}
	for _, f := range v.Fields {
		where := "agents." + f.Key
		if !op.object(f.Value, where) {
			continue
		}
		op.keys(f.Value, where, []string{"llm"})
		if l := f.Value.Get("llm"); !l.IsNull() {
			op.ov.AgentLLMs[f.Key] = op.llm(l, where+".llm")
			op.ov.agentPos[f.Key] = f.KeyPos
		}
	}
}

// tasks reads tasks: {NAME: {condition: EXPR | true | false}}.
func (op *ovParser) tasks(v *Node) {
	if !op.object(v, "tasks") {
		return
	}
	for _, f := range v.Fields {
		where := "tasks." + f.Key
		if !op.object(f.Value, where) {
			continue
		}
		op.keys(f.Value, where, []string{"condition"})
		c := f.Value.Get("condition")
		switch {
		case c.IsNull():
			continue
		case c.Kind == KindBool:
			b := c.Bool
			op.setCondition(f.Key, &TaskCondition{Const: &b, Pos: c.Pos})
		case c.Kind == KindString:
			op.setCondition(f.Key, &TaskCondition{Text: c.Str, Pos: c.Pos})
		default:
			op.fail(c, where+".condition", "condition is a Python expression over output (a string, e.g. \"'approved' in output.raw.lower()\"), or true / false")
		}
	}
}

func (op *ovParser) setCondition(task string, c *TaskCondition) {
	if op.ov.Conditions == nil {
		op.ov.Conditions = map[string]*TaskCondition{}
	}
	op.ov.Conditions[task] = c
}

func (op *ovParser) tools(v *Node) {
	if !op.object(v, "tools") {
		return
	}
	for _, f := range v.Fields {
		where := "tools." + f.Key
		if !op.object(f.Value, where) {
			continue
		}
		op.keys(f.Value, where, []string{"result", "mcp", "description", "args_schema", "result_as_answer", "max_usage_count", "cache_function"})
		st := &StandIn{Pos: f.KeyPos}
		if r := f.Value.Get("result"); r != nil {
			var text string
			if s, ok := scalarString(r); ok && r.Kind == KindString {
				text = s
			} else {
				b, _ := json.Marshal(r.Plain())
				text = string(b)
			}
			st.Result = &text
		}
		if m := f.Value.Get("mcp"); m != nil {
			if op.object(m, where+".mcp") {
				op.keys(m, where+".mcp", []string{"server", "tool"})
				if s := m.Get("server"); s != nil {
					st.Server, _ = op.str(s, where+".mcp.server")
				}
				if t := m.Get("tool"); t != nil {
					st.Tool, _ = op.str(t, where+".mcp.tool")
				}
				if st.Server == "" || st.Tool == "" {
					op.fail(m, where+".mcp", "mcp routing needs both server and tool: mcp: {server: NAME, tool: TOOL}")
				}
			}
		}
		if d := f.Value.Get("description"); d != nil {
			st.Description, _ = op.str(d, where+".description")
		}
		op.toolAttributes(f.Value, where, st)
		if (st.Result == nil) == (st.Server == "" && st.Tool == "") {
			op.fail(f.Value, where, "a tool stand-in needs exactly one of result: (a canned answer) or mcp: {server, tool}")
		}
		op.ov.Tools[f.Key] = st
		op.ov.toolPos[f.Key] = f.KeyPos
	}
}

// toolAttributes reads the Python-tool attributes a stand-in may declare.
func (op *ovParser) toolAttributes(v *Node, where string, st *StandIn) {
	if n := v.Get("args_schema"); n != nil && op.object(n, where+".args_schema") {
		st.ArgsSchema, _ = n.Ordered().(*pyjson.Object)
		if t, ok := st.ArgsSchema.Get("type"); !ok || t != "object" {
			op.fail(n, where+".args_schema", `args_schema must be the model's JSON schema: an object with "type": "object" and "properties"`)
		}
	}
	if n := v.Get("result_as_answer"); n != nil {
		if n.Kind == KindBool {
			st.ResultAsAnswer = n.Bool
		} else {
			op.fail(n, where+".result_as_answer", "result_as_answer must be true or false")
		}
	}
	if n := v.Get("max_usage_count"); n != nil {
		if i, ok := laxInt(n); ok && i >= 1 && n.Kind == KindNumber {
			st.MaxUsageCount = i
		} else {
			// CrewAI's own validation text.
			op.fail(n, where+".max_usage_count", "max_usage_count must be a positive integer")
		}
	}
	if n := v.Get("cache_function"); n != nil {
		s, _ := op.str(n, where+".cache_function")
		switch s {
		case "always":
		case "never":
			st.NeverCache = true
		default:
			e := op.fail(n, where+".cache_function", fmt.Sprintf("unknown cache_function %q", s))
			e.Hint = "expected always (CrewAI's default: every result is cached) or never (a cache_function returning False)"
		}
	}
}

func (op *ovParser) amp(v *Node) {
	if !op.object(v, "amp") {
		return
	}
	for _, f := range v.Fields {
		where := "amp." + f.Key
		a := &AMPConfig{Transport: "http", Pos: f.KeyPos}
		switch f.Value.Kind {
		case KindString:
			a.URL = f.Value.Str
		case KindObject:
			op.keys(f.Value, where, []string{"url", "transport", "headers"})
			if u := f.Value.Get("url"); u != nil {
				a.URL, _ = op.str(u, where+".url")
			}
			if t := f.Value.Get("transport"); t != nil {
				s, _ := op.str(t, where+".transport")
				switch normTransport(s) {
				case mcpconn.TransportHTTP:
					a.Transport = "http"
				case mcpconn.TransportSSE:
					a.Transport = "sse"
				default:
					op.fail(t, where+".transport", fmt.Sprintf("transport %q: use http (streamable HTTP, the default) or sse", s))
				}
			}
			a.Headers = op.strMap(f.Value.Get("headers"), where+".headers")
		default:
			op.fail(f.Value, where, "an AMP entry is a URL or {url, transport, headers}")
			continue
		}
		if a.URL == "" {
			op.fail(f.Value, where+".url", "an AMP entry needs url:")
		}
		op.ov.AMP[f.Key] = a
	}
}

func (op *ovParser) strMap(n *Node, where string) map[string]string {
	if n.IsNull() {
		return nil
	}
	if !op.object(n, where) {
		return nil
	}
	m := map[string]string{}
	for _, f := range n.Fields {
		if s, ok := scalarString(f.Value); ok {
			m[f.Key] = s
		} else {
			op.fail(f.Value, where+"."+f.Key, "values must be strings")
		}
	}
	return m
}

var serverOverlayKeys = []string{
	"policy", "timeouts", "protocol_version", "inherit_env", "faults", "tool_filter", "cache_tools_list",
	// a server of its own
	"transport", "type", "command", "args", "env", "url", "headers",
}

func (op *ovParser) servers(v *Node) {
	if !op.object(v, "servers") {
		return
	}
	for _, f := range v.Fields {
		where := "servers." + f.Key
		if !op.object(f.Value, where) {
			continue
		}
		n := f.Value
		op.keys(n, where, serverOverlayKeys)
		so := &ServerOverlay{Name: f.Key, Pos: f.KeyPos, positions: Positions{}}
		n.walk("", so.positions)
		if p := n.Get("policy"); p != nil {
			s, _ := op.str(p, where+".policy")
			switch mcpconn.Policy(s) {
			case mcpconn.PolicyNative, mcpconn.PolicyHTTPSString, mcpconn.PolicyAdapter, mcpconn.PolicySession:
				so.Policy = mcpconn.Policy(s)
			default:
				e := op.fail(p, where+".policy", fmt.Sprintf("unknown policy %q", s))
				if sg := suggest.DidYouMean(s, []string{"native", "https-string", "adapter", "session"}); sg != "" {
					e.Hint = fmt.Sprintf("did you mean %q?", sg)
				} else {
					e.Hint = "expected one of: native, https-string, adapter, session"
				}
			}
		}
		if t := n.Get("timeouts"); t != nil && op.object(t, where+".timeouts") {
			op.keys(t, where+".timeouts", []string{"connect", "discovery", "call", "attempts", "backoff", "probe", "shutdown", "max_message_bytes", "max_tools"})
			dur := func(k string, dst *time.Duration) {
				if x := t.Get(k); x != nil {
					*dst = op.duration(x, where+".timeouts."+k)
				}
			}
			dur("connect", &so.Timeouts.Connect)
			dur("discovery", &so.Timeouts.Discovery)
			dur("call", &so.Timeouts.Call)
			dur("backoff", &so.Timeouts.Backoff)
			dur("probe", &so.Timeouts.Probe)
			dur("shutdown", &so.Timeouts.Shutdown)
			count := func(k string, set func(int)) {
				if x := t.Get(k); x != nil {
					if i, ok := laxInt(x); ok && i >= 1 && x.Kind == KindNumber {
						set(i)
					} else {
						op.fail(x, where+".timeouts."+k, k+" must be a whole number ≥ 1")
					}
				}
			}
			count("attempts", func(i int) { so.Timeouts.Attempts = i })
			count("max_message_bytes", func(i int) { so.Timeouts.MaxMessage = int64(i) })
			count("max_tools", func(i int) { so.Timeouts.MaxTools = i })
		}
		if p := n.Get("protocol_version"); p != nil {
			so.ProtocolVersion, _ = op.str(p, where+".protocol_version")
		}
		if b := n.Get("inherit_env"); b != nil {
			if b.Kind != KindBool {
				op.fail(b, where+".inherit_env", "inherit_env must be true or false")
			} else {
				so.InheritEnv = &b.Bool
			}
		}
		if b := n.Get("cache_tools_list"); b != nil {
			if b.Kind != KindBool {
				op.fail(b, where+".cache_tools_list", "cache_tools_list must be true or false")
			} else {
				so.CacheToolsList = &b.Bool
			}
		}
		if fl := n.Get("faults"); fl != nil {
			so.Faults = op.faults(fl, where+".faults")
		}
		if tf := n.Get("tool_filter"); tf != nil {
			so.Filter = op.filter(tf, where+".tool_filter")
		}
		if n.Has("command") || n.Has("url") {
			so.Define = op.define(n, where)
		} else {
			for _, k := range []string{"transport", "type", "args", "env", "headers"} {
				if fk := n.Field(k); fk != nil {
					op.fail(fk.Value, where+"."+k, k+" only applies to a server defined here (with command: or url:)")
				}
			}
		}
		op.ov.Servers = append(op.ov.Servers, so)
	}
}

func (op *ovParser) duration(n *Node, where string) time.Duration {
	if n.Kind == KindString {
		d, err := time.ParseDuration(n.Str)
		if err == nil && d >= 0 {
			return d
		}
	}
	op.fail(n, where, fmt.Sprintf("%s must be a Go duration such as 30s, 1500ms or 2m (got %s)", where, nodeText(n)))
	return 0
}

func nodeText(n *Node) string {
	if s, ok := scalarString(n); ok {
		return strconv.Quote(s)
	}
	return "a " + n.Kind.String()
}

var faultKinds = []string{string(mcpconn.FaultDelay), string(mcpconn.FaultHang), string(mcpconn.FaultJSONRPCError),
	string(mcpconn.FaultIsError), string(mcpconn.FaultDrop), string(mcpconn.FaultGarbage)}

func (op *ovParser) faults(n *Node, where string) []mcpconn.Fault {
	if n.Kind != KindArray {
		op.fail(n, where, "faults must be a list of {tool, kind, delay, times, message, code}")
		return nil
	}
	var out []mcpconn.Fault
	for i, it := range n.Items {
		w := indexPath(where, i)
		if !op.object(it, w) {
			continue
		}
		op.keys(it, w, []string{"tool", "kind", "delay", "times", "message", "code"})
		var f mcpconn.Fault
		before := len(op.l.errs)
		if t := it.Get("tool"); t != nil {
			f.Tool, _ = op.str(t, w+".tool")
		}
		k := it.Get("kind")
		if k == nil {
			op.fail(it, w+".kind", "a fault needs kind: one of "+strings.Join(faultKinds, ", "))
		} else {
			s, _ := op.str(k, w+".kind")
			if set(faultKinds...)[s] {
				f.Kind = mcpconn.FaultKind(s)
			} else {
				e := op.fail(k, w+".kind", fmt.Sprintf("unknown fault kind %q", s))
				if sg := suggest.DidYouMean(s, faultKinds); sg != "" {
					e.Hint = fmt.Sprintf("did you mean %q?", sg)
				} else {
					e.Hint = "expected one of: " + strings.Join(faultKinds, ", ")
				}
			}
		}
		if d := it.Get("delay"); d != nil {
			f.Delay = op.duration(d, w+".delay")
		}
		if t := it.Get("times"); t != nil {
			if i, ok := laxInt(t); ok && i >= 0 && t.Kind == KindNumber {
				f.Times = i
			} else {
				op.fail(t, w+".times", "times must be a whole number ≥ 0 (0 = every matching call)")
			}
		}
		if m := it.Get("message"); m != nil {
			f.Message, _ = op.str(m, w+".message")
		}
		if c := it.Get("code"); c != nil {
			if i, ok := laxInt(c); ok && c.Kind == KindNumber {
				f.Code = i
			} else {
				op.fail(c, w+".code", "code must be a JSON-RPC error code (an integer)")
			}
		}
		if f.Kind == mcpconn.FaultDelay && f.Delay == 0 {
			op.fail(it, w+".delay", "a delay fault needs delay: (e.g. 5s)")
		}
		if len(op.l.errs) == before {
			out = append(out, f)
		}
	}
	return out
}

func (op *ovParser) filter(n *Node, where string) *mcpconn.FilterSpec {
	if !op.object(n, where) {
		return nil
	}
	op.keys(n, where, []string{"type", "allowed_tool_names", "blocked_tool_names", "expr"})
	f := &mcpconn.FilterSpec{}
	list := func(k string) []string {
		v := n.Get(k)
		if v.IsNull() {
			return nil
		}
		if v.Kind != KindArray {
			op.fail(v, where+"."+k, k+" must be a list of strings")
			return nil
		}
		var out []string
		for _, it := range v.Items {
			if s, ok := scalarString(it); ok && it.Kind == KindString {
				out = append(out, s)
			} else {
				op.fail(it, where+"."+k, k+" must be a list of strings")
			}
		}
		return out
	}
	f.Allowed, f.Blocked = list("allowed_tool_names"), list("blocked_tool_names")
	if e := n.Get("expr"); e != nil {
		f.Expr, _ = op.str(e, where+".expr")
	}
	if t := n.Get("type"); t != nil {
		if s, _ := scalarString(t); s != "static" && s != "dynamic" {
			op.fail(t, where+".type", `type is "static" (lists) or "dynamic" (expr)`)
		}
	}
	return f
}

// define reads a server declared in the overlay (same fields as an
// mcpServers entry, plus transport).
func (op *ovParser) define(n *Node, where string) *mcpconn.ServerSpec {
	s := &mcpconn.ServerSpec{Ref: mcpconn.RefNative}
	t := ""
	if x := n.Get("transport"); x != nil {
		t, _ = op.str(x, where+".transport")
	} else if x := n.Get("type"); x != nil {
		t, _ = op.str(x, where+".type")
	}
	if n.Has("command") {
		s.Transport = mcpconn.TransportStdio
		s.Command, _ = op.str(n.Get("command"), where+".command")
		if a := n.Get("args"); !a.IsNull() {
			if a.Kind != KindArray {
				op.fail(a, where+".args", "args must be a list of strings")
			} else {
				for _, it := range a.Items {
					if v, ok := scalarString(it); ok {
						s.Args = append(s.Args, v)
					} else {
						op.fail(it, where+".args", "args must be a list of strings")
					}
				}
			}
		}
		s.Env = op.strMap(n.Get("env"), where+".env")
		if t != "" && normTransport(t) != mcpconn.TransportStdio {
			op.fail(n.Get("transport"), where+".transport", "a server with command: is stdio")
		}
	} else {
		s.URL, _ = op.str(n.Get("url"), where+".url")
		s.Headers = op.strMap(n.Get("headers"), where+".headers")
		s.Transport = mcpconn.TransportHTTP
		if t != "" {
			switch tt := normTransport(t); tt {
			case mcpconn.TransportHTTP, mcpconn.TransportSSE:
				s.Transport = tt
			default:
				op.fail(n, where+".transport", fmt.Sprintf("transport %q: use http or sse with url:", t))
			}
		}
	}
	return s
}

// applyOverlay runs after the project is loaded: LLM overrides, tool
// stand-ins, server what-ifs and servers of its own, input sets; then it
// reports overlay keys that matched nothing.
func (l *loader) applyOverlay() {
	ov := l.ov
	p := l.p
	// servers
	for _, so := range ov.Servers {
		s := p.Server(so.Name)
		if so.Define != nil {
			if s != nil {
				l.err(so.Pos, "servers."+so.Name, "", fmt.Sprintf("servers.%s defines a server, but the project already has a server named %q; pick another name or drop command:/url: to change that one", so.Name, so.Name))
				continue
			}
			spec := *so.Define
			s = l.addServer(&Server{Name: so.Name, Spec: spec, Pos: so.Pos, Source: ov.Path + " servers." + so.Name, Positions: recordedPositions(so.positions)}, "", true, nil)
		}
		if s == nil {
			e := l.err(so.Pos, "servers."+so.Name, "", fmt.Sprintf("servers.%s: the project has no server named %q (to declare one here, give command: or url:)", so.Name, so.Name))
			if sg := suggest.DidYouMean(so.Name, p.ServerNames()); sg != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", sg)
			} else if len(p.Servers) > 0 {
				e.Hint = "servers: " + strings.Join(p.ServerNames(), ", ")
			}
			continue
		}
		if so.Policy != "" {
			s.Spec.Policy = so.Policy
		}
		mergeTimeouts(&s.Spec.Timeouts, so.Timeouts)
		if so.ProtocolVersion != "" {
			s.Spec.ProtocolVersion = so.ProtocolVersion
		}
		if so.InheritEnv != nil {
			s.Spec.InheritEnv = *so.InheritEnv
			if *so.InheritEnv {
				l.note(so.Pos, Warn, "inherit-env", fmt.Sprintf("servers.%s.inherit_env: true is not CrewAI behaviour: CrewAI gives stdio servers only HOME, LOGNAME, PATH, SHELL, TERM, USER and their env", so.Name))
			}
		}
		if so.CacheToolsList != nil {
			s.Spec.CacheToolsList = *so.CacheToolsList
		}
		s.Spec.Faults = append(s.Spec.Faults, so.Faults...)
		if so.Filter != nil {
			s.Spec.Filter = *so.Filter
			for _, id := range s.Unresolved {
				if u := p.UnresolvedByID(id); u != nil && strings.HasSuffix(id, ".tool_filter") && !u.Resolved {
					u.Resolved, u.From, u.Value = true, "crewbench.yaml "+so.Pos.String(), *so.Filter
				}
			}
		}
	}
	// tool stand-ins
	matched := map[string]bool{}
	for _, t := range p.allToolRefs() {
		for _, key := range t.standInKeys() {
			if st := ov.Tools[key]; st != nil {
				t.StandIn = st
				matched[key] = true
				break
			}
		}
	}
	for _, key := range byPos(ov.toolPos) {
		st := ov.Tools[key]
		if !matched[key] {
			e := l.err(ov.toolPos[key], "tools."+key, "", fmt.Sprintf("tools.%s: no agent or task uses a tool %q", key, key))
			if sg := suggest.DidYouMean(key, p.toolRefNames()); sg != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", sg)
			}
		}
		if st.Server != "" {
			if p.Server(st.Server) == nil {
				e := l.err(st.Pos, "tools."+key+".mcp.server", "", fmt.Sprintf("tools.%s routes to server %q, which the project does not have", key, st.Server))
				if sg := suggest.DidYouMean(st.Server, p.ServerNames()); sg != "" {
					e.Hint = fmt.Sprintf("did you mean %q?", sg)
				}
			}
		}
	}
	// ConditionalTask conditions
	condPos := map[string]Pos{}
	for name, c := range ov.Conditions {
		condPos[name] = c.Pos
	}
	for _, name := range byPos(condPos) {
		t := p.Task(name)
		switch {
		case t == nil:
			e := l.err(condPos[name], "tasks."+name, "", fmt.Sprintf("tasks.%s: the project has no task %q", name, name))
			if sg := suggest.DidYouMean(name, p.taskNames()); sg != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", sg)
			}
		case t.Type != "conditional":
			l.err(condPos[name], "tasks."+name+".condition", "", fmt.Sprintf("tasks.%s.condition: task %s is not a ConditionalTask, so CrewAI has no condition to evaluate", name, name))
		default:
			t.ConditionDecl = ov.Conditions[name]
		}
	}
	// per-agent LLMs
	for _, name := range byPos(ov.agentPos) {
		if p.Agent(name) == nil {
			e := l.err(ov.agentPos[name], "agents."+name, "", fmt.Sprintf("agents.%s: the project has no agent %q", name, name))
			if sg := suggest.DidYouMean(name, p.AgentNames()); sg != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", sg)
			}
		}
	}
	// AMP slugs nobody uses
	ampPos := map[string]Pos{}
	for slug, a := range ov.AMP {
		ampPos[slug] = a.Pos
	}
	for _, slug := range byPos(ampPos) {
		a := ov.AMP[slug]
		if !ov.usedAMP[slug] {
			l.note(a.Pos, Warn, "overlay-unused", fmt.Sprintf("amp.%s: no agent refers to the slug %q", slug, slug))
		}
	}
	// values
	var ids []string
	for _, u := range p.Unresolved {
		ids = append(ids, u.ID)
	}
	keys := make([]string, 0, len(ov.Values))
	for k := range ov.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !l.usedValues[k] {
			e := l.err(ov.Values[k].Pos, "values."+k, "", fmt.Sprintf("values.%s: nothing in the project is waiting for %q", k, k))
			if sg := suggest.DidYouMean(k, ids); sg != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", sg)
			} else if len(ids) > 0 {
				e.Hint = "unresolved values: " + strings.Join(ids, ", ")
			} else {
				e.Hint = "the project has no unresolved values"
			}
		}
	}
}

// byPos returns the keys of m in the order they were written.
func byPos(m map[string]Pos) []string {
	keys := slices.Sorted(maps.Keys(m))
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := m[keys[i]], m[keys[j]]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return keys
}

func mergeTimeouts(dst *mcpconn.Timeouts, src mcpconn.Timeouts) {
	if src.Connect != 0 {
		dst.Connect = src.Connect
	}
	if src.Discovery != 0 {
		dst.Discovery = src.Discovery
	}
	if src.Call != 0 {
		dst.Call = src.Call
	}
	if src.Attempts != 0 {
		dst.Attempts = src.Attempts
	}
	if src.Backoff != 0 {
		dst.Backoff = src.Backoff
	}
	if src.Probe != 0 {
		dst.Probe = src.Probe
	}
	if src.Shutdown != 0 {
		dst.Shutdown = src.Shutdown
	}
	if src.MaxMessage != 0 {
		dst.MaxMessage = src.MaxMessage
	}
	if src.MaxTools != 0 {
		dst.MaxTools = src.MaxTools
	}
}

// standInKeys are the overlay tools: keys that match this ref: the ref as
// written, then (for crewai_tools names) each class CrewAI would try.
func (t *ToolRef) standInKeys() []string {
	keys := []string{t.Ref}
	switch t.Kind {
	case ToolCrewAITools:
		keys = append(keys, toolClassCandidates(t.Ref)...)
	case ToolPython, ToolModule, ToolSerialized:
		if t.Class != "" {
			keys = append(keys, t.Class)
		}
	}
	return keys
}

// allToolRefs returns pointers to every ToolRef of every agent and task.
func (p *Project) allToolRefs() []*ToolRef {
	var out []*ToolRef
	for _, a := range p.Agents {
		for i := range a.Tools {
			out = append(out, &a.Tools[i])
		}
	}
	for _, t := range p.Tasks {
		for i := range t.Tools {
			out = append(out, &t.Tools[i])
		}
	}
	return out
}

func (p *Project) toolRefNames() []string {
	var out []string
	for _, t := range p.allToolRefs() {
		out = append(out, t.standInKeys()...)
	}
	return out
}

// Agent returns the agent named name, or nil.
func (p *Project) Agent(name string) *Agent {
	for _, a := range p.Agents {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// AgentNames lists the loaded agents' names.
func (p *Project) AgentNames() []string {
	out := make([]string, len(p.Agents))
	for i, a := range p.Agents {
		out[i] = a.Name
	}
	return out
}

// Task returns the task named name, or nil.
func (p *Project) Task(name string) *Task {
	for _, t := range p.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (p *Project) taskNames() []string {
	out := make([]string, 0, len(p.Tasks))
	for _, t := range p.Tasks {
		out = append(out, t.Name)
	}
	return out
}
