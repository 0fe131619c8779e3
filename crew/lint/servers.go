package lint

import (
	"crewbench/crew/filelimit"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/names"
	"crewbench/session"
)

// sampleTool is the tool name used to show what a server's names look like
// when no real name is known statically (the seed documents' example).
const sampleTool = "lookup_stock"

// deploymentProject reports whether dir holds a project `crewai deploy`
// would ship: a pyproject.toml with a [tool.crewai] table.
func deploymentProject(dir string) bool {
	b, err := filelimit.Read(filepath.Join(dir, "pyproject.toml"), filelimit.Config)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "[tool.crewai]" {
			return true
		}
	}
	return false
}

// inOverlay reports whether pos lies in crewbench.yaml (crewbench's own
// file: deployment and secret rules do not apply there).
func (c *checker) inOverlay(pos project.Pos) bool {
	return c.p.Overlay != nil && pos.File == c.p.Overlay.Path
}

// pythonFile reports whether a position is in a Python source file.
func pythonFile(pos project.Pos) bool { return strings.HasSuffix(pos.File, ".py") }

// jsonFile reports whether a position is in a crew JSON(C) file.
func jsonFile(pos project.Pos) bool {
	return strings.HasSuffix(pos.File, ".jsonc") || strings.HasSuffix(pos.File, ".json")
}

// isMCPServersFile reports whether the server comes from an mcpServers file.
func (c *checker) isMCPServersFile(s *project.Server) bool {
	return c.p.Kind == project.KindMCPServers && jsonFile(s.Pos)
}

// at returns the position of a server field, falling back to the server.
func at(s *project.Server, field string) project.Pos {
	if p := s.Positions.At(field); p.IsValid() {
		return p
	}
	return s.Pos
}

// sampleName is a tool name for showing a server's names: a filter entry
// or #tool selection when there is one, else sampleTool.
func sampleName(s *project.Server) string {
	for _, n := range append(append([]string{}, s.Spec.Filter.Allowed...), s.Spec.Filter.Blocked...) {
		if names.Sanitize(n) != "" {
			return names.Sanitize(n)
		}
	}
	if s.Spec.SelectTool != "" && names.Sanitize(s.Spec.SelectTool) != "" {
		return names.Sanitize(s.Spec.SelectTool)
	}
	return sampleTool
}

// resolveSample names sample on server s the way CrewAI would.
func resolveSample(s *project.Server, tool string) (names.Result, bool) {
	spec := s.Spec
	if spec.Ref == mcpconn.RefAMP && spec.URL == "" {
		return names.Result{}, false
	}
	if spec.Transport == mcpconn.TransportStdio && spec.Command == "" {
		return names.Result{}, false
	}
	if spec.Transport != mcpconn.TransportStdio && spec.URL == "" {
		return names.Result{}, false
	}
	r, err := names.Resolve(mcpconn.NameInput(spec, tool))
	if err != nil {
		return names.Result{}, false
	}
	return r, true
}

func diag(r names.Result, code names.Code) (names.Diagnostic, bool) {
	for _, d := range r.Diagnostics {
		if d.Code == code {
			return d, true
		}
	}
	return names.Diagnostic{}, false
}

// crewAIModel is the model CrewAI would run the agent with (crewbench's
// overlay override does not count: lint is about the CrewAI project).
func (c *checker) crewAIModel(a *project.Agent) string {
	if a.LLM != nil && a.LLM.Model != "" {
		return a.LLM.Model
	}
	for _, k := range []string{"MODEL", "MODEL_NAME", "OPENAI_MODEL_NAME"} {
		if c.p.Overlay != nil {
			if _, ok := c.p.Overlay.Env[k]; ok {
				continue // crewbench's own env, not the project's
			}
		}
		if v, ok := c.p.Getenv(k); ok && v != "" {
			return v
		}
	}
	return "gpt-4.1-mini"
}

// nativeProviders are the providers whose native function calling validates
// tool names (crewai-semantics.md §2.6).
var nativeProviders = map[string]bool{"openai": true, "anthropic": true, "azure": true, "azure_openai": true,
	"bedrock": true, "aws": true, "gemini": true}

