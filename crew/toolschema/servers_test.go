package toolschema

import (
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"crewbench/crew/pyjson"
	"crewbench/names"
)

// serverTool is one tool of the npm reference servers (server-everything,
// server-filesystem 2026.8.31), as their tools/list returned it
// (testdata/npm_servers_tools.json).
type serverTool struct {
	server, name string
	input        *pyjson.Object
}

func loadServerTools(t testing.TB) []serverTool {
	t.Helper()
	raw, err := os.ReadFile("testdata/npm_servers_tools.json")
	if err != nil {
		t.Fatal(err)
	}
	root, err := pyjson.LoadsObject(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out []serverTool
	for _, server := range root.Keys() {
		list, _ := root.Get(server)
		for _, e := range list.([]any) {
			o := e.(*pyjson.Object)
			n, _ := o.Get("name")
			in, _ := o.Get("inputSchema")
			out = append(out, serverTool{server: server, name: n.(string), input: in.(*pyjson.Object)})
		}
	}
	return out
}

func (s serverTool) model() *Model {
	return FromJSONSchema(names.Sanitize(s.name)+"Schema", s.input, true)
}

// checkStrict asserts what OpenAI's strict mode demands of every object
// schema: additionalProperties false, every property required; and that no
// dropped keyword survived.
func checkStrict(t *testing.T, where string, v any, banned []string) {
	t.Helper()
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			checkStrict(t, where, e, banned)
		}
	case *pyjson.Object:
		for _, k := range banned {
			if x.Has(k) {
				t.Errorf("%s: %q survived in %s", where, k, pyjson.Dumps(x))
			}
		}
		if ty, _ := x.Get("type"); ty == "object" {
			if ap, _ := x.Get("additionalProperties"); ap != false {
				t.Errorf("%s: object without additionalProperties false: %s", where, pyjson.Dumps(x))
			}
			props, _ := x.Get("properties")
			po, _ := props.(*pyjson.Object)
			req, _ := x.Get("required")
			var reqs []string
			for _, r := range req.([]any) {
				reqs = append(reqs, r.(string))
			}
			if !slices.Equal(reqs, po.Keys()) {
				t.Errorf("%s: required %v, properties %v", where, reqs, po.Keys())
			}
			for _, k := range po.Keys() {
				pv, _ := po.Get(k)
				checkStrict(t, where+"."+k, pv, banned)
			}
		}
		for _, k := range []string{"items", "anyOf"} {
			if sub, ok := x.Get(k); ok {
				checkStrict(t, where, sub, banned)
			}
		}
	}
}

func TestReferenceServerSchemasRenderStrict(t *testing.T) {
	tools := loadServerTools(t)
	if len(tools) < 20 {
		t.Fatalf("only %d tools in testdata", len(tools))
	}
	for _, s := range tools {
		m := s.model()
		checkStrict(t, s.server+"/"+s.name, OpenAIParameters(m.Schema()), openAIDropped)
		checkStrict(t, s.server+"/"+s.name+" (anthropic)", AnthropicParameters(m.Schema()), append(slices.Clone(openAIDropped), anthropicDropped...))
		if react := ReActArguments(m.Schema()); strings.Contains(react, `"type": "null"`) {
			t.Errorf("%s: the ReAct form keeps a null alternative:\n%s", s.name, react)
		}
	}
}

