package session

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// eventEncoder writes an Event as encoding/json does (with HTML escaping
// off, as the recorder's encoder is set), byte for byte, without
// reflection: the recorder encodes every event, and a watched run's LLM
// events carry the whole conversation so far, so reflection, key sorting
// through reflect.Value and the allocations that go with them were most of
// its CPU. Values of types it does not know (structs, Marshalers, named
// types) are encoded by encoding/json itself, one value at a time.
// TestEventEncoderMatchesEncodingJSON holds it to encoding/json's output.
type eventEncoder struct {
	keys [][]string // scratch for sorting a map's keys, per depth
	// shapes are the sorted keys of the last few event Data key sets of
	// each size: a run's events come in a few shapes (a watched run's, one
	// per CrewAI event class), so sorting again is mostly not needed. Several
	// per size, because classes of the same size alternate (a watched run's
	// LLM call starts and tool call finishes), and one per size missed 9 in
	// 10 events.
	shapes map[int][][]string
	val    bytes.Buffer // scratch for a value encoding/json encodes
	enc    *json.Encoder
}

func newEventEncoder() *eventEncoder {
	e := &eventEncoder{shapes: map[int][][]string{}}
	e.enc = json.NewEncoder(&e.val)
	e.enc.SetEscapeHTML(false)
	return e
}

// maxEncodeDepth bounds the nesting the encoder follows; deeper data (or a
// cycle, which encoding/json reports as an error) is left to encoding/json.
const maxEncodeDepth = 100

// appendEvent appends ev's JSON and a newline, as json.Encoder.Encode
// writes it. ok is false when ev holds something encoding/json refuses
// (NaN, a cycle, a channel) or nests too deep: dst is then returned
// unchanged, for the caller to ask encoding/json, which says why.
func (e *eventEncoder) appendEvent(dst []byte, ev *Event) (_ []byte, ok bool) {
	start := len(dst)
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendInt(dst, ev.Seq, 10)
	dst = append(dst, `,"time":`...)
	if dst, ok = appendTime(dst, ev.Time); !ok {
		return dst[:start], false
	}
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, string(ev.Kind))
	dst = appendOptString(dst, `,"event_id":`, ev.ID)
	if !ev.Timestamp.IsZero() {
		dst = append(dst, `,"timestamp":`...)
		if dst, ok = appendTime(dst, ev.Timestamp); !ok {
			return dst[:start], false
		}
	}
	dst = appendOptString(dst, `,"source_type":`, ev.SourceType)
	dst = appendOptString(dst, `,"parent_event_id":`, ev.ParentEventID)
	dst = appendOptString(dst, `,"previous_event_id":`, ev.PreviousEventID)
	dst = appendOptString(dst, `,"started_event_id":`, ev.StartedEventID)
	dst = appendOptInt(dst, `,"emission_sequence":`, ev.EmissionSequence)
	dst = appendOptString(dst, `,"span":`, ev.Span)
	dst = appendOptString(dst, `,"parent":`, ev.Parent)
	dst = appendOptString(dst, `,"run_id":`, ev.RunID)
	dst = appendOptString(dst, `,"task_id":`, ev.TaskID)
	dst = appendOptString(dst, `,"task_name":`, ev.TaskName)
	dst = appendOptString(dst, `,"agent_id":`, ev.AgentID)
	dst = appendOptString(dst, `,"agent_role":`, ev.AgentRole)
	dst = appendOptString(dst, `,"server_name":`, ev.Server)
	dst = appendOptString(dst, `,"tool_name":`, ev.ToolName)
	dst = appendOptString(dst, `,"original_tool_name":`, ev.OriginalToolName)
	dst = appendOptInt(dst, `,"attempt":`, int64(ev.Attempt))
	dst = appendOptString(dst, `,"outcome":`, ev.Outcome)
	dst = appendOptString(dst, `,"error":`, ev.Error)
	dst = appendOptString(dst, `,"error_type":`, ev.ErrorType)
	dst = appendOptInt(dst, `,"duration_ns":`, int64(ev.Duration))
	if len(ev.Data) > 0 {
		dst = append(dst, `,"data":`...)
		if dst, ok = e.appendMap(dst, ev.Data, 1); !ok {
			return dst[:start], false
		}
	}
	return append(dst, '}', '\n'), true
}

