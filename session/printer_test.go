package session

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run `go test ./session -run %s -update` after checking):\n--- got\n%s\n--- want\n%s", name, t.Name(), got, want)
	}
}

func TestPrinterGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts PrinterOptions
	}{
		{"printer_plain.golden", PrinterOptions{}},
		{"printer_color.golden", PrinterOptions{Color: true}},
		{"printer_verbose.golden", PrinterOptions{Verbose: true}},
		{"printer_width60.golden", PrinterOptions{Width: 60}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", "")
			var buf bytes.Buffer
			p := NewPrinter(&buf, tc.opts)
			demoRun(p)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, buf.Bytes())
			if tc.opts.Width > 0 {
				for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
					if n := len([]rune(l)); n > tc.opts.Width {
						t.Errorf("line longer than %d: %q", tc.opts.Width, l)
					}
				}
			}
			hasANSI := bytes.Contains(buf.Bytes(), []byte("\x1b["))
			if hasANSI != tc.opts.Color {
				t.Errorf("ANSI codes present = %v, want %v", hasANSI, tc.opts.Color)
			}
		})
	}
}

func TestPrinterRespectsNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	var buf bytes.Buffer
	p := NewPrinter(&buf, PrinterOptions{Color: true})
	demoRun(p)
	_ = p.Close()
	if bytes.Contains(buf.Bytes(), []byte("\x1b[")) {
		t.Fatal("NO_COLOR set but the output has ANSI codes")
	}
}

// The same events give the same bytes: output depends on event times only.
func TestPrinterDeterministic(t *testing.T) {
	render := func() string {
		var buf bytes.Buffer
		p := NewPrinter(&buf, PrinterOptions{Verbose: true})
		demoRun(p)
		_ = p.Close()
		return buf.String()
	}
	if a, b := render(), render(); a != b {
		t.Fatalf("two renders differ:\n%s\n---\n%s", a, b)
	}
}

