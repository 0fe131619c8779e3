package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atotto/clipboard"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"crewbench/crew"
	"crewbench/crew/project"
	"crewbench/mcpconn"
	"crewbench/session"
	"crewbench/themes"
	"crewbench/ui"
)

// Opening the workbench: the project (or the demo), the engine pieces
// built from it and ui.Run over them. The demo and root commands
// (cmd_tui.go), replay and watch all open it through openWorkbench.

type workbenchOptions struct {
	path       string
	overlay    string
	demo       bool
	demoIfNone bool
	theme      string
	// replay is a session file to open at start (crewbench replay FILE).
	replay string
	// watch is a watched run to start at once (crewbench watch -- COMMAND);
	// watchRecord / watchNoRecord are its --record FILE / --no-record.
	watch         *ui.WatchStart
	watchRecord   string
	watchNoRecord bool
}

// openReplayWorkbench opens a recorded session in the workbench (in the
// default theme): the trace view shows it, and the sessions view lists the
// others.
func openReplayWorkbench(cmd *cobra.Command, path string) error {
	return openWorkbench(cmd, workbenchOptions{path: ".", demoIfNone: true, replay: path})
}

func openWorkbench(cmd *cobra.Command, o workbenchOptions) error {
	ctx := cmd.Context()
	pal, err := themes.Select(o.theme, os.Getenv("NO_COLOR") != "")
	if err != nil {
		return exitCode(1, err)
	}
	w, err := loadWorkspace(o)
	if err != nil {
		return exitCode(1, err)
	}
	defer w.cleanup()

	// Detect the background now, before Bubble Tea owns the terminal's
	// input (lipgloss caches the answer).
	_ = lipgloss.HasDarkBackground()

	sink, events, closeEvents := ui.NewEventChannel(ctx, 4096)
	pool := mcpconn.NewPool(session.NewEmitter(sink))
	// The pool is crewbench's own view of the servers: it sends tokens
	// stored by `crewbench auth login` (or L); calls under CrewAI's
	// policies never borrow such a session.
	pool.SetAuthorizer(storedTokenAuthorizer())
	w.mcp.Pool = pool
	deps := ui.Deps{
		Ctx:         ctx,
		Workspace:   w.ws,
		Pool:        poolAdapter{Pool: pool},
		Events:      events,
		Caller:      mcpCaller{Pool: pool, Project: w.project},
		Prober:      httpProber{},
		Auth:        serverAuth{},
		Palette:     pal,
		Environ:     os.Environ(),
		Editor:      editorCommand(),
		OpenSession: o.replay,
		Clipboard:   clipboard.WriteAll,
		HiddenEnv:   w.mcp.SelfEnv, // the demo's private TMPDIR
	}
	sessionsDir := ""
	if dir, err := session.SessionsDir(); err == nil {
		sessionsDir = dir
		deps.Sessions = dirSessions{Dir: dir}
		// Every call made in 4 Try goes to one session file per workbench.
		meta := map[string]any{"workspace": w.ws.Name}
		if w.ws.Name == "demo" {
			meta["demo"] = true
		}
		project := ""
		if w.project != nil && w.ws.Name != "demo" {
			project = w.project.Dir
		}
		deps.Calls = &callLog{Dir: dir, Version: buildVersion(), Project: project, Meta: meta}
		if w.runner != nil {
			w.runner.SessionsDir = dir
		}
	}
	if w.ws.Name != "demo" {
		deps.Watcher, deps.Watch = workbenchWatcher(w, o, sessionsDir), o.watch
	}
	if w.runner != nil {
		deps.Runner = w.runner
		// Re-runs (7 Sessions) run the workspace's project again, opened
		// afresh, with every LLM reply taken from the recording.
		deps.Replayer = projectReplayer{Dir: w.project.Dir, SelfCommand: w.mcp.SelfCommand, Demo: w.ws.Name == "demo",
			SessionsDir: sessionsDir, Version: buildVersion()}
	}
	if w.project != nil {
		deps.Exporter = projectExporter{Project: w.project, HasOAuthToken: oauthTokenHeld(), Refused: poolRefused(pool, w.project)}
		if w.ws.Name == "demo" {
			deps.Exporter = projectExporter{Project: w.project,
				ReadOnly: "the demo lives in a temporary directory: nothing to write back to (x shows the config)"}
		}
	}
	// CREWBENCH_TUI_LOG=FILE keeps Bubble Tea's debug log (the terminal
	// belongs to the workbench).
	if path := os.Getenv("CREWBENCH_TUI_LOG"); path != "" {
		if f, err := tea.LogToFile(path, "crewbench"); err == nil {
			defer f.Close()
		}
	}
	err = ui.Run(deps, teaIO(cmd)...)
	_ = pool.Close()
	closeEvents()
	return err
}

