package session

import (
	"slices"
	"strings"
	"testing"
)

func TestSecretValuesAndRedactorFor(t *testing.T) {
	events := []Event{
		{Kind: MCPConnectionStarted, Data: map[string]any{
			"headers": map[string]string{"Authorization": "Bearer PLANTEDbearer123", "Accept": "application/json"},
			"env":     map[string]any{"GITHUB_TOKEN": "ghp_PLANTEDenv456", "HOME": "/home/u", "AUTH_TYPE": "oauth"},
		}},
		{Kind: ToolUsageStarted, Data: map[string]any{KeyToolArgs: map[string]any{"password": "PLANTED-pw-789", "q": "x"},
			"already": map[string]any{"api_key": Redacted}}},
		// A typed value, as a live engine event holds it.
		{Kind: Warning, Data: map[string]any{"cfg": struct {
			APIKey string `json:"api_key"`
		}{"PLANTEDtyped000"}}},
	}
	got := SecretValues(events)
	slices.Sort(got)
	want := []string{"PLANTED-pw-789", "PLANTEDbearer123", "PLANTEDtyped000", "ghp_PLANTEDenv456"}
	if !slices.Equal(got, want) {
		t.Fatalf("SecretValues = %q, want %q", got, want)
	}
	red := RedactorFor(events)
	text := "the LLM echoed PLANTEDbearer123 and ghp_PLANTEDenv456 and PLANTED-pw-789; auth is oauth"
	out := red.RedactString(text)
	if strings.Contains(out, "PLANTED") || !strings.Contains(out, "auth is oauth") {
		t.Errorf("RedactString = %q", out)
	}
	if DefaultRedactor.RedactString("PLANTEDbearer123") != "PLANTEDbearer123" {
		t.Error("RedactorFor marked values process-wide")
	}
}
