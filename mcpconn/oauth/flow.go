package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Token endpoint client authentication methods.
const (
	authBasic = "client_secret_basic"
	authPost  = "client_secret_post"
	authNone  = "none"
	authJWT   = "private_key_jwt"
)

// Defaults for Config's zero values.
const (
	DefaultHTTPTimeout = 15 * time.Second
	DefaultFlowTimeout = 5 * time.Minute
	// MaxStepUps bounds the re-authorizations one server's 403
	// insufficient_scope answers can cause in one process.
	MaxStepUps = 2
)

// Config is how crewbench identifies itself to authorization servers and
// how the user takes part.
type Config struct {
	// ClientID and ClientSecret are a pre-registered client; empty means
	// Client ID Metadata Document or dynamic registration.
	ClientID, ClientSecret string
	// ClientMetadataURL is an https URL of crewbench's client metadata
	// document, used as client_id when the server supports that.
	ClientMetadataURL string
	// ClientCredentials uses the client_credentials grant (a machine
	// client): ClientID with ClientSecret or PrivateKeyPEM, no user.
	ClientCredentials bool
	// PrivateKeyPEM signs a private_key_jwt client assertion (ES256/RS256).
	PrivateKeyPEM string
	// Headless fetches the authorization URL itself and takes the code
	// from the redirect, for authorization servers that answer without user
	// interaction (CI, the conformance suite). Otherwise the system browser
	// is opened (or the URL printed) and a loopback listener waits.
	Headless bool
	// Interactive allows a flow when a server answers 401; without it only
	// stored tokens are used (and refreshed).
	Interactive bool
	// Scope overrides scope selection.
	Scope string
	Store *Store
	// Log receives progress lines (the URL to open, what failed); nil drops them.
	Log func(string)
	// OpenBrowser opens a URL; nil means xdg-open / open / rundll32.
	OpenBrowser func(string) error
	// HTTPClient sends the flow's own requests; nil means a plain client.
	HTTPClient  *http.Client
	HTTPTimeout time.Duration // per request of the flow
	FlowTimeout time.Duration // a whole interactive flow
	Now         func() time.Time
}

// Client runs OAuth flows and keeps tokens for MCP servers.
type Client struct {
	cfg     Config
	mu      sync.Mutex // one flow at a time
	stepUps map[string]int
}

// New returns a client; cfg.Store must be set.
func New(cfg Config) *Client { return &Client{cfg: cfg, stepUps: map[string]int{}} }

func (c *Client) http() *http.Client {
	if c.cfg.HTTPClient != nil {
		return c.cfg.HTTPClient
	}
	return http.DefaultClient
}

func (c *Client) httpTimeout() time.Duration {
	if c.cfg.HTTPTimeout > 0 {
		return c.cfg.HTTPTimeout
	}
	return DefaultHTTPTimeout
}

func (c *Client) flowTimeout() time.Duration {
	if c.cfg.FlowTimeout > 0 {
		return c.cfg.FlowTimeout
	}
	return DefaultFlowTimeout
}

func (c *Client) now() time.Time {
	if c.cfg.Now != nil {
		return c.cfg.Now()
	}
	return time.Now()
}

func (c *Client) logf(format string, a ...any) {
	if c.cfg.Log != nil {
		c.cfg.Log(fmt.Sprintf(format, a...))
	}
}

// Stored returns a usable stored token for the server, refreshing an
// expired one; nil when there is none (or it cannot be refreshed).
func (c *Client) Stored(ctx context.Context, serverURL string) *Token {
	t, err := c.cfg.Store.Get(serverURL)
	if err != nil || t == nil {
		if err != nil {
			c.logf("crewbench oauth — %v", err)
		}
		return nil
	}
	if !t.expired(c.now()) {
		return t
	}
	nt, err := c.Refresh(ctx, serverURL, t)
	if err != nil {
		c.logf("crewbench oauth — refreshing the token for %s failed: %v", serverURL, err)
		return nil
	}
	return nt
}

// Login runs a full flow for the server (discovery, registration, grant)
// and stores the token. ch is the server's challenge, if one was seen;
// extraScope is added to the selected scopes (step-up).
func (c *Client) Login(ctx context.Context, serverURL string, ch Challenge, extraScope string) (*Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.login(ctx, serverURL, ch, extraScope)
}

func (c *Client) login(ctx context.Context, serverURL string, ch Challenge, extraScope string) (*Token, error) {
	d, err := c.Discover(ctx, serverURL, ch)
	if err != nil {
		return nil, err
	}
	scope := c.selectScope(d, ch, extraScope)
	var t *Token
	if c.cfg.ClientCredentials || c.machineOnly(d) {
		t, err = c.clientCredentials(ctx, d, scope)
	} else {
		t, err = c.authorizationCode(ctx, d, scope)
	}
	if err != nil {
		return nil, err
	}
	if err := c.cfg.Store.Put(serverURL, t); err != nil {
		return nil, err
	}
	return t, nil
}