// TestReferenceServerRenderings pins a few renderings: a property named
// "pattern" is not a constraint, a [] default disappears into an optional
// array, minItems is neither kept nor folded into the description, number
// limits are.
func TestReferenceServerRenderings(t *testing.T) {
	want := map[string]string{
		"search_files":        `{"additionalProperties":false,"properties":{"path":{"type":"string"},"pattern":{"type":"string"},"excludePatterns":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}]}},"required":["path","pattern","excludePatterns"],"type":"object"}`,
		"read_multiple_files": `{"additionalProperties":false,"properties":{"paths":{"description":"Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories.","items":{"type":"string"},"type":"array"}},"required":["paths"],"type":"object"}`,
		"get-resource-links":  `{"additionalProperties":false,"properties":{"count":{"anyOf":[{"maximum":10,"minimum":1,"type":"number"},{"type":"null"}],"description":"Number of resource links to return (1-10). Minimum: 1. Maximum: 10"}},"type":"object","required":["count"]}`,
	}
	seen := 0
	for _, s := range loadServerTools(t) {
		w, ok := want[s.name]
		if !ok {
			continue
		}
		seen++
		if got := pyjson.DumpsStyle(OpenAIParameters(s.model().Schema()), pyjson.Wire); got != w {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of %d tools", seen, len(want))
	}
}

// conforms is a small JSON Schema check of v against a rendered schema
// (the keywords the renderer emits).
func conforms(schema *pyjson.Object, v any) bool {
	if alts, ok := schema.Get("anyOf"); ok {
		for _, a := range alts.([]any) {
			if conforms(a.(*pyjson.Object), v) {
				return true
			}
		}
		return false
	}
	if e, ok := schema.Get("enum"); ok && !slices.ContainsFunc(e.([]any), func(l any) bool { return literalEqual(l, v) }) {
		return false
	}
	if c, ok := schema.Get("const"); ok && !literalEqual(c, v) {
		return false
	}
	ty, _ := schema.Get("type")
	switch ty {
	case "null":
		return v == nil
	case "string":
		s, ok := v.(string)
		if p, has := schema.Get("pattern"); ok && has {
			if re, err := regexp.Compile(p.(string)); err == nil && !re.MatchString(s) {
				return false
			}
		}
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer", "number":
		n, ok := v.(pyjson.Number)
		if !ok || (ty == "integer" && !n.IsInt()) {
			return false
		}
		f, _ := n.Float64()
		for k, cmp := range map[string]func(a, b float64) bool{
			"minimum": func(a, b float64) bool { return a >= b }, "maximum": func(a, b float64) bool { return a <= b },
			"exclusiveMinimum": func(a, b float64) bool { return a > b }, "exclusiveMaximum": func(a, b float64) bool { return a < b },
		} {
			if l, has := schema.Get(k); has {
				if lf, _ := l.(pyjson.Number).Float64(); !cmp(f, lf) {
					return false
				}
			}
		}
		return !math.IsNaN(f)
	case "array":
		list, ok := v.([]any)
		if !ok {
			return false
		}
		items, _ := schema.Get("items")
		io, _ := items.(*pyjson.Object)
		for _, e := range list {
			if io != nil && !conforms(io, e) {
				return false
			}
		}
		return true
	case "object":
		o, ok := v.(*pyjson.Object)
		if !ok {
			return false
		}
		props, _ := schema.Get("properties")
		po, _ := props.(*pyjson.Object)
		if ap, _ := schema.Get("additionalProperties"); ap == false {
			for _, k := range o.Keys() {
				if !po.Has(k) {
					return false
				}
			}
		}
		if req, ok := schema.Get("required"); ok {
			for _, r := range req.([]any) {
				if !o.Has(r.(string)) {
					return false
				}
			}
		}
		for _, k := range o.Keys() {
			if ps, ok := mustObject(po, k); ok {
				val, _ := o.Get(k)
				if !conforms(ps, val) {
					return false
				}
			}
		}
		return true
	}
	return true
}

// FuzzValidate: on any arguments and any of the fixture and reference
// server schemas, Validate never panics, and what it accepts is a complete
// argument object that conforms to the rendered OpenAI schema and
// validates again.
func FuzzValidate(f *testing.F) {
	var models []*Model
	for _, s := range loadServerTools(f) {
		models = append(models, s.model())
	}
	raw, err := os.ReadFile("testdata/fixture_tools.json")
	if err != nil {
		f.Fatal(err)
	}
	fixtures, _ := pyjson.Loads(string(raw))
	for _, e := range fixtures.([]any) {
		o := e.(*pyjson.Object)
		n, _ := o.Get("mcp_name")
		in, _ := o.Get("input_schema")
		models = append(models, FromJSONSchema(names.Sanitize(n.(string))+"Schema", in.(*pyjson.Object), true))
	}
	for _, seed := range []string{`{}`, `{"city": "Berlin", "days": "2"}`, `{"path": "a", "edits": [{"oldText": "x", "newText": "y"}]}`,
		`{"a": 1, "b": "2.5"}`, `{"count": 11}`, `{"paths": ["a", 1]}`, `{"sku": "SKU-1234", "quantity": -1}`, `{"dryRun": "yes", "edits": null}`} {
		for i := range models {
			f.Add(i, seed)
		}
	}
	f.Fuzz(func(t *testing.T, i int, args string) {
		if i < 0 {
			i = -i
		}
		m := models[i%len(models)]
		in, err := pyjson.LoadsObject(args)
		if err != nil {
			return
		}
		out, verr := m.Validate(in)
		if verr != nil {
			if len(verr.Errors) == 0 || verr.Error() == "" {
				t.Fatalf("empty validation error for %s", args)
			}
			_ = m.ValidationText("tool", verr)
			return
		}
		if !conforms(OpenAIParameters(m.Schema()), out) {
			t.Fatalf("%s: %s validated to %s, which the rendered schema %s refuses", m.Name, args, pyjson.Dumps(out), pyjson.Dumps(OpenAIParameters(m.Schema())))
		}
		// Not byte-equal: Pydantic does not validate defaults, so an int
		// default of a number field is dumped as an int and comes back a
		// float.
		again, verr := m.Validate(out)
		if verr != nil || !slices.Equal(again.Keys(), out.Keys()) {
			t.Fatalf("%s: %s validated to %s, which does not validate again (%v)", m.Name, args, pyjson.Dumps(out), verr)
		}
	})
}
