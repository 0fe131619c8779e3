package writeback

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"crewbench/crew/pyread"
)

// pyTokens are src's tokens (text only) and its comments' words: what a
// re-wrap must keep, in order.
func pyTokens(src string) (toks, words []string) {
	for _, t := range pyread.Tokenize(src, "") {
		if t.Kind != pyread.TokNewline && t.Kind != pyread.TokEOF {
			toks = append(toks, t.Text)
		}
	}
	for i, code := range pyread.CodeLines(src) {
		line := strings.Split(src, "\n")[i]
		words = append(words, strings.Fields(strings.TrimPrefix(strings.TrimSpace(line[len(code):]), "#"))...)
	}
	return toks, words
}

// pyCheck collects sources that must be valid Python: pyread must see
// every string terminated and every bracket closed (at once, in add), and
// python3's own parser must accept them (in run, one python3 process for
// all of them, when the machine has python3).
type pyCheck struct{ names, srcs []string }

func (c *pyCheck) add(t *testing.T, name, src string) {
	t.Helper()
	depth := 0
	for _, tk := range pyread.Tokenize(src, "") {
		if tk.Bad {
			t.Errorf("%s: pyread: bad token %q at %s in:\n%s", name, tk.Text, tk.Pos, src)
		}
		if tk.Kind == pyread.TokOp && isOpen(tk.Text) {
			depth++
		}
		if tk.Kind == pyread.TokOp && isClose(tk.Text) {
			depth--
		}
		if depth < 0 {
			t.Errorf("%s: pyread: unbalanced %q at %s in:\n%s", name, tk.Text, tk.Pos, src)
			return
		}
	}
	if depth != 0 {
		t.Errorf("%s: pyread: %d bracket(s) left open in:\n%s", name, depth, src)
	}
	c.names, c.srcs = append(c.names, name), append(c.srcs, src)
}

func (c *pyCheck) run(t *testing.T) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil || len(c.srcs) == 0 {
		return
	}
	in, err := json.Marshal(c.srcs)
	if err != nil {
		t.Fatal(err)
	}
	const script = `import ast, json, sys
for i, s in enumerate(json.load(sys.stdin)):
    try:
        ast.parse(s)
    except SyntaxError as e:
        print(i, e)
`
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		var i int
		if _, err := fmt.Sscan(l, &i); err != nil || i < 0 || i >= len(c.srcs) {
			t.Errorf("python3: %s", l)
			continue
		}
		t.Errorf("%s: python3 ast.parse: %s in:\n%s", c.names[i], l, c.srcs[i])
	}
}

func TestWrapPython(t *testing.T) {
	cases := []struct {
		name  string
		width int
		src   string
		want  string
	}{
		{"fits", 40, "x = f(a, b)\n", "x = f(a, b)\n"},
		{"call split at its outer brackets", 48,
			`    tool_filter=create_static_tool_filter(allowed_tool_names=["get_forecast"], blocked_tool_names=["x"]),`,
			`    tool_filter=create_static_tool_filter(
        allowed_tool_names=["get_forecast"],
        blocked_tool_names=["x"]
    ),`},
		{"a long list inside, split again", 30,
			`    tool_filter=f(allowed_tool_names=["get_forecast", "get_alerts", "get_more"]),`,
			`    tool_filter=f(
        allowed_tool_names=[
            "get_forecast",
            "get_alerts",
            "get_more"
        ]
    ),`},
		{"comment refilled by words, never mid-word", 40,
			`# the CEL filter tool.name != "x" has no Python form here: write create_dynamic_tool_filter(fn)`,
			`# the CEL filter tool.name != "x" has no
# Python form here: write
# create_dynamic_tool_filter(fn)`},
		{"indented comment keeps its prefix", 20, "    #   aaaa bbbb cccc dddd", "    #   aaaa bbbb\n    #   cccc dddd"},
		{"subscript and f-string stay whole", 30,
			`    headers={"Authorization": f"Bearer {os.environ['WEATHER_MCP_TOKEN']}"},`,
			`    headers={
        "Authorization": f"Bearer {os.environ['WEATHER_MCP_TOKEN']}"
    },`},
		{"one long token: left long", 10, `url = "https://example.com/very/long/path"`, `url = "https://example.com/very/long/path"`},
		{"subscript only: left long", 10, `x = os.environ["LONG_VARIABLE"]`, `x = os.environ["LONG_VARIABLE"]`},
		{"trailing comment stays on the closing line", 24, `x = f(aaaa, bbbb, cccc)  # note`, "x = f(\n    aaaa,\n    bbbb,\n    cccc\n)  # note"},
		{"lines of a multi-line string untouched", 10, "x = \"\"\"a b c d e f g, h\n(i, j, k, l, m, n)\"\"\"", "x = \"\"\"a b c d e f g, h\n(i, j, k, l, m, n)\"\"\""},
		{"a continuation line inside brackets", 30,
			"mcps = [\n    alpha, beta, gamma, delta, (epsilon, zeta),\n]",
			"mcps = [\n    alpha, beta, gamma, delta, (\n        epsilon,\n        zeta\n    ),\n]"},
	}
	var py pyCheck
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := WrapPython(c.src, c.width)
			if got != c.want {
				t.Fatalf("WrapPython(width %d):\n%s\nwant:\n%s", c.width, got, c.want)
			}
			wt, ww := pyTokens(c.src)
			gt, gw := pyTokens(got)
			if strings.Join(wt, "\x00") != strings.Join(gt, "\x00") || strings.Join(ww, " ") != strings.Join(gw, " ") {
				t.Errorf("tokens or comment words changed:\n%q\n%q", wt, gt)
			}
			if strings.HasPrefix(c.src, " ") {
				got = "f(\n" + got + "\n)" // keyword arguments of a call
			}
			py.add(t, c.name, got)
		})
	}
	py.run(t)
}
