package pyjson

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

// The parsers below are two of the fallbacks CrewAI tries, in order, when a
// ReAct "Action Input" is not strict JSON (ast.literal_eval — which is
// crew/pyread's LiteralEval —, json5.loads and json_repair). They are Go
// approximations of those Python libraries for the inputs LLMs actually
// write: JSON with comments, unquoted keys or trailing commas, and truncated
// or chatty JSON. Each returns an *Object, []any or scalar.

// lenientMode selects which syntax a lenientParser accepts.
type lenientMode int

const (
	modeJSON5  lenientMode = iota // json5.loads
	modeRepair                    // json_repair: accept anything, close what is open
)

var errSyntax = errors.New("invalid syntax")

type lenientParser struct {
	s    []rune
	i    int
	mode lenientMode
}

// JSON5 is json5.loads for the common JSON5 extensions: comments, trailing
// commas, unquoted identifier keys, single-quoted strings, hex numbers,
// leading/trailing decimal points, a leading +, Infinity and NaN.
func JSON5(s string) (any, error) {
	p := &lenientParser{s: []rune(s), mode: modeJSON5}
	p.skip()
	return p.whole()
}

// whole parses one value that must run to the end of the input (trailing
// whitespace and, in JSON5, comments allowed).
func (p *lenientParser) whole() (any, error) {
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i != len(p.s) {
		return nil, errSyntax
	}
	return v, nil
}

// Repair approximates json_repair.repair_json: it finds the first object or
// array in s, parses it as leniently as possible (any quotes, bare words,
// Python constants, missing commas, unclosed strings and brackets) and
// returns it re-encoded with json.dumps. ok is false when nothing usable was
// found (json_repair then returns "" or "{}").
func Repair(s string) (string, bool) {
	v, ok := RepairValue(s)
	if !ok {
		return "", false
	}
	out := Dumps(v)
	if out == `""` || out == "{}" {
		return out, false
	}
	return out, true
}

// RepairValue is Repair without the final encoding.
func RepairValue(s string) (any, bool) {
	rs := []rune(s)
	start := -1
	for i, r := range rs {
		if r == '{' || r == '[' {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, false
	}
	p := &lenientParser{s: rs, i: start, mode: modeRepair}
	v, err := p.value()
	if err != nil {
		return nil, false
	}
	return v, true
}

func (p *lenientParser) peek() rune {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *lenientParser) eof() bool { return p.i >= len(p.s) }

// skip passes whitespace and the comments the mode allows.
func (p *lenientParser) skip() {
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case unicode.IsSpace(c):
			p.i++
		case c == '#' && p.mode == modeRepair:
			for !p.eof() && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '/':
			for !p.eof() && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '*':
			end := strings.Index(string(p.s[p.i+2:]), "*/")
			if end < 0 {
				p.i = len(p.s)
			} else {
				p.i += 2 + len([]rune(string(p.s[p.i+2:])[:end])) + 2
			}
		default:
			return
		}
	}
}

func (p *lenientParser) value() (any, error) {
	p.skip()
	if p.eof() {
		return nil, errSyntax
	}
	c := p.peek()
	switch {
	case c == '{':
		p.i++
		return p.object()
	case c == '[':
		p.i++
		return p.sequence(']')
	case c == '"' || c == '\'' || (p.mode == modeRepair && (c == '“' || c == '”')):
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	}
	word := p.word()
	switch p.mode {
	case modeJSON5:
		switch word {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		case "Infinity":
			return Number("Infinity"), nil
		case "NaN":
			return Number("NaN"), nil
		}
	case modeRepair:
		switch word {
		case "true", "True":
			return true, nil
		case "false", "False":
			return false, nil
		case "null", "None":
			return nil, nil
		case "":
			return nil, errSyntax
		}
		// A bare word becomes a string, up to the next delimiter.
		rest := p.until(",}]\n")
		return strings.TrimSpace(word + rest), nil
	}
	return nil, errSyntax
}

// word reads an identifier-like run (letters, digits, _ and $).
func (p *lenientParser) word() string {
	start := p.i
	for !p.eof() {
		c := p.s[p.i]
		if c == '_' || c == '$' || unicode.IsLetter(c) || unicode.IsDigit(c) {
			p.i++
			continue
		}
		break
	}
	return string(p.s[start:p.i])
}

// until reads up to (not including) the first rune in stop.
func (p *lenientParser) until(stop string) string {
	start := p.i
	for !p.eof() && !strings.ContainsRune(stop, p.s[p.i]) {
		p.i++
	}
	return string(p.s[start:p.i])
}

func (p *lenientParser) object() (any, error) {
	o := NewObject()
	for {
		p.skip()
		if p.eof() {
			if p.mode == modeRepair {
				return o, nil
			}
			return nil, errSyntax
		}
		if p.peek() == '}' {
			p.i++
			return o, nil
		}
		if p.mode == modeRepair && p.peek() == ',' {
			p.i++
			continue
		}
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		p.skip()
		if p.peek() != ':' {
			if p.mode != modeRepair {
				return nil, errSyntax
			}
			// json_repair: a key with no value gets "".
			o.Set(key, "")
			continue
		}
		p.i++
		v, err := p.value()
		if err != nil {
			if p.mode == modeRepair {
				o.Set(key, "")
				return o, nil
			}
			return nil, err
		}
		o.Set(key, v)
		p.skip()
		switch p.peek() {
		case ',':
			p.i++
		case '}':
		default:
			if p.mode != modeRepair {
				return nil, errSyntax
			}
		}
	}
}

