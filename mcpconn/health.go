package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"crewbench/session"
)

// Health is the verdict of a bare GET to an HTTP MCP endpoint.
type Health string

// Health verdicts (the deployment seeds' curl check).
const (
	HealthOK        Health = "healthy"    // 406: a streamable-HTTP endpoint refusing a GET without the MCP Accept header
	HealthStream    Health = "sse_stream" // 200 text/event-stream: an SSE endpoint (or a GET stream)
	HealthWrongPath Health = "wrong_path" // 404
	HealthAuth      Health = "auth"       // 401 / 403
	HealthDown      Health = "down"       // connection refused, DNS failure, timeout
	HealthOther     Health = "unexpected" // anything else
)

// HealthResult is one probe.
type HealthResult struct {
	URL      string        `json:"url"` // redacted
	Status   int           `json:"status,omitempty"`
	Health   Health        `json:"health"`
	Detail   string        `json:"detail"`
	Duration time.Duration `json:"duration_ns"`
}

// ProbeHTTP sends a bare GET (no MCP headers, no body read beyond a peek)
// to url within timeout, the equivalent of
// `curl -s -o /dev/null -w "%{http_code}" URL`: 406 healthy, 404 wrong path,
// 401/403 auth, connection refused = down. headers are sent as given (so an
// auth check can pass its token).
func ProbeHTTP(ctx context.Context, url string, headers map[string]string, timeout time.Duration) HealthResult {
	r := HealthResult{URL: session.RedactURL(url)}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc := newHTTPClient(timeout, DefaultMaxMessage, nil)
	defer hc.CloseIdleConnections()
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		r.Health, r.Detail = HealthOther, fmt.Sprintf("bad URL: %v", err)
		return r
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	r.Duration = time.Since(start)
	if err != nil {
		r.Health = HealthDown
		var dnsErr *net.DNSError
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			r.Detail = "connection refused: nothing listens there"
		case errors.As(err, &dnsErr):
			r.Detail = "DNS lookup failed: " + dnsErr.Err
		case ctx.Err() != nil:
			r.Detail = fmt.Sprintf("no response within %s", timeout)
		default:
			r.Detail = session.RedactString(err.Error())
		}
		return r
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	switch {
	case resp.StatusCode == http.StatusNotAcceptable:
		r.Health, r.Detail = HealthOK, "406 Not Acceptable: a streamable-HTTP MCP endpoint"
	case resp.StatusCode == http.StatusNotFound:
		r.Health, r.Detail = HealthWrongPath, "404 Not Found: nothing serves MCP at this path (streamable HTTP usually lives at /mcp)"
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		r.Health, r.Detail = HealthAuth, fmt.Sprintf("%d %s: the endpoint wants credentials", resp.StatusCode, http.StatusText(resp.StatusCode))
	case resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") == "text/event-stream":
		r.Health, r.Detail = HealthStream, "200 event stream: an SSE endpoint, or a server that accepts a bare GET stream"
	case resp.StatusCode == http.StatusBadRequest && looksLikeMCP(resp):
		// Measured: the TypeScript SDK's streamable-HTTP server answers a
		// bare GET with 400 and a JSON-RPC error about the missing session.
		r.Health, r.Detail = HealthOK, "400 with a JSON-RPC error: a streamable-HTTP MCP endpoint that wants a session"
	case resp.StatusCode == http.StatusMethodNotAllowed:
		r.Health, r.Detail = HealthOK, "405 Method Not Allowed: a streamable-HTTP endpoint without a GET stream"
	default:
		r.Health, r.Detail = HealthOther, fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return r
}

// looksLikeMCP peeks at an error body for JSON-RPC or MCP session words.
func looksLikeMCP(resp *http.Response) bool {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	low := strings.ToLower(string(b))
	return strings.Contains(low, "jsonrpc") || strings.Contains(low, "session")
}
