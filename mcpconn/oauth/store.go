package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"crewbench/session"
)

// Token is what the store keeps for one MCP server: the tokens and what is
// needed to refresh them without discovering again.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scope        string    `json:"scope,omitempty"`
	Resource     string    `json:"resource,omitempty"`
	// Issuer and TokenEndpoint are the authorization server that issued it.
	Issuer        string       `json:"issuer,omitempty"`
	TokenEndpoint string       `json:"token_endpoint,omitempty"`
	Client        Registration `json:"client"`
	Obtained      time.Time    `json:"obtained"`
}

// Registration is the OAuth client crewbench acts as towards one
// authorization server.
type Registration struct {
	ID          string `json:"client_id"`
	Secret      string `json:"client_secret,omitempty"`
	AuthMethod  string `json:"token_endpoint_auth_method,omitempty"`
	RedirectURI string `json:"redirect_uri,omitempty"`
	// Registered says the client was registered dynamically (RFC 7591), so
	// it can be reused for the same authorization server.
	Registered bool `json:"registered,omitempty"`
}

// expired says the access token is past (or within a minute of) its expiry.
func (t *Token) expired(now time.Time) bool {
	return !t.Expiry.IsZero() && now.Add(time.Minute).After(t.Expiry)
}

// Store is the token file: one JSON object, mode 0600, keyed by the
// server's canonical URL, plus the dynamically registered clients per
// authorization server.
type Store struct {
	Path string
	mu   sync.Mutex
}

type storeFile struct {
	Tokens  map[string]*Token        `json:"tokens"`
	Clients map[string]*Registration `json:"clients,omitempty"`
}

// DefaultStorePath is $XDG_STATE_HOME/crewbench/oauth-tokens.json, or
// ~/.local/state/crewbench/oauth-tokens.json when XDG_STATE_HOME is unset
// or not absolute (as the XDG spec says).
func DefaultStorePath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "crewbench", "oauth-tokens.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("token store: %w", err)
	}
	return filepath.Join(home, ".local", "state", "crewbench", "oauth-tokens.json"), nil
}

func (s *Store) load() (*storeFile, error) {
	f := &storeFile{Tokens: map[string]*Token{}, Clients: map[string]*Registration{}}
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("token store %s: %w", s.Path, err)
	}
	if f.Tokens == nil {
		f.Tokens = map[string]*Token{}
	}
	if f.Clients == nil {
		f.Clients = map[string]*Registration{}
	}
	for _, t := range f.Tokens {
		markSecret(t)
	}
	for _, c := range f.Clients {
		session.AddSecretValues(c.Secret)
	}
	return f, nil
}

// save writes the file atomically with mode 0600 (a temp file in the same
// directory, renamed over the old one), the directory 0700.
func (s *Store) save(f *storeFile) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), ".oauth-tokens-*")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// Get returns the stored token for the server URL.
func (s *Store) Get(serverURL string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	return f.Tokens[CanonicalURL(serverURL)], nil
}

// Put stores the token for the server URL, and its client for reuse when
// it was registered dynamically.
func (s *Store) Put(serverURL string, t *Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	f.Tokens[CanonicalURL(serverURL)] = t
	if t.Client.Registered && t.Issuer != "" {
		c := t.Client
		f.Clients[t.Issuer] = &c
	}
	return s.save(f)
}

// Delete removes the server's token; it reports whether there was one.
func (s *Store) Delete(serverURL string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return false, err
	}
	key := CanonicalURL(serverURL)
	if _, ok := f.Tokens[key]; !ok {
		return false, nil
	}
	delete(f.Tokens, key)
	return true, s.save(f)
}

// registeredClient returns a dynamically registered client for the issuer.
func (s *Store) registeredClient(issuer string) (*Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	return f.Clients[issuer], nil
}

// Servers lists the server URLs that have a stored token, sorted.
func (s *Store) Servers() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(f.Tokens))
	for k := range f.Tokens {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// markSecret registers the token's secrets with the process-wide redactor,
// so no output, recording or trace shows them.
func markSecret(t *Token) {
	session.AddSecretValues(t.AccessToken, t.RefreshToken, t.Client.Secret)
}

// Has reports whether a token is stored for the server URL; a store that
// cannot be read holds none.
func (s *Store) Has(serverURL string) bool {
	t, err := s.Get(serverURL)
	return err == nil && t != nil
}
