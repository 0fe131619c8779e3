package session

import (
	"encoding/json"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Redacted replaces every secret crewbench would otherwise show or write.
// One marker everywhere (UI, recorder, exports, logs) so a user can grep for
// it and a test can assert on it.
const Redacted = "«redacted»"

// minMarkedValue is the shortest user-marked secret value that is replaced
// in free text. Shorter values ("1", "yes") would shred unrelated text and
// are not credentials anyway; they are still caught by the name rules.
const minMarkedValue = 4

// Redactor hides credentials. Its rules cover credential headers, secret-
// looking names (env vars, map keys, query parameters), URL userinfo
// passwords, bearer tokens and well-known token shapes in free text; on top
// of those it replaces exact values the caller marks with AddValues (e.g.
// the values loaded from a project's .env).
//
// A Redactor made with NewRedactor also applies DefaultRedactor's marked
// values, so process-wide secrets go into the default and per-run secrets
// into a per-run instance. A nil *Redactor behaves like DefaultRedactor.
// Methods are safe for concurrent use and never modify their arguments.
type Redactor struct {
	mu     sync.Mutex
	values map[string]bool
	repl   atomic.Pointer[strings.Replacer] // nil when no values are marked
}

// DefaultRedactor holds the rules and the process-wide marked values. The
// package-level Redact* functions use it.
var DefaultRedactor = &Redactor{values: map[string]bool{}}

// NewRedactor returns a redactor with the standard rules and the given
// marked values.
func NewRedactor(values ...string) *Redactor {
	r := &Redactor{values: map[string]bool{}}
	r.AddValues(values...)
	return r
}

// AddValues marks exact values as secret wherever they appear. Values
// shorter than 4 bytes are ignored (see minMarkedValue).
func (r *Redactor) AddValues(values ...string) {
	if r == nil {
		r = DefaultRedactor
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minMarkedValue || r.values[v] {
			continue
		}
		r.values[v] = true
		added = true
	}
	if !added {
		return
	}
	// Longest first, so a value that contains another is replaced whole.
	all := make([]string, 0, len(r.values))
	for v := range r.values {
		all = append(all, v)
	}
	sort.Slice(all, func(i, j int) bool {
		if len(all[i]) != len(all[j]) {
			return len(all[i]) > len(all[j])
		}
		return all[i] < all[j]
	})
	pairs := make([]string, 0, 2*len(all))
	for _, v := range all {
		pairs = append(pairs, v, Redacted)
	}
	r.repl.Store(strings.NewReplacer(pairs...))
	markedGen.Add(1)
}

// markedGen counts changes to any redactor's marked values: what a
// stringMemo remembers from before a change may be stale.
var markedGen atomic.Uint64

func (r *Redactor) self() *Redactor {
	if r == nil {
		return DefaultRedactor
	}
	return r
}

// RedactMarked replaces only the marked values (this redactor's and the
// default's), leaving the rules out. It is for texts that quote
// configuration on purpose — lint findings, diffs of crew files, an MCP
// server's own error texts — where the rules would also hide what the user
// must see (a "${API_KEY}" placeholder, `api_key=os.environ[...]`), but a
// known secret value must still never appear.
func (r *Redactor) RedactMarked(s string) string { return r.self().replaceMarked(s) }

// replaceMarked replaces this redactor's and the default's marked values.
func (r *Redactor) replaceMarked(s string) string {
	if p := r.repl.Load(); p != nil {
		s = p.Replace(s)
	}
	if r != DefaultRedactor {
		if p := DefaultRedactor.repl.Load(); p != nil {
			s = p.Replace(s)
		}
	}
	return s
}

// --- names ---------------------------------------------------------------

var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"}

// notSecretNames contain a secret word but name something else: CrewAI's
// agent/cache keys (hashes), token counts, and words that start error
// messages ("401 Unauthorized: …", Python's "KeyError: 'city'") which must
// stay readable.
var notSecretNames = map[string]bool{
	"AGENT_KEY": true, "CACHE_KEY": true, "TASK_KEY": true, "AUTHOR": true, "AUTHORS": true,
	"KEYWORDS": true, "TOKEN_COUNT": true, "TOKEN_USAGE": true, "TOKENIZER": true,
	"KEYERROR": true, "UNAUTHORIZED": true, "UNAUTHENTICATED": true, "AUTHENTICATION": true,
	"AUTHORIZED": true, "AUTHENTICATED": true, "AUTHENTICATIONERROR": true, "AUTHORIZATIONERROR": true,
	"AUTHENTICATION_ERROR": true, "AUTHORIZATION_ERROR": true,
	// "needs OAuth: run …" names a protocol, not a credential (OAUTH_TOKEN
	// still is one, by TOKEN).
	"OAUTH": true, "OAUTH2": true,
}

// IsSecretName reports whether an env var, map key or parameter name looks
// like it holds a credential: it contains KEY, TOKEN, SECRET, PASSWORD,
// PASSWD, CREDENTIAL or AUTH (case-insensitive). Token counts such as
// "max_tokens" or "prompt_tokens" and CrewAI's hash keys ("agent_key",
// "cache_key") are not secrets.
func IsSecretName(name string) bool { return secretNameMemo.verdict(name, secretName) }

// nameMemo remembers a verdict per name. Names are the keys of every
// event's data and of every environment, a small set seen again and again
// (a watched run redacts ~30 keys per event); the memo is bounded so
// hostile input cannot grow it.
type nameMemo struct {
	// verdicts is read without a lock and replaced whole, under mu, when a
	// name is added: reads are every key of every event, writes a few
	// dozen per process.
	verdicts atomic.Pointer[map[string]bool]
	mu       sync.Mutex
}

// maxMemoNames bounds a nameMemo.
const maxMemoNames = 4096

func (m *nameMemo) verdict(name string, decide func(string) bool) bool {
	if p := m.verdicts.Load(); p != nil {
		if v, ok := (*p)[name]; ok {
			return v
		}
	}
	v := decide(name)
	if len(name) <= 64 {
		m.mu.Lock()
		old := m.verdicts.Load()
		if old == nil || len(*old) < maxMemoNames {
			next := make(map[string]bool, 1+lenOf(old))
			if old != nil {
				maps.Copy(next, *old)
			}
			next[name] = v
			m.verdicts.Store(&next)
		}
		m.mu.Unlock()
	}
	return v
}

func lenOf(m *map[string]bool) int {
	if m == nil {
		return 0
	}
	return len(*m)
}

var secretNameMemo, secretHeaderMemo nameMemo

func secretName(name string) bool {
	up := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	if notSecretNames[up] || strings.HasSuffix(up, "TOKENS") {
		return false
	}
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	for _, part := range strings.FieldsFunc(up, func(r rune) bool { return r == '_' || r == '.' }) {
		if secretNameParts[part] {
			return true
		}
	}
	return false
}

// secretNameParts are short words that name a credential only as a whole
// part of a name ("DB_PASS", "PG_DSN", "CREDS"), not inside a longer word
// ("PASSTHROUGH", "COMPASS").
var secretNameParts = map[string]bool{"PASS": true, "PWD": true, "CREDS": true, "DSN": true, "PASSPHRASE": true, "PAT": true}

// IsSecretValue reports whether a value looks like a credential by its
// shape alone, whatever it is stored under: a well-known token format
// (sk-…, ghp_…, a JWT, …) or a long random-looking string (20+ characters
// of a token alphabet, mixing letters and digits, high entropy). URLs with
// a password are not included: RedactString keeps their structure and
// hides the password alone.
func IsSecretValue(v string) bool {
	v = strings.TrimSpace(v[len(AuthPrefix(v)):])
	if len(v) < 16 {
		return false
	}
	if m := tokenShapes.FindStringIndex(v); m != nil && m[0] == 0 && m[1] == len(v) {
		return true
	}
	return looksRandom(v)
}

// looksRandom: 20+ bytes of [A-Za-z0-9_+/=-] that mix letters and digits
// as generated tokens do, with at least 3.5 bits of entropy per byte.
func looksRandom(v string) bool {
	if len(v) < 20 {
		return false
	}
	// A path ("/tmp/crewbench-demo-29926-2951167849") mixes letters and
	// digits too; a token rarely starts with "/" or holds two of them.
	if strings.HasPrefix(v, "/") || strings.Count(v, "/") >= 2 {
		return false
	}
	var counts [256]int
	lower, upper, digits := 0, 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z':
			lower++
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= '0' && c <= '9':
			digits++
		case c == '_' || c == '-' || c == '+' || c == '/' || c == '=':
		default:
			return false
		}
		counts[c]++
	}
	// Mixed case and digits (base64, most API keys), or a good share of
	// both letters and digits (hex tokens); words with a number stay out.
	letters := lower + upper
	mixed := lower > 0 && upper > 0 && digits > 0
	if !mixed && (4*digits < len(v) || 4*letters < len(v)) {
		return false
	}
	entropy := 0.0
	n := float64(len(v))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			entropy -= p * math.Log2(p)
		}
	}
	return entropy >= 3.5
}

