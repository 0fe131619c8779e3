package mcpconn

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Benchmarks report ratios measured in the same run, so they mean the same
// on a loaded 2-core machine as on a fast one:
//
//	go test -run '^$' -bench . -benchtime 5x ./mcpconn/

// Discovery of 8 stdio servers concurrently, relative to one.
func BenchmarkDiscoveryEightVsOne(b *testing.B) {
	spec := fixtureSpec(b, "weather")
	var one, eight time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := Discover(context.Background(), spec, Options{Cache: &ToolsCache{}}); err != nil {
			b.Fatal(err)
		}
		one += time.Since(start)

		start = time.Now()
		var wg sync.WaitGroup
		for j := 0; j < 8; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := Discover(context.Background(), spec, Options{Cache: &ToolsCache{}}); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		eight += time.Since(start)
	}
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms/one")
	b.ReportMetric(float64(eight.Milliseconds())/float64(b.N), "ms/eight")
	b.ReportMetric(float64(eight)/float64(one), "eight/one")
}

// CrewAI's native policy (a fresh process and session per call) relative
// to crewbench's session policy (one kept session), same tool.
func BenchmarkNativeVsSessionPolicy(b *testing.B) {
	spec := fixtureSpec(b, "weather")
	sess := spec
	sess.Policy = PolicySession
	pool := NewPool(nil)
	defer pool.Close()
	if err := pool.Connect(context.Background(), sess); err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"city": "Oslo"}
	var native, kept time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if r := Call(context.Background(), spec, "getForecast", args, Options{}); r.Outcome != "ok" {
			b.Fatal(r.Error)
		}
		native += time.Since(start)
		start = time.Now()
		if r := Call(context.Background(), sess, "getForecast", args, Options{Pool: pool}); r.Outcome != "ok" {
			b.Fatal(r.Error)
		}
		kept += time.Since(start)
	}
	b.ReportMetric(float64(native.Microseconds())/float64(b.N), "µs/native")
	b.ReportMetric(float64(kept.Microseconds())/float64(b.N), "µs/session")
	b.ReportMetric(float64(native)/float64(kept), "native/session")
}

// crewbench's call path (session policy: events, tap, classification,
// argument cleaning) relative to a bare mcp-go CallTool on the same server.
func BenchmarkCallPathVsBareMCPGo(b *testing.B) {
	spec := fixtureSpec(b, "weather")
	spec.Policy = PolicySession
	pool := NewPool(nil)
	defer pool.Close()
	if err := pool.Connect(context.Background(), spec); err != nil {
		b.Fatal(err)
	}
	bare, err := client.NewStdioMCPClient(spec.Command, nil, spec.Args...)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := bare.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: DefaultProtocolVersion, ClientInfo: mcp.Implementation{Name: "bench"}}}); err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"city": "Oslo"}
	var ours, theirs time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if r := Call(context.Background(), spec, "getForecast", args, Options{Pool: pool}); r.Outcome != "ok" {
			b.Fatal(r.Error)
		}
		ours += time.Since(start)
		start = time.Now()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "getForecast", args
		cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := bare.CallTool(cctx, req); err != nil {
			b.Fatal(err)
		}
		ccancel()
		theirs += time.Since(start)
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N), "µs/crewbench")
	b.ReportMetric(float64(theirs.Microseconds())/float64(b.N), "µs/mcp-go")
	b.ReportMetric(float64(ours)/float64(theirs), "crewbench/mcp-go")
}
