package crew

import (
	"context"
	"strconv"
	"strings"

	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// Crew planning, as CrewAI 1.15.17 runs it for planning: true
// (crews/utils.py:376-377, crew.py:1451-1477, utilities/planning_handler.py):
// after crew_kickoff_started and the input interpolation, a "Task Execution
// Planner" agent without tools runs one task whose description summarises
// every task and whose output_pydantic is PlannerTaskPydanticOutput; each
// task's plan is then appended to its description with no separator.

// plannerOutputSchema is PlannerTaskPydanticOutput.model_json_schema() as
// Pydantic 2 writes it (utilities/planning_handler.py:15-34).
const plannerOutputSchema = `{"$defs": {"PlanPerTask": {"properties": {"task_number": {"description": "The 1-indexed task number this plan corresponds to", "minimum": 1, "title": "Task Number", "type": "integer"}, "task": {"description": "The task for which the plan is created", "title": "Task", "type": "string"}, "plan": {"description": "The step by step plan on how the agents can execute their tasks using the available tools with mastery", "title": "Plan", "type": "string"}}, "required": ["task_number", "task", "plan"], "title": "PlanPerTask", "type": "object"}}, "properties": {"list_of_plans_per_task": {"description": "Step by step plan on how the agents can execute their tasks using the available tools with mastery", "items": {"$ref": "#/$defs/PlanPerTask"}, "title": "List Of Plans Per Task", "type": "array"}}, "required": ["list_of_plans_per_task"], "title": "PlannerTaskPydanticOutput", "type": "object"}`

var plannerModel = newBuiltinModel("PlannerTaskPydanticOutput", plannerOutputSchema)

// plan runs the planner task and appends each task's plan to its
// interpolated description. The planner's LLM is not one of the crew's
// agents' LLMs, so its tokens are not in the crew's usage
// (crew.py:2201-2225).
func (rs *runState) plan(ctx context.Context) error {
	c := rs.crew
	planned := make([]prompt.PlannedTask, len(c.Tasks))
	for i, t := range c.Tasks {
		tt := rs.texts[t]
		pt := prompt.PlannedTask{Description: tt.description, ExpectedOutput: tt.expectedOutput, TaskTools: "[]", AgentTools: prompt.PlannerNoTools}
		// Task.check_tools copies the agent's tools into task.tools when
		// the task has none (task.py), so both fields show them.
		tools := t.Tools
		if t.Agent != nil {
			p := rs.personaOf(t.Agent)
			pt.HasAgent, pt.AgentRole, pt.AgentGoal = true, p.role, p.goal
			if len(t.Agent.Tools) > 0 {
				pt.AgentTools = toolList(t.Agent.Tools)
				if len(tools) == 0 {
					tools = t.Agent.Tools
				}
			}
		}
		if len(tools) > 0 {
			pt.TaskTools = toolList(tools)
		}
		planned[i] = pt
	}
	planner := NewAgent("planner", prompt.PlannerRole, prompt.PlannerGoal, prompt.PlannerBackstory, c.PlanningLLM)
	planner.Model = c.PlanningModel
	pt := &Task{
		Description: prompt.PlannerTaskDescription(prompt.PlannerTasksSummary(planned)), ExpectedOutput: prompt.PlannerExpectedOutput,
		Agent: planner, ContextMode: ContextNone, OutputPydantic: true, builtin: plannerModel,
	}
	pt.OutputJSON = plannerModel.promptSchema
	rs.texts[pt] = taskText{description: pt.Description, expectedOutput: pt.ExpectedOutput}

	usage := rs.usageSnapshot()
	to, err := rs.runTask(ctx, pt, nil, nil, map[*Task]*TaskOutput{})
	rs.mu.Lock()
	rs.usage = usage
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	// CrewPlanner reads result.pydantic: the plan the planner got back for
	// its response model, or the converter's. A reply the native OpenAI
	// provider could not parse has failed the planner task already
	// (parseStructuredReply); without a model CrewPlanner stops with its
	// own error.
	v := to.model
	if v == nil {
		return prompt.TextError(prompt.PlannerFailed)
	}
	plans := map[int]string{}
	list, _ := v.Get("list_of_plans_per_task")
	items, _ := list.([]any)
	for _, it := range items {
		o, ok := it.(*pyjson.Object)
		if !ok {
			continue
		}
		n, _ := o.Get("task_number")
		num, ok := planNumber(n)
		if !ok {
			continue
		}
		if _, dup := plans[num]; dup {
			rs.warn(rs.span, session.Event{}, "Duplicate plan for Task Number "+strconv.Itoa(num)+", using the first plan")
			continue
		}
		p, _ := o.Get("plan")
		ps, _ := p.(string)
		plans[num] = ps
	}
	for i, t := range c.Tasks {
		p, ok := plans[i+1]
		if !ok {
			rs.warn(rs.span, session.Event{}, "No plan found for Task Number "+strconv.Itoa(i+1))
			continue
		}
		tt := rs.texts[t]
		tt.description += p
		rs.texts[t] = tt
	}
	return nil
}

// toolList stands for str(list of tools) in the summary. CrewAI writes
// each BaseTool's Python str(), which crewbench cannot reproduce; it
// writes the names (FromProject notes it).
func toolList(tools []Tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Spec().Name
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// planNumber reads a validated task_number (an int after validation).
func planNumber(v any) (int, bool) {
	switch n := v.(type) {
	case pyjson.Number:
		i, err := strconv.Atoi(string(n))
		return i, err == nil
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}
