package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// PrinterOptions configure a Printer.
type PrinterOptions struct {
	// Color turns on ANSI colours. NO_COLOR in the environment wins.
	Color bool
	// Verbose adds the quieter events: every start, frames, stderr,
	// notifications, process and server state, arguments and outputs in
	// full, and a relative timestamp on every line.
	Verbose bool
	// Width truncates lines to this many characters (0: no limit).
	Width int
	// Redactor hides secrets before anything is printed; nil means
	// DefaultRedactor.
	Redactor *Redactor
}

// ANSI SGR codes. Plain codes, no terminal library: session must not
// depend on UI packages.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiBoldRd = "\x1b[1;31m"
)

// Printer writes a live, human-readable trace: one line per meaningful
// event, indented by depth, and a summary block when a crew run ends (or at
// Close). It is a Sink; its output depends only on the events (their times
// included), so a fixed clock gives identical output.
type Printer struct {
	mu    sync.Mutex
	w     io.Writer
	opts  PrinterOptions
	red   *Redactor
	tree  *Tree
	shown map[*Node]bool // nodes that have a line of their own
	start time.Time      // first event's time, for verbose timestamps

	pending     string // a failed attempt line waiting for its retry notice
	pendingNode *Node
	pendingTS   string

	summaries int // summary blocks printed
	err       error
}

// NewPrinter returns a printer writing to w.
func NewPrinter(w io.Writer, opts PrinterOptions) *Printer {
	if os.Getenv("NO_COLOR") != "" {
		opts.Color = false
	}
	return &Printer{w: w, opts: opts, red: opts.Redactor.self(), tree: NewTree(), shown: map[*Node]bool{}}
}

// Summary is the summary of everything printed so far.
func (p *Printer) Summary() Summary {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tree.Summary()
}

// Emit prints the lines ev calls for.
func (p *Printer) Emit(ev Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ev = p.red.RedactEvent(ev)
	if p.start.IsZero() && !ev.Time.IsZero() {
		p.start = ev.Time
	}
	n := p.tree.Add(ev)
	if p.pending == "" {
		p.event(n, ev)
		return
	}
	if ev.Kind == MCPRetryScheduled && (n == p.pendingNode || n == p.pendingNode.Parent) {
		p.pending += "; retrying in " + fmtSetting(backoffOf(ev))
		p.flushPending()
		return
	}
	p.eventAfterPending(n, ev)
}

// eventAfterPending handles an event that arrives while a failed attempt's
// line waits for its retry notice. Events that print nothing (the server's
// exit, frames and stderr outside verbose mode, ...) may land between the
// attempt's end and the retry notice depending on how fast the machine
// reaps a process, so they must not decide the layout: the attempt line
// keeps waiting until an event that prints something arrives.
func (p *Printer) eventAfterPending(n *Node, ev Event) {
	held, heldNode, heldTS := p.pending, p.pendingNode, p.pendingTS
	p.pending, p.pendingNode, p.pendingTS = "", nil, ""
	var scratch strings.Builder
	w := p.w
	p.w = &scratch
	p.event(n, ev)
	p.w = w
	if scratch.Len() == 0 && p.pending == "" {
		p.pending, p.pendingNode, p.pendingTS = held, heldNode, heldTS
		return
	}
	if p.err == nil {
		p.writeLine(heldTS, p.depth(heldNode), held, ansiRed)
	}
	if p.err == nil {
		_, p.err = io.WriteString(p.w, scratch.String())
	}
}

// Close prints anything still pending and, if no crew summary was printed,
// the session summary. It reports the first write error.
func (p *Printer) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushPending()
	// The run is over: what is still open will not end now.
	p.tree.Finish()
	p.closedLines("")
	if p.summaries == 0 && p.tree.Len() > 0 {
		p.summary(p.tree.Summary())
	}
	return p.err
}

func (p *Printer) flushPending() {
	if p.pending == "" {
		return
	}
	p.writeLine(p.pendingTS, p.depth(p.pendingNode), p.pending, ansiRed)
	p.pending, p.pendingNode, p.pendingTS = "", nil, ""
}

// depth counts the ancestors that have a line of their own, so skipped
// scopes do not leave gaps in the indentation.
func (p *Printer) depth(n *Node) int {
	d := 0
	for a := n.Parent; a != nil; a = a.Parent {
		if p.shown[a] {
			d++
		}
	}
	return d
}

