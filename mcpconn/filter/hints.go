package filter

import (
	"fmt"
	"strings"

	"crewbench/names"
	"crewbench/names/suggest"
)

// HintKind classifies a Hint.
type HintKind string

// Hint kinds.
const (
	// HintDidYouMean: a list entry matches no tool but resembles one; the
	// Suggestion is that tool's sanitized name.
	HintDidYouMean HintKind = "did_you_mean"
	// HintNoMatch: a list entry matches no tool and resembles none.
	HintNoMatch HintKind = "no_match"
	// HintKeepsNothing: the filter keeps none of the server's tools, so CrewAI
	// logs `No tools discovered from MCP server: {server_name}` and the
	// server contributes nothing.
	HintKeepsNothing HintKind = "keeps_nothing"
)

// List names as CrewAI's create_static_tool_filter spells them.
const (
	ListAllowed = "allowed_tool_names"
	ListBlocked = "blocked_tool_names"
)

// Hint is advice about the filter as a whole, not about one tool.
type Hint struct {
	Kind       HintKind `json:"kind"`
	Entry      string   `json:"entry,omitempty"`      // the allow/block entry ("" for HintKeepsNothing)
	List       string   `json:"list,omitempty"`       // ListAllowed or ListBlocked ("" for HintKeepsNothing)
	Suggestion string   `json:"suggestion,omitempty"` // the sanitized tool name to use instead (HintDidYouMean only)
	Message    string   `json:"message"`              // a complete sentence for the user
}

// KeepsNothing reports whether hints say the filter kept no tool.
func KeepsNothing(hints []Hint) bool {
	for _, h := range hints {
		if h.Kind == HintKeepsNothing {
			return true
		}
	}
	return false
}

// NoToolsMessage is CrewAI's warning when a server contributes no tools
// after filtering (crewai-semantics.md §3).
func NoToolsMessage(serverName string) string {
	return "No tools discovered from MCP server: " + serverName
}

// hints explains entries that matched no tool and a filter that kept nothing.
// The lookup tables are built only when some entry needs them.
func (f *Filter) hints(c Context, b *batch, tools toolList) []Hint {
	verdicts := b.verdicts
	var out []Hint
	var idx *toolIndex
	explain := func(list string, entries []string, hit []bool) {
		for i, e := range entries {
			if hit[i] {
				continue
			}
			if idx == nil {
				idx = newToolIndex(tools, c.ServerName)
			}
			out = append(out, idx.explain(list, e))
		}
	}
	explain(ListAllowed, f.allowedList, b.allowedHit)
	explain(ListBlocked, f.blockedList, b.blockedHit)

	if len(verdicts) > 0 {
		kept := 0
		for i := range verdicts {
			if verdicts[i].Kept {
				kept++
			}
		}
		if kept == 0 {
			out = append(out, Hint{
				Kind: HintKeepsNothing,
				Message: fmt.Sprintf("the filter keeps none of the %d tools: CrewAI logs %q and this server contributes no tools",
					len(verdicts), NoToolsMessage(c.ServerName)),
			})
		}
	}
	return out
}

// toolIndex answers "which tool did this entry mean?". It scans the listing
// once per unmatched entry instead of building lookup maps: entries are few,
// listings can hold 10,000 tools, and the playground recomputes hints on
// every keystroke.
type toolIndex struct {
	tools  toolList
	prefix string // sanitize(server_name) + "_", "" when unknown
}

func newToolIndex(tools toolList, serverName string) *toolIndex {
	ix := &toolIndex{tools: tools}
	if p := names.Sanitize(serverName); p != "" {
		ix.prefix = p + "_"
	}
	return ix
}

// Why an entry resembles a tool, strongest first.
const (
	likeOriginal  = iota // the entry is the raw remote name
	likeSanitized        // sanitize(entry) is the name
	likeFolded           // equal ignoring case
	likePrefixed         // the entry carries the server prefix
	likeTypo             // small edit distance
	likeNothing
)

func (ix *toolIndex) explain(list, entry string) Hint {
	san := names.Sanitize(entry)
	var unprefixed string
	if ix.prefix != "" && strings.HasPrefix(san, ix.prefix) {
		unprefixed = san[len(ix.prefix):]
	}
	maxTypo := min(len(san)/4, 2) // "get" gets no fuzzy match; long names allow 2 edits
	best, bestWhy, bestDist := "", likeNothing, maxTypo+1
	for i, n := 0, ix.tools.Len(); i < n && bestWhy != likeOriginal; i++ {
		t := ix.tools.At(i)
		if t.Name == "" {
			continue // CrewAI skips tools whose name sanitizes to empty
		}
		why := likeNothing
		switch {
		case t.OriginalName == entry:
			why = likeOriginal
		case t.Name == san:
			why = likeSanitized
		case strings.EqualFold(t.Name, entry) || strings.EqualFold(t.OriginalName, entry):
			why = likeFolded
		case unprefixed != "" && t.Name == unprefixed:
			why = likePrefixed
		case bestWhy >= likeTypo && maxTypo > 0:
			if d, ok := suggest.Within(san, t.Name, bestDist-1); ok {
				why, bestDist = likeTypo, d
				best = t.Name // a closer typo replaces a farther one
			}
		}
		if why < bestWhy {
			best, bestWhy = t.Name, why
		}
	}
	var detail string
	switch bestWhy {
	case likeOriginal:
		detail = "; it is the tool's original name, but CrewAI compares the sanitized name"
	case likeSanitized:
		detail = fmt.Sprintf("; CrewAI does not sanitize filter entries, and it sanitizes to `%s`", san)
	case likeFolded:
		detail = " (the comparison is case-sensitive)"
	case likePrefixed:
		detail = "; filters see tool names without the server prefix"
	case likeTypo:
	default:
		return Hint{
			Kind: HintNoMatch, Entry: entry, List: list,
			Message: fmt.Sprintf("%s entry %q matches no tool on this server", list, entry),
		}
	}
	return Hint{
		Kind: HintDidYouMean, Entry: entry, List: list, Suggestion: best,
		Message: fmt.Sprintf("%s entry %q matches no tool%s — did you mean `%s`?", list, entry, detail, best),
	}
}

// CanonicalEntry is the form of a static-filter entry that can match a
// tool: CrewAI compares allowed_tool_names and blocked_tool_names entries,
// unchanged, with the sanitized tool names, so an entry matches only when it
// is already sanitized ("getForecast" never matches; "get_forecast" does).
// "" means no tool can ever match the entry. lint reports an entry that is
// not its CanonicalEntry, and export-config writes the CanonicalEntry.
func CanonicalEntry(entry string) string { return names.Sanitize(entry) }
