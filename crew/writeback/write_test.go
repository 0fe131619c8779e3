package writeback

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/session"
)

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeAndCheck writes a filter, then checks that the file became exactly
// old with each of the replacements applied (so nothing else moved), that
// a backup holds the old content, and that the project loads with the
// filter.
func writeAndCheck(t *testing.T, dir, server, file string, allowed, blocked []string, repl ...string) {
	t.Helper()
	p := open(t, dir)
	before := read(t, dir, file)
	diff, backups, err := writeFilter(p, server, allowed, blocked)
	if err != nil {
		t.Fatalf("WriteFilter: %v", err)
	}
	want := before
	for i := 0; i+1 < len(repl); i += 2 {
		if !strings.Contains(want, repl[i]) {
			t.Fatalf("test bug: %s has no %q", file, repl[i])
		}
		want = strings.Replace(want, repl[i], repl[i+1], 1)
	}
	if got := read(t, dir, file); got != want {
		t.Fatalf("%s after the edit:\n%s\nwant:\n%s\ndiff:\n%s", file, got, want, diff)
	}
	found := false
	for _, b := range backups {
		if bb, err := os.ReadFile(b); err == nil && string(bb) == before && strings.HasPrefix(b, filepath.Join(dir, ".crewbench", "backups", filepath.FromSlash(file))+".") {
			found = true
		}
	}
	if !found {
		t.Errorf("no backup of %s with the old content among %v", file, backups)
	}
	if !strings.Contains(diff, "--- a/"+file+"\n+++ b/"+file+"\n@@ ") {
		t.Errorf("diff header:\n%s", diff)
	}
	q := open(t, dir)
	got := q.Server(server).Spec.Filter
	if !equalStrings(got.Allowed, clean(allowed)) || !equalStrings(got.Blocked, clean(blocked)) {
		t.Errorf("reloaded filter %+v, want allowed %v blocked %v", got, allowed, blocked)
	}
}

func TestWriteFilterJSONC(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "json_crew"))

	// replace a multi-line filter, in both agent files that declare the server
	p := open(t, dir)
	edits, err := PlanFilter(p, "inventory", []string{"lookup_stock"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 2 || edits[0].Shown != "agents/a.jsonc" || edits[1].Shown != "agents/b.jsonc" {
		t.Fatalf("edits: %+v", edits)
	}
	// only the lists change, laid out as they were
	oldFilter := `"allowed_tool_names": ["lookup_stock", "list_warehouses"],
        "blocked_tool_names": ["delete_item"]
      }`
	newFilter := `"allowed_tool_names": ["lookup_stock"]
      }`
	wantDiff := `--- a/agents/a.jsonc
+++ b/agents/a.jsonc
@@ -10,8 +10,7 @@
       "env": {"LOG_LEVEL": "warn"},
       "tool_filter": {
         "type": "static",
-        "allowed_tool_names": ["lookup_stock", "list_warehouses"],
-        "blocked_tool_names": ["delete_item"]
+        "allowed_tool_names": ["lookup_stock"]
       },
       "cache_tools_list": true
     },
`
	if edits[0].Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", edits[0].Diff, wantDiff)
	}
	writeAndCheck(t, dir, "inventory", "agents/a.jsonc", []string{"lookup_stock"}, nil, oldFilter, newFilter)
	if !strings.Contains(read(t, dir, "agents/b.jsonc"), newFilter) {
		t.Errorf("the second declaration was not edited:\n%s", read(t, dir, "agents/b.jsonc"))
	}

	// add a filter to a multi-line entry with a trailing comma
	writeAndCheck(t, dir, "example", "agents/a.jsonc", []string{"search"}, []string{"delete"},
		`"streamable": false,
    },`, `"streamable": false,
      "tool_filter": {"type": "static", "allowed_tool_names": ["search"], "blocked_tool_names": ["delete"]},
    },`)

	// add a filter to a one-line entry followed by a comment
	writeAndCheck(t, dir, "time", "agents/a.jsonc", []string{"get_current_time"}, nil,
		`{ "command": "uvx", "args": ["mcp-server-time"] }`,
		`{ "command": "uvx", "args": ["mcp-server-time"], "tool_filter": {"type": "static", "allowed_tool_names": ["get_current_time"]} }`)

	// remove a filter (the last member: its comma goes too)
	writeAndCheck(t, dir, "time", "agents/a.jsonc", nil, nil,
		`, "tool_filter": {"type": "static", "allowed_tool_names": ["get_current_time"]} }`, ` }`)

	// remove a filter that is not the last member
	writeAndCheck(t, dir, "inventory", "agents/b.jsonc", nil, nil,
		`      "tool_filter": {
        "type": "static",
        "allowed_tool_names": ["lookup_stock"]
      },
`, ``)

	// comments all survived
	a := read(t, dir, "agents/a.jsonc")
	for _, c := range []string{"// keep this comment", "/* the inventory server, with a filter */", "// a remote server without a filter, trailing comma", "// one line, no filter"} {
		if !strings.Contains(a, c) {
			t.Errorf("comment %q lost:\n%s", c, a)
		}
	}
	// nothing to change
	if _, _, err := writeFilter(open(t, dir), "example", []string{"search"}, []string{"delete"}); !errors.Is(err, ErrNothingToChange) {
		t.Errorf("same filter again: %v", err)
	}
}

