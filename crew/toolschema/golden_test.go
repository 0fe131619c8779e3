package toolschema

import (
	"os"
	"testing"

	"crewbench/crew/pyjson"
	"crewbench/names"
)

// goldenTool is one tool of the fixture servers with the parameters real
// CrewAI 1.15.17 sent for it (captured from the goldens' request bytes).
type goldenTool struct {
	LLMName, MCPName, Want string
	Input                  *pyjson.Object
}

func loadGoldenTools(t *testing.T) []goldenTool {
	t.Helper()
	raw, err := os.ReadFile("testdata/fixture_tools.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := pyjson.Loads(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenTool
	for _, e := range v.([]any) {
		o := e.(*pyjson.Object)
		get := func(k string) any { x, _ := o.Get(k); return x }
		out = append(out, goldenTool{LLMName: get("llm_name").(string), MCPName: get("mcp_name").(string),
			Want: get("openai_parameters").(string), Input: get("input_schema").(*pyjson.Object)})
	}
	return out
}

// modelName is the model CrewAI's MCP resolver names after the tool.
func modelName(mcpName string) string { return names.Sanitize(mcpName) + "Schema" }

func TestOpenAIParametersMatchCrewAIBytes(t *testing.T) {
	for _, g := range loadGoldenTools(t) {
		m := FromJSONSchema(modelName(g.MCPName), g.Input, true)
		got := pyjson.DumpsStyle(OpenAIParameters(m.Schema()), pyjson.Wire)
		if got != g.Want {
			t.Errorf("%s:\n got %s\nwant %s", g.LLMName, got, g.Want)
		}
	}
}

func weatherModel(t *testing.T) *Model {
	t.Helper()
	for _, g := range loadGoldenTools(t) {
		if g.MCPName == "getForecast" {
			return FromJSONSchema(modelName(g.MCPName), g.Input, true)
		}
	}
	t.Fatal("no getForecast in testdata")
	return nil
}

// TestReActArgumentsMatchCrewAI: the "Tool Arguments:" block of the golden
// react_fallback request.
func TestReActArgumentsMatchCrewAI(t *testing.T) {
	want := `{
  "additionalProperties": false,
  "properties": {
    "city": {
      "description": "City name.. Examples: 'Berlin', 'Lisbon'",
      "examples": [
        "Berlin",
        "Lisbon"
      ],
      "title": "City",
      "type": "string"
    },
    "days": {
      "default": 3,
      "description": "Number of days, 1 to 7.. Minimum: 1. Maximum: 7",
      "title": "Days",
      "maximum": 7,
      "minimum": 1,
      "type": "integer"
    },
    "units": {
      "default": "metric",
      "description": "Temperature units.. Allowed values: ['metric', 'imperial']",
      "title": "Units",
      "enum": [
        "metric",
        "imperial"
      ],
      "type": "string"
    }
  },
  "required": [
    "city",
    "days",
    "units"
  ],
  "title": "get_forecastSchema",
  "type": "object"
}`
	if got := ReActArguments(weatherModel(t).Schema()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestValidationTextMatchesCrewAI: the tool results of the golden
// args_validation crew.
func TestValidationTextMatchesCrewAI(t *testing.T) {
	m := weatherModel(t)
	expected := "\nExpected arguments: {\"city\": {\"description\": \"City name.. Examples: 'Berlin', 'Lisbon'\", \"examples\": [\"Berlin\", \"Lisbon\"], \"title\": \"City\", \"type\": \"string\"}, \"days\": {\"anyOf\": [{\"maximum\": 7, \"minimum\": 1, \"type\": \"integer\"}, {\"type\": \"null\"}], \"default\": 3, \"description\": \"Number of days, 1 to 7.. Minimum: 1. Maximum: 7\", \"title\": \"Days\"}, \"units\": {\"anyOf\": [{\"enum\": [\"metric\", \"imperial\"], \"type\": \"string\"}, {\"type\": \"null\"}], \"default\": \"metric\", \"description\": \"Temperature units.. Allowed values: ['metric', 'imperial']\", \"title\": \"Units\"}}\nRequired: [\"city\"]"
	prefix := "Tool 'crewbench_fixture_weather_get_forecast' arguments validation failed: "
	cases := []struct{ args, want string }{
		{`{"city": "Berlin", "days": "2", "extra_flag": true}`, "1 validation error for get_forecastSchema\nextra_flag\n  Extra inputs are not permitted [type=extra_forbidden, input_value=True, input_type=bool]\n    For further information visit https://errors.pydantic.dev/2.13/v/extra_forbidden"},
		{`{"days": 2}`, "1 validation error for get_forecastSchema\ncity\n  Field required [type=missing, input_value={'days': 2}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing"},
		{`{"city": 123, "days": 9, "units": "kelvin"}`, "3 validation errors for get_forecastSchema\ncity\n  Input should be a valid string [type=string_type, input_value=123, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type\ndays\n  Input should be less than or equal to 7 [type=less_than_equal, input_value=9, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.13/v/less_than_equal\nunits\n  Input should be 'metric' or 'imperial' [type=literal_error, input_value='kelvin', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.13/v/literal_error"},
	}
	for _, c := range cases {
		args, _ := pyjson.LoadsObject(c.args)
		_, err := m.Validate(args)
		if err == nil {
			t.Errorf("%s: validated", c.args)
			continue
		}
		if got := m.ValidationText("crewbench_fixture_weather_get_forecast", err); got != prefix+c.want+expected {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, prefix+c.want+expected)
		}
	}
}

// TestValidateCoercesAndFillsDefaults: "2" becomes 2, missing optional
// arguments get their defaults and explicit nulls stay None (the MCP client
// drops them).
func TestValidateCoercesAndFillsDefaults(t *testing.T) {
	m := weatherModel(t)
	for in, want := range map[string]string{
		`{"city": "Berlin", "days": "2"}`:                    `{"city": "Berlin", "days": 2, "units": "metric"}`,
		`{"city": "Oslo", "days": null, "units": null}`:      `{"city": "Oslo", "days": null, "units": null}`,
		`{"city": "Oslo", "days": 2.0, "units": "imperial"}`: `{"city": "Oslo", "days": 2, "units": "imperial"}`,
	} {
		args, _ := pyjson.LoadsObject(in)
		out, err := m.Validate(args)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := pyjson.Dumps(out); got != want {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
}
