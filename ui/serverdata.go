package ui

import (
	"fmt"
	"strings"
	"time"

	"crewbench/mcpconn"
	"crewbench/session"
)

// serverData is what the workbench knows about every server: the
// workspace's declaration, the pool's latest snapshot, and what the UI
// collected from the pool's events (stderr, logging, progress, pings).
// Only the root's Update mutates it; views read it in View.
type serverData struct {
	order   []string
	entries map[string]ServerEntry
	status  map[string]mcpconn.ServerStatus
	stderr  map[string]*ring
	logs    map[string]*ring
	pings   map[string]pingInfo
	health  map[string]*mcpconn.HealthResult
}

type pingInfo struct {
	rtt time.Duration
	err string
}

const (
	stderrLines = 500
	logLines    = 500
)

func newServerData(entries []ServerEntry) *serverData {
	d := &serverData{
		entries: map[string]ServerEntry{}, status: map[string]mcpconn.ServerStatus{},
		stderr: map[string]*ring{}, logs: map[string]*ring{}, pings: map[string]pingInfo{},
		health: map[string]*mcpconn.HealthResult{},
	}
	for _, e := range entries {
		name := mcpconn.Handle(e.Spec)
		if _, dup := d.entries[name]; dup {
			continue
		}
		d.order = append(d.order, name)
		d.entries[name] = e
	}
	return d
}

func (d *serverData) ensure(name string) {
	if _, ok := d.entries[name]; ok {
		return
	}
	d.order = append(d.order, name)
	d.entries[name] = ServerEntry{Spec: mcpconn.ServerSpec{Name: name}}
}

// spec returns the server's spec.
func (d *serverData) spec(name string) (mcpconn.ServerSpec, bool) {
	e, ok := d.entries[name]
	return e.Spec, ok
}

// discovery returns the server's latest tool listing, or nil.
func (d *serverData) discovery(name string) *mcpconn.Discovery {
	return d.status[name].Discovery
}

// setStatus takes a pool snapshot. Servers the workspace did not declare
// (added by an adapter-policy call, say) are listed after the others.
func (d *serverData) setStatus(st []mcpconn.ServerStatus) {
	for _, s := range st {
		d.ensure(s.Name)
		d.status[s.Name] = s
	}
}

func (d *serverData) counts() (ready, connecting, failed int) {
	for _, n := range d.order {
		s, ok := d.status[n]
		switch {
		case !ok || s.State == mcpconn.StateConnecting:
			connecting++
		case s.State == mcpconn.StateReady:
			ready++
		case s.State == mcpconn.StateFailed:
			failed++
		}
	}
	return
}

func (d *serverData) setPing(name string, rtt time.Duration, err error) {
	p := pingInfo{rtt: rtt}
	if err != nil {
		p.err = err.Error()
	}
	d.pings[name] = p
}

func (d *serverData) log(name string) *ring {
	r := d.logs[name]
	if r == nil {
		r = newRing(logLines)
		d.logs[name] = r
	}
	return r
}

// absorb files a batch of pool events and reports whether a server's
// state or tool list changed (the root then reloads the snapshot once).
func (d *serverData) absorb(events []session.Event) (changed bool) {
	for _, ev := range events {
		name := ev.Server
		if name == "" {
			continue
		}
		switch ev.Kind {
		case session.MCPServerState, session.MCPToolsListed:
			changed = true
			if ev.Kind == session.MCPServerState {
				line := "state " + ev.Str(session.KeyState)
				if ev.Error != "" {
					line += ": " + ev.Error
				}
				d.log(name).add(stamp(ev) + line)
			}
		case session.MCPStderr:
			r := d.stderr[name]
			if r == nil {
				r = newRing(stderrLines)
				d.stderr[name] = r
			}
			r.add(ev.Str(session.KeyLine))
		case session.MCPNotification:
			d.log(name).add(stamp(ev) + notificationLine(ev))
		case session.MCPProcessSpawned:
			d.log(name).add(stamp(ev) + fmt.Sprintf("spawned pid %d", ev.Int("pid")))
		case session.MCPProcessExited:
			line := fmt.Sprintf("pid %d exited", ev.Int("pid"))
			if c, ok := ev.Data["exit_code"]; ok {
				line += fmt.Sprintf(" (code %v)", c)
			}
			d.log(name).add(stamp(ev) + line)
		case session.Warning:
			d.log(name).add(stamp(ev) + "warning: " + ev.Str(session.KeyMessage))
		}
	}
	return changed
}

func stamp(ev session.Event) string {
	if ev.Time.IsZero() {
		return ""
	}
	return ev.Time.Format("15:04:05") + " "
}

// notificationLine renders logging and progress notifications.
func notificationLine(ev session.Event) string {
	switch ev.Str("kind") {
	case "logging":
		data := ev.Data["data"]
		s, ok := data.(string)
		if !ok {
			s = jsonLine(data)
		}
		lvl := ev.Str("level")
		if lg := ev.Str("logger"); lg != "" {
			lvl += " " + lg
		}
		return fmt.Sprintf("log [%s] %s", lvl, s)
	case "progress":
		progress, total := fmt.Sprint(ev.Data["progress"]), ""
		line := "progress " + progress
		if t, ok := ev.Data["total"]; ok {
			total = fmt.Sprint(t)
			line += "/" + total
		}
		if msg := ev.Str("message"); msg != "" {
			if strings.Contains(msg, progress) && strings.Contains(msg, total) {
				return "progress: " + msg // the message already says how far
			}
			line += " " + msg
		}
		return line
	case "tools_list_changed":
		return "tools/list_changed: listing again"
	}
	return "notification " + ev.Str("method")
}
