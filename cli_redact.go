package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"crewbench/crew/project"
	"crewbench/session"
)

// One redaction for everything crewbench prints: executeRoot wraps stdout
// and stderr in a redactingWriter, so every command's output hides what
// the recordings hide (session.DefaultRedactor's rules and the values
// marked secret process-wide: a server's secret env values, credential
// headers and URL password, marked by mcpconn on connect; a project's
// secrets). --show-secrets turns it off.
//
// Until a command runs, only marked values are hidden: help, usage and
// crewbench's own error lines quote flags and configuration on purpose
// ("want key=value"), which the free-text rules would hide. Commands that
// quote configuration on purpose (lint findings, export-config's Python)
// keep that mode (annotation quotesConfig); commands whose stdout is a
// protocol stream rather than text for people (a fixture server, serve's
// stdio MCP) are annotated rawOutput: their stdout passes through
// untouched (their stderr, for people, is still redacted).

// outputAnnotation is the cobra.Command.Annotations key that says how a
// command's output is redacted, when not with the full rules.
const outputAnnotation = "crewbench/output"

// Annotations for commands whose output is not redacted by the rules.
var (
	// rawOutput: stdout is not redacted at all.
	rawOutput = map[string]string{outputAnnotation: "raw"}
	// quotesConfig: only marked values are hidden.
	quotesConfig = map[string]string{outputAnnotation: "quotes-config"}
)

// redactingWriter redacts whole lines: it keeps a partial line until its
// newline arrives (or Flush), so a secret split across two writes is still
// recognised. It is safe for concurrent writers (a call's progress lines
// come from the engine's goroutines).
type redactingWriter struct {
	mu  sync.Mutex
	w   io.Writer
	red *session.Redactor
	buf []byte
	// rules applies the free-text rules, not only the marked values.
	rules bool
	pass  bool // pass-through: no buffering, no redaction
}

func newRedactingWriter(w io.Writer, red *session.Redactor) *redactingWriter {
	return &redactingWriter{w: w, red: red}
}

// Write implements io.Writer. It reports len(p) once the bytes are taken
// (complete lines written, the rest kept).
func (r *redactingWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pass {
		return r.w.Write(p)
	}
	r.buf = append(r.buf, p...)
	end := bytes.LastIndexByte(r.buf, '\n')
	if end < 0 {
		return len(p), nil
	}
	lines := r.buf[:end+1]
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(lines), "\n") {
		if line != "" {
			body := strings.TrimSuffix(line, "\n")
			out.WriteString(r.redact(body))
			if len(body) < len(line) {
				out.WriteByte('\n')
			}
		}
	}
	r.buf = append(r.buf[:0], r.buf[end+1:]...)
	if _, err := io.WriteString(r.w, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a kept partial line (at exit, or before passing through).
func (r *redactingWriter) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked()
}

