package crew

// A ReAct agent's function_calling_llm, as CrewAI 1.15.17's ToolUsage asks
// it for a tool call the agent's reply does not give (tools/
// tool_usage.py:860-937), against loopback OpenAI-compatible servers and
// the weather fixture MCP server.

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/session"

	"github.com/google/go-cmp/cmp"
)

// toolCallingWire is InstructorToolCalling through the OpenAI SDK's
// to_strict_json_schema (openai/lib/_pydantic.py): every property
// required already, additionalProperties false appended at the root, the
// dict[str, Any] variant's own "additionalProperties": true kept.
const toolCallingWire = `{"properties":{"tool_name":{"description":"The name of the tool to be called.","title":"Tool Name","type":"string"},"arguments":{"anyOf":[{"additionalProperties":true,"type":"object"},{"type":"null"}],"description":"A dictionary of arguments to be passed to the tool.","title":"Arguments"}},"required":["tool_name","arguments"],"title":"InstructorToolCalling","type":"object","additionalProperties":false}`

// textModeProvider is an OpenAI-compatible LLM on cs without function
// calling, so its agent runs the ReAct loop.
func textModeProvider(t *testing.T, cs *chatServer) llm.Provider {
	t.Helper()
	off := false
	prov, err := llm.New(llm.Config{Model: "gpt-4o-mini", BaseURL: cs.url, APIKey: "sk-test", FunctionCalling: &off})
	if err != nil {
		t.Fatal(err)
	}
	return prov
}