// URLSecrets returns the password in a URL's userinfo
// ("http://user:pw@host/…") in the forms it can reach output: as written,
// and as it appears in a CrewAI server or tool name derived from the URL
// (lower-cased, every character outside [a-z0-9] turned into "_"); and the
// values of its credential query and fragment parameters, which an HTTP
// client's error repeats. Nil when the URL carries neither.
func URLSecrets(raw string) []string {
	return append(userinfoSecrets(raw), urlParamSecrets(raw)...)
}

func userinfoSecrets(raw string) []string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return nil
	}
	_, pw, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass || pw == "" {
		return nil
	}
	out := []string{pw}
	if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
		out = append(out, dec)
	}
	for _, form := range []string{strings.ToLower(pw), nameForm(pw)} {
		if form != pw && len(form) >= 6 {
			out = append(out, form)
		}
	}
	return out
}

// nameForm is how a string reads inside a sanitized CrewAI name.
func nameForm(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '_'
	}, s)
}

// IsSecretHeader reports whether an HTTP header carries credentials:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key and any
// header whose name looks secret (IsSecretName) or mentions a signature.
func IsSecretHeader(name string) bool { return secretHeaderMemo.verdict(name, secretHeader) }

func secretHeader(name string) bool {
	up := strings.ToUpper(name)
	return IsSecretName(name) || strings.Contains(up, "COOKIE") || strings.Contains(up, "SIGNATURE")
}

