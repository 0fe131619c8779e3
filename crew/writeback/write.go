package writeback

import (
	"bytes"
	"crewbench/crew/filelimit"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/session"
)

// Edit is a planned change to one of the project's files.
type Edit struct {
	// Path is the file on disk; Shown is how the project names it.
	Path, Shown string
	Old, New    []byte
	// Diff is a unified diff of the change, with the project's secrets
	// redacted.
	Diff string
	// Notes say what was written differently from what was asked (a
	// filter entry in the form CrewAI matches).
	Notes []string
	// root is the project directory: backups go under it, in BackupDir.
	root string
}

// BackupDir is where Apply keeps backups, relative to the project
// directory: outside every Python package (so nothing imports, packages or
// lints a backup), hidden, and ignored by git through its own .gitignore.
const BackupDir = ".crewbench/backups"

// ErrNothingToChange says the files already hold the requested filter:
// PlanFilter found no edit to make, so there is nothing to show or apply.
var ErrNothingToChange = errors.New("the project's files already hold this filter")

// span is one replacement in a file: src[from:to] becomes text.
type span struct {
	from, to int
	text     string
}

// PlanFilter works out how to write a static tool filter (allowed and
// blocked names; both empty removes the filter) into the declaration(s)
// of serverName in the project's own files, without writing anything.
// Only crew.jsonc agent files and crew.py can hold a tool_filter;
// crewbench.yaml is never written (the user owns it) and mcpServers files
// have no filter. It returns no edits when nothing would change.
func PlanFilter(p *project.Project, serverName string, allowed, blocked []string) ([]*Edit, error) {
	s := p.Server(serverName)
	if s == nil {
		return nil, unknownServer(p, serverName)
	}
	switch {
	case s.Spec.Ref == mcpconn.RefHTTPS || s.Spec.Ref == mcpconn.RefAMP:
		return nil, fmt.Errorf("%s is a string ref (%s): CrewAI applies tool_filter only to MCPServerStdio/HTTP/SSE configs; select one tool with #tool, or export it as a config with --format", serverName, s.Spec.RefString)
	case s.Spec.Policy == mcpconn.PolicyAdapter:
		return nil, fmt.Errorf("%s is used through MCPServerAdapter: it is filtered by the tool names passed to self.get_mcp_tools(…), not by tool_filter", serverName)
	case p.Overlay != nil && s.Pos.File == p.Overlay.Path:
		return nil, fmt.Errorf("%s is declared in %s, which crewbench never writes: set its tool_filter there yourself (the preview shows the value)", serverName, p.Overlay.Path)
	case p.Kind == project.KindMCPServers:
		return nil, fmt.Errorf("%s comes from an mcpServers file, which has no tool filter: export it with --format mcps or python and use that in your crew", serverName)
	}
	f, notes, keepsAll := canonicalFilter(serverName, mcpconn.FilterSpec{Allowed: allowed, Blocked: blocked})
	if keepsAll != "" {
		return nil, errors.New(keepsAll)
	}
	sites := declarationSites(p, s)
	if len(sites) == 0 {
		return nil, fmt.Errorf("%s: no declaration with a position to edit", serverName)
	}
	files := make([]string, 0, len(sites))
	for file := range sites {
		files = append(files, file)
	}
	sort.Strings(files)
	// Diffs quote the files as they are: hide the project's secret values
	// in them, but not with the free-text rules, which would hide the
	// placeholders and os.environ references the user needs to see.
	red := session.NewRedactor(p.SecretValues()...)
	var out []*Edit
	for _, file := range files {
		path := file
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.Dir, filepath.FromSlash(file))
		}
		src, err := filelimit.Read(path, filelimit.Source)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		var spans []span
		switch {
		case strings.HasSuffix(file, ".jsonc") || strings.HasSuffix(file, ".json"):
			spans, err = jsonFilterSpans(src, file, sites[file], f)
		case strings.HasSuffix(file, ".py"):
			spans, err = pythonFilterSpans(src, sites[file], f)
		default:
			err = fmt.Errorf("crewbench can write tool filters only into .jsonc/.json agent files and crew.py")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		updated, err := applySpans(src, spans)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if bytes.Equal(updated, src) {
			continue
		}
		if strings.HasSuffix(file, ".jsonc") || strings.HasSuffix(file, ".json") {
			// the edit must leave a file CrewAI's loader still reads
			if _, err := project.ParseJSONC(updated, file); err != nil {
				return nil, fmt.Errorf("%s: the edit would not parse (%v); nothing written", file, err)
			}
		}
		out = append(out, &Edit{Path: path, Shown: file, Old: src, New: updated, Notes: notes, root: p.Dir,
			Diff: red.RedactMarked(session.UnifiedDiff(string(src), string(updated), "a/"+file, "b/"+file, 3))})
	}
	return out, nil
}

