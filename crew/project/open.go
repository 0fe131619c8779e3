package project

import (
	"bufio"
	"bytes"
	"crewbench/crew/filelimit"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNoProject is the error of Open when nothing it knows is at the path.
var ErrNoProject = errors.New("no CrewAI project")

// Options tune Open.
type Options struct {
	// Overlay is an explicit crewbench.yaml (crewbench -c FILE); "" looks
	// for crewbench.yaml beside the project.
	Overlay string
	// Environ is the process environment as KEY=VALUE; nil means
	// os.Environ(). It feeds .env expansion, os.environ reads in crew.py,
	// host variables in mcpServers files and the MODEL default.
	Environ []string
}

// Open opens the project at path (a directory or a file) with an optional
// overlay. In a directory it looks, in this order, for crewbench.yaml, a
// JSON crew (pyproject.toml [tool.crewai] definition, crew.jsonc,
// crew.json), a classic project (src/<pkg>/config/agents.yaml, crew.py)
// and an mcpServers file (.mcp.json, .cursor/mcp.json, .vscode/mcp.json,
// mcp.json, claude_desktop_config.json, .gemini/settings.json).
// Project.Opened says which it opened and why.
//
// When the files can be read but hold mistakes, Open returns the project
// it could build together with an Errors value listing every problem with
// its file:line:col, so callers such as lint can report them all.
func Open(path, overlayPath string) (*Project, error) {
	return OpenWith(path, Options{Overlay: overlayPath})
}

// OpenWith is Open with options.
func OpenWith(path string, opts Options) (*Project, error) {
	if path == "" {
		path = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The callers say they were opening a project; the error says what
	// failed ("stat DIR: no such file or directory").
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	dir, file := abs, ""
	if !st.IsDir() {
		dir, file = filepath.Dir(abs), abs
	}
	p := &Project{Dir: dir, environ: environ}
	l := newLoader(p, nil)

	// the overlay, parsed first: its values, env and AMP URLs are used
	// while loading the project
	ovPath := opts.Overlay
	if ovPath == "" && file != "" && isOverlayFile(file) {
		ovPath, file = file, ""
	}
	if ovPath == "" && file == "" && isFile(filepath.Join(dir, OverlayFile)) {
		ovPath = filepath.Join(dir, OverlayFile)
	}
	if ovPath != "" {
		ovAbs, _ := filepath.Abs(ovPath)
		ov := l.loadOverlay(ovAbs, relTo(dir, ovAbs))
		if ov != nil && ov.ProjectPath != "" && ov.Crew == nil {
			pst, err := os.Stat(ov.ProjectPath)
			switch {
			case err != nil:
				l.err(ov.projectPos, "project", "", fmt.Sprintf("project: %s: %s", ov.Project, errText(err)))
			case file == "":
				if pst.IsDir() {
					dir = ov.ProjectPath
				} else {
					dir, file = filepath.Dir(ov.ProjectPath), ov.ProjectPath
				}
				dir = filepath.Clean(dir)
				// read the overlay again so its positions are shown
				// relative to the project it overlays
				p.Dir, p.Files, l.errs = dir, nil, nil
				l.root = dir
				shown := ovAbs
				if r, err := filepath.Rel(dir, ovAbs); err == nil {
					shown = filepath.ToSlash(r)
				}
				ov = l.loadOverlay(ovAbs, shown)
			}
		}
		if ov != nil {
			p.Overlay, l.ov = ov, ov
		}
	}

	kind, target, why := detect(dir, file, p.Overlay)
	if kind == "" {
		if len(l.errs) > 0 {
			return p, l.errs
		}
		return nil, fmt.Errorf("%w in %s: looked for %s, crew.jsonc or crew.json, src/<pkg>/config/agents.yaml with crew.py, and .mcp.json / mcp.json / .cursor/mcp.json / .vscode/mcp.json / claude_desktop_config.json / .gemini/settings.json", ErrNoProject, dir, OverlayFile)
	}
	p.Kind, p.Opened = kind, why
	l.root = dir

	// .env: crewai run reads <cwd>/.env with override=True for JSON crews;
	// `import crewai` finds the project's .env with override=False.
	if envPath := filepath.Join(dir, ".env"); isFile(envPath) {
		if src, err := filelimit.Read(envPath, filelimit.Config); err != nil {
			l.err(Pos{File: l.rel(envPath)}, "", "", "cannot read "+l.rel(envPath)+": "+errText(err))
		} else {
			l.addFile(envPath, ".env")
			p.Env = ParseDotEnv(src, l.rel(envPath), environ, kind != KindClassic)
			for _, bad := range p.Env.Invalid {
				l.note(bad, Warn, "dotenv-invalid", fmt.Sprintf("python-dotenv could not parse statement starting at line %d", bad.Line))
			}
			for _, big := range p.Env.Oversized {
				l.note(big, Warn, "dotenv-oversized", fmt.Sprintf("the value at line %d expands to more than %d bytes (python-dotenv would build it whole); crewbench keeps it unexpanded", big.Line, maxDotEnvValue))
			}
			if p.Env.Disabled {
				l.note(Pos{File: l.rel(envPath)}, Warn, "dotenv-disabled", "PYTHON_DOTENV_DISABLED is set: python-dotenv loads nothing, so .env is ignored")
			}
		}
	}

	switch kind {
	case KindJSONCrew:
		l.loadJSONCrew(target)
	case KindClassic:
		lay, _ := findClassic(target)
		if isFile(target) {
			lay, _ = findClassic(filepath.Dir(target))
		}
		l.loadClassic(lay)
	case KindMCPServers:
		l.loadMCPServersFile(target)
	case KindOverlayCrew:
		l.loadOverlayCrew(p.Overlay)
	case KindOverlay:
		// servers only, added by applyOverlay
	}
	l.finish()
	if len(l.errs) > 0 {
		return p, l.errs
	}
	return p, nil
}

func isOverlayFile(path string) bool {
	base := filepath.Base(path)
	if base == "agents.yaml" || base == "tasks.yaml" {
		return false
	}
	ext := filepath.Ext(base)
	return ext == ".yaml" || ext == ".yml"
}

// mcpServerFiles are the mcpServers files looked for, in order.
var mcpServerFiles = []string{".mcp.json", "mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", "claude_desktop_config.json", ".gemini/settings.json"}

// detect decides what to open. target is the file or directory to load.
func detect(dir, file string, ov *Overlay) (ProjectKind, string, string) {
	if file != "" {
		base := filepath.Base(file)
		switch {
		case base == "crew.jsonc" || base == "crew.json":
			return KindJSONCrew, file, "opened " + base + " (given)"
		case base == "agents.yaml" || base == "tasks.yaml":
			pkg := filepath.Dir(filepath.Dir(file))
			return KindClassic, pkg, "opened the classic project around " + base + " (given)"
		case base == "crew.py" || base == "main.py":
			return KindClassic, filepath.Dir(file), "opened the classic project of " + base + " (given)"
		case base == "pyproject.toml":
			return detect(dir, "", ov)
		case strings.HasSuffix(base, ".jsonc") || strings.HasSuffix(base, ".json"):
			if looksLikeCrew(file) {
				return KindJSONCrew, file, "opened " + base + " (given; a crew object with agents and tasks)"
			}
			return KindMCPServers, file, "opened " + base + " as an mcpServers file (given)"
		}
		return "", "", ""
	}
	if ov != nil && ov.Crew != nil {
		return KindOverlayCrew, dir, "opened the crew written in " + ov.Path
	}
	// JSON crew: pyproject definition first, then crew.jsonc / crew.json
	if def, ok := pyprojectCrewDefinition(dir); ok {
		return KindJSONCrew, filepath.Join(dir, filepath.FromSlash(def)), "opened " + def + ", named by pyproject.toml [tool.crewai] definition"
	}
	for _, n := range []string{"crew.jsonc", "crew.json"} {
		if isFile(filepath.Join(dir, n)) {
			why := "opened " + n + " (a JSON-first crew)"
			if isFile(filepath.Join(dir, "pyproject.toml")) {
				why += "; note: pyproject.toml has no [tool.crewai] definition, so `crewai run` would not run it as a JSON crew"
			}
			return KindJSONCrew, filepath.Join(dir, n), why
		}
	}
	if lay, ok := findClassic(dir); ok {
		rel, _ := filepath.Rel(dir, lay.pkgDir)
		return KindClassic, lay.pkgDir, "opened the classic project in " + filepath.ToSlash(rel) + " (config/agents.yaml, config/tasks.yaml, crew.py)"
	}
	for _, n := range mcpServerFiles {
		if f := filepath.Join(dir, filepath.FromSlash(n)); isFile(f) {
			return KindMCPServers, f, "opened " + n + " as an mcpServers file"
		}
	}
	if ov != nil {
		return KindOverlay, dir, "opened " + ov.Path + " (servers only, no crew)"
	}
	return "", "", ""
}

func looksLikeCrew(path string) bool {
	src, err := filelimit.Read(path, filelimit.Config)
	if err != nil {
		return false
	}
	n, err := ParseJSONC(src, path)
	if err != nil {
		return !bytes.Contains(src, []byte("mcpServers")) && !bytes.Contains(src, []byte(`"servers"`))
	}
	return n.Kind == KindObject && (n.Has("agents") || n.Has("tasks"))
}

// pyproject is the little of pyproject.toml the loader needs.
type pyproject struct {
	name, crewaiType, definition string
	hasDefinition                bool
}

func readPyproject(dir string) (pyproject, bool) {
	src, err := filelimit.Read(filepath.Join(dir, "pyproject.toml"), filelimit.Config)
	if err != nil {
		return pyproject{}, false
	}
	var pp pyproject
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] ")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		v = tomlString(strings.TrimSpace(v))
		switch {
		case section == "project" && k == "name":
			pp.name = v
		case section == "tool.crewai" && k == "type":
			pp.crewaiType = v
		case section == "tool.crewai" && k == "definition":
			pp.definition, pp.hasDefinition = v, true
		}
	}
	return pp, true
}

