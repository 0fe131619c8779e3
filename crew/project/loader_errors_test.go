package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every loader error, with the file:line:col it points at, on real files
// under testdata/errors. {root} stands for the case directory (CrewAI
// names the absolute project root in some texts).
var loaderErrorCases = []struct {
	dir  string
	want []string
}{
	{"agent_bad_mcp_dicts", []string{
		`agents/a.jsonc:6:5: validation failed: mcps[0]: Input should be an MCP server config: MCPServerStdio needs "command", MCPServerHTTP needs "url"`,
		"agents/a.jsonc:7:80: mcps[1].tool_filter.allowed_tool_names must be a list of strings",
		`agents/a.jsonc:8:45: validation failed: mcps[2].tool_filter: Input should be callable (a JSON tool_filter must be {"type": "static", "allowed_tool_names": […], "blocked_tool_names": […]} or {"python": "module.function"})`,
	}},
	{"agent_bad_mcp_refs", []string{
		"agents/a.jsonc:5:12: validation failed: mcps[0]: Value error, Invalid MCP reference: 'http://localhost:8000/mcp'. String references must be an 'https://' URL or a valid slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion').",
		"agents/a.jsonc:5:41: validation failed: mcps[1]: Value error, Invalid MCP reference: 'github#a,b'. String references must be an 'https://' URL or a valid slug (e.g. 'notion', 'notion#search', 'crewai-amp:notion').",
		"agents/a.jsonc:5:55: validation failed: mcps[2]: Value error, Invalid MCP configuration: <class 'int'>. Must be a string reference or MCPServerConfig instance.",
	}},
	{"agent_bad_python_ref", []string{
		"agents/a.jsonc:5:16: guardrail: Python reference 'nodots' must be a dotted import path like 'module.attribute'",
		"agents/a.jsonc:6:20: step_callback: Python references in JSON configs must point to modules inside the project root; 'pkg.mod' was not found under {root}",
	}},
	{"agent_bad_tools", []string{
		"agents/a.jsonc:5:13: custom tool 'custom:missing_tool' not found: expected tools/missing_tool.py. Create the file with a BaseTool subclass, or remove the tool from your crew JSON.",
		"agents/a.jsonc:5:36: Invalid custom tool name 'custom:../evil': names must match [A-Za-z_][A-Za-z0-9_]* and resolve to tools/<name>.py inside the project.",
		"agents/a.jsonc:5:54: tool definitions must be strings or objects, got int",
	}},
	{"agent_bad_values", []string{
		"agents/a.jsonc:5:15: validation failed: max_iter: Input should be a valid integer",
		"agents/a.jsonc:7:25: validation failed: max_execution_time: Max Execution time must be a positive integer greater than zero",
		"agents/a.jsonc:6:26: validation failed: tool_failure_policy: Input should be 'ignore', 'warn' or 'raise'",
	}},
	{"agent_file_invalid_json", []string{
		"agents/a.jsonc:3:3: invalid JSON at line 3, column 3: Expecting ',' delimiter",
	}},
	{"agent_file_not_object", []string{
		"agents/a.jsonc:1:1: expected a JSON object",
	}},
	{"agent_llm_without_model", []string{
		"agents/a.jsonc:5:10: validation failed: llm: LLM config objects must include 'model', 'model_name', or 'deployment_name', or a serialized 'llm_type'. Got keys: ['provider', 'temperature']",
	}},
	{"agent_missing_file", []string{
		"crew.jsonc:2:19: Agent definition for 'ghost' not found in agents (tried ghost.jsonc and ghost.json)",
	}},
	{"agent_missing_role", []string{
		"agents/a.jsonc:1:1: missing required field 'role'",
	}},
	{"agent_name_key", []string{
		"agents/a.jsonc:2:3: unsupported field(s): name",
	}},
	{"agent_ref_not_string", []string{
		"crew.jsonc:2:19: each agent reference must be a non-empty string",
	}},
	{"agent_runtime_only", []string{
		"agents/a.json:5:3: runtime-only field(s) are not supported in JSON config: crew",
	}},
	{"agent_settings_not_object", []string{
		"agents/a.jsonc:5:15: 'settings' must be an object when provided",
	}},
	{"agent_settings_unsupported", []string{
		`agents/a.jsonc:5:16: settings: unsupported field(s): max_iters ("max_iters" → did you mean "max_iter"?)`,
	}},
	{"agent_type_unsupported", []string{
		`agents/a.jsonc:2:11: type: unsupported agent type 'Robot'. Use 'Agent' or {"python": "module.CustomAgent"}.`,
	}},
	{"agents_empty", []string{
		"crew.jsonc:2:13: 'agents' must be a non-empty list",
		"crew.jsonc:4:73: tasks[0] references agent 'a' which does not match a loaded agent definition",
	}},
	{"async_tail", []string{
		"crew.jsonc:5:5: validation failed: The crew must end with at most one asynchronous task.",
	}},
	{"conditional_async", []string{
		"crew.jsonc:5:107: validation failed: Conditional Task: D2, cannot be executed asynchronously.",
	}},
	{"conditional_first", []string{
		"crew.jsonc:4:5: validation failed: The first task cannot be a ConditionalTask.",
	}},
	{"crew_runtime_only", []string{
		"crew.jsonc:7:3: runtime-only field(s) are not supported in JSON config: id, token_usage",
	}},
	{"crew_unsupported", []string{
		`crew.jsonc:6:3: unsupported field(s): $schema, proces ("proces" → did you mean "process"?)`,
	}},
	{"hierarchical_without_manager", []string{
		"crew.jsonc:6:14: validation failed: Attribute `manager_llm` or `manager_agent` is required when using hierarchical process.",
	}},
	{"invalid_json", []string{
		"crew.jsonc:3:13: invalid JSON at line 3, column 13: Expecting value",
	}},
	{"leading_comma_dropped", []string{
		"crew.jsonc:3:12: 'tasks' must be a non-empty list",
	}},
	{"manager_agent_bad", []string{
		`crew.jsonc:7:20: 'manager_agent' must be an agent definition name or a {"python": "module.agent"} reference`,
		"crew.jsonc:6:14: validation failed: Attribute `manager_llm` or `manager_agent` is required when using hierarchical process.",
	}},
	{"manager_in_agents", []string{
		"crew.jsonc:7:20: validation failed: Manager agent should not be included in agents list.",
	}},
	{"not_object", []string{
		"crew.jsonc:1:1: expected a JSON object",
	}},
	{"process_invalid", []string{
		"crew.jsonc:6:14: validation failed: process: Input should be 'sequential' or 'hierarchical'",
	}},
	{"sequential_missing_agent", []string{
		"crew.jsonc:4:5: validation failed: Sequential process error: Agent is missing in the task with the following description: Summarise",
	}},
	{"task_bad_values", []string{
		"crew.jsonc:5:60: tasks[0]: output_pydantic: Python references in JSON configs must point to modules inside the project root; 'models' was not found under {root}",
		"crew.jsonc:4:79: tasks[0]: validation failed: output_file: Path traversal attempts are not allowed in output_file paths",
		"crew.jsonc:5:60: tasks[0]: validation failed: output_pydantic: Only one output type can be set, either output_pydantic or output_json.",
	}},
	{"task_context_later", []string{
		"crew.jsonc:4:90: tasks[0] has context reference 't2' but that task has not been defined yet",
	}},
	{"task_context_not_list", []string{
		"crew.jsonc:4:75: tasks[0] field 'context' must be a list of task names",
	}},
	{"task_missing_fields", []string{
		"crew.jsonc:4:5: tasks[0] missing required field 'description'",
		"crew.jsonc:4:5: tasks[0] missing required field 'expected_output'",
	}},
	{"task_not_object", []string{
		"crew.jsonc:4:5: tasks[0] must be an object",
	}},
	{"task_tools_not_list", []string{
		"crew.jsonc:4:73: tasks[0]: 'tools' must be a list",
	}},
	{"task_unknown_agent", []string{
		"crew.jsonc:4:59: tasks[0] references agent 'writer' which does not match a loaded agent definition",
	}},
	{"task_unsupported", []string{
		"crew.jsonc:4:87: tasks[0]: runtime-only field(s) are not supported in JSON config: output",
		`crew.jsonc:4:64: tasks[0]: unsupported field(s): expected_ouput ("expected_ouput" → did you mean "expected_output"?)`,
	}},
	{"tasks_missing", []string{
		"crew.jsonc:1:1: 'tasks' must be a non-empty list",
	}},
	{"unterminated_comment", []string{
		"crew.jsonc:2:20: unterminated block comment in JSONC input",
	}},
}