func TestReActFunctionCallingLLM(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fcModel string
		// input is the Action Input; "" keeps a valid one.
		input     string
		fcReplies []string
		// fcCalls is how many requests the function_calling_llm gets;
		// validateEvents how many tool_validate_input_error events.
		fcCalls, validateEvents int
		// sent is the tools/call arguments on the wire ("" for none);
		// obs the start of the observation otherwise.
		sent, obs string
		// empty: every answer is "content": null, so each attempt is a
		// parse request and a plain one (completion.py:1892-1927).
		empty bool
	}{
		{name: "unparsable input, the LLM gives the call", fcModel: "gpt-4o-mini", input: "Oslo for 2 days, please",
			fcReplies: []string{`{"tool_name": "{tool}", "arguments": {"city": "Oslo", "days": "2"}}`},
			fcCalls:   1, validateEvents: 1, sent: `{"city":"Oslo","days":2,"units":"metric"}`},
		{name: "a valid input never asks it", fcModel: "gpt-4o-mini", input: "",
			fcCalls: 0, sent: `{"city":"Oslo","days":3,"units":"metric"}`},
		{name: "arguments null", fcModel: "gpt-4o-mini", input: "Oslo for 2 days, please",
			fcReplies: []string{`{"tool_name": "{tool}", "arguments": null}`},
			fcCalls:   1, validateEvents: 1, obs: "\nI encountered an error while trying to use the tool. This was the error: Tool '{tool}' arguments validation failed: 1 validation error for get_forecastSchema\ncity\n  Field required"},
		{name: "a tool the agent lacks", fcModel: "gpt-4o-mini", input: "Oslo for 2 days, please",
			fcReplies: []string{`{"tool_name": "Get Weather", "arguments": {"city": "Oslo"}}`},
			fcCalls:   1, validateEvents: 1, obs: "You tried to use the tool get_weather, but it doesn't exist. You must use one of the following tools, use one at time: "},
		{name: "three failed attempts", fcModel: "gpt-4o-mini", input: "Oslo for 2 days, please",
			fcReplies: []string{"no", "no", "no"},
			fcCalls:   3, validateEvents: 3, obs: "I encountered an error: Failed to convert text into a Pydantic model due to "},
		{name: "an empty answer", fcModel: "gpt-4o-mini", input: "Oslo for 2 days, please", empty: true,
			fcReplies: slices.Repeat([]string{nullReply}, 6),
			fcCalls:   6, validateEvents: 3, obs: "I encountered an error: Failed to convert text into a Pydantic model due to error: Agent must be provided if converter_cls is not specified.\nMoving on then. "},
		{name: "a bigger model gets two", fcModel: "gpt-4o", input: "Oslo for 2 days, please",
			fcReplies: []string{"no", "no"},
			fcCalls:   2, validateEvents: 2, obs: "I encountered an error: Failed to convert text into a Pydantic model due to "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &MCP{}
			a := NewAgent("a", "Forecaster", "g", "b", nil)
			a.MCPs = []MCPRef{{Spec: fixtureSpec("weather")}}
			tools, err := m.Resolve(t.Context(), a, a.MCPs[0], RunContext{})
			if err != nil {
				t.Fatal(err)
			}
			name := discoverOne(t, m, a, "getForecast")
			input := tc.input
			if input == "" {
				input = `{"city": "Oslo"}`
			}
			reply := "Thought: I need the forecast\nAction: " + name + "\nAction Input: " + input
			main, _ := newChatServer(t, reply, "Thought: done\nFinal Answer: Sunny")
			a.LLM, a.Model = textModeProvider(t, main), "gpt-4o-mini"
			var fcReplies []string
			for _, r := range tc.fcReplies {
				fcReplies = append(fcReplies, strings.ReplaceAll(r, "{tool}", name))
			}
			fc, _ := newChatServer(t, fcReplies...)
			a.FunctionCallingLLM, a.FunctionCallingModel = fc.provider(t, tc.fcModel), tc.fcModel

			c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}
			r := kickoff(t, c, nil, Options{MCP: m})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if len(fc.bodies) != tc.fcCalls {
				t.Fatalf("%d function_calling_llm requests, want %d", len(fc.bodies), tc.fcCalls)
			}
			// ToolUsage._render: the composite blocks joined with
			// "\n--\n"; the text ends with the agent's whole reply
			// (tool_usage.py:855-887).
			blocks := make([]string, len(tools))
			for i, tool := range tools {
				blocks[i] = describe(tool)
			}
			user := "Only tools available:\n###\n" + strings.Join(blocks, "\n--\n") +
				"\n\nReturn a valid schema for the tool, the tool name must be exactly equal one of the options, use this text to inform the valid output schema:\n\n### TEXT \n" + reply
			system := "The schema should have the following structure, only two keys:\n- tool_name: str\n- arguments: dict (always a dictionary, with all arguments being passed)\n\nExample:\n{\"tool_name\": \"tool name\", \"arguments\": {\"arg_name1\": \"value\", \"arg_name2\": 2}}"
			want := chatBody(system, user, tc.fcModel, "InstructorToolCalling", toolCallingWire)
			plain := `{"messages":[{"role":"system","content":` + wireJSON(system) + `},{"role":"user","content":` + wireJSON(user) + `}],"model":"` + tc.fcModel + `"}`
			for i := range tc.fcCalls {
				want := want
				if tc.empty && i%2 == 1 {
					want = plain
				}
				if got := fc.body(t, i); got != want {
					t.Errorf("function_calling_llm request %d\n got %s\nwant %s", i, got, want)
				}
			}
			// The agent's own requests carry no trace of it.
			if len(main.bodies) != 2 {
				t.Fatalf("%d agent requests, want 2", len(main.bodies))
			}
			sent := sentArguments(r)
			switch {
			case tc.sent != "":
				if len(sent) != 1 || sent[0] != tc.sent {
					t.Errorf("arguments on the wire %q, want %s", sent, tc.sent)
				}
			default:
				if len(sent) != 0 {
					t.Errorf("arguments on the wire %q, want no call", sent)
				}
				wantObs := "\nObservation: " + strings.ReplaceAll(tc.obs, "{tool}", name)
				if got := main.body(t, 1); !strings.Contains(got, wireJSON(wantObs)[1:len(wireJSON(wantObs))-1]) {
					t.Errorf("second agent request lacks %q:\n%s", wantObs, got)
				}
			}
			if n := r.count(session.ToolValidateInputError); n != tc.validateEvents {
				t.Errorf("%d tool_validate_input_error events, want %d", n, tc.validateEvents)
			}
			// Converter passes no from_task or from_agent (converter.py:
			// 96-104): its calls name neither, the agent's name both.
			anonymous := 0
			for _, ev := range r.events {
				if ev.Kind == session.LLMCallStarted && ev.TaskName == "" && ev.AgentRole == "" {
					anonymous++
				}
			}
			if tc.empty {
				anonymous *= 2 // one call event for both requests
			}
			if anonymous != tc.fcCalls {
				t.Errorf("%d LLM calls without task and agent, want %d", anonymous, tc.fcCalls)
			}
			// Its tokens are not the crew's (calculate_usage_metrics reads
			// the agents' llm, crew.py:2201-2225): the agent's two calls.
			if u := r.out.TokenUsage; u.TotalTokens != 30 || u.SuccessfulRequests != 2 {
				t.Errorf("token usage %+v, want the agent's 2 calls", u)
			}
		})
	}
}

