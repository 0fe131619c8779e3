package bridge

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func seqs(ms []wireMsg) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.Seq)
	}
	return out
}

func TestReorderWaitsForGapsThenMovesOn(t *testing.T) {
	r := newReorder(100 * time.Millisecond)
	t0 := time.Now()
	if got := seqs(r.push(wireMsg{Seq: 2}, t0)); len(got) != 0 {
		t.Fatalf("delivered %v before 1", got)
	}
	if got := seqs(r.push(wireMsg{Seq: 1}, t0)); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("got %v", got)
	}
	r.push(wireMsg{Seq: 4}, t0)
	if r.waiting(t0) == 0 {
		t.Fatal("not waiting for 3")
	}
	if got := seqs(r.drain(t0.Add(150*time.Millisecond), false)); len(got) != 1 || got[0] != 4 {
		t.Fatalf("after the gap: %v", got)
	}
	if got := seqs(r.push(wireMsg{Seq: 3}, t0)); len(got) != 1 || got[0] != 3 {
		t.Fatalf("straggler: %v", got)
	}
}

// The lines crewbench sends are the ones crewbench_bridge.py reads: a
// config carrying the breakpoints, then decisions. Nothing else exists
// (breakpoints are fixed for a watched run).
func TestWireLinesTheBridgeReads(t *testing.T) {
	empty := ""
	for _, tc := range []struct {
		name string
		out  wireOut
		want string
	}{
		{"config", wireOut{Op: "config", Breakpoints: &wireBreakpoints{Tools: []string{"getForecast"}, Servers: []string{"weather"}, LLMCalls: true}},
			`{"op":"config","breakpoints":{"tools":["getForecast"],"servers":["weather"],"llm_calls":true}}`},
		{"config without breakpoints", wireOut{Op: "config", Breakpoints: &wireBreakpoints{}}, `{"op":"config","breakpoints":{}}`},
		{"continue", wireOut{Op: "decision", ID: 3, Action: "continue"}, `{"op":"decision","id":3,"action":"continue"}`},
		{"step", wireOut{Op: "decision", ID: 3, Action: "continue", Step: true}, `{"op":"decision","id":3,"action":"continue","step":true}`},
		{"edit args", wireOut{Op: "decision", ID: 4, Action: "edit_args", Args: json.RawMessage(`{"city": "Lisbon"}`)},
			`{"op":"decision","id":4,"action":"edit_args","args":{"city":"Lisbon"}}`},
		{"skip with an empty result", wireOut{Op: "decision", ID: 5, Action: "skip", Result: &empty}, `{"op":"decision","id":5,"action":"skip","result":""}`},
		{"edit messages", wireOut{Op: "decision", ID: 6, Action: "edit_messages", Messages: []map[string]any{{"role": "user", "content": "hi"}}},
			`{"op":"decision","id":6,"action":"edit_messages","messages":[{"content":"hi","role":"user"}]}`},
		{"abort", wireOut{Op: "decision", ID: 7, Action: "abort"}, `{"op":"decision","id":7,"action":"abort"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
	// The bridge reads exactly these ops.
	src, err := pythonFiles.ReadFile("python/crewbench_bridge.py")
	if err != nil {
		t.Fatal(err)
	}
	ops := regexp.MustCompile(`op == "(\w+)"`).FindAllStringSubmatch(string(src), -1)
	var got []string
	for _, m := range ops {
		got = append(got, m[1])
	}
	if strings.Join(got, " ") != "config decision" {
		t.Fatalf("the bridge handles ops %v, want config and decision", got)
	}
}

// An event line is [seq, class id, source, values] after its class line;
// a summarised object field that is null is left out, as an "event" object
// line leaves it out, and one that is a number is the summary an obj line
// gave under that number.
func TestDecodeLineReadsClassesAndCompactEvents(t *testing.T) {
	dec := newLineDecoder()
	for _, tc := range []struct {
		name, line string
		ok         bool
		want       wireMsg
	}{
		{"class line", `{"op":"class","id":2,"class":"TaskStartedEvent","fields":["type","context","task"],"objects":["task"]}`,
			false, wireMsg{}},
		{"event of a known class", `[7,2,"Task",["task_started",null,{"name":"t","id":"1"}]]`, true,
			wireMsg{Op: "event", Seq: 7, Class: "TaskStartedEvent", Source: "Task",
				Event: map[string]any{"type": "task_started", "context": nil, "task": map[string]any{"name": "t", "id": "1"}}}},
		{"a null object field is left out", `[8,2,"Task",["task_started","c",null]]`, true,
			wireMsg{Op: "event", Seq: 8, Class: "TaskStartedEvent", Source: "Task",
				Event: map[string]any{"type": "task_started", "context": "c"}}},
		{"unknown class", `[9,5,"Task",["x"]]`, false, wireMsg{}},
		{"wrong number of values", `[9,2,"Task",["x"]]`, false, wireMsg{}},
		{"not JSON", `[9,2,`, false, wireMsg{}},
		{"class with messages", `{"op":"class","id":3,"class":"LLMCallStartedEvent","fields":["call_id","messages"],"objects":[]}`,
			false, wireMsg{}},
		{"first messages of a history", `[10,3,"LLM",["c1",[{"role":"system"},{"role":"user"}]],[1,0]]`, true,
			wireMsg{Op: "event", Seq: 10, Class: "LLMCallStartedEvent", Source: "LLM", Event: map[string]any{"call_id": "c1",
				"messages": []any{map[string]any{"role": "system"}, map[string]any{"role": "user"}}}}},
		{"the same messages again", `[11,3,"LLM",["c1",[]],[1,2]]`, true,
			wireMsg{Op: "event", Seq: 11, Class: "LLMCallStartedEvent", Source: "LLM", Event: map[string]any{"call_id": "c1",
				"messages": []any{map[string]any{"role": "system"}, map[string]any{"role": "user"}}}}},
		{"one kept, one new", `[12,3,"LLM",["c2",[{"role":"tool"}]],[1,1]]`, true,
			wireMsg{Op: "event", Seq: 12, Class: "LLMCallStartedEvent", Source: "LLM", Event: map[string]any{"call_id": "c2",
				"messages": []any{map[string]any{"role": "system"}, map[string]any{"role": "tool"}}}}},
		{"more kept than the slot has", `[13,3,"LLM",["c3",[]],[1,3]]`, false, wireMsg{}},
		{"a history on a class without messages", `[14,2,"Task",["task_started","c",null],[1,0]]`, false, wireMsg{}},
		{"obj line", `{"op":"obj","id":4,"value":{"name":"t","id":"1"}}`, false, wireMsg{}},
		{"an object field as a known obj's number", `[15,2,"Task",["task_started","c",4]]`, true,
			wireMsg{Op: "event", Seq: 15, Class: "TaskStartedEvent", Source: "Task",
				Event: map[string]any{"type": "task_started", "context": "c", "task": map[string]any{"name": "t", "id": "1"}}}},
		{"a number in a field that is not an object's stays", `[16,2,"Task",["task_started",4,null]]`, true,
			wireMsg{Op: "event", Seq: 16, Class: "TaskStartedEvent", Source: "Task",
				Event: map[string]any{"type": "task_started", "context": float64(4)}}},
		{"an unknown obj's number", `[17,2,"Task",["task_started","c",5]]`, false, wireMsg{}},
		{"op line", `{"op":"warning","seq":3,"message":"m"}`, true, wireMsg{Op: "warning", Seq: 3, Message: "m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := dec.decode([]byte(tc.line), nil)
			if ok := len(got) == 1; ok != tc.ok {
				t.Fatalf("delivered %d, want ok %v", len(got), tc.ok)
			}
			if tc.ok && !reflect.DeepEqual(got[0], tc.want) {
				t.Fatalf("got  %#v\nwant %#v", got[0], tc.want)
			}
		})
	}
}

// The writer sends a run of compact events as one line, the array of
// them: each is delivered as its own line would be, in order (a history
// slot carried on from one to the next), and one that is not valid is
// left out without the others.
func TestDecodeLineReadsRunsOfEvents(t *testing.T) {
	dec := newLineDecoder()
	lines := []string{
		`{"op":"class","id":1,"class":"LLMCallStartedEvent","fields":["timestamp","messages"],"objects":[],"utc":[0],"naive":[]}`,
		`[[1,1,"LLM",[1764740189405978,[{"role":"system"}]],[1,0]],[2,1,"LLM",["x"]],` +
			`[3,1,"LLM",[null,[{"role":"user"}]],[1,1]],7,[4,9,"LLM",[1,[]]]]`,
	}
	var got []wireMsg
	for _, l := range lines {
		got = dec.decode([]byte(l), got)
	}
	want := []wireMsg{
		{Op: "event", Seq: 1, Class: "LLMCallStartedEvent", Source: "LLM", Event: map[string]any{
			"timestamp": "2025-12-03T05:36:29.405978Z", "messages": []any{map[string]any{"role": "system"}}}},
		{Op: "event", Seq: 3, Class: "LLMCallStartedEvent", Source: "LLM", Event: map[string]any{
			"timestamp": nil, "messages": []any{map[string]any{"role": "system"}, map[string]any{"role": "user"}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

// unmarshalArray is what event lines were decoded with before
// decodeArray: the reference it must agree with on every input.
func unmarshalArray(b []byte) ([]any, bool) {
	var arr []any
	if json.Unmarshal(b, &arr) != nil || arr == nil { // null is not an array
		return nil, false
	}
	return arr, true
}

// decodeArrayCases are lines at the edges where Python's JSON grammar, the
// fast path's, and encoding/json's differ, or where values could come out
// differently typed.
var decodeArrayCases = []string{
	`[1,2,"Task",["task_started",null,{"name":"t","id":"1"}]]` + "\n",
	`[1,-0,0.5,1e3,1E-2,-12.5e+2,123456789012345678901234567890,5e-324,1.7976931348623157e308]`,
	`[1e400]`, `[-1e400]`, `[NaN]`, `[Infinity]`, `[-Infinity]`, `[01]`, `[1.]`, `[.5]`, `[1e]`, `[+1]`, `[-]`,
	`[[],{},[{}],{"a":[]}]`, `[{"a":1,"a":2,"b":{"a":3}}]`, ` [ 1 , "x" ] ` + "\r\n\t",
	`["a\"b\\c\/d\b\f\n\r\t","\u00e9\u20ac\ud83d\ude00","\ud800","\udc00x","\ud800\u0041","\ud800\ud800"]`,
	`["é€😀"]`, "[\"\xff\"]", "[\"a\xc3\"]", "[\"\x01\"]", `["\x"]`, `["\u12"]`, `["\u12g4"]`, `["abc`, `[1,]`, `[,1]`,
	`[1 2]`, `[1]x`, `[1][2]`, `{"a":1}`, `"s"`, `null`, `[]`, `[true,false,null]`, `[tru]`, `[nul]`,
	"\uFEFF[1]", `[{"a" 1}]`, `[{1:2}]`, `[{"a":1,}]`,
	strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
	strings.Repeat("[", 10000) + "1" + strings.Repeat("]", 10000),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[{\"a\":", 5001) + "1" + strings.Repeat("}]", 5001),
}

// The fast decoder of event lines gives exactly what json.Unmarshal gives,
// and refuses exactly what it refuses: a line comes from another process.
func TestDecodeArrayAgreesWithEncodingJSON(t *testing.T) {
	jb := &jsonValues{strs: map[string]any{}} // shared, as a connection's lines share it
	for _, line := range append(decodeArrayCases, decodeArrayCases...) {
		name := line
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			checkDecodeArray(t, jb, []byte(line))
		})
	}
}

func checkDecodeArray(t *testing.T, jb *jsonValues, b []byte) {
	t.Helper()
	want, wantOK := unmarshalArray(b)
	got, ok := decodeArray(b, jb)
	if ok != wantOK {
		t.Fatalf("decodeArray(%q) ok = %v, encoding/json's %v", b, ok, wantOK)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeArray(%q)\n got  %#v\n want %#v", b, got, want)
	}
}

func FuzzDecodeArray(f *testing.F) {
	for _, line := range decodeArrayCases {
		if len(line) < 1000 {
			f.Add([]byte(line))
		}
	}
	jb := &jsonValues{strs: map[string]any{}}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeArray(t, jb, b)
	})
}

// FuzzLineDecoder feeds a connection's worth of lines (class, obj and
// event lines, runs, histories, garbage) to one decoder: whatever the
// bridge, or something pretending to be it, sends, decoding never panics
// and every delivered event belongs to a class it announced.
func FuzzLineDecoder(f *testing.F) {
	f.Add([]byte(`{"op":"class","id":2,"class":"TaskStartedEvent","fields":["type","task"],"objects":["task"]}
{"op":"obj","id":1,"value":{"name":"t"}}
[[7,2,"Task",["task_started",1]],[8,2,"Task",["task_started",{"name":"u"}]]]
[9,2,"Task",["task_started",2]]`))
	f.Add([]byte(`{"op":"class","id":3,"class":"LLMCallStartedEvent","fields":["messages","agent"],"objects":["agent"],"utc":[0]}
[10,3,"LLM",[[{"role":"user"}],null],[1,0]]
[11,3,"LLM",[[],1e300],[1,5]]
{"op":"obj","id":-1,"value":null}
[12,3,"LLM",[12,-1]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dec := newLineDecoder()
		for _, line := range bytes.Split(b, []byte("\n")) {
			got := dec.decode(line, nil)
			if len(line) == 0 || line[0] != '[' {
				continue
			}
			for _, m := range got {
				announced := false
				for _, c := range dec.classes {
					announced = announced || c.name == m.Class
				}
				if !announced || m.Event == nil {
					t.Fatalf("%q delivered %#v: not an event of an announced class", line, m)
				}
			}
		}
	})
}
