package session

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// SpanStream turns events into spans as their scopes end, holding only the
// scopes still open: a finished scope's span is built, then its events and
// subtree are let go, so exporting a session takes memory for what is open
// at once, not for the whole file. BuildTraces is a SpanStream over a list.
type SpanStream struct {
	opts ExportOptions
	red  *Redactor
	tree *Tree
	// ended are finished exported scopes waiting out settleEvents more
	// events, oldest first: a failure reported just after a tool scope
	// closed (tool_failure_detected) still belongs to its span.
	ended []endedScope
	added int
}

type endedScope struct {
	n  *Node
	at int // s.added when it ended
}

// settleEvents is how many events a finished scope waits for late point
// events before its span is built.
const settleEvents = 256

// NewSpanStream starts an empty stream.
func NewSpanStream(opts ExportOptions) *SpanStream {
	t := NewTree()
	t.noIndex = true
	return &SpanStream{opts: opts, red: opts.Redactor.self(), tree: t}
}

// Add places one event and returns the spans that are now final.
func (s *SpanStream) Add(ev Event) []*tracepb.Span {
	n := s.tree.Add(s.red.RedactEvent(ev))
	s.added++
	// Scopes the event closed (an ancestor ended while they were open)
	// are final too, and go before the ancestor's span.
	for _, c := range s.tree.Closed() {
		if exported(c) && !c.spanBuilt {
			s.ended = append(s.ended, endedScope{n: c, at: s.added})
		}
	}
	if ev.Kind.IsEnd() && exported(n) && !n.spanBuilt {
		s.ended = append(s.ended, endedScope{n: n, at: s.added})
	}
	var out []*tracepb.Span
	for len(s.ended) > 0 && s.added-s.ended[0].at >= settleEvents {
		if sp := s.finish(s.ended[0].n); sp != nil {
			out = append(out, sp)
		}
		s.ended[0] = endedScope{}
		s.ended = s.ended[1:]
	}
	return out
}

// Close returns the remaining spans: finished scopes still settling, then
// scopes that never ended (closed at the session's last timestamp, marked
// crewbench.incomplete and crewbench.closed_by "session_end").
func (s *SpanStream) Close() []*tracepb.Span {
	var out []*tracepb.Span
	for _, e := range s.ended {
		if sp := s.finish(e.n); sp != nil {
			out = append(out, sp)
		}
	}
	s.ended = nil
	s.tree.Finish()
	var open []*Node
	s.tree.Walk(func(n *Node, _ int) bool {
		if exported(n) && !n.spanBuilt {
			open = append(open, n)
		}
		return true
	})
	for _, n := range open {
		if sp := s.finish(n); sp != nil {
			out = append(out, sp)
		}
	}
	return out
}

// finish builds n's span and, when nothing under it is still open, lets
// go of its subtree. Its ancestors keep a slim n (kind and ids) so that
// counts over children stay right.
func (s *SpanStream) finish(n *Node) *tracepb.Span {
	if n.spanBuilt {
		return nil
	}
	b := spanBuilder{opts: s.opts, tree: s.tree, sessionEnd: s.tree.last}
	sp := b.span(n)
	n.spanBuilt = true
	if (n.Ended || n.Status == StatusUnfinished) && !openBelow(n) {
		s.tree.release(n)
	}
	return sp
}

// openBelow reports whether an exported scope under n has no span yet.
func openBelow(n *Node) bool {
	for _, c := range n.Children {
		if (exported(c) && !c.spanBuilt) || openBelow(c) {
			return true
		}
	}
	return false
}

// OTLPJSONWriter writes OTLP/JSON as spans come: the same bytes
// MarshalOTLPJSON gives for the same spans in the same order, without
// holding them.
type OTLPJSONWriter struct {
	w     *bufio.Writer
	opts  ExportOptions
	begun bool
	err   error
}

// NewOTLPJSONWriter writes to w; Close finishes the document.
func NewOTLPJSONWriter(w io.Writer, opts ExportOptions) *OTLPJSONWriter {
	return &OTLPJSONWriter{w: bufio.NewWriterSize(w, 64<<10), opts: opts}
}

// Write appends spans to the document.
func (j *OTLPJSONWriter) Write(spans []*tracepb.Span) error {
	for _, sp := range spans {
		if j.err != nil {
			return j.err
		}
		if !j.begun {
			j.err = j.head()
			if j.err != nil {
				return j.err
			}
		} else {
			j.err = j.w.WriteByte(',')
		}
		var b []byte
		if b, j.err = marshalOTLPJSON(sp); j.err == nil {
			_, j.err = j.w.Write(b)
		}
	}
	return j.err
}