func TestLoaderErrors(t *testing.T) {
	dirs, err := os.ReadDir("testdata/errors")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != len(loaderErrorCases) {
		t.Errorf("%d fixture directories, %d cases: every fixture needs a case", len(dirs), len(loaderErrorCases))
	}
	for _, tc := range loaderErrorCases {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata/errors", tc.dir)
			p, err := OpenWith(dir, Options{Environ: []string{}})
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("want Errors, got %v", err)
			}
			if p == nil {
				t.Fatal("the partial project must come back with the errors")
			}
			root, _ := filepath.Abs(dir)
			var got []string
			for _, e := range es {
				got = append(got, strings.ReplaceAll(e.Error(), root, "{root}"))
				if !e.Pos.IsValid() || e.Pos.Line < 1 {
					t.Errorf("error without a position: %q", e.Error())
				}
				if e.CrewAI == "" {
					t.Errorf("error without CrewAI's text: %q", e.Error())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// CrewAI's own text keeps its "{path}: " prefix; ours puts the position
// first instead.
func TestLoaderErrorCrewAIText(t *testing.T) {
	for _, tc := range []struct{ dir, field, crewai string }{
		{"crew_unsupported", "$schema", "crew.jsonc: unsupported field(s): $schema, proces"},
		{"agent_missing_file", "agents[1]", "Agent definition for 'ghost' not found in agents (tried ghost.jsonc and ghost.json)"},
		{"agent_settings_unsupported", "settings.max_iters", "agents/a.jsonc: settings: unsupported field(s): max_iters"},
		{"task_missing_fields", "tasks[0].description", "crew.jsonc: tasks[0] missing required field 'description'"},
		{"task_context_not_list", "tasks[0].context", "crew.jsonc: tasks[0] field 'context' must be a list of task names"},
		{"agents_empty", "agents", "crew.jsonc: 'agents' must be a non-empty list"},
		{"unterminated_comment", "", "unterminated block comment in JSONC input"},
	} {
		_, err := OpenWith(filepath.Join("testdata/errors", tc.dir), Options{Environ: []string{}})
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		if es[0].CrewAI != tc.crewai || es[0].Field != tc.field {
			t.Errorf("%s: CrewAI %q field %q; want %q field %q", tc.dir, es[0].CrewAI, es[0].Field, tc.crewai, tc.field)
		}
	}
}
