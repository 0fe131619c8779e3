package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"crewbench/fixtures"
	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// asksSpecs are the asks fixture over stdio and streamable HTTP.
func asksSpecs(t *testing.T) map[string]ServerSpec {
	t.Helper()
	http := ServerSpec{Name: "asks-http", Transport: TransportHTTP,
		URL: fixturetest.StartHTTP(t, "asks", fixtures.TransportHTTP), Timeouts: Timeouts{Shutdown: fastShutdown}}
	return map[string]ServerSpec{"stdio": fixtureSpec(t, "asks"), "http": http}
}

// initializeCapabilities returns the capabilities object of the initialize
// crewbench sent.
func initializeCapabilities(t *testing.T, col *session.Collector) string {
	t.Helper()
	methods, payloads := sentFrames(col)
	for i, m := range methods {
		if m != "initialize" {
			continue
		}
		var p struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if err := json.Unmarshal([]byte(payloads[i]), &p); err != nil {
			t.Fatalf("initialize payload: %v", err)
		}
		return string(p.Capabilities)
	}
	t.Fatal("no initialize sent")
	return ""
}

// The features answer the fixture's elicitation, sampling and roots
// requests during a tool call, over stdio and HTTP, and the capabilities
// declared are exactly the ones enabled.
func TestClientFeaturesAnswerServerRequests(t *testing.T) {
	leakCheck(t)
	dir := t.TempDir()
	root, err := DirRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []ElicitRequest
	var sampled []SampleRequest
	features := &ClientFeatures{
		Elicit: func(_ context.Context, req ElicitRequest) (ElicitResponse, error) {
			mu.Lock()
			asked = append(asked, req)
			mu.Unlock()
			return ElicitDefaults(req), nil
		},
		Sample: func(_ context.Context, req SampleRequest) (SampleResponse, error) {
			mu.Lock()
			sampled = append(sampled, req)
			mu.Unlock()
			return SampleResponse{Model: "test-model", Text: "short: " + req.Messages[0].Text, StopReason: "endTurn"}, nil
		},
		Roots: []Root{root},
	}
	specs := asksSpecs(t)
	for _, transport := range []string{"stdio", "http"} {
		spec := specs[transport]
		spec.Policy = PolicySession
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"ask_preferences", nil, `{"action":"accept","content":{"age":36,"color":"green","name":"Ada","score":9.5,"subscribe":true}}`},
			{"ask_email", nil, `{"action":"decline","content":null}`},
			{"summarize", map[string]any{"text": "a long text"}, "test-model: short: Summarize in one line: a long text"},
			{"list_roots", nil, fmt.Sprintf(`[{"uri":%q,"name":%q}]`, root.URI, filepath.Base(dir))},
		} {
			em, col := recorder()
			r := Call(context.Background(), spec, c.tool, c.args, Options{Emitter: em, Client: features})
			if r.Outcome != session.OutcomeOK || r.Text != c.want {
				t.Errorf("%s %s: outcome %s text %q, want %q (%s)", transport, c.tool, r.Outcome, r.Text, c.want, r.Error)
			}
			if got := initializeCapabilities(t, col); got != `{"roots":{},"sampling":{},"elicitation":{"form":{}}}` {
				t.Errorf("%s: declared %s", transport, got)
			}
			reqs := eventsOf(col, session.MCPServerRequest)
			if len(reqs) != 1 || reqs[0].Bool("refused") {
				t.Errorf("%s %s: server request events %+v", transport, c.tool, reqs)
			}
			assertGone(t, spawnedPids(col))
		}
	}
	if len(asked) != 4 || asked[0].Message != "Choose your display preferences" {
		t.Fatalf("elicitations: %+v", asked)
	}
	// Over stdio the form keeps the schema's order; mcp-go's HTTP transport
	// decodes the request into a map first, so over HTTP it is sorted.
	gotFields := asked[0].Fields
	wantNames := []string{"name", "age", "score", "color", "subscribe"}
	for i, f := range gotFields {
		if i >= len(wantNames) || f.Name != wantNames[i] {
			t.Fatalf("fields out of the schema's order: %+v", gotFields)
		}
	}
	if f := gotFields[3]; f.Title != "Colour" || !reflect.DeepEqual(f.Enum, []string{"red", "green", "blue"}) || f.Required {
		t.Errorf("color field: %+v", f)
	}
	if !gotFields[0].Required || gotFields[0].Description != "Display name" {
		t.Errorf("name field: %+v", gotFields[0])
	}
	if len(sampled) != 2 || sampled[0].SystemPrompt != "You summarize texts in one line." || sampled[0].MaxTokens != 60 {
		t.Errorf("sampling requests: %+v", sampled)
	}
}

