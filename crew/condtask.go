package crew

import (
	"errors"

	"crewbench/crew/pycond"
	"crewbench/session"
)

// conditionalSkip is Crew._handle_conditional_task and
// check_conditional_skip (crews/utils.py:185-214) for a task with a
// condition crewbench can evaluate: the condition runs on the last output
// so far (a skipped one included); false skips the task with
// get_skipped_task_output (tasks/conditional_task.py): raw "", the
// task's agent's role, RAW format. CrewAI emits no event for the skip (a
// debug log line only), so crewbench says it in a crewbench_warning. A
// Python exception in the condition fails the kickoff with its text, as
// it fails CrewAI's. Without an earlier output the task runs.
func (rs *runState) conditionalSkip(t *Task, all []*TaskOutput, outputs map[*Task]*TaskOutput) (*TaskOutput, error) {
	if t.Condition == nil || len(all) == 0 {
		return nil, nil
	}
	prev := all[len(all)-1]
	tt := rs.texts[t]
	name := t.Name
	if name == "" {
		name = tt.description
	}
	role := ""
	if t.Agent != nil {
		role = rs.personaOf(t.Agent).role
	}
	base := session.Event{TaskName: name, AgentRole: role}
	prevName := prev.Name
	if prevName == "" {
		prevName = prev.Description
	}
	in := conditionInput(prev)
	// TaskOutput.name is the task's name, None when it has none (the
	// engine's TaskOutput.Name falls back to the description for display);
	// a skipped output has none.
	in.Name = ""
	for task, o := range outputs {
		if o == prev {
			in.Name = task.Name
		}
	}
	run, err := t.Condition.Eval(in)
	var refusal *pycond.Refusal
	var pyErr *pycond.PyError
	switch {
	case errors.As(err, &refusal):
		rs.warn(rs.span, base, "ConditionalTask "+name+": its condition `"+t.Condition.Source+"` could not be evaluated on task "+prevName+"'s output ("+refusal.Error()+"), so crewbench runs the task")
		return nil, nil
	case errors.As(err, &pyErr):
		rs.warn(rs.span, base, "ConditionalTask "+name+": its condition `"+t.Condition.Source+"` raised "+pyErr.Type+": "+pyErr.Msg+" on task "+prevName+"'s output")
		return nil, err
	case err != nil:
		return nil, err
	case run:
		return nil, nil
	}
	rs.warn(rs.span, base, "ConditionalTask "+name+" skipped: condition `"+t.Condition.Source+"` was False on task "+prevName+"'s output")
	return &TaskOutput{Description: tt.description, Summary: summary(tt.description), Agent: role, OutputFormat: FormatRaw}, nil
}

// conditionInput is what a condition sees of a TaskOutput (but its name).
func conditionInput(o *TaskOutput) pycond.Output {
	in := pycond.Output{Description: o.Description, ExpectedOutput: o.ExpectedOutput, Summary: o.Summary,
		Raw: o.Raw, Agent: o.Agent, JSONDict: o.JSONDict}
	if o.model != nil {
		in.Pydantic, in.PydanticStr, in.PydanticClass = o.model, o.Pydantic, o.modelClass
	}
	return in
}
