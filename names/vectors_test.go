package names

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vector is one golden row of testdata/name-vectors-sample.tsv, produced by
// running the real CrewAI functions with Python 3.11.7.
type vector struct {
	line        int
	kind        string
	raw         string // the inputs column, verbatim
	in          vectorInputs
	wantLLM     string // or "<skipped>" / "<not-selected>"
	wantDisplay string // empty for kind "tool" (display = name verbatim)
}

// vectorInputs is the JSON of the inputs column.
type vectorInputs struct {
	Name          string   `json:"name"`
	DedupeCounter int      `json:"dedupe_counter"`
	Command       string   `json:"command"`
	Args          []string `json:"args"`
	Tool          string   `json:"tool"`
	URL           string   `json:"url"`
	Ref           string   `json:"ref"`
	RemoteTool    string   `json:"remote_tool"`
	AMPConfigURL  string   `json:"amp_config_url"`
}

const (
	sentinelSkipped     = "<skipped>"
	sentinelNotSelected = "<not-selected>"
)

// loadVectors reads every TSV file in testdata (the sample, and any larger
// set dropped next to it), failing on rows it does not understand.
func loadVectors(t testing.TB) []vector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.tsv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vector files in testdata: %v", err)
	}
	var out []vector
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "kind\t") {
				continue
			}
			cols := strings.Split(line, "\t")
			if len(cols) != 4 {
				t.Fatalf("%s:%d: %d columns, want 4", f, n, len(cols))
			}
			v := vector{line: n, kind: cols[0], raw: cols[1], wantLLM: cols[2], wantDisplay: cols[3]}
			dec := json.NewDecoder(strings.NewReader(cols[1]))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&v.in); err != nil {
				t.Fatalf("%s:%d: inputs: %v", f, n, err)
			}
			out = append(out, v)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// input converts a vector to a Resolve input.
func (v vector) input(t testing.TB) Input {
	t.Helper()
	switch v.kind {
	case "tool":
		return Input{Kind: KindTool, Name: v.in.Name, Dedupe: v.in.DedupeCounter}
	case "stdio":
		return Input{Kind: KindStdio, Command: v.in.Command, Args: v.in.Args, Tool: v.in.Tool}
	case "http":
		return Input{Kind: KindHTTP, URL: v.in.URL, Tool: v.in.Tool}
	case "sse":
		return Input{Kind: KindSSE, URL: v.in.URL, Tool: v.in.Tool}
	case "string_ref":
		return Input{Kind: KindRef, Ref: v.in.Ref, Tool: v.in.RemoteTool, AMPConfigURL: v.in.AMPConfigURL}
	}
	t.Fatalf("line %d: unknown kind %q", v.line, v.kind)
	return Input{}
}

// wantStatus maps the sentinels to statuses.
func (v vector) wantStatus() Status {
	switch v.wantLLM {
	case sentinelSkipped:
		return StatusSkipped
	case sentinelNotSelected:
		return StatusNotSelected
	}
	return StatusOK
}

func TestGoldenVectors(t *testing.T) {
	vs := loadVectors(t)
	if len(vs) < 70 {
		t.Fatalf("only %d vectors loaded; the sample has 70", len(vs))
	}
	for _, v := range vs {
		got, err := Resolve(v.input(t))
		if err != nil {
			t.Errorf("line %d %s %s: %v", v.line, v.kind, v.raw, err)
			continue
		}
		if got.Status != v.wantStatus() {
			t.Errorf("line %d %s %s: status %s, want %s", v.line, v.kind, v.raw, got.Status, v.wantStatus())
			continue
		}
		if got.Status != StatusOK {
			if got.LLMName != "" || got.DisplayName != "" {
				t.Errorf("line %d: %s tool has names %q / %q", v.line, got.Status, got.LLMName, got.DisplayName)
			}
			continue
		}
		if got.LLMName != v.wantLLM {
			t.Errorf("line %d %s %s: LLM name\n got %q\nwant %q", v.line, v.kind, v.raw, got.LLMName, v.wantLLM)
		}
		wantDisplay := v.wantDisplay
		if v.kind == "tool" {
			wantDisplay = v.in.Name
		}
		if got.DisplayName != wantDisplay {
			t.Errorf("line %d %s %s: display name\n got %q\nwant %q", v.line, v.kind, v.raw, got.DisplayName, wantDisplay)
		}
	}
}

// TestGoldenVectorsBuildingBlocks checks the exported building blocks
// against the same rows, independently of Resolve.
func TestGoldenVectorsBuildingBlocks(t *testing.T) {
	for _, v := range loadVectors(t) {
		switch v.kind {
		case "tool":
			got := Sanitize(v.in.Name)
			if v.in.DedupeCounter >= 2 {
				got = CollisionName(got, v.in.DedupeCounter)
			}
			if got != v.wantLLM {
				t.Errorf("line %d: Sanitize(%q) = %q, want %q", v.line, v.in.Name, got, v.wantLLM)
			}
			if ref, _ := SanitizeStages(v.in.Name); v.in.DedupeCounter < 2 && ref != v.wantLLM {
				t.Errorf("line %d: SanitizeStages(%q) = %q, want %q", v.line, v.in.Name, ref, v.wantLLM)
			}
		case "stdio", "http", "sse":
			server := StdioServerName(v.in.Command, v.in.Args)
			if v.kind != "stdio" {
				var err error
				if server, err = URLServerName(v.in.URL); err != nil {
					t.Fatalf("line %d: %v", v.line, err)
				}
			}
			display, llm, skipped := NativeTool(server, v.in.Tool)
			if skipped != (v.wantLLM == sentinelSkipped) {
				t.Errorf("line %d: skipped = %v", v.line, skipped)
				continue
			}
			if !skipped && (display != v.wantDisplay || llm != v.wantLLM) {
				t.Errorf("line %d: NativeTool = %q, %q; want %q, %q", v.line, display, llm, v.wantDisplay, v.wantLLM)
			}
		}
	}
}
