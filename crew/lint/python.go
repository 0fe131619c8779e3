package lint

import (
	"crewbench/crew/filelimit"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"crewbench/crew/project"
	"crewbench/crew/pyread"
	"crewbench/mcpconn"
)

// Limits of the Python scan: projects are small, but a stray virtualenv
// inside the project must not make lint read thousands of files.
const (
	maxPyFiles    = 400
	maxPyFileSize = 1 << 20
)

// skipDirs are directories that hold installed or generated code.
var skipDirs = map[string]bool{".git": true, ".venv": true, "venv": true, "env": true, "node_modules": true,
	"__pycache__": true, "site-packages": true, "dist": true, "build": true, ".tox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true}

// pyFile is one Python source file of the project.
type pyFile struct {
	rel   string   // relative to the project directory, slash-separated
	lines []string // without line endings
	codes []string // lines without their comments (pyread.CodeLines)
}

// readPython collects the project's .py files once.
func (c *checker) readPython() []pyFile {
	if c.pyRead {
		return c.pyFiles
	}
	c.pyRead = true
	_ = filepath.WalkDir(c.p.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are skipped, not fatal
		}
		if d.IsDir() {
			if path != c.p.Dir && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".py") || len(c.pyFiles) >= maxPyFiles {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxPyFileSize {
			return nil
		}
		b, err := filelimit.Read(path, maxPyFileSize)
		if err != nil || !utf8.Valid(b) {
			return nil
		}
		rel, err := filepath.Rel(c.p.Dir, path)
		if err != nil {
			return nil
		}
		text := strings.ReplaceAll(string(b), "\r\n", "\n")
		c.pyFiles = append(c.pyFiles, pyFile{rel: filepath.ToSlash(rel), lines: strings.Split(text, "\n"), codes: pyread.CodeLines(text)})
		return nil
	})
	return c.pyFiles
}

// pos is the position of byte offset col0 (0-based) on line i (0-based).
func (f pyFile) pos(i, col0 int) project.Pos {
	line := f.lines[i]
	if col0 > len(line) {
		col0 = len(line)
	}
	return project.Pos{File: f.rel, Line: i + 1, Col: utf8.RuneCountInString(line[:col0]) + 1}
}

// code is line i without its comment.
func (f pyFile) code(i int) string { return f.codes[i] }

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

var (
	fromImportRe    = regexp.MustCompile(`^\s*from\s+([\w.]+)\s+import\s+(.*)$`)
	classRe         = regexp.MustCompile(`^(\s*)class\s+(\w+)\s*\(([^)]*)\)\s*:`)
	defRe           = regexp.MustCompile(`^\s*(?:async\s+)?def\s+(\w+)\s*\(`)
	decoratorToolRe = regexp.MustCompile(`^\s*@tool\b`)
	akickoffRe      = regexp.MustCompile(`\.akickoff\s*\(`)
	maxUsageRe      = regexp.MustCompile(`\bmax_usage_count\s*=\s*(-?\s*\d+)`)
	crewBaseClass   = regexp.MustCompile(`^\s*class\s+(\w+)\b`)
)

// importedName is one name of a from-import, with where it is written.
type importedName struct {
	module, name string
	pos          project.Pos
}

// imports reads the from-imports of a file, including parenthesized ones
// that span lines.
func (f pyFile) imports() []importedName {
	var out []importedName
	for i := 0; i < len(f.lines); i++ {
		m := fromImportRe.FindStringSubmatchIndex(f.code(i))
		if m == nil {
			continue
		}
		line := f.code(i)
		module := line[m[2]:m[3]]
		rest, restAt := line[m[4]:m[5]], m[4]
		type seg struct {
			text string
			line int
			at   int
		}
		segs := []seg{{rest, i, restAt}}
		if strings.Contains(rest, "(") && !strings.Contains(rest, ")") {
			for j := i + 1; j < len(f.lines); j++ {
				segs = append(segs, seg{f.code(j), j, 0})
				if strings.Contains(f.code(j), ")") {
					i = j
					break
				}
			}
		}
		for _, s := range segs {
			for _, nm := range identRe.FindAllStringIndex(s.text, -1) {
				word := s.text[nm[0]:nm[1]]
				if word == "as" || word == "import" {
					continue
				}
				// "X as Y": only X is the imported name
				before := strings.TrimSpace(s.text[:nm[0]])
				if strings.HasSuffix(before, " as") || before == "as" {
					continue
				}
				out = append(out, importedName{module, word, f.pos(s.line, s.at+nm[0])})
			}
		}
	}
	return out
}