// machineOnly: a pre-registered client facing a server that only grants
// client_credentials is a machine client whatever the flags say.
func (c *Client) machineOnly(d *Discovery) bool {
	return c.cfg.ClientID != "" && !d.Server.supportsGrant("authorization_code") && d.Server.supportsGrant("client_credentials")
}

// selectScope follows the spec's strategy: the challenge's scope, else the
// resource's scopes_supported, else none; plus offline_access when the
// authorization server lists it (crewbench wants a refresh token), plus
// the step-up scopes.
func (c *Client) selectScope(d *Discovery, ch Challenge, extra string) string {
	var scopes []string
	add := func(s string) {
		for _, f := range strings.Fields(s) {
			if !slices.Contains(scopes, f) {
				scopes = append(scopes, f)
			}
		}
	}
	switch {
	case c.cfg.Scope != "":
		add(c.cfg.Scope)
	case ch.Scope != "":
		add(ch.Scope)
	case d.ResourceMeta != nil && len(d.ResourceMeta.ScopesSupported) > 0:
		add(strings.Join(d.ResourceMeta.ScopesSupported, " "))
	}
	add(extra)
	if len(scopes) > 0 && !c.cfg.ClientCredentials && slices.Contains(d.Server.ScopesSupported, "offline_access") {
		add("offline_access")
	}
	return strings.Join(scopes, " ")
}

// ---- registration -------------------------------------------------------------

// client picks the client identity: pre-registered, a stored dynamic
// registration, a Client ID Metadata Document, or a new RFC 7591
// registration, in the spec's order.
func (c *Client) client(ctx context.Context, d *Discovery, redirectURI string) (Registration, error) {
	if c.cfg.ClientID != "" {
		r := Registration{ID: c.cfg.ClientID, Secret: c.cfg.ClientSecret, RedirectURI: redirectURI}
		r.AuthMethod = chooseAuthMethod(&d.Server, r.Secret != "", c.cfg.PrivateKeyPEM != "")
		return r, nil
	}
	if d.Server.ClientIDMetadataDocumentSupported && c.cfg.ClientMetadataURL != "" {
		return Registration{ID: c.cfg.ClientMetadataURL, AuthMethod: authNone, RedirectURI: redirectURI}, nil
	}
	if r, err := c.cfg.Store.registeredClient(d.Server.Issuer); err == nil && r != nil && r.RedirectURI == redirectURI {
		return *r, nil
	}
	if d.Server.RegistrationEndpoint == "" {
		return Registration{}, errors.New("the authorization server supports no dynamic client registration: give a pre-registered client (--client-id/--client-secret)")
	}
	return c.register(ctx, d, redirectURI)
}

// chooseAuthMethod picks a token endpoint auth method the server supports:
// none for a public client, else client_secret_basic, then _post.
func chooseAuthMethod(m *ServerMetadata, haveSecret, haveKey bool) string {
	methods := m.authMethods()
	switch {
	case haveKey && slices.Contains(methods, authJWT):
		return authJWT
	case !haveSecret:
		return authNone
	case slices.Contains(methods, authBasic):
		return authBasic
	case slices.Contains(methods, authPost):
		return authPost
	}
	return authBasic
}

