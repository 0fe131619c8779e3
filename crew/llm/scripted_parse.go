package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"crewbench/names/suggest"
)

// Script is a parsed scripted-LLM script: hand-written replies keyed by agent
// role and task name, served in order. The format (also in SCRIPTED.md):
//
//	model: demo-llm            # the model name reported (default "scripted")
//	function_calling: true     # false sends the engine down the ReAct path
//	defaults:                  # apply to every reply that does not say otherwise
//	  delay: 0s                # wait before answering (Go duration, or seconds)
//	  chunk_size: 8            # stream in pieces of 8 characters (0: one piece)
//	  chunk_delay: 20ms        # pause between streamed pieces
//	conversations:
//	  - agent: Senior Researcher   # matches the calling agent's role (optional)
//	    task: research_task        # matches the task name (optional)
//	    replies:                   # served one per call, in order
//	      - tool_calls:            # native function calling
//	          - name: search_web
//	            arguments: {query: "MCP servers"}   # a mapping becomes JSON
//	          - name: fetch
//	            arguments: '{"url": "http://x'      # a string is sent verbatim
//	      - content: |             # text: a final answer or ReAct output
//	          Thought: I now know the final answer
//	          Final Answer: MCP is a protocol.
//	      - "Final Answer: short form"   # a bare string is a content reply
//	      - error: rate_limit            # or {kind, message, status, retry_after, code}
//
// A reply has content (or chunks, its streamed pieces), tool_calls, both, or an
// error; plus optional delay, chunk_size, chunk_delay, usage {prompt_tokens,
// completion_tokens, total_tokens}, finish_reason, and expect {contains, role,
// tools}, which checks the request (the last message contains a text / has a
// role; exactly these tools are offered) and fails the call if it does not
// hold.
//
// Matching: a call from agent A on task T is served by the conversation with
// agent A and task T; failing that, task T with no agent; then agent A with no
// task; then the catch-all conversation (neither). A top-level replies list is
// shorthand for the catch-all. Names compare case-insensitively, ignoring
// surrounding whitespace. Each conversation counts its own turns. When the
// chosen conversation has no reply left, the call fails with a KindScript
// error naming the agent, task and turn — a script never loops.
//
// Stop sequences in the request cut the content as a real API would (CrewAI's
// ReAct stop word "\nObservation:" removes a hallucinated observation).
// Error kinds: auth, rate_limit, server, bad_request, context_length,
// unsupported_tools, malformed_response, timeout, network; an
// unsupported_tools message must contain one of CrewAI's phrases, since that
// text is what makes the engine fall back to ReAct.
type Script struct {
	// Name is the file name used in messages.
	Name            string
	Model           string
	FunctionCalling bool
	Conversations   []*Conversation
}

// Conversation is the ordered replies for one agent/task key.
type Conversation struct {
	Agent, Task string
	Line        int
	Replies     []*Reply
}

// Reply is one scripted answer.
type Reply struct {
	Line int
	// Content is the text; HasContent distinguishes content: "" from absent.
	Content    string
	HasContent bool
	// Chunks, when set, are the streamed pieces; Content is their concatenation.
	Chunks       []string
	ToolCalls    []ToolCall
	Err          *ScriptedError
	Delay        time.Duration
	ChunkSize    int
	ChunkDelay   time.Duration
	Usage        *Usage
	FinishReason string
	Expect       *Expectation
}

// ScriptedError is a provider failure a reply simulates.
type ScriptedError struct {
	Kind       ErrorKind
	Status     int
	Code       string
	Message    string
	RetryAfter time.Duration
}

// Expectation is a check on the request a reply answers.
type Expectation struct {
	// Contains: the last message's content contains each text.
	Contains []string
	// Role: the last message has this role.
	Role Role
	// Tools, when HasTools: exactly these tool names are offered (any order).
	Tools    []string
	HasTools bool
}

// ScriptError is one problem in a script, with its position.
type ScriptError struct {
	File   string
	Line   int
	Column int
	// Field is the path to the offending value, e.g.
	// "conversations[0].replies[2].error.kind".
	Field string
	Msg   string
}

func (e *ScriptError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += fmt.Sprintf(":%d:%d", e.Line, e.Column)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", pos, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", pos, e.Msg)
}

// maxScriptErrors bounds how many problems one parse reports.
const maxScriptErrors = 20

