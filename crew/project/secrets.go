package project

import (
	"crewbench/mcpconn"
	"crewbench/session"
)

// SecretValues are the project's secret values, for marking in a
// session.Redactor so nothing crewbench shows about the project (lint
// findings, export diffs) quotes them: the .env and crewbench.yaml env
// values under secret-looking names, every server's secret env, credential
// header and URL password values (mcpconn.SecretValues), and the agents' LLM
// api_key values.
func (p *Project) SecretValues() []string {
	var out []string
	if p.Env != nil {
		env := map[string]string{}
		for _, k := range p.Env.Keys() {
			env[k], _ = p.Env.Lookup(k)
		}
		out = append(out, session.NamedSecrets(env, nil)...)
	}
	if p.Overlay != nil {
		out = append(out, session.NamedSecrets(p.Overlay.Env, nil)...)
	}
	for _, s := range p.Servers {
		out = append(out, mcpconn.SecretValues(s.Spec)...)
	}
	for _, a := range p.Agents {
		if a.LLM != nil && a.LLM.APIKey != "" {
			out = append(out, a.LLM.APIKey)
		}
	}
	return out
}