func TestPrinterLines(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	var buf bytes.Buffer
	p := NewPrinter(&buf, PrinterOptions{})
	demoRun(p)
	_ = p.Close()
	out := buf.String()
	for _, want := range []string{
		"→ get_forecast ← getForecast @ weather {\"city\":\"Paris\"}",
		"attempt 1/3 timeout after 1.0s; retrying in 1s",
		"attempt 2/3 ok 300ms",
		"✓ get_forecast ← getForecast @ weather 2.3s → \"Sunny, 21°C\"",
		"✓ get_forecast ← getForecast @ weather 2ms · cache hit",
		"! usage limit reached: get_forecast (2 uses)",
		"! guard: I tried reusing the same input",
		"✗ get_forecast ← getForecast @ weather failed",
		"!! 1 TOOL CALL FAILED — the run reported success anyway",
		"  ✗ get_forecast ← getForecast @ weather: Error executing tool: getForecast failed",
		"✓ succeeded in",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestPrinterFailedRunColorsRed(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	var buf bytes.Buffer
	p := NewPrinter(&buf, PrinterOptions{Color: true})
	c := newFakeClock()
	em := NewEmitter(p).WithClock(c.now, counter("s"))
	em.Emit(Event{Kind: CrewKickoffStarted, Span: "c", Data: map[string]any{KeyCrewName: "x"}})
	c.advance(time.Second)
	em.Emit(Event{Kind: CrewKickoffFailed, Span: "c", Error: "boom"})
	_ = p.Close()
	out := buf.String()
	if !strings.Contains(out, ansiRed+"✗ crew x failed after 1.0s: boom"+ansiReset) {
		t.Errorf("failure line not red:\n%q", out)
	}
	if !strings.Contains(out, "✗ FAILED after 1.0s") {
		t.Errorf("summary does not say FAILED:\n%s", out)
	}
}

// -v shows each JSON-RPC frame as mcpconn emits it: direction, server,
// method, request id and the message text on one line.
func TestPrinterVerboseFrames(t *testing.T) {
	var buf bytes.Buffer
	p := NewPrinter(&buf, PrinterOptions{Verbose: true})
	em := NewEmitter(p)
	em.Emit(Event{Kind: MCPFrame, Server: "weather", Data: map[string]any{KeyDirection: "send", KeyMethod: "tools/call", KeyRequestID: "7",
		KeyFrame: "{\"jsonrpc\":\"2.0\",\"id\":7,\n\"method\":\"tools/call\"}"}})
	em.Emit(Event{Kind: MCPFrame, Server: "weather", Data: map[string]any{KeyDirection: "recv", KeyRequestID: "7", KeyFrame: `{"jsonrpc":"2.0","id":7,"result":{}}`}})
	_ = p.Close()
	out := buf.String()
	for _, want := range []string{
		`⇢ weather tools/call 7 {"jsonrpc":"2.0","id":7, ⏎ "method":"tools/call"}`,
		`⇠ weather 7 {"jsonrpc":"2.0","id":7,"result":{}}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A failed attempt's line takes its retry notice whatever quiet events (the
// server's exit, its stderr) land in between: how fast a loaded machine
// reaps a process must not change the layout. An event that prints a line
// of its own still comes after the attempt line.
func TestPrinterRetryNoticeLayoutIgnoresQuietEvents(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, tc := range []struct {
		name    string
		between []Event
		want    []string
	}{
		{"nothing between", nil, []string{"attempt 1 timeout after 1.0s; retrying in 2s"}},
		{"process exit and stderr between", []Event{
			{Kind: MCPStderr, Span: "att1", Server: "weather", Data: map[string]any{KeyMessage: "bye"}},
			{Kind: MCPProcessExited, Span: "att1", Server: "weather"},
		}, []string{"attempt 1 timeout after 1.0s; retrying in 2s"}},
		{"a printed warning between", []Event{
			{Kind: Warning, Span: "call", Data: map[string]any{KeyMessage: "server is slow"}},
		}, []string{"attempt 1 timeout after 1.0s\n", "! server is slow\n", "↻ retrying in 2s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := NewPrinter(&buf, PrinterOptions{})
			c := newFakeClock()
			em := NewEmitter(p).WithClock(c.now, counter("s"))
			em.Emit(Event{Kind: MCPToolExecutionStarted, Span: "call", Server: "weather", ToolName: "get_forecast"})
			em.Emit(Event{Kind: MCPAttemptStarted, Span: "att1", Parent: "call", Server: "weather", Attempt: 1})
			c.advance(time.Second)
			em.Emit(Event{Kind: MCPAttemptFinished, Span: "att1", Parent: "call", Server: "weather", Attempt: 1,
				Outcome: OutcomeTimeout, Duration: time.Second})
			for _, ev := range tc.between {
				em.Emit(ev)
			}
			em.Emit(Event{Kind: MCPRetryScheduled, Span: "call", Server: "weather", Attempt: 1, Outcome: OutcomeTimeout, Duration: 2 * time.Second})
			_ = p.Close()
			out := buf.String()
			at := 0
			for _, want := range tc.want {
				i := strings.Index(out[at:], want)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", want, out)
				}
				at += i + len(want)
			}
		})
	}
}

// A tool skipped at a breakpoint did not run: its line says so, shows the
// supplied result and no time of its own (as the workbench's trace does).
func TestPrinterSaysASkippedToolWasSkipped(t *testing.T) {
	buf, p, d, crew := printerWithCrew(t)
	tool := d.em.NewSpan()
	d.emit(Event{Kind: ToolUsageStarted, Span: tool, Parent: crew, ToolName: "get_forecast",
		Data: map[string]any{KeyToolArgs: map[string]any{"city": "Paris"}}})
	d.clock.advance(1500 * time.Millisecond) // the user thinking at the breakpoint
	d.emit(Event{Kind: ToolUsageFinished, Span: tool, Parent: crew, ToolName: "get_forecast",
		Data: map[string]any{KeyOutput: "Sunny, canned", KeySkipped: true}})
	ran := d.em.NewSpan()
	d.emit(Event{Kind: ToolUsageStarted, Span: ran, Parent: crew, ToolName: "get_forecast"})
	d.clock.advance(200 * time.Millisecond)
	d.emit(Event{Kind: ToolUsageFinished, Span: ran, Parent: crew, ToolName: "get_forecast",
		Data: map[string]any{KeyOutput: "Rain"}})
	d.emit(Event{Kind: CrewKickoffCompleted, Span: crew, Data: map[string]any{KeyCrewName: "c"}})
	_ = p.Close()
	out := buf.String()
	for _, tc := range []struct{ want, line string }{
		{"✓ get_forecast · skipped at a breakpoint → \"Sunny, canned\"", "the skipped call"},
		{"✓ get_forecast 200ms → \"Rain\"", "a call that ran"},
	} {
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.line, tc.want, out)
		}
	}
	if strings.Contains(out, "1.5s") {
		t.Errorf("the skipped call shows the paused time as its own:\n%s", out)
	}
}

// CrewAI's OpenAI provider reports one refused request with two
// llm_call_failed events for the same call (the react_fallback golden, and
// a watched real run): the trace must show one failed call, not two.
func TestPrinterShowsACallThatFailedTwiceOnce(t *testing.T) {
	buf, p, d, crew := printerWithCrew(t)
	call := d.em.NewSpan()
	d.emit(Event{Kind: LLMCallStarted, Span: call, Parent: crew, Data: map[string]any{KeyModel: "gpt-4o"}})
	d.clock.advance(300 * time.Millisecond)
	for range 2 {
		d.emit(Event{Kind: LLMCallFailed, Span: call, Parent: crew, Outcome: "failed",
			Error: "This model does not support tools.", Data: map[string]any{KeyModel: "gpt-4o"}})
	}
	next := d.em.NewSpan()
	d.emit(Event{Kind: LLMCallStarted, Span: next, Parent: crew, Data: map[string]any{KeyModel: "gpt-4o"}})
	d.emit(Event{Kind: LLMCallCompleted, Span: next, Parent: crew, Data: map[string]any{KeyModel: "gpt-4o"}})
	d.emit(Event{Kind: CrewKickoffCompleted, Span: crew, Data: map[string]any{KeyCrewName: "c"}})
	_ = p.Close()
	out := buf.String()
	if n := strings.Count(out, "✗ chat"); n != 1 {
		t.Errorf("%d failed-call lines, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "does not support tools") {
		t.Errorf("the failed call's line lacks its error:\n%s", out)
	}
}

// printerWithCrew is a plain printer fed by a demo writer whose crew c has
// started: the crew's span is returned.
func printerWithCrew(t *testing.T) (*bytes.Buffer, *Printer, *demoWriter, string) {
	t.Helper()
	t.Setenv("NO_COLOR", "")
	buf := &bytes.Buffer{}
	p := NewPrinter(buf, PrinterOptions{})
	d := newDemoWriter(p)
	crew := d.em.NewSpan()
	d.emit(Event{Kind: CrewKickoffStarted, Span: crew, Data: map[string]any{KeyCrewName: "c"}})
	return buf, p, d, crew
}
