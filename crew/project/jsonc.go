package project

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"crewbench/crew/pyjson"
)

// JSONC is parsed the way CrewAI's json_loader does it (formats §1.2):
// comments are stripped first (line comments up to \r or \n with the newline
// kept; block comments removed except for their \n characters, so line
// numbers survive), then a "," followed only by whitespace and "}" or "]" is
// dropped, and the result is decoded by pyjson.Decode, the one port of
// Python's json.loads (NaN, Infinity and -Infinity accepted, duplicate keys
// keep the last value, exact error messages). Strings are never touched by
// either pass.
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
// "{path}: " prefix of CrewAI's texts. It works on the bytes: one stripped
// copy, maps as small as the number of comments, and positions computed
// per value from a line index and rune-count checkpoints, so a file of N
// bytes costs about N plus its Nodes.
func ParseJSONC(src []byte, file string) (*Node, error) {
	if !utf8.Valid(src) {
		off := firstInvalidUTF8(src)
		line, col := lineColBytes(src, off)
		msg := fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", src[off], off)
		return nil, &Error{Pos: Pos{File: file, Line: line, Col: col}, Msg: msg, CrewAI: msg}
	}
	stripped, orig, startOfComment, err := stripJSONC(src)
	if err != nil {
		line, col := lineColBytes(src, startOfComment)
		return nil, &Error{Pos: Pos{File: file, Line: line, Col: col}, Msg: jsoncUnterminated, CrewAI: jsoncUnterminated}
	}
	nb := &nodeBuilder{s: stripped, orig: orig, file: file, lines: newLineIndex(src)}
	n, serr := pyjson.Decode[*Node](stripped, nb, maxJSONDepth)
	if serr != nil {
		return nil, nb.errorAt(serr)
	}
	return n, nil
}

// offsetMap maps a byte offset in the stripped text to one in the
// original: stripped offset k is original k+delta[j] for the last j with
// at[j] <= k. Only the places where text was removed need an entry, so the
// map is as small as the number of comments and trailing commas, not the
// file.
type offsetMap struct {
	at, delta []int
	end       int // the original offset of the end of input
}

func (m *offsetMap) set(k, orig int) {
	d := orig - k
	if n := len(m.delta); n > 0 && m.delta[n-1] == d {
		return
	}
	m.at, m.delta = append(m.at, k), append(m.delta, d)
}

