package toolschema

import (
	"testing"

	"crewbench/crew/pyjson"
)

// TestAnthropicParametersMatchCrewAI: the input_schema CrewAI 1.15.17's
// AnthropicCompletion sends for a strict tool
// (anthropic/completion.py:550-595): convert_tools_to_openai_schema's
// parameters (agent_utils.py:263-270) through
// sanitize_tool_params_for_anthropic_strict (pydantic_schema_utils.py:
// 636-643). The wanted bytes were produced by running those CrewAI
// functions (create_model_from_schema with enrich_descriptions,
// generate_model_description(strip_null_types=False), the sanitizer) under
// Pydantic 2.13 on the same inputs. An optional argument with a default
// (get_forecast's days) is required and nullable, its default and bounds
// gone, the bounds kept in the description.
func TestAnthropicParametersMatchCrewAI(t *testing.T) {
	var forecast *pyjson.Object
	for _, g := range loadGoldenTools(t) {
		if g.MCPName == "getForecast" {
			forecast = g.Input
		}
	}
	if forecast == nil {
		t.Fatal("testdata has no getForecast")
	}
	mustLoad := func(s string) *pyjson.Object {
		o, err := pyjson.LoadsObject(s)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, c := range []struct {
		name   string
		schema *pyjson.Object // the Pydantic model's schema, or a tool's own
		want   string
	}{
		{"weather fixture get_forecast (MCP)", FromJSONSchema("get_forecastSchema", forecast, true).Schema(), `{"additionalProperties":false,"properties":{"city":{"description":"City name.. Examples: 'Berlin', 'Lisbon'","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"description":"Number of days, 1 to 7.. Minimum: 1. Maximum: 7"},"units":{"anyOf":[{"enum":["metric","imperial"],"type":"string"},{"type":"null"}],"description":"Temperature units.. Allowed values: ['metric', 'imperial']"}},"required":["city","days","units"],"type":"object"}`},
		// Nested objects (a required one loses its description: resolve_refs
		// replaces the whole $ref node), arrays of objects, enums, formats,
		// optional fields, every constraint Claude rejects.
		{"nested MCP schema", FromJSONSchema("book_tripSchema", mustLoad(`{"type":"object","properties":{"traveller":{"type":"object","description":"Who travels.","properties":{"name":{"type":"string","minLength":1,"maxLength":80,"pattern":"^[A-Za-z ]+$"},"email":{"type":"string","format":"uuid"},"age":{"type":"integer","minimum":0,"exclusiveMaximum":130}},"required":["name"]},"legs":{"type":"array","minItems":1,"maxItems":5,"uniqueItems":true,"items":{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"},"date":{"type":"string","format":"date"},"class":{"type":"string","enum":["economy","business"],"default":"economy"}},"required":["from","to"]}},"budget":{"type":"number","multipleOf":0.5,"description":"Max spend."},"tags":{"type":"array","items":{"type":"string"},"default":[]},"notes":{"type":"string","examples":["window seat"]},"prefs":{"type":"object","minProperties":1,"additionalProperties":{"type":"string"}},"website":{"type":"string","format":"uri"}},"required":["traveller","legs"]}`), true).Schema(), `{"additionalProperties":false,"properties":{"traveller":{"additionalProperties":false,"properties":{"name":{"description":"Pattern: ^[A-Za-z ]+$. Min length: 1. Max length: 80","type":"string"},"email":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Format: uuid"},"age":{"anyOf":[{"type":"integer"},{"type":"null"}],"description":"Minimum: 0"}},"required":["name","email","age"],"type":"object"},"legs":{"items":{"additionalProperties":false,"properties":{"from":{"type":"string"},"to":{"type":"string"},"date":{"anyOf":[{"format":"date","type":"string"},{"type":"null"}],"description":"Format: date"},"class":{"anyOf":[{"enum":["economy","business"],"type":"string"},{"type":"null"}],"description":"Allowed values: ['economy', 'business']"}},"required":["from","to","date","class"],"type":"object"},"type":"array"},"budget":{"anyOf":[{"type":"number"},{"type":"null"}],"description":"Max spend."},"tags":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}]},"notes":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Examples: 'window seat'"},"prefs":{"anyOf":[{"additionalProperties":false,"type":"object","properties":{},"required":[]},{"type":"null"}]},"website":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Format: uri"}},"required":["traveller","legs","budget","tags","notes","prefs","website"],"type":"object"}`},
		// A tool's own model schema: a top-level anyOf with one object
		// variant is lifted to the root (lift_top_level_anyof); property
		// names "title" and "pattern" survive the key stripping, which
		// reaches minProperties, propertyNames, dependentRequired,
		// min/maxContains and example anywhere below.
		{"top-level union and nested constraints", mustLoad(`{"anyOf":[{"type":"object","description":"The query.","properties":{"title":{"type":"string","minLength":1,"title":"Title"},"pattern":{"type":"string","pattern":"^a","title":"Pattern"},"filters":{"type":"object","minProperties":1,"maxProperties":4,"propertyNames":{"pattern":"^[a-z]+$"},"dependentRequired":{"a":["b"]},"properties":{"a":{"type":"integer","minimum":1,"example":2},"b":{"type":"array","items":{"type":"string"},"minContains":1,"maxContains":2,"contains":{"type":"string","const":"x"}}},"required":["a"],"title":"Filters"},"mode":{"enum":["fast","slow"],"type":"string","default":"fast","title":"Mode"}},"required":["title"]},{"type":"null"}],"title":"Query"}`), `{"type":"object","description":"The query.","properties":{"title":{"type":"string"},"pattern":{"type":"string"},"filters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"string"},"contains":{"type":"string","const":"x"}}},"required":["a","b"],"additionalProperties":false},"mode":{"enum":["fast","slow"],"type":"string"}},"required":["title","pattern","filters","mode"],"additionalProperties":false}`},
	} {
		if got := pyjson.DumpsStyle(AnthropicParameters(c.schema), pyjson.Wire); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
