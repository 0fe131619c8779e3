package session

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Comparing two sessions (`crewbench diff A B`, the rerun report, the TUI).
//
// Diff answers "what did this change do to the run?": which tools each
// agent was offered (by their LLM-visible names), which tool calls each
// task made and how they ended, which failures appeared or went away, which
// scopes got notably slower or faster, how the outputs changed, and the
// token totals. Runs are matched by meaning, not by ids (every run has
// fresh span ids): agents by role, tasks by name, tools by their original
// MCP name and server, and calls are counted, so parallel tool calls that
// finish in another order do not count as a change.
//
// Timing is reported but never makes two sessions different: two runs are
// never equally fast, and a diff that always says "different" is useless in
// a script. Everything else does.

// DiffOptions tune Diff. The zero value uses the defaults.
type DiffOptions struct {
	// TimingMin and TimingRatio are the noise threshold for timing changes:
	// a duration is reported when it moved by at least TimingMin and by at
	// least TimingRatio of A's duration (defaults 250ms and 0.5).
	TimingMin   time.Duration
	TimingRatio float64
	// Context is the number of context lines in output diffs (default 3).
	Context int
	// Redactor hides secrets in everything the diff quotes (errors,
	// outputs, names); nil means RedactorFor(a, b): the standard rules plus
	// the values the sessions hold under credential-looking names.
	Redactor *Redactor
	// BLive says B is a run still going: its open scopes stay running.
	// Otherwise both sides are finished sessions, and a scope without an
	// end of its own is unfinished (Tree.Finish).
	BLive bool
}

// Default noise thresholds for timing changes.
const (
	DefaultTimingMin   = 250 * time.Millisecond
	DefaultTimingRatio = 0.5
)

// SessionDiff is the difference between session A and session B. Its JSON
// form is stable for scripts: every list is present (possibly empty), and
// counts are per side under "a" and "b".
type SessionDiff struct {
	A DiffSide `json:"a"`
	B DiffSide `json:"b"`
	// Identical is true when nothing but timing differs.
	Identical bool `json:"identical"`
	// Agents lists agents whose tools changed (or that ran on one side only).
	Agents []AgentToolsDiff `json:"agents"`
	// Tasks lists tasks whose status or tool calls changed.
	Tasks    []TaskDiff      `json:"tasks"`
	Failures []FailureChange `json:"failures"`
	Timing   TimingDiff      `json:"timing"`
	Outputs  []OutputDiff    `json:"outputs"`
	Tokens   TokensDiff      `json:"tokens"`
}

// DiffSide summarizes one session.
type DiffSide struct {
	Label        string  `json:"label"`
	RunID        string  `json:"run_id"`
	Crew         string  `json:"crew"`
	Status       string  `json:"status"`
	DurationMS   float64 `json:"duration_ms"`
	Events       int     `json:"events"`
	Tasks        int     `json:"tasks"`
	LLMCalls     int     `json:"llm_calls"`
	ToolCalls    int     `json:"tool_calls"`
	ToolFailures int     `json:"tool_failures"`
	Failures     int     `json:"failures"`
}

// DiffTool names a tool: its LLM-visible name, and the MCP tool and server
// it calls (empty for tools that are not MCP tools).
type DiffTool struct {
	Name     string `json:"llm_name"`
	Original string `json:"original_name"`
	Server   string `json:"server"`
}

// Label renders the tool as crewbench shows tools everywhere.
func (t DiffTool) Label() string { return ToolLabel(t.Name, t.Original, t.Server) }

// ToolRename is an MCP tool the LLM sees under another name.
type ToolRename struct {
	Original string `json:"original_name"`
	Server   string `json:"server"`
	From     string `json:"from"`
	To       string `json:"to"`
}

// AgentToolsDiff is the change in the tools one agent was offered.
type AgentToolsDiff struct {
	Agent string `json:"agent"`
	// Only is "a" or "b" when the agent ran in one session only, else "".
	Only    string       `json:"only"`
	Added   []DiffTool   `json:"added"`
	Removed []DiffTool   `json:"removed"`
	Renamed []ToolRename `json:"renamed"`
}

// TaskDiff is the change in one task (matched by name).
type TaskDiff struct {
	Task  string `json:"task"`
	Agent string `json:"agent"`
	// StatusA and StatusB are "ok", "failed", "cancelled", "unfinished"
	// (no end of its own in a finished session), "running" (B still live),
	// or "absent" when the task did not run on that side.
	StatusA string `json:"status_a"`
	StatusB string `json:"status_b"`
	// Calls are the (tool, outcome) pairs whose counts differ.
	Calls []CallCount `json:"calls"`
	// NewFailures are failed outcomes that happen more often in B.
	NewFailures []CallCount `json:"new_failures"`
}

