package crew

import (
	"strings"
	"testing"

	"crewbench/crew/pycond"
	"crewbench/crew/pyread"
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
