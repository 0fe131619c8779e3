package main

import (
	"context"
	"io"

	"crewbench/mcpconn/oauth"
	"crewbench/ui"
)

// serverAuth is ui.ServerAuth over crewbench's OAuth client: the token
// store `crewbench auth status` reads, and the flow of `crewbench auth
// login URL` for the servers view's L.
type serverAuth struct {
	// openBrowser opens the authorization URL; nil means the system
	// browser (tests pass one that follows the redirects itself).
	openBrowser func(string) error
}

// State implements ui.ServerAuth: the probe is skipped when a token is
// stored.
func (serverAuth) State(ctx context.Context, url string, sse, probe bool) ui.AuthState {
	var a ui.AuthState
	path, err := oauth.DefaultStorePath()
	if err != nil {
		a.Err = err.Error()
		return a
	}
	t, err := (&oauth.Store{Path: path}).Get(url)
	switch {
	case err != nil:
		a.Err = err.Error()
	case t != nil:
		a.Token, a.Expiry, a.Refreshable, a.Scope = true, t.Expiry, t.RefreshToken != "", t.Scope
	}
	// Only a server with no stored token is probed: with one, the view
	// shows the token's state, not the server's answer without it, and
	// after a login the probe (a request without the token) would race
	// the reconnect that sends it, reaching the server after it.
	if probe && !a.Token {
		p, err := probeAuth(ctx, url, sse)
		if err != nil {
			a.Err = err.Error()
		} else {
			a.Probed, a.Status, a.Challenge = true, p.Status, p.WWWAuthenticate
		}
	}
	return a
}

// Login implements ui.ServerAuth: the client identity comes from the
// CREWBENCH_OAUTH_* variables as for `auth login`; nothing is printed (the
// terminal is the workbench's), the URL goes to show.
func (a serverAuth) Login(ctx context.Context, url string, sse bool, show func(string)) error {
	cfg, err := (&oauthClientFlags{}).config(io.Discard)
	if err != nil {
		return err
	}
	cfg.Log = nil
	open := a.openBrowser
	if open == nil {
		open = oauth.OpenSystemBrowser
	}
	cfg.OpenBrowser = func(u string) error {
		show(u)
		return open(u)
	}
	ch, err := probeChallenge(ctx, url, sse)
	if err != nil {
		return err
	}
	_, err = oauth.New(cfg).Login(ctx, url, ch, "")
	return err
}
