package ui

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/mcpconn"
)

const askSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","description":"Display name","default":"Ada"},` +
	`"age":{"type":"integer","title":"Age","default":36},` +
	`"color":{"type":"string","title":"Colour","enum":["red","green","blue"],"default":"green"},` +
	`"subscribe":{"type":"boolean","title":"Subscribe"},` +
	`"email":{"type":"string","title":"Email"}},"required":["email"]}`

// askDuringCall makes the Try pane receive q from a running call's
// asker, as the call's server would, and returns the model showing it and
// the answer channel.
func askDuringCall(t *testing.T, q *pendingAsk) Model {
	t.Helper()
	m := settled(t, goldenDeps(), 100, 30)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	m.try.callID = 7
	m.try.asker = newCallAsker()
	q.reply = make(chan askReply, 1)
	return step(t, m, askMsg{id: 7, q: q})
}

// The elicitation form is built from the requested schema (titles,
// defaults, enums, booleans, required) and answered accept, decline or
// cancel; accept refuses while a required field is empty.
func TestTryElicitationForm(t *testing.T) {
	fields, err := mcpconn.ElicitFields(json.RawMessage(askSchema))
	if err != nil {
		t.Fatal(err)
	}
	req := &mcpconn.ElicitRequest{Server: "weather", Message: "Who gets the report?", Schema: json.RawMessage(askSchema), Fields: fields}
	for _, tc := range []struct {
		name  string
		keys  []string
		typed string
		want  mcpconn.ElicitResponse
	}{
		{"accept", []string{"down", "down", "right", "down", "space", "down", "enter"}, "ada@example.org", mcpconn.ElicitResponse{Action: "accept",
			Content: map[string]any{"name": "Ada", "age": float64(36), "color": "blue", "subscribe": true, "email": "ada@example.org"}}},
		{"decline", []string{"D"}, "", mcpconn.ElicitResponse{Action: "decline"}},
		{"dismiss", []string{"C"}, "", mcpconn.ElicitResponse{Action: "cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &pendingAsk{elicit: req}
			m := askDuringCall(t, q)
			v := ansi.Strip(m.View())
			for _, want := range []string{"The server asks (elicitation)", "beyond CrewAI", "Who gets the report?", "Name", "Ada", "Colour", "◂ green ▸", "Email"} {
				if !strings.Contains(v, want) {
					t.Errorf("the form lacks %q:\n%s", want, v)
				}
			}
			if tc.name == "accept" {
				m = step(t, m, keyRunes("A")) // email is required and empty
				if !m.try.ask.active() || !strings.Contains(m.try.ask.err, "Email is required") {
					t.Fatalf("accept with an empty required field: active %v err %q", m.try.ask.active(), m.try.ask.err)
				}
			}
			for _, k := range tc.keys {
				m = pressKey(t, m, k)
			}
			if tc.typed != "" {
				m = typeText(t, m, tc.typed)
				m = pressKey(t, m, "enter")
				m = step(t, m, keyRunes("A"))
			}
			if m.try.ask.active() {
				t.Fatalf("still asking: %q", m.try.ask.err)
			}
			got := (<-q.reply).elicit
			if got.Action != tc.want.Action || !reflect.DeepEqual(got.Content, tc.want.Content) {
				t.Errorf("answer %+v, want %+v", got, tc.want)
			}
		})
	}
}

// pressKey sends a named key (down, right, space, enter) or runes.
func pressKey(t *testing.T, m Model, k string) Model {
	t.Helper()
	named := map[string]tea.KeyType{"down": tea.KeyDown, "up": tea.KeyUp, "right": tea.KeyRight, "space": tea.KeySpace, "enter": tea.KeyEnter}
	if kt, ok := named[k]; ok {
		return step(t, m, keyType(kt))
	}
	return step(t, m, keyRunes(k))
}

// A sampling request shows what would be sent; A approves, D refuses.
func TestTrySamplingApproval(t *testing.T) {
	for _, tc := range []struct {
		key      string
		approved bool
	}{{"A", true}, {"D", false}} {
		q := &pendingAsk{sample: &mcpconn.SampleRequest{Server: "weather", SystemPrompt: "Be brief.", MaxTokens: 60,
			Messages: []mcpconn.SampleMessage{{Role: "user", Text: "Summarize the forecast"}}}}
		m := askDuringCall(t, q)
		v := ansi.Strip(m.View())
		for _, want := range []string{"sampling", "beyond CrewAI", "system: Be brief.", "user: Summarize the forecast", "max 60 tokens"} {
			if !strings.Contains(v, want) {
				t.Errorf("the request lacks %q:\n%s", want, v)
			}
		}
		if !strings.Contains(v, "A accept/approve") || !strings.Contains(v, "D decline") {
			t.Errorf("the help bar lacks the answers:\n%s", v)
		}
		m = step(t, m, keyRunes(tc.key))
		if m.try.ask.active() {
			t.Errorf("%s: still asking", tc.key)
		}
		if got := (<-q.reply).approved; got != tc.approved {
			t.Errorf("%s: approved %v", tc.key, got)
		}
	}
}

// The asker hands a question to the pane and waits; a call that ends
// first (its context) stops the wait, and a refused sampling request is
// the MCP user-rejection error.
func TestCallAskerWaitsForTheAnswer(t *testing.T) {
	a := newCallAsker()
	go func() {
		q := <-a.ch
		q.reply <- askReply{approved: false}
	}()
	if err := a.ApproveSampling(context.Background(), mcpconn.SampleRequest{}); !errors.Is(err, mcpconn.ErrUserRejected) {
		t.Errorf("refused sampling: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := a.Elicit(ctx, mcpconn.ElicitRequest{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unanswered: %v", err)
	}
}

// Answering never blocks Update: a copy of the model that still holds an
// answered question (Bubble Tea models are values) answers it again
// without waiting on the reply channel; the first answer is the one the
// server gets.
func TestTryAnsweringAnAnsweredQuestionDoesNotBlock(t *testing.T) {
	fields, err := mcpconn.ElicitFields(json.RawMessage(askSchema))
	if err != nil {
		t.Fatal(err)
	}
	q := &pendingAsk{elicit: &mcpconn.ElicitRequest{Server: "weather", Message: "Who?", Schema: json.RawMessage(askSchema), Fields: fields}}
	m := askDuringCall(t, q)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		step(t, m, keyRunes("D"))
		step(t, m, keyRunes("C")) // the same question, from the same copy
	}()
	select {
	case <-answered:
	case <-time.After(time.Minute): // a deadline for a hang, not a timing assumption
		t.Fatal("the second answer blocked Update")
	}
	if r := <-q.reply; r.elicit.Action != "decline" {
		t.Errorf("the server got %+v, want the first answer (decline)", r)
	}
}