// isSecretParam reports whether a URL query (or fragment) parameter carries a
// credential: secret-looking names plus the short names signing schemes use.
func isSecretParam(name string) bool {
	switch strings.ToLower(name) {
	case "sig", "signature", "pwd", "pass", "apikey", "x-amz-signature", "x-goog-signature":
		return true
	}
	return IsSecretName(name)
}

// authSchemes keep their scheme when the credential after them is hidden,
// so a user can still see "Bearer «redacted»" and know what kind was sent.
func authScheme(v string) (scheme string, ok bool) {
	s, _, found := strings.Cut(v, " ")
	if !found {
		return "", false
	}
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "digest", "apikey", "negotiate":
		return s, true
	}
	return "", false
}

// AuthPrefix returns the auth scheme that starts a credential value,
// with the spaces after it ("Bearer " of "Bearer abc"), or "" when v does
// not start with one. v[len(AuthPrefix(v)):] is the credential itself.
func AuthPrefix(v string) string {
	scheme, ok := authScheme(v)
	if !ok {
		return ""
	}
	return v[:len(v)-len(strings.TrimLeft(v[len(scheme):], " "))]
}

// RedactSecretValue hides a value already known to be secret (by its
// name), keeping an auth scheme visible: "Bearer abc" → "Bearer «redacted»".
func RedactSecretValue(v string) string {
	if v == "" {
		return v
	}
	if scheme, ok := authScheme(v); ok {
		return scheme + " " + Redacted
	}
	return Redacted
}

