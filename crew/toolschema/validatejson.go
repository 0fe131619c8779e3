package toolschema

import (
	"strconv"

	"crewbench/crew/pyjson"
)

// ValidateJSON is model_validate_json(text), which the OpenAI SDK's
// beta.chat.completions.parse runs on a structured reply: text that is not
// JSON is one json_invalid error with jiter's message and position, a
// value that is not an object one model_type error, and an object is
// validated as Validate does.
func (m *Model) ValidateJSON(text string) (*pyjson.Object, *ValidationError) {
	return m.validateJSON(text, false)
}

// ValidateJSONStrict is model_validate_json(text, strict=True), as
// instructor validates a tool call's arguments: ValidateJSON without lax
// coercions.
func (m *Model) ValidateJSONStrict(text string) (*pyjson.Object, *ValidationError) {
	return m.validateJSON(text, true)
}

func (m *Model) validateJSON(text string, strict bool) (*pyjson.Object, *ValidationError) {
	if msg, at, ok := jiterCheck([]byte(text)); !ok {
		line, col := jiterPosition([]byte(text), at)
		return nil, &ValidationError{Model: m.Name, Errors: []LineError{{
			Type: "json_invalid", Input: text,
			Msg: "Invalid JSON: " + msg + " at line " + strconv.Itoa(line) + " column " + strconv.Itoa(col),
		}}}
	}
	v, err := pyjson.Loads(text)
	if err != nil {
		// jiter accepted what Python's json does not (a lone surrogate):
		// the same error as any unreadable text.
		return nil, &ValidationError{Model: m.Name, Errors: []LineError{{Type: "json_invalid", Input: text, Msg: "Invalid JSON: " + err.Error()}}}
	}
	o, isObject := v.(*pyjson.Object)
	if !isObject {
		return nil, &ValidationError{Model: m.Name, Errors: []LineError{{Type: "model_type", Msg: "Input should be an object", Input: v}}}
	}
	return m.validate(o, strict)
}

// jiterPosition is jiter's LinePosition::find: a 1-based line and a
// column counted in bytes, where a newline at the position already counts
// for the next line (column 0) and the end of the text is one past the
// last column.
func jiterPosition(data []byte, at int) (int, int) {
	line, start := 1, 0
	for i, c := range data {
		if c == '\n' {
			line++
			start = i + 1
		}
		if i == at {
			return line, i + 1 - start
		}
	}
	return line, max(len(data)-start, 0)
}

// jiterCheck parses data as jiter (pydantic-core's JSON parser) does and
// reports its first error: the message and the byte offset it names.
func jiterCheck(data []byte) (string, int, bool) {
	p := &jiter{data: data}
	if err := p.value(0); err != nil {
		return err.msg, err.at, false
	}
	p.space()
	if p.i < len(data) {
		return "trailing characters", p.i, false
	}
	return "", 0, true
}

type jiterError struct {
	msg string
	at  int
}

// jiterRecursionLimit is jiter's nesting limit: it counts the non-empty
// lists and objects around a value and fails at the first value of the
// one past the limit.
const jiterRecursionLimit = 200

type jiter struct {
	data []byte
	i    int
}

func (p *jiter) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jiter) fail(msg string) *jiterError { return &jiterError{msg, p.i} }

