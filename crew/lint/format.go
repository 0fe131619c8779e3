package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes findings for a person: grouped by file, one line per
// finding (`file:line:col  severity  code  message`), the fix indented
// below it, and a summary line.
func WriteText(w io.Writer, fs []Finding) error {
	var b strings.Builder
	file := "\x00"
	for _, f := range fs {
		if f.Pos.File != file {
			if file != "\x00" {
				b.WriteString("\n")
			}
			file = f.Pos.File
			if file == "" {
				b.WriteString("(project)\n")
			} else {
				b.WriteString(file + "\n")
			}
		}
		fmt.Fprintf(&b, "  %s  %-7s  %s  %s\n", f.Location(), f.Severity, f.Code, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "      fix: %s\n", f.Fix)
		}
		for _, r := range f.Related {
			if s := r.String(); s != "" {
				fmt.Fprintf(&b, "      see: %s\n", s)
			}
		}
	}
	c := Count(fs)
	if len(fs) > 0 {
		b.WriteString("\n")
	}
	switch n := c.Errors + c.Warnings + c.Infos; n {
	case 0:
		b.WriteString("no problems found\n")
	default:
		fmt.Fprintf(&b, "%d %s (%d %s, %d %s, %d info)", n, pluralWord(n, "finding", "findings"),
			c.Errors, pluralWord(c.Errors, "error", "errors"), c.Warnings, pluralWord(c.Warnings, "warning", "warnings"), c.Infos)
		if c.Omitted > 0 {
			fmt.Fprintf(&b, "; %d of them not listed (--max-per-rule 0 lists all)", c.Omitted)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pluralWord picks the singular or plural word for n (the count is
// printed separately).
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WriteJSON writes findings as a JSON array (never null).
func WriteJSON(w io.Writer, fs []Finding) error {
	if fs == nil {
		fs = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(fs)
}
