package names

import "sort"

// Severity says how much a diagnostic matters.
type Severity string

// Severities.
const (
	// SeverityError: the name will make a run fail or a tool unusable.
	SeverityError Severity = "error"
	// SeverityWarning: the name works but hurts (hidden, unstable, leaky,
	// or silently different from what the user asked for).
	SeverityWarning Severity = "warning"
	// SeverityInfo: worth knowing; nothing is wrong.
	SeverityInfo Severity = "info"
)

// Code identifies a diagnostic. Codes are stable: scripts and the UI key on
// them.
type Code string

// Diagnostic codes.
const (
	// CodeNameHashed: the name was cut to 55 characters and given a hash,
	// so the tool's own name is no longer (fully) visible to the LLM.
	CodeNameHashed Code = "name_hashed"
	// CodeLeadingDigit: the LLM name starts with a digit; native function
	// calling with OpenAI, Anthropic, Azure, Bedrock and Gemini fails.
	CodeLeadingDigit Code = "leading_digit"
	// CodeEmptyName: the LLM name is empty; native providers refuse it.
	CodeEmptyName Code = "empty_name"
	// CodeServerPath: a stdio server name contains an absolute or home path.
	CodeServerPath Code = "server_path"
	// CodeIPHost: the server URL's host is an IP address.
	CodeIPHost Code = "ip_host"
	// CodeCredentialsInURL: the URL carries credentials (userinfo or a
	// secret-looking query parameter).
	CodeCredentialsInURL Code = "credentials_in_url"
	// CodeCollision: two tools reach the LLM under one name.
	CodeCollision Code = "collision"
	// CodeToolDropped: the remote name sanitizes to empty and the native
	// resolver skips the tool.
	CodeToolDropped Code = "tool_dropped"
	// CodeToolNameEmpty: on the https-string path a remote name that
	// sanitizes to empty is kept, leaving only the server name.
	CodeToolNameEmpty Code = "tool_name_empty"
	// CodeLongPrefix: the server prefix takes more than 45 of the 64
	// characters.
	CodeLongPrefix Code = "long_prefix"
	// CodeHTTPSCallName: an https string ref calls the tool by its
	// sanitized name, which differs from the remote name.
	CodeHTTPSCallName Code = "https_call_name"
	// CodeNotSelected: a "#tool" fragment excluded the tool.
	CodeNotSelected Code = "not_selected"
	// CodeSuffixMatch: an AMP "#tool" fragment kept a different tool whose
	// name merely ends in "_tool".
	CodeSuffixMatch Code = "suffix_match"
	// CodeFragmentList: a "#a,b" fragment; it names one tool, not a list.
	CodeFragmentList Code = "fragment_list"
	// CodeServerKeyAssumed: another host's scheme needs the server's config
	// key and none was given.
	CodeServerKeyAssumed Code = "server_key_assumed"
	// CodeHostNameRejected: another host's raw name breaks a provider rule.
	CodeHostNameRejected Code = "host_name_rejected"
)

// Diagnostic is one finding about a name: what is wrong and why (Message,
// one line) and what to do about it (Fix, one line).
type Diagnostic struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

// severityOf is the fixed severity of each code.
var severityOf = map[Code]Severity{
	CodeNameHashed:       SeverityWarning,
	CodeLeadingDigit:     SeverityError,
	CodeEmptyName:        SeverityError,
	CodeServerPath:       SeverityWarning,
	CodeIPHost:           SeverityWarning,
	CodeCredentialsInURL: SeverityWarning,
	CodeCollision:        SeverityWarning,
	CodeToolDropped:      SeverityWarning,
	CodeToolNameEmpty:    SeverityWarning,
	CodeLongPrefix:       SeverityWarning,
	CodeHTTPSCallName:    SeverityWarning,
	CodeNotSelected:      SeverityInfo,
	CodeSuffixMatch:      SeverityInfo,
	CodeFragmentList:     SeverityWarning,
	CodeServerKeyAssumed: SeverityInfo,
	CodeHostNameRejected: SeverityError,
}

func newDiag(code Code, message, fix string) Diagnostic {
	return Diagnostic{Code: code, Severity: severityOf[code], Message: message, Fix: fix}
}

// Has reports whether diags contains code.
func Has(diags []Diagnostic, code Code) bool {
	for _, d := range diags {
		if d.Code == code {
			return true
		}
	}
	return false
}

// sortDiagnostics orders diagnostics errors first, then warnings, then
// notes, keeping the order they were found in within each severity.
func sortDiagnostics(d []Diagnostic) {
	rank := map[Severity]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}
	sort.SliceStable(d, func(i, j int) bool { return rank[d[i].Severity] < rank[d[j].Severity] })
}
