package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/session"
)

const hostedURL = "https://mcp.hosted.example/mcp"

// fakeAuth is a token store and an authorization server in one: Login
// "opens" authURL and stores a token an hour long.
type fakeAuth struct {
	mu        sync.Mutex
	state     AuthState
	challenge string
	loginErr  error
	logins    int
	probes    int
	// release, when set, holds Login after it stored the token, as a user
	// still in the browser would.
	release chan struct{}
}

func (a *fakeAuth) State(_ context.Context, url string, _, probe bool) AuthState {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.state
	if probe {
		a.probes++
		s.Probed, s.Status, s.Challenge = true, 401, a.challenge
	}
	return s
}

func (a *fakeAuth) Login(_ context.Context, url string, _ bool, show func(string)) error {
	a.mu.Lock()
	a.logins++
	show("https://auth.hosted.example/authorize?client_id=crewbench&redirect_uri=http%3A%2F%2F127.0.0.1%3A41234%2Fcallback&state=s1")
	err := a.loginErr
	if err == nil {
		a.state = AuthState{Token: true, Expiry: clock().Add(time.Hour), Refreshable: true, Scope: "mcp:tools"}
	}
	release := a.release
	a.mu.Unlock()
	if release != nil {
		<-release
	}
	return err
}

// authPool is the fake pool with an OAuth server: hosted is refused until
// a reconnect after the login.
type authPool struct {
	fakePool
	auth       *fakeAuth
	reconnects int
}

func (p *authPool) Reconnect(_ context.Context, name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reconnects++
	p.auth.mu.Lock()
	ok := p.auth.state.Token
	p.auth.mu.Unlock()
	for i, s := range p.statuses {
		if s.Name == name && ok {
			hosted := mcpconn.ServerSpec{Name: "hosted", Transport: mcpconn.TransportHTTP, URL: hostedURL}
			p.statuses[i] = mcpconn.ServerStatus{Name: name, State: mcpconn.StateReady,
				Discovery: fakeDiscovery(hosted, fakeTool{name: "search", desc: "Search.", reason: "kept"})}
		}
	}
	return nil
}

// authDeps is the fake workspace plus a hosted server that answers 401.
func authDeps(a *fakeAuth) (Deps, *authPool) {
	d := goldenDeps()
	hosted := mcpconn.ServerSpec{Name: "hosted", Transport: mcpconn.TransportHTTP, URL: hostedURL}
	d.Workspace.Servers = append(d.Workspace.Servers, ServerEntry{Spec: hosted, Source: "crewbench.yaml servers[3]", Agents: []string{"writer"}})
	st := append(fakeStatuses(), mcpconn.ServerStatus{Name: "hosted", State: mcpconn.StateFailed, Class: session.OutcomeAuth,
		Error: "Failed to connect to MCP server: Client error '401 Unauthorized' (transport error: authorization required)"})
	p := &authPool{fakePool: fakePool{statuses: st}, auth: a}
	d.Pool, d.Auth = p, a
	return d, p
}

