package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"crewbench/crew"
	"crewbench/crew/bridge"
	"crewbench/session"
	"crewbench/ui"
)

// The workbench side of `crewbench watch`: crew/bridge behind ui.Watcher,
// and `crewbench watch -- COMMAND` opening the workbench on the live run.

// bridgeWatcher runs the project's own command under the bridge for the
// workbench (5 Kickoff's w, or crewbench watch), recording each run.
type bridgeWatcher struct {
	dir      string
	commands []ui.WatchCommand
	// sessionsDir receives one session per run ("" records none); record,
	// when set, is the file the first run records to (watch --record FILE).
	sessionsDir string
	version     string

	mu     sync.Mutex
	record string
}

func newBridgeWatcher(dir, sessionsDir string) *bridgeWatcher {
	w := &bridgeWatcher{dir: dir, sessionsDir: sessionsDir, version: buildVersion()}
	for _, c := range bridge.DetectCommands(dir) {
		w.commands = append(w.commands, ui.WatchCommand{Argv: c.Argv, Why: c.Why})
	}
	return w
}

// Commands implements ui.Watcher.
func (w *bridgeWatcher) Commands() []ui.WatchCommand { return w.commands }

// Start implements ui.Watcher.
func (w *bridgeWatcher) Start(ctx context.Context, req ui.WatchRequest) (*ui.RunHandle, error) {
	runID := session.NewID()
	sink, events, closeEvents := ui.NewEventChannel(ctx, 1024)
	sinks := session.Fanout{sink}
	rec, err := w.recorder(runID, req.Command)
	if err != nil {
		closeEvents()
		return nil, err
	}
	if rec != nil {
		sinks = append(sinks, rec)
	}
	// No Stdin: the workbench owns the terminal.
	run, err := bridge.Start(ctx, bridge.Options{Command: req.Command, Dir: w.dir, Sink: sinks, RunID: runID, Stepper: req.Stepper})
	if err != nil {
		if rec != nil {
			_ = rec.Close()
			_ = os.Remove(rec.Path())
		}
		closeEvents()
		return nil, err
	}
	done := make(chan ui.RunOutcome, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		res, err := run.Wait()
		o := ui.RunOutcome{Err: err}
		if err != nil && ctx.Err() != nil && !errors.Is(err, crew.ErrAborted) {
			o.Err = errors.New("stopped: the command's process group was ended")
		}
		if res != nil {
			o.Output = fmt.Sprintf("the command exited with status %d after %d CrewAI events", res.ExitCode, res.Events)
		}
		if rec != nil {
			if cerr := rec.Close(); cerr == nil {
				o.Recorded = rec.Path()
			}
		}
		closeEvents()
		done <- o
		close(done)
	}()
	return &ui.RunHandle{ID: runID, Events: events, Done: done, Finished: finished}, nil
}

// recorder opens the run's session file: the header says it is a real
// CrewAI run, so replay, diff and 7 Sessions treat it as one.
func (w *bridgeWatcher) recorder(runID string, argv []string) (*session.Recorder, error) {
	w.mu.Lock()
	path := w.record
	w.record = ""
	w.mu.Unlock()
	opts := session.RecorderOptions{Header: session.Header{Version: w.version, Project: w.dir, RunID: runID, Command: "watch",
		Meta: map[string]any{"real_crewai": true, "argv": argv, "in_workbench": true}}, Redactor: session.DefaultRedactor}
	switch {
	case path != "":
		rec, err := session.Create(path, opts)
		if err != nil {
			return nil, fmt.Errorf("--record: %w", err)
		}
		return rec, nil
	case w.sessionsDir == "":
		return nil, nil
	}
	if err := os.MkdirAll(w.sessionsDir, 0o755); err != nil {
		return nil, fmt.Errorf("sessions directory: %w", err)
	}
	rec, err := session.CreateInDir(w.sessionsDir, opts)
	if err != nil {
		return nil, fmt.Errorf("record the watched run: %w", err)
	}
	return rec, nil
}

// watchInTerminal reports whether `crewbench watch` can open the
// workbench: both stdin and stdout are a terminal.
func watchInTerminal(cmd *cobra.Command) bool {
	in, ok := cmd.InOrStdin().(*os.File)
	return ok && sessionIsTerminal(in) && sessionIsTerminal(cmd.OutOrStdout())
}

// openWatchWorkbench opens the workbench on dir with the watched run of
// args started at once.
func openWatchWorkbench(cmd *cobra.Command, o *watchOpts, bp crew.Breakpoints, args []string, dir string) error {
	if o.session.otlpEndpoint != "" || len(o.session.otlpHeaders) > 0 || o.session.otlpContent {
		return exitCode(watchExitUsage, errors.New("--otlp-* streams a headless watch: add --json or --no-tui (or export the recorded session)"))
	}
	if o.session.record != "" && o.session.noRecord {
		return exitCode(watchExitUsage, errors.New("give --record FILE or --no-record, not both"))
	}
	if dir == "" {
		dir = "."
	}
	return openWorkbench(cmd, workbenchOptions{path: dir, theme: o.theme,
		watch: &ui.WatchStart{Command: args, Breakpoints: bp}, watchRecord: o.session.record, watchNoRecord: o.session.noRecord})
}

// watchOnlyWorkspace is the workspace of a directory crewbench's engine
// cannot open (a crew written in Python only): nothing but the watched run.
func watchOnlyWorkspace(dir, note string) *workspace {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	ws := ui.Workspace{Name: filepath.Base(abs), Opened: abs + " (watched: crewbench's engine cannot open it)"}
	if note != "" {
		ws.Notes = []string{note}
	}
	return &workspace{ws: ws, mcp: &crew.MCP{}, cleanup: func() {}, dir: abs}
}

// workbenchWatcher is the workbench's Watcher for the opened directory.
func workbenchWatcher(w *workspace, o workbenchOptions, sessionsDir string) *bridgeWatcher {
	dir := w.dir
	if w.project != nil {
		dir = w.project.Dir
	}
	if o.watchNoRecord {
		sessionsDir = ""
	}
	bw := newBridgeWatcher(dir, sessionsDir)
	bw.record = o.watchRecord
	return bw
}
