package names

import (
	"strings"
	"testing"
)

func TestCheckProviderName(t *testing.T) {
	for _, p := range NativeProviders() {
		for _, tc := range []struct {
			name, want string // want "" = accepted
		}{
			{"lookup_stock", ""},
			{"Unit Converter", ""}, // re-sanitized to unit_converter first
			{"_private", ""},
			{"127_0_0_1_8765_mcp_lookup_stock", string(p) + " function name '127_0_0_1_8765_mcp_lookup_stock' must start with a letter or underscore"},
			{"3D Render", string(p) + " function name '3d_render' must start with a letter or underscore"},
			{"天气预报", string(p) + " function name cannot be empty"},
			{"", string(p) + " function name cannot be empty"},
			{strings.Repeat("a", 80), ""}, // sanitizing hashes it to 64 first
		} {
			err := CheckProviderName(p, tc.name)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckProviderName(%s, %q) = %v, want nil", p, tc.name, err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("CheckProviderName(%s, %q) = %v, want %q", p, tc.name, err, tc.want)
			}
		}
	}
}

// TestValidateFunctionName covers the two checks sanitizing makes
// unreachable, on names that skipped it.
func TestValidateFunctionName(t *testing.T) {
	long := "a" + strings.Repeat("b", 64)
	for _, tc := range []struct {
		name, want string
	}{
		{"ok_name", ""},
		{"ok_name\n", ""}, // Python's $ accepts a trailing newline
		{long, "Bedrock function name '" + long + "' exceeds 64 character limit"},
		{"getForecast", "Bedrock function name 'getForecast' contains invalid characters. Only lowercase letters, numbers, and underscores allowed"},
		{"get-forecast", "Bedrock function name 'get-forecast' contains invalid characters. Only lowercase letters, numbers, and underscores allowed"},
		{"éa", "Bedrock function name 'éa' contains invalid characters. Only lowercase letters, numbers, and underscores allowed"}, // é isalpha
		{"-x", "Bedrock function name '-x' must start with a letter or underscore"},
		{"", "Bedrock function name cannot be empty"},
	} {
		err := ValidateFunctionName(Bedrock, tc.name)
		if (tc.want == "") != (err == nil) || (err != nil && err.Error() != tc.want) {
			t.Errorf("ValidateFunctionName(%q) = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNativeProviders(t *testing.T) {
	got := NativeProviders()
	want := []Provider{"OpenAI", "Anthropic", "Azure", "Bedrock", "Gemini"}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("provider %d = %q, want %q (CrewAI's message strings)", i, got[i], want[i])
		}
	}
}

// NativeProviders lists the validating providers in a stable order.
func NativeProviders() []Provider {
	return []Provider{OpenAI, Anthropic, Azure, Bedrock, Gemini}
}
