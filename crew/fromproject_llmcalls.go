package crew

import (
	"cmp"
	"strings"
	"time"

	"crewbench/crew/project"
	"crewbench/crew/prompt"
)

// The project settings of CrewAI features that are LLM calls (string
// guardrails, crew planning), wired into the engine, and notes for the
// ones that are not reproduced.

// planning turns planning: true on, with planning_llm (replaced by the
// overlay's llm: and --llm like manager_llm), else CrewPlanner's own
// default model.
func (b *builder) planning(c *Crew) error {
	l := project.LLM{Model: prompt.PlannerDefaultModel}
	if pl := b.p.Crew.PlanningLLM; pl != nil {
		l = *pl
	}
	prov, model, err := b.provider(l, true)
	if err != nil {
		return err
	}
	c.Planning, c.PlanningLLM, c.PlanningModel = true, prov, model
	for _, pt := range b.p.Tasks {
		pa := b.p.Agent(pt.Agent)
		if len(pt.Tools) > 0 || (pa != nil && len(pa.Tools) > 0) {
			b.note("planning: the planner's tasks summary shows each tool as Python's str(tool), which crewbench writes as the tool names only")
			break
		}
	}
	return nil
}

// agentExtras notes the agent settings whose CrewAI behaviour crewbench
// does not add to a crew run.
func (b *builder) agentExtras(name string, pa *project.Agent) {
	if pa.Guardrail != nil {
		// An agent's guardrail runs only in Agent.kickoff()
		// (agent/core.py:1697), never when the agent performs a crew task.
		b.note("agent %s: guardrail applies to Agent.kickoff() only; CrewAI does not run it for crew tasks, and neither does crewbench", name)
	}
}

// agentPlanning is the PlanningConfig agent/core.py:385-404 makes:
// reasoning: true (deprecated) gives PlanningConfig(max_attempts=
// max_reasoning_attempts), else bare planning: true gives
// PlanningConfig(reasoning_effort="low", max_attempts=1). The plan calls
// are reproduced, and the plan's execution where planexec.go says.
// planning_config.llm is resolved as planning_llm is (--llm and
// crewbench.yaml's llm: replace it); a model string is create_llm(str)
// (reasoning_handler.py:175-185).
func (b *builder) agentPlanning(name string, a *Agent, pa *project.Agent) error {
	switch pc := pa.PlanningConfig; {
	case pc != nil:
		// An explicit planning_config wins over both flags.
		a.Planning = &PlanningConfig{MaxSteps: defaultPlanMaxSteps, SystemPrompt: pc.SystemPrompt, PlanPrompt: pc.PlanPrompt, RefinePrompt: pc.RefinePrompt,
			Effort: cmp.Or(pc.ReasoningEffort, effortMedium), ObserveSteps: pc.ObserveSteps, MaxReplans: defaultMaxReplans}
		if pc.MaxReplans != nil {
			a.Planning.MaxReplans = *pc.MaxReplans
		}
		if pc.MaxAttempts != nil {
			a.Planning.MaxAttempts = planAttempts(*pc.MaxAttempts)
		}
		if pc.MaxStepIterations != nil {
			a.Planning.MaxStepIterations = *pc.MaxStepIterations
		}
		if pc.StepTimeout != nil {
			a.Planning.StepTimeout = time.Duration(*pc.StepTimeout) * time.Second
		}
		if pc.MaxSteps != nil {
			a.Planning.MaxSteps = *pc.MaxSteps
		}
		if pc.LLM != nil {
			prov, model, err := b.provider(*pc.LLM, true)
			if err != nil {
				return err
			}
			a.Planning.LLM, a.Planning.Model = prov, model
		}
		if len(pc.Others) > 0 {
			b.note("agent %s: planning_config sets %s, which crewbench's planning calls do not read (they keep CrewAI's defaults there)", name, strings.Join(pc.Others, ", "))
		}
	case pa.Reasoning:
		a.Planning = &PlanningConfig{MaxSteps: defaultPlanMaxSteps, Effort: effortMedium, MaxReplans: defaultMaxReplans}
		if pa.MaxReasoningAttempts != nil {
			a.Planning.MaxAttempts = planAttempts(*pa.MaxReasoningAttempts)
		}
	case pa.Planning:
		a.Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: defaultPlanMaxSteps, Effort: effortLow, MaxReplans: defaultMaxReplans}
	default:
		return nil
	}
	b.note("agent %s: planning: crewbench sends CrewAI's planning calls and runs a ready plan's steps as CrewAI does: StepExecutor steps with the agent's tools (native or ReAct), PlannerObserver calls, replans of the pending steps, and the final synthesis (with the task's output model when it has one); parallel steps run one after another in plan order", name)
	return nil
}

// planAttempts is a configured max_attempts as PlanningConfig.MaxAttempts,
// whose 0 is None: CrewAI refines while attempt < max_attempts, attempt
// counting from 1 (reasoning_handler.py:293-296), so 0 and below allow no
// refinement, as 1 does.
func planAttempts(n int) int { return max(n, 1) }

// PlanningConfig's defaults (agent/planning_config.py:79-126):
// max_steps 20, reasoning_effort "medium", max_replans 3.
const (
	defaultPlanMaxSteps = 20
	defaultMaxReplans   = 3
	effortLow           = "low"
	effortMedium        = "medium"
)

// guardrails sets a task's string guardrails. A Python guardrail is a note:
// crewbench cannot call it, so it passes.
func (b *builder) guardrails(t *Task, pt *project.Task) error {
	var texts []string
	for _, g := range pt.Guardrails {
		if g.Python != "" {
			b.note("task %s: guardrail %s is Python; crewbench cannot run it and lets every output pass it", pt.Name, g.Python)
			continue
		}
		texts = append(texts, g.Text)
	}
	if len(texts) == 0 {
		return nil
	}
	if t.Agent == nil {
		// LLMGuardrail needs the task agent's LLM (task.py:395-399, 420-424).
		if pt.GuardrailsListed {
			return prompt.TextError("task " + pt.Name + ": Agent is required to use non-programmatic guardrails")
		}
		return prompt.TextError("task " + pt.Name + ": Agent is required to use LLMGuardrail")
	}
	t.Guardrails, t.GuardrailsListed, t.GuardrailMaxRetries = texts, pt.GuardrailsListed, pt.GuardrailMaxRetries
	return nil
}