func (p *Printer) event(n *Node, ev Event) {
	v := p.opts.Verbose
	ts := ""
	if v && !ev.Time.IsZero() {
		ts = fmt.Sprintf("[%8.3fs] ", ev.Time.Sub(p.start).Seconds())
	}
	p.closedLines(ts)
	line := func(text, color string) {
		p.writeLine(ts, p.depth(n), text, color)
	}
	own := func(text, color string) { // a scope's own line
		p.shown[n] = true
		line(text, color)
	}
	pointLine := func(text, color string) { // a point event, one level in
		p.writeLine(ts, p.depth(n)+boolInt(p.shown[n]), text, color)
	}
	start := ev.Kind.IsStart()
	end := ev.Kind.IsEnd()
	switch {
	case start:
		switch n.Kind {
		case NodeCrew:
			own("▶ "+n.Title+p.detail(ev, KeyInputs), ansiBold)
		case NodeTask:
			t := "▶ " + n.Title
			if n.AgentRole != "" {
				t += " · " + n.AgentRole
			}
			own(t, ansiBold)
		case NodeAgent, NodeConnection:
			if v {
				own("▶ "+n.Title, "")
			}
		case NodeStep:
			own("· "+n.Title, ansiDim)
		case NodeLLM:
			if v {
				own("▶ "+n.Title, "")
			}
		case NodeTool:
			own("→ "+n.Title+p.args(ev), "")
		case NodeMCPCall:
			if v || !insideTool(n) {
				own("→ "+n.Title+p.args(ev), "")
			}
		case NodeAttempt:
			if v {
				own("▶ "+n.Title, ansiDim)
			}
		default:
			if v {
				own("▶ "+string(ev.Kind), "")
			}
		}
	case end:
		if !endedBefore(n) {
			p.endLine(n, ev, ts)
		}
	default:
		switch ev.Kind {
		case GuardTripped:
			pointLine("! guard: "+firstNonEmpty(ev.Str(KeyMessage), ev.Error, "repeated call refused"), ansiYellow)
		case UsageLimitReached:
			t := "! usage limit reached"
			if name := firstNonEmpty(ev.ToolName, n.ToolName); name != "" {
				t += ": " + name
			}
			if max := ev.Int(KeyMaxUsageCount); max > 0 {
				t += " (" + strconv.FormatInt(max, 10) + " uses)"
			}
			if msg := ev.Str(KeyMessage); msg != "" {
				t += " — " + msg
			}
			pointLine(t, ansiYellow)
		case MCPRetryScheduled:
			pointLine("↻ retrying in "+fmtSetting(backoffOf(ev)), ansiYellow)
		case CacheHit:
			if v {
				pointLine("⚡ cache hit", ansiCyan)
			}
		case ToolFailureDetected, ToolValidateInputError, ToolSelectionError, ToolExecutionError, MCPConfigFetchFailed:
			pointLine("✗ "+strings.ReplaceAll(string(ev.Kind), "_", " ")+": "+firstNonEmpty(ev.Error, ev.Str(KeyMessage)), ansiRed)
		case Warning:
			pointLine("! "+firstNonEmpty(ev.Str(KeyMessage), ev.Error), ansiYellow)
		case HumanInputReceived:
			if fb := strings.TrimSpace(ev.Str(KeyFeedback)); fb != "" {
				pointLine("💬 human feedback: "+p.clip(markLineBreaks(fb)), ansiCyan)
			} else {
				pointLine("💬 the human accepted the answer", ansiDim)
			}
		case MCPToolsListed:
			t := firstNonEmpty(ev.Str(KeyMessage), "tools listed")
			if server := ServerOf(ev); server != "" {
				t = server + ": " + t
			}
			pointLine("· "+t, ansiDim)
		case LLMStreamChunk:
			// Chunks would drown everything; the completed call says it all.
		default:
			if v {
				pointLine(p.verbosePoint(ev), ansiDim)
			}
		}
	}
}

