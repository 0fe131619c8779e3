package crew

import (
	"strings"
	"testing"
)

// The kickoff input crewai_trigger_payload goes into a task's prompt as
// Task.prompt puts it there: after the description, before the expected
// output, for the first task of a sequential crew unless the task says
// otherwise (task.py:977-984, crew.py:2438-2451).
func TestTriggerPayloadInTaskPrompt(t *testing.T) {
	yes, no := true, false
	const payload = "\n\nTrigger Payload: "
	tests := []struct {
		name         string
		hierarchical bool
		allow        [2]*bool
		payload      any
		want         [2]string // "" when the task's prompt carries none
	}{
		{name: "first task only by default", payload: "push to main", want: [2]string{payload + "push to main", ""}},
		{name: "a dict in Python's str form", payload: map[string]any{"ref": "main", "n": 2, "ok": true, "x": nil},
			want: [2]string{payload + "{'n': 2, 'ok': True, 'ref': 'main', 'x': None}", ""}},
		{name: "the second task when it allows it", payload: "p", allow: [2]*bool{nil, &yes}, want: [2]string{payload + "p", payload + "p"}},
		{name: "the first task refusing it", payload: "p", allow: [2]*bool{&no, nil}},
		{name: "a falsy payload is not injected by default", payload: ""},
		{name: "a falsy payload is injected when allowed", payload: 0, allow: [2]*bool{&yes, nil}, want: [2]string{payload + "0", ""}},
		{name: "a null payload never", payload: nil, allow: [2]*bool{&yes, &yes}},
		{name: "hierarchical needs the task to allow it", hierarchical: true, payload: "p", allow: [2]*bool{nil, &yes}, want: [2]string{"", payload + "p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAgent("a", "R", "g", "b", scripted(t, `replies: ["Thought: done\nFinal Answer: one", "Thought: done\nFinal Answer: two"]`))
			c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{
				{Description: "First {x}", ExpectedOutput: "e1", Agent: a, AllowTriggerContext: tt.allow[0]},
				{Description: "Second", ExpectedOutput: "e2", Agent: a, AllowTriggerContext: tt.allow[1]},
			}}
			if tt.hierarchical {
				c.Process = Hierarchical
				c.ManagerAgent = NewAgent("m", "Manager", "g", "b", a.LLM)
				for _, task := range c.Tasks {
					task.Agent = nil
				}
			}
			r := kickoff(t, c, map[string]any{"x": "y", "crewai_trigger_payload": tt.payload}, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			reqs := r.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d LLM calls, want 2", len(reqs))
			}
			for i, desc := range []string{"First y", "Second"} {
				user, _ := reqs[i][len(reqs[i])-1]["content"].(string)
				want := desc + tt.want[i] + "\n\nThis is the expected criteria for your final answer: e" + string(rune('1'+i))
				if !strings.Contains(user, want) {
					t.Errorf("task %d prompt:\n%s\nwant it to contain:\n%s", i+1, user, want)
				}
				if tt.want[i] == "" && strings.Contains(user, "Trigger Payload") {
					t.Errorf("task %d prompt carries a trigger payload:\n%s", i+1, user)
				}
			}
			for _, ev := range r.events {
				if d, ok := ev.Data["task_description"].(string); ok && strings.Contains(d, "Trigger Payload") {
					t.Errorf("%s's task_description carries the payload: %q (CrewAI adds it to the prompt only)", ev.Kind, d)
				}
			}
		})
	}
}
