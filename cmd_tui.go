package main

import (
	"strings"

	"github.com/spf13/cobra"

	"crewbench/themes"
)

// The workbench: bare `crewbench` opens the project in the current
// directory (or the demo when there is none); `crewbench demo` opens the
// embedded demo. This file only composes: it opens the project, builds the
// engine pieces and hands them to ui.Run.

// addWorkbenchRootFlags adds the workbench's flags to the root command,
// since bare `crewbench` runs the workbench.
func addWorkbenchRootFlags(root *cobra.Command) {
	addThemeFlag(root)
	root.Flags().String("project", ".", "the project to open: a directory or a crew/overlay/mcpServers file")
	root.Flags().StringP("config", "c", "", "crewbench.yaml overlay `FILE` (default: the one beside the project)")
	// -v is --verbose (run, replay, watch) and nothing else: declaring
	// --version here keeps cobra from giving it the -v shorthand too.
	root.Flags().Bool("version", false, "print crewbench's version (-v is --verbose on run, replay and watch)")
}

func addThemeFlag(cmd *cobra.Command) {
	cmd.Flags().String("theme", "", "colour theme: "+strings.Join(themes.Names(), ", ")+
		" (default auto: follows the terminal background; NO_COLOR selects no-colour)")
}

func newDemoCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Open the workbench on the embedded demo crew (offline: fixture servers, scripted LLM)",
		Long: `demo opens the workbench on crewbench's embedded demo project: a two-agent
crew whose MCP servers are crewbench's own fixtures (started as
"crewbench fixture NAME") and whose LLM is scripted, so everything works
offline with no keys.

Try: / to search a tool by its original name (getForecast), 3 for the filter
playground, t on a tool to call it, 5 to kick off the crew, ? for every key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			theme, _ := cmd.Flags().GetString("theme")
			return openWorkbench(cmd, workbenchOptions{demo: true, theme: theme})
		},
	}
	addThemeFlag(cmd)
	return cmd
}

func runWorkbenchRoot(cmd *cobra.Command, args []string) error {
	theme, _ := cmd.Flags().GetString("theme")
	path, _ := cmd.Flags().GetString("project")
	overlay, _ := cmd.Flags().GetString("config")
	// The demo stands in only when the user did not name a project.
	explicit := cmd.Flags().Changed("project") || overlay != ""
	return openWorkbench(cmd, workbenchOptions{path: path, overlay: overlay, theme: theme, demoIfNone: !explicit})
}
