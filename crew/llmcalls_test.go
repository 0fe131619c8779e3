package crew

// String task guardrails and crew planning against a loopback server that
// speaks OpenAI's chat-completions API: the request bodies are compared
// byte for byte with what CrewAI 1.15.17's native OpenAI provider sends,
// built here from CrewAI's own texts (file:line cited at each).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/crew/prompt"
	"crewbench/session"
)

// chatServer answers chat completions with the queued contents, in order,
// and keeps every request body. A reply "call NAME ARGS" is instead one
// tool call of NAME with the raw arguments ARGS. A request whose body holds
// one of the routes' markers takes the next reply of the first such route
// instead (answerByContent), so requests that arrive in any order get the
// same answers; a meeting holds requests back until all its markers have
// been seen (meet).
type chatServer struct {
	url     string
	mu      sync.Mutex
	replies []string
	bodies  []string
	routes  []*chatRoute
	meeting *chatMeeting
	// inFlight counts the requests not answered yet; maxInFlight is its
	// highest value.
	inFlight, maxInFlight int
	holds                 []*chatHold
}

// chatHold holds the requests whose body holds has until a request whose
// body holds until has arrived (holdUntil).
type chatHold struct {
	has, until string
	arrived    chan struct{}
	once       sync.Once
	deadline   time.Duration
	missed     atomic.Bool
}

// holdUntil keeps the requests whose body holds has waiting until a
// request whose body holds until arrives, or until deadline; Met reports
// whether it arrived in time.
func (cs *chatServer) holdUntil(deadline time.Duration, has, until string) *chatHold {
	h := &chatHold{has: has, until: until, arrived: make(chan struct{}), deadline: deadline}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.holds = append(cs.holds, h)
	return h
}

// Met reports whether the awaited request came before the deadline.
func (h *chatHold) Met() bool { return !h.missed.Load() }

// waitHolds notes body's arrival and holds it as holds say.
func waitHolds(holds []*chatHold, body string) {
	for _, h := range holds {
		if strings.Contains(body, h.until) {
			h.once.Do(func() { close(h.arrived) })
		}
	}
	for _, h := range holds {
		if !strings.Contains(body, h.has) {
			continue
		}
		select {
		case <-h.arrived:
		case <-time.After(h.deadline):
			h.missed.Store(true)
		}
	}
}

// chatRoute is the replies for the requests whose body holds has.
type chatRoute struct {
	has     string
	replies []string
}

// chatMeeting holds each request with one of its markers until a request
// with every marker has arrived, then lets them answer in the markers'
// order: a request's reply is written only once the reply to the marker
// before it has been sent. Its deadline bounds every wait.
type chatMeeting struct {
	has      []string
	arrived  []chan struct{}
	sent     []chan struct{}
	once     []sync.Once
	sentOnce []sync.Once
	deadline time.Duration
	missed   atomic.Bool
}

// nullReply makes the chat server answer "content": null without tool
// calls.
const nullReply = "<null>"

// contextLengthReply makes the chat server answer as OpenAI does a request
// over the model's window: 400 with code context_length_exceeded.
const contextLengthReply = "<context_length>"

// take keeps a request's body and returns the next reply, once the
// request may go on, and what to call once the reply is sent.
func (cs *chatServer) take(r *http.Request) (string, func()) {
	raw, _ := io.ReadAll(r.Body)
	body := string(raw)
	cs.mu.Lock()
	cs.bodies = append(cs.bodies, body)
	reply := cs.next(body)
	m, holds := cs.meeting, slices.Clone(cs.holds)
	cs.inFlight++
	cs.maxInFlight = max(cs.maxInFlight, cs.inFlight)
	cs.mu.Unlock()
	waitHolds(holds, body)
	sent := m.wait(body)
	return reply, func() {
		sent()
		cs.mu.Lock()
		cs.inFlight--
		cs.mu.Unlock()
	}
}

// next is the reply for body. Called with cs.mu held.
func (cs *chatServer) next(body string) string {
	for _, rt := range cs.routes {
		if strings.Contains(body, rt.has) {
			if len(rt.replies) == 0 {
				return "no reply left for " + rt.has
			}
			reply := rt.replies[0]
			rt.replies = rt.replies[1:]
			return reply
		}
	}
	if len(cs.replies) == 0 {
		return "no reply left"
	}
	reply := cs.replies[0]
	cs.replies = cs.replies[1:]
	return reply
}

