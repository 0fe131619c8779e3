package project

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"crewbench/crew/filelimit"
	"crewbench/crew/pyjson"
	"crewbench/crew/pyread"
)

// toolClass reads the class of a Python tool the project defines (in
// crew.py or in a module of its package), as far as it is literal: the
// name, description, result_as_answer and max_usage_count class attributes
// and the args_schema model. CrewAI shows the LLM that name, description
// and schema, so a stand-in that keeps them sends what CrewAI sends.
func (cx *classicCtx) toolClass(ref ToolRef) *ToolClass {
	m := cx.ev.m
	if ref.Module != "" {
		if m = cx.toolModule(ref.Module); m == nil {
			return nil
		}
	}
	return cx.l.toolClassIn(m, classNamed(m, ref.Class))
}

// customToolClass reads the class a JSON-first "custom:<name>" tool
// resolves to: CrewAI executes tools/<name>.py and instantiates the first
// BaseTool subclass in dir(module) order, i.e. by name
// (project/json_loader.py:2040-2050). rel is "tools/<name>.py".
func (l *loader) customToolClass(rel string) *ToolClass {
	src, err := filelimit.Read(filepath.Join(l.root, filepath.FromSlash(rel)), filelimit.Source)
	if err != nil {
		return nil
	}
	m := l.parsePy(src, rel)
	var first *pyClass
	for _, c := range m.classes {
		if c.indent == 0 && subclassesBaseTool(m, c, 0) && (first == nil || c.name < first.name) {
			first = c
		}
	}
	return l.toolClassIn(m, first)
}

// subclassesBaseTool reports whether a class derives from BaseTool,
// directly or through classes of the same module.
func subclassesBaseTool(m *pyModule, c *pyClass, depth int) bool {
	for _, b := range c.bases {
		if b == "BaseTool" {
			return true
		}
		if parent := classNamed(m, b); parent != nil && parent != c && depth < 8 && subclassesBaseTool(m, parent, depth+1) {
			return true
		}
	}
	return false
}

// toolClassIn reads the literal tool attributes of cls (nil when cls is
// nil or declares neither name nor description).
func (l *loader) toolClassIn(m *pyModule, cls *pyClass) *ToolClass {
	if cls == nil || !slices.ContainsFunc(cls.fields, func(f pyField) bool { return f.name == "name" || f.name == "description" }) {
		return nil
	}
	ev := &pyEval{l: l, m: m}
	tc := &ToolClass{Pos: cls.pos}
	for _, f := range cls.fields {
		if f.value == nil {
			continue
		}
		n, bad := ev.literal(f.value, cls.attrs, 0)
		if bad != nil && f.name != "args_schema" {
			continue
		}
		switch f.name {
		case "name":
			if n.Kind == KindString {
				tc.Name = n.Str
			}
		case "description":
			if n.Kind == KindString {
				tc.Description = n.Str
			}
		case "result_as_answer":
			tc.ResultAsAnswer = n.Kind == KindBool && n.Bool
		case "max_usage_count":
			if i, ok := laxInt(n); ok && n.Kind == KindNumber && i > 0 {
				tc.MaxUsageCount = i
			}
		case "args_schema":
			if f.value.Kind == pyread.Name {
				if model := classNamed(m, f.value.Str); model != nil {
					var why string
					if tc.ArgsSchema, why = modelJSONSchema(ev, model); tc.ArgsSchema == nil {
						l.note(f.pos, Info, "tool-args-schema", fmt.Sprintf("args_schema %s of %s: %s; give the schema under tools: in crewbench.yaml (args_schema:)", model.name, cls.name, why))
					}
				}
			}
		}
	}
	return tc
}

// toolModule parses the project module a tool is imported from:
// "pkg.tools.custom_tool" or a relative ".tools.custom_tool".
func (cx *classicCtx) toolModule(mod string) *pyModule {
	if cx.pkgDir == "" {
		return nil
	}
	base := filepath.Dir(cx.pkgDir) // src/
	rest := mod
	if strings.HasPrefix(mod, ".") {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		base = cx.pkgDir
		for range dots - 1 {
			base = filepath.Dir(base)
		}
		rest = mod[dots:]
	}
	rel := filepath.FromSlash(strings.ReplaceAll(rest, ".", "/"))
	for _, cand := range []string{filepath.Join(base, rel+".py"), filepath.Join(base, rel, "__init__.py")} {
		if cx.l.outsideRoot(cand) {
			continue
		}
		src, err := filelimit.Read(cand, filelimit.Source)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				cx.l.note(Pos{File: cx.l.rel(cand)}, Info, "tool-module-unreadable", fmt.Sprintf("tool module %s: %v", mod, err))
			}
			continue
		}
		return cx.l.parsePy(src, cx.l.rel(cand))
	}
	return nil
}