func (m *offsetMap) orig(k int) int {
	lo, hi := 0, len(m.at)-1
	if hi < 0 || k < m.at[0] {
		return k
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.at[mid] <= k {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return k + m.delta[lo]
}

// stripJSONC removes comments and trailing commas; orig maps offsets in
// the result (its length included, for the end of input) to text. Every
// character it looks at is ASCII, so it can step through bytes: a byte of
// a multi-byte character is never '"', '\\', '/', '*' or '\n'.
func stripJSONC(text []byte) (out []byte, orig *offsetMap, badComment int, err error) {
	out = make([]byte, 0, len(text))
	m := &offsetMap{end: len(text)}
	keep := func(c byte, i int) {
		m.set(len(out), i)
		out = append(out, c)
	}
	inString, escape := false, false
	for i := 0; i < len(text); {
		c := text[i]
		if inString {
			keep(c, i)
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
			keep(c, i)
			i++
			continue
		}
		next := byte(0)
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
					keep('\n', i)
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
		keep(c, i)
		i++
	}
	out, m = stripTrailingCommas(out, m)
	return out, m, 0, nil
}

// stripTrailingCommas drops, in place, every "," followed only by
// whitespace and "}" or "]" outside strings, and returns the map composed
// with the removals.
func stripTrailingCommas(text []byte, orig *offsetMap) ([]byte, *offsetMap) {
	m := &offsetMap{end: orig.end}
	w := 0
	inString, escape := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inString {
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
		} else if c == '"' {
			inString = true
		} else if c == ',' {
			j := i + 1
			for j < len(text) {
				r, size := utf8.DecodeRune(text[j:])
				if !pyIsSpace(r) {
					break
				}
				j += size
			}
			if j < len(text) && (text[j] == '}' || text[j] == ']') {
				continue
			}
		}
		// w <= i, so the lookahead above reads only bytes not yet
		// overwritten.
		m.set(w, orig.orig(i))
		text[w] = c
		w++
	}
	return text[:w], m
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

// nodeBuilder turns what pyjson.Decode reads from the stripped text into
// Nodes whose positions refer to the original file.
type nodeBuilder struct {
	s     []byte     // stripped text
	orig  *offsetMap // stripped offset → original offset
	file  string
	lines lineIndex // of the original text
}

func (nb *nodeBuilder) Scalar(v any, at int) *Node {
	pos := nb.pos(at)
	switch v := v.(type) {
	case string:
		return &Node{Kind: KindString, Pos: pos, Str: v}
	case bool:
		return &Node{Kind: KindBool, Pos: pos, Bool: v}
	case pyjson.Number:
		return numberNode(string(v), pos)
	}
	return &Node{Kind: KindNull, Pos: pos}
}

func (nb *nodeBuilder) Object(members []pyjson.Member[*Node], at int) *Node {
	n := &Node{Kind: KindObject, Pos: nb.pos(at), Fields: make([]*Field, 0, len(members))}
	var index map[string]int // only objects big enough to make a scan slow
	if len(members) > 8 {
		index = make(map[string]int, len(members))
	}
	for _, m := range members {
		keyPos := nb.pos(m.KeyAt)
		i := -1
		if index != nil {
			if j, dup := index[m.Key]; dup {
				i = j
			}
		} else {
			for j, f := range n.Fields {
				if f.Key == m.Key {
					i = j
					break
				}
			}
		}
		if i >= 0 {
			// Python's dict keeps the first key's place and the last value.
			n.Fields[i].Value, n.Fields[i].KeyPos = m.Value, keyPos
			continue
		}
		if index != nil {
			index[m.Key] = len(n.Fields)
		}
		n.Fields = append(n.Fields, &Field{Key: m.Key, KeyPos: keyPos, Value: m.Value})
	}
	return n
}

func (nb *nodeBuilder) Array(items []*Node, at int) *Node {
	n := &Node{Kind: KindArray, Pos: nb.pos(at)}
	if len(items) > 0 {
		n.Items = append([]*Node(nil), items...) // Decode reuses items
	}
	return n
}

func (nb *nodeBuilder) errorAt(e *pyjson.SyntaxError) *Error {
	// CrewAI's numbers: Python's JSONDecodeError lineno/colno on the
	// stripped text.
	sline, scol := e.LineCol(nb.s)
	msg := fmt.Sprintf("invalid JSON at line %d, column %d: %s", sline, scol, e.Msg)
	return &Error{Pos: nb.pos(e.At), Msg: msg, CrewAI: nb.file + ": " + msg}
}

func (nb *nodeBuilder) pos(i int) Pos {
	o := nb.orig.end
	if i < len(nb.s) {
		o = nb.orig.orig(i)
	}
	line, col := nb.lines.lineCol(o)
	return Pos{File: nb.file, Line: line, Col: col}
}

// lineIndex maps a byte offset of valid UTF-8 text to a 1-based line and
// a 1-based column in code points. Columns count the characters (the
// non-continuation bytes) between the line's start and the offset; the
// counts at every runeCheckpoint bytes keep that cheap on very long lines.
type lineIndex struct {
	text   []byte
	starts []int // offset of the first byte of each line
	runes  []int // runes[k]: characters in text[:k*runeCheckpoint]
}

const runeCheckpoint = 1024

func newLineIndex(text []byte) lineIndex {
	li := lineIndex{text: text, starts: []int{0}, runes: make([]int, 0, len(text)/runeCheckpoint+1)}
	n := 0
	for i, c := range text {
		if i%runeCheckpoint == 0 {
			li.runes = append(li.runes, n)
		}
		if c&0xc0 != 0x80 {
			n++
		}
		if c == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

// charsBefore is the number of characters in text[:off].
func (li lineIndex) charsBefore(off int) int {
	k := off / runeCheckpoint
	if k >= len(li.runes) {
		k = len(li.runes) - 1
	}
	if k < 0 {
		return 0
	}
	return li.runes[k] + pyjson.CharOffset(li.text[k*runeCheckpoint:], off-k*runeCheckpoint)
}

func (li lineIndex) lineCol(off int) (int, int) {
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, li.charsBefore(off) - li.charsBefore(li.starts[lo]) + 1
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
