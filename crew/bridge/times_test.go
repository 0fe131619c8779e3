package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"
)

// timesScript feeds the bridge's _event_line events of a class with an
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
    sys.stdout.write(b._event_line((seq, spec, "Src", values)))
    print(json.dumps(list(values), default=b._json_default))
`

// Datetimes go as microseconds only where crewbench gives back exactly
// the string the bridge would have sent (a recorded session must not
// depend on the form): every line decodes to _json_default's values.
func TestDecodeTimesAsTheBridgeFormatsThem(t *testing.T) {
	dir := t.TempDir()
	if err := writePython(dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python3(t), "-c", timesScript)
	cmd.Env = append(cmd.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	dec := newLineDecoder()
	sc := bufio.NewScanner(bytes.NewReader(out))
	events, micros := 0, 0
	var pending *wireMsg
	for sc.Scan() {
		line := sc.Bytes()
		if pending == nil {
			if bytes.HasPrefix(line, []byte(`{"op":"class"`)) {
				dec.decode(line)
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
			m, ok := dec.decode(line)
			if !ok {
				t.Fatalf("line %s did not decode", line)
			}
			pending = &m
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