// RedactNamed redacts one value stored under name (an env var, a header, a
// map key): hidden whole when the name looks secret (IsSecretHeader, which
// includes IsSecretName) or the value does (IsSecretValue), otherwise
// treated as free text (which hides URL passwords in place).
func (r *Redactor) RedactNamed(name, value string) string {
	if IsSecretHeader(name) || IsSecretValue(value) {
		return RedactSecretValue(value)
	}
	return r.self().RedactString(value)
}

// placeholderValue matches values that stand for a secret rather than
// being one: "${TOKEN}", "$TOKEN", "${env:X}", "<your-key>", "{{key}}",
// "REPLACE_ME", "your-api-key", "xxx", "***", "…", "dummy".
var placeholderValue = regexp.MustCompile(`(?i)^(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{env:[^}]*\}|\$\{input:[^}]*\}|<[^>]*>|\{\{[^}]*\}\}|replace[_ -]?me|change[_ -]?me|your[_ -].*|todo|xx+|\*+|\.\.\.|…|none|null|dummy|example|test|fake|placeholder)$`)

// IsPlaceholder reports whether a credential value written in a config
// file stands for a secret rather than being one (see placeholderValue),
// or is empty. An auth scheme in front is ignored: "Bearer ${TOKEN}" is a
// placeholder, "Bearer abc123" is not.
func IsPlaceholder(v string) bool {
	v = strings.TrimLeft(v, " \t")
	v = strings.TrimSpace(v[len(AuthPrefix(v)):])
	return v == "" || placeholderValue.MatchString(v)
}

// NamedSecrets returns the values to mark secret (AddValues, NewRedactor)
// from an environment and a set of headers: the values of secret-looking
// variables (IsSecretName) and credential headers (IsSecretHeader), values
// that look secret whatever their name (IsSecretValue), and the passwords
// of URLs inside any value (URLSecrets); for a
// header with an auth scheme ("Bearer abc") the credential alone, so it is
// hidden wherever it is quoted and the scheme stays readable. A placeholder
// ("REPLACE_ME", "<your-key>") is no secret: hiding it would make an
// exported config unreadable where it must be filled in.
func NamedSecrets(env, headers map[string]string) []string {
	var out []string
	for k, v := range env {
		if (IsSecretName(k) || IsSecretValue(v)) && !IsPlaceholder(v) {
			out = append(out, v)
		}
		out = append(out, valueURLSecrets(v)...)
	}
	for k, v := range headers {
		if (IsSecretHeader(k) || IsSecretValue(v)) && !IsPlaceholder(v) {
			out = append(out, v[len(AuthPrefix(v)):])
		}
		out = append(out, valueURLSecrets(v)...)
	}
	return out
}

// valueURLSecrets collects the passwords of the URLs inside a value (a DSN,
// a proxy setting), which may be quoted elsewhere without their URL.
func valueURLSecrets(v string) []string {
	if !strings.Contains(v, "://") {
		return nil
	}
	var out []string
	for _, u := range urlRe.FindAllString(v, -1) {
		out = append(out, URLSecrets(u)...)
	}
	return out
}

// --- maps ----------------------------------------------------------------

// RedactHeaders returns a copy of h with credential header values hidden
// and marked values replaced in the others (RedactNamed).
func (r *Redactor) RedactHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = r.RedactNamed(k, v)
	}
	return out
}

// RedactHeaderLists is RedactHeaders for multi-valued headers (http.Header).
func (r *Redactor) RedactHeaderLists(h map[string][]string) map[string][]string {
	if h == nil {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		c := make([]string, len(vs))
		for i, v := range vs {
			c[i] = r.RedactNamed(k, v)
		}
		out[k] = c
	}
	return out
}

// RedactEnv returns a copy of env with secret-looking variables hidden and
// marked values replaced in the others (RedactNamed).
func (r *Redactor) RedactEnv(env map[string]string) map[string]string {
	return r.RedactHeaders(env)
}

