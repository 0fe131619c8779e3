package project

import (
	"regexp"
	"strings"
	"unicode"
)

// DotEnv is a project's .env file read the way python-dotenv 1.2 reads it
// (CrewAI's loader): optional "export ", single- or double-quoted or bare
// values, "#" comments, multi-line quoted values, and ${VAR} / ${VAR:-default}
// expansion in every value (python-dotenv's default, quotes or not).
type DotEnv struct {
	Path string
	Vars []EnvVar
	// Invalid are lines python-dotenv skips with "python-dotenv could not
	// parse statement starting at line N".
	Invalid []Pos
	// Oversized are bindings whose expansion would pass maxDotEnvValue;
	// they keep their unexpanded text.
	Oversized []Pos
	// Disabled is true when PYTHON_DOTENV_DISABLED is set to a true value:
	// python-dotenv then loads nothing.
	Disabled bool
	values   map[string]string
}

// EnvVar is one binding. A key without "=" has HasValue false and is not
// set in the environment.
type EnvVar struct {
	Key      string
	Raw      string // the value before ${VAR} expansion
	Value    string // the value after expansion
	HasValue bool
	Pos      Pos
}

// Lookup returns the expanded value of key.
func (e *DotEnv) Lookup(key string) (string, bool) {
	if e == nil || e.Disabled {
		return "", false
	}
	v, ok := e.values[key]
	return v, ok
}

// Keys lists the keys that have a value, in file order, once each.
func (e *DotEnv) Keys() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range e.Vars {
		if v.HasValue && !seen[v.Key] {
			seen[v.Key] = true
			out = append(out, v.Key)
		}
	}
	return out
}

// ParseDotEnv parses .env text. environ is the process environment
// (KEY=VALUE) used for ${VAR} expansion; override is load_dotenv's flag
// (true for `crewai run` of JSON crews, false for `import crewai`), which
// decides whether earlier file values or the environment win in expansion.
func ParseDotEnv(src []byte, file string, environ []string, override bool) *DotEnv {
	e := &DotEnv{Path: file, values: map[string]string{}}
	if v, ok := environLookup(environ, "PYTHON_DOTENV_DISABLED"); ok {
		switch strings.ToLower(v) {
		case "1", "true", "t", "yes", "y":
			e.Disabled = true
		}
	}
	text := []rune(strings.TrimPrefix(string(src), "\ufeff"))
	r := &dotenvReader{s: text, line: 1, file: file}
	for r.i < len(r.s) {
		r.binding(e)
	}
	// resolve_variables: each value sees the process environment and the
	// bindings before it; with override the file's bindings win, without
	// it the environment does. One lookup instead of python-dotenv's
	// rebuilt dict per line keeps a long file linear.
	procEnv := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			procEnv[k] = v
		}
	}
	resolved := map[string]*string{}
	lookup := func(name string) (string, bool) {
		if !override {
			if v, ok := procEnv[name]; ok {
				return v, true
			}
		}
		if v, ok := resolved[name]; ok {
			if v == nil {
				return "", true
			}
			return *v, true
		}
		v, ok := procEnv[name]
		return v, ok
	}
	for i := range e.Vars {
		v := &e.Vars[i]
		if !v.HasValue {
			resolved[v.Key] = nil
			continue
		}
		val, ok := expandPosixVars(v.Raw, lookup, maxDotEnvValue)
		if !ok {
			// python-dotenv would build the whole value (a line like
			// A2=${A1}${A1} doubles it); crewbench keeps it unexpanded.
			val = v.Raw
			e.Oversized = append(e.Oversized, v.Pos)
		}
		v.Value = val
		resolved[v.Key] = &val
	}
	for k, v := range resolved {
		if v != nil {
			e.values[k] = *v
		}
	}
	return e
}

var posixVar = regexp.MustCompile(`\$\{([^}:]*)(?::-([^}]*))?\}`)

// maxDotEnvValue bounds one expanded .env value (1 MiB): far above any
// real credential or URL, far below what a chain of ${A}${A} lines builds.
const maxDotEnvValue = 1 << 20

// expandPosixVars is python-dotenv's Variable.resolve over a value. It
// reports false, and stops building, once the result would pass limit.
func expandPosixVars(s string, lookup func(string) (string, bool), limit int) (string, bool) {
	matches := posixVar.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s, len(s) <= limit
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		name := s[m[2]:m[3]]
		sub, ok := lookup(name)
		if !ok && m[4] >= 0 {
			sub = s[m[4]:m[5]]
		}
		if b.Len()+len(sub) > limit {
			return "", false
		}
		b.WriteString(sub)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String(), b.Len() <= limit
}

type dotenvReader struct {
	s    []rune
	i    int
	line int
	file string
}

