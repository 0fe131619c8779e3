// Package toolschema renders tool argument schemas the way CrewAI 1.15.17
// does, and validates arguments against them the way Pydantic does.
//
// CrewAI never sends an MCP server's inputSchema as it is. It builds a
// Pydantic model from it and sends that model's JSON schema, cleaned for the
// provider. The steps, each mirroring one CrewAI (or Pydantic) function:
//
//  1. [FromJSONSchema] is create_model_from_schema(schema,
//     enrich_descriptions=True) (utilities/pydantic_schema_utils.py, called
//     from mcp/tool_resolver.py:638-647) followed by model_json_schema():
//     every property becomes a field (type, constraints, enum → Literal,
//     nested objects → nested models, extra keys forbidden), optional fields
//     become Optional[T] = default (anyOf [T, {"type": "null"}]), titles
//     are generated from the field names, descriptions are enriched with
//     the pattern, limits, allowed values and examples, and every schema
//     object's keys are sorted as Pydantic's GenerateJsonSchema sorts them
//     (the children of "properties" keep their order).
//  2. [StrictSchema] is generate_model_description's strict pass
//     (pydantic_schema_utils.py:515-623): $refs inlined, oneOf → anyOf,
//     unsupported formats dropped, every property required,
//     additionalProperties false; null alternatives stripped for the ReAct
//     text form ([ReActArguments], format_description_for_llm).
//  3. [OpenAIParameters] is the OpenAI provider's tool conversion
//     (llms/providers/openai/completion.py:1871-1877): step 2 without null
//     stripping, minus title, default, examples, $comment, readOnly,
//     writeOnly and deprecated; sent with "strict": true.
//     [AnthropicParameters] is anthropic/completion.py:577-594: also drops
//     minimum, maximum, exclusive limits, pattern and length limits.
//  4. [Model.Validate] is BaseTool's argument validation
//     (tools/base_tool.py:290-300, 326-338): Pydantic lax mode on the model
//     of step 1, with Pydantic's error text and CrewAI's
//     "Expected arguments: …" suffix ([Model.ValidationText]).
//
// Schemas of Python tools (delegation tools, stand-ins with an args_schema)
// are already model_json_schema() output and enter at step 2.
package toolschema

import (
	"regexp"
	"slices"
	"strings"

	"crewbench/crew/pyjson"
)

// Model is the Pydantic model CrewAI builds from a JSON schema.
type Model struct {
	// Name is the model's class name (the title of its JSON schema and the
	// name in validation errors): "{tool}Schema" for MCP tools.
	Name   string
	Fields []Field
	// ExtraIgnored drops unknown keys, as a Pydantic class with the
	// default config does (CrewAI's own response models); otherwise they
	// are errors, as in the models CrewAI builds from MCP schemas.
	ExtraIgnored bool
	// required is the schema's own required list, in its order (the
	// "Required:" line of the validation text).
	required []string
	schema   *pyjson.Object
}

// Field is one model field.
type Field struct {
	Name     string
	Type     *Type
	Required bool
	// Default is the field's default (nil, Python None, when the schema
	// gives none); only for optional fields.
	Default any
}

// Kind is the Python type a schema maps to.
type Kind int

// Kinds.
const (
	KindAny Kind = iota
	KindString
	KindInt
	KindFloat
	KindBool
	KindNull
	KindList
	KindDict
	KindModel
	KindLiteral
	KindUnion
)

// Type is a field's annotation with its constraints.
type Type struct {
	Kind Kind
	// Nullable wraps the type in Optional (None accepted).
	Nullable bool
	// String constraints.
	Pattern    string
	pattern    *regexp.Regexp
	MinLength  *int
	MaxLength  *int
	Format     string
	Minimum    pyjson.Number
	Maximum    pyjson.Number
	ExclMin    pyjson.Number
	ExclMax    pyjson.Number
	MultipleOf pyjson.Number
	// Items is a list's element type.
	Items *Type
	// Model is a nested object's model.
	Model *Model
	// Literals are the allowed values of a Literal (enum or const).
	Literals []any
	// Members are a union's alternatives.
	Members []*Type
	// mapped is the JSON schema of the Pydantic type a format maps to
	// (formatSchemas); it replaces the string's own.
	mapped *pyjson.Object
}

