package crew

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"crewbench/names/suggest"
	"crewbench/session"
)

// UnmatchedBreakpoint is a breakpoint that names nothing the run had.
type UnmatchedBreakpoint struct {
	Spec    string // as --break takes it: tool=NAME or server=NAME
	Guess   string // the spec probably meant (tool=getForecast), or ""
	Message string // what to tell the user: the names the run had, and Guess
}

// Unmatched explains each tool= and server= breakpoint that names none of
// the given tools or servers, compared as Match compares (case-insensitive).
// Such a breakpoint never pauses, and nothing else would say so: the run
// just goes through. tools are every name a tool goes by (the LLM's, the
// display name, the server's own); servers are server names. Each message
// lists what the run did show and, when one is near, the name meant.
func (b Breakpoints) Unmatched(tools, servers []string) []UnmatchedBreakpoint {
	var out []UnmatchedBreakpoint
	for _, t := range b.Tools {
		if !containsFold(tools, t) {
			out = append(out, unmatched("tool", t, tools))
		}
	}
	for _, s := range b.Servers {
		if !containsFold(servers, s) {
			out = append(out, unmatched("server", s, servers))
		}
	}
	return out
}

// Event is the warning event that reports u.
func (u UnmatchedBreakpoint) Event() session.Event {
	data := map[string]any{session.KeyMessage: u.Message, session.KeyBreakpoint: u.Spec}
	if u.Guess != "" {
		data[session.KeyDidYouMean] = u.Guess
	}
	return session.Event{Kind: session.Warning, Data: data}
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

// maxListed keeps the message on a line or two for a crew with many tools.
const maxListed = 8

func unmatched(what, name string, known []string) UnmatchedBreakpoint {
	u := UnmatchedBreakpoint{Spec: what + "=" + name}
	plural := what + "s"
	if len(known) == 0 {
		u.Message = fmt.Sprintf("breakpoint %s never paused: the run showed no %s", u.Spec, plural)
		return u
	}
	known = slices.Clone(known)
	// Shortest first: a tool's short names are the ones a user types, and
	// the long generated ones (an MCP tool's LLM name) fill the list last.
	slices.SortFunc(known, func(a, b string) int {
		if c := len(a) - len(b); c != 0 {
			return c
		}
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	list := known
	more := ""
	if len(list) > maxListed {
		list, more = list[:maxListed], fmt.Sprintf(" and %d more", len(known)-maxListed)
	}
	u.Message = fmt.Sprintf("breakpoint %s never paused: it names none of the run's %s (%s%s)",
		u.Spec, plural, strings.Join(list, ", "), more)
	if guess := closestName(name, known); guess != "" {
		u.Guess = what + "=" + guess
		u.Message += fmt.Sprintf(" — did you mean %s?", u.Guess)
	}
	return u
}

// closestName is the known name a typo was probably meant as, or the
// shortest known name containing it (forecast → getForecast; an MCP
// tool's LLM name, weather_get_forecast, adds the server's to its own).
func closestName(name string, known []string) string {
	if s := suggest.DidYouMean(name, known); s != "" {
		return s
	}
	best := ""
	ln := strings.ToLower(name)
	for _, k := range known {
		if strings.Contains(strings.ToLower(k), ln) && (best == "" || len(k) < len(best)) {
			best = k
		}
	}
	return best
}

// SeenNames gathers every name a run shows for its tools and servers
// (session.ToolNames of each event), for Unmatched at the end of the run.
// It is safe for concurrent use, and a nil *SeenNames notes nothing.
type SeenNames struct {
	mu      sync.Mutex
	tools   map[string]bool
	servers map[string]bool
}

// SeenNamesFor returns a SeenNames when b names tools or servers, and nil
// otherwise: a run whose breakpoints name none pays a nil check per event.
func SeenNamesFor(b Breakpoints) *SeenNames {
	if len(b.Tools)+len(b.Servers) == 0 {
		return nil
	}
	return &SeenNames{tools: map[string]bool{}, servers: map[string]bool{}}
}

// Event takes the names ev carries.
func (n *SeenNames) Event(ev session.Event) {
	if n == nil {
		return
	}
	tools, servers := session.ToolNames(ev)
	if len(tools)+len(servers) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range tools {
		n.tools[s] = true
	}
	for _, s := range servers {
		n.servers[s] = true
	}
}

// Unmatched is b.Unmatched over the names seen so far (nil for a nil n).
func (n *SeenNames) Unmatched(b Breakpoints) []UnmatchedBreakpoint {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	tools, servers := slices.Collect(maps.Keys(n.tools)), slices.Collect(maps.Keys(n.servers))
	n.mu.Unlock()
	return b.Unmatched(tools, servers)
}
