package writeback

import (
	"strings"

	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/session"
)

// Writing a static filter over an existing JSON tool_filter keeps the
// user's layout, as the Python writeback does: only the lists that change
// are edited, an array with one entry per line keeps one entry per line at
// its indentation, and comments, blank lines and a trailing comma inside
// it stay where they are.

// replaceFilterJSON is the spans that turn the tool_filter value old
// (starting at vs, ending at ve) into the static filter f.
func replaceFilterJSON(src []byte, old *project.Node, vs, ve int, f mcpconn.FilterSpec) ([]span, error) {
	if !editableStatic(old) {
		return []span{{vs, ve, filterJSONLike(src, vs, ve, f)}}, nil
	}
	var spans []span
	for _, l := range []struct {
		key     string
		entries []string
	}{{"allowed_tool_names", f.Allowed}, {"blocked_tool_names", f.Blocked}} {
		fl := old.Field(l.key)
		switch {
		case fl == nil && len(l.entries) > 0:
			sp, err := addMember(src, old, `"`+l.key+`": `+jsonList(l.entries))
			if err != nil {
				return nil, err
			}
			spans = append(spans, sp...)
		case fl == nil:
		case len(l.entries) == 0:
			ks, err := offsetOf(src, fl.KeyPos)
			if err != nil {
				return nil, err
			}
			as, err := offsetOf(src, fl.Value.Pos)
			if err != nil {
				return nil, err
			}
			ae, err := jsonValueEnd(src, as)
			if err != nil {
				return nil, err
			}
			spans = append(spans, removeMember(src, ks, ae))
		default:
			sp, err := editArray(src, fl.Value, l.entries)
			if err != nil {
				return nil, err
			}
			spans = append(spans, sp...)
		}
	}
	return spans, nil
}

