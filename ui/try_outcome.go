package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
	"crewbench/session"
)

// Try-a-tool's outcome: what a finished call returned, told the way
// CrewAI's tool hands it to the agent.

// maxShownResult caps the result text kept for display.
const maxShownResult = 64 << 10

// verdictLines say how the call ended and what the agent makes of it.
func (p tryPane) verdictLines(r *mcpconn.CallResult) []string {
	st := p.st.Text
	red := p.deps.Redactor
	var b []string
	head := fmt.Sprintf("%s in %s after %s", r.Outcome, fmtDur(r.Duration), pluralize(len(r.Attempts), "attempt"))
	switch {
	case r.Outcome == session.OutcomeInvalidArguments:
		b = append(b, p.st.Banner.Failure.Render("✕ "+r.Outcome+": not sent, CrewAI's validation refused the arguments"))
	case r.Outcome == session.OutcomeOK:
		b = append(b, p.st.Banner.OK.Render("✓ "+head))
	default:
		b = append(b, p.st.Banner.Failure.Render("✕ "+head))
	}
	switch {
	case r.Failed && r.Raised:
		b = append(b, st.Danger.Render("the agent sees an exception"+reasonSuffix(r.FailureReason, "exception")))
	case r.Failed:
		b = append(b, st.Danger.Render("the agent sees a tool failure"+reasonSuffix(r.FailureReason, "tool failure")))
	case r.Outcome != session.OutcomeOK:
		b = append(b, st.Warning.Render("the agent sees this as an ordinary result (this policy returns errors as text)"))
	}
	if r.Error != "" {
		b = append(b, st.Muted.Render("why: ")+red.RedactString(r.Error))
	}
	if r.Fix != "" {
		// What crewbench call prints as "fix:" (an auth failure's remedy).
		b = append(b, st.Muted.Render("fix: ")+red.RedactString(r.Fix))
	}
	return b
}

// reasonSuffix is " (reason)" unless the reason only repeats what.
func reasonSuffix(reason, what string) string {
	if reason == "" || strings.EqualFold(strings.ReplaceAll(reason, "_", " "), what) {
		return ""
	}
	return " (" + reason + ")"
}

// contentLines are what CrewAI's tool returns to the agent and the
// content items the server sent.
func (p tryPane) contentLines(r *mcpconn.CallResult) []string {
	st := p.st.Text
	red := p.deps.Redactor
	b := []string{st.Heading.Render("What CrewAI's tool returns to the agent")}
	b = append(b, clipText(printable(red.RedactString(r.Text)), maxShownResult))
	if len(r.Content) > 0 {
		b = append(b, "", st.Heading.Render(fmt.Sprintf("Content (%s)", pluralize(len(r.Content), "item"))))
		for _, c := range r.Content {
			switch c.Type {
			case "text":
				text := c.Text
				if v, ok, err := decodeJSONValue(text); err == nil && ok {
					if _, isObj := v.(map[string]any); isObj {
						text = prettyJSON([]byte(text))
					} else if _, isArr := v.([]any); isArr {
						text = prettyJSON([]byte(text))
					}
				}
				b = append(b, clipText(printable(red.RedactString(text)), maxShownResult))
			case "image", "audio":
				b = append(b, st.Info.Render(fmt.Sprintf("[%s %s, %s — not shown]", c.Type, c.MIMEType, fmtBytes(int64(c.Bytes)))))
			default:
				line := "[" + c.Type
				if c.URI != "" {
					line += " " + red.RedactURL(c.URI)
				}
				b = append(b, st.Info.Render(line+"]"))
			}
		}
	}
	if len(r.Structured) > 0 {
		b = append(b, "", st.Heading.Render("Structured content"), clipText(prettyJSON(r.Structured), maxShownResult))
	}
	return b
}

// destructiveHint says why calling t may change things, from its
// annotations: destructiveHint true, or readOnlyHint false without a
// destructiveHint saying otherwise (MCP's default for a tool that writes).
// "" means nothing says so.
func destructiveHint(t *mcpconn.Tool) string {
	if t == nil || len(t.Annotations) == 0 {
		return ""
	}
	var ann struct {
		Destructive *bool `json:"destructiveHint"`
		ReadOnly    *bool `json:"readOnlyHint"`
	}
	if json.Unmarshal(t.Annotations, &ann) != nil {
		return ""
	}
	switch {
	case ann.Destructive != nil && *ann.Destructive:
		return "its annotations say destructiveHint: true"
	case ann.Destructive == nil && ann.ReadOnly != nil && !*ann.ReadOnly:
		return "its annotations say readOnlyHint: false"
	}
	return ""
}

// commandLines lays a shell command out in lines of at most w cells,
// breaking only before a flag outside quotes and ending each broken line
// with a backslash, so what is shown can be pasted as it is. A single
// flag longer than w stays whole on its line.
func commandLines(cmd string, w int) []string {
	if ansi.StringWidth(cmd) <= w {
		return []string{cmd}
	}
	var parts []string
	var quote rune
	start := 0
	for i, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ' && strings.HasPrefix(cmd[i:], " --"):
			parts = append(parts, cmd[start:i])
			start = i + 1
		}
	}
	parts = append(parts, cmd[start:])
	var lines []string
	line := parts[0]
	for _, part := range parts[1:] {
		if ansi.StringWidth(line)+1+ansi.StringWidth(part)+2 > w {
			lines = append(lines, line+" \\")
			line = "    " + part
			continue
		}
		line += " " + part
	}
	return append(lines, line)
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n… %s more not shown", fmtBytes(int64(len(s)-n)))
}
