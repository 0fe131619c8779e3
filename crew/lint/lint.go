// Package lint checks a CrewAI project for the pitfalls the seed documents
// and the CrewAI source describe: string refs CrewAI rejects or resolves to
// nothing, tool filters that never match, tool names the LLM will not see,
// names hashed or broken by absolute paths and IP hosts, secrets written into
// config, servers that cannot work after deployment, inputs that are missing,
// and the crew-level validation errors CrewAI raises at kickoff.
//
// Static rules read only the loaded project (crew/project) and the project's
// Python files. Connected rules (Options.Connect) discover every server
// through mcpconn, concurrently and each under its own deadline, and check
// what CrewAI would really offer the LLM. A failed connection is a finding,
// never an error of Lint.
//
// Every finding has a stable code, a severity, the file:line:col it is
// about, a one-line message, an explanation and a concrete fix. Secrets are
// shown redacted.
package lint

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"crewbench/crew/project"
	"crewbench/session"
)

// Severity says how much a finding matters.
type Severity string

// Severities, strongest first.
const (
	// Error: CrewAI rejects the project, the run fails, or a tool the crew
	// relies on is silently missing.
	Error Severity = "error"
	// Warning: the crew runs but behaves differently from what the files
	// suggest, leaks a secret, or will break after deployment.
	Warning Severity = "warning"
	// Info: worth knowing for crewbench or for the reader; nothing is wrong.
	Info Severity = "info"
)

func (s Severity) rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Finding is one problem found in a project.
type Finding struct {
	// Code is stable: scripts, the UI and tests key on it (see Rules).
	Code     string      `json:"code"`
	Severity Severity    `json:"severity"`
	Pos      project.Pos `json:"pos"`
	// Message says what is wrong, in one line.
	Message string `json:"message"`
	// Explanation says why it matters (what CrewAI does with it).
	Explanation string `json:"explanation,omitempty"`
	// Fix is what to write instead, as concretely as the finding allows.
	Fix string `json:"fix"`
	// Related are other places involved (the other tool of a collision,
	// the declaration a name comes from).
	Related []project.Pos `json:"related,omitempty"`
	// Server is the project server the finding is about, if any.
	Server string `json:"server,omitempty"`
	// Connected is true for findings that needed a live connection.
	Connected bool `json:"connected,omitempty"`
	// Omitted is set on a summary: it stands for this many findings of
	// Code and Severity in the file that are not listed (Options.MaxPerRule).
	Omitted int `json:"omitted,omitempty"`
}

// Location is "file:line:col", or "(project)" when the finding has no file.
func (f Finding) Location() string {
	if s := f.Pos.String(); s != "" {
		return s
	}
	return "(project)"
}

// Options tune Lint.
type Options struct {
	// LoadErrors are the errors project.Open returned with the project;
	// each becomes a finding (classified where a rule knows the error).
	LoadErrors project.Errors
	// Connect enables the connected rules: every server that can be
	// connected is discovered through mcpconn.
	Connect bool
	// ServerTimeout bounds the discovery of one server (default 20 s). A
	// server that does not answer in time is reported as a finding.
	ServerTimeout time.Duration
	// Concurrency is how many servers are discovered at once (default 4).
	Concurrency int
	// Emitter receives mcpconn's events during discovery (nil: dropped).
	Emitter *session.Emitter
	// HasOAuthToken reports whether crewbench holds an OAuth token for a
	// server URL (mcpconn/oauth's token store; nil: none known). Such a
	// server wants OAuth, which CrewAI will not do: its config must send
	// the token in an Authorization header.
	HasOAuthToken func(serverURL string) bool
	// MaxPerRule is how many findings of one code and severity one file
	// lists; the rest become one summary finding (0: DefaultMaxPerRule,
	// negative: no limit). 20,000 generated servers gave 110,000 findings
	// and 35 MB of text.
	MaxPerRule int
}