// head writes everything up to the first span: the resource and scope of
// wrapSpans, field order as the JSON encoder sorts it.
func (j *OTLPJSONWriter) head() error {
	j.begun = true
	env := wrapSpans(nil, j.opts)
	rs := env.ResourceSpans[0]
	res, err := marshalOTLPJSON(rs.Resource)
	if err != nil {
		return err
	}
	scope, err := marshalOTLPJSON(rs.ScopeSpans[0].Scope)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(j.w, `{"resourceSpans":[{"resource":%s,"scopeSpans":[{"scope":%s,"spans":[`, res, scope)
	return err
}

// Close ends the document and flushes it. With no spans written it writes
// the document MarshalOTLPJSON gives for none.
func (j *OTLPJSONWriter) Close() error {
	if j.err != nil {
		return j.err
	}
	if !j.begun {
		b, err := MarshalOTLPJSON(wrapSpans(nil, j.opts))
		if err != nil {
			return err
		}
		if _, err := j.w.Write(b); err != nil {
			return fmt.Errorf("write OTLP JSON: %w", err)
		}
	} else if _, err := j.w.WriteString("]}]}]}\n"); err != nil {
		return fmt.Errorf("write OTLP JSON: %w", err)
	}
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("write OTLP JSON: %w", err)
	}
	return nil
}

// marshalOTLPJSON is MarshalOTLPJSON for any OTLP message, without the
// trailing newline.
func marshalOTLPJSON(m proto.Message) ([]byte, error) {
	b, err := marshalOTLPJSONLine(m)
	return bytes.TrimSuffix(b, []byte("\n")), err
}

// FileExport exports a session file in two streaming passes, so no pass
// holds the file: Open reads it through once to check it and to harvest
// its secrets (as RedactorFor does for a list), Spans reads it again and
// hands spans over as they are final.
type FileExport struct {
	Header   Header
	Warnings []ReadWarning
	// Events is how many events the file holds.
	Events int
	// Opts are the export options with the file's redactor, version and
	// project filled in.
	Opts ExportOptions

	path string
	ro   ReadOptions
}

// OpenExport makes the first pass over the session at path. base's
// ServiceVersion is used when the file names none.
func OpenExport(path string, ro ReadOptions, base ExportOptions) (*FileExport, error) {
	x := &FileExport{path: path, ro: ro, Opts: base}
	seen := map[string]bool{}
	var secrets []string
	err := x.each(func(ev Event) error {
		x.Events++
		for _, v := range SecretValues([]Event{ev}) {
			if !seen[v] {
				seen[v] = true
				secrets = append(secrets, v)
			}
		}
		return nil
	})
	if err != nil {
		return x, err
	}
	if x.Header.Version != "" {
		x.Opts.ServiceVersion = x.Header.Version
	}
	x.Opts.Project = x.Header.Project
	x.Opts.Redactor = NewRedactor(secrets...)
	return x, nil
}

// each reads the file's events in order, recording its header and warnings.
func (x *FileExport) each(fn func(Event) error) error {
	f, err := os.Open(x.path)
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	defer f.Close()
	sr, err := NewReader(f, x.ro)
	if err != nil {
		return fmt.Errorf("%s: %w", x.path, err)
	}
	x.Header = sr.Header()
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			x.Warnings = sr.Warnings()
			return fmt.Errorf("%s: %w", x.path, err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	x.Warnings = sr.Warnings()
	return nil
}

// SpanBatch is about how many spans Spans hands over at a time.
const SpanBatch = 512

// Spans makes the second pass: sink gets the spans in batches of about
// SpanBatch as they are final. It returns how many spans and traces there
// were.
func (x *FileExport) Spans(sink func([]*tracepb.Span) error) (spans, traces int, err error) {
	st := NewSpanStream(x.Opts)
	traceIDs := map[string]bool{}
	var batch []*tracepb.Span
	flush := func(force bool) error {
		if len(batch) == 0 || (!force && len(batch) < SpanBatch) {
			return nil
		}
		for _, sp := range batch {
			traceIDs[string(sp.TraceId)] = true
		}
		spans += len(batch)
		err := sink(batch)
		batch = nil
		return err
	}
	err = x.each(func(ev Event) error {
		batch = append(batch, st.Add(ev)...)
		return flush(false)
	})
	if err != nil {
		return spans, len(traceIDs), err
	}
	// What is left was open at the end anyway, so already held.
	batch = append(batch, st.Close()...)
	err = flush(true)
	return spans, len(traceIDs), err
}

// WrapSpans is the trace data of one batch of spans.
func WrapSpans(spans []*tracepb.Span, opts ExportOptions) *tracepb.TracesData {
	return wrapSpans(spans, opts)
}