// maxDepth bounds $ref resolution and nesting, so a recursive or absurdly
// deep schema cannot loop or exhaust the stack.
const maxDepth = 32

// FromJSONSchema builds the model create_model_from_schema builds from a
// JSON schema: an MCP tool's inputSchema (enrich true, as the MCP resolver
// asks for) or an output_json schema (enrich false). A nil schema gives a
// model with no fields.
func FromJSONSchema(name string, schema *pyjson.Object, enrich bool) *Model {
	b := &builder{defs: pyjson.NewObject(), enrich: enrich}
	if schema == nil {
		schema = pyjson.NewObject()
	}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := schema.Get(k); ok {
			if do, ok := d.(*pyjson.Object); ok {
				for _, n := range do.Keys() {
					v, _ := do.Get(n)
					b.defs.Set(n, v)
				}
			}
		}
	}
	return b.model(name, schema, 0)
}

type builder struct {
	defs   *pyjson.Object
	enrich bool
}

func (b *builder) model(name string, schema *pyjson.Object, depth int) *Model {
	m := &Model{Name: name}
	req := map[string]bool{}
	if r, ok := schema.Get("required"); ok {
		if list, ok := r.([]any); ok {
			for _, e := range list {
				if s, ok := e.(string); ok && !req[s] {
					req[s] = true
					m.required = append(m.required, s)
				}
			}
		}
	}
	props, _ := schema.Get("properties")
	po, _ := props.(*pyjson.Object)
	for _, k := range po.Keys() {
		pv, _ := po.Get(k)
		ps, _ := pv.(*pyjson.Object)
		ps = b.deref(ps, depth)
		f := Field{Name: k, Required: req[k], Type: b.typeOf(k, ps, depth+1)}
		if ft := formatType(ps, f.Type); ft != nil {
			f.Type = ft
		}
		if !f.Required {
			f.Type.Nullable = true
			if d, ok := ps.Get("default"); ok {
				f.Default = pyjson.Clone(d)
			}
		}
		m.Fields = append(m.Fields, f)
	}
	// Required names that are not properties are not fields: Pydantic never
	// sees them.
	m.required = slices.DeleteFunc(m.required, func(r string) bool { return !po.Has(r) })
	m.schema = b.modelSchema(m, po, depth)
	return m
}

// deref replaces a $ref by its target, the other keys of the referring
// object winning.
func (b *builder) deref(o *pyjson.Object, depth int) *pyjson.Object {
	for range maxDepth {
		if o == nil {
			return pyjson.NewObject()
		}
		ref, ok := o.Get("$ref")
		if !ok || depth > maxDepth {
			return o
		}
		r, _ := ref.(string)
		var target *pyjson.Object
		for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
			if n, ok := strings.CutPrefix(r, prefix); ok {
				if d, ok := b.defs.Get(n); ok {
					target, _ = d.(*pyjson.Object)
				}
			}
		}
		if target == nil {
			out := o.Clone()
			out.Delete("$ref")
			return out
		}
		merged := target.Clone()
		for _, k := range o.Keys() {
			if k != "$ref" {
				v, _ := o.Get(k)
				merged.Set(k, v)
			}
		}
		o = merged
	}
	return o
}

// typeOf maps one property schema to its Python type.
func (b *builder) typeOf(name string, s *pyjson.Object, depth int) *Type {
	s = b.deref(s, depth)
	if depth > maxDepth {
		return &Type{Kind: KindAny}
	}
	if e, ok := s.Get("enum"); ok {
		if list, ok := e.([]any); ok && len(list) > 0 {
			return &Type{Kind: KindLiteral, Literals: list}
		}
	}
	if c, ok := s.Get("const"); ok {
		return &Type{Kind: KindLiteral, Literals: []any{c}}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s.Get(k); ok {
			if list, ok := alts.([]any); ok && len(list) > 0 {
				return b.union(name, list, depth)
			}
		}
	}
	switch t, _ := s.Get("type"); tt := t.(type) {
	case string:
		return b.scalar(name, tt, s, depth)
	case []any:
		var alts []any
		for _, e := range tt {
			if es, ok := e.(string); ok {
				c := s.Clone()
				c.Set("type", es)
				alts = append(alts, c)
			}
		}
		if len(alts) > 0 {
			return b.union(name, alts, depth)
		}
	}
	if s.Has("properties") {
		return b.scalar(name, "object", s, depth)
	}
	return &Type{Kind: KindAny}
}

