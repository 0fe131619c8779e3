package names

import (
	"fmt"
	"regexp"
	"strings"
)

// Scheme is a way of naming tools for the LLM. CrewAI's native naming is
// the default; the others let a user compare hosts (anchors.md §5.2).
type Scheme string

// Naming schemes.
const (
	// SchemeCrewAI is CrewAI's native naming (Agent.mcps configs, string
	// refs, plain tools): sanitize(server_name + "_" + sanitize(tool)).
	SchemeCrewAI Scheme = "crewai"
	// SchemeAdapter is crewai_tools.MCPServerAdapter: sanitize(tool), no
	// server prefix (§2.5).
	SchemeAdapter Scheme = "adapter"
	// SchemeClaudeCode is Claude Code: mcp__<server>__<tool>.
	SchemeClaudeCode Scheme = "claude-code"
	// SchemeCrush is Crush: mcp_<server>_<tool>.
	SchemeCrush Scheme = "crush"
	// SchemeMCPHost is mcphost: <server>__<tool>.
	SchemeMCPHost Scheme = "mcphost"
)

// Schemes lists every scheme, CrewAI first.
func Schemes() []Scheme {
	return []Scheme{SchemeCrewAI, SchemeAdapter, SchemeClaudeCode, SchemeCrush, SchemeMCPHost}
}

// ParseScheme accepts a scheme name; "" means SchemeCrewAI.
func ParseScheme(s string) (Scheme, error) {
	if s == "" {
		return SchemeCrewAI, nil
	}
	for _, sc := range Schemes() {
		if string(sc) == s {
			return sc, nil
		}
	}
	names := make([]string, 0, len(Schemes()))
	for _, sc := range Schemes() {
		names = append(names, string(sc))
	}
	return "", fmt.Errorf("unknown naming scheme %q (want one of %s)", s, strings.Join(names, ", "))
}

// isOtherHost reports whether the scheme belongs to a host other than CrewAI.
func (s Scheme) isOtherHost() bool {
	return s == SchemeClaudeCode || s == SchemeCrush || s == SchemeMCPHost
}

// label is the host's name for messages.
func (s Scheme) label() string {
	switch s {
	case SchemeAdapter:
		return "CrewAI MCPServerAdapter"
	case SchemeClaudeCode:
		return "Claude Code"
	case SchemeCrush:
		return "Crush"
	case SchemeMCPHost:
		return "mcphost"
	default:
		return "CrewAI"
	}
}

// template is the scheme's pattern, for explanations.
func (s Scheme) template() string {
	switch s {
	case SchemeAdapter:
		return "sanitize(<tool>)"
	case SchemeClaudeCode:
		return "mcp__<server>__<tool>"
	case SchemeCrush:
		return "mcp_<server>_<tool>"
	case SchemeMCPHost:
		return "<server>__<tool>"
	default:
		return "sanitize(<server>_sanitize(<tool>))"
	}
}

// HostToolName is the name another host shows its LLM for tool on the
// server it knows as server (its config key, e.g. the key under
// "mcpServers").
//
// anchors.md §5.2 documents each host's pattern and no character rewriting,
// and the two hosts whose source it cites concatenate raw strings:
// mcphost's internal/tools/mcp.go formats "%s__%s" with the config key and
// the remote tool name, and Crush's internal/agent/tools/mcp-tools.go
// formats "mcp_%s_%s". Claude Code's rule comes from its SDK docs
// ("mcp__filesystem__list_files"); its source is not public, so nothing
// beyond the pattern is reproduced. The names are therefore not sanitized
// here; providerSafe reports when a provider would refuse one.
//
// For SchemeAdapter the server is ignored; for SchemeCrewAI use NativeTool.
func HostToolName(s Scheme, server, tool string) string {
	switch s {
	case SchemeAdapter:
		return AdapterToolName(tool)
	case SchemeClaudeCode:
		return "mcp__" + server + "__" + tool
	case SchemeCrush:
		return "mcp_" + server + "_" + tool
	case SchemeMCPHost:
		return server + "__" + tool
	default:
		_, llm, _ := NativeTool(server, tool)
		return llm
	}
}

// AdapterToolName is MCPServerAdapter's name for a remote tool: the
// sanitized remote name with no server prefix (§2.5).
func AdapterToolName(remote string) string { return Sanitize(remote) }

// openAIToolName is the OpenAI function-name rule quoted in anchors.md §5.2
// ("Provider rules"); Gemini additionally wants a letter or "_" first.
var openAIToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// providerSafe explains why a host's raw name would be rejected by the
// provider rules of anchors.md §5.2, or returns "".
func providerSafe(name string) string {
	switch {
	case !openAIToolName.MatchString(name):
		if len(name) > MaxLength {
			return fmt.Sprintf("it is %d characters long; OpenAI allows at most 64 (^[a-zA-Z0-9_-]{1,64}$)", len(name))
		}
		return "OpenAI allows only ^[a-zA-Z0-9_-]{1,64}$ in tool names"
	case !(isUpper(name[0]) || isLower(name[0]) || name[0] == '_'):
		return "Gemini rejects tool names that do not start with a letter or underscore"
	}
	return ""
}
