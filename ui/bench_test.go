package ui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
	"crewbench/session"
)

// Benchmarks report their cost against a baseline measured in the same run
// (the same operation on a small input), as "x-baseline": a flat ratio
// near 1 means the cost does not grow with the data.

// perOp times fn over at least 50 ms and returns the time per call.
func perOp(fn func()) time.Duration {
	n := 0
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond || n < 10 {
		fn()
		n++
	}
	return time.Since(start) / time.Duration(n)
}

func reportRatio(b *testing.B, base time.Duration) {
	b.StopTimer()
	per := b.Elapsed() / time.Duration(max(1, b.N))
	b.ReportMetric(float64(per)/float64(base), "x-baseline")
	b.ReportMetric(float64(base.Nanoseconds()), "baseline-ns/op")
}

// 12,500 tool calls × 8 events ≈ 100,000 events.
const bigCalls = 12_500

// BenchmarkTraceView renders the trace with 100,000 events (following the
// tail) against the same pane with 100 events.
func BenchmarkTraceView(b *testing.B) {
	small := tracePaneWith(b, 160, 48, bigTrace(12))
	big := tracePaneWith(b, 160, 48, bigTrace(bigCalls))
	base := perOp(func() { _ = small.View() })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = big.View()
	}
	reportRatio(b, base)
}

// BenchmarkTraceAppend is the cost of one drained batch (512 events)
// arriving while 100,000 are already in the tree, against the same batch
// on an empty tree.
func BenchmarkTraceAppend(b *testing.B) {
	all := bigTrace(bigCalls + 64)
	tail := all[len(all)-maxEventBatch:]
	mk := func(prefix []session.Event) tracePane { return tracePaneWith(b, 160, 48, prefix) }
	base := perOp(func() {
		p := mk(nil)
		p.Append(tail...)
	})
	prefix := all[:len(all)-maxEventBatch]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p := mk(prefix)
		b.StartTimer()
		p.Append(tail...)
	}
	reportRatio(b, base)
}

// manyTools is a settled workspace with n tools on one server.
func manyTools(b testing.TB, n int) Model {
	weather, _, _ := demoSpecs()
	weather.Filter = mcpconn.FilterSpec{}
	var tools []fakeTool
	for i := 0; i < n; i++ {
		tools = append(tools, fakeTool{name: fmt.Sprintf("getItem%dForRegion%d", i, i%97), desc: "tool"})
	}
	deps := testDeps()
	deps.Workspace.Servers = []ServerEntry{{Spec: weather}}
	deps.Pool = &fakePool{statuses: []mcpconn.ServerStatus{{Name: "weather", State: mcpconn.StateReady, Discovery: fakeDiscovery(weather, tools...)}}}
	m := settled(b, deps, 160, 48)
	return step(b, m, keyRunes("2"))
}

// BenchmarkToolsSearchKeystroke is one keystroke of the fuzzy search over
// both names of 10,000 tools, against 100 tools.
func BenchmarkToolsSearchKeystroke(b *testing.B) {
	// The search itself, whether it runs in Update or in a command.
	type_ := func(m Model) Model {
		m.tools.query = "item42reg"
		_ = fuzzyMatch(m.tools.query, m.tools.scoped, m.tools.orig, m.tools.llm)
		return m
	}
	small := manyTools(b, 100)
	base := perOp(func() { type_(small) })
	big := manyTools(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		type_(big)
	}
	reportRatio(b, base)
}

// BenchmarkToolsView renders the tool list of 10,000 tools, against 100.
func BenchmarkToolsView(b *testing.B) {
	small := manyTools(b, 100)
	big := manyTools(b, 10_000)
	base := perOp(func() { _ = small.View() })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = big.View()
	}
	reportRatio(b, base)
}

// BenchmarkFilterKeystroke is what the playground does per keystroke:
// compile the filter and decide 10,000 prepared tools, against 100.
func BenchmarkFilterKeystroke(b *testing.B) {
	prep := func(n int) []*filter.Prepared {
		var ft []filter.Tool
		for i := 0; i < n; i++ {
			ft = append(ft, filter.Tool{Name: fmt.Sprintf("get_item%d", i), OriginalName: fmt.Sprintf("getItem%d", i), Description: "tool"})
		}
		return filter.Prepare(ft)
	}
	run := func(tools []*filter.Prepared) {
		cmd := applyFilter(context.Background(), 1, "s", []string{"get_item1", "get_item2"}, nil, `!tool.name.startsWith("get_item9")`, filter.Context{}, tools)
		if _, ok := cmd().(filterResultMsg); !ok {
			b.Fatal("no result")
		}
	}
	small, big := prep(100), prep(10_000)
	base := perOp(func() { run(small) })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(big)
	}
	reportRatio(b, base)
}

// BenchmarkAppView is the whole screen with 10,000 tools and 100,000 trace
// events loaded, on the trace view, against an empty workbench.
func BenchmarkAppView(b *testing.B) {
	small := settled(b, testDeps(), 160, 48)
	small = step(b, small, keyRunes("6"))
	big := manyTools(b, 10_000)
	big = step(b, big, sessionOpenedMsg{path: "big.jsonl", file: &session.File{Events: bigTrace(bigCalls)}})
	base := perOp(func() { _ = small.View() })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = big.View()
	}
	reportRatio(b, base)
}

// BenchmarkToolsRescope is what a fresh listing costs the tools pane
// (rebuilding the scope and measuring the columns) with 10,000 tools,
// against 100: linear by design, and it runs on a listing, not per frame.
func BenchmarkToolsRescope(b *testing.B) {
	small := manyTools(b, 100)
	big := manyTools(b, 10_000)
	base := perOp(func() { _ = small.tools.rescope() })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = big.tools.rescope()
	}
	reportRatio(b, base)
}