// RedactEnviron is RedactEnv for a "KEY=value" list (os.Environ, exec.Cmd.Env).
func (r *Redactor) RedactEnviron(env []string) []string {
	if env == nil {
		return nil
	}
	out := make([]string, len(env))
	for i, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[i] = k + "=" + r.RedactNamed(k, v)
		} else {
			out[i] = r.RedactString(kv)
		}
	}
	return out
}

// --- URLs ----------------------------------------------------------------

// RedactURL hides the userinfo password, secret query and fragment
// parameters, and marked values. Everything else is kept byte for byte
// (net/url would re-escape the marker and reorder nothing useful). Input
// that is not a URL is treated as free text.
func (r *Redactor) RedactURL(raw string) string {
	r = r.self()
	return r.replaceMarked(r.redactTokens(redactURLParts(raw)))
}

func redactURLParts(raw string) string {
	rest := raw
	var b strings.Builder
	b.Grow(len(raw) + 16)
	if i := strings.Index(rest, "://"); i >= 0 {
		b.WriteString(rest[:i+3])
		rest = rest[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		authority := rest[:end]
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			user := authority[:at]
			if u, _, hasPass := strings.Cut(user, ":"); hasPass {
				b.WriteString(u + ":" + Redacted)
			} else {
				b.WriteString(user)
			}
			b.WriteString(authority[at:])
		} else {
			b.WriteString(authority)
		}
		rest = rest[end:]
	}
	frag := ""
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest, frag = rest[:i], rest[i+1:]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		b.WriteString(rest[:i+1])
		b.WriteString(redactParams(rest[i+1:]))
	} else {
		b.WriteString(rest)
	}
	if frag != "" || strings.Contains(raw, "#") {
		b.WriteByte('#')
		b.WriteString(redactParams(frag))
	}
	return b.String()
}

// redactParams hides the values of secret parameters in "a=1&b=2".
func redactParams(q string) string {
	if q == "" || !strings.Contains(q, "=") {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if isSecretParam(name) {
			parts[i] = k + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// urlParamSecrets returns the values of a URL's credential query and
// fragment parameters ("?api_key=…"), as written and unescaped.
func urlParamSecrets(raw string) []string {
	i := strings.IndexAny(raw, "?#")
	if i < 0 {
		return nil
	}
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(raw[i+1:], "#", "&"), "&") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || v == "" {
			continue
		}
		if name, err := url.QueryUnescape(k); err == nil {
			k = name
		}
		if !isSecretParam(k) {
			continue
		}
		out = append(out, v)
		if dec, err := url.QueryUnescape(v); err == nil && dec != v {
			out = append(out, dec)
		}
	}
	return out
}

// --- free text -------------------------------------------------------------

var (
	urlRe = regexp.MustCompile("[a-zA-Z][a-zA-Z0-9+.-]*://[^\\s\"'<>`]+")
	// bearerRe: an Authorization value quoted anywhere in text.
	bearerRe = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]{6,}=*`)
	// tokenShapes: well-known credential formats (OpenAI/Anthropic sk-…,
	// GitHub ghp_/gho_/ghu_/ghs_/ghr_/github_pat_, Slack xox?-, GitLab
	// glpat-, AWS access key ids, Google API keys, JWTs). tokenPrefixes
	// gate it: the regex only runs on text that contains one.
	tokenShapes   = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9\-]{10,}|glpat-[A-Za-z0-9_\-]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})`)
	tokenPrefixes = []string{"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "glpat-", "AKIA", "AIza", "eyJ"}
	cookieRe      = regexp.MustCompile(`(?i)\b((?:set-)?cookie)(\s*:\s*)([^\r\n]+)`)
	sigParamRe    = regexp.MustCompile(`(?i)([?&;])(sig|signature|pwd|pass)=([^&\s#"']+)`)
)

