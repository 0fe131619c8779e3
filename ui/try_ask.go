package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"crewbench/mcpconn"
)

// A Try call's server may ask the user something while the call waits
// (session policy only; CrewAI's client declares neither): an elicitation
// form built from the requested schema, answered accept, decline or cancel,
// or a sampling request to approve before the configured LLM answers it.
// The question takes the form's place until it is answered.

// pendingAsk is one question; the asker waits on reply.
type pendingAsk struct {
	elicit *mcpconn.ElicitRequest
	sample *mcpconn.SampleRequest
	reply  chan askReply // buffered: answering never blocks Update
}

type askReply struct {
	elicit   mcpconn.ElicitResponse
	approved bool
}

// callAsker is the Asker one Try call gets: it hands each question to the
// pane and waits for the answer. done closes when the call returns.
type callAsker struct {
	ch   chan *pendingAsk
	done chan struct{}
}

func newCallAsker() callAsker {
	return callAsker{ch: make(chan *pendingAsk), done: make(chan struct{})}
}

// Elicit implements Asker.
func (a callAsker) Elicit(ctx context.Context, req mcpconn.ElicitRequest) (mcpconn.ElicitResponse, error) {
	r, err := a.ask(ctx, &pendingAsk{elicit: &req})
	return r.elicit, err
}

// ApproveSampling implements Asker.
func (a callAsker) ApproveSampling(ctx context.Context, req mcpconn.SampleRequest) error {
	r, err := a.ask(ctx, &pendingAsk{sample: &req})
	if err != nil {
		return err
	}
	if !r.approved {
		return mcpconn.ErrUserRejected
	}
	return nil
}

func (a callAsker) ask(ctx context.Context, q *pendingAsk) (askReply, error) {
	q.reply = make(chan askReply, 1)
	select {
	case a.ch <- q:
	case <-ctx.Done():
		return askReply{}, ctx.Err()
	}
	select {
	case r := <-q.reply:
		return r, nil
	case <-ctx.Done():
		return askReply{}, ctx.Err()
	}
}

type askMsg struct {
	id int
	q  *pendingAsk
}

// askForm is the question being answered.
type askForm struct {
	q       *pendingAsk
	fields  []formField
	cursor  int
	editing bool
	err     string
}

func (a askForm) active() bool { return a.q != nil }

// openAsk shows q in place of the form.
func (p *tryPane) openAsk(q *pendingAsk) {
	p.stopEditing()
	p.ask = askForm{q: q}
	if q.elicit == nil {
		return
	}
	fields, err := buildForm(q.elicit.Schema, p.st)
	if err != nil {
		p.ask.err = err.Error()
	}
	titles := map[string]mcpconn.ElicitField{}
	for _, f := range q.elicit.Fields {
		titles[f.Name] = f
	}
	for i := range fields {
		if ef, ok := titles[fields[i].path[0]]; ok && ef.Title != "" {
			fields[i].label = ef.Title
		}
		fields[i].input.Width = max(1, p.askInputWidth())
	}
	p.ask.fields = fields
}

// askInputWidth is the width a form input gets in the current layout.
func (p tryPane) askInputWidth() int {
	fw, fh, _, _ := p.split()
	iw, _ := inner(p.st.Pane.Focused, fw, fh)
	return iw - 24
}

// answerAsk sends the answer and closes the question.
func (p *tryPane) answerAsk(r askReply) {
	if p.ask.q != nil {
		// Buffered 1: the first answer always fits. Update must never
		// block, so a second answer to the same question (from a copy of
		// the model that still holds it) is dropped, not waited on.
		select {
		case p.ask.q.reply <- r:
		default:
		}
	}
	p.ask = askForm{}
}

func (p tryPane) updateAsk(k tea.KeyMsg) (tryPane, tea.Cmd) {
	t, in := p.km.Try, p.km.Input
	a := &p.ask
	if a.editing {
		switch {
		case key.Matches(k, in.Cancel), key.Matches(k, in.Done):
			a.editing = false
			a.fields[a.cursor].input.Blur()
			return p, nil
		}
		var cmd tea.Cmd
		a.fields[a.cursor].input, cmd = a.fields[a.cursor].input.Update(k)
		return p, cmd
	}
	switch {
	case key.Matches(k, t.Accept):
		if a.q.sample != nil {
			p.answerAsk(askReply{approved: true})
			return p, notice(noticeInfo, "sampling approved: the configured LLM answers the server")
		}
		content, err := formArgs(a.fields)
		if err != nil {
			a.err = strings.ReplaceAll(err.Error(), "\n", "; ")
			return p, nil
		}
		p.answerAsk(askReply{elicit: mcpconn.ElicitResponse{Action: mcpconn.ElicitAccept, Content: plainJSON(content)}})
		return p, notice(noticeInfo, "answered the server's form (accept)")
	case key.Matches(k, t.Decline):
		p.answerAsk(askReply{elicit: mcpconn.ElicitResponse{Action: mcpconn.ElicitDecline}})
		return p, notice(noticeInfo, "declined the server's request")
	case key.Matches(k, t.Dismiss):
		p.answerAsk(askReply{elicit: mcpconn.ElicitResponse{Action: mcpconn.ElicitCancel}})
		return p, notice(noticeInfo, "dismissed the server's request (cancel)")
	case key.Matches(k, p.km.List.Up):
		a.cursor = max(0, a.cursor-1)
	case key.Matches(k, p.km.List.Down):
		a.cursor = min(max(0, len(a.fields)-1), a.cursor+1)
	case len(a.fields) == 0:
	case key.Matches(k, t.Toggle), key.Matches(k, t.Edit):
		f := &a.fields[a.cursor]
		step := 1
		if key.Matches(k, t.ToggleBack) {
			step = -1
		}
		switch f.kind {
		case kindBool:
			f.boolVal = (f.boolVal + step + 3) % 3
		case kindEnum:
			n := len(f.enum) + 1
			f.choice = (f.choice+1+step+n)%n - 1
		default:
			if key.Matches(k, t.Edit) {
				a.editing = true
				return p, f.input.Focus()
			}
		}
	}
	return p, nil
}

