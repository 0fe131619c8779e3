package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"crewbench/crew/lint"
	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/mcpconn/filter"
	"crewbench/names"
	"crewbench/session"
)

// ---- crewbench tools -------------------------------------------------------------

type toolsOpts struct {
	target  targetFlags
	allow   []string
	block   []string
	expr    string
	json    bool
	showEnv bool
	raw     bool
	adapter bool
	// compareCaps lists each server's tools a second time, declaring
	// elicitation, sampling and roots, to show what it hides from CrewAI.
	compareCaps bool
}

func newToolsCmd() *cobra.Command {
	o := &toolsOpts{}
	cmd := &cobra.Command{
		Use:   "tools [SERVER…] [--stdio \"cmd args\" | --url URL [--sse] [--header K=V]…]",
		Short: "Connect to MCP servers and list their tools with the names the LLM sees",
		Long: `tools connects to each server the way CrewAI's resolver does (a fresh
connection, CrewAI's timeouts), lists every tool and shows, per tool, the
original MCP name, the exact name the LLM sees, whether the tool filter keeps
it (and why), and naming diagnostics.

  crewbench tools --stdio "crewbench fixture weather" --allow getForecast
  crewbench tools --url http://127.0.0.1:8765/mcp --header "Authorization=Bearer $TOKEN"
  crewbench tools --stdio "npx -y @modelcontextprotocol/server-everything" --filter-expr 'tool.name.startsWith("get")'

--allow/--block are CrewAI's allowed_tool_names/blocked_tool_names (exact
match on the sanitized name, blocked beats allowed); --filter-expr is a CEL
expression over tool and context. --show-env shows the exact environment a stdio
server gets (secrets redacted). A token stored by 'crewbench auth login' is sent
to HTTP and SSE servers (the output says so: CrewAI sends only the configured
headers). Exit status: 0 when every server connected,
2 when one failed, 1 on usage errors.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runTools(cmd, o, args) },
	}
	o.target.register(cmd)
	fs := cmd.Flags()
	fs.StringSliceVar(&o.allow, "allow", nil, "allowed_tool_names (comma-separated, repeatable)")
	fs.StringSliceVar(&o.block, "block", nil, "blocked_tool_names (comma-separated, repeatable)")
	fs.StringVar(&o.expr, "filter-expr", "", "CEL filter over tool (name, original_name, description, input_schema, annotations) and context (agent_role, server_name)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	fs.BoolVar(&o.showEnv, "show-env", false, "show the exact environment each stdio server gets (secrets redacted)")
	fs.BoolVar(&o.raw, "raw", false, "with --json: include the raw tools/list pages")
	fs.BoolVar(&o.adapter, "adapter", false, "name tools as MCPServerAdapter does (bare sanitized names)")
	fs.BoolVar(&o.compareCaps, "compare-capabilities", false, "list each server's tools again as a client declaring elicitation, sampling and roots "+
		"(CrewAI's declares none) and show the tools it lists only to such a client")
	return cmd
}

// toolsReport is one server in `tools --json`.
type toolsReport struct {
	*mcpconn.Discovery
	// Cautions are crewbench's own warnings about the tools (what CrewAI
	// cannot do with them), apart from the Warnings CrewAI logs.
	Cautions    []string         `json:"cautions,omitempty"`
	Environment []mcpconn.EnvVar `json:"environment,omitempty"`
	// Health is a bare-GET probe of an HTTP server that failed to connect.
	Health *mcpconn.HealthResult `json:"health,omitempty"`
	// Where and Fix locate and fix an invalid server (outcome "invalid").
	Where string `json:"where,omitempty"`
	Fix   string `json:"fix,omitempty"`
	// Compared says --compare-capabilities listed the tools again as a
	// client declaring Declared; OnlyWithCapabilities are the tools listed
	// only then (CrewAI's agents never see them), CompareError why the
	// second listing failed.
	Compared             bool     `json:"compared_capabilities,omitempty"`
	CompareDeclared      []string `json:"compare_declared,omitempty"`
	OnlyWithCapabilities []string `json:"only_listed_with_capabilities,omitempty"`
	CompareError         string   `json:"compare_error,omitempty"`
}

// healthProbeTimeout bounds the diagnostic GET after a failed HTTP connect.
const healthProbeTimeout = 5 * time.Second

func runTools(cmd *cobra.Command, o *toolsOpts, args []string) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	specs, err := resolveNamed(ctx, &o.target.project, args, stderr)
	if err != nil {
		return exitCode(exitUsage, err)
	}
	var invalid []lint.Finding
	var loadErrs project.Errors
	if len(args) == 0 && !o.target.adHoc() {
		// No server named: every server of the project, if there is one.
		set, err := projectServers(ctx, &o.target.project)
		if err != nil {
			return exitCode(exitUsage, err)
		}
		specs, invalid, loadErrs = set.specs, set.invalid, set.loadErrs
		reportLoadErrors(stderr, loadErrs)
	}
	if o.target.adHoc() || (len(specs) == 0 && len(invalid) == 0) {
		s, err := o.target.spec()
		if err != nil {
			return exitCode(exitUsage, err)
		}
		specs = append(specs, s)
	}
	for i := range specs {
		if len(o.allow) > 0 || len(o.block) > 0 || o.expr != "" {
			specs[i].Filter = mcpconn.FilterSpec{Allowed: o.allow, Blocked: o.block, Expr: o.expr}
		}
		if o.adapter {
			specs[i].Policy = mcpconn.PolicyAdapter
		}
	}
	// Results are printed as soon as discovery is done; the servers exit
	// (and are reaped) meanwhile, and runTools waits for them before
	// returning.
	reaper := &mcpconn.Reaper{}
	defer reaper.Wait()
	// Listing tools is crewbench's own look at a server: a token stored by
	// `crewbench auth login` is sent (and the report says so, since CrewAI
	// would not send it).
	auth := storedTokenAuthorizer()
	reports := make([]toolsReport, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := mcpconn.Discover(ctx, s, mcpconn.Options{Reaper: reaper, Auth: auth})
			reports[i], errs[i] = toolsReport{Discovery: d, Cautions: toolCautions(d)}, err
			// A server that timed out would only time the probe out too,
			// past the deadline the user set.
			if err != nil && s.Transport == mcpconn.TransportHTTP && d.Outcome != session.OutcomeTimeout && ctx.Err() == nil {
				h := mcpconn.ProbeHTTP(ctx, s.URL, s.Headers, healthProbeTimeout)
				reports[i].Health = &h
			}
			if s.Transport == mcpconn.TransportStdio && (o.showEnv || o.json) {
				reports[i].Environment = mcpconn.RedactEnv(mcpconn.StdioEnvironment(s, nil))
			}
			if err == nil && o.compareCaps {
				reports[i].compareCapabilities(ctx, s, rootsFromDir(o.target.project.path), reaper)
			}
			if !o.raw {
				d.RawPages = nil
			}
		}()
	}
	wg.Wait()

	for _, f := range invalid {
		reports = append(reports, invalidRefReport(f))
	}
	failed := len(invalid) > 0
	for _, err := range errs {
		if err != nil {
			failed = true
		}
	}
	out := cmd.OutOrStdout()
	if o.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(reports); err != nil {
			return err
		}
	} else {
		for i, r := range reports {
			if i > 0 {
				fmt.Fprintln(out)
			}
			printDiscovery(out, r, o.showEnv)
		}
	}
	closeStdout(out)
	if failed {
		return silentExit{code: exitConnection}
	}
	if len(loadErrs) > 0 {
		// The servers work, but the project as a whole does not load.
		return silentExit{code: exitUsage}
	}
	return nil
}

// compareCapabilities lists the server's tools again under the session
// policy, declaring every capability crewbench can, and keeps the tools
// listed only then.
func (r *toolsReport) compareCapabilities(ctx context.Context, s mcpconn.ServerSpec, roots []mcpconn.Root, reaper *mcpconn.Reaper) {
	s.Policy = mcpconn.PolicySession
	features := mcpconn.ProbeFeatures(roots)
	r.Compared, r.CompareDeclared = true, features.Declared()
	// A cache of its own: the first listing's entry must not answer it.
	d, err := mcpconn.Discover(ctx, s, mcpconn.Options{Reaper: reaper, Cache: &mcpconn.ToolsCache{}, Client: features})
	if err != nil {
		r.CompareError = d.Error
		return
	}
	r.OnlyWithCapabilities = mcpconn.OnlyListedWith(r.Discovery, d)
}

// outcomeInvalid is the outcome of a server CrewAI rejects before
// connecting to it.
const outcomeInvalid = "invalid"

// invalidRefReport shows a string ref CrewAI rejects as a server that
// failed, with lint's text and fix.
func invalidRefReport(f lint.Finding) toolsReport {
	ref := f.Message
	if q, err := strconv.QuotedPrefix(f.Message); err == nil {
		ref, _ = strconv.Unquote(q)
	}
	return toolsReport{
		Discovery: &mcpconn.Discovery{Server: ref, Outcome: outcomeInvalid, Error: f.Message},
		Where:     f.Location(),
		Fix:       f.Fix,
	}
}

func printDiscovery(w io.Writer, r toolsReport, showEnv bool) {
	d := r.Discovery
	if d.Outcome == outcomeInvalid {
		fmt.Fprintf(w, "server %s  (invalid string ref)\n  state:   invalid: CrewAI rejects it before connecting\n  where:   %s\n  error:   %s\n  fix:     %s\n", d.Server, r.Where, d.Error, r.Fix)
		return
	}
	fmt.Fprintf(w, "server %s  (%s", d.Server, d.Transport)
	if d.Policy != mcpconn.PolicyNative {
		fmt.Fprintf(w, ", policy %s", d.Policy)
	}
	fmt.Fprintf(w, ")\n")
	if d.Outcome != "ok" {
		fmt.Fprintf(w, "  state:   failed (%s) after %s\n  error:   %s\n  CrewAI:  %s\n", d.Outcome, d.Duration.Round(1e6), d.Error, d.CrewAIError)
		if h := r.Health; h != nil {
			fmt.Fprintf(w, "  probe:   bare GET → %s: %s\n", h.Health, h.Detail)
		}
		if d.Fix != "" {
			fmt.Fprintf(w, "  fix:     %s\n", d.Fix)
		}
	} else {
		info := d.Info
		fmt.Fprintf(w, "  state:   ready in %s", d.Duration.Round(1e6))
		if d.FromCache {
			fmt.Fprint(w, " (tools/list from cache)")
		}
		fmt.Fprintf(w, "\n  server:  %s %s, protocol %s\n", info.Name, info.Version, info.ProtocolVersion)
		if d.ServerName != "" {
			fmt.Fprintf(w, "  prefix:  %s  (CrewAI server_name)\n", d.ServerName)
		}
		if info.Instructions != "" {
			fmt.Fprintf(w, "  notes:   %s\n", oneLine(info.Instructions, 100))
		}
		if len(info.Declared) == 0 {
			fmt.Fprintln(w, "  client:  declared no capabilities, as CrewAI's client (a server may hide tools from it; --compare-capabilities shows which)")
		} else {
			fmt.Fprintf(w, "  client:  declared %s (beyond CrewAI, which declares none)\n", strings.Join(info.Declared, ", "))
		}
	}
	if showEnv && len(r.Environment) > 0 {
		fmt.Fprintln(w, "  environment (exactly what the server process gets; no shell, inherited cwd):")
		for _, v := range r.Environment {
			fmt.Fprintf(w, "    %s=%s  [%s]\n", v.Name, v.Value, v.Source)
		}
	}
	if len(d.Tools) > 0 {
		kept := len(d.KeptTools())
		fmt.Fprintf(w, "  tools:   %d listed, %d kept\n\n", len(d.Tools), kept)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  ORIGINAL NAME\tLLM-VISIBLE NAME\tSTATUS\tREASON\tDIAGNOSTICS")
		for _, t := range d.Tools {
			llm := t.LLMName
			if t.Status == mcpconn.ToolSkipped {
				llm = "—"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", printable(t.Name), llm, t.Status, t.Reason, diagSummary(t.Diagnostics))
		}
		_ = tw.Flush()
	} else if d.Outcome == "ok" {
		fmt.Fprintln(w, "  tools:   none listed")
	}
	if len(d.Hints)+len(d.Warnings)+len(r.Cautions) > 0 {
		fmt.Fprintln(w)
	}
	for _, c := range r.Cautions {
		fmt.Fprintf(w, "  ! %s\n", c)
	}
	switch {
	case !r.Compared:
	case r.CompareError != "":
		fmt.Fprintf(w, "  capabilities: the second listing (declaring %s) failed: %s\n", strings.Join(r.CompareDeclared, ", "), r.CompareError)
	case len(r.OnlyWithCapabilities) > 0:
		fmt.Fprintf(w, "  ! listed only to a client that declares %s, so CrewAI's agents never see them (CrewAI declares none): %s\n",
			strings.Join(r.CompareDeclared, ", "), strings.Join(r.OnlyWithCapabilities, ", "))
	default:
		fmt.Fprintf(w, "  capabilities: the server lists the same tools to a client declaring %s\n", strings.Join(r.CompareDeclared, ", "))
	}
	for _, h := range d.Hints {
		if h.Kind == filter.HintKeepsNothing {
			fmt.Fprintf(w, "  ! the filter keeps nothing — %s\n", h.Message)
			continue
		}
		fmt.Fprintf(w, "  hint: %s\n", h.Message)
	}
	for _, wline := range d.Warnings {
		if d.KeepsNothing && wline == filter.NoToolsMessage(d.ServerName) {
			continue // already said by the keeps-nothing line
		}
		fmt.Fprintf(w, "  CrewAI logs: %s\n", wline)
	}
}

// toolCautions warns about what CrewAI cannot do as listed: a listing
// that needed crewbench's stored OAuth token, kept tools it cannot call.
func toolCautions(d *mcpconn.Discovery) []string {
	var out []string
	if d.OAuth {
		out = append(out, "listed with crewbench's stored OAuth token (crewbench auth login): CrewAI sends only the configured headers, "+
			"so a crew gets 401 here unless the token is in headers (see export-config)")
	}
	for _, t := range d.KeptTools() {
		if t.TaskSupport() == mcpconn.TaskRequired {
			out = append(out, fmt.Sprintf("%s runs only as an MCP task (execution.taskSupport: required): "+
				"CrewAI sends plain tools/call, so every call the agent makes fails", printable(t.Name)))
		}
	}
	return out
}

func diagSummary(ds []names.Diagnostic) string {
	if len(ds) == 0 {
		return ""
	}
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		parts = append(parts, string(d.Code))
	}
	return strings.Join(parts, ", ")
}

// printable keeps control characters in tool names from garbling the table.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) }) < 0 {
		return s
	}
	return fmt.Sprintf("%q", s)
}

// closeStdout closes the process's standard output once everything is
// written, so a reader sees the end of the output without waiting for the
// servers to be reaped. Any other writer (a test's buffer) is left open.
func closeStdout(out io.Writer) {
	if c, ok := out.(interface{ CloseStdout() error }); ok {
		_ = c.CloseStdout()
	}
}
