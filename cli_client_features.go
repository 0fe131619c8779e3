package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"crewbench/crew"
	"crewbench/crew/llm"
	"crewbench/crew/project"
	"crewbench/mcpconn"
)

// clientFeatureFlags turn on the MCP client capabilities crewbench's own
// headless calls (call --policy session, smoke) can declare beyond CrewAI's,
// which declares none. Each is off by default: a server then sees the same
// client CrewAI is, except for crewbench's clientInfo.
type clientFeatureFlags struct {
	// elicitation is off, defaults (SEP-1034: accept with the schema's
	// defaults, decline when a required field has none) or decline.
	elicitation   string
	allowSampling bool
	samplingLLM   string
	roots         bool
}

// Elicitation modes of --elicitation.
const (
	elicitOff      = "off"
	elicitDefaults = "defaults"
	elicitDecline  = "decline"
)

func (f *clientFeatureFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.elicitation, "elicitation", elicitOff, "NOT CrewAI (session policy only): declare elicitation and answer it: `MODE` "+
		"defaults (accept with the form's defaults; decline when a required field has none), decline, or off")
	fs.BoolVar(&f.allowSampling, "allow-sampling", false, "NOT CrewAI (session policy only): declare sampling and answer a server's "+
		"sampling/createMessage with the configured LLM, without asking")
	fs.StringVar(&f.samplingLLM, "sampling-llm", "", "the `MODEL` that answers sampling (default: the project's LLM as run picks it, else $MODEL or gpt-4.1-mini)")
	fs.BoolVar(&f.roots, "roots", false, "NOT CrewAI (session policy only): declare roots: the project directory (--project, else the current directory) as a file:// root")
}

// features builds what the flags turn on; nil when nothing is. pf names the
// project whose directory is the root and whose LLM answers sampling.
func (f *clientFeatureFlags) features(pf *projectFlags, stderr io.Writer) (*mcpconn.ClientFeatures, error) {
	out := &mcpconn.ClientFeatures{Off: map[string]string{
		mcpconn.MethodElicit: "crewbench --elicitation=defaults answers it",
		mcpconn.MethodSample: "crewbench --allow-sampling answers it with the configured LLM",
		mcpconn.MethodRoots:  "crewbench --roots declares the project directory",
	}}
	switch f.elicitation {
	case elicitOff, "":
	case elicitDefaults:
		out.Elicit = func(_ context.Context, req mcpconn.ElicitRequest) (mcpconn.ElicitResponse, error) {
			return mcpconn.ElicitDefaults(req), nil
		}
	case elicitDecline:
		out.Elicit = func(context.Context, mcpconn.ElicitRequest) (mcpconn.ElicitResponse, error) {
			return mcpconn.ElicitResponse{Action: mcpconn.ElicitDecline}, nil
		}
	default:
		return nil, fmt.Errorf("--elicitation %q: want defaults, decline or off", f.elicitation)
	}
	if f.samplingLLM != "" && !f.allowSampling {
		return nil, errors.New("--sampling-llm needs --allow-sampling")
	}
	var p *project.Project
	if f.allowSampling || f.roots {
		opened, _, cleanup, err := pf.open()
		switch {
		case errors.Is(err, errNoProject):
		case err != nil:
			return nil, err
		default:
			defer cleanup()
			p = opened
		}
	}
	if f.allowSampling {
		prov, model, err := crew.ProjectLLM(p, f.samplingLLM, nil)
		if err != nil {
			return nil, fmt.Errorf("--allow-sampling: %w", err)
		}
		fmt.Fprintf(stderr, "crewbench: sampling requests are answered by %s (not CrewAI behaviour)\n", model)
		out.Sample = llmSampler{p: prov}.Sample
	}
	if f.roots {
		dir := "."
		if p != nil {
			dir = p.Dir
		}
		root, err := mcpconn.DirRoot(dir)
		if err != nil {
			return nil, err
		}
		out.Roots = []mcpconn.Root{root}
	}
	return out, nil
}

// any reports whether a flag asks for a capability.
func (f *clientFeatureFlags) any() bool {
	return f.elicitation != "" && f.elicitation != elicitOff || f.allowSampling || f.roots
}

// llmSampler answers sampling/createMessage with an LLM provider.
type llmSampler struct{ p llm.Provider }

// Sample sends the request's messages (system prompt first) to the LLM,
// with the server's token limit, temperature and stop sequences.
func (s llmSampler) Sample(ctx context.Context, req mcpconn.SampleRequest) (mcpconn.SampleResponse, error) {
	var msgs []llm.Message
	if req.SystemPrompt != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: req.SystemPrompt})
	}
	for _, m := range req.Messages {
		role := llm.RoleUser
		if m.Role == string(llm.RoleAssistant) {
			role = llm.RoleAssistant
		}
		msgs = append(msgs, llm.Message{Role: role, Content: m.Text})
	}
	resp, err := s.p.Call(ctx, llm.Request{Messages: msgs, MaxTokens: req.MaxTokens, Temperature: req.Temperature, Stop: req.Stop}, nil)
	if err != nil {
		return mcpconn.SampleResponse{}, fmt.Errorf("the LLM answering sampling failed: %w", err)
	}
	model := resp.Model
	if model == "" {
		model = s.p.Model()
	}
	return mcpconn.SampleResponse{Model: model, Text: resp.Content, StopReason: mcpStopReason(resp.FinishReason)}, nil
}

// mcpStopReason maps a provider's finish reason to MCP's stopReason.
func mcpStopReason(finish string) string {
	switch strings.ToLower(finish) {
	case "stop", "end_turn":
		return "endTurn"
	case "length", "max_tokens":
		return "maxTokens"
	case "stop_sequence":
		return "stopSequence"
	}
	return finish
}

// rootsFromDir is dir as the one root of the workbench's own calls.
func rootsFromDir(dir string) []mcpconn.Root {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil
		}
	}
	root, err := mcpconn.DirRoot(dir)
	if err != nil {
		return nil
	}
	return []mcpconn.Root{root}
}