// scriptedErrorKinds are the kinds a reply may simulate, with the status and
// message a real provider would send.
var scriptedErrorKinds = map[ErrorKind]ScriptedError{
	KindAuth:      {Status: 401, Code: "invalid_api_key", Message: "Incorrect API key provided (scripted)."},
	KindRateLimit: {Status: 429, Code: "rate_limit_exceeded", Message: "Rate limit reached for requests (scripted). Please try again later."},
	KindServer:    {Status: 500, Message: "The server had an error while processing your request (scripted)."},
	KindBadRequest: {Status: 400, Code: "invalid_request_error",
		Message: "Invalid request (scripted)."},
	KindContextLength: {Status: 400, Code: "context_length_exceeded",
		Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens (scripted). Please reduce the length of the messages."},
	KindUnsupportedTools:  {Status: 400, Message: "scripted model does not support tools"},
	KindMalformedResponse: {Status: 200, Message: "the response body is not valid JSON (scripted)"},
	KindTimeout:           {Message: "no reply before the deadline (scripted)"},
	KindNetwork:           {Message: "connection reset by peer (scripted)"},
}

func scriptedKindNames() string {
	var names []string
	for k := range scriptedErrorKinds {
		names = append(names, string(k))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// scriptParser walks the YAML node tree, collecting errors with positions.
type scriptParser struct {
	file  string
	errs  []error
	nodes int // nodes visited while converting arguments (alias bombs)
}

// maxArgumentNodes bounds the YAML→JSON conversion of one script, so an alias
// bomb cannot make parsing explode.
const maxArgumentNodes = 100000

func (p *scriptParser) fail(n *yaml.Node, field, format string, args ...any) {
	if len(p.errs) >= maxScriptErrors {
		return
	}
	e := &ScriptError{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

// ParseScript parses and validates a script. name labels positions in
// errors (a file name). All problems found are reported together, each as a
// *ScriptError "file:line:col: field: message", joined with errors.Join.
func ParseScript(name string, data []byte) (s *Script, err error) {
	if name == "" {
		name = "<script>"
	}
	// yaml.v3 panics on a few pathological inputs; a script is user input.
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, &ScriptError{File: name, Msg: fmt.Sprintf("cannot parse YAML: %v", r)}
		}
	}()
	p := &scriptParser{file: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &ScriptError{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &ScriptError{File: name, Msg: "the script is empty: write at least one conversation (see SCRIPTED.md)"}
	}
	s = p.script(doc.Content[0])
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	s.Name = name
	return s, nil
}

// mapping checks that n is a mapping and returns its pairs by key, reporting
// unknown and duplicate keys.
func (p *scriptParser) mapping(n *yaml.Node, field string, known ...string) map[string]*yaml.Node {
	n = p.resolve(n)
	if n.Kind != yaml.MappingNode {
		p.fail(n, field, "want a mapping (key: value lines), got %s", describeNode(n))
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := p.resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.fail(k, field, "keys must be plain words")
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.fail(k, join(field, k.Value), "duplicate key")
			continue
		}
		if !contains(known, k.Value) {
			msg := fmt.Sprintf("unknown field %q", k.Value)
			if s := suggest.Closest(k.Value, known, 2); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += fmt.Sprintf(" (known: %s)", strings.Join(known, ", "))
			}
			p.fail(k, field, "%s", msg)
			continue
		}
		out[k.Value] = v
	}
	return out
}

func (p *scriptParser) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{}
	}
	return n
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", excerpt(n.Value, 40))
	}
	return "nothing"
}

func (p *scriptParser) script(root *yaml.Node) *Script {
	s := &Script{Model: "scripted", FunctionCalling: true}
	m := p.mapping(root, "", "model", "function_calling", "defaults", "conversations", "replies")
	if m == nil {
		return s
	}
	if n, ok := m["model"]; ok {
		s.Model = p.str(n, "model")
	}
	if n, ok := m["function_calling"]; ok {
		s.FunctionCalling = p.boolean(n, "function_calling")
	}
	def := &Reply{}
	if n, ok := m["defaults"]; ok {
		dm := p.mapping(n, "defaults", "delay", "chunk_size", "chunk_delay", "usage")
		p.timing(dm, "defaults", def)
		if u, ok := dm["usage"]; ok {
			def.Usage = p.usage(u, "defaults.usage")
		}
	}
	if n, ok := m["conversations"]; ok {
		n = p.resolve(n)
		if n.Kind != yaml.SequenceNode {
			p.fail(n, "conversations", "want a list of conversations (lines starting with \"- agent: …\"), got %s", describeNode(n))
		} else {
			for i, c := range n.Content {
				s.Conversations = append(s.Conversations, p.conversation(c, fmt.Sprintf("conversations[%d]", i), def))
			}
		}
	}
	if n, ok := m["replies"]; ok {
		c := &Conversation{Line: n.Line}
		c.Replies = p.replies(n, "replies", def)
		s.Conversations = append(s.Conversations, c)
	}
	if len(s.Conversations) == 0 {
		p.fail(root, "", "the script has no conversations: add conversations: (or a top-level replies: list)")
	}
	seen := map[string]*Conversation{}
	for _, c := range s.Conversations {
		if c == nil {
			continue
		}
		k := convKey(c.Agent, c.Task)
		if first, dup := seen[k]; dup {
			p.fail(&yaml.Node{Line: c.Line, Column: 1}, "", "a second conversation for %s (the first is at line %d); merge their replies", describeKey(c.Agent, c.Task), first.Line)
			continue
		}
		seen[k] = c
	}
	return s
}