func TestWriteFilterPython(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "classic"))
	const file = "src/shop/crew.py"

	// a call without a filter, multi-line without a trailing comma, and
	// the import added to the parenthesized crewai.mcp import
	writeAndCheck(t, dir, "inventory", file, []string{"lookup_stock"}, nil,
		`    create_dynamic_tool_filter,
)`, `    create_dynamic_tool_filter,
    create_static_tool_filter,
)`,
		`    cache_tools_list=True,
)`, `    cache_tools_list=True,
    tool_filter=create_static_tool_filter(allowed_tool_names=["lookup_stock"]),
)`)

	// a one-line call
	writeAndCheck(t, dir, "legacy", file, []string{"get_x"}, nil,
		`headers={"X-Client": "crewbench"})`,
		`headers={"X-Client": "crewbench"}, tool_filter=create_static_tool_filter(allowed_tool_names=["get_x"]))`)

	// replace a dynamic filter that is the last argument (no trailing comma)
	writeAndCheck(t, dir, "docs", file, []string{"search"}, []string{"write_doc"},
		`tool_filter=create_dynamic_tool_filter(no_writes)`,
		`tool_filter=create_static_tool_filter(
        allowed_tool_names=["search"],
        blocked_tool_names=["write_doc"],
    )`)

	// remove one (comma handling)
	writeAndCheck(t, dir, "legacy", file, nil, nil,
		`, tool_filter=create_static_tool_filter(allowed_tool_names=["get_x"])`, ``)
	writeAndCheck(t, dir, "inventory", file, nil, nil,
		`    tool_filter=create_static_tool_filter(allowed_tool_names=["lookup_stock"]),
`, ``)
	if src := read(t, dir, file); !strings.Contains(src, "# not a secret") || strings.Count(src, "create_static_tool_filter,") != 1 {
		t.Errorf("comment or import lost:\n%s", src)
	}
}

func TestWriteFilterImportForms(t *testing.T) {
	cases := []struct{ before, after string }{
		{"from crewai.mcp import MCPServerStdio\n", "from crewai.mcp import MCPServerStdio, create_static_tool_filter\n"},
		{"from crewai.mcp import (MCPServerStdio)\n", "from crewai.mcp import (MCPServerStdio, create_static_tool_filter)\n"},
		{"import os\nfrom crewai import Agent\n", "import os\nfrom crewai import Agent\nfrom crewai.mcp import create_static_tool_filter\n"},
		{"from crewai.mcp import MCPServerStdio, create_static_tool_filter\n", "from crewai.mcp import MCPServerStdio, create_static_tool_filter\n"},
	}
	for _, c := range cases {
		src := []byte(c.before)
		var got []byte
		if sp, ok := importSpan(src); ok {
			var err error
			if got, err = applySpans(src, []span{sp}); err != nil {
				t.Fatal(err)
			}
		} else {
			got = src
		}
		if string(got) != c.after {
			t.Errorf("import into %q: got %q, want %q", c.before, got, c.after)
		}
	}
}

