package crew

import (
	"testing"

	"crewbench/crew/project"
)

// ProjectLLM picks the model that answers sampling as run does: the
// override, else crewbench.yaml's llm:, else the first agent's, else
// CrewAI's default from the environment.
func TestProjectLLMPicksTheCrewsModel(t *testing.T) {
	t.Setenv("MODEL", "")
	t.Setenv("MODEL_NAME", "")
	t.Setenv("OPENAI_MODEL_NAME", "")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	agents := []*project.Agent{{Name: "a", ResolvedLLM: project.LLM{Model: "openai/gpt-4o"}}}
	env := &project.Overlay{Env: map[string]string{"OPENAI_API_KEY": "sk-test"}}
	for _, c := range []struct {
		name     string
		p        *project.Project
		override string
		want     string
	}{
		{"no project", nil, "", "gpt-4.1-mini"},
		{"no project, override", nil, "openai/gpt-4o-mini", "gpt-4o-mini"},
		{"first agent", &project.Project{Agents: agents, Overlay: env}, "", "gpt-4o"},
		{"crewbench.yaml llm", &project.Project{Agents: agents, Overlay: env, Crew: &project.Crew{LLMOverride: &project.LLM{Model: "openai/o3"}}}, "", "o3"},
		{"override wins", &project.Project{Agents: agents, Overlay: env}, "openai/gpt-4.1", "gpt-4.1"},
	} {
		prov, _, err := ProjectLLM(c.p, c.override, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if prov.Model() != c.want {
			t.Errorf("%s: model %q, want %q", c.name, prov.Model(), c.want)
		}
	}
}
