package pyjson

import (
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
func Loads(s string) (any, error) {
	d := &decoder{s: []rune(strings.ToValidUTF8(s, "\uFFFD"))}
	if len(d.s) > 0 && d.s[0] == '\uFEFF' {
		return nil, d.err("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
	}
	v, end, err := d.value(d.ws(0))
	if err != nil {
		return nil, err
	}
	end = d.ws(end)
	if end != len(d.s) {
		return nil, d.err("Extra data", end)
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

type decoder struct {
	s []rune
}

func (d *decoder) err(msg string, pos int) *DecodeError {
	line := 1
	last := -1
	for i := 0; i < pos && i < len(d.s); i++ {
		if d.s[i] == '\n' {
			line++
			last = i
		}
	}
	return &DecodeError{Msg: msg, Pos: pos, Line: line, Column: pos - last}
}

// ws skips JSON whitespace (Python's WHITESPACE: space, tab, LF, CR).
func (d *decoder) ws(i int) int {
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

func (d *decoder) has(i int, lit string) bool {
	r := []rune(lit)
	if i+len(r) > len(d.s) {
		return false
	}
	for k, c := range r {
		if d.s[i+k] != c {
			return false
		}
	}
	return true
}

// value is scan_once: a value must start exactly at i.
func (d *decoder) value(i int) (any, int, error) {
	if i >= len(d.s) {
		return nil, i, d.err("Expecting value", i)
	}
	switch c := d.s[i]; {
	case c == '"':
		return d.str(i + 1)
	case c == '{':
		return d.object(i + 1)
	case c == '[':
		return d.array(i + 1)
	case c == 'n' && d.has(i, "null"):
		return nil, i + 4, nil
	case c == 't' && d.has(i, "true"):
		return true, i + 4, nil
	case c == 'f' && d.has(i, "false"):
		return false, i + 5, nil
	case c == 'N' && d.has(i, "NaN"):
		return Number("NaN"), i + 3, nil
	case c == 'I' && d.has(i, "Infinity"):
		return Number("Infinity"), i + 8, nil
	case c == '-' && d.has(i, "-Infinity"):
		return Number("-Infinity"), i + 9, nil
	}
	if n, end, ok := d.number(i); ok {
		return n, end, nil
	}
	return nil, i, d.err("Expecting value", i)
}

// number matches (-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)? at i.
func (d *decoder) number(i int) (Number, int, bool) {
	j := i
	if j < len(d.s) && d.s[j] == '-' {
		j++
	}
	switch {
	case j < len(d.s) && d.s[j] == '0':
		j++
	case j < len(d.s) && d.s[j] >= '1' && d.s[j] <= '9':
		for j < len(d.s) && isDigit(d.s[j]) {
			j++
		}
	default:
		return "", i, false
	}
	if j+1 < len(d.s) && d.s[j] == '.' && isDigit(d.s[j+1]) {
		j += 2
		for j < len(d.s) && isDigit(d.s[j]) {
			j++
		}
	}
	if j < len(d.s) && (d.s[j] == 'e' || d.s[j] == 'E') {
		k := j + 1
		if k < len(d.s) && (d.s[k] == '+' || d.s[k] == '-') {
			k++
		}
		if k < len(d.s) && isDigit(d.s[k]) {
			for k < len(d.s) && isDigit(d.s[k]) {
				k++
			}
			j = k
		}
	}
	return Number(string(d.s[i:j])), j, true
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// str is CPython's c scanstring; i is just after the opening quote.
func (d *decoder) str(i int) (any, int, error) {
	begin := i - 1
	var b strings.Builder
	for {
		if i >= len(d.s) {
			return nil, i, d.err("Unterminated string starting at", begin)
		}
		c := d.s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, nil
		case c == '\\':
			i++
			if i >= len(d.s) {
				return nil, i, d.err("Unterminated string starting at", begin)
			}
			e := d.s[i]
			switch e {
			case '"', '\\', '/':
				b.WriteRune(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				u, ok := d.hex4(i + 1)
				if !ok {
					return nil, i, d.err("Invalid \\uXXXX escape", i)
				}
				i += 4
				if u >= 0xD800 && u <= 0xDBFF && d.has(i+1, "\\u") {
					if lo, ok := d.hex4(i + 3); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						u = 0x10000 + (u-0xD800)<<10 + (lo - 0xDC00)
						i += 6
					}
				}
				if u >= 0xD800 && u <= 0xDFFF {
					u = utf8.RuneError // a lone surrogate cannot live in a Go string
				}
				b.WriteRune(u)
			default:
				return nil, i, d.err("Invalid \\escape", i-1)
			}
			i++
		case c < 0x20:
			return nil, i, d.err("Invalid control character at", i)
		default:
			b.WriteRune(c)
			i++
		}
	}
}

func (d *decoder) hex4(i int) (rune, bool) {
	if i+4 > len(d.s) {
		return 0, false
	}
	var v rune
	for _, c := range d.s[i : i+4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= c - '0'
		case c >= 'a' && c <= 'f':
			v |= c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v |= c - 'A' + 10
		default:
			return 0, false
		}
	}
	return v, true
}

// object is JSONObject; i is just after '{'.
func (d *decoder) object(i int) (any, int, error) {
	o := NewObject()
	i = d.ws(i)
	if i < len(d.s) && d.s[i] == '}' {
		return o, i + 1, nil
	}
	if i >= len(d.s) || d.s[i] != '"' {
		return nil, i, d.err("Expecting property name enclosed in double quotes", i)
	}
	i++
	for {
		k, end, err := d.str(i)
		if err != nil {
			return nil, end, err
		}
		i = d.ws(end)
		if i >= len(d.s) || d.s[i] != ':' {
			return nil, i, d.err("Expecting ':' delimiter", i)
		}
		i = d.ws(i + 1)
		v, end, err := d.value(i)
		if err != nil {
			return nil, end, err
		}
		o.Set(k.(string), v)
		i = d.ws(end)
		if i < len(d.s) && d.s[i] == '}' {
			return o, i + 1, nil
		}
		if i >= len(d.s) || d.s[i] != ',' {
			return nil, i, d.err("Expecting ',' delimiter", i)
		}
		i = d.ws(i + 1)
		if i >= len(d.s) || d.s[i] != '"' {
			return nil, i, d.err("Expecting property name enclosed in double quotes", i)
		}
		i++
	}
}

// array is JSONArray; i is just after '['.
func (d *decoder) array(i int) (any, int, error) {
	out := []any{}
	i = d.ws(i)
	if i < len(d.s) && d.s[i] == ']' {
		return out, i + 1, nil
	}
	for {
		v, end, err := d.value(i)
		if err != nil {
			return nil, end, err
		}
		out = append(out, v)
		i = d.ws(end)
		if i < len(d.s) && d.s[i] == ']' {
			return out, i + 1, nil
		}
		if i >= len(d.s) || d.s[i] != ',' {
			return nil, i, d.err("Expecting ',' delimiter", i)
		}
		i = d.ws(i + 1)
	}
}
