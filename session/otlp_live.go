package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// LiveOptions tune a LiveExporter.
type LiveOptions struct {
	// BatchSize sends as soon as this many spans are waiting (default 256).
	BatchSize int
	// Interval sends whatever is waiting at least this often (default 2s).
	Interval time.Duration
	// MaxQueue bounds the spans waiting for a slow endpoint (default
	// 10,000). Beyond it spans are dropped and counted: unlike the
	// recorder, an exporter must never hold up a run.
	MaxQueue int
}

// LiveExporter is a Sink that turns scopes into spans as they end and posts
// them in batches from a goroutine (`crewbench run --otlp-endpoint`). Span
// ids are the same as BuildTraces gives for the recorded session, so a live
// export and a later file export of the same run agree.
type LiveExporter struct {
	client *OTLPClient
	opts   ExportOptions
	lo     LiveOptions
	red    *Redactor

	mu      sync.Mutex
	tree    *Tree
	queue   []*tracepb.Span
	closed  bool
	dropped int
	last    time.Time

	kick chan struct{}
	stop chan struct{}
	done chan struct{}

	statMu   sync.Mutex
	sent     int
	requests int
	failures int
	firstErr error
}

// NewLiveExporter starts an exporter posting through client.
func NewLiveExporter(client *OTLPClient, opts ExportOptions, lo LiveOptions) *LiveExporter {
	if lo.BatchSize <= 0 {
		lo.BatchSize = 256
	}
	if lo.Interval <= 0 {
		lo.Interval = 2 * time.Second
	}
	if lo.MaxQueue <= 0 {
		lo.MaxQueue = 10000
	}
	l := &LiveExporter{
		client: client, opts: opts, lo: lo, red: opts.Redactor.self(), tree: NewTree(),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go l.loop()
	return l
}

// Emit adds ev to the exporter's tree; a scope that ends becomes a span.
func (l *LiveExporter) Emit(ev Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	ev = l.red.RedactEvent(ev)
	n := l.tree.Add(ev)
	if ev.Time.After(l.last) {
		l.last = ev.Time
	}
	// Scopes the event closed (an ancestor ended while they were open)
	// are final now, as in a file export.
	l.enqueue(l.tree.Closed())
	if !ev.Kind.IsEnd() || !exported(n) {
		return
	}
	l.enqueue([]*Node{n})
	if len(l.queue) >= l.lo.BatchSize || (n.Kind == NodeCrew && n.Parent == l.tree.Root) {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
}

// enqueue builds the spans of the exported scopes among ns. Called with
// l.mu held.
func (l *LiveExporter) enqueue(ns []*Node) {
	b := spanBuilder{opts: l.opts, tree: l.tree, sessionEnd: l.last}
	for _, n := range ns {
		if !exported(n) {
			continue
		}
		if len(l.queue) >= l.lo.MaxQueue {
			l.dropped++
			continue
		}
		l.queue = append(l.queue, b.span(n))
	}
}

func (l *LiveExporter) loop() {
	defer close(l.done)
	ticker := time.NewTicker(l.lo.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-l.kick:
		case <-ticker.C:
		case <-l.stop:
			l.send(context.Background(), true)
			return
		}
		l.send(context.Background(), false)
	}
}

// send posts everything queued, in batches. On the final flush a failed
// request ends it: the rest is counted as dropped rather than waiting out
// one timeout per batch on an endpoint that is down.
func (l *LiveExporter) send(ctx context.Context, final bool) {
	for {
		l.mu.Lock()
		n := min(len(l.queue), l.lo.BatchSize)
		batch := append([]*tracepb.Span(nil), l.queue[:n]...)
		l.queue = l.queue[n:]
		l.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		err := l.client.Export(ctx, wrapSpans(batch, l.opts))
		l.statMu.Lock()
		l.requests++
		if err != nil {
			l.failures++
			if l.firstErr == nil {
				l.firstErr = err
			}
		} else {
			l.sent += len(batch)
		}
		l.statMu.Unlock()
		if err != nil && final {
			l.mu.Lock()
			l.dropped += len(batch) + len(l.queue)
			l.queue = nil
			l.mu.Unlock()
			return
		}
	}
}

// Close sends what is left and reports failed requests and dropped spans.
// Each request has the client's own deadline.
func (l *LiveExporter) Close() error {
	l.mu.Lock()
	already := l.closed
	l.closed = true
	if !already {
		// The run is over: scopes still open are exported unfinished, as
		// a file export of the recording has them.
		l.tree.Finish()
		l.enqueue(l.tree.Closed())
	}
	l.mu.Unlock()
	if !already {
		close(l.stop)
	}
	<-l.done
	l.statMu.Lock()
	defer l.statMu.Unlock()
	var errs []error
	if l.failures > 0 {
		errs = append(errs, fmt.Errorf("otlp: %d of %d export requests failed, first: %w", l.failures, l.requests, l.firstErr))
	}
	l.mu.Lock()
	dropped := l.dropped
	l.mu.Unlock()
	if dropped > 0 {
		errs = append(errs, fmt.Errorf("otlp: %d spans not delivered (the endpoint failed or did not keep up)", dropped))
	}
	return errors.Join(errs...)
}

// Sent is the number of spans the endpoint accepted so far.
func (l *LiveExporter) Sent() int {
	l.statMu.Lock()
	defer l.statMu.Unlock()
	return l.sent
}