func convKey(agent, task string) string {
	return strings.ToLower(strings.TrimSpace(agent)) + "\x00" + strings.ToLower(strings.TrimSpace(task))
}

func describeKey(agent, task string) string {
	switch {
	case agent != "" && task != "":
		return fmt.Sprintf("agent %q, task %q", agent, task)
	case agent != "":
		return fmt.Sprintf("agent %q (any task)", agent)
	case task != "":
		return fmt.Sprintf("task %q (any agent)", task)
	}
	return "any agent and task"
}

func (p *scriptParser) conversation(n *yaml.Node, field string, def *Reply) *Conversation {
	c := &Conversation{Line: n.Line}
	m := p.mapping(n, field, "agent", "task", "replies")
	if m == nil {
		return c
	}
	if v, ok := m["agent"]; ok {
		c.Agent = strings.TrimSpace(p.str(v, join(field, "agent")))
	}
	if v, ok := m["task"]; ok {
		c.Task = strings.TrimSpace(p.str(v, join(field, "task")))
	}
	v, ok := m["replies"]
	if !ok {
		p.fail(n, field, "missing replies: (the list of answers, one per call)")
		return c
	}
	c.Replies = p.replies(v, join(field, "replies"), def)
	return c
}

func (p *scriptParser) replies(n *yaml.Node, field string, def *Reply) []*Reply {
	n = p.resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.fail(n, field, "want a list of replies (lines starting with \"- \"), got %s", describeNode(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.fail(n, field, "the list is empty: a conversation needs at least one reply")
	}
	var out []*Reply
	for i, r := range n.Content {
		out = append(out, p.reply(r, fmt.Sprintf("%s[%d]", field, i), def))
	}
	return out
}

func (p *scriptParser) reply(n *yaml.Node, field string, def *Reply) *Reply {
	r := &Reply{Line: n.Line, Delay: def.Delay, ChunkSize: def.ChunkSize, ChunkDelay: def.ChunkDelay, Usage: def.Usage}
	rn := p.resolve(n)
	if rn.Kind == yaml.ScalarNode && rn.Tag != "!!null" {
		// Shorthand: a bare string is a content reply.
		r.Content, r.HasContent = rn.Value, true
		return r
	}
	errsBefore := len(p.errs)
	m := p.mapping(n, field, "content", "chunks", "tool_calls", "error", "delay", "chunk_size",
		"chunk_delay", "usage", "finish_reason", "expect")
	if m == nil {
		return r
	}
	if v, ok := m["content"]; ok {
		if vv := p.resolve(v); vv.Kind == yaml.ScalarNode && vv.Tag == "!!null" {
			p.fail(vv, join(field, "content"), "content is empty; write content: \"\" for an empty reply")
		} else {
			r.Content, r.HasContent = p.str(v, join(field, "content")), true
		}
	}
	if v, ok := m["chunks"]; ok {
		if r.HasContent {
			p.fail(v, join(field, "chunks"), "use either content or chunks (chunks are the content in streamed pieces)")
		}
		r.Chunks = p.strList(v, join(field, "chunks"))
		r.Content, r.HasContent = strings.Join(r.Chunks, ""), true
	}
	if v, ok := m["tool_calls"]; ok {
		r.ToolCalls = p.toolCalls(v, join(field, "tool_calls"))
	}
	if v, ok := m["error"]; ok {
		if r.HasContent || len(r.ToolCalls) > 0 {
			p.fail(v, join(field, "error"), "an error reply cannot also have content, chunks or tool_calls")
		}
		r.Err = p.scriptedError(v, join(field, "error"))
	}
	// Only when nothing else is wrong: a misspelt or invalid field already
	// explains the missing substance.
	if !r.HasContent && len(r.ToolCalls) == 0 && r.Err == nil && len(p.errs) == errsBefore {
		p.fail(n, field, "a reply needs content, chunks, tool_calls or error")
	}
	p.timing(m, field, r)
	if v, ok := m["usage"]; ok {
		r.Usage = p.usage(v, join(field, "usage"))
	}
	if v, ok := m["finish_reason"]; ok {
		r.FinishReason = p.str(v, join(field, "finish_reason"))
	}
	if v, ok := m["expect"]; ok {
		r.Expect = p.expectation(v, join(field, "expect"))
	}
	return r
}

// timing reads delay, chunk_size and chunk_delay into r.
func (p *scriptParser) timing(m map[string]*yaml.Node, field string, r *Reply) {
	if v, ok := m["delay"]; ok {
		r.Delay = p.duration(v, join(field, "delay"))
	}
	if v, ok := m["chunk_size"]; ok {
		r.ChunkSize = p.nonNegInt(v, join(field, "chunk_size"))
	}
	if v, ok := m["chunk_delay"]; ok {
		r.ChunkDelay = p.duration(v, join(field, "chunk_delay"))
	}
}

func (p *scriptParser) toolCalls(n *yaml.Node, field string) []ToolCall {
	n = p.resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.fail(n, field, "want a list of tool calls (\"- name: …\"), got %s", describeNode(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.fail(n, field, "the list is empty")
	}
	var out []ToolCall
	for i, c := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		m := p.mapping(c, f, "name", "arguments", "id")
		if m == nil {
			continue
		}
		tc := ToolCall{Arguments: "{}"}
		if v, ok := m["name"]; ok {
			tc.Name = p.str(v, join(f, "name"))
		} else {
			p.fail(c, f, "missing name (the tool name the model asks for; it may be wrong on purpose)")
		}
		if v, ok := m["id"]; ok {
			tc.ID = p.str(v, join(f, "id"))
		}
		if v, ok := m["arguments"]; ok {
			tc.Arguments = p.arguments(v, join(f, "arguments"))
		}
		out = append(out, tc)
	}
	return out
}

// arguments turns the arguments node into the raw JSON text the model
// "produced": a string verbatim (so it can be broken on purpose), anything
// else encoded as compact JSON with the mapping's key order.
func (p *scriptParser) arguments(n *yaml.Node, field string) string {
	n = p.resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return n.Value
	}
	var buf bytes.Buffer
	if err := p.toJSON(&buf, n, 0); err != nil {
		p.fail(n, field, "%v", err)
		return "{}"
	}
	return buf.String()
}