// declarationSites are the positions of the server's declarations, by file.
func declarationSites(p *project.Project, s *project.Server) map[string][]project.Pos {
	out := map[string][]project.Pos{}
	seen := map[project.Pos]bool{}
	add := func(pos project.Pos) {
		if pos.IsValid() && pos.Line > 0 && !seen[pos] {
			seen[pos] = true
			out[pos.File] = append(out[pos.File], pos)
		}
	}
	add(s.Pos)
	for _, a := range p.Agents {
		for _, r := range a.MCPs {
			if r.Server == s.Name && r.Kind == mcpconn.RefNative {
				add(r.Pos)
			}
		}
	}
	return out
}

// jsonFilterSpans edits the tool_filter of every mcps dict at sites.
func jsonFilterSpans(src []byte, file string, sites []project.Pos, f mcpconn.FilterSpec) ([]span, error) {
	root, err := project.ParseJSONC(src, file)
	if err != nil {
		return nil, err
	}
	want := map[project.Pos]bool{}
	for _, s := range sites {
		want[s] = true
	}
	var objs []*project.Node
	var walk func(n *project.Node)
	walk = func(n *project.Node) {
		if n == nil {
			return
		}
		if n.Kind == project.KindObject && want[n.Pos] {
			objs = append(objs, n)
		}
		for _, it := range n.Items {
			walk(it)
		}
		for _, fl := range n.Fields {
			walk(fl.Value)
		}
	}
	walk(root)
	if len(objs) == 0 {
		return nil, fmt.Errorf("the server's declaration is no longer where it was loaded from; reload the project")
	}
	var spans []span
	for _, obj := range objs {
		sp, err := jsonObjectFilter(src, obj, f)
		if err != nil {
			return nil, err
		}
		spans = append(spans, sp...)
	}
	return spans, nil
}

