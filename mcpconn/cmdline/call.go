package cmdline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"crewbench/mcpconn"
	"crewbench/session"
)

// Flag is one flag of `crewbench call` that says which call to make. The
// CLI registers it under Name with Usage; CallLine writes it as Arg.
type Flag struct {
	Name  string
	Usage string
}

// Arg is the flag as written on a command line.
func (f Flag) Arg() string { return "--" + f.Name }

// CallFlags are the flags of `crewbench call` (and of `crewbench tools`
// for the server) that CallLine writes.
var CallFlags = struct {
	Stdio, URL, SSE, Header, Env                      Flag
	Args, Policy, Timeout, Attempts, Backoff, Connect Flag
}{
	Stdio:    Flag{"stdio", `stdio server command line, split like a shell would but run without one ("cmd arg…")`},
	URL:      Flag{"url", "streamable-HTTP server URL (with --sse: an SSE endpoint)"},
	SSE:      Flag{"sse", "the --url is a legacy HTTP+SSE endpoint"},
	Header:   Flag{"header", "HTTP header `K=V` for --url (repeatable)"},
	Env:      Flag{"env", "environment variable `K=V` for a --stdio server, on top of CrewAI's six (repeatable)"},
	Args:     Flag{"args", "tool arguments as a JSON object"},
	Policy:   Flag{"policy", "call policy: native, https-string, adapter or session"},
	Timeout:  Flag{"timeout", "per-attempt call timeout (CrewAI: 30s native, 60s https-string)"},
	Attempts: Flag{"attempts", "attempts per call (CrewAI: 3)"},
	Backoff:  Flag{"backoff", "first backoff between attempts, doubling (CrewAI: 1s)"},
	Connect:  Flag{"connect-timeout", "connect timeout (CrewAI: 30s)"},
}

// CallLine writes a call of tool on spec with args as a command line
// starting with self (how crewbench is invoked) and "call". Secret env
// values are written as references to shell variables of the same name,
// and red hides every other secret (headers, URL credentials, payloads),
// so the line is safe to paste anywhere.
func CallLine(self string, spec mcpconn.ServerSpec, tool string, args map[string]any, red *session.Redactor) string {
	f := CallFlags
	words := []string{self, "call"}
	switch spec.Transport {
	case mcpconn.TransportStdio:
		words = append(words, f.Stdio.Arg(), Quote(red.RedactString(Join(append([]string{spec.Command}, spec.Args...)))))
		for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
			if session.IsSecretName(k) {
				// Double quotes: the shell fills in the user's own value.
				words = append(words, f.Env.Arg(), fmt.Sprintf(`"%s=$%s"`, k, k))
			} else {
				words = append(words, f.Env.Arg(), Quote(k+"="+red.RedactString(spec.Env[k])))
			}
		}
	default:
		words = append(words, f.URL.Arg(), Quote(red.RedactURL(spec.URL)))
		if spec.Transport == mcpconn.TransportSSE {
			words = append(words, f.SSE.Arg())
		}
		h := red.RedactHeaders(spec.Headers)
		for _, k := range slices.Sorted(maps.Keys(h)) {
			words = append(words, f.Header.Arg(), Quote(k+"="+h[k]))
		}
	}
	words = append(words, Quote(tool))
	if args == nil {
		args = map[string]any{}
	}
	words = append(words, f.Args.Arg(), Quote(red.RedactString(argsJSON(args))))
	if spec.Policy != "" {
		words = append(words, f.Policy.Arg(), string(spec.Policy))
	}
	t := spec.Timeouts
	if t.Call > 0 {
		words = append(words, f.Timeout.Arg(), t.Call.String())
	}
	if t.Attempts > 0 {
		words = append(words, f.Attempts.Arg(), strconv.Itoa(t.Attempts))
	}
	if t.Backoff > 0 {
		words = append(words, f.Backoff.Arg(), t.Backoff.String())
	}
	if t.Connect > 0 {
		words = append(words, f.Connect.Arg(), t.Connect.String())
	}
	return strings.Join(words, " ")
}

// argsJSON is the --args value: compact JSON, with <, > and & as they
// are (the line is for a shell, not for HTML).
func argsJSON(args map[string]any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return fmt.Sprint(args)
	}
	return strings.TrimRight(b.String(), "\n")
}