// key reads an object key: a string, or else an identifier (JSON5) or
// anything up to ":" (repair).
func (p *lenientParser) key() (string, error) {
	p.skip()
	c := p.peek()
	if c == '"' || c == '\'' || (p.mode == modeRepair && (c == '“' || c == '”')) {
		return p.str()
	}
	if p.mode == modeJSON5 {
		w := p.word()
		if w == "" {
			return "", errSyntax
		}
		return w, nil
	}
	k := strings.TrimSpace(p.until(":,}"))
	if k == "" {
		return "", errSyntax
	}
	return k, nil
}

func (p *lenientParser) sequence(end rune) (any, error) {
	out := []any{}
	for {
		p.skip()
		if p.eof() {
			if p.mode == modeRepair {
				return out, nil
			}
			return nil, errSyntax
		}
		if p.peek() == end {
			p.i++
			return out, nil
		}
		if p.mode == modeRepair && p.peek() == ',' {
			p.i++
			continue
		}
		v, err := p.value()
		if err != nil {
			if p.mode == modeRepair {
				return out, nil
			}
			return nil, err
		}
		out = append(out, v)
		p.skip()
		switch p.peek() {
		case ',':
			p.i++
		case end:
		default:
			if p.mode != modeRepair {
				return nil, errSyntax
			}
		}
	}
}

// str reads one quoted string (repair mode: curly quotes too, and an
// unterminated string ends the input).
func (p *lenientParser) str() (string, error) {
	q := p.peek()
	closeQ := q
	if q == '“' {
		closeQ = '”'
	}
	p.i++
	var b strings.Builder
	for {
		if p.eof() {
			if p.mode == modeRepair {
				return strings.TrimRight(b.String(), " \n"), nil
			}
			return "", errSyntax
		}
		c := p.s[p.i]
		if c == closeQ || (p.mode == modeRepair && (c == '"' || c == '”') && (q == '“' || q == '”')) {
			p.i++
			return b.String(), nil
		}
		if c == '\\' && p.i+1 < len(p.s) {
			p.i++
			if err := p.escape(&b); err != nil {
				return "", err
			}
			continue
		}
		b.WriteRune(c)
		p.i++
	}
}

// escape handles the escape after a backslash (p.i is on the escaped rune).
func (p *lenientParser) escape(b *strings.Builder) error {
	e := p.s[p.i]
	p.i++
	switch e {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '0':
		b.WriteByte(0)
	case '\n':
		// line continuation
	case 'x', 'u', 'U':
		n := map[rune]int{'x': 2, 'u': 4, 'U': 8}[e]
		if p.i+n > len(p.s) {
			return errSyntax
		}
		v, err := strconv.ParseUint(string(p.s[p.i:p.i+n]), 16, 32)
		if err != nil {
			if p.mode == modeRepair {
				b.WriteRune(e)
				return nil
			}
			return errSyntax
		}
		p.i += n
		b.WriteRune(rune(v))
	default: // \a and unknown escapes too: the character itself
		b.WriteRune(e)
	}
	return nil
}

func (p *lenientParser) number() (any, error) {
	sign := ""
	for !p.eof() && (p.peek() == '+' || p.peek() == '-') {
		if p.peek() == '-' {
			if sign == "-" {
				sign = ""
			} else {
				sign = "-"
			}
		}
		p.i++
		p.skip()
	}
	if w := string(p.s[p.i:min(len(p.s), p.i+8)]); w == "Infinity" {
		p.i += 8
		return Number(sign + "Infinity"), nil
	}
	body := p.i
	for !p.eof() {
		c := p.s[p.i]
		if c == '_' || c == '.' || unicode.IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == 'x' || c == 'X' || c == 'o' || c == 'O' {
			p.i++
			continue
		}
		if (c == '+' || c == '-') && p.i > body && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E') {
			p.i++
			continue
		}
		break
	}
	lit := string(p.s[body:p.i])
	low := strings.ToLower(lit)
	if strings.HasPrefix(low, "0x") || strings.HasPrefix(low, "0o") || strings.HasPrefix(low, "0b") {
		if p.mode == modeJSON5 && !strings.HasPrefix(low, "0x") {
			return nil, errSyntax
		}
		n, err := strconv.ParseInt(lit, 0, 64)
		if err != nil {
			return nil, errSyntax
		}
		return Number(sign + strconv.FormatInt(n, 10)), nil
	}
	if lit == "" {
		return nil, errSyntax
	}
	if !strings.ContainsAny(low, ".e") {
		if _, err := strconv.ParseUint(lit, 10, 64); err != nil && !allDigits(lit) {
			return nil, errSyntax
		}
		if p.mode == modeJSON5 && len(lit) > 1 && lit[0] == '0' {
			return nil, errSyntax
		}
		return Number(sign + lit), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return nil, errSyntax
		}
	}
	if sign == "-" {
		f = -f
	}
	return Float(f), nil
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