// CloseStdout flushes and, when the writer is the process's standard
// output, closes it: a reader then sees the end of the output while the
// command still has work to finish (reaping servers). Writes after it fail.
func (r *redactingWriter) CloseStdout() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.flushLocked()
	if f, ok := r.w.(*os.File); ok && f == os.Stdout {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

func (r *redactingWriter) flushLocked() error {
	if len(r.buf) == 0 {
		return nil
	}
	line := r.redact(string(r.buf))
	r.buf = r.buf[:0]
	_, err := io.WriteString(r.w, line)
	return err
}

func (r *redactingWriter) redact(line string) string {
	if !r.rules {
		return r.red.RedactMarked(line)
	}
	return redactLine(r.red, line)
}

// UseRules applies the free-text rules from now on.
func (r *redactingWriter) UseRules() {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.flushLocked()
	r.rules = true
}

// WriteOwn writes a line of crewbench's own (an error that quotes the
// user's flags) with only the marked values hidden.
func (r *redactingWriter) WriteOwn(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.flushLocked()
	if !r.pass {
		line = r.red.RedactMarked(line)
	}
	_, _ = io.WriteString(r.w, line)
}

// PassThrough stops redacting (and buffering) from now on.
func (r *redactingWriter) PassThrough() {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.flushLocked()
	r.pass = true
}

// unwrapWriter returns the writer under any redactingWriter: what a
// terminal check or the workbench (which redacts what it draws itself)
// must see.
func unwrapWriter(w io.Writer) io.Writer {
	if r, ok := w.(*redactingWriter); ok {
		return r.w
	}
	return w
}

// redactLine redacts one line of output. JSON output must stay JSON: when
// the free-text rules change anything but the insides of string literals
// (a rule ate a closing quote or an escape), the line is redacted piece by
// piece instead: each literal's decoded text on its own (a value by its
// key's name too, as in "password": "…"), encoded again, and the text
// between literals on its own.
func redactLine(red *session.Redactor, line string) string {
	out := red.RedactString(line)
	if out == line || sameSkeleton(line, out) {
		return out
	}
	var b strings.Builder
	key := "" // the literal before a ':', when the next literal is its value
	for _, p := range splitLiterals(line) {
		if !p.literal {
			b.WriteString(red.RedactString(p.text))
			if strings.TrimSpace(p.text) != ":" {
				key = ""
			}
			continue
		}
		var s string
		if json.Unmarshal([]byte(p.text), &s) != nil {
			b.WriteString(red.RedactMarked(p.text))
			key = ""
			continue
		}
		if key != "" && session.IsSecretHeader(key) {
			b.WriteString(encodeJSONString(session.RedactSecretValue(s)))
		} else {
			b.WriteString(encodeJSONString(red.RedactString(s)))
		}
		key = s
	}
	return b.String()
}

// linePiece is a double-quoted literal of a line, or the text between two.
type linePiece struct {
	text    string
	literal bool
}

// splitLiterals cuts s into literals (from a quote to the next quote not
// escaped by a backslash) and the text around them; an unterminated quote
// is text.
func splitLiterals(s string) []linePiece {
	var out []linePiece
	for s != "" {
		start := strings.IndexByte(s, '"')
		end := -1
		if start >= 0 {
			for i := start + 1; i < len(s); i++ {
				if s[i] == '\\' {
					i++
				} else if s[i] == '"' {
					end = i + 1
					break
				}
			}
		}
		if end < 0 {
			return append(out, linePiece{text: s})
		}
		if start > 0 {
			out = append(out, linePiece{text: s[:start]})
		}
		out = append(out, linePiece{text: s[start:end], literal: true})
		s = s[end:]
	}
	return out
}

// sameSkeleton says b differs from a only inside string literals, and
// each of b's literals still decodes.
func sameSkeleton(a, b string) bool {
	pa, pb := splitLiterals(a), splitLiterals(b)
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if pa[i].literal != pb[i].literal {
			return false
		}
		if !pa[i].literal && pa[i].text != pb[i].text {
			return false
		}
		var v string
		if pb[i].literal && json.Unmarshal([]byte(pb[i].text), &v) != nil {
			return false
		}
	}
	return true
}

func encodeJSONString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// markProjectSecrets marks p's secrets (its .env and overlay env values
// under secret names or of secret shapes, its servers' secrets, its LLM
// keys) process-wide, so every line the command prints hides them, not only
// what goes through a run's own redactor.
func markProjectSecrets(p *project.Project) {
	if p != nil {
		session.AddSecretValues(p.SecretValues()...)
	}
}

// addShowSecretsFlag adds the global --show-secrets flag and the hook that
// sets the redaction once the command is known: --show-secrets, or the
// command's output annotation (rawOutput concerns stdout only).
func addShowSecretsFlag(root *cobra.Command, stdout, stderr *redactingWriter) {
	root.PersistentFlags().Bool("show-secrets", false,
		"print secrets (tokens, passwords, secret env values) as they are; recordings stay redacted")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if show, _ := cmd.Flags().GetBool("show-secrets"); show {
			stdout.PassThrough()
			stderr.PassThrough()
			return nil
		}
		switch cmd.Annotations[outputAnnotation] {
		case "raw":
			stdout.PassThrough()
			stderr.UseRules()
		case "quotes-config":
		default:
			stdout.UseRules()
			stderr.UseRules()
		}
		return nil
	}
}
