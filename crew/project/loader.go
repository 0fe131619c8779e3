package project

import (
	"crewbench/crew/filelimit"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// loader carries the state of one Open: the project being filled in, the
// errors so far, the overlay (parsed before the project so its values can
// be used while loading), and the server registry.
type loader struct {
	p    *Project
	root string // absolute project root: custom tools, Python refs, input_files
	errs Errors
	ov   *Overlay
	reg  serverRegistry
	// usedValues are overlay `values:` keys that matched an Unresolved.
	usedValues map[string]bool
}

func newLoader(p *Project, ov *Overlay) *loader {
	return &loader{p: p, root: p.Dir, ov: ov, usedValues: map[string]bool{}}
}

// err records an error. src is CrewAI's "{source}" prefix ("" when CrewAI
// prints none); text the rest of CrewAI's message.
func (l *loader) err(pos Pos, field, src, text string) *Error {
	crewai := text
	if src != "" {
		crewai = src + ": " + text
	}
	msg := crewai
	if pos.File != "" {
		msg = strings.TrimPrefix(msg, pos.File+": ")
	}
	e := &Error{Pos: pos, Field: field, Msg: msg, CrewAI: crewai}
	l.errs = append(l.errs, e)
	return e
}

func (l *loader) note(pos Pos, level Level, code, text string) {
	l.p.Notes = append(l.p.Notes, Note{Pos: pos, Level: level, Code: code, Text: text})
}

// rel makes path relative to the project dir when it lies inside it.
func (l *loader) rel(path string) string { return relTo(l.p.Dir, path) }

func relTo(dir, path string) string {
	if dir == "" {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	r, err := filepath.Rel(dir, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return path
	}
	return filepath.ToSlash(r)
}

func (l *loader) fileExists(rel string) bool {
	st, err := os.Stat(filepath.Join(l.root, filepath.FromSlash(rel)))
	return err == nil && st.Mode().IsRegular()
}

func (l *loader) addFile(path, role string) {
	l.p.Files = append(l.p.Files, File{Path: l.rel(path), Role: role})
}

// readFile reads a project file, recording it; a read failure is an error
// at pos (the place that named the file) or at the file itself.
// readJSONCObject reads a JSONC file whose top level must be an object
// (shown is its name in messages, role what it is); a read or syntax error,
// or another top level, is recorded.
func (l *loader) readJSONCObject(path, shown, role string) (*Node, bool) {
	src, ok := l.readFile(path, role, Pos{})
	if !ok {
		return nil, false
	}
	root, err := ParseJSONC(src, shown)
	if err != nil {
		l.errs = append(l.errs, asError(err, shown))
		return nil, false
	}
	if root.Kind != KindObject {
		l.err(root.Pos, "", shown, "expected a JSON object")
		return nil, false
	}
	return root, true
}

func (l *loader) readFile(path, role string, pos Pos) ([]byte, bool) {
	b, err := filelimit.Read(path, filelimit.Config)
	if err != nil {
		if !pos.IsValid() {
			pos = Pos{File: l.rel(path)}
		}
		l.err(pos, "", "", "cannot read "+l.rel(path)+": "+errText(err))
		return nil, false
	}
	l.addFile(path, role)
	return b, true
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// Getenv looks a variable up the way the project's runner would see it:
// crewbench.yaml `env:` first; then, for JSON crews (and crewbench's own
// kinds), the project's .env over the process environment (crewai run
// loads .env with override=True); for classic projects the process
// environment over .env (load_dotenv(override=False) at import).
func (p *Project) Getenv(key string) (string, bool) {
	v, ok, _ := p.lookupEnv(key)
	return v, ok
}

// lookupEnv also says where the value came from.
func (p *Project) lookupEnv(key string) (string, bool, string) {
	if p.Overlay != nil {
		if v, ok := p.Overlay.Env[key]; ok {
			return v, true, "crewbench.yaml env"
		}
	}
	fromFile := func() (string, bool) {
		if p.Env == nil {
			return "", false
		}
		return p.Env.Lookup(key)
	}
	fromProc := func() (string, bool) { return environLookup(p.environ, key) }
	if p.Kind == KindClassic {
		if v, ok := fromProc(); ok {
			return v, true, "environment"
		}
		if v, ok := fromFile(); ok {
			return v, true, ".env"
		}
		return "", false, ""
	}
	if v, ok := fromFile(); ok {
		return v, true, ".env"
	}
	if v, ok := fromProc(); ok {
		return v, true, "environment"
	}
	return "", false, ""
}

func environLookup(environ []string, key string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		kv := environ[i]
		if strings.HasPrefix(kv, key+"=") {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}

// unresolved records u, resolving it from the overlay's `values:` or, for
// environment reads, from the environment. It returns u.
func (l *loader) unresolved(u *Unresolved) *Unresolved {
	if l.ov != nil && u.ID != "" {
		if v, ok := l.ov.Values[u.ID]; ok {
			u.Resolved, u.Value, u.From = true, v.Value, "crewbench.yaml values ("+v.Pos.String()+")"
			l.usedValues[u.ID] = true
		}
	}
	if !u.Resolved && u.resolve != nil {
		if v, from, ok := u.resolve(l.p); ok {
			u.Resolved, u.Value, u.From = true, v, from
		}
	} else if !u.Resolved && u.EnvVar != "" {
		if v, ok, from := l.p.lookupEnv(u.EnvVar); ok {
			u.Resolved, u.Value, u.From = true, v, from
		}
	}
	if u.Suggestion == "" {
		if u.EnvVar != "" {
			u.Suggestion = "set " + u.EnvVar + " in .env or under env: in crewbench.yaml, or give values: {" + u.ID + ": …} in crewbench.yaml"
		} else {
			u.Suggestion = "give its value in crewbench.yaml under values: {" + quoteYAMLKey(u.ID) + ": …}"
		}
	}
	l.p.Unresolved = append(l.p.Unresolved, u)
	return u
}

func secondsDuration(f float64) time.Duration {
	return time.Duration(f * float64(time.Second))
}

func quoteYAMLKey(k string) string {
	if strings.ContainsAny(k, ": #[]{},&*!|>'\"%@`") {
		return `"` + strings.ReplaceAll(k, `"`, `\"`) + `"`
	}
	return k
}
