package mcpconn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Tool-call arguments travel through mcpconn as JSON text, not as Go maps:
// CrewAI sends a dict in its insertion order (the argument model's field
// order after validation, mcp/client.py:545-592 keeps it), and a Go map
// would have encoding/json sort the keys. The small ordered tree below is
// what the per-policy argument preparation works on.

// jsonMember is one key of an ordered JSON object.
type jsonMember struct {
	key string
	val any // nil, bool, json.Number, string, []any or jsonObject
}

// jsonObject is a JSON object in its key order.
type jsonObject []jsonMember

// parseArguments reads a tool call's arguments: a JSON object, or nothing
// (empty or null, CrewAI's `arguments or {}`). A repeated key keeps its
// first position and its last value, as Python's json.loads builds a dict.
func parseArguments(raw json.RawMessage) (jsonObject, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return jsonObject{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, fmt.Errorf("tool arguments: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("tool arguments: text after the JSON object")
	}
	o, ok := v.(jsonObject)
	if !ok {
		return nil, errors.New("tool arguments: not a JSON object")
	}
	return o, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o jsonObject
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o = o.set(k, v)
			}
			_, err := dec.Token() // '}'
			if o == nil {
				o = jsonObject{}
			}
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// set replaces k's value in place, or appends k.
func (o jsonObject) set(k string, v any) jsonObject {
	for i := range o {
		if o[i].key == k {
			o[i].val = v
			return o
		}
	}
	return append(o, jsonMember{k, v})
}

// encodeArguments writes the object compactly in its key order, with
// non-ASCII and HTML characters as they are (as pydantic's JSON does) and
// number literals unchanged (2.0 stays 2.0).
func encodeArguments(o jsonObject) json.RawMessage {
	var b bytes.Buffer
	writeValue(&b, o)
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(x.String())
	case string:
		writeString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case jsonObject:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.key)
			b.WriteByte(':')
			writeValue(b, m.val)
		}
		b.WriteByte('}')
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// mapArguments is the JSON text of arguments held in a Go map (keys
// sorted, the only order a map has).
func mapArguments(args map[string]any) json.RawMessage {
	if args == nil {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(args)
	if err != nil {
		// Values that are not JSON (a func, a channel) cannot come from a
		// decoded document; send what encodes.
		return json.RawMessage("{}")
	}
	return b
}

// policyArguments prepares arguments the way each path does: MCPClient's
// cleaning (native, and crewbench's session mode); mcpadapt drops only
// top-level None values; the https-string wrapper passes them unchanged.
// The key order is kept on every path.
func policyArguments(p Policy, raw json.RawMessage) (json.RawMessage, error) {
	o, err := parseArguments(raw)
	if err != nil {
		return nil, err
	}
	switch p {
	case PolicyAdapter:
		out := jsonObject{}
		for _, m := range o {
			if m.val != nil {
				out = append(out, m)
			}
		}
		return encodeArguments(out), nil
	case PolicyHTTPSString:
		return encodeArguments(o), nil
	}
	return encodeArguments(cleanObject(o)), nil
}

// CleanArguments is MCPClient._clean_tool_arguments (§4.2,
// crewai-fidelity-gaps.md B14, mcp/client.py:545-592) on a JSON object,
// keeping its key order: keys whose value is null are dropped; nested
// objects are cleaned and dropped when they end up empty; in an array,
// null items are dropped and object items cleaned (and dropped when
// empty), but arrays inside arrays are kept as they are; an array that
// ends up empty is dropped. A key named exactly "sources" holding an array
// has each string item s rewritten to {"type": s} and every other item
// kept untouched, nulls included (an empty one is dropped). Arguments that
// are not a JSON object are an error.
func CleanArguments(raw json.RawMessage) (json.RawMessage, error) {
	o, err := parseArguments(raw)
	if err != nil {
		return nil, err
	}
	return encodeArguments(cleanObject(o)), nil
}

func cleanObject(o jsonObject) jsonObject {
	out := jsonObject{}
	for _, m := range o {
		if m.val == nil {
			continue
		}
		if list, ok := m.val.([]any); ok && m.key == "sources" {
			if len(list) == 0 {
				continue
			}
			fixed := make([]any, len(list))
			for i, item := range list {
				if s, ok := item.(string); ok {
					fixed[i] = jsonObject{{"type", s}}
				} else {
					fixed[i] = item
				}
			}
			out = append(out, jsonMember{m.key, fixed})
			continue
		}
		if cv, keep := cleanValue(m.val); keep {
			out = append(out, jsonMember{m.key, cv})
		}
	}
	return out
}

// cleanValue cleans a value under an object key.
func cleanValue(v any) (any, bool) {
	switch x := v.(type) {
	case jsonObject:
		m := cleanObject(x)
		return m, len(m) > 0
	case []any:
		list := make([]any, 0, len(x))
		for _, item := range x {
			switch it := item.(type) {
			case nil:
			case jsonObject:
				if m := cleanObject(it); len(m) > 0 {
					list = append(list, m)
				}
			default:
				list = append(list, item)
			}
		}
		return list, len(list) > 0
	}
	return v, true
}
