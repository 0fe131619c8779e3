package session

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

func attrMap(kvs []*commonpb.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = v.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = v.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = v.BoolValue
		case *commonpb.AnyValue_ArrayValue:
			var arr []string
			for _, x := range v.ArrayValue.Values {
				arr = append(arr, x.GetStringValue())
			}
			m[kv.Key] = arr
		}
	}
	return m
}

func allSpans(td *tracepb.TracesData) []*tracepb.Span {
	var out []*tracepb.Span
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

// checkConventions validates spans against the GenAI and MCP semantic
// conventions (anchors.md §5.3) and the tree they must form.
func checkConventions(t *testing.T, spans []*tracepb.Span) {
	t.Helper()
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		if len(s.TraceId) != 16 || len(s.SpanId) != 8 {
			t.Fatalf("%s: bad id sizes", s.Name)
		}
		id := hex.EncodeToString(s.SpanId)
		if byID[id] != nil {
			t.Fatalf("duplicate span id %s", id)
		}
		byID[id] = s
	}
	required := map[string][]string{
		"invoke_workflow": {"gen_ai.operation.name"},
		"invoke_agent":    {"gen_ai.operation.name", "gen_ai.agent.name"},
		"chat":            {"gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model"},
		"execute_tool":    {"gen_ai.operation.name", "gen_ai.tool.name"},
		"tools/call":      {"mcp.method.name", "gen_ai.tool.name"},
		"initialize":      {"mcp.method.name"},
	}
	for _, s := range spans {
		op, target, _ := strings.Cut(s.Name, " ")
		a := attrMap(s.Attributes)
		req, ok := required[op]
		if !ok {
			t.Errorf("unexpected span name %q", s.Name)
			continue
		}
		for _, k := range req {
			if a[k] == nil || a[k] == "" {
				t.Errorf("%s: required attribute %s missing", s.Name, k)
			}
		}
		// The name is "{operation} {target}" with the target from the attributes.
		switch op {
		case "chat":
			if target != a["gen_ai.request.model"] {
				t.Errorf("%s: name target %q, model %v", s.Name, target, a["gen_ai.request.model"])
			}
		case "execute_tool", "tools/call":
			if target != a["gen_ai.tool.name"] {
				t.Errorf("%s: name target %q, tool %v", s.Name, target, a["gen_ai.tool.name"])
			}
		case "invoke_agent":
			if target != a["gen_ai.agent.name"] {
				t.Errorf("%s: name target %q, agent %v", s.Name, target, a["gen_ai.agent.name"])
			}
		}
		if op != "tools/call" && op != "initialize" && a["gen_ai.operation.name"] != op {
			t.Errorf("%s: gen_ai.operation.name = %v", s.Name, a["gen_ai.operation.name"])
		}
		if op == "tools/call" && (a["mcp.method.name"] != "tools/call" || a["gen_ai.operation.name"] != "execute_tool") {
			t.Errorf("%s: MCP attributes %v", s.Name, a)
		}
		wantKind := tracepb.Span_SPAN_KIND_INTERNAL
		if op == "chat" || op == "tools/call" || op == "initialize" {
			wantKind = tracepb.Span_SPAN_KIND_CLIENT
		}
		if s.Kind != wantKind {
			t.Errorf("%s: kind %v, want %v", s.Name, s.Kind, wantKind)
		}
		if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR && (a["error.type"] == nil || a["error.type"] == "") {
			t.Errorf("%s: error status without error.type", s.Name)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano || s.StartTimeUnixNano == 0 {
			t.Errorf("%s: times %d..%d", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano)
		}
		// Parent/child links: the parent exists, is in the same trace and
		// encloses the child; the chain matches the GenAI hierarchy.
		if len(s.ParentSpanId) == 0 {
			if op != "invoke_workflow" {
				t.Errorf("%s: a root span", s.Name)
			}
			continue
		}
		p := byID[hex.EncodeToString(s.ParentSpanId)]
		if p == nil {
			t.Errorf("%s: parent span missing", s.Name)
			continue
		}
		if !bytes.Equal(p.TraceId, s.TraceId) {
			t.Errorf("%s: parent in another trace", s.Name)
		}
		if s.StartTimeUnixNano < p.StartTimeUnixNano || s.EndTimeUnixNano > p.EndTimeUnixNano {
			t.Errorf("%s: outside its parent %s", s.Name, p.Name)
		}
		pop, _, _ := strings.Cut(p.Name, " ")
		allowed := map[string][]string{
			"invoke_agent": {"invoke_workflow", "execute_tool"},
			"chat":         {"invoke_agent"},
			"execute_tool": {"invoke_agent"},
			"tools/call":   {"execute_tool"},
			"initialize":   {"invoke_workflow", "invoke_agent"},
		}[op]
		found := false
		for _, x := range allowed {
			found = found || x == pop
		}
		if !found {
			t.Errorf("%s: parent %s not allowed", s.Name, p.Name)
		}
	}
}

func TestOTLPDemoConventions(t *testing.T) {
	td := BuildTraces(demoEvents(), ExportOptions{ServiceVersion: "v0.1.0", Project: "trip"})
	spans := allSpans(td)
	checkConventions(t, spans)
	names := map[string]int{}
	for _, s := range spans {
		names[s.Name]++
	}
	want := map[string]int{
		"invoke_workflow trip_crew": 1, "initialize": 1,
		"invoke_agent Weather researcher": 1, "invoke_agent Trip writer": 1,
		"chat gpt-4o-mini": 4, "execute_tool get_forecast": 5, "tools/call getForecast": 3,
	}
	if len(names) != len(want) {
		t.Errorf("span names %v", names)
	}
	for k, v := range want {
		if names[k] != v {
			t.Errorf("%d × %q, want %d (all: %v)", names[k], k, v, names)
		}
	}
	res := attrMap(td.ResourceSpans[0].Resource.Attributes)
	if res["service.name"] != "crewbench" || res["service.version"] != "v0.1.0" || res["crewbench.project"] != "trip" {
		t.Errorf("resource %v", res)
	}
	var retried, failedCall, cached, limited, guarded *tracepb.Span
	for _, s := range spans {
		a := attrMap(s.Attributes)
		switch {
		case s.Name == "execute_tool get_forecast" && a["crewbench.mcp.attempts"] == int64(2):
			retried = s
		case s.Name == "execute_tool get_forecast" && s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR:
			failedCall = s
		case s.Name == "execute_tool get_forecast" && a["crewbench.tool.from_cache"] == true:
			cached = s
		}
		for _, e := range s.Events {
			switch e.Name {
			case "crewbench.usage_limit_reached":
				limited = s
			case "crewbench.guard_tripped":
				guarded = s
			}
		}
		if s.Name == "chat gpt-4o-mini" {
			if a["gen_ai.provider.name"] != "openai" || a["gen_ai.usage.input_tokens"] == nil || a["gen_ai.usage.output_tokens"] != int64(64) && a["gen_ai.usage.output_tokens"] != int64(80) && a["gen_ai.usage.output_tokens"] != int64(90) {
				t.Errorf("chat attributes %v", a)
			}
			if a["gen_ai.input.messages"] != nil {
				t.Error("messages exported without IncludeContent")
			}
		}
	}
	if retried == nil {
		t.Fatal("no execute_tool span with 2 attempts")
	}
	a := attrMap(retried.Attributes)
	if a["gen_ai.tool.name"] != "get_forecast" || a["crewbench.mcp.server"] != "weather" || a["crewbench.mcp.tool"] != "getForecast" ||
		a["gen_ai.tool.call.id"] == nil || a["gen_ai.tool.type"] != "extension" || a["gen_ai.tool.call.arguments"] != nil {
		t.Errorf("execute_tool attributes %v", a)
	}
	if len(retried.Events) != 1 || retried.Events[0].Name != "crewbench.mcp.retry" || attrMap(retried.Events[0].Attributes)["crewbench.mcp.backoff_seconds"] != 1.0 {
		t.Errorf("retry event %v", retried.Events)
	}
	var attempts []*tracepb.Span
	for _, s := range spans {
		if bytes.Equal(s.ParentSpanId, retried.SpanId) {
			attempts = append(attempts, s)
		}
	}
	if len(attempts) != 2 {
		t.Fatalf("%d attempt spans under the retried call", len(attempts))
	}
	a1, a2 := attrMap(attempts[0].Attributes), attrMap(attempts[1].Attributes)
	if a1["error.type"] != "timeout" || attempts[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || a1["jsonrpc.request.id"] != "2" ||
		a1["crewbench.mcp.attempt"] != int64(1) || a1["crewbench.mcp.max_attempts"] != int64(3) || a1["network.transport"] != "pipe" {
		t.Errorf("attempt 1: %v %v", a1, attempts[0].Status)
	}
	if a2["error.type"] != nil || attempts[1].Status != nil || a2["jsonrpc.request.id"] != "3" {
		t.Errorf("attempt 2: %v", a2)
	}
	if failedCall == nil || attrMap(failedCall.Attributes)["error.type"] != "tool_error" || !strings.Contains(failedCall.Status.Message, "getForecast failed") {
		t.Errorf("failed call %v", failedCall)
	}
	for _, s := range spans {
		if bytes.Equal(s.ParentSpanId, failedCall.SpanId) && attrMap(s.Attributes)["error.type"] != "tool_error" {
			t.Errorf("isError attempt error.type %v", attrMap(s.Attributes)["error.type"])
		}
	}
	if cached == nil || limited == nil || guarded == nil {
		t.Errorf("cache %v limit %v guard %v", cached != nil, limited != nil, guarded != nil)
	}
}

func TestOTLPIncludeContent(t *testing.T) {
	spans := allSpans(BuildTraces(demoEvents(), ExportOptions{IncludeContent: true}))
	var args, result, msgs, defs bool
	for _, s := range spans {
		a := attrMap(s.Attributes)
		if s.Name == "execute_tool get_forecast" && a["gen_ai.tool.call.arguments"] == `{"city":"Paris"}` {
			args = true
			result = result || a["gen_ai.tool.call.result"] == "Sunny, 21°C"
		}
		if s.Name == "chat gpt-4o-mini" {
			msgs = msgs || strings.Contains(str(a["gen_ai.input.messages"]), "Weather researcher")
			defs = defs || strings.Contains(str(a["gen_ai.tool.definitions"]), "get_forecast")
		}
	}
	if !args || !result || !msgs || !defs {
		t.Errorf("content: args %v result %v messages %v definitions %v", args, result, msgs, defs)
	}
}

// The OTLP/JSON file follows the OTLP JSON encoding: hex ids, integer
// enums, 64-bit integers as strings, lowerCamelCase keys — and it decodes
// back to the same message.
func TestOTLPJSONEncoding(t *testing.T) {
	td := BuildTraces(demoEvents(), ExportOptions{})
	out, err := MarshalOTLPJSON(td)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(out, []byte("\n")) != 1 || out[len(out)-1] != '\n' {
		t.Error("want exactly one line")
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	hexRe := regexp.MustCompile(`^[0-9a-f]+$`)
	var walk func(k string, v any)
	walk = func(k string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for kk, vv := range x {
				if strings.Contains(kk, "_") && k != "attributes-key" {
					t.Errorf("snake_case key %q", kk)
				}
				walk(kk, vv)
			}
		case []any:
			for _, vv := range x {
				walk(k, vv)
			}
		case string:
			switch k {
			case "traceId":
				if len(x) != 32 || !hexRe.MatchString(x) {
					t.Errorf("traceId %q", x)
				}
			case "spanId", "parentSpanId":
				if len(x) != 16 || !hexRe.MatchString(x) {
					t.Errorf("%s %q", k, x)
				}
			case "startTimeUnixNano", "endTimeUnixNano", "timeUnixNano", "intValue":
				if _, err := json.Number(x).Int64(); err != nil {
					t.Errorf("%s %q is not a decimal string", k, x)
				}
			case "kind", "code":
				t.Errorf("%s is a string %q, want an integer", k, x)
			}
		case json.Number:
			switch k {
			case "startTimeUnixNano", "endTimeUnixNano", "intValue":
				t.Errorf("%s is a JSON number, want a string", k)
			}
		}
	}
	walk("", doc)
	if !bytes.Contains(out, []byte(`"kind":3`)) || !bytes.Contains(out, []byte(`"code":2`)) {
		t.Error("enums not encoded as integers")
	}
	// Decode back: hex ids → base64 for protojson, then compare.
	back := regexp.MustCompile(`"(traceId|spanId|parentSpanId)":"([0-9a-f]+)"`).ReplaceAllFunc(out, func(m []byte) []byte {
		sub := regexp.MustCompile(`"(\w+)":"([0-9a-f]+)"`).FindSubmatch(m)
		b, _ := hex.DecodeString(string(sub[2]))
		return []byte(`"` + string(sub[1]) + `":"` + base64.StdEncoding.EncodeToString(b) + `"`)
	})
	var req collectorpb.ExportTraceServiceRequest
	if err := protojson.Unmarshal(back, &req); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&req, &collectorpb.ExportTraceServiceRequest{ResourceSpans: td.ResourceSpans}) {
		t.Error("OTLP JSON does not decode back to the exported spans")
	}
}

// Re-exporting gives the same ids and bytes; a live export gives the same
// ids as the file export.
func TestOTLPDeterministic(t *testing.T) {
	evs := demoEvents()
	a, _ := MarshalOTLPJSON(BuildTraces(evs, ExportOptions{}))
	b, _ := MarshalOTLPJSON(BuildTraces(evs, ExportOptions{}))
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of one session differ")
	}
	// Another run id gives other ids.
	other := append([]Event(nil), evs...)
	for i := range other {
		other[i].RunID = "run-2"
	}
	if c, _ := MarshalOTLPJSON(BuildTraces(other, ExportOptions{})); bytes.Equal(a, c) {
		t.Fatal("a different run has the same ids")
	}
}

