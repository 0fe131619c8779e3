package crew

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"crewbench/crew/llm"
	"crewbench/crew/pyjson"
	"crewbench/session"
)

// loopLLM is an instant scripted LLM: it asks for the echo tool until it has
// made steps calls, then answers. (llm.Scripted would need a script with one
// reply per step; this keeps script parsing out of the measurement.)
type loopLLM struct {
	steps int
	n     int
}

func (l *loopLLM) Model() string                 { return "loop" }
func (l *loopLLM) SupportsFunctionCalling() bool { return true }
func (l *loopLLM) Call(_ context.Context, req llm.Request, _ func(llm.Chunk)) (llm.Response, error) {
	l.n++
	if l.n > l.steps {
		return llm.Response{Content: "done", Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}}, nil
	}
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", l.n), Name: "echo", Arguments: `{"n": 1}`}},
		Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}}, nil
}

func echoTool() Tool {
	schema, _ := pyjson.LoadsObject(`{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`)
	return NewFuncTool("echo", "Echo.", schema, func(_ context.Context, args *pyjson.Object) ToolResult {
		return ToolResult{Text: "ok"}
	})
}

func benchCrew(steps int) *Crew {
	a := NewAgent("a", "A", "g", "b", &loopLLM{steps: steps})
	a.MaxIter = steps + 10
	a.Tools = []Tool{echoTool()}
	return &Crew{Agents: []*Agent{a}, Tasks: []*Task{{Description: "d", ExpectedOutput: "e", Agent: a}}}
}

// baseline is the same work without the engine: the LLM call and the tool
// call per step, the request growing by the same two messages.
func baseline(steps int) {
	ctx := context.Background()
	p := &loopLLM{steps: steps}
	tool := echoTool()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "s"}, {Role: llm.RoleUser, Content: "u"}}
	for {
		resp, _ := p.Call(ctx, llm.Request{Messages: msgs}, nil)
		if len(resp.ToolCalls) == 0 {
			return
		}
		args, _ := pyjson.LoadsObject(resp.ToolCalls[0].Arguments)
		r := tool.Run(ctx, args, RunContext{})
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: resp.ToolCalls},
			llm.Message{Role: llm.RoleTool, ToolCallID: resp.ToolCalls[0].ID, Content: r.Text})
	}
}

// stepsPerRun keeps the per-step cost from being dominated by the growing
// history (every LLM call re-sends, and every event records, all messages).
const stepsPerRun = 20

// BenchmarkEngineStep measures the engine's overhead per agent step (one
// LLM call plus one tool call) against the bare calls, in the same run. The
// engine's events go to a Collector, as in a real run.
func BenchmarkEngineStep(b *testing.B) {
	measure := func(f func()) (perStep time.Duration, allocs float64) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		start := time.Now()
		for i := 0; i < b.N; i++ {
			f()
		}
		d := time.Since(start)
		runtime.ReadMemStats(&m1)
		n := float64(b.N * stepsPerRun)
		return time.Duration(float64(d) / n), float64(m1.Mallocs-m0.Mallocs) / n
	}
	b.ResetTimer()
	base, baseAllocs := measure(func() { baseline(stepsPerRun) })
	eng, engAllocs := measure(func() {
		col := &session.Collector{}
		if _, err := Kickoff(context.Background(), benchCrew(stepsPerRun), nil, Options{Emitter: session.NewEmitter(col)}); err != nil {
			b.Fatal(err)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(eng.Nanoseconds())/1e3, "engine-µs/step")
	b.ReportMetric(float64(base.Nanoseconds())/1e3, "baseline-µs/step")
	b.ReportMetric(float64(eng)/float64(max(base, 1)), "ratio")
	b.ReportMetric(engAllocs, "engine-allocs/step")
	b.ReportMetric(baseAllocs, "baseline-allocs/step")
}

// BenchmarkThousandStepRun is one 1,000-step run: total allocation and the
// live heap after it (events collected in memory, as the TUI would).
func BenchmarkThousandStepRun(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		col := &session.Collector{}
		start := time.Now()
		if _, err := Kickoff(context.Background(), benchCrew(1000), nil, Options{Emitter: session.NewEmitter(col)}); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/(1<<20), "MB-alloc/run")
		b.ReportMetric(float64(m1.HeapAlloc)/(1<<20), "MB-live-after")
		b.ReportMetric(float64(d.Milliseconds()), "ms/run")
		b.ReportMetric(float64(len(col.Events())), "events")
		runtime.KeepAlive(col)
	}
}
