package project

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// JSONC is parsed the way CrewAI's json_loader does it (formats §1.2):
// comments are stripped first (line comments up to \r or \n with the newline
// kept; block comments removed except for their \n characters, so line
// numbers survive), then a "," followed only by whitespace and "}" or "]" is
// dropped, and the result is decoded with Python's json.loads rules (NaN,
// Infinity and -Infinity accepted, duplicate keys keep the last value, exact
// error messages). Strings are never touched by either pass.
//
// Positions on Nodes refer to the original file. CrewAI's own error text
// refers to the stripped text (its line/column can differ from the file's
// when a block comment precedes the error on the same line); Error.CrewAI
// keeps CrewAI's numbers, Error.Pos the file's.

// maxJSONDepth stands in for Python's recursion limit.
const maxJSONDepth = 1000

// jsoncError is the CrewAI text of the comment-stripping failure.
const jsoncUnterminated = "unterminated block comment in JSONC input"

// ParseJSONC parses JSONC text. file is used for positions and for the
// "{path}: " prefix of CrewAI's texts.
func ParseJSONC(src []byte, file string) (*Node, error) {
	if !utf8.Valid(src) {
		off := firstInvalidUTF8(src)
		line, col := lineColBytes(src, off)
		msg := fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", src[off], off)
		return nil, &Error{Pos: Pos{File: file, Line: line, Col: col}, Msg: msg, CrewAI: msg}
	}
	text := []rune(string(src))
	stripped, orig, startOfComment, err := stripJSONC(text)
	if err != nil {
		line, col := lineColRunes(text, startOfComment)
		return nil, &Error{Pos: Pos{File: file, Line: line, Col: col}, Msg: jsoncUnterminated, CrewAI: jsoncUnterminated}
	}
	d := &jsonDecoder{s: stripped, orig: orig, file: file, lines: newLineIndex(text)}
	return d.decode()
}

// stripJSONC removes comments and trailing commas. orig[i] is the index in
// text of stripped[i]; orig has one extra entry for the end of input.
func stripJSONC(text []rune) (out []rune, orig []int, badComment int, err error) {
	out = make([]rune, 0, len(text))
	orig = make([]int, 0, len(text)+1)
	inString, escape := false, false
	for i := 0; i < len(text); {
		c := text[i]
		if inString {
			out, orig = append(out, c), append(orig, i)
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
			i++
			continue
		}
		if c == '"' {
			inString = true
			out, orig = append(out, c), append(orig, i)
			i++
			continue
		}
		next := rune(0)
		if i+1 < len(text) {
			next = text[i+1]
		}
		if c == '/' && next == '/' {
			i += 2
			for i < len(text) && text[i] != '\r' && text[i] != '\n' {
				i++
			}
			continue
		}
		if c == '/' && next == '*' {
			start := i
			i += 2
			closed := false
			// CrewAI scans while i < len-1, so a lone "*" as the last
			// character never closes the comment.
			for i < len(text)-1 {
				if text[i] == '\n' {
					out, orig = append(out, '\n'), append(orig, i)
				}
				if text[i] == '*' && text[i+1] == '/' {
					i += 2
					closed = true
					break
				}
				i++
			}
			if !closed {
				return nil, nil, start, fmt.Errorf("%s", jsoncUnterminated)
			}
			continue
		}
		out, orig = append(out, c), append(orig, i)
		i++
	}
	orig = append(orig, len(text))
	return stripTrailingCommas(out, orig)
}

func stripTrailingCommas(text []rune, orig []int) ([]rune, []int, int, error) {
	out := make([]rune, 0, len(text))
	om := make([]int, 0, len(orig))
	inString, escape := false, false
	for i, c := range text {
		if inString {
			out, om = append(out, c), append(om, orig[i])
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		} else if c == ',' {
			j := i + 1
			for j < len(text) && pyIsSpace(text[j]) {
				j++
			}
			if j < len(text) && (text[j] == '}' || text[j] == ']') {
				continue
			}
		}
		out, om = append(out, c), append(om, orig[i])
	}
	om = append(om, orig[len(orig)-1])
	return out, om, 0, nil
}

// pyIsSpace is Python's str.isspace for one character.
func pyIsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return r > 0x7f && unicode.IsSpace(r) || r == 0x2028 || r == 0x2029 || r == 0x1680 || r == 0x3000 ||
		(r >= 0x2000 && r <= 0x200a) || r == 0x202f || r == 0x205f || r == 0xa0
}

type jsonDecoder struct {
	s     []rune // stripped text
	orig  []int  // stripped index → original index (len(s)+1 entries)
	file  string
	lines lineIndex // of the original text
}

type jsonSyntaxError struct {
	msg string
	at  int // index in stripped text
}