// Without a function_calling_llm an unparsable Action Input gets the
// tool_arguments_error observation at once, with two validation events
// (the raise_error=True pass and the returning one).
func TestReActWithoutFunctionCallingLLMKeepsTheArgumentsError(t *testing.T) {
	m := &MCP{}
	a := NewAgent("a", "Forecaster", "g", "b", nil)
	a.MCPs = []MCPRef{{Spec: fixtureSpec("weather")}}
	name := discoverOne(t, m, a, "getForecast")
	main, _ := newChatServer(t, "Thought: x\nAction: "+name+"\nAction Input: Oslo for 2 days, please", "Thought: done\nFinal Answer: Sunny")
	a.LLM, a.Model = textModeProvider(t, main), "gpt-4o-mini"
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, nil, Options{MCP: m})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.Contains(main.body(t, 1), wireJSON("\nObservation: " + prompt.ToolInputNotDict)[1:]) {
		t.Errorf("second request %s", main.body(t, 1))
	}
	if n := r.count(session.ToolValidateInputError); n != 2 {
		t.Errorf("%d tool_validate_input_error events, want 2", n)
	}
}

// A function_calling_llm on one of OPENAI_BIGGER_MODELS moves the tools
// reminder from every 3rd tool use to every 4th (tool_usage.py:130-135,
// 767-777), even when it is never called.
func TestReActRememberFormatWithBiggerFunctionCallingLLM(t *testing.T) {
	for _, tc := range []struct {
		fcModel string
		// reminded is the 1-based tool use whose observation carries the
		// tools block.
		reminded int
	}{{"", 3}, {"gpt-4o-mini", 3}, {"gpt-4o", 4}} {
		t.Run("fc="+tc.fcModel, func(t *testing.T) {
			var replies []string
			for _, city := range []string{"Oslo", "Rome", "Lima", "Kyiv"} {
				replies = append(replies, "Thought: next\nAction: get_forecast\nAction Input: {\"city\": \""+city+"\"}")
			}
			main, _ := newChatServer(t, append(replies, "Thought: done\nFinal Answer: Sunny")...)
			a := NewAgent("a", "Forecaster", "g", "b", textModeProvider(t, main))
			a.Model = "gpt-4o-mini"
			var calls atomic.Int64
			a.Tools = []Tool{weatherTool(&calls)}
			if tc.fcModel != "" {
				fc, _ := newChatServer(t)
				a.FunctionCallingLLM, a.FunctionCallingModel = fc.provider(t, tc.fcModel), tc.fcModel
			}
			c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}
			if r := kickoff(t, c, nil, Options{}); r.err != nil {
				t.Fatal(r.err)
			}
			if calls.Load() != 4 {
				t.Fatalf("%d tool runs, want 4", calls.Load())
			}
			// Request n+1 is the first to hold the n-th observation; the
			// tools block shows up in the system prompt once and in each
			// reminder.
			marker := wireJSON("Tool Name: get_forecast")
			marker = marker[1 : len(marker)-1]
			for use := 1; use <= 4; use++ {
				want := 1
				if use >= tc.reminded {
					want = 2
				}
				if got := strings.Count(main.body(t, use), marker); got != want {
					t.Errorf("after tool use %d the tools block appears %d times, want %d", use, got, want)
				}
			}
		})
	}
}

