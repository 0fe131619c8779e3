package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/mcpconn"
	"crewbench/mcpconn/cmdline"
	"crewbench/session"
)

// The "done when", time scaled down: three timed-out attempts,
// gaps of one and two backoffs, CrewAI's exact final message, exit 4.
func TestCallTimeoutTimeline(t *testing.T) {
	code, out, errs := run(t, "call", "--stdio", fixtureCommandLine(t, "slow"), "slow_report",
		"--args", `{"seconds":3}`, "--timeout", "300ms", "--backoff", "200ms", "--json")
	if code != exitTimeout {
		t.Fatalf("exit %d, want 4\n%s\n%s", code, out, errs)
	}
	var r mcpconn.CallResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Attempts) != 3 {
		t.Fatalf("attempts %+v", r.Attempts)
	}
	for i, want := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond} {
		prev := r.Attempts[i]
		gap := r.Attempts[i+1].Start.Sub(prev.Start.Add(prev.Duration))
		if gap < want || gap > want+200*time.Millisecond {
			t.Errorf("gap %d = %s, want ~%s", i+1, gap, want)
		}
		if prev.Backoff != want {
			t.Errorf("attempt %d backoff %s", prev.N, prev.Backoff)
		}
	}
	if r.Text != "Error executing MCP tool slow_report: Operation timed out after 0.3 seconds" {
		t.Errorf("text %q", r.Text)
	}

	// Human output shows the timeline and the message.
	code, out, errs = run(t, "call", "--stdio", fixtureCommandLine(t, "slow"), "slow_report",
		"--args", `{"seconds":3}`, "--timeout", "200ms", "--backoff", "100ms")
	if code != exitTimeout {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"ATTEMPT", "timeout", "wait 100ms", "wait 200ms", "Operation timed out after 0.2 seconds"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "retrying in 100ms") {
		t.Errorf("progress lacks the retry:\n%s", errs)
	}
}

func TestCallExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"ok", []string{"--stdio", fixtureCommandLine(t, "weather"), "getForecast", "--args", `{"city":"Oslo"}`}, exitOK, "CrewAI's tool returns"},
		{"is_error", []string{"--stdio", fixtureCommandLine(t, "errors"), "returns_is_error"}, exitToolError, "ToolFailure(reason=mcp_error)"},
		// A tool the server does not list is the caller's mistake (usage).
		{"not found", []string{"--stdio", fixtureCommandLine(t, "errors"), "nope"}, exitUsage, "Resource not found"},
		{"spawn", []string{"--stdio", "/nonexistent/bin/server", "x"}, exitConnection, "Failed to start MCP server process"},
		{"crash", []string{"--stdio", fixtureCommandLine(t, "crash-on-start"), "x"}, exitConnection, "Connection closed"},
		{"exit mid-call", []string{"--stdio", fixtureCommandLine(t, "exit-mid-call"), "exit_on_call", "--attempts", "1"}, exitConnection, "transport_closed"},
		{"bad args", []string{"--stdio", "x", "t", "--args", "[1]"}, exitUsage, "--args"},
		{"bad policy", []string{"--stdio", "x", "t", "--policy", "fast"}, exitUsage, "--policy"},
		{"https on stdio", []string{"--stdio", "x", "t", "--policy", "https-string"}, exitUsage, "needs an HTTP server"},
		{"no tool", []string{"--stdio", "x"}, exitUsage, "exactly one argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, append([]string{"call"}, c.args...)...)
			if code != c.code || !strings.Contains(out+errs, c.want) {
				t.Errorf("exit %d (want %d), output lacks %q?\n%s\n%s", code, c.code, c.want, out, errs)
			}
		})
	}
}

func TestCallPoliciesOverHTTP(t *testing.T) {
	url := startHTTPFixture(t, "weather")
	// https-string: called by the sanitized name, which the server does not
	// know; CrewAI returns the error as an ordinary string.
	code, out, _ := run(t, "call", "--url", url, "getForecast", "--policy", "https-string", "--args", `{"city":"Oslo"}`, "--json")
	var r mcpconn.CallResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.CallName != "get_forecast" || r.Text != "Tool 'get_forecast' not found on MCP server" || r.Failed || code != exitToolError {
		t.Errorf("https-string: exit %d %+v", code, r)
	}
	for _, p := range []string{"native", "adapter", "session"} {
		code, out, errs := run(t, "call", "--url", url, "getForecast", "--policy", p, "--args", `{"city":"Oslo"}`, "--json")
		var r mcpconn.CallResult
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Outcome != session.OutcomeOK {
			t.Errorf("%s: exit %d %v %s %s", p, code, err, out, errs)
		}
	}
}

