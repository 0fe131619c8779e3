package mcpconn

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// messageTooLargeError is a message from the server over Limits.MaxMessage.
// It is a protocol failure: crewbench drops the message rather than hold
// it, where CrewAI would read all of it and hand a tool result, whole, to
// the LLM.
type messageTooLargeError struct {
	What  string // "stdout line", "HTTP body", "SSE event"
	Size  int64  // bytes seen; at least this many when Exact is false
	Exact bool
	Limit int64
}

func (e *messageTooLargeError) Error() string {
	size := fmt.Sprintf("more than %s", byteSize(e.Limit))
	if e.Exact {
		size = byteSize(e.Size)
	}
	return fmt.Sprintf("the server sent a message (%s) of %s, over crewbench's limit of %s per message "+
		"(timeouts.max_message_bytes); CrewAI has no such limit and would pass the whole result to the LLM",
		e.What, size, byteSize(e.Limit))
}

// tooManyToolsError is a tools/list over Limits.MaxTools.
type tooManyToolsError struct{ Seen, Limit int }

func (e *tooManyToolsError) Error() string {
	return fmt.Sprintf("the server listed more than %d tools (%d so far), over crewbench's limit of %d per server "+
		"(timeouts.max_tools); CrewAI has no such limit and would offer every tool to the LLM", e.Limit, e.Seen, e.Limit)
}

// byteSize prints n in the largest binary unit that keeps it readable.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitBody wraps an HTTP response body so no single message in it exceeds
// limit: the whole body for JSON, each event for an SSE stream. Over the
// limit, Read fails with a messageTooLargeError, which is also noted in
// the request's reqTrace (mcp-go does not always wrap read errors).
func limitBody(resp *http.Response, limit int64, tr *reqTrace) {
	if limit <= 0 || resp.Body == nil {
		return
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	lr := &limitedBody{rc: resp.Body, limit: limit, tr: tr, sse: mt == "text/event-stream"}
	resp.Body = lr
}

type limitedBody struct {
	rc    io.ReadCloser
	limit int64
	tr    *reqTrace
	sse   bool
	n     int64 // bytes of the current message (the body, or the SSE event)
	// prevNL says the last byte seen ended a line (ignoring '\r'), so a
	// following '\n' ends the SSE event.
	prevNL bool
	err    error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if !b.sse {
		b.n += int64(n)
	} else {
	scan:
		for _, c := range p[:n] {
			switch c {
			case '\r':
				continue
			case '\n':
				if b.prevNL {
					b.n = 0 // a blank line ends the event
				}
				b.prevNL = true
			default:
				b.prevNL = false
			}
			b.n++
			if b.n > b.limit {
				break scan
			}
		}
	}
	if b.n > b.limit {
		what := "HTTP body"
		if b.sse {
			what = "SSE event"
		}
		b.err = &messageTooLargeError{What: what, Size: b.n, Limit: b.limit}
		b.tr.set(func(t *reqTrace) { t.tooLarge = b.err })
		_ = b.rc.Close()
		return 0, b.err
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// tooLargeIn returns the size failure behind err, from err itself or from
// the traces of the request and the connection.
func tooLargeIn(err error, traces ...*reqTrace) error {
	var tl *messageTooLargeError
	var tm *tooManyToolsError
	if errors.As(err, &tl) {
		return tl
	}
	if errors.As(err, &tm) {
		return tm
	}
	for _, t := range traces {
		if t == nil {
			continue
		}
		t.mu.Lock()
		e := t.tooLarge
		t.mu.Unlock()
		if e != nil {
			return e
		}
	}
	return nil
}
