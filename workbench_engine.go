package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"crewbench/crew"
	"crewbench/crew/project"
	"crewbench/crew/rerun"
	"crewbench/crew/writeback"
	"crewbench/mcpconn"
	"crewbench/session"
	"crewbench/ui"
)

// The adapters from the real engine to the workbench's interfaces (ui's
// Deps). They live in the composition root so that ui never touches files,
// processes or crew/project; they are deliberately thin: when an engine API
// changes, this file changes.

// poolAdapter adapts *mcpconn.Pool to ui.ServerPool.
type poolAdapter struct{ Pool *mcpconn.Pool }

// Connect implements ui.ServerPool.
func (a poolAdapter) Connect(ctx context.Context, specs ...mcpconn.ServerSpec) error {
	return a.Pool.Connect(ctx, specs...)
}

// Status implements ui.ServerPool.
func (a poolAdapter) Status() []mcpconn.ServerStatus { return a.Pool.Status() }

// Reconnect implements ui.ServerPool.
func (a poolAdapter) Reconnect(ctx context.Context, name string) error {
	_, err := a.Pool.Reconnect(ctx, name)
	return err
}

// Ping implements ui.ServerPool.
func (a poolAdapter) Ping(ctx context.Context, name string, timeout time.Duration) (time.Duration, error) {
	return a.Pool.Ping(ctx, name, timeout)
}

// Close implements ui.ServerPool.
func (a poolAdapter) Close() error { return a.Pool.Close() }

// mcpCaller calls tools with mcpconn.Call; the adapter policy reuses the
// pool's sessions. Under the session policy a call declares elicitation,
// sampling and roots (beyond CrewAI) on a connection of its own and puts
// the server's questions to the user through the asker.
type mcpCaller struct {
	Pool *mcpconn.Pool
	// Project is the workspace's project (nil for ad-hoc servers): its
	// directory is the root and its LLM answers approved sampling requests.
	Project *project.Project
}

// Call implements ui.ToolCaller.
func (c mcpCaller) Call(ctx context.Context, spec mcpconn.ServerSpec, tool string, args json.RawMessage, em *session.Emitter, asker ui.Asker) *mcpconn.CallResult {
	opts := mcpconn.Options{Emitter: em, Pool: c.Pool}
	if asker != nil && mcpconn.EffectivePolicy(spec) == mcpconn.PolicySession {
		opts.Client = c.features(asker)
	}
	return mcpconn.CallJSON(ctx, spec, tool, args, opts)
}

// features are the workbench's client capabilities for one call: the
// user answers elicitation; sampling, once the user approves it, goes to
// the project's LLM (as run picks it); the project directory is the root.
func (c mcpCaller) features(asker ui.Asker) *mcpconn.ClientFeatures {
	dir := ""
	if c.Project != nil {
		dir = c.Project.Dir
	}
	return &mcpconn.ClientFeatures{
		Elicit: asker.Elicit,
		Sample: func(ctx context.Context, req mcpconn.SampleRequest) (mcpconn.SampleResponse, error) {
			if err := asker.ApproveSampling(ctx, req); err != nil {
				return mcpconn.SampleResponse{}, err
			}
			prov, _, err := crew.ProjectLLM(c.Project, "", nil)
			if err != nil {
				return mcpconn.SampleResponse{}, fmt.Errorf("no LLM to answer sampling: %w", err)
			}
			return llmSampler{p: prov}.Sample(ctx, req)
		},
		Roots: rootsFromDir(dir),
	}
}

// httpProber probes with mcpconn.ProbeHTTP.
type httpProber struct{}

// Probe implements ui.HealthProber.
func (httpProber) Probe(ctx context.Context, url string, headers map[string]string, timeout time.Duration) mcpconn.HealthResult {
	return mcpconn.ProbeHTTP(ctx, url, headers, timeout)
}

// dirSessions lists the *.jsonl session files of a directory.
type dirSessions struct{ Dir string }

// List implements ui.SessionStore: newest first, each with what its header
// says it holds.
func (s dirSessions) List(ctx context.Context) ([]ui.SessionInfo, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", s.Dir, err)
	}
	var out []ui.SessionInfo
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		si := ui.SessionInfo{Path: filepath.Join(s.Dir, e.Name()), Name: e.Name(), Size: info.Size(), Modified: info.ModTime()}
		if h, err := readSessionHeader(si.Path); err == nil {
			si.Command, si.About = ui.SessionAbout(h)
			si.Project = h.Project
		}
		out = append(out, si)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Modified.Equal(out[j].Modified) {
			return out[i].Modified.After(out[j].Modified)
		}
		return out[i].Name > out[j].Name
	})
	return out, nil
}