// closedLines prints a line for each scope the tree just closed without
// an end of its own (an ancestor ended, or the run did), so a scope CrewAI
// left open reads as unfinished rather than vanishing or passing for ok.
func (p *Printer) closedLines(ts string) {
	for _, c := range p.tree.Closed() {
		switch {
		case c.Kind == NodeUnknown:
			continue
		case !p.opts.Verbose && (c.Kind == NodeAttempt || (c.Kind == NodeMCPCall && insideTool(c))):
			continue // the tool's own line says it
		}
		text := "… " + c.Title + " unfinished"
		if c.Duration > 0 {
			text += " after " + fmtDur(c.Duration)
		}
		if c.ClosedBy != nil {
			text += " · closed by the end of " + c.ClosedBy.Title
		} else {
			text += " · the session ended first"
		}
		// Not marked shown: lines already printed under it were indented
		// without it, and later ones keep to that.
		p.writeLine(ts, p.depth(c), text, ansiYellow)
	}
}

// endedBefore reports whether n had an end event before its latest one
// (a node's events are its own scope events and the point events in it).
// CrewAI's OpenAI provider reports one failed request with two
// llm_call_failed events (goldens: react_fallback); the second gets no
// line, so the trace shows the one call that was made.
func endedBefore(n *Node) bool {
	return slices.ContainsFunc(n.Events[:len(n.Events)-1], func(e Event) bool { return e.Kind.IsEnd() })
}

func (p *Printer) endLine(n *Node, ev Event, ts string) {
	v := p.opts.Verbose
	failed := n.Status == StatusFailed
	cancelled := n.Status == StatusCancelled
	skipped := n.Kind == NodeTool && ev.Kind == ToolUsageFinished && ev.Bool(KeySkipped)
	mark, color := "✓ ", ""
	switch {
	case failed:
		mark, color = "✗ ", ansiRed
	case cancelled:
		mark, color = "⊘ ", ansiYellow
	}
	show := true
	switch n.Kind {
	case NodeAgent, NodeStep, NodeLLM:
		show = v || failed || cancelled || n.Kind == NodeLLM
	case NodeMCPCall:
		show = v || !insideTool(n)
	case NodeAttempt:
		show = v || failed || cancelled || n.Attempt > 1
	}
	if !show {
		return
	}
	text := mark + n.Title
	if n.Kind == NodeAttempt {
		text = n.Title + " " + firstNonEmpty(n.Outcome, n.Status.String())
		if failed || cancelled {
			text += " after " + fmtDur(n.Duration)
			if v && n.Error != "" {
				text += ": " + markLineBreaks(n.Error)
			}
		} else {
			text += " " + fmtDur(n.Duration)
		}
	} else {
		if failed || cancelled {
			text += " " + n.Status.String()
			if n.Duration > 0 {
				text += " after " + fmtDur(n.Duration)
			}
		} else if n.Duration > 0 && !skipped {
			text += " " + fmtDur(n.Duration)
		}
		var tags []string
		if skipped { // the tool did not run: no time of its own, and the output is the user's
			tags = append(tags, "skipped at a breakpoint")
		}
		if n.Kind == NodeLLM {
			if u, ok := UsageOf(ev); ok {
				tags = append(tags, fmt.Sprintf("%d in / %d out tokens", u.Input, u.Output))
			}
		}
		if n.CacheHit {
			tags = append(tags, "cache hit")
		}
		if n.Retries > 0 {
			tags = append(tags, countNoun(n.Retries, "retry", "retries"))
		}
		if n.GuardTripped {
			tags = append(tags, "guard tripped")
		}
		if n.UsageLimit {
			tags = append(tags, "usage limit")
		}
		// A call made on its own (crewbench call, the workbench's try-a-tool)
		// has no agent to show what CrewAI made of it: say it here.
		standalone := n.Kind == NodeMCPCall && !insideTool(n)
		if standalone {
			tags = append(tags, callVerdict(ev)...)
		}
		if len(tags) > 0 {
			text += " · " + strings.Join(tags, " · ")
		}
		switch {
		case (failed || cancelled) && n.Error != "":
			text += ": " + markLineBreaks(n.Error)
		case (failed || cancelled) && standalone && p.detail(ev, KeyResult) != "":
			// An error CrewAI returns as ordinary text (https-string path).
			text += p.detail(ev, KeyResult)
		case (failed || cancelled) && n.Outcome != "":
			text += ": " + markLineBreaks(n.Outcome)
		}
		if !failed && (n.Kind == NodeTool || n.Kind == NodeMCPCall || v) {
			text += p.detail(ev, KeyOutput, KeyResult)
		}
	}
	if n.Kind == NodeAttempt && (failed || cancelled) {
		// Hold it: a retry notice usually follows and belongs on this line.
		p.pending, p.pendingNode, p.pendingTS = text, n, ts
		return
	}
	if !p.shown[n] {
		p.shown[n] = true
	}
	p.writeLine(ts, p.depth(n), text, color)
	if n.Kind == NodeCrew && n.Parent == p.tree.Root {
		p.summary(p.tree.SummaryOf(n))
	}
}

