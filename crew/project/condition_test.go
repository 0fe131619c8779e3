package project

import (
	"strings"
	"testing"

	"crewbench/crew/pycond"
	"crewbench/fixtures/fixturetest"
)

// A classic project's ConditionalTask conditions: a lambda, a crew.py
// function, a function imported from a project module, crewbench.yaml's
// declaration, and a function crewbench cannot read (its Why names it).
func TestClassicConditionalTaskConditions(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"config/agents.yaml": "writer:\n  role: Writer\n  goal: Write\n  backstory: Writes.\n",
		"config/tasks.yaml":  "draft:\n  description: Draft.\n  expected_output: A draft.\n  agent: writer\n",
		"conditions.py":      "def is_long(output) -> bool:\n    \"\"\"Long drafts only.\"\"\"\n    return len(output.raw) > 100\n",
		"crew.py": `from crewai import Agent, Crew, Task
from crewai.tasks.conditional_task import ConditionalTask
from crewai.project import CrewBase, agent, crew, task
from .conditions import is_long


def approved(output: TaskOutput) -> bool:
    return "approved" in output.raw.lower()


def tricky(output):
    words = output.raw.split()
    return len(words) > 3


@CrewBase
class Desk():
    @agent
    def writer(self) -> Agent:
        return Agent(config=self.agents_config['writer'])

    @task
    def draft(self) -> Task:
        return Task(config=self.tasks_config['draft'])

    @task
    def by_lambda(self) -> Task:
        return ConditionalTask(description="A.", expected_output="A.", agent=self.writer(),
                               condition=lambda out: out.raw.strip().endswith("!"))

    @task
    def by_def(self) -> Task:
        return ConditionalTask(description="B.", expected_output="B.", agent=self.writer(), condition=approved)

    @task
    def by_import(self) -> Task:
        return ConditionalTask(description="C.", expected_output="C.", agent=self.writer(), condition=is_long)

    @task
    def by_python(self) -> Task:
        return ConditionalTask(description="D.", expected_output="D.", agent=self.writer(), condition=tricky)

    @task
    def by_yaml(self) -> Task:
        return ConditionalTask(description="E.", expected_output="E.", agent=self.writer(), condition=tricky)

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks)
`,
		"crewbench.yaml": "tasks:\n  by_yaml:\n    condition: \"'ok' in output.raw\"\n",
	}
	fixturetest.WriteFiles(t, dir, files)
	p := open(t, dir)
	cases := []struct {
		task, raw, why string
		want           bool
	}{
		{task: "by_lambda", raw: " done! ", want: true},
		{task: "by_def", raw: "APPROVED", want: true},
		{task: "by_import", raw: "short", want: false},
		{task: "by_python", why: "is not a single return statement"},
		{task: "by_yaml", raw: "ok", want: true},
	}
	for _, tc := range cases {
		task := p.Task(tc.task)
		if task == nil || task.Type != "conditional" || task.ConditionDecl == nil {
			t.Fatalf("%s: %+v", tc.task, task)
		}
		d := task.ConditionDecl
		if tc.why != "" {
			if !strings.Contains(d.Why, tc.why) || !strings.Contains(d.Why, "crew.py:") {
				t.Errorf("%s: why = %q", tc.task, d.Why)
			}
			continue
		}
		var c *pycond.Condition
		var err error
		switch {
		case d.Lambda != nil:
			c, err = pycond.Lambda(d.Lambda)
		case d.Return != nil:
			c, err = pycond.Body(d.Return, d.Param, d.Return.Text, d.Pos)
		default:
			c, err = pycond.Parse(d.Text, d.Pos)
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.task, err)
		}
		if got, err := c.Eval(pycond.Output{Raw: tc.raw}); err != nil || got != tc.want {
			t.Errorf("%s on %q = %v, %v; want %v", tc.task, tc.raw, got, err, tc.want)
		}
	}
}

// crewbench.yaml's tasks: names a ConditionalTask of the project; anything
// else is an error at the key.
func TestOverlayConditionErrors(t *testing.T) {
	for _, tc := range []struct{ overlay, want string }{
		{"tasks:\n  gaet:\n    condition: 'True'\n", `crewbench.yaml:3:16: tasks.gaet: the project has no task "gaet"`},
		{"tasks:\n  draft:\n    condition: 'True'\n", "crewbench.yaml:3:16: tasks.draft.condition: task draft is not a ConditionalTask"},
		{"tasks:\n  gate:\n    condition: [1]\n", "crewbench.yaml:3:16: condition is a Python expression over output"},
		{"tasks:\n  gate:\n    condtion: x\n", `crewbench.yaml:3:5: unknown key "condtion" in tasks.gate`},
	} {
		dir := t.TempDir()
		fixturetest.WriteFiles(t, dir, map[string]string{
			"crew.jsonc": `{"agents": ["a"], "tasks": [
				{"name": "draft", "description": "d", "expected_output": "e", "agent": "a"},
				{"name": "gate", "type": "conditional", "description": "d", "expected_output": "e", "agent": "a"}]}`,
			"agents/a.jsonc": `{"role": "R", "goal": "G", "backstory": "B"}`,
			"crewbench.yaml": tc.overlay,
		})
		_, err := OpenWith(dir, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("overlay %q: err = %v, want %q", tc.overlay, err, tc.want)
		}
	}
}