// answerByContent answers the requests whose body holds has with replies,
// in order (routes added first are tried first).
func (cs *chatServer) answerByContent(has string, replies ...string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.routes = append(cs.routes, &chatRoute{has: has, replies: replies})
}

// meet holds the first request whose body holds each of has until all of
// them are in flight together, then answers them in has's order. Met
// reports whether that happened before deadline (a generous bound:
// missing it means the requests came one after another).
func (cs *chatServer) meet(deadline time.Duration, has ...string) *chatMeeting {
	n := len(has)
	m := &chatMeeting{has: has, arrived: make([]chan struct{}, n), sent: make([]chan struct{}, n),
		once: make([]sync.Once, n), sentOnce: make([]sync.Once, n), deadline: deadline}
	for i := range has {
		m.arrived[i], m.sent[i] = make(chan struct{}), make(chan struct{})
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.meeting = m
	return m
}

// wait holds a request with a marker as meet says and returns what marks
// its reply sent.
func (m *chatMeeting) wait(body string) func() {
	if m == nil {
		return func() {}
	}
	mine := -1
	for i, h := range m.has {
		if strings.Contains(body, h) {
			mine = i
			break
		}
	}
	if mine < 0 {
		return func() {}
	}
	m.once[mine].Do(func() { close(m.arrived[mine]) })
	done := func() { m.sentOnce[mine].Do(func() { close(m.sent[mine]) }) }
	timeout := time.NewTimer(m.deadline)
	defer timeout.Stop()
	waits := slices.Clone(m.arrived)
	if mine > 0 {
		waits = append(waits, m.sent[mine-1])
	}
	for _, ch := range waits {
		select {
		case <-ch:
		case <-timeout.C:
			m.missed.Store(true)
			return done
		}
	}
	return done
}

// Met reports whether every marked request was in flight at once.
func (m *chatMeeting) Met() bool { return !m.missed.Load() }

// received is the number of requests so far (some may still be in
// flight when a run ends early).
func (cs *chatServer) received() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.bodies)
}

// bodyWith is the one request body that holds has.
func (cs *chatServer) bodyWith(t *testing.T, has string) string {
	t.Helper()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var found []string
	for _, b := range cs.bodies {
		if strings.Contains(b, has) {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d requests hold %q", len(found), has)
	}
	return found[0]
}

func newChatServer(t *testing.T, replies ...string) (*chatServer, llm.Provider) {
	t.Helper()
	cs := &chatServer{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply, sent := cs.take(r)
		defer sent()
		w.Header().Set("Content-Type", "application/json")
		if reply == contextLengthReply {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)
			return
		}
		msg, finish := map[string]any{"role": "assistant", "content": reply}, "stop"
		if reply == nullReply {
			msg["content"] = nil
		}
		if call, ok := strings.CutPrefix(reply, "call "); ok {
			name, args, _ := strings.Cut(call, " ")
			msg["content"], finish = nil, "tool_calls"
			msg["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
		// On the wire before the request counts as answered (meet).
		w.(http.Flusher).Flush()
	}))
	t.Cleanup(srv.Close)
	cs.url = srv.URL + "/v1"
	return cs, cs.provider(t, "gpt-4o")
}

