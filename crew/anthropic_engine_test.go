package crew

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/crew/prompt"
	"crewbench/session"
)

// A crew on an Anthropic model, against a loopback Messages API: the
// bodies CrewAI 1.15.17 sends through AnthropicCompletion for a native
// tool loop with a call under an unsanitized name and a call of an unknown
// tool.
//
//   - The executor marks its system and task prompts as cache breakpoints
//     (experimental/agent_executor.py:310-335): every request carries the
//     system prompt as one text block with cache_control, and the task
//     prompt as one such block (completion.py:905-935, 937-953); the tool
//     results and later user messages are not marked.
//   - A tool_use's name is sanitized into the assistant echo and the tool
//     message (extract_tool_call_info, agent_utils.py:1395-1398), so
//     "Get-Forecast" runs get_forecast; its input goes back as json.loads
//     of json.dumps(input), dumped compact by the SDK.
//   - An unknown tool is answered "Tool not found" (agent_executor.py:
//     1986, 2096-2115) as a plain tool_result: CrewAI never sets is_error.
//   - Consecutive tool messages become one user message of tool_result
//     blocks (completion.py:813-836).
func TestAnthropicEngineToolLoop(t *testing.T) {
	var calls atomic.Int64
	cs, prov := anthropicServer(t, `call Get-Forecast {"city": "Zürich", "days": 2}`, `call no_such_tool {"x": [1, 2.50]}`, "It is sunny.")
	a := NewAgent("a", "Forecaster", "Forecast well", "You forecast.", prov)
	a.Model = "anthropic/claude-haiku-4-5"
	a.Tools = []Tool{weatherTool(&calls)}
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if calls.Load() != 1 {
		t.Errorf("tool ran %d times, want once", calls.Load())
	}
	const system = `"system":[{"type":"text","text":"You are Forecaster. You forecast.\nYour personal goal is: Forecast well","cache_control":{"type":"ephemeral"}}]`
	const task = `{"role":"user","content":[{"type":"text","text":"\nCurrent Task: d\n\nThis is the expected criteria for your final answer: e\nyou MUST return the actual complete content as the final answer, not a summary.","cache_control":{"type":"ephemeral"}}]}`
	// The tool as the engine's Anthropic schema rendering gives it
	// (crew/toolschema, tested there).
	const tools = `"tools":[{"name":"get_forecast","description":"Forecast for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string","description":"City name"},"days":{"type":"integer","description":"Days ahead"}},"required":["city","days"],"additionalProperties":false},"strict":true}]`
	want := `{"max_tokens":4096,"messages":[` + task + `,` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_forecast","input":{"city":"Zürich","days":2}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Sunny in Zürich"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"no_such_tool","input":{"x":[1,2.5]}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"Tool not found"}]}],` +
		`"model":"claude-haiku-4-5","stop_sequences":["\nObservation:"],"stream":false,` + system + `,` + tools + `}`
	if got := cs.body(t, 2); got != want {
		t.Errorf("third request\n got %s\nwant %s", got, want)
	}
	if got := r.out.Raw; got != "It is sunny." {
		t.Errorf("output %q", got)
	}
	// The events carry the executor's dicts, marks included, as CrewAI's
	// llm_call_started does (the messages before _format_messages).
	for _, ev := range r.events {
		if ev.Kind != session.LLMCallStarted {
			continue
		}
		msgs, _ := ev.Data["messages"].([]map[string]any)
		var marked []bool
		for _, m := range msgs {
			marked = append(marked, m["cache_breakpoint"] == true)
		}
		if len(marked) < 2 || !marked[0] || !marked[1] || slices.Contains(marked[2:], true) {
			t.Errorf("llm_call_started marks %v, want the system and task prompts only", marked)
		}
	}
}

// The planning call hands the provider available_functions with its one
// tool (reasoning_handler.py:376-385), so AnthropicCompletion forces it
// (completion.py:537-540); the planning messages are built outside the
// executor and carry no cache breakpoint, while the task's execution that
// follows does.
func TestAnthropicEnginePlanningForcesItsTool(t *testing.T) {
	cs, prov := anthropicServer(t, `call create_reasoning_plan {"plan": "Say it.", "steps": [], "ready": true}`, "Berlin is big.")
	c := guardedCrew(prov, nil, false, 0)
	c.Agents[0].Model = "anthropic/claude-haiku-4-5"
	c.Agents[0].Planning = &PlanningConfig{MaxAttempts: 1, MaxSteps: 20}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	plan := cs.body(t, 0)
	if !strings.Contains(plan, `,"tool_choice":{"type":"tool","name":"create_reasoning_plan"},"tools":[{"name":"create_reasoning_plan",`) {
		t.Errorf("planning request does not force its tool:\n%s", plan)
	}
	if strings.Contains(plan, "cache_control") || !strings.Contains(plan, `"system":"`) {
		t.Errorf("planning request carries cache breakpoints:\n%s", plan)
	}
	if task := cs.body(t, 1); strings.Count(task, `"cache_control":{"type":"ephemeral"}`) != 2 || strings.Contains(task, "tool_choice") {
		t.Errorf("task request: want the system and task prompts marked, no tool_choice:\n%s", task)
	}
	if r.out.Raw != "Berlin is big." {
		t.Errorf("output %q", r.out.Raw)
	}
}

