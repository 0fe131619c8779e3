package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewbench/crew/project"
	"crewbench/crew/writeback"
	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn/oauth"
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
	if _, err := os.Stat(filepath.Join(dir, ".crewbench")); !os.IsNotExist(err) {
		t.Fatal("a backup was made although nothing was written")
	}

	// answered yes
	code, out, errOut = runCLI(t, strings.NewReader("y\n"), "export-config", dir, "--server", "time", "--allow", "get_current_time", "--write")
	if code != 0 || !strings.Contains(out, "wrote agents/a.jsonc (backup: .crewbench/backups/agents/a.jsonc.") || !strings.Contains(errOut, "[y/N]") {
		t.Fatalf("confirmed: exit %d\n%s%s", code, out, errOut)
	}
	backups, _ := filepath.Glob(filepath.Join(dir, ".crewbench", "backups", "agents", "a.jsonc.*.bak"))
	after, _ := os.ReadFile(file)
	want := strings.Replace(string(before), `{ "command": "uvx", "args": ["mcp-server-time"] }`,
		`{ "command": "uvx", "args": ["mcp-server-time"], "tool_filter": {"type": "static", "allowed_tool_names": ["get_current_time"]} }`, 1)
	if string(after) != want {
		t.Fatalf("file after --write:\n%s\nwant:\n%s", after, want)
	}
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != string(before) {
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

// What export-config writes, lint calls correct: for the demo and the
// testdata projects, a filter given in another form (camelCase, dashes) is
// written as CrewAI compares it, by --write and in every printed format, and
// lint finds no filter entry to fix in the result.
func TestExportConfigAgreesWithLint(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	cases := []struct{ src, server, allow, want string }{
		{filepath.Join("fixtures", "demo", "project"), "weather", "getForecast,getAlerts", "get_forecast"},
		{filepath.Join("crew", "writeback", "testdata", "json_crew"), "time", "getCurrentTime,convert-time", "get_current_time"},
		{filepath.Join("crew", "writeback", "testdata", "classic"), "inventory", "lookupStock", "lookup_stock"},
		{filepath.Join("crew", "lint", "testdata", "rules", "filter_bad"), "", "", ""},
		{filepath.Join("crew", "project", "testdata", "json", "market_brief"), "", "", ""},
	}
	for _, c := range cases {
		dir := copyProject(t, c.src)
		lintCodes := func(what string) {
			t.Helper()
			_, out, _ := runCLI(t, nil, "lint", "--json", dir)
			for _, code := range []string{"filter-name-not-sanitized", "secret-literal"} {
				if strings.Contains(out, `"`+code+`"`) {
					t.Errorf("%s %s: lint reports %s:\n%s", c.src, what, code, out)
				}
			}
		}
		if c.server == "" {
			// the project's own filters, exported and linted as a project
			code, out, errOut := runCLI(t, nil, "export-config", "--format", "mcps", dir)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", c.src, code, errOut)
			}
			fresh := t.TempDir()
			fixturetest.WriteFiles(t, fresh, map[string]string{"crew.jsonc": `{"agents": ["a"], "tasks": [{"name": "t1", "description": "d", "expected_output": "e", "agent": "a"}]}`, "agents/a.jsonc": "{\"role\": \"r\", \"goal\": \"g\", \"backstory\": \"b\",\n" + out + "}\n"})
			dir = fresh
			lintCodes("exported")
			continue
		}
		for _, format := range []string{"mcps", "python"} {
			code, out, errOut := runCLI(t, nil, "export-config", "--format", format, "--server", c.server, "--allow", c.allow, dir)
			if code != 0 || !strings.Contains(out, `"`+c.want+`"`) || strings.Contains(out, `"`+strings.Split(c.allow, ",")[0]+`"`) || !strings.Contains(errOut, "is written as") {
				t.Errorf("%s --format %s: exit %d\n%s%s", c.src, format, code, out, errOut)
			}
		}
		code, out, errOut := runCLI(t, nil, "export-config", "--server", c.server, "--allow", c.allow, "--write", "--yes", dir)
		if code != 0 || !strings.Contains(errOut, "is written as") {
			t.Fatalf("%s --write: exit %d\n%s%s", c.src, code, out, errOut)
		}
		lintCodes("after --write")
	}
}

