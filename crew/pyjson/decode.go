package pyjson

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DecodeError is Python's json.JSONDecodeError. Error() is exactly
// str(JSONDecodeError): "{msg}: line {L} column {C} (char {pos})", where pos
// counts code points, as Python does.
type DecodeError struct {
	Msg    string
	Pos    int
	Line   int
	Column int
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Column, e.Pos)
}

// Loads is Python's json.loads(s) (CPython 3.11, strict=True): objects keep
// insertion order (a repeated key keeps its first position and its last
// value), NaN/Infinity/-Infinity are accepted, and errors carry Python's
// messages and positions.
func Loads(s string) (any, error) { return loads(s, false) }

// LoadsNonStrict is json.loads(s, strict=False): Loads that also takes
// control characters (a raw newline, a tab) inside strings, as CrewAI's
// output converter reads an answer.
func LoadsNonStrict(s string) (any, error) { return loads(s, true) }

func loads(s string, controlOK bool) (any, error) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	text := []byte(s)
	v, err := decode[any](text, valueBuilder{}, 0, controlOK)
	if err != nil {
		line, col := err.LineCol(text)
		return nil, &DecodeError{Msg: err.Msg, Pos: CharOffset(text, err.At), Line: line, Column: col}
	}
	return v, nil
}

// LoadsObject is Loads that also requires a JSON object at the top.
func LoadsObject(s string) (*Object, error) {
	v, err := Loads(s)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %s", TypeName(v))
	}
	return o, nil
}

// TypeName is Python's type(v).__name__ for a decoded value.
func TypeName(v any) string {
	switch t := v.(type) {
	case *Object:
		return "dict"
	case []any:
		return "list"
	case string:
		return "str"
	case bool:
		return "bool"
	case nil:
		return "NoneType"
	case Number:
		if t.IsInt() {
			return "int"
		}
		return "float"
	}
	return fmt.Sprintf("%T", v)
}

// SyntaxError is a json.loads failure: Python's message and the byte
// offset into the decoded text (LineCol and CharOffset give Python's
// numbers, which count code points).
type SyntaxError struct {
	Msg string
	At  int
}

// LineCol is Python's JSONDecodeError numbering of the offset in text: line
// = count of "\n" before it, plus 1; column = code points since the last
// "\n", plus 1.
func (e *SyntaxError) LineCol(text []byte) (line, col int) {
	i := min(e.At, len(text))
	line, last := 1, -1
	for j := 0; j < i; j++ {
		if text[j] == '\n' {
			line++
			last = j
		}
	}
	return line, CharOffset(text[last+1:], i-last-1) + 1
}

// CharOffset is the number of code points in text[:at] (text is valid
// UTF-8): Python's string index for byte offset at.
func CharOffset(text []byte, at int) int {
	n := 0
	for _, c := range text[:min(at, len(text))] {
		if c&0xc0 != 0x80 { // not a continuation byte
			n++
		}
	}
	return n
}

// Builder makes the caller's values out of what Decode reads; at is the
// byte offset of the value's first character (a key's: its opening quote).
// Loads builds *Object/[]any values; crew/project builds Nodes that keep
// file positions.
type Builder[V any] interface {
	// Scalar is a string, Number, bool or nil.
	Scalar(v any, at int) V
	// Object gets the members in source order, a repeated key included.
	// Decode reuses the slices it passes to Object and Array for the next
	// values (one scratch stack instead of a growing slice per value): copy
	// what you keep.
	Object(members []Member[V], at int) V
	Array(items []V, at int) V
}

// RawStrings is what a Builder may also have: a string value without
// escapes (its contents are then text as it is) is handed over as those
// bytes instead of to Scalar, so a builder can hand out a value it made
// for the same text before instead of allocating a new one. raw is part of
// Decode's text: copy what you keep.
type RawStrings[V any] interface {
	RawString(raw []byte, at int) V
}

// Member is one "key": value of an object.
type Member[V any] struct {
	Key   string
	KeyAt int
	Value V
}

// Decode is the one port of CPython's json.loads (3.11, strict=True, the C
// scanner): it reads one JSON value that must fill text (valid UTF-8;
// whitespace aside) and hands every value to b. maxDepth > 0 refuses deeper
// nesting, standing in for Python's recursion limit; 0 means no limit. It
// reads the bytes in place: everything the grammar looks at is ASCII, so
// only string contents need decoding, and a string without escapes is one
// allocation.
func Decode[V any](text []byte, b Builder[V], maxDepth int) (V, *SyntaxError) {
	return decode(text, b, maxDepth, false)
}

