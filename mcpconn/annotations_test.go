package mcpconn

import (
	"encoding/json"
	"testing"
)

func TestToolMayModifyAndTaskSupport(t *testing.T) {
	cases := []struct {
		ann, raw string
		modify   bool
		task     string
	}{
		{"", `{"name":"t"}`, false, TaskForbidden},
		{`{"readOnlyHint":true}`, `{"execution":{"taskSupport":"required"}}`, false, TaskRequired},
		{`{"readOnlyHint":true,"destructiveHint":true}`, `{"execution":{"taskSupport":"optional"}}`, true, TaskOptional},
		{`{"readOnlyHint":false,"destructiveHint":false}`, `{}`, true, TaskForbidden},
		{`{"title":"Write"}`, `not json`, true, TaskForbidden},
		{`{"destructiveHint":false,"readOnlyHint":true}`, `{}`, false, TaskForbidden},
	}
	for _, c := range cases {
		tool := Tool{Name: "t", Raw: json.RawMessage(c.raw)}
		if c.ann != "" {
			tool.Annotations = json.RawMessage(c.ann)
		}
		if got := tool.MayModify(); (got != "") != c.modify {
			t.Errorf("%s: MayModify = %q, want modify=%v", c.ann, got, c.modify)
		}
		if got := tool.TaskSupport(); got != c.task {
			t.Errorf("%s: TaskSupport = %q, want %q", c.raw, got, c.task)
		}
	}
}
