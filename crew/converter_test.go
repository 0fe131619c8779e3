package crew

// The output converter against a loopback OpenAI-compatible server: the
// converter's request bodies are compared byte for byte with what CrewAI
// 1.15.17 sends (its Converter through the native OpenAI provider, and
// instructor 1.15.1 through a fresh OpenAI SDK client), built here from
// the sources' texts (file:line cited at each expectation).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// forecastSchema is the golden output_json crew's inline schema
// (goldens/crews/output_json/crew.jsonc).
const forecastSchema = `{"title": "Forecast", "type": "object", "properties": {"city": {"type": "string", "description": "The city."}, "days": {"type": "integer", "description": "Days covered."}, "summary": {"type": "string"}}, "required": ["city", "days", "summary"]}`

// forecastWire is the Forecast model's schema on the wire: the golden
// output_json request's response_format schema (llm_requests.jsonl #1).
const forecastWire = `{"additionalProperties":false,"properties":{"city":{"description":"The city.","title":"City","type":"string"},"days":{"description":"Days covered.","title":"Days","type":"integer"},"summary":{"title":"Summary","type":"string"}},"required":["city","days","summary"],"title":"Forecast","type":"object"}`

// converterInstructions is get_conversion_instructions for Forecast
// (utilities/converter.py:530-562): formatted_task_instructions
// (translations/en.json:29) with json.dumps(generate_model_description
// (model), indent=2) — the whole {"type", "json_schema": {"name", "strict",
// "schema"}} dict (utilities/pydantic_schema_utils.py:684-691), the schema
// as the golden's task prompt shows it, two levels deeper.
const converterInstructions = "Format your final answer according to the following OpenAPI schema: {\n  \"type\": \"json_schema\",\n  \"json_schema\": {\n    \"name\": \"Forecast\",\n    \"strict\": true,\n    \"schema\": {\n      \"additionalProperties\": false,\n      \"properties\": {\n        \"city\": {\n          \"description\": \"The city.\",\n          \"title\": \"City\",\n          \"type\": \"string\"\n        },\n        \"days\": {\n          \"description\": \"Days covered.\",\n          \"title\": \"Days\",\n          \"type\": \"integer\"\n        },\n        \"summary\": {\n          \"title\": \"Summary\",\n          \"type\": \"string\"\n        }\n      },\n      \"required\": [\n        \"city\",\n        \"days\",\n        \"summary\"\n      ],\n      \"title\": \"Forecast\",\n      \"type\": \"object\"\n    }\n  }\n}\n\nIMPORTANT: Preserve the original content exactly as-is. Do NOT rewrite, paraphrase, or modify the meaning of the content. Only structure it to match the schema format.\n\nDo not include the OpenAPI schema in the final output. Ensure the final output does not include any code block markers like ```json or ```python."

// instructorTools is what instructor's TOOLS mode adds for Forecast
// (instructor 1.15.1 providers/openai/utils.py handle_tools;
// processing/schema.py generate_openai_schema): tool_choice forcing the
// function, the function without "strict", its description the default
// text for a model without a docstring, its parameters
// model_json_schema() without title, required sorted. The OpenAI SDK
// writes messages, model, then the optional keys alphabetically, and no
// "stream" when none is given (openai 2.41.0 resources/chat/completions/
// completions.py create).
const instructorTools = `"model":"gpt-4o","tool_choice":{"type":"function","function":{"name":"Forecast"}},"tools":[{"type":"function","function":{"name":"Forecast","description":"Correctly extracted ` + "`Forecast`" + ` with all the required parameters with correct types","parameters":{"additionalProperties":false,"properties":{"city":{"description":"The city.","title":"City","type":"string"},"days":{"description":"Days covered.","title":"Days","type":"integer"},"summary":{"title":"Summary","type":"string"}},"required":["city","days","summary"],"type":"object"}}}]}`

// converterAnswer is a final answer that is not JSON, so convert_to_model
// goes to the converter (converter.py:229-250, 299-332).
const converterAnswer = "Berlin: rain, then sun, over 2 days."

