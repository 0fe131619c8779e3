package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyProject copies a testdata project into a temp dir.
func copyProject(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestExportConfigFormats(t *testing.T) {
	src := filepath.Join("crew", "writeback", "testdata", "json_crew")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"export-config", src}, []string{`"mcps": [`, `"tool_filter": {"type": "static", "allowed_tool_names": ["lookup_stock", "list_warehouses"], "blocked_tool_names": ["delete_item"]}`}},
		{[]string{"export-config", "--format", "python", src}, []string{"from crewai.mcp import MCPServerHTTP, MCPServerStdio, create_static_tool_filter", "mcps = [inventory, example, time, \"https://docs.example.com/mcp#search_docs\"]"}},
		{[]string{"export-config", "--format", "mcpservers", "--server", "time", src}, []string{`"time": {"command": "uvx", "args": ["mcp-server-time"]}`}},
		{[]string{"export-config", "--server", "time", "--allow", "get_current_time,convert_time", src}, []string{`"allowed_tool_names": ["get_current_time", "convert_time"]`}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	// notes go to stderr, the config to stdout
	code, out, errOut := runCLI(t, nil, "export-config", "--format", "mcpservers", src)
	if code != 0 || !strings.Contains(errOut, "note: inventory has a tool filter: mcpServers files cannot hold one") || strings.Contains(out, "note:") {
		t.Errorf("notes: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestExportConfigUsageErrors(t *testing.T) {
	src := filepath.Join("crew", "writeback", "testdata", "json_crew")
	cases := [][]string{
		{"export-config", "--allow", "x", src},                                      // which server?
		{"export-config", "--server", "nope", src},                                  // unknown server
		{"export-config", "--format", "yaml", src},                                  // unknown format
		{"export-config", "--write", src},                                           // --write needs --server
		{"export-config", "--write", "--server", "docs#search_docs", src},           // string refs have no filter
		{"export-config", "--write", "--format", "python", "--server", "time", src}, // --write edits in place
		{"export-config", t.TempDir()},                                              // no project
	}
	for _, args := range cases {
		if code, out, errOut := runCLI(t, nil, args...); code != 1 || !strings.HasPrefix(errOut, "crewbench: ") {
			t.Errorf("%v: exit %d, want 1\n%s%s", args, code, out, errOut)
		}
	}
}

// --write shows the diff, asks, keeps a backup and leaves comments alone.
func TestExportConfigWrite(t *testing.T) {
	dir := copyProject(t, filepath.Join("crew", "writeback", "testdata", "json_crew"))
	file := filepath.Join(dir, "agents", "a.jsonc")
	before, _ := os.ReadFile(file)

	// answered no: nothing written, exit 1
	code, out, errOut := runCLI(t, strings.NewReader("n\n"), "export-config", dir, "--server", "time", "--allow", "get_current_time", "--write")
	if code != 1 || !strings.Contains(out, "+++ b/agents/a.jsonc") || !strings.Contains(errOut, "not written") {
		t.Fatalf("declined: exit %d\n%s%s", code, out, errOut)
	}
	if now, _ := os.ReadFile(file); string(now) != string(before) {
		t.Fatal("the file changed although the user said no")
	}
	if _, err := os.Stat(file + ".bak"); !os.IsNotExist(err) {
		t.Fatal("a backup was made although nothing was written")
	}

	// answered yes
	code, out, errOut = runCLI(t, strings.NewReader("y\n"), "export-config", dir, "--server", "time", "--allow", "get_current_time", "--write")
	if code != 0 || !strings.Contains(out, "wrote agents/a.jsonc (backup: agents/a.jsonc.bak)") || !strings.Contains(errOut, "[y/N]") {
		t.Fatalf("confirmed: exit %d\n%s%s", code, out, errOut)
	}
	after, _ := os.ReadFile(file)
	want := strings.Replace(string(before), `{ "command": "uvx", "args": ["mcp-server-time"] }`,
		`{ "command": "uvx", "args": ["mcp-server-time"], "tool_filter": {"type": "static", "allowed_tool_names": ["get_current_time"]} }`, 1)
	if string(after) != want {
		t.Fatalf("file after --write:\n%s\nwant:\n%s", after, want)
	}
	if b, _ := os.ReadFile(file + ".bak"); string(b) != string(before) {
		t.Error("the backup does not hold the old file")
	}

	// --yes, no question; the same filter again changes nothing
	code, out, errOut = runCLI(t, nil, "export-config", dir, "--server", "time", "--allow", "get_current_time", "--write", "--yes")
	if code != 0 || !strings.Contains(out, "nothing to change") || strings.Contains(errOut, "[y/N]") {
		t.Errorf("same filter: exit %d\n%s%s", code, out, errOut)
	}

	// a filter tried in crewbench.yaml is written into the crew with --write
	writeOverlay := "servers:\n  example:\n    tool_filter: { allowed_tool_names: [search] }\n"
	if err := os.WriteFile(filepath.Join(dir, "crewbench.yaml"), []byte(writeOverlay), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, nil, "export-config", dir, "--server", "example", "--write", "--yes")
	if code != 0 || !strings.Contains(out, `+      "tool_filter": {"type": "static", "allowed_tool_names": ["search"]},`) {
		t.Errorf("overlay filter: exit %d\n%s%s", code, out, errOut)
	}
}
