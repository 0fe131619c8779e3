package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"crewbench/session"
)

// State is a pooled server's connection state.
type State string

// Pool states.
const (
	StateConnecting State = "connecting"
	StateReady      State = "ready"
	StateFailed     State = "failed"
	StateClosed     State = "closed"
)

// ServerStatus is a snapshot of one pooled server.
type ServerStatus struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// Class and Error explain StateFailed.
	Class     string     `json:"class,omitempty"`
	Error     string     `json:"error,omitempty"`
	Discovery *Discovery `json:"discovery,omitempty"`
	Pid       int        `json:"pid,omitempty"`
	Since     time.Time  `json:"since"`
}

// Pool keeps one live session per server: for the UI's server list, the
// adapter and session policies, tools/list_changed re-listing and pings.
// Native calls never use it (CrewAI opens a fresh session per call).
type Pool struct {
	em       *session.Emitter
	cache    *ToolsCache
	role     string
	dialFn   dialFunc
	auth     Authorizer
	features *ClientFeatures

	mu      sync.Mutex
	servers map[string]*pooled
	closed  bool
	wg      sync.WaitGroup // list_changed watchers
}

type pooled struct {
	spec    ServerSpec
	status  ServerStatus
	sess    mcpSession
	faults  *FaultState
	changed chan struct{} // tools/list_changed signals, coalesced
	stop    chan struct{}
	mu      sync.Mutex // serialises connect/reconnect of this server
}

// NewPool returns an empty pool emitting through em (nil: no events).
func NewPool(em *session.Emitter) *Pool {
	return &Pool{em: em, cache: &ToolsCache{}, servers: map[string]*pooled{}}
}

// SetAuthorizer makes the pool's connections of HTTP and SSE servers send
// a's stored tokens (crewbench's OAuth client): the pool is crewbench's own
// view of the servers (the workbench's server list, the session policy).
// A call under one of CrewAI's policies then opens a connection of its own
// instead of borrowing the pool's, so it sends only the configured
// headers. Call it before Connect.
func (p *Pool) SetAuthorizer(a Authorizer) { p.auth = a }

// addsToken says the pool's session for spec may carry a stored token that
// a call under policy must not send.
func (p *Pool) addsToken(spec ServerSpec, policy Policy) bool {
	return p.auth != nil && policy != PolicySession && spec.Transport != TransportStdio
}

// SetClientFeatures sets the client capabilities the pool's session-policy
// connections declare (elicitation, sampling, roots). Call it before
// Connect.
func (p *Pool) SetClientFeatures(f *ClientFeatures) { p.features = f }

// SetAgentRole sets context.agent_role for CEL filters evaluated by the pool.
func (p *Pool) SetAgentRole(role string) { p.role = role }

// Connect connects every spec concurrently and waits for all of them (each
// bounded by its own connect and discovery limits). A server that fails is
// left in StateFailed; Connect itself only fails when the pool is closed.
func (p *Pool) Connect(ctx context.Context, specs ...ServerSpec) error {
	var wg sync.WaitGroup
	for _, spec := range specs {
		e, err := p.add(spec)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.connectEntry(ctx, e)
		}()
	}
	wg.Wait()
	return nil
}

func (p *Pool) add(spec ServerSpec) (*pooled, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("pool is closed")
	}
	name := Handle(spec)
	if e, ok := p.servers[name]; ok {
		e.mu.Lock()
		e.spec = spec
		e.mu.Unlock()
		return e, nil
	}
	e := &pooled{spec: spec, faults: &FaultState{}, changed: make(chan struct{}, 1), stop: make(chan struct{}),
		status: ServerStatus{Name: name, State: StateClosed, Since: time.Now()}}
	p.servers[name] = e
	p.wg.Add(1)
	go p.watch(e)
	return e, nil
}

// connectEntry (re)connects one server and lists its tools on the new session.
func (p *Pool) connectEntry(ctx context.Context, e *pooled) (mcpSession, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess != nil {
		_ = e.sess.Close()
		e.sess = nil
	}
	spec := e.spec
	p.setState(e, StateConnecting, "", "", nil, 0)
	l := DiscoveryLimits(spec)
	cctx, cancel := withLimit(ctx, l.Connect)
	dialer := p.dialFn
	if dialer == nil {
		dialer = dial
	}
	s, err := dialer(cctx, spec, dialOptions{em: p.em, limits: l, faults: e.faults, listen: true, auth: p.auth, features: p.features,
		onListChanged: func() {
			select {
			case e.changed <- struct{}{}:
			default:
			}
		}})
	if err != nil {
		f := classifyDial(cctx, spec, err)
		cancel()
		p.setState(e, StateFailed, f.Class, connectText(spec, l, f)+" ("+f.Detail+")", nil, 0)
		return nil, err
	}
	cancel()
	d, err := p.discoverOn(ctx, spec, s)
	if err != nil {
		_ = s.Close()
		p.setState(e, StateFailed, d.Outcome, d.Error, d, 0)
		return nil, err
	}
	e.sess = s
	p.setState(e, StateReady, "", "", d, s.Pid())
	return s, nil
}

