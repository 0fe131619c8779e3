package main

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"crewbench/session"
)

func TestOpenSessionSinks(t *testing.T) {
	events := sessionSpec{}.events()
	rcv := &otlpReceiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()

	t.Run("record to a file and export live", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		o := &sessionFlags{record: path, otlpEndpoint: srv.URL, otlpHeaders: []string{"Authorization=Bearer PLANTED-live-1234"}}
		sink, closeSinks, err := openSessionSinks(o, session.Header{Command: "run", RunID: "r1"})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			sink.Emit(ev)
		}
		var report bytes.Buffer
		if err := closeSinks(&report); err != nil {
			t.Fatal(err)
		}
		spans, _ := countSpans(session.BuildTraces(events, session.ExportOptions{}))
		if !strings.Contains(report.String(), "session recorded to "+path) || !strings.Contains(report.String(), fmt.Sprintf("exported %d spans to %s/v1/traces", spans, srv.URL)) {
			t.Errorf("report %q", report.String())
		}
		f, err := session.ReadFile(path, session.ReadOptions{})
		if err != nil || len(f.Events) != len(events) || f.Header.Version == "" || f.Header.RunID != "r1" {
			t.Fatalf("recorded %v events, header %+v, err %v", len(f.Events), f.Header, err)
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		if len(rcv.auth) == 0 || rcv.auth[0] != "Bearer PLANTED-live-1234" {
			t.Errorf("live export: %d requests, auth %v", len(rcv.auth), rcv.auth)
		}
	})

	t.Run("record by default into the sessions directory", func(t *testing.T) {
		state := t.TempDir()
		t.Setenv("XDG_STATE_HOME", state)
		sink, closeSinks, err := openSessionSinks(&sessionFlags{recordByDefault: true}, session.Header{})
		if err != nil {
			t.Fatal(err)
		}
		sink.Emit(events[0])
		if err := closeSinks(nil); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(state, "crewbench", "sessions", "*.jsonl"))
		if len(files) != 1 {
			t.Errorf("files %v", files)
		}
		sink, closeSinks, err = openSessionSinks(&sessionFlags{recordByDefault: true, noRecord: true}, session.Header{})
		if err != nil || sink != nil {
			t.Errorf("--no-record: sink %v err %v", sink, err)
		}
		_ = closeSinks(nil)
	})

	for _, tt := range []struct {
		o    sessionFlags
		want string
	}{
		{sessionFlags{otlpEndpoint: "collector:4318"}, "--otlp-endpoint"},
		{sessionFlags{otlpHeaders: []string{"A=b"}}, "need --otlp-endpoint"},
		{sessionFlags{otlpEndpoint: srv.URL, otlpHeaders: []string{"nobody"}}, "want NAME=VALUE"},
		{sessionFlags{recordByDefault: true, record: "x.jsonl", noRecord: true}, "not both"},
		{sessionFlags{record: filepath.Join(os.DevNull, "x.jsonl")}, "session recorder"},
	} {
		if _, _, err := openSessionSinks(&tt.o, session.Header{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err %v, want %q", tt.o, err, tt.want)
		}
	}
}

func TestAddSessionFlags(t *testing.T) {
	for _, byDefault := range []bool{false, true} {
		cmd := &cobra.Command{Use: "x"}
		o := &sessionFlags{recordByDefault: byDefault}
		addSessionFlags(cmd, o)
		args := []string{"--record", "f.jsonl", "--otlp-endpoint", "http://localhost:4318", "--otlp-header", "A=b", "--otlp-include-content"}
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		if o.record != "f.jsonl" || o.otlpEndpoint != "http://localhost:4318" || len(o.otlpHeaders) != 1 || !o.otlpContent {
			t.Errorf("parsed %+v", o)
		}
		if (cmd.Flags().Lookup("no-record") != nil) != byDefault {
			t.Errorf("recordByDefault %v: --no-record registered = %v", byDefault, !byDefault)
		}
	}
}
