package ui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"crewbench/mcpconn"
	"crewbench/session"
)

// The servers view's OAuth seam: each HTTP/SSE server's auth state (what
// crewbench's token store holds, read by a command, and the server's own
// answer without a token once it refused the pool) and L, the browser
// login of `crewbench auth login URL`, after which the server is
// connected again.

// serverAuthState is the pane's own record of auth states and logins.
type serverAuthState struct {
	states map[string]AuthState
	// checked is the pool state (state and class) each server's auth state
	// was last read for: a snapshot re-reads it only after a change.
	checked map[string]string
	logins  map[string]*loginProgress
}

type loginProgress struct {
	url     string // the authorization URL, once known
	running bool
	err     string
}

func newServerAuthState() *serverAuthState {
	return &serverAuthState{states: map[string]AuthState{}, checked: map[string]string{}, logins: map[string]*loginProgress{}}
}

// canLogin says L applies to the server: an HTTP or SSE server (not an
// AMP ref, which CrewAI authorizes itself) without a configured
// Authorization header, with an OAuth client to log in with.
func (p serversPane) canLogin(name string) bool {
	spec, ok := p.d.spec(name)
	return ok && p.deps.Auth != nil && spec.Transport != mcpconn.TransportStdio && spec.URL != "" &&
		spec.Ref != mcpconn.RefAMP && !mcpconn.HasHeader(spec.Headers, "Authorization")
}

// authFailed says the pool's connection was refused for want of
// credentials.
func (p serversPane) authFailed(name string) bool {
	st := p.d.status[name]
	return st.State == mcpconn.StateFailed && st.Class == session.OutcomeAuth
}

// checkAuth reads the auth state of every server L applies to whose pool
// state changed since it was last read; a refused server is also probed.
func (p serversPane) checkAuth() tea.Cmd {
	var cmds []tea.Cmd
	for _, name := range p.d.order {
		if !p.canLogin(name) {
			continue
		}
		st := p.d.status[name]
		if k := string(st.State) + "/" + st.Class; p.auth.checked[name] != k {
			p.auth.checked[name] = k
			cmds = append(cmds, p.readAuth(name, p.authFailed(name)))
		}
	}
	return tea.Batch(cmds...)
}

// readAuth reads a server's auth state; probe also asks the server
// without a token.
func (p serversPane) readAuth(name string, probe bool) tea.Cmd {
	spec, _ := p.d.spec(name)
	return authState(p.deps.Ctx, p.deps.Auth, name, spec.URL, spec.Transport == mcpconn.TransportSSE, probe)
}

// startLogin is L on the selected server.
func (p serversPane) startLogin(name string) tea.Cmd {
	if !p.canLogin(name) {
		if p.deps.Auth != nil && mcpconn.HasHeader(p.d.entries[name].Spec.Headers, "Authorization") {
			return notice(noticeWarn, "%s has a configured Authorization header: nothing to log in to", name)
		}
		return notice(noticeWarn, "%s is not an HTTP or SSE server: nothing to log in to", name)
	}
	if lp := p.auth.logins[name]; lp != nil && lp.running {
		return notice(noticeWarn, "a login to %s is already waiting for the browser (its URL is in the info section)", name)
	}
	p.auth.logins[name] = &loginProgress{running: true}
	spec, _ := p.d.spec(name)
	return tea.Batch(notice(noticeInfo, "logging in to %s…", name),
		login(p.deps.Ctx, p.deps.Auth, name, spec.URL, spec.Transport == mcpconn.TransportSSE))
}

// updateAuth takes the auth commands' messages.
func (p serversPane) updateAuth(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case authStateMsg:
		p.auth.states[msg.server] = msg.state
	case loginURLMsg:
		if lp := p.auth.logins[msg.server]; lp != nil {
			lp.url = msg.url
		}
		return tea.Batch(waitLogin(msg.server, msg.done),
			notice(noticeInfo, "log in to %s in the browser (the URL is in the info section to copy)", msg.server))
	case loginDoneMsg:
		lp := p.auth.logins[msg.server]
		if lp == nil {
			lp = &loginProgress{}
			p.auth.logins[msg.server] = lp
		}
		lp.running, lp.url = false, ""
		if msg.err != nil {
			lp.err = p.deps.Redactor.RedactString(foldSpaces(msg.err.Error()))
			return notice(noticeError, "login to %s: %s", msg.server, lp.err)
		}
		lp.err = ""
		// The new token is in the store: connect again with it. The pool
		// still says refused, but no probe: a request without the token
		// would run beside the reconnect and could reach the server after
		// it.
		delete(p.auth.checked, msg.server)
		cmds := []tea.Cmd{notice(noticeInfo, "logged in to %s: connecting again", msg.server), p.readAuth(msg.server, false)}
		if p.deps.Pool != nil {
			cmds = append(cmds, reconnect(p.deps.Ctx, p.deps.Pool, msg.server))
		}
		return tea.Batch(cmds...)
	}
	return nil
}