// tomlString reads a basic or literal TOML string (drops a trailing comment).
func tomlString(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		q := v[0]
		if end := strings.IndexByte(v[1:], q); end >= 0 {
			return v[1 : 1+end]
		}
	}
	if i := strings.IndexByte(v, '#'); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

func pyprojectName(dir string) string {
	pp, _ := readPyproject(dir)
	return pp.name
}

// pyprojectCrewDefinition is crewai run's JSON crew dispatch:
// [tool.crewai] type = "crew" with a definition that is a relative path to
// an existing file inside the project.
func pyprojectCrewDefinition(dir string) (string, bool) {
	pp, ok := readPyproject(dir)
	if !ok || pp.crewaiType != "crew" || !pp.hasDefinition {
		return "", false
	}
	d := pp.definition
	if d == "" || strings.HasPrefix(d, "~") || filepath.IsAbs(d) || strings.Contains(d, "..") || !isFile(filepath.Join(dir, filepath.FromSlash(d))) {
		return "", false
	}
	return d, true
}

// checkDefinition reports crewai run's UsageErrors for a bad definition.
func (l *loader) checkDefinition() {
	pp, ok := readPyproject(l.p.Dir)
	if !ok || pp.crewaiType != "crew" || !pp.hasDefinition {
		return
	}
	d := pp.definition
	pos := Pos{File: "pyproject.toml"}
	switch {
	case d == "":
		l.note(pos, Warn, "pyproject-definition", "[tool.crewai] definition must be a non-empty string")
	case strings.HasPrefix(d, "~") || filepath.IsAbs(d) || (len(d) > 1 && d[1] == ':'):
		l.note(pos, Warn, "pyproject-definition", fmt.Sprintf("[tool.crewai] definition must be relative to the project root; got '%s'.", d))
	case !isFile(filepath.Join(l.p.Dir, filepath.FromSlash(d))):
		l.note(pos, Warn, "pyproject-definition", fmt.Sprintf("[tool.crewai] definition must point to an existing file; got '%s'.", d))
	}
}

