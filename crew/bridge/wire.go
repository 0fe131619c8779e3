package bridge

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"crewbench/crew"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// wireMsg is one line from the bridge (crewbench_bridge.py documents the
// protocol). Fields are shared between ops; each op sets its own.
type wireMsg struct {
	Op  string `json:"op"`
	Seq int64  `json:"seq"`

	// hello
	Protocol      int      `json:"protocol"`
	Token         string   `json:"token"`
	PID           int      `json:"pid"`
	Executable    string   `json:"executable"`
	Python        string   `json:"python"`
	Argv          []string `json:"argv"`
	CrewAIVersion string   `json:"crewai_version"`
	CrewAIMissing bool     `json:"crewai_missing"`
	Hooks         bool     `json:"hooks"`
	Events        bool     `json:"events"`
	// EventClasses: the event classes a bridge without the bus's
	// _prepare_event registered a handler for (absent otherwise).
	EventClasses int `json:"event_classes"`

	// event (and class: Class, ID, Fields, Objects)
	Class  string         `json:"class"`
	Source string         `json:"source"`
	Event  map[string]any `json:"event"`
	// class: an event class's field names in dump order, and those that
	// hold summarised live objects (absent from the event when null).
	Fields  []string `json:"fields"`
	Objects []string `json:"objects"`
	// UTC and Naive (class): the fields whose datetimes come as integer
	// microseconds since the epoch, aware in UTC or naive.
	UTC   []int `json:"utc"`
	Naive []int `json:"naive"`
	// Value (obj): the summary of a live object that events after it
	// give as its number, ID, in the object field.
	Value any `json:"value"`

	// pause
	ID               int64           `json:"id"`
	Kind             string          `json:"kind"`
	ToolName         string          `json:"tool_name"`
	OriginalToolName string          `json:"original_tool_name"`
	ServerName       string          `json:"server_name"`
	DisplayName      string          `json:"display_name"`
	ToolInput        json.RawMessage `json:"tool_input"`
	// ArgsSchema is the tool's argument model as JSON schema
	// (args_schema.model_json_schema()), sent only with a pause.
	ArgsSchema   json.RawMessage `json:"args_schema"`
	Messages     json.RawMessage `json:"messages"`
	Model        string          `json:"model"`
	Iterations   int             `json:"iterations"`
	AfterFailure bool            `json:"after_failure"`
	AgentRole    string          `json:"agent_role"`
	TaskName     string          `json:"task_name"`
	Thread       string          `json:"thread"`

	// warning
	Message  string `json:"message"`
	Detected string `json:"detected"`
}

// eventClass is what a class line told about an event class.
type eventClass struct {
	name   string
	fields []string
	// object[i]: fields[i] is a summarised object, left out when null (as
	// an "event" object line leaves it out).
	object []bool
	// messages is the index of the messages field (-1: none).
	messages int
	// times are the fields whose datetimes come as microseconds.
	times []timeField
}

// timeField is a field whose datetimes come as integer microseconds since
// the epoch; any other value in it comes as it is.
type timeField struct {
	at  int
	utc bool // aware in UTC: "Z" after the time, as pydantic's JSON has it
}

// lineDecoder decodes one connection's lines, in the order they came: the
// event classes announced so far, and the LLM message histories the bridge
// sends only the new part of.
type lineDecoder struct {
	classes map[int64]eventClass
	// histories are each slot's messages so far. An event's messages are
	// shared with the next one's (nothing changes an event's data after
	// it is made).
	histories map[int64][]any
	// values builds the lines' values, remembering short strings.
	values jsonValues
	// objects are the object summaries by number, as obj lines set them
	// (shared by the events that refer to them: nothing changes them).
	objects map[int64]any
}

func newLineDecoder() *lineDecoder {
	return &lineDecoder{classes: map[int64]eventClass{}, histories: map[int64][]any{},
		objects: map[int64]any{}, values: jsonValues{strs: map[string]any{}}}
}

