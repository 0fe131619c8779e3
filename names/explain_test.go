package names

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func titles(x Explanation) []string {
	var out []string
	for _, s := range x.Steps {
		out = append(out, s.Title)
	}
	return out
}

func TestExplainSteps(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
		want []string
	}{
		{"plain", Input{Kind: KindTool, Name: "getForecast"}, []string{"inputs", "display name", "LLM name"}},
		{"plain dedupe", Input{Kind: KindTool, Name: "search", Dedupe: 2}, []string{"inputs", "display name", "LLM name", "collision suffix"}},
		{"stdio", npxData, []string{"inputs", "server name", "tool key", "display name", "LLM name"}},
		{"skipped", with(inventory, func(i *Input) { i.Tool = "天气" }), []string{"inputs", "server name", "tool key", "skipped"}},
		{"https", Input{Kind: KindRef, Ref: "https://api.weather.com/mcp#get_forecast", Tool: "getForecast"},
			[]string{"inputs", "server name", "tool key", "selection", "display name", "LLM name", "call name"}},
		{"https not selected", Input{Kind: KindRef, Ref: "https://api.weather.com/mcp#get_forecast", Tool: "get_alerts"},
			[]string{"inputs", "server name", "tool key", "selection"}},
		{"amp", Input{Kind: KindRef, Ref: "notion#search", AMPConfigURL: "https://mcp.notion.so/sse", Tool: "search"},
			[]string{"inputs", "server name", "tool key", "display name", "LLM name", "selection"}},
		{"adapter", with(inventory, func(i *Input) { i.Scheme = SchemeAdapter }), []string{"inputs", "server name", "scheme", "LLM name"}},
		{"mcphost", with(inventory, func(i *Input) { i.Scheme = SchemeMCPHost; i.Server = "inv" }), []string{"inputs", "server name", "scheme"}},
	} {
		got := titles(mustResolve(t, tc.in).Explanation)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: steps %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestExplainHash(t *testing.T) {
	r := mustResolve(t, npxData)
	last := r.Explanation.Steps[len(r.Explanation.Steps)-1]
	if last.Title != "LLM name" || last.Value != r.LLMName || last.Input != r.DisplayName {
		t.Fatalf("last step %+v", last)
	}
	h := last.Hash
	if h == nil {
		t.Fatal("no hash detail")
	}
	sum := sha256.Sum256([]byte(h.Full))
	if h.Full != "npx_y_modelcontextprotocol_server_filesystem_data_list_allowed_directories" ||
		h.Hash != hex.EncodeToString(sum[:])[:8] || h.Hash != "4ab656ee" ||
		h.Prefix != "npx_y_modelcontextprotocol_server_filesystem_data_list" || h.Prefix+"_"+h.Hash != r.LLMName {
		t.Errorf("hash detail %+v", h)
	}
	text := r.Explanation.String()
	for _, want := range []string{
		`2. server name = command + "_" + "_".join(args)`,
		"→ npx_-y_@modelcontextprotocol/server-filesystem_./data",
		"(already sanitized: no stage changes it)",
		"non-alphanumeric runs → _",
		`74 > 64 characters: keep "npx_y_modelcontextprotocol_server_filesystem_data_list", append "_" + sha256[:8] "4ab656ee"`,
		"→ npx_y_modelcontextprotocol_server_filesystem_data_list_4ab656ee",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	if mustResolve(t, inventory).Explanation.Steps[4].Hash != nil {
		t.Error("hash detail on an untruncated name")
	}
}

func TestExplainStagesText(t *testing.T) {
	text := mustResolve(t, Input{Kind: KindTool, Name: "Bob's HTTPServer"}).Explanation.String()
	for _, want := range []string{
		"split acronyms ([A-Z]+)([A-Z][a-z])   Bob's HTTP_Server",
		"lowercase                             bob's http_server",
		"delete quotes                         bobs http_server",
		"→ bobs_http_server",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "split camelCase") {
		t.Errorf("unchanged stages must be left out:\n%s", text)
	}
	empty := mustResolve(t, Input{Kind: KindTool, Name: "ﾃｽﾄ"}).Explanation.String()
	if !strings.Contains(empty, `NFKD, then drop non-ASCII             ""`) || !strings.Contains(empty, `→ ""`) {
		t.Errorf("empty result must be visible:\n%s", empty)
	}
}

func TestExplainFunction(t *testing.T) {
	x, err := Explain(inventory)
	if err != nil || x.String() != mustResolve(t, inventory).Explanation.String() {
		t.Errorf("Explain = %v, %v", x, err)
	}
	if _, err := Explain(Input{Kind: KindRef, Ref: "http://x", Tool: "t"}); err == nil {
		t.Error("Explain must fail where Resolve does")
	}
}
