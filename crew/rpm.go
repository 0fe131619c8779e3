package crew

import (
	"context"
	"sync"
	"time"

	"crewbench/session"
)

// rpmLimiter is CrewAI's RPMController: at most max requests per one-minute
// window; at the limit the caller waits for the window to end (CrewAI logs
// "Max RPM reached, waiting for next minute to start." and sleeps until its
// 60 s reset timer fires).
type rpmLimiter struct {
	max   int
	now   func() time.Time
	mu    sync.Mutex
	start time.Time
	count int
}

func newRPMLimiter(max int, now func() time.Time) *rpmLimiter {
	return &rpmLimiter{max: max, now: now}
}

// wait blocks until a request may be made; notify is called once when it
// has to wait.
func (l *rpmLimiter) wait(ctx context.Context, notify func()) error {
	notified := false
	for {
		l.mu.Lock()
		now := l.now()
		if l.start.IsZero() || now.Sub(l.start) >= time.Minute {
			l.start, l.count = now, 0
		}
		if l.count < l.max {
			l.count++
			l.mu.Unlock()
			return nil
		}
		d := l.start.Add(time.Minute).Sub(now)
		l.mu.Unlock()
		if !notified {
			notify()
			notified = true
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// rpmWait applies the agent's limiter, or the crew's for agents without one.
func (rs *runState) rpmWait(ctx context.Context, a *Agent, base session.Event, parent string) error {
	var l *rpmLimiter
	if a.MaxRPM > 0 {
		rs.mu.Lock()
		l = rs.rpm[a]
		if l == nil {
			l = newRPMLimiter(a.MaxRPM, rs.now)
			rs.rpm[a] = l
		}
		rs.mu.Unlock()
	} else {
		l = rs.crewRPM
	}
	if l == nil {
		return nil
	}
	return l.wait(ctx, func() { rs.warn(parent, base, "Max RPM reached, waiting for next minute to start.") })
}