func (r *dotenvReader) peek() rune {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

func (r *dotenvReader) adv() {
	if r.i >= len(r.s) {
		return
	}
	c := r.s[r.i]
	r.i++
	if c == '\n' || (c == '\r' && r.peek() != '\n') {
		r.line++
	}
}

func isHSpace(c rune) bool { return c != '\r' && c != '\n' && unicode.IsSpace(c) }

func (r *dotenvReader) binding(e *DotEnv) {
	startLine := r.line
	// _multiline_whitespace
	for r.i < len(r.s) && unicode.IsSpace(r.s[r.i]) {
		r.adv()
	}
	if r.i >= len(r.s) {
		return
	}
	startLine = r.line
	fail := func() {
		// python-dotenv skips the rest of the line where parsing stopped.
		for r.i < len(r.s) && r.s[r.i] != '\r' && r.s[r.i] != '\n' {
			r.adv()
		}
		if r.i < len(r.s) {
			if r.s[r.i] == '\r' && r.i+1 < len(r.s) && r.s[r.i+1] == '\n' {
				r.adv()
			}
			r.adv()
		}
		e.Invalid = append(e.Invalid, Pos{File: r.file, Line: startLine})
	}
	// _export
	if strings.HasPrefix(string(r.s[r.i:min(r.i+7, len(r.s))]), "export") && r.i+6 < len(r.s) && isHSpace(r.s[r.i+6]) {
		for k := 0; k < 6; k++ {
			r.adv()
		}
		for r.i < len(r.s) && isHSpace(r.s[r.i]) {
			r.adv()
		}
	}
	keyCol := r.i - lineStart(r.s, r.i) + 1
	// key
	var key string
	switch r.peek() {
	case '#':
		// a comment line: _comment then _end_of_line
		r.comment()
		if !r.endOfLine() {
			fail()
		}
		return
	case '\'':
		j := r.i + 1
		for j < len(r.s) && r.s[j] != '\'' {
			j++
		}
		if j >= len(r.s) || j == r.i+1 {
			fail()
			return
		}
		key = string(r.s[r.i+1 : j])
		for r.i <= j {
			r.adv()
		}
	default:
		j := r.i
		for j < len(r.s) && r.s[j] != '=' && r.s[j] != '#' && !unicode.IsSpace(r.s[j]) {
			j++
		}
		if j == r.i {
			fail()
			return
		}
		key = string(r.s[r.i:j])
		r.i = j
	}
	for r.i < len(r.s) && isHSpace(r.s[r.i]) {
		r.adv()
	}
	v := EnvVar{Key: key, Pos: Pos{File: r.file, Line: startLine, Col: keyCol}}
	if r.peek() == '=' {
		r.adv()
		spaced := false
		for r.i < len(r.s) && isHSpace(r.s[r.i]) {
			r.adv()
			spaced = true
		}
		val, ok := r.value(spaced)
		if !ok {
			fail()
			return
		}
		v.Raw, v.HasValue = val, true
	}
	r.comment()
	if !r.endOfLine() {
		fail()
		return
	}
	e.Vars = append(e.Vars, v)
}

func lineStart(s []rune, i int) int {
	for i > 0 && s[i-1] != '\n' && s[i-1] != '\r' {
		i--
	}
	return i
}

func (r *dotenvReader) comment() {
	j := r.i
	for j < len(r.s) && isHSpace(r.s[j]) {
		j++
	}
	if j < len(r.s) && r.s[j] == '#' {
		for r.i < len(r.s) && r.s[r.i] != '\r' && r.s[r.i] != '\n' {
			r.adv()
		}
	}
}

// endOfLine is [^\S\r\n]*(?:\r\n|\n|\r|$) where $ also matches before a
// final "\n".
func (r *dotenvReader) endOfLine() bool {
	for r.i < len(r.s) && isHSpace(r.s[r.i]) {
		r.adv()
	}
	switch {
	case r.i >= len(r.s):
		return true
	case r.s[r.i] == '\r' && r.i+1 < len(r.s) && r.s[r.i+1] == '\n':
		r.adv()
		r.adv()
		return true
	case r.s[r.i] == '\n' || r.s[r.i] == '\r':
		r.adv()
		return true
	}
	return false
}

func (r *dotenvReader) value(spaced bool) (string, bool) {
	switch c := r.peek(); c {
	case '\'', '"':
		j := r.i + 1
		for j < len(r.s) {
			if r.s[j] == '\\' && j+1 < len(r.s) && r.s[j+1] == c {
				j += 2
				continue
			}
			if r.s[j] == c {
				break
			}
			j++
		}
		if j >= len(r.s) {
			return "", false
		}
		body := string(r.s[r.i+1 : j])
		for r.i <= j {
			r.adv()
		}
		if c == '\'' {
			return decodeDotenvEscapes(body, `\'`), true
		}
		return decodeDotenvEscapes(body, `\'"abfnrtv`), true
	case 0, '\n', '\r':
		return "", true
	default:
		j := r.i
		for j < len(r.s) && r.s[j] != '\r' && r.s[j] != '\n' {
			j++
		}
		part := string(r.s[r.i:j])
		for r.i < j {
			r.adv()
		}
		if spaced && strings.HasPrefix(part, "#") {
			return "", true
		}
		return strings.TrimRightFunc(unquotedComment.ReplaceAllString(part, ""), unicode.IsSpace), true
	}
}

var unquotedComment = regexp.MustCompile(`\s+#.*`)

// decodeDotenvEscapes decodes "\" followed by one of chars, as
// codecs.decode(…, "unicode-escape") does for those sequences.
func decodeDotenvEscapes(s, chars string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune(chars, rs[i+1]) {
			switch rs[i+1] {
			case 'a':
				b.WriteRune('\a')
			case 'b':
				b.WriteRune('\b')
			case 'f':
				b.WriteRune('\f')
			case 'n':
				b.WriteRune('\n')
			case 'r':
				b.WriteRune('\r')
			case 't':
				b.WriteRune('\t')
			case 'v':
				b.WriteRune('\v')
			default:
				b.WriteRune(rs[i+1])
			}
			i++
			continue
		}
		b.WriteRune(rs[i])
	}
	return b.String()
}
