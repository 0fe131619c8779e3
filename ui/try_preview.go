package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
	"crewbench/mcpconn"
)

// Try-a-tool's validation preview: under CrewAI's policies the arguments
// go through the Pydantic model CrewAI builds from the tool's inputSchema
// (crew/toolschema, lax mode) before anything is sent, as `crewbench
// call` does. The pane shows what that does to the arguments while they
// are edited, sends the validated arguments, and turns a call CrewAI would
// refuse into its refusal without calling the server.

// previewRows is the most lines the preview takes in the form box.
const previewRows = 2

// tryPreview is the validation of one set of arguments under one policy.
type tryPreview struct {
	// key is the arguments (and policy kind) it was computed for; the
	// preview is recomputed only when it changes.
	key string
	// session: the chosen policy is crewbench's own; nothing is validated.
	session bool
	// note says why there is nothing to validate (the JSON does not parse).
	note string
	// sent is the validated arguments in the model's order (nil when
	// refused): what CrewAI hands its MCP client.
	sent    json.RawMessage
	changes []string
	// refusal is the text the agent gets instead of a call; head is its
	// "N validation errors for Model", summary the errors on one line.
	refusal string
	head    string
	summary string
}

// Update keeps the preview current with the arguments: only keys and the
// editor change them.
func (p tryPane) Update(msg tea.Msg) (tryPane, tea.Cmd) {
	p, cmd := p.update(msg)
	switch msg.(type) {
	case tea.KeyMsg, editorDoneMsg:
		p.refreshPreview()
	}
	return p, cmd
}

// toolModel is the Pydantic model CrewAI builds for the tool (an empty
// schema is a model without fields, as in `crewbench call`).
func toolModel(t mcpconn.Tool) *toolschema.Model {
	var schema *pyjson.Object
	if len(t.InputSchema) > 0 {
		if o, err := pyjson.LoadsObject(string(t.InputSchema)); err == nil && o.Len() > 0 {
			schema = o
		}
	}
	return toolschema.MCPToolModel(t.Name, schema)
}

// typedArgs are the arguments as the user typed them, in their order for
// the raw JSON. A form whose only problem is a missing required field
// still gives its arguments: CrewAI's refusal of them is the preview.
func (p tryPane) typedArgs() (*pyjson.Object, string, error) {
	if p.raw {
		text := p.rawText.Value()
		o, err := pyjson.LoadsObject(text)
		if err != nil {
			return nil, "raw\x00" + text, err
		}
		return o, "raw\x00" + text, nil
	}
	args, err := formArgs(p.fields)
	if err != nil && !onlyMissing(p.fields) {
		return nil, "form\x00" + err.Error(), err
	}
	b, _ := json.Marshal(args) // decoded values and strings always encode
	o, lerr := pyjson.LoadsObject(string(b))
	if lerr != nil {
		return nil, "form\x00" + string(b), lerr
	}
	return o, "form\x00" + string(b), nil
}

// onlyMissing reports whether every field's value parses: the form's
// errors are then required fields left empty.
func onlyMissing(fields []formField) bool {
	for _, f := range fields {
		if _, _, err := f.value(); err != nil {
			return false
		}
	}
	return true
}

// refreshPreview validates the arguments when they (or the policy kind)
// changed since the last time.
func (p *tryPane) refreshPreview() {
	if p.tool == nil || p.model == nil {
		p.preview = tryPreview{}
		return
	}
	session := p.chosenPolicy() == mcpconn.PolicySession
	if session {
		if !p.preview.session {
			p.preview = tryPreview{session: true}
		}
		return
	}
	args, key, err := p.typedArgs()
	if p.preview.key == key && !p.preview.session {
		return
	}
	pv := tryPreview{key: key}
	if err != nil {
		pv.note = "waiting for arguments that parse (" + foldSpaces(err.Error()) + ")"
		p.preview = pv
		return
	}
	switch sent, verr := p.model.MCPArguments(p.tool.LLMName, args); {
	case verr != nil:
		pv.refusal, pv.head = verr.Error(), "the arguments"
		var ae *toolschema.ArgumentsError
		if errors.As(verr, &ae) && ae.Validation != nil {
			pv.head, pv.summary = errorSummary(ae.Validation)
		}
	default:
		pv.sent, _ = sent.MarshalJSON() // pyjson's encoding always succeeds
		pv.changes = toolschema.ArgumentChanges(args, sent)
	}
	p.preview = pv
}

