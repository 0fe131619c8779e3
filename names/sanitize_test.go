package names

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Expected values below were computed with Python 3.11.7 running an
// independent transcription of crewai-semantics.md §1.1 (Python's re is the
// engine CrewAI uses), and agree with every tool row of the golden sample.
var sanitizeCases = []struct{ in, want string }{
	// §1.1 step 1: NFKD keeps ASCII decompositions, drops everything else.
	{"é", "e"}, {"ﬁ", "fi"}, {"Ａ", "a"}, {"x²", "x2"}, {"①", "1"}, {"Ⅻ", "xii"},
	{"™", "tm"}, {"℃", "c"}, {"𝐁", "b"}, {"a\u00a0b", "a_b"}, {"ÀÉÎ", "aei"},
	{"天气预报", ""}, {"😀", ""}, {"Ø", ""}, {"Œuvre", "uvre"}, {"a\u200bb", "ab"},
	// Deleting joins words or creates camel boundaries.
	{"data☕set", "dataset"}, {"caf☕Bar", "caf_bar"},
	// Steps 2–3, in order; digits never split.
	{"HTTPServer", "http_server"}, {"ABCs", "ab_cs"}, {"ABcDEf", "a_bc_d_ef"},
	{"OAuth2Token", "o_auth2token"}, {"version2Beta", "version2beta"}, {"S3Bucket", "s3bucket"},
	{"APIv2", "ap_iv2"}, {"URLs", "ur_ls"}, {"lowerUPPERlower", "lower_uppe_rlower"},
	{"getHTTPResponseCode", "get_http_response_code"}, {"MCPServer2Go", "mcp_server2go"},
	{"iPhone", "i_phone"}, {"IPv6Address", "i_pv6address"}, {"A", "a"}, {"AB", "ab"},
	{"ABc", "a_bc"}, {"aBC", "a_bc"}, {"aBCd", "a_b_cd"}, {"snake_case_Name", "snake_case_name"},
	// The Go template trap (§1.3): "$1_$2" would give "geForecast".
	{"getForecast", "get_forecast"},
	// Step 5: quotes are deleted after the camel split, never turned into "_".
	{"Bob's Tool", "bobs_tool"}, {"O'Reilly", "oreilly"}, {"don'tStop", "dont_stop"},
	{"a'B", "ab"}, {"AB'c", "abc"}, {`""`, ""}, {"Read a file's content", "read_a_files_content"},
	// Steps 6–8.
	{"a__b", "a_b"}, {"a_-_b", "a_b"}, {"a . b", "a_b"}, {"__init__", "init"}, {"!!!", ""},
	{"x\ty\nz", "x_y_z"}, {"3D Render", "3d_render"}, {"List files in directory", "list_files_in_directory"},
	// Step 9: exactly 64 is kept; 65 is hashed; a "_" at position 55 is stripped (63 chars).
	{strings.Repeat("x", 64), strings.Repeat("x", 64)},
	{strings.Repeat("x", 65), strings.Repeat("x", 55) + "_9537c5fd"},
	{strings.Repeat("a_", 40), strings.Repeat("a_", 27) + "a_fd5b3654"},
}