func (p *jiter) value(depth int) *jiterError {
	p.space()
	if p.i >= len(p.data) {
		return p.fail("EOF while parsing a value")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return p.ident("rue")
	case c == 'f':
		return p.ident("alse")
	case c == 'n':
		return p.ident("ull")
	case c == 'N':
		return p.ident("aN")
	case c == 'I':
		return p.ident("nfinity")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return p.fail("expected value")
}

// ident is consume_ident: the rest of a literal after its first byte.
func (p *jiter) ident(rest string) *jiterError {
	p.i++
	for j := 0; j < len(rest); j++ {
		if p.i >= len(p.data) {
			return p.fail("EOF while parsing a value")
		}
		if p.data[p.i] != rest[j] {
			return p.fail("expected ident")
		}
		p.i++
	}
	return nil
}

func (p *jiter) digits() int {
	n := 0
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// needDigit is the digit a fraction, an exponent or a sign must have.
func (p *jiter) needDigit() *jiterError {
	if p.i >= len(p.data) {
		return p.fail("EOF while parsing a value")
	}
	if p.digits() == 0 {
		return p.fail("invalid number")
	}
	return nil
}

func (p *jiter) number() *jiterError {
	if p.data[p.i] == '-' {
		p.i++
		if p.i >= len(p.data) {
			return p.fail("EOF while parsing a value")
		}
		if p.data[p.i] == 'I' {
			return p.ident("nfinity")
		}
		if c := p.data[p.i]; c < '0' || c > '9' {
			return p.fail("invalid number")
		}
	}
	if p.data[p.i] == '0' {
		p.i++
		if p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			return p.fail("invalid number")
		}
	} else {
		p.digits()
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if err := p.needDigit(); err != nil {
			return err
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if err := p.needDigit(); err != nil {
			return err
		}
	}
	return nil
}

func (p *jiter) str() *jiterError {
	p.i++ // the opening quote
	for {
		if p.i >= len(p.data) {
			return p.fail("EOF while parsing a string")
		}
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c < 0x20:
			return p.fail(`control character (\u0000-\u001F) found while parsing a string`)
		case c == '\\':
			if err := p.escape(); err != nil {
				return err
			}
		default:
			p.i++
		}
	}
}

// escape reads one backslash escape, p.i at the backslash.
func (p *jiter) escape() *jiterError {
	p.i++
	if p.i >= len(p.data) {
		return p.fail("EOF while parsing a string")
	}
	switch p.data[p.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		p.i++
		return nil
	case 'u':
	default:
		return p.fail("invalid escape")
	}
	cp, err := p.hex4()
	if err != nil {
		return err
	}
	if cp < 0xd800 || cp > 0xdbff {
		return nil
	}
	// A leading surrogate must be followed by a trailing one.
	if p.i+1 >= len(p.data) || p.data[p.i] != '\\' || p.data[p.i+1] != 'u' {
		return p.fail("unexpected end of hex escape")
	}
	p.i++
	low, err := p.hex4()
	if err != nil {
		return err
	}
	if low < 0xdc00 || low > 0xdfff {
		p.i--
		return p.fail("lone leading surrogate in hex escape")
	}
	return nil
}

// hex4 reads the four hex digits after a "u", p.i at the "u".
func (p *jiter) hex4() (int, *jiterError) {
	n := 0
	for range 4 {
		p.i++
		if p.i >= len(p.data) {
			return 0, p.fail("EOF while parsing a string")
		}
		d, err := strconv.ParseUint(string(p.data[p.i]), 16, 8)
		if err != nil {
			return 0, p.fail("invalid escape")
		}
		n = n<<4 | int(d)
	}
	p.i++
	return n, nil
}

func (p *jiter) array(depth int) *jiterError {
	p.i++
	p.space()
	if p.i >= len(p.data) {
		return p.fail("EOF while parsing a list")
	}
	if p.data[p.i] == ']' {
		p.i++
		return nil
	}
	if depth++; depth > jiterRecursionLimit {
		return p.fail("recursion limit exceeded")
	}
	for {
		if err := p.value(depth); err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.data) {
			return p.fail("EOF while parsing a list")
		}
		switch p.data[p.i] {
		case ']':
			p.i++
			return nil
		case ',':
			p.i++
			p.space()
			if p.i < len(p.data) && p.data[p.i] == ']' {
				return p.fail("trailing comma")
			}
		default:
			return p.fail("expected `,` or `]`")
		}
	}
}

func (p *jiter) object(depth int) *jiterError {
	p.i++
	p.space()
	if p.i >= len(p.data) {
		return p.fail("EOF while parsing an object")
	}
	if p.data[p.i] == '}' {
		p.i++
		return nil
	}
	entered := false
	for {
		if p.i >= len(p.data) {
			return p.fail("EOF while parsing an object")
		}
		if p.data[p.i] != '"' {
			return p.fail("key must be a string")
		}
		if err := p.str(); err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.data) {
			return p.fail("EOF while parsing an object")
		}
		if p.data[p.i] != ':' {
			return p.fail("expected `:`")
		}
		p.i++
		if !entered {
			p.space()
			if depth++; depth > jiterRecursionLimit && p.i < len(p.data) {
				return p.fail("recursion limit exceeded")
			}
			entered = true
		}
		if err := p.value(depth); err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.data) {
			return p.fail("EOF while parsing an object")
		}
		switch p.data[p.i] {
		case '}':
			p.i++
			return nil
		case ',':
			p.i++
			p.space()
			if p.i < len(p.data) && p.data[p.i] == '}' {
				return p.fail("trailing comma")
			}
		default:
			return p.fail("expected `,` or `}`")
		}
	}
}