// plainJSON turns the form's json.Numbers into JSON numbers a server
// decodes as such (they marshal the same either way; this keeps the type
// honest for the events).
func plainJSON(m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil {
		return m
	}
	return out
}

func (p tryPane) askHelp() []key.Binding {
	t := p.km.Try
	if p.ask.editing {
		return []key.Binding{p.km.Input.Done, p.km.Input.Cancel}
	}
	if p.ask.q.sample != nil {
		return []key.Binding{t.Accept, t.Decline}
	}
	// ↑/↓ move between the fields as in the form (not shown: the bar
	// fits 80 columns).
	return []key.Binding{t.Accept, t.Decline, t.Dismiss, t.Edit}
}

// askView draws the question in the form's box.
func (p tryPane) askView(f lipgloss.Style, w, h int) string {
	iw, ih := inner(f, w, h)
	st := p.st.Text
	q := p.ask.q
	var lines []string
	if q.sample != nil {
		r := q.sample
		lines = append(lines, p.st.Pane.Title.Render("The server asks for an LLM reply (sampling)"),
			st.Warning.Render(fit("beyond CrewAI: its client declares no sampling", iw)),
			st.Muted.Render(fit(fmt.Sprintf("max %d tokens · A sends it to the configured LLM, D refuses", r.MaxTokens), iw)))
		if r.SystemPrompt != "" {
			lines = append(lines, st.Bold.Render("system: ")+foldSpaces(r.SystemPrompt))
		}
		for _, m := range r.Messages {
			lines = append(lines, st.Bold.Render(m.Role+": ")+foldSpaces(m.Text))
		}
		return box(f, w, h, wrapText(strings.Join(lines, "\n"), iw))
	}
	lines = append(lines, p.st.Pane.Title.Render("The server asks (elicitation)"),
		st.Warning.Render(fit("beyond CrewAI: its client declares no elicitation", iw)),
		fit(foldSpaces(q.elicit.Message), iw))
	if p.ask.err != "" {
		lines = append(lines, p.st.Form.Error.Render(fit(p.ask.err, iw)))
	}
	if len(p.ask.fields) == 0 {
		lines = append(lines, st.Muted.Render("  no fields: A accepts, D declines, C dismisses"))
	}
	for i, fl := range p.ask.fields {
		lines = append(lines, p.askRow(i, fl, iw))
	}
	if c := p.ask.cursor; c < len(p.ask.fields) {
		fl := p.ask.fields[c]
		hint := kindNames[fl.kind]
		if fl.required {
			hint += ", required"
		}
		if fl.desc != "" {
			hint += ": " + foldSpaces(fl.desc)
		}
		lines = append(lines, st.Subtle.Render(fit(hint, iw)))
	}
	if len(lines) > ih {
		lines = lines[:ih]
	}
	return box(f, w, h, strings.Join(lines, "\n"))
}

func (p tryPane) askRow(i int, f formField, iw int) string {
	marker, style := "  ", p.st.Form.Label
	if i == p.ask.cursor {
		marker, style = p.st.Row.Cursor.Render("› "), p.st.Form.LabelFocused
	}
	row := marker + style.Render(pad(f.label, 18))
	if f.required {
		row += p.st.Form.Required.Render("*")
	} else {
		row += " "
	}
	row += " "
	switch f.kind {
	case kindBool:
		row += p.st.Text.Accent.Render("◂ " + []string{"unset", "true", "false"}[f.boolVal] + " ▸")
	case kindEnum:
		v := "unset"
		if f.choice >= 0 {
			v = fmt.Sprint(f.enum[f.choice])
		}
		row += p.st.Text.Accent.Render("◂ " + v + " ▸")
	default:
		row += f.input.View()
	}
	return fit(row, iw)
}