// nativeAgents are the agents using server s whose model goes through a
// native provider, as "name (model)".
func (c *checker) nativeAgents(s *project.Server) []string {
	var out []string
	for _, name := range s.Agents {
		a := c.p.Agent(name)
		if a == nil {
			continue
		}
		model := c.crewAIModel(a)
		if prov, _ := llm.ParseModel(model); nativeProviders[prov] {
			out = append(out, fmt.Sprintf("%s (%s)", name, model))
		}
	}
	return out
}

// servers runs the per-server naming, deployment and environment rules.
func (c *checker) servers() {
	for _, s := range c.p.Servers {
		spec := s.Spec
		switch {
		case spec.Transport == mcpconn.TransportStdio:
			c.stdioNaming(s)
			c.stdioDeploy(s)
			c.stdioFiles(s)
			c.stdioEnv(s)
		default:
			c.urlServer(s)
		}
	}
}

// urlServer checks an HTTP/SSE server or string ref: IP hosts, SSE in JSON,
// localhost in a deployment.
func (c *checker) urlServer(s *project.Server) {
	spec := s.Spec
	if spec.URL == "" {
		return
	}
	pos := at(s, "url")
	if r, ok := resolveSample(s, sampleName(s)); ok {
		if d, ok := diag(r, names.CodeIPHost); ok {
			sev := Warning
			msg := d.Message
			if native := c.nativeAgents(s); len(native) > 0 {
				sev = Error
				msg = fmt.Sprintf("%s; tools would reach the LLM as %s, which %s rejects", d.Message, r.LLMName, strings.Join(native, ", "))
			} else if r.LLMName != "" {
				msg = fmt.Sprintf("%s; tools would reach the LLM as %s", d.Message, r.LLMName)
			}
			c.ipServers[s.Name] = true
			c.add(Finding{Code: CodeIPHost, Severity: sev, Pos: pos, Server: s.Name, Message: msg, Fix: d.Fix})
		}
		if d, ok := diag(r, names.CodeNameHashed); ok && !c.hashedServers[s.Name] {
			c.hashedServers[s.Name] = true
			c.add(Finding{Code: CodeNameHashed, Pos: pos, Server: s.Name, Message: d.Message, Fix: d.Fix})
		} else if d, ok := diag(r, names.CodeLongPrefix); ok && !c.hashedServers[s.Name] {
			c.hashedServers[s.Name] = true
			c.add(Finding{Code: CodeNameHashed, Pos: pos, Server: s.Name, Message: d.Message, Fix: d.Fix})
		}
	}
	// An /sse endpoint in a JSON dict: CrewAI speaks streamable HTTP to it.
	if spec.Ref == mcpconn.RefNative && spec.Transport == mcpconn.TransportHTTP && jsonFile(s.Pos) &&
		c.p.Kind != project.KindMCPServers && !s.Positions.Has("type") {
		if u, err := names.PyURLParse(spec.URL); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/sse") {
			c.add(Finding{Code: CodeSSEInJSON, Pos: pos, Server: s.Name,
				Message: fmt.Sprintf("%s looks like an SSE endpoint, but an mcps dict with \"url\" always speaks streamable HTTP", session.RedactURL(spec.URL)),
				Fix:     "declare the server in crew.py as MCPServerSSE(url=…), or point \"url\" at the server's streamable-HTTP endpoint (usually /mcp)"})
		}
	}
	if c.hasOAuthToken != nil && !mcpconn.HasHeader(spec.Headers, "Authorization") && c.hasOAuthToken(spec.URL) {
		c.oauthWarned[s.Name] = true
		c.add(Finding{Code: CodeOAuth, Severity: Warning, Pos: pos, Server: s.Name,
			Message: fmt.Sprintf("crewbench holds an OAuth token for %s, so the server wants one, but the config sends no Authorization header and CrewAI itself will not do the OAuth dance: CrewAI's requests get 401", session.RedactURL(spec.URL)),
			Fix:     oauthFix(s)})
	} else if strings.HasPrefix(strings.ToLower(spec.URL), "https://") && len(spec.Headers) == 0 && spec.Ref == mcpconn.RefNative {
		c.add(Finding{Code: CodeOAuth, Severity: Info, Pos: pos, Server: s.Name,
			Message: fmt.Sprintf("%s is a remote server configured without headers: if it requires OAuth (most hosted MCP servers do), CrewAI itself will not do the OAuth dance", session.RedactURL(spec.URL)),
			Fix:     oauthFix(s)})
	}
	if c.deploy && !c.inOverlay(s.Pos) && !c.isMCPServersFile(s) {
		if host := localHost(spec.URL); host != "" {
			c.add(Finding{Code: CodeNotDeployable, Pos: pos, Server: s.Name,
				Message: fmt.Sprintf("the server is on %s, which a deployment cannot reach (it is this machine, or a temporary tunnel)", host),
				Fix:     "serve it at a stable https:// hostname you control (with auth), or ship it inside the package as a stdio server (python -m <pkg>.server)"})
		}
	}
}

