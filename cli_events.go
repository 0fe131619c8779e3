package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"crewbench/session"
)

// What the commands that stream a run's events share (run, watch).

// eventJSONLines writes each event as one JSON line, redacted (run and
// watch --json).
type eventJSONLines struct {
	mu  sync.Mutex
	w   io.Writer
	red *session.Redactor
	err error
}

func (j *eventJSONLines) Emit(ev session.Event) {
	b, err := json.Marshal(j.red.RedactEvent(ev))
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	if err != nil {
		j.err = err
		return
	}
	_, j.err = j.w.Write(append(b, '\n'))
}

// finishEventSinks closes the session sinks and says on stderr what failed
// writing them, or the JSON-lines stream (nil when there is none).
func finishEventSinks(stderr io.Writer, closeSinks func(io.Writer) error, lines *eventJSONLines) {
	if err := closeSinks(stderr); err != nil {
		fmt.Fprintf(stderr, "crewbench: %v\n", err)
	}
	if lines != nil && lines.err != nil {
		fmt.Fprintf(stderr, "crewbench: writing events: %v\n", lines.err)
	}
}
