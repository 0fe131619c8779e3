package session

import (
	"encoding/hex"
	"net/http/httptest"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Spans of scopes that never ended end where the tree closed them — at
// the end of the ancestor that ended first, else at the session's last
// event — marked crewbench.incomplete and crewbench.closed_by, with no
// error status; the live exporter sends the same spans as a file export.
func TestOTLPUnfinishedSpans(t *testing.T) {
	var c Collector
	unfinishedRun(&c)
	evs := c.Events()
	at := func(kind Kind, span string) time.Time {
		for _, ev := range evs {
			if ev.Kind == kind && ev.Span == span {
				return ev.Time
			}
		}
		t.Fatalf("no %s for %s", kind, span)
		return time.Time{}
	}
	last := evs[len(evs)-1].Time
	want := map[string]struct {
		end time.Time
		by  string
	}{
		"u0": {at(AgentExecutionCompleted, "a"), "a"},
		"u":  {last, "session_end"},
		"t":  {last, "session_end"},
		"c":  {last, "session_end"},
	}
	file := allSpans(BuildTraces(evs, ExportOptions{}))
	bySpan := map[string]*tracepb.Span{}
	for _, sp := range file {
		bySpan[attrMap(sp.Attributes)["crewbench.span"].(string)] = sp
	}
	for span, w := range want {
		sp := bySpan[span]
		if sp == nil {
			t.Fatalf("no span for %s", span)
		}
		a := attrMap(sp.Attributes)
		if sp.EndTimeUnixNano != uint64(w.end.UnixNano()) || a["crewbench.closed_by"] != w.by || a["crewbench.incomplete"] != true {
			t.Errorf("%s: end %d closed_by %v incomplete %v, want %d %s true", span, sp.EndTimeUnixNano, a["crewbench.closed_by"], a["crewbench.incomplete"], w.end.UnixNano(), w.by)
		}
		if sp.Status.GetCode() != tracepb.Status_STATUS_CODE_UNSET {
			t.Errorf("%s: status %v, want unset (neither ok nor an error)", span, sp.Status)
		}
	}
	checkConventions(t, file)

	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	l := NewLiveExporter(&OTLPClient{Endpoint: srv.URL}, ExportOptions{}, LiveOptions{})
	for _, ev := range evs {
		l.Emit(ev)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	live := rc.spans()
	if len(live) != len(file) {
		t.Fatalf("live export sent %d spans, file export has %d", len(live), len(file))
	}
	ids := map[string]*tracepb.Span{}
	for _, sp := range file {
		ids[hex.EncodeToString(sp.SpanId)] = sp
	}
	for _, sp := range live {
		if w := ids[hex.EncodeToString(sp.SpanId)]; w == nil || !proto.Equal(w, sp) {
			t.Errorf("live span %s (%s) differs from the file export", sp.Name, attrMap(sp.Attributes)["crewbench.span"])
		}
	}
}