// Open implements ui.SessionStore. A torn last line or a corrupt line in the
// middle is tolerated (reported as warnings), as a crashed run leaves them.
func (s dirSessions) Open(ctx context.Context, path string) (*session.File, error) {
	return session.ReadFile(path, session.ReadOptions{Lenient: true, AnySchema: true})
}

// workspaceOf describes a loaded project for the workbench.
func workspaceOf(p *project.Project, name string) ui.Workspace {
	ws := ui.Workspace{Name: name, Opened: p.Opened, Dir: p.Dir}
	if ws.Name == "" {
		ws.Name = filepath.Base(p.Dir)
	}
	used := map[string][]string{}
	for _, s := range p.Servers {
		ws.Servers = append(ws.Servers, ui.ServerEntry{Spec: s.Spec, Source: s.Source, Agents: s.Agents})
		for _, a := range s.Agents {
			used[a] = append(used[a], mcpconn.Handle(s.Spec))
		}
	}
	for _, a := range p.Agents {
		ws.Agents = append(ws.Agents, ui.AgentEntry{Name: a.Name, Role: a.Role, Servers: used[a.Name]})
		if ws.LLM == "" {
			ws.LLM = a.ResolvedLLM.Model
		}
	}
	if p.Crew != nil && p.Crew.LLMOverride != nil && p.Crew.LLMOverride.Model != "" {
		ws.LLM = p.Crew.LLMOverride.Model
	}
	for _, n := range p.Notes {
		if n.Level != project.Info {
			ws.Notes = append(ws.Notes, n.String())
		}
	}
	return ws
}

// projectRunner kicks off a project's crew with crew.Kickoff, recording
// each run to SessionsDir when it is set.
type projectRunner struct {
	Project *project.Project
	Options crew.ProjectOptions
	// MCP reaches the crew's servers (SelfCommand for the demo, the pool).
	MCP *crew.MCP
	// SessionsDir receives one recorded session per run ("" records none).
	SessionsDir string
	// Version goes into recorded session headers.
	Version string
	// Meta is added to recorded session headers ({"demo": true} for the
	// embedded demo, so `crewbench replay FILE --rerun` finds it again).
	Meta map[string]any
}

// Crews implements ui.Runner.
func (r *projectRunner) Crews() []ui.CrewInfo {
	p := r.Project
	if p == nil || p.Crew == nil {
		return nil
	}
	c := ui.CrewInfo{Name: p.Crew.Name, Placeholders: p.PlaceholderNames(), Inputs: p.InputSets["default"]}
	if c.Inputs == nil {
		c.Inputs = p.Crew.Inputs
	}
	if c.Name == "" {
		c.Name = "crew"
	}
	for _, t := range p.Tasks {
		name := t.Name
		if name == "" {
			name = fmt.Sprintf("task #%d", t.Index+1)
		}
		c.Tasks = append(c.Tasks, name)
	}
	c.Agents = append(c.Agents, p.Crew.Agents...)
	for _, s := range p.Servers {
		c.Servers = append(c.Servers, mcpconn.Handle(s.Spec))
	}
	if r.Options.LLM != "" {
		c.LLM = r.Options.LLM
	} else if ov := p.Crew.LLMOverride; ov != nil {
		c.LLM = ov.Model
	} else if len(p.Agents) > 0 {
		c.LLM = p.Agents[0].ResolvedLLM.Model
	}
	return []ui.CrewInfo{c}
}