func TestSanitize(t *testing.T) {
	for _, tc := range sanitizeCases {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got, _ := SanitizeStages(tc.in); got != tc.want {
			t.Errorf("SanitizeStages(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSanitizeTemplateTrap proves the trap of §1.3 is real in Go, so the
// reference's "${1}_${2}" is not an accident.
func TestSanitizeTemplateTrap(t *testing.T) {
	if got := camelSplit.ReplaceAllString("getForecast", "$1_$2"); got != "geForecast" {
		t.Fatalf(`"$1_$2" gave %q; the trap this test documents is gone`, got)
	}
	if got := camelSplit.ReplaceAllString("getForecast", splitTemplate); got != "get_Forecast" {
		t.Fatalf("splitTemplate gave %q", got)
	}
}

func TestSanitizeStagesRecordsEveryStep(t *testing.T) {
	out, stages := SanitizeStages("npx_-y_@modelcontextprotocol/server-filesystem_./data_list_allowed_directories")
	want := []string{StageFold, StageAcronym, StageCamel, StageLower, StageQuotes, StageSeparator, StageCollapse, StageStrip, StageTruncate}
	if len(stages) != len(want) {
		t.Fatalf("%d stages, want %d", len(stages), len(want))
	}
	for i, s := range stages {
		if s.Name != want[i] {
			t.Errorf("stage %d = %q, want %q", i, s.Name, want[i])
		}
	}
	if stages[len(stages)-1].Output != out || out != "npx_y_modelcontextprotocol_server_filesystem_data_list_4ab656ee" {
		t.Errorf("last stage %q, result %q", stages[len(stages)-1].Output, out)
	}
	if _, short := SanitizeStages("search"); len(short) != 8 {
		t.Errorf("a short name has %d stages, want 8 (no truncation stage)", len(short))
	}
}

func TestSanitizeAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize("lookup_stock") }); n != 0 {
		t.Errorf("an already-sanitized name costs %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize("Get Weather Forecast For City") }); n > 1 {
		t.Errorf("a short ASCII name costs %v allocations, want ≤ 1", n)
	}
}

var sanitizedShape = regexp.MustCompile(`^([a-z0-9]+(_[a-z0-9]+)*)?$`)

// checkSanitized asserts every property §1.2 promises for one input.
func checkSanitized(t *testing.T, in string) {
	t.Helper()
	got := Sanitize(in)
	ref, stages := SanitizeStages(in)
	if got != ref {
		t.Fatalf("fast %q != reference %q for %q", got, ref, in)
	}
	if !sanitizedShape.MatchString(got) {
		t.Fatalf("Sanitize(%q) = %q does not match %s", in, got, sanitizedShape)
	}
	if len(got) > MaxLength {
		t.Fatalf("Sanitize(%q) is %d long", in, len(got))
	}
	if again := Sanitize(got); again != got {
		t.Fatalf("not idempotent: %q → %q → %q", in, got, again)
	}
	pre := stages[7].Output // after strip, before truncation
	if stages[7].Name != StageStrip {
		t.Fatalf("stage 7 is %q", stages[7].Name)
	}
	if len(pre) <= MaxLength {
		if got != pre || len(stages) != 8 {
			t.Fatalf("%q (%d ≤ 64 before truncation) was changed to %q", pre, len(pre), got)
		}
		return
	}
	sum := sha256.Sum256([]byte(pre))
	wantTail := "_" + hex.EncodeToString(sum[:])[:8]
	if !strings.HasSuffix(got, wantTail) || got != strings.TrimRight(pre[:55], "_")+wantTail {
		t.Fatalf("%q (%d > 64) truncated to %q, want 55-char prefix + %q", pre, len(pre), got, wantTail)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, tc := range sanitizeCases {
		f.Add(tc.in)
	}
	for _, s := range []string{"", "\xff\xfe", "a\u0301", "ǅungla", "ﾃｽﾄ", "ﬃ", "A'B\"C", strings.Repeat("AbC", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { checkSanitized(t, in) })
}

// benchInputs are every string the sample rows sanitize: tool names, remote
// names and display names.
func benchInputs(b *testing.B) []string {
	var out []string
	for _, v := range loadVectors(b) {
		for _, s := range []string{v.in.Name, v.in.Tool, v.in.RemoteTool, v.wantDisplay} {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

var sink string

// BenchmarkSanitize measures the sanitizer over every string of the sample
// rows (one op = the whole set; ns/op and allocs/op from the timed loop).
// It then reports the sanitizer's speed relative to two baselines over the
// same inputs in the same run: strings.ToLower (x_tolower) and the regexp
// reference (x_regexp). The ratios come from interleaved rounds, so load
// from other processes on a shared machine hits both sides alike.
func BenchmarkSanitize(b *testing.B) {
	inputs := benchInputs(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range inputs {
			sink = Sanitize(s)
		}
	}
	b.StopTimer()
	run := func(f func(string) string, ops int) time.Duration {
		start := time.Now()
		for range ops {
			for _, s := range inputs {
				sink = f(s)
			}
		}
		return time.Since(start)
	}
	reference := func(s string) string { out, _ := SanitizeStages(s); return out }
	ops := max(b.N/20, 1)
	var fast, lower, ref time.Duration
	var refOps int
	for range 10 {
		fast += run(Sanitize, ops)
		lower += run(strings.ToLower, ops)
		refOps += max(ops/50, 1) // the reference is ~50–100× slower
		ref += run(reference, max(ops/50, 1))
	}
	perFast := float64(fast) / float64(10*ops)
	b.ReportMetric(perFast/(float64(lower)/float64(10*ops)), "x_tolower")
	b.ReportMetric(perFast/(float64(ref)/float64(refOps)), "x_regexp")
	b.ReportMetric(float64(len(inputs)), "inputs/op")
}

// BenchmarkSanitizeBaselines reports the two baselines on their own.
func BenchmarkSanitizeBaselines(b *testing.B) {
	inputs := benchInputs(b)
	b.Run("ToLower", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range inputs {
				sink = strings.ToLower(s)
			}
		}
	})
	b.Run("RegexpReference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range inputs {
				sink, _ = SanitizeStages(s)
			}
		}
	})
}