const maxArgumentDepth = 64

func (p *scriptParser) toJSON(buf *bytes.Buffer, n *yaml.Node, depth int) error {
	p.nodes++
	if p.nodes > maxArgumentNodes {
		return errors.New("arguments are too large (more than 100000 values after expanding aliases)")
	}
	if depth > maxArgumentDepth {
		return errors.New("arguments are nested too deeply")
	}
	n = p.resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := p.resolve(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: argument names must be plain words", k.Line)
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k.Value)
			buf.WriteByte(':')
			if err := p.toJSON(buf, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := p.toJSON(buf, c, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			buf.WriteString("null")
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return fmt.Errorf("line %d: %v", n.Line, err)
			}
			buf.WriteString(strconv.FormatBool(b))
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return fmt.Errorf("line %d: %v", n.Line, err)
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
			}
			if n.Tag == "!!int" {
				var i int64
				if err := n.Decode(&i); err == nil {
					buf.WriteString(strconv.FormatInt(i, 10))
					return nil
				}
			}
			buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		default:
			writeJSONString(buf, n.Value)
		}
	default:
		buf.WriteString("null")
	}
	return nil
}

func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	buf.Truncate(buf.Len() - 1) // Encode appends a newline
}

func (p *scriptParser) scriptedError(n *yaml.Node, field string) *ScriptedError {
	n = p.resolve(n)
	var kindNode *yaml.Node
	var m map[string]*yaml.Node
	if n.Kind == yaml.ScalarNode {
		kindNode = n // shorthand: error: rate_limit
	} else {
		m = p.mapping(n, field, "kind", "message", "status", "retry_after", "code")
		if m == nil {
			return nil
		}
		kindNode = m["kind"]
		if kindNode == nil {
			p.fail(n, field, "missing kind (one of %s)", scriptedKindNames())
			return nil
		}
	}
	kf := field
	if m != nil {
		kf = join(field, "kind")
	}
	kind := ErrorKind(p.str(kindNode, kf))
	def, ok := scriptedErrorKinds[kind]
	if !ok {
		p.fail(kindNode, kf, "unknown error kind %q (want one of %s)", kind, scriptedKindNames())
		return nil
	}
	e := def
	e.Kind = kind
	if v, ok := m["message"]; ok {
		e.Message = p.str(v, join(field, "message"))
		if kind == KindUnsupportedTools && !containsToolsUnsupported(e.Message) {
			p.fail(v, join(field, "message"), "an unsupported_tools message must contain one of CrewAI's phrases (%s), or the engine will not fall back to ReAct", strings.Join(toolsUnsupportedPhrases, "; "))
		}
	}
	if v, ok := m["status"]; ok {
		e.Status = p.nonNegInt(v, join(field, "status"))
	}
	if v, ok := m["retry_after"]; ok {
		e.RetryAfter = p.duration(v, join(field, "retry_after"))
	}
	if v, ok := m["code"]; ok {
		e.Code = p.str(v, join(field, "code"))
	}
	return &e
}