// decode is Decode; controlOK is json.loads' strict=False (control
// characters allowed inside strings).
func decode[V any](text []byte, b Builder[V], maxDepth int, controlOK bool) (V, *SyntaxError) {
	d := &decoder[V]{s: text, b: b, maxDepth: maxDepth, controlOK: controlOK}
	d.raw, _ = any(b).(RawStrings[V])
	var zero V
	if bytes.HasPrefix(d.s, []byte("\uFEFF")) {
		return zero, &SyntaxError{"Unexpected UTF-8 BOM (decode using utf-8-sig)", 0}
	}
	v, end, err := d.value(d.ws(0), 0)
	if err != nil {
		return zero, err
	}
	if end = d.ws(end); end != len(d.s) {
		return zero, &SyntaxError{"Extra data", end}
	}
	return v, nil
}

// valueBuilder builds Loads's values: *Object (a repeated key keeps its
// first position and its last value), []any and scalars.
type valueBuilder struct{}

func (valueBuilder) Scalar(v any, _ int) any { return v }

func (valueBuilder) Object(members []Member[any], _ int) any {
	o := NewObject()
	for _, m := range members {
		o.Set(m.Key, m.Value)
	}
	return o
}

func (valueBuilder) Array(items []any, _ int) any {
	return append([]any{}, items...)
}

type decoder[V any] struct {
	s        []byte
	b        Builder[V]
	maxDepth int
	// controlOK: strict=False, control characters pass inside strings.
	controlOK bool
	// members and items are stacks: a value's own entries sit above its
	// parent's until it is built.
	members []Member[V]
	items   []V
	// raw is b's RawStrings, when it has them.
	raw RawStrings[V]
}