func TestWriteFilterRefusals(t *testing.T) {
	cases := []struct {
		dir, server, want string
	}{
		{"json_crew", "docs#search_docs", "string ref"},
		{"mcpservers", "inventory", "mcpServers file"},
		{"overlay", "scratch", "crewbench never writes"},
		{"json_crew", "nope", "no server"},
	}
	for _, c := range cases {
		p := open(t, filepath.Join("testdata", c.dir))
		if _, err := PlanFilter(p, c.server, []string{"x"}, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%s: %v, want an error about %q", c.dir, c.server, err, c.want)
		}
	}
	// an adapter server is filtered by get_mcp_tools names
	p := open(t, filepath.Join("..", "project", "testdata", "classic", "adapter"))
	for _, s := range p.Servers {
		if s.Spec.Policy == mcpconn.PolicyAdapter {
			if _, err := PlanFilter(p, s.Name, []string{"x"}, nil); err == nil || !strings.Contains(err.Error(), "get_mcp_tools") {
				t.Errorf("adapter server %s: %v", s.Name, err)
			}
			break
		}
	}
}

// A file edited after the diff was made is not overwritten; backups never
// overwrite each other.
func TestApplyIsSafe(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "json_crew"))
	p := open(t, dir)
	edits, err := PlanFilter(p, "time", []string{"a"}, nil)
	if err != nil || len(edits) != 1 {
		t.Fatalf("plan: %v %v", edits, err)
	}
	path := filepath.Join(dir, "agents", "a.jsonc")
	if err := os.WriteFile(path, append(edits[0].Old, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := edits[0].Apply(); err == nil || !strings.Contains(err.Error(), "changed since the diff was made") {
		t.Fatalf("stale apply: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".crewbench")); !os.IsNotExist(err) {
		t.Errorf("a refused apply left a backup: %v", err)
	}
	// two writes: two distinct backups
	var backups []string
	for _, allow := range [][]string{{"a"}, {"b"}} {
		_, b, err := writeFilter(open(t, dir), "time", allow, nil)
		if err != nil {
			t.Fatal(err)
		}
		backups = append(backups, b...)
	}
	if len(backups) != 2 || backups[0] == backups[1] {
		t.Fatalf("backups: %v", backups)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode after the edit: %v %v", st, err)
	}
}

// Diffs shown to the user hide the project's secrets in context lines.
func TestDiffRedactsSecrets(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "secrets"))
	p := open(t, dir)
	edits, err := PlanFilter(p, "github", []string{"list_issues"}, nil)
	if err != nil || len(edits) != 1 {
		t.Fatalf("plan: %v %v", edits, err)
	}
	if strings.Contains(edits[0].Diff, "ghp_0123456789abcdefghij") || !strings.Contains(edits[0].Diff, "«redacted»") {
		t.Errorf("diff shows the secret:\n%s", edits[0].Diff)
	}
	// the file itself keeps the value: only the filter changes
	if !strings.Contains(string(edits[0].New), "ghp_0123456789abcdefghij") {
		t.Error("the edit touched the env value")
	}
}

