package crew

import (
	"context"
	"sync"
	"time"

	"crewbench/session"
)

// rpmLimiter is CrewAI's RPMController (utilities/rpm_controller.py:46-57,
// 73-75): at most max requests between two firings of a 60 s reset timer
// that starts when the controller is created; at the limit CrewAI logs
// "Max RPM reached, waiting for next minute to start.", sleeps a fixed
// 60 s whatever is left of the window, and counts the request as the first
// of the new minute.
type rpmLimiter struct {
	max   int
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	mu    sync.Mutex
	// created starts the reset timer; period is the number of resets the
	// count has seen.
	created time.Time
	period  int64
	count   int
}

func newRPMLimiter(max int, now func() time.Time) *rpmLimiter {
	return &rpmLimiter{max: max, now: now, sleep: sleepContext, created: now()}
}

// sync applies the reset timer's firings up to now. Called with l.mu held.
func (l *rpmLimiter) sync() {
	if p := int64(l.now().Sub(l.created) / time.Minute); p != l.period {
		l.period, l.count = p, 0
	}
}

// wait blocks until a request may be made; notify is called when it has
// to wait.
func (l *rpmLimiter) wait(ctx context.Context, notify func()) error {
	l.mu.Lock()
	l.sync()
	if l.count < l.max {
		l.count++
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	notify()
	if err := l.sleep(ctx, time.Minute); err != nil {
		return err
	}
	l.mu.Lock()
	l.sync()
	l.count = 1
	l.mu.Unlock()
	return nil
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
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
