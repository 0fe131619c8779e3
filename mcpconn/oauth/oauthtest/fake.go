// Package oauthtest is a fake OAuth authorization server and protected
// resource on loopback, for tests of crewbench's OAuth client. It checks
// what a real server would (PKCE verifier against the challenge, state,
// redirect URI, client authentication, resource indicators) and records
// every request so tests can assert on them.
package oauthtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Options shape the fake.
type Options struct {
	// PRMPath serves the resource metadata there ("" means
	// /.well-known/oauth-protected-resource/mcp; "-" serves none).
	PRMPath string
	// PRMInHeader puts resource_metadata in the 401 challenge.
	PRMInHeader bool
	// ChallengeScope is the scope of the 401 challenge ("" omits it).
	ChallengeScope string
	// ScopesSupported goes into the resource metadata.
	ScopesSupported []string
	// ASScopesSupported goes into the authorization server metadata.
	ASScopesSupported []string
	// IssuerPath is the issuer's path ("" none, e.g. "/tenant1").
	IssuerPath string
	// ASMetadataPath is where the AS metadata is served ("" the RFC 8414
	// location for the issuer; "-" nowhere).
	ASMetadataPath string
	// AuthMethods is token_endpoint_auth_methods_supported (nil: ["none"]).
	AuthMethods []string
	// GrantTypes is grant_types_supported (nil: code and refresh).
	GrantTypes []string
	// NoDCR hides the registration endpoint.
	NoDCR bool
	// Resource overrides the metadata's resource.
	Resource string
	// RequiredScopes are needed for any MCP request; WriteScopes are
	// additionally needed for requests whose body contains "tools/call".
	RequiredScopes, WriteScopes []string
	// ExpiresIn is the access tokens' lifetime in seconds (0: 3600).
	ExpiresIn int
	// ClientID/ClientSecret are the pre-registered client.
	ClientID, ClientSecret string
}

// Seen is what the fake has been asked, in order.
type Seen struct {
	// Requests are "METHOD path" of every request.
	Requests []string
	// AuthQueries and TokenForms are the authorization and token requests.
	AuthQueries []url.Values
	TokenForms  []url.Values
	// TokenAuth is how each token request authenticated the client.
	TokenAuth []string
	// Registrations counts dynamic registrations.
	Registrations int
}

// Server is the running fake.
type Server struct {
	*httptest.Server
	opts Options

	mu   sync.Mutex
	seen Seen // read with Seen: the server's goroutines append to it
	// bearer holds the Authorization headers the MCP endpoint saw (read
	// with Bearers: the server's goroutines append to it).
	bearer []string

	challenges map[string]string // code → code_challenge
	redirects  map[string]string // code → redirect_uri
	tokens     map[string][]string
	refresh    map[string][]string
	clients    map[string]string // client_id → secret ("" public)
	n          int
	inner      http.Handler
}

// New starts a fake on 127.0.0.1; MCP requests go to URL+"/mcp".
func New(o Options) *Server {
	s := &Server{opts: o, challenges: map[string]string{}, redirects: map[string]string{},
		tokens: map[string][]string{}, refresh: map[string][]string{}, clients: map[string]string{}}
	if o.ClientID != "" {
		s.clients[o.ClientID] = o.ClientSecret
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// MCPURL is the protected MCP endpoint.
func (s *Server) MCPURL() string { return s.URL + "/mcp" }

// Seen is a copy of what the fake has been asked so far.
func (s *Server) Seen() Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Seen{Requests: slices.Clone(s.seen.Requests), AuthQueries: slices.Clone(s.seen.AuthQueries),
		TokenForms: slices.Clone(s.seen.TokenForms), TokenAuth: slices.Clone(s.seen.TokenAuth),
		Registrations: s.seen.Registrations}
}

// Bearers is a copy of the Authorization headers the MCP endpoint has seen,
// oldest first.
func (s *Server) Bearers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bearer)
}

func (s *Server) issuer() string { return s.URL + s.opts.IssuerPath }

