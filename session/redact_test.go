package session

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedactString(t *testing.T) {
	R := Redacted
	for _, tc := range []struct{ in, want string }{
		{"nothing to see here", "nothing to see here"},
		{"Authorization: Bearer abcdef123456.xyz", "Authorization: Bearer " + R},
		{"curl -H 'authorization: basic dXNlcjpwYXNz'", "curl -H 'authorization: basic " + R + "'"},
		{"key sk-proj-AbCdEfGhIjKlMnOpQrStUv used", "key " + R + " used"},
		{"anthropic sk-ant-api03-abcdefghijklmnopqrstuv", "anthropic " + R},
		{"token ghp_0123456789abcdefghijABCDEFGHIJ here", "token " + R + " here"},
		{"slack xoxb-1234567890-abcdefghij", "slack " + R},
		{"aws AKIAIOSFODNN7EXAMPLE", "aws " + R},
		{"OPENAI_API_KEY=sk-abc123 python main.py", "OPENAI_API_KEY=" + R + " python main.py"},
		{"export GITHUB_TOKEN=plainvalue", "export GITHUB_TOKEN=" + R},
		{`{"api_key": "my secret value", "city": "Paris"}`, `{"api_key": "` + R + `", "city": "Paris"}`},
		{`{"password":"p@ss w0rd"}`, `{"password":"` + R + `"}`},
		{"X-Api-Key: abc123xyz", "X-Api-Key: " + R},
		{"Cookie: session=abc; theme=dark", "Cookie: " + R},
		{"GET https://api.example.com/v1?city=Paris&api_key=s3cr3t&x=1 failed", "GET https://api.example.com/v1?city=Paris&api_key=" + R + "&x=1 failed"},
		{"dial https://bob:hunter22@db.example.com:5432/x", "dial https://bob:" + R + "@db.example.com:5432/x"},
		{"blob?sv=2020&sig=AbCd%2Bef", "blob?sv=2020&sig=" + R},
		// Things that look close but are not credentials stay readable.
		{"max_tokens=100 prompt_tokens: 812", "max_tokens=100 prompt_tokens: 812"},
		{"401 Unauthorized: invalid request", "401 Unauthorized: invalid request"},
		{"this server needs OAuth: run `crewbench auth login X`", "this server needs OAuth: run `crewbench auth login X`"},
		{"OAUTH_TOKEN=plainvalue oauth_client_secret: abc123xyz", "OAUTH_TOKEN=" + R + " oauth_client_secret: " + R},
		{"KeyError: 'city'", "KeyError: 'city'"},
		{"missing key: city", "missing key: city"},
		{"agent_key=3f2a cache_key=get_forecast-{}", "agent_key=3f2a cache_key=get_forecast-{}"},
		{"https://example.com/path?city=Paris", "https://example.com/path?city=Paris"},
		{"the bearer of bad news", "the bearer of bad news"},
	} {
		if got := RedactString(tc.in); got != tc.want {
			t.Errorf("RedactString(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	R := Redacted
	for _, tc := range []struct{ in, want string }{
		{"https://user:pw@host/p?q=1", "https://user:" + R + "@host/p?q=1"},
		{"https://user@host/p", "https://user@host/p"},
		{"https://h/mcp?token=abc&access_token=def&Key=ghi&city=x", "https://h/mcp?token=" + R + "&access_token=" + R + "&Key=" + R + "&city=x"},
		{"https://h/cb#access_token=abc&state=1", "https://h/cb#access_token=" + R + "&state=1"},
		{"https://h/x?X-Amz-Signature=abc&X-Amz-Credential=def", "https://h/x?X-Amz-Signature=" + R + "&X-Amz-Credential=" + R},
		{"http://localhost:8000/sse", "http://localhost:8000/sse"},
		{"not a url at all", "not a url at all"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactMaps(t *testing.T) {
	R := Redacted
	h := map[string]string{
		"Authorization": "Bearer abc", "Proxy-Authorization": "Basic xyz", "Cookie": "a=b", "X-Api-Key": "k",
		"Set-Cookie": "s=1", "X-Amz-Security-Token": "t", "Content-Type": "application/json", "Accept": "text/event-stream",
	}
	want := map[string]string{
		"Authorization": "Bearer " + R, "Proxy-Authorization": "Basic " + R, "Cookie": R, "X-Api-Key": R,
		"Set-Cookie": R, "X-Amz-Security-Token": R, "Content-Type": "application/json", "Accept": "text/event-stream",
	}
	if diff := cmp.Diff(want, DefaultRedactor.RedactHeaders(h)); diff != "" {
		t.Errorf("headers:\n%s", diff)
	}
	if h["Authorization"] != "Bearer abc" {
		t.Error("RedactHeaders modified its argument")
	}
	env := map[string]string{
		"OPENAI_API_KEY": "sk-1", "github_token": "g", "DB_PASSWORD": "p", "PGPASSWD": "p", "AWS_SECRET_ACCESS_KEY": "s",
		"GOOGLE_APPLICATION_CREDENTIALS": "/x.json", "AUTH_HEADER": "h", "PATH": "/usr/bin", "HOME": "/root", "MAX_TOKENS": "100",
	}
	got := DefaultRedactor.RedactEnv(env)
	for k, v := range got {
		secret := k != "PATH" && k != "HOME" && k != "MAX_TOKENS"
		if secret != (v == R) {
			t.Errorf("env %s = %q", k, v)
		}
	}
	if got := DefaultRedactor.RedactEnviron([]string{"A=1", "MY_TOKEN=x=y", "odd"}); !cmp.Equal(got, []string{"A=1", "MY_TOKEN=" + R, "odd"}) {
		t.Errorf("environ: %q", got)
	}
	hl := DefaultRedactor.RedactHeaderLists(map[string][]string{"Authorization": {"Bearer a", "Bearer b"}, "Accept": {"x"}})
	if hl["Authorization"][1] != "Bearer "+R || hl["Accept"][0] != "x" {
		t.Errorf("header lists: %v", hl)
	}
}

type customPayload struct {
	Endpoint string            `json:"endpoint"`
	Headers  map[string]string `json:"headers"`
}

func TestRedactEvent(t *testing.T) {
	R := Redacted
	r := NewRedactor("marked-value-1234")
	data := map[string]any{
		"tool_args": map[string]any{"city": "Paris", "api_key": "abc", "note": "uses marked-value-1234"},
		"headers":   map[string]string{"Authorization": "Bearer xyz", "Accept": "*/*"},
		"env":       map[string]any{"SECRET_THING": "v", "PATH": "/bin"},
		"list":      []any{"Bearer abcdefghijkl", 3.0, map[string]any{"token": "t"}},
		"tokens":    []string{"a", "sk-abcdefghijklmnopqrstu"},
		"raw":       json.RawMessage(`{"params":{"password":"pw"}}`),
		"custom":    customPayload{Endpoint: "https://h/?key=k", Headers: map[string]string{"Cookie": "c"}},
		"usage":     map[string]any{"prompt_tokens": 5, "total_tokens": 9},
		"err":       errString("dial https://u:pw@h failed"),
	}
	orig, _ := json.Marshal(data)
	ev := Event{Kind: ToolUsageError, Error: "call failed: Bearer abcdefghijkl", AgentRole: "role with marked-value-1234",
		ToolName: "get_forecast", Span: "s1", Data: data}
	got := r.RedactEvent(ev)
	after, _ := json.Marshal(data)
	if string(orig) != string(after) {
		t.Fatal("RedactEvent modified the event's Data")
	}
	if got.Error != "call failed: Bearer "+R || got.AgentRole != "role with "+R || got.ToolName != "get_forecast" || got.Span != "s1" {
		t.Errorf("fields: %+v", got)
	}
	want := map[string]any{
		"tool_args": map[string]any{"city": "Paris", "api_key": R, "note": "uses " + R},
		"headers":   map[string]string{"Authorization": "Bearer " + R, "Accept": "*/*"},
		"env":       map[string]any{"SECRET_THING": R, "PATH": "/bin"},
		"list":      []any{"Bearer " + R, 3.0, map[string]any{"token": R}},
		"tokens":    []string{"a", R},
		"raw":       json.RawMessage(`{"params":{"password":"` + R + `"}}`),
		"custom":    map[string]any{"endpoint": "https://h/?key=" + R, "headers": map[string]any{"Cookie": R}},
		"usage":     map[string]any{"prompt_tokens": 5, "total_tokens": 9},
		"err":       "dial https://u:" + R + "@h failed",
	}
	if diff := cmp.Diff(want, got.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	// Nothing to hide: the same map comes back, no copy.
	clean := Event{Kind: Warning, Data: map[string]any{"city": "Paris"}}
	if out := r.RedactEvent(clean); reflect.ValueOf(out.Data).Pointer() != reflect.ValueOf(clean.Data).Pointer() {
		t.Error("an event with nothing to redact had its Data copied")
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// Marked values: per-run instances see the default's values too, but not
// each other's.
func TestRedactorScopes(t *testing.T) {
	a := NewRedactor("run-a-secret")
	b := NewRedactor("run-b-secret")
	AddSecretValues("process-wide-secret")
	t.Cleanup(func() {
		DefaultRedactor.mu.Lock()
		delete(DefaultRedactor.values, "process-wide-secret")
		DefaultRedactor.mu.Unlock()
		DefaultRedactor.repl.Store(nil)
	})
	in := "run-a-secret run-b-secret process-wide-secret"
	if got := a.RedactString(in); got != Redacted+" run-b-secret "+Redacted {
		t.Errorf("a: %q", got)
	}
	if got := b.RedactString(in); got != "run-a-secret "+Redacted+" "+Redacted {
		t.Errorf("b: %q", got)
	}
	var nilR *Redactor
	if got := nilR.RedactString(in); got != "run-a-secret run-b-secret "+Redacted {
		t.Errorf("nil redactor: %q", got)
	}
	// Short values are ignored; overlapping ones are replaced whole.
	c := NewRedactor("abc", "secret", "secret-longer")
	if got := c.RedactString("abc secret-longer secret"); got != "abc "+Redacted+" "+Redacted {
		t.Errorf("c: %q", got)
	}
	if !strings.Contains(Redacted, "redacted") {
		t.Fatal("marker")
	}
}

// The helpers lint, export and mcpconn use instead of lists of their own.
func TestRedactHelpers(t *testing.T) {
	R := Redacted
	for v, want := range map[string]string{"Bearer abc": "Bearer ", "token  x": "token  ", "bearer": "", "Bearerabc": "", "Bearer ": "Bearer ", "Negotiate Y": "Negotiate ", "Key abc": ""} {
		if got := AuthPrefix(v); got != want {
			t.Errorf("AuthPrefix(%q) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[string]string{"Bearer abc": "Bearer " + R, "abc": R, "": "", "Basic dXNlcg==": "Basic " + R} {
		if got := RedactSecretValue(v); got != want {
			t.Errorf("RedactSecretValue(%q) = %q, want %q", v, got, want)
		}
	}
	for _, tc := range []struct{ name, value, want string }{
		{"Authorization", "Bearer abc.def", "Bearer " + R},
		{"X-Api-Key", "k", R},
		{"OPENAI_API_KEY", "sk-1", R},
		{"Set-Cookie", "s=1", R},
		{"HOME", "/root", "/root"},
		{"NOTE", "use GITHUB_TOKEN=ghp_x1 here", "use GITHUB_TOKEN=" + R + " here"},
	} {
		if got := NewRedactor().RedactNamed(tc.name, tc.value); got != tc.want {
			t.Errorf("RedactNamed(%q, %q) = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
	placeholders := []string{"", "  ", "${TOKEN}", "$TOKEN", "${env:GITHUB_TOKEN}", "${input:key}", "<your-key>", "{{api_key}}",
		"REPLACE_ME", "change-me", "your-api-key", "TODO", "xxx", "****", "...", "…", "none", "dummy", "Bearer ${TOKEN}", "Bearer <token>", "Bearer "}
	for _, v := range placeholders {
		if !IsPlaceholder(v) {
			t.Errorf("IsPlaceholder(%q) = false", v)
		}
	}
	for _, v := range []string{"abc123", "sk-live-0123456789", "Bearer abc123", "hunter22", "x", "your"} {
		if IsPlaceholder(v) {
			t.Errorf("IsPlaceholder(%q) = true for a literal", v)
		}
	}
	got := NamedSecrets(map[string]string{"API_KEY": "k-123", "HOME": "/root"},
		map[string]string{"Authorization": "Bearer tok-456", "X-Api-Key": "key-789", "Accept": "json"})
	sort.Strings(got)
	if want := []string{"k-123", "key-789", "tok-456"}; !reflect.DeepEqual(got, want) {
		t.Errorf("NamedSecrets = %q, want %q", got, want)
	}
}

// RedactMarked replaces the marked values only: the rules are left out, so
// a text that quotes configuration on purpose keeps its placeholders.
func TestRedactMarked(t *testing.T) {
	r := NewRedactor("hunter22-value")
	in := `add "env": {"API_KEY": "${API_KEY}"}; not hunter22-value; Bearer abcdefgh; sk-proj-AbCdEfGhIjKlMnOpQrStUv`
	want := `add "env": {"API_KEY": "${API_KEY}"}; not ` + Redacted + `; Bearer abcdefgh; sk-proj-AbCdEfGhIjKlMnOpQrStUv`
	if got := r.RedactMarked(in); got != want {
		t.Errorf("RedactMarked\n got %q\nwant %q", got, want)
	}
	if got := r.RedactString(in); strings.Contains(got, "abcdefgh") || strings.Contains(got, "hunter22") {
		t.Errorf("RedactString should still apply the rules: %q", got)
	}
}

func BenchmarkRedactEvent(b *testing.B) {
	evs := manyEvents(1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		DefaultRedactor.RedactEvent(evs[i%len(evs)])
	}
}

// FuzzRedactString: never panics, a marked value never survives, and
// redacting twice changes nothing more.
func FuzzRedactString(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer abcdef123456", "https://u:p@h/?token=x#access_token=y", `{"api_key": "v\"x"}`,
		"password=", "key:", "sk-abcdefghijklmnopqrstu", "Cookie: a", "x=1&sig=2", "authkey=\"unterminated"} {
		f.Add(s, "marked-secret")
	}
	f.Fuzz(func(t *testing.T, s, marked string) {
		r := NewRedactor(marked)
		once := r.RedactString(s)
		// A marked value can only reappear by straddling an inserted marker,
		// which means it contains « or ».
		if m := strings.TrimSpace(marked); len(m) >= minMarkedValue && !strings.ContainsAny(m, "«»") && strings.Contains(once, m) {
			t.Fatalf("marked value %q survived: %q", m, once)
		}
		if twice := r.RedactString(once); twice != once {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", s, once, twice)
		}
		_ = r.RedactURL(s)
		_ = r.RedactValue("k", map[string]any{s: s, "token": s})
	})
}

// Credentials are recognised by their shape whatever they are stored
// under, and the short credential words count only as whole name parts.
func TestSecretShapesAndNames(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"sk-proj-AbCdEfGhIjKlMnOpQrStUv", true},
		{"Bearer ghp_abcdefghijklmnopqrstuvwxyz0123", true},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", true},
		{"q8Zr2LwX9vKp4TbN7mYc1HfQ", true},
		{"3f786850e387550fdab836ed7e6dc881de23001b", true},
		{"production_environment_2", false},
		{"/usr/local/bin:/usr/bin:/bin", false},
		{"/tmp/crewbench-demo-29926-2951167849", false},
		{"tmp/crewbench-demo-29926-2951167849/project", false},
		{"Paris", false},
		{"00000000000000000000000", false},
		{"hello world this is text 12345", false},
	} {
		if got := IsSecretValue(tc.v); got != tc.want {
			t.Errorf("IsSecretValue(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
	for name, want := range map[string]bool{"CREDS": true, "DB_PASS": true, "PG_DSN": true, "GITHUB_PAT": true,
		"PASSTHROUGH": false, "COMPASS_DIR": false, "PATH": false, "CREDENTIALS": true} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// A URL's password is hidden in every form it takes in a derived name.
func TestURLSecretsReachDerivedNames(t *testing.T) {
	got := URLSecrets("http://spyuser:S3cret-Pass@localhost:18923/mcp")
	for _, want := range []string{"S3cret-Pass", "s3cret-pass", "s3cret_pass"} {
		if !slices.Contains(got, want) {
			t.Errorf("URLSecrets lacks %q: %q", want, got)
		}
	}
	if URLSecrets("http://user@host/x") != nil || URLSecrets("not a url") != nil {
		t.Error("a URL without a password has no secrets")
	}
	if q := URLSecrets("https://h/mcp?api_key=abc123&city=Oslo"); !slices.Equal(q, []string{"abc123"}) {
		t.Errorf("URLSecrets of a URL with a credential parameter = %q, want its value", q)
	}
	r := NewRedactor(got...)
	for _, leak := range []string{
		"spyuser:S3cret-Pass@localhost:18923_mcp",
		"spyuser_s3cret_pass_localhost_18923_mcp_get_forecast",
	} {
		if out := r.RedactString(leak); strings.Contains(strings.ToLower(out), "s3cret") {
			t.Errorf("RedactString(%q) = %q", leak, out)
		}
	}
}

// Env values that are secret by shape, and DSN passwords, are marked and
// hidden even under innocent names.
func TestNamedSecretsByValue(t *testing.T) {
	env := map[string]string{
		"CONN":  "postgres://app:hunter2-long@db:5432/app",
		"BLOB":  "q8Zr2LwX9vKp4TbN7mYc1HfQ",
		"CITY":  "Paris",
		"CREDS": "plain-creds-value",
	}
	got := NamedSecrets(env, nil)
	for _, want := range []string{"hunter2-long", "q8Zr2LwX9vKp4TbN7mYc1HfQ", "plain-creds-value"} {
		if !slices.Contains(got, want) {
			t.Errorf("NamedSecrets lacks %q: %q", want, got)
		}
	}
	if slices.Contains(got, "Paris") {
		t.Errorf("NamedSecrets marks an ordinary value: %q", got)
	}
	shown := NewRedactor().RedactEnv(env)
	if shown["BLOB"] != Redacted || shown["CREDS"] != Redacted || strings.Contains(shown["CONN"], "hunter2") || shown["CITY"] != "Paris" {
		t.Errorf("RedactEnv: %q", shown)
	}
}

// A URL password reaches the names derived from the URL; marked values are
// hidden in them, and a long tool name is not shredded by the rules.
func TestRedactEventHidesMarkedValuesInNames(t *testing.T) {
	r := NewRedactor("kind_url_pw0011q")
	ev := r.RedactEvent(Event{Kind: "tool_usage_started", Server: "spyuser_kind_url_pw0011q_host",
		ToolName: "spyuser_kind_url_pw0011q_host_mcp_get_forecast", OriginalToolName: "getForecast"})
	if strings.Contains(ev.Server+ev.ToolName, "kind_url_pw0011q") {
		t.Errorf("names keep the marked value: %q, %q", ev.Server, ev.ToolName)
	}
	long := "tmp_crewbench_fixture_reference_issue_token_a1b2c3d4e5f6"
	if got := r.RedactEvent(Event{ToolName: long}).ToolName; got != long {
		t.Errorf("an unmarked tool name changed: %q", got)
	}
}

func TestURLParamSecrets(t *testing.T) {
	for _, c := range []struct {
		url  string
		want []string
	}{
		{"https://h/mcp", nil},
		{"https://h/mcp?city=Oslo&page=2", nil},
		{"https://h/mcp?api_key=abc123&city=Oslo", []string{"abc123"}},
		{"https://h/mcp?city=Oslo#access_token=tok%2Fen", []string{"tok%2Fen", "tok/en"}},
		{"https://h/mcp#sig=s1gnature", []string{"s1gnature"}},
		{"https://h/mcp?token=", nil},
	} {
		if got := urlParamSecrets(c.url); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("urlParamSecrets(%q) = %q, want %q", c.url, got, c.want)
		}
	}
}

// The recorder remembers long strings' redaction across events; a value
// marked secret after a string was remembered (per run, or process-wide)
// is still hidden in the next event that carries it.
func TestRedactMemoForgetsWhenValuesAreMarked(t *testing.T) {
	for _, tc := range []struct {
		name string
		mark func(r *Redactor, v string)
	}{
		{"this redactor", func(r *Redactor, v string) { r.AddValues(v) }},
		{"the default redactor", func(_ *Redactor, v string) { AddSecretValues(v) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := "memo-" + tc.name[:4] + "-Value-4711"
			text := "the history so far repeats " + secret + " in every later LLM call"
			r, memo := NewRedactor(), newStringMemo()
			ev := Event{TaskName: text, Data: map[string]any{"messages": []any{map[string]any{"content": text}}}}
			for round, want := range []bool{false, false, true, true} {
				if round == 2 {
					tc.mark(r, secret)
				}
				got := r.redactEvent(ev, memo)
				content := got.Data["messages"].([]any)[0].(map[string]any)["content"].(string)
				for what, s := range map[string]string{"task name": got.TaskName, "message": content} {
					if hidden := !strings.Contains(s, secret); hidden != want {
						t.Errorf("round %d, %s: %q (want hidden %v)", round, what, s, want)
					}
				}
			}
			if len(memo.done) == 0 {
				t.Error("nothing was remembered")
			}
		})
	}
}

// hasTokenPrefix is exactly "some token prefix occurs in s".
func TestHasTokenPrefix(t *testing.T) {
	cases := []string{"", "s", "sk", "sk-", "a sk-x", "xo", "xox", "AKIA", "AKI", "eyJ", "ey", "github_pat", "github_pat_",
		"glpat-", "glpat", "ghp_", "gh", "ghr", "ghr_", "no prefix at all, only text", "ends in AIz", "ends in AIza"}
	cases = append(cases, tokenPrefixes...)
	for _, s := range cases {
		want := false
		for _, p := range tokenPrefixes {
			want = want || strings.Contains(s, p)
		}
		if got := hasTokenPrefix(s); got != want {
			t.Errorf("hasTokenPrefix(%q) = %v, want %v", s, got, want)
		}
	}
}
