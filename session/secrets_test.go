package session

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// plantSecrets emits a run whose events carry planted credentials in every
// place one can hide: headers, env, URL userinfo and query, free text,
// nested Data, a raw JSON-RPC frame, stderr, and a value loaded from .env.
// Every planted value contains "PLANTED".
func plantSecrets(sink Sink) {
	d := newDemoWriter(sink)
	crew := d.em.NewSpan()
	d.emit(Event{Kind: CrewKickoffStarted, Span: crew, Data: map[string]any{KeyCrewName: "c", KeyInputs: map[string]any{"topic": "x"}}})
	conn := d.em.NewSpan()
	d.emit(Event{Kind: MCPConnectionStarted, Span: conn, Parent: crew, Server: "remote", Data: map[string]any{
		KeyServerURL: "https://bob:PLANTED-pass-0003@mcp.example.com/mcp?api_key=PLANTED-query-0004&city=x",
		"headers":    map[string]string{"Authorization": "Bearer PLANTED-bearer-0001xyz", "X-Api-Key": "PLANTED-header-0011"},
		"env":        map[string]any{"MY_SERVICE_TOKEN": "PLANTED-env-0002", "PATH": "/usr/bin"},
	}})
	d.emit(Event{Kind: MCPStderr, Span: conn, Server: "remote", Data: map[string]any{KeyLine: "starting with token=PLANTED-stderr-0009"}})
	d.emit(Event{Kind: MCPFrame, Span: conn, Server: "remote", Data: map[string]any{KeyDirection: "send",
		KeyFrame: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"q","arguments":{"api_key":"PLANTED-frame-0010"}}}`}})
	d.emit(Event{Kind: MCPConnectionFailed, Span: conn, Parent: crew, Server: "remote",
		Error: "connect https://bob:PLANTED-pass-0003@mcp.example.com/mcp failed: 401 with Authorization: Bearer PLANTED5bearer0005abc"})
	task := d.em.NewSpan()
	d.emit(Event{Kind: TaskStarted, Span: task, Parent: crew, TaskName: "t", AgentRole: "r"})
	llm := d.em.NewSpan()
	d.emit(Event{Kind: LLMCallStarted, Span: llm, Parent: task, Data: map[string]any{KeyModel: "openai/gpt-4o-mini",
		KeyMessages: []any{map[string]any{"role": "user", "content": "my key is PLANTED-dotenv-0007, keep it safe"}}}})
	d.emit(Event{Kind: LLMCallCompleted, Span: llm, Parent: task, Data: map[string]any{KeyModel: "openai/gpt-4o-mini",
		KeyResponse: "use sk-PLANTED0008abcdefghijklmnop", KeyUsage: map[string]any{"prompt_tokens": 3, "completion_tokens": 4}}})
	tool := d.em.NewSpan()
	d.emit(Event{Kind: ToolUsageStarted, Span: tool, Parent: task, ToolName: "q", OriginalToolName: "q", Server: "remote",
		Data: map[string]any{KeyToolArgs: map[string]any{"password": "PLANTED-arg-0006", "q": "weather"}}})
	att := d.em.NewSpan()
	d.emit(Event{Kind: MCPAttemptStarted, Span: att, Parent: tool, Attempt: 1, Data: map[string]any{KeyServerURL: "https://mcp.example.com/mcp?token=PLANTED-query-0012"}})
	d.emit(Event{Kind: MCPAttemptFinished, Span: att, Parent: tool, Attempt: 1, Outcome: OutcomeAuth, Error: "401: bad credential PLANTED-dotenv-0007"})
	d.emit(Event{Kind: ToolUsageError, Span: tool, Parent: task, ToolName: "q", Error: "Error executing tool: GITHUB_TOKEN=PLANTED-text-0013 rejected",
		Data: map[string]any{KeyOutput: "the .env value PLANTED-dotenv-0007 leaked"}})
	d.emit(Event{Kind: TaskCompleted, Span: task, Parent: crew, TaskName: "t", AgentRole: "r", Data: map[string]any{KeyOutput: "done"}})
	d.emit(Event{Kind: CrewKickoffCompleted, Span: crew, Data: map[string]any{KeyCrewName: "c"}})
}

func TestPlantedSecretsNeverWritten(t *testing.T) {
	// The .env value is only known as a marked value of this run.
	red := NewRedactor("PLANTED-dotenv-0007")
	var c Collector
	plantSecrets(&c)
	evs := c.Events()
	if raw := bytes.Join(func() [][]byte {
		var out [][]byte
		for _, ev := range jsonRoundTrip(t, evs) {
			out = append(out, []byte(ev.Error), []byte(quoteOrMarshal(ev.Data)))
		}
		return out
	}(), nil); !bytes.Contains(raw, []byte("PLANTED")) {
		t.Fatal("the test events carry no planted secret")
	}
	check := func(where string, b []byte) {
		t.Helper()
		if i := bytes.Index(b, []byte("PLANTED")); i >= 0 {
			lo, hi := max(0, i-60), min(len(b), i+40)
			t.Errorf("%s leaks a planted secret: …%s…", where, b[lo:hi])
		}
		if !bytes.Contains(b, []byte(Redacted)) && where != "protobuf payload (no content)" {
			t.Errorf("%s has no redaction marker at all", where)
		}
	}

	// The recorded file.
	path := filepath.Join(t.TempDir(), "s.jsonl")
	rec, err := Create(path, RecorderOptions{Redactor: red, Header: Header{Meta: map[string]any{"api_key": "PLANTED-meta-0014"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		rec.Emit(ev)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(path)
	check("recorded file", file)

	// OTLP/JSON, with content included (the most that is ever exported).
	opts := ExportOptions{IncludeContent: true, Redactor: red}
	js, err := MarshalOTLPJSON(BuildTraces(evs, opts))
	if err != nil {
		t.Fatal(err)
	}
	check("OTLP JSON", js)
	out := filepath.Join(t.TempDir(), "o.json")
	if err := writeOTLPJSONFile(out, evs, opts); err != nil {
		t.Fatal(err)
	}
	fileJS, _ := os.ReadFile(out)
	check("OTLP JSON file", fileJS)

	// The protobuf payload as a collector receives it, one-shot and live.
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	if err := exportOTLP(context.Background(), &OTLPClient{Endpoint: srv.URL}, evs, opts); err != nil {
		t.Fatal(err)
	}
	live := NewLiveExporter(&OTLPClient{Endpoint: srv.URL}, opts, LiveOptions{BatchSize: 2})
	for _, ev := range evs {
		live.Emit(ev)
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	payload := bytes.Join(rc.raw, nil)
	rc.mu.Unlock()
	check("protobuf payload", payload)

	// The printed trace, verbose.
	var printed bytes.Buffer
	p := NewPrinter(&printed, PrinterOptions{Verbose: true, Redactor: red})
	for _, ev := range evs {
		p.Emit(ev)
	}
	_ = p.Close()
	check("printed trace", printed.Bytes())
}
