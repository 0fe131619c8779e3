package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"crewbench/crew/pyjson"
	"crewbench/mcpconn"
	"crewbench/session"
)

// sendingCaller is fakeCaller that keeps the arguments each call sent.
type sendingCaller struct{ sent *[]string }

func (c sendingCaller) Call(ctx context.Context, spec mcpconn.ServerSpec, tool string, args json.RawMessage, em *session.Emitter, a Asker) *mcpconn.CallResult {
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil {
		b.WriteString("not JSON: " + string(args))
	}
	*c.sent = append(*c.sent, b.String())
	return fakeCaller{}.Call(ctx, spec, tool, args, em, a)
}

// TestTryValidationPreview: under CrewAI's policies the Try view shows what
// CrewAI's validation does to the arguments as they are edited, sends the
// validated arguments, and answers a run CrewAI would refuse with the
// refusal the agent gets, calling nothing; the session policy sends the
// arguments as typed.
func TestTryValidationPreview(t *testing.T) {
	cases := []struct {
		name     string
		session  bool // p cycles to the session policy first
		args     string
		shown    []string // in the form box
		sent     string   // what the caller got ("" nothing called)
		refusal  []string // in the outcome (the agent's text)
		notShown string
	}{
		{name: "coerced", args: `{"days": "3", "city": "Oslo"}`,
			shown: []string{`CrewAI validation (native, the server's): sends {"city":"Oslo","days":3}`, "days: '3' → 3"},
			sent:  `{"city":"Oslo","days":3}`},
		{name: "default filled, null dropped", args: `{"city": "Oslo", "units": null}`,
			shown: []string{`sends {"city":"Oslo","days":2}`, "days: default 2; units: None dropped"},
			sent:  `{"city":"Oslo","days":2}`},
		{name: "as typed", args: `{"city": "Oslo", "days": 4, "units": "imperial"}`,
			shown: []string{`sends {"city":"Oslo","days":4,`, "  as typed"},
			sent:  `{"city":"Oslo","days":4,"units":"imperial"}`},
		{name: "refused", args: `{"days": "many", "region": "north"}`,
			shown: []string{"CrewAI would refuse (native, the server's): 3 validation errors for", "  city: Field required; days: Input should be"},
			refusal: []string{"Tool 'crewbench_fixture_weather_get_forecast' arguments validation failed: 3 validation errors for get_forecastSchema",
				"city\n  Field required [type=missing", "region\n  Extra inputs are not permitted", "Expected arguments: {"}},
		{name: "session policy", session: true, args: `{"days": "many", "region": "north"}`,
			shown: []string{"session policy (crewbench's): sent as typed"},
			sent:  `{"days":"many","region":"north"}`, notShown: "CrewAI validation ("},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sent []string
			deps := testDeps()
			deps.Caller = sendingCaller{sent: &sent}
			m := settled(t, deps, 160, 48)
			m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
			if c.session {
				for m.try.chosenPolicy() != mcpconn.PolicySession {
					m = step(t, m, keyRunes("p"))
				}
			}
			m = step(t, m, editorDoneMsg{target: editTryArgs, text: c.args})
			v := ansi.Strip(m.View())
			for _, want := range c.shown {
				if !strings.Contains(v, want) {
					t.Errorf("the form does not show %q:\n%s", want, v)
				}
			}
			if c.notShown != "" && strings.Contains(v, c.notShown) {
				t.Errorf("the form shows %q:\n%s", c.notShown, v)
			}
			nm, cmd := m.Update(keyRunes("r"))
			m = nm.(Model)
			if c.sent == "" {
				if m.try.running || m.try.result == nil || m.try.result.Outcome != session.OutcomeInvalidArguments || len(sent) != 0 {
					t.Fatalf("a refused run: running %v, result %+v, sent %q", m.try.running, m.try.result, sent)
				}
				for _, want := range c.refusal {
					if !strings.Contains(m.try.result.Text, want) {
						t.Errorf("the refusal lacks %q:\n%s", want, m.try.result.Text)
					}
				}
				res := ansi.Strip(m.try.out.View())
				for _, want := range []string{"invalid_arguments: not sent", "What CrewAI's tool returns to the agent", "Field required [type=missing"} {
					if !strings.Contains(res, want) {
						t.Errorf("the outcome lacks %q:\n%s", want, res)
					}
				}
				return
			}
			for _, msg := range collectCall(cmd) {
				m = step(t, m, msg)
			}
			if len(sent) != 1 || sent[0] != c.sent {
				t.Errorf("sent %q, want %s", sent, c.sent)
			}
		})
	}
}

// TestTryPreviewFollowsTheForm: typing in the form updates the preview
// (the form's own "required" check gives way to CrewAI's refusal), and
// the preview is recomputed only when the arguments change.
func TestTryPreviewFollowsTheForm(t *testing.T) {
	m := settled(t, testDeps(), 80, 24)
	m = step(t, m, showTryMsg{server: "weather", tool: "getForecast"})
	if m.try.preview.refusal == "" || m.try.preview.summary != "city: Field required" {
		t.Fatalf("an empty form: preview %+v", m.try.preview)
	}
	m = step(t, m, keyType(tea.KeyEnter))
	m = typeText(t, m, "Lisbon")
	if got := string(m.try.preview.sent); !strings.Contains(got, `"Lisbon"`) {
		t.Fatalf("after typing: preview %+v", m.try.preview)
	}
	before := m.try.preview
	m = step(t, m, callTickMsg{id: m.try.callID})
	m = step(t, m, keyType(tea.KeyEnter)) // done editing: same arguments
	if m.try.preview.key != before.key || !bytes.Equal(m.try.preview.sent, before.sent) {
		t.Errorf("the preview changed without the arguments: %+v → %+v", before, m.try.preview)
	}
	if _, err := pyjson.LoadsObject(string(m.try.preview.sent)); err != nil {
		t.Errorf("the validated arguments are not a JSON object: %v", err)
	}
}
