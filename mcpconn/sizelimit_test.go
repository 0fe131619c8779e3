package mcpconn

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// A message over the per-server limit fails the call at once as a protocol
// error that names the limit and what CrewAI would have done, on every
// transport.
func TestMessageSizeLimit(t *testing.T) {
	for _, transport := range []string{"stdio", "http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			var spec ServerSpec
			if transport == "stdio" {
				spec = fixtureSpec(t, "huge", "--size", "2MiB")
			} else {
				spec = ServerSpec{Name: "huge-" + transport, Transport: TransportHTTP,
					URL: startHuge(t, transport, "2MiB")}
				if transport == "sse" {
					spec.Transport = TransportSSE
				}
			}
			spec.Timeouts.MaxMessage = 1 << 20
			spec.Timeouts.Attempts = 1
			start := time.Now()
			r := Call(context.Background(), spec, "huge_result", nil, Options{})
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %s; an oversized message must fail at once, not at the deadline", took)
			}
			if r.Outcome != session.OutcomeProtocol {
				t.Fatalf("outcome %q (%s), want protocol", r.Outcome, r.Error)
			}
			for _, want := range []string{"limit of 1 MiB per message", "max_message_bytes", "CrewAI has no such limit and would pass the whole result to the LLM"} {
				if !strings.Contains(r.Error, want) {
					t.Errorf("error %q lacks %q", r.Error, want)
				}
			}
		})
	}
}

func startHuge(t *testing.T, transport, size string) string {
	t.Helper()
	return fixturetest.StartHTTP(t, "huge", transport, "--size", size)
}

// A result just under the limit still arrives whole.
func TestMessageSizeLimitKeepsWhatFits(t *testing.T) {
	spec := fixtureSpec(t, "huge", "--size", "1000KiB")
	spec.Timeouts.MaxMessage = 2 << 20
	r := Call(context.Background(), spec, "huge_result", nil, Options{})
	if r.Outcome != session.OutcomeOK || len(r.Text) != 1000<<10 {
		t.Fatalf("outcome %q, %d bytes: %s", r.Outcome, len(r.Text), r.Error)
	}
}

// An endless stdout line costs the reader's buffer, not its length: 64 MiB
// over a 1 MiB limit raises the heap by a few MiB (reading the line whole
// held over 64 MiB at once).
func TestOversizedLineMemory(t *testing.T) {
	spec := fixtureSpec(t, "huge", "--size", "64MiB")
	spec.Timeouts.MaxMessage = 1 << 20
	spec.Timeouts.Attempts = 1
	// The fixture builds and writes 64 MiB; on a busy machine under -race
	// that outlasts the 30 s default, and a timeout would hide the verdict.
	spec.Timeouts.Call = 3 * time.Minute
	var r *CallResult
	rise := peakHeapRise(func() { r = Call(context.Background(), spec, "huge_result", nil, Options{}) })
	if r.Outcome != session.OutcomeProtocol {
		t.Fatalf("outcome %q: %s", r.Outcome, r.Error)
	}
	t.Logf("heap rose by %.1f MiB", float64(rise)/(1<<20))
	if rise > 24<<20 {
		t.Errorf("the heap rose by %d MiB for a 64 MiB line over a 1 MiB limit", rise>>20)
	}
}

// peakHeapRise runs f and returns how far the heap's objects rose above
// where they stood before it, sampled every millisecond with the GC kept
// tight. Unlike TotalAlloc this does not grow with how long f takes: on a
// busy machine the 64 MiB call took a minute, and what the rest of the
// process allocated in that minute (85 MiB in all) was counted against the
// reader.
func peakHeapRise(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := heap()
	var peak uint64
	note := func() {
		if h := heap(); h > base && h-base > peak {
			peak = h - base
		}
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				note()
			}
		}
	}()
	f()
	close(stop)
	<-stopped
	note()
	return peak
}

// Memory for a message of N bytes within the limit is a small multiple of N.
func BenchmarkStdioMessageMemory(b *testing.B) {
	const n = 8 << 20
	spec := fixtureSpec(b, "huge", "--size", fmt.Sprint(n))
	for b.Loop() {
		before := totalAlloc()
		r := Call(context.Background(), spec, "huge_result", nil, Options{})
		if r.Outcome != session.OutcomeOK {
			b.Fatal(r.Error)
		}
		b.ReportMetric(float64(totalAlloc()-before)/n, "alloc/byte")
	}
}

func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// A server listing more tools than the limit fails discovery with a
// message that says so.
func TestMaxToolsLimit(t *testing.T) {
	spec := fixtureSpec(t, "weather")
	spec.Timeouts.MaxTools = 1
	spec.Timeouts.Attempts = 1
	d, err := Discover(context.Background(), spec, Options{})
	if err == nil {
		t.Fatal("discovery of 2 tools under a limit of 1 succeeded")
	}
	if d.Outcome != session.OutcomeProtocol || !strings.Contains(d.Error, "limit of 1 per server (timeouts.max_tools)") {
		t.Errorf("outcome %q, error %q", d.Outcome, d.Error)
	}
}

// A legacy SSE stream that ends in the middle of an event fails the
// pending call at once as transport_closed, not at its deadline as a
// timeout.
func TestSSEStreamClosedMidEvent(t *testing.T) {
	stream := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			for ev := range stream {
				if _, err := io.WriteString(w, ev); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				if !strings.HasSuffix(ev, "\n\n") {
					return // the stream ends mid-event
				}
			}
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		var id string
		if i := strings.Index(string(body), `"id":`); i >= 0 {
			id = strings.SplitN(string(body)[i+5:], ",", 2)[0]
		}
		switch {
		case strings.Contains(string(body), `"initialize"`):
			stream <- `event: message` + "\n" + `data: {"jsonrpc":"2.0","id":` + id +
				`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"cut","version":"1"}}}` + "\n\n"
		case strings.Contains(string(body), `"tools/list"`):
			stream <- `event: message` + "\n" + `data: {"jsonrpc":"2.0","id":` + id +
				`,"result":{"tools":[{"name":"anything","inputSchema":{"type":"object"}}]}}` + "\n\n"
		case strings.Contains(string(body), `"tools/call"`):
			stream <- "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[{\"type\":\"te"
		}
	}))
	defer srv.Close()
	defer close(stream)
	spec := ServerSpec{Name: "cut", Transport: TransportSSE, URL: srv.URL + "/sse"}
	spec.Timeouts.Attempts = 1
	start := time.Now()
	r := Call(context.Background(), spec, "anything", nil, Options{})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s; a closed stream must fail the call at once", took)
	}
	if r.Outcome != session.OutcomeTransportClosed {
		t.Errorf("outcome %q (%s), want transport_closed", r.Outcome, r.Error)
	}
}

// A server that misses its connect deadline and ignores stdin closing is
// not given the full shutdown grace: the call ends within 1 s of the
// deadline (it took connect + 2 × grace).
func TestConnectTimeoutEndsNearDeadline(t *testing.T) {
	spec := fixtureSpec(t, "hang-init", "--ignore-eof")
	spec.Timeouts.Connect = 500 * time.Millisecond
	spec.Timeouts.Shutdown = 2 * time.Second
	em, col := recorder()
	start := time.Now()
	r := Call(context.Background(), spec, "anything", nil, Options{Emitter: em})
	took := time.Since(start)
	if r.Outcome != session.OutcomeTimeout {
		t.Errorf("outcome %q: %s", r.Outcome, r.Error)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("took %s for a 500ms connect timeout", took)
	}
	assertGone(t, spawnedPids(col))
}
