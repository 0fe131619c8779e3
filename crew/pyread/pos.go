package pyread

import "fmt"

// Pos is where something was written: a file (relative to the project
// directory when it lies inside it), a 1-based line and a 1-based column
// counted in characters (code points), as Python counts them. It is
// crew/project's Pos too (project.Pos is this type), so what the reader
// finds carries the positions the loader reports.
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// String is "crew.jsonc:12:7", "crew.jsonc:12" when the column is unknown,
// and "crew.jsonc" when only the file is known.
func (p Pos) String() string {
	switch {
	case p.File == "" && p.Line == 0:
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// IsValid reports whether the position names at least a file.
func (p Pos) IsValid() bool { return p.File != "" }