// localHost returns the host when it only works on this machine or through
// a temporary tunnel.
func localHost(raw string) string {
	u, err := names.PyURLParse(raw)
	if err != nil {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") {
		return h
	}
	if a, err := netip.ParseAddr(h); err == nil && (a.IsLoopback() || a.IsPrivate() || a.IsUnspecified()) {
		return h
	}
	for _, t := range []string{".ngrok.io", ".ngrok-free.app", ".ngrok.app", ".trycloudflare.com", ".loca.lt", ".serveo.net"} {
		if strings.HasSuffix(h, t) {
			return h
		}
	}
	return ""
}

// stdioNaming reports absolute paths and hashed names of a stdio server.
func (c *checker) stdioNaming(s *project.Server) {
	r, ok := resolveSample(s, sampleName(s))
	if !ok {
		return
	}
	hashed, isHashed := diag(r, names.CodeNameHashed)
	long, isLong := diag(r, names.CodeLongPrefix)
	example := fmt.Sprintf("a tool named %s reaches the LLM as %s", r.Input.Tool, r.LLMName)
	if d, ok := diag(r, names.CodeServerPath); ok {
		field, paths := absoluteField(s)
		what := "the absolute path " + paths[0]
		if len(paths) > 1 {
			what = "the absolute paths " + strings.Join(paths, " and ")
		}
		msg := fmt.Sprintf("the stdio server uses %s: %s", what, example)
		if isHashed {
			msg += " (cut and hashed: the tool's own name is gone)"
		}
		if c.deploy && !c.inOverlay(s.Pos) {
			msg += "; the path will not exist in a deployment"
		}
		c.hashedServers[s.Name] = true
		c.add(Finding{Code: CodeAbsolutePath, Pos: at(s, field), Server: s.Name, Message: msg,
			Fix: relativeFix(c.p, s, d.Fix)})
		return
	}
	if isHashed || isLong {
		msg := hashed.Message
		if !isHashed {
			msg = long.Message + "; " + example
		}
		fix := hashed.Fix
		if fix == "" {
			fix = long.Fix
		}
		c.hashedServers[s.Name] = true
		c.add(Finding{Code: CodeNameHashed, Pos: at(s, "command"), Server: s.Name, Message: msg, Fix: fix})
	}
}

// absoluteField finds the first command/args field that holds an absolute
// path, and every absolute path of the command line.
func absoluteField(s *project.Server) (string, []string) {
	field := ""
	var paths []string
	note := func(f, p string) {
		if field == "" {
			field = f
		}
		paths = append(paths, p)
	}
	if isAbsPath(s.Spec.Command) {
		note("command", s.Spec.Command)
	}
	for i, a := range s.Spec.Args {
		if isAbsPath(a) {
			note(fmt.Sprintf("args[%d]", i), a)
		} else if _, v, ok := strings.Cut(a, "="); ok && isAbsPath(v) {
			note(fmt.Sprintf("args[%d]", i), v)
		}
	}
	if field == "" {
		return "command", []string{s.Spec.Command}
	}
	return field, paths
}

