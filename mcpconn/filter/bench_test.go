package filter

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"crewbench/names"
)

const benchTools = 10_000

// benchListing is a 10,000-tool listing shaped like real MCP servers:
// camelCase remote names, one-line descriptions, small object schemas and
// annotations on most tools.
var benchListing = sync.OnceValue(func() []Tool {
	verbs := []string{"get", "list", "search", "create", "update", "delete", "read", "write"}
	nouns := []string{"Forecast", "Alerts", "Stock", "Warehouse", "Issue", "PullRequest", "File", "Directory", "User", "HTTPEndpoint"}
	tools := make([]Tool, benchTools)
	for i := range tools {
		verb, noun := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		remote := fmt.Sprintf("%s%s%d", verb, noun, i)
		var ann map[string]any
		switch verb {
		case "get", "list", "search", "read":
			ann = map[string]any{"readOnlyHint": true, "title": verb + " " + noun}
		case "delete", "write":
			ann = map[string]any{"destructiveHint": true}
		}
		tools[i] = Tool{
			Name:         names.Sanitize(remote),
			OriginalName: remote,
			Description:  fmt.Sprintf("%s a %s by id; returns JSON with the fields the server exposes.", verb, noun),
			InputSchema: []byte(fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","description":"the %s id"},`+
				`"limit":{"type":"integer","minimum":1,"maximum":100,"default":10},"query":{"type":"string"}},"required":["id"]}`, noun)),
			Annotations: ann,
		}
	}
	return tools
})

// sanitizeNsPerTool is the baseline: the cost of only sanitizing each tool's
// remote name (work every listing does anyway). Each sub-benchmark measures
// it right before its own loop (best of 5), so every ratio compares two
// figures taken on the same machine state; this matters on a shared box.
func sanitizeNsPerTool(tools []Tool) float64 {
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		for i := range tools {
			sinkString = names.Sanitize(tools[i].OriginalName)
		}
		best = min(best, time.Since(start))
	}
	return float64(best.Nanoseconds()) / float64(len(tools))
}

var sinkString string

// measure runs fn in b.Loop and reports ns/tool and x_sanitize (the ratio to
// the baseline measured just before).
func measure(b *testing.B, tools []Tool, fn func()) {
	b.Helper()
	baseline := sanitizeNsPerTool(tools)
	for b.Loop() {
		fn()
	}
	perTool := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(len(tools))
	b.ReportMetric(perTool, "ns/tool")
	b.ReportMetric(perTool/baseline, "x_sanitize")
}

// BenchmarkFilter10k: static and CEL filters over 10,000 tools, each
// reported in ns/tool and as a multiple of sanitizing the names
// (x_sanitize). The playground re-runs one of these per keystroke.
func BenchmarkFilter10k(b *testing.B) {
	tools := benchListing()
	c := Context{AgentRole: "Researcher", ServerName: "localhost:8765_mcp"}
	allowed := make([]string, 0, 20)
	for i := 0; i < 20; i++ {
		allowed = append(allowed, tools[i*400].Name)
	}
	blocked := []string{tools[0].Name, tools[800].Name, tools[9999].Name}
	// Entries that match nothing make Apply explain them: a scan of the
	// listing per entry, with a bounded edit distance for typos.
	blockedTypos := append(append([]string(nil), blocked...), "delete_everything", tools[5].OriginalName, tools[7].Name+"x")
	const typical = `!tool.annotations.?destructiveHint.orValue(false) && (tool.name.startsWith("get_") || tool.description.contains("Forecast"))`
	const schemaExpr = `"query" in tool.input_schema.properties && tool.input_schema.properties.limit.maximum <= 100`

	b.Run("sanitize_baseline", func(b *testing.B) {
		measure(b, tools, func() {
			for i := range tools {
				sinkString = names.Sanitize(tools[i].OriginalName)
			}
		})
	})
	b.Run("no_filter", func(b *testing.B) {
		f := mustNew(b, nil, nil, "")
		measure(b, tools, func() { f.Apply(c, tools) })
	})
	b.Run("static", func(b *testing.B) {
		f := mustNew(b, allowed, blocked, "")
		measure(b, tools, func() { f.Apply(c, tools) })
	})
	b.Run("static_with_3_hints", func(b *testing.B) {
		f := mustNew(b, allowed, blockedTypos, "")
		measure(b, tools, func() { f.Apply(c, tools) })
	})
	b.Run("cel_typical", func(b *testing.B) {
		f := mustNew(b, nil, nil, typical)
		measure(b, tools, func() { f.Apply(c, tools) })
	})
	b.Run("cel_typical_compile_each_time", func(b *testing.B) {
		// What one playground keystroke costs: compile, then evaluate all.
		measure(b, tools, func() { mustNew(b, nil, nil, typical).Apply(c, tools) })
	})
	b.Run("static_and_cel", func(b *testing.B) {
		f := mustNew(b, nil, blocked, typical)
		measure(b, tools, func() { f.Apply(c, tools) })
	})
	b.Run("cel_schema_parse_each_time", func(b *testing.B) {
		f := mustNew(b, nil, nil, schemaExpr)
		measure(b, tools, func() { f.Apply(c, tools) })
	})
	b.Run("cel_schema_prepared", func(b *testing.B) {
		f := mustNew(b, nil, nil, schemaExpr)
		prepared := Prepare(tools)
		f.ApplyPrepared(context.Background(), c, prepared) // parse once, as the playground's first keystroke does
		measure(b, tools, func() { f.ApplyPrepared(context.Background(), c, prepared) })
	})
}

// BenchmarkCompile is the fixed cost of one keystroke before any tool is
// evaluated.
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := New(nil, nil, `!tool.annotations.?destructiveHint.orValue(false) && tool.name.startsWith("get_")`); err != nil {
			b.Fatal(err)
		}
	}
}