// DefaultMaxPerRule is Options.MaxPerRule's default.
const DefaultMaxPerRule = 50

// DefaultServerTimeout bounds one server's discovery in connected lint.
// CrewAI itself would wait up to 30 s to connect plus 3 × 30 s to list; a
// linter reports a server that slow rather than waiting that long.
const DefaultServerTimeout = 20 * time.Second

// Lint checks p and returns its findings sorted by file, line and column.
// It never fails: problems it meets (a server that cannot be reached, a
// Python file it cannot read) are findings too. ctx bounds the connected
// rules.
func Lint(ctx context.Context, p *project.Project, opts Options) []Finding {
	if p == nil {
		var out []Finding
		for _, e := range opts.LoadErrors {
			out = append(out, loaderErrorFinding(e))
		}
		return capPerRule(Sort(dedupe(out)), opts.MaxPerRule)
	}
	c := newChecker(p)
	c.hasOAuthToken = opts.HasOAuthToken
	c.loaderErrors(opts.LoadErrors)
	c.loaderNotes()
	c.python() // first: refs() needs to know whether the project awaits akickoff()
	c.servers()
	c.refs()
	c.filters()
	c.secrets()
	c.crewRules()
	c.inputs()
	c.tools()
	c.unresolved()
	c.promptsStatic()
	if opts.Connect {
		c.connected(ctx, opts)
	}
	return capPerRule(Sort(dedupe(c.out)), opts.MaxPerRule)
}

// capPerRule keeps the first limit findings (in sorted order) of each file,
// code and severity and replaces the rest with one summary finding at the
// first one left out.
func capPerRule(fs []Finding, limit int) []Finding {
	if limit == 0 {
		limit = DefaultMaxPerRule
	}
	if limit < 0 {
		return fs
	}
	type group struct {
		file, code string
		sev        Severity
	}
	total := map[group]int{}
	for _, f := range fs {
		total[group{f.Pos.File, f.Code, f.Severity}]++
	}
	shown := map[group]int{}
	out := fs[:0]
	var summaries []Finding
	for _, f := range fs {
		g := group{f.Pos.File, f.Code, f.Severity}
		switch shown[g]++; {
		case shown[g] <= limit:
			out = append(out, f)
		case shown[g] == limit+1:
			more := total[g] - limit
			summaries = append(summaries, Finding{Code: f.Code, Severity: f.Severity, Pos: f.Pos,
				Message:     fmt.Sprintf("… and %d more %s %s", more, f.Code, pluralWord(more, "finding", "findings")) + inFile(f.Pos.File) + fmt.Sprintf(", from here on (at most %d of one rule per file are listed)", limit),
				Explanation: f.Explanation,
				Fix:         "fix the ones listed first; crewbench lint --max-per-rule 0 lists every one",
				Omitted:     more})
		}
	}
	if len(summaries) == 0 {
		return out
	}
	return Sort(append(out, summaries...))
}

func inFile(file string) string {
	if file == "" {
		return ""
	}
	return " in " + file
}

// LintPath opens the project at path (with an optional overlay) and lints
// it. The error is non-nil only when no project could be opened at all;
// load errors of a project that was found are findings.
func LintPath(ctx context.Context, path, overlay string, opts Options) (*project.Project, []Finding, error) {
	p, err := project.Open(path, overlay)
	if p == nil {
		return nil, nil, err
	}
	if errs, ok := err.(project.Errors); ok {
		opts.LoadErrors = append(opts.LoadErrors, errs...)
	}
	return p, Lint(ctx, p, opts), nil
}

// Sort orders findings by file, line and column, then severity and code.
// Findings without a file come last.
func Sort(fs []Finding) []Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if (a.Pos.File == "") != (b.Pos.File == "") {
			return a.Pos.File != ""
		}
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Severity.rank() != b.Severity.rank() {
			return a.Severity.rank() < b.Severity.rank()
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
	return fs
}

