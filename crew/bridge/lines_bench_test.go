//go:build unix

package bridge

import (
	"bufio"
	"bytes"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"crewbench/session"
)

// recordedLines runs the stub bench crew (about events CrewAI events)
// under the bridge and returns every line its connection sent, raw: what
// crewbench's side of a watched run reads, without the Python process
// competing for the CPU while it is measured.
func recordedLines(tb testing.TB, events int) [][]byte {
	tb.Helper()
	py := python3(tb)
	dir := tb.TempDir()
	if err := writePython(dir); err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "b.sock"))
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	got := make(chan [][]byte, 1)
	go func() {
		var lines [][]byte
		defer func() { got <- lines }()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReaderSize(c, 256<<10)
		for {
			b, err := br.ReadBytes('\n')
			if len(b) > 0 {
				if len(lines) == 0 { // the hello: answer with a config without breakpoints
					if _, err := c.Write([]byte(`{"op":"config","breakpoints":{}}` + "\n")); err != nil {
						return
					}
				}
				lines = append(lines, b)
			}
			if err != nil {
				return
			}
		}
	}()
	stub, _ := filepath.Abs("testdata/stub")
	cmd := exec.Command(py, "-m", "stubcrew.main", "bench", strconv.Itoa(events))
	cmd.Dir = "testdata/project"
	cmd.Env = append(stubEnv(tb), "PYTHONPATH="+dir+":"+stub, "CREWBENCH_BRIDGE_ADDR=unix:"+filepath.Join(dir, "b.sock"),
		"CREWBENCH_BRIDGE_TOKEN=bench", "STUB_LLM_LATENCY_MS=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("stub bench crew: %v\n%s", err, out)
	}
	select {
	case lines := <-got:
		dec, n := newLineDecoder(), 0
		for _, l := range lines {
			n += len(dec.decode(l, nil)) // a line may hold a run of events
		}
		if n < events {
			tb.Fatalf("the bridge sent %d lines of %d messages, want ≥ %d", len(lines), n, events)
		}
		return lines
	case <-time.After(time.Minute):
		tb.Fatal("the bridge's connection did not end")
	}
	return nil
}

// feedLines puts recorded bridge lines through crewbench's side of a
// watched run, as serve does, up to stage: "decode" (reading and decoding
// the lines), "translate" (plus putting them in order, translating them
// into session events and stamping them) or "record" (plus recording them
// to a file, redacted, until Close has synced it). It returns the number
// of CrewAI events.
func feedLines(tb testing.TB, wire []byte, stage, dir string) int {
	var sink session.Sink = session.Discard
	var rec *session.Recorder
	if stage == "record" {
		var err error
		if rec, err = session.Create(filepath.Join(dir, "bench.jsonl"), session.RecorderOptions{}); err != nil {
			tb.Fatal(err)
		}
		sink = rec
	}
	r := &Run{opts: Options{RunID: "run-1"}, em: session.NewEmitter(sink)}
	lines := make(chan []wireMsg, 16)
	go readLines(bytes.NewReader(wire), lines)
	if stage == "decode" {
		for batch := range lines {
			for _, m := range batch {
				if m.Op == "event" {
					r.res.Events++
				}
			}
		}
	} else {
		r.follow(nil, newTranslator("run-1", "1"), newReorder(DefaultGap), nil, lines)
	}
	if rec != nil {
		if err := rec.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return r.res.Events
}

// cpuTime is the process's user+system CPU so far: every goroutine's,
// the recorder's included.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWatchLines measures crewbench's side of a watched run per
// CrewAI event, on the lines a real bridge sent for the stub bench crew
// (issue 12, item 6: on 2 cores this CPU competes with the crew's own).
// The stages build on each other, so decode is the baseline the others
// are read against in the same run:
//
//	go test -run '^$' -bench WatchLines -count 5 ./crew/bridge/
func BenchmarkWatchLines(b *testing.B) {
	wire := bytes.Join(recordedLines(b, 10000), nil)
	for _, stage := range []string{"decode", "translate", "record"} {
		b.Run(stage, func(b *testing.B) {
			dir := b.TempDir()
			events := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				events += feedLines(b, wire, stage, dir)
			}
			cpu := cpuTime(b) - cpu0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "wall-ns/event")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
			b.ReportMetric(0, "ns/op") // an op is the whole run: per event is what compares
		})
	}
}
