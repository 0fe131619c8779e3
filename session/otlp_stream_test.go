package session

import (
	"bytes"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// The streamed OTLP/JSON is byte for byte what MarshalOTLPJSON gives.
func TestOTLPJSONWriterMatchesMarshal(t *testing.T) {
	evs := demoEvents()
	opts := ExportOptions{ServiceVersion: "v1", Project: "trip", IncludeContent: true}
	want, err := MarshalOTLPJSON(BuildTraces(evs, opts))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	jw := NewOTLPJSONWriter(&got, opts)
	st := NewSpanStream(opts)
	for _, ev := range evs {
		if err := jw.Write(st.Add(ev)); err != nil {
			t.Fatal(err)
		}
	}
	if err := jw.Write(st.Close()); err != nil {
		t.Fatal(err)
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("streamed JSON differs:\n got %.300s\nwant %.300s", got.Bytes(), want)
	}
	var empty bytes.Buffer
	if err := NewOTLPJSONWriter(&empty, opts).Close(); err != nil {
		t.Fatal(err)
	}
	if wantEmpty, _ := MarshalOTLPJSON(WrapSpans(nil, opts)); !bytes.Equal(empty.Bytes(), wantEmpty) {
		t.Errorf("no spans: %s, want %s", empty.Bytes(), wantEmpty)
	}
}

// A file export keeps only open scopes: 100k events take about what 10k
// take (holding the file made it 10×: 1.1 GB for 100k).
func TestFileExportMemoryStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100k events")
	}
	if raceDetector {
		t.Skip("measured without -race (scripts/test.sh runs it again)")
	}
	small := exportPeakHeap(t, 10_000)
	large := exportPeakHeap(t, 100_000)
	t.Logf("peak heap: 10k events %d KiB, 100k events %d KiB", small>>10, large>>10)
	if large > 3*small {
		t.Errorf("peak heap grows with the file: %d KiB for 100k events, %d KiB for 10k", large>>10, small>>10)
	}
}

// exportPeakHeap writes n events to a session file and exports it to
// OTLP/JSON, sampling the live heap after every batch.
func exportPeakHeap(t *testing.T, n int) uint64 {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	rec, err := Create(path, RecorderOptions{Header: Header{Version: "test", Project: "trip"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range manyEvents(n) {
		rec.Emit(ev)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	base := heapInUse()
	var peak uint64
	sample := func() {
		if h := heapInUse(); h > base && h-base > peak {
			peak = h - base
		}
	}
	x, err := OpenExport(path, ReadOptions{}, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Events != n {
		t.Fatalf("%d events read, %d written", x.Events, n)
	}
	jw := NewOTLPJSONWriter(io.Discard, x.Opts)
	spans, _, err := x.Spans(func(b []*tracepb.Span) error {
		sample()
		return jw.Write(b)
	})
	if err != nil || jw.Close() != nil || spans == 0 {
		t.Fatalf("export: %d spans, %v", spans, err)
	}
	sample()
	return peak
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