// onHosted settles the auth workspace with the cursor on hosted and its
// auth state read (the snapshot's commands run).
func onHosted(t *testing.T, a *fakeAuth, w, h int) (Model, *authPool) {
	t.Helper()
	deps, pool := authDeps(a)
	m := New(deps)
	m = step(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = stepRun(t, m, statusMsg(pool.Status()), 3)
	for range 3 {
		m = step(t, m, keyRunes("j"))
	}
	return m, pool
}

func footer(m Model) string {
	m.showHelp = false
	return ansi.Strip(m.helpView())
}

func TestServersAuthStateAndLoginFlow(t *testing.T) {
	a := &fakeAuth{challenge: `Bearer resource_metadata="https://mcp.hosted.example/.well-known/oauth-protected-resource/mcp"`,
		release: make(chan struct{})}
	defer close(a.release)
	m, pool := onHosted(t, a, 120, 40)
	v := ansi.Strip(m.View())
	for _, want := range []string{"OAuth required (401 + WWW-Authenticate)", "OAuth required: L logs in", "put the token in headers (see export-config)"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if a.probes != 1 {
		t.Errorf("the refused server was probed %d times, want 1", a.probes)
	}
	if f := footer(m); !strings.Contains(f, "L login") {
		t.Errorf("footer on hosted lacks L: %q", f)
	}

	// L: the URL is shown while the flow waits, then the token is stored
	// and the server connected again.
	m = stepRun(t, m, keyRunes("L"), 1)
	v = ansi.Strip(m.View())
	if !strings.Contains(v, "waiting for the browser") || !strings.Contains(v, "https://auth.hosted.example/authorize?client_id=crewbench") {
		t.Fatalf("the authorization URL is not shown:\n%s", v)
	}
	m = stepRun(t, m, loginDoneMsg{server: "hosted"}, 4)
	v = ansi.Strip(m.View())
	if a.logins != 1 || pool.reconnects != 1 {
		t.Fatalf("logins %d, reconnects %d", a.logins, pool.reconnects)
	}
	// The login's end reads the new token without probing: a request
	// without it would race the reconnect and could reach the server after it.
	if a.probes != 1 {
		t.Errorf("the server was probed %d times, want 1 (before the login only)", a.probes)
	}
	for _, want := range []string{"token stored · expires in 1h00m · refresh available · scope mcp:tools", "3/4 ready"} {
		if !strings.Contains(v, want) {
			t.Errorf("after the login the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "waiting for the browser") || strings.Contains(v, "OAuth required") {
		t.Errorf("stale login state:\n%s", v)
	}
}

func TestServersLoginKeyOnlyWhereItApplies(t *testing.T) {
	a := &fakeAuth{release: make(chan struct{})}
	defer close(a.release)
	m, _ := onHosted(t, a, 80, 24)
	cases := []struct {
		cursor int
		name   string
		login  bool
	}{
		{0, "weather (stdio)", false},
		{1, "catalog (configured Authorization header)", false},
		{3, "hosted (HTTP, no header)", true},
	}
	for _, tc := range cases {
		m = step(t, m, keyRunes("g"))
		for range tc.cursor {
			m = step(t, m, keyRunes("j"))
		}
		f := footer(m)
		if strings.Contains(f, "L login") != tc.login {
			t.Errorf("%s: footer %q", tc.name, f)
		}
		if ansi.StringWidth(f) != 80 {
			t.Errorf("%s: footer is %d cells", tc.name, ansi.StringWidth(f))
		}
		_, cmd := m.Update(keyRunes("L"))
		msgs := runCmd(t, cmd, 1)
		if tc.login {
			continue
		}
		if len(msgs) != 1 {
			t.Fatalf("%s: L gave %v", tc.name, msgs)
		}
		if n, ok := msgs[0].(noticeMsg); !ok || !strings.Contains(n.text, "nothing to log in to") {
			t.Errorf("%s: L gave %+v", tc.name, msgs[0])
		}
	}
	if a.logins != 1 {
		t.Errorf("logins = %d, want 1 (hosted only)", a.logins)
	}
	// Without an OAuth client there is no L anywhere.
	deps, _ := authDeps(a)
	deps.Auth = nil
	m2 := settled(t, deps, 80, 24)
	for range 3 {
		m2 = step(t, m2, keyRunes("j"))
	}
	if f := footer(m2); strings.Contains(f, "L login") {
		t.Errorf("footer without an OAuth client offers L: %q", f)
	}
}

func TestServersAuthStates(t *testing.T) {
	cases := []struct {
		name  string
		state AuthState
		want  string
	}{
		{"expired, refreshable", AuthState{Token: true, Expiry: clock().Add(-time.Minute), Refreshable: true}, "token expired · refresh available"},
		{"expired for good", AuthState{Token: true, Expiry: clock().Add(-time.Minute)}, "token expired · no refresh token  L logs in again"},
		{"no expiry", AuthState{Token: true}, "token stored · no expiry"},
		{"401 without a challenge", AuthState{}, "401 without a WWW-Authenticate challenge"},
		{"unreadable store", AuthState{Err: "token store: permission denied"}, "token store: permission denied"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &fakeAuth{state: tc.state}
			m, _ := onHosted(t, a, 120, 40)
			if v := ansi.Strip(m.View()); !strings.Contains(v, tc.want) {
				t.Errorf("view lacks %q:\n%s", tc.want, v)
			}
		})
	}
	// A server that connected without a token needs none.
	a := &fakeAuth{}
	m, pool := onHosted(t, a, 120, 40)
	a.state.Token = true
	_ = pool.Reconnect(context.Background(), "hosted")
	a.state.Token = false
	m = stepRun(t, m, statusMsg(pool.Status()), 3)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "no auth needed") {
		t.Errorf("view lacks \"no auth needed\":\n%s", v)
	}
}

func TestServersLoginFailureIsShown(t *testing.T) {
	a := &fakeAuth{challenge: "Bearer", loginErr: context.DeadlineExceeded}
	m, pool := onHosted(t, a, 120, 40)
	m = stepRun(t, m, keyRunes("L"), 3)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "failed: context deadline exceeded") || pool.reconnects != 0 {
		t.Errorf("reconnects %d, view:\n%s", pool.reconnects, v)
	}
}
