package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"crewbench/fixtures"
	"crewbench/fixtures/fixturetest"
	"crewbench/session"
)

// What call prints hides what the recording hides: a secret env value the
// server echoes, a bearer token in a result; --json stays JSON, and
// --show-secrets shows them.
func TestCall_PrintedOutputIsRedacted(t *testing.T) {
	const secret = "sk-LEAKCHECK-9999"
	server := fixtureCommandLine(t, "reference")
	for _, asJSON := range []bool{false, true} {
		args := []string{"call", "--no-record", "--stdio", server, "--env", "MY_API_KEY=" + secret, "get_env"}
		if asJSON {
			args = append(args, "--json")
		}
		code, out, errs := run(t, args...)
		if code != exitOK || !strings.Contains(out, "MY_API_KEY") {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
		if strings.Contains(out+errs, secret) {
			t.Errorf("--json=%v prints the secret env value:\n%s%s", asJSON, out, errs)
		}
		if asJSON && !json.Valid([]byte(out)) {
			t.Errorf("--json output is not JSON:\n%s", out)
		}
		code, out, errs = run(t, "call", "--no-record", "--stdio", server, "issue_token", fmt.Sprintf("--json=%v", asJSON))
		if code != exitOK || strings.Contains(out+errs, fixtures.ReferenceBearerToken) || !strings.Contains(out, "Bearer "+session.Redacted) {
			t.Errorf("--json=%v: the bearer token must be hidden (exit %d):\n%s%s", asJSON, code, out, errs)
		}
	}
	_, out, _ := run(t, "call", "--no-record", "--show-secrets", "--stdio", server, "--env", "MY_API_KEY="+secret, "get_env")
	if !strings.Contains(out, secret) {
		t.Errorf("--show-secrets must print the value:\n%s", out)
	}
}

// A password in a server URL never reaches the output, in any form (the
// server names derived from it hold it lowercased).
func TestTools_URLPasswordIsNeverPrinted(t *testing.T) {
	url := fixturetest.StartHTTP(t, "weather", "http")
	url = strings.Replace(url, "://", "://user:SECRETPW@", 1)
	for _, flags := range [][]string{nil, {"--json"}} {
		code, out, errs := run(t, append(append([]string{"tools"}, flags...), "--url", url)...)
		if code != exitOK || !strings.Contains(out, "get_forecast") {
			t.Fatalf("%v: exit %d\n%s\n%s", flags, code, out, errs)
		}
		if strings.Contains(strings.ToLower(out+errs), "secretpw") {
			t.Errorf("%v prints the URL password:\n%s%s", flags, out, errs)
		}
		if len(flags) > 0 && !json.Valid([]byte(out)) {
			t.Errorf("--json output is not JSON:\n%s", out)
		}
	}
}

// Lines are redacted whole, however they are written, and a rule that
// would break a JSON line falls back to redacting its strings one by one.
func TestRedactingWriter(t *testing.T) {
	var buf bytes.Buffer
	w := newRedactingWriter(&buf, session.NewRedactor("marked-value-1234"))
	w.UseRules()
	for _, chunk := range []string{"token: Bea", "rer abcdefgh123456\nsee marked-", "value-1234", " here\npartial"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if got := buf.String(); got != "token: Bearer "+session.Redacted+"\nsee "+session.Redacted+" here\n" {
		t.Errorf("complete lines = %q", got)
	}
	if err := w.Flush(); err != nil || !strings.HasSuffix(buf.String(), "\npartial") {
		t.Errorf("Flush: %v, %q", err, buf.String())
	}
	for _, line := range []string{
		`{"k":"secret=abc\\\"def ghi","n":1}`,
		`{"k":"X-Api-Key: abcdefgh\\\"xyz","password":"hunter22x"}`,
		`{"k":"password=hunter2\",\"x\":\"y"}`,
	} {
		out := redactLine(session.DefaultRedactor, line)
		if !json.Valid([]byte(out)) || strings.Contains(out, "hunter2") || strings.Contains(out, "abcdefgh") {
			t.Errorf("redactLine(%s) = %s", line, out)
		}
	}
	// Before a command runs (help, usage), and for crewbench's own error
	// lines, only marked values are hidden.
	buf.Reset()
	own := newRedactingWriter(&buf, session.NewRedactor("marked-value-1234"))
	_, _ = own.Write([]byte("--input: want key=value, not marked-value-1234\n"))
	own.WriteOwn("crewbench: want token=value\n")
	if want := "--input: want key=value, not " + session.Redacted + "\ncrewbench: want token=value\n"; buf.String() != want {
		t.Errorf("marked-only = %q, want %q", buf.String(), want)
	}
	w.PassThrough()
	buf.Reset()
	_, _ = w.Write([]byte("Bearer abcdefgh123456"))
	if buf.String() != "Bearer abcdefgh123456" {
		t.Errorf("pass-through wrote %q", buf.String())
	}
}

// `tools` closes standard output once it has printed, before reaping the
// servers (issue 13, item 11): CloseStdout flushes the kept partial line
// and closes the process's stdout, so its reader sees the end at once; any
// other writer stays open.
func TestRedactingWriterCloseStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	saved := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = saved }()
	rw := newRedactingWriter(w, session.DefaultRedactor)
	fmt.Fprint(rw, "listed\npartial")
	if err := rw.CloseStdout(); err != nil {
		t.Fatal(err)
	}
	_ = r.SetReadDeadline(time.Now().Add(5 * time.Second)) // fail, not hang, if stdout stays open
	got, err := io.ReadAll(r)                              // returns only once the write end is closed
	if err != nil || string(got) != "listed\npartial" {
		t.Fatalf("read %q, %v", got, err)
	}

	var buf bytes.Buffer
	other := newRedactingWriter(&buf, session.DefaultRedactor)
	fmt.Fprint(other, "kept")
	if err := other.CloseStdout(); err != nil || buf.String() != "kept" {
		t.Fatalf("buffer %q, %v", buf.String(), err)
	}
	fmt.Fprint(other, " open\n")
	if buf.String() != "kept open\n" {
		t.Errorf("a writer other than stdout was closed: %q", buf.String())
	}
}