// errorSummary shortens Pydantic's error to two lines: "N validation
// errors for Model" and "loc: msg; loc: msg".
func errorSummary(v *toolschema.ValidationError) (head, summary string) {
	parts := make([]string, 0, len(v.Errors))
	for _, le := range v.Errors {
		parts = append(parts, strings.Join(le.Loc, ".")+": "+le.Msg)
	}
	return fmt.Sprintf("%s for %s", pluralize(len(v.Errors), "validation error"), v.Model), strings.Join(parts, "; ")
}

// previewLines draw the preview in iw cells (at most previewRows lines).
func (p tryPane) previewLines(iw int) []string {
	st := p.st.Text
	pv := p.preview
	switch {
	case p.tool == nil:
		return nil
	case pv.session:
		return []string{fit(st.Muted.Render("session policy (crewbench's): sent as typed, no CrewAI validation"), iw)}
	case pv.note != "":
		return []string{fit(st.Muted.Render("CrewAI validation: "+pv.note), iw)}
	case pv.refusal != "":
		return []string{fit(st.Danger.Render("CrewAI would refuse"+p.previewPolicy()+": ")+st.Normal.Render(pv.head)+st.Subtle.Render(" (not sent)"), iw),
			fit(st.Subtle.Render("  "+pv.summary), iw)}
	}
	changes := "as typed"
	if len(pv.changes) > 0 {
		changes = strings.Join(pv.changes, "; ")
	}
	var shown bytes.Buffer
	if json.Compact(&shown, pv.sent) != nil {
		shown.Reset()
		shown.Write(pv.sent)
	}
	return []string{fit(st.Success.Render("CrewAI validation"+p.previewPolicy()+": sends ")+st.Normal.Render(shown.String()), iw),
		fit(st.Subtle.Render("  "+changes), iw)}
}

// previewPolicy names the policy the preview is for (the settings row may
// be scrolled out of a small form): " (native)", " (native, the server's)".
func (p tryPane) previewPolicy() string {
	if policyChoices[p.policy] == "" {
		return " (" + string(p.chosenPolicy()) + ", the server's)"
	}
	return " (" + string(p.chosenPolicy()) + ")"
}

// refuse ends a run CrewAI would refuse before it starts: the outcome is
// the text the agent gets, and the server is not called.
func (p tryPane) refuse(spec mcpconn.ServerSpec) (tryPane, tea.Cmd) {
	pol := mcpconn.EffectivePolicy(spec)
	p.stopEditing()
	p.callID++ // late events of an earlier call are not this one's
	p.timeline = []string{p.st.Text.Warning.Render(string(pol) + " · not sent: CrewAI's validation refused the arguments")}
	p.result = mcpconn.RefusedCall(spec, p.toolName, p.tool.LLMName, p.preview.refusal)
	p.command = p.callCommand()
	p.renderOut()
	p.out.GotoTop()
	return p, tea.Batch(noticeAbout(topicTryArgs, noticeWarn, "CrewAI would refuse these arguments: not sent"), resolved(topicTryRaw))
}

// wireArgs are the arguments a run sends: the validated ones under
// CrewAI's policies, the typed ones under the session policy.
func (p tryPane) wireArgs(args map[string]any) json.RawMessage {
	if !p.preview.session && p.preview.sent != nil {
		return p.preview.sent
	}
	b, err := json.Marshal(args)
	if err != nil || args == nil {
		return json.RawMessage("{}")
	}
	return b
}
