package crew

import (
	"crewbench/crew/prompt"
	"crewbench/session"
)

// promptPersona is what prompt.Build needs of an agent for one execution:
// the interpolated persona, use_system_prompt, the custom templates and,
// with inject_date, the date block from the run's clock. Prompts is built
// per execution in CrewAI (agent/core.py:1091-1101), so each execution
// (a retry too) reads the clock again. A date_format CrewAI refuses leaves
// the block out with CrewAI's warning.
func (rs *runState) promptPersona(a *Agent, p persona, base session.Event, parent string) prompt.Persona {
	pp := prompt.Persona{Role: p.role, Goal: p.goal, Backstory: p.backstory, UseSystemPrompt: a.UseSystemPrompt, Templates: a.Templates}
	if a.InjectDate {
		block, err := prompt.DateBlock(a.DateFormat, rs.now())
		if err != nil {
			rs.warn(parent, base, err.Error())
		}
		pp.DateBlock = block
	}
	return pp
}

// stopWords are the agent's stop words; Crew.Validate has refused a
// response_template they cannot be taken from.
func stopWords(a *Agent) []string {
	stops, err := prompt.StopWords(a.Templates.Response)
	if err != nil {
		return []string{prompt.StopWord}
	}
	return stops
}
