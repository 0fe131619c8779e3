package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"crewbench/crew/project"
	"crewbench/fixtures"
	"crewbench/fixtures/fixturetest"
	"crewbench/names"
)

// plantedSecret is one kind of secret the red team planted (issue 15 items
// 12 and 13): the value, and where it goes into the project.
type plantedSecret struct {
	kind  string
	value string
}

// The 16 kinds. Values are distinct, so a leak names its kind; every one
// would pass a plain "no KEY/TOKEN in the name" check somewhere.
var plantedSecrets = []plantedSecret{
	{"env name with KEY (.env)", "kindKeyVal00001q"},
	{"env name with TOKEN", "kindTokenVal0002q"},
	{"env name with SECRET", "kindSecretVal003q"},
	{"env name with PASSWORD", "kindPasswordV004q"},
	{"env name CREDS", "kindCredsValu005q"},
	{"env name CREDENTIALS", "kindCredentials6q"},
	{"DSN password under a neutral name (.env and env)", "kindDsnPw00007q"},
	{"sk-… under a neutral name", "sk-proj-kindSkValue0008qAbCdEf12"},
	{"JWT under a neutral name", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJraW5kSnd0MDkifQ.kindJwtSig0009qXyZ"},
	{"high-entropy string under a neutral name", "Zq8Kx2Lm9Pw4Rt7Vb1Nc6Hd3Jf0010q"},
	{"URL userinfo password", "kindUrlPw0011q"},
	{"URL query token", "kindQueryV0012q"},
	{"bearer Authorization header", "kindBearer0013qAbCdEfGh"},
	{"X-Api-Key header", "kindXApiKey014q"},
	{"Cookie header", "kindCookie0015q"},
	{"token in a tool result", fixtures.ReferenceBearerToken},
}

// leakForms are the forms of a planted value that count as a leak: the
// value (any case: server names lower-case it), the parts of a JWT, the
// forms a URL password takes in a CrewAI name, and the Basic
// authorization the HTTP client makes of URL userinfo.
func leakForms(s plantedSecret) []string {
	out := []string{s.value}
	if strings.HasPrefix(s.value, "eyJ") {
		out = strings.Split(s.value, ".")[1:]
	}
	if s.kind == "URL userinfo password" {
		out = append(out, names.Sanitize(s.value), base64.StdEncoding.EncodeToString([]byte("spyuser:"+s.value)))
	}
	return out
}

func leakedIn(text string) []string {
	var found []string
	low := strings.ToLower(text)
	for _, s := range plantedSecrets {
		for _, f := range leakForms(s) {
			if strings.Contains(low, strings.ToLower(f)) {
				found = append(found, fmt.Sprintf("%s (%q)", s.kind, f))
				break
			}
		}
	}
	return found
}

// cliProcess runs the CLI as its own process (this test binary, see
// TestMain): the values a command marks secret are then only those it
// learns itself, as for a user, not those an earlier command in this test
// process marked.
func cliProcess(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{cliArg0}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, strings.NewReader("")
	err = cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("%v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// Every planted secret kind, every command that prints or writes: nothing
// planted reaches stdout, stderr, a recording, an export or a collector.
func TestPlantedSecretsAppearInNoOutput(t *testing.T) {
	if !fixtureDispatch {
		t.Fatal("TestMain did not install the fixture dispatch")
	}
	secret := map[string]string{}
	for _, s := range plantedSecrets {
		secret[s.kind] = s.value
	}
	httpURL := fixturetest.StartHTTP(t, "weather", "http")
	spyURL := strings.Replace(httpURL, "://", "://spyuser:"+secret["URL userinfo password"]+"@", 1) + "?api_key=" + secret["URL query token"]

	var (
		collected   bytes.Buffer
		collectedMu sync.Mutex
		posts       int
	)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		collectedMu.Lock()
		collected.Write(b)
		posts++
		collectedMu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()

	command, fixtureArgs := fixturetest.Command("reference")
	toolName := func(in names.Input) string {
		r, err := names.Resolve(in)
		if err != nil {
			t.Fatal(err)
		}
		return r.LLMName
	}
	getEnv := toolName(names.Input{Kind: names.KindStdio, Command: command, Args: fixtureArgs, Tool: "get_env"})
	issueToken := toolName(names.Input{Kind: names.KindStdio, Command: command, Args: fixtureArgs, Tool: "issue_token"})
	forecast := toolName(names.Input{Kind: names.KindHTTP, URL: spyURL, Tool: "getForecast"})

	dir := t.TempDir()
	quote := func(s string) string { return fmt.Sprintf("%q", s) }
	argsJSON := make([]string, len(fixtureArgs))
	for i, a := range fixtureArgs {
		argsJSON[i] = quote(a)
	}
	dsn := "postgres://dbadmin:" + secret["DSN password under a neutral name (.env and env)"] + "@db.internal:5432/app"
	fixturetest.WriteFiles(t, dir, map[string]string{
		".env":       "WEATHER_API_KEY=" + secret["env name with KEY (.env)"] + "\nDATABASE_URL=" + dsn + "\n",
		"crew.jsonc": `{"agents": ["a"], "tasks": [{"name": "t", "description": "Use the tools", "expected_output": "x", "agent": "a"}]}`,
		"agents/a.jsonc": `{"role": "Tester", "goal": "Test", "backstory": "Careful", "llm": "scripted:script.yaml",
 "mcps": [
  {"command": ` + quote(command) + `, "args": [` + strings.Join(argsJSON, ", ") + `],
   "env": {"GH_TOKEN": ` + quote(secret["env name with TOKEN"]) + `, "APP_SECRET": ` + quote(secret["env name with SECRET"]) + `,
           "DB_PASSWORD": ` + quote(secret["env name with PASSWORD"]) + `, "SERVICE_CREDS": ` + quote(secret["env name CREDS"]) + `,
           "APP_CREDENTIALS": ` + quote(secret["env name CREDENTIALS"]) + `, "DATABASE_URL": ` + quote(dsn) + `,
           "LLM_CONFIG": ` + quote(secret["sk-… under a neutral name"]) + `, "SESSION_BLOB": ` + quote(secret["JWT under a neutral name"]) + `,
           "UPSTREAM_ID": ` + quote(secret["high-entropy string under a neutral name"]) + `}},
  {"url": ` + quote(spyURL) + `,
   "headers": {"Authorization": "Bearer ` + secret["bearer Authorization header"] + `", "X-Api-Key": ` + quote(secret["X-Api-Key header"]) + `, "Cookie": "session=` + secret["Cookie header"] + `"}}
 ]}`,
		// The LLM calls the tools that echo the env and hand out a token,
		// then repeats the .env value in its answer.
		"script.yaml": "replies:\n  - tool_calls: [{name: " + getEnv + ", arguments: {}}, {name: " + issueToken + ", arguments: {}}, {name: " + forecast + ", arguments: {city: Oslo}}]\n" +
			"  - \"Final Answer: done " + secret["env name with KEY (.env)"] + "\"\n",
	})
	p, err := project.Open(dir, "")
	if p == nil || len(p.Servers) != 2 {
		t.Fatalf("the planted project does not open with its two servers: %v", err)
	}
	stdio, remote := p.Servers[0].Name, p.Servers[1].Name
	if p.Servers[0].Spec.URL != "" {
		stdio, remote = remote, stdio
	}

	out := t.TempDir()
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "HOME=" + t.TempDir(), "NO_COLOR=1"}
	rec := func(name string) string { return filepath.Join(out, name) }
	type step struct {
		args []string
		ok   func(code int, stdout, stderr string) bool // the command did its work
		env  []string                                   // more environment for this command
	}
	exit := func(codes ...int) func(int, string, string) bool {
		return func(code int, _, _ string) bool {
			for _, c := range codes {
				if code == c {
					return true
				}
			}
			return false
		}
	}
	has := func(s string, codes ...int) func(int, string, string) bool {
		return func(code int, stdout, stderr string) bool {
			return exit(codes...)(code, stdout, stderr) && strings.Contains(stdout+stderr, s)
		}
	}
	steps := []step{
		{[]string{"tools", "--project", "."}, has("get_env", 0), nil},
		{[]string{"tools", "--project", ".", "--json"}, has("getForecast", 0), nil},
		{[]string{"tools", "--project", ".", "--show-env"}, has("GH_TOKEN", 0), nil},
		{[]string{"tools", "--project", ".", "--show-env", "--json"}, has("UPSTREAM_ID", 0), nil},
		{[]string{"tools", "--url", spyURL, "--header", "Authorization=Bearer " + secret["bearer Authorization header"]}, has("getForecast", 0), nil},
		{[]string{"call", "--project", ".", stdio, "get_env", "--record", rec("call-env.jsonl")}, has("SERVICE_CREDS", 0), nil},
		{[]string{"call", "--project", ".", stdio, "get_env", "--json", "--no-record"}, has("APP_CREDENTIALS", 0), nil},
		{[]string{"call", "--project", ".", stdio, "issue_token", "--record", rec("call-token.jsonl")}, has("Bearer", 0), nil},
		{[]string{"call", "--project", ".", remote, "getForecast", "--args", `{"city":"Oslo"}`, "--json", "--record", rec("call-http.jsonl")}, has("Oslo", 0), nil},
		{[]string{"call", "--url", spyURL, "--header", "X-Api-Key=" + secret["X-Api-Key header"], "getForecast", "--args", `{"city":"Oslo"}`, "--no-record"}, has("Oslo", 0), nil},
		{[]string{"smoke", "--project", ".", stdio, "--record", rec("smoke-stdio.jsonl")}, has("get_env", 0, 3), nil},
		{[]string{"smoke", "--project", ".", remote, "--json", "--record", rec("smoke-http.jsonl")}, has("getForecast", 0, 3), nil},
		{[]string{"run", ".", "--record", rec("run1.jsonl"), "-v", "--color", "never", "--otlp-endpoint", collector.URL, "--otlp-include-content"}, has("done", 0, 3), nil},
		{[]string{"run", ".", "--json", "--record", rec("run2.jsonl"), "--otlp-endpoint", collector.URL}, has("tool_usage_finished", 0, 3), nil},
		{[]string{"run", "."}, has("done", 0, 3), nil}, // recorded in the default sessions directory
		{[]string{"lint", "."}, has("findings", 0, 1, 2), nil},
		{[]string{"lint", ".", "--json"}, has(`"code"`, 0, 1, 2), nil},
		{[]string{"export-config", ".", "--format", "mcps"}, has("UPSTREAM_ID", 0), nil},
		{[]string{"export-config", ".", "--format", "python"}, has("UPSTREAM_ID", 0), nil},
		{[]string{"export-config", ".", "--format", "mcpservers"}, has("UPSTREAM_ID", 0), nil},
		{[]string{"replay", rec("run1.jsonl"), "--print", "-v", "--color", "never"}, has("get_env", 0), nil},
		{[]string{"replay", rec("run1.jsonl"), "--json"}, has("tool_usage_finished", 0), nil},
		{[]string{"replay", rec("call-token.jsonl"), "--print", "-v"}, has("issue_token", 0), nil},
		{[]string{"diff", rec("run1.jsonl"), rec("run2.jsonl")}, exit(0, 1), nil},
		{[]string{"diff", rec("run1.jsonl"), rec("run2.jsonl"), "--json"}, exit(0, 1), nil},
		{[]string{"diff", rec("call-env.jsonl"), rec("call-token.jsonl")}, exit(0, 1, 2), nil},
		{[]string{"export", rec("run1.jsonl"), "--otlp-json", rec("run1.otlp.json")}, exit(0), nil},
		{[]string{"export", rec("run1.jsonl"), "--otlp-json", rec("run1.content.otlp.json"), "--include-content"}, exit(0), nil},
		{[]string{"export", rec("smoke-stdio.jsonl"), "--otlp-json", "-", "--include-content"}, has("resourceSpans", 0), nil},
		{[]string{"export", rec("call-http.jsonl"), "--otlp-endpoint", collector.URL}, exit(0), nil},
		{[]string{"names", "url", spyURL, "--tool", "getForecast"}, has("get_forecast", 0), nil},
		{[]string{"names", "--json", "--explain", "url", spyURL, "--tool", "getForecast"}, has("llm_name", 0), nil},
	}
	// auth: a login against an OAuth-protected server whose URL carries
	// the planted query token, then status and logout, which print the URL.
	fake := protectedServer(t)
	authURL := fake.MCPURL() + "?api_key=" + secret["URL query token"]
	steps = append(steps,
		step{args: []string{"auth", "login", "--headless", authURL}, ok: has("logged in", 0)},
		step{args: []string{"auth", "status"}, ok: has("refreshable", 0)},
		step{args: []string{"auth", "status", authURL}, ok: has("refreshable", 0)},
		step{args: []string{"auth", "login", "--headless", spyURL}, ok: exit(exitConnection)}, // no OAuth there: the error names the URL
		step{args: []string{"auth", "logout", authURL}, ok: has("logged out", 0)},
	)
	// watch: the user's crew (the stub crewai) runs with the planted
	// secrets in its environment and on its command line.
	if py, err := exec.LookPath("python3"); err == nil {
		stub, _ := filepath.Abs("crew/bridge/testdata/stub")
		stubProject, _ := filepath.Abs("crew/bridge/testdata/project")
		weather, weatherArgs := fixturetest.Command("weather")
		argv, _ := json.Marshal(append([]string{weather}, weatherArgs...))
		watchEnv := []string{"PYTHONPATH=" + stub, "STUB_MCP_COMMAND=" + string(argv), "PYTHONDONTWRITEBYTECODE=1",
			"GH_TOKEN=" + secret["env name with TOKEN"], "DATABASE_URL=" + dsn, "LLM_CONFIG=" + secret["sk-… under a neutral name"],
			"SESSION_BLOB=" + secret["JWT under a neutral name"], "UPSTREAM_ID=" + secret["high-entropy string under a neutral name"]}
		crewArgs := []string{"--", py, "-m", "stubcrew.main", "native", "--api-key=" + secret["sk-… under a neutral name"], dsn, spyURL}
		steps = append(steps,
			step{args: append([]string{"watch", "--record", rec("watch.jsonl"), "-C", stubProject}, crewArgs...), ok: exit(0), env: watchEnv},
			step{args: append([]string{"watch", "--json", "-C", stubProject}, crewArgs...), ok: has("crew_kickoff_completed", 0), env: watchEnv},
			step{args: []string{"replay", rec("watch.jsonl"), "--print", "-v", "--color", "never"}, ok: has("word_counter", 0)},
		)
	} else if os.Getenv("CREWBENCH_CI") == "1" {
		t.Fatalf("python3 is required in CI: %v", err)
	}
	for _, st := range steps {
		code, stdout, stderr := cliProcess(t, dir, append(env, st.env...), st.args...)
		if !st.ok(code, stdout, stderr) {
			t.Errorf("%v did not do its work (exit %d):\n%s\n%s", st.args, code, head(stdout), head(stderr))
		}
		for stream, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if leaks := leakedIn(text); len(leaks) > 0 {
				t.Errorf("%v: %s shows %s", st.args, stream, strings.Join(leaks, ", "))
			}
		}
	}
	// serve: the planted crew published over stdio; a client lists its
	// tool and calls it (the crew calls the tools that echo the env and
	// hand out a token, and repeats the .env value in its answer).
	stdout, stderr := serveStdioCall(t, dir, env)
	if !strings.Contains(stdout, `"id":3`) || !strings.Contains(stdout, "done") {
		t.Errorf("serve did not answer the call:\n%s\n%s", head(stdout), head(stderr))
	}
	for stream, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if leaks := leakedIn(text); len(leaks) > 0 {
			t.Errorf("serve: %s shows %s", stream, strings.Join(leaks, ", "))
		}
	}
	// Everything written: the recordings (--record and the default
	// sessions directory), the exports, the config files export-config
	// and the runs wrote, and what the collector received.
	written := 0
	for _, root := range []string{out, state} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return nil
			}
			written++
			if leaks := leakedIn(string(b)); len(leaks) > 0 {
				t.Errorf("%s shows %s", path, strings.Join(leaks, ", "))
			}
			return nil
		})
	}
	if written < 10 {
		t.Errorf("only %d files written; the recordings and exports are missing", written)
	}
	collectedMu.Lock()
	defer collectedMu.Unlock()
	if posts == 0 {
		t.Error("the collector received nothing")
	}
	if leaks := leakedIn(collected.String()); len(leaks) > 0 {
		t.Errorf("the OTLP collector received %s", strings.Join(leaks, ", "))
	}
}