// Fuzz: editing the filter of any object in any JSONC text never panics,
// and when the edit succeeds the result parses and holds the filter.
func FuzzJSONFilterEdit(f *testing.F) {
	for _, s := range []string{
		`{"command": "x", "args": []}`,
		"{\n  \"command\": \"x\", // c\n  \"tool_filter\": {\"type\": \"static\"},\n}",
		"[{\"url\": \"u\" /* c */ , \"tool_filter\": {\"type\": \"static\", \"allowed_tool_names\": [\"a\"]}}]",
		`{"a": {"b": [1, 2, {"c": "}"}]}}`,
	} {
		f.Add(s, "lookup_stock")
	}
	f.Fuzz(func(t *testing.T, src, name string) {
		root, err := project.ParseJSONC([]byte(src), "f.jsonc")
		if err != nil {
			return
		}
		var objs []*project.Node
		var walk func(n *project.Node)
		walk = func(n *project.Node) {
			if n == nil {
				return
			}
			if n.Kind == project.KindObject && len(n.Fields) > 0 {
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
		for _, obj := range objs {
			for _, filt := range []mcpconn.FilterSpec{{Allowed: []string{name}}, {}} {
				spans, err := jsonObjectFilter([]byte(src), obj, filt)
				if err != nil {
					continue
				}
				out, err := applySpans([]byte(src), spans)
				if err != nil {
					continue
				}
				if _, err := project.ParseJSONC(out, "f.jsonc"); err != nil && len(spans) > 0 {
					t.Fatalf("edit of %q with %+v gives unparsable %q: %v", src, filt, out, err)
				}
			}
		}
	})
}

// Fuzz: the Python scanners never panic and stay inside the text.
func FuzzPythonScan(f *testing.F) {
	for _, s := range []string{
		`MCPServerStdio(command="python", args=["a.py"], tool_filter=create_static_tool_filter(allowed_tool_names=["a"]))`,
		"X(\n  a='''x)\n''', # c)\n  b=f\"{y}\",\n)",
		`X(a=r"\", b=1)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		b := []byte(src)
		for i := 0; i <= len(b); i++ {
			end, delim := pyExprEnd(b, i)
			if end < i || end > len(b) || delim < 0 || delim > len(b) {
				t.Fatalf("pyExprEnd(%q, %d) = %d, %d", src, i, end, delim)
			}
		}
		if loc := callHead.FindIndex(b); loc != nil {
			_, _ = pythonCallFilter(b, loc[1]-1, mcpconn.FilterSpec{Allowed: []string{"a"}})
		}
		if sp, ok := importSpan(b); ok {
			if _, err := applySpans(b, []span{sp}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// writeFilter plans and applies the filter edit in one step, as
// export-config --write does. It returns
// the diff that was applied and the backups made; ErrNothingToChange when
// the files already hold the filter.
func writeFilter(p *project.Project, serverName string, allowed, blocked []string) (diff string, backups []string, err error) {
	edits, err := PlanFilter(p, serverName, allowed, blocked)
	if err != nil {
		return "", nil, err
	}
	if len(edits) == 0 {
		return "", nil, ErrNothingToChange
	}
	var diffs []string
	for _, e := range edits {
		b, err := e.Apply()
		if b != "" {
			backups = append(backups, b)
		}
		if err != nil {
			return strings.Join(diffs, ""), backups, err
		}
		diffs = append(diffs, e.Diff)
	}
	return strings.Join(diffs, ""), backups, nil
}

// Writing over a JSON tool_filter keeps its layout (golden files in
// testdata/layout): only the lists that change are edited; an array with
// one entry per line keeps one per line at its indentation, its comments
// (on their own lines and after kept entries), blank lines and trailing
// comma; a removed entry takes its line, a new one gets a line of its own;
// a list the filter no longer has goes with its line, and one it gains is
// added after the last member.
func TestWriteFilterKeepsJSONLayout(t *testing.T) {
	cases := []struct {
		ext              string
		allowed, blocked []string
	}{
		{"jsonc", []string{"lookup_stock", "count_items", "get_price"}, nil},
		{"json", []string{"get_price", "lookup_stock"}, []string{"delete_item"}},
	}
	for _, c := range cases {
		t.Run(c.ext, func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join("testdata", "layout", "agent.before."+c.ext))
			if err != nil {
				t.Fatal(err)
			}
			golden, err := os.ReadFile(filepath.Join("testdata", "layout", "agent.after."+c.ext))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			write(t, dir, "crew."+c.ext, `{"agents": ["a"], "tasks": [{"name": "t1", "description": "d", "expected_output": "e", "agent": "a"}]}`)
			write(t, dir, "agents/a."+c.ext, string(before))
			p := open(t, dir)
			if _, _, err := writeFilter(p, p.Servers[0].Name, c.allowed, c.blocked); err != nil {
				t.Fatal(err)
			}
			if got := read(t, dir, "agents/a."+c.ext); got != string(golden) {
				t.Errorf("after the edit:\n%s\nwant (testdata/layout/agent.after.%s):\n%s\ndiff:\n%s", got, c.ext, golden,
					session.UnifiedDiff(string(golden), got, "want", "got", 2))
			}
			got := open(t, dir).Servers[0].Spec.Filter
			if !equalStrings(got.Allowed, c.allowed) || !equalStrings(got.Blocked, c.blocked) {
				t.Errorf("reloaded filter %+v", got)
			}
		})
	}
}
