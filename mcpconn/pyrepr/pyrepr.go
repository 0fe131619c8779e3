// Package pyrepr writes Python's repr() of the values that appear in the
// texts CrewAI builds from MCP results (crewai_tools' str() of a content
// list, pydantic's repr of content items) and of tool arguments. It is a
// leaf under mcpconn so that both mcpconn (MCP result texts) and crew (the
// engine's texts) can use the one implementation.
//
// unicode.IsPrint draws the same line as Python's str.isprintable: every
// category but Other (C*) and Separator (Z*), ASCII space excepted.
package pyrepr

import (
	"fmt"
	"strings"
	"unicode"
)

// Str is Python's repr(str): single quotes unless the text contains a
// single quote and no double quote; \\, \n, \r, \t and non-printable
// characters escaped (\xNN, \uNNNN, \UNNNNNNNN).
func Str(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case !unicode.IsPrint(r):
			switch {
			case r <= 0xff:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