// CallCount counts the calls of one tool that ended with one outcome.
// Outcome is "ok", "cache_hit", an MCP outcome class ("timeout",
// "is_error", …), "failed", or "unfinished" (no end of its own; not a
// failure).
type CallCount struct {
	DiffTool
	Outcome string `json:"outcome"`
	A       int    `json:"a"`
	B       int    `json:"b"`
	// Error is an example error text (B's when B has more, else A's).
	Error string `json:"error"`
}

// FailureChange is a kind of failure whose count changed.
type FailureChange struct {
	// Scope is "crew", "task", "agent", "llm", "tool", "mcp_attempt",
	// "connection", or the event type of a failure reported outside any
	// tool call (e.g. "tool_selection_error").
	Scope   string `json:"scope"`
	Task    string `json:"task"`
	Name    string `json:"name"`
	Outcome string `json:"outcome"`
	A       int    `json:"a"`
	B       int    `json:"b"`
	Error   string `json:"error"`
}

// Text describes the change after its sign: scope, name, outcome, task,
// counts and the error.
func (f FailureChange) Text() string {
	s := strings.ReplaceAll(f.Scope, "_", " ") + " " + f.Name
	if f.Outcome != "" {
		s += " " + f.Outcome
	}
	if f.Task != "" {
		s += " (task " + f.Task + ")"
	}
	s += fmt.Sprintf(" ×%d → ×%d", f.A, f.B)
	if f.Error != "" {
		s += ": " + f.Error
	}
	return s
}

// TimingDiff lists durations that moved past the noise threshold.
type TimingDiff struct {
	MinMS   float64        `json:"threshold_ms"`
	Ratio   float64        `json:"threshold_ratio"`
	Changes []TimingChange `json:"changes"`
}

// TimingChange is one duration on both sides. For tools it is the mean
// duration of a call, with the number of calls.
type TimingChange struct {
	Scope  string  `json:"scope"` // "crew", "task", "tool"
	Name   string  `json:"name"`
	AMS    float64 `json:"a_ms"`
	BMS    float64 `json:"b_ms"`
	CallsA int     `json:"calls_a,omitempty"`
	CallsB int     `json:"calls_b,omitempty"`
}

// OutputDiff is a changed output.
type OutputDiff struct {
	Scope string `json:"scope"` // "task" or "crew"
	Name  string `json:"name"`
	// Unified is the line diff of the raw outputs, as `diff -u` prints it.
	Unified string `json:"unified"`
}

// TokensDiff compares token usage.
type TokensDiff struct {
	A       Usage `json:"a"`
	B       Usage `json:"b"`
	Changed bool  `json:"changed"`
}

// Diff compares two sessions' events. Both are redacted before anything is
// read, so a diff never quotes a secret a session let through.
func Diff(a, b []Event, opts DiffOptions) *SessionDiff {
	if opts.TimingMin <= 0 {
		opts.TimingMin = DefaultTimingMin
	}
	if opts.TimingRatio <= 0 {
		opts.TimingRatio = DefaultTimingRatio
	}
	if opts.Context <= 0 {
		opts.Context = 3
	}
	red := opts.Redactor
	if red == nil {
		red = RedactorFor(a, b)
	}
	sa, sb := digest(a, red, true), digest(b, red, !opts.BLive)
	d := &SessionDiff{
		A: sa.side, B: sb.side,
		Agents: []AgentToolsDiff{}, Tasks: []TaskDiff{}, Failures: []FailureChange{}, Outputs: []OutputDiff{},
		Timing: TimingDiff{MinMS: ms(opts.TimingMin), Ratio: opts.TimingRatio, Changes: []TimingChange{}},
		Tokens: TokensDiff{A: sa.usage, B: sb.usage, Changed: sa.usage != sb.usage},
	}
	d.Agents = diffAgents(sa, sb)
	d.Tasks = diffTasks(sa, sb)
	d.Failures = diffFailures(sa, sb)
	d.Timing.Changes = diffTiming(sa, sb, opts)
	d.Outputs = diffOutputs(sa, sb, opts.Context)
	d.Identical = len(d.Agents) == 0 && len(d.Tasks) == 0 && len(d.Failures) == 0 &&
		len(d.Outputs) == 0 && !d.Tokens.Changed && sa.side.Status == sb.side.Status
	return d
}

// --- digest: what one session says, keyed for matching ---------------------

type agentTools struct {
	role  string
	tools map[string]DiffTool // by toolKey
}

type callStat struct {
	tool  DiffTool
	count map[string]int    // outcome -> calls
	err   map[string]string // outcome -> first error
	total time.Duration
	n     int
}

