package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// ClientFeatures are the MCP client capabilities crewbench can declare
// beyond CrewAI's: CrewAI's MCP client declares none, so a server that
// needs elicitation, sampling or roots fails under CrewAI (or hides the
// tools that need them). They are used under PolicySession only; the
// CrewAI policies declare exactly what CrewAI does (nothing) and answer a
// server that asks anyway as the MCP Python SDK does.
//
// Each capability is declared only when its field is set. The callbacks run
// on the transport's goroutine while the tool call that caused the request
// is waiting; they must honour ctx.
type ClientFeatures struct {
	// Elicit answers elicitation/create in form mode (nil: elicitation is
	// not declared).
	Elicit func(ctx context.Context, req ElicitRequest) (ElicitResponse, error)
	// Sample answers sampling/createMessage (nil: sampling is not declared).
	Sample func(ctx context.Context, req SampleRequest) (SampleResponse, error)
	// Roots answer roots/list (empty: roots are not declared).
	Roots []Root
	// Off says, per method (MethodElicit, MethodSample, MethodRoots), how a
	// user turns an undeclared capability on; it is sent to a server that
	// asks anyway, in the error that refuses it.
	Off map[string]string
}

// The server→client request methods ClientFeatures answer.
const (
	MethodElicit = "elicitation/create"
	MethodSample = "sampling/createMessage"
	MethodRoots  = "roots/list"
)

// Root is one roots/list entry.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// DirRoot is dir as a file:// root named after its last element.
func DirRoot(dir string) (Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, fmt.Errorf("root %s: %w", dir, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return Root{URI: u.String(), Name: filepath.Base(abs)}, nil
}

// ElicitRequest is a server's elicitation/create, form mode.
type ElicitRequest struct {
	Server  string `json:"server"`
	Message string `json:"message"`
	// Schema is requestedSchema as the server sent it; Fields its
	// properties in the schema's order.
	Schema json.RawMessage `json:"requested_schema,omitempty"`
	Fields []ElicitField   `json:"fields,omitempty"`
}

// ElicitField is one property of a requested schema (MCP allows flat
// objects of primitives: string, number, integer, boolean, enums).
type ElicitField struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Type        string   `json:"type"`
	Enum        []string `json:"enum,omitempty"`
	Required    bool     `json:"required,omitempty"`
	// Default is the schema's default (nil: none).
	Default any `json:"default,omitempty"`
}

// Elicitation actions.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitResponse is the user's answer.
type ElicitResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	// Note says how it was answered ("defaults applied"), for the events.
	Note string `json:"-"`
}

