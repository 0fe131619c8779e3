package oauth

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Transport returns a RoundTripper for requests to the MCP server at
// serverURL: it adds the stored token (refreshed when expired) and, on a
// 401 or a 403 insufficient_scope, refreshes or — when the config is
// Interactive — runs the flow and retries once. A request that already
// carries an Authorization header (configured by the user) passes through
// untouched. When no token can be had, the server's own answer is returned,
// so the caller still sees the 401.
func (c *Client) Transport(serverURL string, base http.RoundTripper) http.RoundTripper {
	return &transport{c: c, server: serverURL, base: base}
}

type transport struct {
	c      *Client
	server string
	base   http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the request body to authorize it: %w", err)
		}
		body = b
	}
	tok := t.c.Stored(req.Context(), t.server)
	resp, err := t.send(req, body, tok)
	if err != nil || !needsAuth(resp) {
		return resp, err
	}
	ch := ParseChallenge(resp.Header)
	nt := t.reauthorize(req.Context(), tok, ch, resp.StatusCode)
	if nt == nil {
		return resp, nil
	}
	drain(resp)
	return t.send(req, body, nt)
}

func (t *transport) send(req *http.Request, body []byte, tok *Token) (*http.Response, error) {
	r := req.Clone(req.Context())
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	if tok != nil {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return t.base.RoundTrip(r)
}

func needsAuth(resp *http.Response) bool {
	if resp.StatusCode == http.StatusUnauthorized {
		return true
	}
	return resp.StatusCode == http.StatusForbidden && ParseChallenge(resp.Header).Error == "insufficient_scope"
}

// reauthorize gets a better token after a 401/403, or nil. A 401 with a
// refresh token refreshes first; otherwise (and for step-up) a flow runs
// when allowed. Step-up is bounded: at most MaxStepUps per server, and
// never for scopes the current token already asked for.
func (t *transport) reauthorize(ctx context.Context, tok *Token, ch Challenge, status int) *Token {
	c := t.c
	// The flow outlives the request's own deadline (a user in a browser),
	// bounded by the flow timeout instead.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.flowTimeout())
	defer cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	// Another request may have logged in while this one waited.
	if cur, err := c.cfg.Store.Get(t.server); err == nil && cur != nil && !cur.expired(c.now()) && (tok == nil || cur.AccessToken != tok.AccessToken) && status == http.StatusUnauthorized {
		return cur
	}
	if status == http.StatusUnauthorized && tok != nil && tok.RefreshToken != "" {
		if nt, err := c.Refresh(fctx, t.server, tok); err == nil {
			return nt
		}
	}
	if !c.cfg.Interactive {
		c.logf("crewbench oauth — %s needs authorization: run `crewbench auth login %s` (or pass --oauth)", t.server, t.server)
		return nil
	}
	extra := ""
	if status == http.StatusForbidden {
		if tok != nil && hasScopes(tok.Scope, ch.Scope) {
			c.logf("crewbench oauth — %s refuses the token although it has the scopes it asks for (%s); not asking again", t.server, ch.Scope)
			return nil
		}
		if c.stepUps[t.server] >= MaxStepUps {
			c.logf("crewbench oauth — %s still wants more scope after %d step-ups; giving up", t.server, MaxStepUps)
			return nil
		}
		c.stepUps[t.server]++
		if tok != nil {
			extra = tok.Scope
		}
	}
	nt, err := c.login(fctx, t.server, ch, extra)
	if err != nil {
		c.logf("crewbench oauth — authorization for %s failed: %v", t.server, err)
		return nil
	}
	return nt
}

// hasScopes says whether every scope of want is in have.
func hasScopes(have, want string) bool {
	if want == "" {
		return false
	}
	got := strings.Fields(have)
	for _, w := range strings.Fields(want) {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
