package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadOptions tune how strictly a session file is read.
type ReadOptions struct {
	// Lenient skips corrupt lines in the middle of the file (reporting each
	// as a Warning) instead of failing.
	Lenient bool
	// AnySchema tries to read files whose schema version is outside
	// MinSchemaVersion..SchemaVersion, with a warning, instead of failing.
	AnySchema bool
}

// ReadWarning is something wrong with a file that did not stop it loading.
type ReadWarning struct {
	Line int    // 1-based line number; 0 for the file as a whole
	Msg  string // what was wrong and what was done about it
}

func (w ReadWarning) String() string {
	if w.Line == 0 {
		return w.Msg
	}
	return fmt.Sprintf("line %d: %s", w.Line, w.Msg)
}

// File is a loaded session.
type File struct {
	Header   Header
	Events   []Event
	Warnings []ReadWarning
}

// LineError is a corrupt line in the middle of a session file.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrNotSession means the input does not start like a session file.
var ErrNotSession = errors.New("not a crewbench session file")

// SchemaError means the file's schema version is not one this crewbench
// reads.
type SchemaError struct {
	Schema  int    // the file's schema version
	Version string // the crewbench version that wrote it, if known
}

func (e *SchemaError) Error() string {
	by := ""
	if e.Version != "" {
		by = " (written by crewbench " + e.Version + ")"
	}
	if e.Schema > SchemaVersion {
		return fmt.Sprintf("session file schema v%d%s is newer than this crewbench reads (v%d..v%d); upgrade crewbench to open it",
			e.Schema, by, MinSchemaVersion, SchemaVersion)
	}
	return fmt.Sprintf("session file schema v%d%s is older than this crewbench reads (v%d..v%d); open it with the crewbench release that wrote it",
		e.Schema, by, MinSchemaVersion, SchemaVersion)
}

// ReadFile loads a session file.
func ReadFile(path string, opts ReadOptions) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	defer f.Close()
	s, err := Read(f, opts)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Read loads a whole session. On a corrupt line (without Lenient) it returns
// the error together with what was read before it.
func Read(r io.Reader, opts ReadOptions) (*File, error) {
	sr, err := NewReader(r, opts)
	if err != nil {
		return nil, err
	}
	out := &File{Header: sr.Header()}
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			out.Warnings = sr.Warnings()
			return out, err
		}
		out.Events = append(out.Events, ev)
	}
	out.Warnings = sr.Warnings()
	return out, nil
}

// Reader streams a session file event by event, for files too large to hold.
type Reader struct {
	br          *bufio.Reader
	opts        ReadOptions
	header      Header
	line        int
	pending     []byte // a first line that turned out to be an event (no header)
	pendingTorn bool
	warnings    []ReadWarning
	err         error
}

// NewReader reads the header line and returns a reader positioned at the
// first event. A file without a header whose first line is an event (the
// output of `crewbench run --json`) is read as schema 1, with a warning.
func NewReader(r io.Reader, opts ReadOptions) (*Reader, error) {
	sr := &Reader{br: bufio.NewReaderSize(r, 64<<10), opts: opts}
	for {
		line, terminated, err := sr.readLine()
		if err == io.EOF {
			return nil, fmt.Errorf("%w: the file is empty", ErrNotSession)
		}
		if err != nil {
			return nil, fmt.Errorf("read session: %w", err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if !terminated {
				return nil, fmt.Errorf("%w: the file is empty", ErrNotSession)
			}
			continue
		}
		if err := sr.parseHeader(line, terminated); err != nil {
			return nil, err
		}
		return sr, nil
	}
}

func (sr *Reader) parseHeader(line []byte, terminated bool) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		if !terminated {
			return fmt.Errorf("%w: the header line is incomplete", ErrNotSession)
		}
		return fmt.Errorf("%w: line %d is not JSON: %v", ErrNotSession, sr.line, err)
	}
	if _, ok := probe["crewbench_session"]; !ok {
		if _, isEvent := probe["type"]; isEvent {
			sr.header = Header{Schema: SchemaVersion}
			sr.warnings = append(sr.warnings, ReadWarning{Msg: "no header line (event stream from --json?); read as schema v1"})
			sr.pending, sr.pendingTorn = line, !terminated
			return nil
		}
		return fmt.Errorf("%w: the first line has no \"crewbench_session\" key", ErrNotSession)
	}
	if err := json.Unmarshal(line, &sr.header); err != nil {
		return fmt.Errorf("%w: bad header: %v", ErrNotSession, err)
	}
	if s := sr.header.Schema; s < MinSchemaVersion || s > SchemaVersion {
		serr := &SchemaError{Schema: s, Version: sr.header.Version}
		if !sr.opts.AnySchema {
			return serr
		}
		sr.warnings = append(sr.warnings, ReadWarning{Msg: serr.Error() + "; reading it anyway"})
	}
	return nil
}

// Header is the file's header.
func (sr *Reader) Header() Header { return sr.header }

// Warnings are the problems met so far (torn last line, skipped lines).
func (sr *Reader) Warnings() []ReadWarning { return append([]ReadWarning(nil), sr.warnings...) }

// Next returns the next event, io.EOF at the end, or a *LineError for a
// corrupt line (when not Lenient). A torn last line — one cut short by a
// crash, without its newline — is reported as a warning, never returned.
func (sr *Reader) Next() (Event, error) {
	if sr.err != nil {
		return Event{}, sr.err
	}
	for {
		var line []byte
		var terminated bool
		if sr.pending != nil {
			line, terminated = sr.pending, !sr.pendingTorn
			sr.pending = nil
		} else {
			var err error
			line, terminated, err = sr.readLine()
			if err != nil {
				if err != io.EOF {
					err = fmt.Errorf("read session: %w", err)
				}
				sr.err = err
				return Event{}, err
			}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev Event
		err := json.Unmarshal(line, &ev)
		if err == nil && ev.Kind == "" {
			err = errors.New(`no "type"`)
		}
		if err == nil {
			return ev, nil
		}
		if !terminated {
			// The last line, without its newline, does not parse: the writer
			// was killed mid-line. Everything before it is intact.
			sr.warnings = append(sr.warnings, ReadWarning{Line: sr.line,
				Msg: fmt.Sprintf("torn last line (%d bytes, the recording was cut off mid-write) ignored", len(line))})
			continue
		}
		if sr.opts.Lenient {
			sr.warnings = append(sr.warnings, ReadWarning{Line: sr.line, Msg: "corrupt line skipped: " + err.Error()})
			continue
		}
		sr.err = &LineError{Line: sr.line, Err: fmt.Errorf("corrupt event: %w", err)}
		return Event{}, sr.err
	}
}

// readLine returns the next line without its newline and whether it had
// one. It returns io.EOF only when nothing is left.
func (sr *Reader) readLine() ([]byte, bool, error) {
	line, err := sr.br.ReadBytes('\n')
	if len(line) == 0 && err != nil {
		return nil, false, err
	}
	sr.line++
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		return bytes.TrimSuffix(line[:n-1], []byte{'\r'}), true, nil
	}
	return line, false, nil
}
