package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"crewbench/crew/lint"
)

type lintOptions struct {
	rules         bool
	json          bool
	strict        bool
	connect       bool
	overlay       string
	serverTimeout time.Duration
	maxPerRule    int
}

func newLintCmd() *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [PATH]",
		Short: "Check a CrewAI project for the known CrewAI/MCP pitfalls",
		// Findings and config quote placeholders and env lookups on
		// purpose; only known secret values are hidden.
		Annotations: quotesConfig,
		Long: `lint opens a CrewAI project (a JSON-first crew, a classic project, an mcpServers
file or a crew in crewbench.yaml) and reports every known pitfall with its
file:line:col and a concrete fix: string refs CrewAI rejects or resolves to
nothing, tool filters that never match, tool names the LLM will not see, names
hashed by long commands or broken by IP hosts, secrets written into config,
servers that cannot work after deployment, missing inputs, and CrewAI's own
validation errors.

With --connect every MCP server is also discovered (concurrently, each under
--server-timeout) to find filters that keep nothing, prompts that name tools
the LLM will not see, colliding or digit-led names and dropped tools.

Exit status: 0 clean (or warnings without --strict), 1 warnings with --strict,
2 errors.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.rules {
				return printRules(cmd, o.json)
			}
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			maxPerRule := o.maxPerRule
			if maxPerRule == 0 {
				maxPerRule = -1 // the flag's 0 is "no limit"; lint's 0 is its default
			}
			p, findings, err := lint.LintPath(cmd.Context(), path, o.overlay, lint.Options{
				Connect:       o.connect,
				ServerTimeout: o.serverTimeout,
				HasOAuthToken: oauthTokenHeld(),
				MaxPerRule:    maxPerRule,
			})
			if err != nil {
				return exitCode(2, fmt.Errorf("lint: %w", err))
			}
			markProjectSecrets(p)
			out := cmd.OutOrStdout()
			if o.json {
				err = lint.WriteJSON(out, findings)
			} else {
				err = lint.WriteText(out, findings)
			}
			if err != nil {
				return exitCode(2, fmt.Errorf("lint: writing the report: %w", err))
			}
			if code := lint.ExitCode(findings, o.strict); code != 0 {
				return silentExit{code: code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print the findings as a JSON array")
	f.BoolVar(&o.rules, "rules", false, "list every rule (code, default severity, what it checks) and exit")
	f.BoolVar(&o.strict, "strict", false, "exit 1 when there are warnings (errors always exit 2)")
	f.BoolVar(&o.connect, "connect", false, "also connect to every MCP server and check its real tools")
	f.StringVarP(&o.overlay, "config", "c", "", "crewbench.yaml overlay `FILE` (default: the one beside the project)")
	f.IntVar(&o.maxPerRule, "max-per-rule", lint.DefaultMaxPerRule, "list at most `N` findings of one rule per file and summarise the rest (0: list all)")
	f.DurationVar(&o.serverTimeout, "server-timeout", lint.DefaultServerTimeout, "with --connect: how long one server may take to list its tools")
	return cmd
}

// printRules lists the rules lint knows.
func printRules(cmd *cobra.Command, asJSON bool) error {
	out := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(lint.Rules())
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tSEVERITY\tNEEDS\tCHECKS")
	for _, r := range lint.Rules() {
		needs := "-"
		if r.Connected {
			needs = "--connect"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Code, r.Severity, needs, r.Title)
	}
	return tw.Flush()
}
