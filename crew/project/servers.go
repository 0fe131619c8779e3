package project

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"crewbench/mcpconn"
	"crewbench/mcpconn/pyrepr"
	"crewbench/names"
)

func pyStrRepr(s string) string { return pyrepr.Str(s) }

// serverRegistry assigns every distinct server one stable name.
type serverRegistry struct {
	list  []*Server
	byKey map[specKey]*Server
	taken map[string]bool
	// nextSuffix is, per base name, the first "_N" worth trying: every
	// lower one is taken, so 20,000 servers of one package do not probe
	// 20,000² names.
	nextSuffix map[string]int
	// keyBuf and keyEnc are reused by key: json.Marshal would copy every
	// spec's encoding once more, and a string key would keep one more copy
	// of every server.
	keyBuf bytes.Buffer
	keyEnc *json.Encoder
}

// specKey is the SHA-256 of what a declaration starts (see key).
type specKey [sha256.Size]byte

// pendingValue is a server field whose value is not literal (crew.py) or
// uses host variables (mcpServers files). Once the server has its name the
// value becomes an Unresolved with ID "servers.<name>.<field>"; set applies
// a resolved value to the spec.
type pendingValue struct {
	field string
	u     *Unresolved // used once: the server that takes it keeps it
	set   func(s *mcpconn.ServerSpec, v any)
}

// addServer registers s for agent (may be ""). Declarations that describe
// the same server (same spec, same unresolved expressions) collapse into
// one entry unless the source names them (explicit).
func (l *loader) addServer(s *Server, agent string, explicit bool, pending []pendingValue) *Server {
	r := &l.reg
	if r.byKey == nil {
		r.byKey, r.taken, r.nextSuffix = map[specKey]*Server{}, map[string]bool{}, map[string]int{}
	}
	// Only a declaration the source does not name can collapse into another.
	var key specKey
	if !explicit {
		key = r.key(s.Spec, pending)
		if ex := r.byKey[key]; ex != nil {
			ex.addAgent(agent)
			return ex
		}
	}
	name := s.Name
	if name == "" {
		name = deriveServerName(s.Spec)
	}
	name = r.unique(name)
	s.Name, s.Spec.Name, s.Spec.Origin = name, name, s.Pos.String()
	for _, p := range pending {
		u := p.u
		u.ID = "servers." + name + "." + p.field
		got := l.unresolved(u)
		s.Unresolved = append(s.Unresolved, got.ID)
		if got.Resolved && p.set != nil {
			p.set(&s.Spec, got.Value)
		}
	}
	s.addAgent(agent)
	r.list = append(r.list, s)
	if !explicit {
		r.byKey[key] = s
	}
	l.p.Servers = r.list
	return s
}

func (s *Server) addAgent(agent string) {
	if agent == "" {
		return
	}
	for _, a := range s.Agents {
		if a == agent {
			return
		}
	}
	s.Agents = append(s.Agents, agent)
}

func (r *serverRegistry) unique(name string) string {
	if name == "" {
		name = "server"
	}
	if !r.taken[name] {
		r.taken[name] = true
		return name
	}
	for i := max(2, r.nextSuffix[name]); ; i++ {
		n := name + "_" + strconv.Itoa(i)
		if !r.taken[n] {
			r.taken[n] = true
			r.nextSuffix[name] = i + 1
			return n
		}
	}
}

// key identifies what a declaration starts: the spec without its name
// and origin, and the expressions still to resolve.
func (r *serverRegistry) key(s mcpconn.ServerSpec, pending []pendingValue) specKey {
	s.Name, s.Origin = "", ""
	r.keyBuf.Reset()
	if r.keyEnc == nil {
		r.keyEnc = json.NewEncoder(&r.keyBuf)
	}
	_ = r.keyEnc.Encode(s) // a spec always encodes
	for _, p := range pending {
		r.keyBuf.WriteString("|")
		r.keyBuf.WriteString(p.field)
		r.keyBuf.WriteString("=")
		r.keyBuf.WriteString(p.u.Expr)
	}
	return sha256.Sum256(r.keyBuf.Bytes())
}

var nameJunk = regexp.MustCompile(`[^a-z0-9]+`)

// deriveServerName gives a short, readable handle: for stdio the package or
// script name ("npx -y @modelcontextprotocol/server-filesystem ./data" →
// "filesystem", "python servers/weather.py" → "weather"); for URLs the
// distinctive host label ("https://mcp.notion.so/mcp" → "notion",
// "http://localhost:8765/mcp" → "localhost_8765"); for AMP refs the slug.
// Refs that select one tool add "#tool".
func deriveServerName(s mcpconn.ServerSpec) string {
	var base string
	switch {
	case s.Ref == mcpconn.RefAMP && s.AMPSlug != "":
		base = s.AMPSlug
	case s.Transport == mcpconn.TransportStdio:
		base = stdioHandle(s.Command, s.Args)
	default:
		base = urlHandle(s.URL)
	}
	if s.SelectTool != "" {
		base += "#" + s.SelectTool
	}
	return base
}

var runnerSubcommands = map[string]bool{"run": true, "exec": true, "x": true, "dlx": true, "tool": true, "start": true, "--": true, "fixture": true, "serve": true}

