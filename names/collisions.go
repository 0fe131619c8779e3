package names

import (
	"fmt"
	"strconv"
	"strings"
)

// DedupeNative returns the names native function calling gives a list of
// tools, in order (convert_tools_to_openai_schema, §2.6): each name is
// sanitized; a name already taken becomes sanitize(name + "_2"), then "_3"
// and so on, every candidate re-sanitized (so a 64-character name plus "_2"
// is hashed). The ReAct path does not de-duplicate.
func DedupeNative(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := make([]string, len(names))
	for i, n := range names {
		name := Sanitize(n)
		if seen[name] {
			name = nextFree(name, seen)
		}
		seen[name] = true
		out[i] = name
	}
	return out
}

// nextFree is the first sanitize(name + "_N"), N ≥ 2, not in seen.
func nextFree(name string, seen map[string]bool) string {
	for n := 2; ; n++ {
		if c := CollisionName(name, n); !seen[c] {
			return c
		}
	}
}

// CollisionName is the name native function calling gives the n-th tool
// (n ≥ 2) whose sanitized name is name: sanitize(name + "_" + n).
func CollisionName(name string, n int) string {
	return Sanitize(name + "_" + strconv.Itoa(n))
}

// Collision is a set of tools that reach the LLM under one name.
type Collision struct {
	LLMName string
	// Members are indexes into the slice given to Collisions, in order.
	Members []int
}

// Collisions finds the tools (status ok) that share an LLM name, in order of
// first appearance.
func Collisions(results []Result) []Collision {
	var order []string
	groups := map[string][]int{}
	for i, r := range results {
		if r.Status != StatusOK {
			continue
		}
		if _, ok := groups[r.LLMName]; !ok {
			order = append(order, r.LLMName)
		}
		groups[r.LLMName] = append(groups[r.LLMName], i)
	}
	var out []Collision
	for _, name := range order {
		if m := groups[name]; len(m) > 1 {
			out = append(out, Collision{LLMName: name, Members: m})
		}
	}
	return out
}

// WithCollisions returns a copy of results in which every tool that shares
// its LLM name with another carries a CodeCollision diagnostic naming the
// others and the name native function calling would give it.
func WithCollisions(results []Result) []Result {
	out := make([]Result, len(results))
	copy(out, results)
	cols := Collisions(results)
	if len(cols) == 0 {
		return out
	}
	// Native names over every tool that reaches the LLM, in order.
	var okIdx []int
	var okNames []string
	for i, r := range results {
		if r.Status == StatusOK {
			okIdx = append(okIdx, i)
			okNames = append(okNames, r.LLMName)
		}
	}
	native := map[int]string{}
	for j, n := range DedupeNative(okNames) {
		native[okIdx[j]] = n
	}
	for _, c := range cols {
		for pos, i := range c.Members {
			var others []string
			for _, j := range c.Members {
				if j != i {
					others = append(others, fmt.Sprintf("%s (#%d)", describeTool(results[j]), j+1))
				}
			}
			msg := fmt.Sprintf("%s shares the LLM name %s with %s", describeTool(results[i]), c.LLMName, strings.Join(others, ", "))
			if pos == 0 {
				msg += "; native function calling keeps this one as " + c.LLMName + " and renames the later ones"
			} else {
				msg += "; native function calling renames this one " + native[i]
			}
			msg += ", the ReAct path runs the first and hooks see the last"
			if sameHTTPSRef(results, c.Members) {
				msg += ", and an https string ref keeps only the last (discovery keys tools by sanitized name)"
			}
			d := newDiag(CodeCollision, msg,
				"rename one of the tools, filter one out (tool_filter or one \"#tool\" ref per tool), or give them to different agents")
			out[i].Diagnostics = append(append([]Diagnostic(nil), out[i].Diagnostics...), d)
		}
	}
	return out
}

// describeTool names a tool for messages: its original name where it has one.
func describeTool(r Result) string {
	switch {
	case r.Input.Kind == KindTool:
		return fmt.Sprintf("%q", r.Input.Name)
	case r.Input.Tool != "":
		return fmt.Sprintf("%q on %s", r.Input.Tool, r.ServerName)
	default:
		return r.DisplayName
	}
}

// sameHTTPSRef reports whether all members come through https refs to one
// server, where discovery lets the last tool of a sanitized name win.
func sameHTTPSRef(results []Result, members []int) bool {
	for _, i := range members {
		r := results[i]
		if r.RefKind != RefHTTPS || r.ServerName != results[members[0]].ServerName {
			return false
		}
	}
	return true
}
