package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
)

// A schemaForm is a form generated from a tool's JSON input schema:
// strings, numbers, integers, booleans, enums, arrays and nested objects
// (flattened to dotted paths), required fields marked, defaults filled.
// Anything it cannot model becomes a JSON field.

type fieldKind int

const (
	kindString fieldKind = iota
	kindNumber
	kindInteger
	kindBool
	kindEnum
	kindArray // of scalars: comma-separated or a JSON array
	kindJSON  // objects without properties, unions, anything else
)

var kindNames = map[fieldKind]string{kindString: "string", kindNumber: "number", kindInteger: "integer",
	kindBool: "boolean", kindEnum: "enum", kindArray: "array", kindJSON: "json"}

type formField struct {
	path     []string
	label    string
	kind     fieldKind
	itemKind fieldKind // arrays
	required bool
	desc     string
	enum     []any
	choice   int // enum index; -1 unset
	boolVal  int // 0 unset, 1 true, 2 false
	input    textinput.Model
}

// maxFormDepth bounds nested-object flattening; deeper objects are JSON.
const maxFormDepth = 3

// buildForm generates fields from a raw input schema. Property order is
// the schema's own (models read it as a hint; so do people).
func buildForm(schema json.RawMessage, st *Styles) ([]formField, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil
	}
	var fields []formField
	if err := addFields(&fields, schema, nil, true, 0, st); err != nil {
		return nil, err
	}
	return fields, nil
}

type schemaNode struct {
	Type        json.RawMessage   `json:"type"`
	Properties  json.RawMessage   `json:"properties"`
	Required    []string          `json:"required"`
	Enum        []any             `json:"enum"`
	Default     json.RawMessage   `json:"default"`
	Description string            `json:"description"`
	Items       json.RawMessage   `json:"items"`
	AnyOf       []json.RawMessage `json:"anyOf"`
	OneOf       []json.RawMessage `json:"oneOf"`
}

func parseNode(raw json.RawMessage) (schemaNode, error) {
	var n schemaNode
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(&n)
	return n, err
}

// types returns the node's non-null types.
func (n schemaNode) types() []string {
	var out []string
	var one string
	if json.Unmarshal(n.Type, &one) == nil && one != "" {
		out = append(out, one)
	} else {
		var many []string
		_ = json.Unmarshal(n.Type, &many)
		out = append(out, many...)
	}
	var nn []string
	for _, t := range out {
		if t != "null" {
			nn = append(nn, t)
		}
	}
	return nn
}

// collapseNullable turns {"anyOf": [X, {"type": "null"}]} into X.
func collapseNullable(n schemaNode) schemaNode {
	alts := n.AnyOf
	if len(alts) == 0 {
		alts = n.OneOf
	}
	if len(alts) != 2 {
		return n
	}
	var keep json.RawMessage
	nulls := 0
	for _, a := range alts {
		an, err := parseNode(a)
		if err == nil && len(an.types()) == 0 && strings.Contains(string(an.Type), "null") {
			nulls++
		} else {
			keep = a
		}
	}
	if nulls != 1 || keep == nil {
		return n
	}
	k, err := parseNode(keep)
	if err != nil {
		return n
	}
	if k.Description == "" {
		k.Description = n.Description
	}
	if len(k.Default) == 0 {
		k.Default = n.Default
	}
	return k
}

func addFields(out *[]formField, raw json.RawMessage, path []string, required bool, depth int, st *Styles) error {
	n, err := parseNode(raw)
	if err != nil {
		return fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	n = collapseNullable(n)
	types := n.types()
	isObject := len(types) == 1 && types[0] == "object" || len(types) == 0 && len(n.Properties) > 0
	if isObject && len(n.Properties) > 0 && depth <= maxFormDepth {
		keys, err := orderedKeys(n.Properties)
		if err != nil {
			return fmt.Errorf("properties: %w", err)
		}
		var props map[string]json.RawMessage
		if err := json.Unmarshal(n.Properties, &props); err != nil {
			return fmt.Errorf("properties: %w", err)
		}
		req := map[string]bool{}
		for _, r := range n.Required {
			req[r] = true
		}
		for _, k := range keys {
			sub := append(append([]string{}, path...), k)
			if err := addFields(out, props[k], sub, req[k], depth+1, st); err != nil {
				return err
			}
		}
		return nil
	}
	if len(path) == 0 {
		return nil // an object schema without properties: no arguments
	}
	f := formField{path: path, label: strings.Join(path, "."), required: required, desc: n.Description, choice: -1}
	switch {
	case len(n.Enum) > 0:
		f.kind, f.enum = kindEnum, n.Enum
	case len(types) == 1:
		switch types[0] {
		case "string":
			f.kind = kindString
		case "number":
			f.kind = kindNumber
		case "integer":
			f.kind = kindInteger
		case "boolean":
			f.kind = kindBool
		case "array":
			f.kind, f.itemKind = kindJSON, kindJSON
			if it, err := parseNode(n.Items); err == nil && len(n.Items) > 0 {
				it = collapseNullable(it)
				if t := it.types(); len(t) == 1 && len(it.Enum) == 0 {
					switch t[0] {
					case "string":
						f.kind, f.itemKind = kindArray, kindString
					case "number":
						f.kind, f.itemKind = kindArray, kindNumber
					case "integer":
						f.kind, f.itemKind = kindArray, kindInteger
					case "boolean":
						f.kind, f.itemKind = kindArray, kindBool
					}
				}
			}
		default:
			f.kind = kindJSON
		}
	default:
		f.kind = kindJSON
	}
	ti := textinput.New()
	ti.Prompt = ""
	ti.TextStyle = st.Text.Normal
	ti.PlaceholderStyle = st.Text.Subtle
	switch f.kind {
	case kindArray:
		ti.Placeholder = "a, b, c  or a JSON array"
	case kindJSON:
		ti.Placeholder = "JSON"
	case kindNumber, kindInteger:
		ti.Placeholder = kindNames[f.kind]
	}
	f.input = ti
	if len(n.Default) > 0 {
		f.setDefault(n.Default)
	}
	*out = append(*out, f)
	return nil
}

func (f *formField) setDefault(raw json.RawMessage) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil || v == nil {
		return
	}
	f.setValue(v)
}