// Under CrewAI's policies `call` shows what CrewAI's validation does to
// the arguments and sends the validated dump (in the model's order); it
// refuses, without sending, arguments CrewAI would refuse. The session
// policy sends --args as given, in their order.
func TestCallValidationPreview(t *testing.T) {
	weather := fixtureCommandLine(t, "weather")
	cases := []struct {
		name    string
		args    []string
		code    int
		text    string // in the human output
		sent    string // the arguments sent ("" for none)
		changes []string
		refused bool
	}{
		{"coerced and defaults", []string{"--args", `{"days":"2","city":"Oslo"}`}, exitOK,
			"valid   ok (get_forecastSchema): days: '2' → 2; units: default 'metric'",
			`{"city":"Oslo","days":2,"units":"metric"}`, []string{"days: '2' → 2", "units: default 'metric'"}, false},
		{"nulls dropped", []string{"--args", `{"city":"Oslo","days":null,"units":"imperial"}`}, exitOK,
			"days: None dropped", `{"city":"Oslo","units":"imperial"}`, []string{"days: None dropped"}, false},
		{"as given", []string{"--args", `{"city":"Oslo","days":3,"units":"metric"}`, "--policy", "adapter"}, exitOK,
			"valid   ok (get_forecastSchema): sent as given", `{"city":"Oslo","days":3,"units":"metric"}`, nil, false},
		{"refused", []string{"--args", `{"days":9}`}, exitUsage,
			"arguments validation failed: 2 validation errors for get_forecastSchema\n  city\n    Field required", "", nil, true},
		{"session policy", []string{"--args", `{"units":"metric","city":"Oslo"}`, "--policy", "session"}, exitOK,
			"args    {\"units\":\"metric\",\"city\":\"Oslo\"}", `{"units":"metric","city":"Oslo"}`, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := append([]string{"call", "--stdio", weather, "getForecast", "--no-record"}, c.args...)
			code, out, errs := run(t, base...)
			if code != c.code || !strings.Contains(out, c.text) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s\n%s", code, c.code, c.text, out, errs)
			}
			if c.refused && (!strings.Contains(errs, "not sent") || strings.Contains(out, "ATTEMPT")) {
				t.Errorf("a refused call must say so and send nothing:\n%s\n%s", out, errs)
			}
			code, out, _ = run(t, append(base, "--json")...)
			var r struct {
				mcpconn.CallResult
				Validation *struct {
					Model   string          `json:"model"`
					Sent    json.RawMessage `json:"validated"`
					Changes []string        `json:"changes"`
					Refused bool            `json:"refused"`
					Error   string          `json:"error"`
				} `json:"validation"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil || code != c.code {
				t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
			}
			var sent bytes.Buffer
			_ = json.Compact(&sent, r.Arguments)
			if c.sent != "" && sent.String() != c.sent {
				t.Errorf("sent %s, want %s", sent.String(), c.sent)
			}
			if c.refused && (len(r.Attempts) != 0 || r.Outcome != "invalid_arguments" || !r.Raised || !strings.HasPrefix(r.Text, "Tool '")) {
				t.Errorf("refused: %+v", r.CallResult)
			}
			v := r.Validation
			switch {
			case c.name == "session policy":
				if v != nil {
					t.Errorf("the session policy is crewbench's own: no CrewAI validation, got %+v", v)
				}
			case v == nil:
				t.Fatal("no validation field")
			case v.Model != "get_forecastSchema" || v.Refused != c.refused || strings.Join(v.Changes, "|") != strings.Join(c.changes, "|"):
				t.Errorf("validation %+v", v)
			case c.refused && v.Error != r.Text:
				t.Errorf("the refusal's text %q differs from the result's %q", v.Error, r.Text)
			}
		})
	}
}

func startHTTPFixture(t *testing.T, name string) string {
	t.Helper()
	return fixturetest.StartHTTP(t, name, "http")
}

// recordedPath reads the file a command named in "session recorded to FILE".
func recordedPath(t *testing.T, stderr string) string {
	t.Helper()
	const prefix = "session recorded to "
	for _, line := range strings.Split(stderr, "\n") {
		if p, ok := strings.CutPrefix(line, prefix); ok {
			return p
		}
	}
	t.Fatalf("no %q line on stderr:\n%s", prefix, stderr)
	return ""
}

// sessionFiles lists the recordings in the default sessions directory.
func sessionFiles(t *testing.T) []string {
	t.Helper()
	dir, err := session.SessionsDir()
	if err != nil {
		t.Fatal(err)
	}
	m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func eventsOfKind(evs []session.Event, k session.Kind) []session.Event {
	var out []session.Event
	for _, ev := range evs {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// A call is recorded by default into $XDG_STATE_HOME/crewbench/sessions
// (TestMain points it at a temporary directory): every attempt of a
// retried call, the retries, and CrewAI's verdict, which must equal the
// result the command printed.
func TestCallRecordsByDefault(t *testing.T) {
	before := len(sessionFiles(t))
	code, out, errs := run(t, "call", "--stdio", fixtureCommandLine(t, "slow"), "slow_report",
		"--args", `{"seconds":3}`, "--timeout", "200ms", "--backoff", "50ms", "--json")
	if code != exitTimeout {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var r mcpconn.CallResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json stdout is not one JSON document: %v\n%s", err, out)
	}
	path := recordedPath(t, errs)
	dir, _ := session.SessionsDir()
	if filepath.Dir(path) != dir {
		t.Errorf("recorded to %s, want a file in %s", path, dir)
	}
	if n := len(sessionFiles(t)); n != before+1 {
		t.Errorf("%d new session files, want 1", n-before)
	}

	f, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) > 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
	h := f.Header
	if h.Command != "call" || h.Meta["tool"] != "slow_report" || !strings.Contains(h.Meta["server"].(string), "fixture") ||
		h.Meta["policy"] != "native" || h.Version == "" || h.RunID == "" {
		t.Errorf("header %+v", h)
	}
	attempts := eventsOfKind(f.Events, session.MCPAttemptFinished)
	if len(attempts) != 3 {
		t.Fatalf("%d attempts recorded, want 3", len(attempts))
	}
	for i, a := range attempts {
		if a.Attempt != i+1 || a.Outcome != session.OutcomeTimeout || a.Duration < 200*time.Millisecond {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	retries := eventsOfKind(f.Events, session.MCPRetryScheduled)
	if len(retries) != 2 || retries[0].Duration != 50*time.Millisecond || retries[1].Duration != 100*time.Millisecond {
		t.Errorf("retries %+v", retries)
	}
	if len(eventsOfKind(f.Events, session.MCPConnectionCompleted)) != 1 || len(eventsOfKind(f.Events, session.MCPProcessSpawned)) != 1 {
		t.Errorf("connect or spawn not recorded: %v", kindsOf(f.Events))
	}
	last := f.Events[len(f.Events)-1]
	if last.Kind != session.MCPToolExecutionFailed {
		t.Fatalf("last event %s, want the call's end (%v)", last.Kind, kindsOf(f.Events))
	}
	if last.Outcome != r.Outcome || last.Error != r.Text || last.Str("failure_reason") != r.FailureReason ||
		!last.Bool("raised") || !last.Bool("failed") || last.Int("attempts") != 3 {
		t.Errorf("final event %+v\nresult outcome %s reason %s text %q", last, r.Outcome, r.FailureReason, r.Text)
	}
	for i := 1; i < len(f.Events); i++ {
		if f.Events[i].Seq <= f.Events[i-1].Seq {
			t.Fatalf("seq not increasing at %d: %d after %d", i, f.Events[i].Seq, f.Events[i-1].Seq)
		}
	}

	// An ok call ends with mcp_tool_execution_completed holding the text
	// CrewAI's tool returns.
	code, out, errs = run(t, "call", "--stdio", fixtureCommandLine(t, "weather"), "getForecast", "--args", `{"city":"Oslo"}`, "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	f, err = session.ReadFile(recordedPath(t, errs), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	last = f.Events[len(f.Events)-1]
	if last.Kind != session.MCPToolExecutionCompleted || last.Outcome != session.OutcomeOK || last.Str(session.KeyResult) != r.Text || last.Bool("failed") {
		t.Errorf("final event %+v, want the text %q", last, r.Text)
	}
}

func kindsOf(evs []session.Event) []session.Kind {
	out := make([]session.Kind, len(evs))
	for i, ev := range evs {
		out[i] = ev.Kind
	}
	return out
}

func TestCallRecordFlags(t *testing.T) {
	weather := fixtureCommandLine(t, "weather")
	t.Run("record to FILE", func(t *testing.T) {
		before := len(sessionFiles(t))
		path := filepath.Join(t.TempDir(), "sub", "call.jsonl")
		code, out, errs := run(t, "call", "--stdio", weather, "getForecast", "--args", `{"city":"Oslo"}`, "--record", path)
		if code != exitOK || recordedPath(t, errs) != path || strings.Contains(out, "session recorded") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		if n := len(sessionFiles(t)); n != before {
			t.Errorf("--record FILE also wrote %d files to the sessions directory", n-before)
		}
		f, err := session.ReadFile(path, session.ReadOptions{})
		if err != nil || f.Header.Command != "call" || len(eventsOfKind(f.Events, session.MCPToolExecutionCompleted)) != 1 {
			t.Fatalf("%v %+v", err, f)
		}
	})
	t.Run("no-record", func(t *testing.T) {
		before := len(sessionFiles(t))
		code, out, errs := run(t, "call", "--stdio", weather, "getForecast", "--args", `{"city":"Oslo"}`, "--no-record")
		if code != exitOK || strings.Contains(errs, "session recorded") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		if n := len(sessionFiles(t)); n != before {
			t.Errorf("--no-record wrote %d files", n-before)
		}
	})
	t.Run("both", func(t *testing.T) {
		code, _, errs := run(t, "call", "--stdio", weather, "getForecast", "--record", filepath.Join(t.TempDir(), "x.jsonl"), "--no-record")
		if code != exitUsage || !strings.Contains(errs, "not both") {
			t.Errorf("exit %d: %s", code, errs)
		}
	})
	t.Run("unwritable", func(t *testing.T) {
		dir := t.TempDir()
		blocker := filepath.Join(dir, "file")
		if err := os.WriteFile(blocker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		// A recording that cannot be created stops the call before any
		// server is started.
		code, _, errs := run(t, "call", "--stdio", weather, "getForecast", "--record", filepath.Join(blocker, "x.jsonl"))
		if code != exitUsage || !strings.Contains(errs, "session recorder") || strings.Contains(errs, "attempt") {
			t.Errorf("exit %d: %s", code, errs)
		}
	})
	t.Run("live export", func(t *testing.T) {
		rcv := &otlpReceiver{}
		srv := httptest.NewServer(rcv)
		defer srv.Close()
		code, _, errs := run(t, "call", "--stdio", weather, "getForecast", "--args", `{"city":"Oslo"}`, "--no-record", "--otlp-endpoint", srv.URL)
		if code != exitOK || !strings.Contains(errs, "spans to "+srv.URL) || strings.Contains(errs, "exported 0 spans") {
			t.Fatalf("exit %d: %s", code, errs)
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		found := false
		for _, req := range rcv.requests {
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						found = found || strings.HasPrefix(sp.Name, "tools/call")
					}
				}
			}
		}
		if !found {
			t.Errorf("no tools/call span among %d requests", len(rcv.requests))
		}
	})
}

// The server's credentials never reach the recording: an Authorization
// header, a token in the URL and a secret env var, each also passed as a
// tool argument so it would otherwise land in the arguments, the frames
// and the echoed result.
func TestCallRecordingRedactsServerSecrets(t *testing.T) {
	const (
		headerSecret = "PLANTED-header-4f9a1c"
		urlSecret    = "PLANTED-url-77d2e0"
		envSecret    = "PLANTED-env-0b3c55"
	)
	url := startHTTPFixture(t, "weather")
	cases := []struct {
		name string
		args []string
	}{
		{"http", []string{"--url", url + "?access_token=" + urlSecret, "--header", "Authorization=Bearer " + headerSecret,
			"getForecast", "--args", `{"city":"` + headerSecret + `"}`}},
		{"stdio", []string{"--stdio", fixtureCommandLine(t, "weather"), "--env", "WEATHER_API_TOKEN=" + envSecret,
			"getForecast", "--args", `{"city":"` + envSecret + `"}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "call.jsonl")
			code, out, errs := run(t, append(append([]string{"call"}, c.args...), "--record", path)...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{headerSecret, urlSecret, envSecret} {
				if strings.Contains(string(raw), secret) {
					t.Errorf("%s reached the recording", secret)
				}
			}
			f, err := session.ReadFile(path, session.ReadOptions{})
			if err != nil || len(eventsOfKind(f.Events, session.MCPToolExecutionCompleted)) != 1 {
				t.Fatalf("%v", err)
			}
			// The value did reach the recorder, and was replaced.
			started := eventsOfKind(f.Events, session.MCPToolExecutionStarted)
			if len(started) != 1 {
				t.Fatalf("kinds %v", kindsOf(f.Events))
			}
			if args, _ := started[0].Data[session.KeyToolArgs].(map[string]any); args["city"] != session.Redacted {
				t.Errorf("tool_args %v: the planted value was not redacted", started[0].Data[session.KeyToolArgs])
			}
		})
	}
}

