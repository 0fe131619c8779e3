package filter

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// varsProvider declares the `tool` and `context` object types to the CEL
// checker and reads their fields straight from the Go structs at evaluation
// (cel-go's planner uses FieldType.GetFrom for checked selects on struct
// types). cel-go's own native-type support cannot be used because it skips
// map[string]any fields, which input_schema and annotations need.
type varsProvider struct {
	types.Provider
	fields map[string]map[string]*types.FieldType // type name → field name → field
}

// varsAdapter refuses to turn a whole tool or context into a value (they are
// records to select from), with a message that says what to do instead.
type varsAdapter struct{ types.Adapter }

func (a varsAdapter) NativeToValue(v any) ref.Val {
	switch v.(type) {
	case *toolVar:
		return types.NewErr("`tool` cannot be used as a value; select a field such as tool.name")
	case *contextVar:
		return types.NewErr("`context` cannot be used as a value; select a field such as context.server_name")
	}
	return a.Adapter.NativeToValue(v)
}

var mapStringDyn = types.NewMapType(types.StringType, types.DynType)

// withVarTypes installs varsProvider and varsAdapter over the environment's
// current provider and adapter.
func withVarTypes(e *cel.Env) (*cel.Env, error) {
	p := &varsProvider{
		Provider: e.CELTypeProvider(),
		fields: map[string]map[string]*types.FieldType{
			toolTypeName: {
				"name":          stringField(func(t *toolVar) string { return t.Name }),
				"original_name": stringField(func(t *toolVar) string { return t.OriginalName }),
				"description":   stringField(func(t *toolVar) string { return t.Description }),
				"input_schema":  mapField(func(t *toolVar) map[string]any { return t.InputSchema }),
				"annotations":   mapField(func(t *toolVar) map[string]any { return t.Annotations }),
			},
			contextTypeName: {
				"agent_role":  stringField(func(c *contextVar) string { return c.AgentRole }),
				"server_name": stringField(func(c *contextVar) string { return c.ServerName }),
			},
		},
	}
	e, err := cel.CustomTypeProvider(p)(e)
	if err != nil {
		return nil, err
	}
	return cel.CustomTypeAdapter(varsAdapter{Adapter: e.CELTypeAdapter()})(e)
}

func (p *varsProvider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.fields[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *varsProvider) FindStructFieldNames(name string) ([]string, bool) {
	fs, ok := p.fields[name]
	if !ok {
		return p.Provider.FindStructFieldNames(name)
	}
	out := make([]string, 0, len(fs))
	for n := range fs {
		out = append(out, n)
	}
	return out, true
}

func (p *varsProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	fs, ok := p.fields[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	ft, ok := fs[field]
	return ft, ok
}

// NewValue refuses to construct Tool{…} or ToolFilterContext{…} literals.
func (p *varsProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.fields[name]; ok {
		return types.NewErr("%s values cannot be constructed in a filter expression", name)
	}
	return p.Provider.NewValue(name, fields)
}

func stringField[T any](get func(*T) string) *types.FieldType {
	return &types.FieldType{
		Type: types.StringType,
		IsSet: func(obj any) bool {
			v, ok := obj.(*T)
			return ok && get(v) != ""
		},
		GetFrom: func(obj any) (any, error) {
			v, ok := obj.(*T)
			if !ok {
				return nil, fmt.Errorf("internal: got %T, want %T", obj, v)
			}
			return get(v), nil
		},
	}
}

func mapField[T any](get func(*T) map[string]any) *types.FieldType {
	return &types.FieldType{
		Type: mapStringDyn,
		IsSet: func(obj any) bool {
			v, ok := obj.(*T)
			return ok && len(get(v)) > 0
		},
		GetFrom: func(obj any) (any, error) {
			v, ok := obj.(*T)
			if !ok {
				return nil, fmt.Errorf("internal: got %T, want %T", obj, v)
			}
			if m := get(v); m != nil {
				return m, nil
			}
			return emptyMap, nil
		},
	}
}