func (l *loader) loadJSONCrew(crewPath string) {
	shown := l.rel(crewPath)
	l.checkDefinition()
	if _, ok := readPyproject(l.p.Dir); ok {
		l.addFile(filepath.Join(l.p.Dir, "pyproject.toml"), "pyproject")
	}
	root, ok := l.readJSONCObject(crewPath, shown, "crew")
	if !ok {
		return
	}
	l.root = filepath.Dir(crewPath)
	agentsDir := filepath.Join(filepath.Dir(crewPath), "agents")
	agentsShown := l.rel(agentsDir)
	cd := crewDef{node: root, file: shown, src: shown,
		agents: func(name string) (*Node, string, string, string, bool) {
			for _, ext := range []string{".jsonc", ".json"} {
				f := filepath.Join(agentsDir, name+ext)
				if !isFile(f) {
					continue
				}
				fs := l.rel(f)
				b, ok := l.readFile(f, "agent", Pos{})
				if !ok {
					return nil, fs, fs, "", true
				}
				n, err := ParseJSONC(b, fs)
				if err != nil {
					l.errs = append(l.errs, asError(err, fs))
					return nil, fs, fs, "", true
				}
				return n, fs, fs, "", true
			}
			return nil, "", "", "", false
		},
		missing: func(name string) string {
			return fmt.Sprintf("Agent definition for '%s' not found in %s (tried %s.jsonc and %s.json)", name, agentsShown, name, name)
		},
	}
	l.p.Crew = l.loadCrew(cd)
}

