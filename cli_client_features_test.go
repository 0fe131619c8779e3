package main

import (
	"encoding/json"
	"strings"
	"testing"

	"crewbench/fixtures/fixturetest"
)

// smoke against the asks fixture: without flags every request is refused
// (and list_roots hidden); with --elicitation=defaults, --allow-sampling
// and --roots each is answered, sampling by a loopback OpenAI-compatible
// LLM server.
func TestSmokeClientFeatures(t *testing.T) {
	llm := startChatServer(t, "One line.")
	dir := t.TempDir()
	t.Chdir(dir)
	cmd, args := fixturetest.Command("asks")
	base := []string{"smoke", "--no-record", "--json"}
	tail := append([]string{"--"}, append([]string{cmd}, args...)...)

	type report struct {
		Info struct {
			Declared []string `json:"client_capabilities"`
		} `json:"info"`
		Tools []struct {
			Tool    string `json:"tool"`
			Outcome string `json:"outcome"`
			Text    string `json:"text"`
		} `json:"tools"`
	}
	for _, c := range []struct {
		name     string
		flags    []string
		declared string
		want     map[string]string
	}{
		{"nothing declared", nil, "", map[string]string{
			"ask_preferences": "Elicitation not supported: crewbench did not declare this capability on this connection (CrewAI's MCP client declares none); crewbench --elicitation=defaults answers it",
			"summarize":       "Sampling not supported: crewbench did not declare",
		}},
		{"all declared", []string{"--elicitation=defaults", "--allow-sampling", "--sampling-llm", "openai/gpt-4o-mini", "--roots"},
			"elicitation (form),sampling,roots", map[string]string{
				"ask_preferences": `{"action":"accept","content":{"age":36,"color":"green","name":"Ada","score":9.5,"subscribe":true}}`,
				"ask_email":       `{"action":"decline","content":null}`,
				"summarize":       "gpt-4o-mini: One line.",
				"list_roots":      `"uri":"file://` + dir,
			}},
		{"decline", []string{"--elicitation=decline"}, "elicitation (form)", map[string]string{
			"ask_preferences": `{"action":"decline","content":null}`,
		}},
	} {
		all := append(append(append([]string{}, base...), c.flags...), tail...)
		code, out, errs := run(t, all...)
		if code != 0 && code != 3 {
			t.Fatalf("%s: exit %d\n%s\n%s", c.name, code, out, errs)
		}
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if got := strings.Join(rep.Info.Declared, ","); got != c.declared {
			t.Errorf("%s: declared %q, want %q", c.name, got, c.declared)
		}
		texts := map[string]string{}
		for _, tl := range rep.Tools {
			texts[tl.Tool] = tl.Text
		}
		if _, listed := texts["list_roots"]; listed != (c.want["list_roots"] != "") {
			t.Errorf("%s: list_roots listed %v", c.name, listed)
		}
		for tool, want := range c.want {
			if !strings.Contains(texts[tool], want) {
				t.Errorf("%s %s: %q, want %q", c.name, tool, texts[tool], want)
			}
		}
	}
	bodies := llm.Bodies()
	if len(bodies) != 1 {
		t.Fatalf("%d LLM requests, want 1", len(bodies))
	}
	msgs, _ := bodies[0]["messages"].([]any)
	if len(msgs) != 2 || !strings.Contains(jsonText(msgs), "You summarize texts in one line.") || !strings.Contains(jsonText(msgs), "Summarize in one line: ") {
		t.Errorf("LLM request messages: %v", msgs)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// call under a CrewAI policy refuses the feature flags: CrewAI declares no
// client capabilities.
func TestCallFeatureFlagsNeedSessionPolicy(t *testing.T) {
	code, _, errs := run(t, "call", "--no-record", "--stdio", fixtureCommandLine(t, "asks"), "ask_preferences", "--elicitation=defaults")
	if code != exitUsage || !strings.Contains(errs, "need --policy session") {
		t.Errorf("exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "call", "--no-record", "--json", "--policy", "session", "--stdio", fixtureCommandLine(t, "asks"), "ask_preferences", "--elicitation=defaults")
	if code != 0 || !strings.Contains(out, `\"action\":\"accept\"`) {
		t.Errorf("exit %d: %s\n%s", code, out, errs)
	}
}

// tools says what its connection declared (nothing, as CrewAI) and, with
// --compare-capabilities, which tools the server lists only to a client
// declaring elicitation, sampling and roots.
func TestToolsCompareCapabilities(t *testing.T) {
	code, out, errs := run(t, "tools", "--compare-capabilities", "--stdio", fixtureCommandLine(t, "asks"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"client:  declared no capabilities, as CrewAI's client",
		"! listed only to a client that declares elicitation (form), sampling, roots, so CrewAI's agents never see them (CrewAI declares none): list_roots"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "tools", "--json", "--compare-capabilities", "--stdio", fixtureCommandLine(t, "weather"))
	var reps []struct {
		Compared bool     `json:"compared_capabilities"`
		Only     []string `json:"only_listed_with_capabilities"`
	}
	if err := json.Unmarshal([]byte(out), &reps); code != 0 || err != nil || len(reps) != 1 || !reps[0].Compared || len(reps[0].Only) != 0 {
		t.Errorf("weather hides nothing: exit %d %v %+v", code, err, reps)
	}
}