func (s *Server) prmPath() string {
	if s.opts.PRMPath == "" {
		return "/.well-known/oauth-protected-resource/mcp"
	}
	return s.opts.PRMPath
}

func (s *Server) asMetadataPath() string {
	if s.opts.ASMetadataPath == "" {
		return "/.well-known/oauth-authorization-server" + s.opts.IssuerPath
	}
	return s.opts.ASMetadataPath
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen.Requests = append(s.seen.Requests, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	p := r.URL.Path
	switch {
	case p == "/mcp":
		s.mcp(w, r)
	case s.opts.PRMPath != "-" && p == s.prmPath():
		res := s.URL + "/mcp"
		if p == "/.well-known/oauth-protected-resource" {
			res = s.URL
		}
		if s.opts.Resource != "" {
			res = s.opts.Resource
		}
		writeJSON(w, 200, map[string]any{"resource": res, "authorization_servers": []string{s.issuer()},
			"scopes_supported": s.opts.ScopesSupported})
	case s.opts.ASMetadataPath != "-" && p == s.asMetadataPath():
		base := s.issuer()
		m := map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": orDefault(s.opts.AuthMethods, []string{"none"}),
			"grant_types_supported":                 orDefault(s.opts.GrantTypes, []string{"authorization_code", "refresh_token"})}
		if !s.opts.NoDCR {
			m["registration_endpoint"] = base + "/register"
		}
		if s.opts.ASScopesSupported != nil {
			m["scopes_supported"] = s.opts.ASScopesSupported
		}
		writeJSON(w, 200, m)
	case p == s.opts.IssuerPath+"/authorize":
		s.authorize(w, r)
	case p == s.opts.IssuerPath+"/token":
		s.token(w, r)
	case p == s.opts.IssuerPath+"/register" && !s.opts.NoDCR:
		s.register(w, r)
	default:
		http.NotFound(w, r)
	}
}

