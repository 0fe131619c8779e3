package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"crewbench/crew/project"
	"crewbench/fixtures/demo"
	"crewbench/mcpconn"
	"crewbench/names/suggest"
)

// projectFlags select the project whose servers `tools`, `call` and `smoke`
// can address by name: --project DIR (default: the current directory, when
// it holds one), -c/--config for a crewbench.yaml overlay, or --demo for the
// embedded demo crew.
type projectFlags struct {
	path    string
	overlay string
	demo    bool
}

func (f *projectFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "project", "", "project to take named servers from (default: the current directory)")
	fs.StringVarP(&f.overlay, "config", "c", "", "crewbench.yaml overlay for the project")
	fs.BoolVar(&f.demo, "demo", false, "take named servers from the embedded demo crew")
}

// explicit reports whether the user named a project.
func (f *projectFlags) explicit() bool { return f.path != "" || f.demo || f.overlay != "" }

// open loads the selected project. The demo is written to a temporary
// directory; cleanup removes it. With no explicit project and nothing
// detectable in the current directory, open returns errNoProject.
func (f *projectFlags) open() (p *project.Project, cleanup func(), err error) {
	cleanup = func() {}
	if f.demo && f.path != "" {
		return nil, cleanup, errors.New("give either --project or --demo, not both")
	}
	path := f.path
	if f.demo {
		dir, err := os.MkdirTemp("", "crewbench-demo-")
		if err != nil {
			return nil, cleanup, fmt.Errorf("demo: %w", err)
		}
		cleanup = func() { _ = os.RemoveAll(dir) }
		if path, err = demo.Materialize(filepath.Join(dir, "project")); err != nil {
			cleanup()
			return nil, func() {}, fmt.Errorf("demo: %w", err)
		}
	}
	if path == "" {
		path = "."
	}
	p, err = project.Open(path, f.overlay)
	if p == nil {
		cleanup()
		if !f.explicit() {
			return nil, func() {}, errNoProject
		}
		return nil, func() {}, err
	}
	// A project with load errors still has usable servers; the errors are
	// lint's to report.
	return p, cleanup, nil
}

var errNoProject = errors.New("no project here")

// resolveNamed looks servers up by name in the selected project.
func resolveNamed(ctx context.Context, pf *projectFlags, names []string) ([]mcpconn.ServerSpec, error) {
	if len(names) == 0 {
		return nil, nil
	}
	p, cleanup, err := pf.open()
	if errors.Is(err, errNoProject) {
		return nil, fmt.Errorf("unknown server %q: no project found in the current directory; give --project DIR, --demo, or the server itself with --stdio \"cmd args\" / --url URL", names[0])
	}
	if err != nil {
		return nil, err
	}
	// The demo's files are only read while loading; its servers are
	// started later from the specs, so the directory can go now.
	defer cleanup()
	var out []mcpconn.ServerSpec
	for _, n := range names {
		s := p.Server(n)
		if s == nil {
			return nil, unknownServerError(n, p)
		}
		if ok, why := s.Ready(p); !ok {
			return nil, fmt.Errorf("server %q (%s) cannot be started: %s", n, s.Pos, why)
		}
		out = append(out, selfResolved(s.Spec))
	}
	return out, nil
}

// projectServers returns every server of the selected project, or nil
// when there is no project and none was asked for.
func projectServers(pf *projectFlags) ([]mcpconn.ServerSpec, error) {
	p, cleanup, err := pf.open()
	if errors.Is(err, errNoProject) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var out []mcpconn.ServerSpec
	for _, s := range p.Servers {
		if ok, _ := s.Ready(p); ok {
			out = append(out, selfResolved(s.Spec))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("project %s declares no MCP server that can be started", p.Dir)
	}
	return out, nil
}

func unknownServerError(name string, p *project.Project) error {
	known := p.ServerNames()
	sort.Strings(known)
	msg := fmt.Sprintf("no server %q in project %s", name, p.Dir)
	if len(known) == 0 {
		return errors.New(msg + " (it declares no MCP servers)")
	}
	guess := suggest.DidYouMean(name, known) // a typo: "wether" → "weather"
	for _, k := range known {
		if guess == "" && (strings.EqualFold(k, name) || strings.Contains(k, name)) {
			guess = k // a part of the name: "inv" → "inventory"
		}
	}
	if guess != "" {
		return fmt.Errorf("%s; did you mean %q? (servers: %s)", msg, guess, strings.Join(known, ", "))
	}
	return fmt.Errorf("%s (servers: %s)", msg, strings.Join(known, ", "))
}

// selfResolved starts a `crewbench …` stdio server with this very binary, so
// projects built on the fixture servers (the demo) work without crewbench on
// PATH. CrewAI's names still come from the declared command.
func selfResolved(s mcpconn.ServerSpec) mcpconn.ServerSpec {
	if s.Transport == mcpconn.TransportStdio && s.Command == "crewbench" && s.Executable == "" {
		if exe, err := os.Executable(); err == nil {
			s.Executable = exe
		}
	}
	return s
}
