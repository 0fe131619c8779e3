package project

import (
	"math"
	"strconv"
	"strings"

	"crewbench/crew/pyjson"
)

// Kind is the type of a Node.
type Kind uint8

// Node kinds (JSON's types; YAML is mapped onto them).
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	}
	return "?"
}

// Node is one parsed JSON(C) or YAML value with the position it was written
// at. Both file formats load into Nodes so that crew.jsonc, agent files and
// the crew inside crewbench.yaml share one validator.
type Node struct {
	// Kind, Bool and IsInt share one word: a Node is 120 bytes (a 128-byte
	// allocation) instead of 136 (144), and a large file has millions.
	Kind  Kind
	Bool  bool // KindBool
	IsInt bool // KindNumber: see Int

	Pos Pos

	Str string // KindString: the value; KindNumber: the literal text

	// KindNumber: Float always holds the value (±Inf/NaN included); Int is
	// set and IsInt true when the literal is an integer that fits int64.
	Float float64
	Int   int64

	Items  []*Node  // KindArray
	Fields []*Field // KindObject, in first-insertion order, last value wins
}

// Field is one key of an object.
type Field struct {
	Key    string
	KeyPos Pos
	Value  *Node
}

// Get returns the value of key in an object node, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != KindObject {
		return nil
	}
	for _, f := range n.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// Field returns the field for key in an object node, or nil.
func (n *Node) Field(key string) *Field {
	if n == nil || n.Kind != KindObject {
		return nil
	}
	for _, f := range n.Fields {
		if f.Key == key {
			return f
		}
	}
	return nil
}

// set gives an object node's key the value v, in place when the key is
// there (a later value wins, where the first one was).
func (n *Node) set(key string, keyPos Pos, v *Node) {
	for i, f := range n.Fields {
		if f.Key == key {
			n.Fields[i] = &Field{Key: key, KeyPos: keyPos, Value: v}
			return
		}
	}
	n.Fields = append(n.Fields, &Field{Key: key, KeyPos: keyPos, Value: v})
}

// Has reports whether an object node has key.
func (n *Node) Has(key string) bool { return n.Field(key) != nil }

// IsNull reports whether n is absent or null.
func (n *Node) IsNull() bool { return n == nil || n.Kind == KindNull }

// Plain converts the node to plain Go values: nil, bool, int64, float64,
// string, []any, map[string]any.
func (n *Node) Plain() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case KindBool:
		return n.Bool
	case KindNumber:
		if n.IsInt {
			return n.Int
		}
		return n.Float
	case KindString:
		return n.Str
	case KindArray:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Plain()
		}
		return out
	case KindObject:
		out := make(map[string]any, len(n.Fields))
		for _, f := range n.Fields {
			out[f.Key] = f.Value.Plain()
		}
		return out
	}
	return nil
}

// Ordered is Plain with objects as *pyjson.Object, so key order survives
// (a JSON schema's property order is its model's field order).
func (n *Node) Ordered() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case KindNumber:
		if n.IsInt {
			return pyjson.Int(n.Int)
		}
		return pyjson.Float(n.Float)
	case KindArray:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Ordered()
		}
		return out
	case KindObject:
		out := pyjson.NewObject()
		for _, f := range n.Fields {
			out.Set(f.Key, f.Value.Ordered())
		}
		return out
	}
	return n.Plain()
}

// inputValue is a kickoff input's value: scalars as Plain gives them, lists
// and dicts as Ordered does, so a dict input keeps its key order where
// CrewAI prints it (str() of a Python dict, in an interpolated text).
func (n *Node) inputValue() any {
	if n != nil && (n.Kind == KindObject || n.Kind == KindArray) {
		return n.Ordered()
	}
	return n.Plain()
}

// inputValues is inputValue of each field of an inputs object.
func (n *Node) inputValues() map[string]any {
	out := make(map[string]any, len(n.Fields))
	for _, f := range n.Fields {
		out[f.Key] = f.Value.inputValue()
	}
	return out
}

// positions is the position of n and of every value below it, by path
// relative to n; the map is sized up front so a large file does not pay
// for the rehashing of growing maps.
func (n *Node) positions() Positions {
	ps := make(Positions, n.count())
	n.walk("", ps)
	return ps
}

// count is the number of values in n, n included.
func (n *Node) count() int {
	if n == nil {
		return 0
	}
	c := 1
	for _, it := range n.Items {
		c += it.count()
	}
	for _, f := range n.Fields {
		c += f.Value.count()
	}
	return c
}

// walk records the position of n and every value below it in ps, under
// path.
func (n *Node) walk(path string, ps Positions) {
	if n == nil {
		return
	}
	ps[path] = n.Pos
	switch n.Kind {
	case KindArray:
		for i, it := range n.Items {
			it.walk(indexPath(path, i), ps)
		}
	case KindObject:
		for _, f := range n.Fields {
			f.Value.walk(joinPath(path, f.Key), ps)
		}
	}
}

// numberNode builds a number node from a JSON/Python numeric literal.
func numberNode(text string, pos Pos) *Node {
	n := &Node{Kind: KindNumber, Pos: pos, Str: text}
	switch text {
	case "NaN":
		n.Float = math.NaN()
		return n
	case "Infinity":
		n.Float = math.Inf(1)
		return n
	case "-Infinity":
		n.Float = math.Inf(-1)
		return n
	}
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		n.Int, n.IsInt, n.Float = i, true, float64(i)
		return n
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		// Out of range: Python's float() gives ±inf; big ints stay exact in
		// Python but only their float value matters here.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			n.Float = f
			return n
		}
	}
	n.Float = f
	return n
}

// posAt is the position of the value at path below n (the paths walk
// records: "args[1]", "env.KEY"), without building the map of every path.
// A key may itself hold "." or "[", so every key that prefixes path is
// tried, the last first (walk's map kept the last path written).
func (n *Node) posAt(path string) (Pos, bool) {
	if n == nil {
		return Pos{}, false
	}
	if path == "" {
		return n.Pos, true
	}
	switch n.Kind {
	case KindArray:
		if path[0] != '[' {
			return Pos{}, false
		}
		end := strings.IndexByte(path, ']')
		if end < 0 {
			return Pos{}, false
		}
		i, err := strconv.Atoi(path[1:end])
		if err != nil || i < 0 || i >= len(n.Items) || strconv.Itoa(i) != path[1:end] {
			return Pos{}, false
		}
		rest := path[end+1:]
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" || rest[0] == '[' {
				return Pos{}, false
			}
		}
		return n.Items[i].posAt(rest)
	case KindObject:
		for i := len(n.Fields) - 1; i >= 0; i-- {
			f := n.Fields[i]
			rest, ok := strings.CutPrefix(path, f.Key)
			if !ok {
				continue
			}
			switch {
			case rest == "":
			case rest[0] == '.':
				rest = rest[1:]
				if rest == "" || rest[0] == '[' {
					continue
				}
			case rest[0] == '[':
			default:
				continue
			}
			if p, ok := f.Value.posAt(rest); ok {
				return p, true
			}
		}
	}
	return Pos{}, false
}