// provider is CrewAI's native OpenAI provider for model on this server.
func (cs *chatServer) provider(t *testing.T, model string) llm.Provider {
	t.Helper()
	prov, err := llm.New(llm.Config{Model: model, BaseURL: cs.url, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	return prov
}

func (cs *chatServer) body(t *testing.T, i int) string {
	t.Helper()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if i >= len(cs.bodies) {
		t.Fatalf("only %d requests", len(cs.bodies))
	}
	return cs.bodies[i]
}

// wireJSON is a JSON string as httpx writes it: no HTML escaping,
// non-ASCII kept.
func wireJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// chatBody is a no-tools request with a response_format, in the key order
// of the goldens (llm/openai_wire.go).
func chatBody(system, user, model, name, schema string) string {
	return `{"messages":[{"role":"system","content":` + wireJSON(system) + `},{"role":"user","content":` + wireJSON(user) +
		`}],"model":"` + model + `","response_format":{"type":"json_schema","json_schema":{"schema":` + schema +
		`,"name":"` + name + `","strict":true}},"stream":false}`
}

// guardrailSchemaWire is LLMGuardrailResult through the OpenAI SDK's
// to_strict_json_schema: additionalProperties appended, required = every
// property, feedback's null default dropped (openai/lib/_pydantic.py).
const guardrailSchemaWire = `{"properties":{"valid":{"description":"Whether the task output complies with the guardrail","title":"Valid","type":"boolean"},"feedback":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"A feedback about the task output if it is not valid","title":"Feedback"}},"required":["valid","feedback"],"title":"LLMGuardrailResult","type":"object","additionalProperties":false}`

// guardrailRequest is the request LLMGuardrail's agent sends: the no-tools
// system/user pair of Agent.kickoff (translations/en.json role_playing,
// task_no_tools) around the check message (tasks/llm_guardrail.py:77-91).
func guardrailRequest(raw, guardrail string) string {
	system := "You are Guardrail Agent. You are a expert at validating the output of a task. By providing effective feedback if the output is not valid.\nYour personal goal is: Validate the output of the task"
	query := "\n        Ensure the following task result complies with the given guardrail.\n\n        Task result:\n        " + raw +
		"\n\n        Guardrail:\n        " + guardrail +
		"\n\n        Your task:\n        - Confirm if the Task result complies with the guardrail.\n        - If not, provide clear feedback explaining what is wrong (e.g., by how much it violates the rule, or what specific part fails).\n        - Focus only on identifying issues — do not propose corrections.\n        - If the Task result complies with the guardrail, saying that is valid\n        "
	return chatBody(system, "\nCurrent Task: "+query+"\n\nProvide your complete response:", "gpt-4o", "LLMGuardrailResult", guardrailSchemaWire)
}

func guardedCrew(prov llm.Provider, guardrails []string, listed bool, maxRetries int) *Crew {
	a := NewAgent("w", "Writer", "Write well", "You write.", prov)
	a.Model = "gpt-4o"
	return &Crew{Agents: []*Agent{a}, Tasks: []*Task{{
		Name: "write", Description: "Write about Berlin.", ExpectedOutput: "One sentence.", Agent: a,
		Guardrails: guardrails, GuardrailsListed: listed, GuardrailMaxRetries: maxRetries,
	}}}
}

func crewAIKinds(r result) []session.Kind {
	var out []session.Kind
	for _, ev := range r.events {
		if ev.Kind.IsCrewAI() {
			out = append(out, ev.Kind)
		}
	}
	return out
}

func TestGuardrailPassesWithExactRequest(t *testing.T) {
	cs, prov := newChatServer(t, "Berlin is big.", `{"valid":true,"feedback":null}`)
	r := kickoff(t, guardedCrew(prov, []string{"Must mention Berlin "}, false, 3), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	// The guardrail text is sent as written; only the events strip it
	// (events/types/llm_guardrail_events.py:46-49).
	if got, want := cs.body(t, 1), guardrailRequest("Berlin is big.", "Must mention Berlin "); got != want {
		t.Errorf("guardrail request\n got %s\nwant %s", got, want)
	}
	if r.out.Raw != "Berlin is big." {
		t.Errorf("raw %q", r.out.Raw)
	}
	// process_guardrail's events around the lite agent's kickoff
	// (utilities/guardrail.py, agent/core.py:1592-1670), before
	// task_completed (task.py:889-905).
	want := []session.Kind{
		session.DefaultEnv, session.CrewKickoffStarted, session.TaskStarted, session.AgentExecutionStarted,
		session.FlowStarted, session.AgentLogsStarted, session.LLMCallStarted, session.LLMCallCompleted,
		session.AgentLogsExecution, session.FlowFinished, session.AgentExecutionCompleted,
		session.LLMGuardrailStarted, session.LiteAgentExecutionStarted, session.FlowStarted,
		session.LLMCallStarted, session.LLMCallCompleted, session.AgentLogsExecution, session.FlowFinished,
		session.LiteAgentExecutionCompleted, session.LLMGuardrailCompleted,
		session.TaskCompleted, session.CrewKickoffCompleted,
	}
	if got := crewAIKinds(r); !slices.Equal(got, want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	for _, ev := range r.events {
		switch ev.Kind {
		case session.LLMGuardrailStarted:
			if ev.Str("guardrail") != "Must mention Berlin" || ev.Str("guardrail_type") != "llm" || ev.Int("retry_count") != 0 || ev.TaskName != "write" || ev.AgentRole != "Writer" {
				t.Errorf("started %+v", ev)
			}
		case session.LLMGuardrailCompleted:
			if !ev.Bool("success") || ev.Data["result"] != "Berlin is big." || ev.StartedEventID == "" {
				t.Errorf("completed %+v", ev)
			}
		}
	}
}

// A failed check re-runs the task with the validation_error text as its
// only context (task.py:1387-1401, translations/en.json:55); after
// guardrail_max_retries re-runs the task fails (task.py:1377-1385).
func TestGuardrailRetriesThenFails(t *testing.T) {
	tests := []struct {
		name     string
		listed   bool
		feedback string
		wantName string
		wantErr  string
	}{
		{"single", false, `"Too short"`, "guardrail", "Too short"},
		{"listed", true, `"Too short"`, "guardrail 0", "Too short"},
		{"no feedback", false, `null`, "guardrail", "None"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			verdict := `{"valid":false,"feedback":` + tc.feedback + `}`
			cs, prov := newChatServer(t, "draft one", verdict, "draft two", verdict)
			r := kickoff(t, guardedCrew(prov, []string{"Two sentences"}, tc.listed, 1), nil, Options{})
			want := prompt.TextError("Task failed " + tc.wantName + " validation after 1 retries. Last error: " + tc.wantErr)
			if r.err == nil || r.err.Error() != want.Error() {
				t.Fatalf("err %v, want %v", r.err, want)
			}
			// The re-run: the same task prompt with the validation error as
			// context (task_with_context).
			var rerun map[string]any
			if err := json.Unmarshal([]byte(cs.body(t, 2)), &rerun); err != nil {
				t.Fatal(err)
			}
			msgs := rerun["messages"].([]any)
			user := msgs[len(msgs)-1].(map[string]any)["content"].(string)
			wantUser := "\nCurrent Task: Write about Berlin.\n\nThis is the expected criteria for your final answer: One sentence.\nyou MUST return the actual complete content as the final answer, not a summary." +
				"\n\nThis is the context you're working with:\n### Previous attempt failed validation: " + tc.wantErr + "\n\n\n### Previous result:\ndraft one\n\n\nTry again, making sure to address the validation error.\n\nProvide your complete response:"
			if user != wantUser {
				t.Errorf("re-run prompt\n got %q\nwant %q", user, wantUser)
			}
			if got, want := cs.body(t, 3), guardrailRequest("draft two", "Two sentences"); got != want {
				t.Errorf("second check\n got %s\nwant %s", got, want)
			}
			var retries []int64
			for _, ev := range r.events {
				if ev.Kind == session.LLMGuardrailCompleted {
					retries = append(retries, ev.Int("retry_count"))
					if ev.Bool("success") {
						t.Error("a failed check reported success")
					}
				}
			}
			if !slices.Equal(retries, []int64{0, 1}) {
				t.Errorf("retry counts %v", retries)
			}
			if r.count(session.TaskFailed) != 1 || r.count(session.AgentExecutionStarted) != 2 {
				t.Errorf("task_failed %d, executions %d", r.count(session.TaskFailed), r.count(session.AgentExecutionStarted))
			}
		})
	}
}

// A verdict that does not parse into LLMGuardrailResult makes the OpenAI
// SDK's beta.chat.completions.parse raise Pydantic's ValidationError
// (llms/providers/openai/completion.py:1892-1899): the call fails (twice
// reported, 1917 and 488), the guardrail agent's kickoff fails
// (agent/core.py:1718-1727) and LLMGuardrail returns the error under its
// prefix (tasks/llm_guardrail.py:122-123), which is the re-run's
// validation error; a later valid check accepts the re-run's output.
func TestGuardrailUnreadableVerdictThenPass(t *testing.T) {
	const pydanticErr = "1 validation error for LLMGuardrailResult\n  Invalid JSON: expected ident at line 1 column 2 [type=json_invalid, input_value='not json', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"
	cs, prov := newChatServer(t, "draft one", "not json", "draft two", `{"valid": true}`)
	r := kickoff(t, guardedCrew(prov, []string{"Two sentences"}, false, 3), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "draft two" {
		t.Errorf("raw %q", r.out.Raw)
	}
	var errs []any
	for _, ev := range r.events {
		switch ev.Kind {
		case session.LLMGuardrailCompleted:
			errs = append(errs, ev.Data["error"])
		case session.LiteAgentExecutionError:
			if ev.Data["error"] != pydanticErr {
				t.Errorf("kickoff error %q", ev.Data["error"])
			}
		}
	}
	if want := []any{"Error while validating the task output: " + pydanticErr, nil}; !slices.Equal(errs, want) {
		t.Errorf("errors\n got %q\nwant %q", errs, want)
	}
	if r.count(session.LLMCallFailed) != 2 || r.count(session.LiteAgentExecutionError) != 1 {
		t.Errorf("llm_call_failed %d, lite_agent_execution_error %d", r.count(session.LLMCallFailed), r.count(session.LiteAgentExecutionError))
	}
	// No retry of the check itself: the next request is the task's re-run,
	// with the error as its context.
	ctxText := wireJSON("### Previous attempt failed validation: Error while validating the task output: " + pydanticErr + "\n\n\n### Previous result:\ndraft one")
	if !strings.Contains(cs.body(t, 2), strings.Trim(ctxText, `"`)) {
		t.Errorf("re-run request %s", cs.body(t, 2))
	}
	if got, want := cs.body(t, 3), guardrailRequest("draft two", "Two sentences"); got != want {
		t.Errorf("second check\n got %s\nwant %s", got, want)
	}
}

// plannerSchemaWire is PlannerTaskPydanticOutput through the OpenAI SDK's
// to_strict_json_schema: $defs and the lone $ref kept, minimum kept,
// additionalProperties appended to both objects (openai/lib/_pydantic.py).
const plannerSchemaWire = `{"$defs":{"PlanPerTask":{"properties":{"task_number":{"description":"The 1-indexed task number this plan corresponds to","minimum":1,"title":"Task Number","type":"integer"},"task":{"description":"The task for which the plan is created","title":"Task","type":"string"},"plan":{"description":"The step by step plan on how the agents can execute their tasks using the available tools with mastery","title":"Plan","type":"string"}},"required":["task_number","task","plan"],"title":"PlanPerTask","type":"object","additionalProperties":false}},"properties":{"list_of_plans_per_task":{"description":"Step by step plan on how the agents can execute their tasks using the available tools with mastery","items":{"$ref":"#/$defs/PlanPerTask"},"title":"List Of Plans Per Task","type":"array"}},"required":["list_of_plans_per_task"],"title":"PlannerTaskPydanticOutput","type":"object","additionalProperties":false}`

// plannerSchemaPrompt is json.dumps(indent=2) of generate_model_description
// (utilities/pydantic_schema_utils.py:648-691) on the same model: $refs
// inlined, $defs dropped, additionalProperties appended.
const plannerSchemaPrompt = `{
  "properties": {
    "list_of_plans_per_task": {
      "description": "Step by step plan on how the agents can execute their tasks using the available tools with mastery",
      "items": {
        "properties": {
          "task_number": {
            "description": "The 1-indexed task number this plan corresponds to",
            "minimum": 1,
            "title": "Task Number",
            "type": "integer"
          },
          "task": {
            "description": "The task for which the plan is created",
            "title": "Task",
            "type": "string"
          },
          "plan": {
            "description": "The step by step plan on how the agents can execute their tasks using the available tools with mastery",
            "title": "Plan",
            "type": "string"
          }
        },
        "required": [
          "task_number",
          "task",
          "plan"
        ],
        "title": "PlanPerTask",
        "type": "object",
        "additionalProperties": false
      },
      "title": "List Of Plans Per Task",
      "type": "array"
    }
  },
  "required": [
    "list_of_plans_per_task"
  ],
  "title": "PlannerTaskPydanticOutput",
  "type": "object",
  "additionalProperties": false
}`

// planning: true runs the planner task first (crews/utils.py:376-377) and
// appends each plan to its task's interpolated description with no
// separator, the first plan winning for a duplicate number
// (crew.py:1451-1477).
func TestCrewPlanningRequestAndAppendedPlans(t *testing.T) {
	plan := `{"list_of_plans_per_task":[{"task_number":1,"task":"Research","plan":"Step 1: read."},{"task_number":2,"task":"Write","plan":"Step 1: write."},{"task_number":1,"task":"Research","plan":"ignored duplicate"}]}`
	cs, prov := newChatServer(t, plan, "notes", "article")
	researcher := NewAgent("r", "{topic} Researcher", "Find facts", "You dig.", prov)
	writer := NewAgent("w", "Writer", "Write well", "You write.", prov)
	c := &Crew{
		Agents: []*Agent{researcher, writer},
		Tasks: []*Task{
			{Name: "research", Description: "Research {topic}.", ExpectedOutput: "Notes.", Agent: researcher},
			{Name: "write", Description: "Write it up.", ExpectedOutput: "An article.", Agent: writer},
		},
		Planning: true, PlanningLLM: cs.provider(t, "gpt-5.4-mini"), PlanningModel: "gpt-5.4-mini",
	}
	r := kickoff(t, c, map[string]any{"topic": "MCP"}, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	// CrewPlanner._create_tasks_summary (utilities/planning_handler.py:134-164)
	// inside the planner task's description (107-111).
	const ind = "\n                "
	summary := ind + "Task Number 1 - Research MCP." + ind + `"task_description": Research MCP.` + ind + `"task_expected_output": Notes.` +
		ind + `"agent": MCP Researcher` + ind + `"agent_goal": Find facts` + ind + `"task_tools": []` + ind + `"agent_tools": "agent has no tools"` +
		" " + ind + "Task Number 2 - Write it up." + ind + `"task_description": Write it up.` + ind + `"task_expected_output": An article.` +
		ind + `"agent": Writer` + ind + `"agent_goal": Write well` + ind + `"task_tools": []` + ind + `"agent_tools": "agent has no tools"`
	desc := "Based on these tasks summary: " + summary + " \n Create the most descriptive plan based on the tasks descriptions, tools available, and agents' goals for them to execute their goals with perfection."
	system := "You are Task Execution Planner. Planner agent for crew planning\nYour personal goal is: Your goal is to create an extremely detailed, step-by-step plan based on the tasks and tools available to each agent so that they can perform the tasks in an exemplary manner"
	user := "\nCurrent Task: " + desc + "\n\nThis is the expected criteria for your final answer: Step by step plan on how the agents can execute their tasks using the available tools with mastery\nyou MUST return the actual complete content as the final answer, not a summary." +
		"\nFormat your final answer according to the following OpenAPI schema: " + plannerSchemaPrompt +
		"\n\nIMPORTANT: Preserve the original content exactly as-is. Do NOT rewrite, paraphrase, or modify the meaning of the content. Only structure it to match the schema format.\n\nDo not include the OpenAPI schema in the final output. Ensure the final output does not include any code block markers like ```json or ```python.\n\nProvide your complete response:"
	if got, want := cs.body(t, 0), chatBody(system, user, "gpt-5.4-mini", "PlannerTaskPydanticOutput", plannerSchemaWire); got != want {
		t.Errorf("planner request\n got %s\nwant %s", got, want)
	}
	for i, want := range []string{"\nCurrent Task: Research MCP.Step 1: read.\n", "\nCurrent Task: Write it up.Step 1: write.\n"} {
		var req map[string]any
		if err := json.Unmarshal([]byte(cs.body(t, i+1)), &req); err != nil {
			t.Fatal(err)
		}
		msgs := req["messages"].([]any)
		if got := msgs[1].(map[string]any)["content"].(string); !strings.HasPrefix(got, want) {
			t.Errorf("task %d prompt %q, want prefix %q", i+1, got, want)
		}
	}
	if got := r.out.TasksOutput[0].Description; got != "Research MCP.Step 1: read." {
		t.Errorf("description %q", got)
	}
	// The planner's LLM is not a crew agent's: its tokens are not counted.
	if r.out.TokenUsage.SuccessfulRequests != 2 || len(r.out.TasksOutput) != 2 {
		t.Errorf("usage %+v, %d outputs", r.out.TokenUsage, len(r.out.TasksOutput))
	}
	want := []session.Kind{session.DefaultEnv, session.CrewKickoffStarted, session.TaskStarted, session.AgentExecutionStarted}
	if got := crewAIKinds(r); !slices.Equal(got[:4], want) || r.count(session.TaskStarted) != 3 {
		t.Errorf("events %v", got)
	}
}

// A planner reply that does not parse into PlannerTaskPydanticOutput
// makes the SDK's parse raise Pydantic's ValidationError: the planner
// agent's execution is retried under max_retry_limit (2, so three
// identical requests; agent/core.py:733-748), then the planner task and
// the kickoff fail with that error, not CrewPlanner's own text
// (utilities/planning_handler.py:73-77), which only a parsed reply that is
// no plan reaches.
func TestCrewPlanningUnreadablePlanFails(t *testing.T) {
	const reply = "Here is the plan: read, then write."
	const pydanticErr = "1 validation error for PlannerTaskPydanticOutput\n  Invalid JSON: expected value at line 1 column 1 [type=json_invalid, input_value='Here is the plan: read, then write.', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"
	cs, prov := newChatServer(t, reply, reply, reply)
	a := NewAgent("w", "Writer", "Write well", "You write.", prov)
	c := oneTaskCrew(a)
	c.Planning, c.PlanningLLM, c.PlanningModel = true, cs.provider(t, "gpt-5.4-mini"), "gpt-5.4-mini"
	r := kickoff(t, c, nil, Options{})
	if r.err == nil || r.err.Error() != pydanticErr {
		t.Fatalf("err %v", r.err)
	}
	cs.mu.Lock()
	bodies := slices.Clone(cs.bodies)
	cs.mu.Unlock()
	if len(bodies) != 3 || bodies[1] != bodies[0] || bodies[2] != bodies[0] || !strings.Contains(bodies[0], `"name":"PlannerTaskPydanticOutput"`) {
		t.Errorf("%d requests, want three identical planner requests", len(bodies))
	}
	if r.count(session.CrewKickoffFailed) != 1 || r.count(session.LLMCallFailed) != 6 || r.count(session.AgentExecutionError) != 3 {
		t.Errorf("kinds %v", crewAIKinds(r))
	}
}

// A JSON project's planning, guardrails and agent reasoning reach the
// engine: the planner and the guardrail agent answer from their own
// scripted conversations (matched by CrewAI's roles), guardrails:
// replaces guardrail:, and what is not reproduced is a note.
func TestFromProjectWiresLLMCallFeatures(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"crew.jsonc": `{"name": "p", "agents": ["writer"], "planning": true, "tasks": [
  {"name": "write", "description": "Write.", "expected_output": "Text.", "agent": "writer",
   "guardrail": "ignored when guardrails is set", "guardrails": ["Be short", {"python": "pkg.check"}], "guardrail_max_retries": 2}]}`,
		"agents/writer.jsonc": `{"role": "Writer", "goal": "g", "backstory": "b", "reasoning": true, "max_reasoning_attempts": 2, "guardrail": "agent level"}`,
		"pkg/__init__.py":     "",
		"pkg/check.py":        "def check(output):\n    return (True, output)\n",
	}
	writeFiles(t, dir, files)
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	script := `conversations:
  - agent: Task Execution Planner
    replies: ['{"list_of_plans_per_task": [{"task_number": 1, "task": "Write.", "plan": " Keep it brief."}]}']
  - agent: Guardrail Agent
    replies:
      - content: '{"valid": true, "feedback": null}'
        expect: {contains: "Be short"}
  - agent: Writer
    replies:
      - content: "Plan.\nREADY: I am ready to execute the task."
        expect: {contains: "## Task\nWrite. Keep it brief."}
      - content: "Short."
        expect: {contains: "Write. Keep it brief."}
`
	c, notes, err := FromProject(p, ProjectOptions{LLM: "scripted:inline.yaml", Script: []byte(script)})
	if err != nil {
		t.Fatal(err)
	}
	task := c.Tasks[0]
	// reasoning: true becomes PlanningConfig(max_attempts=max_reasoning_attempts)
	// (agent/core.py:385-394).
	if pc := c.Agents[0].Planning; pc == nil || pc.MaxAttempts != 2 || pc.MaxSteps != 20 {
		t.Errorf("agent planning %+v", pc)
	}
	if !c.Planning || !slices.Equal(task.Guardrails, []string{"Be short"}) || !task.GuardrailsListed || task.GuardrailMaxRetries != 2 {
		t.Fatalf("planning %v, guardrails %q listed %v max %d", c.Planning, task.Guardrails, task.GuardrailsListed, task.GuardrailMaxRetries)
	}
	all := fmt.Sprint(notes)
	for _, want := range []string{"guardrail pkg.check is Python", "guardrail applies to Agent.kickoff() only", "agent writer: planning: crewbench sends CrewAI's planning calls"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes %q lack %q", all, want)
		}
	}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Short." || r.count(session.LLMGuardrailCompleted) != 1 || r.count(session.AgentReasoningCompleted) != 1 {
		t.Errorf("raw %q, %d checks", r.out.Raw, r.count(session.LLMGuardrailCompleted))
	}
}

// In a hierarchical crew the manager runs the task, but LLMGuardrail was
// built with the task agent's LLM (task.py:391-407), so the check goes to
// that agent's model; the events name the executing agent, which
// _execute_core made the task's agent (task.py:815-816).
func TestGuardrailHierarchicalUsesTheTaskAgentsLLM(t *testing.T) {
	cs, prov := newChatServer(t, `{"valid": true}`)
	writer := NewAgent("w", "Writer", "Write well", "You write.", prov)
	writer.Model = "gpt-4o"
	c := &Crew{
		Agents: []*Agent{writer}, Process: Hierarchical,
		ManagerLLM: scripted(t, "replies:\n  - \"managed\"\n"), ManagerModel: "scripted",
		Tasks: []*Task{{Name: "write", Description: "Write about Berlin.", ExpectedOutput: "One sentence.", Agent: writer, Guardrails: []string{"Be short"}, GuardrailMaxRetries: 3}},
	}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := cs.body(t, 0), guardrailRequest("managed", "Be short"); got != want {
		t.Errorf("guardrail request\n got %s\nwant %s", got, want)
	}
	for _, ev := range r.events {
		if ev.Kind == session.LLMGuardrailStarted && ev.AgentRole != ManagerRole {
			t.Errorf("guardrail event agent %q", ev.AgentRole)
		}
	}
}

// An empty verdict parses to nothing (the SDK parses only a non-empty
// reply), so CrewAI's provider asks again with the same messages and no
// response_format (llms/providers/openai/completion.py:1923-1927) and
// takes that reply as text, which model_validate_json then reads
// (agent/core.py:1795-1800): one LLM call, two requests.
func TestGuardrailEmptyVerdictIsAskedAgainWithoutResponseFormat(t *testing.T) {
	cs, prov := newChatServer(t, "Berlin is big.", "", `{"valid": true}`)
	r := kickoff(t, guardedCrew(prov, []string{"Must mention Berlin"}, false, 3), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.out.Raw != "Berlin is big." {
		t.Errorf("raw %q", r.out.Raw)
	}
	first := guardrailRequest("Berlin is big.", "Must mention Berlin")
	if got := cs.body(t, 1); got != first {
		t.Errorf("guardrail request\n got %s\nwant %s", got, first)
	}
	again := first[:strings.Index(first, `,"response_format":`)] + "}"
	if got := cs.body(t, 2); got != again {
		t.Errorf("second request\n got %s\nwant %s", got, again)
	}
	if r.count(session.LLMCallStarted) != 2 || r.count(session.LLMCallCompleted) != 2 {
		t.Errorf("llm calls %d/%d, want 2 (task, guardrail)", r.count(session.LLMCallStarted), r.count(session.LLMCallCompleted))
	}
	if r.out.TokenUsage.TotalTokens != 45 {
		t.Errorf("usage %+v, want the three replies' tokens", r.out.TokenUsage)
	}
}

// writeFiles writes a project's files (relative names) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
