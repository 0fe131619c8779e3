// Package cmdline reads and writes command lines the way a POSIX shell
// does, without ever running one: Split takes a stdio server's command
// line (crewbench --stdio, $EDITOR) apart, Quote and Join write one, and
// CallLine writes a tool call as a `crewbench call` command line with the
// flags the CLI registers from CallFlags.
package cmdline

import (
	"errors"
	"strings"
	"unicode"
)

// Split splits a command line into words like a POSIX shell
// (whitespace separates; '…' is literal; "…" allows \" \\ \$ \`; a
// backslash outside quotes escapes the next character) without expanding
// anything: no variables, globs or substitutions, and no shell is run.
func Split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	const (
		plain = iota
		single
		double
	)
	state := plain
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch state {
		case single:
			if r == '\'' {
				state = plain
			} else {
				cur.WriteRune(r)
			}
		case double:
			switch {
			case r == '"':
				state = plain
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		default:
			switch {
			case unicode.IsSpace(r):
				if inWord {
					words = append(words, cur.String())
					cur.Reset()
					inWord = false
				}
			case r == '\'':
				state, inWord = single, true
			case r == '"':
				state, inWord = double, true
			case r == '\\':
				if i+1 < len(rs) {
					i++
					cur.WriteRune(rs[i])
				}
				inWord = true
			default:
				cur.WriteRune(r)
				inWord = true
			}
		}
	}
	if state != plain {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Quote quotes one word for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes and joins words into a command line Split takes back apart.
func Join(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