func appendOptString(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s)
}

func appendOptInt(dst []byte, key string, n int64) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, key...), n, 10)
}

// appendTime is time.Time's MarshalJSON (RFC 3339 with nanoseconds);
// ok is false for a year it refuses.
func appendTime(dst []byte, t time.Time) ([]byte, bool) {
	out, err := t.AppendText(append(dst, '"'))
	if err != nil {
		return dst, false
	}
	return append(out, '"'), true
}

func (e *eventEncoder) appendValue(dst []byte, v any, depth int) ([]byte, bool) {
	if depth > maxEncodeDepth {
		return dst, false
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendString(dst, x), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case float64:
		return appendFloat(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), true
	case uint64:
		return strconv.AppendUint(dst, x, 10), true
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), true
		}
		return e.appendMap(dst, x, depth+1)
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, el := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = e.appendValue(dst, el, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case []string:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, s := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, s)
		}
		return append(dst, ']'), true
	case map[string]string:
		if x == nil {
			return append(dst, "null"...), true
		}
		keys := sortedKeys(e, depth+1, x)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendString(dst, k), ':')
			dst = appendString(dst, x[k])
		}
		return append(dst, '}'), true
	}
	// Anything else as encoding/json encodes it on its own, which is how it
	// encodes it inside a map or slice too.
	e.val.Reset()
	if err := e.enc.Encode(v); err != nil {
		return dst, false
	}
	return append(dst, bytes.TrimSuffix(e.val.Bytes(), []byte{'\n'})...), true
}

// appendMap writes m with its keys sorted, as encoding/json does.
func (e *eventEncoder) appendMap(dst []byte, m map[string]any, depth int) ([]byte, bool) {
	var keys []string
	if depth == 1 {
		keys = e.dataKeys(m)
	} else {
		keys = sortedKeys(e, depth, m)
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(appendString(dst, k), ':')
		var ok bool
		if dst, ok = e.appendValue(dst, m[k], depth); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// dataKeys returns an event Data's keys sorted: those of a recent Data of
// its size when they are the same set.
func (e *eventEncoder) dataKeys(m map[string]any) []string {
	seen := e.shapes[len(m)]
	for _, keys := range seen {
		if sameKeys(keys, m) {
			return keys
		}
	}
	keys := slices.Clone(sortedKeys(e, 1, m))
	if len(e.shapes) >= 256 {
		clear(e.shapes) // a stream of ever new shapes: start over
	}
	if len(seen) >= shapesPerSize {
		seen = seen[1:] // forget the oldest
	}
	e.shapes[len(m)] = append(seen, keys)
	return keys
}

// shapesPerSize is how many key sets of one size dataKeys remembers.
const shapesPerSize = 8

// sameKeys reports whether m (of len(keys) entries) has exactly keys.
func sameKeys(keys []string, m map[string]any) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// sortedKeys returns m's keys sorted, in the scratch slice of depth (a
// nested map, one deeper, sorts into its own).
func sortedKeys[V any](e *eventEncoder, depth int, m map[string]V) []string {
	for len(e.keys) <= depth {
		e.keys = append(e.keys, nil)
	}
	keys := e.keys[depth][:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	e.keys[depth] = keys
	return keys
}

// appendFloat is encoding/json's float64: ES6 number formatting, an
// exponent only for very small or large values, without a padded exponent.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1] // e-09 → e-9
			dst = dst[:n-1]
		}
	}
	return dst, true
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does without HTML escaping:
// short escapes for \b \f \n \r \t, \u00XX for other control bytes, invalid
// UTF-8 as \ufffd, and U+2028/U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
