package names

import (
	"fmt"
	"strings"
)

// Explanation is how a name was derived, step by step, as data for the UI
// and as text (String) for `crewbench names --explain`.
type Explanation struct {
	Steps []Step `json:"steps"`
}

// Step is one step of a derivation: the inputs, the server name, the tool
// key, the display name, a sanitizing, a selection, a collision suffix or
// another host's pattern.
type Step struct {
	// Title names the step ("inputs", "server name", "LLM name", …).
	Title string `json:"title"`
	// Rule is the rule applied, in CrewAI's terms.
	Rule string `json:"rule,omitempty"`
	// Value is the string the step produced (for "inputs", a summary).
	Value string `json:"value"`
	// Input is what was sanitized, when the step sanitized something.
	Input string `json:"input,omitempty"`
	// Stages are the sanitizer stages when the step sanitized something.
	Stages []Stage `json:"stages,omitempty"`
	// Hash details a truncation, when one happened.
	Hash *HashDetail `json:"hash,omitempty"`
}

// HashDetail is the arithmetic of a truncation (§1.1 step 9).
type HashDetail struct {
	// Full is the sanitized string before truncation (longer than 64).
	Full string `json:"full"`
	// Prefix is Full's first 55 characters minus trailing "_".
	Prefix string `json:"prefix"`
	// Hash is the first 8 hex characters of SHA-256(Full).
	Hash string `json:"hash"`
}

// explainer collects steps.
type explainer struct{ steps []Step }

func (e *explainer) add(title, rule, value string) {
	e.steps = append(e.steps, Step{Title: title, Rule: rule, Value: value})
}

// sanitizeStep records sanitize(input) with its stages and returns the result.
func (e *explainer) sanitizeStep(title, rule, input string) string {
	out, stages := SanitizeStages(input)
	st := Step{Title: title, Rule: rule, Value: out, Input: input, Stages: stages}
	if n := len(stages); n > 0 && stages[n-1].Name == StageTruncate {
		full := stages[n-2].Output
		prefix, h := hashParts(full)
		st.Hash = &HashDetail{Full: full, Prefix: prefix, Hash: h}
	}
	e.steps = append(e.steps, st)
	return out
}

func (e *explainer) explanation() Explanation { return Explanation{Steps: e.steps} }

// String renders the explanation as numbered lines. Sanitizer stages that
// did not change the string are left out.
func (x Explanation) String() string {
	var b strings.Builder
	for i, st := range x.Steps {
		if st.Rule == "" && st.Stages == nil {
			fmt.Fprintf(&b, "%d. %s: %s\n", i+1, st.Title, quoteIfOdd(st.Value))
			continue
		}
		fmt.Fprintf(&b, "%d. %s = %s\n", i+1, st.Title, st.Rule)
		if st.Stages != nil {
			writeStages(&b, st)
		}
		fmt.Fprintf(&b, "   → %s\n", quoteIfOdd(st.Value))
	}
	return b.String()
}

// writeStages renders the sanitizer stages that changed the string.
func writeStages(b *strings.Builder, st Step) {
	prev, changed := st.Input, false
	for _, s := range st.Stages {
		if s.Output == prev {
			continue
		}
		changed = true
		if s.Name == StageTruncate && st.Hash != nil {
			fmt.Fprintf(b, "     %-37s %d > 64 characters: keep %q, append \"_\" + sha256[:8] %q\n",
				s.Name, len(st.Hash.Full), st.Hash.Prefix, st.Hash.Hash)
		} else {
			fmt.Fprintf(b, "     %-37s %s\n", s.Name, quoteIfOdd(s.Output))
		}
		prev = s.Output
	}
	if !changed {
		b.WriteString("     (already sanitized: no stage changes it)\n")
	}
}

// quoteIfOdd quotes values that would be ambiguous bare: empty, or with
// leading/trailing spaces or control characters.
func quoteIfOdd(s string) string {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Sprintf("%q", s)
	}
	return s
}