// serveStdioCall runs `crewbench serve .` in dir as its own process and,
// as an MCP client would, initializes, lists the one tool and calls it,
// then closes stdin (which ends the server). It returns what the server
// wrote.
func serveStdioCall(t *testing.T, dir string, env []string) (stdout, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, cliArg0, "serve", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	lines := bufio.NewScanner(outPipe)
	lines.Buffer(nil, 16<<20)
	// await reads answers until the one with id, and returns it.
	await := func(id int) map[string]any {
		for lines.Scan() {
			out.WriteString(lines.Text() + "\n")
			var msg map[string]any
			if json.Unmarshal(lines.Bytes(), &msg) == nil && msg["id"] == float64(id) {
				return msg
			}
		}
		return nil
	}
	send := func(msg string) { _, _ = io.WriteString(in, msg+"\n") }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var tool string
	if list := await(2); list != nil {
		if r, ok := list["result"].(map[string]any); ok {
			if tools, ok := r["tools"].([]any); ok && len(tools) == 1 {
				tool, _ = tools[0].(map[string]any)["name"].(string)
			}
		}
	}
	if tool == "" {
		t.Errorf("serve listed no tool:\n%s\n%s", out.String(), errb.String())
	} else {
		call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": map[string]any{}}})
		send(string(call))
		await(3)
	}
	_ = in.Close()
	for lines.Scan() { // what the server writes until it ends
		out.WriteString(lines.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve: %v\n%s", err, errb.String())
	}
	return out.String(), errb.String()
}

func head(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}
