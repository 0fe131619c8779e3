package names

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// xcheckScript answers, for each JSON line {"s": …}, what Python itself
// computes: CrewAI's sanitizer transcribed from crewai-semantics.md §1.1
// (Python's re is the engine CrewAI uses), repr(), CrewAI's slug pattern
// and urllib.parse.urlparse.
const xcheckScript = `
import hashlib, json, re, sys, unicodedata
from urllib.parse import urlparse
SLUG = re.compile(r"^(?:crewai-amp:)?[a-zA-Z0-9][a-zA-Z0-9_-]*(?:#[\w-]+)?$")
def sanitize(name, max_length=64):
    s = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s)
    s = s.lower()
    s = re.sub(r"['\"]+", "", s)
    s = re.sub(r"[^a-zA-Z0-9]+", "_", s)
    s = re.sub(r"_+", "_", s)
    s = s.strip("_")
    if len(s) > max_length:
        h = hashlib.sha256(s.encode()).hexdigest()[:8]
        s = s[:max_length - 9].rstrip("_") + "_" + h
    return s
for line in sys.stdin:
    s = json.loads(line)["s"]
    out = {"sanitize": sanitize(s), "repr": repr(s),
           "valid_ref": s.startswith("https://") or bool(SLUG.match(s))}
    try:
        u = urlparse(s)
        out["url"] = [u.netloc, u.path, u.params, u.query, u.fragment, u.hostname or ""]
    except ValueError:
        out["url"] = None
    print(json.dumps(out))
`

type xcheckAnswer struct {
	Sanitize string    `json:"sanitize"`
	Repr     string    `json:"repr"`
	ValidRef bool      `json:"valid_ref"`
	URL      *[]string `json:"url"`
}

// TestAgainstPython compares the port with Python 3.11 on thousands of
// generated strings. It needs python3 3.11.4+ (the version whose urlparse
// CrewAI's vectors were made with) and skips otherwise.
func TestAgainstPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ver, err := exec.CommandContext(ctx, py, "-c", "import sys; print(sys.version.split()[0] if (3, 11, 4) <= sys.version_info < (3, 12) else 'no')").Output()
	if err != nil || strings.TrimSpace(string(ver)) == "no" {
		t.Skipf("python3 is not 3.11.4+ (%v)", err)
	}
	inputs := xcheckInputs(4000)
	var stdin bytes.Buffer
	for _, s := range inputs {
		line, _ := json.Marshal(map[string]string{"s": s})
		stdin.Write(append(line, '\n'))
	}
	cmd := exec.CommandContext(ctx, py, "-c", xcheckScript)
	cmd.Stdin = &stdin
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("python answered %d lines for %d inputs", len(lines), len(inputs))
	}
	fails := 0
	for i, s := range inputs {
		var want xcheckAnswer
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatal(err)
		}
		report := func(what string, got, want any) {
			if fails++; fails <= 20 {
				t.Errorf("%s(%q): Go %q, Python %q", what, s, got, want)
			}
		}
		if got := Sanitize(s); got != want.Sanitize {
			report("sanitize", got, want.Sanitize)
		}
		if got := pyRepr(s); got != want.Repr {
			report("repr", got, want.Repr)
		}
		if got := ValidateMCPRef(s) == nil; got != want.ValidRef {
			report("valid ref", got, want.ValidRef)
		}
		u, err := PyURLParse(s)
		switch {
		case want.URL == nil && err == nil:
			report("urlparse", u, "ValueError")
		case want.URL != nil && err != nil:
			report("urlparse", err.Error(), *want.URL)
		case want.URL != nil:
			got := []string{u.Netloc, u.Path, u.Params, u.Query, u.Fragment, u.Hostname()}
			if strings.Join(got, "\x00") != strings.Join(*want.URL, "\x00") {
				report("urlparse", got, *want.URL)
			}
		}
	}
	t.Logf("%d strings compared with Python %s", len(inputs), strings.TrimSpace(string(ver)))
}

// xcheckInputs generates deterministic strings aimed at the corners: case
// changes, quotes, separators, Unicode that folds or vanishes (all from
// Unicode ≤ 14, where Python 3.11 and x/text agree), URL syntax, refs.
func xcheckInputs(n int) []string {
	r := rand.New(rand.NewPCG(2, 15))
	pieces := []string{
		"a", "b", "z", "A", "B", "Z", "x", "HTTP", "Server", "get", "Forecast", "ID", "s", "2", "0", "9",
		"_", "-", ".", "/", ":", "@", "#", "?", ";", "=", "&", "%", " ", "'", "\"", "\t", "\n", "\r", "\\", "[", "]", "~", ",",
		"é", "ß", "ﬁ", "Ａ", "²", "①", "Ⅻ", "天气", "😀", "\u0301", "\u00a0", "\u200b", "℀", "／", "٣", "Œ", "ǅ", "ｶ", "\u2028", "\x00", "\x7f",
		"crewai-amp:", "notion", "https://", "http://", "//", "ws://", "HTTPS://", "[::1]", "[v1.x]", "[::1", "127.0.0.1", ":8765", "/mcp", "user:pw@", "?api_key=k", "#tool",
	}
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		k := 1 + r.IntN(12)
		if r.IntN(10) == 0 {
			k = 30 + r.IntN(40) // long: truncation
		}
		for range k {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out = append(out, b.String())
	}
	return out
}
