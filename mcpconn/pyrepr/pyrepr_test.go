package pyrepr

import "testing"

func TestStr(t *testing.T) {
	cases := map[string]string{
		"plain":     `'plain'`,
		"it's":      `"it's"`,
		`say "hi"`:  `'say "hi"'`,
		`both '"`:   `'both \'"'`,
		"tab\there": `'tab\there'`,
		"back\\":    `'back\\'`,
	}
	for in, want := range cases {
		if got := Str(in); got != want {
			t.Errorf("Str(%q) = %s, want %s", in, got, want)
		}
	}
}
