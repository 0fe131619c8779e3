package project

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxYAMLNodes bounds alias expansion ("billion laughs").
const maxYAMLNodes = 200000

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// yamlDoc is a parsed YAML file: its root node and the keys written twice
// in one mapping (PyYAML keeps the last silently; the overlay refuses them).
type yamlDoc struct {
	Root       *Node
	Duplicates []*Error
}

// parseYAMLDoc parses YAML into a Node tree with positions. Plain scalars
// follow PyYAML's YAML 1.1 booleans (yes/no/on/off), as CrewAI reads its
// YAML with PyYAML.
func parseYAMLDoc(src []byte, file string) (doc *yamlDoc, err error) {
	defer func() {
		// yaml.v3 has panicked on hostile input in the past; a loader must
		// not take the process down.
		if r := recover(); r != nil {
			doc, err = nil, &Error{Pos: Pos{File: file}, Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, yamlError(err, file)
	}
	c := &yamlConv{file: file}
	n, cerr := c.conv(&root, 0)
	if cerr != nil {
		return nil, cerr
	}
	if n == nil {
		n = &Node{Kind: KindNull, Pos: Pos{File: file, Line: 1, Col: 1}}
	}
	return &yamlDoc{Root: n, Duplicates: c.dups}, nil
}

func yamlError(err error, file string) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	return &Error{Pos: Pos{File: file, Line: line}, Msg: "invalid YAML: " + msg}
}

type yamlConv struct {
	file  string
	count int
	dups  []*Error
}

func (c *yamlConv) pos(n *yaml.Node) Pos {
	return Pos{File: c.file, Line: n.Line, Col: n.Column}
}

func (c *yamlConv) conv(n *yaml.Node, depth int) (*Node, *Error) {
	c.count++
	if c.count > maxYAMLNodes || depth > maxJSONDepth {
		return nil, &Error{Pos: c.pos(n), Msg: "invalid YAML: document too large or too deeply nested (alias expansion)"}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.conv(n.Content[0], depth)
	case yaml.AliasNode:
		if n.Alias == nil {
			return &Node{Kind: KindNull, Pos: c.pos(n)}, nil
		}
		out, err := c.conv(n.Alias, depth+1)
		if err != nil {
			return nil, err
		}
		if out != nil {
			cp := *out
			cp.Pos = c.pos(n)
			out = &cp
		}
		return out, nil
	case yaml.SequenceNode:
		out := &Node{Kind: KindArray, Pos: c.pos(n)}
		for _, it := range n.Content {
			v, err := c.conv(it, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.ScalarNode:
		return c.scalar(n), nil
	}
	return &Node{Kind: KindNull, Pos: c.pos(n)}, nil
}

func (c *yamlConv) mapping(n *yaml.Node, depth int) (*Node, *Error) {
	out := &Node{Kind: KindObject, Pos: c.pos(n)}
	index := map[string]int{}
	set := func(key string, keyPos Pos, v *Node, merged bool) {
		if i, ok := index[key]; ok {
			if merged {
				return // explicit keys beat merged ones
			}
			c.dups = append(c.dups, &Error{Pos: keyPos, Field: key,
				Msg: fmt.Sprintf("mapping key %q already defined at line %d", key, out.Fields[i].KeyPos.Line)})
			out.Fields[i].Value, out.Fields[i].KeyPos = v, keyPos
			return
		}
		index[key] = len(out.Fields)
		out.Fields = append(out.Fields, &Field{Key: key, KeyPos: keyPos, Value: v})
	}
	var merges []*Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			m, err := c.conv(v, depth+1)
			if err != nil {
				return nil, err
			}
			merges = append(merges, m)
			continue
		}
		key := k.Value
		if k.Kind != yaml.ScalarNode {
			key = fmt.Sprintf("<%s key>", kindName(k.Kind))
		}
		val, err := c.conv(v, depth+1)
		if err != nil {
			return nil, err
		}
		if val == nil {
			val = &Node{Kind: KindNull, Pos: c.pos(v)}
		}
		set(key, c.pos(k), val, false)
	}
	for _, m := range merges {
		srcs := []*Node{m}
		if m != nil && m.Kind == KindArray {
			srcs = m.Items
		}
		for _, s := range srcs {
			if s == nil || s.Kind != KindObject {
				continue
			}
			for _, f := range s.Fields {
				set(f.Key, f.KeyPos, f.Value, true)
			}
		}
	}
	return out, nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	}
	return "complex"
}

// yaml11Bools are PyYAML's boolean spellings for plain scalars.
var yaml11Bools = map[string]bool{
	"yes": true, "Yes": true, "YES": true, "true": true, "True": true, "TRUE": true, "on": true, "On": true, "ON": true,
	"no": false, "No": false, "NO": false, "false": false, "False": false, "FALSE": false, "off": false, "Off": false, "OFF": false,
}

func (c *yamlConv) scalar(n *yaml.Node) *Node {
	p := c.pos(n)
	if n.Style == 0 { // plain
		if b, ok := yaml11Bools[n.Value]; ok {
			return &Node{Kind: KindBool, Pos: p, Bool: b}
		}
	}
	switch n.ShortTag() {
	case "!!null":
		return &Node{Kind: KindNull, Pos: p}
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return &Node{Kind: KindBool, Pos: p, Bool: b}
		}
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return &Node{Kind: KindNumber, Pos: p, Str: strconv.FormatInt(i, 10), Int: i, IsInt: true, Float: float64(i)}
		}
		var f float64
		if err := n.Decode(&f); err == nil {
			return &Node{Kind: KindNumber, Pos: p, Str: n.Value, Float: f}
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			text := n.Value
			if math.IsInf(f, 0) || math.IsNaN(f) {
				text = strconv.FormatFloat(f, 'g', -1, 64)
			}
			return &Node{Kind: KindNumber, Pos: p, Str: text, Float: f}
		}
	}
	return &Node{Kind: KindString, Pos: p, Str: n.Value}
}