// args renders tool arguments after a tool's start line.
func (p *Printer) args(ev Event) string {
	a, ok := ev.Data[KeyToolArgs]
	if !ok || a == nil {
		return ""
	}
	return " " + p.clip(quoteOrMarshal(a))
}

// clip shortens payloads outside verbose mode, so one big tool result
// does not bury the trace.
func (p *Printer) clip(s string) string {
	const max = 100
	if p.opts.Verbose || utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

// detail renders the first present Data key after a line (outputs, inputs).
func (p *Printer) detail(ev Event, keys ...string) string {
	for _, k := range keys {
		if v, ok := ev.Data[k]; ok && v != nil {
			s := quoteOrMarshal(v)
			if s == "" || s == `""` {
				continue
			}
			return " → " + p.clip(s)
		}
	}
	return ""
}

func (p *Printer) verbosePoint(ev Event) string {
	switch ev.Kind {
	case MCPStderr:
		return "stderr " + ev.Server + ": " + markLineBreaks(firstNonEmpty(ev.Str(KeyLine), ev.Str(KeyMessage)))
	case MCPFrame:
		dir := ev.Str(KeyDirection)
		arrow := "⇄"
		switch dir {
		case "send":
			arrow = "⇢"
		case "recv":
			arrow = "⇠"
		}
		t := arrow + " " + ev.Server
		for _, k := range []string{KeyMethod, KeyRequestID} {
			if s := ev.Str(k); s != "" {
				t += " " + s
			}
		}
		if s := ev.Str(KeyFrame); s != "" {
			t += " " + p.clip(markLineBreaks(s))
		}
		return t
	case MCPNotification:
		return "notification " + ev.Server + ": " + firstNonEmpty(ev.Str(KeyMessage), quoteOrMarshal(ev.Data))
	case MCPServerState:
		return ev.Server + ": " + firstNonEmpty(ev.Str(KeyState), ev.Str(KeyMessage))
	case MCPProcessSpawned, MCPProcessExited:
		return strings.TrimPrefix(string(ev.Kind), "crewbench_mcp_") + " " + ev.Server + p.detail(ev, "pid", "exit_code")
	case StepPaused, StepResumed:
		return strings.TrimPrefix(string(ev.Kind), "crewbench_") + p.detail(ev, KeyMessage, "action")
	}
	return string(ev.Kind) + p.detail(ev, KeyMessage)
}

// summary prints the closing block. It shouts when the run "succeeded"
// with tool failures, the case CrewAI hides: tool errors go back to the
// LLM as text and the crew still reports success.
func (p *Printer) summary(s Summary) {
	p.summaries++
	p.writeLine("", 0, "── summary "+strings.Repeat("─", 29), ansiDim)
	verdict := ""
	color := ansiGreen
	switch {
	case s.Succeeded:
		verdict = "✓ succeeded in " + fmtDur(s.Duration)
	case s.Status == StatusRunning:
		verdict, color = "… still running after "+fmtDur(s.Duration)+" (the session ends here)", ansiYellow
	case s.Status == StatusCancelled:
		verdict, color = "⊘ cancelled after "+fmtDur(s.Duration), ansiYellow
	case s.Status == StatusUnfinished:
		verdict, color = "… unfinished after "+fmtDur(s.Duration)+" (the session ended before the run did)", ansiYellow
	default:
		verdict, color = "✗ FAILED after "+fmtDur(s.Duration), ansiBoldRd
	}
	p.writeLine("", 0, verdict, color)
	counts := []string{
		countNoun(s.Tasks, "task", "tasks"),
		countNoun(s.LLMCalls, "LLM call", "LLM calls"),
		countNoun(s.ToolCalls, "tool call", "tool calls"),
	}
	if s.Crews == 0 && s.Tasks == 0 && s.LLMCalls == 0 {
		// Tool calls made on their own (crewbench call or smoke, the
		// workbench's try-a-tool): no crew to count.
		counts = counts[2:]
	}
	if s.Attempts > 0 {
		counts = append(counts, countNoun(s.Attempts, "attempt", "attempts"))
	}
	if s.Retries > 0 {
		counts = append(counts, countNoun(s.Retries, "retry", "retries"))
	}
	if s.CacheHits > 0 {
		counts = append(counts, countNoun(s.CacheHits, "cache hit", "cache hits"))
	}
	if s.Guards > 0 {
		counts = append(counts, countNoun(s.Guards, "guard", "guards"))
	}
	if s.UsageLimits > 0 {
		counts = append(counts, countNoun(s.UsageLimits, "usage limit", "usage limits"))
	}
	p.writeLine("", 1, strings.Join(counts, " · "), "")
	if !s.Usage.IsZero() {
		p.writeLine("", 1, fmt.Sprintf("tokens: %d in · %d out · %d total", s.Usage.Input, s.Usage.Output, s.Usage.Total), "")
	}
	if s.Orphans > 0 {
		p.writeLine("", 1, countNoun(s.Orphans, "scope", "scopes")+" without a known parent (incomplete recording?)", ansiYellow)
	}
	if s.Unfinished > 0 {
		p.writeLine("", 1, countNoun(s.Unfinished, "scope", "scopes")+" unfinished: no end event of their own", ansiYellow)
	}
	if s.ToolFailures > 0 {
		head := "!! " + strings.ToUpper(countNoun(s.ToolFailures, "tool call", "tool calls")) + " FAILED"
		if s.Succeeded {
			head += " — the run reported success anyway"
		}
		p.writeLine("", 0, head, ansiBoldRd)
		for _, n := range s.FailedTools {
			t := "✗ " + n.Title
			if reason := firstNonEmpty(n.Error, n.Outcome); reason != "" {
				t += ": " + markLineBreaks(reason)
			}
			p.writeLine("", 1, t, ansiRed)
		}
	}
}

// writeLine indents, truncates and colours one line.
func (p *Printer) writeLine(ts string, depth int, text, color string) {
	if p.err != nil {
		return
	}
	s := ts + strings.Repeat("  ", depth) + markLineBreaks(text)
	if p.opts.Width > 0 && utf8.RuneCountInString(s) > p.opts.Width {
		r := []rune(s)
		cut := p.opts.Width - 1
		if cut < 0 {
			cut = 0
		}
		s = string(r[:cut]) + "…"
	}
	if p.opts.Color && color != "" {
		s = color + s + ansiReset
	}
	_, p.err = io.WriteString(p.w, s+"\n")
}

// callVerdict tags the end of a standalone MCP call with its outcome class
// and what CrewAI's tool does with it: raise, return a ToolFailure, or hand
// an error back as ordinary text (the https-string path).
func callVerdict(ev Event) []string {
	var tags []string
	notOK := ev.Outcome != "" && ev.Outcome != OutcomeOK
	if notOK {
		tags = append(tags, ev.Outcome)
	}
	switch {
	case ev.Bool("raised"):
		tags = append(tags, "CrewAI raises")
	case ev.Str("failure_reason") != "":
		tags = append(tags, "ToolFailure(reason="+ev.Str("failure_reason")+")")
	case notOK && ScopeKind(ev.Kind) == MCPToolExecutionCompleted:
		tags = append(tags, "returned as text")
	}
	return tags
}

// backoffOf reads the sleep before the next attempt from a retry event.
func backoffOf(ev Event) time.Duration {
	if ev.Duration > 0 {
		return ev.Duration
	}
	if n := ev.Int(KeyBackoff); n > 0 {
		return time.Duration(n)
	}
	return 0
}

// fmtDur prints a measured duration the way a person reads a trace:
// 850ms, 1.0s, 12.3s, 2m5s.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return strconv.FormatInt(d.Microseconds(), 10) + "µs"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Round(time.Second).String()
}

// fmtSetting prints a configured duration (a backoff, a timeout) without
// spurious precision: 2s, 1.5s, 500ms.
func fmtSetting(d time.Duration) string {
	s := fmtDur(d)
	if strings.HasSuffix(s, ".0s") {
		return strings.TrimSuffix(s, ".0s") + "s"
	}
	return s
}

// quoteOrMarshal renders a value inline: a string Go-quoted, anything else
// as compact JSON.
func quoteOrMarshal(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// markLineBreaks puts a multi-line text on one line, each line break shown
// as ⏎ and tabs as spaces.
func markLineBreaks(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	return strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\r", " ", "\t", " ").Replace(s)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// countNoun renders "1 task", "3 tasks".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