// ElicitDefaults answers a request without a person, as SEP-1034 asks of a
// client that cannot ask anyone: accept with every default the schema
// gives, and decline when a required field has no default (a value would
// have to be made up).
func ElicitDefaults(req ElicitRequest) ElicitResponse {
	content := map[string]any{}
	var missing []string
	for _, f := range req.Fields {
		switch {
		case f.Default != nil:
			content[f.Name] = f.Default
		case f.Required:
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		return ElicitResponse{Action: ElicitDecline,
			Note: "declined: required " + strings.Join(missing, ", ") + " without a default (no one to ask)"}
	}
	return ElicitResponse{Action: ElicitAccept, Content: content, Note: fmt.Sprintf("accepted with the schema's defaults (%d fields)", len(content))}
}

// SampleRequest is a server's sampling/createMessage.
type SampleRequest struct {
	Server       string          `json:"server"`
	SystemPrompt string          `json:"system_prompt,omitempty"`
	Messages     []SampleMessage `json:"messages"`
	MaxTokens    int             `json:"max_tokens"`
	Temperature  *float64        `json:"temperature,omitempty"`
	Stop         []string        `json:"stop,omitempty"`
	// ModelHints are the server's model name hints, in its order.
	ModelHints []string `json:"model_hints,omitempty"`
}

// SampleMessage is one message of a sampling request; non-text content is
// shown as a placeholder ("[image image/png]").
type SampleMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// SampleResponse is the LLM's reply.
type SampleResponse struct {
	Model string
	Text  string
	// StopReason is MCP's: endTurn, stopSequence, maxTokens (or the
	// provider's own when it maps to none).
	StopReason string
}

// RequestError is an error answer to a server request with its JSON-RPC
// code: callbacks return one to choose the code (otherwise -32603).
type RequestError struct {
	Code    int
	Message string
}

func (e *RequestError) Error() string { return e.Message }

// ErrUserRejected is the answer when the user refuses a sampling request
// (the MCP spec's example code -1).
var ErrUserRejected = &RequestError{Code: -1, Message: "User rejected sampling request"}

// Declared lists the capabilities f declares ("elicitation (form)",
// "sampling", "roots"); empty for nil (CrewAI's client).
func (f *ClientFeatures) Declared() []string {
	if f == nil {
		return nil
	}
	var out []string
	if f.Elicit != nil {
		out = append(out, "elicitation (form)")
	}
	if f.Sample != nil {
		out = append(out, "sampling")
	}
	if len(f.Roots) > 0 {
		out = append(out, "roots")
	}
	return out
}

// clientOptions are the mcp-go options that declare and answer f's
// capabilities. The capabilities are set explicitly so mcp-go declares no
// more than crewbench answers (its default roots capability claims
// listChanged, which crewbench never sends).
func (f *ClientFeatures) clientOptions(server string) []client.ClientOption {
	if f == nil {
		return nil
	}
	var caps mcp.ClientCapabilities
	var opts []client.ClientOption
	if f.Elicit != nil {
		caps.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}}
		opts = append(opts, client.WithElicitationHandler(elicitHandler{f: f.Elicit, server: server}))
	}
	if f.Sample != nil {
		caps.Sampling = &mcp.SamplingCapability{}
		opts = append(opts, client.WithSamplingHandler(sampleHandler{f: f.Sample, server: server}))
	}
	if len(f.Roots) > 0 {
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
		opts = append(opts, client.WithRootsHandler(rootsHandler(f.Roots)))
	}
	return append(opts, client.WithClientCapabilities(caps))
}

// crewAIRefusals are the MCP Python SDK's default callbacks' answers
// (mcp/client/session.py), which CrewAI never replaces.
var crewAIRefusals = map[string]string{
	MethodElicit: "Elicitation not supported",
	MethodSample: "Sampling not supported",
	MethodRoots:  "List roots not supported",
}

// refusal says whether a server request for method is refused on a
// connection declaring f (crewAI: CrewAI's wire), and with which text. The
// code is always -32600 (INVALID_REQUEST), as the SDK's.
func refusal(crewAI bool, f *ClientFeatures, method string) (string, bool) {
	sdk, known := crewAIRefusals[method]
	if !known {
		return "", false
	}
	if crewAI {
		return sdk, true
	}
	declared := false
	if f != nil {
		switch method {
		case MethodElicit:
			declared = f.Elicit != nil
		case MethodSample:
			declared = f.Sample != nil
		case MethodRoots:
			declared = len(f.Roots) > 0
		}
	}
	if declared {
		return "", false
	}
	text := sdk + ": crewbench did not declare this capability on this connection (CrewAI's MCP client declares none)"
	if f != nil && f.Off[method] != "" {
		text += "; " + f.Off[method]
	}
	return text, true
}

type elicitHandler struct {
	f      func(context.Context, ElicitRequest) (ElicitResponse, error)
	server string
}