// authLines are the info section's auth rows of an HTTP/SSE server.
func (p serversPane) authLines(name string, w int) []string {
	spec, _ := p.d.spec(name)
	if spec.Transport == mcpconn.TransportStdio || spec.Ref == mcpconn.RefAMP {
		return nil
	}
	t := p.st.Text
	if mcpconn.HasHeader(spec.Headers, "Authorization") {
		return []string{p.kv("auth", "configured Authorization header"+t.Subtle.Render("  (CrewAI sends it too)"))}
	}
	if p.deps.Auth == nil {
		return nil
	}
	a, read := p.auth.states[name]
	var state string
	switch {
	case !read:
		state = t.Subtle.Render("checking…")
	case a.Err != "" && !a.Token:
		state = t.Danger.Render(p.deps.Redactor.RedactString(a.Err))
	case a.Token:
		state = p.tokenState(a)
	case p.authFailed(name) && a.Probed && a.Status == 401 && a.Challenge != "":
		state = t.Warning.Render("OAuth required (401 + WWW-Authenticate)") + t.Subtle.Render("  L logs in")
	case p.authFailed(name) && a.Probed && a.Status == 401:
		state = t.Warning.Render("401 without a WWW-Authenticate challenge") + t.Subtle.Render("  L tries the well-known metadata")
	case p.authFailed(name):
		state = t.Warning.Render("authorization refused") + t.Subtle.Render("  L logs in")
	case p.d.status[name].State == mcpconn.StateReady:
		state = "no auth needed"
	default:
		state = t.Subtle.Render("not known until it connects")
	}
	out := []string{p.kv("auth", state)}
	if lp := p.auth.logins[name]; lp != nil {
		switch {
		case lp.running && lp.url == "":
			out = append(out, p.kv("login", t.Subtle.Render("discovering the authorization server…")))
		case lp.running:
			out = append(out, p.kv("login", "waiting for the browser; if none opened, open:"))
			// The whole URL, broken at the width: it must stay copyable.
			for i := 0; i < len(lp.url); i += max(1, w-13) {
				out = append(out, strings.Repeat(" ", 13)+lp.url[i:min(len(lp.url), i+max(1, w-13))])
			}
		case lp.err != "":
			out = append(out, p.kv("login", t.Danger.Render("failed: "+lp.err)))
		}
	}
	if a.Token || p.authFailed(name) {
		note := wrapText("crewbench's own connections (this view, the session policy) send a stored token; "+
			"CrewAI sends only the configured headers: put the token in headers (see export-config)", max(1, w-13))
		for _, l := range strings.Split(note, "\n") {
			out = append(out, strings.Repeat(" ", 13)+t.Subtle.Render(l))
		}
	}
	return out
}

func (p serversPane) tokenState(a AuthState) string {
	t := p.st.Text
	now := time.Now()
	if p.deps.Now != nil {
		now = p.deps.Now()
	}
	parts := []string{"token stored"}
	switch {
	case a.Expiry.IsZero():
		parts = append(parts, "no expiry")
	case !now.Before(a.Expiry) && a.Refreshable:
		return t.Warning.Render("token expired") + " · refresh available" + t.Subtle.Render("  (refreshed on connect)")
	case !now.Before(a.Expiry):
		return t.Warning.Render("token expired") + " · no refresh token" + t.Subtle.Render("  L logs in again")
	default:
		parts = append(parts, "expires in "+fmtDur(a.Expiry.Sub(now).Round(time.Second)))
	}
	if a.Refreshable {
		parts = append(parts, "refresh available")
	}
	if a.Scope != "" {
		parts = append(parts, "scope "+a.Scope)
	}
	return p.st.State.Ready.Render(strings.Join(parts, " · "))
}

// authSummary is the list's detail cell for a server the pool could not
// connect for want of credentials, when L can log in to it.
func (p serversPane) authSummary(name string) string {
	if !p.canLogin(name) || !p.authFailed(name) {
		return ""
	}
	if a := p.auth.states[name]; a.Token {
		return "token refused: L logs in again"
	}
	return "OAuth required: L logs in"
}