// loadOverlayCrew loads crew: from crewbench.yaml; agents are inline, as a
// map {name: {...}} or a list of {name: ..., ...} / one-key maps
// (formats §3.5).
func (l *loader) loadOverlayCrew(ov *Overlay) {
	crew := ov.Crew
	src := ov.Path + ": crew"
	agents := crew.Get("agents")
	inline := map[string]*Node{}
	var order []*Node // name nodes
	if agents.IsNull() || (agents.Kind == KindObject && len(agents.Fields) == 0) || (agents.Kind == KindArray && len(agents.Items) == 0) {
		pos := crew.Pos
		if agents != nil {
			pos = agents.Pos
		}
		l.err(pos, "crew.agents", src, "crew action requires inline agent definitions")
		return
	}
	switch agents.Kind {
	case KindObject:
		for _, f := range agents.Fields {
			inline[f.Key] = f.Value
			order = append(order, &Node{Kind: KindString, Str: f.Key, Pos: f.KeyPos})
		}
	case KindArray:
		for i, it := range agents.Items {
			if it.Kind == KindObject {
				if nm := it.Get("name"); nm != nil && nm.Kind == KindString {
					cp := &Node{Kind: KindObject, Pos: it.Pos}
					for _, f := range it.Fields {
						if f.Key != "name" {
							cp.Fields = append(cp.Fields, f)
						}
					}
					inline[nm.Str] = cp
					order = append(order, nm)
					continue
				}
				if len(it.Fields) == 1 && it.Fields[0].Value.Kind == KindObject {
					inline[it.Fields[0].Key] = it.Fields[0].Value
					order = append(order, &Node{Kind: KindString, Str: it.Fields[0].Key, Pos: it.Fields[0].KeyPos})
					continue
				}
			}
			l.err(it.Pos, indexPath("crew.agents", i), src, fmt.Sprintf("agents[%d] must include a name field or be a one-key mapping", i))
		}
	default:
		l.err(agents.Pos, "crew.agents", src, "crew action requires inline agent definitions")
		return
	}
	manager := ""
	if m := crew.Get("manager_agent"); m != nil && m.Kind == KindString {
		manager = m.Str
	}
	list := &Node{Kind: KindArray, Pos: agents.Pos}
	for _, n := range order {
		if n.Str != manager {
			list.Items = append(list.Items, n)
		}
	}
	synth := &Node{Kind: KindObject, Pos: crew.Pos}
	for _, f := range crew.Fields {
		if f.Key == "agents" {
			synth.Fields = append(synth.Fields, &Field{Key: "agents", KeyPos: f.KeyPos, Value: list})
			continue
		}
		synth.Fields = append(synth.Fields, f)
	}
	if t := crew.Get("tasks"); t.IsNull() || (t.Kind == KindArray && len(t.Items) == 0) {
		pos := crew.Pos
		if t != nil {
			pos = t.Pos
		}
		l.err(pos, "crew.tasks", src, "crew action requires a non-empty tasks list")
		synth.Fields = removeField(synth.Fields, "tasks")
		synth.Fields = append(synth.Fields, &Field{Key: "tasks", Value: &Node{Kind: KindArray, Items: []*Node{}, Pos: pos}})
	}
	cd := crewDef{node: synth, file: ov.Path, src: src, base: "crew",
		agents: func(name string) (*Node, string, string, string, bool) {
			n, ok := inline[name]
			if !ok {
				return nil, "", "", "", false
			}
			return n, ov.Path, ov.Path + ": crew.agents." + name, "crew.agents." + name, true
		},
		missing: func(name string) string {
			return fmt.Sprintf("Agent definition for '%s' not found in crew.agents of %s", name, ov.Path)
		},
	}
	l.p.Crew = l.loadCrew(cd)
}