func (d *lineDecoder) addClass(m wireMsg) {
	objects := make(map[string]bool, len(m.Objects))
	for _, o := range m.Objects {
		objects[o] = true
	}
	c := eventClass{name: m.Class, fields: m.Fields, object: make([]bool, len(m.Fields)), messages: -1}
	for i, f := range m.Fields {
		c.object[i] = objects[f]
		if f == session.KeyMessages {
			c.messages = i
		}
	}
	for i, ats := range [][]int{m.Naive, m.UTC} {
		for _, at := range ats {
			if at >= 0 && at < len(m.Fields) {
				c.times = append(c.times, timeField{at: at, utc: i == 1})
			}
		}
	}
	d.classes[m.ID] = c
}

// isoMicros formats microseconds since the epoch as the bridge's
// _json_default formats a datetime (Python's isoformat, the fraction only
// when there is one, "+00:00" as "Z"), so a recorded session does not
// depend on which of the two made the string.
func isoMicros(us int64, utc bool) string {
	t := time.UnixMicro(us).UTC()
	layout := "2006-01-02T15:04:05"
	if t.Nanosecond() != 0 {
		layout = "2006-01-02T15:04:05.000000"
	}
	b := t.AppendFormat(make([]byte, 0, 32), layout)
	if utc {
		b = append(b, 'Z')
	}
	return string(b)
}

// decode appends to out what one line from the bridge delivers: an op
// object; an event as [seq, class id, source, values] (and [slot, kept]
// when its messages are the part after the first kept of that history
// slot) whose class line came before; or a run of such events as the
// array of them. A class or obj line delivers nothing (nor does a line,
// or an event in a run, that is not valid).
func (d *lineDecoder) decode(b []byte, out []wireMsg) []wireMsg {
	if len(b) > 0 && b[0] == '[' {
		arr, ok := decodeArray(b, &d.values)
		if !ok || len(arr) == 0 {
			return out
		}
		if _, isRun := arr[0].([]any); !isRun {
			if m, ok := d.event(arr); ok {
				out = append(out, m)
			}
			return out
		}
		for _, e := range arr {
			ev, _ := e.([]any)
			if m, ok := d.event(ev); ok {
				out = append(out, m)
			}
		}
		return out
	}
	var m wireMsg
	if json.Unmarshal(b, &m) != nil {
		return out
	}
	switch m.Op {
	case "class":
		d.addClass(m)
		return out
	case "obj":
		d.objects[m.ID] = m.Value
		return out
	}
	return append(out, m)
}

// event is a compact event's array as the event it is.
func (d *lineDecoder) event(arr []any) (wireMsg, bool) {
	if len(arr) < 4 || len(arr) > 5 {
		return wireMsg{}, false
	}
	seq, _ := arr[0].(float64)
	id, _ := arr[1].(float64)
	source, _ := arr[2].(string)
	values, _ := arr[3].([]any)
	c, known := d.classes[int64(id)]
	if !known || len(values) != len(c.fields) {
		return wireMsg{}, false
	}
	for _, tf := range c.times { // len(values) == len(c.fields)
		if us, isNumber := values[tf.at].(float64); isNumber {
			values[tf.at] = isoMicros(int64(us), tf.utc)
		}
	}
	if len(arr) == 5 {
		if c.messages < 0 || !d.history(arr[4], values, c.messages) {
			return wireMsg{}, false
		}
	}
	ev := make(map[string]any, len(values)+3) // the translator adds 3 of its own
	for i, v := range values {
		if c.object[i] {
			if v == nil {
				continue
			}
			if ref, isRef := v.(float64); isRef { // a summary is never a number
				obj, sent := d.objects[int64(ref)]
				if !sent {
					return wireMsg{}, false
				}
				v = obj
			}
		}
		ev[c.fields[i]] = v
	}
	return wireMsg{Op: "event", Seq: int64(seq), Class: c.name, Source: source, Event: ev}, true
}