type taskDigest struct {
	name, agent string
	status      string
	duration    time.Duration
	calls       map[string]*callStat // by toolKey
	output      string
	hasOutput   bool
	order       int
}

type failureKey struct{ scope, task, name, outcome string }

type sessionDigest struct {
	side     DiffSide
	usage    Usage
	agents   map[string]*agentTools
	tasks    map[string]*taskDigest
	failures map[failureKey]int
	failErr  map[failureKey]string
	tools    map[string]*callStat // every call of the session, by toolKey
	byNode   map[*Node]*taskDigest
	crewDur  time.Duration
	crewOut  string
	hasCrew  bool
}

// toolKey identifies a tool across runs: the MCP tool and its server when
// known (so a renamed tool is the same tool), else the LLM name.
func toolKey(t DiffTool) string {
	if t.Original != "" && t.Server != "" {
		return "mcp\x00" + t.Server + "\x00" + t.Original
	}
	return "name\x00" + t.Name
}

func digest(events []Event, red *Redactor, finished bool) *sessionDigest {
	evs := make([]Event, len(events))
	for i, ev := range events {
		evs[i] = red.RedactEvent(ev)
	}
	t := BuildTree(evs)
	if finished {
		t.Finish()
	}
	s := t.Summary()
	d := &sessionDigest{
		usage: s.Usage, agents: map[string]*agentTools{}, tasks: map[string]*taskDigest{},
		failures: map[failureKey]int{}, failErr: map[failureKey]string{}, tools: map[string]*callStat{},
		byNode: map[*Node]*taskDigest{},
	}
	d.side = DiffSide{Status: s.Status.String(), DurationMS: ms(s.Duration), Events: s.Events, Tasks: s.Tasks,
		LLMCalls: s.LLMCalls, ToolCalls: s.ToolCalls, ToolFailures: s.ToolFailures, Failures: s.Failures}
	if s.Events == 0 {
		d.side.Status = "empty"
	}
	// Agents' tools come from agent_execution_started; sessions without
	// that list fall back to the tool definitions sent with LLM calls.
	offered := map[string]bool{}
	for _, ev := range evs {
		if ev.Kind == AgentExecutionStarted {
			role := firstNonEmpty(ev.AgentRole, ev.Str("agent"))
			if list, ok := ev.Data[KeyTools]; ok {
				offered[role] = true
				d.addAgentTools(role, toolsFromAgentData(list))
			} else {
				d.agentEntry(role)
			}
		}
	}
	for _, ev := range evs {
		if ev.Kind == LLMCallStarted {
			role := ev.AgentRole
			if !offered[role] {
				d.addAgentTools(role, toolsFromLLMData(ev.Data[KeyTools]))
			}
		}
	}
	order := 0
	for _, n := range t.Nodes() {
		switch n.Kind {
		case NodeCrew:
			if n.Parent == t.Root {
				d.hasCrew = true
				d.crewDur += n.Duration
				if d.side.Crew == "" {
					d.side.Crew = crewName(n)
				}
				if d.side.RunID == "" {
					d.side.RunID = n.RunID
				}
				for _, ev := range n.Events {
					if ev.Kind == CrewKickoffCompleted {
						if raw, ok := rawOutput(ev.Data[KeyOutput]); ok {
							d.crewOut = raw
						}
					}
				}
			}
		case NodeTask:
			td := d.task(n, &order)
			td.status = n.Status.String()
			td.duration += n.Duration
			for _, ev := range n.Events {
				if ev.Kind == TaskCompleted {
					if raw, ok := rawOutput(ev.Data[KeyOutput]); ok {
						td.output, td.hasOutput = raw, true
					}
				}
			}
		case NodeTool:
			d.call(n, &order)
		case NodeMCPCall:
			if !insideTool(n) {
				d.call(n, &order)
			}
		}
		d.failure(n)
	}
	d.failure(t.Root) // failures reported outside any scope
	if d.side.RunID == "" {
		for _, ev := range evs {
			if ev.RunID != "" {
				d.side.RunID = ev.RunID
				break
			}
		}
	}
	return d
}

func (d *sessionDigest) agentEntry(role string) *agentTools {
	a := d.agents[role]
	if a == nil {
		a = &agentTools{role: role, tools: map[string]DiffTool{}}
		d.agents[role] = a
	}
	return a
}

func (d *sessionDigest) addAgentTools(role string, tools []DiffTool) {
	a := d.agentEntry(role)
	for _, tl := range tools {
		if tl.Name == "" && tl.Original == "" {
			continue
		}
		a.tools[toolKey(tl)] = tl
	}
}

