package project

import (
	"testing"

	"crewbench/crew/pyjson"
)

// A classic project's own BaseTool subclasses are read literally: name,
// description, result_as_answer, max_usage_count, and the args_schema model
// rendered as Pydantic's model_json_schema().
func TestClassicToolClassAttributes(t *testing.T) {
	p := open(t, "testdata/classic/toolclass")
	r := p.Agent("researcher")
	if r == nil || len(r.Tools) != 2 {
		t.Fatalf("researcher tools: %+v", r)
	}
	custom, lookup := r.Tools[0].PyClass, r.Tools[1].PyClass
	if custom == nil || lookup == nil {
		t.Fatalf("classes not read: %+v %+v", r.Tools[0], r.Tools[1])
	}
	eq(t, "name", custom.Name, "Name of my tool")
	eq(t, "description", custom.Description, "Clear description for what this tool is useful for, your agent will need this information to use it.")
	eq(t, "custom schema", pyjson.Dumps(custom.ArgsSchema),
		`{"description": "Input schema for MyCustomTool.", "properties": {"argument": {"description": "Description of the argument.", "title": "Argument", "type": "string"}}, "required": ["argument"], "title": "MyCustomToolInput", "type": "object"}`)
	eq(t, "attributes", [3]any{lookup.Name, lookup.ResultAsAnswer, lookup.MaxUsageCount}, [3]any{"Lookup Things", true, 2})
	eq(t, "lookup schema", pyjson.Dumps(lookup.ArgsSchema),
		`{"description": "What to look up.\n\n  Indented detail.", "properties": {"search_query": {"description": "The query.", "title": "Search Query", "type": "string"}, "max_results": {"default": 3, "title": "Max Results", "type": "integer"}, "region": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "A region code.", "title": "Region"}, "tags": {"default": [], "description": "Tags.", "items": {"type": "string"}, "title": "Tags", "type": "array"}}, "required": ["search_query"], "title": "LookupInput", "type": "object"}`)
}

// A JSON-first "custom:<name>" tool is the first BaseTool subclass of
// tools/<name>.py in dir(module) order (project/json_loader.py:2040-2050),
// read like a classic project's tool class.
func TestCustomToolClassAttributes(t *testing.T) {
	p := open(t, "testdata/json/customtool")
	a := p.Agent("forecaster")
	if a == nil || len(a.Tools) != 1 || a.Tools[0].PyClass == nil {
		t.Fatalf("forecaster tools: %+v", a)
	}
	c := a.Tools[0].PyClass
	eq(t, "attributes", [4]any{c.Name, c.Description, c.ResultAsAnswer, c.MaxUsageCount}, [4]any{"forecast_lookup", "Look up the forecast for a city.", true, 2})
	eq(t, "schema", pyjson.Dumps(c.ArgsSchema),
		`{"properties": {"city": {"description": "City name.", "title": "City", "type": "string"}, "days": {"default": 2, "description": "Number of days.", "title": "Days", "type": "integer"}}, "required": ["city"], "title": "ForecastInputs", "type": "object"}`)
}

func TestClassBases(t *testing.T) {
	m := (&loader{}).parsePy([]byte("class A(crewai.tools.BaseTool, Generic[T], metaclass=Meta):\n    pass\nclass B:\n    pass\n"), "x.py")
	eq(t, "A", m.classes[0].bases, []string{"BaseTool", "Generic"})
	eq(t, "B", len(m.classes[1].bases), 0)
}
