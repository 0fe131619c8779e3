package toolschema

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"crewbench/crew/pyjson"
	"crewbench/names"
)

// PydanticVersion is the minor version in Pydantic's error links. The
// goldens were recorded with 2.13 (CrewAI's lock file has 2.12.5; the
// recording environment resolved 2.13.4).
const PydanticVersion = "2.13"

// LineError is one Pydantic validation error.
type LineError struct {
	// Loc is the path to the value ("edits.0.oldText").
	Loc []string
	// Type is Pydantic's error type ("missing", "int_parsing", …).
	Type string
	Msg  string
	// Input is the offending value (the whole object for "missing").
	Input any
}

// ValidationError is Pydantic's ValidationError for one model.
type ValidationError struct {
	Model  string
	Errors []LineError
}

// Error is str(ValidationError): "N validation error(s) for Model" and, per
// error, the location, the message with its type and input, and the
// documentation link.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(e.Errors)))
	if len(e.Errors) == 1 {
		b.WriteString(" validation error for ")
	} else {
		b.WriteString(" validation errors for ")
	}
	b.WriteString(e.Model)
	for _, le := range e.Errors {
		b.WriteString("\n")
		if len(le.Loc) > 0 {
			// An error about the whole input has no location line.
			b.WriteString(strings.Join(le.Loc, "."))
			b.WriteString("\n")
		}
		b.WriteString("  ")
		b.WriteString(le.Msg)
		b.WriteString(" [type=")
		b.WriteString(le.Type)
		b.WriteString(", input_value=")
		b.WriteString(truncatedRepr(le.Input))
		b.WriteString(", input_type=")
		b.WriteString(pyjson.TypeName(le.Input))
		b.WriteString("]\n    For further information visit https://errors.pydantic.dev/")
		b.WriteString(PydanticVersion)
		b.WriteString("/v/")
		b.WriteString(le.Type)
	}
	return b.String()
}

// truncatedRepr is pydantic-core's input_value: repr() cut to its first 25
// and last 24 characters around "..." when longer than 50.
func truncatedRepr(v any) string {
	r := []rune(pyjson.Repr(v))
	if len(r) <= 50 {
		return string(r)
	}
	return string(r[:25]) + "..." + string(r[len(r)-24:])
}

// ValidationText is the text CrewAI's BaseTool raises when the arguments do
// not validate (tools/base_tool.py:326-338): the tool's name, Pydantic's
// error, and the model's properties and required list as json.dumps writes
// them.
func (m *Model) ValidationText(toolName string, err *ValidationError) string {
	props, _ := m.schema.Get("properties")
	req := make([]any, len(m.required))
	for i, r := range m.required {
		req[i] = r
	}
	return "Tool '" + toolName + "' arguments validation failed: " + err.Error() +
		"\nExpected arguments: " + pyjson.Dumps(props) + "\nRequired: " + pyjson.Dumps(req)
}

// Validate is model_validate(args) in lax mode followed by model_dump():
// every field in model order, missing optional fields as their defaults
// (None when the schema gives none), values coerced ("2" → 2 for an
// integer, 2 → 2.0 for a number); extra keys, missing required fields,
// wrong types and constraint violations are errors. args is not modified.
func (m *Model) Validate(args *pyjson.Object) (*pyjson.Object, *ValidationError) {
	return m.validate(args, false)
}

func (m *Model) validate(args *pyjson.Object, strict bool) (*pyjson.Object, *ValidationError) {
	v := &validator{ignoreExtra: m.ExtraIgnored, strict: strict}
	out := v.model(m, args, nil)
	if len(v.errs) > 0 {
		return nil, &ValidationError{Model: m.Name, Errors: v.errs}
	}
	return out, nil
}

type validator struct {
	errs []LineError
	// ignoreExtra is the root model's ExtraIgnored, which its nested
	// models share.
	ignoreExtra bool
	// strict is Pydantic's strict mode on JSON input: no coercion of
	// strings, booleans or floats into numbers and booleans (a JSON
	// integer still passes for a float).
	strict bool
}

func (v *validator) fail(loc []string, typ, msg string, input any) {
	v.errs = append(v.errs, LineError{Loc: append([]string(nil), loc...), Type: typ, Msg: msg, Input: input})
}

