package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// decodeOTLPJSON reads an OTLP/JSON file back into trace data. OTLP/JSON
// writes ids as hex where protojson expects base64, so they are converted
// first; everything else must be what protojson accepts.
func decodeOTLPJSON(t *testing.T, b []byte) *tracepb.TracesData {
	t.Helper()
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var fix func(v any)
	fix = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					raw, err := hex.DecodeString(s)
					if err != nil {
						t.Fatalf("%s %q is not hex", k, s)
					}
					x[k] = base64.StdEncoding.EncodeToString(raw)
					continue
				}
				fix(val)
			}
		case []any:
			for _, val := range x {
				fix(val)
			}
		}
	}
	fix(doc)
	fixed, _ := json.Marshal(doc)
	var td tracepb.TracesData
	if err := protojson.Unmarshal(fixed, &td); err != nil {
		t.Fatalf("protojson: %v", err)
	}
	return &td
}

func spansOf(td *tracepb.TracesData) []*tracepb.Span {
	var out []*tracepb.Span
	for _, rs := range td.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			out = append(out, ss.GetSpans()...)
		}
	}
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = strconv.FormatInt(v.IntValue, 10)
		default:
			m[kv.Key] = "?"
		}
	}
	return m
}

// checkSpanTree checks the exported spans: one trace, every parent present,
// and the names and attributes the semantic conventions ask for.
func checkSpanTree(t *testing.T, spans []*tracepb.Span, wantNames ...string) {
	t.Helper()
	byID := map[string]*tracepb.Span{}
	traces := map[string]bool{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s
		traces[hex.EncodeToString(s.TraceId)] = true
	}
	if len(traces) != 1 {
		t.Errorf("%d traces, want 1", len(traces))
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
		if len(s.ParentSpanId) > 0 && byID[hex.EncodeToString(s.ParentSpanId)] == nil {
			t.Errorf("%s: parent %x is not exported", s.Name, s.ParentSpanId)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano || s.StartTimeUnixNano == 0 {
			t.Errorf("%s: bad times", s.Name)
		}
		a := attrs(s.Attributes)
		switch {
		case strings.HasPrefix(s.Name, "execute_tool "):
			if a["gen_ai.tool.name"] != strings.TrimPrefix(s.Name, "execute_tool ") || a["crewbench.mcp.server"] == "" || a["crewbench.mcp.tool"] == "" {
				t.Errorf("%s: attributes %v", s.Name, a)
			}
		case strings.HasPrefix(s.Name, "tools/call "):
			if a["mcp.method.name"] != "tools/call" {
				t.Errorf("%s: attributes %v", s.Name, a)
			}
			if p := byID[hex.EncodeToString(s.ParentSpanId)]; p == nil || !strings.HasPrefix(p.Name, "execute_tool ") {
				t.Errorf("%s: not under its execute_tool span", s.Name)
			}
		case strings.HasPrefix(s.Name, "chat "):
			if a["gen_ai.usage.input_tokens"] == "" || a["gen_ai.request.model"] == "" {
				t.Errorf("%s: attributes %v", s.Name, a)
			}
		}
	}
	sort.Strings(names)
	joined := strings.Join(names, "\n")
	for _, want := range wantNames {
		if !strings.Contains(joined, want) {
			t.Errorf("no span %q in:\n%s", want, joined)
		}
	}
}

var syntheticSpanNames = []string{"invoke_workflow Weekend Brief", "invoke_agent Weekend Forecaster", "chat gpt-4o-mini",
	"execute_tool weather_get_forecast", "tools/call getForecast", "execute_tool slow_slow_report"}

func TestExportOTLPJSONFile(t *testing.T) {
	dir := t.TempDir()
	in := recordSession(t, filepath.Join(dir, "run.jsonl"), sessionSpec{failReport: true})
	out := filepath.Join(dir, "run.otlp.json")
	code, stdout, errs := runSessionCLI(t, "export", in, "--otlp-json", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "wrote 16 spans (1 trace) to "+out) || stdout != "" {
		t.Errorf("stdout %q stderr %q", stdout, errs)
	}
	b := []byte(readString(t, out))
	td := decodeOTLPJSON(t, b)
	spans := spansOf(td)
	if len(spans) != 16 {
		t.Errorf("%d spans", len(spans))
	}
	checkSpanTree(t, spans, syntheticSpanNames...)
	if strings.Contains(string(b), "gen_ai.input.messages") {
		t.Error("content exported without --include-content")
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	// The same ids every time, and content only when asked for.
	code, again, _ := runSessionCLI(t, "export", in, "--otlp-json", "-", "--include-content")
	if code != 0 || !strings.Contains(again, "gen_ai.input.messages") {
		t.Fatalf("--include-content to stdout: exit %d", code)
	}
	againSpans := spansOf(decodeOTLPJSON(t, []byte(again)))
	for i := range spans {
		if string(spans[i].SpanId) != string(againSpans[i].SpanId) || string(spans[i].TraceId) != string(againSpans[i].TraceId) {
			t.Fatalf("span %d: ids differ between two exports", i)
		}
	}
}

// otlpReceiver is a loopback OTLP/HTTP collector that decodes the real
// protobuf payload.
type otlpReceiver struct {
	mu       sync.Mutex
	paths    []string
	auth     []string
	bodies   [][]byte
	requests []*collectorpb.ExportTraceServiceRequest
	status   int
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var er collectorpb.ExportTraceServiceRequest
	err := proto.Unmarshal(body, &er)
	r.mu.Lock()
	r.paths = append(r.paths, req.URL.Path)
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	r.bodies = append(r.bodies, body)
	r.requests = append(r.requests, &er)
	status := r.status
	r.mu.Unlock()
	if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad payload", http.StatusBadRequest)
		return
	}
	if status != 0 {
		// Echo the credential back, as a careless proxy might.
		http.Error(w, "denied for "+req.Header.Get("Authorization"), status)
		return
	}
	resp, _ := proto.Marshal(&collectorpb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(resp)
}

func TestExportToLoopbackCollector(t *testing.T) {
	rcv := &otlpReceiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	dir := t.TempDir()
	in := rawSession(t, filepath.Join(dir, "raw.jsonl"), sessionSpec{failReport: true})
	const cred = "Bearer PLANTED-collector-cred-93ab"

	for _, endpoint := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1/traces", srv.URL + "/custom/otlp"} {
		code, _, errs := runSessionCLI(t, "export", in, "--otlp-endpoint", endpoint, "--header", "Authorization="+cred, "--include-content")
		if code != 0 {
			t.Fatalf("%s: exit %d %s", endpoint, code, errs)
		}
		if !strings.Contains(errs, "sent 16 spans (1 trace) to ") {
			t.Errorf("stderr %q", errs)
		}
	}
	rcv.mu.Lock()
	paths, auth, reqs, bodies := rcv.paths, rcv.auth, rcv.requests, rcv.bodies
	rcv.mu.Unlock()
	if strings.Join(paths, ",") != "/v1/traces,/v1/traces,/v1/traces,/custom/otlp" {
		t.Errorf("paths %v", paths)
	}
	for i, r := range reqs {
		if auth[i] != cred {
			t.Errorf("request %d: Authorization %q", i, auth[i])
		}
		spans := spansOf(&tracepb.TracesData{ResourceSpans: r.ResourceSpans})
		if len(spans) != 16 {
			t.Fatalf("request %d: %d spans", i, len(spans))
		}
		checkSpanTree(t, spans, syntheticSpanNames...)
		// Content was asked for, but the planted secrets stay hidden.
		if strings.Contains(string(bodies[i]), "PLANTED") {
			t.Errorf("request %d carries a planted secret", i)
		}
		if !strings.Contains(string(bodies[i]), "gen_ai.input.messages") {
			t.Errorf("request %d lacks the content it was asked for", i)
		}
	}

	rcv.mu.Lock()
	rcv.status = http.StatusUnauthorized
	rcv.mu.Unlock()
	code, stdout, errs := runSessionCLI(t, "export", in, "--otlp-endpoint", srv.URL, "--header", "Authorization="+cred)
	if code != 1 || !strings.Contains(errs, "HTTP 401 Unauthorized") {
		t.Errorf("401: exit %d %q", code, errs)
	}
	if strings.Contains(stdout+errs, "PLANTED") {
		t.Errorf("the credential the collector echoed was printed: %q", errs)
	}
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	in := recordSession(t, filepath.Join(dir, "run.jsonl"), sessionSpec{})
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte(`{"crewbench_session":1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"export", in}, "say where to export"},
		{[]string{"export", in, "--otlp-endpoint", "localhost:4318"}, "want an http:// or https:// URL"},
		{[]string{"export", in, "--otlp-endpoint", "http://"}, "no host"},
		{[]string{"export", in, "--otlp-json", "x.json", "--header", "A=b"}, "--header needs --otlp-endpoint"},
		{[]string{"export", in, "--otlp-endpoint", closedURL, "--header", "Authorization"}, "want NAME=VALUE"},
		{[]string{"export", in, "--otlp-endpoint", closedURL}, "is a collector listening there?"},
		{[]string{"export", filepath.Join(dir, "missing.jsonl"), "--otlp-json", "x.json"}, "no such file"},
		{[]string{"export", empty, "--otlp-json", filepath.Join(dir, "x.json")}, "has no scopes to export"},
		{[]string{"export", in, "--otlp-json", filepath.Join(dir, "no", "such", "dir", "x.json")}, "write OTLP JSON"},
	}
	for _, tt := range tests {
		code, _, errs := runSessionCLI(t, tt.args...)
		if code != 1 || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q (want one line with %q)", tt.args, code, errs, tt.want)
		}
	}
}

func TestExportFileNeverHoldsSecrets(t *testing.T) {
	dir := t.TempDir()
	in := rawSession(t, filepath.Join(dir, "raw.jsonl"), sessionSpec{failReport: true})
	for _, extra := range [][]string{nil, {"--include-content"}} {
		out := filepath.Join(dir, "out.json")
		args := append([]string{"export", in, "--otlp-json", out}, extra...)
		if code, _, errs := runSessionCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		if b := readString(t, out); strings.Contains(b, "PLANTED") {
			t.Errorf("%v: the exported file holds a planted secret", args)
		}
	}
}

// countSpans counts spans and distinct trace ids.
func countSpans(td *tracepb.TracesData) (spans, traces int) {
	ids := map[string]bool{}
	for _, rs := range td.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				spans++
				ids[string(sp.GetTraceId())] = true
			}
		}
	}
	return spans, len(ids)
}

// A real run against a loopback OpenAI-compatible server whose base URL
// carries credentials: the chat spans sent to the loopback collector name
// the LLM server (server.address/server.port, GenAI conventions), and
// neither the recording nor the spans carry the URL's userinfo.
func TestExportChatSpansNameTheLLMServer(t *testing.T) {
	llm := startChatServer(t, "Done.")
	u, err := url.Parse(llm.URL)
	if err != nil {
		t.Fatal(err)
	}
	const userinfo = "llmuser:PLANTED-url-pass-51c"
	t.Setenv("OPENAI_BASE_URL", "http://"+userinfo+"@"+u.Host+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	if code, _, errs := runCrewCLI(t, "run", "--demo", "--llm", "openai/gpt-4o-mini", "--record", rec, "--color", "never"); code != runExitOK {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	recorded, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(recorded), "PLANTED") || strings.Contains(string(recorded), "llmuser") {
		t.Error("the recording carries the base URL's userinfo")
	}

	rcv := &otlpReceiver{}
	col := httptest.NewServer(rcv)
	defer col.Close()
	if code, _, errs := runSessionCLI(t, "export", rec, "--otlp-endpoint", col.URL, "--include-content"); code != 0 {
		t.Fatalf("export: exit %d %s", code, errs)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	chats := 0
	for i, r := range rcv.requests {
		if strings.Contains(string(rcv.bodies[i]), "PLANTED") || strings.Contains(string(rcv.bodies[i]), "llmuser") {
			t.Errorf("request %d carries the base URL's userinfo", i)
		}
		for _, s := range spansOf(&tracepb.TracesData{ResourceSpans: r.ResourceSpans}) {
			a := attrs(s.Attributes)
			if a["gen_ai.operation.name"] != "chat" {
				continue
			}
			chats++
			if a["server.address"] != u.Hostname() || a["server.port"] != u.Port() {
				t.Errorf("chat span %q: server.address %q server.port %q, want %s %s", s.Name, a["server.address"], a["server.port"], u.Hostname(), u.Port())
			}
		}
	}
	if chats == 0 {
		t.Fatal("no chat spans exported")
	}
}
