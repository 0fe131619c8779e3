// Package names reproduces, byte for byte, how CrewAI 1.15 turns MCP server
// and tool names into the names an LLM sees (crewai-semantics.md §1–§2), and
// explains each derivation. It is pure: no I/O, no project imports.
package names

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxLength is CrewAI's sanitize_tool_name default max_length; every caller
// uses the default.
const MaxLength = 64

// hashLen is the number of SHA-256 hex characters appended to truncated names.
const hashLen = 8

var (
	// Acronym split then camelCase split, in this order (§1.1 steps 2–3).
	// The replacement must be "${1}_${2}": "$1_$2" would read a group named
	// "1_" and silently turn "getForecast" into "geForecast" (§1.3).
	acronymSplit = regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`)
	camelSplit   = regexp.MustCompile(`([a-z])([A-Z])`)
	quoteRuns    = regexp.MustCompile(`['"]+`)
	separators   = regexp.MustCompile(`[^a-zA-Z0-9]+`)
	underscores  = regexp.MustCompile(`_+`)
)

const splitTemplate = "${1}_${2}"

// Sanitize is CrewAI's sanitize_tool_name with the default max length.
func Sanitize(name string) string {
	return sanitizeStages(name, nil)
}

// Stage is one step of the sanitizer, for explanations.
type Stage struct {
	Name   string // short step name, e.g. "NFKD + drop non-ASCII"
	Output string // the string after this step
}

// SanitizeStages returns the sanitized name and the string after every step.
func SanitizeStages(name string) (string, []Stage) {
	var stages []Stage
	out := sanitizeStages(name, &stages)
	return out, stages
}

func sanitizeStages(s string, rec *[]Stage) string {
	note := func(step string) {
		if rec != nil {
			*rec = append(*rec, Stage{Name: step, Output: s})
		}
	}
	s = foldASCII(s)
	note("NFKD, then drop non-ASCII")
	s = acronymSplit.ReplaceAllString(s, splitTemplate)
	note("split acronyms ([A-Z]+)([A-Z][a-z])")
	s = camelSplit.ReplaceAllString(s, splitTemplate)
	note("split camelCase ([a-z])([A-Z])")
	s = strings.ToLower(s)
	note("lowercase")
	s = quoteRuns.ReplaceAllString(s, "")
	note("delete quotes")
	s = separators.ReplaceAllString(s, "_")
	note("non-alphanumeric runs → _")
	s = underscores.ReplaceAllString(s, "_")
	note("collapse _")
	s = strings.Trim(s, "_")
	note("strip leading/trailing _")
	if len(s) > MaxLength {
		s = truncateWithHash(s)
		note("truncate to 55 + _ + sha256[:8]")
	}
	return s
}

// truncateWithHash keeps the first 55 characters (minus trailing _), then
// appends "_" and the first 8 hex characters of the SHA-256 of the whole
// sanitized string.
func truncateWithHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	h := hex.EncodeToString(sum[:])[:hashLen]
	prefix := strings.TrimRight(s[:MaxLength-hashLen-1], "_")
	return prefix + "_" + h
}

// foldASCII applies NFKD and deletes every code point ≥ U+0080 (Python's
// encode("ascii", "ignore")): characters without an ASCII decomposition
// vanish rather than becoming "_".
func foldASCII(s string) string {
	if isASCII(s) {
		return s
	}
	d := norm.NFKD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for i := 0; i < len(d); {
		r, size := utf8.DecodeRuneInString(d[i:])
		if r < utf8.RuneSelf && size == 1 {
			b.WriteByte(byte(r))
		}
		i += size
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
