package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// reqTrace collects what the wire saw for one client operation: the raw
// JSON results (mcp-go drops schema parts; gotcha 1), the JSON-RPC error
// with its code (mcp-go's error value keeps only sentinels), the HTTP status
// of a failed request, and which fault was injected. It travels in the
// request context, which mcp-go passes through to the transport and the
// HTTP round tripper unchanged.
type reqTrace struct {
	mu         sync.Mutex
	raw        json.RawMessage
	rpcErr     *mcp.JSONRPCErrorDetails
	httpStatus int
	fault      FaultKind
	// callID is the JSON-RPC id of this request's tools/call (the trace
	// also sees the tools/list the SDK may send on the same context).
	callID string
	// tooLarge is a message over the size limit seen on this request's
	// response (or on the connection's stream).
	tooLarge error
}

type traceKey struct{}

func withTrace(ctx context.Context) (context.Context, *reqTrace) {
	tr := &reqTrace{}
	return context.WithValue(ctx, traceKey{}, tr), tr
}

func traceFrom(ctx context.Context) *reqTrace {
	tr, _ := ctx.Value(traceKey{}).(*reqTrace)
	return tr
}

func (t *reqTrace) set(f func(*reqTrace)) {
	if t == nil {
		return
	}
	t.mu.Lock()
	f(t)
	t.mu.Unlock()
}

func (t *reqTrace) snapshot() (raw json.RawMessage, rpcErr *mcp.JSONRPCErrorDetails, status int, fault FaultKind) {
	if t == nil {
		return nil, nil, 0, ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.raw, t.rpcErr, t.httpStatus, t.fault
}

// requestID is the wire id of the traced tools/call ("" if none was sent).
func (t *reqTrace) requestID() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.callID
}

// frame is one JSON-RPC message as the tap saw it.
type frame struct {
	Out    bool
	Method string
	ID     string
	Size   int
	Body   []byte
}

// tap decorates an mcp-go transport. It is the one place that sees every
// request and response: it records raw results and errors into the
// request's reqTrace, reports frames, and injects the spec's faults on the
// client side, so a server can "fail" without being touched.
type tap struct {
	transport.Interface
	spec    ServerSpec
	faults  *FaultState
	onFrame func(frame)
	onClose func() // drop fault: tear the connection down
	// crewAI and features decide which server requests are answered
	// (refusal); onServerRequest reports each one answered or refused.
	crewAI          bool
	features        *ClientFeatures
	onServerRequest func(method, id, summary string, refused bool)

	// lost is closed when a legacy SSE stream ends, with lostErr saying
	// why: the responses of pending requests would have come on it, and
	// mcp-go would leave them waiting for their deadline.
	lost     chan struct{}
	lostOnce sync.Once
	lostErr  error
}

// watchStream makes requests fail at once when the SSE stream ends.
func (t *tap) watchStream(sse *transport.SSE) {
	t.lost = make(chan struct{})
	sse.SetConnectionLostHandler(func(err error) {
		t.lostOnce.Do(func() {
			if tooLargeIn(err) == nil {
				err = fmt.Errorf("the SSE stream ended (%w): %w", err, transport.ErrTransportClosed)
			}
			t.lostErr = err
			close(t.lost)
		})
	})
}

// sendWatched is the inner SendRequest, cut short when the stream is lost.
func (t *tap) sendWatched(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if t.lost == nil {
		return t.Interface.SendRequest(ctx, req)
	}
	select {
	case <-t.lost:
		return nil, t.lostErr
	default:
	}
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-t.lost:
			cancel()
		case <-ictx.Done():
		}
	}()
	resp, err := t.Interface.SendRequest(ictx, req)
	if err != nil && ctx.Err() == nil {
		select {
		case <-t.lost:
			return nil, t.lostErr
		default:
		}
	}
	return resp, err
}

func (t *tap) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	params, _ := json.Marshal(req.Params)
	id := req.ID.String()
	t.report(frame{Out: true, Method: req.Method, ID: id, Size: len(params), Body: params})
	tr := traceFrom(ctx)
	if req.Method == string(mcp.MethodToolsCall) {
		tr.set(func(r *reqTrace) { r.callID = id })
	}

	if req.Method == string(mcp.MethodToolsCall) && len(t.spec.Faults) > 0 {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(params, &p)
		if f, ok := t.faults.take(t.spec.Faults, p.Name); ok {
			tr.set(func(r *reqTrace) { r.fault = f.Kind })
			resp, err, handled := t.inject(ctx, req, f)
			if handled {
				if resp != nil {
					t.recordResponse(tr, req.Method, resp)
				}
				return resp, err
			}
		}
	}

	resp, err := t.sendWatched(ctx, req)
	if err != nil {
		return nil, err
	}
	t.recordResponse(tr, req.Method, resp)
	return resp, nil
}

func (t *tap) recordResponse(tr *reqTrace, method string, resp *transport.JSONRPCResponse) {
	body := []byte(resp.Result)
	if resp.Error != nil {
		body, _ = json.Marshal(resp.Error)
	}
	t.report(frame{Out: false, Method: method, ID: resp.ID.String(), Size: len(body), Body: body})
	tr.set(func(r *reqTrace) {
		r.raw = resp.Result // not copied: nothing writes to it, and it may be the whole message
		r.rpcErr = resp.Error
	})
}

