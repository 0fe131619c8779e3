package mcpconn

import (
	"strings"

	"crewbench/session"
)

// AuthHint says what to do when an HTTP or SSE server answered 401 (class
// session.OutcomeAuth, text naming the status), or "" for any other
// failure. Under CrewAI's policies (and for discovery, which is what a
// crew's resolver does) the fix is a token in the configured headers,
// because CrewAI never runs the OAuth flow; under crewbench's session
// policy it is a stored token.
func AuthHint(spec ServerSpec, class, text string, p Policy) string {
	if !Unauthorized(spec, class, text) {
		return ""
	}
	url := session.RedactURL(stripFragment(spec.URL))
	switch {
	case HasHeader(spec.Headers, "Authorization"):
		return "the server refuses the configured Authorization header: the token is wrong or expired (a new one: `crewbench auth login " + url + "`)"
	case p == PolicySession:
		return "this server needs OAuth — run `crewbench auth login " + url + "`; crewbench's session policy then sends the stored token"
	}
	return "CrewAI sends only the configured headers; this server needs OAuth — run `crewbench auth login " + url +
		"` and put the token in headers (see export-config)"
}

// Unauthorized reports whether a failure (its Outcome* class and text) is
// an HTTP or SSE server's 401 Unauthorized: the server wants a token. A 403
// shares the class but says the token it got is not enough.
func Unauthorized(spec ServerSpec, class, text string) bool {
	return class == session.OutcomeAuth && spec.Transport != TransportStdio && strings.Contains(text, "401")
}