// crewbench replay prints a call's recording: connect, each attempt with
// its outcome, the retries, and CrewAI's verdict with the final text.
func TestReplayPrintsACallSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "call.jsonl")
	code, _, errs := run(t, "call", "--stdio", fixtureCommandLine(t, "slow"), "slow_report",
		"--args", `{"seconds":3}`, "--timeout", "200ms", "--backoff", "50ms", "--record", path)
	if code != exitTimeout {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "replay", path, "--color", "never")
	if code != replayExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"crewbench call",
		"→ tools/call slow_report @ ",
		`{"seconds":3,"topic":"inventory"}`, // the schema's default filled, as CrewAI's validation does
		"✓ connect ",
		"attempt 1 timeout after 2", "; retrying in 50ms",
		"attempt 2 timeout after 2", "; retrying in 100ms",
		"attempt 3 timeout after 2",
		"· 2 retries · timeout · CrewAI raises: Error executing MCP tool slow_report: Operation timed out after 0.2 seconds",
		"1 tool call · 3 attempts · 2 retries",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0 LLM calls") {
		t.Errorf("a call session counts LLM calls:\n%s", out)
	}
	// -v adds the wire: the tools/call request frames, the server's stderr.
	_, out, _ = run(t, "replay", path, "--color", "never", "-v")
	if strings.Count(out, "tools/call int64:") < 3 || !strings.Contains(out, "stderr ") || strings.Contains(out, " null") {
		t.Errorf("verbose replay:\n%s", out)
	}
}