func (d *jsonDecoder) decode() (n *Node, err error) {
	if len(d.s) > 0 && d.s[0] == '\ufeff' {
		return nil, d.errorAt(jsonSyntaxError{"Unexpected UTF-8 BOM (decode using utf-8-sig)", 0})
	}
	idx := d.ws(0)
	node, end, serr := d.value(idx, 0)
	if serr != nil {
		return nil, d.errorAt(*serr)
	}
	end = d.ws(end)
	if end != len(d.s) {
		return nil, d.errorAt(jsonSyntaxError{"Extra data", end})
	}
	return node, nil
}

func (d *jsonDecoder) errorAt(e jsonSyntaxError) *Error {
	// CrewAI's numbers: Python's JSONDecodeError lineno/colno on the
	// stripped text.
	sline, scol := lineColRunes(d.s, e.at)
	msg := fmt.Sprintf("invalid JSON at line %d, column %d: %s", sline, scol, e.msg)
	return &Error{Pos: d.pos(e.at), Msg: msg, CrewAI: d.file + ": " + msg}
}

func (d *jsonDecoder) pos(i int) Pos {
	if i > len(d.s) {
		i = len(d.s)
	}
	line, col := d.lines.lineCol(d.orig[i])
	return Pos{File: d.file, Line: line, Col: col}
}