func stdioHandle(command string, args []string) string {
	pick := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if a == "-m" && i+1 < len(args) { // python -m pkg.server
				parts := strings.Split(args[i+1], ".")
				pick = parts[0]
				for j := len(parts) - 1; j >= 0; j-- { // the last part that says something
					if !genericName(parts[j]) {
						pick = parts[j]
						break
					}
				}
				break
			}
			continue
		}
		if runnerSubcommands[a] {
			continue
		}
		pick = a
		break
	}
	if pick == "" {
		pick = command
	}
	h := cleanHandle(pick)
	if h == "" {
		h = cleanHandle(command)
	}
	return h
}

func genericName(s string) bool {
	switch strings.ToLower(s) {
	case "server", "main", "app", "mcp", "index", "__main__":
		return true
	}
	return false
}

// cleanHandle keeps the last path element, drops "@scope/", extensions and
// the usual "mcp-server-" / "server-" / "-mcp" affixes, and lowercases to
// [a-z0-9_].
func cleanHandle(s string) (h string) {
	s = strings.TrimRight(strings.ReplaceAll(s, "\\", "/"), "/")
	if i := strings.Index(s, "@"); i > 0 && !strings.HasPrefix(s, "@") {
		s = s[:i] // pkg@1.2.3
	}
	if strings.HasPrefix(s, "@") {
		if j := strings.LastIndex(s, "@"); j > 0 {
			s = s[:j] // @scope/pkg@latest
		}
	}
	base := path.Base(s)
	if genericName(strings.TrimSuffix(base, path.Ext(base))) {
		if d := path.Base(path.Dir(s)); d != "." && d != "/" && d != "" {
			base = d
		}
	}
	for _, ext := range []string{".py", ".js", ".mjs", ".cjs", ".ts", ".exe", ".sh"} {
		base = strings.TrimSuffix(base, ext)
	}
	h = strings.Trim(nameJunk.ReplaceAllString(strings.ToLower(base), "_"), "_")
	full := h
	defer func() {
		// "mcp_server.py" → "server" says nothing: keep the whole name
		if genericName(h) {
			h = full
		}
	}()
	for _, p := range []string{"mcp_server_", "server_", "mcp_"} {
		if strings.HasPrefix(h, p) && len(h) > len(p) {
			h = h[len(p):]
			break
		}
	}
	for _, suf := range []string{"_mcp_server", "_server", "_mcp"} {
		if strings.HasSuffix(h, suf) && len(h) > len(suf) {
			h = h[:len(h)-len(suf)]
			break
		}
	}
	return h
}

func urlHandle(raw string) string {
	u, err := names.PyURLParse(raw)
	if err != nil || u.Netloc == "" {
		return "remote"
	}
	host := u.Hostname()
	port := ""
	if nl := u.Netloc[strings.LastIndex(u.Netloc, "@")+1:]; strings.Contains(nl, ":") && !strings.HasSuffix(nl, "]") {
		port = nl[strings.LastIndex(nl, ":")+1:]
	}
	if host == "localhost" || isIPHost(host) {
		h := strings.Trim(nameJunk.ReplaceAllString(host, "_"), "_")
		if port != "" {
			h += "_" + port
		}
		return h
	}
	labels := strings.Split(host, ".")
	if len(labels) > 1 {
		labels = labels[:len(labels)-1] // drop the TLD
	}
	for _, lb := range labels {
		switch lb {
		case "www", "mcp", "api", "server", "servers":
			continue
		}
		if h := strings.Trim(nameJunk.ReplaceAllString(lb, "_"), "_"); h != "" {
			return h
		}
	}
	return strings.Trim(nameJunk.ReplaceAllString(host, "_"), "_")
}

func isIPHost(h string) bool {
	if strings.Contains(h, ":") {
		return true
	}
	for _, r := range h {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return h != ""
}

// Server returns the server named name, or nil.
func (p *Project) Server(name string) *Server {
	for _, s := range p.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// ServerNames lists the servers' names in order.
func (p *Project) ServerNames() []string {
	out := make([]string, len(p.Servers))
	for i, s := range p.Servers {
		out[i] = s.Name
	}
	return out
}

// Ready reports whether the server can be connected: every value it needs
// is known. The reason names what is missing and how to supply it.
func (s *Server) Ready(p *Project) (bool, string) {
	for _, id := range s.Unresolved {
		u := p.UnresolvedByID(id)
		if u != nil && !u.Resolved {
			return false, fmt.Sprintf("%s is not known (%s): %s", u.Field, u.Pos, u.Suggestion)
		}
	}
	switch s.Spec.Transport {
	case mcpconn.TransportStdio:
		if s.Spec.Command == "" {
			return false, "no command"
		}
	default:
		if s.Spec.URL == "" {
			return false, "no URL"
		}
	}
	return true, ""
}

// UnresolvedByID returns the Unresolved entry with id, or nil.
func (p *Project) UnresolvedByID(id string) *Unresolved {
	for _, u := range p.Unresolved {
		if u.ID == id {
			return u
		}
	}
	return nil
}