func classNamed(m *pyModule, name string) *pyClass {
	for _, c := range m.classes {
		if c.name == name {
			return c
		}
	}
	return nil
}

// modelJSONSchema renders a Pydantic model class as model_json_schema()
// does for the field types a tool's input commonly uses (str, int, float,
// bool, Any, list/List/dict/Dict of those, Optional/Union with None, X |
// None): keys sorted at every level, each field titled, the docstring as
// the description, fields without a default required. It returns nil and
// the reason for anything else.
func modelJSONSchema(ev *pyEval, cls *pyClass) (*pyjson.Object, string) {
	props := pyjson.NewObject()
	var required []any
	for _, f := range cls.fields {
		if strings.HasPrefix(f.name, "_") || f.name == "model_config" || strings.HasPrefix(f.annot, "ClassVar") {
			continue
		}
		schema, ok := annotationSchema(f.annot)
		if !ok {
			return nil, fmt.Sprintf("field %s has the type %s", f.name, f.annot)
		}
		prop := pyjson.NewObject()
		hasDefault, def, desc, why := fieldDefault(ev, cls, f)
		if why != "" {
			return nil, why
		}
		if nullable(f.annot) {
			prop.Set("anyOf", []any{schema, pyjson.ObjectOf("type", "null")})
		} else {
			for _, k := range schema.Keys() {
				v, _ := schema.Get(k)
				prop.Set(k, v)
			}
		}
		if hasDefault {
			prop.Set("default", def)
		} else {
			required = append(required, f.name)
		}
		if desc != "" {
			prop.Set("description", desc)
		}
		prop.Set("title", pyTitle(f.name))
		props.Set(f.name, sortedObject(prop))
	}
	out := pyjson.NewObject()
	if cls.doc != "" {
		out.Set("description", cleanDoc(cls.doc))
	}
	out.Set("properties", props)
	if len(required) > 0 {
		out.Set("required", required)
	}
	out.Set("title", cls.name)
	out.Set("type", "object")
	return out, ""
}

// fieldDefault reads `= value` or `= Field(default, description=…)`.
func fieldDefault(ev *pyEval, cls *pyClass, f pyField) (has bool, def any, desc, why string) {
	v := f.value
	if v == nil {
		return false, nil, "", ""
	}
	if v.Kind == pyread.Call && (v.X.Dotted() == "Field" || strings.HasSuffix(v.X.Dotted(), ".Field")) {
		for _, kw := range v.Kwargs {
			switch kw.Name {
			case "description":
				n, bad := ev.literal(kw.Value, cls.attrs, 0)
				if bad != nil || n.Kind != KindString {
					return false, nil, "", "field " + f.name + " has a description that is not a literal string"
				}
				desc = n.Str
			case "default":
				n, bad := ev.literal(kw.Value, cls.attrs, 0)
				if bad != nil {
					return false, nil, "", "field " + f.name + " has a default that is not a literal"
				}
				has, def = true, n.Ordered()
			case "default_factory", "examples", "title", "alias", "json_schema_extra", "ge", "gt", "le", "lt", "min_length", "max_length", "pattern":
				return false, nil, "", "field " + f.name + " uses Field(" + kw.Name + "=…)"
			}
		}
		if len(v.Items) > 0 && v.Items[0].Text != "..." {
			n, bad := ev.literal(v.Items[0], cls.attrs, 0)
			if bad != nil {
				return false, nil, "", "field " + f.name + " has a default that is not a literal"
			}
			has, def = true, n.Ordered()
		}
		return has, def, desc, ""
	}
	n, bad := ev.literal(v, cls.attrs, 0)
	if bad != nil {
		return false, nil, "", "field " + f.name + " has a default that is not a literal"
	}
	return true, n.Ordered(), "", ""
}

