// Package serve is the MCP-server side of crewbench: it publishes tools
// over stdio or streamable HTTP. mcp-go stays behind this package's own
// types (Tool, Handler, Result, Progress), so what a published tool does
// is written without knowing the SDK.
package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
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
	mcp    *server.MCPServer
	screen *screen
}

// New builds a server publishing tools. The error is for an input schema
// that does not compile (calls are validated against it).
func New(info Info, tools ...Tool) (*Server, error) {
	scr, err := newScreen(tools)
	if err != nil {
		return nil, err
	}
	srv := server.NewMCPServer(info.Name, info.Version,
		server.WithToolCapabilities(false),
		server.WithLogging(),
		server.WithRecovery(),
		server.WithInstructions(info.Instructions))
	for _, t := range tools {
		tool := mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema)
		tool.Annotations = mcp.ToolAnnotation{Title: t.Title,
			ReadOnlyHint: mcp.ToBoolPtr(t.ReadOnly), OpenWorldHint: mcp.ToBoolPtr(t.OpenWorld)}
		srv.AddTool(tool, handlerOf(t.Name, t.Handler, scr))
	}
	return &Server{mcp: srv, screen: scr}, nil
}

// handlerOf adapts a Handler to mcp-go; arguments the input schema
// rejects never reach it (an isError result says why).
func handlerOf(name string, h Handler, scr *screen) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.GetArguments()
		if err := scr.validate(name, args); err != nil {
			return mcp.NewToolResultError("Invalid arguments for tool " + name + ": " + err.Error()), nil
		}
		ctx, stop := withServerLife(ctx)
		defer stop()
		r := h(ctx, args, progressOf(ctx, req))
		if ctx.Err() != nil && len(r.Text) == 0 {
			r = Result{Text: []string{"cancelled: " + context.Cause(ctx).Error()}, IsError: true}
		}
		res := &mcp.CallToolResult{IsError: r.IsError, StructuredContent: r.Structured}
		for _, s := range r.Text {
			res.Content = append(res.Content, mcp.NewTextContent(s))
		}
		return res, nil
	}
}

// lifeKey holds the context ServeHTTP was given: requests do not derive
// from it, so that a call cancelled by it can still send its answer.
type lifeKey struct{}

// withServerLife is the call's context, also ended when the server's life
// ends (the request's own context ends only when the client goes away).
func withServerLife(ctx context.Context) (context.Context, func()) {
	life, ok := ctx.Value(lifeKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(life, func() {
		cancel(fmt.Errorf("the server is shutting down (%w)", context.Cause(life)))
	})
	return cctx, func() { stop(); cancel(nil) }
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
//
// Every line is screened first (see screen) and bounded by MaxMessage; a
// refused message is answered here, on the same writer mcp-go uses.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, errLog *log.Logger) error {
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(errLog)
	lw := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go s.screenLines(in, pw, lw)
	err := ss.Listen(ctx, pr, lw)
	_ = pr.Close() // unblocks screenLines' next write
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		return err
	}
	return nil
}

// MaxMessage bounds one incoming JSON-RPC message (a stdio line or an
// HTTP body): far above any real tools/call, far below what would take
// the machine's memory.
const MaxMessage = 4 << 20

// screenLines copies in to pw line by line, answering on out the lines
// the screen refuses and the ones over MaxMessage.
func (s *Server) screenLines(in io.Reader, pw *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessage)
		switch {
		case tooLong:
			_, _ = out.Write(append(errorReply(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: message over %d bytes", MaxMessage)), '\n'))
		case len(bytes.TrimSpace(line)) > 0:
			if reply := s.screen.check(line); reply != nil {
				_, _ = out.Write(append(reply, '\n'))
			} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			_ = pw.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line without its newline, at most max bytes of it;
// a longer line is consumed and reported as tooLong.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// lockedWriter keeps whole writes whole when the screen and mcp-go both
// answer on one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// HTTPOptions are the streamable-HTTP server's access rules, limits,
// logs and start report.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN); others get 401.
	Token string
	// AllowRemote lets addr be other than a loopback address.
	AllowRemote bool
	// Limits bound what one client may take; zero fields take
	// DefaultHTTPLimits' values.
	Limits HTTPLimits
	// ErrorLog receives net/http's errors; Logger the MCP transport's.
	ErrorLog *log.Logger
	Logger   *slog.Logger
	// Listening is called with the endpoint's URL once it accepts
	// connections (ADDR port 0 picks a free port).
	Listening func(url string)
}

// ServeHTTP serves streamable HTTP at http://addr/mcp until ctx ends. Calls
// run under ctx, so cancelling it cancels the calls still running; their
// answers (isError, "cancelled: …") are still sent before the server stops.
func (s *Server) ServeHTTP(ctx context.Context, addr string, o HTTPOptions) error {
	if !o.AllowRemote && !IsLoopback(addr) {
		return fmt.Errorf("listen on %s: not a loopback address; serving other machines lets anyone who reaches it (and has the token) run the crew with your LLM key — allow it explicitly", addr)
	}
	lim := o.Limits.withDefaults()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	hs := &http.Server{
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		// Not ctx itself: mcp-go writes no response once the request's
		// context has ended, and the client would get 200 with no body.
		BaseContext: func(net.Listener) context.Context {
			return context.WithValue(context.WithoutCancel(ctx), lifeKey{}, ctx)
		},
		ErrorLog: o.ErrorLog,
	}
	var opts []server.StreamableHTTPOption
	opts = append(opts, server.WithStreamableHTTPServer(hs), server.WithSessionIdleTTL(lim.SessionIdle))
	if o.Logger != nil {
		opts = append(opts, server.WithStreamableHTTPLogger(o.Logger))
	}
	sh := server.NewStreamableHTTPServer(s.mcp, opts...)
	g := &guard{next: sh, screen: s.screen, token: o.Token, lim: lim, sessions: map[string]time.Time{}}
	mux := http.NewServeMux()
	mux.Handle("/mcp", g)
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
