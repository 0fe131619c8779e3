package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// projectSessions lists this project's run and call, and another
// project's run.
type projectSessions struct{ fakeSessions }

func (s projectSessions) List(ctx context.Context) ([]SessionInfo, error) {
	l, _ := s.fakeSessions.List(ctx)
	for i := range l {
		l[i].Project = "/work/weather"
	}
	other := l[0]
	other.Path, other.Name, other.Project, other.About = "/state/sessions/20261127T080000Z-ffffff.jsonl", "20261127T080000Z-ffffff.jsonl", "/work/other", "crew Other Crew"
	return append(l, other), nil
}

// Test7SessionsIsThisProjects: 7 Sessions lists this project's sessions
// (a toggles every project's), c compares a run only with a run, and at
// 80 columns ABOUT has room.
func Test7SessionsIsThisProjects(t *testing.T) {
	deps := goldenDeps()
	deps.Sessions = projectSessions{}
	deps.Workspace.Dir = "/work/weather"
	m := settled(t, deps, 80, 24)
	l, _ := projectSessions{}.List(context.Background())
	m = step(t, m, sessionsListedMsg{list: l})
	m = step(t, m, keyRunes("7"))
	v := ansi.Strip(m.View())
	if strings.Contains(v, "Other Crew") || !strings.Contains(v, "2 recorded in this project, 3 in all (a: all)") {
		t.Errorf("another project's session is listed:\n%s", v)
	}
	if !strings.Contains(v, "a1b2c3  crew Weekend Weather Brief") {
		t.Errorf("ABOUT has no room at 80 columns:\n%s", v)
	}
	m = stepAll(t, m, keyRunes("a"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Other Crew") {
		t.Errorf("a does not show every project's sessions:\n%s", v)
	}
	m = stepAll(t, m, keyRunes("a"))
	if len(m.sessions.list) != 2 {
		t.Errorf("a again lists %d sessions", len(m.sessions.list))
	}

	// c on the call session: a call is not compared with a run.
	m = step(t, m, keyRunes("j"))
	nm, cmd := m.Update(keyRunes("c"))
	m = nm.(Model)
	for _, msg := range runCmd(t, cmd, 1) {
		if _, ok := msg.(compareRunMsg); ok {
			t.Fatal("c compares a call session with a run")
		}
		m = step(t, m, msg)
	}
	if s := status(m); !strings.Contains(s, "this is a call session") {
		t.Errorf("status %q", s)
	}
}