// union is Union[...] of the alternatives; a null alternative makes the
// result Optional instead.
func (b *builder) union(name string, alts []any, depth int) *Type {
	u := &Type{Kind: KindUnion}
	for _, a := range alts {
		ao, _ := a.(*pyjson.Object)
		m := b.typeOf(name, ao, depth+1)
		if m.Kind == KindNull {
			u.Nullable = true
			continue
		}
		u.Members = append(u.Members, m)
	}
	switch len(u.Members) {
	case 0:
		return &Type{Kind: KindNull}
	case 1:
		m := u.Members[0]
		m.Nullable = m.Nullable || u.Nullable
		return m
	}
	return u
}

func (b *builder) scalar(name, typ string, s *pyjson.Object, depth int) *Type {
	num := func(k string) pyjson.Number {
		v, _ := s.Get(k)
		n, _ := v.(pyjson.Number)
		return n
	}
	intp := func(k string) *int {
		n := num(k)
		if n == "" || !n.IsInt() {
			return nil
		}
		f, err := n.Float64()
		if err != nil || f < 0 || f > 1<<31 {
			return nil
		}
		i := int(f)
		return &i
	}
	switch typ {
	case "string":
		t := &Type{Kind: KindString, MinLength: intp("minLength"), MaxLength: intp("maxLength")}
		if p, ok := s.Get("pattern"); ok {
			if ps, ok := p.(string); ok {
				t.Pattern = ps
				// A pattern Go cannot compile is kept in the schema and not
				// checked.
				t.pattern, _ = regexp.Compile(ps)
			}
		}
		if f, ok := s.Get("format"); ok {
			t.Format, _ = f.(string)
		}
		return t
	case "integer", "number":
		k := KindInt
		if typ == "number" {
			k = KindFloat
		}
		return &Type{Kind: k, Minimum: num("minimum"), Maximum: num("maximum"),
			ExclMin: num("exclusiveMinimum"), ExclMax: num("exclusiveMaximum"), MultipleOf: num("multipleOf")}
	case "boolean":
		return &Type{Kind: KindBool}
	case "null":
		return &Type{Kind: KindNull}
	case "array":
		items, _ := s.Get("items")
		io, _ := items.(*pyjson.Object)
		if io == nil {
			return &Type{Kind: KindList, Items: &Type{Kind: KindAny}}
		}
		return &Type{Kind: KindList, Items: b.typeOf(name, io, depth+1)}
	case "object":
		props, _ := s.Get("properties")
		if po, ok := props.(*pyjson.Object); ok && po.Len() > 0 {
			title, _ := s.Get("title")
			mn, _ := title.(string)
			if mn == "" {
				mn = pascal(name)
			}
			return &Type{Kind: KindModel, Model: b.model(mn, s, depth+1)}
		}
		return &Type{Kind: KindDict}
	}
	return &Type{Kind: KindAny}
}

// pascal names a nested model after its field: "edit_items" → "EditItems".
func pascal(name string) string {
	var out strings.Builder
	for part := range strings.FieldsFuncSeq(name, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		out.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return out.String()
}

// Title is Pydantic's default field title: name.title() with underscores
// as spaces ("dryRun" → "Dryrun", "max_items" → "Max Items").
func Title(name string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range name {
		lower, upper := strings.ToLower(string(r)), strings.ToUpper(string(r))
		cased := lower != upper
		switch {
		case cased && !prevCased:
			b.WriteString(upper)
		case cased:
			b.WriteString(lower)
		default:
			b.WriteRune(r)
		}
		prevCased = cased
	}
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "_", " "))
}

// Required is the schema's required list as the model keeps it.
func (m *Model) Required() []string { return append([]string(nil), m.required...) }

// Schema is model_json_schema(): titles, defaults, examples, enriched
// descriptions, sorted keys. Callers get a copy.
func (m *Model) Schema() *pyjson.Object { return m.schema.Clone() }