// task returns the digest of the task node n, creating it. Tasks are
// matched by name; a name that runs twice gets "#2".
func (d *sessionDigest) task(n *Node, order *int) *taskDigest {
	if td := d.byNode[n]; td != nil {
		return td
	}
	name := taskNameOf(n)
	key := name
	for i := 2; d.tasks[key] != nil; i++ {
		key = name + " #" + strconv.Itoa(i)
	}
	*order++
	td := &taskDigest{name: key, agent: n.AgentRole, calls: map[string]*callStat{}, status: "absent", order: *order}
	d.tasks[key] = td
	d.byNode[n] = td
	return td
}

func taskNameOf(n *Node) string {
	if n.TaskName != "" {
		return n.TaskName
	}
	for _, ev := range n.Events {
		if m, ok := ev.Data["task"].(map[string]any); ok {
			if s, _ := m["name"].(string); s != "" {
				return s
			}
			if s, _ := m["description"].(string); s != "" {
				return s
			}
		}
	}
	if n.TaskID != "" {
		return n.TaskID
	}
	return "(unnamed task)"
}

// enclosingTask finds the task node above n.
func enclosingTask(n *Node) *Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Kind == NodeTask {
			return p
		}
	}
	return nil
}

func (d *sessionDigest) call(n *Node, order *int) {
	tool := DiffTool{Name: firstNonEmpty(n.ToolName, n.OriginalToolName), Original: n.OriginalToolName, Server: n.Server}
	if tool.Original == tool.Name && tool.Server == "" {
		tool.Original = ""
	}
	outcome, errText := callOutcome(n)
	var calls map[string]*callStat
	if tn := enclosingTask(n); tn != nil {
		calls = d.task(tn, order).calls
	} else {
		td := d.tasks[outsideTasks]
		if td == nil {
			*order++
			td = &taskDigest{name: outsideTasks, calls: map[string]*callStat{}, status: "absent", order: *order}
			d.tasks[outsideTasks] = td
		}
		calls = td.calls
	}
	key := toolKey(tool)
	for _, m := range []map[string]*callStat{calls, d.tools} {
		cs := m[key]
		if cs == nil {
			cs = &callStat{tool: tool, count: map[string]int{}, err: map[string]string{}}
			m[key] = cs
		}
		cs.count[outcome]++
		if _, ok := cs.err[outcome]; !ok && errText != "" {
			cs.err[outcome] = errText
		}
		cs.total += n.Duration
		cs.n++
	}
}

// outsideTasks groups calls made outside any task (`crewbench call`).
const outsideTasks = "(outside tasks)"

// callOutcome classifies how a tool call ended: ok, cache_hit, the MCP
// outcome class of the call it made, or failed.
func callOutcome(n *Node) (string, string) {
	switch n.Status {
	case StatusOK:
		if n.CacheHit {
			return "cache_hit", ""
		}
		return OutcomeOK, ""
	case StatusRunning:
		return "running", ""
	case StatusUnfinished:
		return "unfinished", ""
	case StatusCancelled:
		return OutcomeCancelled, clipText(n.Error)
	}
	outcome := ""
	if n.Kind == NodeMCPCall && n.Outcome != "" && n.Outcome != OutcomeOK {
		outcome = n.Outcome
	}
	for _, c := range n.Children {
		if c.Kind == NodeMCPCall && c.Outcome != "" && c.Outcome != OutcomeOK {
			outcome = c.Outcome
		}
	}
	switch {
	case outcome != "":
	case n.GuardTripped:
		outcome = "guard"
	case n.UsageLimit:
		outcome = "usage_limit"
	default:
		outcome = "failed"
	}
	return outcome, clipText(firstNonEmpty(n.Error, failureText(n)))
}

// failureText finds the message of a failure reported inside a scope.
func failureText(n *Node) string {
	for _, ev := range n.Events {
		if ev.IsFailure() && ev.Error != "" {
			return ev.Error
		}
	}
	return ""
}