// An agent's llm settings top_p and stop (crew.jsonc, agents jsonc,
// crewbench.yaml, crew.py LLM(...) kwargs) reach the Anthropic body as
// CrewAI's provider sends them (completion.py _prepare_completion_params).
func TestAnthropicProjectLLMSettings(t *testing.T) {
	cs, _ := anthropicServer(t, "ok")
	topP := 0.25
	agents := []*project.Agent{{Name: "a", ResolvedLLM: project.LLM{
		Model: "anthropic/claude-haiku-4-5", BaseURL: cs.url, APIKey: "sk-ant-test", TopP: &topP, Stop: []string{"END"},
	}}}
	prov, _, err := ProjectLLM(&project.Project{Agents: agents, Overlay: &project.Overlay{}}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prov.Call(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	const want = `{"max_tokens":4096,"messages":[{"role":"user","content":"hi"}],"model":"claude-haiku-4-5","stop_sequences":["END"],"stream":false,"top_p":0.25}`
	if got := cs.body(t, 0); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

// Anthropic llm settings crewbench does not send are noted: thinking and
// tool_search change CrewAI's bodies (completion.py:526-548), and a
// per-LLM stream=True its method (messages.stream()).
func TestFromProjectNotesAnthropicSettings(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"crew.jsonc": `{"name": "p", "agents": ["writer"], "tasks": [{"name": "write", "description": "Write.", "expected_output": "A line.", "agent": "writer"}]}`,
		"agents/writer.jsonc": `{"role": "Writer", "goal": "g", "backstory": "b", "llm": {"model": "anthropic/claude-sonnet-4-5", "api_key": "sk-ant-x",
  "thinking": {"type": "enabled", "budget_tokens": 1024}, "tool_search": true, "stream": true, "top_p": 0.5}}`,
	})
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	_, notes, err := FromProject(p, ProjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(notes)
	for _, want := range []string{"agent writer: llm thinking is not reproduced", "agent writer: llm tool_search is not reproduced", "agent writer: llm stream=True"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes %q lack %q", all, want)
		}
	}
	if strings.Contains(all, "top_p") {
		t.Errorf("top_p noted, but it is sent: %q", all)
	}
}

// Anthropic's "prompt is too long" is none of CrewAI's context-limit
// phrases (is_context_length_exceeded, agent_utils.py:781-792), so CrewAI
// does not summarise for Claude even with respect_context_window: the
// error ends the agent's execution like any other.
func TestAnthropicPromptTooLongIsNotSummarized(t *testing.T) {
	var bodies atomic.Int64
	var summarized atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		bodies.Add(1)
		if strings.Contains(string(body), "structured summaries of agent conversations") {
			summarized.Store(true)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215012 tokens > 200000 maximum"}}`)
	}))
	t.Cleanup(srv.Close)
	prov, err := llm.New(llm.Config{Model: "anthropic/claude-haiku-4-5", BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent("a", "A", "g", "b", prov)
	a.Model = "anthropic/claude-haiku-4-5"
	r := kickoff(t, oneTaskCrew(a), nil, Options{})
	if r.err == nil || !strings.Contains(r.err.Error(), "prompt is too long") {
		t.Fatalf("err %v, want the provider's error", r.err)
	}
	if summarized.Load() || containsString(warnings(r), prompt.ContextSummarizing) {
		t.Errorf("the history was summarized")
	}
	if bodies.Load() == 0 {
		t.Errorf("no request reached the server")
	}
}
