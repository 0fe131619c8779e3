package mcpconn

import (
	"strings"

	"crewbench/names"
	"crewbench/session"
)

// serverSecrets hides one server's own secrets in the texts that quote them
// (its stderr, frames, error texts): the URL with the credentials in it,
// and the values of its secret env vars and credential headers. Redaction
// itself is session's (one mechanism, one marker); this only says which
// values belong to the server. Only those known values are replaced, not
// session's free-text rules: these texts stay what the server and CrewAI
// said (see session.Redactor.RedactMarked), and the recorder applies the
// rules to everything it writes anyway.
type serverSecrets struct {
	url, redactedURL string
	red              *session.Redactor
}

func newServerSecrets(spec ServerSpec) serverSecrets {
	// A password in the URL also reaches names derived from it (CrewAI's
	// server_name, every LLM-visible tool name, span names), which every
	// command prints and records, and a server may echo its secret env
	// values or headers in any result. They are marked process-wide, so no
	// output path has to know which server a text came from.
	session.AddSecretValues(SecretValues(spec)...)
	return serverSecrets{
		url:         spec.URL,
		redactedURL: session.RedactURL(spec.URL),
		red:         session.NewRedactor(SecretValues(spec)...),
	}
}

// SecretValues are the values of spec that must never be shown: its secret
// env and credential header values (session.NamedSecrets) and the password
// in its URL in every form it can take in a name (URLSecrets).
func SecretValues(spec ServerSpec) []string {
	return append(session.NamedSecrets(spec.Env, spec.Headers), URLSecrets(spec.URL)...)
}

// URLSecrets is session.URLSecrets plus the forms CrewAI's sanitizer gives
// the password inside a server or tool name, every step of it included
// (what `names --explain` shows): "pwSecret" reads "pw_Secret", then
// "pw_secret". session knows no names, so it cannot derive them. The
// separators around a password (":" and "@") end a sanitizer run, so its
// form inside a name is the form of the password alone.
func URLSecrets(url string) []string {
	var out []string
	for _, pw := range session.URLSecrets(url) {
		out = append(out, pw)
		_, stages := names.SanitizeStages(pw)
		for _, st := range stages {
			if f := strings.Trim(st.Output, "_"); len(f) >= 6 && f != pw {
				out = append(out, f)
			}
		}
	}
	return out
}

// redact returns text with the server's secrets hidden. The URL is
// replaced whole by its redacted form, so a short password in it (too
// short to mark as a value) is hidden too.
func (s serverSecrets) redact(text string) string {
	if s.url != "" && s.redactedURL != s.url {
		text = strings.ReplaceAll(text, s.url, s.redactedURL)
	}
	return s.red.RedactMarked(text)
}

// RedactText hides spec's secrets in a free-form text that may quote them,
// such as an error message that quotes a URL or a header (see serverSecrets).
func RedactText(spec ServerSpec, text string) string {
	return newServerSecrets(spec).redact(text)
}

// RedactEnv returns a copy of vars with secret-looking values hidden, for
// display (session.Redactor.RedactNamed).
func RedactEnv(vars []EnvVar) []EnvVar {
	out := make([]EnvVar, len(vars))
	for i, v := range vars {
		v.Value = session.DefaultRedactor.RedactNamed(v.Name, v.Value)
		out[i] = v
	}
	return out
}
