package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stdEventJSON is what the recorder wrote before it had eventEncoder:
// encoding/json with HTML escaping off.
func stdEventJSON(ev Event) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(ev)
	return buf.Bytes(), err
}

// checkSameAsEncodingJSON fails when eventEncoder writes ev differently
// from encoding/json, or accepts what encoding/json refuses.
func checkSameAsEncodingJSON(t *testing.T, e *eventEncoder, name string, ev Event) {
	t.Helper()
	want, wantErr := stdEventJSON(ev)
	got, ok := e.appendEvent([]byte("prefix"), &ev)
	switch {
	case wantErr != nil && ok:
		t.Errorf("%s: encoding/json refuses it (%v), the fast encoder wrote %s", name, wantErr, got)
	case wantErr == nil && !ok:
		// Declining is allowed (the recorder then asks encoding/json),
		// but nothing the recorder sees in practice may take that path.
		t.Errorf("%s: the fast encoder declined what encoding/json writes: %s", name, want)
	case ok && string(got) != "prefix"+string(want):
		t.Errorf("%s:\n got %s\nwant prefix%s", name, got, want)
	case !ok && string(got) != "prefix":
		t.Errorf("%s: a declined event left %q behind", name, got)
	}
}

type encodeStruct struct {
	A string `json:"a"`
	B []int  `json:"b,omitempty"`
}

// Every field the Event struct has, set: a field added to Event and
// not to the encoder shows up here.
func fullEvent(t *testing.T) Event {
	t.Helper()
	var ev Event
	v := reflect.ValueOf(&ev).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("v-" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]any{"k": "v"}))
		case reflect.Struct:
			f.Set(reflect.ValueOf(time.Date(2026, 12, 2, 16, 0, i, 123456789, time.UTC)))
		default:
			t.Fatalf("Event.%s is a %s: teach eventEncoder and this test about it", v.Type().Field(i).Name, f.Kind())
		}
	}
	return ev
}

func TestEventEncoderMatchesEncodingJSON(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	strs := []string{"", "plain", `quote " backslash \ slash /`, "<b>&amp;</b>", "tab\tnl\ncr\rbs\bff\f",
		"\x00\x01\x1f\x7f", "bad utf8 \xff\xfe end", "\xe2\x80", "line\u2028para\u2029", "é ü 日本 🙂",
		"«redacted»", strings.Repeat("x", 5000)}
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.125,
		5e-324, math.MaxFloat64, 1e-100, 3.0e-10}
	values := map[string]any{
		"nil": nil, "true": true, "false": false, "int": 42, "int64": int64(-7), "int32": int32(3), "uint64": uint64(1 << 63),
		"uint8": uint8(9), "float32": float32(0.1), "kind": ToolUsageStarted, "duration": 1500 * time.Millisecond,
		"time": time.Date(2026, 1, 2, 3, 4, 5, 6, cet), "raw": json.RawMessage(`{ "b": 1, "a" : [ 2 ] }`),
		"number": json.Number("12.50"), "bytes": []byte("hi<>"), "struct": encodeStruct{A: "<x>"}, "ptr": &encodeStruct{B: []int{1}},
		"nil slice": []any(nil), "nil map": map[string]any(nil), "nil strings": []string(nil), "empty": []any{},
		"strings": []string{"a", "<b>"}, "string map": map[string]string{"z": "1", "a": "<2>", "\xff": "k"},
		"nested":        map[string]any{"b": []any{map[string]any{"y": 1.5, "x": []any{nil, "s", map[string]string{"k": "v"}}}}, "a": map[string]any{}},
		"lists of maps": []any{map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c1"}}}},
		"error":         errors.New("boom"), "headers": map[string][]string{"B": {"1"}, "A": nil},
	}
	for i, s := range strs {
		values["str"+string(rune('a'+i))] = s
		values[s] = i // as a key too
	}
	for i, f := range floats {
		values["float"+string(rune('a'+i))] = f
		values["neg float"+string(rune('a'+i))] = -f
	}
	e := newEventEncoder()
	full := fullEvent(t)
	checkSameAsEncodingJSON(t, e, "every Event field set", full)
	checkSameAsEncodingJSON(t, e, "zero event", Event{})
	checkSameAsEncodingJSON(t, e, "all value types", Event{Seq: 1, Kind: LLMCallStarted, Data: values})
	zoned := full
	zoned.Time, zoned.Timestamp = time.Date(2026, 1, 2, 3, 4, 5, 0, cet), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)
	checkSameAsEncodingJSON(t, e, "zoned times", zoned)
	for i, s := range strs {
		ev := full
		ev.TaskName, ev.Error, ev.Kind = s, s, Kind(s)
		checkSameAsEncodingJSON(t, e, "string "+string(rune('a'+i)), ev)
	}

	// Data of one size with other keys (the encoder remembers the last few
	// sorted key sets per size), alternating, and more sets than it keeps.
	sameSize := []map[string]any{{"a": 1, "b": 2}, {"a": 1, "c": 2}, {"b": 1, "c": 2}, {"c": 3, "b": 4}, {"a": 1, "b": 2}}
	for i := range 2*shapesPerSize + 1 {
		sameSize = append(sameSize, map[string]any{"k" + strconv.Itoa(i): 1, "a": 2}, map[string]any{"b": 1, "a": 2})
	}
	for i, data := range sameSize {
		checkSameAsEncodingJSON(t, e, "same size, other keys "+strconv.Itoa(i), Event{Data: data})
	}

	// What encoding/json refuses, the fast encoder declines, leaving dst as it was.
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for name, ev := range map[string]Event{
		"NaN":         {Data: map[string]any{"x": math.NaN()}},
		"inf in list": {Data: map[string]any{"x": []any{1, math.Inf(-1)}}},
		"year 10000":  {Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"channel":     {Data: map[string]any{"c": make(chan int)}},
	} {
		checkSameAsEncodingJSON(t, e, name, ev)
	}
	if _, ok := e.appendEvent(nil, &Event{Data: cyclic}); ok {
		t.Error("a cyclic map was encoded")
	}
}

// The events a crew run records (the demo's, every kind of payload) and
// the LLM requests of every golden, as Data decoded from JSON.
func TestEventEncoderMatchesEncodingJSONOnRecordedEvents(t *testing.T) {
	e := newEventEncoder()
	for i, ev := range manyEvents(2000) {
		checkSameAsEncodingJSON(t, e, "demo event "+strconv.Itoa(i)+" "+string(ev.Kind), DefaultRedactor.RedactEvent(ev))
	}
	files, _ := filepath.Glob("../testdata/goldens/golden/*/llm_requests.jsonl")
	if len(files) == 0 {
		t.Fatal("no golden LLM requests found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var data map[string]any
			if json.Unmarshal(sc.Bytes(), &data) != nil {
				continue
			}
			checkSameAsEncodingJSON(t, e, f, Event{Seq: 3, Kind: LLMCallStarted, Data: data})
		}
	}
}

func FuzzEventEncoder(f *testing.F) {
	f.Add("text", "key", 1.5, int64(3))
	f.Add("\xff\u2028<&>\x00", "\"", 1e-7, int64(-1))
	e := newEventEncoder()
	f.Fuzz(func(t *testing.T, s, key string, x float64, n int64) {
		ev := Event{Seq: n, Kind: Kind(s), TaskName: s, Duration: time.Duration(n),
			Data: map[string]any{key: s, "f": x, "l": []any{s, x, map[string]any{key: n}}}}
		checkSameAsEncodingJSON(t, e, "fuzz", ev)
	})
}
