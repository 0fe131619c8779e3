package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"crewbench/crew/project"
	"crewbench/crew/writeback"
	"crewbench/mcpconn"
	"crewbench/mcpconn/oauth"
)

// OAuth pieces shared by `auth login`, `tools` and the workbench.

// authProbe is a server's answer to one request without a token.
type authProbe struct {
	Status int
	// WWWAuthenticate is the first WWW-Authenticate header ("" none);
	// Challenge its Bearer parameters.
	WWWAuthenticate string
	Challenge       oauth.Challenge
}

// probeAuth asks the server once without a token (an initialize POST, or
// the GET of a legacy SSE endpoint), for its status and WWW-Authenticate
// challenge.
func probeAuth(ctx context.Context, url string, sse bool) (authProbe, error) {
	ctx, cancel := context.WithTimeout(ctx, oauth.DefaultHTTPTimeout)
	defer cancel()
	method, body, accept := http.MethodPost,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+mcpconn.DefaultProtocolVersion+`","capabilities":{},"clientInfo":{"name":"crewbench","version":"`+mcpconn.ClientVersion+`"}}}`,
		"application/json, text/event-stream"
	if sse {
		method, body, accept = http.MethodGet, "", "text/event-stream"
	}
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return authProbe{}, fmt.Errorf("probe %s: %w", url, err)
	}
	req.Header.Set("Accept", accept)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return authProbe{}, fmt.Errorf("probe %s: %w", url, err)
	}
	resp.Body.Close()
	p := authProbe{Status: resp.StatusCode, WWWAuthenticate: resp.Header.Get("WWW-Authenticate")}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		p.Challenge = oauth.ParseChallenge(resp.Header)
	}
	return p, nil
}

// probeChallenge is the WWW-Authenticate challenge that points at the
// server's metadata (a server that does not answer 401 gives none;
// discovery then uses the well-known URLs).
func probeChallenge(ctx context.Context, url string, sse bool) (oauth.Challenge, error) {
	p, err := probeAuth(ctx, url, sse)
	return p.Challenge, err
}

// storedTokenAuthorizer is crewbench's OAuth client with the stored tokens
// only (refreshed when expired, never a flow), for the connections that
// are crewbench's own without an --oauth flag: `tools` discovery and the
// workbench's pool. It logs nothing: a 401 is explained by the outcome's
// fix. Nil when the token store has no place (no home directory).
func storedTokenAuthorizer() mcpconn.Authorizer {
	path, err := oauth.DefaultStorePath()
	if err != nil {
		return nil
	}
	return oauth.New(oauth.Config{Store: &oauth.Store{Path: path}})
}

// exportOAuth says which of the project's HTTP/SSE servers want an OAuth
// token in an exported config, and how that is known: listing its tools
// with the configured headers, as CrewAI connects, was answered 401
// (refused, by server name), or crewbench holds a token for its URL (held).
// A refusal wins: a held token the server refused is no token at all.
// Either function may be nil.
func exportOAuth(p *project.Project, held func(url string) bool, refused func(server string) bool) map[string]writeback.OAuthReason {
	out := map[string]writeback.OAuthReason{}
	for _, s := range p.Servers {
		if s.Spec.Transport == mcpconn.TransportStdio || s.Spec.URL == "" {
			continue
		}
		switch {
		case refused != nil && refused(s.Name):
			out[s.Name] = writeback.OAuthRefused
		case held != nil && held(s.Spec.URL):
			out[s.Name] = writeback.OAuthTokenHeld
		}
	}
	return out
}
