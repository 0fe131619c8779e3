package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"crewbench/fixtures"
)

func newFixtureCmd() *cobra.Command {
	var long strings.Builder
	long.WriteString(`Run one of crewbench's fixture MCP servers: over stdio by default, or on
streamable HTTP (--http ADDR, endpoint /mcp) or SSE (--sse ADDR, endpoint /sse).
With ADDR 127.0.0.1:0 a free port is picked; the URL is printed on stderr as
"fixture NAME listening on URL". Everything after NAME is passed to the fixture;
"crewbench fixture NAME --help" lists its own flags.

Fixtures:
`)
	_ = fixtures.WriteList(&long, false)
	return &cobra.Command{
		Use:   "fixture NAME [--http ADDR | --sse ADDR] [fixture flags] | --list [--json]",
		Short: "Run a fixture MCP server (stdio, --http ADDR, --sse ADDR)",
		// stdout is the MCP stream, not text for people.
		Annotations: rawOutput,
		Long:        long.String(),
		Example: `  crewbench fixture --list
  crewbench tools --stdio "crewbench fixture weather"
  crewbench fixture slow --http 127.0.0.1:0
  crewbench fixture flaky --fail 2 --key demo`,
		// The fixture parses its own flags, so --http etc. must reach it
		// untouched; --list and --help are handled here.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("missing fixture name; run `crewbench fixture --list`")
			}
			switch args[0] {
			case "--list", "-l":
				return fixtures.WriteList(cmd.OutOrStdout(), slices.Contains(args[1:], "--json"))
			case "-h", "--help", "help":
				return cmd.Help()
			}
			if _, ok := fixtures.Lookup(args[0]); !ok {
				return fmt.Errorf("unknown fixture %q; run `crewbench fixture --list`", args[0])
			}
			code := fixtures.Main(cmd.Context(), args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			if code != 0 {
				return silentExit{code: code}
			}
			return nil
		},
	}
}
