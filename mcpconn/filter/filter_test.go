package filter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"crewbench/names"
)

// mk builds the listing entry CrewAI's MCPClient.list_tools produces for a
// remote tool: the filter sees sanitize(remote) without the server prefix.
func mk(remote, desc, schema string, ann map[string]any) Tool {
	return Tool{
		Name:         names.Sanitize(remote),
		OriginalName: remote,
		Description:  desc,
		InputSchema:  json.RawMessage(schema),
		Annotations:  ann,
	}
}

// weather mirrors the `weather` fixture (camelCase remote names on purpose).
func weather() []Tool {
	return []Tool{
		mk("getForecast", "Get the weather forecast for a location",
			`{"type":"object","properties":{"latitude":{"type":"number","minimum":-90,"maximum":90},"longitude":{"type":"number"}},"required":["latitude","longitude"]}`,
			map[string]any{"readOnlyHint": true, "title": "Forecast"}),
		mk("getAlerts", "Get weather alerts for a US state",
			`{"type":"object","properties":{"state":{"type":"string","minLength":2}},"required":["state"]}`,
			map[string]any{"readOnlyHint": true}),
	}
}

// inventory mirrors the `inventory` fixture.
func inventory() []Tool {
	return []Tool{
		mk("lookup_stock", "Look up stock for a SKU", `{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}`,
			map[string]any{"readOnlyHint": true}),
		mk("list_warehouses", "List warehouses", `{"type":"object","properties":{}}`, map[string]any{"readOnlyHint": true}),
		mk("write_stock", "Set the stock level for a SKU", `{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}},"required":["sku","qty"]}`,
			map[string]any{"destructiveHint": true}),
	}
}

var weatherCtx = Context{AgentRole: "Forecaster", ServerName: "localhost:8765_mcp"}

func mustNew(t testing.TB, allowed, blocked []string, expr string, opts ...Option) *Filter {
	t.Helper()
	f, err := New(allowed, blocked, expr, opts...)
	if err != nil {
		t.Fatalf("New(%q, %q, %q): %v", allowed, blocked, expr, err)
	}
	return f
}

func keptNames(tools []Tool, vs []Verdict) []string {
	var out []string
	for i, v := range vs {
		if v.Kept {
			out = append(out, tools[i].Name)
		}
	}
	return out
}

func TestStaticRules(t *testing.T) {
	tools := append(weather(), inventory()...)
	type want struct {
		kept   bool
		by     Stage
		reason string
	}
	cases := []struct {
		name             string
		allowed, blocked []string
		want             map[string]want // by sanitized tool name; unlisted tools must be filtered
	}{
		{
			name: "no filter keeps all",
			want: map[string]want{
				"get_forecast": {true, StageNone, "kept: no filter"}, "get_alerts": {true, StageNone, "kept: no filter"},
				"lookup_stock": {true, StageNone, "kept: no filter"}, "list_warehouses": {true, StageNone, "kept: no filter"},
				"write_stock": {true, StageNone, "kept: no filter"},
			},
		},
		{
			name:    "empty non-nil lists are falsy: allow all, block nothing",
			allowed: []string{}, blocked: []string{},
			want: map[string]want{
				"get_forecast": {true, StageNone, "kept: no filter"}, "get_alerts": {true, StageNone, "kept: no filter"},
				"lookup_stock": {true, StageNone, "kept: no filter"}, "list_warehouses": {true, StageNone, "kept: no filter"},
				"write_stock": {true, StageNone, "kept: no filter"},
			},
		},
		{
			name:    "allowed keeps exactly its members",
			allowed: []string{"get_forecast", "lookup_stock"},
			want: map[string]want{
				"get_forecast":    {true, StageStatic, "kept: in allowed_tool_names"},
				"lookup_stock":    {true, StageStatic, "kept: in allowed_tool_names"},
				"get_alerts":      {false, StageStatic, "filtered: not in allowed_tool_names [get_forecast, lookup_stock]"},
				"list_warehouses": {false, StageStatic, "filtered: not in allowed_tool_names [get_forecast, lookup_stock]"},
				"write_stock":     {false, StageStatic, "filtered: not in allowed_tool_names [get_forecast, lookup_stock]"},
			},
		},
		{
			name:    "allowed compares the sanitized name, not the original",
			allowed: []string{"getForecast"},
			want: map[string]want{
				"get_forecast": {false, StageStatic, "filtered: not in allowed_tool_names [getForecast]"},
				"get_alerts":   {false, StageStatic, "filtered: not in allowed_tool_names [getForecast]"},
			},
		},
		{
			name:    "comparison is case-sensitive",
			allowed: []string{"Get_Forecast", "GET_ALERTS"},
			want:    map[string]want{},
		},
		{
			name:    "comparison is unprefixed: the LLM-visible name does not match",
			allowed: []string{"localhost_8765_mcp_get_forecast"},
			want:    map[string]want{},
		},
		{
			name:    "no trimming or normalising of entries",
			allowed: []string{" get_forecast", "get_forecast "},
			want:    map[string]want{},
		},
		{
			name:    "blocked only: members blocked, the rest kept",
			blocked: []string{"write_stock"},
			want: map[string]want{
				"write_stock":     {false, StageStatic, "blocked: in blocked_tool_names"},
				"get_forecast":    {true, StageStatic, "kept: not in blocked_tool_names"},
				"get_alerts":      {true, StageStatic, "kept: not in blocked_tool_names"},
				"lookup_stock":    {true, StageStatic, "kept: not in blocked_tool_names"},
				"list_warehouses": {true, StageStatic, "kept: not in blocked_tool_names"},
			},
		},
		{
			name:    "blocked original name blocks nothing",
			blocked: []string{"getAlerts"},
			want: map[string]want{
				"get_forecast": {true, StageStatic, "kept: not in blocked_tool_names"}, "get_alerts": {true, StageStatic, "kept: not in blocked_tool_names"},
				"lookup_stock": {true, StageStatic, "kept: not in blocked_tool_names"}, "list_warehouses": {true, StageStatic, "kept: not in blocked_tool_names"},
				"write_stock": {true, StageStatic, "kept: not in blocked_tool_names"},
			},
		},
		{
			name:    "blocked beats allowed",
			allowed: []string{"lookup_stock", "write_stock"}, blocked: []string{"write_stock"},
			want: map[string]want{
				"lookup_stock": {true, StageStatic, "kept: in allowed_tool_names"},
				"write_stock":  {false, StageStatic, "blocked: in blocked_tool_names"},
			},
		},
		{
			name:    "duplicates are shown once",
			allowed: []string{"lookup_stock", "lookup_stock"},
			want: map[string]want{
				"lookup_stock": {true, StageStatic, "kept: in allowed_tool_names"},
				"get_forecast": {false, StageStatic, "filtered: not in allowed_tool_names [lookup_stock]"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustNew(t, tc.allowed, tc.blocked, "")
			vs, _ := f.Apply(weatherCtx, tools)
			for i, v := range vs {
				name := tools[i].Name
				w, listed := tc.want[name]
				if !listed {
					if v.Kept {
						t.Errorf("%s: kept (%s), want filtered", name, v.Reason)
					}
					continue
				}
				if v.Kept != w.kept || v.By != w.by || v.Reason != w.reason {
					t.Errorf("%s: got {%v %q %q}, want {%v %q %q}", name, v.Kept, v.By, v.Reason, w.kept, w.by, w.reason)
				}
				if v.Err != nil {
					t.Errorf("%s: static verdict carries error %v", name, v.Err)
				}
				// Evaluate must agree with Apply.
				if e := f.Evaluate(weatherCtx, tools[i]); e != v {
					t.Errorf("%s: Evaluate %+v != Apply %+v", name, e, v)
				}
			}
		})
	}
}

func TestReasonListIsShortened(t *testing.T) {
	f := mustNew(t, []string{"a", "b", "c", "d", "e", "f", "g"}, nil, "")
	v := f.Evaluate(Context{}, Tool{Name: "z"})
	if want := "filtered: not in allowed_tool_names [a, b, c, d, e, … 2 more]"; v.Reason != want {
		t.Errorf("reason %q, want %q", v.Reason, want)
	}
}

func TestStaticFilterAccessors(t *testing.T) {
	f := mustNew(t, []string{"a", "a", "b"}, []string{"c"}, " ")
	if got := f.AllowedToolNames(); strings.Join(got, ",") != "a,b" {
		t.Errorf("AllowedToolNames = %q", got)
	}
	if got := f.BlockedToolNames(); strings.Join(got, ",") != "c" {
		t.Errorf("BlockedToolNames = %q", got)
	}
	if f.Expression() != "" || f.IsEmpty() {
		t.Errorf("blank expression should mean none; IsEmpty=%v", f.IsEmpty())
	}
	if !mustNew(t, nil, []string{}, "").IsEmpty() {
		t.Error("no lists and no expression should be empty")
	}
}

func TestHints(t *testing.T) {
	tools := append(weather(),
		mk("httpserver", "lower-case remote name", "", nil),
		mk("天气", "sanitizes to empty; CrewAI skips it", "", nil),
	)
	cases := []struct {
		name             string
		allowed, blocked []string
		want             []Hint // compared on Kind, Entry, List, Suggestion; Message checked below
		msgs             []string
	}{
		{
			name:    "original name in allowed",
			allowed: []string{"getForecast"},
			want:    []Hint{{Kind: HintDidYouMean, Entry: "getForecast", List: ListAllowed, Suggestion: "get_forecast"}},
			msgs:    []string{"allowed_tool_names entry \"getForecast\" matches no tool; it is the tool's original name, but CrewAI compares the sanitized name — did you mean `get_forecast`?"},
		},
		{
			name:    "original name in blocked",
			blocked: []string{"getAlerts"},
			want:    []Hint{{Kind: HintDidYouMean, Entry: "getAlerts", List: ListBlocked, Suggestion: "get_alerts"}},
			msgs:    []string{"did you mean `get_alerts`?"},
		},
		{
			name:    "entry that sanitizes to a name",
			allowed: []string{"Get Forecast"},
			want:    []Hint{{Kind: HintDidYouMean, Entry: "Get Forecast", List: ListAllowed, Suggestion: "get_forecast"}},
			msgs:    []string{"sanitizes to `get_forecast`"},
		},
		{
			name:    "case-insensitive match that sanitizing does not explain",
			allowed: []string{"HTTPServer"}, // sanitizes to http_server; the tool is httpserver
			want:    []Hint{{Kind: HintDidYouMean, Entry: "HTTPServer", List: ListAllowed, Suggestion: "httpserver"}},
			msgs:    []string{"case-sensitive"},
		},
		{
			name:    "full LLM-visible name with the server prefix",
			allowed: []string{"localhost_8765_mcp_get_forecast"},
			want:    []Hint{{Kind: HintDidYouMean, Entry: "localhost_8765_mcp_get_forecast", List: ListAllowed, Suggestion: "get_forecast"}},
			msgs:    []string{"without the server prefix"},
		},
		{
			name:    "display name with the raw server prefix",
			blocked: []string{"localhost:8765_mcp_get_alerts"},
			want:    []Hint{{Kind: HintDidYouMean, Entry: "localhost:8765_mcp_get_alerts", List: ListBlocked, Suggestion: "get_alerts"}},
		},
		{
			name:    "typo",
			allowed: []string{"get_forcast"},
			want:    []Hint{{Kind: HintDidYouMean, Entry: "get_forcast", List: ListAllowed, Suggestion: "get_forecast"}},
			msgs:    []string{"— did you mean `get_forecast`?"},
		},
		{
			name:    "resembles nothing",
			allowed: []string{"delete_everything", "get_forecast"},
			want:    []Hint{{Kind: HintNoMatch, Entry: "delete_everything", List: ListAllowed}},
			msgs:    []string{"allowed_tool_names entry \"delete_everything\" matches no tool on this server"},
		},
		{
			name:    "short entries are not fuzzy-matched",
			blocked: []string{"get"},
			want:    []Hint{{Kind: HintNoMatch, Entry: "get", List: ListBlocked}},
		},
		{
			name:    "a tool that sanitizes to empty is never suggested",
			allowed: []string{"天气"},
			want:    []Hint{{Kind: HintNoMatch, Entry: "天气", List: ListAllowed}},
		},
		{
			name:    "matching entries give no hints",
			allowed: []string{"get_forecast", "get_alerts"}, blocked: []string{"get_alerts"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustNew(t, tc.allowed, tc.blocked, "")
			_, hints := f.Apply(weatherCtx, tools)
			var got []Hint
			for _, h := range hints {
				if h.Kind != HintKeepsNothing {
					got = append(got, Hint{Kind: h.Kind, Entry: h.Entry, List: h.List, Suggestion: h.Suggestion})
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("hints\n got %+v\nwant %+v", got, tc.want)
			}
			for i, m := range tc.msgs {
				if !strings.Contains(hints[i].Message, m) {
					t.Errorf("hint %d message %q does not contain %q", i, hints[i].Message, m)
				}
			}
		})
	}
}

// TestDoneWhenWeatherAllowGetForecast is the issue's acceptance case:
// `--allow getForecast` on the weather fixture keeps nothing and suggests get_forecast.
func TestDoneWhenWeatherAllowGetForecast(t *testing.T) {
	f := mustNew(t, []string{"getForecast"}, nil, "")
	vs, hints := f.Apply(weatherCtx, weather())
	for i, v := range vs {
		if v.Kept {
			t.Errorf("%s kept", weather()[i].Name)
		}
		if want := "filtered: not in allowed_tool_names [getForecast]"; v.Reason != want {
			t.Errorf("reason %q, want %q", v.Reason, want)
		}
	}
	if !KeepsNothing(hints) {
		t.Fatalf("KeepsNothing false; hints %+v", hints)
	}
	var found bool
	for _, h := range hints {
		if h.Kind == HintDidYouMean && strings.Contains(h.Message, "did you mean `get_forecast`?") && h.Suggestion == "get_forecast" {
			found = true
		}
		if h.Kind == HintKeepsNothing && !strings.Contains(h.Message, "No tools discovered from MCP server: localhost:8765_mcp") {
			t.Errorf("keeps-nothing hint %q lacks CrewAI's warning", h.Message)
		}
	}
	if !found {
		t.Errorf("no `get_forecast` suggestion in %+v", hints)
	}
}

func TestKeepsNothing(t *testing.T) {
	cases := []struct {
		name    string
		allowed []string
		expr    string
		tools   []Tool
		want    bool
	}{
		{"something kept", []string{"get_forecast"}, "", weather(), false},
		{"static keeps nothing", []string{"nope"}, "", weather(), true},
		{"expression keeps nothing", nil, "false", weather(), true},
		{"static keeps, expression rejects", []string{"get_forecast"}, `tool.name == "get_alerts"`, weather(), true},
		{"empty listing is not the filter's doing", []string{"x"}, "", nil, false},
		{"no filter", nil, "", weather(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, hints := mustNew(t, tc.allowed, nil, tc.expr).Apply(weatherCtx, tc.tools)
			if got := KeepsNothing(hints); got != tc.want {
				t.Errorf("KeepsNothing = %v, want %v (hints %+v)", got, tc.want, hints)
			}
		})
	}
	if got := NoToolsMessage("python_servers/inventory.py"); got != "No tools discovered from MCP server: python_servers/inventory.py" {
		t.Errorf("NoToolsMessage = %q", got)
	}
}

func TestExpressionFields(t *testing.T) {
	tools := append(weather(), inventory()...)
	invCtx := Context{AgentRole: "Stock Keeper", ServerName: "python_servers/inventory.py"}
	cases := []struct {
		expr string
		ctx  Context
		want string // kept names, comma-separated
	}{
		{`tool.name.startsWith("get_")`, weatherCtx, "get_forecast,get_alerts"},
		{`tool.name == "write_stock"`, weatherCtx, "write_stock"},
		{`tool.original_name == "getForecast"`, weatherCtx, "get_forecast"},
		{`tool.original_name.matches("^[a-z]+[A-Z]")`, weatherCtx, "get_forecast,get_alerts"},
		{`tool.description.contains("SKU")`, weatherCtx, "lookup_stock,write_stock"},
		{`tool.description.lowerAscii().contains("weather")`, weatherCtx, "get_forecast,get_alerts"},
		{`"sku" in tool.input_schema.properties`, weatherCtx, "lookup_stock,write_stock"},
		{`has(tool.input_schema.required) && tool.input_schema.required.size() == 2`, weatherCtx, "get_forecast,write_stock"},
		{`has(tool.input_schema.properties.latitude) && tool.input_schema.properties.latitude.maximum >= 90`, weatherCtx, "get_forecast"},
		{`tool.input_schema.properties.all(k, k.size() <= 5)`, weatherCtx, "get_alerts,lookup_stock,list_warehouses,write_stock"},
		{`tool.annotations.?readOnlyHint.orValue(false)`, weatherCtx, "get_forecast,get_alerts,lookup_stock,list_warehouses"},
		{`!tool.annotations.?destructiveHint.orValue(false)`, weatherCtx, "get_forecast,get_alerts,lookup_stock,list_warehouses"},
		{`has(tool.annotations.title)`, weatherCtx, "get_forecast"},
		{`context.server_name == "python_servers/inventory.py"`, invCtx, "get_forecast,get_alerts,lookup_stock,list_warehouses,write_stock"},
		{`context.server_name == "python_servers/inventory.py"`, weatherCtx, ""},
		{`context.server_name.startsWith("localhost:") && tool.name != "get_alerts"`, weatherCtx, "get_forecast,lookup_stock,list_warehouses,write_stock"},
		{`context.agent_role == "Stock Keeper" && tool.name.endsWith("_stock")`, invCtx, "lookup_stock,write_stock"},
		{`context.agent_role.split(" ").size() == 2 && tool.name.startsWith("list")`, invCtx, "list_warehouses"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			f := mustNew(t, nil, nil, tc.expr)
			vs, _ := f.Apply(tc.ctx, tools)
			for i, v := range vs {
				if v.Err != nil {
					t.Errorf("%s: unexpected error %v", tools[i].Name, v.Err)
				}
				if v.By != StageExpression {
					t.Errorf("%s: By = %q", tools[i].Name, v.By)
				}
				wantReason := "filtered: expression returned false"
				if v.Kept {
					wantReason = "kept: expression returned true"
				}
				if v.Reason != wantReason {
					t.Errorf("%s: reason %q, want %q", tools[i].Name, v.Reason, wantReason)
				}
			}
			if got := strings.Join(keptNames(tools, vs), ","); got != tc.want {
				t.Errorf("kept %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExpressionSchemaEdgeCases(t *testing.T) {
	tools := []Tool{
		{Name: "no_schema"},
		{Name: "bad_json", InputSchema: json.RawMessage(`{"type":`)},
		{Name: "array_schema", InputSchema: json.RawMessage(`[1,2]`)},
		{Name: "null_schema", InputSchema: json.RawMessage(`null`)},
		{Name: "nil_annotations", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
	f := mustNew(t, nil, nil, `tool.input_schema.size() == 0 && tool.annotations.size() == 0 && !has(tool.annotations.readOnlyHint)`)
	vs, _ := f.Apply(Context{}, tools)
	for i, v := range vs {
		want := tools[i].Name != "nil_annotations"
		if v.Kept != want {
			t.Errorf("%s: kept=%v (%s), want %v", tools[i].Name, v.Kept, v.Reason, want)
		}
	}
	// An expression that never reads the schema must not care that it is broken.
	f = mustNew(t, nil, nil, `tool.name != ""`)
	if v := f.Evaluate(Context{}, tools[1]); !v.Kept {
		t.Errorf("bad schema affected a schema-free expression: %+v", v)
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		expr       string
		line, col  int
		msgContain string
	}{
		{`tool.nmae == "x"`, 1, 5, "undefined field 'nmae'"},
		{`tools.name == "x"`, 1, 1, "undeclared reference to 'tools'"},
		{`context.server == "x"`, 1, 8, "undefined field 'server'"},
		{`tool.name ==`, 1, 13, "Syntax error"},
		{"tool.name == \"a\" &&\n  tool.nmae == \"b\"", 2, 7, "undefined field 'nmae'"},
		{`tool.name`, 1, 5, "must return a bool, but it returns string"},
		{`tool.input_schema`, 1, 5, "must return a bool, but it returns map(string, dyn)"},
		{`1 + 2`, 1, 3, "must return a bool, but it returns int"},
		{`tool + 1`, 1, 6, "found no matching overload for '_+_' applied to '(Tool, int)'"},
		{`tool.name.matches("(")`, 1, 19, "invalid matches argument"},
		{`tool.name.startsWith(1)`, 1, 21, "found no matching overload"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := New(nil, nil, tc.expr)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want *CompileError", err, err)
			}
			if ce.Line != tc.line || ce.Column != tc.col {
				t.Errorf("position %d:%d, want %d:%d (%v)", ce.Line, ce.Column, tc.line, tc.col, err)
			}
			if !strings.Contains(ce.Message, tc.msgContain) {
				t.Errorf("message %q does not contain %q", ce.Message, tc.msgContain)
			}
			wantPos := fmt.Sprintf("line %d, column %d: ", tc.line, tc.col)
			if !strings.HasPrefix(err.Error(), "filter expression: "+wantPos) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Error() = %q, want one line starting with %q", err.Error(), "filter expression: "+wantPos)
			}
			if strings.Contains(err.Error(), "in container") {
				t.Errorf("Error() leaks CEL container noise: %q", err.Error())
			}
			// Detail points a caret at the column.
			d := ce.Detail()
			lines := strings.Split(d, "\n")
			if len(lines) < 3 || strings.Index(lines[2], "^")-3 != tc.col-1 {
				t.Errorf("Detail caret misplaced:\n%s", d)
			}
		})
	}
}

func TestCompileErrorCountsExtraIssues(t *testing.T) {
	_, err := New(nil, nil, `tool.a == tool.b`)
	var ce *CompileError
	if !errors.As(err, &ce) || len(ce.Issues) != 2 || !strings.HasSuffix(err.Error(), "(and 1 more)") {
		t.Fatalf("err = %v", err)
	}
}

func TestExpressionSizeLimit(t *testing.T) {
	expr := strings.Repeat("true && ", maxExprCodePoints/8+1) + "true"
	_, err := New(nil, nil, expr)
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("oversized expression: err = %v", err)
	}
}

func TestEvaluationErrors(t *testing.T) {
	tools := weather() // get_forecast has annotations.title; get_alerts does not
	cases := []struct {
		name, expr string
		tool       int
		opts       []Option
		wantErr    error  // sentinel, or nil for a plain CEL error
		contains   string // in the reason
	}{
		{"missing key", `tool.annotations.title == "Forecast"`, 1, nil, nil, "no such key: title"},
		{"non-bool at runtime", `tool.annotations.title`, 0, nil, ErrNotBool, "it returned string \"Forecast\""},
		{"non-bool dyn", `dyn(tool.name.size())`, 0, nil, ErrNotBool, "it returned int 12"},
		{"cost limit", `[1,2,3,4,5,6,7,8,9,10].all(x, [1,2,3,4,5,6,7,8,9,10].all(y, x * y > 0))`, 0, []Option{WithCostLimit(50)}, ErrCostLimit, "cost limit 50 exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustNew(t, nil, nil, tc.expr, tc.opts...)
			v := f.Evaluate(weatherCtx, tools[tc.tool])
			if v.Kept || v.By != StageExpression || v.Err == nil {
				t.Fatalf("verdict %+v, want filtered by expression with an error", v)
			}
			if tc.wantErr != nil && !errors.Is(v.Err, tc.wantErr) {
				t.Errorf("err %v is not %v", v.Err, tc.wantErr)
			}
			if !strings.HasPrefix(v.Reason, "filtered: expression error: ") || !strings.Contains(v.Reason, tc.contains) {
				t.Errorf("reason %q lacks %q", v.Reason, tc.contains)
			}
			if !strings.Contains(v.Reason, "CrewAI would fail the whole server resolution") {
				t.Errorf("reason %q does not say what CrewAI would do", v.Reason)
			}
		})
	}
}

func TestCostLimitDefaultStopsRunaway(t *testing.T) {
	// 100^3 = 1e6 iterations: far over DefaultCostLimit. The deadline is set
	// out of reach so that only the cost limit can stop it.
	hundred := "[" + strings.TrimSuffix(strings.Repeat("0,", 100), ",") + "]"
	expr := hundred + ".all(x, " + hundred + ".all(y, " + hundred + ".all(z, x + y + z >= 0)))"
	f := mustNew(t, nil, nil, expr, WithTimeout(time.Hour))
	v := f.Evaluate(Context{}, Tool{Name: "t"})
	if !errors.Is(v.Err, ErrCostLimit) {
		t.Fatalf("verdict %+v, want ErrCostLimit", v)
	}
	if want := fmt.Sprintf("cost limit %d exceeded", DefaultCostLimit); !strings.Contains(v.Reason, want) {
		t.Errorf("reason %q lacks %q", v.Reason, want)
	}
	// A small comprehension stays well inside the default.
	f = mustNew(t, nil, nil, `[1,2,3].all(x, x > 0)`)
	if v := f.Evaluate(Context{}, Tool{Name: "t"}); !v.Kept {
		t.Errorf("small comprehension filtered: %+v", v)
	}
}

func TestDeadlineInterruptsEvaluation(t *testing.T) {
	// With the cost limit out of the way, only the deadline can stop this
	// 1e9-iteration expression.
	thousand := "[" + strings.TrimSuffix(strings.Repeat("0,", 1000), ",") + "]"
	expr := thousand + ".all(x, " + thousand + ".all(y, " + thousand + ".all(z, x + y + z >= 0)))"
	f := mustNew(t, nil, nil, expr, WithCostLimit(1<<62), WithTimeout(50*time.Millisecond))
	start := time.Now()
	v := f.Evaluate(Context{}, Tool{Name: "t"})
	elapsed := time.Since(start)
	if !errors.Is(v.Err, ErrTimeout) || !strings.Contains(v.Reason, "evaluation deadline exceeded") {
		t.Fatalf("verdict %+v, want ErrTimeout", v)
	}
	if elapsed > 2*time.Second {
		t.Errorf("deadline of 50ms honoured only after %v", elapsed)
	}

	// Apply shares one deadline: once it passes, the rest are filtered at once.
	vs, _ := f.Apply(Context{}, []Tool{{Name: "a"}, {Name: "b"}, {Name: "c"}})
	for i, v := range vs {
		if !errors.Is(v.Err, ErrTimeout) {
			t.Errorf("tool %d: %+v, want ErrTimeout", i, v)
		}
	}
}

func TestApplyContextCancelled(t *testing.T) {
	f := mustNew(t, []string{"get_forecast"}, nil, `true`)
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	vs, _ := f.ApplyContext(cctx, weatherCtx, weather())
	// The static filter still decides (it needs no evaluation); the
	// expression is never started.
	if vs[1].By != StageStatic || vs[1].Kept {
		t.Errorf("static verdict changed by cancellation: %+v", vs[1])
	}
	if !errors.Is(vs[0].Err, ErrTimeout) || !errors.Is(vs[0].Err, context.Canceled) || vs[0].Kept ||
		!strings.Contains(vs[0].Reason, "evaluation cancelled") {
		t.Errorf("cancelled evaluation: %+v", vs[0])
	}
}

func TestStaticAndExpressionCombined(t *testing.T) {
	tools := inventory()
	cases := []struct {
		name             string
		allowed, blocked []string
		expr             string
		want             map[string]Verdict // Err ignored
	}{
		{
			name:    "static rejects first, expression not consulted",
			allowed: []string{"lookup_stock", "write_stock"}, expr: `tool.name.endsWith("_stock")`,
			want: map[string]Verdict{
				"lookup_stock":    {Kept: true, By: StageExpression, Reason: "kept: in allowed_tool_names and expression returned true"},
				"write_stock":     {Kept: true, By: StageExpression, Reason: "kept: in allowed_tool_names and expression returned true"},
				"list_warehouses": {By: StageStatic, Reason: "filtered: not in allowed_tool_names [lookup_stock, write_stock]"},
			},
		},
		{
			name:    "static keeps, expression rejects",
			allowed: []string{"lookup_stock", "write_stock"}, expr: `tool.annotations.?readOnlyHint.orValue(false)`,
			want: map[string]Verdict{
				"lookup_stock":    {Kept: true, By: StageExpression, Reason: "kept: in allowed_tool_names and expression returned true"},
				"write_stock":     {By: StageExpression, Reason: "filtered: expression returned false"},
				"list_warehouses": {By: StageStatic, Reason: "filtered: not in allowed_tool_names [lookup_stock, write_stock]"},
			},
		},
		{
			name:    "blocked with expression",
			blocked: []string{"list_warehouses"}, expr: `tool.name != "write_stock"`,
			want: map[string]Verdict{
				"lookup_stock":    {Kept: true, By: StageExpression, Reason: "kept: not in blocked_tool_names and expression returned true"},
				"write_stock":     {By: StageExpression, Reason: "filtered: expression returned false"},
				"list_warehouses": {By: StageStatic, Reason: "blocked: in blocked_tool_names"},
			},
		},
		{
			name:    "an erroring expression is not evaluated for blocked tools",
			blocked: []string{"write_stock"}, expr: `tool.annotations.readOnlyHint`,
			want: map[string]Verdict{
				"lookup_stock":    {Kept: true, By: StageExpression, Reason: "kept: not in blocked_tool_names and expression returned true"},
				"list_warehouses": {Kept: true, By: StageExpression, Reason: "kept: not in blocked_tool_names and expression returned true"},
				"write_stock":     {By: StageStatic, Reason: "blocked: in blocked_tool_names"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustNew(t, tc.allowed, tc.blocked, tc.expr)
			vs, _ := f.Apply(Context{ServerName: "python_servers/inventory.py"}, tools)
			for i, v := range vs {
				w := tc.want[tools[i].Name]
				v.Err = nil
				if v != w {
					t.Errorf("%s: got %+v, want %+v", tools[i].Name, v, w)
				}
			}
		})
	}
}

func TestApplyPreparedMatchesApply(t *testing.T) {
	tools := append(weather(), inventory()...)
	prepared := Prepare(tools)
	for _, expr := range []string{
		`"sku" in tool.input_schema.properties`,
		`tool.name.contains("stock")`,
		`tool.input_schema.properties.size() > 1`,
	} {
		f := mustNew(t, []string{"get_forecast", "lookup_stock", "write_stock", "nope"}, []string{"getAlerts"}, expr)
		v1, h1 := f.Apply(weatherCtx, tools)
		v2, h2 := f.ApplyPrepared(context.Background(), weatherCtx, prepared)
		if fmt.Sprint(v1) != fmt.Sprint(v2) || fmt.Sprint(h1) != fmt.Sprint(h2) {
			t.Errorf("%s: Apply and ApplyPrepared differ:\n%v %v\n%v %v", expr, v1, h1, v2, h2)
		}
	}
	// The parsed schema is shared, not re-parsed.
	s1, s2 := prepared[0].Schema(), prepared[0].Schema()
	if fmt.Sprintf("%p", s1) != fmt.Sprintf("%p", s2) {
		t.Error("Prepared.Schema parsed twice")
	}
}

func TestConcurrentUse(t *testing.T) {
	tools := append(weather(), inventory()...)
	prepared := Prepare(tools)
	f := mustNew(t, nil, []string{"write_stock"}, `"sku" in tool.input_schema.properties || context.agent_role == "x"`)
	want, _ := f.Apply(weatherCtx, tools)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, _ := f.ApplyPrepared(context.Background(), weatherCtx, prepared)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("concurrent verdicts differ")
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRuntimeCostTrackingSkippedOnlyWhenProvablyCheap: a batch runs without
// runtime cost tracking only when the checker's worst case for the batch's
// input sizes is within the limit.
func TestRuntimeCostTrackingSkippedOnlyWhenProvablyCheap(t *testing.T) {
	tools := append(weather(), inventory()...)
	long := strings.Repeat("weather ", 2000) // a 16 kB description
	big := append(append([]Tool(nil), tools...), mk("bigDescription", long, `{}`, nil))
	cases := []struct {
		expr    string
		tools   []Tool
		tracked bool
	}{
		{`tool.name.startsWith("get_")`, tools, false},
		{`!tool.annotations.?destructiveHint.orValue(false) && tool.description.contains("SKU")`, tools, false},
		{`"sku" in tool.input_schema.properties`, tools, false},
		{`tool.input_schema.properties.all(k, k.size() < 10)`, tools, false},
		{`tool.description.matches("(?i)weather")`, big, false},
		// Growth chains and big loops must stay tracked.
		{`tool.description.replace("", tool.description.replace("", tool.description)).size() > 0`, big, true},
		{`[` + strings.Repeat("0,", 99) + `0].all(x, [` + strings.Repeat("0,", 99) + `0].all(y, [` + strings.Repeat("0,", 99) + `0].all(z, true)))`, tools, true},
	}
	for _, tc := range cases {
		t.Run(tc.expr[:min(len(tc.expr), 40)], func(t *testing.T) {
			f := mustNew(t, nil, nil, tc.expr)
			sz := inputSizes{serverName: uint64(len(weatherCtx.ServerName)), agentRole: uint64(len(weatherCtx.AgentRole))}
			for i := range tc.tools {
				sz.addTool(&tc.tools[i], f.cel)
			}
			got := f.programFor(sz) == f.cel.tracked
			if got != tc.tracked {
				t.Errorf("tracked = %v, want %v", got, tc.tracked)
			}
		})
	}
}

// TestCostEstimateBoundsActualCost checks the contract programFor relies on:
// for inputs within the estimated sizes, the runtime cost never exceeds the
// estimate.
func TestCostEstimateBoundsActualCost(t *testing.T) {
	tools := append(weather(), inventory()...)
	tools = append(tools, mk("bigDescription", strings.Repeat("é weather ", 500), `{"type":"object","properties":{"q":{"type":"string","description":"`+strings.Repeat("x", 300)+`"}}}`,
		map[string]any{"title": strings.Repeat("t", 200), "tags": []any{"a", "b"}}))
	for _, expr := range append(fuzzExprSeeds,
		`tool.description.split(" ").exists(w, w == "weather")`,
		`tool.input_schema.properties.exists(k, tool.input_schema.properties[k].description.size() > 100)`,
		`tool.annotations.?tags.orValue([]).size() > 1 || tool.annotations.?title.orValue("").contains("tt")`,
		`context.server_name + tool.name == "x"`,
	) {
		f, err := New(nil, nil, expr)
		if err != nil {
			continue
		}
		sz := inputSizes{serverName: uint64(len(weatherCtx.ServerName)), agentRole: uint64(len(weatherCtx.AgentRole))}
		for i := range tools {
			sz.addTool(&tools[i], f.cel)
		}
		est, err := f.cel.env.EstimateCost(f.cel.ast, sizeEstimator{sz})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		b := f.newBatch(context.Background(), weatherCtx, 0)
		for i := range tools {
			tl := &tools[i]
			b.tool = toolVar{Name: tl.Name, OriginalName: tl.OriginalName, Description: tl.Description, InputSchema: parseSchema(tl.InputSchema), Annotations: tl.Annotations}
			if b.tool.Annotations == nil {
				b.tool.Annotations = emptyMap
			}
			_, det, _ := f.cel.tracked.Eval(&b.vars)
			if det == nil || det.ActualCost() == nil {
				t.Fatalf("%s: no actual cost", expr)
			}
			if actual := *det.ActualCost(); actual > est.Max {
				t.Errorf("%s on %s: actual cost %d > estimated max %d", expr, tl.Name, actual, est.Max)
			}
		}
	}
}

func TestGrowthChainIsStoppedInABatch(t *testing.T) {
	var tools []Tool
	for i := range 10 {
		tools = append(tools, mk(fmt.Sprintf("tool%d", i), strings.Repeat("abc ", 500), "", nil))
	}
	f := mustNew(t, nil, nil, `tool.description.replace("", tool.description.replace("", tool.description)).size() > 0`)
	vs, _ := f.Apply(Context{}, tools)
	for i, v := range vs {
		// The cost limit stops each evaluation; on a loaded machine the
		// batch's deadline may stop the later ones first. Either way no
		// tool's evaluation runs away and none is kept.
		if v.Kept || !(errors.Is(v.Err, ErrCostLimit) || errors.Is(v.Err, ErrTimeout)) {
			t.Errorf("tool %d: %+v, want ErrCostLimit (or ErrTimeout under load)", i, v)
		}
	}
}