// Under CrewAI's policies nothing is declared, list_roots stays hidden
// and a request is refused with the MCP Python SDK's own answer, even when
// features are passed; under the session policy a capability not enabled
// is refused with crewbench's hint.
func TestClientFeaturesRefusals(t *testing.T) {
	leakCheck(t)
	features := &ClientFeatures{
		Elicit: func(context.Context, ElicitRequest) (ElicitResponse, error) {
			return ElicitResponse{Action: ElicitCancel}, nil
		},
		Off: map[string]string{MethodSample: "--allow-sampling answers it"},
	}
	spec := fixtureSpec(t, "asks")
	for _, c := range []struct {
		policy   Policy
		tool     string
		wantCaps string
		want     string
	}{
		{PolicyNative, "ask_preferences", `{}`, "Elicitation not supported"},
		{PolicyAdapter, "summarize", `{}`, "Sampling not supported"},
		{PolicySession, "ask_preferences", `{"elicitation":{"form":{}}}`, `{"action":"cancel","content":null}`},
		{PolicySession, "summarize", `{"elicitation":{"form":{}}}`,
			"Sampling not supported: crewbench did not declare this capability on this connection (CrewAI's MCP client declares none); --allow-sampling answers it"},
	} {
		s := spec
		s.Policy = c.policy
		em, col := recorder()
		r := Call(context.Background(), s, c.tool, map[string]any{"text": "x"}, Options{Emitter: em, Client: features})
		if !strings.Contains(r.Text, c.want) {
			t.Errorf("%s %s: text %q, want %q", c.policy, c.tool, r.Text, c.want)
		}
		if got := initializeCapabilities(t, col); got != c.wantCaps {
			t.Errorf("%s: declared %s, want %s", c.policy, got, c.wantCaps)
		}
		assertGone(t, spawnedPids(col))
	}

	// Without roots the server hides list_roots; with them it lists it.
	for _, c := range []struct {
		policy Policy
		roots  []Root
		want   bool
	}{{PolicyNative, []Root{{URI: "file:///tmp"}}, false}, {PolicySession, nil, false}, {PolicySession, []Root{{URI: "file:///tmp"}}, true}} {
		s := spec
		s.Policy = c.policy
		d, err := Discover(context.Background(), s, Options{Cache: &ToolsCache{}, Client: &ClientFeatures{Roots: c.roots}})
		if err != nil {
			t.Fatal(err)
		}
		_, listed := d.Tool("list_roots")
		if listed != c.want {
			t.Errorf("%s roots %v: list_roots listed %v", c.policy, c.roots, listed)
		}
		if wantDecl := len(c.roots) > 0 && c.policy == PolicySession; (len(d.Info.Declared) > 0) != wantDecl {
			t.Errorf("%s: declared %v", c.policy, d.Info.Declared)
		}
	}
}

func TestElicitDefaults(t *testing.T) {
	for _, c := range []struct {
		name   string
		schema string
		action string
		want   map[string]any
	}{
		{"all defaults", `{"type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"integer","default":3},"c":{"type":"boolean","default":false}}}`,
			ElicitAccept, map[string]any{"a": "x", "b": float64(3), "c": false}},
		{"optional without default is left out", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number","default":1.5}}}`,
			ElicitAccept, map[string]any{"b": 1.5}},
		{"required with default", `{"type":"object","properties":{"a":{"type":"string","enum":["p","q"],"default":"q"}},"required":["a"]}`,
			ElicitAccept, map[string]any{"a": "q"}},
		{"required without default", `{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}`,
			ElicitDecline, nil},
		{"empty form", `{"type":"object","properties":{}}`, ElicitAccept, map[string]any{}},
		{"multi-select enum (SEP-1330)", `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["b"]}}}`,
			ElicitAccept, map[string]any{"tags": []any{"b"}}},
	} {
		fields, err := ElicitFields(json.RawMessage(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ElicitDefaults(ElicitRequest{Fields: fields})
		if got.Action != c.action || !reflect.DeepEqual(got.Content, c.want) && !(len(got.Content) == 0 && len(c.want) == 0) {
			t.Errorf("%s: %+v, want %s %v", c.name, got, c.action, c.want)
		}
	}
	if _, err := ElicitFields(json.RawMessage(`{"type":"object","properties":{"o":{"type":"object"}}}`)); err == nil {
		t.Error("a nested object is not a valid elicitation schema")
	}
}
