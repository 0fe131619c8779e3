package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// runCLI runs crewbench in-process.
func runCLI(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code = execute(ctx, args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

func TestNamesHumanForms(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		firstLine string
		contains  []string
	}{
		{[]string{"names", "tool", "Unit Converter"}, "unit_converter", []string{"display name  Unit Converter"}},
		{[]string{"names", "stdio", "--tool", "lookup_stock", "--", "python", "servers/inventory.py"},
			"python_servers_inventory_py_lookup_stock", []string{"display name  python_servers/inventory.py_lookup_stock", "server name   python_servers/inventory.py"}},
		{[]string{"names", "stdio", "--tool", "list_allowed_directories", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "./data"},
			"npx_y_modelcontextprotocol_server_filesystem_data_list_4ab656ee", []string{"warning name_hashed:", "warning long_prefix:", "fix: "}},
		{[]string{"names", "url", "http://localhost:8765/mcp", "--tool", "lookup_stock"}, "localhost_8765_mcp_lookup_stock", []string{"display name  localhost:8765_mcp_lookup_stock"}},
		{[]string{"names", "url", "http://127.0.0.1:8765/mcp", "--tool", "lookup_stock", "--sse"}, "127_0_0_1_8765_mcp_lookup_stock",
			[]string{"error   leading_digit:", "Anthropic function name '127_0_0_1_8765_mcp_lookup_stock' must start with a letter or underscore", "warning ip_host:"}},
		{[]string{"names", "ref", "https://mcp.example.com/mcp#lookup_stock", "--remote-tool", "lookup_stock"}, "mcp_example_com_mcp_lookup_stock", []string{"server name   mcp_example_com_mcp"}},
		{[]string{"names", "ref", "https://api.weather.com/mcp#get_forecast", "--remote-tool", "getForecast"}, "api_weather_com_mcp_get_forecast",
			[]string{"call name     get_forecast  (sent to tools/call)", "warning https_call_name:"}},
		{[]string{"names", "ref", "https://api.weather.com/mcp#get_forecast", "--remote-tool", "get_alerts"}, "<not-selected>", []string{"info    not_selected:"}},
		{[]string{"names", "ref", "notion#search", "--amp-url", "https://mcp.notion.so/sse", "--remote-tool", "search"}, "mcp_notion_so_sse_search", nil},
		{[]string{"names", "stdio", "--tool", "天气预报", "--", "python", "s.py"}, "<skipped>", []string{"warning tool_dropped:"}},
		{[]string{"names", "tool", "ﾃｽﾄ"}, `""`, []string{"error   empty_name:"}},
		{[]string{"names", "--scheme", "claude-code", "stdio", "--server", "inventory", "--tool", "lookup_stock", "--", "python", "servers/inventory.py"},
			"mcp__inventory__lookup_stock", []string{"server key    inventory", "scheme        claude-code"}},
		{[]string{"names", "stdio", "--scheme", "mcphost", "--tool", "lookup_stock", "--", "python", "s.py"}, "python_s.py__lookup_stock", []string{"info    server_key_assumed:"}},
		{[]string{"names", "url", "--scheme", "adapter", "https://mcp.example.com/mcp", "--tool", "getForecast"}, "get_forecast", []string{"scheme        adapter"}},
		{[]string{"names", "url", "--scheme", "crush", "--server", "inv", "https://mcp.example.com/mcp", "--tool", "getForecast"}, "mcp_inv_getForecast", nil},
		{[]string{"names", "tool", "--dedupe", "2", "search"}, "search_2", nil},
	} {
		code, out, errOut := runCLI(t, nil, tc.args...)
		if code != 0 {
			t.Errorf("%q: exit %d, stderr %q", tc.args, code, errOut)
			continue
		}
		if first, _, _ := strings.Cut(out, "\n"); first != tc.firstLine {
			t.Errorf("%q: first line %q, want %q\n%s", tc.args, first, tc.firstLine, out)
		}
		for _, want := range tc.contains {
			if !strings.Contains(out, want) {
				t.Errorf("%q: output lacks %q:\n%s", tc.args, want, out)
			}
		}
	}
}

func TestNamesExplain(t *testing.T) {
	code, out, _ := runCLI(t, nil, "names", "stdio", "--explain", "--tool", "list_allowed_directories", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "./data")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"  derivation:\n",
		`    1. inputs: MCPServerStdio command "npx", args ["-y", "@modelcontextprotocol/server-filesystem", "./data"], remote tool "list_allowed_directories"`,
		`    2. server name = command + "_" + "_".join(args), raw (never sanitized)`,
		"    4. display name = ",
		`74 > 64 characters: keep "npx_y_modelcontextprotocol_server_filesystem_data_list", append "_" + sha256[:8] "4ab656ee"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain output lacks %q:\n%s", want, out)
		}
	}
}

func TestNamesCollisionAcrossTools(t *testing.T) {
	code, out, _ := runCLI(t, nil, "names", "tool", "getForecast", "get_forecast")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	blocks := strings.Split(out, "\n\n")
	if len(blocks) != 2 || !strings.HasPrefix(blocks[0], "get_forecast\n") || !strings.HasPrefix(blocks[1], "get_forecast\n") {
		t.Fatalf("want two blocks:\n%s", out)
	}
	if !strings.Contains(blocks[1], "warning collision:") || !strings.Contains(blocks[1], "get_forecast_2") {
		t.Errorf("second tool lacks the collision warning:\n%s", blocks[1])
	}
}

func TestNamesJSON(t *testing.T) {
	code, out, _ := runCLI(t, nil, "names", "url", "http://127.0.0.1:8765/mcp", "--tool", "lookup_stock", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want one JSON line, got:\n%s", out)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(obj)); strings.Join(keys, ",") != "diagnostics,display_name,llm_name,status" {
		t.Errorf("keys %v", keys)
	}
	var res struct {
		LLMName     string `json:"llm_name"`
		DisplayName string `json:"display_name"`
		Status      string `json:"status"`
		Diagnostics []map[string]string
	}
	_ = json.Unmarshal([]byte(out), &res)
	if res.LLMName != "127_0_0_1_8765_mcp_lookup_stock" || res.DisplayName != "127_0_0_1:8765_mcp_lookup_stock" || res.Status != "ok" {
		t.Errorf("%+v", res)
	}
	codes := map[string]bool{}
	for _, d := range res.Diagnostics {
		if len(d) != 2 || d["code"] == "" || d["message"] == "" {
			t.Errorf("diagnostic shape %v", d)
		}
		codes[d["code"]] = true
	}
	if !codes["leading_digit"] || !codes["ip_host"] {
		t.Errorf("codes %v", codes)
	}
	// --explain adds the steps.
	_, out, _ = runCLI(t, nil, "names", "--json", "--explain", "tool", "getForecast")
	var withEx struct {
		Explanation []struct{ Title, Value string }
	}
	if err := json.Unmarshal([]byte(out), &withEx); err != nil || len(withEx.Explanation) != 3 || withEx.Explanation[2].Value != "get_forecast" {
		t.Errorf("explanation %+v %v\n%s", withEx, err, out)
	}
	// Names are not HTML-escaped.
	_, out, _ = runCLI(t, nil, "names", "--json", "tool", "<angle>&")
	if !strings.Contains(out, `"display_name":"<angle>&"`) {
		t.Errorf("escaped: %s", out)
	}
}

func TestNamesErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"names", "ref", "http://localhost:8000/mcp", "--remote-tool", "x"},
			"crewbench: Invalid MCP reference: 'http://localhost:8000/mcp'. String references must be an 'https://' URL or a valid slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion').\n"},
		{[]string{"names", "ref", "github#a,b", "--remote-tool", "a"}, "crewbench: Invalid MCP reference: 'github#a,b'."},
		{[]string{"names", "ref", "notion#search", "--remote-tool", "search"}, "needs the config URL"},
		{[]string{"names", "ref", "https://h/mcp"}, "--remote-tool is required"},
		{[]string{"names", "stdio", "--", "python", "s.py"}, "--tool is required"},
		{[]string{"names", "stdio", "--tool", "t", "npx", "-y", "pkg"}, "put the server command after --"},
		{[]string{"names", "url", "http://[::1:8000/sse", "--tool", "t"}, "Invalid IPv6 URL"},
		{[]string{"names", "--scheme", "vscode", "tool", "x"}, "unknown naming scheme"},
		{[]string{"names", "--scheme", "crush", "tool", "x"}, "names MCP tools"},
		{[]string{"names", "tool"}, "requires at least 1 arg"},
	} {
		code, out, errOut := runCLI(t, nil, tc.args...)
		if code == 0 || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want one stderr line containing %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if code, out, _ := runCLI(t, nil, "names"); code != 0 || !strings.Contains(out, "--batch") {
		t.Errorf("bare names prints help: %d %q", code, out)
	}
}

// tsvRow is one row of names/testdata/name-vectors-sample.tsv.
type tsvRow struct {
	kind, inputs, llm, display string
}

func readTSV(t *testing.T) []tsvRow {
	t.Helper()
	data, err := os.ReadFile("names/testdata/name-vectors-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows []tsvRow
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "kind\t") || line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 4 {
			t.Fatalf("bad row %q", line)
		}
		rows = append(rows, tsvRow{c[0], c[1], c[2], c[3]})
	}
	return rows
}

// batchLine turns a TSV row into a --batch input line in the shapes.
func batchLine(t *testing.T, r tsvRow) string {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal([]byte(r.inputs), &in); err != nil {
		t.Fatal(err)
	}
	switch r.kind {
	case "http", "sse":
		in["transport"] = r.kind
	case "tool", "stdio", "string_ref":
	default:
		t.Fatalf("unknown kind %q", r.kind)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type batchOut struct {
	LLMName     *string `json:"llm_name"`
	DisplayName *string `json:"display_name"`
	Status      string  `json:"status"`
	Diagnostics []struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"diagnostics"`
	Error *string `json:"error"`
}

// TestNamesBatchRoundTripsSample feeds every sample row through --batch,
// with malformed lines mixed in, and checks each answer in order.
func TestNamesBatchRoundTripsSample(t *testing.T) {
	rows := readTSV(t)
	if len(rows) != 70 {
		t.Fatalf("%d rows", len(rows))
	}
	var in strings.Builder
	type expect struct {
		row *tsvRow
		err string
	}
	var want []expect
	for i := range rows {
		in.WriteString(batchLine(t, rows[i]) + "\n")
		want = append(want, expect{row: &rows[i]})
		if i == 10 {
			in.WriteString("{not json\n")
			want = append(want, expect{err: "line 12: not a JSON object"})
		}
		if i == 40 {
			in.WriteString(`{"name": "a", "url": "http://h/mcp"}` + "\r\n")
			want = append(want, expect{err: `want exactly one of "name", "command", "url" or "ref", got 2`})
		}
	}
	code, out, errOut := runCLI(t, strings.NewReader(in.String()), "names", "--batch")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d output lines for %d input lines", len(lines), len(want))
	}
	for i, w := range want {
		var got batchOut
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, lines[i])
		}
		if w.err != "" {
			if got.Error == nil || !strings.Contains(*got.Error, w.err) {
				t.Errorf("line %d: %s, want error containing %q", i+1, lines[i], w.err)
			}
			continue
		}
		r := w.row
		if got.Error != nil || got.LLMName == nil || got.DisplayName == nil || got.Diagnostics == nil {
			t.Errorf("line %d (%s %s): %s", i+1, r.kind, r.inputs, lines[i])
			continue
		}
		switch r.llm {
		case "<skipped>":
			if got.Status != "skipped" {
				t.Errorf("line %d: status %q, want skipped", i+1, got.Status)
			}
		case "<not-selected>":
			if got.Status != "not_selected" {
				t.Errorf("line %d: status %q, want not_selected", i+1, got.Status)
			}
		default:
			display := r.display
			if r.kind == "tool" {
				var name struct{ Name string }
				_ = json.Unmarshal([]byte(r.inputs), &name)
				display = name.Name
			}
			if got.Status != "ok" || *got.LLMName != r.llm || *got.DisplayName != display {
				t.Errorf("line %d (%s %s):\n got %s %q %q\nwant ok %q %q", i+1, r.kind, r.inputs, got.Status, *got.LLMName, *got.DisplayName, r.llm, display)
			}
		}
	}
}

