package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"crewbench/session"
)

// Where a run's events go besides the live trace: the session recording
// and a live OpenTelemetry export. `crewbench replay --rerun` uses these
// flags; `crewbench run` can take them over with addSessionFlags and
// openSessionSinks (see their comments).

// sessionFlags are the recording and live-export flags of a command that
// runs a crew.
type sessionFlags struct {
	// recordByDefault: without --record, record to a new file in the
	// sessions directory unless --no-record is given.
	recordByDefault bool

	record       string
	noRecord     bool
	otlpEndpoint string
	otlpHeaders  []string
	otlpContent  bool

	// redactor, when the caller sets it (not a flag), hides the run's
	// project secrets (.env values, server credentials) in the recording
	// and the live export on top of the standard rules.
	redactor *session.Redactor
}

// addSessionFlags registers --record (and, when recordByDefault,
// --no-record), --otlp-endpoint, --otlp-header and --otlp-include-content.
//
// For `crewbench run` (the issue asks that every run be recorded, by
// default under $XDG_STATE_HOME/crewbench/sessions):
//
//	o.session = sessionFlags{recordByDefault: true}
//	addSessionFlags(cmd, &o.session)   // replaces run's own --record flag
func addSessionFlags(cmd *cobra.Command, o *sessionFlags) {
	f := cmd.Flags()
	if o.recordByDefault {
		f.StringVar(&o.record, "record", "", "record the session to `FILE` (default: a new file in "+sessionsDirHelp()+")")
		f.BoolVar(&o.noRecord, "no-record", false, "do not record the session")
	} else {
		f.StringVar(&o.record, "record", "", "record the session to `FILE` (JSONL)")
	}
	f.StringVar(&o.otlpEndpoint, "otlp-endpoint", "", "send spans live to an OTLP/HTTP collector at `URL` (http://localhost:4318 or its /v1/traces URL)")
	f.StringArrayVar(&o.otlpHeaders, "otlp-header", nil, "HTTP header `K=V` for the OTLP endpoint (repeatable; values are never printed)")
	f.BoolVar(&o.otlpContent, "otlp-include-content", false, "export prompts, replies, tool arguments and results (redacted) with the spans")
}

func sessionsDirHelp() string {
	if d, err := session.SessionsDir(); err == nil {
		return d
	}
	return "$XDG_STATE_HOME/crewbench/sessions"
}

// sessionSinks are the sinks openSessionSinks opened.
type sessionSinks struct {
	recorder *session.Recorder
	live     *session.LiveExporter
	endpoint string // redacted, for messages
}

// openSessionSinks opens the recorder and the live exporter the flags ask
// for and returns them as one sink (nil when there is none) with the
// function that closes them. Header.Version is filled in when empty. A bad
// endpoint or header is reported before anything is created, so a typo
// never costs a run.
//
// In `crewbench run`, after the emitter's sinks are assembled:
//
//	extra, closeSinks, err := openSessionSinks(&o.session, session.Header{Project: p.Dir, RunID: runID, Command: "run", Meta: …})
//	if err != nil { return exitCode(runExitFailed, err) }
//	sinks = append(sinks, extra)          // a nil Sink is skipped by Fanout
//	… crew.Kickoff …
//	if err := closeSinks(stderr); err != nil { fmt.Fprintf(stderr, "crewbench: %v\n", err) }
//
// closeSinks prints "session recorded to FILE" and "exported N spans to
// URL" on the writer it is given, and returns the recorder's and the
// exporter's errors joined.
func openSessionSinks(o *sessionFlags, h session.Header) (session.Sink, func(report io.Writer) error, error) {
	s := &sessionSinks{}
	var client *session.OTLPClient
	if o.otlpEndpoint != "" {
		target, err := session.TracesURL(o.otlpEndpoint)
		if err != nil {
			return nil, nil, fmt.Errorf("--otlp-endpoint: %w", err)
		}
		headers, err := parseHeaderFlags("--otlp-header", o.otlpHeaders)
		if err != nil {
			return nil, nil, err
		}
		client = &session.OTLPClient{Endpoint: target, Headers: headers, Timeout: 10 * time.Second}
		s.endpoint = session.RedactURL(target)
	} else if len(o.otlpHeaders) > 0 || o.otlpContent {
		return nil, nil, errors.New("--otlp-header and --otlp-include-content need --otlp-endpoint")
	}
	if o.record != "" && o.noRecord {
		return nil, nil, errors.New("give --record FILE or --no-record, not both")
	}
	if h.Version == "" {
		h.Version = buildVersion()
	}
	var err error
	switch {
	case o.record != "":
		s.recorder, err = session.Create(o.record, session.RecorderOptions{Header: h, Redactor: o.redactor})
	case o.recordByDefault && !o.noRecord:
		s.recorder, err = session.CreateInDir("", session.RecorderOptions{Header: h, Redactor: o.redactor})
	}
	if err != nil {
		return nil, nil, err
	}
	if client != nil {
		s.live = session.NewLiveExporter(client, session.ExportOptions{
			IncludeContent: o.otlpContent, ServiceVersion: h.Version, Project: h.Project, Redactor: o.redactor,
		}, session.LiveOptions{})
	}
	var sinks session.Fanout
	if s.recorder != nil {
		sinks = append(sinks, s.recorder)
	}
	if s.live != nil {
		sinks = append(sinks, s.live)
	}
	var sink session.Sink
	if len(sinks) > 0 {
		sink = sinks
	}
	return sink, s.close, nil
}

func (s *sessionSinks) close(report io.Writer) error {
	var errs []error
	if s.recorder != nil {
		if err := s.recorder.Close(); err != nil {
			errs = append(errs, fmt.Errorf("recording %s: %w", s.recorder.Path(), err))
		} else if report != nil {
			fmt.Fprintf(report, "session recorded to %s\n", s.recorder.Path())
		}
	}
	if s.live != nil {
		err := s.live.Close()
		if err != nil {
			errs = append(errs, err)
		}
		if report != nil {
			fmt.Fprintf(report, "exported %d spans to %s\n", s.live.Sent(), s.endpoint)
		}
	}
	return errors.Join(errs...)
}

// parseHeaderFlags reads repeated K=V flags into a header map. Values of
// credential headers are marked secret process-wide, so an endpoint that
// echoes one back in an error message cannot make crewbench print it.
func parseHeaderFlags(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			// Never echo the value: it is usually a credential.
			return nil, fmt.Errorf("%s: want NAME=VALUE, got an argument without \"=\" (not shown: it may be a credential)", flag)
		}
		if strings.ContainsAny(k, " \t\r\n:") {
			return nil, fmt.Errorf("%s: %q is not a valid header name", flag, k)
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("%s %s: the value must be one line", flag, k)
		}
		out[k] = v
	}
	session.AddSecretValues(session.NamedSecrets(nil, out)...)
	return out, nil
}

// sessionUseColor decides colour for a writer: "always", "never", or
// "auto" (a terminal, and NO_COLOR unset).
func sessionUseColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return os.Getenv("NO_COLOR") == "", nil
	case "never":
		return false, nil
	case "auto", "":
		return os.Getenv("NO_COLOR") == "" && sessionIsTerminal(w), nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", mode)
}

// sessionIsTerminal reports whether w is a character device (a terminal).
func sessionIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
