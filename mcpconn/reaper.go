package mcpconn

import "sync"

// Reaper takes over closing the sessions of discoveries so that a caller can
// show their results before the servers have exited: a stdio server is
// given its shutdown grace (stdin closed, then SIGTERM, SIGKILL) while the
// caller prints. Wait blocks until every handed-over session is closed and
// its process reaped; a caller must call it before exiting.
type Reaper struct {
	wg sync.WaitGroup
}

// close closes s now (nil Reaper) or in the background.
func (r *Reaper) close(s mcpSession) {
	if r == nil {
		_ = s.Close()
		return
	}
	r.wg.Go(func() { _ = s.Close() })
}

// Wait returns once every session handed to r is closed.
func (r *Reaper) Wait() { r.wg.Wait() }