// RedactString hides credentials in free text: marked values, URL userinfo
// passwords and secret query parameters, "Bearer …"/"Basic …" values,
// well-known token shapes, secret-named assignments (`API_KEY=…`,
// `"token": "…"`, `X-Api-Key: …`) and Cookie headers.
func (r *Redactor) RedactString(s string) string {
	r = r.self()
	if s == "" {
		return s
	}
	s = r.replaceMarked(s)
	if len(s) < 6 {
		return s
	}
	if strings.Contains(s, "://") {
		s = urlRe.ReplaceAllStringFunc(s, redactURLParts)
	}
	s = r.redactTokens(s)
	if strings.ContainsAny(s, "=:") {
		s = redactAssignments(s)
		if containsFold(s, "cookie") {
			s = cookieRe.ReplaceAllString(s, "${1}${2}"+Redacted)
		}
		if strings.Contains(s, "=") && (containsFold(s, "sig") || containsFold(s, "pwd") || containsFold(s, "pass")) {
			s = sigParamRe.ReplaceAllString(s, "${1}${2}="+Redacted)
		}
	}
	return s
}

// redactTokens applies the bearer and token-shape rules.
func (r *Redactor) redactTokens(s string) string {
	if strings.ContainsAny(s, " \t") && (containsFold(s, "bearer") || containsFold(s, "basic")) {
		s = bearerRe.ReplaceAllStringFunc(s, func(m string) string {
			scheme := m
			if i := strings.IndexFunc(m, unicode.IsSpace); i >= 0 {
				scheme = m[:i]
			}
			return scheme + " " + Redacted
		})
	}
	if hasTokenPrefix(s) {
		return tokenShapes.ReplaceAllString(s, Redacted)
	}
	return s
}

// hasTokenPrefix reports whether one of tokenPrefixes occurs in s, in one
// pass: a watched run redacts ~40 strings per event, and a Contains per
// prefix was a tenth of the recorder's time.
func hasTokenPrefix(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenFirstByte[s[i]] {
			continue
		}
		for _, p := range tokenPrefixes {
			if p[0] == s[i] && strings.HasPrefix(s[i:], p) {
				return true
			}
		}
	}
	return false
}

// tokenFirstByte marks the first bytes of tokenPrefixes.
var tokenFirstByte = func() (first [256]bool) {
	for _, p := range tokenPrefixes {
		first[p[0]] = true
	}
	return first
}()

// containsFold reports whether s contains the lower-case ASCII word w in
// any case, without allocating.
func containsFold(s, w string) bool {
	return indexFold(s, w, 0) >= 0
}

// indexFold finds the lower-case ASCII word w in s from byte from on,
// ignoring ASCII case.
func indexFold(s, w string, from int) int {
	if len(w) == 0 {
		return from
	}
	first, upper := w[0], w[0]-'a'+'A'
	for i := from; i+len(w) <= len(s); i++ {
		c := s[i]
		if c != first && c != upper {
			continue
		}
		j := 1
		for ; j < len(w); j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return i
		}
	}
	return -1
}

// assignWords are the secret words that can start a name=value pair.
var assignWords = []string{"key", "token", "secret", "passw", "credential", "auth"}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' }

