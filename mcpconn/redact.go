package mcpconn

import (
	"net/url"
	"strings"
)

// Redaction lives in these few functions so the shared mechanism that will
// land in `session` can replace them in one place. Everything mcpconn prints
// or emits (headers, environments, URLs, error texts that quote a URL) goes
// through them.

// Redacted replaces a secret value wherever one would be shown.
const Redacted = "<redacted>"

// secretWords mark a variable, header or query parameter as secret when they
// appear anywhere in its upper-cased name.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "SIGNATURE"}

// IsSecretName reports whether a variable, header or query parameter name
// looks like it holds a credential.
func IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return up == "SIG" || up == "PASS" || up == "PWD_HASH"
}

// RedactValue returns value, or Redacted when name looks secret. An
// Authorization-style value keeps its scheme ("Bearer <redacted>") so the
// user can still see which kind of credential is sent.
func RedactValue(name, value string) string {
	if !IsSecretName(name) || value == "" {
		return value
	}
	if scheme, _, ok := strings.Cut(value, " "); ok && isAuthScheme(scheme) {
		return scheme + " " + Redacted
	}
	return Redacted
}

func isAuthScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "digest", "apikey":
		return true
	}
	return false
}

// RedactHeaders returns a copy of h with credential headers redacted.
func RedactHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = RedactValue(k, v)
	}
	return out
}

// RedactURL hides the password in the userinfo and the values of secret-looking
// query parameters. Unparseable input is returned with every query value hidden.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexByte(raw, '?'); i >= 0 {
			return raw[:i] + "?" + Redacted
		}
		return raw
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			changed = true
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k, vs := range q {
			if IsSecretName(k) || strings.EqualFold(k, "key") {
				for i := range vs {
					vs[i] = "xxxxx"
				}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return raw
	}
	// url.URL escapes "<" and ">", so a neutral placeholder is substituted
	// back after encoding.
	return strings.ReplaceAll(u.String(), "xxxxx", Redacted)
}

// RedactText replaces every occurrence of the spec's secret values (secret
// env values, credential header values, the raw URL) in a free-form text,
// such as an error message that quotes a URL or a header.
func RedactText(spec ServerSpec, text string) string {
	if spec.URL != "" {
		if r := RedactURL(spec.URL); r != spec.URL {
			text = strings.ReplaceAll(text, spec.URL, r)
		}
	}
	for k, v := range spec.Headers {
		if IsSecretName(k) && len(v) >= 4 {
			text = strings.ReplaceAll(text, v, RedactValue(k, v))
		}
	}
	for k, v := range spec.Env {
		if IsSecretName(k) && len(v) >= 4 {
			text = strings.ReplaceAll(text, v, Redacted)
		}
	}
	return text
}
