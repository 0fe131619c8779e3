package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// JSON-RPC error codes the screen answers with.
const (
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// screen refuses, before mcp-go sees them, the messages mcp-go would
// accept although JSON-RPC or MCP forbids them: an id that is neither a
// string nor a number (-32600), and tools/call arguments that are not an
// object (-32602). Arguments that are an object but break the tool's input
// schema (mcp-go would hand `{"who":{"deep":[1,2,3]}}` to a string
// parameter, and the crew would run with Go's rendering of a map) are
// refused by validate as a tool execution error, not a protocol error:
// MCP 2025-11-25 (SEP-1303) wants the model to see that message and
// correct its call.
type screen struct {
	schemas map[string]*jsonschema.Schema
}

func newScreen(tools []Tool) (*screen, error) {
	s := &screen{schemas: map[string]*jsonschema.Schema{}}
	for _, t := range tools {
		if len(bytes.TrimSpace(t.InputSchema)) == 0 {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.InputSchema))
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		c := jsonschema.NewCompiler()
		url := "mem://tools/" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		s.schemas[t.Name] = sch
	}
	return s, nil
}

// check returns the error reply for raw, or nil when mcp-go may handle it
// (including messages that are not JSON: mcp-go answers those itself).
func (s *screen) check(raw []byte) []byte {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil {
		return nil
	}
	id := bytes.TrimSpace(msg.ID)
	if len(id) > 0 && !validID(id) {
		return errorReply(nil, codeInvalidRequest, "Invalid Request: id must be a string, a number or null")
	}
	if msg.Method != "tools/call" || len(id) == 0 {
		return nil
	}
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(msg.Params, &params) != nil {
		return errorReply(id, codeInvalidParams, "Invalid params: params must be an object with a tool name")
	}
	args := bytes.TrimSpace(params.Arguments)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return errorReply(id, codeInvalidParams, "Invalid params: arguments must be an object")
	}
	return nil
}

// validate checks a call's arguments against the tool's input schema and
// says what is wrong in one line, or returns nil.
func (s *screen) validate(tool string, args map[string]any) error {
	sch := s.schemas[tool]
	if sch == nil {
		return nil
	}
	if args == nil {
		args = map[string]any{}
	}
	// Through JSON, so numbers reach the validator as it expects them.
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		return errors.New(validationText(err))
	}
	return nil
}

func validID(id []byte) bool {
	switch id[0] {
	case '"':
		return true
	case 'n':
		return string(id) == "null"
	}
	var n json.Number
	return json.Unmarshal(id, &n) == nil
}

// validationText is the validator's message on one line, without the
// schema's internal URL.
func validationText(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	var parts []string
	for _, c := range leaves(ve) {
		if req, ok := c.ErrorKind.(*kind.Required); ok && len(c.InstanceLocation) == 0 {
			parts = append(parts, "missing required input(s): "+strings.Join(req.Missing, ", "))
			continue
		}
		parts = append(parts, "/"+strings.Join(c.InstanceLocation, "/")+": "+c.ErrorKind.LocalizedString(english))
	}
	return strings.Join(parts, "; ")
}

var english = message.NewPrinter(language.English)

func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func errorReply(id json.RawMessage, code int, message string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return b
}
