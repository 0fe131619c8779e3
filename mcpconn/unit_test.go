package mcpconn

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"

	"crewbench/session"
)

func TestCleanArguments(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":1,"b":null}`, `{"a":1}`},
		{`{"a":{"b":null}}`, `{}`},
		{`{"a":{"b":null,"c":2}}`, `{"a":{"c":2}}`},
		{`{"l":[1,null,2]}`, `{"l":[1,2]}`},
		{`{"l":[null]}`, `{}`},
		{`{"l":[{"x":null},3]}`, `{"l":[3]}`},
		{`{"e":{},"f":[],"g":""}`, `{"g":""}`},
		{`{"sources":["web","news"]}`, `{"sources":[{"type":"web"},{"type":"news"}]}`},
		// Under "sources" only strings are rewritten: nulls are kept and
		// objects not cleaned (crewai-fidelity-gaps.md B14).
		{`{"sources":[{"type":"web"},"news",null]}`, `{"sources":[{"type":"web"},{"type":"news"},null]}`},
		{`{"sources":[{"type":"web","x":null}]}`, `{"sources":[{"type":"web","x":null}]}`},
		{`{"sources":[]}`, `{}`},
		{`{"sources":{"a":null,"b":1}}`, `{"sources":{"b":1}}`},
		// Arrays inside arrays are not cleaned.
		{`{"l":[[null,1],null]}`, `{"l":[[null,1]]}`},
		{`{"inner":{"sources":["x"]}}`, `{"inner":{"sources":[{"type":"x"}]}}`},
		{`{"Sources":["x"]}`, `{"Sources":["x"]}`},
		// The key order is kept, at every level (a Go map would sort it).
		{`{"zero":0,"false":false}`, `{"zero":0,"false":false}`},
		{`{"path":"a","edits":[{"oldText":"x","newText":"y","n":null}],"dryRun":true}`,
			`{"path":"a","edits":[{"oldText":"x","newText":"y"}],"dryRun":true}`},
		// Number literals and non-ASCII text go out as they came.
		{`{"f":2.0,"big":12345678901234567890,"s":"é<&>"}`, `{"f":2.0,"big":12345678901234567890,"s":"é<&>"}`},
		// A repeated key keeps its first place and its last value (json.loads).
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{``, `{}`},
		{`null`, `{}`},
	}
	for _, c := range cases {
		got, err := CleanArguments(json.RawMessage(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("clean(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`[1]`, `"x"`, `{"a":`, `{} {}`} {
		if got, err := CleanArguments(json.RawMessage(bad)); err == nil {
			t.Errorf("clean(%s) = %s, want an error", bad, got)
		}
	}
}

// TestPolicyArgumentsKeepOrder: every policy sends the arguments in the
// order given; only what each path removes differs.
func TestPolicyArgumentsKeepOrder(t *testing.T) {
	in := `{"z":1,"a":null,"m":{"y":null,"b":2},"l":[null]}`
	want := map[Policy]string{
		PolicyNative:      `{"z":1,"m":{"b":2}}`,
		PolicySession:     `{"z":1,"m":{"b":2}}`,
		PolicyAdapter:     `{"z":1,"m":{"y":null,"b":2},"l":[null]}`,
		PolicyHTTPSString: `{"z":1,"a":null,"m":{"y":null,"b":2},"l":[null]}`,
	}
	for p, w := range want {
		got, err := policyArguments(p, json.RawMessage(in))
		if err != nil || string(got) != w {
			t.Errorf("%s: %s, %v; want %s", p, got, err, w)
		}
	}
}

func FuzzCleanArguments(f *testing.F) {
	f.Add(`{"a":[null,{"b":null}],"sources":["x"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		out, err := CleanArguments(json.RawMessage(s))
		if err != nil {
			return
		}
		// Valid JSON, idempotent, and no null is left where the cleaning
		// looks: object values and the items of arrays held by keys other
		// than "sources".
		var decoded map[string]any
		if err := json.Unmarshal(out, &decoded); err != nil {
			t.Fatalf("%q cleaned to invalid JSON %s: %v", s, out, err)
		}
		again, err := CleanArguments(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %s then %s (%v)", out, again, err)
		}
		if hasCleanableNull(decoded) {
			t.Fatalf("null survived: %s", out)
		}
	})
}

// hasCleanableNull reports a null that CleanArguments should have dropped.
func hasCleanableNull(m map[string]any) bool {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			return true
		case map[string]any:
			if hasCleanableNull(x) {
				return true
			}
		case []any:
			if k == "sources" {
				continue
			}
			for _, item := range x {
				if item == nil {
					return true
				}
				if im, ok := item.(map[string]any); ok && hasCleanableNull(im) {
					return true
				}
			}
		}
	}
	return false
}

func TestStdioEnvironmentTable(t *testing.T) {
	parent := []string{"HOME=/home/u", "PATH=/bin", "SHELL=() { f; }", "TERM=xterm", "USER=u", "LOGNAME=u",
		"OPENAI_API_KEY=sk-parent", "LANG=C", "noequals"}
	got := StdioEnvironment(ServerSpec{Env: map[string]string{"API_TOKEN": "t", "TERM": "dumb"}}, parent)
	want := []EnvVar{{"API_TOKEN", "t", EnvSpec}, {"HOME", "/home/u", EnvInherited}, {"LOGNAME", "u", EnvInherited},
		{"PATH", "/bin", EnvInherited}, {"TERM", "dumb", EnvSpec}, {"USER", "u", EnvInherited}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	all := StdioEnvironment(ServerSpec{InheritEnv: true}, parent)
	if len(all) != 8 || all[0].Source != EnvInheritAll {
		t.Errorf("inherit_env: %+v", all)
	}
	red := RedactEnv(got)
	if red[0].Value != session.Redacted || red[1].Value != "/home/u" {
		t.Errorf("redacted %+v", red)
	}
}

// TestRedaction: mcpconn shows env, URLs and server texts through session's
// one redaction mechanism (same marker, same rules).
func TestRedaction(t *testing.T) {
	vars := []EnvVar{
		{Name: "Authorization", Value: "Bearer abc.def"},
		{Name: "X-Api-Key", Value: "k"},
		{Name: "OPENAI_API_KEY", Value: "sk-1"},
		{Name: "DB_PASSWORD", Value: "p"},
		{Name: "HOME", Value: "/root"},
		{Name: "Accept", Value: "application/json"},
	}
	want := []string{"Bearer " + session.Redacted, session.Redacted, session.Redacted, session.Redacted, "/root", "application/json"}
	for i, v := range RedactEnv(vars) {
		if v.Value != want[i] {
			t.Errorf("%s: %q, want %q", v.Name, v.Value, want[i])
		}
	}
	if vars[0].Value != "Bearer abc.def" {
		t.Error("RedactEnv modified its argument")
	}
	spec := ServerSpec{URL: "https://u:pw@h/mcp?key=abcdef&x=1", Headers: map[string]string{"Authorization": "Bearer zzzzzz"},
		Env: map[string]string{"MY_SECRET": "hunter22", "CITY": "Paris"}}
	txt := RedactText(spec, "GET https://u:pw@h/mcp?key=abcdef&x=1 with Bearer zzzzzz, token zzzzzz and hunter22 in Paris")
	for _, leak := range []string{"pw@", "abcdef", "zzzzzz", "hunter22"} {
		if strings.Contains(txt, leak) {
			t.Errorf("text leaks %q: %q", leak, txt)
		}
	}
	for _, keep := range []string{"https://u:" + session.Redacted + "@h/mcp?key=" + session.Redacted + "&x=1", "Bearer " + session.Redacted, "in Paris"} {
		if !strings.Contains(txt, keep) {
			t.Errorf("text lacks %q: %q", keep, txt)
		}
	}
	// Only the server's own secrets, not session's free-text rules: the
	// texts stay what the server said.
	if got := RedactText(ServerSpec{}, `missing "api_key": "${API_KEY}"`); got != `missing "api_key": "${API_KEY}"` {
		t.Errorf("rules applied to a server text: %q", got)
	}
}

func TestFirstContentText(t *testing.T) {
	cases := []struct {
		res  mcp.CallToolResult
		want string
	}{
		{mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}}, "a"},
		{mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent("AAAA", "image/png")}}, "type='image' data='AAAA' mimeType='image/png' annotations=None meta=None"},
		{mcp.CallToolResult{}, "meta=None content=[] structuredContent=None isError=False"},
		{mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"n": 1.0}}, "meta=None content=[] structuredContent={'n': 1} isError=True"},
	}
	for _, c := range cases {
		res := c.res
		if got := firstContentText(&toolResult{res: &res}); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// tools/list_changed makes the pool list again, off the read loop.
func TestPoolRelistsOnListChanged(t *testing.T) {
	leakCheck(t)
	srv := server.NewMCPServer("changing", "1.0.0", server.WithToolCapabilities(true))
	srv.AddTool(mcp.NewTool("first", mcp.WithDescription("one")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("1"), nil
	})
	ts := servertest.NewTestServer(srv)
	defer ts.Close()
	em, col := recorder()
	p := NewPool(em)
	defer p.Close()
	spec := ServerSpec{Name: "changing", Transport: TransportSSE, URL: ts.URL + "/sse"}
	if err := p.Connect(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	srv.AddTool(mcp.NewTool("second", mcp.WithDescription("two")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("2"), nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, _ := p.ServerStatus("changing")
		if st.Discovery != nil && len(st.Discovery.Tools) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not re-listed: %+v", st.Discovery)
		}
		time.Sleep(20 * time.Millisecond)
	}
	sawNotice := false
	for _, e := range eventsOf(col, session.MCPNotification) {
		if e.Str("kind") == "tools_list_changed" {
			sawNotice = true
		}
	}
	if !sawNotice {
		t.Error("no tools_list_changed notification event")
	}
	p.Close()
}

// The caller cancelling is "cancelled", never "timeout", and is not retried.
func TestCallerCancelIsNotTimeout(t *testing.T) {
	spec := fixtureSpec(t, "slow")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the call is on the wire, however long the spawn took.
	em := session.NewEmitter(session.SinkFunc(func(ev session.Event) {
		if ev.Kind == session.MCPFrame && ev.Str(session.KeyMethod) == "tools/call" {
			cancel()
		}
	}))
	r := Call(ctx, spec, "slow_report", map[string]any{"seconds": 5}, Options{Emitter: em})
	if r.Outcome != session.OutcomeCancelled || len(r.Attempts) != 1 {
		t.Errorf("%s after %d attempts: %s", r.Outcome, len(r.Attempts), r.Text)
	}
}

// Discovery follows nextCursor through every page and keeps each raw page.
func TestDiscoverPaginates(t *testing.T) {
	leakCheck(t)
	srv := server.NewMCPServer("paged", "1.0.0", server.WithPaginationLimit(2))
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		srv.AddTool(mcp.NewTool(n, mcp.WithDescription(n)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(n), nil
		})
	}
	ts := servertest.NewTestStreamableHTTPServer(srv)
	defer ts.Close()
	d, err := Discover(context.Background(), ServerSpec{Name: "paged", Transport: TransportHTTP, URL: ts.URL + "/mcp"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tools) != 5 || len(d.RawPages) != 3 {
		t.Errorf("%d tools in %d pages, want 5 in 3", len(d.Tools), len(d.RawPages))
	}
}
