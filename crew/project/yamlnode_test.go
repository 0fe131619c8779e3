package project

import (
	"strings"
	"testing"
)

// YAML encoding errors point at the offending byte, and a second document
// is an error rather than silently ignored.
func TestYAMLErrorsHaveALine(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"a: 1\nb: \xff\n", "f.yaml:2:4: invalid YAML: invalid leading UTF-8 octet"},
		{"a: 1\nb: \x01\n", "f.yaml:2:4: invalid YAML: control characters are not allowed"},
		{"a: 1\n\nc: \xc3\x28\n", "f.yaml:3:4: invalid YAML: invalid trailing UTF-8 octet"},
		{"a: 1\n---\nb: 2\n", "f.yaml:3:1: a second YAML document (after ---)"},
		{"a: 1\n---\nb: [\n", "f.yaml:3: invalid YAML"},
	} {
		_, err := parseYAMLDoc([]byte(c.src), "f.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s…", c.src, err, c.want)
		}
	}
	for _, ok := range []string{"", "# only a comment\n", "---\na: 1\n", "a: 1\n...\n", "\xef\xbb\xbfa: 1\n"} {
		if _, err := parseYAMLDoc([]byte(ok), "f.yaml"); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
