package writeback

import (
	"fmt"
	"regexp"
	"strings"

	"crewbench/crew/project"
	"crewbench/session"
)

// value is how one env/header/arg/url value is written: literally, or as
// a reference to an environment variable (with text around it).
type value struct {
	literal string
	// env is the variable the value is read from; prefix and suffix are
	// literal text around it ("Bearer " + TOKEN).
	env            string
	prefix, suffix string
	// pyExpr is Python source to write verbatim (an expression crew.py
	// already had, such as f"Bearer {os.getenv('TOKEN')}").
	pyExpr string
}

func (v value) isRef() bool { return v.env != "" }

// json is the value as a JSON string's content: "${X}" for a reference.
func (v value) json() string {
	if v.env == "" {
		return v.literal
	}
	return v.prefix + "${" + v.env + "}" + v.suffix
}

// python is the value as a Python expression.
func (v value) python() string {
	switch {
	case v.pyExpr != "":
		return v.pyExpr
	case v.env == "":
		return pyStr(v.literal)
	case v.prefix == "" && v.suffix == "":
		return fmt.Sprintf("os.environ[%s]", pyStr(v.env))
	}
	return "f" + pyStr(escapeBraces(v.prefix)+"{os.environ['"+v.env+"']}"+escapeBraces(v.suffix))
}

func escapeBraces(s string) string {
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
}

// fStringPrefix reads the literal text before the first {…} of an
// f-string expression: f"Bearer {os.getenv('X')}" → "Bearer ".
var fStringPrefix = regexp.MustCompile(`^[rRfF]{1,2}(["'])([^{"']*)\{`)

// envName turns any text into an environment variable name.
func envName(parts ...string) string {
	s := strings.ToUpper(strings.Join(parts, "_"))
	s = regexp.MustCompile(`[^A-Z0-9]+`).ReplaceAllString(s, "_")
	s = strings.Trim(s, "_")
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "MCP_" + s
	}
	return s
}

// TokenEnvVar is the environment variable an exported config reads a
// server's access token from: the server name in upper case, then _TOKEN
// (weather-mcp → WEATHER_MCP_TOKEN). lint's fixes name the same variable.
func TokenEnvVar(server string) string { return envName(server, "TOKEN") }

// envValueKey finds a .env (or overlay env) variable holding exactly v.
func (x *exporter) envValueKey(v string) string {
	if len(v) < 4 {
		return ""
	}
	if x.p.Env != nil {
		for _, k := range x.p.Env.Keys() {
			if ev, ok := x.p.Env.Lookup(k); ok && ev == v {
				return k
			}
		}
	}
	if x.p.Overlay != nil {
		for k, ev := range x.p.Overlay.Env {
			if ev == v {
				return k
			}
		}
	}
	return ""
}

// fieldValue decides how a server's env or header value is written. field
// is "env" or "headers".
func (x *exporter) fieldValue(s *project.Server, field, key, v string) value {
	id := "servers." + s.Name + "." + field + "." + key
	if u := x.p.UnresolvedByID(id); u != nil {
		out := value{pyExpr: u.Expr, env: u.EnvVar}
		x.notePyExpr(s, field+"."+key, u)
		if m := fStringPrefix.FindStringSubmatch(u.Expr); m != nil {
			out.prefix = m[2]
		}
		if out.env == "" {
			if !secretish(field, key, v) && u.Resolved {
				out.literal = v
				return out
			}
			out.env = envName(s.Name, key)
			x.noteJSON("%s %s.%s is %s in the project; the export reads it from $%s instead", s.Name, field, key, u.Expr, out.env)
		}
		return out
	}
	// the value, or its credential after an auth scheme, came from .env
	scheme := session.AuthPrefix(v)
	if k := x.envValueKey(v[len(scheme):]); k != "" {
		return value{env: k, prefix: scheme}
	}
	if !secretish(field, key, v) {
		return value{literal: v}
	}
	name := key
	if field == "headers" {
		name = TokenEnvVar(s.Name)
		if !strings.EqualFold(key, "Authorization") {
			name = envName(s.Name, key)
		}
	}
	name = envName(name)
	x.note("%s %s.%s holds a credential: the export reads it from $%s (set it in .env or your environment)", s.Name, field, key, name)
	return value{env: name, prefix: scheme}
}

// secretish reports whether a value must not be written literally.
func secretish(field, key, v string) bool {
	if session.IsPlaceholder(v) {
		return false
	}
	switch field {
	case "env":
		if session.IsSecretName(key) {
			return true
		}
	case "headers":
		if session.IsSecretHeader(key) {
			return true
		}
	}
	return session.IsSecretValue(v) || session.RedactString(v) != v
}

// freeValue is a URL or an argument: secrets inside it (a token in the
// query, --api-key=…) become references; the rest stays literal.
func (x *exporter) freeValue(s *project.Server, what, v string, redact func(string) string) value {
	id := "servers." + s.Name + "." + what
	if u := x.p.UnresolvedByID(id); u != nil {
		out := value{pyExpr: u.Expr, env: u.EnvVar}
		x.notePyExpr(s, what, u)
		if out.env == "" {
			if u.Resolved && redact(v) == v {
				return value{literal: v, pyExpr: u.Expr}
			}
			out.env = envName(s.Name, what)
			x.noteJSON("%s %s is %s in the project; the export reads it from $%s instead", s.Name, what, u.Expr, out.env)
		}
		return out
	}
	if k := x.envValueKey(v); k != "" {
		return value{env: k}
	}
	red := redact(v)
	if red == v {
		return value{literal: v}
	}
	i := strings.Index(red, session.Redacted)
	name := envName(s.Name, what, "SECRET")
	x.note("%s %s holds a credential: the export reads it from $%s (set it in .env or your environment)", s.Name, what, name)
	rest := red[i+len(session.Redacted):]
	// only the first secret becomes a reference; any other is dropped
	rest = strings.ReplaceAll(rest, session.Redacted, "")
	return value{env: name, prefix: red[:i], suffix: rest}
}

func redactArg(s string) string { return session.RedactString(s) }
func redactURL(s string) string { return session.RedactURL(s) }

// notePyExpr tells the user that a Python expression copied from crew.py
// needs its names where the snippet is pasted.
func (x *exporter) notePyExpr(s *project.Server, field string, u *project.Unresolved) {
	if x.format == FormatPython && u.EnvVar == "" {
		x.note("%s %s is %s as written in crew.py: define it where you paste this", s.Name, field, u.Expr)
	}
}
