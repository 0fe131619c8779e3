package names

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// StdioServerName is CrewAI's server_name for MCPServerStdio: the command and
// the args joined with "_", raw (no quoting; empty args leave a trailing "_").
func StdioServerName(command string, args []string) string {
	return command + "_" + strings.Join(args, "_")
}

// URLServerName is CrewAI's server_name for MCPServerHTTP, MCPServerSSE and
// https string refs: urlparse(url).netloc with "." → "_", then the path with
// "/" → "_" stripped of "_", joined with "_" when the path is non-empty. The
// scheme, query, fragment and ";params" are dropped; case, userinfo and port
// are kept. It fails only where Python's urlparse raises.
func URLServerName(rawURL string) (string, error) {
	u, err := PyURLParse(rawURL)
	if err != nil {
		return "", err
	}
	domain := strings.ReplaceAll(u.Netloc, ".", "_")
	path := strings.Trim(strings.ReplaceAll(u.Path, "/", "_"), "_")
	if path == "" {
		return domain, nil
	}
	return domain + "_" + path, nil
}

// PyURL is the result of Python's urllib.parse.urlparse.
type PyURL struct {
	Scheme, Netloc, Path, Params, Query, Fragment string
}

// Hostname mirrors Python's ParseResult.hostname: the netloc without
// userinfo and port, IPv6 brackets removed, lowercased except for an IPv6
// zone after "%".
func (u PyURL) Hostname() string {
	h := u.Netloc
	if i := strings.LastIndex(h, "@"); i >= 0 {
		h = h[i+1:]
	}
	if _, bracketed, ok := strings.Cut(h, "["); ok {
		h, _, _ = strings.Cut(bracketed, "]")
	} else {
		h, _, _ = strings.Cut(h, ":")
	}
	host, zone, hasZone := strings.Cut(h, "%")
	if hasZone {
		return strings.ToLower(host) + "%" + zone
	}
	return strings.ToLower(host)
}

const schemeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-."

// PyURLParse reproduces Python 3.11's urllib.parse.urlparse closely enough
// for server naming: leading C0/space stripped, tab/CR/LF removed, scheme
// split only when it is made of scheme characters and starts with an ASCII
// letter, netloc after "//" up to the first of "/?#", fragment then query
// split, and ";params" split from the last path segment only for the schemes
// in Python's uses_params. It fails where urlsplit raises ValueError:
// unbalanced IPv6 brackets, a bracketed host that is not an IPv6 address or
// IPvFuture literal, and a non-ASCII netloc whose NFKC form contains one of
// "/?#@:".
func PyURLParse(raw string) (PyURL, error) {
	var u PyURL
	s := strings.TrimLeft(raw, whatwgC0ControlOrSpace)
	s = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(s)
	if i := strings.IndexByte(s, ':'); i > 0 && isASCIILetter(s[0]) && allIn(s[:i], schemeChars) {
		u.Scheme = strings.ToLower(s[:i])
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		rest := s[2:]
		end := len(rest)
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			end = j
		}
		u.Netloc, s = rest[:end], rest[end:]
		open, closed := strings.Contains(u.Netloc, "["), strings.Contains(u.Netloc, "]")
		if open != closed {
			return PyURL{}, fmt.Errorf("invalid URL %q: Invalid IPv6 URL", raw)
		}
		if open {
			host := u.Netloc[strings.Index(u.Netloc, "[")+1:]
			if j := strings.Index(host, "]"); j >= 0 {
				host = host[:j]
			}
			if !validBracketedHost(host) {
				return PyURL{}, fmt.Errorf("invalid URL %q: %q does not appear to be an IPv4 or IPv6 address", raw, host)
			}
		}
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		u.Fragment, s = s[i+1:], s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		u.Query, s = s[i+1:], s[:i]
	}
	if err := checkNetloc(u.Netloc); err != nil {
		return PyURL{}, fmt.Errorf("invalid URL %q: %w", raw, err)
	}
	// urlparse splits ;params off the last path segment only, and only for
	// the schemes in urllib.parse.uses_params ("" included).
	if usesParams[u.Scheme] {
		last := strings.LastIndexByte(s, '/') + 1
		if i := strings.IndexByte(s[last:], ';'); i >= 0 {
			i += last
			u.Params, s = s[i+1:], s[:i]
		}
	}
	u.Path = s
	return u, nil
}

// whatwgC0ControlOrSpace is what urlsplit strips from the left of a URL.
const whatwgC0ControlOrSpace = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "

// usesParams is Python 3.11's urllib.parse.uses_params.
var usesParams = map[string]bool{
	"": true, "ftp": true, "hdl": true, "prospero": true, "http": true, "imap": true,
	"https": true, "shttp": true, "rtsp": true, "rtsps": true, "rtspu": true,
	"sip": true, "sips": true, "mms": true, "sftp": true, "tel": true,
}

// checkNetloc mirrors urllib.parse._checknetloc: a non-ASCII netloc is
// rejected when NFKC normalisation (what IDNA applies) turns some character
// into one of the URL delimiters, e.g. U+2100 "℀" into "a/c".
func checkNetloc(netloc string) error {
	if netloc == "" || isASCII(netloc) {
		return nil
	}
	n := strings.NewReplacer("@", "", ":", "", "#", "", "?", "").Replace(netloc)
	n2 := norm.NFKC.String(n)
	if n == n2 {
		return nil
	}
	if strings.ContainsAny(n2, "/?#@:") {
		return fmt.Errorf("netloc %q contains invalid characters under NFKC normalization", netloc)
	}
	return nil
}

// validBracketedHost mirrors Python 3.11.4+'s _check_bracketed_host: an IPv6
// address (zone allowed) or an IPvFuture literal "v<hex>.<chars>" (lowercase
// "v" only; "V…" goes to ipaddress and fails).
func validBracketedHost(h string) bool {
	if strings.HasPrefix(h, "v") {
		dot := strings.IndexByte(h, '.')
		return dot > 1 && dot < len(h)-1 && allIn(h[1:dot], "0123456789abcdefABCDEF")
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Is6()
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// NativeTool is how the native path (MCPServerStdio/HTTP/SSE, AMP) names one
// remote tool: display = server_name + "_" + sanitize(remote); LLM name =
// sanitize(display). Skipped is true when the remote name sanitizes to empty,
// which makes CrewAI drop the tool.
func NativeTool(serverName, remote string) (display, llm string, skipped bool) {
	key := Sanitize(remote)
	if key == "" {
		return "", "", true
	}
	display = serverName + "_" + key
	return display, Sanitize(display), false
}
