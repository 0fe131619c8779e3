// Package oauth is crewbench's OAuth 2.1 client for MCP servers over
// streamable HTTP and SSE, following the MCP authorization spec 2025-11-25
// (with its 2025-03-26 fallbacks): protected-resource metadata (RFC 9728),
// authorization-server metadata (RFC 8414 / OpenID discovery), client
// registration (pre-registered, Client ID Metadata Documents, RFC 7591),
// PKCE S256, resource indicators (RFC 8707), scope selection and step-up,
// refresh and client credentials. Tokens live in a 0600 file per user.
//
// CrewAI does none of this: it only sends the headers a crew configures.
// mcpconn uses this package for its own session policy only.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Challenge is what a 401/403 WWW-Authenticate Bearer header said.
type Challenge struct {
	ResourceMetadata string // RFC 9728 resource_metadata parameter
	Scope            string // space-separated scopes the resource wants
	Error            string // e.g. "insufficient_scope", "invalid_token"
}

// ParseChallenge reads the Bearer challenge of a WWW-Authenticate header
// (quoted or token parameter values, RFC 9110 §11.6.1); a header without a
// Bearer challenge gives the zero Challenge.
func ParseChallenge(h http.Header) Challenge {
	var c Challenge
	for _, v := range h.Values("WWW-Authenticate") {
		params, ok := bearerParams(v)
		if !ok {
			continue
		}
		c.ResourceMetadata = params["resource_metadata"]
		c.Scope = params["scope"]
		c.Error = params["error"]
		return c
	}
	return c
}

// bearerParams returns the auth-params of the Bearer challenge in v.
func bearerParams(v string) (map[string]string, bool) {
	i := strings.Index(strings.ToLower(v), "bearer")
	if i < 0 || (i > 0 && v[i-1] != ' ' && v[i-1] != ',') {
		return nil, false
	}
	rest := v[i+len("bearer"):]
	params := map[string]string{}
	for {
		rest = strings.TrimLeft(rest, " ,")
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return params, true
		}
		name := strings.ToLower(strings.TrimSpace(rest[:eq]))
		if strings.ContainsAny(name, " ") {
			// The next challenge's scheme ("Basic realm=…") ends this one.
			return params, true
		}
		rest = strings.TrimLeft(rest[eq+1:], " ")
		var val string
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			j := 1
			for ; j < len(rest) && rest[j] != '"'; j++ {
				if rest[j] == '\\' && j+1 < len(rest) {
					j++
				}
				b.WriteByte(rest[j])
			}
			val = b.String()
			rest = rest[min(j+1, len(rest)):]
		} else {
			end := strings.IndexAny(rest, ", ")
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		params[name] = val
	}
}

// ResourceMetadata is RFC 9728 protected-resource metadata.
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
}

// ServerMetadata is RFC 8414 authorization-server metadata (or the same
// fields of an OpenID Provider configuration).
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
}

// supportsGrant applies RFC 8414's default (authorization_code, implicit)
// when the server lists no grant types.
func (m *ServerMetadata) supportsGrant(g string) bool {
	if len(m.GrantTypesSupported) == 0 {
		return g == "authorization_code"
	}
	return slices.Contains(m.GrantTypesSupported, g)
}

// authMethods applies RFC 8414's default (client_secret_basic).
func (m *ServerMetadata) authMethods() []string {
	if len(m.TokenEndpointAuthMethodsSupported) == 0 {
		return []string{authBasic}
	}
	return m.TokenEndpointAuthMethodsSupported
}

// Discovery is what the metadata said about one MCP server.
type Discovery struct {
	// Resource is the RFC 8707 resource indicator sent in authorization and
	// token requests: the metadata's resource, else the server's canonical URL.
	Resource string
	// Resource is the protected-resource metadata; nil for a 2025-03-26
	// server that has none.
	ResourceMeta *ResourceMetadata
	Server       ServerMetadata
	// Legacy says the 2025-03-26 fallbacks were used (no resource metadata).
	Legacy bool
}

// errNotFound marks a metadata URL that answered 404 (or another
// non-success status), so discovery tries the next candidate.
var errNotFound = errors.New("no metadata there")

func (c *Client) getJSON(ctx context.Context, u string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, c.httpTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("metadata request %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := c.http().Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return fmt.Errorf("GET %s: %s: %w", u, resp.Status, errNotFound)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: invalid JSON: %w", u, err)
	}
	return nil
}

