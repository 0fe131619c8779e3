package names

import (
	"errors"
	"strings"
	"testing"
)

const refMessageTail = ". String references must be an 'https://' URL or a valid slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion')."

// Valid and invalid refs, and Python's repr of the invalid ones, as
// Python 3.11.7 computes them with CrewAI's pattern (crewai-semantics §2.3).
func TestValidateMCPRef(t *testing.T) {
	valid := []string{
		"notion", "notion#search", "crewai-amp:notion", "crewai-amp:notion#search",
		"notion\n", "notion#search\n", // Python's $ accepts one trailing newline
		"notion#sé", "notion#٣", "notion#Ⅻ", "notion#²", "notion#a-b_c", // \w is Unicode
		"https://", "https://mcp.example.com/mcp#a,b", "https://h/mcp#",
	}
	for _, ref := range valid {
		if err := ValidateMCPRef(ref); err != nil {
			t.Errorf("ValidateMCPRef(%q) = %v, want nil", ref, err)
		}
	}
	invalid := map[string]string{
		"notion\n\n":                `'notion\n\n'`,
		"notion#a,b":                `'notion#a,b'`,
		"github#a,b":                `'github#a,b'`,
		"notion#":                   `'notion#'`,
		"notion#\u0301":             "'notion#\u0301'", // a combining mark is not \w
		"-notion":                   `'-notion'`,
		"_notion":                   `'_notion'`,
		"notion.so":                 `'notion.so'`,
		"http://localhost:8000/mcp": `'http://localhost:8000/mcp'`,
		"HTTPS://x":                 `'HTTPS://x'`,
		"https:/x":                  `'https:/x'`,
		"localhost:8000":            `'localhost:8000'`,
		"":                          `''`,
		"crewai-amp:":               `'crewai-amp:'`,
		"crewai-amp:#x":             `'crewai-amp:#x'`,
		"no tion":                   `'no tion'`,
		"it's":                      `"it's"`,
		`say "hi"`:                  `'say "hi"'`,
		`both ' and "`:              `'both \' and "'`,
		`back\slash`:                `'back\\slash'`,
		"tab\there":                 `'tab\there'`,
		"\x00\x7f":                  `'\x00\x7f'`,
		"\u00a0\u00ad":              `'\xa0\xad'`,
		"é😀":                        `'é😀'`,
		"\u200b":                    `'\u200b'`,
		"\U000e0001":                `'\U000e0001'`,
		"\u2028":                    `'\u2028'`,
		"notion\r":                  `'notion\r'`,
		"bad\xffbyte":               `'bad\udcffbyte'`, // surrogateescape
	}
	for ref, repr := range invalid {
		err := ValidateMCPRef(ref)
		want := "Invalid MCP reference: " + repr + refMessageTail
		if err == nil || err.Error() != want {
			t.Errorf("ValidateMCPRef(%q) = %v\nwant %s", ref, err, want)
		}
		if !errors.Is(err, ErrInvalidRef) {
			t.Errorf("ValidateMCPRef(%q) does not match ErrInvalidRef", ref)
		}
		if _, err := ParseRef(ref); err == nil {
			t.Errorf("ParseRef(%q) accepted an invalid ref", ref)
		}
	}
}

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		ref  string
		want Ref
	}{
		{"https://mcp.example.com/mcp#lookup_stock", Ref{Kind: RefHTTPS, URL: "https://mcp.example.com/mcp", Tool: "lookup_stock"}},
		{"https://mcp.example.com/mcp", Ref{Kind: RefHTTPS, URL: "https://mcp.example.com/mcp"}},
		{"https://h/mcp#a#b", Ref{Kind: RefHTTPS, URL: "https://h/mcp", Tool: "a#b"}}, // first "#"
		{"https://h/mcp#", Ref{Kind: RefHTTPS, URL: "https://h/mcp"}},
		{"notion", Ref{Kind: RefAMP, Slug: "notion"}},
		{"notion#search", Ref{Kind: RefAMP, Slug: "notion", Tool: "search"}},
		{"crewai-amp:notion#search", Ref{Kind: RefAMP, Slug: "notion", Tool: "search"}},
	} {
		got, err := ParseRef(tc.ref)
		tc.want.Raw = tc.ref
		if err != nil || got != tc.want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", tc.ref, got, err, tc.want)
		}
	}
}

func TestRefSelection(t *testing.T) {
	for _, tc := range []struct {
		tool, remote string
		want         bool
	}{
		{"", "anything", true},
		{"lookup_stock", "lookup_stock", true},
		{"get_forecast", "getForecast", true}, // both sanitize to get_forecast
		{"getForecast", "get_forecast", true},
		{"get_forecast", "get_alerts", false},
		{"a,b", "a", false}, // "#a,b" selects zero tools (seed)
		{"a,b", "a_b", true},
		{"天气", "天气预报", true}, // both sanitize to ""
	} {
		if got := HTTPSRefSelects(tc.tool, tc.remote); got != tc.want {
			t.Errorf("HTTPSRefSelects(%q, %q) = %v, want %v", tc.tool, tc.remote, got, tc.want)
		}
	}
	for _, tc := range []struct {
		tool, display string
		want          bool
	}{
		{"", "mcp_notion_so_sse_anything", true},
		{"search", "mcp_notion_so_sse_search", true},
		{"search", "mcp_notion_so_sse_advanced_search", true}, // suffix match
		{"search", "mcp_notion_so_sse_search_pages", false},
		{"search", "mcp_notion_so_ssesearch", false},
		{"Search", "mcp_notion_so_sse_search", true},
	} {
		if got := AMPRefSelects(tc.tool, tc.display); got != tc.want {
			t.Errorf("AMPRefSelects(%q, %q) = %v, want %v", tc.tool, tc.display, got, tc.want)
		}
	}
}

func TestHTTPSRefTool(t *testing.T) {
	d, l, call := HTTPSRefTool("host_example_com_mcp", "天气")
	if d != "host_example_com_mcp_" || l != "host_example_com_mcp" || call != "" {
		t.Errorf("empty key: %q %q %q (an empty key is not skipped on this path)", d, l, call)
	}
	d, l, call = HTTPSRefTool("api_weather_com_mcp", "getForecast")
	if d != "api_weather_com_mcp_get_forecast" || l != d || call != "get_forecast" {
		t.Errorf("getForecast: %q %q %q (the call goes out under the sanitized key)", d, l, call)
	}
}

// FuzzValidateMCPRef: never panics; an error always carries the exact frame
// and a quoted repr; a valid non-https ref always parses to a slug.
func FuzzValidateMCPRef(f *testing.F) {
	for _, s := range []string{"notion", "notion#a,b", "it's", "\xff", "crewai-amp:x#y", "https://h#t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		err := ValidateMCPRef(ref)
		if err == nil {
			r, perr := ParseRef(ref)
			if perr != nil || (r.Kind == RefAMP && r.Slug == "") {
				t.Fatalf("valid %q parsed to %+v, %v", ref, r, perr)
			}
			return
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "Invalid MCP reference: ") || !strings.HasSuffix(msg, refMessageTail) {
			t.Fatalf("message %q", msg)
		}
		repr := strings.TrimSuffix(strings.TrimPrefix(msg, "Invalid MCP reference: "), refMessageTail)
		if len(repr) < 2 || repr[0] != repr[len(repr)-1] || (repr[0] != '\'' && repr[0] != '"') {
			t.Fatalf("repr %q is not quoted", repr)
		}
		if strings.ContainsAny(repr, "\n\r\t\x00") {
			t.Fatalf("repr %q holds raw control characters", repr)
		}
	})
}