// editableStatic reports whether a JSON tool_filter is a static filter
// whose lists can be edited in place: an object of type "static" (or none)
// holding only the type and string lists.
func editableStatic(n *project.Node) bool {
	if n == nil || n.Kind != project.KindObject {
		return false
	}
	for _, fl := range n.Fields {
		switch fl.Key {
		case "type":
			if fl.Value.Kind != project.KindString || fl.Value.Str != "static" {
				return false
			}
		case "allowed_tool_names", "blocked_tool_names":
			if fl.Value.Kind != project.KindArray {
				return false
			}
			for _, it := range fl.Value.Items {
				if it.Kind != project.KindString {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// filterJSONLike is f as a whole JSON value in place of src[vs:ve]: on one
// line when the old value was, else one member per line at the old
// value's indentation.
func filterJSONLike(src []byte, vs, ve int, f mcpconn.FilterSpec) string {
	if sameLine(src, vs, ve) {
		return singleLineFilterJSON(f)
	}
	indent := lineIndent(src, ve-1)
	parts := []string{`"type": "static"`}
	if len(f.Allowed) > 0 {
		parts = append(parts, `"allowed_tool_names": `+jsonList(f.Allowed))
	}
	if len(f.Blocked) > 0 {
		parts = append(parts, `"blocked_tool_names": `+jsonList(f.Blocked))
	}
	return "{\n" + indent + "  " + strings.Join(parts, ",\n"+indent+"  ") + "\n" + indent + "}"
}

// addMember adds member after the last member of obj, on the same line
// when obj's last member shares a line with its closing brace, else on a
// line of its own at the last member's indentation; a trailing comma
// stays trailing.
func addMember(src []byte, obj *project.Node, member string) ([]span, error) {
	last := obj.Fields[len(obj.Fields)-1]
	lk, err := offsetOf(src, last.KeyPos)
	if err != nil {
		return nil, err
	}
	lvs, err := offsetOf(src, last.Value.Pos)
	if err != nil {
		return nil, err
	}
	lve, err := jsonValueEnd(src, lvs)
	if err != nil {
		return nil, err
	}
	objStart, err := offsetOf(src, obj.Pos)
	if err != nil {
		return nil, err
	}
	oe, err := jsonValueEnd(src, objStart)
	if err != nil {
		return nil, err
	}
	closing := oe - 1
	after := skipJSONSpace(src, lve)
	trailing := after < len(src) && src[after] == ','
	if sameLine(src, lk, closing) {
		if trailing {
			return []span{{after + 1, after + 1, " " + member + ","}}, nil
		}
		return []span{{lve, lve, ", " + member}}, nil
	}
	indent := lineIndent(src, lk)
	if trailing {
		eol := lineEnd(src, after)
		return []span{{eol, eol, "\n" + indent + member + ","}}, nil
	}
	eol := lineEnd(src, lve)
	if eol > closing {
		eol = closing
	}
	return []span{{lve, lve, ","}, {eol, eol, "\n" + indent + member}}, nil
}

// editArray makes the JSON string array arr hold entries. An array with
// one entry per line (its brackets on lines of their own) is edited line
// by line: lines of entries that stay are kept with their comments,
// removed entries' lines go, new entries get lines of their own at the
// entries' indentation, and the last entry has a comma after it only if
// it had one before. Any other array is rewritten on one line.
func editArray(src []byte, arr *project.Node, entries []string) ([]span, error) {
	as, err := offsetOf(src, arr.Pos)
	if err != nil {
		return nil, err
	}
	ae, err := jsonValueEnd(src, as)
	if err != nil {
		return nil, err
	}
	var old []string
	for _, it := range arr.Items {
		old = append(old, it.Str)
	}
	if equalStrings(old, entries) {
		return nil, nil
	}
	closing := ae - 1
	starts := make([]int, len(arr.Items))
	for i, it := range arr.Items {
		if starts[i], err = offsetOf(src, it.Pos); err != nil {
			return nil, err
		}
	}
	if !onePerLine(src, as, closing, starts) {
		return []span{{as, ae, jsonList(entries)}}, nil
	}
	from, to := lineEnd(src, as)+1, lineStart(src, closing)
	indent := lineIndent(src, closing) + "  "
	if len(starts) > 0 {
		indent = lineIndent(src, starts[0])
	}
	trailingComma := false
	if len(starts) > 0 {
		e, err := jsonStringEnd(src, starts[len(starts)-1])
		if err != nil {
			return nil, err
		}
		a := skipJSONSpace(src, e)
		trailingComma = a < closing && src[a] == ','
	}
	keep := keptEntries(old, entries) // old index -> new index, or -1
	// the output: lines, and for each the entry it holds (-1: none)
	type line struct {
		text  string // without the comma an entry line may get
		entry bool
		rest  string // after the entry's comma: spaces and a comment
	}
	var out []line
	next := 0 // the next new entry to place
	insertUpTo := func(j int) {
		for ; next < j; next++ {
			out = append(out, line{text: indent + jsonStr(entries[next]), entry: true})
		}
	}
	lastEntryLine := -1
	k := 0 // the next old entry
	for pos := from; pos < to; {
		eol := lineEnd(src, pos)
		text := string(src[pos:eol])
		if k < len(starts) && starts[k] >= pos && starts[k] < eol {
			if j := keep[k]; j >= 0 {
				insertUpTo(j)
				e, err := jsonStringEnd(src, starts[k])
				if err != nil {
					return nil, err
				}
				rest := string(src[e:eol])
				trimmed := strings.TrimLeft(rest, " \t")
				if strings.HasPrefix(trimmed, ",") {
					rest = trimmed[1:]
				}
				out = append(out, line{text: string(src[pos:e]), entry: true, rest: rest})
				next = j + 1
			}
			lastEntryLine = len(out) - 1
			k++
		} else {
			out = append(out, line{text: text})
		}
		pos = eol + 1
	}
	// entries after the last kept one go after the last entry line
	var tail []line
	if lastEntryLine+1 < len(out) {
		tail = append(tail, out[lastEntryLine+1:]...)
		out = out[:lastEntryLine+1]
	}
	insertUpTo(len(entries))
	out = append(out, tail...)
	lastEntry := -1
	for i, l := range out {
		if l.entry {
			lastEntry = i
		}
	}
	var b strings.Builder
	for i, l := range out {
		b.WriteString(l.text)
		if l.entry && (i != lastEntry || trailingComma) {
			b.WriteByte(',')
		}
		b.WriteString(l.rest)
		b.WriteByte('\n')
	}
	return []span{{from, to, b.String()}}, nil
}

// onePerLine reports whether the array from '[' at open to ']' at closing
// has its brackets ending and starting lines of their own and each entry
// (starting at starts) on a line of its own.
func onePerLine(src []byte, open, closing int, starts []int) bool {
	if sameLine(src, open, closing) || skipSpaceOnLine(src, open+1) != lineEnd(src, open) ||
		strings.TrimSpace(string(src[lineStart(src, closing):closing])) != "" {
		return false
	}
	for i, s := range starts {
		if strings.TrimSpace(string(src[lineStart(src, s):s])) != "" {
			return false
		}
		if i > 0 && sameLine(src, starts[i-1], s) {
			return false
		}
	}
	return true
}

// skipSpaceOnLine skips spaces, tabs and comments from i, up to the end of
// its line.
func skipSpaceOnLine(src []byte, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\r':
			i++
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
			return lineEnd(src, i)
		default:
			return i
		}
	}
	return i
}

// keptEntries maps each old entry to its index among the new entries when
// it stays (a longest common subsequence, so kept entries keep their order
// and their lines), or to -1 when it goes. On a tie the new entry is
// placed first, so the earlier old entry is the one kept.
func keptEntries(old, entries []string) []int {
	n, m := len(old), len(entries)
	lcs := session.LCSTable(old, entries)
	out := make([]int, n)
	i, j := 0, 0
	for i < n {
		switch {
		case j < m && old[i] == entries[j]:
			out[i] = j
			i++
			j++
		case j < m && lcs[i][j+1] >= lcs[i+1][j]:
			j++
		default:
			out[i] = -1
			i++
		}
	}
	return out
}