func (c *Client) register(ctx context.Context, d *Discovery, redirectURI string) (Registration, error) {
	methods := d.Server.authMethods()
	method := authNone
	if !slices.Contains(methods, authNone) {
		method = chooseAuthMethod(&d.Server, true, false)
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "crewbench",
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	})
	ctx, cancel := context.WithTimeout(ctx, c.httpTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Server.RegistrationEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return Registration{}, fmt.Errorf("client registration: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http().Do(req)
	if err != nil {
		return Registration{}, fmt.Errorf("client registration: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return Registration{}, fmt.Errorf("client registration at %s: %s: %s", d.Server.RegistrationEndpoint, resp.Status, oauthError(b))
	}
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.ClientID == "" {
		return Registration{}, fmt.Errorf("client registration at %s: no client_id in the answer", d.Server.RegistrationEndpoint)
	}
	r := Registration{ID: out.ClientID, Secret: out.ClientSecret, AuthMethod: out.AuthMethod, RedirectURI: redirectURI, Registered: true}
	if r.AuthMethod == "" {
		r.AuthMethod = method
		if r.Secret != "" && method == authNone {
			r.AuthMethod = chooseAuthMethod(&d.Server, true, false)
		}
	}
	markSecret(&Token{Client: r})
	return r, nil
}

// ---- authorization code + PKCE -----------------------------------------------------

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// pkce returns an RFC 7636 verifier (43 characters) and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

type callbackResult struct {
	code, state, err string
}

func (c *Client) authorizationCode(ctx context.Context, d *Discovery, scope string) (*Token, error) {
	if d.Server.AuthorizationEndpoint == "" {
		return nil, errors.New("authorization server metadata has no authorization_endpoint")
	}
	// The loopback listener on 127.0.0.1 (RFC 8252 §7.3): the port of a
	// stored registration when it is free, else a random one.
	addr := "127.0.0.1:0"
	if r, err := c.cfg.Store.registeredClient(d.Server.Issuer); err == nil && r != nil {
		if u, err := url.Parse(r.RedirectURI); err == nil && u.Hostname() == "127.0.0.1" {
			addr = u.Host
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("loopback callback: %w", err)
		}
	}
	defer ln.Close()
	redirectURI := "http://" + ln.Addr().String() + "/callback"

	reg, err := c.client(ctx, d, redirectURI)
	if err != nil {
		return nil, err
	}
	verifier, challenge := pkce()
	state := randomString(16)
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {reg.ID},
		"redirect_uri":          {redirectURI},
		"code_challenge":        {challenge},
		"code_challenge_method": {"S256"},
		"state":                 {state},
		"resource":              {d.Resource},
	}
	if scope != "" {
		q.Set("scope", scope)
	}
	authURL := d.Server.AuthorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}

	var res callbackResult
	if c.cfg.Headless {
		res, err = c.followRedirects(ctx, authURL, redirectURI)
	} else {
		res, err = c.browser(ctx, ln, authURL)
	}
	if err != nil {
		return nil, err
	}
	if res.err != "" {
		return nil, fmt.Errorf("authorization refused: %s", res.err)
	}
	if res.state != state {
		return nil, errors.New("authorization callback: state does not match (possible CSRF): refusing the code")
	}
	if res.code == "" {
		return nil, errors.New("authorization callback carried no code")
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {res.code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
		"resource":      {d.Resource},
	}
	return c.tokenRequest(ctx, d.Server.TokenEndpoint, d.Server.Issuer, d.Resource, reg, form)
}

// followRedirects is the headless browser step: GET the authorization URL
// and follow its redirects until one points at the redirect URI.
func (c *Client) followRedirects(ctx context.Context, authURL, redirectURI string) (callbackResult, error) {
	hc := *c.http()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	next := authURL
	for range 10 {
		if strings.HasPrefix(next, redirectURI) {
			return parseCallback(next)
		}
		rctx, cancel := context.WithTimeout(ctx, c.httpTimeout())
		req, err := http.NewRequestWithContext(rctx, http.MethodGet, next, nil)
		if err != nil {
			cancel()
			return callbackResult{}, fmt.Errorf("authorization request: %w", err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			cancel()
			return callbackResult{}, fmt.Errorf("authorization request: %w", err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return callbackResult{}, fmt.Errorf("the authorization server wants user interaction (%s at %s): run `crewbench auth login` without --headless",
				resp.Status, strings.SplitN(next, "?", 2)[0])
		}
		base, _ := url.Parse(next)
		lu, err := base.Parse(loc)
		if err != nil {
			return callbackResult{}, fmt.Errorf("authorization redirect: %w", err)
		}
		next = lu.String()
	}
	return callbackResult{}, errors.New("authorization: too many redirects")
}

func parseCallback(raw string) (callbackResult, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return callbackResult{}, fmt.Errorf("authorization callback: %w", err)
	}
	q := u.Query()
	r := callbackResult{code: q.Get("code"), state: q.Get("state"), err: q.Get("error")}
	if d := q.Get("error_description"); d != "" {
		r.err += ": " + d
	}
	return r, nil
}

// browser opens the authorization URL in the system browser (and prints
// it) and waits for the loopback callback.
func (c *Client) browser(ctx context.Context, ln net.Listener, authURL string) (callbackResult, error) {
	done := make(chan callbackResult, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		res, _ := parseCallback(r.URL.String())
		page := "crewbench: authorized; you can close this tab.\n"
		if res.err != "" {
			page = "crewbench: authorization failed; you can close this tab.\n"
		}
		// The whole page goes out before the flow hears of the code: the
		// flow then closes the server, which would cut a response still
		// being written (the browser would show a broken connection).
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, page)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case done <- res:
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	c.logf("Open this URL to authorize crewbench:\n  %s", authURL)
	open := c.cfg.OpenBrowser
	if open == nil {
		open = OpenSystemBrowser
	}
	if err := open(authURL); err != nil {
		c.logf("(could not open a browser: %v)", err)
	}
	timeout := c.flowTimeout()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res, nil
	case <-timer.C:
		return callbackResult{}, fmt.Errorf("no authorization callback within %s", timeout)
	case <-ctx.Done():
		return callbackResult{}, fmt.Errorf("waiting for the authorization callback: %w", ctx.Err())
	}
}

// OpenSystemBrowser asks the desktop to open u (xdg-open, open or
// rundll32); it returns once the opener started.
func OpenSystemBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	// Reap it in the background: xdg-open returns once the browser has it.
	go func() { _ = cmd.Wait() }()
	return nil
}