func (d *sessionDigest) failure(n *Node) {
	task := ""
	if tn := enclosingTask(n); tn != nil {
		task = taskNameOf(tn)
	}
	add := func(scope, name, outcome, errText string) {
		k := failureKey{scope, task, name, outcome}
		d.failures[k]++
		if _, ok := d.failErr[k]; !ok {
			d.failErr[k] = clipText(errText)
		}
	}
	failed := n.Status == StatusFailed || n.Status == StatusCancelled
	if failed {
		switch n.Kind {
		case NodeCrew:
			add("crew", firstNonEmpty(crewName(n), "crew"), n.Status.String(), n.Error)
		case NodeTask:
			task = ""
			add("task", taskNameOf(n), n.Status.String(), n.Error)
		case NodeAgent:
			add("agent", n.AgentRole, n.Status.String(), n.Error)
		case NodeLLM:
			add("llm", firstNonEmpty(n.Model, "llm call"), firstNonEmpty(n.ErrorType, n.Outcome, n.Status.String()), n.Error)
		case NodeTool:
			oc, e := callOutcome(n)
			add("tool", ToolLabel(n.ToolName, n.OriginalToolName, n.Server), oc, e)
		case NodeMCPCall:
			if !insideTool(n) {
				oc, e := callOutcome(n)
				add("tool", ToolLabel(n.ToolName, n.OriginalToolName, n.Server), oc, e)
			}
		case NodeAttempt:
			add("mcp_attempt", mcpName(n), firstNonEmpty(n.Outcome, n.Status.String()), n.Error)
		case NodeConnection:
			add("connection", firstNonEmpty(n.Server, "connect"), firstNonEmpty(n.Outcome, n.Status.String()), n.Error)
		}
	}
	// Failures reported as point events outside a tool call (a ReAct
	// action naming no tool, a config fetch) have no scope of their own.
	if n.Kind != NodeTool && n.Kind != NodeMCPCall {
		for _, ev := range n.Events {
			if !ev.Kind.IsStart() && !ev.Kind.IsEnd() && ev.IsFailure() {
				add(string(ev.Kind), firstNonEmpty(ev.ToolName, ev.Server), "", firstNonEmpty(ev.Error, ev.Str(KeyMessage)))
			}
		}
	}
}

func mcpName(n *Node) string {
	name := firstNonEmpty(n.OriginalToolName, n.ToolName)
	if name == "" && n.Parent != nil {
		name = firstNonEmpty(n.Parent.OriginalToolName, n.Parent.ToolName)
	}
	server := n.Server
	if server == "" && n.Parent != nil {
		server = n.Parent.Server
	}
	if server != "" {
		return name + " @ " + server
	}
	return name
}

// --- tools lists ------------------------------------------------------------

// toolsFromAgentData reads agent_execution_started's "tools": objects with
// name / llm_name / native_name (the name actually sent when names
// collide), original_name and server; plain strings are LLM names.
func toolsFromAgentData(v any) []DiffTool {
	var out []DiffTool
	if names, ok := v.([]any); ok {
		for _, n := range names {
			if s, ok := n.(string); ok && s != "" {
				out = append(out, DiffTool{Name: s})
			}
		}
	}
	if names, ok := v.([]string); ok {
		for _, s := range names {
			if s != "" {
				out = append(out, DiffTool{Name: s})
			}
		}
		return out
	}
	for _, m := range objects(v) {
		t := DiffTool{
			Name:     firstNonEmpty(str(m["native_name"]), str(m["llm_name"]), str(m["name"])),
			Original: str(m["original_name"]),
			Server:   str(m["server"]),
		}
		out = append(out, t)
	}
	return out
}

// toolsFromLLMData reads llm_call_started's "tools": function schemas.
func toolsFromLLMData(v any) []DiffTool {
	var out []DiffTool
	for _, m := range objects(v) {
		name := str(m["name"])
		if fn, ok := m["function"].(map[string]any); ok {
			name = firstNonEmpty(str(fn["name"]), name)
		}
		if name != "" {
			out = append(out, DiffTool{Name: name})
		}
	}
	return out
}

// objects returns a list of JSON objects whatever Go type holds it (a
// decoded file gives []any; a live engine event may hold typed slices).
func objects(v any) []map[string]any {
	switch x := v.(type) {
	case nil:
		return nil
	case []map[string]any:
		return x
	case []any:
		var out []map[string]any
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out []map[string]any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// rawOutput reads an output field: a task output object's "raw", or text.
func rawOutput(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case map[string]any:
		if s, ok := x["raw"].(string); ok {
			return s, true
		}
		return "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) == nil {
		return rawOutput(m)
	}
	return "", false
}

// --- comparisons ------------------------------------------------------------

func diffAgents(a, b *sessionDigest) []AgentToolsDiff {
	out := []AgentToolsDiff{}
	for _, role := range unionKeys(a.agents, b.agents) {
		aa, ab := a.agents[role], b.agents[role]
		ad := AgentToolsDiff{Agent: role, Added: []DiffTool{}, Removed: []DiffTool{}, Renamed: []ToolRename{}}
		switch {
		case aa == nil:
			ad.Only = "b"
			aa = &agentTools{tools: map[string]DiffTool{}}
		case ab == nil:
			ad.Only = "a"
			ab = &agentTools{tools: map[string]DiffTool{}}
		}
		for _, k := range unionKeys(aa.tools, ab.tools) {
			ta, inA := aa.tools[k]
			tb, inB := ab.tools[k]
			switch {
			case inA && !inB:
				ad.Removed = append(ad.Removed, ta)
			case inB && !inA:
				ad.Added = append(ad.Added, tb)
			case ta.Name != tb.Name:
				ad.Renamed = append(ad.Renamed, ToolRename{Original: ta.Original, Server: ta.Server, From: ta.Name, To: tb.Name})
			}
		}
		sortTools(ad.Added)
		sortTools(ad.Removed)
		if ad.Only != "" || len(ad.Added)+len(ad.Removed)+len(ad.Renamed) > 0 {
			out = append(out, ad)
		}
	}
	return out
}

func sortTools(ts []DiffTool) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Name != ts[j].Name {
			return ts[i].Name < ts[j].Name
		}
		return ts[i].Server+ts[i].Original < ts[j].Server+ts[j].Original
	})
}