// ws skips JSON whitespace (Python's WHITESPACE: space, tab, LF, CR).
func (d *decoder[V]) ws(i int) int {
	for i < len(d.s) {
		switch d.s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (d *decoder[V]) has(i int, lit string) bool {
	return i <= len(d.s) && bytes.HasPrefix(d.s[i:], []byte(lit))
}

// value is scan_once: a value must start exactly at idx; failing to start
// one is "Expecting value" there.
func (d *decoder[V]) value(idx, depth int) (V, int, *SyntaxError) {
	var zero V
	if idx >= len(d.s) {
		return zero, idx, &SyntaxError{"Expecting value", idx}
	}
	if d.maxDepth > 0 && depth > d.maxDepth {
		return zero, idx, &SyntaxError{"maximum nesting depth exceeded", idx}
	}
	switch c := d.s[idx]; {
	case c == '"':
		if d.raw != nil {
			if end, ok := d.plainStr(idx + 1); ok {
				return d.raw.RawString(d.s[idx+1:end], idx), end + 1, nil
			}
		}
		s, end, err := d.str(idx + 1)
		if err != nil {
			return zero, idx, err
		}
		return d.b.Scalar(s, idx), end, nil
	case c == '{':
		return d.object(idx+1, depth)
	case c == '[':
		return d.array(idx+1, depth)
	case c == 'n' && d.has(idx, "null"):
		return d.b.Scalar(nil, idx), idx + 4, nil
	case c == 't' && d.has(idx, "true"):
		return d.b.Scalar(true, idx), idx + 4, nil
	case c == 'f' && d.has(idx, "false"):
		return d.b.Scalar(false, idx), idx + 5, nil
	case c == 'N' && d.has(idx, "NaN"):
		return d.b.Scalar(Number("NaN"), idx), idx + 3, nil
	case c == 'I' && d.has(idx, "Infinity"):
		return d.b.Scalar(Number("Infinity"), idx), idx + 8, nil
	case c == '-' && d.has(idx, "-Infinity"):
		return d.b.Scalar(Number("-Infinity"), idx), idx + 9, nil
	}
	if end, ok := d.number(idx); ok {
		return d.b.Scalar(Number(string(d.s[idx:end])), idx), end, nil
	}
	return zero, idx, &SyntaxError{"Expecting value", idx}
}

// number matches (-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)? at i.
func (d *decoder[V]) number(i int) (int, bool) {
	s := d.s
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	default:
		return i, false
	}
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		j += 2
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	return j, true
}

func isDigit(r byte) bool { return r >= '0' && r <= '9' }

// object is JSONObject; idx is just after '{'.
func (d *decoder[V]) object(idx, depth int) (V, int, *SyntaxError) {
	var zero V
	at := idx - 1
	base := len(d.members)
	defer func() { d.members = d.members[:base] }()
	idx = d.ws(idx)
	if idx < len(d.s) && d.s[idx] == '}' {
		return d.b.Object(nil, at), idx + 1, nil
	}
	for {
		if idx >= len(d.s) || d.s[idx] != '"' {
			return zero, idx, &SyntaxError{"Expecting property name enclosed in double quotes", idx}
		}
		keyAt := idx
		key, end, err := d.str(idx + 1)
		if err != nil {
			return zero, idx, err
		}
		idx = d.ws(end)
		if idx >= len(d.s) || d.s[idx] != ':' {
			return zero, idx, &SyntaxError{"Expecting ':' delimiter", idx}
		}
		idx = d.ws(idx + 1)
		val, end, err := d.value(idx, depth+1)
		if err != nil {
			return zero, idx, err
		}
		d.members = append(d.members, Member[V]{Key: key, KeyAt: keyAt, Value: val})
		idx = d.ws(end)
		if idx < len(d.s) && d.s[idx] == '}' {
			return d.b.Object(d.members[base:], at), idx + 1, nil
		}
		if idx >= len(d.s) || d.s[idx] != ',' {
			return zero, idx, &SyntaxError{"Expecting ',' delimiter", idx}
		}
		idx = d.ws(idx + 1)
	}
}

// array is JSONArray; idx is just after '['.
func (d *decoder[V]) array(idx, depth int) (V, int, *SyntaxError) {
	var zero V
	at := idx - 1
	base := len(d.items)
	defer func() { d.items = d.items[:base] }()
	idx = d.ws(idx)
	if idx < len(d.s) && d.s[idx] == ']' {
		return d.b.Array(nil, at), idx + 1, nil
	}
	for {
		val, end, err := d.value(idx, depth+1)
		if err != nil {
			return zero, idx, err
		}
		d.items = append(d.items, val)
		idx = d.ws(end)
		if idx < len(d.s) && d.s[idx] == ']' {
			return d.b.Array(d.items[base:], at), idx + 1, nil
		}
		if idx >= len(d.s) || d.s[idx] != ',' {
			return zero, idx, &SyntaxError{"Expecting ',' delimiter", idx}
		}
		idx = d.ws(idx + 1)
	}
}

// plainStr finds the closing quote of a string whose contents start at i
// and need no decoding (no escape; no control character, unless allowed).
// ok false leaves the string to str, errors included.
func (d *decoder[V]) plainStr(i int) (end int, ok bool) {
	for ; i < len(d.s); i++ {
		switch c := d.s[i]; {
		case c == '"':
			return i, true
		case c == '\\', c <= 0x1f && !d.controlOK:
			return 0, false
		}
	}
	return 0, false
}

// str is CPython's C scanstring (strict); end is just after the opening
// quote.
func (d *decoder[V]) str(end int) (string, int, *SyntaxError) {
	s := d.s
	begin := end - 1
	var b strings.Builder
	for {
		next := end
		var c byte
		for ; next < len(s); next++ {
			c = s[next]
			if c == '"' || c == '\\' {
				break
			}
			if c <= 0x1f && !d.controlOK {
				return "", 0, &SyntaxError{"Invalid control character at", next}
			}
		}
		if next >= len(s) {
			return "", 0, &SyntaxError{"Unterminated string starting at", begin}
		}
		if c == '"' && b.Len() == 0 {
			return string(s[end:next]), next + 1, nil // no escapes: one copy
		}
		b.Write(s[end:next])
		if c == '"' {
			return b.String(), next + 1, nil
		}
		next++ // past the backslash
		if next == len(s) {
			return "", 0, &SyntaxError{"Unterminated string starting at", begin}
		}
		c = s[next]
		if c != 'u' {
			end = next + 1
			r, ok := jsonEscape(c)
			if !ok {
				return "", 0, &SyntaxError{"Invalid \\escape", end - 2}
			}
			b.WriteByte(r)
			continue
		}
		next++
		end = next + 4
		if end >= len(s) {
			return "", 0, &SyntaxError{"Invalid \\uXXXX escape", next - 1}
		}
		u, ok := hex4(s[next:end])
		if !ok {
			return "", 0, &SyntaxError{"Invalid \\uXXXX escape", end - 5}
		}
		if u >= 0xd800 && u <= 0xdbff && end+6 < len(s) && s[end] == '\\' && s[end+1] == 'u' {
			u2, ok := hex4(s[end+2 : end+6])
			if !ok {
				return "", 0, &SyntaxError{"Invalid \\uXXXX escape", end + 1}
			}
			if u2 >= 0xdc00 && u2 <= 0xdfff {
				u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00)
				end += 6
			}
		}
		if u >= 0xd800 && u <= 0xdfff {
			u = utf8.RuneError // a lone surrogate cannot live in a Go string
		}
		b.WriteRune(u)
	}
}

// jsonEscape is the character a one-letter escape stands for.
func jsonEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func hex4(bs []byte) (rune, bool) {
	var v rune
	for _, c := range bs {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			v |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}
