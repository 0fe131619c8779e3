package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

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
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(err, src, file)
	}
	// PyYAML's safe_load, which CrewAI reads with, refuses a stream of
	// several documents; ignoring the rest would drop settings silently.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		line, col := docStart(&next)
		return nil, &Error{Pos: Pos{File: file, Line: line, Col: col},
			Msg: "a second YAML document (after ---): a project YAML file holds one document (CrewAI's yaml.safe_load refuses more: \"expected a single document in the stream\")"}
	case !errors.Is(err, io.EOF):
		return nil, yamlError(err, src, file)
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

func yamlError(err error, src []byte, file string) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := Pos{File: file}
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		pos.Line, _ = strconv.Atoi(m[1])
		msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
	} else {
		// Encoding errors (bad UTF-8, control characters) come without a
		// position; find the first offending byte.
		pos.Line, pos.Col = badCharPos(src)
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	return &Error{Pos: pos, Msg: "invalid YAML: " + msg}
}

// badCharPos is the 1-based line and column of the first byte YAML does
// not accept in UTF-8 input: invalid UTF-8, or a control character other
// than tab, line feed and carriage return (0, 0 when there is none, or
// when the input is UTF-16, which the YAML parser decodes itself).
func badCharPos(src []byte) (line, col int) {
	if bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff}) {
		return 0, 0
	}
	line, col = 1, 1
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if (r == utf8.RuneError && size <= 1) || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return 0, 0
}

// docStart is where a YAML document node's content starts.
func docStart(n *yaml.Node) (line, col int) {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return n.Content[0].Line, n.Content[0].Column
	}
	return n.Line, n.Column
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