// receiver is a loopback OTLP/HTTP collector that decodes real payloads.
type receiver struct {
	mu       sync.Mutex
	requests []*collectorpb.ExportTraceServiceRequest
	raw      [][]byte
	headers  []http.Header
	status   int
	body     []byte
	ctype    string
	delay    time.Duration
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request line", http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var req collectorpb.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if rc.delay > 0 {
		select {
		case <-time.After(rc.delay):
		case <-r.Context().Done():
			return
		}
	}
	rc.mu.Lock()
	rc.requests = append(rc.requests, &req)
	rc.raw = append(rc.raw, raw)
	rc.headers = append(rc.headers, r.Header.Clone())
	status, body, ctype := rc.status, rc.body, rc.ctype
	rc.mu.Unlock()
	if ctype == "" {
		ctype = "application/x-protobuf"
	}
	w.Header().Set("Content-Type", ctype)
	if status == 0 {
		status = http.StatusOK
		body, _ = proto.Marshal(&collectorpb.ExportTraceServiceResponse{})
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (rc *receiver) spans() []*tracepb.Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []*tracepb.Span
	for _, r := range rc.requests {
		out = append(out, allSpans(&tracepb.TracesData{ResourceSpans: r.ResourceSpans})...)
	}
	return out
}

func TestOTLPHTTPExport(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	evs := demoEvents()
	c := &OTLPClient{Endpoint: srv.URL, Headers: map[string]string{"Authorization": "Bearer tok-123456"}}
	if err := exportOTLP(context.Background(), c, evs, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	got := rc.spans()
	want := allSpans(BuildTraces(evs, ExportOptions{}))
	if len(got) != len(want) {
		t.Fatalf("receiver decoded %d spans, exported %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Fatalf("span %d differs after the wire", i)
		}
	}
	checkConventions(t, got)
	if rc.headers[0].Get("Authorization") != "Bearer tok-123456" {
		t.Error("headers not sent")
	}
}

func TestOTLPHTTPErrors(t *testing.T) {
	evs := demoEvents()[:4]
	statusBody := func(msg string) []byte { // google.rpc.Status{code=3, message=msg}
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, 3)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		return protowire.AppendString(b, msg)
	}
	partial, _ := proto.Marshal(&collectorpb.ExportTraceServiceResponse{PartialSuccess: &collectorpb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "span too old"}})
	for _, tc := range []struct {
		name      string
		rc        *receiver
		path      string
		timeout   time.Duration
		want      string
		retryable bool
	}{
		{name: "400 with status", rc: &receiver{status: 400, body: statusBody("invalid span: key sk-abcdefghijklmnopqrstuv")}, want: "HTTP 400 Bad Request: invalid span: key " + Redacted},
		{name: "503 json", rc: &receiver{status: 503, ctype: "application/json", body: []byte(`{"code":14,"message":"overloaded"}`)}, want: "HTTP 503 Service Unavailable: overloaded", retryable: true},
		{name: "404 text", rc: &receiver{}, path: "/wrong?api_key=hunter22", want: "/wrong?api_key=" + Redacted + ": HTTP 404 Not Found: bad request line"},
		{name: "partial success", rc: &receiver{body: partial}, want: "collector rejected 2 spans: span too old"},
		{name: "timeout", rc: &receiver{delay: 5 * time.Second}, timeout: 200 * time.Millisecond, want: "no answer within 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "partial success" {
				tc.rc.status = 200
			}
			srv := httptest.NewServer(tc.rc)
			defer srv.Close()
			c := &OTLPClient{Endpoint: srv.URL + tc.path, Timeout: tc.timeout}
			start := time.Now()
			err := exportOTLP(context.Background(), c, evs, ExportOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter22") || strings.Contains(err.Error(), "sk-abcdefghijklmnopqrstuv") {
				t.Fatalf("secret in error: %v", err)
			}
			var he *HTTPError
			if errors.As(err, &he) && he.Retryable() != tc.retryable {
				t.Errorf("retryable = %v", he.Retryable())
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
	// Connection refused and a bad endpoint.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if err := exportOTLP(context.Background(), &OTLPClient{Endpoint: url + "/?token=zzsecret"}, evs, ExportOptions{}); err == nil || strings.Contains(err.Error(), "zzsecret") {
		t.Errorf("refused: %v", err)
	}
	for _, ep := range []string{"localhost:4318", "ftp://x/", "http://", "::bad"} {
		if _, err := TracesURL(ep); err == nil {
			t.Errorf("TracesURL(%q) accepted", ep)
		}
	}
	if u, _ := TracesURL("http://localhost:4318"); u != "http://localhost:4318/v1/traces" {
		t.Errorf("base URL → %s", u)
	}
	if u, _ := TracesURL("https://cloud.example/api/public/otel/v1/traces"); u != "https://cloud.example/api/public/otel/v1/traces" {
		t.Errorf("full URL → %s", u)
	}
}