func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	p := req.Params
	if p.Mode != "" && p.Mode != mcp.ElicitationModeForm {
		// Only form mode is declared; a URL-mode request is a protocol error.
		return nil, &RequestError{Code: mcp.INVALID_PARAMS, Message: "crewbench supports form-mode elicitation only (declared elicitation.form)"}
	}
	raw, err := requestedSchema(ctx, p.RequestedSchema)
	if err != nil {
		return nil, &RequestError{Code: mcp.INVALID_PARAMS, Message: "requestedSchema: " + err.Error()}
	}
	fields, err := ElicitFields(raw)
	if err != nil {
		return nil, &RequestError{Code: mcp.INVALID_PARAMS, Message: "requestedSchema: " + err.Error()}
	}
	resp, err := h.f(ctx, ElicitRequest{Server: h.server, Message: p.Message, Schema: raw, Fields: fields})
	if err != nil {
		return nil, err
	}
	switch resp.Action {
	case ElicitAccept, ElicitDecline, ElicitCancel:
	default:
		return nil, fmt.Errorf("elicitation answered with unknown action %q", resp.Action)
	}
	out := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(resp.Action)}}
	if resp.Action == ElicitAccept {
		c := resp.Content
		if c == nil {
			c = map[string]any{}
		}
		out.Content = c
	}
	return out, nil
}

// rawParamsKey carries a server request's params exactly as received
// (the tap puts them on the handler's context): mcp-go decodes
// requestedSchema into a map, which loses the order of its properties, and
// a form shows them in the server's order.
type rawParamsKey struct{}

// requestedSchema is the request's requestedSchema as the server wrote it,
// or parsed re-encoded when the raw params are not at hand.
func requestedSchema(ctx context.Context, parsed any) (json.RawMessage, error) {
	if raw, ok := ctx.Value(rawParamsKey{}).(json.RawMessage); ok {
		var p struct {
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		}
		if err := json.Unmarshal(raw, &p); err == nil && len(p.RequestedSchema) > 0 {
			return p.RequestedSchema, nil
		}
	}
	return json.Marshal(parsed)
}

// ElicitFields reads a requested schema's properties, in the schema's
// order. MCP restricts it to a flat object of primitives; a property of
// another type is an error (the server broke the contract).
func ElicitFields(schema json.RawMessage) ([]ElicitField, error) {
	var s struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("type %q, want object", s.Type)
	}
	if len(bytes.TrimSpace(s.Properties)) == 0 {
		return nil, nil
	}
	order, err := objectKeys(s.Properties)
	if err != nil {
		return nil, err
	}
	var props map[string]struct {
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Enum        []string `json:"enum"`
		Default     any      `json:"default"`
		OneOf       []struct {
			Const string `json:"const"`
		} `json:"oneOf"`
		// Items is a multi-select enum's (SEP-1330): {"type":"string",
		// "enum":[…]} or {"anyOf":[{"const":…,"title":…}]}.
		Items *struct {
			Type  string   `json:"type"`
			Enum  []string `json:"enum"`
			AnyOf []struct {
				Const string `json:"const"`
			} `json:"anyOf"`
		} `json:"items"`
	}
	if err := json.Unmarshal(s.Properties, &props); err != nil {
		return nil, err
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	out := make([]ElicitField, 0, len(order))
	for _, name := range order {
		p := props[name]
		enum := p.Enum
		for _, o := range p.OneOf { // titled single-select enums (SEP-1330)
			enum = append(enum, o.Const)
		}
		switch {
		case p.Type == "string", p.Type == "number", p.Type == "integer", p.Type == "boolean":
		case p.Type == "array" && p.Items != nil && (len(p.Items.Enum) > 0 || len(p.Items.AnyOf) > 0):
			// A multi-select enum: its choices are the items'.
			enum = append([]string{}, p.Items.Enum...)
			for _, o := range p.Items.AnyOf {
				enum = append(enum, o.Const)
			}
		default:
			return nil, fmt.Errorf("property %q: type %q is not a primitive (string, number, integer, boolean) or a multi-select enum", name, p.Type)
		}
		out = append(out, ElicitField{Name: name, Title: p.Title, Description: p.Description, Type: p.Type,
			Enum: enum, Required: req[name], Default: p.Default})
	}
	return out, nil
}

// objectKeys returns a JSON object's keys in document order.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("properties is not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

type sampleHandler struct {
	f      func(context.Context, SampleRequest) (SampleResponse, error)
	server string
}