func orDefault(v, d []string) []string {
	if v == nil {
		return d
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen.Registrations++
	s.n++
	id := fmt.Sprintf("dcr-client-%d", s.n)
	secret := ""
	if req.AuthMethod != "" && req.AuthMethod != "none" {
		secret = fmt.Sprintf("dcr-secret-%d", s.n)
	}
	s.clients[id] = secret
	writeJSON(w, 201, map[string]any{"client_id": id, "client_secret": secret, "token_endpoint_auth_method": req.AuthMethod,
		"redirect_uris": req.RedirectURIs})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.seen.AuthQueries = append(s.seen.AuthQueries, q)
	_, known := s.clients[q.Get("client_id")]
	s.n++
	code := fmt.Sprintf("code-%d", s.n)
	s.challenges[code] = q.Get("code_challenge")
	s.redirects[code] = q.Get("redirect_uri")
	s.mu.Unlock()
	if !known && !strings.HasPrefix(q.Get("client_id"), "https://") {
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	u, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || u.Hostname() != "127.0.0.1" {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := u.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen.TokenForms = append(s.seen.TokenForms, f)
	// Client authentication.
	id, secret, method := f.Get("client_id"), f.Get("client_secret"), "none"
	if u, p, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(u)
		secret, _ = url.QueryUnescape(p)
		method = "client_secret_basic"
	} else if secret != "" {
		method = "client_secret_post"
	}
	s.seen.TokenAuth = append(s.seen.TokenAuth, method)
	want, known := s.clients[id]
	if !strings.HasPrefix(id, "https://") && (!known || want != secret) {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return
	}
	if methods := orDefault(s.opts.AuthMethods, []string{"none"}); !slices.Contains(methods, method) {
		writeJSON(w, 401, map[string]string{"error": "invalid_client", "error_description": method + " not supported"})
		return
	}
	var scopes []string
	switch f.Get("grant_type") {
	case "authorization_code":
		code := f.Get("code")
		ch, ok := s.challenges[code]
		delete(s.challenges, code)
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != ch {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		}
		if f.Get("redirect_uri") != s.redirects[code] {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "redirect_uri mismatch"})
			return
		}
		scopes = strings.Fields(s.seen.AuthQueries[len(s.seen.AuthQueries)-1].Get("scope"))
	case "refresh_token":
		sc, ok := s.refresh[f.Get("refresh_token")]
		if !ok {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(s.refresh, f.Get("refresh_token"))
		scopes = sc
	case "client_credentials":
		if !slices.Contains(orDefault(s.opts.GrantTypes, nil), "client_credentials") {
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		scopes = strings.Fields(f.Get("scope"))
	default:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	s.n++
	at, rt := fmt.Sprintf("at-secret-%d", s.n), fmt.Sprintf("rt-secret-%d", s.n)
	s.tokens[at] = scopes
	exp := s.opts.ExpiresIn
	if exp == 0 {
		exp = 3600
	}
	out := map[string]any{"access_token": at, "token_type": "bearer", "expires_in": exp, "scope": strings.Join(scopes, " ")}
	if f.Get("grant_type") != "client_credentials" {
		s.refresh[rt] = scopes
		out["refresh_token"] = rt
	}
	writeJSON(w, 200, out)
}

func (s *Server) next() http.Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inner
}

// peekBody reads the body and puts it back for the next handler.
func peekBody(r *http.Request) (string, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return "", err
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b), nil
}

// mcp is the protected MCP endpoint: the token check, then the handler
// given to Protect (without one, authorized requests get 200 "ok").
func (s *Server) mcp(w http.ResponseWriter, r *http.Request) {
	next := s.next()
	auth := r.Header.Get("Authorization")
	s.mu.Lock()
	s.bearer = append(s.bearer, auth)
	scopes, ok := s.tokens[strings.TrimPrefix(auth, "Bearer ")]
	s.mu.Unlock()
	challenge := "Bearer"
	var params []string
	if s.opts.PRMInHeader {
		params = append(params, fmt.Sprintf(`resource_metadata="%s%s"`, s.URL, s.prmPath()))
	}
	if !ok || !strings.HasPrefix(auth, "Bearer ") {
		if s.opts.ChallengeScope != "" {
			params = append(params, fmt.Sprintf(`scope="%s"`, s.opts.ChallengeScope))
		}
		w.Header().Set("WWW-Authenticate", challenge+" "+strings.Join(params, ", "))
		writeJSON(w, 401, map[string]string{"error": "invalid_token"})
		return
	}
	need := s.opts.RequiredScopes
	if len(s.opts.WriteScopes) > 0 && r.Method == http.MethodPost {
		if b, err := peekBody(r); err == nil && strings.Contains(b, `"tools/call"`) {
			need = append(slices.Clone(need), s.opts.WriteScopes...)
		}
	}
	for _, n := range need {
		if !slices.Contains(scopes, n) {
			params = append(params, `error="insufficient_scope"`, fmt.Sprintf(`scope="%s"`, strings.Join(need, " ")))
			w.Header().Set("WWW-Authenticate", challenge+" "+strings.Join(params, ", "))
			writeJSON(w, 403, map[string]string{"error": "insufficient_scope"})
			return
		}
	}
	if next != nil {
		next.ServeHTTP(w, r)
		return
	}
	w.WriteHeader(200)
	_, _ = w.Write([]byte("ok"))
}

// Protect makes authorized MCP requests reach h (e.g. an mcp-go streamable
// HTTP server).
func (s *Server) Protect(h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inner = h
}

// EchoMCP is a real, stateless streamable-HTTP MCP server with one tool,
// "echo", that answers "hello": something for Protect to guard in tests
// outside mcpconn, which must not import mcp-go themselves.
func EchoMCP() http.Handler {
	srv := server.NewMCPServer("protected", "1.0.0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("echo", mcp.WithDescription("echo")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello"), nil
	})
	return server.NewStreamableHTTPServer(srv, server.WithStateLess(true))
}
