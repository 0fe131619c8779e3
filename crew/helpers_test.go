package crew

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

func TestMain(m *testing.M) {
	// The demo starts `crewbench fixture NAME`; with SelfCommand set to this
	// test binary, that arrives here as "fixture NAME".
	if len(os.Args) > 1 && os.Args[1] == "fixture" {
		os.Args[1] = fixturetest.Arg0
	}
	fixturetest.RunIfFixture()
	// https string refs reach TLS servers with the system roots;
	// SSL_CERT_FILE adds httptest's certificate to them.
	if err := fixturetest.TrustTestTLS(); err != nil {
		fmt.Fprintln(os.Stderr, "trust the httptest certificate:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// scripted parses a scripted-LLM script.
func scripted(t testing.TB, script string) *llm.Scripted {
	t.Helper()
	s, err := llm.ParseScript(t.Name()+".yaml", []byte(script))
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	return llm.NewScripted(s)
}

// result is a kickoff's outcome with its events.
type result struct {
	out    *CrewOutput
	err    error
	events []session.Event
}

func kickoff(t testing.TB, c *Crew, inputs map[string]any, opts Options) result {
	t.Helper()
	col := &session.Collector{}
	opts.Emitter = session.NewEmitter(col)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := Kickoff(ctx, c, inputs, opts)
	return result{out: out, err: err, events: col.Events()}
}

// requests returns the messages of every LLM call, in order.
func (r result) requests() [][]map[string]any {
	var out [][]map[string]any
	for _, ev := range r.events {
		if ev.Kind == session.LLMCallStarted {
			msgs, _ := ev.Data["messages"].([]map[string]any)
			out = append(out, msgs)
		}
	}
	return out
}

// lastContent is the content of the last message of call i.
func (r result) lastContent(t testing.TB, i int) string {
	t.Helper()
	reqs := r.requests()
	if i >= len(reqs) {
		t.Fatalf("only %d LLM calls", len(reqs))
	}
	m := reqs[i]
	return m[len(m)-1]["content"].(string)
}

func (r result) kinds(filter ...session.Kind) []session.Kind {
	var out []session.Kind
	for _, ev := range r.events {
		if len(filter) == 0 {
			out = append(out, ev.Kind)
			continue
		}
		for _, f := range filter {
			if ev.Kind == f {
				out = append(out, ev.Kind)
				break
			}
		}
	}
	return out
}

func (r result) count(k session.Kind) int { return len(r.kinds(k)) }

// weatherTool is an in-process tool counting its calls.
func weatherTool(calls *atomic.Int64) *FuncTool {
	schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"city": {"type": "string", "description": "City name"}, "days": {"type": "integer", "description": "Days ahead", "default": 1}}, "required": ["city"]}`)
	return NewFuncTool("Get Forecast", "Forecast for a city.", schema, func(_ context.Context, args *pyjson.Object) ToolResult {
		calls.Add(1)
		city, _ := args.Get("city")
		return ToolResult{Text: "Sunny in " + pyjson.Str(city)}
	})
}