func (h sampleHandler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	p := req.CreateMessageParams
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		// Sampling with tools needs sampling.tools, which is not declared.
		return nil, &RequestError{Code: mcp.INVALID_PARAMS, Message: "crewbench does not support tool use in sampling (sampling.tools is not declared)"}
	}
	sr := SampleRequest{Server: h.server, SystemPrompt: p.SystemPrompt, MaxTokens: p.MaxTokens, Stop: p.StopSequences}
	if p.Temperature != 0 {
		t := p.Temperature
		sr.Temperature = &t
	}
	if p.ModelPreferences != nil {
		for _, mh := range p.ModelPreferences.Hints {
			sr.ModelHints = append(sr.ModelHints, mh.Name)
		}
	}
	for _, m := range p.Messages {
		sr.Messages = append(sr.Messages, SampleMessage{Role: string(m.Role), Text: samplingText(m.Content)})
	}
	resp, err := h.f(ctx, sr)
	if err != nil {
		return nil, err
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(resp.Text)},
		Model:           resp.Model, StopReason: resp.StopReason,
	}, nil
}

// samplingText is a sampling message's content as text: text blocks
// joined, anything else named by its type and MIME type.
func samplingText(c any) string {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case mcp.ImageContent:
		return "[image " + v.MIMEType + "]"
	case mcp.AudioContent:
		return "[audio " + v.MIMEType + "]"
	case []mcp.Content:
		parts := make([]string, 0, len(v))
		for _, b := range v {
			parts = append(parts, samplingText(b))
		}
		return strings.Join(parts, "\n")
	case nil:
		return ""
	}
	b, _ := json.Marshal(c)
	return "[" + string(b) + "]"
}

type rootsHandler []Root

func (r rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	out := make([]mcp.Root, len(r))
	for i, root := range r {
		out[i] = mcp.Root{URI: root.URI, Name: root.Name}
	}
	return &mcp.ListRootsResult{Roots: out}, nil
}

// serverRequestSummary is the one-line account of a server request and
// its answer, for the events ("elicitation/create → accept").
func serverRequestSummary(method string, result json.RawMessage, rpcErr string) string {
	if rpcErr != "" {
		return method + " → refused: " + rpcErr
	}
	var r struct {
		Action string `json:"action"`
		Model  string `json:"model"`
		Roots  []Root `json:"roots"`
	}
	_ = json.Unmarshal(result, &r)
	switch method {
	case MethodElicit:
		return method + " → " + r.Action
	case MethodSample:
		return method + " → answered by " + r.Model
	case MethodRoots:
		uris := make([]string, len(r.Roots))
		for i, root := range r.Roots {
			uris[i] = root.URI
		}
		sort.Strings(uris)
		return method + " → " + strings.Join(uris, ", ")
	}
	return method + " → answered"
}

// ProbeFeatures declares every capability crewbench can, to compare what
// a server lists to such a client with what it lists to CrewAI's (which
// declares none): roots are roots (a server may ask for them at once),
// elicitation is declined and sampling refused (no one is there to ask).
func ProbeFeatures(roots []Root) *ClientFeatures {
	return &ClientFeatures{
		Elicit: func(context.Context, ElicitRequest) (ElicitResponse, error) {
			return ElicitResponse{Action: ElicitDecline}, nil
		},
		Sample: func(context.Context, SampleRequest) (SampleResponse, error) {
			return SampleResponse{}, &RequestError{Code: -1, Message: "crewbench is only comparing tool lists: sampling is not answered"}
		},
		Roots: roots,
	}
}

// OnlyListedWith returns the names of the tools capable lists and plain
// does not, in capable's order: the tools a server shows only to a client
// that declares capabilities.
func OnlyListedWith(plain, capable *Discovery) []string {
	seen := map[string]bool{}
	for _, t := range plain.Tools {
		seen[t.Name] = true
	}
	var out []string
	for _, t := range capable.Tools {
		if !seen[t.Name] {
			out = append(out, t.Name)
		}
	}
	return out
}
