package pyjson

import "strings"

// IsSpace is Python's str.isspace for one character.
func IsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// Strip is Python's str.strip(): leading and trailing whitespace of any
// kind.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }
