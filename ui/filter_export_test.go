package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"crewbench/crew/project"
	"crewbench/crew/pyread"
	"crewbench/crew/writeback"
	"crewbench/mcpconn"
)

// writebackExporter renders through crew/writeback on the demo project, as
// the workbench's exporter does (notes as comments).
type writebackExporter struct{ p *project.Project }

func (e writebackExporter) Render(_ context.Context, f ExportFormat, req ExportRequest) (string, error) {
	format := writeback.FormatMCPs
	if f == ExportPython {
		format = writeback.FormatPython
	}
	res, err := writeback.Export(e.p, format, writeback.Options{Servers: []string{req.Server}, Filters: map[string]mcpconn.FilterSpec{req.Server: req.Filter}})
	text := res.Text
	for _, n := range res.Notes {
		text += "\n# note: " + n
	}
	return text, err
}
func (writebackExporter) Plan(context.Context, ExportRequest) (WritePlan, error) {
	return WritePlan{}, nil
}
func (writebackExporter) Apply(context.Context, WritePlan) (string, error) { return "", nil }

// requireParses fails unless pyread reads src as Python: no broken token,
// every bracket closed, and no line that ends inside a name.
func requireParses(t *testing.T, what, src string) {
	t.Helper()
	depth := 0
	for _, tk := range pyread.Tokenize(src, "") {
		switch {
		case tk.Bad:
			t.Fatalf("%s: broken token %q at %s:\n%s", what, tk.Text, tk.Pos, src)
		case tk.Kind == pyread.TokOp && strings.Contains("([{", tk.Text):
			depth++
		case tk.Kind == pyread.TokOp && strings.Contains(")]}", tk.Text):
			depth--
		case tk.Kind == pyread.TokName && depth == 0 && tk.First && tk.Text != "from" && tk.Text != "import" &&
			!strings.HasPrefix(src[tk.End:], " = ") && !strings.HasPrefix(src[tk.End:], "=") && tk.Text != "tool_filter":
			t.Fatalf("%s: a line starts with the bare name %q (a wrapped line?) at %s:\n%s", what, tk.Text, tk.Pos, src)
		}
	}
	if depth != 0 {
		t.Fatalf("%s: %d bracket(s) open:\n%s", what, depth, src)
	}
}

// The crew.py snippet of the Filter view is wrapped as Python: never inside
// a name (create_dynamic_tool_ / filter(fn)) or a string, comments as
// comments, so that what is copied from the screen parses; the CEL caveat
// is said once.
func TestFilterExportPythonWrapsAsPython(t *testing.T) {
	p, err := project.Open(filepath.Join("..", "fixtures", "demo", "project"), "")
	if p == nil {
		t.Fatal(err)
	}
	for _, withExporter := range []bool{true, false} {
		for _, sz := range goldenSizes {
			deps := testDeps()
			if withExporter {
				deps.Exporter = writebackExporter{p}
			}
			m := settled(t, deps, sz.w, sz.h)
			m = stepRun(t, m, showFilterMsg{server: "weather"}, 2)
			m.filter.fields[fieldAllowed].SetValue("get_forecast, get_alerts_for_the_whole_region_today")
			m.filter.fields[fieldExpr].SetValue(`tool.name.startsWith("get_") && tool.name != "get_everything_at_once"`)
			m = stepRun(t, m, keyRunes(" "), 2)
			m = stepRun(t, m, keyRunes("x"), 2)
			m = stepRun(t, m, keyRunes("x"), 2)
			if m.filter.exportMode != 2 || !m.filter.exportCode {
				t.Fatalf("%s: export mode %d (code %v): %q", sz.name, m.filter.exportMode, m.filter.exportCode, m.filter.exportText)
			}
			v := ansi.Strip(m.View())
			requireBox(t, m.View(), sz.w, sz.h)
			what := sz.name + map[bool]string{true: " (exporter)", false: " (fragment)"}[withExporter]
			if strings.Contains(v, "create_dynamic_tool_\n") || strings.Contains(v, "tool_filter=create_static_\n") {
				t.Errorf("%s: a name is split:\n%s", what, v)
			}
			for _, w := range []int{28, 40, 60, sz.w} {
				body := m.filter.exportBody(w)
				if withExporter {
					requireParses(t, what, body)
				}
				for _, l := range strings.Split(body, "\n") {
					if strings.HasSuffix(l, "_") {
						t.Errorf("%s width %d: line ends inside a name: %q", what, w, l)
					}
					if c := strings.Index(l, "#"); c < 0 && strings.Contains(l, "has no") {
						t.Errorf("%s width %d: comment text outside a comment: %q", what, w, l)
					}
				}
			}
			if withExporter {
				joined := strings.Join(strings.Fields(strings.ReplaceAll(m.filter.exportText, "\n#", " ")), " ")
				if n := strings.Count(joined, "CEL"); n != 1 {
					t.Errorf("%s: the CEL caveat appears %d times:\n%s", what, n, m.filter.exportText)
				}
			}
		}
	}
}