// A server crewbench holds an OAuth token for is exported with the header
// CrewAI needs and a note on setting the variable; lint warns about the
// same server while its config sends no Authorization header.
func TestExportConfigOAuthServer(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	const url = "https://weather.example.com/mcp"
	st := &oauth.Store{Path: filepath.Join(state, "crewbench", "oauth-tokens.json")}
	if err := st.Put(url, &oauth.Token{AccessToken: "at-sekrit-0123456789", TokenType: "Bearer"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{"crew.jsonc": `{"agents": ["a"], "tasks": [{"name": "t1", "description": "d", "expected_output": "e", "agent": "a"}]}`, "agents/a.jsonc": `{"role": "r", "goal": "g", "backstory": "b", "mcps": [{"url": "` + url + `", "headers": {"X-Client": "x"}}]}`})
	want := map[string]string{
		"mcps":       `"Authorization": "Bearer ${WEATHER_TOKEN}"`,
		"python":     `"Authorization": f"Bearer {os.environ['WEATHER_TOKEN']}"`,
		"mcpservers": `"Authorization": "Bearer ${WEATHER_TOKEN}"`,
	}
	for format, w := range want {
		code, out, errOut := runCLI(t, nil, "export-config", "--format", format, dir)
		if code != 0 || !strings.Contains(out, w) || strings.Contains(out+errOut, "at-sekrit") {
			t.Errorf("%s: exit %d\n%s%s", format, code, out, errOut)
		}
		if !strings.Contains(errOut, "Set WEATHER_TOKEN to the access token") || !strings.Contains(errOut, "crewbench auth status "+url) {
			t.Errorf("%s: no note on the variable:\n%s", format, errOut)
		}
	}
	_, out, _ := runCLI(t, nil, "lint", dir)
	if !strings.Contains(out, "mcp-oauth-not-done-by-crewai") || !strings.Contains(out, "crewbench holds an OAuth token for "+url) {
		t.Errorf("lint:\n%s", out)
	}
}

// With --connect, a server that answers 401 when its tools are listed with
// the configured headers (as CrewAI connects) is exported with the header
// CrewAI needs, as a server crewbench holds a token for is, and a note on
// getting the token; one whose configured Authorization header is refused
// keeps it, with a note that the token is wrong. Without --connect nothing
// is probed. The server is oauthtest's real protected MCP server.
func TestExportConfigConnectOAuthRefused(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // no stored tokens
	fake := protectedServer(t)
	dir := t.TempDir()
	fixturetest.WriteFiles(t, dir, map[string]string{
		"crew.jsonc": `{"agents": ["a"], "tasks": [{"name": "t1", "description": "d", "expected_output": "e", "agent": "a"}]}`,
		"agents/a.jsonc": `{"role": "r", "goal": "g", "backstory": "b", "mcps": [
  {"url": "` + fake.MCPURL() + `", "headers": {"X-Client": "x"}},
  {"url": "` + fake.MCPURL() + `?v=2", "headers": {"Authorization": "Bearer ${OLD_TOKEN}"}}
]}`})
	t.Setenv("OLD_TOKEN", "expired-token-0123456789")
	p, err := project.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	refusedName, keptName := p.Servers[0].Name, p.Servers[1].Name
	env := writeback.TokenEnvVar(refusedName)
	want := map[string]string{
		"mcps":       `"Authorization": "Bearer ${` + env + `}"`,
		"python":     `"Authorization": f"Bearer {os.environ['` + env + `']}"`,
		"mcpservers": `"Authorization": "Bearer ${` + env + `}"`,
	}
	for format, w := range want {
		code, out, errOut := runCLI(t, nil, "export-config", "--connect", "--format", format, dir)
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("%s: exit %d\n%s%s", format, code, out, errOut)
		}
		for _, n := range []string{
			"note: " + refusedName + " answered 401 Unauthorized when its tools were listed",
			"crewbench auth login " + fake.MCPURL(), "set " + env + " to it",
			"note: " + keptName + " answered 401 Unauthorized to the Authorization header its config sends",
		} {
			if !strings.Contains(errOut, n) {
				t.Errorf("%s: stderr lacks %q:\n%s", format, n, errOut)
			}
		}
		if strings.Contains(out, writeback.TokenEnvVar(keptName)) {
			t.Errorf("%s: the server with its own Authorization header got another:\n%s", format, out)
		}
	}
	code, out, errOut := runCLI(t, nil, "export-config", "--format", "python", dir)
	if code != 0 || strings.Contains(out, env) || strings.Contains(errOut, "401") {
		t.Errorf("without --connect: exit %d\n%s%s", code, out, errOut)
	}
	// --write changes only the filter, and says the header is missing
	code, out, errOut = runCLI(t, nil, "export-config", "--connect", "--write", "--yes", "--server", refusedName, "--allow", "echo", dir)
	if code != 0 || !strings.Contains(errOut, "note: "+refusedName+" answered 401 Unauthorized: --write changes only its tool_filter") {
		t.Errorf("--write: exit %d\n%s%s", code, out, errOut)
	}
}
