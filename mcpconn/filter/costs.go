package filter

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
)

// minBatchForEstimate is the batch size from which estimating the cost once
// (tens of microseconds) pays for skipping runtime cost tracking (several
// microseconds per tool).
const minBatchForEstimate = 8

// estimateMargin: skip tracking only when the estimate is this many times
// below the limit, so an estimator that undercounts a little cannot let an
// expression run far past the limit.
const estimateMargin = 4

// inputSizes are upper bounds, over a batch, on every size CEL's cost
// estimator can ask about: string lengths (bytes bound characters) and, for
// the two maps, the largest string or entry count anywhere inside them (the
// raw JSON length bounds both for input_schema).
type inputSizes struct {
	name, originalName, description uint64
	inputSchema, annotations        uint64
	agentRole, serverName           uint64
	unknown                         bool // a size could not be bounded: keep tracking
}

func (s *inputSizes) addTool(t *Tool, c *compiled) {
	s.name = max(s.name, uint64(len(t.Name)))
	s.originalName = max(s.originalName, uint64(len(t.OriginalName)))
	s.description = max(s.description, uint64(len(t.Description)))
	if c.needSchema {
		s.inputSchema = max(s.inputSchema, uint64(len(t.InputSchema)))
	}
	if c.needAnnotations && !s.unknown {
		n, ok := nestedSize(t.Annotations, 0)
		s.annotations = max(s.annotations, n)
		s.unknown = !ok
	}
}

// nestedSize is the largest string length or entry count inside v; ok is
// false for values it cannot bound (unexpected types, absurd nesting).
func nestedSize(v any, depth int) (n uint64, ok bool) {
	if depth > 32 {
		return 0, false
	}
	switch t := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint64, uint32:
		return 0, true
	case string:
		return uint64(len(t)), true
	case map[string]any:
		n = uint64(len(t))
		for k, x := range t {
			m, ok := nestedSize(x, depth+1)
			if !ok {
				return 0, false
			}
			n = max(n, m, uint64(len(k)))
		}
		return n, true
	case []any:
		n = uint64(len(t))
		for _, x := range t {
			m, ok := nestedSize(x, depth+1)
			if !ok {
				return 0, false
			}
			n = max(n, m)
		}
		return n, true
	}
	return 0, false
}

// programFor returns the untracked program when the checker proves that no
// input of these sizes can exceed the cost limit, else the tracked one.
// Runtime cost never exceeds the estimate's Max for inputs within the
// estimated sizes (the contract Kubernetes relies on for CEL admission).
func (f *Filter) programFor(s inputSizes) cel.Program {
	if s.unknown {
		return f.cel.tracked
	}
	est, err := f.cel.env.EstimateCost(f.cel.ast, sizeEstimator{s})
	if err != nil || est.Max > f.costLimit/estimateMargin {
		return f.cel.tracked
	}
	return f.cel.untracked
}

type sizeEstimator struct{ s inputSizes }

func (e sizeEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	p := n.Path()
	if len(p) < 2 {
		return nil
	}
	var bound uint64
	switch p[0] + "." + p[1] {
	case "tool.name":
		bound = e.s.name
	case "tool.original_name":
		bound = e.s.originalName
	case "tool.description":
		bound = e.s.description
	case "tool.input_schema":
		bound = e.s.inputSchema // also bounds everything nested inside
	case "tool.annotations":
		bound = e.s.annotations
	case "context.agent_role":
		bound = e.s.agentRole
	case "context.server_name":
		bound = e.s.serverName
	default:
		return nil
	}
	// +1: the estimator undercounts by a little at size 0 (e.g. "".split(" ")
	// yields one element); found by FuzzEvaluate.
	return &checker.SizeEstimate{Min: 0, Max: bound + 1}
}

func (sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