func editorCommand() string {
	if e := os.Getenv("VISUAL"); e != "" {
		return e
	}
	return os.Getenv("EDITOR")
}

// workspace is what the workbench opens.
type workspace struct {
	project *project.Project
	ws      ui.Workspace
	runner  *projectRunner
	mcp     *crew.MCP
	cleanup func()
	// dir is the directory a watch-only workspace watches (no project).
	dir string
}

// loadWorkspace opens the project (or the demo) and prepares its servers:
// the demo's `crewbench fixture NAME` servers run this very executable, so
// the demo works without crewbench on PATH.
func loadWorkspace(o workbenchOptions) (*workspace, error) {
	w := &workspace{mcp: &crew.MCP{}, cleanup: func() {}}
	var p *project.Project
	var note string
	name := ""
	if !o.demo {
		var err error
		p, err = project.Open(o.path, o.overlay)
		switch {
		case p == nil && o.watch != nil:
			return watchOnlyWorkspace(o.path, fmt.Sprintf("crewbench's engine cannot open this project (%s): watching your command only", firstLine(err))), nil
		case p == nil && o.demoIfNone:
			note = fmt.Sprintf("no project here (%s): showing the demo", firstLine(err))
		case p == nil:
			return nil, fmt.Errorf("open project: %w", err)
		case err != nil:
			note = "the project has problems: " + firstLine(err)
		}
	}
	if p == nil {
		path, cleanup, err := materializeDemo()
		if err != nil {
			return nil, err
		}
		w.cleanup = cleanup
		if p, err = project.Open(path, ""); p == nil {
			w.cleanup()
			return nil, fmt.Errorf("open the demo: %w", err)
		}
		exe, err := os.Executable()
		if err != nil {
			w.cleanup()
			return nil, fmt.Errorf("demo: cannot find the crewbench executable: %w", err)
		}
		w.mcp.SelfCommand = exe
		// A private TMPDIR gives the flaky fixture a fresh call counter.
		w.mcp.SelfEnv = map[string]string{"TMPDIR": filepath.Dir(path)} // the demo's own temporary directory
		name = "demo"
	}
	w.project = p
	// Whatever the workbench shows hides the project's own secrets (.env
	// values, server credentials), not only the standard shapes.
	session.AddSecretValues(p.SecretValues()...)
	w.ws = workspaceOf(p, name)
	selfServers := 0
	for i := range w.ws.Servers {
		w.ws.Servers[i].Spec = selfSpec(w.ws.Servers[i].Spec, w.mcp)
		if s := w.ws.Servers[i].Spec; s.Transport == mcpconn.TransportStdio && s.Command == mcpconn.SelfCommand && s.Executable == "" {
			selfServers++
		}
	}
	if selfServers > 0 && mcpconn.SelfExecutable != "" {
		w.ws.Notes = append(w.ws.Notes, strings.TrimSuffix(strings.TrimPrefix(selfNote(), "crewbench: note: "), "\n"))
	}
	if note != "" {
		w.ws.Notes = append([]string{note}, w.ws.Notes...)
	}
	if p.Crew != nil {
		w.runner = &projectRunner{Project: p, MCP: w.mcp, Version: buildVersion()}
		if name == "demo" {
			// `crewbench replay FILE --rerun` then re-runs the embedded demo.
			w.runner.Meta = map[string]any{"demo": true}
		}
	}
	return w, nil
}

// selfSpec runs a stdio server declared as `crewbench …` with this
// executable (names still come from "crewbench"), as crew.MCP does for runs.
func selfSpec(s mcpconn.ServerSpec, m *crew.MCP) mcpconn.ServerSpec {
	if m.SelfCommand == "" || s.Transport != mcpconn.TransportStdio || s.Command != "crewbench" || s.Executable != "" {
		return s
	}
	s.Executable = m.SelfCommand
	if len(m.SelfEnv) > 0 {
		env := make(map[string]string, len(s.Env)+len(m.SelfEnv))
		for k, v := range s.Env {
			env[k] = v
		}
		for k, v := range m.SelfEnv {
			env[k] = v
		}
		s.Env = env
	}
	return s
}

func firstLine(err error) string {
	if err == nil {
		return ""
	}
	var es project.Errors
	if errors.As(err, &es) && len(es) > 0 {
		return es[0].Error()
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// teaIO passes the command's streams to Bubble Tea when they are not the
// process's own (tests run the command tree in-process).
func teaIO(cmd *cobra.Command) []tea.ProgramOption {
	var opts []tea.ProgramOption
	if in := cmd.InOrStdin(); in != os.Stdin {
		opts = append(opts, tea.WithInput(in))
	}
	// The workbench redacts what it draws itself and needs the terminal,
	// not the redacting writer around it.
	if out := unwrapWriter(cmd.OutOrStdout()); out != os.Stdout {
		opts = append(opts, tea.WithOutput(out))
	}
	return opts
}
