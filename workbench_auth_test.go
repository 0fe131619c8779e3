package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"testing"

	"github.com/charmbracelet/x/exp/teatest"

	"crewbench/mcpconn"
	"crewbench/mcpconn/oauth"
	"crewbench/session"
	"crewbench/themes"
	"crewbench/ui"
)

// browserFollowing stands in for the user's browser: it loads the
// authorization URL and follows the fake authorization server's redirect
// to the loopback callback on 127.0.0.1, as a browser would after the
// user approved.
func browserFollowing(t *testing.T) func(string) error {
	return func(u string) error {
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
		return nil
	}
}

// Flow: a streamable-HTTP server behind OAuth (the fake authorization
// server) is refused by the pool; the servers view says OAuth is required,
// L runs the browser flow with its loopback callback, the token is
// stored, and the server is connected again with it.
func TestFlow_LogInToAnOAuthServerFromTheServersView(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	fake := protectedServer(t)
	spec := mcpconn.ServerSpec{Name: "hosted", Transport: mcpconn.TransportHTTP, URL: fake.MCPURL()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink, events, closeEvents := ui.NewEventChannel(ctx, 1024)
	pool := mcpconn.NewPool(session.NewEmitter(sink))
	pool.SetAuthorizer(storedTokenAuthorizer())
	defer func() { _ = pool.Close(); closeEvents() }()
	deps := ui.Deps{Ctx: ctx, Workspace: ui.Workspace{Name: "hosted", Servers: []ui.ServerEntry{{Spec: spec}}}, Pool: poolAdapter{Pool: pool},
		Events: events, Palette: themes.Dark(), Auth: serverAuth{openBrowser: browserFollowing(t)}}
	tm := teatest.NewTestModel(t, ui.New(deps), teatest.WithInitialTermSize(120, 36))
	screenHas(t, tm, "servers 0/1 ready", "OAuth required (401 + WWW-Authenticate)", "L login")
	send(tm, "L")
	screenHas(t, tm, "servers 1/1 ready", "token stored · expires in", "refresh available", "scope mcp:tools")
	send(tm, "q")
	_ = finalSnapshot(t, tm)

	tok, err := (&oauth.Store{Path: filepath.Join(state, "crewbench", "oauth-tokens.json")}).Get(fake.MCPURL())
	if err != nil || tok == nil {
		t.Fatalf("no stored token: %v", err)
	}
	if len(fake.Seen().AuthQueries) != 1 || fake.Seen().AuthQueries[0].Get("redirect_uri") == "" {
		t.Fatalf("authorization requests: %v", fake.Seen().AuthQueries)
	}
	if u := fake.Seen().AuthQueries[0].Get("redirect_uri"); len(u) < 17 || u[:17] != "http://127.0.0.1:" {
		t.Errorf("redirect_uri %q is not a loopback callback on 127.0.0.1", u)
	}
	// The token exists only from the login on, so the first request
	// carrying it is the reconnect's; every MCP request from then on
	// carries it (no probe without it reaches the server late).
	bearers := fake.Bearers()
	first := slices.Index(bearers, "Bearer "+tok.AccessToken)
	if first < 0 {
		t.Fatalf("the reconnect did not send the stored token; the server saw %d requests", len(bearers))
	}
	for i, b := range bearers[first:] {
		if b != "Bearer "+tok.AccessToken {
			t.Errorf("MCP request %d after the reconnect's first carried %q, not the stored token", i, b)
		}
	}
}

// The servers view reads a server's auth state after a login while the
// pool reconnects with the new token: with a token stored, State does not
// probe (a request without the token, which could reach the server after
// the reconnect's), but still reads the token; without one it probes.
func TestServerAuthStateProbesOnlyWithoutAStoredToken(t *testing.T) {
	for _, tc := range []struct {
		name       string
		login      bool
		wantProbed bool
	}{
		{"no token stored: probed", false, true},
		{"token stored: not probed", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			fake := protectedServer(t)
			if tc.login {
				if code, out, errs := run(t, "auth", "login", "--headless", fake.MCPURL()); code != 0 {
					t.Fatalf("login: exit %d\n%s\n%s", code, out, errs)
				}
			}
			before := len(fake.Bearers())
			a := serverAuth{}.State(context.Background(), fake.MCPURL(), false, true)
			if a.Err != "" || a.Token != tc.login || a.Probed != tc.wantProbed {
				t.Fatalf("state %+v", a)
			}
			if tc.wantProbed && (a.Status != http.StatusUnauthorized || a.Challenge == "") {
				t.Errorf("probe answer %+v, want the 401 and its challenge", a)
			}
			if got, want := len(fake.Bearers())-before, map[bool]int{true: 1, false: 0}[tc.wantProbed]; got != want {
				t.Errorf("the MCP endpoint saw %d requests, want %d", got, want)
			}
		})
	}
}