func (p *scriptParser) usage(n *yaml.Node, field string) *Usage {
	m := p.mapping(n, field, "prompt_tokens", "completion_tokens", "total_tokens")
	if m == nil {
		return nil
	}
	u := &Usage{}
	if v, ok := m["prompt_tokens"]; ok {
		u.PromptTokens = p.nonNegInt(v, join(field, "prompt_tokens"))
	}
	if v, ok := m["completion_tokens"]; ok {
		u.CompletionTokens = p.nonNegInt(v, join(field, "completion_tokens"))
	}
	if v, ok := m["total_tokens"]; ok {
		u.TotalTokens = p.nonNegInt(v, join(field, "total_tokens"))
	} else {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u
}

func (p *scriptParser) expectation(n *yaml.Node, field string) *Expectation {
	m := p.mapping(n, field, "contains", "role", "tools")
	if m == nil {
		return nil
	}
	e := &Expectation{}
	if v, ok := m["contains"]; ok {
		if vv := p.resolve(v); vv.Kind == yaml.ScalarNode {
			e.Contains = []string{p.str(v, join(field, "contains"))}
		} else {
			e.Contains = p.strList(v, join(field, "contains"))
		}
	}
	if v, ok := m["role"]; ok {
		e.Role = Role(p.str(v, join(field, "role")))
		switch e.Role {
		case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		default:
			p.fail(v, join(field, "role"), "unknown role %q (want system, user, assistant or tool)", e.Role)
		}
	}
	if v, ok := m["tools"]; ok {
		e.Tools, e.HasTools = p.strList(v, join(field, "tools")), true
	}
	return e
}

func (p *scriptParser) str(n *yaml.Node, field string) string {
	n = p.resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(n, field, "want text, got %s", describeNode(n))
		return ""
	}
	return n.Value
}

func (p *scriptParser) strList(n *yaml.Node, field string) []string {
	n = p.resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.fail(n, field, "want a list of texts, got %s", describeNode(n))
		return nil
	}
	out := []string{}
	for i, c := range n.Content {
		out = append(out, p.str(c, fmt.Sprintf("%s[%d]", field, i)))
	}
	return out
}

func (p *scriptParser) boolean(n *yaml.Node, field string) bool {
	n = p.resolve(n)
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		p.fail(n, field, "want true or false, got %s", describeNode(n))
	}
	return b
}

func (p *scriptParser) nonNegInt(n *yaml.Node, field string) int {
	n = p.resolve(n)
	i, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || i < 0 {
		p.fail(n, field, "want a whole number ≥ 0, got %s", describeNode(n))
		return 0
	}
	return i
}

// duration accepts a Go duration ("1.5s", "200ms") or a number of seconds.
func (p *scriptParser) duration(n *yaml.Node, field string) time.Duration {
	n = p.resolve(n)
	if n.Kind == yaml.ScalarNode {
		if d, err := time.ParseDuration(n.Value); err == nil && d >= 0 {
			return d
		}
		if s, err := strconv.ParseFloat(n.Value, 64); err == nil && s >= 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
	}
	p.fail(n, field, "want a duration like 500ms, 2s or 1.5 (seconds), got %s", describeNode(n))
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