// converterCrew is one task with the Forecast model whose agent has a tool
// (so the executor sends no response_model, agent_executor.py:1425-1427,
// and the answer is converted afterwards).
func converterCrew(t *testing.T, prov llm.Provider, pydantic bool) *Crew {
	t.Helper()
	schema, err := pyjson.LoadsObject(forecastSchema)
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	a := NewAgent("w", "Writer", "Write well", "You write.", prov)
	a.Model = "gpt-4o"
	a.Tools = []Tool{weatherTool(&calls)}
	return &Crew{Agents: []*Agent{a}, Tasks: []*Task{{
		Name: "forecast", Description: "Summarise the forecast.", ExpectedOutput: "A forecast.", Agent: a,
		OutputJSON: schema, OutputPydantic: pydantic,
	}}}
}

// taskTail is the CrewAI events from agent_execution_completed on.
func taskTail(r result) []session.Kind {
	kinds := crewAIKinds(r)
	i := slices.Index(kinds, session.AgentExecutionCompleted)
	if i < 0 {
		return nil
	}
	return kinds[i:]
}

// output_pydantic: Converter.to_pydantic with a function-calling LLM is
// llm.call([system instructions, user answer], response_model=model)
// (converter.py:45-49, 96-104) — the native provider's parse request with
// the model's response_format and "stream": false
// (llms/providers/openai/completion.py:1892-1899). A reply that does not
// validate fails that call (twice reported) and the converter tries again
// (converter.py:105-107).
func TestConverterToPydanticRetriesThenConverts(t *testing.T) {
	cs, prov := newChatServer(t, converterAnswer, "not json", `{"city": "Berlin", "days": 2, "summary": "Rain, then sun."}`)
	c := converterCrew(t, prov, true)
	c.Tasks[0].OutputFile = "forecast.json"
	dir := t.TempDir()
	r := kickoff(t, c, nil, Options{OutputDir: dir})
	if r.err != nil {
		t.Fatal(r.err)
	}
	// output_file of a pydantic output is its model_dump_json()
	// (task.py:938-946).
	if b, err := os.ReadFile(filepath.Join(dir, "forecast.json")); err != nil || string(b) != `{"city":"Berlin","days":2,"summary":"Rain, then sun."}` {
		t.Errorf("output file %q %v", b, err)
	}
	want := chatBody(converterInstructions, converterAnswer, "gpt-4o", "Forecast", forecastWire)
	for i := 1; i <= 2; i++ {
		if got := cs.body(t, i); got != want {
			t.Errorf("converter request %d\n got %s\nwant %s", i, got, want)
		}
	}
	to := r.out.TasksOutput[0]
	// The model's str (task_output.py __str__), raw kept as the answer
	// (task.py:868-871), no json_dict for a pydantic output.
	if to.Raw != converterAnswer || to.Pydantic != "city='Berlin' days=2 summary='Rain, then sun.'" || to.JSONDict != nil || to.OutputFormat != FormatPydantic {
		t.Errorf("task output %+v", to)
	}
	// The failed parse is reported by the provider's request handler and
	// by call() (completion.py:488-495, 2034-2041); Converter passes no
	// from_task/from_agent (converter.py:98-101), so its calls carry
	// neither.
	wantTail := []session.Kind{session.AgentExecutionCompleted,
		session.LLMCallStarted, session.LLMCallFailed, session.LLMCallFailed,
		session.LLMCallStarted, session.LLMCallCompleted, session.TaskCompleted, session.CrewKickoffCompleted}
	if got := taskTail(r); !slices.Equal(got, wantTail) {
		t.Errorf("events\n got %v\nwant %v", got, wantTail)
	}
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallCompleted && ev.Str("response") != converterAnswer && (ev.TaskName != "" || ev.AgentRole != "") {
			t.Errorf("converter call event names a task or agent: %+v", ev)
		}
	}
}

// A converter that never gets the model raises its ConverterError out of
// to_pydantic after max_attempts (3, base_output_converter.py:31-34;
// converter.py:108-110); nothing catches it, so the task fails with it
// (task.py:953-956).
func TestConverterToPydanticGivesUpAndFailsTheTask(t *testing.T) {
	cs, prov := newChatServer(t, converterAnswer, "nope", "nope", "nope")
	r := kickoff(t, converterCrew(t, prov, true), nil, Options{})
	// str(ValidationError) of model_validate_json("nope") (pydantic-core
	// 2.46, jiter's message).
	want := "Failed to convert text into a Pydantic model due to validation error: 1 validation error for Forecast\n  Invalid JSON: expected ident at line 1 column 2 [type=json_invalid, input_value='nope', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/json_invalid"
	if r.err == nil || r.err.Error() != want {
		t.Fatalf("err\n got %v\nwant %s", r.err, want)
	}
	if n := len(cs.bodies); n != 4 {
		t.Errorf("%d requests, want the answer and 3 conversion attempts", n)
	}
	if r.count(session.TaskFailed) != 1 || r.count(session.CrewKickoffFailed) != 1 {
		t.Errorf("events %v", crewAIKinds(r))
	}
}