// ---- token endpoint ------------------------------------------------------------------

// clientCredentials is the machine-to-machine grant (no user, no browser).
func (c *Client) clientCredentials(ctx context.Context, d *Discovery, scope string) (*Token, error) {
	if c.cfg.ClientID == "" {
		return nil, errors.New("the client_credentials grant needs a pre-registered client (--client-id with --client-secret or a private key)")
	}
	reg := Registration{ID: c.cfg.ClientID, Secret: c.cfg.ClientSecret}
	reg.AuthMethod = chooseAuthMethod(&d.Server, reg.Secret != "", c.cfg.PrivateKeyPEM != "")
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {d.Resource}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return c.tokenRequest(ctx, d.Server.TokenEndpoint, d.Server.Issuer, d.Resource, reg, form)
}

// Refresh exchanges the token's refresh token for a new one and stores it.
func (c *Client) Refresh(ctx context.Context, serverURL string, t *Token) (*Token, error) {
	if t.RefreshToken == "" || t.TokenEndpoint == "" {
		return nil, errors.New("no refresh token")
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}}
	if t.Resource != "" {
		form.Set("resource", t.Resource)
	}
	nt, err := c.tokenRequest(ctx, t.TokenEndpoint, t.Issuer, t.Resource, t.Client, form)
	if err != nil {
		return nil, err
	}
	if nt.RefreshToken == "" {
		// The server may keep the refresh token (RFC 6749 §6).
		nt.RefreshToken = t.RefreshToken
	}
	if nt.Scope == "" {
		nt.Scope = t.Scope
	}
	if err := c.cfg.Store.Put(serverURL, nt); err != nil {
		return nil, err
	}
	return nt, nil
}

func (c *Client) tokenRequest(ctx context.Context, endpoint, issuer, resource string, reg Registration, form url.Values) (*Token, error) {
	header := http.Header{}
	switch reg.AuthMethod {
	case authBasic:
		// RFC 6749 §2.3.1: both parts form-encoded before base64.
		header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString(
			[]byte(url.QueryEscape(reg.ID)+":"+url.QueryEscape(reg.Secret))))
	case authPost:
		form.Set("client_id", reg.ID)
		form.Set("client_secret", reg.Secret)
	case authJWT:
		aud := issuer
		if aud == "" {
			aud = endpoint
		}
		assertion, err := clientAssertion(c.cfg.PrivateKeyPEM, reg.ID, aud, c.now())
		if err != nil {
			return nil, err
		}
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", reg.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, c.httpTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("token request to %s (%s): %s: %s", endpoint, form.Get("grant_type"), resp.Status, oauthError(b))
	}
	var out struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		ExpiresIn    int64  `json:"expires_in"`
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("token response from %s: %w", endpoint, err)
	}
	if out.AccessToken == "" {
		return nil, fmt.Errorf("token response from %s has no access_token", endpoint)
	}
	if out.TokenType != "" && !strings.EqualFold(out.TokenType, "bearer") {
		return nil, fmt.Errorf("token response from %s: token_type %q is not Bearer", endpoint, out.TokenType)
	}
	now := c.now()
	t := &Token{AccessToken: out.AccessToken, TokenType: "Bearer", RefreshToken: out.RefreshToken, Scope: out.Scope,
		Resource: resource, Issuer: issuer, TokenEndpoint: endpoint, Client: reg, Obtained: now}
	if out.Scope == "" {
		t.Scope = form.Get("scope")
	}
	if out.ExpiresIn > 0 {
		t.Expiry = now.Add(time.Duration(out.ExpiresIn) * time.Second)
	}
	markSecret(t)
	return t, nil
}

// oauthError renders an RFC 6749 §5.2 error body (or a short raw body).
func oauthError(b []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		if e.Description != "" {
			return e.Error + ": " + e.Description
		}
		return e.Error
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