// Start implements ui.Runner. The crew is built afresh for every run, so a
// scripted LLM starts its conversations from the top.
func (r *projectRunner) Start(ctx context.Context, req ui.KickoffRequest) (*ui.RunHandle, error) {
	c, _, err := crew.FromProject(r.Project, r.Options)
	if err != nil {
		return nil, err
	}
	runID := session.NewID()
	sink, events, closeEvents := ui.NewEventChannel(ctx, ui.RunEventBuffer)
	sinks := session.Fanout{sink}
	var rec *session.Recorder
	if r.SessionsDir != "" {
		if err := os.MkdirAll(r.SessionsDir, 0o755); err == nil {
			meta := map[string]any{"crew": c.Name, "inputs": req.Inputs}
			for k, v := range r.Meta {
				meta[k] = v
			}
			rec, err = session.CreateInDir(r.SessionsDir, session.RecorderOptions{Header: session.Header{
				Version: r.Version, Project: r.Project.Dir, RunID: runID, Command: "tui", Meta: meta,
			}, Redactor: session.NewRedactor(r.Project.SecretValues()...)})
			if err == nil {
				sinks = append(sinks, rec)
			}
		}
	}
	done := make(chan ui.RunOutcome, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		out, err := crew.Kickoff(ctx, c, req.Inputs, crew.Options{
			Emitter: session.NewEmitter(sinks), Stepper: req.Stepper, RunID: runID, MCP: r.MCP,
		})
		o := ui.RunOutcome{Err: err}
		if out != nil {
			o.Output = out.String()
			if out.HasToolFailures() {
				o.ToolFailures = out.FailureSummary()
			}
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

// projectReplayer re-runs recorded sessions with crew/rerun against the
// workspace's project. The project is opened afresh from Dir for every
// re-run: it sees the files as they are now, and the filters tried in a
// re-run never leak into the workbench's own project.
type projectReplayer struct {
	Dir, Overlay string
	// SelfCommand starts stdio servers declared as `crewbench …` (the
	// demo's fixtures); each re-run gives them a private TMPDIR, so the
	// flaky fixture's call counter starts afresh as in the recorded run.
	SelfCommand string
	// Demo says the workspace is the embedded demo (a demo session then
	// needs no note about running another project).
	Demo bool
	// SessionsDir receives one recorded session per re-run (header
	// command "replay --rerun"; "" records none). Version goes into its
	// header.
	SessionsDir, Version string
}

// Rerun implements ui.Replayer.
func (r projectReplayer) Rerun(ctx context.Context, req ui.RerunRequest) (*rerun.Result, error) {
	p, err := project.Open(r.Dir, r.Overlay)
	if p == nil {
		return nil, fmt.Errorf("open project: %w", err)
	}
	var notes []string
	if err != nil {
		notes = append(notes, "the project has problems: "+strings.SplitN(err.Error(), "\n", 2)[0])
	}
	if req.File != nil {
		recorded := req.File.Header.Project
		switch {
		case r.Demo && rerun.IsDemo(req.File):
		case r.Demo != rerun.IsDemo(req.File) || (recorded != "" && filepath.Clean(recorded) != filepath.Clean(p.Dir)):
			what := "the embedded demo"
			if !rerun.IsDemo(req.File) {
				what = session.RedactString(recorded)
			}
			if what == "" {
				what = "another project"
			}
			notes = append(notes, fmt.Sprintf("the session recorded %s; this re-run runs the workspace's project", what))
		}
	}
	tmp, err := os.MkdirTemp("", "crewbench-rerun-")
	if err != nil {
		return nil, fmt.Errorf("rerun: %w", err)
	}
	defer os.RemoveAll(tmp)
	// A fresh tools cache: the re-run lists tools as the recorded run did,
	// not from the workbench's earlier runs.
	mcp := &crew.MCP{Cache: &mcpconn.ToolsCache{}, SelfCommand: r.SelfCommand}
	if r.SelfCommand != "" {
		mcp.SelfEnv = map[string]string{"TMPDIR": tmp}
	}
	runID := session.NewID()
	sinks := session.Fanout{}
	if req.Sink != nil {
		sinks = append(sinks, req.Sink)
	}
	rec, recErr := r.record(req, p, runID)
	if rec != nil {
		sinks = append(sinks, rec)
	}
	res, err := rerun.Run(ctx, rerun.Options{File: req.File, Path: req.Path, Project: p,
		Changes: rerun.Changes{Filters: req.Filters, Faults: req.Faults}, KeepGoing: req.KeepGoing, MCP: mcp, Sink: sinks, RunID: runID})
	if rec != nil {
		if cerr := rec.Close(); cerr != nil {
			recErr = cerr
		} else if res != nil {
			res.Recording = rec.Path()
		}
		if res == nil {
			// Nothing ran (the session or project could not be re-run):
			// an empty recording would only clutter the list.
			_ = os.Remove(rec.Path())
		}
	}
	if res != nil {
		res.Notes = append(notes, res.Notes...)
		if recErr != nil {
			res.Notes = append(res.Notes, "the re-run was not recorded: "+recErr.Error())
		}
	}
	return res, err
}

// record opens the re-run's session file, as `crewbench replay --rerun`
// does: the recorded session and what changed go into its header, and the
// project's secrets are hidden.
func (r projectReplayer) record(req ui.RerunRequest, p *project.Project, runID string) (*session.Recorder, error) {
	if r.SessionsDir == "" {
		return nil, nil
	}
	meta := map[string]any{"rerun_of": req.Path, "keep_going": req.KeepGoing, "in_workbench": true}
	if req.File != nil {
		meta["recorded_run_id"] = req.File.Header.RunID
		if rerun.IsDemo(req.File) {
			meta["demo"] = true
		}
	}
	if len(req.Faults) > 0 {
		faults := map[string]any{}
		for name, fs := range req.Faults {
			faults[name] = fs
		}
		meta["faults"] = faults
	}
	if len(req.Filters) > 0 {
		filters := map[string]any{}
		for name, f := range req.Filters {
			filters[name] = f
		}
		meta["filters"] = filters
	}
	rec, err := session.CreateInDir(r.SessionsDir, session.RecorderOptions{Header: session.Header{
		Version: r.Version, Project: p.Dir, RunID: runID, Command: "replay --rerun", Meta: meta,
	}, Redactor: session.NewRedactor(p.SecretValues()...)})
	if err != nil {
		return nil, fmt.Errorf("record the re-run: %w", err)
	}
	return rec, nil
}

// projectExporter is crew/writeback behind the playground's ui.FilterExporter:
// render a server's entry with the tried filter, and write the filter into
// the project's own file (diff first, backup kept).
type projectExporter struct {
	Project *project.Project
	// HasOAuthToken reports whether crewbench holds an OAuth token for a
	// server URL, and Refused whether the workbench's own listing of a
	// server's tools was answered 401: the export then adds the
	// Authorization header CrewAI needs. Either may be nil.
	HasOAuthToken func(serverURL string) bool
	Refused       func(server string) bool
	// ReadOnly, when set, is why writing is refused (the embedded demo
	// lives in a temporary directory).
	ReadOnly string
}

// Render implements ui.FilterExporter.
func (e projectExporter) Render(_ context.Context, f ui.ExportFormat, req ui.ExportRequest) (string, error) {
	format := writeback.FormatMCPs
	switch f {
	case ui.ExportPython:
		format = writeback.FormatPython
	case ui.ExportMCPServers:
		format = writeback.FormatMCPServers
	}
	opts := writeback.Options{Servers: []string{req.Server}, Filters: map[string]mcpconn.FilterSpec{req.Server: req.Filter},
		OAuth: exportOAuth(e.Project, e.HasOAuthToken, e.Refused)}
	res, err := writeback.Export(e.Project, format, opts)
	if err != nil {
		return "", err
	}
	// the notes as comments of the output's own language (the view wraps
	// them as comments); the CEL caveat is in the output once already
	comment := "// note: "
	if format == writeback.FormatPython {
		comment = "# note: "
	}
	text := res.Text
	for _, n := range res.Notes {
		text += "\n" + comment + n
	}
	return text, nil
}

// poolRefused reports whether the pool's connection to a project server
// failed with 401 Unauthorized. The pool sends a stored token, so a server
// refused there has none crewbench could give CrewAI either.
func poolRefused(pool *mcpconn.Pool, p *project.Project) func(server string) bool {
	return func(name string) bool {
		st, ok := pool.ServerStatus(name)
		s := p.Server(name)
		return ok && s != nil && st.State == mcpconn.StateFailed && mcpconn.Unauthorized(s.Spec, st.Class, st.Error)
	}
}

// Plan implements ui.FilterExporter.
func (e projectExporter) Plan(_ context.Context, req ui.ExportRequest) (ui.WritePlan, error) {
	if e.ReadOnly != "" {
		return ui.WritePlan{}, errors.New(e.ReadOnly)
	}
	if req.Filter.Expr != "" {
		return ui.WritePlan{}, errors.New("a CEL expression cannot be written to CrewAI's files; clear it and keep allowed/blocked names")
	}
	edits, err := writeback.PlanFilter(e.Project, req.Server, req.Filter.Allowed, req.Filter.Blocked)
	if err != nil {
		return ui.WritePlan{}, err
	}
	if len(edits) == 0 {
		return ui.WritePlan{}, writeback.ErrNothingToChange
	}
	var files, diffs []string
	for _, ed := range edits {
		files = append(files, ed.Shown)
		for _, n := range ed.Notes {
			diffs = append(diffs, "note: "+n)
		}
		diffs = append(diffs, ed.Diff)
	}
	return ui.WritePlan{File: strings.Join(files, ", "), Diff: strings.Join(diffs, "\n"), Opaque: edits}, nil
}

// Apply implements ui.FilterExporter.
func (e projectExporter) Apply(_ context.Context, plan ui.WritePlan) (string, error) {
	edits, ok := plan.Opaque.([]*writeback.Edit)
	if !ok {
		return "", errors.New("not a plan made by this exporter")
	}
	var backups []string
	for _, ed := range edits {
		b, err := ed.Apply()
		if err != nil {
			return strings.Join(backups, ", "), fmt.Errorf("write %s: %w", ed.Shown, err)
		}
		backups = append(backups, b)
	}
	return strings.Join(backups, ", "), nil
}
