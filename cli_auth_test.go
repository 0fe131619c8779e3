package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const crewAIOAuthHint = "CrewAI sends only the configured headers; this server needs OAuth — run `crewbench auth login "

// `tools` is crewbench's own look at a server: without a token the 401
// says what CrewAI needs; after `auth login` the listing uses the stored
// token and says CrewAI would not send it. Calls under CrewAI's policies
// (native, adapter) still send only the configured headers.
func TestStoredTokensInCrewbenchsOwnConnectionsOnly(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	fake := protectedServer(t)
	url := fake.MCPURL()

	code, out, errs := run(t, "tools", "--url", url)
	if code != exitConnection || !strings.Contains(out, "fix:     "+crewAIOAuthHint+url+"` and put the token in headers (see export-config)") {
		t.Fatalf("tools without a token: exit %d\n%s\n%s", code, out, errs)
	}
	if len(fake.Seen().AuthQueries) != 0 {
		t.Fatal("tools ran an OAuth flow")
	}
	if code, out, errs := run(t, "auth", "login", "--headless", url); code != 0 {
		t.Fatalf("login: exit %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = run(t, "tools", "--url", url)
	if code != 0 || !strings.Contains(out, "echo") || !strings.Contains(out, "listed with crewbench's stored OAuth token") {
		t.Fatalf("tools with a stored token: exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out+errs, "at-secret-") {
		t.Fatal("the token was printed")
	}
	code, out, _ = run(t, "tools", "--url", url, "--json")
	var reports []struct {
		OAuth bool `json:"oauth"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &reports); code != 0 || err != nil || len(reports) != 1 || !reports[0].OAuth || len(reports[0].Tools) != 1 {
		t.Fatalf("tools --json: exit %d %v\n%s", code, err, out)
	}

	for _, policy := range []string{"native", "adapter"} {
		before := len(fake.Bearers())
		code, out, errs := run(t, "call", "--url", url, "--policy", policy, "--no-record", "echo")
		if code != exitConnection || !strings.Contains(out, "fix:    "+crewAIOAuthHint+url+"`") {
			t.Fatalf("%s call: exit %d\n%s\n%s", policy, code, out, errs)
		}
		for _, b := range fake.Bearers()[before:] {
			if b != "" {
				t.Fatalf("the %s policy sent the stored token", policy)
			}
		}
	}
	code, out, errs = run(t, "call", "--url", url, "--policy", "session", "--no-record", "echo")
	if code != 0 || !strings.Contains(out, "hello") || strings.Contains(out, "fix:") {
		t.Fatalf("session call: exit %d\n%s\n%s", code, out, errs)
	}
}

// The session policy without a token says how to get one for crewbench.
func TestSessionPolicy401SaysHowToLogIn(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	fake := protectedServer(t)
	code, out, errs := run(t, "call", "--url", fake.MCPURL(), "--policy", "session", "--no-record", "--json", "echo")
	var r struct {
		Outcome, Fix string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitConnection || r.Outcome != "auth" ||
		r.Fix != "this server needs OAuth — run `crewbench auth login "+fake.MCPURL()+"`; crewbench's session policy then sends the stored token" {
		t.Fatalf("exit %d %v %+v\n%s\n%s", code, err, r, out, errs)
	}
}
