package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"
)

// timesScript feeds the bridge's _event_lines events of a class with an
// aware (UTC) and a naive datetime field, and prints each line followed by
// the values as _json_default formats them (what the bridge sent before
// datetimes went as microseconds): the edges of the microsecond form
// (no fraction, before 1970, the float64 limit, years out of it), the
// values that keep their own form (other time zones, subclasses, None,
// strings), and numbers of their own (which must not read as times).
const timesScript = `
import datetime as D, json, sys, zoneinfo
import crewbench_bridge as b

class Ev:
    model_fields = {"timestamp": None, "started_at": None, "n": None}

class Sub(D.datetime):
    pass

utc = D.timezone.utc
spec = b._Spec(Ev)
cases = [
    (D.datetime(2026, 12, 3, 5, 36, 29, 405978, tzinfo=utc), D.datetime(2026, 12, 3, 5, 36, 29, 408516), 1),
    (D.datetime(2026, 12, 3, 5, 36, 29, tzinfo=utc), D.datetime(2026, 12, 3), 2),
    (D.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=utc), D.datetime(1900, 2, 28, 1, 2, 3, 4), 3),
    (D.datetime(1, 1, 1, tzinfo=utc), D.datetime(9999, 12, 31, 23, 59, 59, 999999), 4),
    (D.datetime(1685, 1, 1, tzinfo=utc), D.datetime(2255, 6, 1, 12, 0, 0, 1), 5),
    (D.datetime(2026, 1, 1, tzinfo=D.timezone(D.timedelta(hours=2))), D.datetime(2026, 1, 1, tzinfo=utc), 6),
    (D.datetime(2026, 1, 1, tzinfo=zoneinfo.ZoneInfo("UTC")), Sub(2026, 1, 1, 1), 7),
    (None, "2026-01-01T00:00:00", None),
    (5, D.datetime(2026, 1, 1, 0, 0, 0, 10), 9),
    (D.datetime(2026, 1, 1, 0, 0, 0, 10, tzinfo=utc), 1.5, 10),
    (True, D.datetime(2026, 1, 1, 0, 0, 0, 10), 11),
]
for seq, values in enumerate(cases, 1):
    sys.stdout.write(b._event_lines([(seq, spec, "Src", values)]))
    print(json.dumps(list(values), default=b._json_default))
`

// Datetimes go as microseconds only where crewbench gives back exactly
// the string the bridge would have sent (a recorded session must not
// depend on the form): every line decodes to _json_default's values.
func TestDecodeTimesAsTheBridgeFormatsThem(t *testing.T) {
	out := runBridgeScript(t, timesScript)
	dec := newLineDecoder()
	sc := bufio.NewScanner(bytes.NewReader(out))
	events, micros := 0, 0
	var pending *wireMsg
	for sc.Scan() {
		line := sc.Bytes()
		if pending == nil {
			if bytes.HasPrefix(line, []byte(`{"op":"class"`)) {
				dec.decode(line, nil)
				continue
			}
			var raw []any
			if json.Unmarshal(line, &raw) == nil && len(raw) == 4 {
				vs, _ := raw[3].([]any)
				for _, v := range vs[:2] {
					if _, isNumber := v.(float64); isNumber {
						micros++ // a time went as microseconds
					}
				}
			}
			ms := dec.decode(line, nil)
			if len(ms) != 1 {
				t.Fatalf("line %s delivered %d events", line, len(ms))
			}
			pending = &ms[0]
			continue
		}
		var want []any
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("expected values %s: %v", line, err)
		}
		got := []any{pending.Event["timestamp"], pending.Event["started_at"], pending.Event["n"]}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("event %d: got %#v, want %#v", pending.Seq, got, want)
		}
		pending = nil
		events++
	}
	if events != 11 || micros < 8 {
		t.Fatalf("%d events checked (%d with a time as microseconds), want 11\n%s", events, micros, out)
	}
}

// runsScript has the bridge's writer encode LLM events of one history
// slot in runs: one whose value needs _finite (the run's line falls back
// to a line each), one whose value cannot be encoded at all (its line is
// lost: only its envelope goes), then events that must not count on what
// crewbench never got (in the same run, and after a run whose last
// line was lost). It prints the lines, then each event's messages
// in full (none for the lost one).
const runsScript = `
import json, sys
import crewbench_bridge as b

class Ev:
    model_fields = {"task_id": None, "agent_id": None, "messages": None, "x": None}

class Bad:
    def __repr__(self):
        raise RuntimeError("no repr")

spec = b._Spec(Ev)
m = [{"role": "system", "content": "s"}] + [{"role": "user", "content": str(i)} for i in range(6)]
runs = [
    [(m[:1], 1), (m[:2], float("nan")), (m[:3], Bad()), (m[:4], 2)],
    [(m[:5], 3), (m[:6], Bad())],
    [(m[:7], 5)],
]
seq, want = 0, []
for run in runs:
    items = []
    for msgs, x in run:
        seq += 1
        items.append((seq, spec, "LLM", ("t1", "a1", list(msgs), x)))
        want.append(None if isinstance(x, Bad) else msgs)
    sys.stdout.write(b._event_lines(items))
print("WANT " + json.dumps(want))
`

func TestBridgeRunsKeepHistoriesWhenALineFails(t *testing.T) {
	out := runBridgeScript(t, runsScript)
	before, wantLine := splitWant(t, out)
	var want []any
	if err := json.Unmarshal(wantLine, &want); err != nil {
		t.Fatal(err)
	}
	got := decodeLines(before)
	if len(got) != len(want) {
		t.Fatalf("%d events delivered, want %d:\n%s", len(got), len(want), out)
	}
	for i, m := range got {
		if want[i] == nil { // the lost one: its envelope, with the error
			if m.Event["crewbench_serialization_error"] == nil {
				t.Errorf("event %d: %#v, want its envelope", m.Seq, m.Event)
			}
			continue
		}
		if !reflect.DeepEqual(m.Event["messages"], want[i]) {
			t.Errorf("event %d: messages %#v, want %#v", m.Seq, m.Event["messages"], want[i])
		}
	}
	if x := got[1].Event["x"]; x != nil {
		t.Errorf("NaN came as %#v, want null (as pydantic gives it)", x)
	}
}