func diffTasks(a, b *sessionDigest) []TaskDiff {
	out := []TaskDiff{}
	for _, name := range taskOrder(a, b) {
		ta, tb := a.tasks[name], b.tasks[name]
		empty := &taskDigest{status: "absent", calls: map[string]*callStat{}}
		if ta == nil {
			ta = empty
		}
		if tb == nil {
			tb = empty
		}
		td := TaskDiff{Task: name, Agent: firstNonEmpty(tb.agent, ta.agent), StatusA: ta.status, StatusB: tb.status,
			Calls: []CallCount{}, NewFailures: []CallCount{}}
		if name == outsideTasks {
			td.StatusA, td.StatusB = "", ""
		}
		for _, k := range unionKeys(ta.calls, tb.calls) {
			ca, cb := ta.calls[k], tb.calls[k]
			tool := pick(ca, cb).tool
			if cb != nil {
				tool = cb.tool
			}
			for _, oc := range unionKeys(countsOf(ca), countsOf(cb)) {
				na, nb := countsOf(ca)[oc], countsOf(cb)[oc]
				if na == nb {
					continue
				}
				cc := CallCount{DiffTool: tool, Outcome: oc, A: na, B: nb}
				if nb > na && cb != nil {
					cc.Error = cb.err[oc]
				} else if ca != nil {
					cc.Error = ca.err[oc]
				}
				td.Calls = append(td.Calls, cc)
				if nb > na && FailedOutcome(oc) {
					td.NewFailures = append(td.NewFailures, cc)
				}
			}
		}
		if td.StatusA != td.StatusB || len(td.Calls) > 0 {
			out = append(out, td)
		}
	}
	return out
}

// FailedOutcome reports whether a CallCount outcome is a failure: anything
// but a success, a cache hit or a call without an end (still running, or
// unfinished). The workbench's diff view reads outcomes the same way.
func FailedOutcome(oc string) bool {
	switch oc {
	case OutcomeOK, "cache_hit", "running", "unfinished":
		return false
	}
	return true
}

func countsOf(cs *callStat) map[string]int {
	if cs == nil {
		return map[string]int{}
	}
	return cs.count
}

func pick(a, b *callStat) *callStat {
	if a != nil {
		return a
	}
	return b
}

// taskOrder lists task names in the order they ran in A, then B's new ones.
func taskOrder(a, b *sessionDigest) []string {
	byOrder := func(d *sessionDigest) []string {
		names := make([]string, 0, len(d.tasks))
		for n := range d.tasks {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return d.tasks[names[i]].order < d.tasks[names[j]].order })
		return names
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range []*sessionDigest{a, b} {
		for _, n := range byOrder(d) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func diffFailures(a, b *sessionDigest) []FailureChange {
	keys := map[failureKey]bool{}
	for k := range a.failures {
		keys[k] = true
	}
	for k := range b.failures {
		keys[k] = true
	}
	out := []FailureChange{}
	for k := range keys {
		na, nb := a.failures[k], b.failures[k]
		if na == nb {
			continue
		}
		fc := FailureChange{Scope: k.scope, Task: k.task, Name: k.name, Outcome: k.outcome, A: na, B: nb}
		if nb > na {
			fc.Error = b.failErr[k]
		} else {
			fc.Error = a.failErr[k]
		}
		out = append(out, fc)
	}
	rank := map[string]int{"crew": 0, "task": 1, "agent": 2, "llm": 3, "tool": 4, "mcp_attempt": 5, "connection": 6}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		rx, okx := rank[x.Scope]
		ry, oky := rank[y.Scope]
		if !okx {
			rx = 7
		}
		if !oky {
			ry = 7
		}
		if rx != ry {
			return rx < ry
		}
		if x.Scope != y.Scope {
			return x.Scope < y.Scope
		}
		if x.Task != y.Task {
			return x.Task < y.Task
		}
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.Outcome < y.Outcome
	})
	return out
}