func (v *validator) model(m *Model, in *pyjson.Object, loc []string) *pyjson.Object {
	out := pyjson.NewObject()
	if in == nil {
		in = pyjson.NewObject()
	}
	known := make(map[string]bool, len(m.Fields))
	for _, f := range m.Fields {
		known[f.Name] = true
		floc := append(loc[:len(loc):len(loc)], f.Name)
		val, ok := in.Get(f.Name)
		switch {
		case !ok && f.Required:
			v.fail(floc, "missing", "Field required", in)
		case !ok:
			out.Set(f.Name, pyjson.Clone(f.Default))
		default:
			if r, ok := v.value(f.Type, val, floc); ok {
				out.Set(f.Name, r)
			}
		}
	}
	for _, k := range in.Keys() {
		if !known[k] && !v.ignoreExtra {
			val, _ := in.Get(k)
			v.fail(append(loc[:len(loc):len(loc)], k), "extra_forbidden", "Extra inputs are not permitted", val)
		}
	}
	return out
}

// value validates one value; ok is false when it recorded errors.
func (v *validator) value(t *Type, val any, loc []string) (any, bool) {
	if val == nil && (t.Nullable || t.Kind == KindNull || t.Kind == KindAny) {
		return nil, true
	}
	n := len(v.errs)
	out := v.inner(t, val, loc)
	return out, len(v.errs) == n
}