// captureScript captures events the way the bridge does on the emitting
// thread: fields read from __dict__ (pydantic keeps them there), from
// attributes when a class keeps them elsewhere (slots), and the event
// itself when a field was never set (model_construct), for model_dump.
const captureScript = `
import collections
import crewbench_bridge as b

class Conn:
    idle = False
    events = collections.deque()

class Ev:
    model_fields = {"a": None, "b": None}
    def __init__(self):
        self.a, self.b = 1, [2]

class Slots:
    model_fields = {"a": None, "b": None}
    __slots__ = ("a", "b")
    def __init__(self):
        self.a, self.b = 3, 4

unset = Ev()
del unset.b
b._conn = Conn()
for seq, ev in enumerate([Ev(), Slots(), unset], 1):
    b._capture(object(), ev, seq)
print(" ".join(repr(it[3]) if isinstance(it[3], tuple) else type(it[3]).__name__ for it in b._conn.events))
`

func TestBridgeCaptureReadsFieldsWhereTheyAre(t *testing.T) {
	out := runBridgeScript(t, captureScript)
	if got, want := string(bytes.TrimSpace(out)), "(1, [2]) (3, 4) Ev"; got != want {
		t.Fatalf("captured %s, want %s", got, want)
	}
}

// refsScript sends events whose agent and task are the previous events'
// (their summaries then go as numbers), an agent whose role changed (as
// CrewAI's input interpolation changes it: sent again), a new agent, and
// an LLM call's tools (function schemas: kept as data), one _event_lines
// call each, as the writer's chunks; then WANT and the summaries each
// event must decode to.
const refsScript = `
import json, uuid
import crewbench_bridge as b

class Ev:
    model_fields = {"agent": None, "task": None, "tools": None}

class Agent:
    def __init__(self, role):
        self.role, self.id = role, uuid.uuid4()

class Task:
    def __init__(self):
        self.name, self.id, self.description = "count", uuid.uuid4(), "Count words."

class Tool:
    name = "word_counter"

a, t = Agent("Researcher"), Task()
schemas = [{"type": "function", "function": {"name": "word_counter", "parameters": {"type": "object"}}}]
spec = b._Spec(Ev)
events = [(a, t, [Tool()]), (a, t, None), (a, None, schemas)]
want = []
for seq, values in enumerate(events, 1):
    print(b._event_lines([(seq, spec, "Src", values)]), end="")
    want.append([b._summary(n, v) if v is not None else None for n, v in zip(spec.names, values)])
a.role = "Senior Researcher"
other = Agent("Writer")
for seq, values in enumerate([(a, t, None), (other, t, None), (a, t, None)], len(events) + 1):
    print(b._event_lines([(seq, spec, "Src", values)]), end="")
    want.append([b._summary(n, v) if v is not None else None for n, v in zip(spec.names, values)])
print("WANT " + json.dumps(want, default=str))
`

// An agent's or task's summary goes once and then as its number; the
// events decode to the same summaries as when each carried its own, a
// changed object is sent again, and an LLM call's tools stay schemas.
func TestBridgeSendsObjectSummariesOnce(t *testing.T) {
	out := runBridgeScript(t, refsScript)
	before, wantLine := splitWant(t, out)
	var want [][]any
	if err := json.Unmarshal(wantLine, &want); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(before, []byte(`"op":"obj"`)); n != 4 {
		// the agent, the task, the agent again after its role changed, the other agent
		t.Errorf("%d obj lines, want 4:\n%s", n, before)
	}
	if n := bytes.Count(before, []byte(`"Senior Researcher"`)); n != 1 {
		t.Errorf("the changed role went %d times, want once:\n%s", n, before)
	}
	got := decodeLines(before)
	if len(got) != len(want) {
		t.Fatalf("%d events delivered, want %d:\n%s", len(got), len(want), out)
	}
	for i, m := range got {
		for j, name := range []string{"agent", "task", "tools"} {
			if !reflect.DeepEqual(m.Event[name], want[i][j]) {
				t.Errorf("event %d: %s %#v, want %#v", m.Seq, name, m.Event[name], want[i][j])
			}
		}
	}
	var schemas any
	if err := json.Unmarshal([]byte(`[{"type":"function","function":{"name":"word_counter","parameters":{"type":"object"}}}]`), &schemas); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[2].Event["tools"], schemas) {
		t.Errorf("LLM tools came as %#v, want the schemas", got[2].Event["tools"])
	}
}

// runBridgeScript runs a Python script with the bridge importable (and no
// crewai) and returns what it printed.
func runBridgeScript(t *testing.T, script string) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := writePython(dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python3(t), "-c", script)
	cmd.Env = append(cmd.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return out
}

// splitWant splits a script's output into the bridge's lines and the JSON
// after "WANT ".
func splitWant(t *testing.T, out []byte) (lines, want []byte) {
	t.Helper()
	lines, want, found := bytes.Cut(out, []byte("WANT "))
	if !found {
		t.Fatalf("no WANT line:\n%s", out)
	}
	return lines, want
}

// decodeLines decodes one connection's lines in order, with one decoder.
func decodeLines(lines []byte) []wireMsg {
	dec := newLineDecoder()
	var got []wireMsg
	for _, line := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		got = dec.decode(line, got)
	}
	return got
}
