package project

import (
	"crewbench/crew/pyread"
	"sort"
	"strconv"
	"strings"
)

// Pos is where a value was written: a file, a 1-based line and a 1-based
// column counted in code points. The Python reader defines it, so the
// positions of everything read from crew.py need no conversion.
type Pos = pyread.Pos

// Positions maps a field path to where its value was written. Paths use the
// spelling of the source file: "role", "settings.max_iter",
// "mcps[0].tool_filter.allowed_tool_names[1]", "llm.model". Fields merged
// from `settings` are also recorded under their plain name, pointing at the
// value that won.
type Positions map[string]Pos

// At returns the position of path, or of its nearest recorded parent
// ("mcps[0].env.X" falls back to "mcps[0].env", then "mcps[0]", then "mcps"),
// or the zero Pos.
func (ps Positions) At(path string) Pos {
	for path != "" {
		if p, ok := ps[path]; ok {
			return p
		}
		path = parentPath(path)
	}
	return ps[""]
}

// Has reports whether path was written in the source (as opposed to taking
// its default).
func (ps Positions) Has(path string) bool {
	_, ok := ps[path]
	return ok
}

// Paths returns the recorded paths, sorted.
func (ps Positions) Paths() []string {
	out := make([]string, 0, len(ps))
	for k := range ps {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

func joinPath(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}

func indexPath(base string, i int) string { return base + "[" + strconv.Itoa(i) + "]" }

// Error is one problem found while loading. Msg is CrewAI's text without its
// "{path}: " prefix where CrewAI has a text for the problem; CrewAI is the
// whole text as CrewAI would print it (with the path CrewAI would use).
type Error struct {
	Pos   Pos
	Field string // field path inside the file, e.g. "tasks[1].context"
	Msg   string
	// Hint is a suggestion such as `did you mean "role"?`; not part of
	// CrewAI's text.
	Hint   string
	CrewAI string
}

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// Errors is every problem found in one load, in the order CrewAI would
// report them.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap lets errors.As find each *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Level says how much a Note matters.
type Level string

// Note levels.
const (
	Info Level = "info"
	Warn Level = "warn"
)

// Note is an observation made while loading that is not an error: a field
// CrewAI would drop, a quirk that changes behaviour, why a file was chosen.
type Note struct {
	Pos   Pos    `json:"pos"`
	Level Level  `json:"level"`
	Code  string `json:"code"`
	Text  string `json:"text"`
}

func (n Note) String() string {
	if s := n.Pos.String(); s != "" {
		return s + ": " + n.Text
	}
	return n.Text
}
