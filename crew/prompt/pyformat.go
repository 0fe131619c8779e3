package prompt

import (
	"strconv"
	"strings"

	"crewbench/crew/pyjson"
)

// PyFormat is Python's str.format(**kw) for a user's template (a
// planning_config prompt), with Python's error texts: {{ and }} are braces,
// {name} is kw[name], {name!r} its repr; a missing name is the KeyError
// whose str() is the quoted name, a positional field the IndexError, an
// unbalanced brace the ValueError. A format spec ({n:>4}), an attribute
// or index ({role.x}, {role[0]}) or !a is not reproduced and is an error
// naming the field. Unlike fill, it fails rather than leaving a placeholder.
func PyFormat(s string, kw map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '}':
			if i+1 < len(s) && s[i+1] == '}' {
				b.WriteByte('}')
				i++
				continue
			}
			return "", TextError("Single '}' encountered in format string")
		case c != '{':
			b.WriteByte(c)
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		if i+1 == len(s) {
			return "", TextError("Single '{' encountered in format string")
		}
		// The field runs to the '}' that balances this '{' (a spec may
		// nest fields).
		depth, end := 1, -1
		for j := i + 1; j < len(s) && end < 0; j++ {
			switch s[j] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = j
				}
			}
		}
		if end < 0 {
			return "", TextError("expected '}' before end of string")
		}
		v, err := formatField(s[i+1:end], kw)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		i = end
	}
	return b.String(), nil
}

// formatField renders one replacement field (what is between its braces).
func formatField(field string, kw map[string]string) (string, error) {
	name, conv, spec := field, "", ""
	if k := strings.IndexAny(name, "!:"); k >= 0 {
		name, spec = field[:k], field[k:]
		if spec[0] == '!' {
			switch rest := spec[1:]; {
			case rest == "":
				return "", TextError("unmatched '{' in format spec")
			case len(rest) > 1 && rest[1] != ':':
				return "", TextError("expected ':' after conversion specifier")
			default:
				conv, spec = rest[:1], strings.TrimPrefix(rest[1:], ":")
			}
		} else {
			spec = spec[1:]
		}
	}
	arg, rest := name, ""
	if k := strings.IndexAny(name, ".["); k >= 0 {
		arg, rest = name[:k], name[k:]
	}
	if arg == "" || isDigits(arg) {
		n := 0
		if arg != "" {
			n, _ = strconv.Atoi(arg)
		}
		return "", TextError("Replacement index " + strconv.Itoa(n) + " out of range for positional args tuple")
	}
	v, ok := kw[arg]
	if !ok {
		return "", TextError(pyjson.Repr(arg))
	}
	if rest != "" || spec != "" {
		return "", TextError("crewbench does not reproduce the attribute, index or format spec of {" + field + "}")
	}
	switch conv {
	case "", "s":
		return v, nil
	case "r":
		return pyjson.Repr(v), nil
	case "a":
		return "", TextError("crewbench does not reproduce the !a conversion of {" + field + "}")
	}
	return "", TextError("Unknown conversion specifier " + conv)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
