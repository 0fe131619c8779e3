package crew

import (
	"context"
	"errors"
	"strings"

	"golang.org/x/text/cases"

	"crewbench/crew/pyjson"
)

// Delegation tool texts (crewai-formats.md §4.5).
const (
	DelegateWorkName    = "Delegate work to coworker"
	AskQuestionName     = "Ask question to coworker"
	delegateDescription = "Delegate a specific task to one of the following coworkers: {coworkers}\nThe input to this tool should be the coworker, the task you want them to do, and ALL necessary context to execute the task, they know nothing about the task, so share absolutely everything you know, don't reference things but instead explain them."
	askDescription      = "Ask a specific question to one of the following coworkers: {coworkers}\nThe input to this tool should be the coworker, the question you have for them, and ALL necessary context to ask the question properly, they know nothing about the question, so share absolutely everything you know, don't reference things but instead explain them."
	// ManagerRequest is the expected_output of a delegated task.
	ManagerRequest = "Your best answer to your coworker asking you this, accounting for the context shared."
)

// delegationSchema is the pydantic JSON schema of the tool's argument model
// (as model_json_schema() prints it, titles included).
func delegationSchema(title, first, firstDesc, contextDesc, coworkerDesc string) *pyjson.Object {
	prop := func(desc, t string) *pyjson.Object {
		return pyjson.ObjectOf("description", desc, "title", t, "type", "string")
	}
	return pyjson.ObjectOf(
		"properties", pyjson.ObjectOf(
			first, prop(firstDesc, strings.ToUpper(first[:1])+first[1:]),
			"context", prop(contextDesc, "Context"),
			"coworker", prop(coworkerDesc, "Coworker"),
		),
		"required", []any{first, "context", "coworker"},
		"title", title,
		"type", "object",
	)
}

// delegationTool is DelegateWorkTool or AskQuestionTool.
type delegationTool struct {
	spec      *ToolSpec
	ask       bool
	rs        *runState
	coworkers []*Agent
}

// delegationTools returns AgentTools(coworkers).tools() for this run.
func (rs *runState) delegationTools(coworkers []*Agent) []Tool {
	if len(coworkers) == 0 {
		return nil
	}
	roles := make([]string, len(coworkers))
	for i, a := range coworkers {
		roles[i] = rs.personaOf(a).role
	}
	list := strings.Join(roles, ", ")
	mk := func(name, desc, title, first, firstDesc, ctxDesc, cwDesc string, ask bool) Tool {
		s := NewToolSpec(name, strings.ReplaceAll(desc, "{coworkers}", list), delegationSchema(title, first, firstDesc, ctxDesc, cwDesc))
		s.Kind = KindDelegation
		return &delegationTool{spec: s, ask: ask, rs: rs, coworkers: coworkers}
	}
	return []Tool{
		mk(DelegateWorkName, delegateDescription, "DelegateWorkToolSchema", "task", "The task to delegate", "The context for the task", "The role/name of the coworker to delegate to", false),
		mk(AskQuestionName, askDescription, "AskQuestionToolSchema", "question", "The question to ask", "The context for the question", "The role/name of the coworker to ask", true),
	}
}

func (t *delegationTool) Spec() *ToolSpec { return t.spec }

var folder = cases.Fold()

// normalizeRole is the coworker match key: whitespace runs collapsed to one
// space, double quotes removed, casefolded.
func normalizeRole(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, `"`, "")
	return folder.String(s)
}

// Run executes the coworker on a new task built from the arguments; errors
// come back as the tool's text, as in CrewAI.
func (t *delegationTool) Run(ctx context.Context, args *pyjson.Object, rc RunContext) ToolResult {
	get := func(k string) string {
		v, ok := args.Get(k)
		if !ok || v == nil {
			return ""
		}
		return pyjson.Str(v)
	}
	what := get("task")
	if t.ask {
		what = get("question")
	}
	coworker := get("coworker")
	if coworker == "" {
		coworker = get("co_worker")
	}
	// A value like "[A, B]" names its first element, quotes kept (only
	// the role normalisation's double-quote removal applies;
	// base_agent_tools.py:40-44).
	if strings.HasPrefix(coworker, "[") && strings.HasSuffix(coworker, "]") {
		coworker = strings.Split(coworker[1:len(coworker)-1], ",")[0]
	}
	want := normalizeRole(coworker)
	var match *Agent
	for _, a := range t.coworkers {
		if normalizeRole(t.rs.personaOf(a).role) == want {
			match = a
			break
		}
	}
	if match == nil {
		var lines []string
		for _, a := range t.coworkers {
			lines = append(lines, "- "+normalizeRole(t.rs.personaOf(a).role))
		}
		return ToolResult{Text: "\nError executing tool. coworker mentioned not found, it must be one of the following options:\n" + strings.Join(lines, "\n") + "\n"}
	}
	task := &Task{Description: what, ExpectedOutput: ManagerRequest, Agent: match, ContextMode: ContextNone}
	tr := &taskRun{task: task, id: t.rs.em.NewSpan(), name: what, text: taskText{description: what, expectedOutput: ManagerRequest}}
	if len(match.MCPs) > 0 {
		t.rs.warn(rc.Span, rc.Base, "delegated work runs "+t.rs.personaOf(match).role+" with its own tools only: CrewAI adds an agent's mcps per crew task, not in Agent.execute_task")
	}
	// Agent.execute_task(task, context): tools = the coworker's own tools.
	out, ar, err := t.rs.executeTask(ctx, match, tr, get("context"), match.Tools, rc.Span)
	if ar != nil {
		t.rs.adoptFailures(rc, ar)
	}
	if errors.Is(err, ErrAborted) || ctx.Err() != nil {
		return ToolResult{Err: err}
	}
	if err != nil {
		// CrewAI names the agent by its normalised (casefolded) role
		// (base_agent_tools.py:122-124).
		return ToolResult{Text: "Error executing task with agent '" + normalizeRole(t.rs.personaOf(match).role) + "'. Error: " + err.Error()}
	}
	return ToolResult{Text: out}
}

// adoptFailures forwards a delegated run's failure records to the
// delegating agent, so they reach the crew output (crewbench's choice: a
// failure must never vanish because it happened one delegation deep).
func (rs *runState) adoptFailures(rc RunContext, ar *agentRun) {
	if rc.adopt != nil {
		rc.adopt(ar.failureRecords())
	}
}
