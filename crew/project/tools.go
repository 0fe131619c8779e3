package project

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// decodeLLM reads an llm-like field (llm, function_calling_llm,
// manager_llm, planning_llm, chat_llm) in its string or object form
// (formats §1.5 "llm forms"). nil when absent or null.
func (l *loader) decodeLLM(d *decoder, key string) *LLM {
	n := d.node(key)
	if n.IsNull() {
		return nil
	}
	return l.llmFromNode(n, d, d.paths[key])
}

func (l *loader) llmFromNode(n *Node, d *decoder, key string) *LLM {
	llm := &LLM{Pos: n.Pos, Source: n.Pos.String()}
	switch n.Kind {
	case KindString:
		llm.Model = n.Str
		return llm
	case KindObject:
	default:
		d.invalid(n, key, "Input should be a model string such as 'openai/gpt-4o-mini' or an LLM object")
		return nil
	}
	if ref, isRef, _ := pythonRef(n); isRef {
		llm.Python = ref
		return llm
	}
	for _, mk := range []string{"model", "model_name", "deployment_name"} {
		if v := n.Get(mk); v != nil && v.Kind == KindString {
			llm.Model, llm.ModelKey = v.Str, mk
			break
		}
	}
	if llm.Model == "" && !n.Has("llm_type") {
		keys := make([]string, len(n.Fields))
		for i, f := range n.Fields {
			keys[i] = f.Key
		}
		d.invalid(n, key, "LLM config objects must include 'model', 'model_name', or 'deployment_name', or a serialized 'llm_type'. Got keys: "+pyListRepr(keys))
	}
	if lt := n.Get("llm_type"); lt != nil {
		known := []string{"openai", "anthropic", "azure", "bedrock", "gemini", "litellm", "base"}
		ok := false
		for _, k := range known {
			if lt.Kind == KindString && lt.Str == k {
				ok = true
			}
		}
		if !ok {
			d.invalid(lt, key+".llm_type", fmt.Sprintf("Unknown llm_type: %s. Expected one of %s", pyStrRepr(fmt.Sprint(lt.Plain())), pyListRepr(known)))
		}
	}
	str := func(k string, dst *string) {
		if v := n.Get(k); v != nil && v.Kind == KindString {
			*dst = v.Str
		}
	}
	flt := func(k string) *float64 {
		if v := n.Get(k); !v.IsNull() {
			if f, ok := laxFloat(v); ok {
				return &f
			}
			d.invalid(v, key+"."+k, "Input should be a valid number")
		}
		return nil
	}
	integer := func(k string) *int {
		if v := n.Get(k); !v.IsNull() {
			if i, ok := laxInt(v); ok {
				return &i
			}
			d.invalid(v, key+"."+k, "Input should be a valid integer")
		}
		return nil
	}
	str("provider", &llm.Provider)
	str("base_url", &llm.BaseURL)
	str("api_base", &llm.APIBase)
	str("api_key", &llm.APIKey)
	str("api_version", &llm.APIVersion)
	str("reasoning_effort", &llm.ReasoningEffort)
	llm.Temperature = flt("temperature")
	llm.TopP = flt("top_p")
	llm.Timeout = flt("timeout")
	llm.MaxTokens = integer("max_tokens")
	llm.MaxCompletionTokens = integer("max_completion_tokens")
	llm.Seed = integer("seed")
	if v := n.Get("stream"); !v.IsNull() {
		if b, ok := laxBool(v); ok {
			llm.Stream = &b
		}
	}
	if v := n.Get("stop"); !v.IsNull() {
		switch v.Kind {
		case KindString:
			llm.Stop = []string{v.Str}
		case KindArray:
			for _, it := range v.Items {
				if it.Kind == KindString {
					llm.Stop = append(llm.Stop, it.Str)
				}
			}
		}
	}
	for _, f := range n.Fields {
		if llmKnownKeys[f.Key] {
			continue
		}
		if llm.Params == nil {
			llm.Params = map[string]any{}
		}
		llm.Params[f.Key] = f.Value.Plain()
	}
	return llm
}

var customToolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// decodeTools reads a tools list (formats §1.5 "tools entries") and checks
// it the way CrewAI's validation does, without importing anything.
// label is CrewAI's source prefix; path the position path of the list.
func (l *loader) decodeTools(n *Node, label, file, path string) []ToolRef {
	if n.IsNull() {
		return nil
	}
	if n.Kind != KindArray {
		l.err(n.Pos, path, label, "'tools' must be a list")
		return nil
	}
	var out []ToolRef
	for i, it := range n.Items {
		ip := indexPath(path, i)
		switch it.Kind {
		case KindObject:
			ref := ToolRef{Kind: ToolSerialized, Pos: it.Pos, Args: it.Plain().(map[string]any)}
			if tt := it.Get("tool_type"); tt != nil && tt.Kind == KindString {
				ref.Ref, ref.Class = tt.Str, tt.Str
				if i := strings.LastIndexByte(tt.Str, '.'); i >= 0 {
					ref.Module, ref.Class = tt.Str[:i], tt.Str[i+1:]
				}
			}
			out = append(out, ref)
		case KindString:
			s := it.Str
			switch {
			case s == "":
				continue // skipped by CrewAI
			case strings.HasPrefix(s, "custom:"):
				name := s[len("custom:"):]
				ref := ToolRef{Kind: ToolCustom, Ref: s, Class: name, Module: "tools/" + name + ".py", Pos: it.Pos}
				if !customToolName.MatchString(name) {
					l.err(it.Pos, ip, label, fmt.Sprintf("Invalid custom tool name 'custom:%s': names must match [A-Za-z_][A-Za-z0-9_]* and resolve to tools/<name>.py inside the project.", name))
				} else if !l.fileExists(ref.Module) {
					abs := filepath.Join(l.root, "tools", name+".py")
					e := l.err(it.Pos, ip, label, fmt.Sprintf("custom tool '%s' not found: expected %s. Create the file with a BaseTool subclass, or remove the tool from your crew JSON.", s, abs))
					e.Msg = strings.Replace(e.Msg, abs, ref.Module, 1)
				} else {
					// What CrewAI shows the LLM for the tool (name,
					// description, args_schema) and its result_as_answer
					// and max_usage_count come from the class it loads.
					ref.PyClass = l.customToolClass(ref.Module)
				}
				out = append(out, ref)
			case strings.Contains(s, ":"):
				mod, cls, _ := strings.Cut(s, ":")
				out = append(out, ToolRef{Kind: ToolModule, Ref: s, Module: mod, Class: cls, Pos: it.Pos})
			default:
				out = append(out, ToolRef{Kind: ToolCrewAITools, Ref: s, Class: toolClassCandidates(s)[0], Module: "crewai_tools", Pos: it.Pos})
			}
		default:
			l.err(it.Pos, ip, label, "tool definitions must be strings or objects, got "+pyTypeName(it))
		}
	}
	return out
}

// toolClassCandidates are the crewai_tools class names CrewAI tries for a
// bare name, in order: the name; name+"Tool"; PascalCase(snake)+"Tool".
func toolClassCandidates(name string) []string {
	c := []string{name}
	if !strings.HasSuffix(name, "Tool") {
		c = append(c, name+"Tool")
	}
	var b strings.Builder
	for _, w := range strings.Split(name, "_") {
		if w == "" {
			continue
		}
		// Python's str.capitalize: first upper, rest lower.
		b.WriteString(strings.ToUpper(w[:1]) + strings.ToLower(w[1:]))
	}
	sp := b.String() + "Tool"
	dup := false
	for _, x := range c {
		if x == sp {
			dup = true
		}
	}
	if !dup {
		c = append(c, sp)
	}
	return c
}

// outsideRoot reports whether a relative or absolute path escapes the
// project root (URLs with a non-file scheme pass).
func (l *loader) outsideRoot(p string) bool {
	if i := strings.Index(p, "://"); i > 0 && !strings.HasPrefix(strings.ToLower(p), "file://") {
		return false
	}
	p = strings.TrimPrefix(p, "file://")
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(l.root, p)
	}
	r, err := filepath.Rel(l.root, abs)
	return err != nil || r == ".." || strings.HasPrefix(r, "../")
}