func (v *validator) inner(t *Type, val any, loc []string) any {
	switch t.Kind {
	case KindAny:
		return pyjson.Clone(val)
	case KindNull:
		v.fail(loc, "none_required", "Input should be None", val)
	case KindString:
		return v.str(t, val, loc)
	case KindInt:
		return v.integer(t, val, loc)
	case KindFloat:
		return v.float(t, val, loc)
	case KindBool:
		if b, ok := val.(bool); v.strict || ok {
			if !ok {
				v.fail(loc, "bool_type", "Input should be a valid boolean", val)
			}
			return b
		}
		b, ok := laxBool(val)
		if !ok {
			if _, isStr := val.(string); isStr {
				v.fail(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", val)
			} else {
				v.fail(loc, "bool_type", "Input should be a valid boolean", val)
			}
		}
		return b
	case KindList:
		list, ok := val.([]any)
		if !ok {
			v.fail(loc, "list_type", "Input should be a valid list", val)
			return nil
		}
		out := make([]any, 0, len(list))
		for i, e := range list {
			r, _ := v.value(t.Items, e, append(loc[:len(loc):len(loc)], strconv.Itoa(i)))
			out = append(out, r)
		}
		return out
	case KindDict:
		o, ok := val.(*pyjson.Object)
		if !ok {
			v.fail(loc, "dict_type", "Input should be a valid dictionary", val)
			return nil
		}
		return o.Clone()
	case KindModel:
		o, ok := val.(*pyjson.Object)
		if !ok {
			v.fail(loc, "model_type", "Input should be a valid dictionary or instance of "+t.Model.Name, val)
			return nil
		}
		return v.model(t.Model, o, loc)
	case KindLiteral:
		for _, l := range t.Literals {
			if literalEqual(l, val) {
				return pyjson.Clone(l)
			}
		}
		v.fail(loc, "literal_error", "Input should be "+expectedLiterals(t.Literals), val)
	case KindUnion:
		return v.union(t, val, loc)
	}
	return nil
}

// union is Pydantic's smart-mode union, simplified: the first member that
// accepts the value unchanged in type wins, else the first that accepts it
// with coercion; when none does, every member's errors are reported.
func (v *validator) union(t *Type, val any, loc []string) any {
	for _, m := range t.Members {
		if exactKind(m, val) {
			sub := &validator{strict: v.strict}
			if r, ok := sub.value(m, val, loc); ok {
				return r
			}
		}
	}
	var all []LineError
	for _, m := range t.Members {
		sub := &validator{strict: v.strict}
		if r, ok := sub.value(m, val, append(loc[:len(loc):len(loc)], memberTag(m))); ok {
			return r
		}
		all = append(all, sub.errs...)
	}
	v.errs = append(v.errs, all...)
	return nil
}

// memberTag is the union member's name in an error location.
func memberTag(t *Type) string {
	switch t.Kind {
	case KindString:
		return "str"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindBool:
		return "bool"
	case KindList:
		return "list[" + memberTag(t.Items) + "]"
	case KindDict:
		return "dict[str,any]"
	case KindModel:
		return t.Model.Name
	case KindLiteral:
		parts := make([]string, len(t.Literals))
		for i, l := range t.Literals {
			parts[i] = pyjson.Repr(l)
		}
		return "literal[" + strings.Join(parts, ",") + "]"
	case KindNull:
		return "none"
	}
	return "any"
}

func exactKind(t *Type, val any) bool {
	switch x := val.(type) {
	case string:
		return t.Kind == KindString || t.Kind == KindLiteral
	case bool:
		return t.Kind == KindBool || t.Kind == KindLiteral
	case pyjson.Number:
		if x.IsInt() {
			return t.Kind == KindInt || t.Kind == KindLiteral
		}
		return t.Kind == KindFloat
	case []any:
		return t.Kind == KindList
	case *pyjson.Object:
		return t.Kind == KindDict || t.Kind == KindModel
	}
	return t.Kind == KindAny
}

func (v *validator) str(t *Type, val any, loc []string) any {
	s, ok := val.(string)
	if !ok {
		v.fail(loc, "string_type", "Input should be a valid string", val)
		return nil
	}
	n := utf8.RuneCountInString(s)
	if t.MinLength != nil && n < *t.MinLength {
		v.fail(loc, "string_too_short", "String should have at least "+countWord(*t.MinLength, "character"), val)
		return nil
	}
	if t.MaxLength != nil && n > *t.MaxLength {
		v.fail(loc, "string_too_long", "String should have at most "+countWord(*t.MaxLength, "character"), val)
		return nil
	}
	if t.pattern != nil && !t.pattern.MatchString(s) {
		v.fail(loc, "string_pattern_mismatch", "String should match pattern '"+t.Pattern+"'", val)
		return nil
	}
	return s
}

// countWord is "1 word" or "N words", as pydantic-core words its limits.
func countWord(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// intText accepts "2", " 2 ", "+2", "-2", "2.0" and "2_000" as Python's int
// parsing in pydantic-core does.
var intText = regexp.MustCompile(`^[+-]?[0-9](_?[0-9])*(\.0*)?$`)

func (v *validator) integer(t *Type, val any, loc []string) any {
	if x, ok := val.(pyjson.Number); v.strict && (!ok || !x.IsInt()) {
		v.fail(loc, "int_type", "Input should be a valid integer", val)
		return nil
	}
	var n pyjson.Number
	switch x := val.(type) {
	case bool:
		n = "0"
		if x {
			n = "1"
		}
	case pyjson.Number:
		if x.IsInt() {
			n = pyjson.Number(x.Repr())
			break
		}
		f, err := x.Float64()
		switch {
		case err != nil || math.IsInf(f, 0) || math.IsNaN(f):
			v.fail(loc, "finite_number", "Input should be a finite number", val)
			return nil
		case f != math.Trunc(f):
			v.fail(loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part", val)
			return nil
		}
		n = pyjson.Number(strconv.FormatFloat(f, 'f', 0, 64))
	case string:
		s := strings.TrimSpace(x)
		if !intText.MatchString(s) {
			v.fail(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", val)
			return nil
		}
		s, _, _ = strings.Cut(strings.ReplaceAll(s, "_", ""), ".")
		n = pyjson.Number(pyjson.Number(strings.TrimPrefix(s, "+")).Repr())
	default:
		v.fail(loc, "int_type", "Input should be a valid integer", val)
		return nil
	}
	if !v.bounds(t, n, val, loc) {
		return nil
	}
	return n
}

func (v *validator) float(t *Type, val any, loc []string) any {
	if _, ok := val.(pyjson.Number); v.strict && !ok {
		v.fail(loc, "float_type", "Input should be a valid number", val)
		return nil
	}
	var f float64
	switch x := val.(type) {
	case bool:
		if x {
			f = 1
		}
	case pyjson.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			f = math.Inf(1)
			if strings.HasPrefix(string(x), "-") {
				f = math.Inf(-1)
			}
		}
	case string:
		var err error
		f, err = strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(x), "_", ""), 64)
		if err != nil {
			v.fail(loc, "float_parsing", "Input should be a valid number, unable to parse string as a number", val)
			return nil
		}
	default:
		v.fail(loc, "float_type", "Input should be a valid number", val)
		return nil
	}
	n := pyjson.Float(f)
	if !v.bounds(t, n, val, loc) {
		return nil
	}
	return n
}

// bounds checks the numeric constraints in pydantic-core's order.
func (v *validator) bounds(t *Type, n pyjson.Number, input any, loc []string) bool {
	x, err := n.Float64()
	if err != nil {
		return true
	}
	check := func(limit pyjson.Number, ok func(x, l float64) bool, typ, msg string) bool {
		if limit == "" {
			return true
		}
		l, err := limit.Float64()
		if err != nil || ok(x, l) {
			return true
		}
		v.fail(loc, typ, msg+limit.Repr(), input)
		return false
	}
	if t.MultipleOf != "" {
		if m, err := t.MultipleOf.Float64(); err == nil && m != 0 && math.Mod(x, m) != 0 {
			v.fail(loc, "multiple_of", "Input should be a multiple of "+t.MultipleOf.Repr(), input)
			return false
		}
	}
	return check(t.ExclMax, func(x, l float64) bool { return x < l }, "less_than", "Input should be less than ") &&
		check(t.Maximum, func(x, l float64) bool { return x <= l }, "less_than_equal", "Input should be less than or equal to ") &&
		check(t.ExclMin, func(x, l float64) bool { return x > l }, "greater_than", "Input should be greater than ") &&
		check(t.Minimum, func(x, l float64) bool { return x >= l }, "greater_than_equal", "Input should be greater than or equal to ")
}

// laxBool is Pydantic's lax bool: bools, 0/1, and the usual words.
func laxBool(val any) (bool, bool) {
	switch x := val.(type) {
	case bool:
		return x, true
	case pyjson.Number:
		f, err := x.Float64()
		if err == nil && (f == 0 || f == 1) {
			return f == 1, true
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "1", "on", "t", "true", "y", "yes":
			return true, true
		case "0", "off", "f", "false", "n", "no":
			return false, true
		}
	}
	return false, false
}

// literalEqual compares as Literal validation does: same JSON type and
// value (True is not 1).
func literalEqual(l, val any) bool {
	switch a := l.(type) {
	case pyjson.Number:
		b, ok := val.(pyjson.Number)
		if !ok {
			return false
		}
		fa, ea := a.Float64()
		fb, eb := b.Float64()
		return ea == nil && eb == nil && fa == fb
	case *pyjson.Object, []any:
		return pyjson.Dumps(l) == pyjson.Dumps(val)
	}
	return l == val
}

// expectedLiterals is "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
func expectedLiterals(vals []any) string {
	parts := make([]string, len(vals))
	for i, l := range vals {
		parts[i] = pyjson.Repr(l)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Str is str(model) for validated values v (Pydantic's __str__): each field
// as name=repr(value), joined with spaces; nested models in their repr form
// Name(a=1, b='x').
func (m *Model) Str(v *pyjson.Object) string { return m.fieldsRepr(v, " ") }

func (m *Model) fieldsRepr(v *pyjson.Object, sep string) string {
	parts := make([]string, 0, len(m.Fields))
	for _, f := range m.Fields {
		val, _ := v.Get(f.Name)
		parts = append(parts, f.Name+"="+f.Type.repr(val))
	}
	return strings.Join(parts, sep)
}

func (t *Type) repr(v any) string {
	switch {
	case v == nil:
		return "None"
	case t.Kind == KindModel:
		if o, ok := v.(*pyjson.Object); ok {
			return t.Model.Name + "(" + t.Model.fieldsRepr(o, ", ") + ")"
		}
	case t.Kind == KindList:
		if list, ok := v.([]any); ok {
			parts := make([]string, len(list))
			for i, e := range list {
				parts[i] = t.Items.repr(e)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
	}
	return pyjson.Repr(v)
}

// MCPArguments is what CrewAI sends an MCP server for the LLM's arguments
// to a tool with model m: the model's validated dump (lax coercion,
// defaults filled) with None values dropped by the MCP client's argument
// cleaning (mcp/client.py:545-592: from the arguments and the objects
// nested in them; lists are left as they are). A refusal is an error with
// CrewAI's text (ValidationText for toolName); nothing is sent then. The
// Try view and `crewbench call` can show both.
func (m *Model) MCPArguments(toolName string, args *pyjson.Object) (*pyjson.Object, error) {
	valid, verr := m.Validate(args)
	if verr != nil {
		return nil, &ArgumentsError{Text: m.ValidationText(toolName, verr), Validation: verr}
	}
	return dropNone(valid), nil
}

// ArgumentsError is a refused tool call: CrewAI's text and the Pydantic
// error under it.
type ArgumentsError struct {
	Text       string
	Validation *ValidationError
}

func (e *ArgumentsError) Error() string { return e.Text }

func dropNone(o *pyjson.Object) *pyjson.Object {
	out := pyjson.NewObject()
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch t := v.(type) {
		case nil:
			continue
		case *pyjson.Object:
			out.Set(k, dropNone(t))
		default:
			out.Set(k, v)
		}
	}
	return out
}

// MCPToolModel is the model CrewAI's MCP resolver builds for a tool from
// its inputSchema: named "{sanitized remote name}Schema", descriptions
// enriched (mcp/tool_resolver.py:638-647). A nil schema gives a model with
// no fields.
func MCPToolModel(remoteName string, inputSchema *pyjson.Object) *Model {
	return FromJSONSchema(names.Sanitize(remoteName)+"Schema", inputSchema, true)
}