var identRe = regexp.MustCompile(`[A-Za-z_]\w*`)

// python runs the rules that read the project's Python files.
func (c *checker) python() {
	files := c.readPython()
	adapter := false
	for _, s := range c.p.Servers {
		if s.Spec.Policy == mcpconn.PolicyAdapter {
			adapter = true
		}
	}
	var crewClasses []string
	for _, f := range files {
		imps := f.imports()
		c.importPaths(imps)
		toolFromCrewAI := false
		for _, im := range imps {
			if im.name == "tool" && (im.module == "crewai.tools" || im.module == "crewai_tools") {
				toolFromCrewAI = true
			}
		}
		c.toolClasses(f)
		if toolFromCrewAI {
			c.toolDocstrings(f)
		}
		for i := range f.lines {
			code := f.code(i)
			if m := akickoffRe.FindStringIndex(code); m != nil && !c.akickoff.IsValid() {
				c.akickoff = f.pos(i, m[0]+1)
			}
			for _, m := range maxUsageRe.FindAllStringSubmatchIndex(code, -1) {
				n, err := strconv.Atoi(strings.ReplaceAll(code[m[2]:m[3]], " ", ""))
				if err == nil && n <= 0 {
					c.add(Finding{Code: CodeMaxUsageCount, Pos: f.pos(i, m[0]),
						Message: fmt.Sprintf("max_usage_count=%d: CrewAI raises `max_usage_count must be a positive integer`", n),
						Fix:     "set max_usage_count to a positive number, or remove it for unlimited use"})
				}
			}
			if strings.HasPrefix(strings.TrimSpace(code), "@CrewBase") {
				for j := i + 1; j < len(f.lines) && j < i+4; j++ {
					if m := crewBaseClass.FindStringSubmatch(f.code(j)); m != nil {
						crewClasses = append(crewClasses, m[1])
						break
					}
				}
			}
		}
	}
	if adapter {
		for _, f := range files {
			c.adapterReuse(f, crewClasses)
		}
	}
}

// wrongImports are names imported from the wrong module, with the fix.
var wrongImports = map[string]map[string]string{
	"crewai_tools": {
		"BaseTool":             "from crewai.tools import BaseTool",
		"tool":                 "from crewai.tools import tool",
		"ZapierActionsAdapter": "from crewai_tools.adapters.zapier_adapter import ZapierActionsAdapter (or the top-level ZapierActionTools)",
	},
	"crewai.mcp": {
		"MCPServerAdapter": "from crewai_tools import MCPServerAdapter (needs crewai-tools[mcp])",
	},
	"crewai.tools": {
		"MCPServerAdapter": "from crewai_tools import MCPServerAdapter (needs crewai-tools[mcp])",
	},
}

func (c *checker) importPaths(imps []importedName) {
	for _, im := range imps {
		if fix, ok := wrongImports[im.module][im.name]; ok {
			c.add(Finding{Code: CodeImportPath, Pos: im.pos,
				Message: fmt.Sprintf("cannot import name '%s' from '%s' (ImportError)", im.name, im.module),
				Fix:     fix})
			continue
		}
		if im.module == "crewai_tools" {
			if real, ok := hallucinated[im.name]; ok {
				c.add(Finding{Code: CodeUnknownToolClass, Pos: im.pos,
					Message: fmt.Sprintf("crewai_tools has no %s (ImportError)", im.name),
					Fix:     "use " + real})
			}
		}
	}
}

// toolClasses reports BaseTool subclasses that define _arun but no _run.
func (c *checker) toolClasses(f pyFile) {
	for i := range f.lines {
		m := classRe.FindStringSubmatch(f.code(i))
		if m == nil || !strings.Contains(m[3], "BaseTool") {
			continue
		}
		indent := len(m[1])
		hasRun, hasArun := false, false
		for j := i + 1; j < len(f.lines); j++ {
			code := f.code(j)
			if strings.TrimSpace(code) == "" {
				continue
			}
			if indentOf(code) <= indent {
				break
			}
			if d := defRe.FindStringSubmatch(code); d != nil {
				switch d[1] {
				case "_run":
					hasRun = true
				case "_arun":
					hasArun = true
				}
			}
		}
		if hasArun && !hasRun {
			c.add(Finding{Code: CodeMissingRun, Pos: f.pos(i, indent),
				Message: fmt.Sprintf("tool class %s defines _arun but not _run: Can't instantiate abstract class %s without an implementation for abstract method '_run'", m[2], m[2]),
				Fix:     "rename _arun to _run (async def _run(self, …) is fine): agents always call _run"})
		}
	}
}

