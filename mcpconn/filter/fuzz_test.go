package filter

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var fuzzExprSeeds = []string{
	`tool.name.startsWith("get_")`,
	`tool.annotations.?readOnlyHint.orValue(false)`,
	`"sku" in tool.input_schema.properties`,
	`tool.input_schema.properties.all(k, k.size() < 10)`,
	`has(tool.input_schema.required) && tool.input_schema.required.exists(r, r == "q")`,
	`tool.description.matches("(?i)weather") || context.server_name.contains(":")`,
	`context.agent_role.lowerAscii().split(" ").size() > 1`,
	`tool.annotations.title`,
	`dyn(tool.input_schema)`,
	`tool.name ==`,
	`tool.nmae`,
	`[1,2,3].map(x, x * 2).size() == 3`,
	`tool.original_name.substring(1) != ""`,
	"tool.name ==\n\t\"x\"",
	`tool`,
	`1/0 == 1`,
}

// FuzzNew: any expression and any lists compile or fail with a
// *CompileError; nothing panics, and a compiled filter evaluates.
func FuzzNew(f *testing.F) {
	for _, s := range fuzzExprSeeds {
		f.Add(s, "get_forecast,getForecast", "write_stock")
	}
	f.Add("", "", "")
	f.Add("\x00\xff", "\xff", ",,")
	f.Fuzz(func(t *testing.T, expr, allowed, blocked string) {
		flt, err := New(strings.Split(allowed, ","), strings.Split(blocked, ","), expr, WithTimeout(100*time.Millisecond))
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("New(%q) error %v is %T, want *CompileError", expr, err, err)
			}
			if ce.Message == "" || ce.Error() == "" || len(ce.Issues) == 0 {
				t.Fatalf("empty compile error for %q: %+v", expr, ce)
			}
			_ = ce.Detail()
			return
		}
		vs, _ := flt.Apply(weatherCtx, weather())
		checkVerdicts(t, vs)
	})
}

// FuzzEvaluate: any tool content under a set of valid expressions; nothing
// panics, every verdict has a reason, and a kept tool carries no error.
func FuzzEvaluate(f *testing.F) {
	for i := range fuzzExprSeeds {
		f.Add(uint8(i), "getForecast", "Get the forecast", `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`, "readOnlyHint", "localhost:8765_mcp")
	}
	f.Add(uint8(0), "天气", "", `[`, "", "")
	f.Add(uint8(2), "", "\xff", `{"properties":[1,2]}`, "\x00", "python_servers/inventory.py")
	f.Add(uint8(3), "x", "", `{"properties":{"a":null,"b":{"c":1e400}}}`, "title", "")
	filters := make([]*Filter, len(fuzzExprSeeds))
	for i, s := range fuzzExprSeeds {
		flt, err := New(nil, nil, s, WithTimeout(100*time.Millisecond))
		if err == nil {
			filters[i] = flt
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, remote, desc, schema, annKey, server string) {
		flt := filters[int(which)%len(filters)]
		if flt == nil {
			return
		}
		tool := mk(remote, desc, schema, map[string]any{annKey: desc, "readOnlyHint": len(desc)%2 == 0})
		tool.InputSchema = json.RawMessage(schema)
		c := Context{AgentRole: desc, ServerName: server}
		checkVerdicts(t, []Verdict{flt.Evaluate(c, tool)})
		checkCostBound(t, flt, c, &tool)

		// The same tool through hints: an entry built from its own names.
		static, err := New([]string{remote, tool.Name + "x"}, []string{server}, "")
		if err != nil {
			t.Fatal(err)
		}
		vs, hints := static.Apply(c, []Tool{tool})
		checkVerdicts(t, vs)
		for _, h := range hints {
			if h.Message == "" || (h.Kind == HintDidYouMean && h.Suggestion == "") {
				t.Fatalf("bad hint %+v", h)
			}
		}
	})
}

func checkVerdicts(t *testing.T, vs []Verdict) {
	t.Helper()
	for _, v := range vs {
		if v.Reason == "" {
			t.Fatalf("verdict without a reason: %+v", v)
		}
		if v.Kept && v.Err != nil {
			t.Fatalf("kept with an error: %+v", v)
		}
		if v.Kept != strings.HasPrefix(v.Reason, "kept:") {
			t.Fatalf("reason %q disagrees with Kept=%v", v.Reason, v.Kept)
		}
	}
}

// checkCostBound: the runtime cost never exceeds the checker's estimate for
// the tool's own sizes (what lets a batch skip runtime tracking).
func checkCostBound(t *testing.T, flt *Filter, c Context, tl *Tool) {
	t.Helper()
	sz := inputSizes{agentRole: uint64(len(c.AgentRole)), serverName: uint64(len(c.ServerName))}
	sz.addTool(tl, flt.cel)
	if sz.unknown {
		return
	}
	est, err := flt.cel.env.EstimateCost(flt.cel.ast, sizeEstimator{sz})
	if err != nil {
		return
	}
	b := flt.newBatch(context.Background(), c, 0)
	b.tool = toolVar{Name: tl.Name, OriginalName: tl.OriginalName, Description: tl.Description, InputSchema: parseSchema(tl.InputSchema), Annotations: tl.Annotations}
	if b.tool.Annotations == nil {
		b.tool.Annotations = emptyMap
	}
	cctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, det, _ := flt.cel.tracked.ContextEval(cctx, &b.vars)
	if det != nil && det.ActualCost() != nil && *det.ActualCost() > est.Max {
		t.Fatalf("actual cost %d > estimated max %d for %+v", *det.ActualCost(), est.Max, tl)
	}
}