func removeField(fs []*Field, key string) []*Field {
	out := fs[:0:0]
	for _, f := range fs {
		if f.Key != key {
			out = append(out, f)
		}
	}
	return out
}

// finish applies the overlay, resolves every agent's LLM and builds the
// input sets.
func (l *loader) finish() {
	p := l.p
	if l.ov != nil {
		l.applyOverlay()
	}
	if p.Crew != nil && l.ov != nil {
		p.Crew.LLMOverride = l.ov.LLM
	}
	for _, a := range p.Agents {
		a.ResolvedLLM = l.resolveLLM(a)
	}
	// input sets: the crew's inputs, with each overlay set layered over them
	// (as crewai run layers --inputs over crew.jsonc inputs)
	base := map[string]any{}
	if p.Crew != nil {
		for k, v := range p.Crew.Inputs {
			base[k] = v
		}
	}
	p.InputSets = map[string]map[string]any{"default": base}
	if l.ov != nil {
		names := make([]string, 0, len(l.ov.Inputs))
		for n := range l.ov.Inputs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			set := map[string]any{}
			for k, v := range base {
				set[k] = v
			}
			for k, v := range l.ov.Inputs[n] {
				set[k] = v
			}
			p.InputSets[n] = set
		}
		if def, ok := l.ov.Inputs["default"]; ok {
			for _, u := range p.Unresolved {
				if k, found := strings.CutPrefix(u.ID, "inputs."); found && !u.Resolved {
					if v, ok := def[k]; ok {
						u.Resolved, u.Value, u.From = true, v, "crewbench.yaml inputs.default"
					}
				}
			}
		}
	}
}

// resolveLLM is the LLM an agent runs with: the overlay's per-agent
// override, the overlay's llm, the declared llm, else CrewAI's create_llm
// default: MODEL / MODEL_NAME / OPENAI_MODEL_NAME, else "gpt-4.1-mini",
// with BASE_URL / OPENAI_API_BASE / OPENAI_BASE_URL and API_BASE /
// AZURE_API_BASE.
func (l *loader) resolveLLM(a *Agent) LLM {
	if l.ov != nil {
		if o := l.ov.AgentLLMs[a.Name]; o != nil {
			return *o
		}
		if l.ov.LLM != nil {
			return *l.ov.LLM
		}
	}
	if a.LLM != nil {
		return *a.LLM
	}
	out := LLM{Model: "gpt-4.1-mini", Source: "CrewAI default (no llm, and no MODEL / MODEL_NAME / OPENAI_MODEL_NAME)"}
	for _, k := range []string{"MODEL", "MODEL_NAME", "OPENAI_MODEL_NAME"} {
		if v, ok, from := l.p.lookupEnv(k); ok && v != "" {
			out.Model, out.Source = v, k+" from "+from
			break
		}
	}
	for _, k := range []string{"BASE_URL", "OPENAI_API_BASE", "OPENAI_BASE_URL"} {
		if v, ok := l.p.Getenv(k); ok && v != "" {
			out.BaseURL = v
			break
		}
	}
	for _, k := range []string{"API_BASE", "AZURE_API_BASE"} {
		if v, ok := l.p.Getenv(k); ok && v != "" {
			out.APIBase = v
			break
		}
	}
	return out
}
