package serve

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// HTTPLimits bound what clients of `serve --http` may take.
type HTTPLimits struct {
	// MaxBody bounds one request body (default MaxMessage); a larger one
	// gets 413 before it is read.
	MaxBody int64
	// SessionIdle ends an MCP session unused for this long (default 10
	// min), so clients that never send DELETE cannot pile up sessions.
	SessionIdle time.Duration
	// MaxSessions bounds the live MCP sessions (default 64); another
	// initialize gets 503.
	MaxSessions int
	// ReadHeaderTimeout, ReadTimeout and IdleTimeout are net/http's
	// (defaults 10 s, 60 s, 120 s): a client that sends headers and then
	// nothing is cut off.
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
}

// DefaultHTTPLimits are the limits a zero field takes.
var DefaultHTTPLimits = HTTPLimits{MaxBody: MaxMessage, SessionIdle: 10 * time.Minute, MaxSessions: 64,
	ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}

func (l HTTPLimits) withDefaults() HTTPLimits {
	d := DefaultHTTPLimits
	if l.MaxBody > 0 {
		d.MaxBody = l.MaxBody
	}
	if l.SessionIdle > 0 {
		d.SessionIdle = l.SessionIdle
	}
	if l.MaxSessions > 0 {
		d.MaxSessions = l.MaxSessions
	}
	if l.ReadHeaderTimeout > 0 {
		d.ReadHeaderTimeout = l.ReadHeaderTimeout
	}
	if l.ReadTimeout > 0 {
		d.ReadTimeout = l.ReadTimeout
	}
	if l.IdleTimeout > 0 {
		d.IdleTimeout = l.IdleTimeout
	}
	return d
}

// IsLoopback reports whether a listen address (host:port) binds loopback
// only: 127.0.0.0/8, ::1 or localhost. ":8765" binds every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guard stands before mcp-go's handler: Origin, token, body size, the
// screen and the session count, in that order.
type guard struct {
	next   http.Handler
	screen *screen
	token  string
	lim    HTTPLimits

	mu       sync.Mutex
	sessions map[string]time.Time // Mcp-Session-Id → last request
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
		// A web page must not drive a local server (DNS rebinding, CSRF).
		http.Error(w, "Forbidden: origin "+o+" is not allowed", http.StatusForbidden)
		return
	}
	if g.token != "" && !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="crewbench serve"`)
		http.Error(w, "Unauthorized: send Authorization: Bearer <token> (printed when serve started)", http.StatusUnauthorized)
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method == http.MethodPost {
		if r.ContentLength > g.lim.MaxBody {
			http.Error(w, fmt.Sprintf("Request Entity Too Large: over %d bytes", g.lim.MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, g.lim.MaxBody+1))
		if err != nil {
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if int64(len(body)) > g.lim.MaxBody {
			http.Error(w, fmt.Sprintf("Request Entity Too Large: over %d bytes", g.lim.MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		if reply := g.screen.check(body); reply != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(statusOf(reply))
			_, _ = w.Write(reply)
			return
		}
		if sid == "" && isInitialize(body) && !g.roomForSession() {
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("Service Unavailable: %d MCP sessions are open; close one (DELETE) or wait for idle ones to expire", g.lim.MaxSessions), http.StatusServiceUnavailable)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if sid != "" {
		g.touch(sid, r.Method == http.MethodDelete)
	}
	g.next.ServeHTTP(&sessionWriter{ResponseWriter: w, g: g, had: sid}, r)
}

func (g *guard) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(g.token)) == 1
}

// roomForSession drops idle sessions and says whether another fits.
func (g *guard) roomForSession() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	for id, last := range g.sessions {
		if now.Sub(last) > g.lim.SessionIdle {
			delete(g.sessions, id)
		}
	}
	return len(g.sessions) < g.lim.MaxSessions
}

func (g *guard) touch(sid string, closing bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if closing {
		delete(g.sessions, sid)
		return
	}
	g.sessions[sid] = time.Now()
}

// sessionWriter notes the session id mcp-go hands out on initialize.
type sessionWriter struct {
	http.ResponseWriter
	g   *guard
	had string
}

func (s *sessionWriter) WriteHeader(code int) {
	if id := s.Header().Get("Mcp-Session-Id"); id != "" && id != s.had && code < 300 {
		s.g.touch(id, false)
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionWriter) Write(b []byte) (int, error) {
	if id := s.Header().Get("Mcp-Session-Id"); id != "" && id != s.had {
		s.g.touch(id, false)
		s.had = id
	}
	return s.ResponseWriter.Write(b)
}

// Flush keeps SSE responses streaming through the wrapper.
func (s *sessionWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func isInitialize(body []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "initialize"
}

func statusOf(reply []byte) int {
	if bytes.Contains(reply, []byte(`"code":-32600`)) {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
