package session

import (
	"encoding/json"
	"strings"
)

// Reading a session that was not written by the recorder (an event stream
// from `run --json`, another tool, an old file) can meet a secret twice:
// once under a name that gives it away (an Authorization header, a
// GITHUB_TOKEN env entry) and once in free text (a prompt, a tool result, an
// error) where nothing marks it. The rules catch the first; harvesting the
// values found under secret names and marking them catches every other
// place they appear.

// SecretValues returns the values the events hold under credential-looking
// names (headers, env vars, parameters; see IsSecretHeader), without an
// auth scheme ("Bearer x" gives "x"). Values already redacted, and values
// that do not look like credentials (see credentialLike), are skipped.
func SecretValues(events []Event) []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		v = strings.TrimSpace(v[len(AuthPrefix(v)):])
		if !credentialLike(v) || strings.Contains(v, Redacted) || seen[v] {
			return
		}
		seen[v] = true
		out = append(out, v)
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			if key != "" && IsSecretHeader(key) {
				add(x)
			}
		case map[string]any:
			for k, val := range x {
				walk(k, val)
			}
		case map[string]string:
			for k, val := range x {
				walk(k, val)
			}
		case []any:
			for _, val := range x {
				walk(key, val)
			}
		case []string:
			for _, val := range x {
				walk(key, val)
			}
		case nil, bool, float64, int, int64, json.Number:
		default:
			// Typed values from a live engine: look at their JSON form.
			b, err := json.Marshal(x)
			if err != nil {
				return
			}
			var decoded any
			if json.Unmarshal(b, &decoded) == nil {
				walk(key, decoded)
			}
		}
	}
	for _, ev := range events {
		if ev.Data != nil {
			walk("", ev.Data)
		}
	}
	return out
}

// credentialLike keeps harvesting from marking ordinary words found under
// a secret-looking name ({"auth_type": "bearer"}) and then hiding them all
// over the output: a credential is at least 8 characters, has no spaces, and
// has a digit or a symbol.
func credentialLike(v string) bool {
	if len(v) < 8 || strings.ContainsAny(v, " \t\r\n") {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return true
		}
	}
	return false
}

// RedactorFor returns a redactor that also hides, everywhere, the secret
// values the given sessions hold under credential-looking names.
func RedactorFor(sessions ...[]Event) *Redactor {
	var vals []string
	for _, evs := range sessions {
		vals = append(vals, SecretValues(evs)...)
	}
	return NewRedactor(vals...)
}