// A ReAct action that does not parse is reported as CrewAI's
// execute_tool_and_check_finality reports a ToolUsageError
// (utilities/tool_utils.py:94-108): under the Action as written, with the
// whole observation as the failure's message.
func TestReActParseFailureRecord(t *testing.T) {
	for _, tc := range []struct {
		name, action, input, message string
	}{
		{"unknown action", "Lookup Stock", `{"sku": "A1"}`, "I encountered an error: Action 'Lookup Stock' don't exist, these are the only available Actions:\n"},
		{"input not a dict", "Get Forecast", "Oslo, please", "Error: the Action Input is not a valid key, value dictionary."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			main, _ := newChatServer(t, "Thought: x\nAction: "+tc.action+"\nAction Input: "+tc.input, "Thought: done\nFinal Answer: Sunny")
			a := NewAgent("a", "Forecaster", "g", "b", textModeProvider(t, main))
			a.Model = "gpt-4o-mini"
			var calls atomic.Int64
			a.Tools = []Tool{weatherTool(&calls)}
			c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}
			r := kickoff(t, c, nil, Options{})
			if r.err != nil {
				t.Fatal(r.err)
			}
			fs := r.out.ToolFailures()
			if len(fs) != 1 || fs[0].ToolName != tc.action || !strings.HasPrefix(fs[0].Failure.Message, tc.message) || fs[0].Failure.Reason != ReasonInvalidInput {
				t.Fatalf("failures %+v", fs)
			}
			if obs := main.body(t, 1); !strings.Contains(obs, wireJSON("Observation: " + fs[0].Failure.Message)[1:]) {
				t.Errorf("the observation is not the failure's message:\n%s", obs)
			}
		})
	}
}

// ToolUsage's tool_usage_started names the tool and its input as the
// model wrote them (action.tool, the repaired action.tool_input string:
// tool_usage.py:274-280); tool_usage_finished names the tool's sanitized
// name and the parsed arguments (calling.arguments, _prepare_event_data).
func TestReActToolStartedCarriesTheActionAsWritten(t *testing.T) {
	main, _ := newChatServer(t, "Thought: x\nAction: Get Forecast\nAction Input: {\"city\": \"Oslo\"}", "Thought: done\nFinal Answer: Sunny")
	a := NewAgent("a", "Forecaster", "g", "b", textModeProvider(t, main))
	a.Model = "gpt-4o-mini"
	var calls atomic.Int64
	a.Tools = []Tool{weatherTool(&calls)}
	c := &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Name: "f", Description: "d", ExpectedOutput: "e", Agent: a}}}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil || calls.Load() != 1 {
		t.Fatalf("err %v, %d calls", r.err, calls.Load())
	}
	got := map[session.Kind][3]string{}
	for _, ev := range r.events {
		if ev.Kind == session.ToolUsageStarted || ev.Kind == session.ToolUsageFinished {
			args := ev.Data["tool_args"]
			s, isStr := args.(string)
			if !isStr {
				s = "dict " + pyjson.Dumps(pyjson.FromGo(args))
			}
			got[ev.Kind] = [3]string{ev.Str("tool_name"), s, ev.Str("tool_class")}
		}
	}
	want := map[session.Kind][3]string{
		session.ToolUsageStarted:  {"Get Forecast", `{"city": "Oslo"}`, "Get Forecast"},
		session.ToolUsageFinished: {"get_forecast", `dict {"city": "Oslo"}`, got[session.ToolUsageFinished][2]},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tool events (-want +got):\n%s", d)
	}
}