// inject applies one fault. handled=false means "proceed to the server"
// (after a delay).
func (t *tap) inject(ctx context.Context, req transport.JSONRPCRequest, f Fault) (*transport.JSONRPCResponse, error, bool) {
	switch f.Kind {
	case FaultDelay:
		if err := sleepCtx(ctx, f.Delay); err != nil {
			return nil, err, true
		}
		return nil, nil, false
	case FaultHang:
		<-ctx.Done()
		return nil, ctx.Err(), true
	case FaultJSONRPCError:
		code, msg := f.Code, f.Message
		if code == 0 {
			code = mcp.INTERNAL_ERROR
		}
		if msg == "" {
			msg = "injected JSON-RPC error"
		}
		return transport.NewJSONRPCErrorResponse(req.ID, code, msg, nil), nil, true
	case FaultIsError:
		msg := f.Message
		if msg == "" {
			msg = "injected tool error"
		}
		res, _ := json.Marshal(mcp.NewToolResultError(msg))
		return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: res}, nil, true
	case FaultDrop:
		// Tear down aside: a stdio shutdown takes up to its grace period,
		// and the caller must see the drop at once, not its own deadline.
		if t.onClose != nil {
			go t.onClose()
		}
		return nil, transport.ErrTransportClosed, true
	case FaultGarbage:
		return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID,
			Result: json.RawMessage("\x00garbage{not json")}, nil, true
	}
	return nil, nil, false
}

func (t *tap) report(f frame) {
	if t.onFrame != nil {
		t.onFrame(f)
	}
}

func (t *tap) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.Interface.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		body, _ := json.Marshal(n.Params)
		t.report(frame{Out: false, Method: n.Method, Size: len(body), Body: body})
		h(n)
	})
}

// SetRequestHandler forwards server→client requests (elicitation,
// sampling, roots, ping) to mcp-go's handler, reporting each request and
// its answer as frames. A capability the connection did not declare is
// refused here, with the MCP Python SDK's answer on CrewAI's wire (mcp-go
// would say "no handler configured") and crewbench's own otherwise; an
// answer a callback refused with a RequestError keeps its code.
func (t *tap) SetRequestHandler(h transport.RequestHandler) {
	b, ok := t.Interface.(transport.BidirectionalInterface)
	if !ok {
		return
	}
	b.SetRequestHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		params, _ := json.Marshal(req.Params)
		id := req.ID.String()
		t.report(frame{Out: false, Method: req.Method, ID: id, Size: len(params), Body: params})
		var resp *transport.JSONRPCResponse
		if why, refused := refusal(t.crewAI, t.features, req.Method); refused {
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_REQUEST, why, nil)
		} else {
			r, err := h(context.WithValue(ctx, rawParamsKey{}, json.RawMessage(params)), req)
			var re *RequestError
			switch {
			case errors.As(err, &re):
				resp = transport.NewJSONRPCErrorResponse(req.ID, re.Code, re.Message, nil)
			case err != nil:
				resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
			default:
				resp = r
			}
		}
		if resp == nil {
			return nil, nil
		}
		body, errText := []byte(resp.Result), ""
		if resp.Error != nil {
			body, _ = json.Marshal(resp.Error)
			errText = resp.Error.Message
		}
		t.report(frame{Out: true, Method: req.Method, ID: id, Size: len(body), Body: body})
		if t.onServerRequest != nil && req.Method != string(mcp.MethodPing) {
			t.onServerRequest(req.Method, id, serverRequestSummary(req.Method, resp.Result, errText), errText != "")
		}
		return resp, nil
	})
}

// SetConnectionLostHandler forwards to transports that support it (SSE).
func (t *tap) SetConnectionLostHandler(h func(error)) {
	if s, ok := t.Interface.(interface{ SetConnectionLostHandler(func(error)) }); ok {
		s.SetConnectionLostHandler(h)
	}
}

// RequiresLegacyProtocol forwards mcp-go's optional transport interface.
func (t *tap) RequiresLegacyProtocol() bool {
	if l, ok := t.Interface.(interface{ RequiresLegacyProtocol() bool }); ok {
		return l.RequiresLegacyProtocol()
	}
	return false
}

// httpTap is a tap over an HTTP transport. It is a separate type because
// mcp-go changes behaviour (no notifications/cancelled, header handling)
// for any transport that implements HTTPConnection; a stdio tap must not.
type httpTap struct{ *tap }

func (h httpTap) SetProtocolVersion(v string) {
	if c, ok := h.Interface.(transport.HTTPConnection); ok {
		c.SetProtocolVersion(v)
	}
}

// FaultState counts how often each fault of a spec has fired, for Fault.Times.
// A Pool keeps one per server; a lone Call uses a fresh one, so "first N
// calls" then means the first N attempts of that call.
type FaultState struct {
	mu   sync.Mutex
	used map[int]int
}

// take returns the first fault matching tool that still has uses left.
func (s *FaultState) take(faults []Fault, tool string) (Fault, bool) {
	if s == nil {
		return Fault{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used == nil {
		s.used = map[int]int{}
	}
	for i, f := range faults {
		if f.Tool != "" && f.Tool != tool {
			continue
		}
		if f.Times > 0 && s.used[i] >= f.Times {
			continue
		}
		s.used[i]++
		return f, true
	}
	return Fault{}, false
}

// statusRecorder notes the status of failed HTTP responses in the request's
// reqTrace (or the connection's, for the SSE stream opened by Start), so 401,
// 403 and 404 are classified by status rather than by mcp-go's message.
// It also bounds every response body by the message size limit.
type statusRecorder struct {
	base       http.RoundTripper
	maxMessage int64
}

func (s statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if resp != nil && resp.StatusCode >= 400 {
		traceFrom(r.Context()).set(func(t *reqTrace) { t.httpStatus = resp.StatusCode })
	}
	if resp != nil {
		limitBody(resp, s.maxMessage, traceFrom(r.Context()))
	}
	return resp, err
}

// CloseIdleConnections forwards to the base transport; without it
// http.Client.CloseIdleConnections would silently do nothing and leave
// keep-alive goroutines behind.
func (s statusRecorder) CloseIdleConnections() {
	if c, ok := s.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
