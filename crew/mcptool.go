package crew

import (
	"context"
	"errors"
	"sync"

	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
	"crewbench/session"
)

// MCP reaches MCP servers through mcpconn, the way CrewAI resolves an
// agent's mcps: discovery again for every task, and each call under the
// spec's call policy (native: a fresh session per call, 30 s × 3 attempts).
// It implements MCPResolver.
type MCP struct {
	// Cache holds CrewAI's tools/list caches; nil means mcpconn's
	// process-wide cache.
	Cache *mcpconn.ToolsCache
	// Pool serves the adapter and session policies; nil opens a session
	// per call.
	Pool *mcpconn.Pool
	// SelfCommand, when set, is the program started for a stdio command
	// "crewbench" (the embedded demo runs `crewbench fixture NAME`), so the
	// demo works without crewbench on PATH. Tool names keep "crewbench".
	SelfCommand string
	// SelfEnv is added to the environment of those self-started servers
	// (the demo gives them a private TMPDIR, so the flaky fixture's call
	// counter starts afresh every run).
	SelfEnv map[string]string

	mu     sync.Mutex
	faults map[string]*mcpconn.FaultState
}

// faultState keeps one fault counter per server for the whole run, so an
// injected "first N calls" fault counts across calls.
func (m *MCP) faultState(server string) *mcpconn.FaultState {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.faults == nil {
		m.faults = map[string]*mcpconn.FaultState{}
	}
	f := m.faults[server]
	if f == nil {
		f = &mcpconn.FaultState{}
		m.faults[server] = f
	}
	return f
}

func (m *MCP) fix(spec mcpconn.ServerSpec) mcpconn.ServerSpec {
	if m.SelfCommand != "" && spec.Transport == mcpconn.TransportStdio && spec.Command == "crewbench" && spec.Executable == "" {
		spec.Executable = m.SelfCommand // CrewAI's names still come from "crewbench"
		if len(m.SelfEnv) > 0 {
			env := make(map[string]string, len(spec.Env)+len(m.SelfEnv))
			for k, v := range spec.Env {
				env[k] = v
			}
			for k, v := range m.SelfEnv {
				env[k] = v
			}
			spec.Env = env
		}
	}
	return spec
}

// Resolve implements MCPResolver: a native config that fails discovery
// fails the task with CrewAI's "Failed to get native MCP tools: …"; an https
// ref or AMP slug that fails contributes nothing (CrewAI logs or emits an
// event and goes on).
func (m *MCP) Resolve(ctx context.Context, agent *Agent, ref MCPRef, rc RunContext) ([]Tool, error) {
	spec := m.fix(ref.Spec)
	server := mcpconn.Handle(spec)
	if spec.Ref == mcpconn.RefAMP && spec.URL == "" {
		// An AMP slug with no config (crewbench maps slugs to URLs; an
		// unmapped slug is one the account has not connected): CrewAI emits
		// MCPConfigFetchFailedEvent with error_type "not_connected" and goes
		// on without the server (crewai-semantics.md §2.4).
		text := "Config for '" + spec.AMPSlug + "' not found. Make sure it is connected in your account."
		ev := rc.Base
		ev.Kind, ev.Parent, ev.Server = session.MCPConfigFetchFailed, rc.Span, server
		ev.Outcome, ev.Error, ev.ErrorType = "failed", text, "not_connected"
		ev.Data = map[string]any{"slug": spec.AMPSlug, "error": text, "error_type": "not_connected"}
		rc.Emitter.Emit(ev)
		return nil, nil
	}
	opts := mcpconn.Options{Emitter: rc.Emitter, Parent: rc.Span, AgentRole: rc.Base.AgentRole, Cache: m.Cache, Pool: m.Pool, Faults: m.faultState(server)}
	d, err := mcpconn.Discover(ctx, spec, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		text := err.Error()
		if d != nil && d.CrewAIError != "" {
			text = d.CrewAIError
		}
		switch spec.Ref {
		case mcpconn.RefHTTPS:
			warn(rc, server, text)
			return nil, nil
		case mcpconn.RefAMP:
			ev := rc.Base
			ev.Kind, ev.Parent, ev.Server = session.MCPConfigFetchFailed, rc.Span, server
			ev.Outcome, ev.Error, ev.ErrorType = "failed", text, "connection_failed"
			ev.Data = map[string]any{"slug": spec.AMPSlug, "error": text, "error_type": "connection_failed"}
			rc.Emitter.Emit(ev)
			return nil, nil
		}
		return nil, prompt.TextError(text)
	}
	var out []Tool
	for _, t := range d.KeptTools() {
		var raw *pyjson.Object
		if len(t.InputSchema) > 0 {
			if o, err := pyjson.LoadsObject(string(t.InputSchema)); err == nil && o.Len() > 0 {
				raw = o
			}
		}
		model := toolschema.MCPToolModel(t.Name, raw)
		s := &ToolSpec{
			Name: t.DisplayName, LLMName: t.LLMName, Description: t.Description,
			Schema: model.Schema(), RawSchema: raw, Model: model,
			Kind: KindMCP, Server: d.Server, ServerName: d.ServerName, OriginalName: t.Name,
		}
		out = append(out, &mcpTool{spec: s, server: spec, callName: t.Name, m: m, faults: opts.Faults})
	}
	return out, nil
}

func warn(rc RunContext, server, msg string) {
	ev := rc.Base
	ev.Kind, ev.Parent, ev.Server = session.Warning, rc.Span, server
	ev.Data = map[string]any{"message": msg}
	rc.Emitter.Emit(ev)
}

// mcpTool is MCPNativeTool / MCPToolWrapper: a tool whose calls go to the
// server through mcpconn.Call.
type mcpTool struct {
	spec     *ToolSpec
	server   mcpconn.ServerSpec
	callName string
	m        *MCP
	faults   *mcpconn.FaultState
}

func (t *mcpTool) Spec() *ToolSpec { return t.spec }

// Run calls the tool. mcpconn reproduces the policy's texts: a raise
// ("Error executing MCP tool …") becomes an error, an isError result a
// ToolFailure with reason mcp_error, and the https-string path's errors
// ordinary text.
func (t *mcpTool) Run(ctx context.Context, args *pyjson.Object, rc RunContext) ToolResult {
	if t.spec.Model != nil {
		sent, err := t.spec.Model.MCPArguments(t.spec.llmName(), args)
		if err != nil {
			// BaseTool.run raises before the server is reached.
			return ToolResult{Err: err, ErrType: "ValueError"}
		}
		args = sent
	}
	// As JSON text in the model's field order: CrewAI sends the validated
	// dump in that order (a Go map would sort it).
	wire, _ := args.MarshalJSON()
	r := mcpconn.CallJSON(ctx, t.server, t.callName, wire, mcpconn.Options{
		Emitter: rc.Emitter, Parent: rc.Span, AgentRole: rc.Base.AgentRole, Cache: t.m.Cache, Pool: t.m.Pool, Faults: t.faults,
	})
	switch {
	case r.Raised:
		return ToolResult{Err: errors.New(r.Text), ErrType: "RuntimeError"}
	case r.Failed:
		reason := r.FailureReason
		if reason == "" {
			reason = ReasonMCPError
		}
		return ToolResult{Failure: &ToolFailure{Message: r.Text, Reason: reason,
			Details: map[string]any{"server": t.spec.ServerName, "tool": t.callName}}}
	}
	return ToolResult{Text: r.Text}
}
