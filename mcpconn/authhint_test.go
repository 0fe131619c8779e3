package mcpconn

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crewbench/mcpconn/oauth"
	"crewbench/mcpconn/oauth/oauthtest"
	"crewbench/session"
)

// A pool with crewbench's OAuth client lists a protected server with the
// stored token and says so; a session-policy call borrows that session,
// while an adapter-policy call (CrewAI's) opens its own and sends only the
// configured headers, so it gets the 401 and the fix for CrewAI.
func TestPoolSendsStoredTokensToCrewbenchsOwnCallsOnly(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true})
	fake.Protect(oauthtest.EchoMCP())
	defer fake.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	store := &oauth.Store{Path: filepath.Join(t.TempDir(), "oauth-tokens.json")}
	if _, err := oauth.New(oauth.Config{Store: store, Headless: true, Interactive: true}).Login(ctx, fake.MCPURL(), oauth.Challenge{}, ""); err != nil {
		t.Fatal(err)
	}
	p := NewPool(nil)
	p.SetAuthorizer(oauth.New(oauth.Config{Store: store}))
	defer p.Close()
	spec := ServerSpec{Name: "protected", Transport: TransportHTTP, URL: fake.MCPURL()}
	if err := p.Connect(ctx, spec); err != nil {
		t.Fatal(err)
	}
	st, _ := p.ServerStatus(Handle(spec))
	if st.State != StateReady || st.Discovery == nil || !st.Discovery.OAuth {
		t.Fatalf("pool status %+v", st)
	}

	cases := []struct {
		policy  Policy
		outcome string
		fix     string
	}{
		{PolicySession, session.OutcomeOK, ""},
		{PolicyAdapter, session.OutcomeAuth, "CrewAI sends only the configured headers; this server needs OAuth — run `crewbench auth login " + fake.MCPURL() + "` and put the token in headers (see export-config)"},
	}
	for _, tc := range cases {
		s := spec
		s.Policy = tc.policy
		before := len(fake.Bearers())
		r := Call(ctx, s, "echo", nil, Options{Pool: p})
		if r.Outcome != tc.outcome || r.Fix != tc.fix {
			t.Errorf("%s: outcome %q fix %q (%s)", tc.policy, r.Outcome, r.Fix, r.Error)
		}
		if tc.policy != PolicySession {
			for _, b := range fake.Bearers()[before:] {
				if b != "" {
					t.Errorf("%s sent the stored token", tc.policy)
				}
			}
		}
	}
}

// A pool connection refused for want of a token is finished when Connect
// returns: after a login, the reconnect's requests carry the token and no
// request of the refused connection (a retry, a session DELETE, a GET
// stream) reaches the server after them, up to the pool's Close.
func TestPoolRefusedConnectionSendsNothingAfterTheReconnect(t *testing.T) {
	fake := oauthtest.New(oauthtest.Options{PRMInHeader: true})
	fake.Protect(oauthtest.EchoMCP())
	defer fake.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	store := &oauth.Store{Path: filepath.Join(t.TempDir(), "oauth-tokens.json")}
	p := NewPool(nil)
	p.SetAuthorizer(oauth.New(oauth.Config{Store: store}))
	spec := ServerSpec{Name: "protected", Transport: TransportHTTP, URL: fake.MCPURL()}
	if err := p.Connect(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.ServerStatus(Handle(spec)); st.State != StateFailed || st.Class != session.OutcomeAuth {
		t.Fatalf("without a token: %+v", st)
	}
	tok, err := oauth.New(oauth.Config{Store: store, Headless: true, Interactive: true}).Login(ctx, fake.MCPURL(), oauth.Challenge{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Reconnect(ctx, Handle(spec)); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	bearers := fake.Bearers()
	first := slices.Index(bearers, "Bearer "+tok.AccessToken)
	if first < 1 {
		t.Fatalf("requests %q: want the refused one(s), then the reconnect's with the token", bearers)
	}
	for i, b := range bearers[first:] {
		if b != "Bearer "+tok.AccessToken {
			t.Errorf("request %d after the reconnect's first carried %q", first+i, b)
		}
	}
}

func TestAuthHint(t *testing.T) {
	http := ServerSpec{Transport: TransportHTTP, URL: "https://u:pw@mcp.example/mcp#frag"}
	withHeader := http
	withHeader.Headers = map[string]string{"authorization": "Bearer x"}
	cases := []struct {
		name        string
		spec        ServerSpec
		class, text string
		p           Policy
		want        string
	}{
		{"CrewAI policy", http, session.OutcomeAuth, "Client error '401 Unauthorized'", PolicyNative, "CrewAI sends only the configured headers"},
		{"session policy", http, session.OutcomeAuth, "401", PolicySession, "crewbench's session policy then sends the stored token"},
		{"configured header refused", withHeader, session.OutcomeAuth, "401", PolicyNative, "refuses the configured Authorization header"},
		{"403 is not a login matter", http, session.OutcomeAuth, "Client error '403 Forbidden'", PolicyNative, ""},
		{"not auth", http, session.OutcomeTimeout, "401", PolicyNative, ""},
		{"stdio", ServerSpec{Transport: TransportStdio}, session.OutcomeAuth, "401", PolicyNative, ""},
	}
	for _, tc := range cases {
		got := AuthHint(tc.spec, tc.class, tc.text, tc.p)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if strings.Contains(got, "pw@") || strings.Contains(got, "#frag") {
			t.Errorf("%s: the URL is not redacted: %q", tc.name, got)
		}
	}
}
