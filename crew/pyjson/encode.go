package pyjson

import (
	"crewbench/mcpconn/pyrepr"
	"fmt"
	"strings"
)

// Style selects one of the json.dumps forms CrewAI uses.
type Style struct {
	// Indent < 0 is the one-line form with ", " and ": " separators (the
	// default json.dumps, used in cache keys). Indent >= 0 puts each item on
	// its own line with "," and ": " separators (json.dumps(indent=n)).
	Indent int
	// KeepNonASCII is ensure_ascii=False. By default every character outside
	// printable ASCII is written as \uXXXX (lowercase hex, surrogate pairs).
	KeepNonASCII bool
	// Strict writes NaN and ±Infinity as strings, so the output is valid
	// JSON for other parsers (Python itself writes them bare).
	Strict bool
	// Tight is separators=(",", ":") in the one-line form: how httpx 0.28
	// writes a JSON request body (with ensure_ascii=False), so the bytes the
	// OpenAI SDK puts on the wire.
	Tight bool
}

// Compact is json.dumps(v): one line, ", " and ": ", ASCII only.
var Compact = Style{Indent: -1}

// Indent2 is json.dumps(v, indent=2).
var Indent2 = Style{Indent: 2}

// Wire is httpx's JSON body encoding: json.dumps(v, ensure_ascii=False,
// separators=(",", ":")).
var Wire = Style{Indent: -1, KeepNonASCII: true, Tight: true}

// Dumps is json.dumps(v) (Compact).
func Dumps(v any) string { return DumpsStyle(v, Compact) }

// DumpsIndent is json.dumps(v, indent=2).
func DumpsIndent(v any) string { return DumpsStyle(v, Indent2) }

// DumpsStyle renders v in the given style. No HTML escaping, ever: Python
// does not escape <, > or &.
func DumpsStyle(v any, st Style) string {
	var b strings.Builder
	encode(&b, FromGo(v), st, 0)
	return b.String()
}

func encode(b *strings.Builder, v any, st Style, depth int) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		WriteString(b, t, !st.KeepNonASCII)
	case Number:
		n := jsonNumber(t)
		if st.Strict && (n == "NaN" || n == "Infinity" || n == "-Infinity") {
			n = `"` + n + `"`
		}
		b.WriteString(n)
	case *Object:
		if t.Len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				sep(b, st)
			}
			newline(b, st, depth+1)
			WriteString(b, k, !st.KeepNonASCII)
			if st.Tight {
				b.WriteByte(':')
			} else {
				b.WriteString(": ")
			}
			encode(b, t.vals[k], st, depth+1)
		}
		newline(b, st, depth)
		b.WriteByte('}')
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				sep(b, st)
			}
			newline(b, st, depth+1)
			encode(b, e, st, depth+1)
		}
		newline(b, st, depth)
		b.WriteByte(']')
	default:
		// Unknown Go values: render through fmt so nothing panics on odd
		// input; FromGo handles every type the engine produces.
		WriteString(b, fmt.Sprint(t), !st.KeepNonASCII)
	}
}

func sep(b *strings.Builder, st Style) {
	switch {
	case st.Tight:
		b.WriteByte(',')
	case st.Indent < 0:
		b.WriteString(", ")
	default:
		b.WriteByte(',')
	}
}

func newline(b *strings.Builder, st Style, depth int) {
	if st.Indent < 0 {
		return
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(" ", st.Indent*depth))
}

// jsonNumber is how json.dumps writes a number: int as digits, float via
// float.__repr__, and NaN/Infinity/-Infinity.
func jsonNumber(n Number) string {
	switch n {
	case "NaN", "Infinity", "-Infinity":
		return string(n)
	}
	r := n.Repr()
	switch r {
	case "inf":
		return "Infinity"
	case "-inf":
		return "-Infinity"
	case "nan":
		return "NaN"
	}
	return r
}

// WriteString writes s as a JSON string literal the way Python does:
// escape " \ \n \r \t \b \f, other control characters as \u00XX, and, when
// asciiOnly, everything outside ' '..'~' as \uXXXX with lowercase hex
// (surrogate pairs above U+FFFF).
func WriteString(b *strings.Builder, s string, asciiOnly bool) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(b, `\u%04x`, r)
			case asciiOnly && r > 0x7e:
				if r > 0xffff {
					r -= 0x10000
					fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
				} else {
					fmt.Fprintf(b, `\u%04x`, r)
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// Quote returns s as a Python json.dumps string literal (ASCII only).
func Quote(s string) string {
	var b strings.Builder
	WriteString(&b, s, true)
	return b.String()
}

// Str is Python's str(v) for a kickoff input value: strings as they are,
// None/True/False, ints, float repr, and lists/dicts in repr form
// ({'a': 1}, ['x']).
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

// Repr is Python's repr(v) for JSON-like values.
func Repr(v any) string {
	var b strings.Builder
	repr(&b, FromGo(v))
	return b.String()
}

func repr(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if t {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyrepr.Str(t))
	case Number:
		r := t.Repr()
		if t == "NaN" {
			r = "nan"
		} else if t == "Infinity" {
			r = "inf"
		} else if t == "-Infinity" {
			r = "-inf"
		}
		b.WriteString(r)
	case *Object:
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyrepr.Str(k))
			b.WriteString(": ")
			repr(b, t.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			repr(b, e)
		}
		b.WriteByte(']')
	default:
		b.WriteString(fmt.Sprint(t))
	}
}

// MarshalJSON writes the object with its key order (for session events and
// other Go JSON encoders). Non-ASCII is kept; NaN/Infinity become strings.
func (o *Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	return []byte(DumpsStyle(o, Style{Indent: -1, KeepNonASCII: true, Strict: true})), nil
}

// MarshalJSON writes the number literal as JSON.
func (n Number) MarshalJSON() ([]byte, error) {
	s := jsonNumber(n)
	if s == "NaN" || s == "Infinity" || s == "-Infinity" {
		return []byte(`"` + s + `"`), nil
	}
	return []byte(s), nil
}

// UnmarshalJSON reads any JSON object, keeping key order.
func (o *Object) UnmarshalJSON(data []byte) error {
	v, err := LoadsObject(string(data))
	if err != nil {
		return err
	}
	*o = *v
	return nil
}