// setValue fills the field from a JSON value (raw-JSON mode → form).
func (f *formField) setValue(v any) {
	switch f.kind {
	case kindBool:
		if b, ok := v.(bool); ok {
			f.boolVal = 2
			if b {
				f.boolVal = 1
			}
		}
	case kindEnum:
		for i, e := range f.enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				f.choice = i
			}
		}
	case kindString:
		if s, ok := v.(string); ok {
			f.input.SetValue(s)
		} else {
			f.input.SetValue(fmt.Sprint(v))
		}
	case kindNumber, kindInteger:
		f.input.SetValue(fmt.Sprint(v))
	case kindArray:
		if items, ok := v.([]any); ok {
			parts := make([]string, len(items))
			simple := true
			for i, it := range items {
				parts[i] = fmt.Sprint(it)
				if s, ok := it.(string); ok && strings.Contains(s, ",") {
					simple = false
				}
			}
			if simple {
				f.input.SetValue(strings.Join(parts, ", "))
				return
			}
		}
		f.input.SetValue(jsonLine(v))
	default:
		f.input.SetValue(jsonLine(v))
	}
}

// value converts the field to a JSON value; ok is false when the field is
// empty (and is then left out of the arguments).
func (f formField) value() (v any, ok bool, err error) {
	switch f.kind {
	case kindBool:
		switch f.boolVal {
		case 1:
			return true, true, nil
		case 2:
			return false, true, nil
		}
		return nil, false, nil
	case kindEnum:
		if f.choice < 0 || f.choice >= len(f.enum) {
			return nil, false, nil
		}
		return f.enum[f.choice], true, nil
	}
	s := f.input.Value()
	if strings.TrimSpace(s) == "" {
		return nil, false, nil
	}
	switch f.kind {
	case kindString:
		return s, true, nil
	case kindNumber, kindInteger:
		return scalar(f.kind, strings.TrimSpace(s))
	case kindArray:
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "[") {
			return decodeJSONValue(t)
		}
		var items []any
		for _, part := range strings.Split(t, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if f.itemKind == kindString {
				items = append(items, part)
				continue
			}
			v, _, err := scalar(f.itemKind, part)
			if err != nil {
				return nil, false, err
			}
			items = append(items, v)
		}
		return items, true, nil
	}
	return decodeJSONValue(s)
}

func scalar(k fieldKind, s string) (any, bool, error) {
	switch k {
	case kindInteger:
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return nil, false, fmt.Errorf("%q is not an integer", s)
		}
		return json.Number(s), true, nil
	case kindNumber:
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return nil, false, fmt.Errorf("%q is not a number", s)
		}
		return json.Number(s), true, nil
	case kindBool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not true or false", s)
		}
		return b, true, nil
	}
	return s, true, nil
}

func decodeJSONValue(s string) (any, bool, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return nil, false, errors.New("not JSON: trailing data")
	}
	return v, true, nil
}

// formArgs builds the arguments object from the fields.
func formArgs(fields []formField) (map[string]any, error) {
	args := map[string]any{}
	var errs []error
	for _, f := range fields {
		v, ok, err := f.value()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.label, err))
			continue
		}
		if !ok {
			if f.required {
				errs = append(errs, fmt.Errorf("%s is required", f.label))
			}
			continue
		}
		setPath(args, f.path, v)
	}
	return args, errors.Join(errs...)
}

func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		sub, ok := m[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	m[path[len(path)-1]] = v
}

func getPath(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = mm[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// fillForm sets every field from an arguments object (raw-JSON mode back
// to the form); fields absent from args are cleared.
func fillForm(fields []formField, args map[string]any) {
	for i := range fields {
		f := &fields[i]
		f.input.SetValue("")
		f.boolVal, f.choice = 0, -1
		if v, ok := getPath(args, f.path); ok && v != nil {
			f.setValue(v)
		}
	}
}

// orderedKeys returns the keys of a JSON object in document order.
func orderedKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := t.(string)
		if !ok {
			return nil, errors.New("bad key")
		}
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
