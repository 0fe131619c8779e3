package names

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// prefixBudget is the server-prefix length past which a name has little
// room left for the tool: the seed documents warn that a scoped npx package
// "already uses about 45 characters" of the 64.
const prefixBudget = 45

// prefixDiag reports a server prefix (sanitized server name + "_") longer
// than prefixBudget.
func (r *resolver) prefixDiag(server string) {
	p := sanitizeUntruncated(server)
	if p == "" || len(p)+1 <= prefixBudget {
		return
	}
	left := MaxLength - len(p) - 1
	if left < 0 {
		left = 0
	}
	r.diag(CodeLongPrefix,
		fmt.Sprintf("the server prefix %s_ takes %d of the 64 characters an LLM name may have, leaving %d for tool names; longer ones are cut and hashed", p, len(p)+1, left),
		"shorten the stdio command/args or the URL path, or use MCPServerAdapter, whose names have no prefix")
}

// pathDiag reports absolute or home paths in a stdio server name.
func (r *resolver) pathDiag() {
	parts := append([]string{r.in.Command}, r.in.Args...)
	for _, p := range parts {
		if path := machinePath(p); path != "" {
			r.diag(CodeServerPath,
				fmt.Sprintf("the server name contains the path %q: every tool name of this server carries your filesystem layout to the LLM, and the names differ on each machine (and on a deployment)", path),
				"start the server with a command on PATH and relative paths (e.g. python servers/inventory.py, uvx …, python -m package.server); sys.executable has the same problem")
			return
		}
	}
}

// windowsAbs matches a drive-letter path.
var windowsAbs = regexp.MustCompile(`^[A-Za-z]:[\\/]`)

// machinePath returns the absolute or home path in one stdio word ("" if
// none): the word itself, or the value of a --flag=/path option.
func machinePath(word string) string {
	for _, cand := range []string{word, afterEquals(word)} {
		if cand == "" {
			continue
		}
		if strings.HasPrefix(cand, "/") || strings.HasPrefix(cand, "~") ||
			strings.HasPrefix(cand, `\\`) || windowsAbs.MatchString(cand) {
			return cand
		}
	}
	return ""
}

func afterEquals(s string) string {
	if _, v, ok := strings.Cut(s, "="); ok {
		return v
	}
	return ""
}

// urlDiags reports IP-address hosts and credentials in a server URL.
func (r *resolver) urlDiags(raw string, u PyURL) {
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		r.hostIP, r.hostURL = host, raw
		kind := "an IPv4"
		if a.Is6() {
			kind = "an IPv6"
		}
		r.diag(CodeIPHost,
			fmt.Sprintf("the URL's host %s is %s address: its digits become part of every tool name (a name that starts with them fails native function calling), and the names change whenever the address does", host, kind),
			"use a hostname instead of the IP address"+suggestHostname(raw, host))
	}
	var why []string
	if i := strings.LastIndex(u.Netloc, "@"); i >= 0 {
		why = append(why, "userinfo (user:password@) that becomes part of the server name, so every tool name sent to the LLM contains it")
	}
	if keys := secretQueryKeys(u.Query); len(keys) > 0 {
		why = append(why, fmt.Sprintf("the query parameter %s; the query is dropped from tool names, but the URL with the secret stays in the crew's code and in CrewAI's log messages", strings.Join(keys, ", ")))
	}
	if len(why) > 0 {
		r.diag(CodeCredentialsInURL,
			"the URL carries credentials: "+strings.Join(why, "; and "),
			`keep credentials out of the URL: MCPServerHTTP(url=…, headers={"Authorization": f"Bearer {os.environ['…']}"}), reading the secret from the environment`)
	}
}

// suggestHostname proposes the loopback URL with "localhost", when the IP
// is a loopback address.
func suggestHostname(raw, ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.IsLoopback() {
		return " (a DNS name you control)"
	}
	lit := ip
	if a.Is6() {
		lit = "[" + ip + "]"
	}
	// The host may be written in another case than Hostname() returns.
	if i := strings.Index(strings.ToLower(raw), strings.ToLower(lit)); i >= 0 {
		return fmt.Sprintf(" (e.g. %s)", redactURL(raw[:i]+"localhost"+raw[i+len(lit):]))
	}
	return " (e.g. localhost)"
}

// secretWords mark parameter names whose values must not be shown.
var secretWords = []string{"key", "token", "secret", "password", "passwd", "auth", "signature", "sig", "credential"}

func isSecretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretQueryKeys returns the query parameter names that look like secrets.
func secretQueryKeys(query string) []string {
	var out []string
	for _, kv := range strings.Split(query, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if k != "" && isSecretName(k) {
			out = append(out, k)
		}
	}
	return out
}

// redacted is session.Redacted: the one marker crewbench shows for a
// hidden secret. names is a leaf (it imports nothing from the project, see
// ARCHITECTURE.md), so it keeps this small URL redaction of its own, parsed
// the way CrewAI's urlparse sees the URL; everything else redacts through
// session.
const redacted = "«redacted»"

// redactURL hides the userinfo and secret-looking query values of a URL
// for display. Names derived from the URL are never redacted: they are
// what CrewAI produces.
func redactURL(raw string) string {
	u, err := PyURLParse(raw)
	if err != nil {
		if strings.ContainsAny(raw, "@?") {
			return "(unparsable URL, hidden: it may hold credentials)"
		}
		return raw
	}
	changed := false
	netloc := u.Netloc
	if i := strings.LastIndex(netloc, "@"); i >= 0 {
		netloc, changed = redacted+"@"+netloc[i+1:], true
	}
	query := u.Query
	if query != "" {
		parts := strings.Split(query, "&")
		for i, kv := range parts {
			if k, v, ok := strings.Cut(kv, "="); ok && v != "" && isSecretName(k) {
				parts[i], changed = k+"="+redacted, true
			}
		}
		query = strings.Join(parts, "&")
	}
	if !changed {
		return raw
	}
	// Rebuild from the parts rather than editing raw: urlparse removed
	// tabs and newlines, so the parts need not appear in raw verbatim.
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
	}
	if u.Netloc != "" {
		b.WriteString("//" + netloc)
	}
	b.WriteString(u.Path)
	if u.Params != "" {
		b.WriteString(";" + u.Params)
	}
	if query != "" {
		b.WriteString("?" + query)
	}
	if u.Fragment != "" {
		b.WriteString("#" + u.Fragment)
	}
	return b.String()
}

// quoteList renders args as a Python-like list of quoted strings.
func quoteList(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