// Discover finds the server's protected-resource metadata (from the
// challenge's resource_metadata, else the path-based then the root
// well-known URL) and its authorization server's metadata. Without
// resource metadata it falls back to 2025-03-26: the server's origin is the
// authorization server, with metadata at its root or, failing that, the
// default /authorize, /token and /register endpoints.
func (c *Client) Discover(ctx context.Context, serverURL string, ch Challenge) (*Discovery, error) {
	su, err := url.Parse(serverURL)
	if err != nil || su.Host == "" {
		return nil, fmt.Errorf("invalid server URL %q", serverURL)
	}
	origin := su.Scheme + "://" + su.Host
	var candidates []string
	if ch.ResourceMetadata != "" {
		candidates = append(candidates, ch.ResourceMetadata)
	}
	if p := strings.TrimSuffix(su.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")

	d := &Discovery{}
	for _, u := range candidates {
		var prm ResourceMetadata
		err := c.getJSON(ctx, u, &prm)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata: %w", err)
		}
		d.ResourceMeta = &prm
		break
	}
	if d.ResourceMeta == nil {
		return c.discoverLegacy(ctx, su, origin)
	}
	prm := d.ResourceMeta
	if prm.Resource != "" {
		if !resourceMatches(prm.Resource, su) {
			return nil, fmt.Errorf("protected resource metadata names resource %q, which is not %s: refusing to authorize", prm.Resource, CanonicalURL(serverURL))
		}
		d.Resource = prm.Resource
	} else {
		d.Resource = CanonicalURL(serverURL)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, errors.New("protected resource metadata lists no authorization_servers")
	}
	issuer := prm.AuthorizationServers[0]
	meta, err := c.serverMetadata(ctx, issuer)
	if err != nil {
		return nil, err
	}
	if meta.Issuer != "" && strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return nil, fmt.Errorf("authorization server metadata names issuer %q, not %q (RFC 8414 §3.3)", meta.Issuer, issuer)
	}
	d.Server = *meta
	return d, checkServer(&d.Server)
}

// serverMetadata tries RFC 8414 and OpenID discovery in the order the MCP
// spec gives: for an issuer with a path, oauth-authorization-server and
// openid-configuration inserted before the path, then openid-configuration
// appended to it; for one without, the two root documents.
func (c *Client) serverMetadata(ctx context.Context, issuer string) (*ServerMetadata, error) {
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" {
		return nil, fmt.Errorf("invalid authorization server %q", issuer)
	}
	origin := iu.Scheme + "://" + iu.Host
	var candidates []string
	if p := strings.TrimSuffix(iu.EscapedPath(), "/"); p != "" {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server" + p,
			origin + "/.well-known/openid-configuration" + p,
			origin + p + "/.well-known/openid-configuration",
		}
	} else {
		candidates = []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	for _, u := range candidates {
		var m ServerMetadata
		err := c.getJSON(ctx, u, &m)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("no authorization server metadata for %s (tried %s)", issuer, strings.Join(candidates, ", "))
}

// discoverLegacy is the 2025-03-26 path: the authorization base URL is the
// server URL without its path.
func (c *Client) discoverLegacy(ctx context.Context, su *url.URL, origin string) (*Discovery, error) {
	d := &Discovery{Legacy: true, Resource: CanonicalURL(su.String())}
	var m ServerMetadata
	err := c.getJSON(ctx, origin+"/.well-known/oauth-authorization-server", &m)
	switch {
	case err == nil:
		d.Server = m
		return d, checkServer(&d.Server)
	case !errors.Is(err, errNotFound):
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	// No metadata at all: the spec's default endpoints, PKCE S256 assumed
	// (OAuth 2.1 requires it of every authorization server), and crewbench
	// registers as the public client a native app is (RFC 8252 §8.4).
	d.Server = ServerMetadata{Issuer: origin, AuthorizationEndpoint: origin + "/authorize",
		TokenEndpoint: origin + "/token", RegistrationEndpoint: origin + "/register",
		CodeChallengeMethodsSupported: []string{"S256"}, TokenEndpointAuthMethodsSupported: []string{authNone}}
	return d, nil
}

// checkServer refuses an authorization server that cannot do PKCE S256:
// the MCP spec says a client MUST refuse when code_challenge_methods_supported
// is absent.
func checkServer(m *ServerMetadata) error {
	if m.TokenEndpoint == "" {
		return errors.New("authorization server metadata has no token_endpoint")
	}
	if m.supportsGrant("authorization_code") && !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return errors.New("authorization server does not advertise PKCE S256 (code_challenge_methods_supported): refusing to authorize")
	}
	return nil
}

// CanonicalURL is the server's canonical URI (RFC 8707 / MCP spec): scheme
// and host lower-cased, no fragment, no trailing slash on the path.
func CanonicalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment, u.RawFragment = "", ""
	if u.Path != "/" {
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	} else {
		u.Path, u.RawPath = "", ""
	}
	return u.String()
}

// resourceMatches says whether metadata's resource may stand for the
// server: same scheme and host, and its path the server's path or a parent
// of it on a segment boundary (RFC 9728 §3.3; the root PRM names the origin).
func resourceMatches(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(r.Host, server.Host) {
		return false
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(server.Path, "/")
	return rp == "" || rp == sp || strings.HasPrefix(sp, rp+"/")
}
