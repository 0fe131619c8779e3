package crew

import (
	"fmt"
	"strings"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
)

// ToolFailureRecord is CrewAI's ToolFailureRecord.
type ToolFailureRecord struct {
	ToolName  string         `json:"tool_name"`
	Failure   ToolFailure    `json:"failure"`
	ToolArgs  map[string]any `json:"tool_args"`
	AgentRole string         `json:"agent_role"`
	TaskName  string         `json:"task_name"`
	TaskID    string         `json:"task_id"`
	// Policy is the resolved policy (warn or raise); crewbench's addition.
	Policy FailurePolicy `json:"policy"`
}

// UsageMetrics is CrewAI's UsageMetrics.
type UsageMetrics struct {
	TotalTokens         int `json:"total_tokens"`
	PromptTokens        int `json:"prompt_tokens"`
	CachedPromptTokens  int `json:"cached_prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	ReasoningTokens     int `json:"reasoning_tokens"`
	CacheCreationTokens int `json:"cache_creation_tokens"`
	SuccessfulRequests  int `json:"successful_requests"`
}

func (u *UsageMetrics) add(x llm.Usage) {
	total := x.TotalTokens
	if total == 0 {
		total = x.PromptTokens + x.CompletionTokens
	}
	u.TotalTokens += total
	u.PromptTokens += x.PromptTokens
	u.CompletionTokens += x.CompletionTokens
	u.SuccessfulRequests++
}

// Output formats.
const (
	FormatRaw      = "raw"
	FormatJSON     = "json"
	FormatPydantic = "pydantic"
)

// TaskOutput is CrewAI's TaskOutput (crewai-formats.md §4.4).
type TaskOutput struct {
	Description    string         `json:"description"`
	Name           string         `json:"name"`
	ExpectedOutput string         `json:"expected_output"`
	Summary        string         `json:"summary"`
	Raw            string         `json:"raw"`
	JSONDict       *pyjson.Object `json:"-"`
	// Pydantic is str() of the output_pydantic model, "" without one.
	Pydantic string `json:"-"`
	// model is the output_pydantic model's fields (model_dump()), nil
	// without one: output_file writes its model_dump_json().
	model *pyjson.Object
	// modelClass is that model's class name (what a condition's
	// AttributeError names).
	modelClass   string
	Agent        string              `json:"agent"`
	OutputFormat string              `json:"output_format"`
	Messages     []llm.Message       `json:"messages,omitempty"`
	ToolFailures []ToolFailureRecord `json:"tool_failures"`
}

// String is str(TaskOutput): the Pydantic model's str, else the JSON dict
// in Python repr form, else raw.
func (o *TaskOutput) String() string {
	if o.Pydantic != "" {
		return o.Pydantic
	}
	if o.JSONDict != nil {
		return pyjson.Str(o.JSONDict)
	}
	return o.Raw
}

// summary is the first 10 space-separated words of the description + "...".
func summary(description string) string {
	words := strings.Split(description, " ")
	if len(words) > 10 {
		words = words[:10]
	}
	return strings.Join(words, " ") + "..."
}

// CrewOutput is CrewAI's CrewOutput.
type CrewOutput struct {
	Raw         string         `json:"raw"`
	JSONDict    *pyjson.Object `json:"-"`
	Pydantic    string         `json:"-"`
	TasksOutput []*TaskOutput  `json:"tasks_output"`
	TokenUsage  UsageMetrics   `json:"token_usage"`
}

// ToolFailures is every task's failure records, in task order.
func (c *CrewOutput) ToolFailures() []ToolFailureRecord {
	var out []ToolFailureRecord
	for _, t := range c.TasksOutput {
		out = append(out, t.ToolFailures...)
	}
	return out
}

// HasToolFailures reports whether any tool failed (under warn or raise).
// A run can "succeed" with failures; callers must say so.
func (c *CrewOutput) HasToolFailures() bool { return len(c.ToolFailures()) > 0 }

// String is str(CrewOutput).
func (c *CrewOutput) String() string {
	if c.Pydantic != "" {
		return c.Pydantic
	}
	if c.JSONDict != nil {
		return pyjson.Str(c.JSONDict)
	}
	return c.Raw
}

// ErrNoJSONOutput is the error of CrewOutput.json when the last task has no
// output_json (crewai-formats.md §4.4).
const ErrNoJSONOutput = prompt.TextError("No JSON output found in the final task. Please make sure to set the output_json property in the final task in your crew.")

// JSON is CrewOutput.json: json.dumps(json_dict) when the last task's
// output format is JSON, else ErrNoJSONOutput.
func (c *CrewOutput) JSON() (string, error) {
	if n := len(c.TasksOutput); n == 0 || c.TasksOutput[n-1].OutputFormat != FormatJSON {
		return "", ErrNoJSONOutput
	}
	return pyjson.Dumps(c.JSONDict), nil
}

// FailureSummary is a loud, human-readable account of the tool failures of
// a finished run, or "" when there were none.
func (c *CrewOutput) FailureSummary() string {
	fs := c.ToolFailures()
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "WARNING: the crew finished, but %d tool call(s) failed:\n", len(fs))
	for _, f := range fs {
		fmt.Fprintf(&b, "  - %s in task %q (agent %q): [%s] %s\n", f.ToolName, f.TaskName, f.AgentRole, f.Failure.Reason, oneLine(f.Failure.Render(), 200))
	}
	return b.String()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