// annotationSchema is the JSON schema of a type annotation, None removed.
func annotationSchema(annot string) (*pyjson.Object, bool) {
	a := strings.ReplaceAll(annot, " ", "")
	a = strings.TrimPrefix(a, "typing.")
	if inner, ok := unwrap(a, "Optional"); ok {
		return annotationSchema(inner)
	}
	if parts := splitTop(a, '|'); len(parts) > 1 {
		parts = slices.DeleteFunc(parts, func(p string) bool { return p == "None" })
		if len(parts) == 1 {
			return annotationSchema(parts[0])
		}
		return nil, false
	}
	if inner, ok := unwrap(a, "Union"); ok {
		parts := slices.DeleteFunc(splitTop(inner, ','), func(p string) bool { return p == "None" })
		if len(parts) == 1 {
			return annotationSchema(parts[0])
		}
		return nil, false
	}
	switch a {
	case "str":
		return pyjson.ObjectOf("type", "string"), true
	case "int":
		return pyjson.ObjectOf("type", "integer"), true
	case "float":
		return pyjson.ObjectOf("type", "number"), true
	case "bool":
		return pyjson.ObjectOf("type", "boolean"), true
	case "Any":
		return pyjson.NewObject(), true
	case "list", "List":
		return pyjson.ObjectOf("items", pyjson.NewObject(), "type", "array"), true
	case "dict", "Dict":
		return pyjson.ObjectOf("additionalProperties", true, "type", "object"), true
	}
	for _, l := range []string{"list", "List"} {
		if inner, ok := unwrap(a, l); ok {
			item, ok := annotationSchema(inner)
			if !ok {
				return nil, false
			}
			return pyjson.ObjectOf("items", item, "type", "array"), true
		}
	}
	for _, d := range []string{"dict", "Dict"} {
		if inner, ok := unwrap(a, d); ok {
			kv := splitTop(inner, ',')
			if len(kv) != 2 || kv[0] != "str" {
				return nil, false
			}
			if kv[1] == "Any" {
				return pyjson.ObjectOf("additionalProperties", true, "type", "object"), true
			}
			val, ok := annotationSchema(kv[1])
			if !ok {
				return nil, false
			}
			return pyjson.ObjectOf("additionalProperties", val, "type", "object"), true
		}
	}
	return nil, false
}

// nullable reports whether the annotation admits None.
func nullable(annot string) bool {
	a := strings.TrimPrefix(strings.ReplaceAll(annot, " ", ""), "typing.")
	if _, ok := unwrap(a, "Optional"); ok {
		return true
	}
	if inner, ok := unwrap(a, "Union"); ok {
		return slices.Contains(splitTop(inner, ','), "None")
	}
	return slices.Contains(splitTop(a, '|'), "None")
}

// unwrap returns X of "Name[X]".
func unwrap(a, name string) (string, bool) {
	if strings.HasPrefix(a, name+"[") && strings.HasSuffix(a, "]") {
		return a[len(name)+1 : len(a)-1], true
	}
	return "", false
}

// splitTop splits at sep outside brackets.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// pyTitle is Pydantic's default field title: name.replace("_", " ").title().
func pyTitle(name string) string {
	var b strings.Builder
	prevLetter := false
	for _, r := range strings.ReplaceAll(name, "_", " ") {
		switch {
		case unicode.IsLetter(r) && prevLetter:
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToUpper(r))
		default:
			b.WriteRune(r)
		}
		prevLetter = unicode.IsLetter(r)
	}
	return b.String()
}

// cleanDoc is inspect.cleandoc: leading blank lines and the common indent
// of the lines after the first removed, trailing blank lines dropped.
func cleanDoc(doc string) string {
	lines := strings.Split(strings.ReplaceAll(doc, "\t", "        "), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if t := strings.TrimLeft(l, " "); t != "" {
			if n := len(l) - len(t); indent < 0 || n < indent {
				indent = n
			}
		}
	}
	lines[0] = strings.TrimLeft(lines[0], " ")
	for i := 1; i < len(lines); i++ {
		if indent > 0 && len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		} else {
			lines[i] = strings.TrimLeft(lines[i], " ")
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// sortedObject returns o with its keys sorted, as Pydantic sorts schemas.
func sortedObject(o *pyjson.Object) *pyjson.Object {
	out := pyjson.NewObject()
	for _, k := range slices.Sorted(slices.Values(o.Keys())) {
		v, _ := o.Get(k)
		out.Set(k, v)
	}
	return out
}