// decodeArray decodes an event line's JSON array to exactly what
// json.Unmarshal into []any gives (float64 numbers, map[string]any objects
// whose repeated key keeps its last value, empty containers non-nil), at a
// fraction of its cost: encoding/json validates the line in a first pass
// and boxes through reflection, and decoding was most of crewbench's CPU
// per event, which competes with the crew's own on a 2-core machine. The
// fast path is the project's one JSON reader (pyjson.Decode) with a
// builder of encoding/json's values; whatever it does not take as
// encoding/json would (invalid UTF-8, which encoding/json replaces; NaN
// and Infinity, which only Python accepts; numbers out of float64's range;
// nesting near encoding/json's limit) goes to json.Unmarshal itself, so a
// line is read the same either way (FuzzDecodeArray holds it to that).
func decodeArray(b []byte, jb *jsonValues) ([]any, bool) {
	if utf8.Valid(b) {
		jb.refused = false
		v, err := pyjson.Decode(b, jb, maxFastDepth)
		if err == nil && !jb.refused {
			arr, ok := v.([]any)
			return arr, ok
		}
	}
	var arr []any
	if json.Unmarshal(b, &arr) != nil {
		return nil, false
	}
	return arr, true
}

// maxFastDepth keeps the fast path below encoding/json's nesting limit
// (10000 open arrays or objects): pyjson.Decode refuses a value nested
// deeper than this, so a line encoding/json refuses is never taken.
const maxFastDepth = 9999

// jsonValues is a pyjson.Builder of the values json.Unmarshal gives an
// `any`. refused is set by a value encoding/json would not decode.
type jsonValues struct {
	refused bool
	// strs are short strings seen before, boxed: a line's types, names,
	// roles and the ids the next events refer to repeat, and a string
	// and its box were two allocations each.
	strs map[string]any
}

// Bounds of jsonValues.strs: longer strings rarely repeat (a UUID is 36
// bytes), and a stream of ever new ones starts the table over.
const (
	maxSharedString  = 48
	maxSharedStrings = 8192
)

func (jb *jsonValues) RawString(raw []byte, _ int) any {
	if len(raw) > maxSharedString {
		return string(raw)
	}
	if v, ok := jb.strs[string(raw)]; ok { // a lookup by string(raw) does not allocate
		return v
	}
	if len(jb.strs) >= maxSharedStrings {
		clear(jb.strs)
	}
	var v any = string(raw)
	jb.strs[string(raw)] = v
	return v
}

func (jb *jsonValues) Scalar(v any, _ int) any {
	n, isNumber := v.(pyjson.Number)
	if !isNumber {
		return v // a string, bool or nil, as encoding/json gives them
	}
	f, err := strconv.ParseFloat(string(n), 64) // what encoding/json does with a number literal
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		jb.refused = true // NaN, Infinity, or out of range: encoding/json fails the line
		return nil
	}
	return f
}

func (jb *jsonValues) Object(members []pyjson.Member[any], _ int) any {
	m := make(map[string]any, len(members))
	for _, mb := range members {
		m[mb.Key] = mb.Value // in order: a repeated key keeps its last value
	}
	return m
}

func (jb *jsonValues) Array(items []any, _ int) any {
	return append(make([]any, 0, len(items)), items...) // items is Decode's scratch; [] stays non-nil
}

// history puts the whole messages back into values[at]: the first kept
// of the slot's, then the new ones the line carries.
func (d *lineDecoder) history(info any, values []any, at int) bool {
	pair, _ := info.([]any)
	if len(pair) != 2 {
		return false
	}
	slot, _ := pair[0].(float64)
	kept, _ := pair[1].(float64)
	tail, isList := values[at].([]any)
	have := d.histories[int64(slot)]
	if !isList || kept < 0 || int(kept) > len(have) {
		return false
	}
	all := make([]any, 0, int(kept)+len(tail))
	all = append(append(all, have[:int(kept)]...), tail...)
	d.histories[int64(slot)] = all
	values[at] = all
	return true
}

