package writeback

import (
	"fmt"

	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
)

// canonicalFilter is f with every static entry in the one form CrewAI can
// match (filter.CanonicalEntry, the rule lint checks), so that what
// export-config writes is what lint calls correct. notes say what was
// rewritten. An entry that can never match (it sanitizes to nothing) is
// left out, unless that would empty a non-empty allowed list and so keep
// every tool instead of none: then the list stays as given and keepsAll
// explains why.
func canonicalFilter(server string, f mcpconn.FilterSpec) (out mcpconn.FilterSpec, notes []string, keepsAll string) {
	out = f
	fix := func(list string, entries []string) ([]string, []string) {
		var got, ns []string
		for _, e := range clean(entries) {
			c := filter.CanonicalEntry(e)
			switch {
			case c == e:
			case c == "":
				ns = append(ns, fmt.Sprintf("%s: %s entry %q is left out: it sanitizes to an empty name, so it can never match a tool", server, list, e))
				continue
			default:
				ns = append(ns, fmt.Sprintf("%s: %s entry %q is written as %q: CrewAI compares entries with sanitized tool names, so %q would never match", server, list, e, c, e))
			}
			got = append(got, c)
		}
		return clean(got), ns
	}
	allowed, an := fix(filter.ListAllowed, f.Allowed)
	blocked, bn := fix(filter.ListBlocked, f.Blocked)
	if len(allowed) == 0 && len(clean(f.Allowed)) > 0 {
		return f, nil, fmt.Sprintf("%s: no allowed_tool_names entry can match a tool (each sanitizes to an empty name); without them the filter would keep every tool", server)
	}
	out.Allowed, out.Blocked = allowed, blocked
	return out, append(an, bn...), ""
}