// dedupe drops repeated findings: the same code, place, server and message
// (a static rule and its connected twin can see one mistake).
func dedupe(fs []Finding) []Finding {
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := f.Code + "|" + f.Pos.String() + "|" + f.Server + "|" + f.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// has reports whether a finding with code is already recorded at pos (the
// loader reported the mistake a model rule would find again).
func (c *checker) has(code string, pos project.Pos) bool {
	for _, f := range c.out {
		if f.Code == code && f.Pos == pos {
			return true
		}
	}
	return false
}

// Counts tallies findings by severity.
type Counts struct {
	Errors, Warnings, Infos int
	// Omitted of them are not listed: summaries stand for them.
	Omitted int
}

// Count tallies fs; a summary counts as the findings it stands for.
func Count(fs []Finding) Counts {
	var c Counts
	for _, f := range fs {
		n := 1
		if f.Omitted > 0 {
			n = f.Omitted
			c.Omitted += n
		}
		switch f.Severity {
		case Error:
			c.Errors += n
		case Warning:
			c.Warnings += n
		default:
			c.Infos += n
		}
	}
	return c
}

// ExitCode is `crewbench lint`'s exit status: 2 when there are errors, 1
// when there are warnings and strict is set, else 0.
func ExitCode(fs []Finding, strict bool) int {
	c := Count(fs)
	switch {
	case c.Errors > 0:
		return 2
	case strict && c.Warnings > 0:
		return 1
	}
	return 0
}

// checker carries one Lint run.
type checker struct {
	p   *project.Project
	out []Finding
	// red replaces the project's known secret values in finding texts
	// (only those: the rules would hide the placeholders fixes show).
	red *session.Redactor
	// deploy is true when the project is meant to be deployed: a
	// pyproject.toml with [tool.crewai] (what `crewai deploy` ships).
	deploy bool
	// akickoff is where a Python file awaits crew.akickoff(), if anywhere.
	akickoff project.Pos
	// pyFiles are the project's Python files (read lazily).
	pyFiles []pyFile
	pyRead  bool
	// ipServers are servers already reported for an IP host (the connected
	// leading-digit rule does not repeat them).
	ipServers map[string]bool
	// hashedServers are servers already reported for hashed names.
	hashedServers map[string]bool
	// filterEntries already reported as not sanitized, "server|entry".
	unsanitized map[string]bool
	// hasOAuthToken is Options.HasOAuthToken.
	hasOAuthToken func(serverURL string) bool
	// oauthWarned are servers already warned about for OAuth.
	oauthWarned map[string]bool
}

func newChecker(p *project.Project) *checker {
	c := &checker{p: p, ipServers: map[string]bool{}, hashedServers: map[string]bool{}, unsanitized: map[string]bool{}, oauthWarned: map[string]bool{}}
	c.red = session.NewRedactor(p.SecretValues()...)
	c.deploy = deploymentProject(p.Dir)
	return c
}

// add records a finding, redacting secrets in its texts.
func (c *checker) add(f Finding) {
	if f.Severity == "" {
		f.Severity = ruleSeverity(f.Code)
	}
	if f.Explanation == "" {
		f.Explanation = ruleExplanation(f.Code)
	}
	f.Related = uniquePos(f.Related, f.Pos)
	f.Message = collapseLines(c.red.RedactMarked(f.Message))
	f.Fix = c.red.RedactMarked(f.Fix)
	f.Explanation = c.red.RedactMarked(f.Explanation)
	c.out = append(c.out, f)
}

// uniquePos drops repeated positions and the finding's own.
func uniquePos(ps []project.Pos, own project.Pos) []project.Pos {
	var out []project.Pos
	seen := map[project.Pos]bool{own: true}
	for _, p := range ps {
		if p.IsValid() && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// collapseLines keeps a message on one line: if it has line breaks, every
// whitespace run becomes one space.
func collapseLines(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
