package project

import (
	"testing"
)

// The less common shapes of crew.json / agent files: module:Class and
// serialized tools, llm_type and model_name, a custom agent class, a
// ConditionalTask, guardrail lists, context null, lax Pydantic coercions.
func TestJSONForms(t *testing.T) {
	p := open(t, "testdata/json/forms")
	c := p.Crew
	eq(t, "duplicate agent kept in the list, loaded once", [2]any{c.Agents, len(p.Agents)}, [2]any{[]string{"a", "b", "a"}, 2})
	eq(t, "planning 'yes'", c.Planning, true)
	eq(t, "tracing", *c.Tracing, false)
	eq(t, "manager_llm llm_type", [2]any{c.ManagerLLM.Model, c.ManagerLLM.Params}, [2]any{"gpt-4o", map[string]any{"llm_type": "openai"}})
	eq(t, "extra", c.Extra, map[string]any{"embedder": map[string]any{"provider": "openai"}})

	t0 := c.Tasks[0]
	eq(t, "context null is absent", t0.ContextSet, false)
	eq(t, "module tool", [3]any{t0.Tools[0].Kind, t0.Tools[0].Module, t0.Tools[0].Class}, [3]any{ToolModule, "crewai_tools", "SerperDevTool"})
	eq(t, "serialized tool", [3]any{t0.Tools[1].Kind, t0.Tools[1].Module, t0.Tools[1].Class}, [3]any{ToolSerialized, "pkg.tools", "Search"})
	eq(t, "empty tool skipped", len(t0.Tools), 2)
	eq(t, "output_json schema", t0.OutputJSON.JSON["type"], any("object"))
	eq(t, "input_files", t0.InputFiles, map[string]any{"brief": "data/brief.txt"})
	eq(t, "accepted unmodelled field", t0.Extra, map[string]any{"prompt_context": "extra"})

	t1 := c.Tasks[1]
	eq(t, "conditional", [2]string{t1.Type, t1.Condition}, [2]string{"conditional", "pkg.conditions.only_if"})
	eq(t, "guardrails", t1.Guardrails, []Guardrail{{Text: "Be short.", Pos: t1.Guardrails[0].Pos}, {Python: "pkg.conditions.check", Pos: t1.Guardrails[1].Pos}})
	eq(t, "max_retries alias", t1.GuardrailMaxRetries, 5)

	a := p.Agent("a")
	eq(t, "type alias", a.Type, "crewai.Agent")
	eq(t, "apps deduplicated", a.Apps, []string{"gmail", "gmail/send_email"})
	eq(t, "llm model_name", [2]string{a.LLM.Model, a.LLM.ModelKey}, [2]string{"claude-haiku-4-5", "model_name"})
	eq(t, "llm stop string", a.LLM.Stop, []string{"END"})
	eq(t, "llm stream", *a.LLM.Stream, true)
	eq(t, "llm params", a.LLM.Params, map[string]any{"response_format": map[string]any{"type": "json_object"}})
	eq(t, "guardrail ref", a.Guardrail.Python, "pkg.conditions.check")
	eq(t, "lax int '10'", *a.MaxRPM, 10)
	eq(t, "lax bool 1", a.Multimodal, true)
	eq(t, "memory", a.Memory, any(true))

	b := p.Agent("b")
	eq(t, "custom class", b.Type, "python:pkg.agents.Custom")
	eq(t, "custom field kept", b.Extra, map[string]any{"custom_field": int64(42)})
	eq(t, "custom class note", len(noteTexts(p, "custom-agent-class")), 1)
}