func TestLiveExporter(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	l := NewLiveExporter(&OTLPClient{Endpoint: srv.URL}, ExportOptions{}, LiveOptions{BatchSize: 4, Interval: 50 * time.Millisecond})
	var c Collector
	demoRun(Fanout{&c, l})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := rc.spans()
	want := allSpans(BuildTraces(c.Events(), ExportOptions{}))
	if len(got) != len(want) || l.Sent() != len(want) {
		t.Fatalf("live export sent %d spans (%d counted), file export has %d", len(got), l.Sent(), len(want))
	}
	ids := map[string]*tracepb.Span{}
	for _, s := range want {
		ids[hex.EncodeToString(s.SpanId)] = s
	}
	for _, s := range got {
		w := ids[hex.EncodeToString(s.SpanId)]
		if w == nil || !bytes.Equal(w.TraceId, s.TraceId) || !bytes.Equal(w.ParentSpanId, s.ParentSpanId) || w.Name != s.Name {
			t.Fatalf("live span %s does not match the file export", s.Name)
		}
	}
	checkConventions(t, got)
	rc.mu.Lock()
	n := len(rc.requests)
	rc.mu.Unlock()
	if n < 3 {
		t.Errorf("%d requests: spans were not batched as scopes ended", n)
	}
	// A dead endpoint: Close reports it, Emit never blocks.
	srv.Close()
	l = NewLiveExporter(&OTLPClient{Endpoint: srv.URL, Timeout: time.Second}, ExportOptions{}, LiveOptions{})
	demoRun(l)
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "export requests failed") {
		t.Fatalf("dead endpoint: %v", err)
	}
}

