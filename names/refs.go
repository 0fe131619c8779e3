package names

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String refs in Agent.mcps (crewai-semantics.md §2.3, §2.4).

// ampPrefix is the legacy prefix of AMP refs, removed before parsing.
const ampPrefix = "crewai-amp:"

// slugRef is CrewAI's slug pattern for non-https string refs
// (base_agent.py, §2.3): ^(?:crewai-amp:)?[a-zA-Z0-9][a-zA-Z0-9_-]*(?:#[\w-]+)?$
// translated to Go:
//   - Python's \w on str is Unicode-aware (str.isalnum() or "_"), hence
//     [\p{L}\p{N}_]; combining marks are not word characters in either.
//   - re.match anchors only the start, and Python's $ also matches just
//     before one trailing "\n", so "notion\n" is accepted; Go's $ is \z.
var slugRef = regexp.MustCompile(`^(?:crewai-amp:)?[a-zA-Z0-9][a-zA-Z0-9_-]*(?:#[\p{L}\p{N}_-]+)?\n?$`)

// ErrInvalidRef is wrapped by every ValidateMCPRef error.
var ErrInvalidRef = errors.New("invalid MCP reference")

// refError carries CrewAI's exact message and matches ErrInvalidRef.
type refError struct{ msg string }

func (e *refError) Error() string        { return e.msg }
func (e *refError) Is(target error) bool { return target == ErrInvalidRef }

// ValidateMCPRef is CrewAI's validation of a string in Agent.mcps: a string
// is accepted when it starts with "https://" (exactly, case-sensitive) or
// matches the slug pattern. Otherwise the error text is CrewAI's
// ValidationError message, with the ref in Python repr form.
func ValidateMCPRef(ref string) error {
	if strings.HasPrefix(ref, "https://") || slugRef.MatchString(ref) {
		return nil
	}
	return &refError{msg: "Invalid MCP reference: " + pyRepr(ref) + ". " +
		"String references must be an 'https://' URL or a valid " +
		"slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion')."}
}

// RefKind is the kind of a string ref.
type RefKind string

// String ref kinds.
const (
	RefHTTPS RefKind = "https" // "https://host/path#tool"
	RefAMP   RefKind = "amp"   // "slug", "slug#tool", "crewai-amp:slug#tool"
)

// Ref is a parsed, valid string ref.
type Ref struct {
	Kind RefKind
	Raw  string // the ref as written
	// URL is the part before the first "#" (https refs only); the server
	// name comes from it.
	URL string
	// Slug is the AMP integration slug without "crewai-amp:" (AMP refs only).
	Slug string
	// Tool is the text after the first "#"; "" means every tool.
	Tool string
}

// ParseRef validates ref like CrewAI and splits it on the first "#".
func ParseRef(ref string) (Ref, error) {
	if err := ValidateMCPRef(ref); err != nil {
		return Ref{}, err
	}
	if strings.HasPrefix(ref, "https://") {
		u, tool, _ := strings.Cut(ref, "#")
		return Ref{Kind: RefHTTPS, Raw: ref, URL: u, Tool: tool}, nil
	}
	slug, tool, _ := strings.Cut(strings.TrimPrefix(ref, ampPrefix), "#")
	return Ref{Kind: RefAMP, Raw: ref, Slug: slug, Tool: tool}, nil
}

// HTTPSRefSelects reports whether an https ref with fragment tool keeps the
// remote tool: no fragment keeps everything, otherwise the sanitized
// fragment must equal the sanitized remote name (§2.3).
func HTTPSRefSelects(tool, remote string) bool {
	return tool == "" || Sanitize(tool) == Sanitize(remote)
}

// AMPRefSelects reports whether an AMP ref with fragment tool keeps a tool
// whose display name is display: a suffix match on "_" + sanitize(tool), so
// "search" also keeps "…_advanced_search" (§2.4).
func AMPRefSelects(tool, display string) bool {
	return tool == "" || strings.HasSuffix(display, "_"+Sanitize(tool))
}

// HTTPSRefTool names a remote tool reached through an https string ref:
// key = sanitize(remote) (kept even when empty), display = server + "_" +
// key, LLM name = sanitize(display). callName is what CrewAI sends to
// tools/call on this path: the sanitized key, not the remote name (§2.3).
func HTTPSRefTool(serverName, remote string) (display, llm, callName string) {
	key := Sanitize(remote)
	display = serverName + "_" + key
	return display, Sanitize(display), key
}

// pyRepr renders s the way Python's repr(str) does: single quotes unless the
// string contains ' and no ", backslash and the active quote escaped, \t \n
// \r named, other non-printable characters as \xhh, \uhhhh or \Uhhhhhhhh.
// Bytes that are not valid UTF-8 are shown as \udcXX, which is what Python
// holds for them after decoding argv or a file with surrogateescape.
func pyRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteRune(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\udc%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < utf8.RuneSelf || unicode.IsPrint(r):
			// Go's IsPrint and Python's str.isprintable agree: letters,
			// marks, numbers, punctuation, symbols and the ASCII space.
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}