// output_json: Converter.to_json with a function-calling LLM goes through
// InternalInstructor (converter.py:155-157): instructor.from_provider
// ("openai/gpt-4o", base_url, api_key) in TOOLS mode
// (internal_instructor.py:76-113; instructor auto_client.py), one user
// message with the answer (internal_instructor.py:148-162). A reply whose
// arguments do not validate is asked again with the reply and a tool
// message (reask_tools; core/exceptions.py InstructorError.__str__ renders
// the failed attempts). The SDK client is not CrewAI's LLM: no llm_call
// events (crewbench's own kinds instead) and no tokens counted.
func TestConverterToJSONThroughInstructorReasks(t *testing.T) {
	bad := `{"city":"Berlin","days":2}`
	cs, prov := newChatServer(t, converterAnswer, "call Forecast "+bad, `call Forecast {"city":"Berlin","days":2,"summary":"Rain, then sun."}`)
	r := kickoff(t, converterCrew(t, prov, false), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	user := `{"messages":[{"role":"user","content":` + wireJSON(converterAnswer) + `}`
	if got, want := cs.body(t, 1), user+`],`+instructorTools; got != want {
		t.Errorf("instructor request\n got %s\nwant %s", got, want)
	}
	// str(ValidationError) of the missing field, strict or lax alike.
	verr := "1 validation error for Forecast\nsummary\n  Field required [type=missing, input_value={'city': 'Berlin', 'days': 2}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing"
	// str(ChatCompletion) as the SDK builds it from the server's reply
	// (openai 2.41.0 types/chat/chat_completion.py field order).
	completion := `ChatCompletion(id='chatcmpl-1', choices=[Choice(finish_reason='tool_calls', index=0, logprobs=None, message=ChatCompletionMessage(content=None, refusal=None, role='assistant', annotations=None, audio=None, function_call=None, tool_calls=[ChatCompletionMessageFunctionToolCall(id='call_1', function=Function(arguments='{"city":"Berlin","days":2}', name='Forecast'), type='function')]))], created=0, model='gpt-4o', object='chat.completion', service_tier=None, system_fingerprint=None, usage=CompletionUsage(completion_tokens=5, prompt_tokens=10, total_tokens=15, completion_tokens_details=None, prompt_tokens_details=None))`
	reask := "Validation Error found:\n<failed_attempts>\n\n<generation number=\"1\">\n<exception>\n    " + verr +
		"\n</exception>\n<completion>\n    " + completion + "\n</completion>\n</generation>\n\n</failed_attempts>\n\n<last_exception>\n    " + verr +
		"\n</last_exception>\nRecall the function correctly, fix the errors"
	// dump_message: content "" for None, tool_calls as model_dump()
	// (instructor utils/core.py dump_message).
	assistant := `{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"arguments":` + wireJSON(bad) + `,"name":"Forecast"},"type":"function"}]}`
	tool := `{"role":"tool","tool_call_id":"call_1","name":"Forecast","content":` + wireJSON(reask) + `}`
	if got, want := cs.body(t, 2), user+","+assistant+","+tool+"],"+instructorTools; got != want {
		t.Errorf("reask request\n got %s\nwant %s", got, want)
	}
	// model_dump_json(indent=2), loaded back by _unpack_model_output
	// (internal_instructor.py:130-137, task.py:1233-1236).
	to := r.out.TasksOutput[0]
	if to.Raw != converterAnswer || to.JSONDict == nil || pyjson.Dumps(to.JSONDict) != `{"city": "Berlin", "days": 2, "summary": "Rain, then sun."}` || to.Pydantic != "" {
		t.Errorf("task output %+v", to)
	}
	if r.out.String() != "{'city': 'Berlin', 'days': 2, 'summary': 'Rain, then sun.'}" {
		t.Errorf("str(output) %q", r.out.String())
	}
	wantTail := []session.Kind{session.AgentExecutionCompleted, session.TaskCompleted, session.CrewKickoffCompleted}
	if got := taskTail(r); !slices.Equal(got, wantTail) {
		t.Errorf("events\n got %v\nwant %v", got, wantTail)
	}
	if n := r.count(session.OwnLLMCallCompleted); n != 2 {
		t.Errorf("%d crewbench_llm_call_completed, want 2", n)
	}
	if r.out.TokenUsage.TotalTokens != 15 || r.out.TokenUsage.SuccessfulRequests != 1 {
		t.Errorf("usage %+v: only the agent's call counts", r.out.TokenUsage)
	}
}

// A reply that is not the function call fails instructor's parse_tools
// assertion: no reask, the same request again, 3 attempts
// (instructor core/retry.py retry_sync, stop_after_attempt(3)); then
// to_json tries twice more (converter.py:159-162) and returns its
// ConverterError, so the task keeps its raw answer without json_dict
// (converter.py:381-387, task.py:1236-1239).
func TestConverterToJSONKeepsTheAnswerWhenItGivesUp(t *testing.T) {
	replies := []string{converterAnswer}
	for range 9 {
		replies = append(replies, "I cannot call functions.")
	}
	cs, prov := newChatServer(t, replies...)
	r := kickoff(t, converterCrew(t, prov, false), nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := len(cs.bodies); n != 10 {
		t.Fatalf("%d requests, want the answer and 3×3 instructor attempts", n)
	}
	first := `{"messages":[{"role":"user","content":` + wireJSON(converterAnswer) + `}],` + instructorTools
	for i := 1; i < 10; i++ {
		if got := cs.body(t, i); got != first {
			t.Errorf("instructor request %d\n got %s\nwant %s", i, got, first)
		}
	}
	to := r.out.TasksOutput[0]
	if to.Raw != converterAnswer || to.JSONDict != nil || r.out.String() != converterAnswer {
		t.Errorf("task output %+v", to)
	}
	if r.count(session.TaskCompleted) != 1 {
		t.Errorf("events %v", crewAIKinds(r))
	}
}

// Without function calling, to_pydantic is a plain llm.call(messages)
// (converter.py:102-103): no response_format, no stream key. to_json is
// json.dumps(llm.call(messages)) (converter.py:158), a JSON string that
// _unpack_model_output loads back into the reply text (task.py:1233-1236):
// TaskOutput's json_dict must be a dict (tasks/task_output.py:40), so the
// task fails with Pydantic's dict_type error.
func TestConverterWithoutFunctionCalling(t *testing.T) {
	off := false
	for _, tc := range []struct {
		name     string
		pydantic bool
		want     func(t *testing.T, r result)
	}{
		{"to_pydantic", true, func(t *testing.T, r result) {
			if r.err != nil {
				t.Fatal(r.err)
			}
			if got := r.out.TasksOutput[0].Pydantic; got != "city='Berlin' days=2 summary='Rain, then sun.'" {
				t.Errorf("pydantic %q", got)
			}
		}},
		{"to_json", false, func(t *testing.T, r result) {
			// pydantic-core cuts a long input_value to its first 25 and last
			// 24 characters.
			want := "1 validation error for TaskOutput\njson_dict\n  Input should be a valid dictionary [type=dict_type, input_value='{\"city\": \"Berlin\", \"days...ry\": \"Rain, then sun.\"}', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/dict_type"
			if r.err == nil || r.err.Error() != want {
				t.Errorf("err\n got %v\nwant %s", r.err, want)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := `{"city": "Berlin", "days": 2, "summary": "Rain, then sun."}`
			cs, _ := newChatServer(t, "Final Answer: "+converterAnswer, reply)
			prov, err := llm.New(llm.Config{Model: "gpt-4o", BaseURL: cs.url, APIKey: "sk-test", FunctionCalling: &off})
			if err != nil {
				t.Fatal(err)
			}
			r := kickoff(t, converterCrew(t, prov, tc.pydantic), nil, Options{})
			want := `{"messages":[{"role":"system","content":` + wireJSON(converterInstructions) + `},{"role":"user","content":` + wireJSON(converterAnswer) + `}],"model":"gpt-4o"}`
			if got := cs.body(t, 1); got != want {
				t.Errorf("converter request\n got %s\nwant %s", got, want)
			}
			tc.want(t, r)
		})
	}
}

// convert_to_model without the converter (converter.py:229-332): an
// answer that validates, or whose first-"{"-to-last-"}" fragment does, is
// the model with no LLM call; a fragment that parses but does not
// validate re-raises its ValidationError and the task fails.
func TestConvertToModelWithoutLLM(t *testing.T) {
	for _, tc := range []struct {
		name, answer, json, err string
	}{
		{"valid JSON", `{"city": "Berlin", "days": 2, "summary": "x"}`, `{"city": "Berlin", "days": 2, "summary": "x"}`, ""},
		// json.loads(strict=False): a raw newline inside a string passes.
		{"control character", "{\"city\": \"Ber\nlin\", \"days\": 2, \"summary\": \"x\"}", `{"city": "Ber\nlin", "days": 2, "summary": "x"}`, ""},
		{"fragment", "Here it is: {\"city\": \"Berlin\", \"days\": \"2\", \"summary\": \"x\"} — done.", `{"city": "Berlin", "days": 2, "summary": "x"}`, ""},
		{"fragment that does not validate", `Result: {"city": "Berlin"}`, "",
			"2 validation errors for Forecast\ndays\n  Field required [type=missing, input_value={'city': 'Berlin'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing\nsummary\n  Field required [type=missing, input_value={'city': 'Berlin'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, prov := newChatServer(t, tc.answer)
			r := kickoff(t, converterCrew(t, prov, false), nil, Options{})
			if len(cs.bodies) != 1 {
				t.Errorf("%d requests: the converter was asked", len(cs.bodies))
			}
			if tc.err != "" {
				if r.err == nil || r.err.Error() != tc.err {
					t.Errorf("err\n got %v\nwant %s", r.err, tc.err)
				}
				return
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			if got := pyjson.Dumps(r.out.TasksOutput[0].JSONDict); got != tc.json {
				t.Errorf("json_dict %s, want %s", got, tc.json)
			}
		})
	}
}

// converter_cls is a Python class: crewbench leaves the output unconverted
// and says so (convert_to_model would hand it the answer,
// converter.py:220-227).
func TestConverterClassIsNotRun(t *testing.T) {
	cs, prov := newChatServer(t, `{"city": "Berlin", "days": 2, "summary": "x"}`)
	c := converterCrew(t, prov, false)
	c.Tasks[0].ConverterClass = "my_crew.converters.Strict"
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(cs.bodies) != 1 || r.out.TasksOutput[0].JSONDict != nil {
		t.Errorf("requests %d, json_dict %v", len(cs.bodies), r.out.TasksOutput[0].JSONDict)
	}
	var noted bool
	for _, ev := range r.events {
		noted = noted || ev.Kind == session.Warning && strings.Contains(ev.Str("message"), "converter_cls my_crew.converters.Strict")
	}
	if !noted {
		t.Error("no warning names converter_cls")
	}
}

// With guardrails the first answer is not converted until a check passes
// (task.py:868-874), then the passed result is exported (task.py:
// 1359-1365): the converter's call follows the guardrail's events.
func TestConverterRunsAfterThePassedGuardrail(t *testing.T) {
	_, prov := newChatServer(t, converterAnswer, `{"valid": true, "feedback": null}`, `{"city": "Berlin", "days": 2, "summary": "Rain, then sun."}`)
	c := converterCrew(t, prov, true)
	c.Tasks[0].Guardrails = []string{"Mention the city."}
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	kinds := taskTail(r)
	g := slices.Index(kinds, session.LLMGuardrailCompleted)
	if g < 0 || !slices.Equal(kinds[g:], []session.Kind{session.LLMGuardrailCompleted,
		session.LLMCallStarted, session.LLMCallCompleted, session.TaskCompleted, session.CrewKickoffCompleted}) {
		t.Errorf("events %v", kinds)
	}
	if got := r.out.TasksOutput[0].Pydantic; got != "city='Berlin' days=2 summary='Rain, then sun.'" {
		t.Errorf("pydantic %q", got)
	}
}

// A JSON crew's converter_cls {"python": …} reaches the task with a note;
// the crew's function_calling_llm becomes the agent's (setup_agents,
// crews/utils.py:87-88), with a note.
func TestFromProjectNotesConverterClass(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"crew.jsonc": `{"name": "p", "agents": ["writer"], "function_calling_llm": "gpt-4o-mini", "tasks": [
  {"name": "write", "description": "Write.", "expected_output": "JSON.", "agent": "writer",
   "output_json": ` + forecastSchema + `, "converter_cls": {"python": "pkg.conv.Strict"}}]}`,
		"agents/writer.jsonc": `{"role": "Writer", "goal": "g", "backstory": "b"}`,
		"pkg/__init__.py":     "",
		"pkg/conv.py":         "class Strict:\n    pass\n",
	}
	writeFiles(t, dir, files)
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	c, notes, err := FromProject(p, ProjectOptions{LLM: "scripted:inline.yaml", Script: []byte("replies: [\"x\"]\n")})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Tasks[0].ConverterClass; got != "pkg.conv.Strict" {
		t.Errorf("converter class %q", got)
	}
	all := fmt.Sprint(notes)
	for _, want := range []string{"converter_cls pkg.conv.Strict is a Python class", "agent writer: function_calling_llm"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes %q lack %q", all, want)
		}
	}
	if c.Agents[0].FunctionCallingLLM == nil {
		t.Error("the crew's function_calling_llm did not reach the agent")
	}
}

// generate_openai_schema's parameters (instructor 1.15.1
// processing/schema.py:41-55): title dropped, required rewritten in place
// as the sorted properties without a default — an optional field has
// Pydantic's "default": null.
func TestInstructorParameters(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"optional field, unsorted names",
			`{"title": "Pick", "type": "object", "properties": {"zone": {"type": "string"}, "area": {"type": "integer"}, "note": {"type": "string"}}, "required": ["zone", "area"]}`,
			`{"additionalProperties":false,"properties":{"zone":{"title":"Zone","type":"string"},"area":{"title":"Area","type":"integer"},"note":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Note"}},"required":["area","zone"],"type":"object"}`},
		{"no required field",
			`{"title": "Opt", "type": "object", "properties": {"note": {"type": "string"}}}`,
			`{"additionalProperties":false,"properties":{"note":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Note"}},"type":"object","required":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema, err := pyjson.LoadsObject(tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			tool := instructorTool((&Task{OutputJSON: schema}).outputModel(), false)
			if got := string(tool.Parameters); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// convert_with_instructions asks agent.function_calling_llm before
// agent.llm (converter.py:363).
func TestConverterUsesFunctionCallingLLM(t *testing.T) {
	main, prov := newChatServer(t, converterAnswer)
	fc, fcProv := newChatServer(t, `{"city": "Berlin", "days": 2, "summary": "Rain, then sun."}`)
	c := converterCrew(t, prov, true)
	c.Agents[0].FunctionCallingLLM, c.Agents[0].FunctionCallingModel = fcProv, "gpt-4o"
	r := kickoff(t, c, nil, Options{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(main.bodies) != 1 || len(fc.bodies) != 1 {
		t.Fatalf("requests: agent llm %d, function_calling_llm %d", len(main.bodies), len(fc.bodies))
	}
	if got, want := fc.body(t, 0), chatBody(converterInstructions, converterAnswer, "gpt-4o", "Forecast", forecastWire); got != want {
		t.Errorf("converter request\n got %s\nwant %s", got, want)
	}
	if got := r.out.TasksOutput[0].Pydantic; got != "city='Berlin' days=2 summary='Rain, then sun.'" {
		t.Errorf("pydantic %q", got)
	}
}

// An empty answer to the converter ("content": null, no tool calls). The
// native OpenAI provider's parse gives no parsed object for it, so it asks
// again without response_format (completion.py:1892-1927) and returns
// message.content or ""; Converter._coerce_response_to_pydantic("") fails
// model_validate_json, and handle_partial_json, finding no "{…}", calls
// convert_with_instructions with agent=None, which raises the TypeError
// that to_pydantic retries and then wraps (converter.py:51-116,
// 280-361). Without function calling the plain call returns "" the same
// way. Through instructor, parse_tools' assertion on the tool calls
// fails: no reask, the request is sent again (instructor core/retry.py
// retry_sync's generic branch), and to_json gives up with the raw answer
// kept.
func TestConverterEmptyAnswer(t *testing.T) {
	noAgent := "Failed to convert text into a Pydantic model due to error: Agent must be provided if converter_cls is not specified."
	plain := `{"messages":[{"role":"system","content":` + wireJSON(converterInstructions) + `},{"role":"user","content":` + wireJSON(converterAnswer) + `}],"model":"gpt-4o"}`
	parse := chatBody(converterInstructions, converterAnswer, "gpt-4o", "Forecast", forecastWire)
	instructor := `{"messages":[{"role":"user","content":` + wireJSON(converterAnswer) + `}],` + instructorTools
	attempt := []session.Kind{session.LLMCallStarted, session.LLMCallCompleted}
	for _, tc := range []struct {
		name     string
		pydantic bool
		fc       bool
		// bodies are the converter's requests, after the agent's.
		bodies []string
		err    string
		tail   []session.Kind
		tokens int
	}{
		{name: "to_pydantic: parse, then a plain request, 3 times", pydantic: true, fc: true,
			bodies: []string{parse, plain, parse, plain, parse, plain}, err: noAgent,
			tail: slices.Concat([]session.Kind{session.AgentExecutionCompleted}, attempt, attempt, attempt, []session.Kind{session.TaskFailed, session.CrewKickoffFailed}),
			// Both requests of an attempt are the agent's LLM's.
			tokens: 7 * 15},
		{name: "to_pydantic without function calling", pydantic: true,
			bodies: []string{plain, plain, plain}, err: noAgent,
			tail:   slices.Concat([]session.Kind{session.AgentExecutionCompleted}, attempt, attempt, attempt, []session.Kind{session.TaskFailed, session.CrewKickoffFailed}),
			tokens: 4 * 15},
		{name: "to_json through instructor", fc: true,
			bodies: slices.Repeat([]string{instructor}, 9),
			tail:   []session.Kind{session.AgentExecutionCompleted, session.TaskCompleted, session.CrewKickoffCompleted},
			tokens: 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replies := []string{converterAnswer}
			for range 9 {
				replies = append(replies, nullReply)
			}
			cs, _ := newChatServer(t, replies...)
			fc := tc.fc
			prov, err := llm.New(llm.Config{Model: "gpt-4o", BaseURL: cs.url, APIKey: "sk-test", FunctionCalling: &fc})
			if err != nil {
				t.Fatal(err)
			}
			r := kickoff(t, converterCrew(t, prov, tc.pydantic), nil, Options{})
			if got := fmt.Sprint(r.err); tc.err != "" && got != tc.err || tc.err == "" && r.err != nil {
				t.Fatalf("err %v, want %q", r.err, tc.err)
			}
			if n := len(cs.bodies) - 1; n != len(tc.bodies) {
				t.Fatalf("%d converter requests, want %d", n, len(tc.bodies))
			}
			for i, want := range tc.bodies {
				if got := cs.body(t, i+1); got != want {
					t.Errorf("converter request %d\n got %s\nwant %s", i+1, got, want)
				}
			}
			if got := taskTail(r); !slices.Equal(got, tc.tail) {
				t.Errorf("events\n got %v\nwant %v", got, tc.tail)
			}
			if got := r.out.TokenUsage.TotalTokens; got != tc.tokens {
				t.Errorf("tokens %d, want %d", got, tc.tokens)
			}
			if to := r.out.TasksOutput; tc.err == "" && (len(to) != 1 || to[0].Raw != converterAnswer || to[0].JSONDict != nil) {
				t.Errorf("task output %+v, want the raw answer only", to)
			}
		})
	}
}

// anthropicServer is a loopback Messages API: each reply is a text
// message, "content": [] for nullReply, or for "call NAME INPUT" one
// tool_use block (id toolu_N, N the request's number) with INPUT as its
// raw input; it keeps the request bodies.
func anthropicServer(t *testing.T, replies ...string) (*chatServer, llm.Provider) {
	t.Helper()
	cs := &chatServer{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply, sent := cs.take(r)
		defer sent()
		content := []any{map[string]any{"type": "text", "text": reply}}
		stop := "end_turn"
		if reply == nullReply {
			content = []any{}
		}
		if call, ok := strings.CutPrefix(reply, "call "); ok {
			name, input, _ := strings.Cut(call, " ")
			cs.mu.Lock()
			id := "toolu_" + strconv.Itoa(len(cs.bodies))
			cs.mu.Unlock()
			content = []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": json.RawMessage(input)}}
			stop = "tool_use"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5", "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
		})
	}))
	t.Cleanup(srv.Close)
	cs.url = srv.URL
	prov, err := llm.New(llm.Config{Model: "anthropic/claude-haiku-4-5", BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	return cs, prov
}

// Anthropic's "content": [] to the converter. to_pydantic gets "" from the
// provider (completion.py:1012-1090: no block, no text) and fails as the
// OpenAI empty reply does. Through instructor (ANTHROPIC_TOOLS mode)
// parse_anthropic_tools validates the tool_use inputs as a list of exactly
// one: an empty list is a ValidationError, so instructor reasks
// (reask_anthropic_tools): the reply's content, [], as an assistant
// message, then "Validation Error due to no tool invocation:" with the
// failed attempts, str() of each anthropic Message quoted.
func TestConverterEmptyAnthropicAnswer(t *testing.T) {
	t.Run("to_pydantic", func(t *testing.T) {
		cs, prov := anthropicServer(t, slices.Concat([]string{converterAnswer}, slices.Repeat([]string{nullReply}, 3))...)
		c := converterCrew(t, prov, true)
		c.Agents[0].Model = "anthropic/claude-haiku-4-5"
		r := kickoff(t, c, nil, Options{})
		if want := "Failed to convert text into a Pydantic model due to error: Agent must be provided if converter_cls is not specified."; fmt.Sprint(r.err) != want {
			t.Fatalf("err %v, want %s", r.err, want)
		}
		if n := len(cs.bodies); n != 4 {
			t.Errorf("%d requests, want the answer and 3 conversion attempts", n)
		}
	})
	t.Run("to_json", func(t *testing.T) {
		cs, prov := anthropicServer(t, slices.Concat([]string{converterAnswer}, slices.Repeat([]string{nullReply}, 9))...)
		c := converterCrew(t, prov, false)
		c.Agents[0].Model = "anthropic/claude-haiku-4-5"
		r := kickoff(t, c, nil, Options{})
		if r.err != nil {
			t.Fatal(r.err)
		}
		if n := len(cs.bodies); n != 10 {
			t.Fatalf("%d requests, want the answer and 3×3 instructor attempts", n)
		}
		verr := "1 validation error for list[any]\n  List should have at least 1 item after validation, not 0 [type=too_short, input_value=[], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.13/v/too_short"
		// str(Message) (anthropic 0.73.0 types/message.py, usage.py).
		completion := "Message(id='msg_1', content=[], model='claude-haiku-4-5', role='assistant', stop_reason='end_turn', stop_sequence=None, type='message', usage=Usage(cache_creation=None, cache_creation_input_tokens=None, cache_read_input_tokens=None, input_tokens=10, output_tokens=5, server_tool_use=None, service_tier=None))"
		generation := func(n int) string {
			return "\n<generation number=\"" + strconv.Itoa(n) + "\">\n<exception>\n    " + verr + "\n</exception>\n<completion>\n    " + completion + "\n</completion>\n</generation>\n"
		}
		reask := func(n int) string {
			var gens string
			for i := 1; i <= n; i++ {
				gens += generation(i)
			}
			return "Validation Error due to no tool invocation:\n<failed_attempts>\n" + gens + "\n</failed_attempts>\n\n<last_exception>\n    " + verr + "\n</last_exception>\nRecall the function correctly, fix the errors"
		}
		// The messages of each instructor request: role, then the texts of
		// the content (a string, or text blocks), an assistant reply
		// without blocks as none.
		type message struct {
			Role    string
			Content []string
		}
		messages := func(i int) []message {
			var req struct {
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				}
			}
			if err := json.Unmarshal([]byte(cs.body(t, i)), &req); err != nil {
				t.Fatal(err)
			}
			var out []message
			for _, m := range req.Messages {
				got := message{Role: m.Role, Content: []string{}}
				var text string
				var blocks []struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal(m.Content, &text); err == nil {
					got.Content = append(got.Content, text)
				} else if err := json.Unmarshal(m.Content, &blocks); err == nil {
					for _, b := range blocks {
						got.Content = append(got.Content, b.Text)
					}
				} else {
					t.Fatalf("request %d: content %s", i, m.Content)
				}
				out = append(out, got)
			}
			return out
		}
		user := func(text string) message { return message{Role: "user", Content: []string{text}} }
		empty := message{Role: "assistant", Content: []string{}}
		first := []message{user(converterAnswer)}
		for i, want := range [][]message{first, append(slices.Clone(first), empty, user(reask(1))), append(slices.Clone(first), empty, user(reask(1)), empty, user(reask(2)))} {
			if got := messages(1 + i); !reflect.DeepEqual(got, want) {
				t.Errorf("instructor request %d messages\n got %+v\nwant %+v", 1+i, got, want)
			}
		}
		// The converter's next attempt is a new instructor call, the same
		// bytes as the first.
		if cs.body(t, 4) != cs.body(t, 1) {
			t.Errorf("the converter's second attempt does not start afresh:\n%s\n%s", cs.body(t, 4), cs.body(t, 1))
		}
		if to := r.out.TasksOutput[0]; to.Raw != converterAnswer || to.JSONDict != nil {
			t.Errorf("task output %+v, want the raw answer only", to)
		}
	})
}