func diffTiming(a, b *sessionDigest, opts DiffOptions) []TimingChange {
	out := []TimingChange{}
	notable := func(da, db time.Duration) bool {
		delta := db - da
		if delta < 0 {
			delta = -delta
		}
		if delta < opts.TimingMin {
			return false
		}
		if da <= 0 {
			return true
		}
		return float64(delta)/float64(da) >= opts.TimingRatio
	}
	if a.hasCrew && b.hasCrew && notable(a.crewDur, b.crewDur) {
		out = append(out, TimingChange{Scope: "crew", Name: firstNonEmpty(b.side.Crew, a.side.Crew, "crew"), AMS: ms(a.crewDur), BMS: ms(b.crewDur)})
	}
	for _, name := range taskOrder(a, b) {
		ta, tb := a.tasks[name], b.tasks[name]
		if ta == nil || tb == nil || name == outsideTasks || ta.status == "absent" || tb.status == "absent" {
			continue
		}
		if notable(ta.duration, tb.duration) {
			out = append(out, TimingChange{Scope: "task", Name: name, AMS: ms(ta.duration), BMS: ms(tb.duration)})
		}
	}
	var tools []TimingChange
	for _, k := range unionKeys(a.tools, b.tools) {
		ca, cb := a.tools[k], b.tools[k]
		if ca == nil || cb == nil || ca.n == 0 || cb.n == 0 {
			continue
		}
		ma, mb := ca.total/time.Duration(ca.n), cb.total/time.Duration(cb.n)
		if notable(ma, mb) {
			tools = append(tools, TimingChange{Scope: "tool", Name: cb.tool.Label(), AMS: ms(ma), BMS: ms(mb), CallsA: ca.n, CallsB: cb.n})
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return append(out, tools...)
}

func diffOutputs(a, b *sessionDigest, context int) []OutputDiff {
	out := []OutputDiff{}
	type pair struct{ a, b string }
	seen := map[pair]bool{}
	for _, name := range taskOrder(a, b) {
		ta, tb := a.tasks[name], b.tasks[name]
		var oa, ob string
		var ha, hb bool
		if ta != nil {
			oa, ha = ta.output, ta.hasOutput
		}
		if tb != nil {
			ob, hb = tb.output, tb.hasOutput
		}
		if (!ha && !hb) || oa == ob && ha == hb {
			continue
		}
		seen[pair{oa, ob}] = true
		out = append(out, OutputDiff{Scope: "task", Name: name, Unified: outputDiff(oa, ob, ha, hb, context)})
	}
	// The crew's output is usually its last task's: only say it again when
	// it is not.
	if (a.hasCrew || b.hasCrew) && a.crewOut != b.crewOut && !seen[pair{a.crewOut, b.crewOut}] {
		name := firstNonEmpty(b.side.Crew, a.side.Crew, "crew")
		out = append(out, OutputDiff{Scope: "crew", Name: name, Unified: outputDiff(a.crewOut, b.crewOut, true, true, context)})
	}
	return out
}

func outputDiff(a, b string, ha, hb bool, context int) string {
	nameA, nameB := "a", "b"
	if !ha {
		nameA = "a (no output)"
	}
	if !hb {
		nameB = "b (no output)"
	}
	if a == b {
		return fmt.Sprintf("--- %s\n+++ %s\n", nameA, nameB)
	}
	// Answers rarely end with a newline; saying so on every diff is noise.
	if !strings.HasSuffix(a, "\n") && !strings.HasSuffix(b, "\n") {
		if a != "" {
			a += "\n"
		}
		if b != "" {
			b += "\n"
		}
	}
	return UnifiedDiff(a, b, nameA, nameB, context)
}

// --- helpers ----------------------------------------------------------------

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

func clipText(s string) string {
	s = markLineBreaks(strings.TrimSpace(s))
	const max = 200
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// --- text rendering ---------------------------------------------------------

// DiffTextOptions configure WriteText.
type DiffTextOptions struct {
	// Color turns on ANSI colours (NO_COLOR is the caller's business).
	Color bool
}

// WriteText prints the diff for people: one section per kind of change,
// "+" for what B has and A had not, "-" for the reverse, "~" for a change.
func (d *SessionDiff) WriteText(w io.Writer, opts DiffTextOptions) error {
	p := &diffPrinter{w: w, color: opts.Color}
	p.line(ansiBold, "%s → %s", d.A.Label, d.B.Label)
	p.line("", "  %s", sideLine(d.A, d.B))
	if d.Identical {
		if len(d.Timing.Changes) == 0 {
			p.line(ansiGreen, "no differences")
		} else {
			p.line(ansiGreen, "no differences except timing")
		}
	}
	if len(d.Agents) > 0 {
		p.section("tools offered")
		for _, a := range d.Agents {
			head := "  agent " + a.Agent
			switch a.Only {
			case "a":
				head += " (only in A)"
			case "b":
				head += " (only in B)"
			}
			p.line("", "%s", head)
			for _, t := range a.Removed {
				p.line(ansiRed, "    - %s", t.Label())
			}
			for _, t := range a.Added {
				p.line(ansiGreen, "    + %s", t.Label())
			}
			for _, r := range a.Renamed {
				p.line(ansiYellow, "    ~ %s → %s (%s)", r.From, r.To, ToolLabel("", r.Original, r.Server))
			}
		}
	}
	if len(d.Tasks) > 0 {
		p.section("tool calls")
		for _, t := range d.Tasks {
			head := "  task " + t.Task
			if t.Task == outsideTasks {
				head = "  " + outsideTasks
			}
			if t.StatusA != t.StatusB {
				head += " · " + t.StatusA + " → " + t.StatusB
			}
			color := ""
			if t.StatusB == StatusFailed.String() && t.StatusA != t.StatusB {
				color = ansiRed
			}
			p.line(color, "%s", head)
			for _, c := range t.Calls {
				sign, col := "~", ansiYellow
				switch {
				case c.A == 0:
					sign, col = "+", ansiGreen
				case c.B == 0:
					sign, col = "-", ansiRed
				}
				tail := ""
				if FailedOutcome(c.Outcome) && c.B > c.A {
					// The failures section below quotes the error.
					col, tail = ansiRed, " · new failure"
				}
				p.line(col, "    %s %s %s %d → %d%s", sign, c.Label(), c.Outcome, c.A, c.B, tail)
			}
		}
	}
	if len(d.Failures) > 0 {
		p.section("failures")
		for _, f := range d.Failures {
			sign, col := "~", ansiYellow
			switch {
			case f.A == 0:
				sign, col = "+", ansiRed
			case f.B == 0:
				sign, col = "-", ansiGreen
			}
			s := "  " + sign + " " + f.Text()
			p.line(col, "%s", s)
		}
	}
	if len(d.Outputs) > 0 {
		p.section("outputs")
		for _, o := range d.Outputs {
			p.line("", "  %s %s", o.Scope, o.Name)
			for _, l := range strings.Split(strings.TrimRight(o.Unified, "\n"), "\n") {
				col := ""
				switch {
				case strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++"):
					col = ansiBold
				case strings.HasPrefix(l, "@@"):
					col = ansiCyan
				case strings.HasPrefix(l, "-"):
					col = ansiRed
				case strings.HasPrefix(l, "+"):
					col = ansiGreen
				}
				p.line(col, "    %s", l)
			}
		}
	}
	if d.Tokens.Changed {
		p.section("tokens")
		a, b := d.Tokens.A, d.Tokens.B
		p.line("", "  total %d → %d (%+d) · in %d → %d · out %d → %d", a.Total, b.Total, b.Total-a.Total, a.Input, b.Input, a.Output, b.Output)
	}
	if len(d.Timing.Changes) > 0 {
		p.section(fmt.Sprintf("timing (changes of ≥%s and ≥%d%%; not counted as a difference)",
			fmtDur(time.Duration(d.Timing.MinMS*float64(time.Millisecond))), int(math.Round(d.Timing.Ratio*100))))
		for _, t := range d.Timing.Changes {
			s := fmt.Sprintf("  %s %s %s → %s", t.Scope, t.Name, fmtDur(msDur(t.AMS)), fmtDur(msDur(t.BMS)))
			if t.Scope == "tool" {
				s += fmt.Sprintf(" per call (%d → %d calls)", t.CallsA, t.CallsB)
			}
			p.line(ansiDim, "%s", s)
		}
	}
	return p.err
}

func msDur(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func sideLine(a, b DiffSide) string {
	arrow := func(x, y int) string {
		if x == y {
			return strconv.Itoa(x)
		}
		return strconv.Itoa(x) + " → " + strconv.Itoa(y)
	}
	status := a.Status
	if a.Status != b.Status {
		status = a.Status + " → " + b.Status
	}
	return fmt.Sprintf("status %s · %s · %s tasks · %s LLM calls · %s tool calls · %s tool failures",
		status, fmtDur(msDur(a.DurationMS))+" → "+fmtDur(msDur(b.DurationMS)),
		arrow(a.Tasks, b.Tasks), arrow(a.LLMCalls, b.LLMCalls), arrow(a.ToolCalls, b.ToolCalls), arrow(a.ToolFailures, b.ToolFailures))
}

type diffPrinter struct {
	w     io.Writer
	color bool
	err   error
}

func (p *diffPrinter) section(title string) { p.line(ansiBold, "%s", title) }

func (p *diffPrinter) line(color, format string, args ...any) {
	if p.err != nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	if p.color && color != "" {
		s = color + s + ansiReset
	}
	_, p.err = io.WriteString(p.w, s+"\n")
}
