// Package names reproduces, byte for byte, how CrewAI 1.15 turns MCP server
// and tool names into the names an LLM sees (crewai-semantics.md §1–§2), and
// explains each derivation. It is pure: no I/O, no project imports.
//
// The entry point is Resolve: one Input (a plain tool, a stdio/HTTP/SSE
// server and one of its tools, or an https/AMP string ref) in, one Result
// (LLM-visible name, display name, server name, status, diagnostics and a
// step-by-step explanation) out. The building blocks (Sanitize, the server
// name functions, ref parsing and selection, collision suffixes, provider
// checks, other hosts' schemes) are exported for mcpconn and crew.
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

// hashPrefixLen is how many characters of the sanitized name survive a
// truncation (before trailing underscores are stripped): 64 − len("_") − 8.
const hashPrefixLen = MaxLength - hashLen - 1

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

// Stage names, shared by SanitizeStages and the explanations.
const (
	StageFold      = "NFKD, then drop non-ASCII"
	StageAcronym   = "split acronyms ([A-Z]+)([A-Z][a-z])"
	StageCamel     = "split camelCase ([a-z])([A-Z])"
	StageLower     = "lowercase"
	StageQuotes    = "delete quotes"
	StageSeparator = "non-alphanumeric runs → _"
	StageCollapse  = "collapse _"
	StageStrip     = "strip leading/trailing _"
	StageTruncate  = "truncate to 55 + _ + sha256[:8]"
)

// Sanitize is CrewAI's sanitize_tool_name with the default max length
// (§1.1). The output matches ^([a-z0-9]+(_[a-z0-9]+)*)?$, is at most 64
// bytes long, may be empty and may start with a digit.
//
// It runs a single hand-written pass over the folded ASCII string instead of
// the five regular expressions of the reference (SanitizeStages); the two are
// fuzzed against each other.
func Sanitize(name string) string {
	return sanitizeName(name, true)
}

// Stage is one step of the sanitizer, for explanations.
type Stage struct {
	Name   string // short step name, one of the Stage* constants
	Output string // the string after this step
}

// SanitizeStages returns the sanitized name and the string after every step.
// It is the reference implementation: each step is the regular expression
// the spec describes, applied in order. The truncation stage is present only
// when the name was longer than 64 characters.
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
	note(StageFold)
	s = acronymSplit.ReplaceAllString(s, splitTemplate)
	note(StageAcronym)
	s = camelSplit.ReplaceAllString(s, splitTemplate)
	note(StageCamel)
	s = strings.ToLower(s)
	note(StageLower)
	s = quoteRuns.ReplaceAllString(s, "")
	note(StageQuotes)
	s = separators.ReplaceAllString(s, "_")
	note(StageSeparator)
	s = underscores.ReplaceAllString(s, "_")
	note(StageCollapse)
	s = strings.Trim(s, "_")
	note(StageStrip)
	if len(s) > MaxLength {
		s = truncateWithHash(s)
		note(StageTruncate)
	}
	return s
}

// sanitizeUntruncated is Sanitize without step 9: what the name would be
// with no length limit. Used to measure how much of the 64 a prefix takes.
func sanitizeUntruncated(name string) string {
	return sanitizeName(name, false)
}

// sanitizeName folds name (into a stack buffer when it is short) and runs
// the single-pass sanitizer over the result.
func sanitizeName(name string, truncate bool) string {
	if isASCII(name) {
		return sanitizeFast(name, truncate)
	}
	var buf [256]byte
	return sanitizeFast(appendFolded(buf[:0], name), truncate)
}

// sanitizeFast performs steps 2–9 on an ASCII string in one pass.
//
// Steps 2 and 3 only ever insert "_" before an uppercase letter, and whether
// they do depends on the original neighbours alone:
//   - ([a-z])([A-Z]) splits wherever a lowercase letter precedes an
//     uppercase one; the acronym step never inserts between those two, so
//     running it first changes nothing here.
//   - ([A-Z]+)([A-Z][a-z]) with leftmost-first backtracking matches a
//     maximal run of ≥ 2 uppercase letters followed by a lowercase one and
//     splits before the run's last letter; matches cannot overlap because
//     each consumes the lowercase letter ending its run.
//
// Quotes are deleted after the split decisions (step 5 follows the camel
// steps), and every other non-alphanumeric byte — including the inserted
// "_" — is a separator: runs collapse to one "_", leading and trailing ones
// vanish (steps 6–8).
func sanitizeFast[S ~string | ~[]byte](s S, truncate bool) string {
	var stack [128]byte
	out := stack[:0]
	pendingSep := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUpper(c):
			if i > 0 {
				p := s[i-1]
				if isLower(p) || (isUpper(p) && i+1 < len(s) && isLower(s[i+1])) {
					pendingSep = true
				}
			}
			out = appendAlnum(out, c+('a'-'A'), &pendingSep)
		case isLower(c) || isDigit(c):
			out = appendAlnum(out, c, &pendingSep)
		case c == '\'' || c == '"':
			// deleted (step 5): neither a character nor a separator
		default:
			pendingSep = true
		}
	}
	if truncate && len(out) > MaxLength {
		return truncateWithHash(string(out))
	}
	if str, ok := any(s).(string); ok && string(out) == str {
		return str // already sanitized: no allocation
	}
	return string(out)
}

// appendAlnum appends c, preceded by one "_" if a separator is pending and
// something has been written already (leading separators are stripped).
func appendAlnum(out []byte, c byte, pendingSep *bool) []byte {
	if *pendingSep && len(out) > 0 {
		out = append(out, '_')
	}
	*pendingSep = false
	return append(out, c)
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// truncateWithHash keeps the first 55 characters (minus trailing _), then
// appends "_" and the first 8 hex characters of the SHA-256 of the whole
// sanitized string (§1.1 step 9).
func truncateWithHash(s string) string {
	prefix, h := hashParts(s)
	return prefix + "_" + h
}

// hashParts returns the kept prefix and the hash suffix of a truncation.
func hashParts(s string) (prefix, hash string) {
	sum := sha256.Sum256([]byte(s))
	return strings.TrimRight(s[:hashPrefixLen], "_"), hex.EncodeToString(sum[:])[:hashLen]
}

// foldASCII applies NFKD and deletes every code point ≥ U+0080 (Python's
// encode("ascii", "ignore")): characters without an ASCII decomposition
// vanish rather than becoming "_".
func foldASCII(s string) string {
	if isASCII(s) {
		return s
	}
	return string(appendFolded(make([]byte, 0, len(s)), s))
}

// appendFolded appends the ASCII bytes of NFKD(s) to dst: it decomposes
// into dst, then compacts the ASCII bytes in place. Bytes of invalid UTF-8
// are ≥ 0x80 and so are dropped, as Python drops the surrogates it would
// have decoded them to.
func appendFolded(dst []byte, s string) []byte {
	start := len(dst)
	dst = norm.NFKD.AppendString(dst, s)
	n := start
	for _, c := range dst[start:] {
		if c < utf8.RuneSelf {
			dst[n] = c
			n++
		}
	}
	return dst[:n]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
