package crew

import (
	"strings"
	"testing"

	"crewbench/crew/project"
	"crewbench/crew/pycond"
	"crewbench/crew/pyread"
	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// TestConditionalTaskSkipsOnFalse: a false condition skips the task as
// CrewAI does (no LLM call, no task events, raw "" in tasks_output and in
// the next task's default context, not in an explicit context), and a
// true one runs it.
func TestConditionalTaskSkipsOnFalse(t *testing.T) {
	for _, tc := range []struct {
		cond     string
		skipped  bool
		calls    int
		finalCtx string
	}{
		{cond: `"approved" in output.raw.lower()`, skipped: true, calls: 2,
			finalCtx: "Draft ready.\n\n----------\n\n"},
		{cond: `output.raw.startswith("Draft")`, skipped: false, calls: 3,
			finalCtx: "Draft ready.\n\n----------\n\nPolished."},
	} {
		t.Run(tc.cond, func(t *testing.T) {
			prov := scripted(t, `
conversations:
  - agent: Writer
    replies: ["Draft ready."]
  - agent: Editor
    replies: ["Polished."]
  - agent: Publisher
    replies: ["Published.", "Recapped."]
`)
			writer := NewAgent("writer", "Writer", "Write", "You write.", prov)
			editor := NewAgent("editor", "Editor", "Edit", "You edit.", prov)
			publisher := NewAgent("publisher", "Publisher", "Publish", "You publish.", prov)
			cond, err := pycond.Parse(tc.cond, pyread.Pos{File: "crewbench.yaml", Line: 2})
			if err != nil {
				t.Fatal(err)
			}
			draft := &Task{Name: "draft", Description: "Write a draft.", ExpectedOutput: "A draft.", Agent: writer}
			edit := &Task{Name: "edit", Description: "Edit the draft.", ExpectedOutput: "An edit.", Agent: editor, Condition: cond}
			c := &Crew{Name: "desk", Agents: []*Agent{writer, editor, publisher}, Tasks: []*Task{draft, edit,
				{Name: "publish", Description: "Publish it.", ExpectedOutput: "Done.", Agent: publisher},
				{Name: "recap", Description: "Recap the edit.", ExpectedOutput: "Done.", Agent: publisher, ContextMode: ContextList, Context: []*Task{edit}},
			}}
			r := kickoff(t, c, nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if n := len(r.requests()); n != tc.calls+1 {
				t.Fatalf("%d LLM calls, want %d", n, tc.calls+1)
			}
			if got := r.count(session.TaskStarted); got != tc.calls+1 {
				t.Errorf("%d task_started events", got)
			}
			edited := r.out.TasksOutput[1]
			if len(r.out.TasksOutput) != 4 || (edited.Raw == "") != tc.skipped {
				t.Fatalf("tasks_output = %+v", r.out.TasksOutput)
			}
			if tc.skipped && (edited.Agent != "Editor" || edited.OutputFormat != FormatRaw || edited.Description != "Edit the draft.") {
				t.Errorf("skipped output = %+v", edited)
			}
			publishCall := tc.calls - 1
			if got := r.lastContent(t, publishCall); !strings.Contains(got, "This is the context you're working with:\n"+tc.finalCtx+"\n\nProvide") {
				t.Errorf("publish prompt = %q, want context %q", got, tc.finalCtx)
			}
			recap := r.lastContent(t, publishCall+1)
			if strings.Contains(recap, "This is the context") == tc.skipped {
				t.Errorf("recap prompt = %q (an explicit context on a skipped task is empty)", recap)
			}
			var warned bool
			for _, ev := range r.events {
				if ev.Kind == session.Warning && strings.Contains(ev.Data["message"].(string), "ConditionalTask edit skipped: condition `"+tc.cond+"` was False on task draft's output") {
					warned = true
				}
			}
			if warned != tc.skipped {
				t.Errorf("skip warning = %v", warned)
			}
		})
	}
}

// TestConditionalTaskPythonError: a condition that raises fails the
// kickoff with Python's text, as CrewAI's kickoff fails.
func TestConditionalTaskPythonError(t *testing.T) {
	prov := scripted(t, `
conversations:
  - agent: Writer
    replies: ["Draft ready."]
`)
	writer := NewAgent("writer", "Writer", "Write", "You write.", prov)
	cond, err := pycond.Parse(`output.json_dict["score"] > 3`, pyread.Pos{})
	if err != nil {
		t.Fatal(err)
	}
	c := &Crew{Name: "desk", Agents: []*Agent{writer}, Tasks: []*Task{
		{Name: "draft", Description: "Write a draft.", ExpectedOutput: "A draft.", Agent: writer},
		{Name: "edit", Description: "Edit.", ExpectedOutput: "An edit.", Agent: writer, Condition: cond},
	}}
	r := kickoff(t, c, nil, Options{})
	if r.err == nil || r.err.Error() != "'NoneType' object is not subscriptable" {
		t.Fatalf("err = %v", r.err)
	}
	if last := r.events[len(r.events)-1]; last.Kind != session.CrewKickoffFailed {
		t.Errorf("last event %s", last.Kind)
	}
}

// FromProject compiles the conditions crewbench can evaluate, and keeps a
// note naming the part of any other that needs Python (the task runs).
func TestFromProjectConditions(t *testing.T) {
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		"crew.jsonc": `{"agents": ["a"], "tasks": [
			{"name": "draft", "description": "d", "expected_output": "e", "agent": "a"},
			{"name": "gate", "type": "ConditionalTask", "condition": {"python": "conds.approved"}, "description": "d", "expected_output": "e", "agent": "a"},
			{"name": "split", "type": "ConditionalTask", "condition": {"python": "conds.many_words"}, "description": "d", "expected_output": "e", "agent": "a"},
			{"name": "bare", "type": "ConditionalTask", "description": "d", "expected_output": "e", "agent": "a"},
			{"name": "declared", "type": "ConditionalTask", "condition": {"python": "conds.many_words"}, "description": "d", "expected_output": "e", "agent": "a"}]}`,
		"agents/a.jsonc": `{"role": "R", "goal": "G", "backstory": "B"}`,
		"conds.py":       "def approved(output):\n    return output.raw == 'yes'\n\ndef many_words(output):\n    return len(re.findall('x', output.raw)) > 3\n",
		"crewbench.yaml": "tasks:\n  declared:\n    condition: false\n",
	})
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	c, notes, err := FromProject(p, ProjectOptions{LLM: "scripted:inline.yaml", Script: []byte("replies: [yes, ok, ok]\n")})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "output.raw == 'yes'", "", "None", "False"} {
		got := ""
		if cond := c.Tasks[i].Condition; cond != nil {
			got = cond.Source
		}
		if got != want {
			t.Errorf("task %s condition %q, want %q", c.Tasks[i].Name, got, want)
		}
	}
	var noted []string
	for _, n := range notes {
		if strings.Contains(string(n), "ConditionalTask") {
			noted = append(noted, string(n))
		}
	}
	if len(noted) != 1 || !strings.Contains(noted[0], "task split: ConditionalTask: its condition conds.many_words cannot be evaluated without Python (`re.findall` at conds.py:5:16: calling re.findall is outside the subset") {
		t.Errorf("notes = %q", noted)
	}
	r := kickoff(t, c, nil, Options{})
	if r.err == nil || r.err.Error() != "No condition function set for conditional task" {
		t.Fatalf("kickoff err = %v (bare's missing condition raises ValueError as CrewAI's should_execute does)", r.err)
	}
	if n := len(r.requests()); n != 3 {
		t.Errorf("%d LLM calls: draft, gate (true) and split (not evaluable) run", n)
	}
}