// toolDocstrings reports @tool functions without a docstring.
func (c *checker) toolDocstrings(f pyFile) {
	for i := 0; i < len(f.lines); i++ {
		if !decoratorToolRe.MatchString(f.code(i)) {
			continue
		}
		// skip further decorators to the def
		j := i + 1
		for j < len(f.lines) && !defRe.MatchString(f.code(j)) {
			if t := strings.TrimSpace(f.code(j)); t != "" && !strings.HasPrefix(t, "@") && !strings.HasPrefix(t, ")") && !strings.HasSuffix(strings.TrimSpace(f.code(j-1)), ",") && !strings.HasSuffix(strings.TrimSpace(f.code(j-1)), "(") {
				break
			}
			j++
		}
		if j >= len(f.lines) || !defRe.MatchString(f.code(j)) {
			continue
		}
		name := defRe.FindStringSubmatch(f.code(j))[1]
		// the signature ends at the first ":" outside brackets
		depth, k, done := 0, j, false
		for ; k < len(f.lines) && !done; k++ {
			for _, ch := range f.code(k) {
				switch ch {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					depth--
				case ':':
					if depth == 0 {
						done = true
					}
				}
				if done {
					break
				}
			}
		}
		// k is the line after the signature; a one-line body "def f(): ..." has none
		body := ""
		for ; k < len(f.lines); k++ {
			if t := strings.TrimSpace(f.lines[k]); t != "" && !strings.HasPrefix(t, "#") {
				body = t
				break
			}
		}
		if !startsWithString(body) {
			c.add(Finding{Code: CodeNoDocstring, Pos: f.pos(j, indentOf(f.lines[j])),
				Message: fmt.Sprintf("@tool function %s has no docstring: ValueError: Function must have a docstring", name),
				Fix:     fmt.Sprintf(`add a docstring that tells the LLM what %s does and when to use it, e.g. """Convert kilometres to miles."""`, name)})
		}
		i = j
	}
}

func startsWithString(s string) bool {
	s = strings.TrimLeft(s, "rRbBuUfF")
	return strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'")
}

// adapterReuse reports a @CrewBase instance that is kicked off more than
// once (in a loop, or twice) while the crew uses mcp_server_params.
func (c *checker) adapterReuse(f pyFile, classes []string) {
	if len(classes) == 0 {
		return
	}
	cls := strings.Join(classes, "|")
	inst := regexp.MustCompile(`^\s*(\w+)\s*=\s*(?:` + cls + `)\s*\(\s*\)\s*$`)
	built := regexp.MustCompile(`^\s*(\w+)\s*=\s*(?:` + cls + `)\s*\(\s*\)\s*\.crew\(\s*\)\s*$`)
	for i := range f.lines {
		code := f.code(i)
		var use *regexp.Regexp
		var name string
		if m := inst.FindStringSubmatch(code); m != nil {
			name = m[1]
			use = regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\.crew\(\s*\)\.kickoff`)
		} else if m := built.FindStringSubmatch(code); m != nil {
			name = m[1]
			use = regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\.kickoff`)
		} else {
			continue
		}
		count, inLoop := 0, false
		var first project.Pos
		for j := i + 1; j < len(f.lines); j++ {
			u := f.code(j)
			if loc := use.FindStringIndex(u); loc != nil {
				count++
				if count == 1 {
					first = f.pos(j, loc[0])
				}
				if loopAbove(f, i, j) {
					inLoop = true
				}
			}
		}
		if count >= 2 || inLoop {
			c.add(Finding{Code: CodeAdapterReused, Pos: first, Related: []project.Pos{f.pos(i, indentOf(code))},
				Message: fmt.Sprintf("%s is kicked off more than once: the mcp_server_params adapter is stopped after the first kickoff, so later MCP calls return `Event loop is closed`", name),
				Fix:     "build a fresh instance for each run: " + strings.Split(cls, "|")[0] + "().crew().kickoff(inputs=…)"})
		}
	}
}

// loopAbove reports whether line j sits in a for/while block that starts
// after line i.
func loopAbove(f pyFile, i, j int) bool {
	ind := indentOf(f.lines[j])
	for k := j - 1; k > i; k-- {
		code := f.code(k)
		if strings.TrimSpace(code) == "" {
			continue
		}
		if indentOf(code) < ind {
			t := strings.TrimSpace(code)
			if strings.HasPrefix(t, "for ") || strings.HasPrefix(t, "while ") || strings.HasPrefix(t, "async for ") {
				return true
			}
			ind = indentOf(code)
		}
	}
	return false
}
