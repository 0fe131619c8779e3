package crew

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

func TestHierarchicalDelegationReachesCoworker(t *testing.T) {
	var calls atomic.Int64
	manager := scripted(t, `
replies:
  - tool_calls:
      - name: delegate_work_to_coworker
        arguments: {task: "Find the forecast for Oslo", context: "The user travels Friday.", coworker: "  weather   ANALYST "}
  - "Manager summary: sunny."
`)
	worker := scripted(t, `
replies:
  - "Thought: done\nFinal Answer: Sunny in Oslo on Friday."
`)
	analyst := NewAgent("analyst", "Weather Analyst", "Know", "Reads forecasts.", worker)
	analyst.Tools = []Tool{weatherTool(&calls)}
	c := &Crew{Process: Hierarchical, ManagerLLM: manager, Agents: []*Agent{analyst},
		Tasks: []*Task{{Name: "plan", Description: "Plan the trip.", ExpectedOutput: "A plan.", Agent: analyst}}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Manager summary: sunny." || r.out.TasksOutput[0].Agent != "Crew Manager" {
		t.Errorf("output %+v", r.out.TasksOutput[0])
	}
	reqs := r.requests()
	// The manager is offered the worker's tool (Task.check_tools quirk) and
	// the two delegation tools naming only the assigned agent.
	var offered []string
	for _, ev := range r.events {
		if ev.Kind == session.AgentExecutionStarted && ev.AgentRole == "Crew Manager" {
			for _, tl := range ev.Data["tools"].([]map[string]any) {
				offered = append(offered, tl["llm_name"].(string))
			}
		}
	}
	if strings.Join(offered, ",") != "get_forecast,delegate_work_to_coworker,ask_question_to_coworker" {
		t.Errorf("manager tools = %v", offered)
	}
	if got := reqs[0][0]["content"]; got != "You are Crew Manager. "+ManagerBackstory+"\nYour personal goal is: "+ManagerGoal {
		t.Errorf("manager system = %q", got)
	}
	// The coworker ran the delegated task with the shared context and only
	// its own tools (native mode); its whole reply is the tool result.
	cw := reqs[1]
	wantUser := "\nCurrent Task: Find the forecast for Oslo\n\nThis is the expected criteria for your final answer: Your best answer to your coworker asking you this, accounting for the context shared.\nyou MUST return the actual complete content as the final answer, not a summary.\n\nThis is the context you're working with:\nThe user travels Friday."
	if got := cw[1]["content"]; got != wantUser {
		t.Errorf("coworker prompt:\n got %q\nwant %q", got, wantUser)
	}
	if got := r.lastContent(t, 2); got != "Thought: done\nFinal Answer: Sunny in Oslo on Friday." {
		t.Errorf("manager saw %q", got)
	}
}

func TestDelegationUnknownCoworker(t *testing.T) {
	a := NewAgent("a", "Writer", "g", "b", nil)
	b := NewAgent("b", "Editor \"Chief\"", "g", "b", nil)
	rs := &runState{personas: map[*Agent]persona{}, em: nil}
	tools := rs.delegationTools([]*Agent{a, b})
	if tools[0].Spec().LLMName != "delegate_work_to_coworker" || tools[1].Spec().LLMName != "ask_question_to_coworker" {
		t.Fatal("names")
	}
	if !strings.HasPrefix(tools[0].Spec().Description, "Delegate a specific task to one of the following coworkers: Writer, Editor \"Chief\"\nThe input") {
		t.Errorf("description = %q", tools[0].Spec().Description)
	}
	res := tools[0].Run(context.Background(), pyjson.ObjectOf("task", "x", "context", "y", "coworker", "Nobody"), RunContext{})
	want := "\nError executing tool. coworker mentioned not found, it must be one of the following options:\n- writer\n- editor chief\n"
	if res.Text != want {
		t.Errorf("got %q want %q", res.Text, want)
	}
	schema := pyjson.Dumps(tools[1].Spec().Schema)
	if schema != `{"properties": {"question": {"description": "The question to ask", "title": "Question", "type": "string"}, "context": {"description": "The context for the question", "title": "Context", "type": "string"}, "coworker": {"description": "The role/name of the coworker to ask", "title": "Coworker", "type": "string"}}, "required": ["question", "context", "coworker"], "title": "AskQuestionToolSchema", "type": "object"}` {
		t.Errorf("schema = %s", schema)
	}
}