func TestNamesBatchMalformed(t *testing.T) {
	input := strings.Join([]string{
		`{"name":"Unit Converter"}`,
		``,
		`[1,2]`,
		`"just a string"`,
		`{"name": 5}`,
		`{"kind":"pipe","name":"x"}`,
		`{"url":"http://h/mcp","transport":"websocket","tool":"t"}`,
		`{"command":"python","args":["s.py"]}`,
		`{"ref":"http://localhost/mcp","remote_tool":"t"}`,
		`{"name":"x"} trailing`,
		`{}`,
		`{"command":"python","args":["servers/inventory.py"],"tool":"lookup_stock"}`,
	}, "\n") // no final newline: the last line still counts
	code, out, errOut := runCLI(t, strings.NewReader(input), "names", "--batch")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	wantErr := []string{"", "line 2: empty line", "line 3: not a JSON object", "line 4: not a JSON object", "line 5: not a JSON object",
		`line 6: unknown "kind" "pipe"`, `line 7: unknown "transport" "websocket"`, "line 8: stdio input needs the remote tool's name",
		"line 9: Invalid MCP reference: 'http://localhost/mcp'.", "line 10: not a JSON object", "line 11: want exactly one of", ""}
	if len(lines) != len(wantErr) {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for i, w := range wantErr {
		var got batchOut
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatalf("line %d not JSON: %s", i+1, lines[i])
		}
		switch {
		case w == "" && got.Error != nil:
			t.Errorf("line %d: unexpected error %s", i+1, *got.Error)
		case w != "" && (got.Error == nil || !strings.HasPrefix(*got.Error, w)):
			t.Errorf("line %d: %s, want error starting %q", i+1, lines[i], w)
		case w != "":
			var keys map[string]json.RawMessage
			_ = json.Unmarshal([]byte(lines[i]), &keys)
			if len(keys) != 1 {
				t.Errorf("line %d: an error object has only \"error\": %s", i+1, lines[i])
			}
		}
	}
	if !strings.Contains(lines[11], `"llm_name":"python_servers_inventory_py_lookup_stock"`) {
		t.Errorf("processing continued wrongly: %s", lines[11])
	}
}