// One smoke run is one recording holding every call.
func TestSmokeRecords(t *testing.T) {
	cmd, args := fixturetest.Command("inventory")
	path := filepath.Join(t.TempDir(), "smoke.jsonl")
	code, out, errs := run(t, append([]string{"smoke", "--json", "--include-destructive", "--record", path, "--"}, append([]string{cmd}, args...)...)...)
	if code != exitOK || recordedPath(t, errs) != path {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var rep smokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout: %v\n%s", err, out)
	}
	f, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Command != "smoke" || len(eventsOfKind(f.Events, session.MCPToolsListed)) == 0 {
		t.Errorf("header %+v, kinds %v", f.Header, kindsOf(f.Events))
	}
	ends := append(eventsOfKind(f.Events, session.MCPToolExecutionCompleted), eventsOfKind(f.Events, session.MCPToolExecutionFailed)...)
	if len(ends) != len(rep.Tools) || len(ends) != 3 {
		t.Errorf("%d calls recorded, %d in the report", len(ends), len(rep.Tools))
	}

	before := len(sessionFiles(t))
	code, _, errs = run(t, append([]string{"smoke", "--no-record", "--"}, append([]string{cmd}, args...)...)...)
	if code != exitOK || strings.Contains(errs, "session recorded") || len(sessionFiles(t)) != before {
		t.Errorf("--no-record: exit %d, %s", code, errs)
	}
	code, _, errs = run(t, append([]string{"smoke", "--"}, append([]string{cmd}, args...)...)...)
	if code != exitOK || filepath.Dir(recordedPath(t, errs)) != filepath.Dir(sessionFiles(t)[0]) || len(sessionFiles(t)) != before+1 {
		t.Errorf("default: exit %d, %s", code, errs)
	}
}

