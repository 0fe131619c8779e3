package writeback

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"crewbench/crew/project"
	"crewbench/crew/pyread"
)

// offsetOf converts a 1-based line and a 1-based column counted in code
// points (crew/project's Pos) to a byte offset in src.
func offsetOf(src []byte, pos project.Pos) (int, error) {
	if pos.Line < 1 || pos.Col < 1 {
		return 0, fmt.Errorf("position %s has no line and column", pos)
	}
	off, line := 0, 1
	for line < pos.Line {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("position %s is past the end of the file", pos)
		}
		off += i + 1
		line++
	}
	for col := 1; col < pos.Col; col++ {
		if off >= len(src) || src[off] == '\n' {
			return 0, fmt.Errorf("position %s is past the end of its line", pos)
		}
		_, size := utf8.DecodeRune(src[off:])
		off += size
	}
	return off, nil
}

// --- JSONC ---------------------------------------------------------------

// skipJSONSpace skips whitespace and // and /* */ comments from i.
func skipJSONSpace(src []byte, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
			i++
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i += 2
		default:
			return i
		}
	}
	return len(src)
}

// jsonValueEnd returns the offset just past the JSON value starting at i:
// a string, an object or array (with comments and strings inside), or a
// literal.
func jsonValueEnd(src []byte, i int) (int, error) {
	if i >= len(src) {
		return 0, fmt.Errorf("no value at offset %d", i)
	}
	switch src[i] {
	case '"':
		return jsonStringEnd(src, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(src); {
			switch c := src[j]; {
			case c == '"':
				end, err := jsonStringEnd(src, j)
				if err != nil {
					return 0, err
				}
				j = end
				continue
			case c == '/' && j+1 < len(src) && (src[j+1] == '/' || src[j+1] == '*'):
				j = skipJSONSpace(src, j)
				continue
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
			j++
		}
		return 0, fmt.Errorf("unclosed %c at offset %d", src[i], i)
	}
	j := i
	for j < len(src) && !isJSONDelim(src[j]) {
		j++
	}
	return j, nil
}

func isJSONDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/'
}

func jsonStringEnd(src []byte, i int) (int, error) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		case '\n':
			return 0, fmt.Errorf("unterminated string at offset %d", i)
		}
	}
	return 0, fmt.Errorf("unterminated string at offset %d", i)
}

// --- Python ----------------------------------------------------------------

// pyExprEnd returns the offset where the expression starting at i ends
// (past its last significant byte; trailing spaces and comments are not
// part of it) and the offset of the delimiter that ended it: a ',' or a
// closing bracket at depth 0 (delimAt = len(src) when the source ends).
// pyread's tokenizer tells strings and comments from code.
func pyExprEnd(src []byte, i int) (end, delimAt int) {
	depth := 0
	end = i
	for _, t := range pyread.Tokenize(string(src[i:]), "") {
		switch t.Kind {
		case pyread.TokEOF:
			return end, len(src)
		case pyread.TokNewline:
			continue // the call's brackets hold the expression: newlines are spaces
		case pyread.TokOp:
			switch t.Text {
			case "\\":
				continue // a stray backslash is not part of the value
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return end, i + t.Off
				}
				depth--
			case ",":
				if depth == 0 {
					return end, i + t.Off
				}
			}
		}
		end = i + t.End
	}
	return end, len(src)
}

// lineStart returns the offset of the start of the line holding i.
func lineStart(src []byte, i int) int {
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	return i
}

// lineIndent is the leading whitespace of the line holding i.
func lineIndent(src []byte, i int) string {
	s := lineStart(src, i)
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// sameLine reports whether offsets a < b lie on one line.
func sameLine(src []byte, a, b int) bool {
	if a > b {
		a, b = b, a
	}
	return bytes.IndexByte(src[a:b], '\n') < 0
}