// wireBreakpoints is crew.Breakpoints as the bridge matches them.
type wireBreakpoints struct {
	Every     bool     `json:"every,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Servers   []string `json:"servers,omitempty"`
	OnFailure bool     `json:"on_failure,omitempty"`
	LLMCalls  bool     `json:"llm_calls,omitempty"`
}

func toWire(bp crew.Breakpoints) wireBreakpoints {
	return wireBreakpoints{Every: bp.Every, Tools: bp.Tools, Servers: bp.Servers, OnFailure: bp.OnFailure, LLMCalls: bp.LLMCalls}
}

// wireOut is a line crewbench sends: the config (the run's breakpoints,
// once, before any hook can run: they are fixed for a watched run) or a
// decision for a pause.
type wireOut struct {
	Op          string           `json:"op"`
	Breakpoints *wireBreakpoints `json:"breakpoints,omitempty"`
	ID          int64            `json:"id,omitempty"`
	Action      string           `json:"action,omitempty"`
	Step        bool             `json:"step,omitempty"`
	Args        json.RawMessage  `json:"args,omitempty"`
	Result      *string          `json:"result,omitempty"`
	Messages    []map[string]any `json:"messages,omitempty"`
}

// reorder puts a connection's messages back into the order the bridge
// stamped at emit time: CrewAI handles events on a 10-thread pool, so they
// reach the socket unordered. A missing sequence number is waited for at
// most gap; after that the buffer moves on (an event can be lost to a
// crashing handler thread), and a straggler is delivered when it arrives.
type reorder struct {
	next    int64
	pending map[int64]wireMsg
	gap     time.Duration
	// stalled is when the buffer started waiting for next; zero when not waiting.
	stalled time.Time
	// out is what push and drain return, reused: each result is read
	// before the next call.
	out []wireMsg
}

func newReorder(gap time.Duration) *reorder {
	return &reorder{next: 1, pending: map[int64]wireMsg{}, gap: gap}
}

// push adds m and returns what can be delivered now, in order, valid
// until the next push or drain.
func (r *reorder) push(m wireMsg, now time.Time) []wireMsg {
	if m.Seq < r.next || (m.Seq == r.next && len(r.pending) == 0) {
		// A straggler the buffer already gave up on, or (nearly always:
		// one writer thread sends the lines in order) the next one.
		if m.Seq == r.next {
			r.next++
		}
		r.out = append(r.out[:0], m)
		return r.out
	}
	r.pending[m.Seq] = m
	return r.drain(now, false)
}

// drain delivers the in-order prefix; with force, or once the gap wait is
// over, it skips to the lowest pending sequence number first. What it
// returns is valid until the next push or drain.
func (r *reorder) drain(now time.Time, force bool) []wireMsg {
	out := r.out[:0]
	for len(r.pending) > 0 {
		m, ok := r.pending[r.next]
		if !ok {
			if !force && (r.stalled.IsZero() || now.Sub(r.stalled) < r.gap) {
				if r.stalled.IsZero() {
					r.stalled = now
				}
				break
			}
			r.next = r.lowest()
			continue
		}
		delete(r.pending, r.next)
		r.next++
		r.stalled = time.Time{}
		out = append(out, m)
	}
	if len(r.pending) == 0 {
		r.stalled = time.Time{}
	}
	r.out = out
	return out
}

func (r *reorder) lowest() int64 {
	low := int64(-1)
	for s := range r.pending {
		if low < 0 || s < low {
			low = s
		}
	}
	return low
}

// waiting reports how long until the gap wait ends (0 when not waiting).
func (r *reorder) waiting(now time.Time) time.Duration {
	if r.stalled.IsZero() || len(r.pending) == 0 {
		return 0
	}
	if d := r.gap - now.Sub(r.stalled); d > 0 {
		return d
	}
	return time.Nanosecond
}