var windowsAbs = regexp.MustCompile(`^[A-Za-z]:[\\/]`)

func isAbsPath(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, `\\`) || windowsAbs.MatchString(p)
}

// relativeFix proposes the server with a short command and relative paths
// (paths outside the project must be copied into it first).
func relativeFix(p *project.Project, s *project.Server, generic string) string {
	cmd := s.Spec.Command
	if isAbsPath(cmd) {
		cmd = path.Base(strings.ReplaceAll(cmd, `\`, "/"))
		if strings.HasPrefix(cmd, "python") {
			cmd = "python"
		}
	}
	outside := false
	quoted := make([]string, len(s.Spec.Args))
	for i, a := range s.Spec.Args {
		if isAbsPath(a) {
			var in bool
			a, in = relInProject(p.Dir, a)
			outside = outside || !in
		}
		quoted[i] = fmt.Sprintf("%q", a)
	}
	decl := fmt.Sprintf(`{"command": %q, "args": [%s]}`, cmd, strings.Join(quoted, ", "))
	if pythonFile(s.Pos) {
		decl = fmt.Sprintf("MCPServerStdio(command=%q, args=[%s])", cmd, strings.Join(quoted, ", "))
	}
	if outside {
		decl += " with those files shipped inside the project"
	}
	return decl + "; " + generic
}

// relInProject makes an absolute path relative to the project when it lies
// inside it (in = true); otherwise it proposes ./<name>, a path relative to
// where the crew runs, for the file or directory once it is shipped with
// the project.
func relInProject(dir, p string) (string, bool) {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r), true
	}
	p = strings.ReplaceAll(p, `\`, "/")
	return "./" + path.Base(strings.TrimRight(p, "/")), false
}

// notShipped are stdio commands a deployment does not have.
var notShipped = map[string]string{
	"npx": "Node/npx", "bunx": "Bun", "bun": "Bun", "pnpm": "pnpm", "yarn": "Yarn", "node": "Node",
	"deno": "Deno", "docker": "Docker", "podman": "Podman",
}

// stdioDeploy reports commands a deployment lacks.
func (c *checker) stdioDeploy(s *project.Server) {
	if !c.deploy || c.inOverlay(s.Pos) || c.isMCPServersFile(s) {
		return
	}
	base := strings.TrimSuffix(path.Base(strings.ReplaceAll(s.Spec.Command, `\`, "/")), ".exe")
	what, ok := notShipped[strings.ToLower(base)]
	if !ok {
		return
	}
	c.add(Finding{Code: CodeNotDeployable, Pos: at(s, "command"), Server: s.Name,
		Message: fmt.Sprintf("the stdio server runs %q, but a deployment has only what the Python project installs (no %s): the run fails with MCPConnectionError", base, what),
		Fix:     "serve it over HTTP at a stable https:// URL (MCPServerHTTP / a dict with \"url\"), or replace it with a Python server shipped in the package (python -m <pkg>.server)"})
}

var scriptExt = regexp.MustCompile(`\.(py|js|mjs|cjs|ts|sh)$`)

// stdioFiles reports relative script paths that do not exist.
func (c *checker) stdioFiles(s *project.Server) {
	if c.inOverlay(s.Pos) || c.isMCPServersFile(s) {
		return
	}
	for i, a := range s.Spec.Args {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "://") || strings.HasPrefix(a, "@") || isAbsPath(a) || !scriptExt.MatchString(a) {
			continue
		}
		if _, err := os.Stat(filepath.Join(c.p.Dir, filepath.FromSlash(a))); err == nil {
			continue
		}
		c.add(Finding{Code: CodeStdioFile, Pos: at(s, fmt.Sprintf("args[%d]", i)), Server: s.Name,
			Message: fmt.Sprintf("%s does not exist in the project (%s): the server cannot start from here", a, c.p.Dir),
			Fix:     fmt.Sprintf("add %s to the project, or correct the path (it is relative to the directory the crew runs from)", a)})
	}
}

// keyNoise are words in variable names that say nothing about which
// service a key belongs to.
var keyNoise = map[string]bool{"api": true, "key": true, "token": true, "secret": true, "access": true, "personal": true,
	"auth": true, "mcp": true, "server": true, "url": true, "id": true, "client": true, "password": true, "pat": true, "the": true,
	"bearer": true, "app": true, "private": true, "public": true}

// serverNoise are words in stdio command lines that say nothing about the
// service.
var serverNoise = map[string]bool{"npx": true, "uvx": true, "uv": true, "run": true, "python": true, "python3": true, "node": true,
	"server": true, "mcp": true, "modelcontextprotocol": true, "y": true, "m": true, "py": true, "js": true, "latest": true,
	"servers": true, "src": true, "main": true, "index": true, "app": true, "bin": true, "dist": true}

var wordSplit = regexp.MustCompile(`[^A-Za-z0-9]+`)

func words(s string, noise map[string]bool) []string {
	var out []string
	for _, w := range wordSplit.Split(strings.ToLower(s), -1) {
		if len(w) >= 3 && !noise[w] {
			out = append(out, w)
		}
	}
	return out
}

// stdioEnv reports keys of .env (or the environment) that a stdio server
// evidently needs but will not see, because its env does not name them.
func (c *checker) stdioEnv(s *project.Server) {
	spec := s.Spec
	if spec.InheritEnv || c.inOverlay(s.Pos) {
		return
	}
	var keys []string
	if c.p.Env != nil {
		keys = c.p.Env.Keys()
	}
	serverWords := map[string]bool{}
	for _, w := range words(spec.Command+" "+strings.Join(spec.Args, " ")+" "+s.Name, serverNoise) {
		serverWords[w] = true
	}
	reported := map[string]bool{}
	report := func(key, why string) {
		if reported[key] {
			return
		}
		if _, ok := spec.Env[key]; ok {
			return
		}
		reported[key] = true
		c.add(Finding{Code: CodeStdioMissingEnv, Pos: at(s, "command"), Server: s.Name,
			Message: fmt.Sprintf("%s %s, but the stdio server gets only HOME, LOGNAME, PATH, SHELL, TERM, USER and its own env, which does not name %s", key, why, key),
			Fix:     c.envFix(s, key)})
	}
	// the command line refers to a variable CrewAI will not expand
	for _, a := range append([]string{spec.Command}, spec.Args...) {
		for _, m := range varRef.FindAllStringSubmatch(a, -1) {
			name := m[1]
			if name == "" {
				name = m[2]
			}
			report(name, "is referenced in the command line (CrewAI does not expand it)")
		}
	}
	for _, k := range keys {
		if !session.IsSecretName(k) {
			continue
		}
		for _, w := range words(k, keyNoise) {
			if serverWords[w] {
				report(k, "is set in .env and looks like this server's key")
				break
			}
		}
	}
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// envFix is how to pass key to the server in the project's own format.
func (c *checker) envFix(s *project.Server, key string) string {
	switch {
	case pythonFile(s.Pos):
		return fmt.Sprintf(`add env={%q: os.environ[%q]} to the MCPServerStdio(...) call`, key, key)
	case c.isMCPServersFile(s):
		return fmt.Sprintf(`add "env": {%q: "${%s}"} to the server entry`, key, key)
	case c.inOverlay(s.Pos):
		return fmt.Sprintf("add env: {%s: …} to the server in crewbench.yaml", key)
	}
	return fmt.Sprintf(`add "env": {%q: "…"} to the mcps entry (CrewAI does not expand variables in JSON, so the value must be written there: keep the file out of version control, or declare the server in crew.py with env={%q: os.environ[%q]})`, key, key, key)
}

// secrets reports credentials written literally into crew files: server
// env and headers, URLs, command lines, LLM api_key.
func (c *checker) secrets() {
	for _, s := range c.p.Servers {
		if c.inOverlay(s.Pos) || s.Spec.Ref == mcpconn.RefAMP {
			continue // crewbench's own file; an AMP ref's URL and headers come from crewbench.yaml amp:
		}
		fromExpr := map[string]bool{}
		for _, id := range s.Unresolved {
			fromExpr[strings.TrimPrefix(id, "servers."+s.Name+".")] = true
		}
		for _, f := range []struct {
			field, label, sep string
			values            map[string]string
			secretName        func(string) bool
		}{
			{"env", "env", "=", s.Spec.Env, session.IsSecretName},
			{"headers", "header", ": ", s.Spec.Headers, session.IsSecretHeader},
		} {
			for _, k := range slices.Sorted(maps.Keys(f.values)) {
				v := f.values[k]
				if fromExpr[f.field+"."+k] || fromExpr[f.field] || session.IsPlaceholder(v) {
					continue
				}
				if f.secretName(k) || session.RedactString(v) != v {
					c.add(Finding{Code: CodeSecretLiteral, Pos: at(s, f.field+"."+k), Server: s.Name,
						Message: fmt.Sprintf("%s %s is written literally (%s%s%s)", f.label, k, k, f.sep, session.RedactSecretValue(v)),
						Fix:     c.secretFix(s, f.field, k)})
				}
			}
		}
		if s.Spec.URL != "" && !fromExpr["url"] {
			red := session.RedactURL(s.Spec.URL)
			if red != s.Spec.URL {
				c.add(Finding{Code: CodeSecretLiteral, Pos: at(s, "url"), Server: s.Name,
					Message: fmt.Sprintf("the URL carries a credential (%s); CrewAI logs the URL in its errors and events", red),
					Fix:     "move the credential into a header read from the environment, e.g. headers={\"Authorization\": f\"Bearer {os.environ['TOKEN']}\"} in crew.py"})
			}
		}
		for i, a := range s.Spec.Args {
			if fromExpr[fmt.Sprintf("args[%d]", i)] {
				continue
			}
			if red := session.RedactString(a); red != a {
				c.add(Finding{Code: CodeSecretLiteral, Pos: at(s, fmt.Sprintf("args[%d]", i)), Server: s.Name,
					Message: fmt.Sprintf("a command-line argument carries a credential (%s)", red),
					Fix:     "pass the credential through the server's env instead of its arguments (arguments show up in process lists and CrewAI's event server_name)"})
			}
		}
	}
	for _, a := range c.p.Agents {
		if a.LLM == nil || a.LLM.APIKey == "" || c.inOverlay(a.Pos) || session.IsPlaceholder(a.LLM.APIKey) {
			continue
		}
		c.add(Finding{Code: CodeSecretLiteral, Pos: a.Positions.At("llm.api_key"),
			Message: fmt.Sprintf("agent %s's llm api_key is written literally (%s)", a.Name, session.Redacted),
			Fix:     "remove api_key and put the provider's key in .env (e.g. OPENAI_API_KEY=…), which CrewAI reads"})
	}
}

// secretFix is how to keep the value out of the file, in its own format.
func (c *checker) secretFix(s *project.Server, field, key string) string {
	envName := strings.ToUpper(wordSplit.ReplaceAllString(key, "_"))
	if field == "headers" {
		envName = strings.ToUpper(wordSplit.ReplaceAllString(s.Name, "_")) + "_TOKEN"
	}
	switch {
	case pythonFile(s.Pos):
		if field == "headers" {
			return fmt.Sprintf(`read it from the environment: headers={%q: f"Bearer {os.environ['%s']}"} (and %s=… in .env)`, key, envName, envName)
		}
		return fmt.Sprintf(`read it from the environment: env={%q: os.environ[%q]} (and %s=… in .env)`, key, envName, envName)
	case c.isMCPServersFile(s):
		return fmt.Sprintf(`write "${%s}" and set %s in the environment`, envName, envName)
	}
	return fmt.Sprintf("JSON crews cannot read the environment (CrewAI does not expand ${VAR} in mcps): declare this server in crew.py with os.environ[%q], or keep this file out of version control and rotate the exposed credential", envName)
}
