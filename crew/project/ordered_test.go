package project

import (
	"testing"

	"crewbench/crew/pyjson"
)

// An inline output schema keeps its key order: it is the order of the
// model's fields, and so of the schema CrewAI sends.
func TestInlineSchemaKeepsKeyOrder(t *testing.T) {
	n, err := ParseJSONC([]byte(`{"output_json": {"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer", "minimum": 1.5}}, "required": ["zeta"]}}`), "crew.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	s := decodeSchema(n.Get("output_json"))
	if s == nil || s.Ordered == nil {
		t.Fatalf("schema %+v", s)
	}
	want := `{"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer", "minimum": 1.5}}, "required": ["zeta"]}`
	if got := pyjson.Dumps(s.Ordered); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
