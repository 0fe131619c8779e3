package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"crewbench/mcpconn"
)

// Try-a-tool's call settings, the rows after the argument fields: the
// policy and the timeouts a call runs under.

// Call settings rows after the argument fields.
const (
	setPolicy = iota
	setCall
	setAttempts
	setBackoff
	setConnect
	setCount
)

var setLabels = [setCount]string{"policy", "call timeout", "attempts", "backoff", "connect timeout"}

// policies the user can pick; "" is CrewAI's for the server's ref kind.
var policyChoices = []mcpconn.Policy{"", mcpconn.PolicyNative, mcpconn.PolicyHTTPSString, mcpconn.PolicyAdapter, mcpconn.PolicySession}

func (p tryPane) chosenPolicy() mcpconn.Policy {
	if pol := policyChoices[p.policy]; pol != "" {
		return pol
	}
	return mcpconn.EffectivePolicy(p.spec)
}

// refreshPlaceholders shows the numbers that apply when a field is left
// empty: the project's where it overrides CrewAI, else CrewAI's.
func (p *tryPane) refreshPlaceholders() {
	pol := p.chosenPolicy()
	l := mcpconn.CallLimits(p.spec, pol)
	bare := p.spec
	bare.Timeouts = mcpconn.Timeouts{}
	c := mcpconn.CallLimits(bare, pol)
	src := func(changed bool) string {
		if changed {
			return "project: "
		}
		return "CrewAI: "
	}
	p.settings[setCall].Placeholder = src(l.Call != c.Call) + durOrNone(l.Call)
	p.settings[setAttempts].Placeholder = src(l.Attempts != c.Attempts) + strconv.Itoa(l.Attempts)
	p.settings[setBackoff].Placeholder = src(l.Backoff != c.Backoff) + fmtDur(l.Backoff) + ", doubling"
	p.settings[setConnect].Placeholder = src(l.Connect != c.Connect) + fmtDur(l.Connect)
}

// callSpec is the server spec with the chosen policy and timeouts.
func (p tryPane) callSpec() (mcpconn.ServerSpec, error) {
	s := p.spec
	if pol := policyChoices[p.policy]; pol != "" {
		s.Policy = pol // the first choice keeps the spec's own
	}
	dur := func(i int, dst *time.Duration) error {
		v := strings.TrimSpace(p.settings[i].Value())
		if v == "" {
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("%s: %q is not a duration like 1s or 500ms", setLabels[i], v)
		}
		*dst = d
		return nil
	}
	if err := dur(setCall, &s.Timeouts.Call); err != nil {
		return s, err
	}
	if err := dur(setBackoff, &s.Timeouts.Backoff); err != nil {
		return s, err
	}
	if err := dur(setConnect, &s.Timeouts.Connect); err != nil {
		return s, err
	}
	if v := strings.TrimSpace(p.settings[setAttempts].Value()); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return s, fmt.Errorf("attempts: %q is not a positive number", v)
		}
		s.Timeouts.Attempts = n
	}
	if s.Policy == mcpconn.PolicyHTTPSString && s.Transport == mcpconn.TransportStdio {
		return s, fmt.Errorf("the https-string policy needs an HTTP server")
	}
	return s, nil
}

func (p tryPane) settingRow(i, iw int) string {
	row := p.label(len(p.fields)+i, setLabels[i], false)
	if i == setPolicy {
		name := string(policyChoices[p.policy])
		if name == "" {
			name = "CrewAI's (" + string(mcpconn.EffectivePolicy(p.spec)) + ")"
		}
		row += p.st.Text.Accent.Render("◂ " + name + " ▸")
	} else {
		row += p.settings[i].View()
	}
	return fit(row, iw)
}
