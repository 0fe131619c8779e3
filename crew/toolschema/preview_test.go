package toolschema

import (
	"strings"
	"testing"

	"crewbench/crew/pyjson"
)

// TestArgumentChanges: each change validation makes on the way to the
// server is named once, in the model's order, with Python reprs.
func TestArgumentChanges(t *testing.T) {
	schema, _ := pyjson.LoadsObject(`{"type":"object","properties":{
	  "city":{"type":"string"},
	  "days":{"type":"integer","default":1},
	  "units":{"type":"string","enum":["metric","imperial"],"default":"metric"},
	  "ratio":{"type":"number"},
	  "note":{"type":"string"},
	  "where":{"type":"object","properties":{"lat":{"type":"number"},"zoom":{"type":"integer","default":3}},"required":["lat"]}},
	  "required":["city"]}`)
	m := MCPToolModel("getForecast", schema)
	cases := []struct {
		args string
		want []string
	}{
		{`{"city":"Oslo","days":1,"units":"metric"}`, nil},
		{`{"city":"Oslo","days":"2"}`, []string{"days: '2' → 2", "units: default 'metric'"}},
		{`{"city":"Oslo","note":null,"ratio":2}`, []string{"days: default 1", "units: default 'metric'", "ratio: 2 → 2.0", "note: None dropped"}},
		{`{"where":{"lat":"1.5"},"city":"Oslo","days":3,"units":"imperial"}`, []string{"where.lat: '1.5' → 1.5", "where.zoom: default 3"}},
	}
	for _, c := range cases {
		in, err := pyjson.LoadsObject(c.args)
		if err != nil {
			t.Fatal(err)
		}
		sent, err := m.MCPArguments("w_get_forecast", in)
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		if got := ArgumentChanges(in, sent); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}