// ws skips JSON whitespace (Python's [ \t\n\r]*).
func (d *jsonDecoder) ws(i int) int {
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

func (d *jsonDecoder) hasPrefix(i int, lit string) bool {
	for _, r := range lit {
		if i >= len(d.s) || d.s[i] != r {
			return false
		}
		i++
	}
	return true
}

// value is Python's scan_once: a failure to start a value is "Expecting
// value" at idx.
func (d *jsonDecoder) value(idx, depth int) (*Node, int, *jsonSyntaxError) {
	if idx >= len(d.s) {
		return nil, idx, &jsonSyntaxError{"Expecting value", idx}
	}
	if depth > maxJSONDepth {
		return nil, idx, &jsonSyntaxError{"maximum nesting depth exceeded", idx}
	}
	pos := d.pos(idx)
	switch c := d.s[idx]; {
	case c == '"':
		s, end, err := d.str(idx + 1)
		if err != nil {
			return nil, idx, err
		}
		return &Node{Kind: KindString, Pos: pos, Str: s}, end, nil
	case c == '{':
		return d.object(idx+1, depth, pos)
	case c == '[':
		return d.array(idx+1, depth, pos)
	case c == 'n' && d.hasPrefix(idx, "null"):
		return &Node{Kind: KindNull, Pos: pos}, idx + 4, nil
	case c == 't' && d.hasPrefix(idx, "true"):
		return &Node{Kind: KindBool, Pos: pos, Bool: true}, idx + 4, nil
	case c == 'f' && d.hasPrefix(idx, "false"):
		return &Node{Kind: KindBool, Pos: pos}, idx + 5, nil
	case c == 'N' && d.hasPrefix(idx, "NaN"):
		return numberNode("NaN", pos), idx + 3, nil
	case c == 'I' && d.hasPrefix(idx, "Infinity"):
		return numberNode("Infinity", pos), idx + 8, nil
	case c == '-' && d.hasPrefix(idx, "-Infinity"):
		return numberNode("-Infinity", pos), idx + 9, nil
	}
	if end, ok := d.number(idx); ok {
		return numberNode(string(d.s[idx:end]), pos), end, nil
	}
	return nil, idx, &jsonSyntaxError{"Expecting value", idx}
}

// number matches (-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)? at i.
func (d *jsonDecoder) number(i int) (int, bool) {
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

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func (d *jsonDecoder) object(idx, depth int, pos Pos) (*Node, int, *jsonSyntaxError) {
	n := &Node{Kind: KindObject, Pos: pos}
	index := map[string]int{}
	idx = d.ws(idx)
	if idx < len(d.s) && d.s[idx] == '}' {
		return n, idx + 1, nil
	}
	for {
		if idx >= len(d.s) || d.s[idx] != '"' {
			return nil, idx, &jsonSyntaxError{"Expecting property name enclosed in double quotes", idx}
		}
		keyPos := d.pos(idx)
		key, end, err := d.str(idx + 1)
		if err != nil {
			return nil, idx, err
		}
		idx = d.ws(end)
		if idx >= len(d.s) || d.s[idx] != ':' {
			return nil, idx, &jsonSyntaxError{"Expecting ':' delimiter", idx}
		}
		idx = d.ws(idx + 1)
		val, end, err := d.value(idx, depth+1)
		if err != nil {
			return nil, idx, err
		}
		if i, dup := index[key]; dup {
			// Python's dict keeps the first key's place and the last value.
			n.Fields[i].Value, n.Fields[i].KeyPos = val, keyPos
		} else {
			index[key] = len(n.Fields)
			n.Fields = append(n.Fields, &Field{Key: key, KeyPos: keyPos, Value: val})
		}
		idx = d.ws(end)
		if idx < len(d.s) && d.s[idx] == '}' {
			return n, idx + 1, nil
		}
		if idx >= len(d.s) || d.s[idx] != ',' {
			return nil, idx, &jsonSyntaxError{"Expecting ',' delimiter", idx}
		}
		idx = d.ws(idx + 1)
	}
}

func (d *jsonDecoder) array(idx, depth int, pos Pos) (*Node, int, *jsonSyntaxError) {
	n := &Node{Kind: KindArray, Pos: pos}
	idx = d.ws(idx)
	if idx < len(d.s) && d.s[idx] == ']' {
		return n, idx + 1, nil
	}
	for {
		val, end, err := d.value(idx, depth+1)
		if err != nil {
			return nil, idx, err
		}
		n.Items = append(n.Items, val)
		idx = d.ws(end)
		if idx < len(d.s) && d.s[idx] == ']' {
			return n, idx + 1, nil
		}
		if idx >= len(d.s) || d.s[idx] != ',' {
			return nil, idx, &jsonSyntaxError{"Expecting ',' delimiter", idx}
		}
		idx = d.ws(idx + 1)
	}
}

// str is Python's scanstring (strict): end is just after the opening quote.
func (d *jsonDecoder) str(end int) (string, int, *jsonSyntaxError) {
	s := d.s
	begin := end - 1
	var b strings.Builder
	for {
		next := end
		var c rune
		for ; next < len(s); next++ {
			c = s[next]
			if c == '"' || c == '\\' {
				break
			}
			if c <= 0x1f {
				return "", 0, &jsonSyntaxError{"Invalid control character at", next}
			}
		}
		if next >= len(s) {
			return "", 0, &jsonSyntaxError{"Unterminated string starting at", begin}
		}
		b.WriteString(string(s[end:next]))
		if c == '"' {
			return b.String(), next + 1, nil
		}
		next++ // past the backslash
		if next == len(s) {
			return "", 0, &jsonSyntaxError{"Unterminated string starting at", begin}
		}
		c = s[next]
		if c != 'u' {
			end = next + 1
			r, ok := jsonEscapes[c]
			if !ok {
				return "", 0, &jsonSyntaxError{"Invalid \\escape", end - 2}
			}
			b.WriteRune(r)
			continue
		}
		next++
		end = next + 4
		if end >= len(s) {
			return "", 0, &jsonSyntaxError{"Invalid \\uXXXX escape", next - 1}
		}
		u, ok := hex4(s[next:end])
		if !ok {
			return "", 0, &jsonSyntaxError{"Invalid \\uXXXX escape", end - 5}
		}
		if u >= 0xd800 && u <= 0xdbff && end+6 < len(s) && s[end] == '\\' && s[end+1] == 'u' {
			u2, ok := hex4(s[end+2 : end+6])
			if !ok {
				return "", 0, &jsonSyntaxError{"Invalid \\uXXXX escape", end + 1}
			}
			if u2 >= 0xdc00 && u2 <= 0xdfff {
				u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00)
				end += 6
			}
		}
		b.WriteRune(u) // lone surrogates become U+FFFD in Go strings
	}
}

var jsonEscapes = map[rune]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// lineIndex maps a character offset to a 1-based line and column.
type lineIndex []int // offset of the first character of each line

func newLineIndex(text []rune) lineIndex {
	li := lineIndex{0}
	for i, r := range text {
		if r == '\n' {
			li = append(li, i+1)
		}
	}
	return li
}

func (li lineIndex) lineCol(off int) (int, int) {
	lo, hi := 0, len(li)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, off - li[lo] + 1
}

func hex4(rs []rune) (rune, bool) {
	var v rune
	for _, r := range rs {
		v <<= 4
		switch {
		case r >= '0' && r <= '9':
			v |= r - '0'
		case r >= 'a' && r <= 'f':
			v |= r - 'a' + 10
		case r >= 'A' && r <= 'F':
			v |= r - 'A' + 10
		default:
			return 0, false
		}
	}
	return v, true
}

// lineColRunes is Python's JSONDecodeError numbering: line = count of "\n"
// before i, plus 1; column = characters since the last "\n", plus 1.
func lineColRunes(s []rune, i int) (int, int) {
	if i > len(s) {
		i = len(s)
	}
	line, last := 1, -1
	for j := 0; j < i; j++ {
		if s[j] == '\n' {
			line++
			last = j
		}
	}
	return line, i - last
}

func lineColBytes(b []byte, off int) (int, int) {
	line, start := 1, 0
	for i := 0; i < off && i < len(b); i++ {
		if b[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(b[start:off]) + 1
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return 0
}
