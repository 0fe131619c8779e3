package mcpconn

import "encoding/json"

// What a tool's annotations and execution hints say about calling it.
// Annotations are hints from the server, not guarantees; crewbench uses
// them to decide what it calls on its own (smoke) and what it asks first.

// MayModify returns why the tool's annotations say calling it may change
// or destroy something ("" when they say it is read-only, or when the tool
// has no annotations: then nothing is known). Per the MCP spec a tool that
// is not annotated read-only may write, and destructiveHint defaults to
// true for it.
func (t Tool) MayModify() string {
	if len(t.Annotations) == 0 {
		return ""
	}
	var a struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
	}
	if json.Unmarshal(t.Annotations, &a) != nil {
		return ""
	}
	switch {
	case a.Destructive != nil && *a.Destructive:
		return "annotated destructive (destructiveHint: true)"
	case a.ReadOnly != nil && *a.ReadOnly:
		return ""
	case a.ReadOnly != nil:
		return "annotated as not read-only (readOnlyHint: false)"
	default:
		return "annotated without readOnlyHint: true"
	}
}

// TaskSupport is the tool's execution.taskSupport: "forbidden" (also when
// unset), "optional" or "required". A "required" tool answers a plain
// tools/call (all CrewAI sends) with an error.
func (t Tool) TaskSupport() string {
	var w struct {
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	if json.Unmarshal(t.Raw, &w) != nil || w.Execution.TaskSupport == "" {
		return TaskForbidden
	}
	return w.Execution.TaskSupport
}

// Values of TaskSupport.
const (
	TaskForbidden = "forbidden"
	TaskOptional  = "optional"
	TaskRequired  = "required"
)
