package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"crewbench/crew"
	"crewbench/crew/project"
	"crewbench/crew/rerun"
	"crewbench/fixtures/demo"
	"crewbench/mcpconn"
	"crewbench/session"
)

// Re-running a recorded kickoff with the recorded LLM replies
// (`crewbench replay FILE --rerun`). The engine side — applying the
// changes, the replay provider with divergence reporting, the run — is
// crew/rerun, shared with the workbench; this file finds the project to
// run and maps the flags onto rerun.Changes.

// rerunOptions say what to re-run and what to change.
type rerunOptions struct {
	// SessionPath is the recorded session (for the replay provider and
	// messages); File is it loaded.
	SessionPath string
	File        *session.File
	// ProjectPath is the project to run; "" means the one the session
	// records (the embedded demo for a demo session).
	ProjectPath string
	Overlay     string
	// Allow and Block replace a server's tool filter with a static one;
	// Faults are added to a server's injected faults. Keys are server
	// names as `crewbench tools` shows them.
	Allow  map[string][]string
	Block  map[string][]string
	Faults map[string][]mcpconn.Fault
	// KeepGoing serves the recorded replies past a divergence (a what-if
	// run) instead of stopping the run at the first one.
	KeepGoing bool
	// Sink receives the new run's events (printer, recorder, exporter).
	Sink session.Sink
	// RunID names the new run; "" means a fresh id.
	RunID string
}

// The report types are crew/rerun's.
type (
	rerunDivergence = rerun.Divergence
	rerunResult     = rerun.Result
)

// rerunSession re-runs the recorded kickoff. An error means the run could
// not start (no project, a bad flag, a session without LLM calls); how the
// run itself went is in the result.
func rerunSession(ctx context.Context, o rerunOptions) (*rerunResult, error) {
	f := o.File
	if f == nil {
		return nil, errors.New("rerun: no session loaded")
	}
	mcp := &crew.MCP{}
	path, cleanup, err := rerunProject(f, o.ProjectPath, mcp)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	p, err := project.Open(path, o.Overlay)
	markProjectSecrets(p)
	if err != nil {
		return nil, fmt.Errorf("open project: %w", err)
	}
	changes := rerun.Changes{Faults: o.Faults}
	// Like tool_filter in crewbench.yaml, --allow/--block replace the
	// server's filter (a CEL expression included).
	for _, m := range []map[string][]string{o.Allow, o.Block} {
		for name := range m {
			if changes.Filters == nil {
				changes.Filters = map[string]mcpconn.FilterSpec{}
			}
			changes.Filters[name] = mcpconn.FilterSpec{Allowed: o.Allow[name], Blocked: o.Block[name]}
		}
	}
	res, err := rerun.Run(ctx, rerun.Options{File: f, Path: o.SessionPath, Project: p, Changes: changes,
		KeepGoing: o.KeepGoing, MCP: mcp, Sink: o.Sink, RunID: o.RunID})
	var unknown *rerun.UnknownServerError
	if errors.As(err, &unknown) {
		flag := "--fault"
		if _, ok := o.Allow[unknown.Server]; ok {
			flag = "--allow"
		} else if _, ok := o.Block[unknown.Server]; ok {
			flag = "--block"
		}
		return nil, fmt.Errorf("%s %s: %w", flag, unknown.Server, err)
	}
	return res, err
}

// rerunProject finds the project to run: the one given, else the one the
// session recorded (the embedded demo, materialized afresh, for a demo
// session). A demo session's fixture servers (`crewbench fixture NAME`)
// are started from this executable, as `crewbench run --demo` does, also
// when the demo project is given as PATH.
func rerunProject(f *session.File, given string, mcp *crew.MCP) (string, func(), error) {
	nothing := func() {}
	if rerun.IsDemo(f) {
		dir, err := os.MkdirTemp("", "crewbench-rerun-")
		if err != nil {
			return "", nothing, fmt.Errorf("rerun: %w", err)
		}
		cleanup := func() { _ = os.RemoveAll(dir) }
		exe, err := os.Executable()
		if err != nil {
			cleanup()
			return "", nothing, fmt.Errorf("rerun: cannot find the crewbench executable for the demo's servers: %w", err)
		}
		mcp.SelfCommand = exe
		// A private TMPDIR gives the flaky fixture a fresh call counter,
		// as in the recorded run.
		mcp.SelfEnv = map[string]string{"TMPDIR": dir}
		path := given
		if path == "" {
			if path, err = demo.Materialize(filepath.Join(dir, "project")); err != nil {
				cleanup()
				return "", nothing, err
			}
		}
		return path, cleanup, nil
	}
	if given != "" {
		return given, nothing, nil
	}
	dir := f.Header.Project
	if dir == "" {
		return "", nothing, errors.New("the session does not say which project it ran; give it: crewbench replay FILE --rerun PATH")
	}
	if _, err := os.Stat(dir); err != nil {
		return "", nothing, fmt.Errorf("the recorded project %s is not there any more (%v); give its path: crewbench replay FILE --rerun PATH", session.RedactString(dir), errors.Unwrap(err))
	}
	return dir, nothing, nil
}