// redactAssignments hides the value in `name=value`, `name: value`,
// `"name": "value"` and `name="value"` when the name looks secret. It is
// a scanner, not a regex: it only looks around occurrences of the secret
// words, so long prompts without them cost one pass of string search.
func redactAssignments(s string) string {
	type edit struct {
		from, to int
		with     string
	}
	var edits []edit
	seen := map[int]bool{} // names already judged, by start offset
	for _, w := range assignWords {
		for at := indexFold(s, w, 0); at >= 0; at = indexFold(s, w, at+len(w)) {
			start, end := at, at+len(w)
			for start > 0 && isNameByte(s[start-1]) {
				start--
			}
			for end < len(s) && isNameByte(s[end]) {
				end++
			}
			if seen[start] {
				continue
			}
			seen[start] = true
			name := s[start:end]
			i := end
			if i < len(s) && s[i] == '"' {
				i++
			}
			for i < len(s) && isSpaceByte(s[i]) {
				i++
			}
			if i >= len(s) || (s[i] != '=' && s[i] != ':') {
				continue
			}
			colon := s[i] == ':'
			i++
			for i < len(s) && isSpaceByte(s[i]) {
				i++
			}
			if colon && strings.EqualFold(name, "key") {
				// "missing key: city" is prose; "key=…" is a parameter.
				continue
			}
			if !IsSecretName(name) {
				continue
			}
			var vFrom, vTo int
			if i < len(s) && s[i] == '"' {
				vFrom = i + 1
				vTo = vFrom
				for vTo < len(s) && s[vTo] != '"' {
					if s[vTo] == '\\' {
						vTo++
					}
					vTo++
				}
				if vTo > len(s) {
					vTo = len(s)
				}
			} else {
				vFrom = i
				// Keep an auth scheme visible: "Authorization: Bearer «redacted»".
				if j := strings.IndexByte(s[vFrom:], ' '); j > 0 {
					if _, ok := authScheme(s[vFrom : vFrom+j+1]); ok && vFrom+j+1 < len(s) {
						vFrom += j + 1
						for vFrom < len(s) && isSpaceByte(s[vFrom]) {
							vFrom++
						}
					}
				}
				vTo = vFrom
				for vTo < len(s) && !strings.ContainsRune(" \t\r\n\"',;&})]", rune(s[vTo])) {
					vTo++
				}
			}
			v := s[vFrom:vTo]
			if v == "" || isDigits(v) || strings.HasPrefix(v, Redacted) || strings.HasPrefix(v, "//") {
				continue
			}
			edits = append(edits, edit{vFrom, vTo, Redacted})
		}
	}
	if len(edits) == 0 {
		return s
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, e := range edits {
		if e.from < last {
			continue // overlaps an earlier edit
		}
		b.WriteString(s[last:e.from])
		b.WriteString(e.with)
		last = e.to
	}
	b.WriteString(s[last:])
	return b.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// --- events ----------------------------------------------------------------

// RedactEvent returns ev with credentials hidden in its free-text fields
// (Error, ErrorType, TaskName, AgentRole) and everywhere in Data, walked
// recursively: values under secret-looking keys are hidden whole, every
// other string goes through RedactString. Identifiers and tool names are
// left alone. ev.Data is never modified; a changed Data is a new map.
func (r *Redactor) RedactEvent(ev Event) Event { return r.self().redactEvent(ev, nil) }

// redactEvent is RedactEvent remembering long strings' redaction in memo
// (nil: none).
func (r *Redactor) redactEvent(ev Event, memo *stringMemo) Event {
	if memo != nil {
		memo.fresh()
	}
	ev.Error = r.redactStringMemo(ev.Error, memo)
	ev.ErrorType = r.redactStringMemo(ev.ErrorType, memo)
	ev.TaskName = r.redactStringMemo(ev.TaskName, memo)
	ev.AgentRole = r.redactStringMemo(ev.AgentRole, memo)
	// Names are derived from URLs and commands, so a URL password reaches
	// them (in CrewAI's sanitized form too); the free-text rules would
	// shred a long tool name, the marked values are exact.
	ev.Server = r.RedactMarked(ev.Server)
	ev.ToolName = r.RedactMarked(ev.ToolName)
	ev.OriginalToolName = r.RedactMarked(ev.OriginalToolName)
	if ev.Data != nil {
		if v, changed := r.walk("", ev.Data, memo); changed {
			ev.Data = v.(map[string]any)
		}
	}
	return ev
}

// stringMemo remembers what RedactString made of long strings, for one
// goroutine (the recorder's): a watched run's LLM events carry the whole
// conversation so far, so each message's text would be redacted again at
// every later call of its task and agent. The result depends only on the
// text and the marked values (markedGen), so remembering it is exact.
type stringMemo struct {
	gen   uint64
	done  map[string]string
	bytes int
}

const (
	memoMinLen   = 32      // shorter strings cost less to redact than to remember
	memoMaxBytes = 8 << 20 // then the memo starts over
)

func newStringMemo() *stringMemo { return &stringMemo{done: map[string]string{}} }

// fresh forgets everything when marked values changed since it was filled.
func (m *stringMemo) fresh() {
	if g := markedGen.Load(); g != m.gen {
		clear(m.done)
		m.gen, m.bytes = g, 0
	}
}

func (r *Redactor) redactStringMemo(s string, m *stringMemo) string {
	if m == nil || len(s) < memoMinLen {
		return r.RedactString(s)
	}
	if out, ok := m.done[s]; ok {
		return out
	}
	out := r.RedactString(s)
	if m.bytes += len(s) + len(out); m.bytes > memoMaxBytes {
		clear(m.done)
		m.bytes = len(s) + len(out)
	}
	m.done[s] = out
	return out
}

// RedactValue redacts an arbitrary value the way RedactEvent redacts Data;
// name is the key it is stored under ("" for none).
func (r *Redactor) RedactValue(name string, v any) any {
	out, _ := r.self().walk(name, v, nil)
	return out
}

// walk returns the redacted value and whether it differs from v. Maps and
// slices are copied only when something inside them changed. memo, when
// not nil, remembers long strings' redaction.
func (r *Redactor) walk(key string, v any, memo *stringMemo) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, json.Number, time.Time, time.Duration:
		return v, false
	case string:
		var s string
		if key != "" && IsSecretHeader(key) {
			s = RedactSecretValue(x)
		} else {
			s = r.redactStringMemo(x, memo)
		}
		if s == x {
			return v, false // v as it came: boxing s again would allocate
		}
		return s, true
	case []byte:
		s, changed := r.walk(key, string(x), memo)
		if !changed {
			return v, false
		}
		return []byte(s.(string)), true
	case json.RawMessage:
		var decoded any
		if err := json.Unmarshal(x, &decoded); err != nil {
			s, changed := r.walk(key, string(x), memo)
			if !changed {
				return v, false
			}
			b, _ := json.Marshal(s)
			return json.RawMessage(b), true
		}
		out, changed := r.walk(key, decoded, memo)
		if !changed {
			return v, false
		}
		b, err := json.Marshal(out)
		if err != nil {
			return json.RawMessage(`"` + Redacted + `"`), true
		}
		return json.RawMessage(b), true
	case map[string]any:
		return walkMap(r, x, memo)
	case map[string]string:
		return walkMap(r, x, memo)
	case map[string][]string:
		return walkMap(r, x, memo)
	case []any:
		return walkSlice(r, key, x, memo)
	case []string:
		return walkSlice(r, key, x, memo)
	case error:
		s, _ := r.walk(key, x.Error(), memo)
		return s, true
	default:
		// Structs and other types: look at them the way the recorder will
		// write them, as JSON, so nothing escapes the walk.
		b, err := json.Marshal(x)
		if err != nil {
			return v, false
		}
		var decoded any
		if err := json.Unmarshal(b, &decoded); err != nil {
			return v, false
		}
		out, changed := r.walk(key, decoded, memo)
		if !changed {
			return v, false
		}
		return out, true
	}
}

// walkMap walks every value of m under its own key, copying m only when
// something inside changed.
func walkMap[V any](r *Redactor, m map[string]V, memo *stringMemo) (any, bool) {
	var out map[string]V
	for k, val := range m {
		nv, changed := r.walk(k, val, memo)
		if !changed {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		out[k], _ = nv.(V)
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// walkSlice walks every element of s under the slice's key, copying s only
// when something inside changed.
func walkSlice[V any](r *Redactor, key string, s []V, memo *stringMemo) (any, bool) {
	var out []V
	for i, val := range s {
		nv, changed := r.walk(key, val, memo)
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(s)
		}
		out[i], _ = nv.(V)
	}
	if out == nil {
		return s, false
	}
	return out, true
}

// --- package-level shorthands ------------------------------------------------

// RedactString is DefaultRedactor.RedactString.
func RedactString(s string) string { return DefaultRedactor.RedactString(s) }

// RedactURL is DefaultRedactor.RedactURL.
func RedactURL(s string) string { return DefaultRedactor.RedactURL(s) }

// AddSecretValues marks values as secret process-wide (DefaultRedactor).
func AddSecretValues(values ...string) { DefaultRedactor.AddValues(values...) }
