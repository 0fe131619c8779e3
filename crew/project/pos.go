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

// ServerPositions are the positions of a server's fields, with the lookups
// of Positions. A server read from JSON or YAML keeps its entry's Node and
// finds a path in it when asked (a lint finding or an error), instead of a
// map of every value built for every server of a large mcpServers file; a
// server read from Python or the overlay records its few paths in a slice.
type ServerPositions struct {
	tree  *Node
	paths []pathPos
}

type pathPos struct {
	path string
	pos  Pos
}

// treePositions are the positions of n and every value below it.
func treePositions(n *Node) ServerPositions { return ServerPositions{tree: n} }

// recordedPositions holds the paths of ps.
func recordedPositions(ps Positions) ServerPositions {
	sp := ServerPositions{paths: make([]pathPos, 0, len(ps))}
	for k, p := range ps {
		sp.set(k, p)
	}
	return sp
}

// set records path; a later set of the same path wins, as in a map.
func (sp *ServerPositions) set(path string, p Pos) {
	sp.paths = append(sp.paths, pathPos{path, p})
}

// lookup is the position recorded for exactly path.
func (sp ServerPositions) lookup(path string) (Pos, bool) {
	if sp.tree != nil {
		return sp.tree.posAt(path)
	}
	for i := len(sp.paths) - 1; i >= 0; i-- {
		if sp.paths[i].path == path {
			return sp.paths[i].pos, true
		}
	}
	return Pos{}, false
}

// At is Positions.At: the position of path or of its nearest recorded
// parent, or the zero Pos.
func (sp ServerPositions) At(path string) Pos {
	for path != "" {
		if p, ok := sp.lookup(path); ok {
			return p
		}
		path = parentPath(path)
	}
	p, _ := sp.lookup("")
	return p
}

// Has reports whether path was written in the source.
func (sp ServerPositions) Has(path string) bool {
	_, ok := sp.lookup(path)
	return ok
}