// singleLineFilterJSON is the filter as one line, for edits.
func singleLineFilterJSON(f mcpconn.FilterSpec) string {
	parts := []string{`"type": "static"`}
	if len(f.Allowed) > 0 {
		parts = append(parts, `"allowed_tool_names": `+jsonList(f.Allowed))
	}
	if len(f.Blocked) > 0 {
		parts = append(parts, `"blocked_tool_names": `+jsonList(f.Blocked))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// jsonObjectFilter replaces, removes or adds the "tool_filter" member of
// one mcps dict, touching nothing else.
func jsonObjectFilter(src []byte, obj *project.Node, f mcpconn.FilterSpec) ([]span, error) {
	empty := !hasStatic(f)
	if fl := obj.Field("tool_filter"); fl != nil {
		vs, err := offsetOf(src, fl.Value.Pos)
		if err != nil {
			return nil, err
		}
		ve, err := jsonValueEnd(src, vs)
		if err != nil {
			return nil, err
		}
		if !empty {
			if cur := fl.Value; cur.Kind == project.KindObject && sameStatic(cur, f) {
				return nil, nil
			}
			return replaceFilterJSON(src, fl.Value, vs, ve, f)
		}
		ks, err := offsetOf(src, fl.KeyPos)
		if err != nil {
			return nil, err
		}
		return []span{removeMember(src, ks, ve)}, nil
	}
	if empty {
		return nil, nil
	}
	if len(obj.Fields) == 0 {
		return nil, fmt.Errorf("empty mcps entry")
	}
	return addMember(src, obj, `"tool_filter": `+singleLineFilterJSON(f))
}

// lineEnd is the offset of the '\n' ending the line holding i (or the end).
func lineEnd(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

// removeMember removes a member [ks, ve) and its comma; a member alone on
// its line takes the line with it.
func removeMember(src []byte, ks, ve int) span {
	after := skipJSONSpace(src, ve)
	if after < len(src) && src[after] == ',' {
		end := after + 1
		for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
			end++
		}
		start := ks
		if ls := lineStart(src, ks); strings.TrimSpace(string(src[ls:ks])) == "" && (end >= len(src) || src[end] == '\n') {
			start = ls
			if end < len(src) {
				end++
			}
		}
		return span{start, end, ""}
	}
	// the last member: take the comma before it
	k := ks - 1
	for k >= 0 && (src[k] == ' ' || src[k] == '\t' || src[k] == '\n' || src[k] == '\r') {
		k--
	}
	if k >= 0 && src[k] == ',' {
		return span{k, ve, ""}
	}
	return span{ks, ve, ""}
}

// sameStatic reports whether a JSON tool_filter node already is f.
func sameStatic(n *project.Node, f mcpconn.FilterSpec) bool {
	list := func(key string) []string {
		var out []string
		if v := n.Get(key); v != nil {
			for _, it := range v.Items {
				out = append(out, it.Str)
			}
		}
		return out
	}
	t := n.Get("type")
	return t != nil && t.Str == "static" && equalStrings(list("allowed_tool_names"), f.Allowed) && equalStrings(list("blocked_tool_names"), f.Blocked)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var (
	callHead   = regexp.MustCompile(`^(?:[A-Za-z_][\w]*\.)*(MCPServerStdio|MCPServerHTTP|MCPServerSSE)\s*\(`)
	filterKw   = regexp.MustCompile(`^tool_filter\s*=\s*`)
	listOfStrs = regexp.MustCompile(`(allowed_tool_names|blocked_tool_names)\s*=\s*\[([^\]]*)\]`)
	strLit     = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'`)
)

// pythonFilterSpans edits the tool_filter= keyword of every MCPServer…(…)
// call at sites, and adds the import of create_static_tool_filter.
func pythonFilterSpans(src []byte, sites []project.Pos, f mcpconn.FilterSpec) ([]span, error) {
	var spans []span
	done := map[int]bool{}
	for _, pos := range sites {
		off, err := offsetOf(src, pos)
		if err != nil {
			return nil, err
		}
		m := callHead.FindIndex(src[off:])
		if m == nil {
			continue // a variable naming the server: the call itself is another site
		}
		open := off + m[1] - 1
		if done[open] {
			continue
		}
		done[open] = true
		sp, err := pythonCallFilter(src, open, f)
		if err != nil {
			return nil, err
		}
		spans = append(spans, sp...)
	}
	if len(done) == 0 {
		return nil, fmt.Errorf("no MCPServer…(…) call found at the server's position")
	}
	if hasStatic(f) && len(spans) > 0 {
		if sp, ok := importSpan(src); ok {
			spans = append(spans, sp)
		}
	}
	return spans, nil
}

// pyItem is one argument of a call.
type pyItem struct{ start, end, delim int }

// pythonCallFilter edits the call whose '(' is at open.
func pythonCallFilter(src []byte, open int, f mcpconn.FilterSpec) ([]span, error) {
	var items []pyItem
	closeAt := -1
	for j := open + 1; j < len(src); {
		start := skipPySpace(src, j)
		if start < len(src) && src[start] == ')' {
			closeAt = start
			break
		}
		end, delim := pyExprEnd(src, start)
		if delim >= len(src) {
			return nil, fmt.Errorf("unclosed call at offset %d", open)
		}
		items = append(items, pyItem{start, end, delim})
		if src[delim] == ')' {
			closeAt = delim
			break
		}
		j = delim + 1
	}
	if closeAt < 0 || len(items) == 0 {
		return nil, fmt.Errorf("cannot read the call at offset %d", open)
	}
	text := staticFilterPython(f)
	empty := !hasStatic(f)
	for i, it := range items {
		kw := filterKw.FindIndex(src[it.start:it.end])
		if kw == nil {
			continue
		}
		vs := it.start + kw[1]
		if !empty {
			if sameStaticPy(string(src[vs:it.end]), f) {
				return nil, nil
			}
			return []span{{vs, it.end, replaceFilterPy(src, vs, it.end, f)}}, nil
		}
		// remove the keyword argument and one comma
		if src[it.delim] == ',' {
			end := it.delim + 1
			for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
				end++
			}
			start := it.start
			if ls := lineStart(src, it.start); strings.TrimSpace(string(src[ls:it.start])) == "" && end < len(src) && src[end] == '\n' {
				start, end = ls, end+1
			}
			return []span{{start, end, ""}}, nil
		}
		if i > 0 {
			return []span{{items[i-1].end, it.end, ""}}, nil
		}
		return []span{{it.start, it.end, ""}}, nil
	}
	if empty {
		return nil, nil
	}
	last := items[len(items)-1]
	trailing := src[last.delim] == ','
	kwText := "tool_filter=" + text
	if sameLine(src, last.start, closeAt) {
		if trailing {
			return []span{{last.delim + 1, last.delim + 1, " " + kwText + ","}}, nil
		}
		return []span{{last.end, last.end, ", " + kwText}}, nil
	}
	indent := lineIndent(src, last.start)
	if runeLen(indent+kwText)+1 > DefaultWidth {
		kwText = "tool_filter=" + multiLineFilterPy(f, indent+"    ", indent, true, true)
	}
	if trailing {
		eol := lineEnd(src, last.delim)
		return []span{{eol, eol, "\n" + indent + kwText + ","}}, nil
	}
	eol := lineEnd(src, last.end)
	if eol > closeAt {
		eol = closeAt
	}
	return []span{{last.end, last.end, ","}, {eol, eol, "\n" + indent + kwText}}, nil
}

// replaceFilterPy is the text that replaces the tool_filter value
// src[vs:ve], laid out as the old one was: an old value over several lines
// gives one argument per line at the old indentation (with the old
// trailing comma and closing line); a one-line value stays on one line
// unless the line would grow past DefaultWidth.
func replaceFilterPy(src []byte, vs, ve int, f mcpconn.FilterSpec) string {
	one := staticFilterPython(f)
	if sameLine(src, vs, ve) {
		before, after := string(src[lineStart(src, vs):vs]), string(src[ve:lineEnd(src, ve)])
		if n := runeLen(before + one + after); n <= DefaultWidth || n <= runeLen(before+string(src[vs:ve])+after) {
			return one
		}
		indent := lineIndent(src, vs)
		return multiLineFilterPy(f, indent+"    ", indent, true, true)
	}
	old := src[vs:ve]
	closeIndent := lineIndent(src, ve-1)
	inner := closeIndent + "    "
	// the first argument's line gives the inner indentation
	if nl := bytes.IndexByte(old, '\n'); nl >= 0 {
		if a := skipPySpace(src, vs+nl+1); a < ve && !sameLine(src, a, ve-1) {
			inner = lineIndent(src, a)
		}
	}
	lastLine := strings.TrimSpace(string(src[lineStart(src, ve-1):ve]))
	closeOwn := strings.HasPrefix(lastLine, ")")
	k := ve - 2 // before the closing parenthesis
	for k > vs && (src[k] == ' ' || src[k] == '\t' || src[k] == '\n' || src[k] == '\r') {
		k--
	}
	return multiLineFilterPy(f, inner, closeIndent, src[k] == ',', closeOwn)
}

// multiLineFilterPy is create_static_tool_filter(…) with one argument per
// line at inner (each wrapped at DefaultWidth); the closing parenthesis
// goes on its own line at closeIndent when closeOwn, else after the last
// argument.
func multiLineFilterPy(f mcpconn.FilterSpec, inner, closeIndent string, trailingComma, closeOwn bool) string {
	var args []string
	if len(f.Allowed) > 0 {
		args = append(args, "allowed_tool_names="+pyList(f.Allowed))
	}
	if len(f.Blocked) > 0 {
		args = append(args, "blocked_tool_names="+pyList(f.Blocked))
	}
	var b strings.Builder
	b.WriteString("create_static_tool_filter(")
	for i, a := range args {
		if i < len(args)-1 || (trailingComma && closeOwn) {
			a += ","
		}
		b.WriteString("\n" + WrapPython(inner+a, DefaultWidth))
	}
	if closeOwn {
		b.WriteString("\n" + closeIndent)
	}
	b.WriteString(")")
	return b.String()
}

func skipPySpace(src []byte, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\\':
			i++
		case src[i] == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// sameStaticPy reports whether a create_static_tool_filter(…) expression
// already lists f's names.
func sameStaticPy(expr string, f mcpconn.FilterSpec) bool {
	if !strings.Contains(expr, "create_static_tool_filter") && !strings.Contains(expr, "StaticToolFilter") {
		return false
	}
	got := map[string][]string{}
	for _, m := range listOfStrs.FindAllStringSubmatch(expr, -1) {
		for _, s := range strLit.FindAllStringSubmatch(m[2], -1) {
			got[m[1]] = append(got[m[1]], s[1]+s[2])
		}
	}
	return equalStrings(got["allowed_tool_names"], f.Allowed) && equalStrings(got["blocked_tool_names"], f.Blocked)
}

var (
	crewaiMCPImport = regexp.MustCompile(`(?m)^from[ \t]+crewai\.mcp[ \t]+import[ \t]+`)
	topImport       = regexp.MustCompile(`(?m)^(?:from[ \t]+\S+[ \t]+import|import)[ \t]`)
	createFilterRef = regexp.MustCompile(`\bcreate_static_tool_filter\b`)
)

// importSpan adds create_static_tool_filter to crew.py's imports unless an
// import statement already names it.
func importSpan(src []byte) (span, bool) {
	for _, loc := range topImport.FindAllIndex(src, -1) {
		end := importEnd(src, loc[0])
		if createFilterRef.Match(src[loc[0]:end]) {
			return span{}, false
		}
	}
	if loc := crewaiMCPImport.FindIndex(src); loc != nil {
		end := importEnd(src, loc[0])
		stmt := src[loc[0]:end]
		if i := bytes.IndexByte(stmt, '('); i >= 0 {
			closeAt := loc[0] + bytes.LastIndexByte(stmt, ')')
			ls := lineStart(src, closeAt)
			if strings.TrimSpace(string(src[ls:closeAt])) == "" {
				// one name per line: add a line before ")"
				indent := "    "
				if prev := lineStart(src, ls-1); prev > loc[0] {
					indent = lineIndent(src, prev)
				}
				return span{ls, ls, indent + "create_static_tool_filter,\n"}, true
			}
			k := closeAt
			for k > 0 && (src[k-1] == ' ' || src[k-1] == '\t') {
				k--
			}
			if src[k-1] == ',' {
				return span{k, k, " create_static_tool_filter"}, true
			}
			return span{k, k, ", create_static_tool_filter"}, true
		}
		// a one-line import: append before any comment
		line := src[loc[0]:end]
		cut := len(line)
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			cut = i
		}
		k := loc[0] + cut
		for k > loc[0] && (src[k-1] == ' ' || src[k-1] == '\t' || src[k-1] == '\n' || src[k-1] == '\r') {
			k--
		}
		return span{k, k, ", create_static_tool_filter"}, true
	}
	// no crewai.mcp import: add one after the last top-level import
	at := 0
	for _, loc := range topImport.FindAllIndex(src, -1) {
		at = importEnd(src, loc[0])
		if at < len(src) && src[at] == '\n' {
			at++
		}
	}
	return span{at, at, "from crewai.mcp import create_static_tool_filter\n"}, true
}

// importEnd is the end of the import statement starting at i (past its
// closing parenthesis for a parenthesized one), before the newline.
func importEnd(src []byte, i int) int {
	e := lineEnd(src, i)
	if p := bytes.IndexByte(src[i:e], '('); p >= 0 && bytes.IndexByte(src[i:e], ')') < 0 {
		if c := indexByteFrom(src, e, ')'); c >= 0 {
			return lineEnd(src, c)
		}
	}
	return e
}

func indexByteFrom(src []byte, from int, c byte) int {
	if j := bytes.IndexByte(src[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// applySpans applies non-overlapping replacements.
func applySpans(src []byte, spans []span) ([]byte, error) {
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b bytes.Buffer
	last := 0
	for _, s := range spans {
		if s.from < last || s.to < s.from || s.to > len(src) {
			return nil, fmt.Errorf("overlapping edits at offset %d", s.from)
		}
		b.Write(src[last:s.from])
		b.WriteString(s.text)
		last = s.to
	}
	b.Write(src[last:])
	return b.Bytes(), nil
}

// Apply writes the edit: it keeps a backup of the file as it was, under
// the project's BackupDir (<file>.<time>.bak), then replaces the file
// atomically. It refuses when the file changed since the edit was planned.
func (e *Edit) Apply() (backup string, err error) {
	cur, err := filelimit.Read(e.Path, filelimit.Source)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", e.Shown, err)
	}
	if !bytes.Equal(cur, e.Old) {
		return "", fmt.Errorf("%s changed since the diff was made: nothing written, run again", e.Shown)
	}
	st, err := os.Stat(e.Path)
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", e.Shown, err)
	}
	mode := st.Mode().Perm()
	backup, err = e.backupPath(time.Now())
	if err != nil {
		return "", err
	}
	if err := writeNew(backup, e.Old, mode); err != nil {
		return "", fmt.Errorf("writing the backup %s: %w", backup, err)
	}
	if err := replaceFile(e.Path, e.New, mode); err != nil {
		return backup, fmt.Errorf("writing %s (the original is in %s): %w", e.Shown, backup, err)
	}
	return backup, nil
}

// backupPath picks a backup name that does not exist yet, creating the
// backup directory (with a .gitignore of its own, so the user's
// repository never needs an entry) when needed.
func (e *Edit) backupPath(now time.Time) (string, error) {
	root := e.root
	if root == "" {
		root = filepath.Dir(e.Path)
	}
	rel := filepath.FromSlash(e.Shown)
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = filepath.Base(e.Path) // a file outside the project
	}
	top := filepath.Join(root, filepath.FromSlash(filepath.Dir(BackupDir)))
	dir := filepath.Join(root, filepath.FromSlash(BackupDir), filepath.Dir(rel))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating the backup directory: %w", err)
	}
	ignore := filepath.Join(top, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := writeNew(ignore, []byte("# crewbench's backups and state: not part of the project\n*\n"), 0o644); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("writing %s: %w", ignore, err)
		}
	}
	base := filepath.Join(dir, filepath.Base(rel)+"."+now.Format("20060102-150405"))
	for i := 0; i < 100; i++ {
		cand := base + ".bak"
		if i > 0 {
			cand = fmt.Sprintf("%s-%d.bak", base, i)
		}
		if _, err := os.Lstat(cand); errors.Is(err, os.ErrNotExist) {
			return cand, nil
		}
	}
	return "", fmt.Errorf("no free backup name for %s", e.Shown)
}

// writeNew creates path exclusively (a backup never overwrites a file).
func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replaceFile writes data to a temporary file beside path and renames it
// over path, so a crash leaves either the old or the new file.
func replaceFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".crewbench-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(name, path)
}