// writeOTLPJSONFile exports events to path in the OTLP/JSON encoding.
func writeOTLPJSONFile(path string, events []Event, opts ExportOptions) error {
	b, err := MarshalOTLPJSON(BuildTraces(events, opts))
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("write OTLP JSON: %w", err)
	}
	return nil
}

// exportOTLP builds spans from events and posts them in one request.
func exportOTLP(ctx context.Context, c *OTLPClient, events []Event, opts ExportOptions) error {
	return c.Export(ctx, BuildTraces(events, opts))
}

// Attributes the GenAI and MCP semantic conventions ask for (issue 13,
// defect 5): provider and response model on chat spans, the LLM endpoint,
// structured output messages, a JSON-RPC error's code as error.type and
// rpc.response.status_code, and the session's protocol version, session
// id and request id on every MCP span.
func TestOTLPConventionAttributes(t *testing.T) {
	var c Collector
	d := newDemoWriter(&c)
	crew, task, llm := d.em.NewSpan(), d.em.NewSpan(), d.em.NewSpan()
	d.emit(Event{Kind: CrewKickoffStarted, Span: crew, Data: map[string]any{KeyCrewName: "trip_crew"}})
	d.emit(Event{Kind: TaskStarted, Span: task, Parent: crew, TaskName: "forecast", AgentRole: "Weather researcher"})
	d.emit(Event{Kind: LLMCallStarted, Span: llm, Parent: task, Data: map[string]any{KeyModel: "gpt-4o-mini", KeyServerURL: "https://llm.example:8443/v1",
		KeyMessages: []any{map[string]any{"role": "user", "content": "forecast?"}}}})
	d.clock.advance(time.Second)
	d.emit(Event{Kind: LLMCallCompleted, Span: llm, Parent: task, Data: map[string]any{KeyModel: "gpt-4o-mini-2024-07-18", KeyResponse: "Calling the tool.",
		KeyFinishReason: "tool_calls", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
			"function": map[string]any{"name": "get_forecast", "arguments": `{"city":"Paris"}`}}}}})
	tool, mcp, att := d.em.NewSpan(), d.em.NewSpan(), d.em.NewSpan()
	base := Event{Server: "weather", ToolName: "get_forecast", OriginalToolName: "getForecast"}
	emit := func(kind Kind, span, parent string, f func(*Event)) {
		ev := base
		ev.Kind, ev.Span, ev.Parent = kind, span, parent
		f(&ev)
		d.emit(ev)
	}
	emit(ToolUsageStarted, tool, task, func(*Event) {})
	emit(MCPToolExecutionStarted, mcp, tool, func(ev *Event) {
		ev.Data = map[string]any{KeyTransport: "streamable-http", KeyServerURL: "http://127.0.0.1:9000/mcp"}
	})
	emit(MCPAttemptStarted, att, mcp, func(ev *Event) {
		ev.Attempt = 1
		ev.Data = map[string]any{KeyProtocolVersion: "2025-06-18", KeyMCPSessionID: "sess-42"}
	})
	emit(MCPAttemptFinished, att, mcp, func(ev *Event) {
		ev.Attempt, ev.Outcome, ev.Error = 1, OutcomeJSONRPCError, "MCP error -32603: boom"
		ev.Data = map[string]any{KeyJSONRPCCode: -32603, KeyJSONRPCID: "7"}
	})
	emit(MCPToolExecutionFailed, mcp, tool, func(ev *Event) {
		ev.Outcome, ev.Error, ev.Data = OutcomeJSONRPCError, "boom", map[string]any{KeyJSONRPCCode: -32603}
	})
	emit(ToolUsageError, tool, task, func(ev *Event) { ev.Error = "boom" })
	d.emit(Event{Kind: TaskCompleted, Span: task, Parent: crew, TaskName: "forecast", AgentRole: "Weather researcher"})
	d.emit(Event{Kind: CrewKickoffCompleted, Span: crew})

	spans := allSpans(BuildTraces(c.Events(), ExportOptions{IncludeContent: true}))
	checkConventions(t, spans)
	byName := map[string]map[string]any{}
	for _, s := range spans {
		byName[s.Name] = attrMap(s.Attributes)
	}
	chat := byName["chat gpt-4o-mini"]
	for k, want := range map[string]any{"gen_ai.provider.name": "openai", "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
		"server.address": "llm.example", "server.port": int64(8443)} {
		if chat[k] != want {
			t.Errorf("chat %s = %v, want %v", k, chat[k], want)
		}
	}
	var out []map[string]any
	if err := json.Unmarshal([]byte(str(chat["gen_ai.output.messages"])), &out); err != nil {
		t.Fatalf("gen_ai.output.messages %v: %v", chat["gen_ai.output.messages"], err)
	}
	wantOut := []map[string]any{{"role": "assistant", "finish_reason": "tool_calls", "parts": []any{
		map[string]any{"type": "text", "content": "Calling the tool."},
		map[string]any{"type": "tool_call", "id": "call_1", "name": "get_forecast", "arguments": map[string]any{"city": "Paris"}}}}}
	if diff := cmp.Diff(wantOut, out); diff != "" {
		t.Errorf("output messages (-want +got):\n%s", diff)
	}
	if in := str(chat["gen_ai.input.messages"]); in != `[{"role":"user","parts":[{"type":"text","content":"forecast?"}]}]` {
		t.Errorf("input messages %s", in)
	}
	call := byName["tools/call getForecast"]
	for k, want := range map[string]any{"error.type": "-32603", "rpc.response.status_code": "-32603", "jsonrpc.request.id": "7",
		"mcp.protocol.version": "2025-06-18", "mcp.session.id": "sess-42", "server.address": "127.0.0.1", "server.port": int64(9000)} {
		if call[k] != want {
			t.Errorf("tools/call %s = %v, want %v", k, call[k], want)
		}
	}
	exec := byName["execute_tool get_forecast"]
	if exec["mcp.protocol.version"] != "2025-06-18" || exec["mcp.session.id"] != "sess-42" || exec["error.type"] != "-32603" {
		t.Errorf("execute_tool %v", exec)
	}
}