func TestSequentialDelegationAndContextList(t *testing.T) {
	prov := scripted(t, `
conversations:
  - agent: Researcher
    replies: ["notes", "more notes"]
  - agent: Writer
    replies:
      - tool_calls: [{name: ask_question_to_coworker, arguments: {question: "Which city?", context: "none", coworker: Researcher}}]
      - "final text"
      - "t3 text"
`)
	researcher := NewAgent("r", "Researcher", "g", "b", prov)
	writer := NewAgent("w", "Writer", "g", "b", prov)
	writer.AllowDelegation = true
	t1 := &Task{Name: "t1", Description: "one", ExpectedOutput: "e", Agent: researcher}
	t2 := &Task{Name: "t2", Description: "two", ExpectedOutput: "e", Agent: writer, ContextMode: ContextNone}
	t3 := &Task{Name: "t3", Description: "three", ExpectedOutput: "e", Agent: writer, ContextMode: ContextList, Context: []*Task{t1}}
	c := &Crew{Agents: []*Agent{researcher, writer}, Tasks: []*Task{t1, t2, t3}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	// t2 has context [] so its prompt has no context section.
	var writerFirst []map[string]any
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallStarted && ev.AgentRole == "Writer" {
			writerFirst = ev.Data["messages"].([]map[string]any)
			break
		}
	}
	if strings.Contains(writerFirst[1]["content"].(string), "context you're working with") {
		t.Error("context [] must give no context")
	}
	if r.out.Raw != "t3 text" || r.out.TasksOutput[1].Raw != "final text" {
		t.Errorf("raw %q / %q", r.out.Raw, r.out.TasksOutput[1].Raw)
	}
	// t3 lists only t1 as context.
	reqs := r.requests()
	last := reqs[len(reqs)-1][1]["content"].(string)
	if !strings.HasSuffix(last, "This is the context you're working with:\nnotes") {
		t.Errorf("t3 prompt = %q", last)
	}
}

func TestStepperDecisions(t *testing.T) {
	var calls atomic.Int64
	prov := scripted(t, `
replies:
  - tool_calls: [{name: get_forecast, arguments: {city: Paris}}]
  - tool_calls: [{name: get_forecast, arguments: {city: Rome}}]
  - "never used"
`)
	a := NewAgent("a", "A", "g", "b", prov)
	a.Tools = []Tool{weatherTool(&calls)}
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}
	st := NewChanStepper(Breakpoints{Every: true})
	done := make(chan result, 1)
	go func() { done <- kickoff(t, c, nil, Options{Stepper: st}) }()
	var seen []string
	var r result
loop:
	for {
		var req *PauseRequest
		select {
		case req = <-st.C:
		case r = <-done:
			break loop
		}
		p := req.Pause
		seen = append(seen, string(p.Kind)+":"+p.ToolName)
		switch len(seen) {
		case 1: // first LLM call
			req.Reply(Decision{Action: Step})
		case 2: // tool call Paris: edit the arguments
			if p.Args == nil || pyjson.Dumps(p.Args) != `{"city": "Paris"}` {
				t.Errorf("pause args = %v", p.Args)
			}
			req.Reply(Decision{Action: EditArgs, Args: pyjson.ObjectOf("city", "Berlin")})
		case 3: // second LLM call
			req.Reply(Decision{Action: Continue})
		case 4: // tool call Rome: skip with a canned result
			req.Reply(Decision{Action: Skip, Result: "canned"})
		case 5: // third LLM call: replace the reply
			req.Reply(Decision{Action: EditReply, Reply: &llm.Response{Content: "edited answer"}})
		}
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "edited answer" || calls.Load() != 1 {
		t.Errorf("raw %q calls %d", r.out.Raw, calls.Load())
	}
	if got := r.lastContent(t, 1); got != "Sunny in Berlin" {
		t.Errorf("edited args result %q", got)
	}
	if got := r.lastContent(t, 2); got != "canned" {
		t.Errorf("skip result %q", got)
	}
	if r.count(session.StepPaused) != 5 || r.count(session.StepResumed) != 5 {
		t.Errorf("pause events %d/%d", r.count(session.StepPaused), r.count(session.StepResumed))
	}
}

// B12 of crewai-fidelity-gaps.md: a "[A, B]" coworker names its first
// element with its quotes kept (so "['Weather Analyst', …]" matches
// nobody), and a failed delegation names the agent by its casefolded role.
func TestDelegationEdgeCases(t *testing.T) {
	manager := scripted(t, `
replies:
  - tool_calls:
      - name: delegate_work_to_coworker
        arguments: {task: "Forecast", context: "c", coworker: "['Weather Analyst', 'Other']"}
  - tool_calls:
      - name: delegate_work_to_coworker
        arguments: {task: "Forecast", context: "c", coworker: "[Weather Analyst, Other]"}
  - "done"
`)
	worker := scripted(t, `
replies:
  - error: {kind: bad_request, message: "model exploded"}
  - error: {kind: bad_request, message: "model exploded"}
  - error: {kind: bad_request, message: "model exploded"}
`)
	analyst := NewAgent("analyst", "Weather Analyst", "Know", "Reads forecasts.", worker)
	c := &Crew{Process: Hierarchical, ManagerLLM: manager, Agents: []*Agent{analyst},
		Tasks: []*Task{{Name: "plan", Description: "Plan the trip.", ExpectedOutput: "A plan.", Agent: analyst}}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.lastContent(t, 1); !strings.Contains(got, "coworker mentioned not found") {
		t.Errorf("quoted first element: %q", got)
	}
	if got := r.lastContent(t, len(r.requests())-1); !strings.HasPrefix(got, "Error executing task with agent 'weather analyst'. Error: ") {
		t.Errorf("failed delegation: %q", got)
	}
}