// The workbench's "copy as command" line (cmdline.CallLine) parses back,
// through the CLI entry, to the call it was written from: the same server,
// environment, headers, tool, arguments, policy and limits.
func TestCallLineParsesBackToTheSameCall(t *testing.T) {
	var mu sync.Mutex
	var headers []http.Header
	notMCP := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer notMCP.Close()
	command, fixtureArgs := fixturetest.Command("weather")
	for _, tc := range []struct {
		name string
		spec mcpconn.ServerSpec
		tool string
		args map[string]any
		code int
	}{
		{"stdio", mcpconn.ServerSpec{Transport: mcpconn.TransportStdio, Command: command, Args: fixtureArgs,
			Env: map[string]string{"LOG_LEVEL": "warn", "GREETING": "it's <here>"}, Policy: mcpconn.PolicySession,
			Timeouts: mcpconn.Timeouts{Call: 20 * time.Second, Attempts: 2, Backoff: 150 * time.Millisecond, Connect: 25 * time.Second}},
			"getForecast", map[string]any{"city": "Lisbon & <Porto>", "days": 2}, exitOK},
		{"http", mcpconn.ServerSpec{Transport: mcpconn.TransportHTTP, URL: notMCP.URL + "/mcp",
			Headers: map[string]string{"X-Crewbench-Test": "one 'two'"}, Timeouts: mcpconn.Timeouts{Connect: 5 * time.Second}},
			"search", map[string]any{"q": "boots", "limit": 3}, exitConnection},
		{"sse", mcpconn.ServerSpec{Transport: mcpconn.TransportSSE, URL: notMCP.URL + "/sse",
			Headers: map[string]string{"X-Crewbench-Test": "sse"}, Policy: mcpconn.PolicyNative,
			Timeouts: mcpconn.Timeouts{Connect: 5 * time.Second}},
			"search", map[string]any{}, exitConnection},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := cmdline.CallLine("crewbench", tc.spec, tc.tool, tc.args, session.DefaultRedactor)
			words, err := cmdline.Split(line)
			if err != nil || len(words) < 2 || words[0] != "crewbench" || words[1] != "call" {
				t.Fatalf("%s: %q %v", line, words, err)
			}
			rec := filepath.Join(t.TempDir(), "call.jsonl")
			code, out, errs := run(t, append(words[1:], "--json", "--record", rec)...)
			if code != tc.code {
				t.Fatalf("%s\nexit %d, want %d\n%s\n%s", line, code, tc.code, out, errs)
			}
			f, err := session.ReadFile(rec, session.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Server, transport, tool, policy and limits, as `call` records them.
			if got, want := jsonOf(t, f.Header.Meta), jsonOf(t, callMeta(tc.spec, tc.tool)); got != want {
				t.Errorf("%s\nparsed to %s\nwant      %s", line, got, want)
			}
			var r mcpconn.CallResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got, want := jsonOf(t, r.Arguments), jsonOf(t, tc.args); got != want {
				t.Errorf("arguments %s, want %s", got, want)
			}
			switch tc.spec.Transport {
			case mcpconn.TransportStdio:
				var spawned *session.Event
				for i, ev := range f.Events {
					if ev.Kind == session.MCPProcessSpawned {
						spawned = &f.Events[i]
					}
				}
				if spawned == nil {
					t.Fatal("no process spawned")
				}
				env, _ := spawned.Data["env"].(map[string]any)
				if spawned.Str("command") != tc.spec.Command || jsonOf(t, spawned.Data["args"]) != jsonOf(t, tc.spec.Args) ||
					env["LOG_LEVEL"] != "warn" || env["GREETING"] != "it's <here>" {
					t.Errorf("spawned %+v", spawned.Data)
				}
			default:
				mu.Lock()
				defer mu.Unlock()
				found := false
				for _, h := range headers {
					found = found || h.Get("X-Crewbench-Test") == tc.spec.Headers["X-Crewbench-Test"]
				}
				if !found {
					t.Errorf("no request carried the header: %v", headers)
				}
			}
		})
	}
}

// jsonOf is v as JSON with object keys sorted, so a struct and the map
// read back from its JSON compare equal.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(generic); err != nil {
		t.Fatal(err)
	}
	return string(b)
}
