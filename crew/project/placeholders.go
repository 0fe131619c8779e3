package project

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"crewbench/crew/prompt"
	"crewbench/names/difflib"
)

// Placeholder is one {name} in a text CrewAI interpolates at kickoff
// (formats §1.8): agent role/goal/backstory, task description,
// expected_output and output_file.
type Placeholder struct {
	Name  string
	Owner string // "agent researcher", "task research_task" (or "task #2")
	Field string // "role", "description", …
	Pos   Pos    // the field's value
	// CLI is false for a placeholder written {{name}}: the runtime still
	// interpolates the inner {name} (there is no escape), but crewai run's
	// missing-input check does not see it.
	CLI bool
}

var placeholderRe = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_\-]*)}`)

// interpolated is one text field of the crew, in kickoff order: tasks
// first (description, expected_output, output_file), then the crew's
// agents (role, goal, backstory).
type interpolated struct {
	owner, field string
	pos          Pos
	get          func() string
	set          func(string)
	kind         prompt.Field
}

func (p *Project) texts() []interpolated {
	var out []interpolated
	for _, t := range p.Tasks {
		t := t
		owner := "task " + t.Name
		if t.Name == "" {
			owner = fmt.Sprintf("task #%d", t.Index+1)
		}
		out = append(out,
			interpolated{owner, "description", t.Positions.At("description"), func() string { return t.Description }, func(s string) { t.Description = s }, prompt.FieldDescription},
			interpolated{owner, "expected_output", t.Positions.At("expected_output"), func() string { return t.ExpectedOutput }, func(s string) { t.ExpectedOutput = s }, prompt.FieldExpectedOutput},
			interpolated{owner, "output_file", t.Positions.At("output_file"), func() string { return t.OutputFile }, func(s string) { t.OutputFile = s }, prompt.FieldOutputFile},
		)
	}
	for _, a := range p.crewAgents() {
		a := a
		owner := "agent " + a.Name
		out = append(out,
			interpolated{owner, "role", a.Positions.At("role"), func() string { return a.Role }, func(s string) { a.Role = s }, prompt.FieldRole},
			interpolated{owner, "goal", a.Positions.At("goal"), func() string { return a.Goal }, func(s string) { a.Goal = s }, prompt.FieldGoal},
			interpolated{owner, "backstory", a.Positions.At("backstory"), func() string { return a.Backstory }, func(s string) { a.Backstory = s }, prompt.FieldBackstory},
		)
	}
	return out
}

// crewAgents are the agents CrewAI interpolates: the crew's agents (each
// once), not a custom manager.
func (p *Project) crewAgents() []*Agent {
	var out []*Agent
	seen := map[string]bool{}
	names := p.AgentNames()
	if p.Crew != nil && len(p.Crew.Agents) > 0 {
		names = p.Crew.Agents
	}
	for _, n := range names {
		a := p.Agent(n)
		if a == nil || a.Manager || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, a)
	}
	return out
}

// Placeholders lists every {placeholder} in the crew's interpolated texts,
// in kickoff order.
func (p *Project) Placeholders() []Placeholder {
	var out []Placeholder
	for _, tx := range p.texts() {
		s := tx.get()
		for _, m := range placeholderRe.FindAllStringSubmatchIndex(s, -1) {
			// crewai run's scan is (?<!{){name}(?!}): a brace on either side hides it.
			cli := !(m[0] > 0 && s[m[0]-1] == '{') && !(m[1] < len(s) && s[m[1]] == '}')
			out = append(out, Placeholder{Name: s[m[2]:m[3]], Owner: tx.owner, Field: tx.field, Pos: tx.pos, CLI: cli})
		}
	}
	return out
}

// PlaceholderNames are the distinct names crewai run requires, sorted.
func (p *Project) PlaceholderNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, ph := range p.Placeholders() {
		if ph.CLI && !seen[ph.Name] {
			seen[ph.Name] = true
			out = append(out, ph.Name)
		}
	}
	sort.Strings(out)
	return out
}

// CheckInputs is crewai run's input check: missing are placeholders no
// input provides (as "  Missing required input 'x'"); warnings are
// provided inputs no placeholder uses, in CrewAI's words.
func (p *Project) CheckInputs(inputs map[string]any) (missing []Placeholder, warnings []string) {
	used := map[string]bool{}
	reported := map[string]bool{}
	var all []string
	for _, ph := range p.Placeholders() {
		if !ph.CLI {
			continue
		}
		if !used[ph.Name] {
			all = append(all, ph.Name)
		}
		used[ph.Name] = true
		if _, ok := inputs[ph.Name]; !ok && !reported[ph.Name] {
			reported[ph.Name] = true
			missing = append(missing, ph)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		if used[k] {
			continue
		}
		w := fmt.Sprintf("  Input '%s' isn't referenced by any {placeholder} in the crew.", k)
		if s := closeMatch(k, all); s != "" {
			w += fmt.Sprintf(" Did you mean '%s'?", s)
		}
		warnings = append(warnings, w)
	}
	return missing, warnings
}

// closeMatch is difflib.get_close_matches(word, candidates, n=1, cutoff=0.6).
func closeMatch(word string, candidates []string) string {
	best, bestScore := "", 0.6
	for _, c := range candidates {
		r := difflib.Ratio(word, c)
		if r > bestScore || (r == bestScore && r >= 0.6 && c > best) {
			best, bestScore = c, r
		}
	}
	return best
}

// Interpolate returns a copy of the project with inputs interpolated into
// the kickoff texts, the way Crew.kickoff does: empty inputs change
// nothing; values are inserted with Python's str(); a missing name is an
// error with CrewAI's text for that field, at the field's position.
func (p *Project) Interpolate(inputs map[string]any) (*Project, error) {
	cp := p.clone()
	if len(inputs) == 0 {
		return cp, nil
	}
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		if t := unsupportedInputType(inputs[k]); t != "" {
			return nil, &Error{Msg: fmt.Sprintf("Invalid value for key '%s': Unsupported type %s in inputs. Only str, int, float, bool, dict, and list are allowed.", k, t)}
		}
	}
	for _, tx := range cp.texts() {
		s := tx.get()
		if s == "" {
			continue
		}
		out, err := prompt.InterpolateField(tx.kind, s, inputs)
		if err != nil {
			return nil, &Error{Pos: tx.pos, Field: tx.owner + " " + tx.field, Msg: err.Error(), CrewAI: err.Error()}
		}
		tx.set(out)
	}
	return cp, nil
}

func unsupportedInputType(v any) string {
	switch t := v.(type) {
	case nil, string, bool, int, int64, float64:
		return ""
	case []any:
		for _, x := range t {
			if s := unsupportedInputType(x); s != "" {
				return s
			}
		}
		return ""
	case map[string]any:
		for _, x := range t {
			if s := unsupportedInputType(x); s != "" {
				return s
			}
		}
		return ""
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", v), "*")
}

// clone copies the project deeply enough that interpolation does not touch
// the original: agents, tasks and the crew are new values.
func (p *Project) clone() *Project {
	cp := *p
	cp.Agents = make([]*Agent, len(p.Agents))
	for i, a := range p.Agents {
		ac := *a
		cp.Agents[i] = &ac
	}
	byTask := map[*Task]*Task{}
	cp.Tasks = make([]*Task, len(p.Tasks))
	for i, t := range p.Tasks {
		tc := *t
		cp.Tasks[i] = &tc
		byTask[t] = &tc
	}
	if p.Crew != nil {
		cc := *p.Crew
		cc.Tasks = make([]*Task, len(p.Crew.Tasks))
		for i, t := range p.Crew.Tasks {
			if n := byTask[t]; n != nil {
				cc.Tasks[i] = n
			} else {
				tc := *t
				cc.Tasks[i] = &tc
			}
		}
		cp.Crew = &cc
	}
	return &cp
}