// discoverOn lists tools on an open session (the pool's view; CrewAI's own
// discovery opens a fresh connection each time — see Discover).
func (p *Pool) discoverOn(ctx context.Context, spec ServerSpec, s mcpSession) (*Discovery, error) {
	start := time.Now()
	d := newDiscovery(spec)
	d.Info = s.Info()
	l := DiscoveryLimits(spec)
	lctx, cancel := withLimit(ctx, l.Discovery)
	defer cancel()
	pages, err := listAll(lctx, s, l.MaxTools)
	if err != nil {
		f := s.failure(lctx, err, traceFrom(lctx))
		d.fail(f, f.Text)
		d.Fix = AuthHint(spec, f.Class, f.Detail+" "+f.Text, PolicyNative)
		d.Duration = time.Since(start)
		return d, fmt.Errorf("list tools of %s: %s", d.Server, f.Detail)
	}
	d.Info = s.Info()
	d.OAuth = d.Info.OAuthToken
	d.RawPages = pages
	if err := d.build(spec, pages, p.role); err != nil {
		d.Outcome, d.Error = session.OutcomeProtocol, err.Error()
		d.Duration = time.Since(start)
		return d, err
	}
	d.Outcome = session.OutcomeOK
	d.Duration = time.Since(start)
	p.em.Emit(session.Event{Kind: session.MCPToolsListed, Server: d.Server, Data: d.listedData()})
	return d, nil
}

func (p *Pool) setState(e *pooled, st State, class, msg string, d *Discovery, pid int) {
	p.mu.Lock()
	e.status.State, e.status.Class, e.status.Error, e.status.Since = st, class, msg, time.Now()
	if d != nil || st == StateConnecting {
		e.status.Discovery = d
	}
	e.status.Pid = pid
	name := e.status.Name
	p.mu.Unlock()
	data := map[string]any{"state": string(st)}
	if class != "" {
		data["class"] = class
	}
	if pid != 0 {
		data["pid"] = pid
	}
	p.em.Emit(session.Event{Kind: session.MCPServerState, Server: name, Outcome: class, Error: msg, Data: data})
}

// watch re-lists a server's tools when it says tools/list_changed. It runs
// on its own goroutine because notification handlers must never block the
// transport's read loop.
func (p *Pool) watch(e *pooled) {
	defer p.wg.Done()
	for {
		select {
		case <-e.stop:
			return
		case <-e.changed:
			if _, err := p.Relist(context.Background(), e.status.Name); err != nil {
				continue
			}
		}
	}
}

// Relist lists a ready server's tools again on its session.
func (p *Pool) Relist(ctx context.Context, name string) (*Discovery, error) {
	e := p.entry(name)
	if e == nil {
		return nil, fmt.Errorf("unknown server %q", name)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess == nil {
		return nil, fmt.Errorf("server %q is not connected", name)
	}
	d, err := p.discoverOn(ctx, e.spec, e.sess)
	if err != nil {
		return d, err
	}
	p.mu.Lock()
	e.status.Discovery = d
	p.mu.Unlock()
	return d, nil
}

func (p *Pool) entry(name string) *pooled {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.servers[name]
}

// Status returns a snapshot of every server, sorted by name.
func (p *Pool) Status() []ServerStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ServerStatus, 0, len(p.servers))
	for _, e := range p.servers {
		out = append(out, e.status)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ServerStatus returns one server's snapshot.
func (p *Pool) ServerStatus(name string) (ServerStatus, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.servers[name]
	if !ok {
		return ServerStatus{}, false
	}
	return e.status, true
}

// Reconnect closes a server's session (reaping its process) and connects again.
func (p *Pool) Reconnect(ctx context.Context, name string) (mcpSession, error) {
	e := p.entry(name)
	if e == nil {
		return nil, fmt.Errorf("unknown server %q", name)
	}
	return p.connectEntry(ctx, e)
}

// Ping pings a ready server within timeout and returns the round trip.
func (p *Pool) Ping(ctx context.Context, name string, timeout time.Duration) (time.Duration, error) {
	e := p.entry(name)
	if e == nil {
		return 0, fmt.Errorf("unknown server %q", name)
	}
	e.mu.Lock()
	s := e.sess
	e.mu.Unlock()
	if s == nil {
		return 0, fmt.Errorf("server %q is not connected", name)
	}
	pctx, cancel := withLimit(ctx, timeout)
	defer cancel()
	start := time.Now()
	if err := s.Ping(pctx); err != nil {
		f := s.failure(pctx, err, nil)
		return time.Since(start), fmt.Errorf("ping %s: %s (%s)", name, f.Class, f.Detail)
	}
	return time.Since(start), nil
}

// sessionFor returns the server's live session, connecting (or adding the
// spec) on demand.
func (p *Pool) sessionFor(ctx context.Context, spec ServerSpec) (mcpSession, error) {
	e := p.entry(Handle(spec))
	if e == nil {
		var err error
		if e, err = p.add(spec); err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	s := e.sess
	e.mu.Unlock()
	if s != nil {
		return s, nil
	}
	return p.connectEntry(ctx, e)
}

// Close closes every session and reaps every child process. It always
// returns after each server's shutdown sequence (close stdin, grace,
// SIGTERM, grace, SIGKILL) has run, concurrently across servers.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	entries := make([]*pooled, 0, len(p.servers))
	for _, e := range p.servers {
		entries = append(entries, e)
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range entries {
		close(e.stop)
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.mu.Lock()
			if e.sess != nil {
				_ = e.sess.Close()
				e.sess = nil
			}
			e.mu.Unlock()
			p.setState(e, StateClosed, "", "", nil, 0)
		}()
	}
	wg.Wait()
	p.wg.Wait()
	return nil
}