func TestNamesBatchSchemeAndExplain(t *testing.T) {
	in := `{"command":"python","args":["servers/inventory.py"],"tool":"lookup_stock","server":"inventory"}` + "\n"
	_, out, _ := runCLI(t, strings.NewReader(in), "names", "--batch", "--scheme", "claude-code")
	if !strings.Contains(out, `"llm_name":"mcp__inventory__lookup_stock"`) {
		t.Errorf("%s", out)
	}
	_, out, _ = runCLI(t, strings.NewReader(`{"name":"getForecast"}`+"\n"), "names", "--batch", "--explain")
	if !strings.Contains(out, `"explanation":[`) {
		t.Errorf("%s", out)
	}
	if code, _, errOut := runCLI(t, strings.NewReader(in), "names", "--batch", "--scheme", "nope"); code == 0 || !strings.Contains(errOut, "unknown naming scheme") {
		t.Errorf("bad scheme: %d %s", code, errOut)
	}
}

type failingReader struct{ data io.Reader }

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.data.Read(p)
	if errors.Is(err, io.EOF) {
		return n, errors.New("input/output error")
	}
	return n, err
}

func TestNamesBatchUnreadableStdin(t *testing.T) {
	code, out, errOut := runCLI(t, &failingReader{strings.NewReader(`{"name":"a"}` + "\n")}, "names", "--batch")
	if code == 0 || !strings.Contains(errOut, "reading stdin: input/output error") {
		t.Errorf("exit %d stderr %q", code, errOut)
	}
	if !strings.Contains(out, `"llm_name":"a"`) {
		t.Errorf("lines read before the failure are answered: %q", out)
	}
}

func TestNamesBatchLongLine(t *testing.T) {
	long := `{"name":"` + strings.Repeat("x", maxBatchLine) + `"}`
	code, out, _ := runCLI(t, strings.NewReader(long+"\n"+`{"name":"ok"}`+"\n"), "names", "--batch")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "line 1: longer than") || !strings.Contains(lines[1], `"llm_name":"ok"`) {
		t.Errorf("exit %d:\n%.300s", code, out)
	}
}

// TestNamesBatchInteractive drives --batch as a co-process: each answer
// must arrive before the next line is written.
func TestNamesBatchInteractive(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		done <- execute(ctx, []string{"names", "--batch"}, inR, outW, io.Discard)
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for _, name := range []string{"getForecast", "Unit Converter", "HTTPServer"} {
		if _, err := io.WriteString(inW, `{"name":"`+name+`"}`+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := answers.ReadString('\n')
		if err != nil || !strings.Contains(line, `"status":"ok"`) {
			t.Fatalf("answer to %q: %q %v", name, line, err)
		}
	}
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-ctx.Done():
		t.Fatal("batch did not end at EOF")
	}
}
