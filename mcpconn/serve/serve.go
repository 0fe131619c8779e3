// Package serve is the MCP-server side of crewbench: it publishes tools
// over stdio or streamable HTTP. mcp-go stays behind this package's own
// types (Tool, Handler, Result, Progress), so what a published tool does
// is written without knowing the SDK.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Info names the server in its initialize reply.
type Info struct {
	Name    string
	Version string
	// Instructions are the server's instructions for clients.
	Instructions string
}

// Tool is one published tool.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the tool's JSON Schema, sent as it is.
	InputSchema json.RawMessage
	// Title, ReadOnly and OpenWorld are the tool's annotations.
	Title     string
	ReadOnly  bool
	OpenWorld bool
	Handler   Handler
}

// Handler runs one tools/call. progress is nil when the client did not ask
// for progress (no progressToken in the request).
type Handler func(ctx context.Context, args map[string]any, progress Progress) Result

// Progress sends one progress notification to the client. A client that
// has gone away is not an error worth reporting: the call goes on.
type Progress func(progress, total float64, message string)

// Result is a tool call's result: text content items in order, whether it
// is an error result, and the structured content (nil: none).
type Result struct {
	Text       []string
	IsError    bool
	Structured any
}

// Server publishes tools.
type Server struct {
	mcp *server.MCPServer
}

// New builds a server publishing tools.
func New(info Info, tools ...Tool) *Server {
	srv := server.NewMCPServer(info.Name, info.Version,
		server.WithToolCapabilities(false),
		server.WithLogging(),
		server.WithRecovery(),
		server.WithInstructions(info.Instructions))
	for _, t := range tools {
		tool := mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema)
		tool.Annotations = mcp.ToolAnnotation{Title: t.Title,
			ReadOnlyHint: mcp.ToBoolPtr(t.ReadOnly), OpenWorldHint: mcp.ToBoolPtr(t.OpenWorld)}
		srv.AddTool(tool, handlerOf(t.Handler))
	}
	return &Server{mcp: srv}
}

// handlerOf adapts a Handler to mcp-go.
func handlerOf(h Handler) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := h(ctx, req.GetArguments(), progressOf(ctx, req))
		res := &mcp.CallToolResult{IsError: r.IsError, StructuredContent: r.Structured}
		for _, s := range r.Text {
			res.Content = append(res.Content, mcp.NewTextContent(s))
		}
		return res, nil
	}
}

// progressOf is the progress reporter of a request with a progressToken,
// or nil.
func progressOf(ctx context.Context, req mcp.CallToolRequest) Progress {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	token := req.Params.Meta.ProgressToken
	return func(progress, total float64, message string) {
		_ = srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
			"progressToken": token, "progress": progress, "total": total, "message": message,
		})
	}
}

// ServeStdio serves MCP on in and out until in ends or ctx is cancelled;
// both are a normal end. errLog receives the transport's errors.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, errLog *log.Logger) error {
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(errLog)
	err := ss.Listen(ctx, in, out)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// HTTPOptions are the streamable-HTTP server's logs and its start report.
type HTTPOptions struct {
	// ErrorLog receives net/http's errors; Logger the MCP transport's.
	ErrorLog *log.Logger
	Logger   *slog.Logger
	// Listening is called with the endpoint's URL once it accepts
	// connections (ADDR port 0 picks a free port).
	Listening func(url string)
}

// ServeHTTP serves streamable HTTP at http://addr/mcp until ctx ends. Calls
// run under ctx, so cancelling it cancels the calls still running.
func (s *Server) ServeHTTP(ctx context.Context, addr string, o HTTPOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	hs := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          o.ErrorLog,
	}
	var opts []server.StreamableHTTPOption
	opts = append(opts, server.WithStreamableHTTPServer(hs))
	if o.Logger != nil {
		opts = append(opts, server.WithStreamableHTTPLogger(o.Logger))
	}
	sh := server.NewStreamableHTTPServer(s.mcp, opts...)
	mux := http.NewServeMux()
	mux.Handle("/mcp", sh)
	hs.Handler = mux
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if o.Listening != nil {
		o.Listening(fmt.Sprintf("http://%s/mcp", ln.Addr()))
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_ = sh.Shutdown(sctx)
	cancel()
	_ = hs.Close()
	<-served
	return nil
}
